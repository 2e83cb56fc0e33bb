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

/// Encrypts one block with a key of any size.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn aes_block(k: &XKey, b: __m128i) -> __m128i {
    let rounds = k.rounds as usize;
    // SAFETY: features enabled; indices ≤ rounds ≤ 14.
    unsafe {
        let mut b = _mm_xor_si128(b, rk(k, 0));
        for r in 1..rounds {
            b = _mm_aesenc_si128(b, rk(k, r));
        }
        _mm_aesenclast_si128(b, rk(k, rounds))
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn encrypt_block(k: &XKey, block: &mut [u8; 16]) {
    // SAFETY: features enabled; `block` is 16 bytes.
    unsafe { store(block.as_mut_ptr(), aes_block(k, load(block.as_ptr()))) }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn encrypt_block2(k: &XKey, a: &mut [u8; 16], b: &mut [u8; 16]) {
    let rounds = k.rounds as usize;
    // SAFETY: features enabled; 16-byte blocks; indices ≤ rounds ≤ 14.
    unsafe {
        let key = rk(k, 0);
        let mut x = _mm_xor_si128(load(a.as_ptr()), key);
        let mut y = _mm_xor_si128(load(b.as_ptr()), key);
        for r in 1..rounds {
            let key = rk(k, r);
            x = _mm_aesenc_si128(x, key);
            y = _mm_aesenc_si128(y, key);
        }
        let key = rk(k, rounds);
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
