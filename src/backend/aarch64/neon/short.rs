//! Whole short messages in one pass for `aarch64-neon`: E(K, J0) and the counter blocks
//! as lanes of one AES call — the vector-permute AES (`vperm.rs`) for up to four lanes,
//! whose cost grows with the lanes, and above that the eight-lane bit-sliced AES, whose
//! cost does not — and GHASH over the AAD, the ciphertext and the lengths block summed
//! with H^n..H^1 and reduced once (`ghash::ghash_n`), never padded to eight blocks.
//! Partial blocks are read and written in registers (`backend/partial.rs`), the partial
//! last ciphertext block is masked to its length before it is hashed, and opening
//! compares the tag before it stores any plaintext.
//!
//! The branches here depend on lengths only, which are public.

use super::ghash::ghash_first;
use super::{vperm, NeonKey, GROUP};
use crate::backend::aarch64::common::{ctr_block, ctr_to_native};
use crate::backend::partial::{load_partial, store_partial, PARTIAL_MASK};
use crate::secret::ct_eq;
use core::arch::aarch64::*;

/// Data blocks per call: eight AES lanes with E(K, J0).
pub(super) const DATA_BLOCKS: usize = GROUP - 1;
/// GHASH blocks per call (AAD + data + lengths): the eight stored powers of H.
pub(super) const HASH_BLOCKS: usize = GROUP;
/// Block `i` of `len` bytes at `p` (the last one zero-padded if partial).
#[inline(always)]
unsafe fn block_at(p: *const u8, i: usize, len: usize) -> uint8x16_t {
    let left = len - 16 * i;
    // SAFETY: block `i` starts inside the `len` readable bytes (callers check); NEON
    // baseline.
    unsafe {
        if left >= 16 {
            vld1q_u8(p.add(16 * i))
        } else {
            let [lo, hi] = load_partial(p.add(16 * i), left);
            vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))
        }
    }
}

/// E(K, J0 + i) for the lanes i = 0..=n (inc32).
#[inline(always)]
unsafe fn keystream(k: &NeonKey, j0: &[u8; 16], n: usize) -> [uint8x16_t; GROUP] {
    // SAFETY: NEON baseline.
    unsafe {
        let c = ctr_to_native(j0);
        vperm::encrypt_lanes(k, core::array::from_fn(|i| ctr_block(c, i as u32)), n + 1)
    }
}

/// One pass over a message within the limits from its J0: returns the full tag and
/// whether the output was written — always, unless `verify` holds a tag (opening) that
/// the computed one does not start with.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the message is
/// within [`DATA_BLOCKS`] and [`HASH_BLOCKS`].
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn short<const ENC: bool>(
    k: &NeonKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    verify: Option<&[u8]>,
) -> ([u8; 16], bool) {
    let n = len.div_ceil(16);
    let a = aad.len().div_ceil(16);
    debug_assert!(n <= DATA_BLOCKS && a + n < HASH_BLOCKS);
    // SAFETY: NEON baseline; every pointer access stays inside the `len` bytes of
    // `src`/`dst` and `aad` (block_at, store_partial); lane indices ≤ n ≤ 7.
    unsafe {
        // The AES first: GHASH's running sums would not stay in registers beside it.
        let ks = keystream(k, j0, n);
        let mut hashed = [vdupq_n_u8(0); GROUP];
        for (i, h) in hashed.iter_mut().enumerate().take(a) {
            *h = vrbitq_u8(block_at(aad.as_ptr(), i, aad.len()));
        }
        let mut out = [vdupq_n_u8(0); DATA_BLOCKS];
        for (i, o) in out.iter_mut().enumerate().take(n) {
            let x = block_at(src, i, len);
            *o = veorq_u8(x, ks[i + 1]);
            let left = len - 16 * i;
            hashed[a + i] = vrbitq_u8(if !ENC {
                x
            } else if left < 16 {
                vandq_u8(*o, vld1q_u8(PARTIAL_MASK.as_ptr().add(16 - left)))
            } else {
                *o
            });
        }
        let bits = vcombine_u64(
            vcreate_u64(((aad.len() as u64) << 3).swap_bytes()),
            vcreate_u64(((len as u64) << 3).swap_bytes()),
        );
        hashed[a + n] = vrbitq_u8(vreinterpretq_u8_u64(bits));
        let y = ghash_first(k, &hashed, a + n + 1);
        let mut tag = [0u8; 16];
        vst1q_u8(tag.as_mut_ptr(), veorq_u8(vrbitq_u8(y), ks[0]));

        let release = match verify {
            Some(expected) => ct_eq(&tag[..expected.len()], expected),
            None => true,
        };
        if release {
            for (i, o) in out.iter().enumerate().take(n) {
                let left = len - 16 * i;
                if left >= 16 {
                    vst1q_u8(dst.add(16 * i), *o);
                } else {
                    let v = vreinterpretq_u64_u8(*o);
                    let halves = [vgetq_lane_u64::<0>(v), vgetq_lane_u64::<1>(v)];
                    store_partial(dst.add(16 * i), halves, left);
                }
            }
        }
        (tag, release)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_key_size_length_and_placement() {
        assert!(crate::backend::short::check::check::<super::super::Aarch64Neon>() > 0);
    }
}
