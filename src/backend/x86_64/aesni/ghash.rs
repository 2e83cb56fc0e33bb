//! GHASH-only for `x86_64-aesni` (the AAD, and the first pass of a verify-then-decrypt
//! open): sixteen blocks per iteration aggregated with H^16..H^1 and one reduction, the
//! remainder through `common`'s per-count kernels.

use crate::backend::x86_64::common::{bswap_mask, ghash_n, load, store, Acc, XKey};
use core::arch::x86_64::*;

/// GHASH-only steady state: sixteen blocks per iteration with H^16..H^1, one reduction.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn kernel_ghash(k: &XKey, y: &mut __m128i, mut data: *const u8, iterations: usize) {
    // SAFETY: `data` holds 256*iterations bytes (caller's contract); features enabled.
    unsafe {
        let bs = bswap_mask();
        let mut acc = *y;
        for _ in 0..iterations {
            let mut sum = Acc::new();
            for i in 0..16 {
                let mut x = _mm_shuffle_epi8(load(data.add(16 * i)), bs);
                if i == 0 {
                    x = _mm_xor_si128(x, acc);
                }
                sum.mul_add(x, load(k.h[i].as_ptr()), load(k.hk[i].as_ptr()));
            }
            acc = sum.reduce();
            data = data.add(256);
        }
        *y = acc;
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ghash(k: &XKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let iterations = blocks / 16;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(256 * iterations);
        }
        let left = blocks % 16;
        if left > 0 {
            acc = ghash_n(k, acc, data, left);
        }
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}
