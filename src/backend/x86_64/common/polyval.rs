//! POLYVAL-domain GHASH arithmetic on 128-bit registers (method in `common/mod.rs`): the
//! Montgomery reduction, the Karatsuba accumulator of an unreduced sum of products, the
//! key-setup product and mulX, and GHASH of 1..=16 blocks aggregated with H^n..H^1 and
//! one reduction (the short remainders of both backends).

use super::block::{bswap_mask, load, store};
use super::dispatch::ghash_by_count;
use super::key::XKey;
use core::arch::x86_64::*;

/// POLYVAL's x^128 + x^127 + x^126 + x^121 + 1 without x^128: high half 0xc2 << 56,
/// low half 1.
#[inline(always)]
unsafe fn poly() -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 1) }
}

/// Montgomery reduction: (hi·x^128 + lo)·x^-128 mod P. Each step multiplies the low
/// 64 bits by 0xc2 << 56 and folds them into the next 64 (the swap moves them up), so
/// after two steps the low 128 bits are zero (Gueron's two-multiplication reduction).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let p = poly();
        let t = _mm_clmulepi64_si128::<0x10>(lo, p);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x10>(lo, p);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(hi, lo)
    }
}

/// Karatsuba accumulators of an unreduced 256-bit sum of products.
#[derive(Clone, Copy)]
pub(crate) struct Acc {
    pub(crate) lo: __m128i,
    pub(crate) mid: __m128i,
    pub(crate) hi: __m128i,
}

impl Acc {
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(crate) unsafe fn new() -> Acc {
        let z = _mm_setzero_si128();
        Acc {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Adds x·h; `hk` holds lo ^ hi of h in its low half.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    #[allow(unused_unsafe)] // intrinsics are safe here from Rust 1.86 on, not in 1.85
    pub(crate) unsafe fn mul_add(&mut self, x: __m128i, h: __m128i, hk: __m128i) {
        // SAFETY: features enabled.
        unsafe {
            let xk = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
            self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128::<0x00>(x, h));
            self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128::<0x11>(x, h));
            self.mid = _mm_xor_si128(self.mid, _mm_clmulepi64_si128::<0x00>(xk, hk));
        }
    }

    /// Folds the middle term in and reduces: the POLYVAL product.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(crate) unsafe fn reduce(self) -> __m128i {
        // SAFETY: features enabled.
        unsafe {
            let mid = _mm_xor_si128(self.mid, _mm_xor_si128(self.lo, self.hi));
            let lo = _mm_xor_si128(self.lo, _mm_slli_si128::<8>(mid));
            let hi = _mm_xor_si128(self.hi, _mm_srli_si128::<8>(mid));
            reduce(lo, hi)
        }
    }
}

/// POLYVAL product a·b·x^-128 (key setup only).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn dot(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let lo = _mm_clmulepi64_si128::<0x00>(a, b);
        let hi = _mm_clmulepi64_si128::<0x11>(a, b);
        let mid = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x01>(a, b),
            _mm_clmulepi64_si128::<0x10>(a, b),
        );
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        reduce(lo, hi)
    }
}

/// POLYVAL's mulX: a 128-bit shift left by one, adding P back when bit 127 falls out
/// (without a branch: the mask comes from an arithmetic shift of the top bit).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn mul_x(v: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let carry = _mm_srli_epi64::<63>(v);
        let shifted = _mm_or_si128(_mm_slli_epi64::<1>(v), _mm_slli_si128::<8>(carry));
        let top = _mm_shuffle_epi32::<0xff>(_mm_srai_epi32::<31>(v));
        _mm_xor_si128(shifted, _mm_and_si128(top, poly()))
    }
}

ghash_by_count!(
    /// GHASH of 1..=16 blocks aggregated with H^n..H^1 and one reduction; `acc` is the
    /// POLYVAL-domain state.
    "aes,pclmulqdq,ssse3,sse4.1",
    pub(crate) ghash_n => ghash_const,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]
);

#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_const<const N: usize>(k: &XKey, acc: __m128i, data: *const u8) -> __m128i {
    // SAFETY: `data` holds 16*N bytes (caller's contract); features enabled; N ≤ 16.
    unsafe {
        let bs = bswap_mask();
        let mut sum = Acc::new();
        for i in 0..N {
            let mut x = _mm_shuffle_epi8(load(data.add(16 * i)), bs);
            if i == 0 {
                x = _mm_xor_si128(x, acc);
            }
            let p = 16 - N + i;
            sum.mul_add(x, load(k.h[p].as_ptr()), load(k.hk[p].as_ptr()));
        }
        sum.reduce()
    }
}

/// GHASH of one partial block of `n` < 16 bytes at `p`, zero-padded in a register (no
/// stack block for the load to trip over).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn ghash_partial(k: &XKey, y: &mut [u8; 16], p: *const u8, n: usize) {
    // SAFETY: `p` holds `n` readable bytes (caller's contract); features enabled.
    unsafe {
        let bs = bswap_mask();
        let v = crate::backend::partial::load_partial(p, n);
        let x = _mm_set_epi64x(v[1] as i64, v[0] as i64);
        let acc = _mm_xor_si128(
            _mm_shuffle_epi8(load(y.as_ptr()), bs),
            _mm_shuffle_epi8(x, bs),
        );
        let mut sum = Acc::new();
        sum.mul_add(acc, load(k.h[15].as_ptr()), load(k.hk[15].as_ptr()));
        store(y.as_mut_ptr(), _mm_shuffle_epi8(sum.reduce(), bs));
    }
}

/// The end of a message in one pass: `y` absorbs the lengths block (one multiplication by
/// H), E(K, J0) runs beside it, and the tag is their XOR; nothing goes through memory
/// between the two.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn tag(k: &XKey, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
    // SAFETY: features enabled; every pointer is a 16-byte array.
    unsafe {
        let bs = bswap_mask();
        let mask = super::block::aes_block(k, load(j0.as_ptr()));
        let acc = _mm_xor_si128(
            _mm_shuffle_epi8(load(y.as_ptr()), bs),
            _mm_shuffle_epi8(load(lens.as_ptr()), bs),
        );
        let mut sum = Acc::new();
        sum.mul_add(acc, load(k.h[15].as_ptr()), load(k.hk[15].as_ptr()));
        let out = _mm_shuffle_epi8(sum.reduce(), bs);
        store(y.as_mut_ptr(), out);
        let mut t = [0u8; 16];
        store(t.as_mut_ptr(), _mm_xor_si128(mask, out));
        t
    }
}
