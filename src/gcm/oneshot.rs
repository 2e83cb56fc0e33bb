//! One whole message per call: [`seal`], and [`open`], which releases no plaintext unless
//! the tag verifies — it hashes the ciphertext first, compares the tag in constant time,
//! and only then runs the CTR keystream over it (two passes, so a forged message never
//! reaches the output buffer).

use super::core::{BlockKey, Core};
use super::{tag_len_ok, xor_keystream, Direction, Key, BLOCK, MAX_AAD, MAX_DATA};
use crate::backend::PublicCtr;
use crate::error::Error;
use crate::secret::{ct_eq, wipe_block};

/// One-shot authenticated encryption: `src` → `dst` (same length), tag into `tag`
/// (4, 8 or 12..=16 bytes).
pub fn seal(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Error> {
    check_lengths(iv, aad, src.len(), tag.len())?;
    if dst.len() < src.len() {
        return Err(Error::BufferTooShort);
    }
    // SAFETY: distinct borrows, both `src.len()` bytes long.
    unsafe { seal_raw(key, iv, aad, src.as_ptr(), dst.as_mut_ptr(), src.len(), tag) }
}

/// [`seal`] in place: `buf` is encrypted where it lies, tag into `tag`.
pub fn seal_in_place(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Error> {
    check_lengths(iv, aad, buf.len(), tag.len())?;
    let p = buf.as_mut_ptr();
    // SAFETY: one exclusive borrow, read and written as the same `buf.len()` bytes.
    unsafe { seal_raw(key, iv, aad, p, p, buf.len(), tag) }
}

/// [`seal`] on raw pointers; `src == dst` (in place) is allowed. A whole message needs
/// no buffering: it is one backend call, the one-pass short path when it fits, else the
/// whole-message one (AAD, the fused kernel with E(K, J0) beside it, the tail and the
/// lengths block).
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
pub(crate) unsafe fn seal_raw(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: &mut [u8],
) -> Result<(), Error> {
    check_lengths(iv, aad, len, tag.len())?;
    let j0 = Core::j0(key, iv);
    if key.fits_short(aad.len(), len) {
        // SAFETY: forwarded from the caller.
        let full = unsafe { key.crypt_short(Direction::Encrypt, &j0, aad, src, dst, len) };
        copy_tag(tag, &full);
        return Ok(());
    }
    // With a 96-bit IV the first counter is 2: public, whatever the key.
    let at = if iv.len() == 12 {
        PublicCtr::iv96_after(0)
    } else {
        PublicCtr::UNKNOWN
    };
    // SAFETY: forwarded from the caller.
    let mut full = unsafe { key.crypt_whole(Direction::Encrypt, &j0, aad, src, dst, len, at) };
    copy_tag(tag, &full);
    wipe_block(&mut full);
    Ok(())
}

/// The first `tag.len()` bytes of `full`: the usual full tag as one 16-byte copy, not a
/// memcpy call.
#[inline(always)]
fn copy_tag(tag: &mut [u8], full: &[u8; 16]) {
    if let Ok(t) = <&mut [u8; 16]>::try_from(&mut *tag) {
        *t = *full;
    } else {
        tag.copy_from_slice(&full[..tag.len()]);
    }
}

/// The length rules of a one-shot call: a tag of 4, 8 or 12..=16 bytes, an IV of at least
/// one byte, and the SP 800-38D limits.
fn check_lengths(iv: &[u8], aad: &[u8], len: usize, tag_len: usize) -> Result<(), Error> {
    if !tag_len_ok(tag_len) || iv.is_empty() || aad.len() as u64 > MAX_AAD || len as u64 > MAX_DATA
    {
        return Err(Error::InvalidLength);
    }
    Ok(())
}

/// One-shot authenticated decryption that writes nothing to `dst` unless the tag
/// verifies: GHASH over the ciphertext first, then (only on success) CTR decryption.
pub fn open(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &[u8],
) -> Result<(), Error> {
    if dst.len() < src.len() {
        return Err(Error::BufferTooShort);
    }
    // SAFETY: distinct borrows, both `src.len()` bytes long.
    unsafe { open_raw(key, iv, aad, src.as_ptr(), dst.as_mut_ptr(), src.len(), tag) }
}

/// [`open`] in place: `buf` is decrypted where it lies only if the tag verifies; on
/// `Err(TagMismatch)` it still holds the ciphertext.
pub fn open_in_place(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> Result<(), Error> {
    let p = buf.as_mut_ptr();
    // SAFETY: one exclusive borrow, read and written as the same `buf.len()` bytes.
    unsafe { open_raw(key, iv, aad, p, p, buf.len(), tag) }
}

/// [`open`] on raw pointers; `src == dst` (in place) is allowed.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
pub(crate) unsafe fn open_raw(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: &[u8],
) -> Result<(), Error> {
    check_lengths(iv, aad, len, tag.len())?;
    let j0 = Core::j0(key, iv);
    if key.fits_short(aad.len(), len) {
        // SAFETY: forwarded from the caller.
        let ok = unsafe { key.open_short(&j0, aad, src, dst, len, tag) };
        return if ok { Ok(()) } else { Err(Error::TagMismatch) };
    }
    let mut core = Core::with_j0(j0);
    core.aad(key, aad);
    let start_ctr = core.ctr;
    let ct: &[u8] = if len == 0 {
        &[] // `src` may be NULL for an empty message; a slice may not.
    } else {
        // SAFETY: the caller guarantees `src` is readable for `len` bytes.
        unsafe { core::slice::from_raw_parts(src, len) }
    };
    // GHASH over the ciphertext, zero-padded, is the data phase's hash; it is absorbed
    // like AAD and the two counts are put right afterwards.
    core.aad(key, ct);
    core.data_len = len as u64;
    core.aad_len -= len as u64;
    let mut full = core.finish(key);
    let ok = ct_eq(&full[..tag.len()], tag);
    wipe_block(&mut full);
    core.wipe();
    if !ok {
        return Err(Error::TagMismatch);
    }
    let mut ctr = start_ctr;
    let blocks = len / BLOCK;
    // SAFETY: both buffers hold `len` ≥ 16*blocks bytes.
    unsafe { key.ctr(&mut ctr, src, dst, blocks) };
    let tail = len - blocks * BLOCK;
    if tail > 0 {
        let mut ks = ctr;
        key.encrypt_block(&mut ks);
        // SAFETY: the last `tail` bytes of both buffers.
        unsafe {
            let off = blocks * BLOCK;
            xor_keystream(
                Direction::Decrypt,
                src.add(off),
                dst.add(off),
                &ks[..tail],
                None,
            );
        }
        wipe_block(&mut ks);
    }
    Ok(())
}
