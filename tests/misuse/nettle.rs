//! Misuse cases of the nettle ABI, calling the exported `nettle_gcm_*` functions directly
//! (no libnettle). nettle answers call-order errors with failed assertions (abort); so does
//! this front-end, with nettle's condition text. It also has no length limit: past 2^32
//! blocks the 32-bit counter wraps as nettle's does, which the last case checks against
//! AES (RustCrypto `aes`) for every backend, at the positions where kernels split groups.

use crate::nettle_abi::*;
use crate::{Case, MIXED};
use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aes::Aes128;
use core::ffi::c_void;
use core::ptr::{null, null_mut};

const KEY: [u8; 16] = [0x2b; 16];
const IV: [u8; 12] = [0x11; 12];
/// struct gcm_aes128_ctx: gcm_key at 0, gcm_ctx (J0, counter, GHASH state, lengths) at 4096.
const CTX_WORDS: usize = 4408 / 8;
const COUNTER_LOW: usize = 4096 + 16 + 12;

fn ctx() -> Vec<u64> {
    vec![0u64; CTX_WORDS]
}

fn p(c: &mut [u64]) -> *mut c_void {
    c.as_mut_ptr().cast()
}

/// A keyed AES-128 context with a 96-bit IV set.
fn ready() -> Vec<u64> {
    let mut c = ctx();
    // SAFETY: an 8-aligned buffer of struct gcm_aes_ctx's size; valid key and IV.
    unsafe {
        nettle_gcm_aes128_set_key(p(&mut c), KEY.as_ptr());
        nettle_gcm_aes128_set_iv(p(&mut c), 12, IV.as_ptr());
    }
    c
}

/// RustCrypto's AES-128 as a nettle_cipher_func; `ctx` points to an `Aes128`.
unsafe extern "C" fn rust_aes(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8) {
    // SAFETY: the caller passes the Aes128 below and `length` bytes at `src`/`dst`.
    unsafe {
        let aes = &*(ctx as *const Aes128);
        for i in (0..length).step_by(16) {
            let mut b =
                aes_gcm::aes::Block::clone_from_slice(core::slice::from_raw_parts(src.add(i), 16));
            aes.encrypt_block(&mut b);
            core::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(i), 16);
        }
    }
}

/// Encrypts across the 32-bit counter wrap, starting at several counter values, with
/// lengths that cover one block, the 8- and 16-block groups and a tail; the output must be
/// the plaintext XOR AES(IV ‖ counter mod 2^32).
fn counter_wrap(generic: bool) -> u32 {
    let aes = Aes128::new(&KEY.into());
    for start in [0xffff_ffffu32, 0xffff_fffe, 0xffff_fff9, 0xffff_fff1] {
        for len in [16usize, 48, 16 * 9 + 5, 16 * 17, 16 * 20 + 11] {
            let pt: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut ct = vec![0u8; len];
            let mut c = ctx();
            let (key, gcm) = (
                p(&mut c),
                unsafe { p(&mut c).cast::<u8>().add(4096) }.cast(),
            );
            // SAFETY: as in `ready`; the generic functions get the gcm_key/gcm_ctx parts and
            // the Aes128 with its matching function.
            unsafe {
                if generic {
                    nettle_gcm_set_key(key, (&aes as *const Aes128).cast(), Some(rust_aes));
                    nettle_gcm_set_iv(gcm, key, 12, IV.as_ptr());
                } else {
                    nettle_gcm_aes128_set_key(key, KEY.as_ptr());
                    nettle_gcm_aes128_set_iv(key, 12, IV.as_ptr());
                }
            }
            c_bytes(&mut c)[COUNTER_LOW..COUNTER_LOW + 4].copy_from_slice(&start.to_be_bytes());
            // SAFETY: `pt` and `ct` hold `len` bytes.
            unsafe {
                if generic {
                    let cipher = (&aes as *const Aes128).cast();
                    nettle_gcm_encrypt(
                        gcm,
                        key,
                        cipher,
                        Some(rust_aes),
                        len,
                        ct.as_mut_ptr(),
                        pt.as_ptr(),
                    );
                } else {
                    nettle_gcm_aes128_encrypt(key, len, ct.as_mut_ptr(), pt.as_ptr());
                }
            }
            for (i, block) in ct.chunks(16).enumerate() {
                let mut cb = [0u8; 16];
                cb[..12].copy_from_slice(&IV);
                cb[12..].copy_from_slice(&start.wrapping_add(i as u32).to_be_bytes());
                let mut ks = aes_gcm::aes::Block::from(cb);
                aes.encrypt_block(&mut ks);
                for (j, &x) in block.iter().enumerate() {
                    if x != pt[16 * i + j] ^ ks[j] {
                        eprintln!("start {start:#x} len {len}: block {i} wrong");
                        return MIXED;
                    }
                }
            }
        }
    }
    0
}

fn c_bytes(c: &mut [u64]) -> &mut [u8] {
    // SAFETY: viewing u64 storage as bytes.
    unsafe { core::slice::from_raw_parts_mut(c.as_mut_ptr().cast(), c.len() * 8) }
}

macro_rules! nettle_cases {
    ($front:literal: $($name:literal => $body:block)*) => {
        vec![$(Case { front: $front, name: $name, run: || {
            // SAFETY: every case passes valid buffers except for the one argument it is
            // about, which must make the function abort before using it.
            #[allow(unused_unsafe)]
            unsafe { $body }
        } }),*]
    };
}

pub fn cases() -> Vec<Case> {
    let mut buf = [0u8; 64];
    let _ = &mut buf;
    let mut v = nettle_cases! { "nettle":
        "NULL context" => { let mut b = [0u8; 16]; nettle_gcm_aes128_encrypt(null_mut(), 16, b.as_mut_ptr(), b.as_ptr()); 0 }
        "context never keyed" => { let mut c = ctx(); let mut b = [0u8; 16]; nettle_gcm_aes128_encrypt(p(&mut c), 16, b.as_mut_ptr(), b.as_ptr()); 0 }
        "NULL key, nonzero length" => { let mut c = ctx(); nettle_gcm_aes128_set_key(p(&mut c), null()); 0 }
        "key length does not fit" => { let mut c = ctx(); nettle_gcm_aes_set_key(p(&mut c), 20, [1u8; 20].as_ptr()); 0 }
        "empty IV" => { let mut c = ready(); nettle_gcm_aes128_set_iv(p(&mut c), 0, IV.as_ptr()); nettle_gcm_aes128_set_iv(p(&mut c), 0, null()); 0 }
        "NULL IV, nonzero length" => { let mut c = ready(); nettle_gcm_aes128_set_iv(p(&mut c), 12, null()); 0 }
        "NULL AAD, nonzero length" => { let mut c = ready(); nettle_gcm_aes128_update(p(&mut c), 5, null()); 0 }
        "AAD after data" => { let mut c = ready(); let mut b = [0u8; 16];
            nettle_gcm_aes128_encrypt(p(&mut c), 16, b.as_mut_ptr(), b.as_ptr());
            nettle_gcm_aes128_update(p(&mut c), 16, b.as_ptr()); 0 }
        "AAD after a partial AAD block" => { let mut c = ready(); let b = [0u8; 16];
            nettle_gcm_aes128_update(p(&mut c), 5, b.as_ptr());
            nettle_gcm_aes128_update(p(&mut c), 16, b.as_ptr()); 0 }
        "data after the tag" => { let mut c = ready(); let mut b = [0u8; 48]; let mut t = [0u8; 16];
            nettle_gcm_aes128_encrypt(p(&mut c), 32, b.as_mut_ptr(), b.as_ptr());
            nettle_gcm_aes128_digest(p(&mut c), 16, t.as_mut_ptr());
            nettle_gcm_aes128_encrypt(p(&mut c), 16, b.as_mut_ptr().add(32), b.as_ptr().add(32)); 0 }
        "data after a partial data block" => { let mut c = ready(); let mut b = [0u8; 32];
            nettle_gcm_aes128_encrypt(p(&mut c), 5, b.as_mut_ptr(), b.as_ptr());
            nettle_gcm_aes128_encrypt(p(&mut c), 16, b.as_mut_ptr().add(5), b.as_ptr().add(5)); 0 }
        "NULL output, nonzero length" => { let mut c = ready(); let b = [0u8; 16];
            nettle_gcm_aes128_encrypt(p(&mut c), 16, null_mut(), b.as_ptr()); 0 }
        "NULL data, zero length" => { let mut c = ready(); let mut t = [0u8; 16];
            nettle_gcm_aes128_update(p(&mut c), 0, null());
            nettle_gcm_aes128_encrypt(p(&mut c), 0, null_mut(), null());
            nettle_gcm_aes128_decrypt(p(&mut c), 0, null_mut(), null());
            nettle_gcm_aes128_digest(p(&mut c), 0, null_mut());
            nettle_gcm_aes128_digest(p(&mut c), 16, t.as_mut_ptr()); 0 }
        "tag length 5" => { let (mut c, mut d) = (ready(), ready()); let (mut t, mut u) = ([0u8; 16], [0u8; 16]);
            nettle_gcm_aes128_digest(p(&mut c), 16, t.as_mut_ptr());
            nettle_gcm_aes128_digest(p(&mut d), 5, u.as_mut_ptr());
            if t[..5] == u[..5] && u[5..] == [0; 11] { 0 } else { MIXED } }
        "tag length 0" => { let mut c = ready(); let mut t = [0xa5u8; 16];
            nettle_gcm_aes128_digest(p(&mut c), 0, t.as_mut_ptr());
            if t == [0xa5; 16] { 0 } else { MIXED } }
        "tag length 17" => { let mut c = ready(); let mut t = [0u8; 17]; nettle_gcm_aes128_digest(p(&mut c), 17, t.as_mut_ptr()); 0 }
        "NULL tag" => { let mut c = ready(); nettle_gcm_aes128_digest(p(&mut c), 16, null_mut()); 0 }
        "tag twice" => { let mut c = ready(); let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
            nettle_gcm_aes128_update(p(&mut c), 16, KEY.as_ptr()); // nonzero lengths block
            nettle_gcm_aes128_digest(p(&mut c), 16, a.as_mut_ptr());
            nettle_gcm_aes128_digest(p(&mut c), 16, b.as_mut_ptr());
            // As in nettle, a digest does not end the message: the second one hashes the
            // lengths block again, so it differs.
            if a != b { 0 } else { MIXED } }
        "counter wraps past 2^32 blocks" => { counter_wrap(false) }
    };
    v.extend(nettle_cases! { "nettle-generic":
        "NULL context" => { let mut c = ready(); nettle_gcm_set_iv(null_mut(), p(&mut c), 12, IV.as_ptr()); 0 }
        "NULL gcm_key" => { let aes = Aes128::new(&KEY.into()); nettle_gcm_set_key(null_mut(), (&aes as *const Aes128).cast(), Some(rust_aes)); 0 }
        "context never keyed" => { let aes = Aes128::new(&KEY.into()); let mut c = ctx(); let mut b = [0u8; 16];
            let (k, g) = (p(&mut c), p(&mut c).cast::<u8>().add(4096).cast());
            nettle_gcm_encrypt(g, k, (&aes as *const Aes128).cast(), Some(rust_aes), 16, b.as_mut_ptr(), b.as_ptr()); 0 }
        "NULL cipher function" => { let aes = Aes128::new(&KEY.into()); let mut c = ctx(); nettle_gcm_set_key(p(&mut c), (&aes as *const Aes128).cast(), None); 0 }
        "NULL data, zero length" => { let aes = Aes128::new(&KEY.into()); let cipher = (&aes as *const Aes128).cast(); let mut c = ctx();
            let (k, g) = (p(&mut c), p(&mut c).cast::<u8>().add(4096).cast());
            nettle_gcm_set_key(k, cipher, Some(rust_aes));
            nettle_gcm_set_iv(g, k, 12, IV.as_ptr());
            nettle_gcm_update(g, k, 0, null());
            nettle_gcm_encrypt(g, k, cipher, Some(rust_aes), 0, null_mut(), null());
            nettle_gcm_decrypt(g, k, cipher, Some(rust_aes), 0, null_mut(), null());
            nettle_gcm_digest(g, k, cipher, Some(rust_aes), 0, null_mut()); 0 }
        "counter wraps past 2^32 blocks" => { counter_wrap(true) }
    });
    v
}
