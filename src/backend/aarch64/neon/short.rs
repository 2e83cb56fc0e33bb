//! Whole short messages in one pass for `aarch64-neon` (`crypt_short`, `crypt_short_hold`,
//! `open_short`): E(K, J0) and the counter blocks as the lanes of one AES call — the
//! vector-permute AES (`vperm.rs`) inlined for up to four lanes, whose cost grows with the
//! lanes, and above that the eight-lane bit-sliced AES, whose cost does not — and GHASH
//! over the AAD, the ciphertext and the lengths block summed with H^n..H^1 and reduced
//! once (`ghash::ghash_n`), never padded to eight blocks.
//!
//! As in `aarch64-ce`'s `short.rs`, a kernel is compiled for each data-block count and
//! direction and takes every argument in a register, so the blocks stay in registers from
//! the load to the store; one block of AAD (a TLS record's 13 bytes, an ESP header) puts
//! every block at a power known at compile time, so that GHASH is inlined, straight-line
//! code, and any other AAD length goes through `ghash_first`. The partial last ciphertext
//! block is masked to its length before it is hashed, and opening compares the tag before
//! it stores any plaintext.
//!
//! The branches here depend on lengths only, which are public, and on the tag check's
//! verdict.

use super::ghash::{ghash_first, ghash_n_onto};
use super::{aes, vperm, NeonKey, GROUP};
use crate::backend::aarch64::common::{ctr_block, from_halves, to_halves};
use crate::backend::aarch64::one_pass::{
    bits, block_at, by_blocks, entries, mask_halves, tag_matches, unrolled,
};
use crate::backend::partial::{load_partial, store_partial};
use crate::secret::wipe_bytes;
use core::arch::aarch64::*;
use core::ptr::null_mut;

/// Data blocks per call: eight AES lanes with E(K, J0).
pub(super) const DATA_BLOCKS: usize = GROUP - 1;
/// GHASH blocks per call (AAD + data + lengths): the eight stored powers of H.
pub(super) const HASH_BLOCKS: usize = GROUP;

/// E(K, J0 + i) for i = 0..=N (inc32): lane 0 masks the tag, lane i + 1 is the keystream
/// of data block i; the lanes after N are unspecified.
#[inline(always)]
unsafe fn keystream<const N: usize>(k: &NeonKey, j0: uint8x16_t) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline; the lane arrays are as long as their counts.
    unsafe {
        let c = vreinterpretq_u32_u8(vrev32q_u8(j0));
        let lanes: [uint8x16_t; GROUP] = core::array::from_fn(|i| ctr_block(c, i as u32));
        let mut ks = lanes;
        macro_rules! vector_permute {
            ($l:literal) => {{
                let x: [uint8x16_t; $l] = vperm::encrypt(k, core::array::from_fn(|i| lanes[i]));
                ks[..$l].copy_from_slice(&x);
            }};
        }
        const { assert!(vperm::MAX_LANES == 4) };
        match N + 1 {
            1 => vector_permute!(1),
            2 => vector_permute!(2),
            3 => vector_permute!(3),
            4 => vector_permute!(4),
            _ => ks = aes::aes8_ctr_short(k, c),
        }
        ks
    }
}

/// Stores output block `i` at `dst` (the last one partial when `last_left` < 16).
#[inline(always)]
unsafe fn store<const N: usize>(dst: *mut u8, i: usize, o: uint8x16_t, last_left: usize) {
    // SAFETY: block `i` < N of the `len` writable bytes at `dst` (callers).
    unsafe {
        let left = if i + 1 < N { 16 } else { last_left };
        if left >= 16 {
            vst1q_u8(dst.add(16 * i), o);
        } else {
            store_partial(dst.add(16 * i), to_halves(o), left);
        }
    }
}

/// One pass over `N` data blocks (`len` bytes, `N` = ⌈len/16⌉) after `aad`: returns the
/// full tag, and whether the output was written — always, unless `verify` holds a tag
/// (opening) that the computed one does not start with. The hashed (zero-padded)
/// ciphertext blocks are also stored at `hold` unless it is NULL.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn one_pass<const N: usize, const ENC: bool>(
    k: &NeonKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    verify: Option<&[u8]>,
    hold: *mut u8,
) -> ([u8; 16], bool) {
    let a = aad.len().div_ceil(16);
    debug_assert!(N <= DATA_BLOCKS && len.div_ceil(16) == N && a + N < HASH_BLOCKS);
    // SAFETY (whole body): NEON baseline; every access stays inside the `len` bytes of
    // `src`/`dst`, the bytes of `aad` (block_at, load_partial, store_partial) and the
    // `16·N` bytes of `hold`; lane indices are ≤ N ≤ 7 and block indices < 8.
    unsafe {
        let ks = keystream::<N>(k, vld1q_u8(j0.as_ptr()));
        let z = vdupq_n_u8(0);
        // The GHASH input in natural bit order: AAD, ciphertext, lengths (for one block
        // of AAD at the constant positions 0, 1..=N, N + 1).
        let mut x = [z; GROUP];
        let mut out = [z; DATA_BLOCKS];
        // Only the last block can be partial.
        let last_left = len + 16 - 16 * N;
        unrolled!(N, i => {
            let left = if i + 1 < N { 16 } else { last_left };
            let input = if left < 16 {
                from_halves(load_partial(src.add(16 * i), left))
            } else {
                vld1q_u8(src.add(16 * i))
            };
            let o = veorq_u8(input, ks[i + 1]);
            let hashed = if !ENC {
                input
            } else if left < 16 {
                vandq_u8(o, from_halves(mask_halves(left)))
            } else {
                o
            };
            if !hold.is_null() {
                vst1q_u8(hold.add(16 * i), hashed);
            }
            x[1 + i] = vrbitq_u8(hashed);
            if verify.is_none() {
                // Nothing to check first: the output goes out now, not held in registers
                // (or spilled) across GHASH.
                store::<N>(dst, i, o, last_left);
            }
            out[i] = o;
        });
        let lengths = from_halves(bits(aad.len() as u64, len as u64));
        // E(K, J0) goes in before the bit order is turned back (rbit is linear), so the
        // last steps wait for one XOR less.
        let mask = vrbitq_u8(ks[0]);
        let y = if a == 1 && N + 2 <= GROUP {
            x[0] = vrbitq_u8(block_at(aad.as_ptr(), 0, aad.len()));
            x[N + 1] = lengths;
            macro_rules! hash {
                ($($t:literal)*) => {
                    match N + 2 {
                        $($t => ghash_n_onto::<$t>(k, &*(x.as_ptr() as *const [uint8x16_t; $t]), mask),)*
                        _ => unreachable!(),
                    }
                };
            }
            hash!(2 3 4 5 6 7 8)
        } else {
            // Any other AAD length: the blocks move to their run-time places.
            let mut moved = [z; GROUP];
            for (j, m) in moved.iter_mut().enumerate().take(a) {
                *m = vrbitq_u8(block_at(aad.as_ptr(), j, aad.len()));
            }
            unrolled!(N, i => {
                moved[a + i] = x[1 + i];
            });
            moved[a + N] = lengths;
            veorq_u8(ghash_first(k, &moved, a + N + 1), mask)
        };
        let tag = vrbitq_u8(y);

        let release = match verify {
            Some(expected) => tag_matches(tag, expected),
            None => true,
        };
        if release && verify.is_some() {
            unrolled!(N, i => {
                store::<N>(dst, i, out[i], last_left);
            });
        }
        let mut full = [0u8; 16];
        vst1q_u8(full.as_mut_ptr(), tag);
        (full, release)
    }
}

/// [`one_pass`] over a whole message, compiled for one data-block count and direction,
/// without a tag to check (the streaming API and the sealing one-shot).
#[inline(never)]
unsafe fn kernel<const N: usize, const ENC: bool>(
    k: &NeonKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    hold: *mut u8,
) -> [u8; 16] {
    // SAFETY: forwarded contract.
    unsafe { one_pass::<N, ENC>(k, j0, aad, src, dst, len, None, hold).0 }
}

/// Opening a whole message of `N` data blocks against `expected`, by the decrypting
/// [`kernel`] of that count ([`open_held`]).
unsafe fn open_kernel<const N: usize>(
    k: &NeonKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> ([u8; 16], bool) {
    // SAFETY: forwarded contract.
    unsafe { open_held(kernel::<N, false>, k, j0, aad, src, dst, len, expected) }
}

/// Opening through a decrypting kernel `f`: the plaintext goes to a stack buffer and out
/// only if the tag starts with `expected`; the buffer is wiped. (An opening copy of
/// [`one_pass`] per block count was 42 KB of code; this costs a copy of at most seven
/// blocks beside the bit-sliced AES, `docs/footprint.md`.)
///
/// # Safety
/// As for [`kernel`] (`len` at most `16 · DATA_BLOCKS`); `expected` is 4 to 16 bytes.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn open_held(
    f: Seal,
    k: &NeonKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> ([u8; 16], bool) {
    debug_assert!(len <= 16 * DATA_BLOCKS);
    let mut buf = core::mem::MaybeUninit::<[u8; 16 * DATA_BLOCKS]>::uninit();
    let b = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: the kernel writes the `len` bytes of `buf` (the caller's contract covers
    // `src`); those bytes are initialised before they are copied or wiped; NEON baseline.
    unsafe {
        let full = f(k, j0, aad, src, b, len, null_mut());
        let ok = tag_matches(vld1q_u8(full.as_ptr()), expected);
        if ok {
            core::ptr::copy_nonoverlapping(b, dst, len);
        }
        wipe_bytes(core::slice::from_raw_parts_mut(b, len));
        (full, ok)
    }
}

entries!(NeonKey);

#[cfg(test)]
mod tests {
    #[test]
    fn every_key_size_length_and_placement() {
        assert!(crate::backend::short::check::check::<super::super::Aarch64Neon>() > 0);
    }
}
