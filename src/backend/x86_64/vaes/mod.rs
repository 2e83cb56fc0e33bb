//! `x86_64-vaes`: AES-GCM with VAES and VPCLMULQDQ on 256-bit (AVX2) registers.
//!
//! The method of `x86_64-aesni` (stitched CTR + GHASH, the POLYVAL-domain GHASH of
//! `common/` with Karatsuba and one Montgomery reduction per group, the same key layout
//! and key setup), widened as Drucker, Gueron and Krasnov describe for the vectorized
//! instructions ("Fast multiplication of binary polynomials with the forthcoming
//! vectorized VPCLMULQDQ instruction", ARITH 2018; "Making AES great again: the
//! forthcoming vectorized AES instruction", ITNG 2019): a 256-bit register holds two
//! blocks, so one VAESENC runs a round on two blocks and one VPCLMULQDQ forms two 64×64
//! products. An iteration covers sixteen blocks in eight registers (`wide.rs`).
//! Remainders of fewer than sixteen blocks and short messages run round-major in one go
//! (`tail.rs`), GHASH-only input sixteen blocks per reduction (`ghash.rs`), the CTR-only
//! pass sixteen blocks per iteration (`ctr.rs`); `ymm.rs` holds the 256-bit building
//! blocks. Key setup, single blocks and what is left of the CTR-only pass use the
//! 128-bit code of `common/`. Constant time by construction, as `x86_64-aesni`.

mod ctr;
mod ghash;
mod tail;
mod wide;
mod ymm;

use super::common::{
    bswap_mask, ctr_from_native, ctr_to_native, load, store, vaes_available, x86_backend, XKey,
};
use crate::backend::PublicCtr;
use core::arch::x86_64::*;

/// The backend.
pub(crate) struct X86Vaes;

x86_backend! {
    X86Vaes = c"x86_64-vaes",
    available: vaes_available,
    crypt: crypt,
    ghash: ghash::ghash,
    ctr: ctr::ctr_only,
}

/// `ghash::ghash` for `x86_64-vaes512`'s remainders.
#[inline(always)]
pub(super) unsafe fn ghash(k: &XKey, y: &mut [u8; 16], data: *const u8, blocks: usize) {
    // SAFETY: forwarded contract, as above.
    unsafe { ghash::ghash(k, y, data, blocks) }
}

/// `ctr::ctr_only` for `x86_64-vaes512`'s remainders.
#[inline(always)]
pub(super) unsafe fn ctr_only(
    k: &XKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: forwarded contract, as above.
    unsafe { ctr::ctr_only(k, ctr, src, dst, blocks) }
}

/// Blocks per iteration of the main loops.
const WIDE: usize = 16;

/// The fused kernel for one direction: whole sixteen-block iterations in the stitched
/// loop, then the remainder (and `j0`) in one round-major tail. No step depends on the counter's
/// position: `_at` is not used.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt<const ENC: bool>(
    k: &XKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
    _at: PublicCtr,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let iterations = blocks / WIDE;
        if iterations > 0 {
            wide::select::<ENC>(k.rounds)(k, &mut c, &mut acc, src, dst, iterations);
            src = src.add(16 * WIDE * iterations);
            dst = dst.add(16 * WIDE * iterations);
        }
        let left = blocks % WIDE;
        if left > 0 || j0.is_some() {
            tail::crypt_tail::<ENC>(k, &mut c, &mut acc, src, dst, left, j0);
        }
        ctr_from_native(c, ctr);
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}
