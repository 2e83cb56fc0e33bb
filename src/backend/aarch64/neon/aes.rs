//! AES of `aarch64-neon`: bit-sliced eight blocks at a time in the Käsper–Schwabe
//! arrangement ("Faster and timing-attack resistant AES-GCM", CHES 2009; OpenSSL's bsaes
//! and Linux's aes-neonbs use the same idea).
//!
//! The 1024 state bits of eight blocks live in eight 128-bit registers, register `j`
//! holding bit `j` of every state byte: its byte `k` is byte `k` of the AES state
//! (FIPS-197 column-major order, k = row + 4·column) and bit `b` of that byte belongs to
//! block `b`. So
//! - entering and leaving the form is an 8×8 bit transpose per byte position (twelve
//!   swap-moves across the registers);
//! - SubBytes is the Boyar–Peralta depth-16 circuit (ePrint 2011/332, `backend/sbox.rs`,
//!   the same gate list as `soft`) on whole registers; its affine constant 0x63 is folded
//!   into the round keys (MixColumns maps a column of equal bytes c to itself, so the
//!   constant passes unchanged to the next AddRoundKey);
//! - ShiftRows is never executed ("fixslicing", Adomnicai–Peyrin, TCHES 2021/1): the
//!   state of round r owes r ShiftRows, MixColumns is written for that phase (rotations
//!   of 32-bit columns and of the whole register, no `tbl`), the round keys are stored
//!   pre-shifted to match, and the owed rotation is paid once after the last round;
//! - rounds 2..Nr−1 are a loop of four rounds (one per phase) for every key size (the
//!   count read from the key, public): each kernel has five copies of the round instead
//!   of 9–13 per key size.
//! - doubling in GF(2^8) inside MixColumns only renames registers plus three XORs.

use super::{NeonKey, GROUP};
use core::arch::aarch64::*;
use core::ops::{BitAnd, BitXor};

/// A register as an operand of the S-box circuit (so the gate list reads as in `soft`).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct V(uint8x16_t);

impl BitXor for V {
    type Output = V;
    #[inline(always)]
    fn bitxor(self, o: V) -> V {
        // SAFETY: NEON is part of the AArch64 baseline.
        V(unsafe { veorq_u8(self.0, o.0) })
    }
}

impl BitAnd for V {
    type Output = V;
    #[inline(always)]
    fn bitand(self, o: V) -> V {
        // SAFETY: NEON is part of the AArch64 baseline.
        V(unsafe { vandq_u8(self.0, o.0) })
    }
}

/// Exchanges bit s of the register index with bit s of the in-byte bit position for the
/// pair (`a`: index bit clear, `b`: set); `mask` selects the positions with bit s clear.
macro_rules! swap_across {
    ($q:ident, $a:literal, $b:literal, $mask:literal, $s:literal) => {{
        let m = vdupq_n_u8($mask);
        let d = vandq_u8(veorq_u8(vshrq_n_u8::<$s>($q[$a]), $q[$b]), m);
        $q[$a] = veorq_u8($q[$a], vshlq_n_u8::<$s>(d));
        $q[$b] = veorq_u8($q[$b], d);
    }};
}

/// The 8×8 bit transpose of byte k of all eight registers, for every k: with one block
/// per register it yields the bit planes, and applied to the planes it gives the blocks
/// back (an involution).
#[inline(always)]
unsafe fn transpose8(q: &mut [uint8x16_t; GROUP]) {
    // SAFETY: NEON is part of the AArch64 baseline.
    unsafe {
        swap_across!(q, 0, 1, 0x55, 1);
        swap_across!(q, 2, 3, 0x55, 1);
        swap_across!(q, 4, 5, 0x55, 1);
        swap_across!(q, 6, 7, 0x55, 1);
        swap_across!(q, 0, 2, 0x33, 2);
        swap_across!(q, 1, 3, 0x33, 2);
        swap_across!(q, 4, 6, 0x33, 2);
        swap_across!(q, 5, 7, 0x33, 2);
        swap_across!(q, 0, 4, 0x0f, 4);
        swap_across!(q, 1, 5, 0x0f, 4);
        swap_across!(q, 2, 6, 0x0f, 4);
        swap_across!(q, 3, 7, 0x0f, 4);
    }
}

/// SubBytes without the affine constant (folded into the round keys): the shared
/// Boyar–Peralta circuit (`backend/sbox.rs`) on whole registers.
#[inline(always)]
fn sub_bytes(q: &mut [uint8x16_t; GROUP]) {
    // SAFETY: `V` is a transparent wrapper of `uint8x16_t`, so the arrays have one layout.
    let v = unsafe { &mut *(q as *mut [uint8x16_t; GROUP] as *mut [V; GROUP]) };
    crate::backend::sbox::sub_bytes_planes(v);
}

/// The rotation owed after the last round, as a `bsl` mask by (rounds / 2) mod 2: AES-192
/// (12) owes none, AES-128 and AES-256 (10, 14) two ShiftRows (rows 1 and 3, bytes
/// row + 4·column, turn by two columns, i.e. 8 bytes).
static OWED: [[u8; 16]; 2] = [
    [0; 16],
    [
        0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff,
    ],
];

/// MixColumns of a state that still owes Q ShiftRows ("fixsliced" in the manner of
/// Adomnicai–Peyrin, TCHES 2021/1: ShiftRows is never applied, MixColumns is rewritten
/// for the phase instead). If the true state is T(row, c) = S(row, c + Q·row), the
/// byte one row down T(row + 1, c) is S(row + 1, c + Q) at our position: a rotation of
/// each 32-bit column by one byte and a rotation of the register by Q columns. With a1
/// that, MixColumns is 2(a + a1) + a1 + (a2 + a3), and a2 + a3 is (a + a1) moved the
/// same way twice: a 16-bit rotation of each column (`rev32`) and 2Q columns. So no
/// `tbl` is needed; Q cycles through 0..3 with the round number.
#[inline(always)]
unsafe fn mix_columns<const Q: usize>(q: &mut [uint8x16_t; GROUP]) {
    // SAFETY: NEON baseline.
    unsafe {
        let a1: [uint8x16_t; GROUP] = core::array::from_fn(|j| {
            let w = vreinterpretq_u32_u8(q[j]);
            let y = vreinterpretq_u8_u32(vsliq_n_u32::<24>(vshrq_n_u32::<8>(w), w));
            match Q {
                0 => y,
                1 => vextq_u8::<4>(y, y),
                2 => vextq_u8::<8>(y, y),
                _ => vextq_u8::<12>(y, y),
            }
        });
        let t: [uint8x16_t; GROUP] = core::array::from_fn(|j| veorq_u8(q[j], a1[j]));
        // 2·t: plane j takes plane j − 1; the old top plane folds in as 0x1b.
        let top = t[7];
        let dbl = [
            top,
            veorq_u8(t[0], top),
            t[1],
            veorq_u8(t[2], top),
            veorq_u8(t[3], top),
            t[4],
            t[5],
            t[6],
        ];
        for j in 0..GROUP {
            let mut a23 = vreinterpretq_u8_u16(vrev32q_u16(vreinterpretq_u16_u8(t[j])));
            if Q % 2 == 1 {
                a23 = vextq_u8::<8>(a23, a23);
            }
            q[j] = veorq_u8(veorq_u8(dbl[j], a1[j]), a23);
        }
    }
}

/// One middle round (SubBytes, MixColumns of phase Q = r mod 4, AddRoundKey r).
#[inline(always)]
unsafe fn round<const Q: usize>(q: &mut [uint8x16_t; GROUP], k: &NeonKey, r: usize) {
    debug_assert_eq!(r % 4, Q);
    sub_bytes(q);
    // SAFETY: NEON baseline; r < 14.
    unsafe {
        mix_columns::<Q>(q);
        add_round_key(q, k, r);
    }
}

#[inline(always)]
unsafe fn add_round_key(q: &mut [uint8x16_t; GROUP], k: &NeonKey, r: usize) {
    for (j, x) in q.iter_mut().enumerate() {
        // SAFETY: r ≤ 14 and j < 8 index `k.rk`; NEON baseline.
        *x = unsafe { veorq_u8(*x, vld1q_u8(k.rk[r][j].as_ptr())) };
    }
}

/// AES of eight blocks, any key size. Round r leaves the state owing r ShiftRows (its
/// round key is stored shifted to match, see [`expand_key`]); what is owed at the end is
/// paid once.
#[inline(always)]
pub(super) unsafe fn aes8_inline(k: &NeonKey, mut q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe {
        transpose8(&mut q);
        aes8_planes(k, q)
    }
}

/// [`aes8_inline`] of the eight counter blocks `ctr`, `ctr` + 1, …, `ctr` + 7 (inc32 of a
/// counter in native order): the same keystream, with the bit planes of the blocks
/// built directly instead of transposed (see [`counter_planes`]).
#[inline(always)]
pub(super) unsafe fn aes8_ctr_inline(k: &NeonKey, ctr: uint32x4_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe { aes8_planes(k, counter_planes(ctr)) }
}

/// The bit planes of the counter blocks c + b (b = 0..8, inc32; `ctr` in native order)
/// without the 8×8 transpose. All bytes but the last four are the same in every lane,
/// so a plane byte is 0x00 or 0xff: `cmtst` of the block with the bit. Of the 32-bit
/// counter, with s = c mod 8, lanes b < 8 − s share every bit above the low three with
/// c − s and the others with c − s + 8 (carries included): two such blocks, and a per-lane
/// select (`bsl`, the same byte mask in every byte). The low three bits of lane b are
/// those of (s + b) mod 8, the fixed patterns 0xaa, 0xcc, 0xf0 turned by s.
/// No branch or memory access depends on the counter (which, for IVs other than 96
/// bits, comes from GHASH of the IV under the key).
#[inline(always)]
unsafe fn counter_planes(ctr: uint32x4_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe {
        let c = vgetq_lane_u32::<3>(ctr);
        let s = c & 7;
        let base = c & !7;
        let block = |w: u32| vrev32q_u8(vreinterpretq_u8_u32(vsetq_lane_u32::<3>(w, ctr)));
        let (lo, hi) = (block(base), block(base.wrapping_add(8)));
        let first = vdupq_n_u8(((1u32 << (8 - s)) - 1) as u8);
        let plane = |bit: u8| {
            let bit = vdupq_n_u8(bit);
            vbslq_u8(first, vtstq_u8(lo, bit), vtstq_u8(hi, bit))
        };
        // Byte 15 of planes 0..3: rotr8(pattern, s), as (p | p << 8) >> s.
        let low = |p: u64| {
            let top = ((p | (p << 8)) >> s) << 56;
            vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(0), vcreate_u64(top)))
        };
        // Written out: the bit of each plane must be a constant.
        [
            vorrq_u8(plane(1), low(0xaa)),
            vorrq_u8(plane(2), low(0xcc)),
            vorrq_u8(plane(4), low(0xf0)),
            plane(8),
            plane(16),
            plane(32),
            plane(64),
            plane(128),
        ]
    }
}

/// [`aes8_inline`] from the bit planes of the blocks, every key size: the round loop's
/// count is the key's `rounds` (10/12/14 by key size: public, never secret data).
#[inline(always)]
unsafe fn aes8_planes(k: &NeonKey, mut q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
    // The bound lets the compiler drop the index checks of `rk`; a key never has more.
    let rounds = (k.rounds as usize).min(14);
    // SAFETY: NEON baseline; the tables are 16-byte rows indexed below their length.
    unsafe {
        add_round_key(&mut q, k, 0);
        // The phase of MixColumns must be a constant (a `tbl` that takes it as data is
        // three µops in LLVM's Cortex-A57/A72 model: +5–7% on the loop rows, see
        // docs/footprint.md), so the loop holds four rounds, phases 2, 3, 0, 1, after
        // round 1: AES-128 and AES-256 leave at the bottom after two and three turns,
        // AES-192 (rounds 1..11) in the middle of its third.
        round::<1>(&mut q, k, 1);
        let mut r = 2;
        loop {
            round::<2>(&mut q, k, r);
            round::<3>(&mut q, k, r + 1);
            if r + 2 >= rounds {
                break;
            }
            round::<0>(&mut q, k, r + 2);
            round::<1>(&mut q, k, r + 3);
            r += 4;
            if r >= rounds {
                break;
            }
        }
        sub_bytes(&mut q);
        add_round_key(&mut q, k, rounds);
        let owed = vld1q_u8(OWED[(rounds / 2) % 2].as_ptr());
        for x in q.iter_mut() {
            *x = vbslq_u8(owed, vextq_u8::<8>(*x, *x), *x);
        }
        transpose8(&mut q);
        q
    }
}

/// The keystream of the eight counter blocks from `ctr` (native order), any key size.
#[inline(never)]
pub(super) fn aes8_ctr(k: &NeonKey, ctr: uint32x4_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline; forwarded.
    unsafe { aes8_ctr_inline(k, ctr) }
}

/// The keystream of the short-message path (5–8 lanes: messages of 49–112 bytes with
/// J0). For AES-256 the rounds are spelled out: the three turns of the round loop cost
/// 3–5 cycles there (0.2%, whole-call model, 64 B), and the GnuTLS record path must not
/// get slower; AES-128's two turns cost nothing measurable, so it takes the rolled one.
pub(super) fn aes8_ctr_short(k: &NeonKey, ctr: uint32x4_t) -> [uint8x16_t; GROUP] {
    if k.rounds == 14 {
        aes8_ctr_256(k, ctr)
    } else {
        aes8_ctr(k, ctr)
    }
}

#[inline(never)]
fn aes8_ctr_256(k: &NeonKey, ctr: uint32x4_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe {
        let mut q = counter_planes(ctr);
        add_round_key(&mut q, k, 0);
        macro_rules! rounds {
            ($($r:literal)*) => {$( round::<{ $r % 4 }>(&mut q, k, $r); )*};
        }
        rounds!(1 2 3 4 5 6 7 8 9 10 11 12 13);
        sub_bytes(&mut q);
        add_round_key(&mut q, k, 14);
        let owed = vld1q_u8(OWED[1].as_ptr());
        for x in q.iter_mut() {
            *x = vbslq_u8(owed, vextq_u8::<8>(*x, *x), *x);
        }
        transpose8(&mut q);
        q
    }
}

/// Eight blocks with a key of any size (tails, J0, key setup).
#[inline(never)]
pub(super) fn aes8(k: &NeonKey, q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline; forwarded.
    unsafe { aes8_inline(k, q) }
}

/// The shared FIPS-197 round keys `rk` (of `rounds` rounds) turned into bit planes with
/// the S-box constant folded into rounds ≥ 1.
pub(super) fn expand_key(
    k: &mut NeonKey,
    rk: &crate::backend::aes_schedule::RoundKeys,
    rounds: usize,
) {
    let mut bytes = [0u8; 16];
    k.rk = [[[0; 16]; 8]; 15];
    for (r, word) in rk.iter().enumerate().take(rounds + 1) {
        // The state meets round key r owing r ShiftRows (see `aes8_inline`): the true
        // state is T(row, c) = S(row, c + r·row), so byte (row, c) of ours is byte
        // (row, c − r·row) of the true state and takes that byte of the key.
        for (i, b) in bytes.iter_mut().enumerate() {
            let (row, c) = (i % 4, i / 4);
            *b = word[row + 4 * ((c + 4 - (r * row) % 4) % 4)];
        }
        // SAFETY: NEON baseline; 16-byte buffers.
        unsafe {
            let v = vld1q_u8(bytes.as_ptr());
            for j in 0..8 {
                let mut plane = vtstq_u8(v, vdupq_n_u8(1 << j));
                if r > 0 && (0x63 >> j) & 1 == 1 {
                    plane = vmvnq_u8(plane);
                }
                vst1q_u8(k.rk[r][j].as_mut_ptr(), plane);
            }
        }
    }
    k.rounds = rounds as u64;
    crate::secret::wipe_bytes(&mut bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::aarch64::common::ctr_block;
    use crate::backend::aarch64::neon::Aarch64Neon;
    use crate::backend::{Backend, Material};

    /// The counter planes against the transpose, for counters whose low bits start at
    /// every offset in a group of eight and whose 32-bit word wraps or carries across bytes
    /// inside the group.
    #[test]
    fn counter_blocks_without_the_transpose() {
        let mut m = Material::uninit();
        Aarch64Neon::init(&mut m, &[0x3cu8; 32]);
        let k: &NeonKey = m.view();
        let starts = [
            0u32,
            1,
            2,
            7,
            0xf8,
            0xfb,
            0xff,
            0x1fd,
            0xfff9,
            0x00ff_fffe,
            0xffff_fff8,
            0xffff_fffa,
            0xffff_ffff,
            0x1234_5678,
            0x8765_4321,
        ];
        for start in starts {
            let mut j0 = [0u8; 16];
            for (i, b) in j0.iter_mut().enumerate().take(12) {
                *b = (i as u8).wrapping_mul(29) ^ 0x5a;
            }
            j0[12..].copy_from_slice(&start.to_be_bytes());
            // SAFETY: NEON baseline; 16-byte blocks.
            unsafe {
                let c = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(j0.as_ptr())));
                let want = aes8(k, core::array::from_fn(|i| ctr_block(c, i as u32)));
                let got = aes8_ctr(k, c);
                for i in 0..GROUP {
                    let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
                    vst1q_u8(a.as_mut_ptr(), got[i]);
                    vst1q_u8(b.as_mut_ptr(), want[i]);
                    assert_eq!(a, b, "counter {start:#x} + {i}");
                }
            }
        }
    }
}
