//! Tails and short messages of `x86_64-vaes`: the last 0..=15 blocks, and E(K, J0) as one
//! more lane when the mode asks, round-major in one go: block pairs in ymm registers, an
//! odd last block and the J0 lane in xmm registers beside them; then one GHASH of the
//! blocks aggregated with H^n..H^1 (pairs on VPCLMULQDQ) and one reduction. Each block
//! count has a kernel of its own so the lanes stay in registers.

use super::ymm::{
    aesenc, aesenclast, bswap256, ctr_blocks, ctr_pair, load256, low_lane, store256, Acc2,
};
use super::WIDE;
use crate::backend::x86_64::common::{
    bswap_mask, ctr_block, load, middle_rounds, rk, store, tail_by_count,
};
use crate::backend::x86_64::common::{Acc, XKey};
use core::arch::x86_64::*;

tail_by_count!("avx2,aes,pclmulqdq,ssse3,sse4.1", tail_n, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);

/// `crypt_tail` for `N` blocks plus, if `J`, the block at `j0` encrypted in place.
/// `acc` is the POLYVAL-domain state.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tail_n<const ENC: bool, const N: usize, const J: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    j0: *mut u8,
) {
    // SAFETY: `src`/`dst` hold 16*N bytes and `j0` 16 bytes if `J` (caller's contract);
    // features enabled; pair indices < N/2 ≤ 7, key-table indices 16-N+2j+1 ≤ 15 and
    // round indices ≤ 14.
    unsafe {
        let pairs = N / 2;
        let odd = N % 2 == 1;
        let bs = bswap256();
        let k0 = rk(k, 0);
        let k0y = _mm256_broadcastsi128_si256(k0);
        let cy = ctr_pair(*c);
        let mut b = [_mm256_setzero_si256(); WIDE / 2];
        for (j, blk) in b.iter_mut().enumerate().take(pairs) {
            *blk = _mm256_xor_si256(ctr_blocks(cy, j, bs), k0y);
        }
        let mut last_blk = _mm_setzero_si128();
        if odd {
            last_blk = _mm_xor_si128(ctr_block(*c, N as u32 - 1), k0);
        }
        *c = _mm_add_epi32(*c, _mm_cvtsi32_si128(N as i32));
        let mut jb = _mm_setzero_si128();
        if J {
            jb = _mm_xor_si128(load(j0), k0);
        }
        let kl = middle_rounds!(k, |key| {
            let key_y = _mm256_broadcastsi128_si256(key);
            for blk in b.iter_mut().take(pairs) {
                *blk = aesenc(*blk, key_y);
            }
            if odd {
                last_blk = _mm_aesenc_si128(last_blk, key);
            }
            if J {
                jb = _mm_aesenc_si128(jb, key);
            }
        });
        let kl_y = _mm256_broadcastsi128_si256(kl);
        if J {
            store(j0, _mm_aesenclast_si128(jb, kl));
        }
        if N == 0 {
            return;
        }
        let mut wide = Acc2::zero();
        let h = k.h.as_ptr() as *const u8;
        let hk = k.hk.as_ptr() as *const u8;
        for (j, blk) in b.iter().enumerate().take(pairs) {
            let x = load256(src.add(32 * j));
            let o = _mm256_xor_si256(aesenclast(*blk, kl_y), x);
            store256(dst.add(32 * j), o);
            let mut g = _mm256_shuffle_epi8(if ENC { o } else { x }, bs);
            if j == 0 {
                g = _mm256_xor_si256(g, low_lane(*acc));
            }
            let p = 16 * (16 - N + 2 * j);
            wide.mul_add(g, load256(h.add(p)), load256(hk.add(p)));
        }
        let mut narrow = Acc::new();
        if odd {
            let x = load(src.add(16 * (N - 1)));
            let o = _mm_xor_si128(_mm_aesenclast_si128(last_blk, kl), x);
            store(dst.add(16 * (N - 1)), o);
            let mut g = _mm_shuffle_epi8(if ENC { o } else { x }, bswap_mask());
            if N == 1 {
                g = _mm_xor_si128(g, *acc);
            }
            narrow.mul_add(g, load(k.h[15].as_ptr()), load(k.hk[15].as_ptr()));
        }
        *acc = wide.reduce_with(narrow);
    }
}
