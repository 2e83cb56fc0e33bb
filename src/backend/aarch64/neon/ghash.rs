//! GHASH of `aarch64-neon`: no 64-bit PMULL here, only the 8×8-bit polynomial multiply
//! (`pmull .8b` / `pmull2 .16b`, eight 16-bit products per instruction).
//!
//! Following Câmara, Gouvêa, López and Dahab ("Fast software polynomial multiplication
//! on ARM processors using the NEON engine", CD-ARES 2013 / CT-RSA 2015), a 64×64-bit
//! product is eight such multiplies: with `A_k` the bytes of A rotated by k places inside
//! the 64-bit word, `A_k·B` lane i is the product of bytes i + k and i (mod 8), so
//! k = 0..7 together cover all 64 byte pairs. A lane then only needs moving into place:
//! up by k bytes, or, when its pair wrapped around the word, down by 8 − k (see
//! [`combine`]). Here A is always a power of H, so:
//! - the eight rotated forms of H^1..H^8 (and of their Karatsuba middle operands) are
//!   computed at key setup, and a data block is used as it is, with no rotation;
//! - `pmull` and `pmull2` work on the low and high 64-bit halves of the same registers,
//!   so one pass gives the lo·lo and hi·hi products of Karatsuba, and the middle
//!   products of two blocks at once (their operands packed into one register);
//! - placement is linear and the same for every block, so the eight blocks
//!   (Y + X0)·H^8 + X1·H^7 + … + X7·H are summed *unplaced* per rotation k, and each of
//!   the 8 × 3 sums is placed once per group; Karatsuba recombination and reduction also
//!   run once per eight blocks.
//!
//! As in `aarch64-ce`, `rbit` turns each GCM byte into natural bit order, so the product
//! is the true polynomial product; the reduction modulo x^128 + x^7 + x^2 + x + 1 uses
//! shifts only (no multiplier is needed for the constant).

use super::{NeonKey, GROUP};
use crate::backend::aarch64::common::vector_insn;
use core::arch::aarch64::*;

/// Number of byte rotations (0..8) of an operand: one partial product each.
pub(super) const FORMS: usize = 8;

/// `tbl` indices rotating the bytes of each 64-bit half down by k places (byte i takes
/// byte i + k mod 8 of its half): the `A_k` forms (key setup only).
const ROT: [[u8; 16]; FORMS] = {
    let mut t = [[0u8; 16]; FORMS];
    let mut k = 0;
    while k < FORMS {
        let mut i = 0;
        while i < 16 {
            t[k][i] = ((i & 8) | ((i + k) & 7)) as u8;
            i += 1;
        }
        k += 1;
    }
    t
};

/// Bytes that hold wrapped pairs after the k-byte rotation of [`combine`]:
/// [16 − k, 16) and [0, k). Entry 0 is unused.
const WRAP: [[u8; 16]; FORMS] = {
    let mut t = [[0u8; 16]; FORMS];
    let mut k = 1;
    while k < FORMS {
        let mut i = 0;
        while i < 16 {
            if i < k || i >= 16 - k {
                t[k][i] = 0xff;
            }
            i += 1;
        }
        k += 1;
    }
    t
};

vector_insn! {
    /// 8×8-bit polynomial products of the low halves (`pmull .8b`): eight 16-bit lanes.
    #[inline(always)]
    fn mul_lo(a, b) = "pmull {r:v}.8h, {a:v}.8b, {b:v}.8b";
    /// The same for the high halves (`pmull2 .16b`); through the intrinsic LLVM turned
    /// some of these into an EXT plus PMULL.
    #[inline(always)]
    fn mul_hi(a, b) = "pmull2 {r:v}.8h, {a:v}.16b, {b:v}.16b";
}

#[inline(always)]
fn xor(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe { veorq_u8(a, b) }
}

/// Unplaced partial products of a sum of 128×128 products, per Karatsuba part (lo·lo,
/// hi·hi, middle) and per rotation k of the H operand.
struct Acc {
    lo: [uint8x16_t; FORMS],
    hi: [uint8x16_t; FORMS],
    mid: [uint8x16_t; FORMS],
}

impl Acc {
    #[inline(always)]
    fn new() -> Acc {
        // SAFETY: NEON baseline.
        let z = unsafe { vdupq_n_u8(0) };
        Acc {
            lo: [z; FORMS],
            hi: [z; FORMS],
            mid: [z; FORMS],
        }
    }

    /// Adds the lo·lo and hi·hi products of x and the power whose forms are `h`.
    #[inline(always)]
    unsafe fn outer(&mut self, x: uint8x16_t, h: &[[u8; 16]; FORMS]) {
        for (k, hk) in h.iter().enumerate() {
            // SAFETY: NEON baseline; 16-byte array.
            unsafe {
                let hv = vld1q_u8(hk.as_ptr());
                self.lo[k] = xor(self.lo[k], mul_lo(hv, x));
                self.hi[k] = xor(self.hi[k], mul_hi(hv, x));
            }
        }
    }

    /// Adds the Karatsuba middle products of blocks a and b, whose operands
    /// (lo ^ hi) are packed into one register: low half from a, high half from b.
    #[inline(always)]
    unsafe fn middle(&mut self, a: uint8x16_t, b: uint8x16_t, h: &[[u8; 16]; FORMS]) {
        // SAFETY: NEON baseline; 16-byte arrays.
        unsafe {
            let m = mid_operands(a, b);
            for (k, hk) in h.iter().enumerate() {
                let hv = vld1q_u8(hk.as_ptr());
                self.mid[k] = xor(self.mid[k], xor(mul_lo(hv, m), mul_hi(hv, m)));
            }
        }
    }

    /// Places, recombines and reduces: the field element the accumulated sum is.
    #[inline(always)]
    unsafe fn reduce(&self) -> uint8x16_t {
        // SAFETY: NEON baseline.
        unsafe {
            let z = vdupq_n_u8(0);
            finish(combine(&self.lo), combine(&self.hi), combine(&self.mid), z)
        }
    }
}

/// The Karatsuba middle operands of blocks a and b packed into one register:
/// (a.lo ^ a.hi, b.lo ^ b.hi) = (a.lo, b.lo) ^ (a.hi, b.hi), by `trn1`/`trn2 .2d` (one
/// µop each on the A57 model; the select LLVM made of a mask and a shift was an `ins`,
/// latency 8 there).
#[inline(always)]
unsafe fn mid_operands(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe { xor(low_halves(a, b), high_halves(a, b)) }
}

vector_insn! {
    /// (a.lo, b.lo).
    #[inline(always)]
    fn low_halves(a, b) = "trn1 {r:v}.2d, {a:v}.2d, {b:v}.2d";
    /// (a.hi, b.hi).
    #[inline(always)]
    fn high_halves(a, b) = "trn2 {r:v}.2d, {a:v}.2d, {b:v}.2d";
}

/// Karatsuba recombination of the three placed 128-bit products, and reduction, with
/// `onto` added to the low half on the way (where it delays nothing).
#[inline(always)]
unsafe fn finish(lo: uint8x16_t, hi: uint8x16_t, mid: uint8x16_t, onto: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe {
        let mid = xor(mid, xor(lo, hi));
        let z = vdupq_n_u8(0);
        let lo = xor(xor(lo, onto), vextq_u8::<8>(z, mid));
        let hi = xor(hi, vextq_u8::<8>(mid, z));
        reduce(lo, hi)
    }
}

/// The 128-bit product that a set of unplaced partial products stands for. The lanes
/// of rotation k (pairs of bytes i + k, i) move up by k bytes, except those whose pair
/// wrapped around the 64-bit word, which move down by 8 − k: a 128-bit rotation by k
/// bytes, then a swap of 64-bit halves of the wrapped bytes. The swap is linear, so the
/// wrapped bytes of all k are summed first and swapped once.
#[inline(always)]
unsafe fn combine(a: &[uint8x16_t; FORMS]) -> uint8x16_t {
    // SAFETY: NEON baseline; 16-byte constant tables.
    unsafe {
        macro_rules! rotated {
            ($($k:literal $ext:literal)*) => {[$(vextq_u8::<$ext>(a[$k], a[$k]),)*]};
        }
        let r: [uint8x16_t; FORMS - 1] = rotated!(1 15 2 14 3 13 4 12 5 11 6 10 7 9);
        let mut straight = a[0];
        let mut wrapped = vdupq_n_u8(0);
        for (i, v) in r.iter().enumerate() {
            straight = xor(straight, *v);
            wrapped = xor(wrapped, vandq_u8(*v, vld1q_u8(WRAP[i + 1].as_ptr())));
        }
        xor(xor(straight, wrapped), vextq_u8::<8>(wrapped, wrapped))
    }
}

/// Reduces lo + hi·x^128 modulo x^128 + x^7 + x^2 + x + 1 with shifts. With hi = (w2, w3)
/// in 64-bit words, w·x^128 ≡ w·(1 + x + x^2 + x^7): the low 64 bits of each product are
/// w ^ w<<1 ^ w<<2 ^ w<<7, the carries c = w>>63 ^ w>>62 ^ w>>57 (at most 7 bits). The
/// carry of w3 lands in w2 before w2 is folded; it is too short to carry again.
#[inline(always)]
unsafe fn reduce(lo: uint8x16_t, hi: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe {
        let z = vdupq_n_u64(0);
        let t = vreinterpretq_u64_u8(hi);
        let c = veorq_u64(
            veorq_u64(vshrq_n_u64::<63>(t), vshrq_n_u64::<62>(t)),
            vshrq_n_u64::<57>(t),
        );
        // (w2 ^ c3, w3)
        let t = veorq_u64(t, vextq_u64::<1>(c, z));
        let f = veorq_u64(
            veorq_u64(t, vshlq_n_u64::<1>(t)),
            veorq_u64(vshlq_n_u64::<2>(t), vshlq_n_u64::<7>(t)),
        );
        // c2 goes to w1.
        let f = veorq_u64(f, vextq_u64::<1>(z, c));
        veorq_u8(lo, vreinterpretq_u8_u64(f))
    }
}

/// (x0·H^T + x1·H^(T−1) + … + x(T−1)·H), natural bit order; the caller has added Y into
/// the first block. T = 8 is a group; fewer are a tail or a whole short message, whose
/// blocks meet their powers directly instead of a group padded with zero blocks.
///
/// The loop runs over the rotations k outside and the blocks inside, so only three
/// partial products are open at a time (each is placed as soon as it is complete) and
/// the blocks, the packed middle operands and the six running sums fit in registers.
/// Middle operands are packed in pairs of blocks whose powers are (2m, 2m − 1), as `hm`
/// holds them; with T odd, block 0 is alone in lane 1 of its pair (its power, odd, is
/// that lane's).
#[inline(always)]
pub(super) unsafe fn ghash_n<const T: usize>(k: &NeonKey, x: &[uint8x16_t; T]) -> uint8x16_t {
    // SAFETY: forwarded.
    unsafe { ghash_n_onto(k, x, vdupq_n_u8(0)) }
}

/// [`ghash_n`] plus `onto`, added before the reduction ends (the tag mask of a short
/// message: the last steps then wait for one XOR less).
#[inline(always)]
pub(super) unsafe fn ghash_n_onto<const T: usize>(
    k: &NeonKey,
    x: &[uint8x16_t; T],
    onto: uint8x16_t,
) -> uint8x16_t {
    const { assert!(T >= 1 && T <= GROUP) };
    // SAFETY: NEON baseline; indices below are < T ≤ 8 (h, forms) and < 4 (hm).
    unsafe {
        let z = vdupq_n_u8(0);
        let single = T % 2 == 1;
        let mut m = [z; GROUP / 2];
        let mut hm = [0usize; GROUP / 2];
        let mut packed = 0;
        if single {
            m[0] = mid_operands(z, x[0]);
            hm[0] = (GROUP - 1 - T) / 2;
            packed = 1;
        }
        let mut i = T % 2;
        while i < T {
            m[packed] = mid_operands(x[i], x[i + 1]);
            hm[packed] = (GROUP - (T - i)) / 2;
            packed += 1;
            i += 2;
        }
        // lo·lo, hi·hi, middle: rotated partial products and their wrapped bytes.
        let mut straight = [z; 3];
        let mut wrapped = [z; 3];
        // Written out: the EXT amount must be a constant.
        macro_rules! forms {
            ($($f:literal $ext:literal)*) => {$(
                let mut p = [z; 3];
                for (i, xi) in x.iter().enumerate() {
                    let hv = vld1q_u8(k.h[T - 1 - i][$f].as_ptr());
                    p[0] = xor(p[0], mul_lo(hv, *xi));
                    p[1] = xor(p[1], mul_hi(hv, *xi));
                }
                for (q, mq) in m.iter().enumerate().take(packed) {
                    let hv = vld1q_u8(k.hm[hm[q]][$f].as_ptr());
                    let hi = mul_hi(hv, *mq);
                    p[2] = xor(p[2], if single && q == 0 { hi } else { xor(mul_lo(hv, *mq), hi) });
                }
                if $f == 0 {
                    straight = p;
                } else {
                    let w = vld1q_u8(WRAP[$f].as_ptr());
                    for t in 0..3 {
                        let r = vextq_u8::<$ext>(p[t], p[t]);
                        straight[t] = xor(straight[t], r);
                        wrapped[t] = xor(wrapped[t], vandq_u8(r, w));
                    }
                }
            )*};
        }
        forms!(0 0 1 15 2 14 3 13 4 12 5 11 6 10 7 9);
        let placed: [uint8x16_t; 3] = core::array::from_fn(|t| {
            let w = wrapped[t];
            xor(xor(straight[t], w), vextq_u8::<8>(w, w))
        });
        finish(placed[0], placed[1], placed[2], onto)
    }
}

/// [`ghash_n`] of the first `n` (1..=8) blocks of `x`, straight-line code for each count.
#[inline(never)]
pub(super) fn ghash_first(k: &NeonKey, x: &[uint8x16_t; GROUP], n: usize) -> uint8x16_t {
    macro_rules! counts {
        ($($t:literal)*) => {
            match n {
                // SAFETY: the first $t ≤ 8 elements of `x` as an array; NEON baseline.
                $($t => unsafe { ghash_n::<$t>(k, &*(x.as_ptr() as *const [uint8x16_t; $t])) },)*
                _ => unreachable!("ghash_first of {n} blocks"),
            }
        };
    }
    counts!(1 2 3 4 5 6 7 8)
}

/// The forms of a 128-bit operand: bytes rotated by 0..8 places within each half.
pub(super) unsafe fn forms(v: uint8x16_t) -> [[u8; 16]; FORMS] {
    let mut out = [[0u8; 16]; FORMS];
    for (k, o) in out.iter_mut().enumerate() {
        // SAFETY: NEON baseline; 16-byte arrays.
        unsafe { vst1q_u8(o.as_mut_ptr(), vqtbl1q_u8(v, vld1q_u8(ROT[k].as_ptr()))) };
    }
    out
}

/// lo ^ hi of a (in both halves).
#[inline(always)]
pub(super) unsafe fn fold_halves(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe { veorq_u8(a, vextq_u8::<8>(a, a)) }
}

/// a·b in GF(2^128), natural bit order (key setup only).
pub(super) unsafe fn gf_mul(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe {
        let mut acc = Acc::new();
        acc.outer(a, &forms(b));
        // Middle product with a partner block of zero: lane 1 of the packed operand is
        // zero, so only a's middle term counts.
        let bm = vcombine_u8(vget_low_u8(fold_halves(b)), vdup_n_u8(0));
        acc.middle(a, vdupq_n_u8(0), &forms(bm));
        acc.reduce()
    }
}

/// GHASH-only steady-state loop, eight blocks per iteration.
#[inline(never)]
unsafe fn kernel_ghash(k: &NeonKey, y: &mut uint8x16_t, mut data: *const u8, groups: usize) {
    // SAFETY: `data` holds 128*groups bytes (caller's contract); NEON baseline.
    unsafe {
        let mut acc = *y;
        for _ in 0..groups {
            let mut x: [uint8x16_t; GROUP] =
                core::array::from_fn(|i| vrbitq_u8(vld1q_u8(data.add(16 * i))));
            x[0] = veorq_u8(x[0], acc);
            acc = ghash_n(k, &x);
            data = data.add(16 * GROUP);
        }
        *y = acc;
    }
}

pub(super) unsafe fn ghash(k: &NeonKey, y: &mut [u8; 16], data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); NEON baseline; the tail
    // indices are < 8.
    unsafe {
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let groups = blocks / GROUP;
        if groups > 0 {
            kernel_ghash(k, &mut acc, data, groups);
        }
        let n = blocks % GROUP;
        if n > 0 {
            let tail = data.add(16 * GROUP * groups);
            let mut x = [vdupq_n_u8(0); GROUP];
            for (i, xi) in x.iter_mut().enumerate().take(n) {
                *xi = vrbitq_u8(vld1q_u8(tail.add(16 * i)));
            }
            x[0] = veorq_u8(x[0], acc);
            acc = ghash_first(k, &x, n);
        }
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::aarch64::neon::Aarch64Neon;
    use crate::backend::{Backend, Material};

    #[test]
    fn ghash_first_is_horner_for_every_count() {
        let mut m = Material::uninit();
        Aarch64Neon::init(&mut m, &[0x5au8; 16]);
        let k: &NeonKey = m.view();
        // SAFETY: NEON baseline; 16-byte arrays.
        unsafe {
            let h = vld1q_u8(k.h[0][0].as_ptr()); // H, natural bit order
            let x: [uint8x16_t; GROUP] = core::array::from_fn(|b| {
                let bytes: [u8; 16] = core::array::from_fn(|i| (b * 29 + i * 7) as u8 ^ 0x6b);
                vld1q_u8(bytes.as_ptr())
            });
            for n in 1..=GROUP {
                let mut want = vdupq_n_u8(0);
                for xi in x.iter().take(n) {
                    want = gf_mul(veorq_u8(want, *xi), h);
                }
                let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
                vst1q_u8(a.as_mut_ptr(), ghash_first(k, &x, n));
                vst1q_u8(b.as_mut_ptr(), want);
                assert_eq!(a, b, "{n} blocks");
            }
        }
    }
}
