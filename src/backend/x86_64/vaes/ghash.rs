//! GHASH-only for `x86_64-vaes` (the AAD, and the first pass of a verify-then-decrypt
//! open): sixteen blocks per iteration on VPCLMULQDQ with H^16..H^1 and one reduction;
//! a remainder of 2..=15 blocks likewise in one go (pairs on VPCLMULQDQ, an odd last
//! block on PCLMULQDQ), a single block through `common`'s 128-bit code.

use super::ymm::{bswap256, key_pair, load256, low_lane, Acc2};
use super::WIDE;
use crate::backend::x86_64::common::{bswap_mask, ghash_by_count, ghash_n, load, store, Acc, XKey};
use core::arch::x86_64::*;

/// GHASH of sixteen blocks at `data` into the POLYVAL-domain `y`, H^16..H^1, one
/// reduction.
#[inline(always)]
pub(super) unsafe fn ghash16(k: &XKey, y: __m128i, data: *const u8) -> __m128i {
    // SAFETY: only inlined into `avx2,pclmulqdq` kernels; `data` holds 256 bytes
    // (caller's contract); key indices are constants < 16.
    unsafe {
        let bs = bswap256();
        let mut acc = Acc2::zero();
        for j in 0..WIDE / 2 {
            let mut x = _mm256_shuffle_epi8(load256(data.add(32 * j)), bs);
            if j == 0 {
                x = _mm256_xor_si256(x, low_lane(y));
            }
            acc.mul_add(x, key_pair(&k.h, j), key_pair(&k.hk, j));
        }
        acc.reduce()
    }
}

ghash_by_count!(
    /// GHASH of 2..=15 blocks by [`ghash_tail_n`].
    "avx2,aes,pclmulqdq,ssse3,sse4.1",
    ghash_tail => ghash_tail_n,
    [2 3 4 5 6 7 8 9 10 11 12 13 14 15]
);

/// GHASH of `N` blocks with H^N..H^1: pairs on VPCLMULQDQ, an odd last block on
/// PCLMULQDQ, one reduction.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_tail_n<const N: usize>(k: &XKey, acc: __m128i, data: *const u8) -> __m128i {
    // SAFETY: `data` holds 16*N bytes (caller's contract); features enabled; key-table
    // offsets are for indices 16-N+2j+1 ≤ 15.
    unsafe {
        let bs = bswap256();
        let h = k.h.as_ptr() as *const u8;
        let hk = k.hk.as_ptr() as *const u8;
        let mut wide = Acc2::zero();
        for j in 0..N / 2 {
            let mut g = _mm256_shuffle_epi8(load256(data.add(32 * j)), bs);
            if j == 0 {
                g = _mm256_xor_si256(g, low_lane(acc));
            }
            let p = 16 * (16 - N + 2 * j);
            wide.mul_add(g, load256(h.add(p)), load256(hk.add(p)));
        }
        let mut narrow = Acc::new();
        if N % 2 == 1 {
            let g = _mm_shuffle_epi8(load(data.add(16 * (N - 1))), bswap_mask());
            narrow.mul_add(g, load(k.h[15].as_ptr()), load(k.hk[15].as_ptr()));
        }
        wide.reduce_with(narrow)
    }
}

/// GHASH-only steady state: sixteen blocks per iteration.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn kernel_ghash(k: &XKey, y: &mut __m128i, mut data: *const u8, iterations: usize) {
    // SAFETY: `data` holds 256*iterations bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = *y;
        for _ in 0..iterations {
            acc = ghash16(k, acc, data);
            data = data.add(16 * WIDE);
        }
        *y = acc;
    }
}

#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ghash(k: &XKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let iterations = blocks / WIDE;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(16 * WIDE * iterations);
        }
        // A `match`, not an `if` chain: Debian's clippy 1.85 (the MSRV's, which lints this
        // code on a host without rustup) denies `comparison_chain`.
        match blocks % WIDE {
            0 => {}
            1 => acc = ghash_n(k, acc, data, 1),
            left => acc = ghash_tail(k, acc, data, left),
        }
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}
