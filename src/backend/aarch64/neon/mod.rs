//! `aarch64-neon`: constant-time AES-GCM for AArch64 cores with NEON but without the
//! Crypto Extensions (Raspberry Pi 3/4 class: Cortex-A53/A72 without AES/PMULL).
//!
//! No memory access or branch depends on key or data. The files:
//! - `aes.rs`: AES bit-sliced eight blocks at a time (Käsper–Schwabe), the shared
//!   Boyar–Peralta S-box circuit on whole registers, ShiftRows never executed
//!   ("fixslicing");
//! - `ghash.rs`: GHASH with the 8×8-bit polynomial multiply `pmull .8b`
//!   (Câmara–Gouvêa–López–Dahab), up to eight blocks aggregated with one placement and
//!   one reduction;
//! - `vperm.rs`: AES of one to four blocks by vector permutes (Hamburg, CHES 2009; the
//!   tables and layout in `backend/vperm.rs`), S-box tables in registers, for single
//!   blocks, H and the short-message path;
//! - `short.rs`: a whole short message in one pass (E(K, J0) beside the counters, GHASH
//!   of AAD ‖ ciphertext ‖ lengths with H^n..H^1 and one reduction);
//! - `crypt.rs`: the kernels (`kernel_enc`, `kernel_dec`, `kernel_ctr`, each for every key
//!   size; GHASH alone is `ghash.rs`' `kernel_ghash`), with the GHASH forms unrolled and
//!   the AES rounds a loop whose count is read from the key (`scripts/model-arm.sh` models
//!   an iteration of 128 bytes with that loop repeated, `rounds=`); and the tails. The fused entry that
//!   runs them is `../common.rs`' (shared with `aarch64-ce`).
//!
//! Whole groups of counter blocks go through the eight-lane AES; up to four lanes (single
//! blocks, tails, short messages) through the vector-permute one, more through one more
//! eight-lane call (unused lanes are computed and dropped).

mod aes;
mod crypt;
mod ghash;
mod short;
mod vperm;

use crate::backend::aarch64::common;
use crate::backend::{Backend, Direction, Material, Plain};
use core::arch::aarch64::*;
use ghash::FORMS;

/// Blocks per AES call and per GHASH aggregation.
const GROUP: usize = 8;

/// Expanded key.
#[repr(C)]
#[derive(Clone, Copy)]
struct NeonKey {
    /// Round key r as eight bit planes: byte k of plane j is 0xff when bit j of round-key
    /// byte k is set. Round keys 1..=rounds also carry the S-box constant 0x63.
    rk: [[[u8; 16]; 8]; 15],
    rounds: u64,
    _pad: u64,
    /// H^(i+1) in natural bit order with its bytes rotated by 0..8 places inside each
    /// 64-bit half (the `A_k` forms of the multiplication).
    h: [[[u8; 16]; FORMS]; GROUP],
    /// Karatsuba middle operands for blocks 2j and 2j+1 of a group: lane 0 = lo ^ hi of
    /// H^(8−2j), lane 1 = lo ^ hi of H^(7−2j), and the rotated forms.
    hm: [[[u8; 16]; FORMS]; GROUP / 2],
    /// The round keys of the vector-permute AES (`backend/vperm.rs`, `round_keys`).
    vrk: [[u8; 16]; 15],
}

// SAFETY: byte and integer arrays only.
unsafe impl Plain for NeonKey {}

pub(crate) struct Aarch64Neon;

impl Backend for Aarch64Neon {
    const NAME: &'static core::ffi::CStr = c"aarch64-neon";
    const KEY_BYTES: usize = core::mem::size_of::<NeonKey>();

    fn is_available() -> bool {
        use crate::backend::hwcap::{aarch64::*, has};
        use core::sync::atomic::AtomicU8;
        static SEEN: AtomicU8 = AtomicU8::new(0);
        has(&SEEN, FP | ASIMD, 0)
    }

    fn init(m: &mut Material, key: &[u8]) {
        // SAFETY: NEON is available (checked before any key is made with this backend).
        unsafe { init(m.view_mut(), key) }
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        let k: &NeonKey = m.view();
        // SAFETY: NEON available; `block` is 16 bytes.
        unsafe {
            let [o] = vperm::lanes1(k, [vld1q_u8(block.as_ptr())]);
            vst1q_u8(block.as_mut_ptr(), o);
        }
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        let k: &NeonKey = m.view();
        // SAFETY: NEON available; 16-byte blocks.
        unsafe {
            let [x, y] = vperm::lanes2(k, [vld1q_u8(a.as_ptr()), vld1q_u8(b.as_ptr())]);
            vst1q_u8(a.as_mut_ptr(), x);
            vst1q_u8(b.as_mut_ptr(), y);
        }
    }

    unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize) {
        // SAFETY: forwarded contract; NEON available.
        unsafe { ghash::ghash(m.view(), y, data, blocks) }
    }

    common::kernel_entries!(NeonKey, crypt::kernels);
}

/// Key setup: the bit-sliced and the vector-permute round keys, then H = E(K, 0^128) and
/// H^2..H^8 in their rotated forms, and the packed Karatsuba middle operands of block
/// pairs.
unsafe fn init(k: &mut NeonKey, key: &[u8]) {
    let mut rk = [[0u8; 16]; 15];
    let rounds = crate::backend::aes_schedule::expand(key, &mut rk);
    aes::expand_key(k, &rk, rounds);
    crate::backend::vperm::round_keys(&rk, rounds, &mut k.vrk);
    crate::secret::wipe_bytes(rk.as_flattened_mut());
    // SAFETY: NEON baseline; indices < 8.
    unsafe {
        let [h] = vperm::lanes1(k, [vdupq_n_u8(0)]);
        let h = vrbitq_u8(h);
        let mut p = h;
        let mut pw = [vdupq_n_u8(0); GROUP];
        for (i, slot) in pw.iter_mut().enumerate() {
            *slot = p;
            k.h[i] = ghash::forms(p);
            if i + 1 < GROUP {
                p = ghash::gf_mul(p, h);
            }
        }
        for j in 0..GROUP / 2 {
            // lane 0: H^(8−2j), lane 1: H^(7−2j).
            let a = ghash::fold_halves(pw[GROUP - 1 - 2 * j]);
            let b = ghash::fold_halves(pw[GROUP - 2 - 2 * j]);
            k.hm[j] = ghash::forms(vcombine_u8(vget_low_u8(a), vget_low_u8(b)));
        }
    }
}
