//! `x86_64-aesni`: AES-GCM with AES-NI and PCLMULQDQ on 128-bit registers.
//!
//! The main loops are *stitched* (Gueron–Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", and Gueron's later work on
//! aggregated reduction): each iteration runs AES-CTR on eight counter blocks and GHASH
//! on eight ciphertext blocks, so the AES unit and the carry-less multiplier work side by
//! side. Decryption hashes the blocks it decrypts; encryption hashes the previous group's
//! ciphertext (kept in registers) while it encrypts the next group, so both streams are
//! independent inside one iteration.
//!
//! GHASH runs in the POLYVAL domain of RFC 8452 (AES-GCM-SIV): a GCM block, byte-reversed
//! (`pshufb`), is a POLYVAL field element, and GHASH with key H equals POLYVAL with key
//! mulX(H) (RFC 8452, appendix A). POLYVAL's product a·b·x^-128 is what PCLMULQDQ plus a
//! Montgomery-style reduction gives cheaply: two multiplications by the 64-bit constant
//! 0xc2…00 fold the low 128 bits of the 256-bit product away (Gueron's "fast reduction";
//! also Intel's GCM whitepaper, revised). Because the reduction multiplies by x^-128
//! every time, the "powers" stored in the key are POLYVAL powers (H, H·H·x^-128, …), and
//! aggregation works unchanged: Y' = (Y + C0)·H^8 + C1·H^7 + … + C7·H with one reduction
//! per group. Products use Karatsuba (three PCLMULQDQs per block; the middle operands of
//! the key powers are precomputed).
//!
//! The counter is kept byte-reversed, so inc32 is one `paddd` on lane 0 and each counter
//! block costs one `pshufb`. Key expansion uses AESENCLAST on a broadcast word as the
//! S-box (ShiftRows has no effect when the four columns are equal): no table. Everything
//! here is constant time by construction: AES-NI and PCLMULQDQ have data-independent
//! timing, and no branch or address depends on key, data or tag.
//!
//! Short messages and tails of fewer than eight blocks run their AES round-major (all
//! lanes per round key) and aggregate their GHASH with H^n..H^1 and one reduction; the
//! first data of a message also carries E(K, J0) as one more lane (`crypt_ghash_j0`).
//!
//! This file also holds the pieces the `x86_64-vaes` backend shares (key layout, key
//! setup, single blocks, the Karatsuba accumulator and reduction, the CTR-only
//! remainder).

use crate::backend::{Backend, Direction, Material, Plain};
use core::arch::x86_64::*;

/// Expanded key, shared with `x86_64-vaes`: AES round keys and H^16..H^1 in POLYVAL form.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct XKey {
    pub(super) rk: [[u8; 16]; 15],
    pub(super) rounds: u64,
    _pad: u64,
    /// `h[i]` = H^(16-i) (POLYVAL powers, see the file comment): the stitched 8-block
    /// loop uses `h[8..16]`, the 16-block loops all of it; two neighbours load as one
    /// 256-bit pair (block 2j in the low lane takes the higher power).
    pub(super) h: [[u8; 16]; 16],
    /// `hk[i]`: both 64-bit halves hold lo ^ hi of `h[i]` (Karatsuba middle operand).
    pub(super) hk: [[u8; 16]; 16],
}

// SAFETY: byte and integer arrays only.
unsafe impl Plain for XKey {}

/// The backend.
pub(crate) struct X86Aesni;

pub(super) const GROUP: usize = 8;

pub(super) fn aesni_available() -> bool {
    std::arch::is_x86_feature_detected!("aes")
        && std::arch::is_x86_feature_detected!("pclmulqdq")
        && std::arch::is_x86_feature_detected!("ssse3")
        && std::arch::is_x86_feature_detected!("sse4.1")
}

impl Backend for X86Aesni {
    const NAME: &'static core::ffi::CStr = c"x86_64-aesni";

    fn is_available() -> bool {
        aesni_available()
    }

    fn init(m: &mut Material, key: &[u8]) {
        // SAFETY: only reached when `is_available()` (the mode checks before init).
        unsafe { init(m.view_mut(), key) }
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        // SAFETY: CPU support checked when the key was made.
        unsafe { encrypt_block(m.view(), block) }
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        // SAFETY: CPU support checked when the key was made.
        unsafe { encrypt_block2(m.view(), a, b) }
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
                Direction::Encrypt => crypt::<true>(m.view(), ctr, y, src, dst, blocks, j0),
                Direction::Decrypt => crypt::<false>(m.view(), ctr, y, src, dst, blocks, j0),
            }
        }
    }

    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize) {
        // SAFETY: forwarded contract; CPU support checked at key setup.
        unsafe { ctr_only(m.view(), ctr, src, dst, blocks) }
    }
}

// ------------------------------------------------------------------ primitives

/// `pshufb` mask reversing the 16 bytes of a block.
#[inline(always)]
pub(super) unsafe fn bswap_mask() -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
}

#[inline(always)]
pub(super) unsafe fn load(p: *const u8) -> __m128i {
    // SAFETY: caller guarantees 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(p as *const __m128i) }
}

#[inline(always)]
pub(super) unsafe fn store(p: *mut u8, v: __m128i) {
    // SAFETY: caller guarantees 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(p as *mut __m128i, v) }
}

#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn rk(k: &XKey, r: usize) -> __m128i {
    // SAFETY: `k.rk[r]` holds 16 bytes (bounds-checked index).
    unsafe { load(k.rk[r].as_ptr()) }
}

/// Encrypts one block with a key of any size.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn aes_block(k: &XKey, b: __m128i) -> __m128i {
    let rounds = k.rounds as usize;
    // SAFETY: features enabled; indices ≤ rounds ≤ 14.
    unsafe {
        let mut b = _mm_xor_si128(b, rk(k, 0));
        for r in 1..rounds {
            b = _mm_aesenc_si128(b, rk(k, r));
        }
        _mm_aesenclast_si128(b, rk(k, rounds))
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn encrypt_block(k: &XKey, block: &mut [u8; 16]) {
    // SAFETY: features enabled; `block` is 16 bytes.
    unsafe { store(block.as_mut_ptr(), aes_block(k, load(block.as_ptr()))) }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn encrypt_block2(k: &XKey, a: &mut [u8; 16], b: &mut [u8; 16]) {
    let rounds = k.rounds as usize;
    // SAFETY: features enabled; 16-byte blocks; indices ≤ rounds ≤ 14.
    unsafe {
        let key = rk(k, 0);
        let mut x = _mm_xor_si128(load(a.as_ptr()), key);
        let mut y = _mm_xor_si128(load(b.as_ptr()), key);
        for r in 1..rounds {
            let key = rk(k, r);
            x = _mm_aesenc_si128(x, key);
            y = _mm_aesenc_si128(y, key);
        }
        let key = rk(k, rounds);
        store(a.as_mut_ptr(), _mm_aesenclast_si128(x, key));
        store(b.as_mut_ptr(), _mm_aesenclast_si128(y, key));
    }
}

/// POLYVAL's x^128 + x^127 + x^126 + x^121 + 1 without x^128: high half 0xc2 << 56,
/// low half 1.
#[inline(always)]
unsafe fn poly() -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 1) }
}

/// Montgomery reduction: (hi·x^128 + lo)·x^-128 mod P. Each step multiplies the low
/// 64 bits by 0xc2 << 56 and folds them into the next 64 (the swap moves them up), so
/// after two steps the low 128 bits are zero (Gueron's two-multiplication reduction).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let p = poly();
        let t = _mm_clmulepi64_si128::<0x10>(lo, p);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x10>(lo, p);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(hi, lo)
    }
}

/// Karatsuba accumulators of an unreduced 256-bit sum of products.
#[derive(Clone, Copy)]
pub(super) struct Acc {
    pub(super) lo: __m128i,
    pub(super) mid: __m128i,
    pub(super) hi: __m128i,
}

impl Acc {
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn new() -> Acc {
        let z = _mm_setzero_si128();
        Acc {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Adds x·h; `hk` holds lo ^ hi of h in its low half.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    #[allow(unused_unsafe)] // intrinsics are safe here from Rust 1.86 on, not in 1.85
    pub(super) unsafe fn mul_add(&mut self, x: __m128i, h: __m128i, hk: __m128i) {
        // SAFETY: features enabled.
        unsafe {
            let xk = _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x));
            self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128::<0x00>(x, h));
            self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128::<0x11>(x, h));
            self.mid = _mm_xor_si128(self.mid, _mm_clmulepi64_si128::<0x00>(xk, hk));
        }
    }

    /// Folds the middle term in and reduces: the POLYVAL product.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn reduce(self) -> __m128i {
        // SAFETY: features enabled.
        unsafe {
            let mid = _mm_xor_si128(self.mid, _mm_xor_si128(self.lo, self.hi));
            let lo = _mm_xor_si128(self.lo, _mm_slli_si128::<8>(mid));
            let hi = _mm_xor_si128(self.hi, _mm_srli_si128::<8>(mid));
            reduce(lo, hi)
        }
    }
}

/// POLYVAL product a·b·x^-128 (key setup only).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn dot(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let lo = _mm_clmulepi64_si128::<0x00>(a, b);
        let hi = _mm_clmulepi64_si128::<0x11>(a, b);
        let mid = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x01>(a, b),
            _mm_clmulepi64_si128::<0x10>(a, b),
        );
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        reduce(lo, hi)
    }
}

/// POLYVAL's mulX: a 128-bit shift left by one, adding P back when bit 127 falls out
/// (without a branch: the mask comes from an arithmetic shift of the top bit).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn mul_x(v: __m128i) -> __m128i {
    // SAFETY: features enabled.
    unsafe {
        let carry = _mm_srli_epi64::<63>(v);
        let shifted = _mm_or_si128(_mm_slli_epi64::<1>(v), _mm_slli_si128::<8>(carry));
        let top = _mm_shuffle_epi32::<0xff>(_mm_srai_epi32::<31>(v));
        _mm_xor_si128(shifted, _mm_and_si128(top, poly()))
    }
}

/// The GCM counter block as kept in registers: byte-reversed, so the 32-bit counter is
/// lane 0 and inc32 is a `paddd`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr_to_native(ctr: &[u8; 16]) -> __m128i {
    // SAFETY: features enabled; 16-byte block.
    unsafe { _mm_shuffle_epi8(load(ctr.as_ptr()), bswap_mask()) }
}

#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr_from_native(c: __m128i, ctr: &mut [u8; 16]) {
    // SAFETY: features enabled; 16-byte block.
    unsafe { store(ctr.as_mut_ptr(), _mm_shuffle_epi8(c, bswap_mask())) }
}

/// Counter block `c + i` (inc32 semantics) in GCM byte order.
#[inline(always)]
pub(super) unsafe fn ctr_block(c: __m128i, i: u32) -> __m128i {
    // SAFETY: only inlined into functions with ssse3 enabled.
    unsafe { _mm_shuffle_epi8(_mm_add_epi32(c, _mm_cvtsi32_si128(i as i32)), bswap_mask()) }
}

// ------------------------------------------------------------------ key setup

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn init(k: &mut XKey, key: &[u8]) {
    // SAFETY: features enabled on this function.
    unsafe {
        expand_key(k, key);
        let h = aes_block(k, _mm_setzero_si128());
        let h1 = mul_x(_mm_shuffle_epi8(h, bswap_mask()));
        let mut p = h1;
        for i in (0..16).rev() {
            store(k.h[i].as_mut_ptr(), p);
            let fold = _mm_xor_si128(p, _mm_shuffle_epi32::<0x4e>(p));
            store(k.hk[i].as_mut_ptr(), fold);
            p = dot(p, h1);
        }
    }
}

/// The shared FIPS-197 key expansion (`aes_schedule.rs`) with SubWord on the AES unit.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
#[allow(unused_unsafe)] // intrinsics are safe here from Rust 1.86 on, not in 1.85
unsafe fn expand_key(k: &mut XKey, key: &[u8]) {
    let sub_word = |x: u32| -> u32 {
        // SAFETY: the enclosing function enables the AES instructions.
        unsafe {
            _mm_cvtsi128_si32(_mm_aesenclast_si128(
                _mm_set1_epi32(x as i32),
                _mm_setzero_si128(),
            )) as u32
        }
    };
    k.rounds = crate::backend::aes_schedule::expand_with(key, sub_word, &mut k.rk) as u64;
}

// ------------------------------------------------------------------ stitched kernels

/// One group: AES-CTR on eight blocks with the eight GHASH multiplications slotted
/// between the AES rounds and the reduction after the last one. The blocks hashed are
/// the input (decryption) or `prev`, the previous group's ciphertext (encryption, which
/// then leaves this group's byte-reversed ciphertext in `prev`). `HASH` = false only for
/// the encryption prologue.
#[inline(always)]
unsafe fn stitched<const R: usize, const ENC: bool, const HASH: bool>(
    k: &XKey,
    ctr: &mut __m128i,
    y: &mut __m128i,
    prev: &mut [__m128i; GROUP],
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY (whole body): only inlined into the `aes,pclmulqdq,ssse3,sse4.1` kernels;
    // `src`/`dst` hold 128 bytes (caller's contract); indices are constants < 16.
    unsafe {
        let bs = bswap_mask();
        let c = *ctr;
        let k0 = rk(k, 0);
        let mut b: [__m128i; GROUP] =
            core::array::from_fn(|i| _mm_xor_si128(ctr_block(c, i as u32), k0));
        *ctr = _mm_add_epi32(c, _mm_cvtsi32_si128(GROUP as i32));
        let mut acc = Acc::new();
        // Spelled out round by round so that the GHASH steps interleave with the AES
        // rounds; `r < R` is decided at compile time.
        macro_rules! rounds {
            ($($r:literal)*) => {$(
                if $r < R {
                    let key = rk(k, $r);
                    for blk in b.iter_mut() {
                        *blk = _mm_aesenc_si128(*blk, key);
                    }
                    if HASH && $r <= GROUP {
                        let i = $r - 1;
                        let x = if ENC {
                            prev[i]
                        } else {
                            _mm_shuffle_epi8(load(src.add(16 * i)), bs)
                        };
                        let x = if i == 0 { _mm_xor_si128(x, *y) } else { x };
                        acc.mul_add(x, load(k.h[8 + i].as_ptr()), load(k.hk[8 + i].as_ptr()));
                    }
                    if $r + 1 < R {
                        barrier(&mut b, &mut acc);
                    }
                }
            )*};
        }
        rounds!(1 2 3 4 5 6 7 8 9 10 11 12 13);
        if HASH {
            *y = acc.reduce();
        }
        let last = rk(k, R);
        for (i, blk) in b.iter().enumerate() {
            let x = load(src.add(16 * i));
            let o = _mm_xor_si128(_mm_aesenclast_si128(*blk, last), x);
            store(dst.add(16 * i), o);
            if ENC {
                prev[i] = _mm_shuffle_epi8(o, bs);
            }
        }
    }
}

/// Keeps LLVM's scheduler from regrouping the stitched loop block by block (which turned
/// eight independent AES chains into two at a time, latency-bound): an empty `asm!` that
/// takes and returns all eight blocks and the GHASH accumulators, so round r of every
/// block, and the GHASH step slotted after it, come before round r + 1 of any block.
/// It emits no instruction.
#[inline(always)]
unsafe fn barrier(b: &mut [__m128i; GROUP], acc: &mut Acc) {
    // SAFETY: an empty asm block; it only pins values in registers.
    unsafe {
        core::arch::asm!("/* {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} */",
            inout(xmm_reg) b[0], inout(xmm_reg) b[1], inout(xmm_reg) b[2],
            inout(xmm_reg) b[3], inout(xmm_reg) b[4], inout(xmm_reg) b[5],
            inout(xmm_reg) b[6], inout(xmm_reg) b[7],
            inout(xmm_reg) acc.lo, inout(xmm_reg) acc.mid, inout(xmm_reg) acc.hi,
            options(pure, nomem, nostack, preserves_flags));
    }
}

/// The stitched loop over `groups` ≥ 1 groups of eight blocks (see the file comment).
#[inline(always)]
unsafe fn crypt_groups<const R: usize, const ENC: bool>(
    k: &XKey,
    ctr: &mut __m128i,
    y: &mut __m128i,
    mut src: *const u8,
    mut dst: *mut u8,
    groups: usize,
) {
    // SAFETY (whole body): only inlined into the kernels below; `src`/`dst` hold
    // 128*groups bytes (caller's contract).
    unsafe {
        let mut prev = [_mm_setzero_si128(); GROUP];
        let mut left = groups;
        if ENC {
            stitched::<R, true, false>(k, ctr, y, &mut prev, src, dst);
            src = src.add(16 * GROUP);
            dst = dst.add(16 * GROUP);
            left -= 1;
        }
        while left > 0 {
            stitched::<R, ENC, true>(k, ctr, y, &mut prev, src, dst);
            src = src.add(16 * GROUP);
            dst = dst.add(16 * GROUP);
            left -= 1;
        }
        if ENC {
            *y = ghash_regs(k, *y, &prev);
        }
    }
}

/// GHASH of eight byte-reversed blocks held in registers, with H^8..H^1.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_regs(k: &XKey, y: __m128i, x: &[__m128i; GROUP]) -> __m128i {
    // SAFETY: features enabled; constant indices < 16.
    unsafe {
        let mut acc = Acc::new();
        for (i, v) in x.iter().enumerate() {
            let v = if i == 0 { _mm_xor_si128(*v, y) } else { *v };
            acc.mul_add(v, load(k.h[8 + i].as_ptr()), load(k.hk[8 + i].as_ptr()));
        }
        acc.reduce()
    }
}

macro_rules! kernels {
    ($($name:ident, $rounds:literal, $enc:literal;)*) => {$(
        /// Stitched steady-state loop for one key size and direction.
        #[inline(never)]
        #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
        unsafe fn $name(
            k: &XKey,
            ctr: &mut __m128i,
            y: &mut __m128i,
            src: *const u8,
            dst: *mut u8,
            groups: usize,
        ) {
            // SAFETY: forwarded contract; features enabled on this function.
            unsafe { crypt_groups::<$rounds, $enc>(k, ctr, y, src, dst, groups) }
        }
    )*};
}

kernels! {
    kernel_enc_aes128, 10, true;
    kernel_enc_aes192, 12, true;
    kernel_enc_aes256, 14, true;
    kernel_dec_aes128, 10, false;
    kernel_dec_aes192, 12, false;
    kernel_dec_aes256, 14, false;
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt<const ENC: bool>(
    k: &XKey,
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
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        crypt_native::<ENC>(k, &mut c, &mut acc, src, dst, blocks, j0);
        ctr_from_native(c, ctr);
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}

/// [`crypt`] on the register forms of the counter and the GHASH state (the VAES backend
/// hands its remainders of fewer than sixteen blocks to this).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn crypt_native<const ENC: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
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
            f(k, c, acc, src, dst, groups);
        }
        let done = groups * GROUP;
        if done < blocks || j0.is_some() {
            crypt_tail::<ENC>(
                k,
                c,
                acc,
                src.add(16 * done),
                dst.add(16 * done),
                blocks - done,
                j0,
            );
        }
    }
}

/// The last 0..=7 whole blocks (all of a short message) and `j0` when given: dispatches
/// on the (public) block count to a kernel compiled for exactly that many lanes, so the
/// lanes live in registers (with a run-time count LLVM kept them in a stack array, and
/// every round went through a store and a reload).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn crypt_tail<const ENC: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    debug_assert!(n < GROUP);
    type Tail = unsafe fn(&XKey, &mut __m128i, &mut __m128i, *const u8, *mut u8, *mut u8);
    macro_rules! pick {
        ($($n:literal)*) => {
            match (n, j0.is_some()) {
                $(($n, false) => tail_n::<ENC, $n, false> as Tail,
                  ($n, true) => tail_n::<ENC, $n, true> as Tail,)*
                _ => return,
            }
        };
    }
    let f = pick!(0 1 2 3 4 5 6 7);
    let j = match j0 {
        Some(j) => j.as_mut_ptr(),
        None => core::ptr::null_mut(),
    };
    // SAFETY: forwarded contract (`src`/`dst` hold 16*n bytes); `j` is a 16-byte block
    // exactly when `J` is true; features enabled.
    unsafe { f(k, c, acc, src, dst, j) }
}

/// [`crypt_tail`] for `N` blocks plus, if `J`, the block at `j0` encrypted in place as
/// one more lane: AES round-major over all lanes (they overlap in the pipeline), GHASH
/// aggregated with H^N..H^1 and reduced once. `acc` is the POLYVAL-domain state.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tail_n<const ENC: bool, const N: usize, const J: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    j0: *mut u8,
) {
    // SAFETY: `src`/`dst` hold 16*N bytes and `j0` 16 bytes if `J` (caller's contract);
    // features enabled; lane indices are < N + 1 ≤ 8 and round indices ≤ rounds ≤ 14.
    unsafe {
        let lanes = N + J as usize;
        let key = rk(k, 0);
        let mut ks = [_mm_setzero_si128(); GROUP];
        for (i, b) in ks.iter_mut().enumerate().take(N) {
            *b = _mm_xor_si128(ctr_block(*c, i as u32), key);
        }
        *c = _mm_add_epi32(*c, _mm_cvtsi32_si128(N as i32));
        if J {
            ks[N] = _mm_xor_si128(load(j0), key);
        }
        let rounds = k.rounds as usize;
        for r in 1..rounds {
            let key = rk(k, r);
            for b in ks.iter_mut().take(lanes) {
                *b = _mm_aesenc_si128(*b, key);
            }
        }
        let last = rk(k, rounds);
        if J {
            store(j0, _mm_aesenclast_si128(ks[N], last));
        }
        if N == 0 {
            return;
        }
        let bs = bswap_mask();
        let mut sum = Acc::new();
        for (i, b) in ks.iter().enumerate().take(N) {
            let x = load(src.add(16 * i));
            let o = _mm_xor_si128(_mm_aesenclast_si128(*b, last), x);
            store(dst.add(16 * i), o);
            let mut h = _mm_shuffle_epi8(if ENC { o } else { x }, bs);
            if i == 0 {
                h = _mm_xor_si128(h, *acc);
            }
            let p = 16 - N + i;
            sum.mul_add(h, load(k.h[p].as_ptr()), load(k.hk[p].as_ptr()));
        }
        *acc = sum.reduce();
    }
}

/// GHASH of 1..=16 blocks aggregated with H^n..H^1 and one reduction; `acc` is the
/// POLYVAL-domain state. Dispatches to a kernel compiled for exactly `n` blocks.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ghash_n(k: &XKey, acc: __m128i, data: *const u8, n: usize) -> __m128i {
    debug_assert!((1..=16).contains(&n));
    type Ghash = unsafe fn(&XKey, __m128i, *const u8) -> __m128i;
    macro_rules! pick {
        ($($n:literal)*) => {
            match n {
                $($n => ghash_const::<$n> as Ghash,)*
                _ => return acc,
            }
        };
    }
    let f = pick!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    // SAFETY: forwarded contract; features enabled.
    unsafe { f(k, acc, data) }
}

#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_const<const N: usize>(k: &XKey, acc: __m128i, data: *const u8) -> __m128i {
    // SAFETY: `data` holds 16*N bytes (caller's contract); features enabled; N ≤ 16.
    unsafe {
        let bs = bswap_mask();
        let mut sum = Acc::new();
        for i in 0..N {
            let mut x = _mm_shuffle_epi8(load(data.add(16 * i)), bs);
            if i == 0 {
                x = _mm_xor_si128(x, acc);
            }
            let p = 16 - N + i;
            sum.mul_add(x, load(k.h[p].as_ptr()), load(k.hk[p].as_ptr()));
        }
        sum.reduce()
    }
}

/// GHASH-only steady state: sixteen blocks per iteration with H^16..H^1, one reduction.
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn kernel_ghash(k: &XKey, y: &mut __m128i, mut data: *const u8, iterations: usize) {
    // SAFETY: `data` holds 256*iterations bytes (caller's contract); features enabled.
    unsafe {
        let bs = bswap_mask();
        let mut acc = *y;
        for _ in 0..iterations {
            let mut sum = Acc::new();
            for i in 0..16 {
                let mut x = _mm_shuffle_epi8(load(data.add(16 * i)), bs);
                if i == 0 {
                    x = _mm_xor_si128(x, acc);
                }
                sum.mul_add(x, load(k.h[i].as_ptr()), load(k.hk[i].as_ptr()));
            }
            acc = sum.reduce();
            data = data.add(256);
        }
        *y = acc;
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash(k: &XKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let iterations = blocks / 16;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(256 * iterations);
        }
        let left = blocks % 16;
        if left > 0 {
            acc = ghash_n(k, acc, data, left);
        }
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr_only(
    k: &XKey,
    ctr: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled;
    // round-key indices ≤ rounds ≤ 14.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let rounds = k.rounds as usize;
        let mut i = 0;
        while i < blocks {
            let n = (blocks - i).min(GROUP);
            let mut b = [_mm_setzero_si128(); GROUP];
            let k0 = rk(k, 0);
            for (j, blk) in b.iter_mut().enumerate().take(n) {
                *blk = _mm_xor_si128(ctr_block(c, j as u32), k0);
            }
            c = _mm_add_epi32(c, _mm_cvtsi32_si128(n as i32));
            for r in 1..rounds {
                let key = rk(k, r);
                for blk in b.iter_mut().take(n) {
                    *blk = _mm_aesenc_si128(*blk, key);
                }
            }
            let last = rk(k, rounds);
            for (j, blk) in b.iter().enumerate().take(n) {
                let x = load(src.add(16 * (i + j)));
                store(
                    dst.add(16 * (i + j)),
                    _mm_xor_si128(_mm_aesenclast_si128(*blk, last), x),
                );
            }
            i += n;
        }
        ctr_from_native(c, ctr);
    }
}
