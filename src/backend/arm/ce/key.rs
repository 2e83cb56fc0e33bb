//! The expanded key of `arm-ce` and its setup.
//!
//! Round keys are the standard FIPS-197 bytes (the shared `aes_schedule`, with SubWord
//! on the AES unit: AESE with a zero round key applied to the word broadcast to all four
//! columns is SubBytes alone, since ShiftRows only moves equal bytes). The GHASH key is
//! H = E(K, 0^128) and its powers H^1..H^8 in the kernels' reflected form: the block read
//! as a big-endian integer, multiplied by x^-1 (a left shift, the bit shifted out coming
//! back as x^127 + x^6 + x + 1), so the carry-less product of two such values needs no
//! 1-bit correction. Each power is stored as three u64s, its low and high halves and
//! their XOR (the Karatsuba middle operand). The powers are computed by the GHASH kernel
//! itself (H^(k+1) is the GHASH of a zero block onto the state H^k), so there is no
//! second field multiplication to keep in step with it.
//!
//! Alignment: [`CeKey`] is 16-byte aligned (it lives in a `Material`, which is
//! `align(16)`), so no key load crosses a cache line; the kernels rely on no alignment
//! (they carry no alignment hints).

use super::crypt::Scratch;
use super::kernels;
use crate::backend::Plain;
use crate::secret::wipe_bytes;

/// Layout shared with the kernels (`gen_kernels.py`: `RK`, `ROUNDS`, `HP`, `MASK`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(super) struct CeKey {
    pub(super) rk: [[u8; 16]; 15],
    pub(super) rounds: u32,
    _pad: [u32; 3],
    /// Entry `j` is H^(8-j)·x^-1: low half, high half, their XOR.
    h: [[u64; 3]; 8],
    /// The reduction constant x^63 + x^62 + x^57 (0xc2 << 56).
    mask: u64,
    _pad2: u64,
}

const _: () = assert!(core::mem::offset_of!(CeKey, rounds) == 240);
const _: () = assert!(core::mem::offset_of!(CeKey, h) == 256);
const _: () = assert!(core::mem::offset_of!(CeKey, mask) == 448);

// SAFETY: integer arrays only, 16-byte alignment.
unsafe impl Plain for CeKey {}

impl CeKey {
    pub(super) fn ptr(&self) -> *const u8 {
        self as *const CeKey as *const u8
    }
}

/// SubWord on the AES unit (see the file comment).
fn sub_word(w: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only instructions; the CPU has the AArch32 crypto extensions
    // (the mode checks `is_available` before a key is made).
    unsafe {
        core::arch::asm!(
            ".arch armv8-a",
            ".fpu crypto-neon-fp-armv8",
            "vdup.32 q0, {w}",
            "vmov.i8 q1, #0",
            "aese.8 q0, q1",
            "vmov.32 {r}, d0[0]",
            ".arch armv7-a",
            ".fpu neon",
            w = in(reg) w,
            r = lateout(reg) r,
            out("d0") _,
            out("d1") _,
            out("d2") _,
            out("d3") _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    r
}

/// `p`·x^-1 in the reflected form (see the file comment).
fn times_x_inverse(p: u128) -> u128 {
    (p << 1) ^ (0xc200_0000_0000_0000_0000_0000_0000_0001 & 0u128.wrapping_sub(p >> 127))
}

/// x·H for the reflected `x` (GHASH of a zero block onto the state `x`); only the
/// H^1 entry is used, so it works while the table is being filled.
fn times_h(k: &CeKey, x: u128) -> u128 {
    let mut y = x.to_le_bytes();
    let zero = [0u8; 16];
    // SAFETY: one block of data; `y` is 16 bytes of kernel-form state.
    unsafe { kernels::ghash_blocks(k.ptr(), zero.as_ptr(), 1, y.as_mut_ptr()) };
    let r = u128::from_le_bytes(y);
    wipe_bytes(&mut y);
    r
}

pub(super) fn init(k: &mut CeKey, key: &[u8]) {
    k.rounds = crate::backend::aes_schedule::expand_with(key, sub_word, &mut k.rk) as u32;
    k.mask = 0xc2 << 56;
    k.h = [[0; 3]; 8];
    let mut s = Scratch::new();
    // SAFETY: one block encrypted in place in the scratch area.
    unsafe { kernels::lanes_1_0(k.ptr(), s.ptr(), core::ptr::null(), core::ptr::null_mut()) };
    let h = u128::from_be_bytes(s.0[0]);
    let mut p = h;
    for i in 1..=8 {
        let w = times_x_inverse(p);
        let (lo, hi) = (w as u64, (w >> 64) as u64);
        k.h[8 - i] = [lo, hi, lo ^ hi];
        if i < 8 {
            p = times_h(k, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_x_inverse_undoes_a_multiplication_by_x() {
        // x·v in the reflected form is a right shift (the top coefficient folds back
        // with x^128 = x^7 + x^2 + x + 1: 0xe1 << 120 in this bit order).
        let times_x = |v: u128| (v >> 1) ^ ((0xe1u128 << 120) & 0u128.wrapping_sub(v & 1));
        for v in [
            1u128,
            1 << 127,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            u128::MAX,
        ] {
            assert_eq!(times_x(times_x_inverse(v)), v);
        }
    }
}
