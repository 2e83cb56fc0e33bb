//! 256-bit building blocks of `x86_64-vaes`: VAESENC, VAESENCLAST and VPCLMULQDQ on two
//! blocks at once, loads and stores of block pairs, the two-lane Karatsuba accumulator,
//! and pairs of key powers and counter blocks.
//!
//! Rust 1.85 (the MSRV) has neither the `vaes`/`vpclmulqdq` target features nor the
//! 256-bit AES/CLMUL intrinsics stable, so those instructions are one-instruction `asm!`
//! wrappers (pure and register-only, so LLVM still schedules them); the CPU check is
//! `common::vaes_available`. Everything else is AVX2 intrinsics.

use crate::backend::x86_64::common::{bswap_mask, Acc};
use core::arch::x86_64::*;

/// One VAESENC round on two blocks.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn aesenc(b: __m256i, k: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: register-only VAESENC; only inlined into `avx2` kernels that run after
    // `vaes_available()` said yes.
    unsafe {
        core::arch::asm!("vaesenc {r}, {b}, {k}",
            r = lateout(ymm_reg) r, b = in(ymm_reg) b, k = in(ymm_reg) k,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The last AES round (no MixColumns) on two blocks.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn aesenclast(b: __m256i, k: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: as in `aesenc`.
    unsafe {
        core::arch::asm!("vaesenclast {r}, {b}, {k}",
            r = lateout(ymm_reg) r, b = in(ymm_reg) b, k = in(ymm_reg) k,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// Two carry-less 64×64 products, one per 128-bit lane; `IMM` picks the halves as for
/// PCLMULQDQ.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn clmul<const IMM: u8>(a: __m256i, b: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: register-only VPCLMULQDQ; only inlined into `avx2` kernels that run
    // after `vaes_available()` (which checks VPCLMULQDQ) said yes.
    unsafe {
        core::arch::asm!("vpclmulqdq {r}, {a}, {b}, {imm}",
            r = lateout(ymm_reg) r, a = in(ymm_reg) a, b = in(ymm_reg) b, imm = const IMM,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

#[inline(always)]
pub(super) unsafe fn load256(p: *const u8) -> __m256i {
    // SAFETY: caller guarantees 32 readable bytes; unaligned load; `avx` callers only.
    unsafe { _mm256_loadu_si256(p as *const __m256i) }
}

#[inline(always)]
pub(super) unsafe fn store256(p: *mut u8, v: __m256i) {
    // SAFETY: caller guarantees 32 writable bytes; unaligned store; `avx` callers only.
    unsafe { _mm256_storeu_si256(p as *mut __m256i, v) }
}

/// Karatsuba accumulators, two lanes each.
#[derive(Clone, Copy)]
pub(super) struct Acc2 {
    pub(super) lo: __m256i,
    pub(super) mid: __m256i,
    pub(super) hi: __m256i,
}

impl Acc2 {
    #[inline(always)]
    pub(super) unsafe fn zero() -> Acc2 {
        // SAFETY: only inlined into `avx2` kernels.
        unsafe {
            Acc2 {
                lo: _mm256_setzero_si256(),
                mid: _mm256_setzero_si256(),
                hi: _mm256_setzero_si256(),
            }
        }
    }

    /// Adds x·h lane by lane (two blocks, two key powers); `hk` holds lo ^ hi of each
    /// lane's power in its low half.
    #[inline(always)]
    pub(super) unsafe fn mul_add(&mut self, x: __m256i, h: __m256i, hk: __m256i) {
        // SAFETY: only inlined into `avx2` kernels.
        unsafe {
            let xk = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
            self.lo = _mm256_xor_si256(self.lo, clmul::<0x00>(x, h));
            self.hi = _mm256_xor_si256(self.hi, clmul::<0x11>(x, h));
            self.mid = _mm256_xor_si256(self.mid, clmul::<0x00>(xk, hk));
        }
    }

    /// Adds the two lanes together and reduces: the POLYVAL-domain result.
    #[inline(always)]
    pub(super) unsafe fn reduce(self) -> __m128i {
        // SAFETY: only inlined into `avx2,pclmulqdq` kernels.
        unsafe {
            Acc {
                lo: fold(self.lo),
                mid: fold(self.mid),
                hi: fold(self.hi),
            }
            .reduce()
        }
    }

    /// Adds both lanes to the 128-bit accumulator `narrow` (an odd last block) and
    /// reduces the sum.
    #[inline(always)]
    pub(super) unsafe fn reduce_with(self, mut narrow: Acc) -> __m128i {
        // SAFETY: only inlined into `avx2,pclmulqdq` kernels.
        unsafe {
            narrow.lo = _mm_xor_si128(narrow.lo, fold(self.lo));
            narrow.mid = _mm_xor_si128(narrow.mid, fold(self.mid));
            narrow.hi = _mm_xor_si128(narrow.hi, fold(self.hi));
            narrow.reduce()
        }
    }
}

/// The sum of the two lanes.
#[inline(always)]
unsafe fn fold(v: __m256i) -> __m128i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
}

/// `v` in the low lane, zero in the high one (the GHASH state joins the first block of a
/// pair).
#[inline(always)]
pub(super) unsafe fn low_lane(v: __m128i) -> __m256i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe { _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), v) }
}

/// Entries 2j and 2j + 1 of a table of the key (`h` or `hk`) as one register.
#[inline(always)]
pub(super) unsafe fn key_pair(t: &[[u8; 16]; 16], j: usize) -> __m256i {
    debug_assert!(j < 8);
    // SAFETY: j < 8, so the 32 bytes read lie inside `t`; `avx` callers only.
    unsafe { load256(t.as_ptr().add(2 * j) as *const u8) }
}

/// `vpshufb` mask reversing each 128-bit lane.
#[inline(always)]
pub(super) unsafe fn bswap256() -> __m256i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe { _mm256_broadcastsi128_si256(bswap_mask()) }
}

/// The byte-reversed counter `c` in the low lane and `c + 1` in the high one.
#[inline(always)]
pub(super) unsafe fn ctr_pair(c: __m128i) -> __m256i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe {
        _mm256_add_epi32(
            _mm256_broadcastsi128_si256(c),
            _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
        )
    }
}

/// Counter blocks `c + 2j` and `c + 2j + 1` of the pair `cy` from [`ctr_pair`], in GCM
/// byte order (`bs` is [`bswap256`]).
#[inline(always)]
pub(super) unsafe fn ctr_blocks(cy: __m256i, j: usize, bs: __m256i) -> __m256i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe {
        let inc = _mm256_set_epi32(0, 0, 0, 2 * j as i32, 0, 0, 0, 2 * j as i32);
        _mm256_shuffle_epi8(_mm256_add_epi32(cy, inc), bs)
    }
}
