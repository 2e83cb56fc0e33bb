//! AES with the crypto extensions, outside the stitched loops: one or two blocks with a
//! key of any size (key setup, the tag mask, J0), round keys loaded into registers
//! for a fixed round count, and the three-way XOR that finishes a keystream block.
//!
//! AESE does AddRoundKey, SubBytes and ShiftRows, AESMC MixColumns; so round key r goes
//! into the AESE of round r + 1 and the last round key is a plain XOR.

use super::CeKey;
use crate::backend::aarch64::common::vector_insn;
use core::arch::aarch64::*;

/// One full round (AESE+AESMC, adjacent for fusion) and the last round's AESE, for the
/// `#[inline(always)]` helpers of the stitched kernels, which carry no target features of
/// their own (1.85 forbids `inline(always)` with them). Rust 1.96's intrinsics are
/// `inline(always)` with `aes`, and it warns when a caller without `aes` calls them
/// directly; through these `#[inline]` wrappers LLVM inlines them once the helper sits
/// in its `neon,aes` kernel, as before.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn aes_round(b: uint8x16_t, key: uint8x16_t) -> uint8x16_t {
    vaesmcq_u8(vaeseq_u8(b, key))
}

/// AESE alone: the last round before the final key XOR (see [`aes_round`]).
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn aes_final(b: uint8x16_t, key: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(b, key)
}

/// Round keys 0..=R in registers (the rest zero), for the kernels of one key size.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn load_rk<const R: usize>(k: &CeKey) -> [uint8x16_t; 15] {
    let mut rk = [vdupq_n_u8(0); 15];
    for (i, r) in rk.iter_mut().enumerate().take(R + 1) {
        // SAFETY: i ≤ R ≤ 14 indexes `k.rk`.
        *r = unsafe { vld1q_u8(k.rk[i].as_ptr()) };
    }
    rk
}

/// Encrypts one block with a key of any size.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn aes_block(k: &CeKey, mut b: uint8x16_t) -> uint8x16_t {
    let rounds = k.rounds as usize;
    // SAFETY: neon+aes enabled; indices < rounds+1 ≤ 15.
    unsafe {
        for r in 0..rounds - 1 {
            b = vaesmcq_u8(vaeseq_u8(b, vld1q_u8(k.rk[r].as_ptr())));
        }
        b = vaeseq_u8(b, vld1q_u8(k.rk[rounds - 1].as_ptr()));
        veorq_u8(b, vld1q_u8(k.rk[rounds].as_ptr()))
    }
}

/// Encrypts two blocks with a key of any size, interleaved.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn aes_block2(
    k: &CeKey,
    mut a: uint8x16_t,
    mut b: uint8x16_t,
) -> (uint8x16_t, uint8x16_t) {
    let rounds = k.rounds as usize;
    // SAFETY: neon+aes enabled; indices < rounds+1 ≤ 15.
    unsafe {
        for r in 0..rounds - 1 {
            let key = vld1q_u8(k.rk[r].as_ptr());
            a = vaesmcq_u8(vaeseq_u8(a, key));
            b = vaesmcq_u8(vaeseq_u8(b, key));
        }
        let key = vld1q_u8(k.rk[rounds - 1].as_ptr());
        let last = vld1q_u8(k.rk[rounds].as_ptr());
        (
            veorq_u8(vaeseq_u8(a, key), last),
            veorq_u8(vaeseq_u8(b, key), last),
        )
    }
}

/// a ^ b ^ c: one EOR3 (SHA3 extension) or two EORs. Used for the output of the stitched
/// loop (keystream ^ last round key ^ input); inside the SHA3 kernels LLVM also fuses
/// EOR chains of the GHASH part into EOR3 by itself.
#[inline(always)]
pub(super) unsafe fn xor3<const X3: bool>(
    a: uint8x16_t,
    b: uint8x16_t,
    c: uint8x16_t,
) -> uint8x16_t {
    if X3 {
        // SAFETY: X3 code is only reached on CPUs with SHA3 (see `is_available`).
        unsafe { eor3(a, b, c) }
    } else {
        veorq_u8(a, veorq_u8(b, c))
    }
}

vector_insn! {
    #[inline]
    #[target_feature(enable = "neon,sha3")]
    fn eor3(a, b, c) = "eor3 {r:v}.16b, {a:v}.16b, {b:v}.16b, {c:v}.16b";
}
