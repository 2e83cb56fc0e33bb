//! `x86_64-vaes`: AES-GCM with VAES and VPCLMULQDQ on 256-bit (AVX2) registers.
//!
//! Same method as `x86_64-aesni` (see that file: stitched CTR + GHASH, POLYVAL-domain
//! GHASH with Karatsuba and one Montgomery reduction per group, key layout and key setup
//! shared), widened as Drucker, Gueron and Krasnov describe for the vectorized
//! instructions ("Fast multiplication of binary polynomials with the forthcoming
//! vectorized VPCLMULQDQ instruction", ARITH 2018; "Making AES great again: the
//! forthcoming vectorized AES instruction", ITNG 2019): a 256-bit register holds two
//! blocks, so one VAESENC runs a round on two blocks and one VPCLMULQDQ forms two 64×64
//! products. An iteration covers sixteen blocks (eight registers): AES-CTR on sixteen
//! counter blocks, and GHASH of sixteen blocks with H^16..H^1 (two neighbouring powers
//! per register, block 2j in the low lane takes the higher power) and one reduction.
//!
//! Measured on the Zen 4 this was written on: VAESENC ymm issues twice per cycle,
//! VPCLMULQDQ (xmm or ymm) once every two cycles, both with latency 4; the 256-bit forms
//! therefore double both rates. The AES and the carry-less multiplies barely overlap
//! there: the stitched loop (≈ 92 cycles per 16 blocks, AES-128) costs about the sum of
//! its CTR part (≈ 53) and its GHASH part (≈ 53), and a hand-scheduled assembly loop
//! with the same instruction mix ran no faster (≈ 97), so the shuffles, XORs and
//! multiplies per block are what bound it, not LLVM's schedule.
//!
//! Decryption hashes the ciphertext it decrypts. Encryption hashes the previous
//! iteration's ciphertext, read back from `dst` where it was just stored (there are not
//! enough ymm registers to keep sixteen blocks of it), while it encrypts the next one.
//!
//! Rust 1.85 (the MSRV) has neither the `vaes`/`vpclmulqdq` target features nor the
//! 256-bit AES/CLMUL intrinsics stable, so those two instructions are one-instruction
//! `asm!` wrappers (pure, register-only, so LLVM still schedules them); the features are
//! detected from CPUID leaf 7 (ECX bit 9 VAES, bit 10 VPCLMULQDQ), and OS support of the
//! ymm state comes with `is_x86_feature_detected!("avx2")`. Everything else is AVX2
//! intrinsics. Constant time by construction, as `x86_64-aesni`.
//!
//! Remainders of fewer than sixteen blocks and short messages run round-major in one
//! go (`tail_n`, compiled per block count): block pairs in ymm registers, an odd last
//! block and E(K, J0) in xmm registers beside them, then one aggregated GHASH with
//! H^n..H^1 and one reduction; GHASH-only remainders likewise (`ghash_tail_n`).
//! Single blocks and the CTR-only remainder use the `x86_64-aesni` code.

use super::aesni::{self as ni, XKey};
use crate::backend::{Backend, Direction, Material};
use core::arch::x86_64::*;

/// The backend.
pub(crate) struct X86Vaes;

/// Blocks per iteration of the main loops.
const WIDE: usize = 16;

/// Cached: CPUID is slow in a virtual machine (it traps to the hypervisor, ~µs), and keys
/// set up in caller memory ask on every call.
fn vaes_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(detect_vaes)
}

fn detect_vaes() -> bool {
    if !ni::aesni_available() || !std::arch::is_x86_feature_detected!("avx2") {
        return false;
    }
    #[allow(unused_unsafe)] // `__cpuid*` are safe functions in newer Rust, not in 1.85
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 7 is only read when the maximum
    // basic leaf reaches it.
    unsafe {
        if __get_cpuid_max(0).0 < 7 {
            return false;
        }
        let ecx = __cpuid_count(7, 0).ecx;
        ecx & (1 << 9) != 0 && ecx & (1 << 10) != 0
    }
}

impl Backend for X86Vaes {
    const NAME: &'static core::ffi::CStr = c"x86_64-vaes";

    fn is_available() -> bool {
        vaes_available()
    }

    fn init(m: &mut Material, key: &[u8]) {
        // SAFETY: only reached when `is_available()` (the mode checks before init).
        unsafe { ni::init(m.view_mut(), key) }
    }

    fn encrypt_block(m: &Material, block: &mut [u8; 16]) {
        // SAFETY: CPU support checked when the key was made.
        unsafe { ni::encrypt_block(m.view(), block) }
    }

    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        // SAFETY: CPU support checked when the key was made.
        unsafe { ni::encrypt_block2(m.view(), a, b) }
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

/// One VAESENC round on two blocks.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn aesenc(b: __m256i, k: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: register-only VAESENC; only inlined into `avx2` kernels that run after
    // `vaes_available()` said yes.
    unsafe {
        core::arch::asm!("vaesenc {r}, {b}, {k}",
            r = lateout(ymm_reg) r, b = in(ymm_reg) b, k = in(ymm_reg) k,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The last AES round (no MixColumns) on two blocks.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn aesenclast(b: __m256i, k: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: as in `aesenc`.
    unsafe {
        core::arch::asm!("vaesenclast {r}, {b}, {k}",
            r = lateout(ymm_reg) r, b = in(ymm_reg) b, k = in(ymm_reg) k,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// Two carry-less 64×64 products, one per 128-bit lane; `IMM` picks the halves as for
/// PCLMULQDQ.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn clmul<const IMM: u8>(a: __m256i, b: __m256i) -> __m256i {
    let r: __m256i;
    // SAFETY: register-only VPCLMULQDQ; only inlined into `avx2` kernels that run
    // after `vaes_available()` (which checks VPCLMULQDQ) said yes.
    unsafe {
        core::arch::asm!("vpclmulqdq {r}, {a}, {b}, {imm}",
            r = lateout(ymm_reg) r, a = in(ymm_reg) a, b = in(ymm_reg) b, imm = const IMM,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

#[inline(always)]
unsafe fn load256(p: *const u8) -> __m256i {
    // SAFETY: caller guarantees 32 readable bytes; unaligned load; `avx` callers only.
    unsafe { _mm256_loadu_si256(p as *const __m256i) }
}

#[inline(always)]
unsafe fn store256(p: *mut u8, v: __m256i) {
    // SAFETY: caller guarantees 32 writable bytes; unaligned store; `avx` callers only.
    unsafe { _mm256_storeu_si256(p as *mut __m256i, v) }
}

/// Karatsuba accumulators, two lanes each.
#[derive(Clone, Copy)]
struct Acc2 {
    lo: __m256i,
    mid: __m256i,
    hi: __m256i,
}

impl Acc2 {
    #[inline(always)]
    unsafe fn zero() -> Acc2 {
        // SAFETY: only inlined into `avx2` kernels.
        unsafe {
            Acc2 {
                lo: _mm256_setzero_si256(),
                mid: _mm256_setzero_si256(),
                hi: _mm256_setzero_si256(),
            }
        }
    }

    /// Adds x·h lane by lane (two blocks, two key powers); `hk` holds lo ^ hi of each
    /// lane's power in its low half.
    #[inline(always)]
    unsafe fn mul_add(&mut self, x: __m256i, h: __m256i, hk: __m256i) {
        // SAFETY: only inlined into `avx2` kernels.
        unsafe {
            let xk = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
            self.lo = _mm256_xor_si256(self.lo, clmul::<0x00>(x, h));
            self.hi = _mm256_xor_si256(self.hi, clmul::<0x11>(x, h));
            self.mid = _mm256_xor_si256(self.mid, clmul::<0x00>(xk, hk));
        }
    }

    /// Adds the two lanes together and reduces: the POLYVAL-domain result.
    #[inline(always)]
    unsafe fn reduce(self) -> __m128i {
        // SAFETY: only inlined into `avx2,pclmulqdq` kernels.
        unsafe {
            ni::Acc {
                lo: fold(self.lo),
                mid: fold(self.mid),
                hi: fold(self.hi),
            }
            .reduce()
        }
    }
}

/// The sum of the two lanes.
#[inline(always)]
unsafe fn fold(v: __m256i) -> __m128i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
}

/// Entries 2j and 2j + 1 of a table of the key (`h` or `hk`) as one register.
#[inline(always)]
unsafe fn key_pair(t: &[[u8; 16]; 16], j: usize) -> __m256i {
    debug_assert!(j < 8);
    // SAFETY: j < 8, so the 32 bytes read lie inside `t`; `avx` callers only.
    unsafe { load256(t.as_ptr().add(2 * j) as *const u8) }
}

/// `vpshufb` mask reversing each 128-bit lane.
#[inline(always)]
unsafe fn bswap256() -> __m256i {
    // SAFETY: only inlined into `avx2` kernels.
    unsafe { _mm256_broadcastsi128_si256(ni::bswap_mask()) }
}

/// GHASH of sixteen blocks at `data` into the POLYVAL-domain `y`, H^16..H^1, one
/// reduction.
#[inline(always)]
unsafe fn ghash16(k: &XKey, y: __m128i, data: *const u8) -> __m128i {
    // SAFETY: only inlined into `avx2,pclmulqdq` kernels; `data` holds 256 bytes
    // (caller's contract); key indices are constants < 16.
    unsafe {
        let bs = bswap256();
        let mut acc = Acc2 {
            lo: _mm256_setzero_si256(),
            mid: _mm256_setzero_si256(),
            hi: _mm256_setzero_si256(),
        };
        for j in 0..WIDE / 2 {
            let mut x = _mm256_shuffle_epi8(load256(data.add(32 * j)), bs);
            if j == 0 {
                x = _mm256_xor_si256(x, _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), y));
            }
            acc.mul_add(x, key_pair(&k.h, j), key_pair(&k.hk, j));
        }
        acc.reduce()
    }
}

// ------------------------------------------------------------------ stitched kernels

/// Keeps LLVM from regrouping the round-major AES work block by block (see the same
/// barrier in `x86_64-aesni`): pins the eight block registers and the accumulators
/// between rounds. Emits no instruction.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn barrier(b: &mut [__m256i; WIDE / 2], acc: &mut Acc2) {
    // SAFETY: an empty asm block; it only pins values in registers.
    unsafe {
        core::arch::asm!("/* {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} */",
            inout(ymm_reg) b[0], inout(ymm_reg) b[1], inout(ymm_reg) b[2],
            inout(ymm_reg) b[3], inout(ymm_reg) b[4], inout(ymm_reg) b[5],
            inout(ymm_reg) b[6], inout(ymm_reg) b[7],
            inout(ymm_reg) acc.lo, inout(ymm_reg) acc.mid, inout(ymm_reg) acc.hi,
            options(pure, nomem, nostack, preserves_flags));
    }
}

/// One iteration: AES-CTR on sixteen blocks with the eight two-block GHASH steps
/// slotted after the first eight rounds and the reduction after the ninth. Hashes `src`
/// (decryption) or `prev`, the previous iteration's ciphertext (encryption); `HASH` =
/// false only for the encryption prologue.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn stitched<const R: usize, const ENC: bool, const HASH: bool>(
    k: &XKey,
    rk: &[__m256i; 15],
    ctr: &mut __m128i,
    y: &mut __m128i,
    prev: *const u8,
    src: *const u8,
    dst: *mut u8,
) {
    // SAFETY (whole body): only inlined into the `avx2,aes,pclmulqdq` kernels;
    // `src`/`dst` (and `prev` when hashing in encryption) hold 256 bytes (caller's
    // contract); indices are constants < 16.
    unsafe {
        let bs = bswap256();
        let c = _mm256_add_epi32(
            _mm256_broadcastsi128_si256(*ctr),
            _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
        );
        let mut b: [__m256i; WIDE / 2] = core::array::from_fn(|j| {
            let cj = _mm256_add_epi32(
                c,
                _mm256_set_epi32(0, 0, 0, 2 * j as i32, 0, 0, 0, 2 * j as i32),
            );
            _mm256_xor_si256(_mm256_shuffle_epi8(cj, bs), rk[0])
        });
        *ctr = _mm_add_epi32(*ctr, _mm_cvtsi32_si128(WIDE as i32));
        let mut acc = Acc2 {
            lo: _mm256_setzero_si256(),
            mid: _mm256_setzero_si256(),
            hi: _mm256_setzero_si256(),
        };
        let hashed = if ENC { prev } else { src };
        macro_rules! rounds {
            ($($r:literal)*) => {$(
                if $r < R {
                    for blk in b.iter_mut() {
                        *blk = aesenc(*blk, rk[$r]);
                    }
                    if HASH && $r <= WIDE / 2 {
                        let j = $r - 1;
                        let mut x = _mm256_shuffle_epi8(load256(hashed.add(32 * j)), bs);
                        if j == 0 {
                            x = _mm256_xor_si256(
                                x,
                                _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), *y),
                            );
                        }
                        acc.mul_add(x, key_pair(&k.h, j), key_pair(&k.hk, j));
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
        for (j, blk) in b.iter().enumerate() {
            let x = load256(src.add(32 * j));
            store256(
                dst.add(32 * j),
                _mm256_xor_si256(aesenclast(*blk, rk[R]), x),
            );
        }
    }
}

/// The stitched loop over `iterations` ≥ 1 sixteen-block iterations.
#[inline(always)]
unsafe fn crypt_wide<const R: usize, const ENC: bool>(
    k: &XKey,
    ctr: &mut __m128i,
    y: &mut __m128i,
    mut src: *const u8,
    mut dst: *mut u8,
    iterations: usize,
) {
    // SAFETY (whole body): only inlined into the kernels below; `src`/`dst` hold
    // 256*iterations bytes (caller's contract).
    unsafe {
        let rk: [__m256i; 15] = core::array::from_fn(|r| {
            _mm256_broadcastsi128_si256(ni::load(k.rk[r.min(R)].as_ptr()))
        });
        let mut left = iterations;
        if ENC {
            stitched::<R, true, false>(k, &rk, ctr, y, dst, src, dst);
            src = src.add(16 * WIDE);
            dst = dst.add(16 * WIDE);
            left -= 1;
        }
        while left > 0 {
            // Encryption hashes the ciphertext stored by the previous iteration.
            let prev = dst.wrapping_sub(16 * WIDE) as *const u8;
            stitched::<R, ENC, true>(k, &rk, ctr, y, prev, src, dst);
            src = src.add(16 * WIDE);
            dst = dst.add(16 * WIDE);
            left -= 1;
        }
        if ENC {
            *y = ghash16(k, *y, dst.sub(16 * WIDE));
        }
    }
}

macro_rules! kernels {
    ($($name:ident, $rounds:literal, $enc:literal;)*) => {$(
        /// Stitched sixteen-block steady-state loop for one key size and direction.
        #[inline(never)]
        #[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
        unsafe fn $name(
            k: &XKey,
            ctr: &mut __m128i,
            y: &mut __m128i,
            src: *const u8,
            dst: *mut u8,
            iterations: usize,
        ) {
            // SAFETY: forwarded contract; features enabled on this function (VAES and
            // VPCLMULQDQ checked by `vaes_available`).
            unsafe { crypt_wide::<$rounds, $enc>(k, ctr, y, src, dst, iterations) }
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

#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt<const ENC: bool>(
    k: &XKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
        let mut c = ni::ctr_to_native(ctr);
        let mut acc = _mm_shuffle_epi8(ni::load(y.as_ptr()), ni::bswap_mask());
        let iterations = blocks / WIDE;
        if iterations > 0 {
            let f = match (k.rounds, ENC) {
                (10, true) => kernel_enc_aes128,
                (12, true) => kernel_enc_aes192,
                (_, true) => kernel_enc_aes256,
                (10, false) => kernel_dec_aes128,
                (12, false) => kernel_dec_aes192,
                (_, false) => kernel_dec_aes256,
            };
            f(k, &mut c, &mut acc, src, dst, iterations);
            src = src.add(16 * WIDE * iterations);
            dst = dst.add(16 * WIDE * iterations);
        }
        let left = blocks % WIDE;
        if left > 0 || j0.is_some() {
            crypt_tail::<ENC>(k, &mut c, &mut acc, src, dst, left, j0);
        }
        ni::ctr_from_native(c, ctr);
        ni::store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, ni::bswap_mask()));
    }
}

/// The last 0..=15 blocks (all of a short message) and `j0` when given: dispatches on
/// the (public) block count to [`tail_n`], compiled for exactly that many blocks so the
/// lanes stay in registers.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt_tail<const ENC: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    debug_assert!(n < WIDE);
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
    let f = pick!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    let j = match j0 {
        Some(j) => j.as_mut_ptr(),
        None => core::ptr::null_mut(),
    };
    // SAFETY: forwarded contract (`src`/`dst` hold 16*n bytes); `j` is a 16-byte block
    // exactly when `J` is true; features enabled.
    unsafe { f(k, c, acc, src, dst, j) }
}

/// `N` blocks, round-major: pairs in ymm registers, an odd last block and `j0` (if `J`,
/// encrypted in place) in xmm registers beside them; then GHASH of the `N` blocks with
/// H^N..H^1 (pairs on VPCLMULQDQ) and one reduction. `acc` is the POLYVAL-domain state.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tail_n<const ENC: bool, const N: usize, const J: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    j0: *mut u8,
) {
    // SAFETY: `src`/`dst` hold 16*N bytes and `j0` 16 bytes if `J` (caller's contract);
    // features enabled; pair indices < N/2 ≤ 7, key-table indices 16-N+2j+1 ≤ 15 and
    // round indices ≤ rounds ≤ 14.
    unsafe {
        let pairs = N / 2;
        let odd = N % 2 == 1;
        let bs = bswap256();
        let rounds = k.rounds as usize;
        let k0 = ni::rk(k, 0);
        let k0y = _mm256_broadcastsi128_si256(k0);
        let cy = _mm256_add_epi32(
            _mm256_broadcastsi128_si256(*c),
            _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
        );
        let mut b = [_mm256_setzero_si256(); WIDE / 2];
        for (j, blk) in b.iter_mut().enumerate().take(pairs) {
            let inc = _mm256_set_epi32(0, 0, 0, 2 * j as i32, 0, 0, 0, 2 * j as i32);
            *blk = _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(cy, inc), bs), k0y);
        }
        let mut last_blk = _mm_setzero_si128();
        if odd {
            last_blk = _mm_xor_si128(ni::ctr_block(*c, N as u32 - 1), k0);
        }
        *c = _mm_add_epi32(*c, _mm_cvtsi32_si128(N as i32));
        let mut jb = _mm_setzero_si128();
        if J {
            jb = _mm_xor_si128(ni::load(j0), k0);
        }
        for r in 1..rounds {
            let key = ni::rk(k, r);
            let key_y = _mm256_broadcastsi128_si256(key);
            for blk in b.iter_mut().take(pairs) {
                *blk = aesenc(*blk, key_y);
            }
            if odd {
                last_blk = _mm_aesenc_si128(last_blk, key);
            }
            if J {
                jb = _mm_aesenc_si128(jb, key);
            }
        }
        let kl = ni::rk(k, rounds);
        let kl_y = _mm256_broadcastsi128_si256(kl);
        if J {
            ni::store(j0, _mm_aesenclast_si128(jb, kl));
        }
        if N == 0 {
            return;
        }
        let mut wide = Acc2::zero();
        let h = k.h.as_ptr() as *const u8;
        let hk = k.hk.as_ptr() as *const u8;
        for (j, blk) in b.iter().enumerate().take(pairs) {
            let x = load256(src.add(32 * j));
            let o = _mm256_xor_si256(aesenclast(*blk, kl_y), x);
            store256(dst.add(32 * j), o);
            let mut g = _mm256_shuffle_epi8(if ENC { o } else { x }, bs);
            if j == 0 {
                g = _mm256_xor_si256(
                    g,
                    _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), *acc),
                );
            }
            let p = 16 * (16 - N + 2 * j);
            wide.mul_add(g, load256(h.add(p)), load256(hk.add(p)));
        }
        let mut narrow = ni::Acc::new();
        if odd {
            let x = ni::load(src.add(16 * (N - 1)));
            let o = _mm_xor_si128(_mm_aesenclast_si128(last_blk, kl), x);
            ni::store(dst.add(16 * (N - 1)), o);
            let mut g = _mm_shuffle_epi8(if ENC { o } else { x }, ni::bswap_mask());
            if N == 1 {
                g = _mm_xor_si128(g, *acc);
            }
            narrow.mul_add(g, ni::load(k.h[15].as_ptr()), ni::load(k.hk[15].as_ptr()));
        }
        narrow.lo = _mm_xor_si128(narrow.lo, fold(wide.lo));
        narrow.mid = _mm_xor_si128(narrow.mid, fold(wide.mid));
        narrow.hi = _mm_xor_si128(narrow.hi, fold(wide.hi));
        *acc = narrow.reduce();
    }
}

/// GHASH of 2..=15 blocks: dispatches on the (public) count to [`ghash_tail_n`].
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_tail(k: &XKey, acc: __m128i, data: *const u8, n: usize) -> __m128i {
    type Ghash = unsafe fn(&XKey, __m128i, *const u8) -> __m128i;
    macro_rules! pick {
        ($($n:literal)*) => {
            match n {
                $($n => ghash_tail_n::<$n> as Ghash,)*
                _ => return acc,
            }
        };
    }
    let f = pick!(2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    // SAFETY: forwarded contract (`data` holds 16*n bytes); features enabled.
    unsafe { f(k, acc, data) }
}

/// GHASH of `N` blocks with H^N..H^1: pairs on VPCLMULQDQ, an odd last block on
/// PCLMULQDQ, one reduction.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash_tail_n<const N: usize>(k: &XKey, acc: __m128i, data: *const u8) -> __m128i {
    // SAFETY: `data` holds 16*N bytes (caller's contract); features enabled; key-table
    // offsets are for indices 16-N+2j+1 ≤ 15.
    unsafe {
        let bs = bswap256();
        let h = k.h.as_ptr() as *const u8;
        let hk = k.hk.as_ptr() as *const u8;
        let mut wide = Acc2::zero();
        for j in 0..N / 2 {
            let mut g = _mm256_shuffle_epi8(load256(data.add(32 * j)), bs);
            if j == 0 {
                g = _mm256_xor_si256(g, _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), acc));
            }
            let p = 16 * (16 - N + 2 * j);
            wide.mul_add(g, load256(h.add(p)), load256(hk.add(p)));
        }
        let mut narrow = ni::Acc::new();
        if N % 2 == 1 {
            let g = _mm_shuffle_epi8(ni::load(data.add(16 * (N - 1))), ni::bswap_mask());
            narrow.mul_add(g, ni::load(k.h[15].as_ptr()), ni::load(k.hk[15].as_ptr()));
        }
        narrow.lo = _mm_xor_si128(narrow.lo, fold(wide.lo));
        narrow.mid = _mm_xor_si128(narrow.mid, fold(wide.mid));
        narrow.hi = _mm_xor_si128(narrow.hi, fold(wide.hi));
        narrow.reduce()
    }
}

/// GHASH-only steady state: sixteen blocks per iteration.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn kernel_ghash(k: &XKey, y: &mut __m128i, mut data: *const u8, iterations: usize) {
    // SAFETY: `data` holds 256*iterations bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = *y;
        for _ in 0..iterations {
            acc = ghash16(k, acc, data);
            data = data.add(16 * WIDE);
        }
        *y = acc;
    }
}

#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash(k: &XKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16*blocks bytes (caller's contract); features enabled.
    unsafe {
        let mut acc = _mm_shuffle_epi8(ni::load(y.as_ptr()), ni::bswap_mask());
        let iterations = blocks / WIDE;
        if iterations > 0 {
            kernel_ghash(k, &mut acc, data, iterations);
            data = data.add(16 * WIDE * iterations);
        }
        let left = blocks % WIDE;
        if left > 1 {
            acc = ghash_tail(k, acc, data, left);
        } else if left == 1 {
            acc = ni::ghash_n(k, acc, data, 1);
        }
        ni::store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, ni::bswap_mask()));
    }
}

/// CTR keystream only: sixteen blocks per iteration on VAES, the rest on AES-NI.
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ctr_only(
    k: &XKey,
    ctr: &mut [u8; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    blocks: usize,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); features enabled;
    // round-key indices ≤ rounds ≤ 14.
    unsafe {
        let rounds = k.rounds as usize;
        let rk: [__m256i; 15] = core::array::from_fn(|r| {
            _mm256_broadcastsi128_si256(ni::load(k.rk[r.min(rounds)].as_ptr()))
        });
        let bs = bswap256();
        let mut c = ni::ctr_to_native(ctr);
        for _ in 0..blocks / WIDE {
            let cy = _mm256_add_epi32(
                _mm256_broadcastsi128_si256(c),
                _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
            );
            let mut b: [__m256i; WIDE / 2] = core::array::from_fn(|j| {
                let cj = _mm256_add_epi32(
                    cy,
                    _mm256_set_epi32(0, 0, 0, 2 * j as i32, 0, 0, 0, 2 * j as i32),
                );
                _mm256_xor_si256(_mm256_shuffle_epi8(cj, bs), rk[0])
            });
            c = _mm_add_epi32(c, _mm_cvtsi32_si128(WIDE as i32));
            for key in rk.iter().take(rounds).skip(1) {
                for blk in b.iter_mut() {
                    *blk = aesenc(*blk, *key);
                }
            }
            for (j, blk) in b.iter().enumerate() {
                let x = load256(src.add(32 * j));
                store256(
                    dst.add(32 * j),
                    _mm256_xor_si256(aesenclast(*blk, rk[rounds]), x),
                );
            }
            src = src.add(16 * WIDE);
            dst = dst.add(16 * WIDE);
        }
        ni::ctr_from_native(c, ctr);
        ni::ctr_only(k, ctr, src, dst, blocks % WIDE);
    }
}
