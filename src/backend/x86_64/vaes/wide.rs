//! The stitched steady-state loop of `x86_64-vaes`: per iteration AES-CTR on sixteen
//! counter blocks (eight registers of two) and GHASH of sixteen blocks with H^16..H^1 (two
//! neighbouring powers per register, block 2j in the low lane takes the higher power) and
//! one reduction. Decryption hashes the ciphertext it decrypts. Encryption hashes the
//! previous iteration's ciphertext, read back from `dst` where it was just stored (there
//! are not enough ymm registers to keep sixteen blocks of it), while it encrypts the next
//! one. Compiled once per key size and direction (`kernel_enc_aes128`, …).

use super::ghash::ghash16;
use super::ymm::{
    aesenc, aesenclast, bswap256, ctr_blocks, ctr_pair, key_pair, load256, low_lane, store256, Acc2,
};
use super::WIDE;
use crate::backend::x86_64::common::{load, per_key_size, pin_registers, XKey};
use core::arch::x86_64::*;

per_key_size!("avx2,aes,pclmulqdq,ssse3,sse4.1", crypt_wide, select);

/// Pins the eight block registers and the GHASH accumulators between two rounds (see
/// `pin_registers!`). Emits no instruction.
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn barrier(b: &mut [__m256i; WIDE / 2], acc: &mut Acc2) {
    // SAFETY: an empty asm block; it only pins values in registers.
    unsafe {
        pin_registers!(ymm_reg: b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            acc.lo, acc.mid, acc.hi);
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
        let c = ctr_pair(*ctr);
        let mut b: [__m256i; WIDE / 2] =
            core::array::from_fn(|j| _mm256_xor_si256(ctr_blocks(c, j, bs), rk[0]));
        *ctr = _mm_add_epi32(*ctr, _mm_cvtsi32_si128(WIDE as i32));
        let mut acc = Acc2::zero();
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
                            x = _mm256_xor_si256(x, low_lane(*y));
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
    // SAFETY (whole body): only inlined into the kernels above; `src`/`dst` hold
    // 256*iterations bytes (caller's contract).
    unsafe {
        let rk: [__m256i; 15] =
            core::array::from_fn(|r| _mm256_broadcastsi128_si256(load(k.rk[r.min(R)].as_ptr())));
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
