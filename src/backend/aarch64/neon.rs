//! `aarch64-neon`: constant-time AES-GCM for AArch64 cores with NEON but without the
//! Crypto Extensions (Raspberry Pi 3/4 class: Cortex-A53/A72 without AES/PMULL).
//!
//! **AES** is bit-sliced eight blocks at a time in the Käsper–Schwabe arrangement
//! ("Faster and timing-attack resistant AES-GCM", CHES 2009; OpenSSL's bsaes and Linux's
//! aes-neonbs use the same idea). The 1024 state bits of eight blocks live in eight
//! 128-bit registers, register `j` holding bit `j` of every state byte: its byte `k` is
//! byte `k` of the AES state (FIPS-197 column-major order, k = row + 4·column) and bit
//! `b` of that byte belongs to block `b`. So
//! - entering and leaving the form is an 8×8 bit transpose per byte position (twelve
//!   swap-moves across the registers);
//! - SubBytes is the Boyar–Peralta depth-16 circuit (ePrint 2011/332, the same gate list
//!   as `soft`) on whole registers; its affine constant 0x63 is folded into the round
//!   keys (MixColumns maps a column of equal bytes c to itself, so the constant passes
//!   unchanged to the next AddRoundKey);
//! - ShiftRows is never executed ("fixslicing", Adomnicai–Peyrin, TCHES 2021/1): the
//!   state of round r owes r ShiftRows, MixColumns is written for that phase (rotations
//!   of 32-bit columns and of the whole register, no `tbl`), the round keys are stored
//!   pre-shifted to match, and the owed rotation is paid once after the last round;
//! - doubling in GF(2^8) inside MixColumns only renames registers plus three XORs.
//!
//! No memory access or branch depends on key or data. Counter blocks, CTR tails and the
//! tag's E(K, J0) all go through the same eight-lane kernel (unused lanes are computed
//! and dropped).
//!
//! **GHASH** has no 64-bit PMULL here, only the 8×8-bit polynomial multiply
//! (`pmull .8b` / `pmull2 .16b`, eight 16-bit products per instruction). Following
//! Câmara, Gouvêa, López and Dahab ("Fast software polynomial multiplication on ARM
//! processors using the NEON engine", CD-ARES 2013 / CT-RSA 2015), a 64×64-bit product
//! is eight such multiplies: with `A_k` the bytes of A rotated by k places inside the
//! 64-bit word, `A_k·B` lane i is the product of bytes i + k and i (mod 8), so k = 0..7
//! together cover all 64 byte pairs. A lane then only needs moving into place: up by k
//! bytes, or, when its pair wrapped around the word, down by 8 − k (see [`combine`]).
//! Here A is always a power of H, so:
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
//!
//! The kernels (`kernel_enc_aes128`, …, `kernel_ctr_aes128`, `kernel_ghash`) have their
//! AES rounds and GHASH forms fully unrolled (const generic round count, macros), so the
//! steady-state loop `scripts/model-arm.sh` models is one whole iteration of 128 bytes.
//! CTR and GHASH run in the same loop; in decryption the GHASH input does not wait for
//! the AES, so the out-of-order core overlaps the two.

use crate::backend::{Backend, Direction, Material, Plain};
use core::arch::aarch64::*;
use core::ops::{BitAnd, BitXor};

/// Blocks per AES call and per GHASH aggregation.
const GROUP: usize = 8;

/// Expanded key.
#[repr(C)]
#[derive(Clone, Copy)]
struct NeonKey {
    /// Round key r as eight bit planes: byte k of plane j is 0xff when bit j of round-key
    /// byte k is set. Round keys 1..=rounds also carry the S-box constant 0x63.
    rk: [[[u8; 16]; 8]; 15],
    rounds: u64,
    _pad: u64,
    /// H^(i+1) in natural bit order with its bytes rotated by 0..8 places inside each
    /// 64-bit half (the `A_k` forms of the multiplication).
    h: [[[u8; 16]; FORMS]; GROUP],
    /// Karatsuba middle operands for blocks 2j and 2j+1 of a group: lane 0 = lo ^ hi of
    /// H^(8−2j), lane 1 = lo ^ hi of H^(7−2j), and the rotated forms.
    hm: [[[u8; 16]; FORMS]; GROUP / 2],
}

// SAFETY: byte and integer arrays only.
unsafe impl Plain for NeonKey {}

pub(crate) struct Aarch64Neon;

impl Backend for Aarch64Neon {
    const NAME: &'static core::ffi::CStr = c"aarch64-neon";

    fn is_available() -> bool {
        std::arch::is_aarch64_feature_detected!("neon")
    }

    fn init(m: &mut Material, key: &[u8]) {
        // SAFETY: NEON is available (checked before any key is made with this backend).
        unsafe { init(m.view_mut(), key) }
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        let k: &NeonKey = m.view();
        // SAFETY: NEON available; `block` is 16 bytes.
        unsafe {
            let mut b = [vdupq_n_u8(0); GROUP];
            b[0] = vld1q_u8(block.as_ptr());
            let o = aes8(k, b);
            vst1q_u8(block.as_mut_ptr(), o[0]);
        }
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        let k: &NeonKey = m.view();
        // SAFETY: NEON available; 16-byte blocks.
        unsafe {
            let mut v = [vdupq_n_u8(0); GROUP];
            v[0] = vld1q_u8(a.as_ptr());
            v[1] = vld1q_u8(b.as_ptr());
            let o = aes8(k, v);
            vst1q_u8(a.as_mut_ptr(), o[0]);
            vst1q_u8(b.as_mut_ptr(), o[1]);
        }
    }

    unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize) {
        // SAFETY: forwarded contract; NEON available.
        unsafe { ghash(m.view(), y, data, blocks) }
    }

    unsafe fn crypt(
        m: &Material,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
    ) {
        // SAFETY: forwarded contract; NEON available.
        unsafe {
            match dir {
                Direction::Encrypt => crypt::<true>(m.view(), ctr, y, src, dst, blocks, j0),
                Direction::Decrypt => crypt::<false>(m.view(), ctr, y, src, dst, blocks, j0),
            }
        }
    }

    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
        // SAFETY: forwarded contract; NEON available.
        unsafe { ctr_only(m.view(), ctr, src, dst, blocks) }
    }
}

// ------------------------------------------------------------------ bit-sliced AES

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

/// Bytes of rows 1 and 3 (byte index = row + 4·column).
const ODD_ROWS: [u8; 16] = [
    0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff,
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

#[inline(always)]
unsafe fn add_round_key(q: &mut [uint8x16_t; GROUP], k: &NeonKey, r: usize) {
    for (j, x) in q.iter_mut().enumerate() {
        // SAFETY: r ≤ 14 and j < 8 index `k.rk`; NEON baseline.
        *x = unsafe { veorq_u8(*x, vld1q_u8(k.rk[r][j].as_ptr())) };
    }
}

/// AES with `R` rounds on eight blocks, fully unrolled. Round r leaves the state owing
/// r ShiftRows (its round key is stored shifted to match, see [`expand_key`]); the R
/// owed at the end are paid once: none for AES-192, two (rows 1 and 3 turn by two
/// columns, i.e. 8 bytes) for AES-128 and AES-256.
#[inline(always)]
unsafe fn aes8_r<const R: usize>(k: &NeonKey, mut q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline; the constant table is 16 bytes; round indices ≤ R ≤ 14.
    unsafe {
        transpose8(&mut q);
        add_round_key(&mut q, k, 0);
        // Spelled out: a `for` over the rounds would stay a rolled loop, and the phase
        // must be a constant.
        macro_rules! rounds {
            ($($r:literal)*) => {$(
                if $r < R {
                    sub_bytes(&mut q);
                    mix_columns::<{ $r % 4 }>(&mut q);
                    add_round_key(&mut q, k, $r);
                }
            )*};
        }
        rounds!(1 2 3 4 5 6 7 8 9 10 11 12 13);
        sub_bytes(&mut q);
        add_round_key(&mut q, k, R);
        const { assert!(R % 4 == 0 || R % 4 == 2) };
        if R % 4 == 2 {
            let odd = vld1q_u8(ODD_ROWS.as_ptr());
            for x in q.iter_mut() {
                *x = vbslq_u8(odd, vextq_u8::<8>(*x, *x), *x);
            }
        }
        transpose8(&mut q);
        q
    }
}

macro_rules! aes8_sizes {
    ($($name:ident, $r:literal;)*) => {$(
        #[inline(never)]
        fn $name(k: &NeonKey, q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
            // SAFETY: NEON baseline; forwarded.
            unsafe { aes8_r::<$r>(k, q) }
        }
    )*};
}

aes8_sizes! {
    aes8_128, 10;
    aes8_192, 12;
    aes8_256, 14;
}

/// Eight blocks with a key of any size (tails, J0, key setup).
fn aes8(k: &NeonKey, q: [uint8x16_t; GROUP]) -> [uint8x16_t; GROUP] {
    match k.rounds {
        10 => aes8_128(k, q),
        12 => aes8_192(k, q),
        _ => aes8_256(k, q),
    }
}

/// The shared FIPS-197 key expansion, turned into bit planes with the S-box constant
/// folded into rounds ≥ 1.
fn expand_key(k: &mut NeonKey, key: &[u8]) {
    let mut rk = [[0u8; 16]; 15];
    let rounds = crate::backend::aes_schedule::expand(key, &mut rk);
    let mut bytes = [0u8; 16];
    k.rk = [[[0; 16]; 8]; 15];
    for r in 0..=rounds {
        let word = rk[r];
        // The state meets round key r owing r ShiftRows (see `aes8_r`): the true
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
    crate::secret::wipe_bytes(rk.as_flattened_mut());
}

// ------------------------------------------------------------------ GHASH with pmull.8b

/// Number of byte rotations (0..8) of an operand: one partial product each.
const FORMS: usize = 8;

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

/// Selects the low 64-bit half.
const LOW_HALF: [u8; 16] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// 8×8-bit polynomial products of the low (`pmull .8b`) and high (`pmull2 .16b`) halves.
/// One-instruction `asm!` (pure, no memory, so LLVM still schedules them freely): through
/// the intrinsics LLVM turned some PMULL2 into an EXT plus PMULL.
#[inline(always)]
fn mul_lo(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only NEON instruction (AArch64 baseline).
    unsafe {
        core::arch::asm!("pmull {r:v}.8h, {a:v}.8b, {b:v}.8b",
            r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

#[inline(always)]
fn mul_hi(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only NEON instruction (AArch64 baseline).
    unsafe {
        core::arch::asm!("pmull2 {r:v}.8h, {a:v}.16b, {b:v}.16b",
            r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
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
            let hv = unsafe { vld1q_u8(hk.as_ptr()) };
            self.lo[k] = xor(self.lo[k], mul_lo(hv, x));
            self.hi[k] = xor(self.hi[k], mul_hi(hv, x));
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
        unsafe { finish(combine(&self.lo), combine(&self.hi), combine(&self.mid)) }
    }
}

/// The Karatsuba middle operands of blocks a and b packed into one register:
/// (a.lo ^ a.hi, b.lo ^ b.hi) = (a.hi, b.lo) ^ (a.lo, b.hi).
#[inline(always)]
unsafe fn mid_operands(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline; 16-byte constant.
    unsafe {
        xor(
            vextq_u8::<8>(a, b),
            vbslq_u8(vld1q_u8(LOW_HALF.as_ptr()), a, b),
        )
    }
}

/// Karatsuba recombination of the three placed 128-bit products, and reduction.
#[inline(always)]
unsafe fn finish(lo: uint8x16_t, hi: uint8x16_t, mid: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe {
        let mid = xor(mid, xor(lo, hi));
        let z = vdupq_n_u8(0);
        let lo = xor(lo, vextq_u8::<8>(z, mid));
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

/// (x0·H^8 + x1·H^7 + … + x7·H), natural bit order; the caller has added Y into the
/// first block that carries data (a short group is padded with leading zero blocks).
///
/// The loop runs over the rotations k outside and the blocks inside, so only three
/// partial products are open at a time (each is placed as soon as it is complete) and
/// the blocks, the packed middle operands and the six running sums fit in registers.
#[inline(always)]
unsafe fn ghash8(k: &NeonKey, x: &[uint8x16_t; GROUP]) -> uint8x16_t {
    // SAFETY: NEON baseline; indices below are < 8 (h, forms) and < 4 (hm).
    unsafe {
        let z = vdupq_n_u8(0);
        let m: [uint8x16_t; GROUP / 2] =
            core::array::from_fn(|j| mid_operands(x[2 * j], x[2 * j + 1]));
        // lo·lo, hi·hi, middle: rotated partial products and their wrapped bytes.
        let mut straight = [z; 3];
        let mut wrapped = [z; 3];
        // Written out: the EXT amount must be a constant.
        macro_rules! forms {
            ($($f:literal $ext:literal)*) => {$(
                let mut p = [z; 3];
                for (i, xi) in x.iter().enumerate() {
                    let hv = vld1q_u8(k.h[GROUP - 1 - i][$f].as_ptr());
                    p[0] = xor(p[0], mul_lo(hv, *xi));
                    p[1] = xor(p[1], mul_hi(hv, *xi));
                }
                for (j, mj) in m.iter().enumerate() {
                    let hv = vld1q_u8(k.hm[j][$f].as_ptr());
                    p[2] = xor(p[2], xor(mul_lo(hv, *mj), mul_hi(hv, *mj)));
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
        finish(placed[0], placed[1], placed[2])
    }
}

/// The forms of a 128-bit operand: bytes rotated by 0..8 places within each half.
unsafe fn forms(v: uint8x16_t) -> [[u8; 16]; FORMS] {
    let mut out = [[0u8; 16]; FORMS];
    for (k, o) in out.iter_mut().enumerate() {
        // SAFETY: NEON baseline; 16-byte arrays.
        unsafe { vst1q_u8(o.as_mut_ptr(), vqtbl1q_u8(v, vld1q_u8(ROT[k].as_ptr()))) };
    }
    out
}

/// lo ^ hi of a (in both halves).
#[inline(always)]
unsafe fn fold_halves(a: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe { veorq_u8(a, vextq_u8::<8>(a, a)) }
}

/// a·b in GF(2^128), natural bit order (key setup only).
unsafe fn gf_mul(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
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

unsafe fn init(k: &mut NeonKey, key: &[u8]) {
    expand_key(k, key);
    // SAFETY: NEON baseline; indices < 8.
    unsafe {
        let h = vrbitq_u8(aes8(k, [vdupq_n_u8(0); GROUP])[0]);
        let mut p = h;
        let mut pw = [vdupq_n_u8(0); GROUP];
        for (i, slot) in pw.iter_mut().enumerate() {
            *slot = p;
            k.h[i] = forms(p);
            if i + 1 < GROUP {
                p = gf_mul(p, h);
            }
        }
        for j in 0..GROUP / 2 {
            // lane 0: H^(8−2j), lane 1: H^(7−2j).
            let a = fold_halves(pw[GROUP - 1 - 2 * j]);
            let b = fold_halves(pw[GROUP - 2 - 2 * j]);
            k.hm[j] = forms(vcombine_u8(vget_low_u8(a), vget_low_u8(b)));
        }
    }
}

// ------------------------------------------------------------------ counters

/// Counter block with the 32-bit counter in lane 3 in native order, so a vector add
/// increments it (wrapping mod 2^32, as inc32 requires); `rev32` turns it back.
#[inline(always)]
unsafe fn ctr_to_native(ctr: &[u8; 16]) -> uint32x4_t {
    // SAFETY: 16 readable bytes; NEON baseline.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(ctr.as_ptr()))) }
}

#[inline(always)]
unsafe fn ctr_from_native(c: uint32x4_t, out: &mut [u8; 16]) {
    // SAFETY: 16 writable bytes; NEON baseline.
    unsafe { vst1q_u8(out.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(c))) }
}

#[inline(always)]
unsafe fn ctr_add(c: uint32x4_t, i: u32) -> uint32x4_t {
    // SAFETY: NEON baseline.
    unsafe { vaddq_u32(c, vsetq_lane_u32::<3>(i, vdupq_n_u32(0))) }
}

/// The next eight counter blocks (big-endian), advancing `ctr` by eight.
#[inline(always)]
unsafe fn counters(ctr: &mut uint32x4_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe {
        let c = *ctr;
        *ctr = ctr_add(c, GROUP as u32);
        core::array::from_fn(|i| vrev32q_u8(vreinterpretq_u8_u32(ctr_add(c, i as u32))))
    }
}

// ------------------------------------------------------------------ kernels

/// One group of eight blocks: CTR and GHASH of the ciphertext. Decryption hashes the
/// input, which does not wait for the AES, so the two streams overlap.
#[inline(always)]
unsafe fn crypt_group<const R: usize, const ENC: bool>(
    k: &NeonKey,
    ctr: &mut uint32x4_t,
    y: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY: NEON baseline; `src`/`dst` hold 128 bytes (caller's contract).
    unsafe {
        let input: [uint8x16_t; GROUP] = core::array::from_fn(|i| vld1q_u8(src.add(16 * i)));
        let ks = aes8_r::<R>(k, counters(ctr));
        let out: [uint8x16_t; GROUP] = core::array::from_fn(|i| veorq_u8(input[i], ks[i]));
        for (i, o) in out.iter().enumerate() {
            vst1q_u8(dst.add(16 * i), *o);
        }
        let mut x = if ENC { out } else { input }.map(|v| vrbitq_u8(v));
        x[0] = veorq_u8(x[0], *y);
        *y = ghash8(k, &x);
    }
}

macro_rules! crypt_kernels {
    ($($name:ident, $r:literal, $enc:literal;)*) => {$(
        /// Steady-state CTR + GHASH loop for one key size and direction.
        #[inline(never)]
        unsafe fn $name(
            k: &NeonKey,
            ctr: &mut uint32x4_t,
            y: &mut uint8x16_t,
            mut src: *const u8,
            mut dst: *mut u8,
            groups: usize,
        ) {
            // SAFETY: `src`/`dst` hold 128*groups bytes (caller's contract).
            unsafe {
                for _ in 0..groups {
                    crypt_group::<$r, $enc>(k, ctr, y, src, dst);
                    src = src.add(16 * GROUP);
                    dst = dst.add(16 * GROUP);
                }
            }
        }
    )*};
}

crypt_kernels! {
    kernel_enc_aes128, 10, true;
    kernel_enc_aes192, 12, true;
    kernel_enc_aes256, 14, true;
    kernel_dec_aes128, 10, false;
    kernel_dec_aes192, 12, false;
    kernel_dec_aes256, 14, false;
}

macro_rules! ctr_kernels {
    ($($name:ident, $r:literal;)*) => {$(
        /// Steady-state CTR loop (keystream only) for one key size.
        #[inline(never)]
        unsafe fn $name(
            k: &NeonKey,
            ctr: &mut uint32x4_t,
            mut src: *const u8,
            mut dst: *mut u8,
            groups: usize,
        ) {
            // SAFETY: `src`/`dst` hold 128*groups bytes (caller's contract).
            unsafe {
                for _ in 0..groups {
                    let ks = aes8_r::<$r>(k, counters(ctr));
                    for (i, s) in ks.iter().enumerate() {
                        let x = vld1q_u8(src.add(16 * i));
                        vst1q_u8(dst.add(16 * i), veorq_u8(x, *s));
                    }
                    src = src.add(16 * GROUP);
                    dst = dst.add(16 * GROUP);
                }
            }
        }
    )*};
}

ctr_kernels! {
    kernel_ctr_aes128, 10;
    kernel_ctr_aes192, 12;
    kernel_ctr_aes256, 14;
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
            acc = ghash8(k, &x);
            data = data.add(16 * GROUP);
        }
        *y = acc;
    }
}

/// CTR over `blocks` (all key sizes), with `j0` (when given) encrypted in place as an
/// extra lane of the last, partial group. Returns the last group's keystream applied;
/// GHASH of the tail is the caller's.
unsafe fn crypt<const ENC: bool>(
    k: &NeonKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: NEON baseline; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let groups = blocks / GROUP;
        if groups > 0 {
            let f = match (k.rounds, ENC) {
                (10, true) => kernel_enc_aes128,
                (12, true) => kernel_enc_aes192,
                (_, true) => kernel_enc_aes256,
                (10, false) => kernel_dec_aes128,
                (12, false) => kernel_dec_aes192,
                (_, false) => kernel_dec_aes256,
            };
            f(k, &mut c, &mut acc, src, dst, groups);
        }
        let done = groups * GROUP;
        let n = blocks - done;
        if n > 0 || j0.is_some() {
            crypt_tail::<ENC>(
                k,
                &mut c,
                &mut acc,
                src.add(16 * done),
                dst.add(16 * done),
                n,
                j0,
            );
        }
        ctr_from_native(c, ctr);
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

/// The last 0..=7 blocks (and J0): one eight-lane AES call, and one GHASH of a group
/// padded with leading zero blocks, so the n blocks meet H^n..H^1.
#[inline(never)]
unsafe fn crypt_tail<const ENC: bool>(
    k: &NeonKey,
    c: &mut uint32x4_t,
    acc: &mut uint8x16_t,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    debug_assert!(n < GROUP);
    // SAFETY: `src`/`dst` hold 16*n bytes (caller's contract); n ≤ 7 (public), so every
    // index below is < 8; NEON baseline.
    unsafe {
        let mut lanes = [vdupq_n_u8(0); GROUP];
        for (i, l) in lanes.iter_mut().enumerate().take(n) {
            *l = vrev32q_u8(vreinterpretq_u8_u32(ctr_add(*c, i as u32)));
        }
        *c = ctr_add(*c, n as u32);
        if let Some(j) = &j0 {
            lanes[n] = vld1q_u8(j.as_ptr());
        }
        let ks = aes8(k, lanes);
        if let Some(j) = j0 {
            vst1q_u8(j.as_mut_ptr(), ks[n]);
        }
        if n == 0 {
            return;
        }
        let mut x = [vdupq_n_u8(0); GROUP];
        for i in 0..n {
            let v = vld1q_u8(src.add(16 * i));
            let o = veorq_u8(v, ks[i]);
            vst1q_u8(dst.add(16 * i), o);
            x[GROUP - n + i] = vrbitq_u8(if ENC { o } else { v });
        }
        x[GROUP - n] = veorq_u8(x[GROUP - n], *acc);
        *acc = ghash8(k, &x);
    }
}

unsafe fn ghash(k: &NeonKey, y: &mut [u8; 16], data: *const u8, blocks: usize) {
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
            for i in 0..n {
                x[GROUP - n + i] = vrbitq_u8(vld1q_u8(tail.add(16 * i)));
            }
            x[GROUP - n] = veorq_u8(x[GROUP - n], acc);
            acc = ghash8(k, &x);
        }
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

unsafe fn ctr_only(k: &NeonKey, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); NEON baseline.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let groups = blocks / GROUP;
        if groups > 0 {
            let f = match k.rounds {
                10 => kernel_ctr_aes128,
                12 => kernel_ctr_aes192,
                _ => kernel_ctr_aes256,
            };
            f(k, &mut c, src, dst, groups);
        }
        let done = groups * GROUP;
        let n = blocks - done;
        if n > 0 {
            let mut lanes = [vdupq_n_u8(0); GROUP];
            for (i, l) in lanes.iter_mut().enumerate().take(n) {
                *l = vrev32q_u8(vreinterpretq_u8_u32(ctr_add(c, i as u32)));
            }
            c = ctr_add(c, n as u32);
            let ks = aes8(k, lanes);
            for (i, s) in ks.iter().enumerate().take(n) {
                let x = vld1q_u8(src.add(16 * (done + i)));
                vst1q_u8(dst.add(16 * (done + i)), veorq_u8(x, *s));
            }
        }
        ctr_from_native(c, ctr);
    }
}
