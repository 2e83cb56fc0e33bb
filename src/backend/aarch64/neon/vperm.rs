//! Vector-permute AES of `aarch64-neon` for one to four blocks (the short-message path,
//! single blocks, H): the method, tables and state layout of `backend/vperm.rs`, with the
//! S-box tables held in registers and every lookup a `tbl` on them, never on memory.
//! Constant time: `tbl` is a register-to-register permute whose timing does not depend on
//! its index bytes (they address no memory, so no cache line or bank depends on them);
//! the only loads are of the constant tables and the round keys, at fixed offsets (the
//! round count, public, picks the last key).
//!
//! Each half of a block (two rows, 8 bytes) lives in the low half of its own register and
//! every operation is the 8-byte form: on the Cortex-A57 model `tbl .8b` is one µop of
//! latency 3 where `tbl .16b` is three of latency 6, and a one-register table then gives
//! any permutation of 16 bytes into 8 in one µop (the input permutation, ShiftRows of a
//! half). The halves are merged with `trn1` only at the end (`ins` costs latency 8 there).
//! The blocks of one call are independent chains interleaved round by round.

use super::aes::aes8;
use super::{NeonKey, GROUP};
use crate::backend::vperm as vp;
use core::arch::aarch64::*;

/// The tables in one static, loaded once per call.
#[repr(C, align(16))]
struct Consts {
    inv: [u8; 16],
    zinv: [u8; 16],
    mid: [[u8; 16]; 2],
    mid2: [[u8; 16]; 2],
    last: [[u8; 16]; 2],
    tower_in: [[u8; 16]; 2],
    /// `IN_PERM`, whose halves index the whole standard block.
    in_perm: [u8; 16],
    /// ShiftRows of each half within itself: the second half's indices are less 8.
    shift_rows: [u8; 16],
    out_perm: [u8; 16],
}

static CONSTS: Consts = Consts {
    inv: vp::INV,
    zinv: vp::ZINV,
    mid: vp::SB_MID,
    mid2: vp::SB_MID2,
    last: vp::SB_LAST,
    tower_in: vp::TOWER_IN,
    in_perm: vp::IN_PERM,
    shift_rows: {
        let mut t = vp::SHIFT_ROWS;
        let mut i = 8;
        while i < 16 {
            t[i] -= 8;
            i += 1;
        }
        t
    },
    out_perm: vp::OUT_PERM,
};

/// Two rows of a block's state, in the low 8 bytes of a register.
type Half = uint8x8_t;

/// The tables of the middle rounds, in registers for the whole call.
struct Tables {
    low: Half,
    inv: uint8x16_t,
    zinv: uint8x16_t,
    mid: [uint8x16_t; 2],
    mid2: [uint8x16_t; 2],
}

impl Tables {
    #[inline(always)]
    unsafe fn load() -> Tables {
        let c = &CONSTS;
        // SAFETY: 16-byte arrays of a static; NEON is part of the AArch64 baseline.
        unsafe {
            Tables {
                low: vdup_n_u8(0x0f),
                inv: vld1q_u8(c.inv.as_ptr()),
                zinv: vld1q_u8(c.zinv.as_ptr()),
                mid: [vld1q_u8(c.mid[0].as_ptr()), vld1q_u8(c.mid[1].as_ptr())],
                mid2: [vld1q_u8(c.mid2[0].as_ptr()), vld1q_u8(c.mid2[1].as_ptr())],
            }
        }
    }
}

/// The nibble-table inversion: (io, jo) of a half in tower form (see `backend/vperm.rs`).
#[inline(always)]
unsafe fn invert(t: &Tables, x: Half) -> (Half, Half) {
    // SAFETY: register-only NEON operations.
    unsafe {
        let k = vand_u8(x, t.low);
        let i = vshr_n_u8::<4>(x);
        let j = veor_u8(i, k);
        let zk = vqtbl1_u8(t.zinv, k);
        let iak = veor_u8(vqtbl1_u8(t.inv, i), zk);
        let jak = veor_u8(vqtbl1_u8(t.inv, j), zk);
        let io = veor_u8(vqtbl1_u8(t.inv, iak), j);
        let jo = veor_u8(vqtbl1_u8(t.inv, jak), i);
        (io, jo)
    }
}

/// U[io] ^ V[jo] for the output tables `uv`.
#[inline(always)]
unsafe fn out(uv: &[uint8x16_t; 2], (io, jo): (Half, Half)) -> Half {
    // SAFETY: register-only NEON operations.
    unsafe { veor_u8(vqtbl1_u8(uv[0], io), vqtbl1_u8(uv[1], jo)) }
}

/// One middle round of a block after its ShiftRows: S-box (A and 2A from the tables),
/// MixColumns 2A + 3B + C + D in the half form, and the round key (`k`: its halves).
/// With u = lo + hi, B + D of the low half is u's two rows swapped and that of the high
/// half the same, so out = 2A + C + 2B + (B + D) needs only three `ext`.
#[inline(always)]
unsafe fn middle_round(t: &Tables, (lo, hi): (Half, Half), k: (Half, Half)) -> (Half, Half) {
    // SAFETY: register-only NEON operations.
    unsafe {
        let (il, ih) = (invert(t, lo), invert(t, hi));
        let (a_lo, a_hi) = (out(&t.mid, il), out(&t.mid, ih));
        let (d_lo, d_hi) = (out(&t.mid2, il), out(&t.mid2, ih));
        let u = veor_u8(a_lo, a_hi);
        let bd = vext_u8::<4>(u, u);
        let lo = veor_u8(
            veor_u8(veor_u8(d_lo, k.0), a_hi),
            veor_u8(vext_u8::<4>(d_lo, d_hi), bd),
        );
        let hi = veor_u8(
            veor_u8(veor_u8(d_hi, k.1), a_lo),
            veor_u8(vext_u8::<4>(d_hi, d_lo), bd),
        );
        (lo, hi)
    }
}

/// The two halves as one register (`trn1 .2d`, one µop of latency 3 on the A57 model).
#[inline(always)]
unsafe fn merge(lo: Half, hi: Half) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: one register-only instruction, no memory or flags; NEON baseline.
    unsafe {
        core::arch::asm!("trn1 {r:v}.2d, {lo:v}.2d, {hi:v}.2d", r = lateout(vreg) r,
            lo = in(vreg) lo, hi = in(vreg) hi, options(pure, nomem, nostack, preserves_flags));
    }
    r
}

macro_rules! lanes {
    ($($name:ident $n:literal;)*) => {$(
        /// Encrypts this many blocks at once (the rounds one loop: a call is its
        /// `scripts/model-arm.sh` row, flattened).
        #[inline(never)]
        pub(super) fn $name(k: &NeonKey, blocks: [uint8x16_t; $n]) -> [uint8x16_t; $n] {
            // SAFETY: NEON is part of the AArch64 baseline.
            unsafe { encrypt::<$n>(k, blocks) }
        }
    )*};
}

lanes! {
    lanes1 1;
    lanes2 2;
    lanes3 3;
    lanes4 4;
}

/// Bytes `idx` (each < 8) of a half: ShiftRows within it. Written as the instruction:
/// through `vtbl1_u8`, whose indices 8..15 must read as zero, LLVM first copied the half
/// into the register's upper half (`ins`, latency 8 on the A57 model) in every round.
#[inline(always)]
unsafe fn permute_half(x: Half, idx: Half) -> Half {
    let r: Half;
    // SAFETY: one register-only instruction, no memory or flags; NEON baseline. The
    // indices are below 8, so the register's upper half (unspecified here) is not read.
    unsafe {
        core::arch::asm!("tbl {r:v}.8b, {{{x:v}.16b}}, {i:v}.8b", r = lateout(vreg) r,
            x = in(vreg) x, i = in(vreg) idx, options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// Runs `$body` for `$i` = 0, 1, 2, 3 while below `$n` (a const generic ≤ `MAX_LANES`),
/// written out rather than a loop over the lanes: whether LLVM unrolls such a loop depends
/// on the compiler (rustc 1.96 kept `enter`'s at four lanes as a loop through the stack,
/// 1.85 unrolled it), and a call is meant to have the rounds as its one loop (the model
/// check, `scripts/model-arm.sh`, fails a `lanesN` with a second loop).
macro_rules! each_lane {
    ($n:expr, |$i:ident| $body:block) => {
        each_lane!(@ $n, $i, $body, 0 1 2 3)
    };
    (@ $n:expr, $i:ident, $body:block, $($lane:literal)*) => {{
        const { assert!(MAX_LANES == 4 && $n <= MAX_LANES) };
        $({
            let $i = $lane;
            if $i < $n $body
        })*
    }};
}

/// Lanes up to which this AES is cheaper than one eight-lane bit-sliced call, whose
/// cost does not depend on the lanes (A57 model: four lanes ≈ 1000 cycles, the
/// bit-sliced ≈ 1100).
pub(super) const MAX_LANES: usize = 4;

/// E(K, ·) of the first `count` (1..=8) of `lanes` by whichever AES is cheaper for that
/// many; the lanes after them come back unspecified.
pub(super) fn encrypt_lanes(
    k: &NeonKey,
    lanes: [uint8x16_t; GROUP],
    count: usize,
) -> [uint8x16_t; GROUP] {
    let mut out = lanes;
    macro_rules! small {
        ($($l:literal $f:ident)*) => {
            match count {
                $($l => out[..$l].copy_from_slice(&$f(k, core::array::from_fn(|i| lanes[i]))),)*
                _ => out = aes8(k, lanes),
            }
        };
    }
    const { assert!(MAX_LANES == 4) };
    small!(1 lanes1 2 lanes2 3 lanes3 4 lanes4);
    out
}

/// Encrypts `N` (1..=4) blocks with the vector-permute round keys of `k`.
#[inline(always)]
pub(super) unsafe fn encrypt<const N: usize>(
    k: &NeonKey,
    blocks: [uint8x16_t; N],
) -> [uint8x16_t; N] {
    // SAFETY: forwarded; NEON baseline.
    unsafe {
        let mut s = enter(k, blocks);
        middle(k, &mut s, 2, k.rounds as usize);
        leave(k, s)
    }
}

/// The state of a block between rounds: its two halves in tower form.
pub(super) type State = (Half, Half);

/// Round 0, the way into the row-major tower form and round 1 (whose ShiftRows the
/// input permutation includes).
#[inline(always)]
pub(super) unsafe fn enter<const N: usize>(k: &NeonKey, blocks: [uint8x16_t; N]) -> [State; N] {
    let rk = &k.vrk;
    let c = &CONSTS;
    // SAFETY: NEON baseline; round keys 0 and 1 exist; the tables are 16 bytes and the
    // loads read 8 or 16 bytes inside them.
    unsafe {
        let t = Tables::load();
        let k0 = vld1q_u8(rk[0].as_ptr());
        let (in_lo, in_hi) = (
            vld1_u8(c.in_perm.as_ptr()),
            vld1_u8(c.in_perm.as_ptr().add(8)),
        );
        let tin = [
            vld1q_u8(c.tower_in[0].as_ptr()),
            vld1q_u8(c.tower_in[1].as_ptr()),
        ];
        let key = (vld1_u8(rk[1].as_ptr()), vld1_u8(rk[1].as_ptr().add(8)));
        // (An initialized array filled lane by lane: `array::from_fn` was left as a call at
        // four lanes.)
        let mut s = [(t.low, t.low); N];
        each_lane!(N, |i| {
            let b = veorq_u8(blocks[i], k0);
            let to_tower = |h: Half| {
                veor_u8(
                    vqtbl1_u8(tin[0], vand_u8(h, t.low)),
                    vqtbl1_u8(tin[1], vshr_n_u8::<4>(h)),
                )
            };
            s[i] = middle_round(
                &t,
                (to_tower(vqtbl1_u8(b, in_lo)), to_tower(vqtbl1_u8(b, in_hi))),
                key,
            );
        });
        s
    }
}

/// Rounds `from..to` (2 ≤ from, to − from even, to ≤ the key's round count) with their
/// ShiftRows, the blocks interleaved round by round.
#[inline(always)]
pub(super) unsafe fn middle<const N: usize>(
    k: &NeonKey,
    s: &mut [State; N],
    from: usize,
    to: usize,
) {
    let rk = &k.vrk;
    let c = &CONSTS;
    debug_assert!(from >= 2 && (to - from) % 2 == 0 && to <= k.rounds as usize);
    // SAFETY: NEON baseline; round keys from..to exist (to ≤ rounds ≤ 14); the tables are
    // 16 bytes and the loads read 8 bytes inside them.
    unsafe {
        let t = Tables::load();
        let key_half = |r: usize| (vld1_u8(rk[r].as_ptr()), vld1_u8(rk[r].as_ptr().add(8)));
        let (sr_lo, sr_hi) = (
            vld1_u8(c.shift_rows.as_ptr()),
            vld1_u8(c.shift_rows.as_ptr().add(8)),
        );
        // Up to two lanes, two rounds per iteration (the counts used are even): half the
        // loop's own instructions, which take issue slots from the rounds. With more lanes
        // the longer body cost more than it saved.
        let step = if N <= 2 { 2 } else { 1 };
        let mut r = from;
        while r < to {
            round(&t, s, key_half(r), (sr_lo, sr_hi));
            if step == 2 {
                round(&t, s, key_half(r + 1), (sr_lo, sr_hi));
            }
            r += step;
        }
    }
}

/// One middle round of every block, ShiftRows (indices `sr`) first.
#[inline(always)]
unsafe fn round<const N: usize>(
    t: &Tables,
    s: &mut [State; N],
    key: (Half, Half),
    sr: (Half, Half),
) {
    for x in s.iter_mut() {
        // SAFETY: register-only NEON operations.
        unsafe {
            let shifted = (permute_half(x.0, sr.0), permute_half(x.1, sr.1));
            *x = middle_round(t, shifted, key);
        }
    }
}

/// The last round (no MixColumns) and the way back to standard blocks.
#[inline(always)]
pub(super) unsafe fn leave<const N: usize>(k: &NeonKey, s: [State; N]) -> [uint8x16_t; N] {
    let c = &CONSTS;
    // SAFETY: NEON baseline; the last round key exists; 16-byte tables.
    unsafe {
        let t = Tables::load();
        let last = [vld1q_u8(c.last[0].as_ptr()), vld1q_u8(c.last[1].as_ptr())];
        let out_perm = vld1q_u8(c.out_perm.as_ptr());
        let klast = vld1q_u8(k.vrk[k.rounds as usize].as_ptr());
        let mut o = [klast; N];
        for (o, (lo, hi)) in o.iter_mut().zip(s) {
            let a = merge(out(&last, invert(&t, lo)), out(&last, invert(&t, hi)));
            *o = veorq_u8(vqtbl1q_u8(a, out_perm), klast);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::aarch64::neon::Aarch64Neon;
    use crate::backend::{Backend, Material};

    fn key_of(bytes: &[u8]) -> Material {
        let mut m = Material::uninit();
        Aarch64Neon::init(&mut m, bytes);
        m
    }

    #[test]
    fn fips197_vectors_in_every_lane() {
        let crate::backend::vperm::tests::Fips197 { pt, key, want } =
            crate::backend::vperm::tests::fips197();
        for (len, w) in want {
            let m = key_of(&key[..len]);
            let k: &NeonKey = m.view();
            for count in 1..=MAX_LANES {
                // SAFETY: NEON baseline.
                let out = unsafe { encrypt_lanes(k, [vld1q_u8(pt.as_ptr()); GROUP], count) };
                for (lane, o) in out.iter().enumerate().take(count) {
                    let mut got = [0u8; 16];
                    // SAFETY: 16 writable bytes.
                    unsafe { vst1q_u8(got.as_mut_ptr(), *o) };
                    assert_eq!(got, w, "AES-{} lane {lane} of {count}", 8 * len);
                }
            }
        }
    }

    #[test]
    fn lanes_agree_with_the_bitsliced_aes() {
        for len in [16, 24, 32] {
            let key: Vec<u8> = (0..len)
                .map(|i| (i as u8).wrapping_mul(97) ^ 0x3c)
                .collect();
            let m = key_of(&key);
            let k: &NeonKey = m.view();
            let blocks: [[u8; 16]; GROUP] =
                core::array::from_fn(|b| core::array::from_fn(|i| (b * 37 + i * 11) as u8 ^ 0xa5));
            // SAFETY: NEON baseline; 16-byte blocks.
            unsafe {
                let lanes = blocks.map(|b| vld1q_u8(b.as_ptr()));
                let want = aes8(k, lanes);
                for count in 1..=MAX_LANES {
                    let got = encrypt_lanes(k, lanes, count);
                    for i in 0..count {
                        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
                        vst1q_u8(a.as_mut_ptr(), got[i]);
                        vst1q_u8(b.as_mut_ptr(), want[i]);
                        assert_eq!(a, b, "AES-{} lane {i} of {count}", 8 * len);
                    }
                }
            }
        }
    }
}
