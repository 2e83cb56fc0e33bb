//! The kernels of `aarch64-ce`: CTR with GHASH of the ciphertext over whole blocks (run
//! by the fused entry in `../common.rs`), and CTR alone.
//!
//! Whole groups of eight blocks go to a stitched kernel, one per key size, direction and
//! variant (`kernel_enc_aes128`, …: the names `scripts/model-arm.sh` looks for), whose
//! steady state is a generated `asm!` loop (`loops.rs`; why, in [`crypt_groups`]). The
//! last 0..=7 blocks, and E(K, J0) when the mode asks for it, go through [`crypt_tail`]:
//! all of their AES runs round-major so the blocks overlap in the pipeline, and their
//! GHASH is aggregated and reduced once.

use super::aes::{aes_block, aes_final, aes_round, load_rk, xor3};
use super::ghash::{ghash8, load_h, Acc};
use super::{loops, CeKey, GROUP};
use crate::backend::aarch64::common::{
    ctr_add, ctr_block, ctr_from_native, ctr_to_native, GroupKernel, Kernels,
};
use crate::backend::Direction;
use core::arch::aarch64::*;

/// Operands of the generated loops in `loops.rs`.
///
/// Contract: `key` points to a `CeKey` expanded for the loop's round count; `src` and
/// `dst` hold `128 * groups` bytes (equal or not overlapping), `groups >= 1`; for
/// encryption the 128 bytes before `dst` hold the previous group's ciphertext (hashed by
/// the first iteration); for decryption the first group has been hashed already. The CPU
/// has AES and PMULL.
///
/// On return `ctr` (the native 32-bit counter of the next block) has advanced by
/// `8 * groups` and `y` holds the hash of every group but the last two (encryption) or of
/// all of them (decryption).
pub(super) struct LoopArgs {
    pub(super) key: *const CeKey,
    pub(super) src: *const u8,
    pub(super) dst: *mut u8,
    pub(super) groups: usize,
    pub(super) ctr: u64,
    /// Bytes 0..8 and 8..12 of the counter block, little-endian: the fixed part.
    pub(super) ivlo: u64,
    pub(super) iv2: u64,
    pub(super) y: uint8x16_t,
}

/// The stitched loop over `groups` groups of eight blocks; the steady state runs in a
/// generated, hand-scheduled `asm!` loop (`loops.rs`, made by `gen_loops.py`).
///
/// Decryption hashes the group after the one it finishes (its ciphertext is still
/// intact when working in place); encryption hashes the group before, read back from
/// `dst`. The first group of an encryption is encrypted here without hashing, the last
/// two are hashed after the loop.
///
/// Why `asm!`: on Neoverse N1 AESE and PMULL issue only on one of the two vector pipes,
/// so a loop that is bound by that pipe must keep every other vector µop off it, and
/// LLVM neither counts µops per pipe nor keeps an instruction order. The loop builds
/// counter blocks in general registers (`rev`, `orr`; any 32-bit counter value, no
/// special case at byte wraps) and moves them in with `fmov` (no vector-pipe µop on N1),
/// reads the blocks to hash with `ld2`, which splits two blocks into their low and high
/// halves for Karatsuba without `trn`, folds the last round key into the input early,
/// and reduces with a shorter sequence (the middle term folded together with x^192). It
/// is also rotated: an iteration finishes the previous group's last round and output
/// while it starts the next group, so the output XORs and stores do not pile up where
/// no crypto instruction is ready. (The models behind these choices: docs/modeling.md.)
#[inline(always)]
unsafe fn crypt_groups<const R: usize, const ENC: bool, const X3: bool>(
    k: &CeKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    mut src: *const u8,
    mut dst: *mut u8,
    mut groups: usize,
) {
    // SAFETY (whole body): inlined into `neon,aes` kernels; `src`/`dst` hold 128*groups
    // bytes, groups >= 1 (caller's contract), which is what `LoopArgs` needs.
    unsafe {
        let p = load_h(k);
        if ENC {
            // The first group is encrypted without hashing (the loop hashes the group
            // before the one it finishes).
            let rk = load_rk::<R>(k);
            let prev = first_group::<R, X3>(&rk, ctr, src, dst);
            if groups == 1 {
                *y = ghash8(&p, *y, &prev);
                return;
            }
            src = src.add(16 * GROUP);
            dst = dst.add(16 * GROUP);
            groups -= 1;
        } else {
            let x: [uint8x16_t; GROUP] =
                core::array::from_fn(|i| vrbitq_u8(vld1q_u8(src.add(16 * i))));
            *y = ghash8(&p, *y, &x);
        }
        let be = vrev32q_u8(vreinterpretq_u8_u32(*ctr));
        let mut a = LoopArgs {
            key: k,
            src,
            dst,
            groups,
            ctr: u64::from(vgetq_lane_u32::<3>(*ctr)),
            ivlo: vgetq_lane_u64::<0>(vreinterpretq_u64_u8(be)),
            iv2: u64::from(vgetq_lane_u32::<2>(vreinterpretq_u32_u8(be))),
            y: *y,
        };
        match (R, ENC, X3) {
            (10, true, false) => loops::enc_10(&mut a),
            (12, true, false) => loops::enc_12(&mut a),
            (14, true, false) => loops::enc_14(&mut a),
            (10, false, false) => loops::dec_10(&mut a),
            (12, false, false) => loops::dec_12(&mut a),
            (14, false, false) => loops::dec_14(&mut a),
            (10, true, true) => loops::enc_10_eor3(&mut a),
            (12, true, true) => loops::enc_12_eor3(&mut a),
            (14, true, true) => loops::enc_14_eor3(&mut a),
            (10, false, true) => loops::dec_10_eor3(&mut a),
            (12, false, true) => loops::dec_12_eor3(&mut a),
            (14, false, true) => loops::dec_14_eor3(&mut a),
            _ => unreachable!(),
        }
        *ctr = vsetq_lane_u32::<3>(a.ctr as u32, *ctr);
        *y = a.y;
        if ENC {
            // The loop leaves the last two groups' ciphertext unhashed.
            let end = dst.add(16 * GROUP * groups);
            for g in [2, 1] {
                let c = end.sub(16 * GROUP * g);
                let x: [uint8x16_t; GROUP] =
                    core::array::from_fn(|i| vrbitq_u8(vld1q_u8(c.add(16 * i))));
                *y = ghash8(&p, *y, &x);
            }
        }
    }
}

/// AES-CTR on one group of eight blocks without hashing (the first group of an
/// encryption, whose ciphertext the loop hashes); returns the ciphertext in GHASH order.
#[inline(always)]
unsafe fn first_group<const R: usize, const X3: bool>(
    rk: &[uint8x16_t; 15],
    ctr: &mut uint32x4_t,
    src: *const u8,
    dst: *mut u8,
) -> [uint8x16_t; GROUP] {
    // SAFETY (whole body): only inlined into `neon,aes` kernels; `src`/`dst` hold 128
    // bytes (caller's contract); round indices < R + 1 ≤ 15.
    unsafe {
        let c = *ctr;
        *ctr = ctr_add(c, GROUP as u32);
        let mut b: [uint8x16_t; GROUP] = core::array::from_fn(|i| ctr_block(c, i as u32));
        for key in rk.iter().take(R - 1) {
            for blk in b.iter_mut() {
                *blk = aes_round(*blk, *key);
            }
        }
        core::array::from_fn(|i| {
            let o = xor3::<X3>(aes_final(b[i], rk[R - 1]), rk[R], vld1q_u8(src.add(16 * i)));
            vst1q_u8(dst.add(16 * i), o);
            vrbitq_u8(o)
        })
    }
}

macro_rules! kernels {
    ($($name:ident, $rounds:literal, $enc:literal, $x3:literal, $features:literal;)*) => {$(
        /// Stitched steady-state loop for one key size, direction and variant (see the
        /// file comment).
        #[inline(never)]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            k: &CeKey,
            ctr: &mut uint32x4_t,
            y: &mut uint8x16_t,
            src: *const u8,
            dst: *mut u8,
            groups: usize,
        ) {
            // SAFETY: forwarded contract; features enabled on this function.
            unsafe { crypt_groups::<$rounds, $enc, $x3>(k, ctr, y, src, dst, groups) }
        }
    )*};
}

kernels! {
    kernel_enc_aes128, 10, true, false, "neon,aes";
    kernel_enc_aes192, 12, true, false, "neon,aes";
    kernel_enc_aes256, 14, true, false, "neon,aes";
    kernel_dec_aes128, 10, false, false, "neon,aes";
    kernel_dec_aes192, 12, false, false, "neon,aes";
    kernel_dec_aes256, 14, false, false, "neon,aes";
    kernel_enc_aes128_eor3, 10, true, true, "neon,aes,sha3";
    kernel_enc_aes192_eor3, 12, true, true, "neon,aes,sha3";
    kernel_enc_aes256_eor3, 14, true, true, "neon,aes,sha3";
    kernel_dec_aes128_eor3, 10, false, true, "neon,aes,sha3";
    kernel_dec_aes192_eor3, 12, false, true, "neon,aes,sha3";
    kernel_dec_aes256_eor3, 14, false, true, "neon,aes,sha3";
}

/// The stitched kernel and the tail for the key's size, the direction and the variant.
pub(super) fn kernels<const X3: bool>(k: &CeKey, dir: Direction) -> Kernels<CeKey> {
    let enc = dir == Direction::Encrypt;
    let groups: GroupKernel<CeKey> = match (k.rounds, enc, X3) {
        (10, true, false) => kernel_enc_aes128,
        (12, true, false) => kernel_enc_aes192,
        (_, true, false) => kernel_enc_aes256,
        (10, false, false) => kernel_dec_aes128,
        (12, false, false) => kernel_dec_aes192,
        (_, false, false) => kernel_dec_aes256,
        (10, true, true) => kernel_enc_aes128_eor3,
        (12, true, true) => kernel_enc_aes192_eor3,
        (_, true, true) => kernel_enc_aes256_eor3,
        (10, false, true) => kernel_dec_aes128_eor3,
        (12, false, true) => kernel_dec_aes192_eor3,
        (_, false, true) => kernel_dec_aes256_eor3,
    };
    Kernels {
        groups,
        tail: if enc {
            crypt_tail::<true>
        } else {
            crypt_tail::<false>
        },
    }
}

/// The last 0..=7 whole blocks (all of a short message): the blocks' AES runs
/// round-major so they overlap in the pipeline, and their GHASH is aggregated with
/// H^n..H^1 and reduced once, instead of one serial block and one reduction at a time.
/// `j0`, when given, is encrypted in place as one more lane.
#[inline(never)]
#[target_feature(enable = "neon,aes")]
unsafe fn crypt_tail<const ENC: bool>(
    k: &CeKey,
    c: &mut uint32x4_t,
    acc: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    debug_assert!(n < GROUP);
    // SAFETY: `src`/`dst` hold 16*n bytes (caller's contract); features enabled; the
    // indices are ≤ n ≤ 7 (public) and < rounds + 1 ≤ 15.
    unsafe {
        if n == 0 {
            // Only E(K, J0), after whole groups: one block, no lanes to set up.
            if let Some(j) = j0 {
                vst1q_u8(j.as_mut_ptr(), aes_block(k, vld1q_u8(j.as_ptr())));
            }
            return;
        }
        let mut ks = [vdupq_n_u8(0); GROUP];
        for (i, b) in ks.iter_mut().enumerate().take(n) {
            *b = ctr_block(*c, i as u32);
        }
        *c = ctr_add(*c, n as u32);
        let lanes = match &j0 {
            Some(j) => {
                ks[n] = vld1q_u8(j.as_ptr());
                n + 1
            }
            None => n,
        };
        let rounds = k.rounds as usize;
        for r in 0..rounds - 1 {
            let key = vld1q_u8(k.rk[r].as_ptr());
            for b in ks.iter_mut().take(lanes) {
                *b = vaesmcq_u8(vaeseq_u8(*b, key));
            }
        }
        let (key, last) = (
            vld1q_u8(k.rk[rounds - 1].as_ptr()),
            vld1q_u8(k.rk[rounds].as_ptr()),
        );
        if let Some(j) = j0 {
            vst1q_u8(j.as_mut_ptr(), veorq_u8(vaeseq_u8(ks[n], key), last));
        }
        if n == 0 {
            return;
        }
        let mut sum = Acc::new();
        for (i, b) in ks.iter().enumerate().take(n) {
            let x = vld1q_u8(src.add(16 * i));
            let o = veorq_u8(veorq_u8(vaeseq_u8(*b, key), last), x);
            vst1q_u8(dst.add(16 * i), o);
            let mut h = vrbitq_u8(if ENC { o } else { x });
            if i == 0 {
                h = veorq_u8(h, *acc);
            }
            let hp = vld1q_u8(k.h[n - 1 - i].as_ptr());
            sum.mul_add(h, hp, veorq_u8(hp, vextq_u8::<8>(hp, hp)));
        }
        *acc = sum.reduce();
    }
}

#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn ctr_only(
    k: &CeKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut i = 0;
        while i + 4 <= blocks {
            let mut b = [vdupq_n_u8(0); 4];
            for (j, blk) in b.iter_mut().enumerate() {
                *blk = aes_block(k, ctr_block(c, j as u32));
            }
            c = ctr_add(c, 4);
            for (j, blk) in b.iter().enumerate() {
                let x = vld1q_u8(src.add(16 * (i + j)));
                vst1q_u8(dst.add(16 * (i + j)), veorq_u8(x, *blk));
            }
            i += 4;
        }
        while i < blocks {
            let ks = aes_block(k, ctr_block(c, 0));
            c = ctr_add(c, 1);
            let x = vld1q_u8(src.add(16 * i));
            vst1q_u8(dst.add(16 * i), veorq_u8(x, ks));
            i += 1;
        }
        ctr_from_native(c, ctr);
    }
}
