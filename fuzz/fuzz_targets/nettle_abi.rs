//! nettle's AES-GCM ABI as libnettle exports it, driven by fuzzer-chosen valid call
//! sequences and checked against the Rust API (`soft` backend; RustCrypto `aes-gcm` for
//! the empty IV, which the Rust API refuses and nettle accepts).
//!
//! Four ways in, each keyed with a fuzzer-chosen AES key:
//! - `nettle_gcm_aes{128,192,256}_*` on a `struct gcm_aesNNN_ctx`;
//! - the deprecated `nettle_gcm_aes_*` on a `struct gcm_aes_ctx` (any key size);
//! - the generic `nettle_gcm_*` with this target's own AES-ECB cipher function, on a
//!   separate `struct gcm_key`, `struct gcm_ctx` and cipher context;
//! - the generic functions with `nettle_aesNNN_encrypt` as the cipher function, over a
//!   `gcm_aesNNN_ctx` keyed by `gcm_aesNNN_set_key` (what GnuTLS does), or keyed by
//!   `gcm_set_key` over a standalone AES context. This binary defines and exports those
//!   nettle names itself (`stitchgcm_fuzz::nettle`), so the library's `dlsym` lookup finds
//!   them and takes its recognised-AES path — which must then never call them.
//!
//! Then up to four messages: IV (0..=80 bytes), AAD and data in calls of whole blocks but
//! the last (nettle's rule — nettle aborts otherwise, and so does the library, which is a
//! crash to libFuzzer, so this target keeps the rules), either direction, in place or not,
//! data at any alignment, a digest of 0..=16 bytes, and the context `memcpy`'d to another
//! 8-byte aligned address before the message and after its AAD (the ABI promises a
//! position-independent context). Every context and buffer is guarded.
#![no_main]

use core::ptr::null;
use core::sync::atomic::Ordering;
use stitchgcm::{BackendId, Key, Message};
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::{Codec, Visit};
use stitchgcm_fuzz::nettle::{nettle_aes_visible, Front, Inst, FRONTS, NETTLE_AES_CALLS};
use stitchgcm_fuzz::{filled, hex, oracle, Seeds};

const MAX_MSGS: usize = 4;
const MAX_IV: usize = 80;
const MAX_AAD: usize = 700;
const MAX_DATA: usize = 3000;
const MAX_CALLS: usize = 12;

#[derive(Clone, Default)]
struct MsgSpec {
    iv: Vec<u8>,
    aad_len: usize,
    data_len: usize,
    seed: u64,
    aad_calls: Vec<usize>,
    data_calls: Vec<usize>,
    decrypt: bool,
    in_place: bool,
    src_off: usize,
    dst_off: usize,
    digest_len: usize,
    /// Where to `memcpy` the context first, after the AAD: 0 = stay, 1/2 = to an address
    /// 0/8 past a multiple of 16.
    move_before: usize,
    move_mid: usize,
    /// Pass NULL for the pointers of zero-length calls (nettle allows it).
    null_empty: bool,
}

#[derive(Default)]
struct Spec {
    front: Front,
    /// `struct gcm_aes_ctx` (the deprecated any-size functions) instead of a fixed size.
    aes_ctx: bool,
    key: Vec<u8>,
    msgs: Vec<MsgSpec>,
}

impl Visit for MsgSpec {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        let mut iv_len = self.iv.len();
        let mut standard = iv_len == 12;
        c.bool(&mut standard);
        if standard {
            iv_len = 12;
        } else {
            c.range(&mut iv_len, 0, MAX_IV);
        }
        c.bytes(&mut self.iv, iv_len);
        c.length(&mut self.aad_len, MAX_AAD);
        c.length(&mut self.data_len, MAX_DATA);
        c.u64(&mut self.seed);
        c.block_chunks(&mut self.aad_calls, self.aad_len, MAX_CALLS);
        c.block_chunks(&mut self.data_calls, self.data_len, MAX_CALLS);
        c.bool(&mut self.decrypt);
        c.bool(&mut self.in_place);
        c.below(&mut self.src_off, 16);
        c.below(&mut self.dst_off, 16);
        c.range(&mut self.digest_len, 0, 16);
        c.below(&mut self.move_before, 3);
        c.below(&mut self.move_mid, 3);
        c.bool(&mut self.null_empty);
    }
}

impl Visit for Spec {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.pick(&mut self.front, &FRONTS);
        c.bool(&mut self.aes_ctx);
        let mut key_len = self.key.len();
        c.pick(&mut key_len, &[16, 24, 32]);
        c.bytes(&mut self.key, key_len);
        let mut n = self.msgs.len();
        c.range(&mut n, 1, MAX_MSGS);
        self.msgs.resize_with(n, MsgSpec::default);
        self.msgs.iter_mut().for_each(|m| m.visit(c));
    }
}

// ------------------------------------------------------------------ the model

/// Output and full tag of one message, from the Rust API (or `aes-gcm` for the empty IV).
fn model(key: &[u8], m: &MsgSpec, aad: &[u8], input: &[u8]) -> (Vec<u8>, [u8; 16]) {
    if m.iv.is_empty() {
        // CTR is its own inverse; the tag is over the ciphertext.
        let (out, tag) = oracle::seal(key, &m.iv, aad, input).expect("aes-gcm covers the empty IV");
        if !m.decrypt {
            return (out, tag);
        }
        let (_, tag) = oracle::seal(key, &m.iv, aad, &out).expect("aes-gcm covers the empty IV");
        return (out, tag);
    }
    let k = Key::with_backend(key, BackendId::Soft).expect("soft key");
    let mut msg = Message::new(&k, &m.iv).expect("IV of 1+ bytes");
    msg.aad(&k, aad).expect("aad");
    let mut out = input.to_vec();
    if m.decrypt {
        msg.decrypt(&k, &mut out).expect("decrypt");
    } else {
        msg.encrypt(&k, &mut out).expect("encrypt");
    }
    let mut tag = [0u8; 16];
    msg.tag(&k, &mut tag).expect("tag");
    (out, tag)
}

/// The address offset from 16-byte alignment a `move_*` selector (1 or 2) names.
fn offset(sel: usize) -> usize {
    8 * (sel - 1)
}

fn ptr_or_null(p: *const u8, len: usize, null_empty: bool) -> *const u8 {
    if len == 0 && null_empty {
        null()
    } else {
        p
    }
}

fn message(inst: &mut Inst, key: &[u8], m: &MsgSpec) {
    if m.move_before > 0 {
        inst.relocate(offset(m.move_before));
    }
    let iv = Guarded::new(&m.iv, m.src_off);
    // SAFETY: the IV buffer holds `iv.len()` bytes.
    unsafe { inst.set_iv(m.iv.len(), ptr_or_null(iv.ptr(), m.iv.len(), m.null_empty)) };
    iv.check("IV");
    let aad_bytes = filled(m.seed, m.aad_len);
    let aad = Guarded::new(&aad_bytes, m.src_off);
    let mut pos = 0;
    for &n in &m.aad_calls {
        // SAFETY: `pos + n` ≤ the AAD's length.
        let p = unsafe { aad.ptr().add(pos) };
        // SAFETY: `n` bytes at `p`; every earlier call was whole blocks.
        unsafe { inst.update(n, ptr_or_null(p, n, m.null_empty)) };
        pos += n;
    }
    aad.check("AAD");
    if m.move_mid > 0 {
        inst.relocate(offset(m.move_mid));
    }
    let input = filled(!m.seed, m.data_len);
    let src = (!m.in_place).then(|| Guarded::new(&input, m.src_off));
    let mut dst = if m.in_place {
        Guarded::new(&input, m.dst_off)
    } else {
        Guarded::filled(m.data_len, 0xc3, m.dst_off)
    };
    let mut pos = 0;
    for &n in &m.data_calls {
        // SAFETY: `pos + n` ≤ the data's length in both buffers.
        let (d, s) = unsafe {
            let d = dst.mut_ptr().add(pos);
            (d, src.as_ref().map_or(d as *const u8, |s| s.ptr().add(pos)))
        };
        let d = ptr_or_null(d, n, m.null_empty) as *mut u8;
        // SAFETY: `n` bytes at `d` and `s` (equal in place); every earlier call was whole blocks.
        unsafe { inst.crypt(m.decrypt, n, d, ptr_or_null(s, n, m.null_empty)) };
        pos += n;
    }
    let mut digest = Guarded::filled(m.digest_len, 0x99, m.dst_off);
    let dp = ptr_or_null(digest.mut_ptr(), m.digest_len, m.null_empty) as *mut u8;
    // SAFETY: the digest buffer holds `digest_len` ≤ 16 bytes.
    unsafe { inst.digest(m.digest_len, dp) };
    inst.check("context");
    dst.check("destination");
    digest.check("digest");
    if let Some(s) = &src {
        s.check("source");
        assert!(s.bytes() == input, "the source was modified");
    }
    let (want, tag) = model(key, m, &aad_bytes, &input);
    assert!(
        dst.bytes() == want,
        "{} output differs from the Rust API",
        if m.decrypt { "decrypt" } else { "encrypt" }
    );
    assert_eq!(
        hex(digest.bytes()),
        hex(&tag[..m.digest_len]),
        "digest differs from the Rust API's tag"
    );
}

fn run(data: &[u8]) {
    assert!(
        nettle_aes_visible(),
        "nettle_aes128_encrypt is not exported (see build.rs)"
    );
    let s = Spec::decode(data);
    let mut inst = Inst::new(s.front, s.aes_ctx, &s.key);
    let calls = || NETTLE_AES_CALLS.load(Ordering::Relaxed);
    let before = calls();
    for m in &s.msgs {
        message(&mut inst, &s.key, m);
    }
    if s.front != Front::OwnCipher {
        assert_eq!(
            calls(),
            before,
            "the library called nettle's AES instead of recognising it"
        );
    }
}

fn msg(
    iv_len: usize,
    aad_calls: &[usize],
    data_calls: &[usize],
    decrypt: bool,
    k: usize,
) -> MsgSpec {
    MsgSpec {
        iv: filled(k as u64, iv_len),
        aad_len: aad_calls.iter().sum(),
        data_len: data_calls.iter().sum(),
        seed: k as u64,
        aad_calls: aad_calls.to_vec(),
        data_calls: data_calls.to_vec(),
        decrypt,
        in_place: k % 2 == 1,
        src_off: k * 5 % 16,
        dst_off: k * 3 % 16,
        digest_len: [16, 12, 8, 4, 16, 0, 1, 15][k % 8],
        move_before: k % 3,
        move_mid: (k / 3) % 3,
        null_empty: k.is_multiple_of(4),
    }
}

/// Every front and key size with two messages each (shapes rotating through IV lengths
/// 0/1/12/16/80, empty and block-split AAD and data, both directions, every relocation).
fn seeds() -> Seeds {
    let shapes: [(usize, &[usize], &[usize]); 8] = [
        (12, &[], &[]),
        (12, &[16, 4], &[32, 17]),
        (1, &[0, 20], &[5]),
        (0, &[48], &[16, 0, 16, 100]),
        (16, &[], &[2048, 952]),
        (80, &[700], &[1]),
        (12, &[32, 32, 3], &[64, 64, 64, 64, 15]),
        (60, &[15], &[256, 256, 512, 7]),
    ];
    let mut out = Vec::new();
    let mut k = 0;
    for front in FRONTS {
        for key_len in [16, 24, 32] {
            for aes_ctx in [false, true] {
                if aes_ctx && front == Front::OwnCipher {
                    continue;
                }
                k += 1;
                let msgs = (0..2)
                    .map(|i| {
                        let (iv, aad, data) = shapes[(k + 3 * i) % shapes.len()];
                        msg(iv, aad, data, (k + i) % 2 == 1, k + i)
                    })
                    .collect();
                let mut spec = Spec {
                    front,
                    aes_ctx,
                    key: filled(k as u64, key_len),
                    msgs,
                };
                let name = format!(
                    "{}-{}-k{key_len}",
                    [
                        "aes-functions",
                        "own-cipher",
                        "generic-nettle-aes",
                        "set-key-nettle-aes"
                    ][front as usize],
                    if aes_ctx { "aes_ctx" } else { "fixed" }
                );
                out.push((name, spec.encode()));
            }
        }
    }
    out
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
