//! `aarch64-ce`: AES-GCM with the ARMv8 Crypto Extensions (AESE/AESMC + PMULL/PMULL2).
//!
//! The main loops are *stitched*: each iteration runs AES-CTR on eight counter blocks and
//! GHASH on eight ciphertext blocks, so every block is loaded once and the two
//! independent instruction streams fill the crypto and SIMD pipes together (the approach
//! of Gueron–Kounavis' aggregated GHASH and of OpenSSL's/Linux's stitched ARMv8 code).
//! Decryption hashes the very blocks it decrypts; encryption hashes the ciphertext it has
//! just produced, one group later, so the hash overlaps the next group's AES.
//!
//! GHASH works in the natural bit order: `rbit` turns each GCM byte (whose most
//! significant bit is the coefficient of x^0) into a little-endian polynomial, so PMULL
//! gives the true product and reduction modulo x^128 + x^7 + x^2 + x + 1 is two
//! multiplications by 0x87 (fold x^192.., then x^128..). Eight blocks are aggregated with
//! the precomputed powers H^8..H^1: Y' = (Y + C0)·H^8 + C1·H^7 + … + C7·H, using
//! Karatsuba (three PMULLs per block, the middle operands of the H powers precomputed)
//! and ONE reduction per group.
//!
//! AESE/AESMC are kept adjacent on the same register so cores that fuse the pair can.
//! Each key size, direction and variant gets its own kernel (`kernel_enc_aes128`, …,
//! the names `scripts/model-arm.sh` looks for) whose steady state is one generated,
//! hand-scheduled `asm!` loop (`ce/loops.rs` from `ce/gen_loops.py`;
//! why, in [`crypt_groups`]). Tails, short messages and the GHASH-only loop use
//! intrinsics.

use crate::backend::{Backend, Direction, Material, Plain};
use core::arch::aarch64::*;

mod loops;

/// Expanded key: standard AES round keys and H^1..H^8 for PMULL.
#[repr(C)]
#[derive(Clone, Copy)]
struct CeKey {
    rk: [[u8; 16]; 15],
    rounds: u64,
    _pad: u64,
    /// H^(i+1), bit-reversed within each byte (natural polynomial order). The stitched
    /// loops use H^1..H^8, the GHASH-only loop H^1..H^16.
    h: [[u8; 16]; 16],
    /// Karatsuba middle operands: lane 0 = lo ^ hi of H^(2i+1), lane 1 = of H^(2i+2).
    hk: [[u8; 16]; 8],
    /// For the `asm!` loops (`loops.rs`), which hash block pairs (x_2j, x_2j+1) with
    /// H^(8-2j), H^(7-2j): per pair j the low halves of the two powers (lane 0, lane 1),
    /// their high halves, and their lo ^ hi; then 0x87 in both lanes and a zero vector.
    ghp: [[u8; 16]; 14],
}

// The generated loops address these fields by fixed offsets.
const _: () = assert!(core::mem::offset_of!(CeKey, rk) == 0);
const _: () = assert!(core::mem::offset_of!(CeKey, ghp) == 640);

// SAFETY: byte and integer arrays only.
unsafe impl Plain for CeKey {}

/// The backend; `EOR3` selects the variant for cores with the SHA3 extension, whose
/// three-way EOR saves vector µops in the stitched loops (V1-class cores are bound by
/// the count of vector µops, not by the crypto pipe).
pub(crate) struct Aarch64Ce<const EOR3: bool>;

const GROUP: usize = 8;

impl<const EOR3: bool> Backend for Aarch64Ce<EOR3> {
    const NAME: &'static core::ffi::CStr = if EOR3 {
        c"aarch64-ce-eor3"
    } else {
        c"aarch64-ce"
    };

    fn is_available() -> bool {
        std::arch::is_aarch64_feature_detected!("aes")
            && std::arch::is_aarch64_feature_detected!("pmull")
            && (!EOR3 || std::arch::is_aarch64_feature_detected!("sha3"))
    }

    fn init(m: &mut Material, key: &[u8]) {
        // SAFETY: only reached when `is_available()` (the mode checks before init).
        unsafe { init(m.view_mut(), key) }
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        let k: &CeKey = m.view();
        // SAFETY: CPU support checked when the key was made; `block` is 16 bytes.
        unsafe {
            let b = aes_block(k, vld1q_u8(block.as_ptr()));
            vst1q_u8(block.as_mut_ptr(), b);
        }
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        let k: &CeKey = m.view();
        // SAFETY: CPU support checked when the key was made; 16-byte blocks.
        unsafe {
            let (x, y) = aes_block2(k, vld1q_u8(a.as_ptr()), vld1q_u8(b.as_ptr()));
            vst1q_u8(a.as_mut_ptr(), x);
            vst1q_u8(b.as_mut_ptr(), y);
        }
    }

    unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize) {
        // SAFETY: forwarded contract; CPU support checked at key setup.
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
        // SAFETY: forwarded contract; CPU support checked at key setup.
        unsafe {
            match dir {
                Direction::Encrypt => crypt::<true, EOR3>(m.view(), ctr, y, src, dst, blocks, j0),
                Direction::Decrypt => crypt::<false, EOR3>(m.view(), ctr, y, src, dst, blocks, j0),
            }
        }
    }

    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
        // SAFETY: forwarded contract; CPU support checked at key setup.
        unsafe { ctr_only(m.view(), ctr, src, dst, blocks) }
    }
}

// ------------------------------------------------------------------ key setup

#[target_feature(enable = "neon,aes")]
unsafe fn init(k: &mut CeKey, key: &[u8]) {
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

// ------------------------------------------------------------------ primitives

#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn load_rk<const R: usize>(k: &CeKey) -> [uint8x16_t; 15] {
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
unsafe fn aes_block(k: &CeKey, mut b: uint8x16_t) -> uint8x16_t {
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
unsafe fn aes_block2(k: &CeKey, mut a: uint8x16_t, mut b: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
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

/// Carry-less 64×64 products of the low/high lanes, as 128-bit vectors.
///
/// Written as one-instruction `asm!` (pure, no memory, so LLVM still schedules them
/// freely): through the intrinsics LLVM rewrote PMULL2 into lane moves plus PMULL,
/// adding vector µops on the pipe the crypto instructions need (model: +18 µops/128 B).
#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn pmull_lo(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only PMULL; the enclosing target features guarantee it exists.
    unsafe {
        core::arch::asm!("pmull {r:v}.1q, {a:v}.1d, {b:v}.1d",
            r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn pmull_hi(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only PMULL2; the enclosing target features guarantee it exists.
    unsafe {
        core::arch::asm!("pmull2 {r:v}.1q, {a:v}.2d, {b:v}.2d",
            r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// TRN1 (`N` = 1: both low halves) or TRN2 (both high halves) of 64-bit lanes. Through
/// `vtrn1q_u64` LLVM emitted a register copy plus a lane insert; one instruction here.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn trn<const N: u32>(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only NEON permute.
    unsafe {
        if N == 1 {
            core::arch::asm!("trn1 {r:v}.2d, {a:v}.2d, {b:v}.2d",
                r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
                options(pure, nomem, nostack, preserves_flags));
        } else {
            core::arch::asm!("trn2 {r:v}.2d, {a:v}.2d, {b:v}.2d",
                r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b,
                options(pure, nomem, nostack, preserves_flags));
        }
    }
    r
}

/// a ^ b ^ c: one EOR3 (SHA3 extension) or two EORs. Used for the output of the stitched
/// loop (keystream ^ last round key ^ input); inside the SHA3 kernels LLVM also fuses
/// EOR chains of the GHASH part into EOR3 by itself.
#[inline(always)]
unsafe fn xor3<const X3: bool>(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    if X3 {
        // SAFETY: X3 code is only reached on CPUs with SHA3 (see `is_available`).
        unsafe { eor3(a, b, c) }
    } else {
        veorq_u8(a, veorq_u8(b, c))
    }
}

#[inline]
#[target_feature(enable = "neon,sha3")]
unsafe fn eor3(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    let r: uint8x16_t;
    // SAFETY: a register-only EOR3; the target features guarantee it exists.
    unsafe {
        core::arch::asm!("eor3 {r:v}.16b, {a:v}.16b, {b:v}.16b, {c:v}.16b",
            r = lateout(vreg) r, a = in(vreg) a, b = in(vreg) b, c = in(vreg) c,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// Karatsuba accumulators of an unreduced 256-bit sum of products.
#[derive(Clone, Copy)]
struct Acc {
    lo: uint8x16_t,
    mid: uint8x16_t,
    hi: uint8x16_t,
}

impl Acc {
    #[inline]
    #[target_feature(enable = "neon,aes")]
    unsafe fn new() -> Acc {
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
    unsafe fn mul_add(&mut self, x: uint8x16_t, h: uint8x16_t, hk: uint8x16_t) {
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
        let k = veorq_u8(trn::<1>(a, b), trn::<2>(a, b));
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
    unsafe fn reduce(mut self) -> uint8x16_t {
        self.fold_mid();
        self.fold_poly()
    }
}

/// a·b in GF(2^128), natural bit order (used at key setup only).
#[target_feature(enable = "neon,aes")]
unsafe fn gf_mul(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    let bk = veorq_u8(b, vextq_u8::<8>(b, b));
    let mut acc = Acc::new();
    acc.mul_add(a, b, bk);
    acc.reduce()
}

/// Loads H powers and Karatsuba operands into registers.
struct HPowers {
    h: [uint8x16_t; 8],
    hk: [uint8x16_t; 4],
}

#[inline]
#[target_feature(enable = "neon,aes")]
unsafe fn load_h(k: &CeKey) -> HPowers {
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
unsafe fn ghash8_step(
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
unsafe fn ghash8(p: &HPowers, mut y: uint8x16_t, x: &[uint8x16_t; GROUP]) -> uint8x16_t {
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

// ------------------------------------------------------------------ counters

/// Counter block with the 32-bit counter in lane 3 in native order, so a vector add
/// increments it (wrapping mod 2^32, as inc32 requires); `rev32` turns it back.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn ctr_to_native(ctr: &[u8; 16]) -> uint32x4_t {
    // SAFETY: 16 readable bytes.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(ctr.as_ptr()))) }
}

#[inline]
#[target_feature(enable = "neon")]
unsafe fn ctr_from_native(c: uint32x4_t, out: &mut [u8; 16]) {
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(out.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(c))) }
}

#[inline]
#[target_feature(enable = "neon")]
unsafe fn ctr_block(c: uint32x4_t, i: u32) -> uint8x16_t {
    let inc = vsetq_lane_u32::<3>(i, vdupq_n_u32(0));
    vrev32q_u8(vreinterpretq_u8_u32(vaddq_u32(c, inc)))
}

// ------------------------------------------------------------------ kernels

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
struct LoopArgs {
    key: *const CeKey,
    src: *const u8,
    dst: *mut u8,
    groups: usize,
    ctr: u64,
    /// Bytes 0..8 and 8..12 of the counter block, little-endian: the fixed part.
    ivlo: u64,
    iv2: u64,
    y: uint8x16_t,
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
/// no crypto instruction is ready. Modelled (llvm-mca, fused) AES-128 encrypt: N1 0.906
/// -> 0.844 c/B, A57 0.844 -> 0.836, V1 (EOR3) 0.359 -> 0.323; AES-256 N1 1.180 -> 1.086.
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
        *ctr = vaddq_u32(c, vsetq_lane_u32::<3>(GROUP as u32, vdupq_n_u32(0)));
        let mut b: [uint8x16_t; GROUP] = core::array::from_fn(|i| ctr_block(c, i as u32));
        for key in rk.iter().take(R - 1) {
            for blk in b.iter_mut() {
                *blk = vaesmcq_u8(vaeseq_u8(*blk, *key));
            }
        }
        core::array::from_fn(|i| {
            let o = xor3::<X3>(vaeseq_u8(b[i], rk[R - 1]), rk[R], vld1q_u8(src.add(16 * i)));
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

#[target_feature(enable = "neon,aes")]
unsafe fn crypt<const ENC: bool, const X3: bool>(
    k: &CeKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let groups = blocks / GROUP;
        if groups > 0 {
            let f = match (k.rounds, ENC, X3) {
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
            f(k, &mut c, &mut acc, src, dst, groups);
        }
        let done = groups * GROUP;
        if done < blocks || j0.is_some() {
            // J0 (first data of a message) rides along as one more lane of the tail.
            crypt_tail::<ENC>(
                k,
                &mut c,
                &mut acc,
                src.add(16 * done),
                dst.add(16 * done),
                blocks - done,
                j0,
            );
        }
        ctr_from_native(c, ctr);
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
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
        let mut ks = [vdupq_n_u8(0); GROUP];
        for (i, b) in ks.iter_mut().enumerate().take(n) {
            *b = ctr_block(*c, i as u32);
        }
        *c = vaddq_u32(*c, vsetq_lane_u32::<3>(n as u32, vdupq_n_u32(0)));
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
unsafe fn ghash(k: &CeKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let iterations = blocks / GHASH_BLOCKS;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(16 * GHASH_BLOCKS * iterations);
        }
        let mut left = blocks % GHASH_BLOCKS;
        let p = load_h(k);
        if left >= GROUP {
            let x: [uint8x16_t; GROUP] =
                core::array::from_fn(|i| vrbitq_u8(vld1q_u8(data.add(16 * i))));
            acc = ghash8(&p, acc, &x);
            data = data.add(16 * GROUP);
            left -= GROUP;
        }
        if left > 0 {
            acc = ghash_tail(k, acc, data, left);
        }
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

#[target_feature(enable = "neon,aes")]
unsafe fn ctr_only(k: &CeKey, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut i = 0;
        while i + 4 <= blocks {
            let mut b = [vdupq_n_u8(0); 4];
            for (j, blk) in b.iter_mut().enumerate() {
                *blk = aes_block(k, ctr_block(c, j as u32));
            }
            c = vaddq_u32(c, vsetq_lane_u32::<3>(4, vdupq_n_u32(0)));
            for (j, blk) in b.iter().enumerate() {
                let x = vld1q_u8(src.add(16 * (i + j)));
                vst1q_u8(dst.add(16 * (i + j)), veorq_u8(x, *blk));
            }
            i += 4;
        }
        while i < blocks {
            let ks = aes_block(k, ctr_block(c, 0));
            c = vaddq_u32(c, vsetq_lane_u32::<3>(1, vdupq_n_u32(0)));
            let x = vld1q_u8(src.add(16 * i));
            vst1q_u8(dst.add(16 * i), veorq_u8(x, ks));
            i += 1;
        }
        ctr_from_native(c, ctr);
    }
}
