//! 128-bit building blocks: unaligned loads and stores, the byte-reversal mask, round
//! keys, whole-block AES with a key of any size (single blocks, key setup, the tag mask)
//! and the byte-reversed counter (inc32 is a `paddd` on lane 0).

use super::key::XKey;
use core::arch::x86_64::*;

/// `pshufb` mask reversing the 16 bytes of a block.
#[inline(always)]
pub(crate) unsafe fn bswap_mask() -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
}

#[inline(always)]
pub(crate) unsafe fn load(p: *const u8) -> __m128i {
    // SAFETY: caller guarantees 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(p as *const __m128i) }
}

#[inline(always)]
pub(crate) unsafe fn store(p: *mut u8, v: __m128i) {
    // SAFETY: caller guarantees 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(p as *mut __m128i, v) }
}

#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn rk(k: &XKey, r: usize) -> __m128i {
    // SAFETY: `k.rk[r]` holds 16 bytes (bounds-checked index).
    unsafe { load(k.rk[r].as_ptr()) }
}

/// Runs `$body` with `$key` bound to each middle round key (rounds 1 to rounds - 1) in
/// order and evaluates to the last round key. Written as constant-bound loops, which the
/// compiler unrolls with the bounds checks gone: nine rounds every key size has, two more
/// for AES-192 and AES-256, two more for AES-256 (branches on the key size, which is
/// public). A loop to `k.rounds` would cost a counter, a compare and a checked index per
/// round: a third of a single block's instructions.
macro_rules! middle_rounds {
    ($k:expr, |$key:ident| $body:block) => {{
        let k: &$crate::backend::x86_64::common::XKey = $k;
        for r in 1..10 {
            let $key = $crate::backend::x86_64::common::rk(k, r);
            $body
        }
        if k.rounds > 10 {
            for r in 10..12 {
                let $key = $crate::backend::x86_64::common::rk(k, r);
                $body
            }
        }
        if k.rounds > 12 {
            for r in 12..14 {
                let $key = $crate::backend::x86_64::common::rk(k, r);
                $body
            }
        }
        $crate::backend::x86_64::common::rk(k, (k.rounds as usize).min(14))
    }};
}
pub(crate) use middle_rounds;

/// Encrypts one block with a key of any size.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn aes_block(k: &XKey, b: __m128i) -> __m128i {
    // SAFETY: features enabled; round indices ≤ 14.
    unsafe {
        let mut b = _mm_xor_si128(b, rk(k, 0));
        let last = middle_rounds!(k, |key| {
            b = _mm_aesenc_si128(b, key);
        });
        _mm_aesenclast_si128(b, last)
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn encrypt_block(k: &XKey, block: &mut [u8; 16]) {
    // SAFETY: features enabled; `block` is 16 bytes.
    unsafe { store(block.as_mut_ptr(), aes_block(k, load(block.as_ptr()))) }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn encrypt_block2(k: &XKey, a: &mut [u8; 16], b: &mut [u8; 16]) {
    // SAFETY: features enabled; 16-byte blocks; round indices ≤ 14.
    unsafe {
        let key = rk(k, 0);
        let mut x = _mm_xor_si128(load(a.as_ptr()), key);
        let mut y = _mm_xor_si128(load(b.as_ptr()), key);
        let key = middle_rounds!(k, |key| {
            x = _mm_aesenc_si128(x, key);
            y = _mm_aesenc_si128(y, key);
        });
        store(a.as_mut_ptr(), _mm_aesenclast_si128(x, key));
        store(b.as_mut_ptr(), _mm_aesenclast_si128(y, key));
    }
}

/// The GCM counter block as kept in registers: byte-reversed, so the 32-bit counter is
/// lane 0 and inc32 is a `paddd`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn ctr_to_native(ctr: &[u8; 16]) -> __m128i {
    // SAFETY: features enabled; 16-byte block.
    unsafe { _mm_shuffle_epi8(load(ctr.as_ptr()), bswap_mask()) }
}

#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn ctr_from_native(c: __m128i, ctr: &mut [u8; 16]) {
    // SAFETY: features enabled; 16-byte block.
    unsafe { store(ctr.as_mut_ptr(), _mm_shuffle_epi8(c, bswap_mask())) }
}

/// Counter block `c + i` (inc32 semantics) in GCM byte order.
#[inline(always)]
pub(crate) unsafe fn ctr_block(c: __m128i, i: u32) -> __m128i {
    // SAFETY: only inlined into functions with ssse3 enabled.
    unsafe { _mm_shuffle_epi8(_mm_add_epi32(c, _mm_cvtsi32_si128(i as i32)), bswap_mask()) }
}
