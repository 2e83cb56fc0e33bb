//! The kernels of `aarch64-neon`: CTR with GHASH of the ciphertext (run by the fused
//! entry in `../common.rs`), and CTR alone, over groups of eight blocks, and the tails.
//!
//! CTR and GHASH run in the same loop; in decryption the GHASH input does not wait for
//! the AES, so the out-of-order core overlaps the two. A tail of 0..=7 blocks (and J0,
//! which rides along as one more lane) is one AES call — the vector-permute one for up
//! to four lanes, else the eight-lane bit-sliced — and one GHASH of its blocks with
//! H^n..H^1 (`ghash::ghash_first`).

use super::aes::aes8_ctr_inline;
use super::ghash::{ghash_first, ghash_n};
use super::vperm::encrypt_lanes;
use super::{NeonKey, GROUP};
use crate::backend::aarch64::common::{
    ctr_add, ctr_block, ctr_from_native, ctr_to_native, GroupKernel, Kernels,
};
use crate::backend::Direction;
use core::arch::aarch64::*;

/// One group of eight blocks: CTR and GHASH of the ciphertext. Decryption hashes the
/// input, which does not wait for the AES, so the two streams overlap.
#[inline(always)]
unsafe fn crypt_group<const ENC: bool>(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY: NEON baseline; `src`/`dst` hold 128 bytes (caller's contract).
    unsafe {
        let input: [uint8x16_t; GROUP] = core::array::from_fn(|i| vld1q_u8(src.add(16 * i)));
        let ks = aes8_ctr_inline(k, *ctr);
        *ctr = ctr_add(*ctr, GROUP as u32);
        let out: [uint8x16_t; GROUP] = core::array::from_fn(|i| veorq_u8(input[i], ks[i]));
        for (i, o) in out.iter().enumerate() {
            vst1q_u8(dst.add(16 * i), *o);
        }
        let mut x = if ENC { out } else { input }.map(|v| vrbitq_u8(v));
        x[0] = veorq_u8(x[0], *y);
        *y = ghash_n(k, &x);
    }
}

/// Steady-state CTR + GHASH loop for one direction, every key size (the AES rounds are a
/// loop whose count is read from the key: `aes::aes8_planes`).
#[inline(always)]
unsafe fn kernel_crypt<const ENC: bool>(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    mut src: *const u8,
    mut dst: *mut u8,
    groups: usize,
) {
    // SAFETY: `src`/`dst` hold 128*groups bytes (caller's contract).
    unsafe {
        for _ in 0..groups {
            crypt_group::<ENC>(k, ctr, y, src, dst);
            src = src.add(16 * GROUP);
            dst = dst.add(16 * GROUP);
        }
    }
}

/// Named instances (the model and `ct-static` find the kernels by name).
#[inline(never)]
unsafe fn kernel_enc(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
    groups: usize,
) {
    // SAFETY: forwarded contract.
    unsafe { kernel_crypt::<true>(k, ctr, y, src, dst, groups) }
}

#[inline(never)]
unsafe fn kernel_dec(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
    groups: usize,
) {
    // SAFETY: forwarded contract.
    unsafe { kernel_crypt::<false>(k, ctr, y, src, dst, groups) }
}

/// Steady-state CTR loop (keystream only), every key size.
#[inline(never)]
unsafe fn kernel_ctr(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    mut src: *const u8,
    mut dst: *mut u8,
    groups: usize,
) {
    // SAFETY: `src`/`dst` hold 128*groups bytes (caller's contract).
    unsafe {
        for _ in 0..groups {
            let ks = aes8_ctr_inline(k, *ctr);
            *ctr = ctr_add(*ctr, GROUP as u32);
            for (i, s) in ks.iter().enumerate() {
                let x = vld1q_u8(src.add(16 * i));
                vst1q_u8(dst.add(16 * i), veorq_u8(x, *s));
            }
            src = src.add(16 * GROUP);
            dst = dst.add(16 * GROUP);
        }
    }
}

/// The CTR + GHASH kernel and the tail for the key's size and the direction.
pub(super) fn kernels(_k: &NeonKey, dir: Direction) -> Kernels<NeonKey> {
    let enc = dir == Direction::Encrypt;
    let groups: GroupKernel<NeonKey> = if enc { kernel_enc } else { kernel_dec };
    Kernels {
        groups,
        tail: if enc {
            crypt_tail::<true>
        } else {
            crypt_tail::<false>
        },
    }
}

/// The last 0..=7 blocks (and J0): one AES call for the lanes (`encrypt_lanes`: the
/// vector-permute AES for a few), and one GHASH of the n blocks with H^n..H^1.
#[inline(never)]
unsafe fn crypt_tail<const ENC: bool>(
    k: &NeonKey,
    c: &mut uint32x4_t,
    acc: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    debug_assert!(n < GROUP);
    // SAFETY: `src`/`dst` hold 16*n bytes (caller's contract); n ≤ 7 (public), so every
    // index below is < 8; NEON baseline.
    unsafe {
        let mut lanes = [vdupq_n_u8(0); GROUP];
        for (i, l) in lanes.iter_mut().enumerate().take(n) {
            *l = ctr_block(*c, i as u32);
        }
        *c = ctr_add(*c, n as u32);
        if let Some(j) = &j0 {
            lanes[n] = vld1q_u8(j.as_ptr());
        }
        let ks = encrypt_lanes(k, lanes, n + usize::from(j0.is_some()));
        if let Some(j) = j0 {
            vst1q_u8(j.as_mut_ptr(), ks[n]);
        }
        if n == 0 {
            return;
        }
        let mut x = [vdupq_n_u8(0); GROUP];
        for i in 0..n {
            let v = vld1q_u8(src.add(16 * i));
            let o = veorq_u8(v, ks[i]);
            vst1q_u8(dst.add(16 * i), o);
            x[i] = vrbitq_u8(if ENC { o } else { v });
        }
        x[0] = veorq_u8(x[0], *acc);
        *acc = ghash_first(k, &x, n);
    }
}

pub(super) unsafe fn ctr_only(
    k: &NeonKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); NEON baseline.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let groups = blocks / GROUP;
        if groups > 0 {
            kernel_ctr(k, &mut c, src, dst, groups);
        }
        let done = groups * GROUP;
        let n = blocks - done;
        if n > 0 {
            let mut lanes = [vdupq_n_u8(0); GROUP];
            for (i, l) in lanes.iter_mut().enumerate().take(n) {
                *l = ctr_block(c, i as u32);
            }
            c = ctr_add(c, n as u32);
            let ks = encrypt_lanes(k, lanes, n);
            for (i, s) in ks.iter().enumerate().take(n) {
                let x = vld1q_u8(src.add(16 * (done + i)));
                vst1q_u8(dst.add(16 * (done + i)), veorq_u8(x, *s));
            }
        }
        ctr_from_native(c, ctr);
    }
}
