//! The stitched steady-state loop of `x86_64-aesni`: per iteration AES-CTR on eight
//! counter blocks with the eight GHASH multiplications (aggregated with H^8..H^1) slotted
//! between the AES rounds and one reduction after the last. Decryption hashes the blocks
//! it decrypts; encryption hashes the previous group's ciphertext (kept byte-reversed in
//! registers) while it encrypts the next group, so both streams are independent inside
//! one iteration. Compiled once per key size and direction (`kernel_enc_aes128`, …).

use super::GROUP;
use crate::backend::x86_64::common::{bswap_mask, ctr_block, load, per_key_size, pin_registers};
use crate::backend::x86_64::common::{rk, store};
use crate::backend::x86_64::common::{Acc, XKey};
use core::arch::x86_64::*;

per_key_size!("aes,pclmulqdq,ssse3,sse4.1", crypt_groups, select);

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

/// Pins the eight blocks and the GHASH accumulators between two rounds (see
/// `pin_registers!`). Emits no instruction.
#[inline(always)]
unsafe fn barrier(b: &mut [__m128i; GROUP], acc: &mut Acc) {
    // SAFETY: an empty asm block; it only pins values in registers.
    unsafe {
        pin_registers!(xmm_reg: b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            acc.lo, acc.mid, acc.hi);
    }
}

/// The stitched loop over `groups` ≥ 1 groups of eight blocks.
#[inline(always)]
unsafe fn crypt_groups<const R: usize, const ENC: bool>(
    k: &XKey,
    ctr: &mut __m128i,
    y: &mut __m128i,
    mut src: *const u8,
    mut dst: *mut u8,
    groups: usize,
) {
    // SAFETY (whole body): only inlined into the kernels above; `src`/`dst` hold
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
