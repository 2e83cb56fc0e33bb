//! Tails and short messages of `x86_64-aesni`: the last 0..=7 blocks, and E(K, J0) as one
//! more lane when the mode asks. All lanes run AES round-major (each round key over every
//! lane, so their chains overlap in the pipeline); their GHASH is aggregated with
//! H^n..H^1 and reduced once. Each block count has a kernel of its own so the lanes live
//! in registers.

use super::GROUP;
use crate::backend::x86_64::common::{
    bswap_mask, ctr_block, load, middle_rounds, rk, store, tail_by_count,
};
use crate::backend::x86_64::common::{Acc, XKey};
use core::arch::x86_64::*;

tail_by_count!("aes,pclmulqdq,ssse3,sse4.1", tail_n, [0 1 2 3 4 5 6 7]);

/// `crypt_tail` for `N` blocks plus, if `J`, the block at `j0` encrypted in place as
/// one more lane. `acc` is the POLYVAL-domain state.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tail_n<const ENC: bool, const N: usize, const J: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    j0: *mut u8,
) {
    // SAFETY: `src`/`dst` hold 16*N bytes and `j0` 16 bytes if `J` (caller's contract);
    // features enabled; lane indices are < N + 1 ≤ 8 and round indices ≤ rounds ≤ 14.
    unsafe {
        let lanes = N + J as usize;
        let key = rk(k, 0);
        let mut ks = [_mm_setzero_si128(); GROUP];
        for (i, b) in ks.iter_mut().enumerate().take(N) {
            *b = _mm_xor_si128(ctr_block(*c, i as u32), key);
        }
        *c = _mm_add_epi32(*c, _mm_cvtsi32_si128(N as i32));
        if J {
            ks[N] = _mm_xor_si128(load(j0), key);
        }
        let last = middle_rounds!(k, |key| {
            for b in ks.iter_mut().take(lanes) {
                *b = _mm_aesenc_si128(*b, key);
            }
        });
        if J {
            store(j0, _mm_aesenclast_si128(ks[N], last));
        }
        if N == 0 {
            return;
        }
        let bs = bswap_mask();
        let mut sum = Acc::new();
        for (i, b) in ks.iter().enumerate().take(N) {
            let x = load(src.add(16 * i));
            let o = _mm_xor_si128(_mm_aesenclast_si128(*b, last), x);
            store(dst.add(16 * i), o);
            let mut h = _mm_shuffle_epi8(if ENC { o } else { x }, bs);
            if i == 0 {
                h = _mm_xor_si128(h, *acc);
            }
            let p = 16 - N + i;
            sum.mul_add(h, load(k.h[p].as_ptr()), load(k.hk[p].as_ptr()));
        }
        *acc = sum.reduce();
    }
}
