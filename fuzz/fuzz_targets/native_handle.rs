//! The native C API's argument handling: a fuzzer-chosen program of calls on up to two
//! handles — `sgcm_cipher_open/setkey/setiv/authenticate/encrypt/decrypt/gettag/
//! checktag/reset/close`, the keyed one-shots `sgcm_aead_seal`/`sgcm_aead_open` (which
//! must leave the handle's message alone) and the raw-key `sgcm_seal`/`sgcm_open` — with fuzzer-chosen
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
use stitchgcm::Message;
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::Visit;
use stitchgcm_fuzz::native::*;
use stitchgcm_fuzz::native_calls::{crypt, input, one_shot, soft_key, KeySource, Slot};
use stitchgcm_fuzz::native_program::*;
use stitchgcm_fuzz::{filled, tag_len_ok, Seeds};

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
            .unless(mode == MODE_GCM || mode == MODE_RFC4106, INV_CIPHER_MODE);
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
            if mode == MODE_RFC4106 {
                // Not modelled here (its framing has rules of its own): closed at once.
                // SAFETY: the handle just opened, closed once.
                unsafe { sgcm_cipher_close(h) };
                return;
            }
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
            Kind::Open | Kind::Close => unreachable!(),
            Kind::Seal | Kind::OneShotOpen | Kind::AeadSeal | Kind::AeadOpen => unreachable!(),
            Kind::Reset => {
                // SAFETY: `h` is NULL or open.
                let rc = unsafe { sgcm_cipher_reset(h) };
                e.check("sgcm_cipher_reset", rc);
                if let Some(s) = slot {
                    s.msg = None; // reset ends the message and keeps the key (main's semantics)
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
                    .needs_message(live, has_key, has_msg);
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
            // SAFETY: `h` is NULL or the open handle of `slot`.
            Kind::Encrypt | Kind::Decrypt => unsafe { crypt(op, h, slot, e) },
            Kind::GetTag => {
                let n = op.tag_len.min(16);
                let mut buf = Guarded::filled(n, 0x6b, op.off_out);
                let p = if op.null(1) {
                    null_mut()
                } else {
                    buf.mut_ptr() as *mut c_void
                };
                e.unless(!p.is_null(), INV_ARG)
                    .unless(tag_len_ok(n), INV_LENGTH)
                    .needs_message(live, has_key, has_msg);
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
                    .unless(len > 16 || tag_len_ok(len), INV_LENGTH)
                    .needs_message(live, has_key, has_msg);
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
            Kind::Seal | Kind::OneShotOpen => one_shot(op, KeySource::Raw),
            Kind::AeadSeal | Kind::AeadOpen => {
                let h = m.handle(op);
                let key = m.slots[op.slot].as_ref().and_then(|s| s.key.as_ref());
                one_shot(op, KeySource::Handle { h, key });
            }
            _ => m.run(op),
        }
    }
    for s in m.slots.iter_mut().filter_map(Option::take) {
        // SAFETY: an open handle, closed once.
        unsafe { sgcm_cipher_close(s.h) };
    }
}

/// Valid lifecycles for each algorithm, IV kind and direction, then programs that break
/// one rule each (bad open arguments, wrong lengths, NULLs, calls out of order, one-shot
/// misuse). Written in `native_program::parse`'s text form.
fn seeds() -> Seeds {
    let mut progs: Vec<(String, String)> = Vec::new();
    for (algo, key) in [(AES128, 16), (AES192, 24), (AES256, 32)] {
        for (iv, enc, tag) in [
            (12, true, 16),
            (1, false, 16),
            (60, true, 12),
            (12, false, 4),
        ] {
            let (dir, end) = if enc {
                ("encrypt", "gettag")
            } else {
                ("decrypt", "checktag")
            };
            progs.push((
                format!("life-k{key}-iv{iv}-{dir}-t{tag}"),
                format!(
                    "open algo={algo}; setkey key={key}; setiv iv={iv}; auth aad=5; auth aad=27; \
                     {dir} len=15; {dir} len=300 inplace offout=3; {end} tag={tag}; close"
                ),
            ));
        }
    }
    let ready = "open; setkey; setiv;";
    let cases: [(&str, String); 38] = [
        ("open-null-hd", "open null=0".into()),
        ("open-bad-algo", "open algo=0; setkey".into()),
        ("open-any-algo", "open algo=0x7fff0001".into()),
        ("open-bad-mode", "open mode=8".into()),
        ("open-bad-flags", "open flags=0x20".into()),
        ("open-all-flags", "open flags=0x1f; close".into()),
        (
            "null-handle",
            "setkey null=0; reset null=0; close null=0".into(),
        ),
        ("setkey-wrong-len", "open; setkey key=32; setiv".into()),
        ("setkey-null", "open; setkey null=1".into()),
        ("setiv-no-key", "open; setiv; encrypt".into()),
        ("setiv-empty", "open; setkey; setiv iv=0; auth".into()),
        ("setiv-null", "open; setkey; setiv null=1".into()),
        (
            "setiv-long",
            "open; setkey; setiv iv=300; encrypt; gettag".into(),
        ),
        ("data-no-iv", "open; setkey; encrypt; gettag".into()),
        ("aad-after-data", format!("{ready} encrypt; auth")),
        ("data-after-tag", format!("{ready} gettag; decrypt; gettag")),
        ("aad-null", format!("{ready} auth null=1")),
        ("out-short", format!("{ready} encrypt out=3")),
        ("out-longer", format!("{ready} decrypt out=2; checktag")),
        (
            "out-null",
            format!("{ready} encrypt null=1; encrypt null=1 len=0"),
        ),
        (
            "in-place-empty",
            format!("{ready} encrypt inplace len=0; auth"),
        ),
        (
            "gettag-lengths",
            format!("{ready} gettag tag=5; gettag tag=0; gettag tag=64; gettag tag=8"),
        ),
        ("gettag-null", format!("{ready} gettag null=1")),
        (
            "checktag-flip",
            format!("{ready} decrypt; checktag tagkind=1 bit=77; checktag"),
        ),
        (
            "checktag-lengths",
            format!("{ready} checktag tag=3; checktag tag=20; checktag tag=13"),
        ),
        (
            "checktag-null",
            format!("{ready} checktag null=1; checktag null=1 tag=0"),
        ),
        (
            "reset-then-data",
            format!("{ready} reset; encrypt; setiv; setkey; setiv; encrypt"),
        ),
        (
            "two-handles",
            "open; open slot=1 algo=9; setkey; setkey slot=1 key=32; setiv; setiv slot=1; \
             encrypt; decrypt slot=1; close slot=1; gettag"
                .into(),
        ),
        ("seal", "seal; seal inplace key=32 iv=1 tag=4".into()),
        (
            "open-right",
            "oneshot_open; oneshot_open inplace key=24 tag=12".into(),
        ),
        (
            "open-flipped",
            "oneshot_open tagkind=1 bit=5; oneshot_open inplace tagkind=1 bit=100".into(),
        ),
        (
            "one-shot-lengths",
            "seal key=17; seal iv=0; seal tag=17; oneshot_open tag=0; oneshot_open key=0".into(),
        ),
        (
            "one-shot-nulls",
            "seal null=0; oneshot_open null=1; seal null=2; oneshot_open null=3; seal null=4; \
             oneshot_open null=5"
                .into(),
        ),
        (
            "one-shot-empty",
            "seal len=0 aad=0 null=2; oneshot_open len=0 null=3".into(),
        ),
        (
            "keyed-amid-message",
            format!(
                "{ready} auth; aead_seal; aead_open inplace tag=12; encrypt; aead_open tagkind=1; \
                 gettag"
            ),
        ),
        (
            "keyed-no-key",
            "open; aead_seal; aead_open; setkey; aead_seal iv=0; aead_seal tag=5".into(),
        ),
        (
            "keyed-nulls",
            "open; setkey; aead_seal null=0; aead_open null=1; aead_seal null=3; aead_open null=4"
                .into(),
        ),
        (
            "keyed-after-reset",
            format!("{ready} aead_seal; reset; aead_open; close; aead_seal"),
        ),
    ];
    progs.extend(cases.into_iter().map(|(n, p)| (n.to_string(), p)));
    progs
        .into_iter()
        .map(|(name, text)| (name, parse(&text).encode()))
        .collect()
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
