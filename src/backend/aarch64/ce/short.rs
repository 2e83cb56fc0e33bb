//! Whole short messages in one pass (`crypt_short` / `open_short` of both `aarch64-ce`
//! variants): E(K, J0) and the counter blocks run AES round-major as exactly as many
//! lanes as the message needs — on Neoverse N1 AESE/AESMC issue on one pipe, so a lane
//! that is computed and dropped costs as much as one that is used; the kernel is compiled
//! once per data-block count and direction — and GHASH over the AAD, the ciphertext and
//! the lengths block is one Karatsuba sum over H^n..H^1 with one reduction. The powers of
//! the data blocks and of the lengths block are known at compile time, so the Karatsuba
//! middle operand of each is read straight from its lane of `hk`; only the AAD's powers
//! depend on the (public) AAD length.
//!
//! Partial blocks are read and written in registers (`backend/partial.rs`); the lengths
//! block is built in general registers (`rbit` of a 64-bit length is its big-endian bytes
//! in the bit order of `ghash.rs`); the partial last ciphertext block is masked to its
//! length before it is hashed. Opening compares the tag before it stores any plaintext,
//! which waits in registers meanwhile.
//!
//! Everything here is constant time: branches depend on lengths, which are public, and
//! on the outcome of the tag comparison.

use super::aes::{aes_final, aes_round};
use super::ghash::{pmull_hi, pmull_lo};
use super::CeKey;
use crate::backend::aarch64::common::{ctr_add, ctr_block, ctr_to_native, from_halves, to_halves};
use crate::backend::aarch64::one_pass::{
    bits, block_at, by_blocks, entries, mask_halves, tag_matches, unrolled,
};
use crate::backend::partial::{load_partial, store_partial};
use core::arch::aarch64::*;
use core::ptr::null_mut;

/// Data blocks per call (a partial last block counts as one): eight AES lanes with J0.
pub(super) const DATA_BLOCKS: usize = 7;
/// GHASH blocks per call (AAD + data + lengths): the sixteen stored powers of H.
pub(super) const HASH_BLOCKS: usize = 16;

/// Round key `i` at `rk`.
#[inline(always)]
unsafe fn round_key(rk: *const [u8; 16], i: usize) -> uint8x16_t {
    // SAFETY: callers pass an index inside the schedule.
    unsafe { vld1q_u8(rk.add(i).cast()) }
}

/// One AES round (AESE+AESMC, adjacent for fusion) on the first `L` lanes.
#[inline(always)]
unsafe fn round<const L: usize>(b: &mut [uint8x16_t], key: uint8x16_t) {
    for x in &mut b[..L] {
        // SAFETY: only inlined into `neon,aes` functions.
        *x = unsafe { aes_round(*x, key) };
    }
}

/// AES of the first `L` lanes with a key of any size, up to and including the last
/// AESE; returns the last round key, which the caller XORs in together with the data.
/// The nine rounds every key size starts with read keys at fixed offsets, so the first
/// round does not wait for the round count.
#[inline(always)]
pub(super) unsafe fn aes_lanes<const L: usize>(k: &CeKey, b: &mut [uint8x16_t]) -> uint8x16_t {
    // SAFETY (whole body): only inlined into `neon,aes` functions; `rounds` is 10, 12
    // or 14, so every index is ≤ rounds < 15.
    unsafe {
        let rk = k.rk.as_ptr();
        for i in 0..9 {
            round::<L>(b, round_key(rk, i));
        }
        let rounds = k.rounds as usize;
        if rounds > 10 {
            round::<L>(b, round_key(rk, 9));
            round::<L>(b, round_key(rk, 10));
            if rounds > 12 {
                round::<L>(b, round_key(rk, 11));
                round::<L>(b, round_key(rk, 12));
            }
        }
        let key = round_key(rk, rounds - 1);
        for x in &mut b[..L] {
            *x = aes_final(*x, key);
        }
        round_key(rk, rounds)
    }
}

/// The unreduced Karatsuba sum of products of natural-order blocks with powers of H.
pub(super) struct Sum {
    lo: uint8x16_t,
    mid: uint8x16_t,
    hi: uint8x16_t,
}

impl Sum {
    /// The empty sum.
    #[inline(always)]
    pub(super) unsafe fn zero() -> Sum {
        // SAFETY: NEON baseline.
        let z = unsafe { vdupq_n_u8(0) };
        Sum {
            lo: z,
            mid: z,
            hi: z,
        }
    }

    /// Adds x·H^p (1 ≤ p ≤ 16). `hk[(p-1)/2]` holds lo ^ hi of H^p in lane (p-1) % 2,
    /// where PMULL (lane 0) or PMULL2 (lane 1) picks it up; with `p` a constant the
    /// choice is made at compile time, else by a branch on the public AAD length.
    #[inline(always)]
    pub(super) unsafe fn add(&mut self, k: &CeKey, x: uint8x16_t, p: usize) {
        debug_assert!((1..=16).contains(&p));
        // SAFETY: p - 1 < 16 indexes `h` and (p - 1) / 2 < 8 `hk`; only inlined into
        // `neon,aes` functions.
        unsafe {
            let h = vld1q_u8(k.h.as_ptr().add(p - 1).cast());
            let hk = vld1q_u8(k.hk.as_ptr().add((p - 1) / 2).cast());
            let xk = veorq_u8(x, vextq_u8::<8>(x, x));
            let mid = if (p - 1) % 2 == 0 {
                pmull_lo(xk, hk)
            } else {
                pmull_hi(xk, hk)
            };
            self.lo = veorq_u8(self.lo, pmull_lo(x, h));
            self.hi = veorq_u8(self.hi, pmull_hi(x, h));
            self.mid = veorq_u8(self.mid, mid);
        }
    }

    /// `y` plus the reduced sum, modulo x^128 + x^7 + x^2 + x + 1 in natural bit order,
    /// by the short sequence of the generated loops (`gen_loops.py`): the product's top
    /// word times x^128 ≡ 0x87 is folded in together with the middle term, then word 2.
    #[inline(always)]
    pub(super) unsafe fn reduce_onto(self, y: uint8x16_t) -> uint8x16_t {
        // SAFETY: only inlined into `neon,aes` functions.
        unsafe {
            let poly = vreinterpretq_u8_u64(vdupq_n_u64(0x87));
            let top = pmull_hi(self.hi, poly);
            let a = veorq_u8(veorq_u8(self.mid, top), veorq_u8(self.lo, self.hi));
            let b = veorq_u8(vextq_u8::<8>(self.hi, self.hi), a);
            let low = veorq_u8(veorq_u8(self.lo, y), vextq_u8::<8>(vdupq_n_u8(0), a));
            veorq_u8(low, pmull_hi(b, poly))
        }
    }
}

/// Where a pass starts: the J0 block (lane 0, the tag mask), the counter of the first
/// data block in native order, the GHASH state before the first block hashed (natural
/// bit order) and the lengths block in natural bit order.
pub(super) struct Start {
    pub(super) j0: uint8x16_t,
    pub(super) ctr: uint32x4_t,
    pub(super) y: uint8x16_t,
    pub(super) bits: [u64; 2],
}

impl Start {
    /// A whole message from `j0`: counters from inc32(J0), GHASH from zero.
    #[inline(always)]
    pub(super) unsafe fn message(j0: &[u8; 16], aad_len: usize, len: usize) -> Start {
        // SAFETY: 16 readable bytes; NEON baseline.
        unsafe {
            let j0 = vld1q_u8(j0.as_ptr());
            Start {
                j0,
                ctr: ctr_add(vreinterpretq_u32_u8(vrev32q_u8(j0)), 1),
                y: vdupq_n_u8(0),
                bits: bits(aad_len as u64, len as u64),
            }
        }
    }
}

/// One pass over `N` data blocks (`len` bytes, `N` = ⌈len/16⌉) after `aad`, from `st`:
/// returns the full tag, and whether the output was written — always, unless `verify`
/// holds a tag (opening) that the computed one does not start with. With `CONT` the pass
/// continues a message (`st.y` goes into its first block; there is no AAD). The hashed
/// (zero-padded) ciphertext blocks are also stored at `hold` unless it is NULL.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn one_pass<const N: usize, const ENC: bool, const CONT: bool>(
    k: &CeKey,
    st: Start,
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    verify: Option<&[u8]>,
    hold: *mut u8,
) -> ([u8; 16], bool) {
    let a = aad.len().div_ceil(16);
    debug_assert!(N <= DATA_BLOCKS && len.div_ceil(16) == N && a + N < HASH_BLOCKS);
    debug_assert!(!CONT || a == 0);
    // SAFETY (whole body): only inlined into `neon,aes` kernels; every access stays
    // inside the `len` bytes of `src`/`dst` and the bytes of `aad` (block_at,
    // store_partial), and the powers used are H^1..H^(a+N+1), at most H^16.
    unsafe {
        // Lane 0 is J0, lane i + 1 the counter block of data block i.
        let mut s = [st.j0; 8];
        unrolled!(N, i => {
            s[i + 1] = ctr_block(st.ctr, i as u32);
        });

        let last = match N {
            0 => aes_lanes::<1>(k, &mut s),
            1 => aes_lanes::<2>(k, &mut s),
            2 => aes_lanes::<3>(k, &mut s),
            3 => aes_lanes::<4>(k, &mut s),
            4 => aes_lanes::<5>(k, &mut s),
            5 => aes_lanes::<6>(k, &mut s),
            6 => aes_lanes::<7>(k, &mut s),
            _ => aes_lanes::<8>(k, &mut s),
        };

        // GHASH of what does not wait for AES (the instructions come after the AES ones
        // so that they do not delay the first rounds): the AAD (block j takes
        // H^(a+N+1-j)) and the lengths block (H^1).
        let z = vdupq_n_u8(0);
        let mut sum = Sum::zero();
        if a == 1 {
            // One block of AAD (a TLS record's 13 bytes, an ESP header): its power is a
            // constant, so it needs no loop.
            sum.add(k, vrbitq_u8(block_at(aad.as_ptr(), 0, aad.len())), N + 2);
        } else {
            for j in 0..a {
                sum.add(
                    k,
                    vrbitq_u8(block_at(aad.as_ptr(), j, aad.len())),
                    a + N + 1 - j,
                );
            }
        }
        let lengths = from_halves(st.bits);
        sum.add(
            k,
            if CONT && N == 0 {
                veorq_u8(lengths, st.y)
            } else {
                lengths
            },
            1,
        );

        // Data block i takes H^(N+1-i); the last round key goes in with the input.
        let mut out = [z; DATA_BLOCKS];
        // Only the last block can be partial.
        let last_left = len + 16 - 16 * N;
        unrolled!(N, i => {
            let left = if i + 1 < N { 16 } else { last_left };
            let x = if left < 16 {
                from_halves(load_partial(src.add(16 * i), left))
            } else {
                vld1q_u8(src.add(16 * i))
            };
            let o = veorq_u8(s[i + 1], veorq_u8(last, x));
            let hashed = if !ENC {
                x
            } else if left < 16 {
                vandq_u8(o, from_halves(mask_halves(left)))
            } else {
                o
            };
            if !hold.is_null() {
                vst1q_u8(hold.add(16 * i), hashed);
            }
            let mut h = vrbitq_u8(hashed);
            if CONT && i == 0 {
                h = veorq_u8(h, st.y);
            }
            sum.add(k, h, N + 1 - i);
            out[i] = o;
        });
        // E(K, J0) goes in before the bit order is turned back (rbit is linear), so the
        // last step waits for one XOR less.
        let mask = vrbitq_u8(veorq_u8(s[0], last));
        let tag = vrbitq_u8(sum.reduce_onto(mask));

        let release = match verify {
            Some(expected) => tag_matches(tag, expected),
            None => true,
        };
        if release {
            unrolled!(N, i => {
                let left = if i + 1 < N { 16 } else { last_left };
                if left >= 16 {
                    vst1q_u8(dst.add(16 * i), out[i]);
                } else {
                    store_partial(dst.add(16 * i), to_halves(out[i]), left);
                }
            });
        }
        let mut full = [0u8; 16];
        vst1q_u8(full.as_mut_ptr(), tag);
        (full, release)
    }
}

/// [`one_pass`] over a whole message, compiled for one data-block count and direction,
/// without a tag to check: the tag comes back in two general registers and every
/// argument fits in a register (the per-record call of the streaming API).
#[inline(never)]
#[target_feature(enable = "neon,aes")]
unsafe fn kernel<const N: usize, const ENC: bool>(
    k: &CeKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    hold: *mut u8,
) -> [u8; 16] {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe {
        let st = Start::message(j0, aad.len(), len);
        one_pass::<N, ENC, false>(k, st, aad, src, dst, len, None, hold).0
    }
}

/// [`one_pass`] opening a whole message of `N` data blocks against `expected`.
#[inline(never)]
#[target_feature(enable = "neon,aes")]
unsafe fn open_kernel<const N: usize>(
    k: &CeKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> ([u8; 16], bool) {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe {
        let st = Start::message(j0, aad.len(), len);
        one_pass::<N, false, false>(k, st, aad, src, dst, len, Some(expected), null_mut())
    }
}

entries!(CeKey);

/// The end of a longer message, after its whole blocks: the last `len` < 16 bytes (if
/// any) with the counter block `ctr`, E(K, J0) beside it, and GHASH from `y` (the state
/// after the whole blocks) over that block and the lengths block of `aad_len` and
/// `total` bytes; returns the full tag.
#[inline(never)]
#[target_feature(enable = "neon,aes")]
#[allow(clippy::too_many_arguments)]
unsafe fn finish_kernel<const N: usize, const ENC: bool>(
    k: &CeKey,
    j0: &[u8; 16],
    ctr: &[u8; 16],
    y: &[u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    lens: (u64, u64),
) -> [u8; 16] {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe {
        let st = Start {
            j0: vld1q_u8(j0.as_ptr()),
            ctr: ctr_to_native(ctr),
            y: vrbitq_u8(vld1q_u8(y.as_ptr())),
            bits: bits(lens.0, lens.1),
        };
        one_pass::<N, ENC, true>(k, st, &[], src, dst, len, None, null_mut()).0
    }
}

/// [`finish_kernel`] for `len` (< 16) bytes in direction `enc`.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint; `len` < 16; the
/// CPU has AES and PMULL.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn finish(
    k: &CeKey,
    enc: bool,
    j0: &[u8; 16],
    ctr: &[u8; 16],
    y: &[u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    lens: (u64, u64),
) -> [u8; 16] {
    debug_assert!(len < 16);
    // SAFETY: forwarded contract.
    unsafe {
        match (len > 0, enc) {
            (false, true) => finish_kernel::<0, true>(k, j0, ctr, y, src, dst, len, lens),
            (false, false) => finish_kernel::<0, false>(k, j0, ctr, y, src, dst, len, lens),
            (true, true) => finish_kernel::<1, true>(k, j0, ctr, y, src, dst, len, lens),
            (true, false) => finish_kernel::<1, false>(k, j0, ctr, y, src, dst, len, lens),
        }
    }
}
