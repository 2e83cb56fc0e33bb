//! The native C API's argument handling: a fuzzer-chosen program of calls on up to two
//! handles — `sgcm_cipher_open/setkey/setiv/authenticate/encrypt/decrypt/gettag/
//! checktag/reset/close` and the one-shot `sgcm_seal`/`sgcm_open` — with fuzzer-chosen
//! algorithms, modes, flags, lengths (valid and not), NULL pointers, in place or not, at
//! any alignment.
//!
//! A model runs alongside: per handle the algorithm's key length and, through the Rust API
//! on the `soft` backend, the key and the message in progress. For each call the model
//! lists what is wrong with the arguments (NULL handle or buffer, key length, tag length,
//! short output, no key or IV); a call with nothing wrong must return what the model's
//! Rust call returns and produce its bytes, a call with something wrong one of the
//! matching codes (`native::Expect`) and change nothing (except `setiv`, documented to
//! drop the IV on error). Every buffer is guarded: nothing may be written outside the
//! bytes a call was given, and a rejected call writes nothing at all. At the end every
//! handle is closed (LeakSanitizer checks that this frees everything).
#![no_main]

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use stitchgcm::{gcm, BackendId, Key, Message};
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::{Codec, Visit};
use stitchgcm_fuzz::native::*;
use stitchgcm_fuzz::{filled, Seeds};

const MAX_OPS: usize = 64;
const MAX_DATA: usize = 2000;
const MAX_IV: usize = 300;
const MAX_AAD: usize = 600;
const ALGOS: [u32; 6] = [AES128 as u32, AES192 as u32, AES256 as u32, 0, 6, 10];
const MODES: [u32; 4] = [MODE_GCM as u32, 0, 8, 10];
const FLAGS: [u32; 5] = [0, 1, KNOWN_FLAGS, 0x20, 0x8000_0000];
const KEY_LENS: [usize; 10] = [16, 24, 32, 0, 1, 15, 17, 31, 33, 64];
const TAG_LENS: [usize; 17] = [16, 12, 13, 14, 15, 8, 4, 0, 1, 3, 5, 7, 9, 11, 17, 20, 64];

#[derive(Clone, Copy, Default, PartialEq, Debug)]
enum Kind {
    #[default]
    Open,
    Close,
    SetKey,
    SetIv,
    Authenticate,
    Encrypt,
    Decrypt,
    GetTag,
    CheckTag,
    Reset,
    Seal,
    OneShotOpen,
}
const KINDS: [Kind; 12] = [
    Kind::Open,
    Kind::Close,
    Kind::SetKey,
    Kind::SetIv,
    Kind::Authenticate,
    Kind::Encrypt,
    Kind::Decrypt,
    Kind::GetTag,
    Kind::CheckTag,
    Kind::Reset,
    Kind::Seal,
    Kind::OneShotOpen,
];

/// One call and all its arguments; each kind reads only the fields it uses.
#[derive(Clone, Default)]
struct Op {
    kind: Kind,
    slot: usize,
    /// 0..=3: no NULL pointer; 4 + i: the call's i-th pointer argument is NULL.
    null_sel: usize,
    algo: u32,
    mode: u32,
    flags: u32,
    key_len: usize,
    iv_len: usize,
    aad_len: usize,
    len: usize,
    /// Output size: 0 = exact, 1 = one more, 2 = 17 more, 3 = one less.
    out_size: usize,
    in_place: bool,
    tag_len: usize,
    /// 0: the right tag, 1: one bit flipped, 2: unrelated bytes.
    tag_kind: usize,
    bit: u16,
    seed: u8,
    off_in: usize,
    off_out: usize,
}

impl Op {
    fn null(&self, i: usize) -> bool {
        self.null_sel >= 4 && self.null_sel - 4 == i
    }
}

impl Visit for Op {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.pick(&mut self.kind, &KINDS);
        c.below(&mut self.slot, 2);
        c.below(&mut self.null_sel, 10);
        let one_shot = matches!(self.kind, Kind::Seal | Kind::OneShotOpen);
        match self.kind {
            Kind::Open => {
                c.pick_or_any(&mut self.algo, &ALGOS);
                c.pick_or_any(&mut self.mode, &MODES);
                c.pick_or_any(&mut self.flags, &FLAGS);
            }
            Kind::Close | Kind::Reset => {}
            Kind::SetKey => c.pick(&mut self.key_len, &KEY_LENS),
            Kind::SetIv => c.length(&mut self.iv_len, MAX_IV),
            Kind::Authenticate => c.length(&mut self.aad_len, MAX_AAD),
            Kind::Encrypt | Kind::Decrypt => {
                c.length(&mut self.len, MAX_DATA);
                c.below(&mut self.out_size, 4);
                c.bool(&mut self.in_place);
            }
            Kind::GetTag => c.pick(&mut self.tag_len, &TAG_LENS),
            Kind::CheckTag => {
                c.pick(&mut self.tag_len, &TAG_LENS);
                c.below(&mut self.tag_kind, 3);
                c.u16(&mut self.bit);
            }
            Kind::Seal | Kind::OneShotOpen => {}
        }
        if one_shot {
            c.pick(&mut self.key_len, &KEY_LENS);
            c.length(&mut self.iv_len, MAX_IV);
            c.length(&mut self.aad_len, MAX_AAD);
            c.length(&mut self.len, MAX_DATA);
            c.bool(&mut self.in_place);
            c.pick(&mut self.tag_len, &TAG_LENS);
            c.below(&mut self.tag_kind, 3);
            c.u16(&mut self.bit);
        }
        if self.kind != Kind::Open && self.kind != Kind::Close && self.kind != Kind::Reset {
            c.u8(&mut self.seed);
            c.below(&mut self.off_in, 16);
            c.below(&mut self.off_out, 16);
        }
    }
}

#[derive(Default)]
struct Program(Vec<Op>);

impl Visit for Program {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        if C::DECODING {
            while !c.at_end() && self.0.len() < MAX_OPS {
                let mut op = Op::default();
                op.visit(c);
                self.0.push(op);
            }
        } else {
            self.0.iter_mut().for_each(|op| op.visit(c));
        }
    }
}

/// A handle and what the model knows about it.
struct Slot {
    h: Handle,
    key_len: usize,
    key: Option<Key>,
    msg: Option<Message>,
}

/// A guarded input buffer of `len` bytes, or none (a NULL argument).
fn input(len: usize, seed: u64, off: usize, is_null: bool) -> (Option<Guarded>, *const c_void) {
    if is_null {
        return (None, null());
    }
    let g = Guarded::new(&filled(seed, len), off);
    let p = g.ptr() as *const c_void;
    (Some(g), p)
}

fn soft_key(raw: &[u8]) -> Key {
    Key::with_backend(raw, BackendId::Soft).expect("soft key")
}

struct Machine {
    slots: [Option<Slot>; 2],
}

impl Machine {
    fn handle(&self, op: &Op) -> Handle {
        match &self.slots[op.slot] {
            Some(s) if !op.null(0) => s.h,
            _ => null_mut(),
        }
    }

    fn open(&mut self, op: &Op) {
        if let Some(old) = self.slots[op.slot].take() {
            // SAFETY: an open handle, forgotten by the model right here.
            unsafe { sgcm_cipher_close(old.h) };
        }
        let mut hd = Guarded::new(&[0xa7; 8], 0);
        let hd_ptr = if op.null(0) {
            null_mut()
        } else {
            hd.mut_ptr() as *mut Handle
        };
        let (algo, mode) = (op.algo as i32, op.mode as i32);
        // SAFETY: `hd_ptr` is NULL or 8 writable, aligned bytes.
        let rc = unsafe { sgcm_cipher_open(hd_ptr, algo, mode, op.flags) };
        let key_len = match algo {
            AES128 => 16,
            AES192 => 24,
            AES256 => 32,
            _ => 0,
        };
        let mut e = Expect::default();
        e.unless(!op.null(0), INV_ARG)
            .unless(key_len != 0, CIPHER_ALGO)
            .unless(op.flags & !KNOWN_FLAGS == 0, CIPHER_ALGO)
            .unless(mode == MODE_GCM, INV_CIPHER_MODE);
        e.check("sgcm_cipher_open", rc);
        hd.check("sgcm_cipher_open *hd");
        if op.null(0) {
            return;
        }
        // SAFETY: the 8 bytes hold a pointer written by the call (aligned: offset 0).
        let h = unsafe { (hd.ptr() as *const Handle).read() };
        if rc == OK {
            assert!(
                !h.is_null(),
                "sgcm_cipher_open succeeded with a NULL handle"
            );
            self.slots[op.slot] = Some(Slot {
                h,
                key_len,
                key: None,
                msg: None,
            });
        } else {
            assert!(h.is_null(), "sgcm_cipher_open failed but left *hd non-NULL");
        }
    }

    fn close(&mut self, op: &Op) {
        if op.null(0) {
            // SAFETY: NULL is documented to be ignored.
            unsafe { sgcm_cipher_close(null_mut()) };
        } else if let Some(s) = self.slots[op.slot].take() {
            // SAFETY: an open handle, never used again.
            unsafe { sgcm_cipher_close(s.h) };
        }
    }

    fn run(&mut self, op: &Op) {
        let h = self.handle(op);
        let seed = op.seed as u64;
        // The model's handle, when the call gets a real one.
        let live = !h.is_null();
        let slot = if live {
            self.slots[op.slot].as_mut()
        } else {
            None
        };
        let mut e = Expect::default();
        e.unless(live, INV_ARG);
        let has_key = slot.as_ref().is_some_and(|s| s.key.is_some());
        let has_msg = slot.as_ref().is_some_and(|s| s.msg.is_some());
        match op.kind {
            Kind::Open | Kind::Close | Kind::Seal | Kind::OneShotOpen => unreachable!(),
            Kind::Reset => {
                // SAFETY: `h` is NULL or open.
                let rc = unsafe { sgcm_cipher_reset(h) };
                e.check("sgcm_cipher_reset", rc);
                if let Some(s) = slot {
                    s.key = None;
                    s.msg = None;
                }
            }
            Kind::SetKey => {
                let (buf, p) = input(op.key_len, seed, op.off_in, op.null(1));
                // SAFETY: `p` is NULL or readable for `key_len` bytes.
                let rc = unsafe { sgcm_cipher_setkey(h, p, op.key_len) };
                e.unless(!(p.is_null() && op.key_len > 0), INV_ARG);
                e.unless(
                    slot.as_ref().is_none_or(|s| s.key_len == op.key_len),
                    INV_KEYLEN,
                );
                e.check("sgcm_cipher_setkey", rc);
                if let (Some(s), Some(b)) = (slot, &buf) {
                    b.check("setkey key");
                    if e.valid() {
                        s.msg = None;
                        s.key = Some(soft_key(b.bytes()));
                    }
                }
            }
            Kind::SetIv => {
                let (buf, p) = input(op.iv_len, seed, op.off_in, op.null(1));
                // SAFETY: `p` is NULL or readable for `iv_len` bytes.
                let rc = unsafe { sgcm_cipher_setiv(h, p, op.iv_len) };
                e.unless(!(p.is_null() && op.iv_len > 0), INV_ARG)
                    .unless_any(!live || has_key, &[INV_STATE, MISSING_KEY])
                    .unless(op.iv_len > 0, INV_LENGTH);
                e.check("sgcm_cipher_setiv", rc);
                if let Some(s) = slot {
                    s.msg = None; // documented: no IV after an error
                    if let (true, Some(b), Some(k)) = (e.valid(), &buf, &s.key) {
                        b.check("setiv IV");
                        s.msg = Some(Message::new(k, b.bytes()).expect("IV of 1+ bytes"));
                    }
                }
            }
            Kind::Authenticate => {
                let (buf, p) = input(op.aad_len, seed, op.off_in, op.null(1));
                e.unless(!(p.is_null() && op.aad_len > 0), INV_ARG)
                    .unless_any(!live || has_key, &[INV_STATE, MISSING_KEY])
                    .unless(!live || has_msg, INV_STATE);
                let want = match (e.valid(), slot, &buf) {
                    (
                        true,
                        Some(Slot {
                            key: Some(k),
                            msg: Some(m),
                            ..
                        }),
                        Some(b),
                    ) => code(m.aad(k, b.bytes())),
                    (
                        true,
                        Some(Slot {
                            key: Some(k),
                            msg: Some(m),
                            ..
                        }),
                        None,
                    ) => code(m.aad(k, &[])),
                    _ => OK,
                };
                // SAFETY: `p` is NULL or readable for `aad_len` bytes.
                let rc = unsafe { sgcm_cipher_authenticate(h, p, op.aad_len) };
                e.check_model("sgcm_cipher_authenticate", rc, want);
                if let Some(b) = &buf {
                    b.check("authenticate AAD");
                }
            }
            Kind::Encrypt | Kind::Decrypt => self_crypt(op, h, slot, e),
            Kind::GetTag => {
                let n = op.tag_len.min(16);
                let mut buf = Guarded::filled(n, 0x6b, op.off_out);
                let p = if op.null(1) {
                    null_mut()
                } else {
                    buf.mut_ptr() as *mut c_void
                };
                e.unless(!p.is_null(), INV_ARG)
                    .unless(gcm::tag_len_ok(n), INV_LENGTH)
                    .unless_any(!live || has_key, &[INV_STATE, MISSING_KEY])
                    .unless(!live || has_msg, INV_STATE);
                let mut want_tag = vec![0x6b; n];
                let want = match (e.valid(), slot) {
                    (
                        true,
                        Some(Slot {
                            key: Some(k),
                            msg: Some(m),
                            ..
                        }),
                    ) => code(m.tag(k, &mut want_tag)),
                    _ => OK,
                };
                // SAFETY: `p` is NULL or writable for min(tag_len, 16) bytes.
                let rc = unsafe { sgcm_cipher_gettag(h, p, op.tag_len) };
                e.check_model("sgcm_cipher_gettag", rc, want);
                buf.check("gettag tag");
                if e.valid() && rc == OK {
                    assert_eq!(
                        buf.bytes(),
                        &want_tag[..],
                        "sgcm_cipher_gettag: tag differs from the model"
                    );
                } else {
                    assert!(
                        buf.bytes().iter().all(|&x| x == 0x6b),
                        "sgcm_cipher_gettag wrote on failure"
                    );
                }
            }
            Kind::CheckTag => {
                let len = op.tag_len;
                let mut bytes = filled(seed, len);
                if op.tag_kind < 2 {
                    if let Some(Slot {
                        key: Some(k),
                        msg: Some(m),
                        ..
                    }) = &slot
                    {
                        let mut full = [0u8; 16];
                        if m.clone().tag(k, &mut full).is_ok() {
                            let n = len.min(16);
                            bytes[..n].copy_from_slice(&full[..n]);
                        }
                    }
                    if op.tag_kind == 1 && len > 0 {
                        let bit = op.bit as usize % (8 * len);
                        bytes[bit / 8] ^= 1 << (bit % 8);
                    }
                }
                let (buf, p) = if op.null(1) {
                    (None, null())
                } else {
                    let g = Guarded::new(&bytes, op.off_in);
                    let p = g.ptr() as *const c_void;
                    (Some(g), p)
                };
                e.unless(!(p.is_null() && len > 0), INV_ARG)
                    .unless(len > 16 || gcm::tag_len_ok(len), INV_LENGTH)
                    .unless_any(!live || has_key, &[INV_STATE, MISSING_KEY])
                    .unless(!live || has_msg, INV_STATE);
                let want = match (e.valid(), slot) {
                    (
                        true,
                        Some(Slot {
                            key: Some(k),
                            msg: Some(m),
                            ..
                        }),
                    ) if len > 16 => {
                        m.tag(k, &mut [0u8; 16]).expect("full tag");
                        CHECKSUM
                    }
                    (
                        true,
                        Some(Slot {
                            key: Some(k),
                            msg: Some(m),
                            ..
                        }),
                    ) => code(m.verify(k, &bytes)),
                    _ => OK,
                };
                // SAFETY: `p` is NULL or readable for `len` bytes.
                let rc = unsafe { sgcm_cipher_checktag(h, p, len) };
                e.check_model("sgcm_cipher_checktag", rc, want);
                if let Some(b) = &buf {
                    b.check("checktag tag");
                }
            }
        }
    }
}

/// `sgcm_cipher_encrypt`/`decrypt`: in place (`in` NULL) or from a separate buffer,
/// with an output of the chosen size.
fn self_crypt(op: &Op, h: Handle, slot: Option<&mut Slot>, mut e: Expect) {
    let seed = op.seed as u64;
    let enc = op.kind == Kind::Encrypt;
    let len = op.len;
    let out_size = match op.out_size {
        0 => len,
        1 => len + 1,
        2 => len + 17,
        _ => len.saturating_sub(1),
    };
    let data = filled(seed, len.max(out_size));
    // In place, `out` holds the input and `outsize` is its length; otherwise a separate
    // input of `len` bytes and an output of `out_size` bytes.
    let (len, out_size) = if op.in_place {
        (out_size, out_size)
    } else {
        (len, out_size)
    };
    let out_init = if op.in_place {
        data[..out_size].to_vec()
    } else {
        vec![0x4d; out_size]
    };
    let mut out = Guarded::new(&out_init, op.off_out);
    let src = (!op.in_place).then(|| Guarded::new(&data[..len], op.off_in));
    let out_p = if op.null(1) {
        null_mut()
    } else {
        out.mut_ptr() as *mut c_void
    };
    let in_p = src.as_ref().map_or(null(), |s| s.ptr() as *const c_void);
    let live = !h.is_null();
    let has_key = slot.as_ref().is_some_and(|s| s.key.is_some());
    let has_msg = slot.as_ref().is_some_and(|s| s.msg.is_some());
    e.unless(out_size >= len, BUFFER_TOO_SHORT)
        .unless(!(len > 0 && out_p.is_null()), INV_ARG)
        .unless_any(!live || has_key, &[MISSING_KEY, INV_STATE])
        .unless(!live || has_msg, INV_STATE);
    let mut want_out = out_init.clone();
    let want = match (e.valid(), slot) {
        (
            true,
            Some(Slot {
                key: Some(k),
                msg: Some(m),
                ..
            }),
        ) => {
            let input = data[..len].to_vec();
            let dst = &mut want_out[..len];
            code(if enc {
                m.encrypt_to(k, &input, dst)
            } else {
                m.decrypt_to(k, &input, dst)
            })
        }
        _ => OK,
    };
    // An in-place call's `inlen` is documented as ignored: pass something else.
    let inlen = if op.in_place { len ^ 5 } else { len };
    // SAFETY: `out_p` is NULL or writable for `out_size` bytes; `in_p` NULL or readable
    // for `inlen` bytes, in its own allocation.
    let rc = unsafe {
        if enc {
            sgcm_cipher_encrypt(h, out_p, out_size, in_p, inlen)
        } else {
            sgcm_cipher_decrypt(h, out_p, out_size, in_p, inlen)
        }
    };
    let what = if enc {
        "sgcm_cipher_encrypt"
    } else {
        "sgcm_cipher_decrypt"
    };
    e.check_model(what, rc, want);
    out.check("crypt output");
    if let Some(s) = &src {
        s.check("crypt input");
        assert_eq!(s.bytes(), &data[..len], "{what} modified its input");
    }
    if !(e.valid() && rc == OK) {
        want_out = out_init;
    }
    assert!(
        out.bytes() == want_out,
        "{what}: output differs from the model (rc {rc})"
    );
}

/// `sgcm_seal` / `sgcm_open` with every argument guarded or NULL.
fn one_shot(op: &Op) {
    let seed = op.seed as u64;
    let seal = op.kind == Kind::Seal;
    let (key, key_p) = input(op.key_len, seed, op.off_in, op.null(0));
    let (iv, iv_p) = input(op.iv_len, seed + 1, op.off_in, op.null(1));
    let (aad, aad_p) = input(op.aad_len, seed + 2, op.off_in, op.null(2));
    let len = op.len;
    let msg = filled(seed + 3, len);
    let key_ok = matches!(op.key_len, 16 | 24 | 32);
    let tag_ok = gcm::tag_len_ok(op.tag_len);
    // What a valid call gives, from the Rust API (soft backend).
    let iv_b = iv.as_ref().map_or(&[][..], |b| b.bytes());
    let aad_b = aad.as_ref().map_or(&[][..], |b| b.bytes());
    let soft = match &key {
        Some(k) if key_ok && !iv_b.is_empty() => Some(soft_key(k.bytes())),
        _ => None,
    };
    // The tag of `msg` as ciphertext (for open) or as plaintext (for seal).
    let mut full = [0u8; 16];
    let mut sealed = msg.clone();
    if let Some(k) = &soft {
        if seal {
            stitchgcm::seal(k, iv_b, aad_b, &msg, &mut sealed, &mut full).expect("seal");
        } else {
            let mut m = Message::new(k, iv_b).expect("message");
            m.aad(k, aad_b).expect("aad");
            m.decrypt(k, &mut sealed).expect("decrypt");
            m.tag(k, &mut full).expect("tag");
        }
    }
    let mut tag_bytes = filled(seed + 4, op.tag_len);
    if !seal && op.tag_kind < 2 {
        let n = op.tag_len.min(16);
        tag_bytes[..n].copy_from_slice(&full[..n]);
        if op.tag_kind == 1 && op.tag_len > 0 {
            let bit = op.bit as usize % (8 * op.tag_len);
            tag_bytes[bit / 8] ^= 1 << (bit % 8);
        }
    }
    let mut tag = Guarded::new(&tag_bytes, op.off_out);
    let tag_p = if op.null(4) {
        null_mut()
    } else {
        tag.mut_ptr() as *mut c_void
    };
    let out_init = if op.in_place {
        msg.clone()
    } else {
        vec![0x4d; len]
    };
    let mut out = Guarded::new(&out_init, op.off_out);
    let src = (!op.in_place).then(|| Guarded::new(&msg, op.off_in));
    let out_p = if op.null(3) {
        null_mut()
    } else {
        out.mut_ptr() as *mut c_void
    };
    let in_p = src.as_ref().map_or(null(), |s| s.ptr() as *const c_void);

    let mut e = Expect::default();
    e.unless(!(key_p.is_null() && op.key_len > 0), INV_ARG)
        .unless(!(iv_p.is_null() && op.iv_len > 0), INV_ARG)
        .unless(!(aad_p.is_null() && op.aad_len > 0), INV_ARG)
        .unless(!(out_p.is_null() && len > 0), INV_ARG)
        .unless(tag_ok, INV_LENGTH)
        .unless(key_ok, INV_KEYLEN)
        .unless(op.iv_len > 0, INV_LENGTH);
    if seal {
        e.unless(!tag_p.is_null(), INV_ARG);
    } else {
        e.unless(!(tag_p.is_null() && op.tag_len > 0), INV_ARG);
    }
    let right_tag = tag_ok
        && stitchgcm_fuzz::hex(&tag_bytes) == stitchgcm_fuzz::hex(&full[..op.tag_len.min(16)]);
    let want = if seal || right_tag { OK } else { CHECKSUM };
    // SAFETY: every pointer is NULL or valid for its length; `in_p` NULL (in place) or
    // its own allocation.
    let rc = unsafe {
        if seal {
            sgcm_seal(
                key_p, op.key_len, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p,
                op.tag_len,
            )
        } else {
            sgcm_open(
                key_p, op.key_len, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p,
                op.tag_len,
            )
        }
    };
    let what = if seal { "sgcm_seal" } else { "sgcm_open" };
    e.check_model(what, rc, want);
    for (b, name) in [(&key, "key"), (&iv, "IV"), (&aad, "AAD"), (&src, "input")] {
        if let Some(b) = b {
            b.check(&format!("{what} {name}"));
        }
    }
    out.check(&format!("{what} output"));
    tag.check(&format!("{what} tag"));
    if let Some(s) = &src {
        assert_eq!(s.bytes(), &msg[..], "{what} modified its input");
    }
    if e.valid() && rc == OK {
        assert!(
            out.bytes() == sealed,
            "{what}: output differs from the Rust API"
        );
        if seal {
            assert_eq!(
                tag.bytes(),
                &full[..op.tag_len],
                "{what}: tag differs from the Rust API"
            );
        }
    } else {
        assert!(
            out.bytes() == out_init,
            "{what} wrote its output on failure (rc {rc})"
        );
    }
    if !seal || !(e.valid() && rc == OK) {
        assert_eq!(tag.bytes(), &tag_bytes[..], "{what} changed the tag buffer");
    }
}

fn run(data: &[u8]) {
    // SAFETY: no arguments; a static string or NULL.
    assert!(
        !unsafe { sgcm_impl_name() }.is_null(),
        "no backend selected"
    );
    let program = Program::decode(data);
    let mut m = Machine {
        slots: [None, None],
    };
    for op in &program.0 {
        match op.kind {
            Kind::Open => m.open(op),
            Kind::Close => m.close(op),
            Kind::Seal | Kind::OneShotOpen => one_shot(op),
            _ => m.run(op),
        }
    }
    for s in m.slots.iter_mut().filter_map(Option::take) {
        // SAFETY: an open handle, closed once.
        unsafe { sgcm_cipher_close(s.h) };
    }
}

/// A valid call of `kind` on slot 0 (AES-128, 12-byte IV, 16-byte tag) to start from.
fn op(kind: Kind) -> Op {
    Op {
        kind,
        algo: AES128 as u32,
        mode: MODE_GCM as u32,
        key_len: 16,
        iv_len: 12,
        aad_len: 20,
        len: 33,
        tag_len: 16,
        seed: 7,
        ..Op::default()
    }
}

fn with(kind: Kind, f: impl FnOnce(&mut Op)) -> Op {
    let mut o = op(kind);
    f(&mut o);
    o
}

/// A whole message on slot 0: key, IV, AAD, data, tag.
fn lifecycle(algo: i32, key_len: usize, iv_len: usize, enc: bool, tag_len: usize) -> Vec<Op> {
    vec![
        with(Kind::Open, |o| o.algo = algo as u32),
        with(Kind::SetKey, |o| o.key_len = key_len),
        with(Kind::SetIv, |o| o.iv_len = iv_len),
        with(Kind::Authenticate, |o| o.aad_len = 5),
        with(Kind::Authenticate, |o| o.aad_len = 27),
        with(if enc { Kind::Encrypt } else { Kind::Decrypt }, |o| {
            o.len = 15
        }),
        with(if enc { Kind::Encrypt } else { Kind::Decrypt }, |o| {
            o.len = 300;
            o.in_place = true;
            o.off_out = 3;
        }),
        if enc {
            with(Kind::GetTag, |o| o.tag_len = tag_len)
        } else {
            with(Kind::CheckTag, |o| o.tag_len = tag_len)
        },
        op(Kind::Close),
    ]
}

/// Valid lifecycles for each algorithm and direction, then programs that break one rule
/// each (bad open arguments, wrong lengths, NULLs, calls out of order, one-shot misuse).
fn seeds() -> Seeds {
    let mut progs: Vec<(String, Vec<Op>)> = Vec::new();
    for (algo, key_len) in [(AES128, 16), (AES192, 24), (AES256, 32)] {
        for (iv_len, enc, tag_len) in [
            (12, true, 16),
            (1, false, 16),
            (60, true, 12),
            (12, false, 4),
        ] {
            progs.push((
                format!(
                    "life-k{key_len}-iv{iv_len}-{}-t{tag_len}",
                    if enc { "enc" } else { "dec" }
                ),
                lifecycle(algo, key_len, iv_len, enc, tag_len),
            ));
        }
    }
    let open = op(Kind::Open);
    let keyed = [open.clone(), op(Kind::SetKey)];
    let ready = [open.clone(), op(Kind::SetKey), op(Kind::SetIv)];
    let cases: Vec<(&str, Vec<Op>)> = vec![
        ("open-null-hd", vec![with(Kind::Open, |o| o.null_sel = 4)]),
        (
            "open-bad-algo",
            vec![with(Kind::Open, |o| o.algo = 0), op(Kind::SetKey)],
        ),
        (
            "open-any-algo",
            vec![with(Kind::Open, |o| o.algo = 0x7fff_0001)],
        ),
        ("open-bad-mode", vec![with(Kind::Open, |o| o.mode = 8)]),
        ("open-bad-flags", vec![with(Kind::Open, |o| o.flags = 0x20)]),
        (
            "open-all-flags",
            vec![with(Kind::Open, |o| o.flags = KNOWN_FLAGS), op(Kind::Close)],
        ),
        (
            "null-handle",
            vec![
                with(Kind::SetKey, |o| o.null_sel = 4),
                with(Kind::Reset, |o| o.null_sel = 4),
                with(Kind::Close, |o| o.null_sel = 4),
            ],
        ),
        (
            "setkey-wrong-len",
            vec![
                open.clone(),
                with(Kind::SetKey, |o| o.key_len = 32),
                op(Kind::SetIv),
            ],
        ),
        (
            "setkey-null",
            vec![open.clone(), with(Kind::SetKey, |o| o.null_sel = 5)],
        ),
        (
            "setiv-no-key",
            vec![open.clone(), op(Kind::SetIv), op(Kind::Encrypt)],
        ),
        (
            "setiv-empty",
            [
                &keyed[..],
                &[with(Kind::SetIv, |o| o.iv_len = 0), op(Kind::Authenticate)],
            ]
            .concat(),
        ),
        (
            "setiv-null",
            [&keyed[..], &[with(Kind::SetIv, |o| o.null_sel = 5)]].concat(),
        ),
        (
            "setiv-long",
            [
                &keyed[..],
                &[
                    with(Kind::SetIv, |o| o.iv_len = 300),
                    op(Kind::Encrypt),
                    op(Kind::GetTag),
                ],
            ]
            .concat(),
        ),
        (
            "data-no-iv",
            [&keyed[..], &[op(Kind::Encrypt), op(Kind::GetTag)]].concat(),
        ),
        (
            "aad-after-data",
            [&ready[..], &[op(Kind::Encrypt), op(Kind::Authenticate)]].concat(),
        ),
        (
            "data-after-tag",
            [
                &ready[..],
                &[op(Kind::GetTag), op(Kind::Decrypt), op(Kind::GetTag)],
            ]
            .concat(),
        ),
        (
            "aad-null",
            [&ready[..], &[with(Kind::Authenticate, |o| o.null_sel = 5)]].concat(),
        ),
        (
            "out-short",
            [&ready[..], &[with(Kind::Encrypt, |o| o.out_size = 3)]].concat(),
        ),
        (
            "out-longer",
            [
                &ready[..],
                &[with(Kind::Decrypt, |o| o.out_size = 2), op(Kind::CheckTag)],
            ]
            .concat(),
        ),
        (
            "out-null",
            [
                &ready[..],
                &[
                    with(Kind::Encrypt, |o| o.null_sel = 5),
                    with(Kind::Encrypt, |o| {
                        o.null_sel = 5;
                        o.len = 0
                    }),
                ],
            ]
            .concat(),
        ),
        (
            "in-place-empty",
            [
                &ready[..],
                &[
                    with(Kind::Encrypt, |o| {
                        o.in_place = true;
                        o.len = 0
                    }),
                    op(Kind::Authenticate),
                ],
            ]
            .concat(),
        ),
        (
            "gettag-lengths",
            [
                &ready[..],
                &[
                    with(Kind::GetTag, |o| o.tag_len = 5),
                    with(Kind::GetTag, |o| o.tag_len = 0),
                    with(Kind::GetTag, |o| o.tag_len = 64),
                    with(Kind::GetTag, |o| o.tag_len = 8),
                ],
            ]
            .concat(),
        ),
        (
            "gettag-null",
            [&ready[..], &[with(Kind::GetTag, |o| o.null_sel = 5)]].concat(),
        ),
        (
            "checktag-flip",
            [
                &ready[..],
                &[
                    op(Kind::Decrypt),
                    with(Kind::CheckTag, |o| {
                        o.tag_kind = 1;
                        o.bit = 77
                    }),
                    op(Kind::CheckTag),
                ],
            ]
            .concat(),
        ),
        (
            "checktag-lengths",
            [
                &ready[..],
                &[
                    with(Kind::CheckTag, |o| o.tag_len = 3),
                    with(Kind::CheckTag, |o| o.tag_len = 20),
                    with(Kind::CheckTag, |o| o.tag_len = 13),
                ],
            ]
            .concat(),
        ),
        (
            "checktag-null",
            [
                &ready[..],
                &[
                    with(Kind::CheckTag, |o| o.null_sel = 5),
                    with(Kind::CheckTag, |o| {
                        o.null_sel = 5;
                        o.tag_len = 0
                    }),
                ],
            ]
            .concat(),
        ),
        (
            "reset-then-data",
            [
                &ready[..],
                &[
                    op(Kind::Reset),
                    op(Kind::Encrypt),
                    op(Kind::SetIv),
                    op(Kind::SetKey),
                    op(Kind::SetIv),
                    op(Kind::Encrypt),
                ],
            ]
            .concat(),
        ),
        (
            "two-handles",
            vec![
                open.clone(),
                with(Kind::Open, |o| {
                    o.slot = 1;
                    o.algo = AES256 as u32
                }),
                op(Kind::SetKey),
                with(Kind::SetKey, |o| {
                    o.slot = 1;
                    o.key_len = 32
                }),
                op(Kind::SetIv),
                with(Kind::SetIv, |o| o.slot = 1),
                op(Kind::Encrypt),
                with(Kind::Decrypt, |o| o.slot = 1),
                with(Kind::Close, |o| o.slot = 1),
                op(Kind::GetTag),
            ],
        ),
        (
            "seal",
            vec![
                op(Kind::Seal),
                with(Kind::Seal, |o| {
                    o.in_place = true;
                    o.key_len = 32;
                    o.iv_len = 1;
                    o.tag_len = 4
                }),
            ],
        ),
        (
            "open-right",
            vec![
                op(Kind::OneShotOpen),
                with(Kind::OneShotOpen, |o| {
                    o.in_place = true;
                    o.key_len = 24;
                    o.tag_len = 12
                }),
            ],
        ),
        (
            "open-flipped",
            vec![
                with(Kind::OneShotOpen, |o| {
                    o.tag_kind = 1;
                    o.bit = 5
                }),
                with(Kind::OneShotOpen, |o| {
                    o.in_place = true;
                    o.tag_kind = 1;
                    o.bit = 100
                }),
            ],
        ),
        (
            "one-shot-lengths",
            vec![
                with(Kind::Seal, |o| o.key_len = 17),
                with(Kind::Seal, |o| o.iv_len = 0),
                with(Kind::Seal, |o| o.tag_len = 17),
                with(Kind::OneShotOpen, |o| o.tag_len = 0),
                with(Kind::OneShotOpen, |o| o.key_len = 0),
            ],
        ),
        (
            "one-shot-nulls",
            (0..6)
                .map(|i| {
                    with(
                        if i % 2 == 0 {
                            Kind::Seal
                        } else {
                            Kind::OneShotOpen
                        },
                        |o| o.null_sel = 4 + i,
                    )
                })
                .collect(),
        ),
        (
            "one-shot-empty",
            vec![
                with(Kind::Seal, |o| {
                    o.len = 0;
                    o.aad_len = 0;
                    o.null_sel = 6
                }),
                with(Kind::OneShotOpen, |o| {
                    o.len = 0;
                    o.null_sel = 7
                }),
            ],
        ),
    ];
    progs.extend(cases.into_iter().map(|(n, p)| (n.to_string(), p)));
    progs
        .into_iter()
        .map(|(name, ops)| (name, Program(ops).encode()))
        .collect()
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
