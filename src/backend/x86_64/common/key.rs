//! The expanded key both x86_64 backends use, and its setup: the FIPS-197 schedule
//! (`aes_schedule.rs`) with SubWord on the AES unit, then H = E(K, 0^128) turned into
//! POLYVAL form (mulX of the byte-reversed H, see `common/mod.rs`) and its powers
//! H^1..H^16 with their Karatsuba middle operands.

use super::block::{aes_block, bswap_mask, store};
use super::polyval::{dot, mul_x};
use crate::backend::Plain;
use core::arch::x86_64::*;

/// Expanded key: AES round keys and H^16..H^1 in POLYVAL form.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct XKey {
    pub(crate) rk: [[u8; 16]; 15],
    pub(crate) rounds: u64,
    _pad: u64,
    /// `h[i]` = H^(16-i) (POLYVAL powers): the 8-block stitched loop uses `h[8..16]`,
    /// the 16-block loops all of it; two neighbours load as one 256-bit pair (block 2j
    /// in the low lane takes the higher power).
    pub(crate) h: [[u8; 16]; 16],
    /// `hk[i]`: both 64-bit halves hold lo ^ hi of `h[i]` (Karatsuba middle operand).
    pub(crate) hk: [[u8; 16]; 16],
}

// SAFETY: byte and integer arrays only.
unsafe impl Plain for XKey {}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn init(k: &mut XKey, key: &[u8]) {
    // SAFETY: features enabled on this function.
    unsafe {
        expand_key(k, key);
        let h = aes_block(k, _mm_setzero_si128());
        let h1 = mul_x(_mm_shuffle_epi8(h, bswap_mask()));
        let mut p = h1;
        for i in (0..16).rev() {
            store(k.h[i].as_mut_ptr(), p);
            let fold = _mm_xor_si128(p, _mm_shuffle_epi32::<0x4e>(p));
            store(k.hk[i].as_mut_ptr(), fold);
            p = dot(p, h1);
        }
    }
}

/// The shared FIPS-197 key expansion (`aes_schedule.rs`) with SubWord on the AES unit.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
#[allow(unused_unsafe)] // intrinsics are safe here from Rust 1.86 on, not in 1.85
unsafe fn expand_key(k: &mut XKey, key: &[u8]) {
    let sub_word = |x: u32| -> u32 {
        // SAFETY: the enclosing function enables the AES instructions.
        unsafe {
            _mm_cvtsi128_si32(_mm_aesenclast_si128(
                _mm_set1_epi32(x as i32),
                _mm_setzero_si128(),
            )) as u32
        }
    };
    k.rounds = crate::backend::aes_schedule::expand_with(key, sub_word, &mut k.rk) as u64;
}
