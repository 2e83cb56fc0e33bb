//! `arm-ce`'s whole short message in one call (`Backend::crypt_short`, `open_short`).
//!
//! The AAD and the data are laid out once in a stack buffer the way GHASH reads them,
//! AAD ‖ data ‖ lengths with each part zero-padded to whole blocks. The CTR pass then
//! runs in place over the data's blocks with E(K, J0) as one more lane (a message of at
//! most four blocks is one straight-line kernel, `lanes_{n+1}_n`), and GHASH runs once
//! over the whole buffer with aggregated powers of H, one reduction per eight blocks.
//! Compared with the trait's generic path this saves the separate E(K, J0) call and the
//! second copy of the data. Encryption zeroes the keystream that lands in the last
//! block's padding before hashing. Opening hashes the ciphertext, decrypts into the
//! buffer with J0 alongside, and copies the plaintext out only when the tag matches
//! (compared in constant time). The buffer is wiped afterwards.
//!
//! This is still two kernel calls. A one-pass kernel would interleave the AES rounds
//! of the data with the GHASH of the AAD (and, when opening, of the ciphertext).

use super::crypt;
use super::key::CeKey;
use crate::backend::arm::common::add_ctr;
use crate::backend::short::{lengths, HASH_BLOCKS};
use crate::secret::{ct_eq, wipe_bytes};

type Buffer = [u8; 16 * HASH_BLOCKS];

/// Writes AAD ‖ data ‖ lengths into `buf` (zero-padded: `buf` starts zeroed); returns
/// where the data starts and how many blocks GHASH takes.
///
/// # Safety
/// `src` readable for `len` bytes; the message fits the short limits.
unsafe fn lay_out(buf: &mut Buffer, aad: &[u8], src: *const u8, len: usize) -> (usize, usize) {
    let at = aad.len().next_multiple_of(16);
    let end = at + len.next_multiple_of(16);
    buf[..aad.len()].copy_from_slice(aad);
    // SAFETY: `len` readable bytes at `src`; the limits keep `end + 16` inside `buf`.
    unsafe { core::ptr::copy_nonoverlapping(src, buf[at..].as_mut_ptr(), len) };
    buf[end..end + 16].copy_from_slice(&lengths(aad.len(), len));
    (at, end / 16 + 1)
}

/// CTR in place over the data blocks of `buf` from inc32(J0); returns E(K, J0).
fn keystream(k: &CeKey, j0: &[u8; 16], buf: &mut Buffer, at: usize, len: usize) -> [u8; 16] {
    let (mut mask, mut ctr) = (*j0, *j0);
    add_ctr(&mut ctr, 1);
    let p = buf[at..].as_mut_ptr();
    // SAFETY: `buf` holds the data's whole blocks from `at` (the limits).
    unsafe { crypt::ctr(k, &mut ctr, p, p, len.div_ceil(16), Some(&mut mask)) };
    mask
}

/// GHASH from zero over the first `blocks` blocks of `buf`.
fn hash(k: &CeKey, buf: &Buffer, blocks: usize) -> [u8; 16] {
    let mut y = [0u8; 16];
    // SAFETY: `buf` holds `blocks` blocks (`lay_out`).
    unsafe { crypt::ghash(k, &mut y, buf.as_ptr(), blocks) };
    y
}

/// `crypt_short` (see the trait).
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint; within limits.
pub(super) unsafe fn crypt(
    k: &CeKey,
    encrypt: bool,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> [u8; 16] {
    let mut buf = [0u8; 16 * HASH_BLOCKS];
    // SAFETY: forwarded contract.
    let (at, blocks) = unsafe { lay_out(&mut buf, aad, src, len) };
    let mut y = if encrypt {
        [0; 16]
    } else {
        hash(k, &buf, blocks)
    };
    let mut mask = keystream(k, j0, &mut buf, at, len);
    // SAFETY: `len` writable bytes at `dst`.
    unsafe { core::ptr::copy_nonoverlapping(buf[at..].as_ptr(), dst, len) };
    if encrypt {
        // The keystream beyond `len` in the last block is not ciphertext.
        buf[at + len..at + len.next_multiple_of(16)].fill(0);
        y = hash(k, &buf, blocks);
    }
    for (t, m) in y.iter_mut().zip(mask) {
        *t ^= m;
    }
    // Only the data blocks hold secrets (plaintext, keystream); AAD and lengths are public.
    wipe_bytes(&mut buf[at..(blocks - 1) * 16]);
    wipe_bytes(&mut mask);
    y
}

/// `open_short` (see the trait): nothing reaches `dst` unless the tag matches.
///
/// # Safety
/// As for [`crypt`]; `expected` is at most 16 bytes.
pub(super) unsafe fn open(
    k: &CeKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> bool {
    let mut buf = [0u8; 16 * HASH_BLOCKS];
    // SAFETY: forwarded contract.
    let (at, blocks) = unsafe { lay_out(&mut buf, aad, src, len) };
    let mut full = hash(k, &buf, blocks);
    let mut mask = keystream(k, j0, &mut buf, at, len);
    for (t, m) in full.iter_mut().zip(mask) {
        *t ^= m;
    }
    let ok = ct_eq(&full[..expected.len()], expected);
    if ok {
        // SAFETY: `len` writable bytes at `dst`; `buf` holds the plaintext.
        unsafe { core::ptr::copy_nonoverlapping(buf[at..].as_ptr(), dst, len) };
    }
    // Only the data blocks hold secrets (plaintext, keystream); AAD and lengths are public.
    wipe_bytes(&mut buf[at..(blocks - 1) * 16]);
    wipe_bytes(&mut full);
    wipe_bytes(&mut mask);
    ok
}

#[cfg(test)]
mod tests {
    use crate::backend::Backend;

    /// Runs where the CPU has AES and PMULL (`qemu-arm -cpu max`); elsewhere arm-ce is not
    /// offered and the generic tests cover the other backends.
    #[test]
    fn every_key_size_length_and_placement() {
        type Ce = super::super::ArmCe;
        assert!(crate::backend::short::check::check::<Ce>() > 0 || !Ce::is_available());
    }
}
