//! Short messages in one call: the generic path every backend gets from the trait, built
//! from its other entries, for backends without a one-pass kernel of their own.
//!
//! A whole message with few data blocks and little AAD: the data is copied into a
//! block-aligned stack buffer and run through the backend's CTR kernel in place, E(K, J0)
//! beside it, and GHASH goes over AAD ‖ ciphertext ‖ lengths (each zero-padded) in a
//! single call, so the backend aggregates the powers of H with one reduction. A backend
//! with registers to spare replaces this with a straight-line pass (see the `SHORT_*`
//! limits and `crypt_short` in the trait).

use super::partial::{load_partial, store_block};
use super::Backend;
use crate::secret::{ct_eq, wipe_bytes};

/// Data blocks the generic path takes (a partial final block counts as one).
pub(crate) const DATA_BLOCKS: usize = 7;
/// GHASH blocks the generic path takes: AAD blocks + data blocks + the lengths block.
pub(crate) const HASH_BLOCKS: usize = 16;

/// inc32(J0): the first counter block.
#[inline(always)]
pub(crate) fn first_counter(j0: &[u8; 16]) -> [u8; 16] {
    let mut ctr = *j0;
    let c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
    ctr[12..].copy_from_slice(&c.to_be_bytes());
    ctr
}

/// The lengths block of `aad_len` bytes of AAD and `len` of data.
#[inline(always)]
pub(crate) fn lengths(aad_len: usize, len: usize) -> [u8; 16] {
    let mut l = [0u8; 16];
    l[..8].copy_from_slice(&((aad_len as u64) * 8).to_be_bytes());
    l[8..].copy_from_slice(&((len as u64) * 8).to_be_bytes());
    l
}

/// Whether a message fits limits of `data_blocks` and `hash_blocks` (see the trait).
#[inline(always)]
pub(crate) const fn fits(
    aad_len: usize,
    len: usize,
    data_blocks: usize,
    hash_blocks: usize,
) -> bool {
    if cfg!(target_arch = "x86_64") {
        // The data's bound on bytes first (a compare); past it `len + 15` cannot wrap.
        // With the x86_64 kernels' lane choice on the byte count the compiler merges the
        // two tests (7 instructions fewer per record); on ARM, whose division is one
        // instruction cheaper, this form costs the whole-call rows 1-3 cycles instead.
        #[allow(clippy::manual_div_ceil)]
        let fits = len <= 16 * data_blocks && aad_len.div_ceil(16) + (len + 15) / 16 < hash_blocks;
        fits
    } else {
        let d = len.div_ceil(16);
        d <= data_blocks && aad_len.div_ceil(16) + d < hash_blocks
    }
}

/// GHASH(AAD ‖ ciphertext ‖ lengths) from 0, in one backend call.
///
/// # Safety
/// `ct` readable for `len` bytes.
unsafe fn tag_hash<B: Backend + ?Sized>(
    m: &super::Material,
    aad: &[u8],
    ct: *const u8,
    len: usize,
) -> [u8; 16] {
    let mut buf = [0u8; 16 * HASH_BLOCKS];
    let a = aad.len().div_ceil(16) * 16;
    buf[..aad.len()].copy_from_slice(aad);
    // SAFETY: `len` readable bytes at `ct`; `fits` keeps a + len + 16 inside `buf`.
    unsafe { core::ptr::copy_nonoverlapping(ct, buf[a..].as_mut_ptr(), len) };
    let end = a + len.div_ceil(16) * 16;
    buf[end..end + 16].copy_from_slice(&lengths(aad.len(), len));
    let mut y = [0u8; 16];
    // SAFETY: `buf` holds `end + 16` bytes, a whole number of blocks.
    unsafe { B::ghash(m, &mut y, buf.as_ptr(), end / 16 + 1) };
    y
}

/// The generic `crypt_short`: returns the full tag.
///
/// # Safety
/// As for [`Backend::crypt_short`].
pub(crate) unsafe fn crypt<B: Backend + ?Sized>(
    m: &super::Material,
    dir: super::Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> [u8; 16] {
    debug_assert!(fits(aad.len(), len, DATA_BLOCKS, HASH_BLOCKS));
    let (mut mask, mut ctr) = (*j0, first_counter(j0));
    let mut data = [0u8; 16 * DATA_BLOCKS];
    // SAFETY: `len` ≤ 16 * DATA_BLOCKS readable bytes at `src` (caller's contract).
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), len) };
    let mut tag = if dir == super::Direction::Decrypt {
        // SAFETY: `data` holds the ciphertext.
        unsafe { tag_hash::<B>(m, aad, data.as_ptr(), len) }
    } else {
        [0; 16]
    };
    // SAFETY: `data` holds the whole blocks covering `len`.
    unsafe {
        B::ctr(
            m,
            &mut ctr,
            data.as_ptr(),
            data.as_mut_ptr(),
            len.div_ceil(16),
        )
    };
    // SAFETY: `len` writable bytes at `dst`.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, len) };
    if dir == super::Direction::Encrypt {
        // SAFETY: `data[..len]` is the ciphertext (the padding bytes are not hashed).
        tag = unsafe { tag_hash::<B>(m, aad, data.as_ptr(), len) };
    }
    B::encrypt_block(m, &mut mask);
    for (t, k) in tag.iter_mut().zip(mask) {
        *t ^= k;
    }
    wipe_bytes(&mut mask);
    wipe_bytes(&mut data[..len.next_multiple_of(16)]); // what was written
    tag
}

/// Copies `len` (< 16 * 8) bytes from `src` to `to` as 16-byte blocks, the last one
/// zero-padded and read in registers: no memcpy call for the few blocks of a short
/// message. (A loop over the blocks became a memcpy call; with a fixed trip count and a
/// condition in the body it is unrolled instead.)
///
/// # Safety
/// `src` readable for `len` bytes; `to` writable for `len` rounded up to a block.
#[inline(always)]
pub(crate) unsafe fn copy_padded(src: *const u8, to: *mut u8, len: usize) {
    const MAX: usize = 8 * 16;
    debug_assert!(len < MAX);
    let whole = len / 16 * 16;
    // SAFETY (whole body): inside the lengths of the contract.
    unsafe {
        for i in (0..MAX - 16).step_by(16) {
            if i < whole {
                core::ptr::copy_nonoverlapping(src.add(i), to.add(i), 16);
            }
        }
        if len > whole {
            store_block(to.add(whole), load_partial(src.add(whole), len - whole));
        }
    }
}

/// The default `crypt_short_hold`: [`Backend::crypt_short`], and the ciphertext copied
/// to `hold` (before an in-place decryption overwrites it, or after encryption wrote it).
///
/// # Safety
/// As for [`Backend::crypt_short_hold`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn crypt_hold<B: Backend + ?Sized>(
    m: &super::Material,
    dir: super::Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    hold: *mut u8,
) -> [u8; 16] {
    let enc = dir == super::Direction::Encrypt;
    // SAFETY: forwarded contract.
    unsafe {
        if !enc {
            copy_padded(src, hold, len);
        }
        let tag = B::crypt_short(m, dir, j0, aad, src, dst, len);
        if enc {
            copy_padded(dst, hold, len);
        }
        tag
    }
}

/// The generic `open_short`: the tag over the ciphertext first, then (only when its
/// first `tag.len()` bytes match, compared in constant time) the plaintext into `dst`.
///
/// # Safety
/// As for [`Backend::open_short`].
pub(crate) unsafe fn open<B: Backend + ?Sized>(
    m: &super::Material,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: &[u8],
) -> bool {
    debug_assert!(fits(aad.len(), len, DATA_BLOCKS, HASH_BLOCKS));
    let (mut mask, mut ctr) = (*j0, first_counter(j0));
    let mut data = [0u8; 16 * DATA_BLOCKS];
    // SAFETY: `len` readable bytes at `src` (caller's contract).
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), len) };
    // SAFETY: `data` holds the ciphertext.
    let mut full = unsafe { tag_hash::<B>(m, aad, data.as_ptr(), len) };
    B::encrypt_block(m, &mut mask);
    for (t, k) in full.iter_mut().zip(mask) {
        *t ^= k;
    }
    let ok = ct_eq(&full[..tag.len()], tag);
    if ok {
        // SAFETY: `data` holds the whole blocks covering `len`; `len` writable at `dst`.
        unsafe {
            B::ctr(
                m,
                &mut ctr,
                data.as_ptr(),
                data.as_mut_ptr(),
                len.div_ceil(16),
            );
            core::ptr::copy_nonoverlapping(data.as_ptr(), dst, len);
        }
    }
    wipe_bytes(&mut data[..len.next_multiple_of(16)]); // what was written
    wipe_bytes(&mut full);
    wipe_bytes(&mut mask);
    ok
}

#[cfg(test)]
pub(crate) mod check;
