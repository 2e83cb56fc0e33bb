//! Key setup of `aarch64-ce`: the round keys, then the GHASH key H = E(K, 0^128) and
//! its powers in the forms the kernels read.
//!
//! H^1..H^16 are stored bit-reversed within each byte (the natural polynomial order of
//! `ghash.rs`). Beside them: the Karatsuba middle operands lo ^ hi of each power, two
//! powers to a register (`hk`, for the intrinsic GHASH code), and the pair form of
//! H^8..H^1 (`ghp`, for the generated loops, which hash two blocks per step: the low
//! halves of two powers in one register, their high halves in another, their lo ^ hi in
//! a third), then 0x87 and zero. The layout is documented on `CeKey`.

use super::aes::aes_block;
use super::ghash::gf_mul;
use super::CeKey;
use core::arch::aarch64::*;

/// Expands `key` (16, 24 or 32 bytes) into `k`.
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn init(k: &mut CeKey, key: &[u8]) {
    expand_key(k, key);
    // SAFETY: neon+aes enabled on this function.
    unsafe {
        let h = aes_block(k, vdupq_n_u8(0));
        let h1 = vrbitq_u8(h);
        let mut p = h1;
        for i in 0..16 {
            vst1q_u8(k.h[i].as_mut_ptr(), p);
            p = gf_mul(p, h1);
        }
        for i in 0..8 {
            let a = vld1q_u8(k.h[2 * i].as_ptr());
            let b = vld1q_u8(k.h[2 * i + 1].as_ptr());
            // lane 0: lo^hi of a; lane 1: lo^hi of b.
            let fa = veorq_u8(a, vextq_u8::<8>(a, a));
            let fb = veorq_u8(b, vextq_u8::<8>(b, b));
            let packed = vreinterpretq_u8_u64(vzip1q_u64(
                vreinterpretq_u64_u8(fa),
                vreinterpretq_u64_u8(fb),
            ));
            vst1q_u8(k.hk[i].as_mut_ptr(), packed);
        }
        for j in 0..4 {
            let a = vreinterpretq_u64_u8(vld1q_u8(k.h[7 - 2 * j].as_ptr()));
            let b = vreinterpretq_u64_u8(vld1q_u8(k.h[6 - 2 * j].as_ptr()));
            let lo = vzip1q_u64(a, b);
            let hi = vzip2q_u64(a, b);
            let mid = veorq_u64(lo, hi);
            vst1q_u8(k.ghp[3 * j].as_mut_ptr(), vreinterpretq_u8_u64(lo));
            vst1q_u8(k.ghp[3 * j + 1].as_mut_ptr(), vreinterpretq_u8_u64(hi));
            vst1q_u8(k.ghp[3 * j + 2].as_mut_ptr(), vreinterpretq_u8_u64(mid));
        }
        vst1q_u8(
            k.ghp[12].as_mut_ptr(),
            vreinterpretq_u8_u64(vdupq_n_u64(0x87)),
        );
        vst1q_u8(k.ghp[13].as_mut_ptr(), vdupq_n_u8(0));
    }
}

/// The shared FIPS-197 key expansion (`aes_schedule.rs`) with SubWord on the AES unit.
#[target_feature(enable = "neon,aes")]
#[allow(unused_unsafe)] // intrinsics are safe here from Rust 1.86 on, not in 1.85
unsafe fn expand_key(k: &mut CeKey, key: &[u8]) {
    let sub_word = |x: u32| -> u32 {
        // SAFETY: the enclosing function enables the AES instructions.
        unsafe {
            vgetq_lane_u32::<0>(vreinterpretq_u32_u8(vaeseq_u8(
                vreinterpretq_u8_u32(vdupq_n_u32(x)),
                vdupq_n_u8(0),
            )))
        }
    };
    k.rounds = crate::backend::aes_schedule::expand_with(key, sub_word, &mut k.rk) as u64;
}
