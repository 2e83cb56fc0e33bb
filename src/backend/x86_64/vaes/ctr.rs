//! CTR keystream only for `x86_64-vaes` (the second pass of a verify-then-decrypt open):
//! sixteen blocks per iteration round-major on VAES, what is left on `common`'s AES-NI
//! code.

use super::ymm::{aesenc, aesenclast, bswap256, ctr_blocks, ctr_pair, load256, store256};
use super::WIDE;
use crate::backend::x86_64::common::{self, ctr_from_native, ctr_to_native, load, XKey};
use core::arch::x86_64::*;

#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr_only(
    k: &XKey,
    ctr: &mut [u8; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled;
    // round-key indices ≤ rounds ≤ 14.
    unsafe {
        let rounds = k.rounds as usize;
        let rk: [__m256i; 15] = core::array::from_fn(|r| {
            _mm256_broadcastsi128_si256(load(k.rk[r.min(rounds)].as_ptr()))
        });
        let bs = bswap256();
        let mut c = ctr_to_native(ctr);
        for _ in 0..blocks / WIDE {
            let cy = ctr_pair(c);
            let mut b: [__m256i; WIDE / 2] =
                core::array::from_fn(|j| _mm256_xor_si256(ctr_blocks(cy, j, bs), rk[0]));
            c = _mm_add_epi32(c, _mm_cvtsi32_si128(WIDE as i32));
            for key in rk.iter().take(rounds).skip(1) {
                for blk in b.iter_mut() {
                    *blk = aesenc(*blk, *key);
                }
            }
            for (j, blk) in b.iter().enumerate() {
                let x = load256(src.add(32 * j));
                store256(
                    dst.add(32 * j),
                    _mm256_xor_si256(aesenclast(*blk, rk[rounds]), x),
                );
            }
            src = src.add(16 * WIDE);
            dst = dst.add(16 * WIDE);
        }
        ctr_from_native(c, ctr);
        common::ctr_only(k, ctr, src, dst, blocks % WIDE);
    }
}
