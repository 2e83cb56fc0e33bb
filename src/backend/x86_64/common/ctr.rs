//! CTR keystream only, eight blocks at a time round-major on AES-NI (the second pass of
//! a verify-then-decrypt open, and what is left of it after the VAES backend's
//! sixteen-block iterations).

use super::block::{ctr_block, ctr_from_native, ctr_to_native, load, rk, store};
use super::key::XKey;
use core::arch::x86_64::*;

/// Blocks encrypted together (round by round, so their AES chains overlap).
const LANES: usize = 8;

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn ctr_only(
    k: &XKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled;
    // round-key indices ≤ rounds ≤ 14.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let rounds = k.rounds as usize;
        let mut i = 0;
        while i < blocks {
            let n = (blocks - i).min(LANES);
            let mut b = [_mm_setzero_si128(); LANES];
            let k0 = rk(k, 0);
            for (j, blk) in b.iter_mut().enumerate().take(n) {
                *blk = _mm_xor_si128(ctr_block(c, j as u32), k0);
            }
            c = _mm_add_epi32(c, _mm_cvtsi32_si128(n as i32));
            for r in 1..rounds {
                let key = rk(k, r);
                for blk in b.iter_mut().take(n) {
                    *blk = _mm_aesenc_si128(*blk, key);
                }
            }
            let last = rk(k, rounds);
            for (j, blk) in b.iter().enumerate().take(n) {
                let x = load(src.add(16 * (i + j)));
                store(
                    dst.add(16 * (i + j)),
                    _mm_xor_si128(_mm_aesenclast_si128(*blk, last), x),
                );
            }
            i += n;
        }
        ctr_from_native(c, ctr);
    }
}
