//! GHASH with PMULL/PMULL2, in the natural bit order (`rbit` on every block and on H).
//!
//! A 128×128-bit product is three 64×64 PMULLs (Karatsuba: lo·lo, hi·hi and
//! (lo ^ hi)·(lo ^ hi)); sums of products are accumulated unreduced in [`Acc`] and
//! reduced once: the middle term is folded into the 256-bit sum, then x^192.. and
//! x^128.. are folded down with two multiplications by 0x87 (x^128 = x^7 + x^2 + x + 1).
//! Eight blocks are aggregated with H^8..H^1 and one reduction ([`ghash8`]); block pairs
//! share one register of middle operands (`trn1/trn2`), so their middle products are
//! one PMULL and one PMULL2.
//!
//! The GHASH-only path (AAD, and the first pass of a verify-then-decrypt open) runs
//! sixteen blocks per iteration with H^16..H^1 ([`kernel_ghash`]), then groups of eight
//! and a tail of 1..=7 blocks aggregated with H^n..H^1.

use super::{CeKey, GROUP};
use crate::backend::aarch64::common::{from_halves, vector_insn};
use crate::backend::partial::load_partial;
use core::arch::aarch64::*;

vector_insn! {
    /// Carry-less 64×64 product of the low lanes, as a 128-bit vector.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) fn pmull_lo(a, b) = "pmull {r:v}.1q, {a:v}.1d, {b:v}.1d";
    /// Carry-less 64×64 product of the high lanes.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) fn pmull_hi(a, b) = "pmull2 {r:v}.1q, {a:v}.2d, {b:v}.2d";
    /// Both low 64-bit halves: (a.lo, b.lo).
    #[inline]
    #[target_feature(enable = "neon")]
    fn trn1(a, b) = "trn1 {r:v}.2d, {a:v}.2d, {b:v}.2d";
    /// Both high 64-bit halves: (a.hi, b.hi).
    #[inline]
    #[target_feature(enable = "neon")]
    fn trn2(a, b) = "trn2 {r:v}.2d, {a:v}.2d, {b:v}.2d";
}

/// Karatsuba accumulators of an unreduced 256-bit sum of products.
#[derive(Clone, Copy)]
pub(super) struct Acc {
    lo: uint8x16_t,
    mid: uint8x16_t,
    hi: uint8x16_t,
}

impl Acc {
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) unsafe fn new() -> Acc {
        let z = vdupq_n_u8(0);
        Acc {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Adds x·h for one block; `hk` holds lo^hi of h in lane 0.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) unsafe fn mul_add(&mut self, x: uint8x16_t, h: uint8x16_t, hk: uint8x16_t) {
        let xk = veorq_u8(x, vextq_u8::<8>(x, x));
        self.lo = veorq_u8(self.lo, pmull_lo(x, h));
        self.hi = veorq_u8(self.hi, pmull_hi(x, h));
        self.mid = veorq_u8(self.mid, pmull_lo(xk, hk));
    }

    /// Adds a·ha + b·hb (with [`Acc::mul_add_pair_mid`]): the lo and hi products.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    unsafe fn mul_add_pair_outer(
        &mut self,
        a: uint8x16_t,
        ha: uint8x16_t,
        b: uint8x16_t,
        hb: uint8x16_t,
    ) {
        self.lo = veorq_u8(self.lo, veorq_u8(pmull_lo(a, ha), pmull_lo(b, hb)));
        self.hi = veorq_u8(self.hi, veorq_u8(pmull_hi(a, ha), pmull_hi(b, hb)));
    }

    /// The Karatsuba middle products of a·ha + b·hb, where `hk` holds lo^hi of ha in
    /// lane 0 and of hb in lane 1. `trn1/trn2` put a's and b's halves side by side, so
    /// one EOR forms both middle operands and PMULL/PMULL2 pick them up lane for lane.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    unsafe fn mul_add_pair_mid(&mut self, a: uint8x16_t, b: uint8x16_t, hk: uint8x16_t) {
        let k = veorq_u8(trn1(a, b), trn2(a, b));
        self.mid = veorq_u8(self.mid, veorq_u8(pmull_lo(k, hk), pmull_hi(k, hk)));
    }

    /// Adds the Karatsuba middle term into lo/hi: afterwards lo = (w0, w1) and
    /// hi = (w2, w3) of the 256-bit product.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    unsafe fn fold_mid(&mut self) {
        let z = vdupq_n_u8(0);
        let mid = veorq_u8(self.mid, veorq_u8(self.lo, self.hi));
        self.lo = veorq_u8(self.lo, vextq_u8::<8>(z, mid));
        self.hi = veorq_u8(self.hi, vextq_u8::<8>(mid, z));
    }

    /// Reduces (after [`Acc::fold_mid`]) modulo x^128 + x^7 + x^2 + x + 1 (natural bit
    /// order): fold w3·x^192 into w1, w2, then w2·x^128 into w0, w1.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    unsafe fn fold_poly(self) -> uint8x16_t {
        let z = vdupq_n_u8(0);
        let poly = vreinterpretq_u8_u64(vdupq_n_u64(0x87));
        let t = pmull_hi(self.hi, poly);
        let hi = veorq_u8(self.hi, vextq_u8::<8>(t, z));
        veorq_u8(veorq_u8(self.lo, vextq_u8::<8>(z, t)), pmull_lo(hi, poly))
    }

    /// Full reduction of the accumulated products.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) unsafe fn reduce(mut self) -> uint8x16_t {
        self.fold_mid();
        self.fold_poly()
    }
}

/// a·b in GF(2^128), natural bit order (used at key setup only).
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn gf_mul(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let bk = veorq_u8(b, vextq_u8::<8>(b, b));
    let mut acc = Acc::new();
    acc.mul_add(a, b, bk);
    acc.reduce()
}

/// Loads H powers and Karatsuba operands into registers.
pub(super) struct HPowers {
    h: [uint8x16_t; 8],
    hk: [uint8x16_t; 4],
}

#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn load_h(k: &CeKey) -> HPowers {
    let mut p = HPowers {
        h: [vdupq_n_u8(0); 8],
        hk: [vdupq_n_u8(0); 4],
    };
    for i in 0..8 {
        // SAFETY: i < 8 indexes `k.h`.
        p.h[i] = unsafe { vld1q_u8(k.h[i].as_ptr()) };
    }
    for i in 0..4 {
        // SAFETY: i < 4 indexes `k.hk`.
        p.hk[i] = unsafe { vld1q_u8(k.hk[i].as_ptr()) };
    }
    p
}

/// Sub-step `s` (0..10) of an eight-block GHASH onto `y`,
/// (y + x0)·H^8 + x1·H^7 + … + x7·H: for each pair of blocks an outer-products step and a
/// Karatsuba-middle step, then the reduction in two halves (fold of the middle term,
/// then the two folds by the polynomial).
#[inline(always)]
pub(super) unsafe fn ghash8_step(
    s: usize,
    p: &HPowers,
    acc: &mut Acc,
    y: &mut uint8x16_t,
    x: &[uint8x16_t; GROUP],
) {
    // Block j is multiplied by H^(8-j) = h[7-j]; hk[i] holds H^(2i+1) (lane 0) and
    // H^(2i+2) (lane 1), so each pair is (odd power, even power).
    // SAFETY: only inlined into `neon,aes` functions.
    unsafe {
        let pair = s / 2;
        let (a, b) = match pair {
            0 => (x[1], veorq_u8(*y, x[0])),
            1 => (x[3], x[2]),
            2 => (x[5], x[4]),
            _ => (x[7], x[6]),
        };
        match s {
            0..=7 if s % 2 == 0 => {
                acc.mul_add_pair_outer(a, p.h[6 - 2 * pair], b, p.h[7 - 2 * pair])
            }
            0..=7 => acc.mul_add_pair_mid(a, b, p.hk[3 - pair]),
            8 => acc.fold_mid(),
            9 => *y = acc.fold_poly(),
            _ => {}
        }
    }
}

/// GHASH of 8 natural-order blocks onto `y`.
#[inline(always)]
pub(super) unsafe fn ghash8(p: &HPowers, mut y: uint8x16_t, x: &[uint8x16_t; GROUP]) -> uint8x16_t {
    let mut acc = Acc::new();
    // SAFETY: only inlined into `neon,aes` functions. (Ten calls, not a loop: a loop
    // here stays rolled.)
    unsafe {
        ghash8_step(0, p, &mut acc, &mut y, x);
        ghash8_step(1, p, &mut acc, &mut y, x);
        ghash8_step(2, p, &mut acc, &mut y, x);
        ghash8_step(3, p, &mut acc, &mut y, x);
        ghash8_step(4, p, &mut acc, &mut y, x);
        ghash8_step(5, p, &mut acc, &mut y, x);
        ghash8_step(6, p, &mut acc, &mut y, x);
        ghash8_step(7, p, &mut acc, &mut y, x);
        ghash8_step(8, p, &mut acc, &mut y, x);
        ghash8_step(9, p, &mut acc, &mut y, x);
    }
    y
}

/// GHASH of 1..=7 blocks, aggregated with H^n..H^1 and reduced once.
#[target_feature(enable = "neon,aes")]
unsafe fn ghash_tail(k: &CeKey, acc: uint8x16_t, data: *const u8, n: usize) -> uint8x16_t {
    // SAFETY: `data` holds 16*n bytes (caller's contract); features enabled; n ≤ 7.
    unsafe {
        let mut sum = Acc::new();
        for i in 0..n {
            let mut h = vrbitq_u8(vld1q_u8(data.add(16 * i)));
            if i == 0 {
                h = veorq_u8(h, acc);
            }
            let hp = vld1q_u8(k.h[n - 1 - i].as_ptr());
            sum.mul_add(h, hp, veorq_u8(hp, vextq_u8::<8>(hp, hp)));
        }
        sum.reduce()
    }
}

/// Blocks per iteration of the GHASH-only loop: twice the stitched group, so the one
/// reduction and the fixed per-iteration work are spread over sixteen blocks.
const GHASH_BLOCKS: usize = 16;

/// GHASH-only loop: sixteen blocks per iteration with H^16..H^1, Karatsuba in pairs,
/// one reduction.
#[inline(always)]
unsafe fn ghash_loop(k: &CeKey, y: &mut uint8x16_t, mut data: *const u8, iterations: usize) {
    // SAFETY: `data` holds 256*iterations bytes (caller's contract); only inlined into
    // the `neon,aes` kernels below;
    // the indices below are < 16 (h) and < 8 (hk).
    unsafe {
        let mut acc = *y;
        for _ in 0..iterations {
            let x: [uint8x16_t; GHASH_BLOCKS] =
                core::array::from_fn(|i| vrbitq_u8(vld1q_u8(data.add(16 * i))));
            let h = |i: usize| vld1q_u8(k.h[i].as_ptr());
            let mut sum = Acc::new();
            // Blocks 2j and 2j+1 take H^(16-2j) (hk[7-j] lane 1) and H^(15-2j) (lane 0).
            macro_rules! pairs {
                ($($j:literal)*) => {$(
                    let b = if $j == 0 { veorq_u8(acc, x[0]) } else { x[2 * $j] };
                    let a = x[2 * $j + 1];
                    sum.mul_add_pair_outer(a, h(14 - 2 * $j), b, h(15 - 2 * $j));
                    sum.mul_add_pair_mid(a, b, vld1q_u8(k.hk[7 - $j].as_ptr()));
                )*};
            }
            pairs!(0 1 2 3 4 5 6 7);
            acc = sum.reduce();
            data = data.add(16 * GHASH_BLOCKS);
        }
        *y = acc;
    }
}

/// GHASH-only steady-state loop. (Both backend variants use it: with EOR3 the model
/// of V1 gets slower here, not faster.)
#[inline(never)]
#[target_feature(enable = "neon,aes")]
unsafe fn kernel_ghash(k: &CeKey, y: &mut uint8x16_t, data: *const u8, iterations: usize) {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe { ghash_loop(k, y, data, iterations) }
}

#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn ghash(k: &CeKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let iterations = blocks / GHASH_BLOCKS;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(16 * GHASH_BLOCKS * iterations);
        }
        let mut left = blocks % GHASH_BLOCKS;
        if left >= GROUP {
            let x: [uint8x16_t; GROUP] =
                core::array::from_fn(|i| vrbitq_u8(vld1q_u8(data.add(16 * i))));
            acc = ghash8(&load_h(k), acc, &x);
            data = data.add(16 * GROUP);
            left -= GROUP;
        }
        if left > 0 {
            acc = ghash_tail(k, acc, data, left);
        }
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

/// GHASH of `len` bytes onto `y`, the last partial block zero-padded in a register.
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn ghash_bytes(k: &CeKey, y: &mut [u8; 16], data: *const u8, len: usize) {
    let whole = len / 16;
    // SAFETY: `data` holds `len` bytes (caller's contract); features enabled.
    unsafe {
        if whole > 0 {
            ghash(k, y, data, whole);
        }
        let rest = len % 16;
        if rest > 0 {
            let x = vrbitq_u8(from_halves(load_partial(data.add(16 * whole), rest)));
            let acc = veorq_u8(vrbitq_u8(vld1q_u8(y.as_ptr())), x);
            let h = vld1q_u8(k.h[0].as_ptr());
            let mut sum = Acc::new();
            sum.mul_add(acc, h, vld1q_u8(k.hk[0].as_ptr()));
            vst1q_u8(y.as_mut_ptr(), vrbitq_u8(sum.reduce()));
        }
    }
}
