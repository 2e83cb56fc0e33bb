//! Whole short messages for `arm-neon`: E(K, J0) and the counter blocks as the lanes of
//! one AES call — the vector-permute kernels (`backend/vperm.rs`) for up to six lanes,
//! whose cost grows with the lanes, above that one eight-lane bit-sliced run, whose cost
//! does not — then GHASH of the AAD, the ciphertext and the lengths block in one
//! single-pass kernel (H^n..H^1 and one reduction, no padding to eight blocks).
//!
//! The blocks the GHASH kernel reads are assembled in one aligned buffer as whole 64-bit
//! words (partial blocks through `backend/partial.rs`, so no byte outside the message is
//! read), the partial last ciphertext block masked to its length; opening compares the
//! tag before any plaintext is written. The branches depend on lengths only (public).

use super::run::{Mode, VPERM_LANES};
use super::{NeonKey, GROUP};
use crate::backend::partial::{load_partial, store_partial, PARTIAL_MASK};
use crate::secret::{ct_eq, wipe_bytes};

/// Data blocks per call: eight AES lanes with E(K, J0).
pub(super) const DATA_BLOCKS: usize = GROUP - 1;
/// GHASH blocks per call (AAD + data + lengths): the eight stored powers of H.
pub(super) const HASH_BLOCKS: usize = GROUP;

/// A block as two little-endian 64-bit words.
type Words = [u64; 2];

fn words(b: &[u8; 16]) -> Words {
    [
        u64::from_le_bytes(b[..8].try_into().unwrap()),
        u64::from_le_bytes(b[8..].try_into().unwrap()),
    ]
}

fn bytes(w: Words) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&w[0].to_le_bytes());
    b[8..].copy_from_slice(&w[1].to_le_bytes());
    b
}

/// Block `i` of `len` bytes at `p` (the last one zero-padded if partial).
///
/// # Safety
/// Block `i` starts inside the `len` readable bytes at `p`.
#[inline(always)]
unsafe fn block_at(p: *const u8, i: usize, len: usize) -> Words {
    let left = len - 16 * i;
    // SAFETY: the caller's contract; the reads stay inside the `left` bytes.
    unsafe {
        if left >= 16 {
            words(&p.add(16 * i).cast::<[u8; 16]>().read_unaligned())
        } else {
            load_partial(p.add(16 * i), left)
        }
    }
}

impl NeonKey {
    /// E(K, J0 + i) for i = 0..=n into `ks`.
    fn short_keystream(&self, j0: &[u8; 16], n: usize, ks: &mut [[u8; 16]; GROUP]) {
        if n < VPERM_LANES {
            self.vperm(j0, &mut ks[..n + 1]);
        } else {
            let mut c = *j0;
            let mut y = [0u8; 16];
            *ks = [[0; 16]; GROUP];
            // SAFETY: `ks` is one whole group, in place (zeros in: the keystream out).
            unsafe {
                self.run(
                    Mode::Ctr,
                    &mut c,
                    &mut y,
                    ks.as_ptr().cast(),
                    ks.as_mut_ptr().cast(),
                    1,
                )
            };
        }
    }

    /// One pass over a message within the limits from its J0: returns the full tag and
    /// whether the output was written — always, unless `verify` holds a tag (opening)
    /// that the computed one does not start with.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the message
    /// is within [`DATA_BLOCKS`] and [`HASH_BLOCKS`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn short(
        &self,
        enc: bool,
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
        let mut ks = [[0u8; 16]; GROUP];
        self.short_keystream(j0, n, &mut ks);
        let mut hashed = [[0u8; 16]; HASH_BLOCKS];
        let mut out = [[0u64; 2]; DATA_BLOCKS];
        for (i, h) in hashed.iter_mut().enumerate().take(a) {
            // SAFETY: block i < a starts inside `aad`.
            *h = bytes(unsafe { block_at(aad.as_ptr(), i, aad.len()) });
        }
        for (i, o) in out.iter_mut().enumerate().take(n) {
            // SAFETY: block i < n starts inside the `len` bytes at `src`.
            let x = unsafe { block_at(src, i, len) };
            let k = words(&ks[i + 1]);
            *o = [x[0] ^ k[0], x[1] ^ k[1]];
            let left = len - 16 * i;
            let ct = if enc && left < 16 {
                let m = words(PARTIAL_MASK[16 - left..32 - left].try_into().unwrap());
                [o[0] & m[0], o[1] & m[1]]
            } else if enc {
                *o
            } else {
                x
            };
            hashed[a + i] = bytes(ct);
        }
        hashed[a + n] = crate::backend::short::lengths(aad.len(), len);
        let y = self.ghash_short(&hashed[..a + n + 1]);
        let mut tag = [0u8; 16];
        for ((t, h), k) in tag.iter_mut().zip(y).zip(ks[0]) {
            *t = h ^ k;
        }
        let release = verify.is_none_or(|expected| ct_eq(&tag[..expected.len()], expected));
        if release {
            for (i, o) in out.iter().enumerate().take(n) {
                let left = len - 16 * i;
                // SAFETY: block i of the `len` writable bytes at `dst`.
                unsafe {
                    if left >= 16 {
                        dst.add(16 * i)
                            .cast::<[u8; 16]>()
                            .write_unaligned(bytes(*o));
                    } else {
                        store_partial(dst.add(16 * i), *o, left);
                    }
                }
            }
        }
        // The keystream and the output (plaintext when opening); `hashed` is public.
        wipe_bytes(ks[..if n < VPERM_LANES { n + 1 } else { GROUP }].as_flattened_mut());
        crate::secret::wipe_u64(out[..n].as_flattened_mut());
        (tag, release)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_key_size_length_and_placement() {
        assert!(crate::backend::short::check::check::<super::super::ArmNeon>() > 0);
    }
}
