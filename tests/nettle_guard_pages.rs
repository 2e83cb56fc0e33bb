//! Out-of-bounds access tests of the nettle ABI's record path, with guard pages: the IV,
//! the AAD, the input, the output and the digest each in a page of their own framed by
//! `PROT_NONE` pages, ending exactly at the following guard (over-reads and over-writes
//! fault) or starting right after the preceding one (under-reads fault). Every data length
//! 0..=300, AAD lengths around a block (the held AAD is read into a register by a partial
//! load), all key sizes, encryption and decryption, in place and out of place, the data in
//! one call (the one-pass first data call) and in two (the second continues after it),
//! through the AES-specific functions (the fused path) and the generic ones over a
//! caller's cipher function (the generic path). Results are compared with the `soft`
//! backend's one-shot on ordinary heap buffers. The backend is the process's
//! (`STITCHGCM_IMPL`; scripts/test.sh runs this once per backend, natively and under qemu).

mod common;
#[path = "common/nettle_abi.rs"]
mod nettle_abi;

use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256, Block};
use common::guard::*;
use common::{soft, Rng};
use core::ffi::c_void;
use nettle_abi::*;
use stitchgcm::{seal, Key};

/// `struct gcm_aes256_ctx` is the largest of the three (4400 bytes); 8-byte aligned.
const CTX_WORDS: usize = 4400 / 8;
const GCM_CTX: usize = 4096;
const AAD_LENS: [usize; 7] = [0, 1, 8, 13, 15, 16, 17];

type DataFn = unsafe extern "C" fn(*mut c_void, usize, *const u8);
type CryptFn = unsafe extern "C" fn(*mut c_void, usize, *mut u8, *const u8);
type DigestFn = unsafe extern "C" fn(*mut c_void, usize, *mut u8);
type KeyFn = unsafe extern "C" fn(*mut c_void, *const u8);

/// The AES-specific functions of one key size.
struct Fixed {
    set_key: KeyFn,
    set_iv: DataFn,
    update: DataFn,
    encrypt: CryptFn,
    decrypt: CryptFn,
    digest: DigestFn,
}

fn fixed(key_len: usize) -> Fixed {
    match key_len {
        16 => Fixed {
            set_key: nettle_gcm_aes128_set_key,
            set_iv: nettle_gcm_aes128_set_iv,
            update: nettle_gcm_aes128_update,
            encrypt: nettle_gcm_aes128_encrypt,
            decrypt: nettle_gcm_aes128_decrypt,
            digest: nettle_gcm_aes128_digest,
        },
        24 => Fixed {
            set_key: nettle_gcm_aes192_set_key,
            set_iv: nettle_gcm_aes192_set_iv,
            update: nettle_gcm_aes192_update,
            encrypt: nettle_gcm_aes192_encrypt,
            decrypt: nettle_gcm_aes192_decrypt,
            digest: nettle_gcm_aes192_digest,
        },
        _ => Fixed {
            set_key: nettle_gcm_aes256_set_key,
            set_iv: nettle_gcm_aes256_set_iv,
            update: nettle_gcm_aes256_update,
            encrypt: nettle_gcm_aes256_encrypt,
            decrypt: nettle_gcm_aes256_decrypt,
            digest: nettle_gcm_aes256_digest,
        },
    }
}

/// RustCrypto's AES as a `nettle_cipher_func` for the generic functions.
enum AnyAes {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

unsafe extern "C" fn rust_aes(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8) {
    // SAFETY: the caller passes an `AnyAes` and `length` bytes at `src`/`dst`.
    unsafe {
        let aes = &*(ctx as *const AnyAes);
        for i in (0..length).step_by(16) {
            let mut b = Block::clone_from_slice(core::slice::from_raw_parts(src.add(i), 16));
            match aes {
                AnyAes::A128(a) => a.encrypt_block(&mut b),
                AnyAes::A192(a) => a.encrypt_block(&mut b),
                AnyAes::A256(a) => a.encrypt_block(&mut b),
            }
            core::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(i), 16);
        }
    }
}

/// One record through nettle's calls with every buffer at a guard; returns the output
/// and the digest. `split`: the data in two calls (a multiple of 16, then the rest).
#[allow(clippy::too_many_arguments)]
fn record(
    r: &mut Regions,
    at: At,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    input: &[u8],
    decrypt: bool,
    in_place: bool,
    split: bool,
    generic: bool,
) -> (Vec<u8>, [u8; 16]) {
    let mut ctx = vec![0u64; CTX_WORDS];
    let c = ctx.as_mut_ptr().cast::<c_void>();
    let (gk, gc) = (c, c.cast::<u8>().wrapping_add(GCM_CTX).cast::<c_void>());
    let f = fixed(key.len());
    let aes = match key.len() {
        16 => AnyAes::A128(Aes128::new_from_slice(key).unwrap()),
        24 => AnyAes::A192(Aes192::new_from_slice(key).unwrap()),
        _ => AnyAes::A256(Aes256::new_from_slice(key).unwrap()),
    };
    let cipher = (&aes as *const AnyAes).cast::<c_void>();
    let iv_len = iv.len();
    let iv = r.iv.with(at, iv).as_ptr();
    let aad_p = r.aad.with(at, aad).as_ptr();
    let src = r.src.with(at, input).as_mut_ptr();
    let dst = if in_place {
        src
    } else {
        r.dst.place(at, input.len()).as_mut_ptr()
    };
    let tag = r.tag.place(at, 16).as_mut_ptr();
    let len = input.len();
    let first = if split { len / 32 * 16 } else { len };
    // SAFETY: a zeroed buffer of the largest context's size; every pointer is valid for
    // the length passed with it (nettle's contract), the pieces inside their buffers.
    unsafe {
        (f.set_key)(c, key.as_ptr());
        if generic {
            nettle_gcm_set_key(gk, cipher, Some(rust_aes));
            nettle_gcm_set_iv(gc, gk, iv_len, iv);
            nettle_gcm_update(gc, gk, aad.len(), aad_p);
        } else {
            (f.set_iv)(c, iv_len, iv);
            (f.update)(c, aad.len(), aad_p);
        }
        for (off, n) in [(0, first), (first, len - first)] {
            if n == 0 && off > 0 {
                continue;
            }
            let (s, d) = (src.add(off), dst.add(off));
            match (generic, decrypt) {
                (false, false) => (f.encrypt)(c, n, d, s),
                (false, true) => (f.decrypt)(c, n, d, s),
                (true, false) => nettle_gcm_encrypt(gc, gk, cipher, Some(rust_aes), n, d, s),
                (true, true) => nettle_gcm_decrypt(gc, gk, cipher, Some(rust_aes), n, d, s),
            }
        }
        if generic {
            nettle_gcm_digest(gc, gk, cipher, Some(rust_aes), 16, tag);
        } else {
            (f.digest)(c, 16, tag);
        }
        let out = core::slice::from_raw_parts(dst, len).to_vec();
        (out, *(tag as *const [u8; 16]))
    }
}

fn run(at: At) {
    let mut r = Regions::new();
    let mut rng = Rng::new(0x6e65_7474_6c65_0001 ^ (at == At::End) as u64);
    for len in 0..=MAX_LEN {
        let key = rng.bytes([16, 24, 32][len % 3]);
        let iv = rng.bytes(if len % 5 == 4 { 1 + len % 20 } else { 12 });
        let aad = rng.bytes(AAD_LENS[len % AAD_LENS.len()]);
        let pt = rng.bytes(len);
        let soft_key = Key::with_backend(&key, soft()).unwrap();
        let (mut ct, mut want) = (vec![0u8; len], [0u8; 16]);
        seal(&soft_key, &iv, &aad, &pt, &mut ct, &mut want).unwrap();
        for variant in 0..8 {
            let (in_place, split, generic) = (variant & 1 != 0, variant & 2 != 0, variant & 4 != 0);
            let what = format!(
                "{at:?} len {len} key {} aad {} iv {} in_place {in_place} split {split} generic {generic}",
                key.len(),
                aad.len(),
                iv.len()
            );
            let (out, tag) = record(
                &mut r, at, &key, &iv, &aad, &pt, false, in_place, split, generic,
            );
            assert!(out == ct && tag == want, "encryption differs: {what}");
            let (out, tag) = record(
                &mut r, at, &key, &iv, &aad, &ct, true, in_place, split, generic,
            );
            assert!(out == pt && tag == want, "decryption differs: {what}");
        }
    }
}

#[test]
fn nettle_buffers_ending_at_a_guard_page() {
    run(At::End);
}

#[test]
fn nettle_buffers_starting_after_a_guard_page() {
    run(At::Start);
}
