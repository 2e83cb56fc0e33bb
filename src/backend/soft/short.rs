//! Short messages for `soft`: E(K, J0) takes the first lane of the first four-block
//! bit-sliced batch, beside the first three counter blocks, so a message of up to three
//! blocks costs one batch instead of two (a batch is most of the work here). GHASH runs
//! block by block as everywhere in this backend (its key holds H alone, no powers); the
//! AAD, the ciphertext and the lengths block go through it in one pass. Opening hashes
//! the ciphertext and checks the tag before any plaintext is written.

use super::{aes, SoftKey};
use crate::backend::Direction;
use crate::secret::{ct_eq, wipe_bytes};

/// Data blocks per call: two batches (three blocks beside J0, then four).
pub(crate) const DATA_BLOCKS: usize = 7;

/// inc32(`block`) applied `n` times.
fn add32(block: &[u8; 16], n: u32) -> [u8; 16] {
    let mut b = *block;
    let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(n);
    b[12..].copy_from_slice(&c.to_be_bytes());
    b
}

/// GHASH of `bytes` zero-padded to whole blocks.
fn hash_padded(k: &SoftKey, y: &mut [u8; 16], bytes: &[u8]) {
    let whole = bytes.len() / 16 * 16;
    k.ghash.update(y, &bytes[..whole]);
    if whole < bytes.len() {
        let mut last = [0u8; 16];
        last[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
        k.ghash.update(y, &last);
    }
}

/// One message within the limit: returns the full tag and whether the output was written
/// (always, unless `verify` holds a tag that the computed one does not start with).
///
/// # Safety
/// `src` readable and `dst` writable for `len` ≤ 16·[`DATA_BLOCKS`] bytes, equal or
/// disjoint.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn crypt(
    k: &SoftKey,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    verify: Option<&[u8]>,
) -> ([u8; 16], bool) {
    debug_assert!(len <= 16 * DATA_BLOCKS);
    // Lane 0 of the first batch is J0; keystream block i is lane i + 1 overall.
    let mut ks = [[0u8; 16]; 8];
    let batches = if len > 48 { 2 } else { 1 };
    for (b, group) in ks.chunks_exact_mut(4).take(batches).enumerate() {
        let mut lanes: [[u8; 16]; 4] = core::array::from_fn(|i| add32(j0, (4 * b + i) as u32));
        aes::encrypt4(&k.aes, &mut lanes);
        group.copy_from_slice(&lanes);
        wipe_bytes(lanes.as_flattened_mut());
    }
    let mut data = [0u8; 16 * DATA_BLOCKS];
    // SAFETY: `len` readable bytes at `src` (caller's contract).
    unsafe { core::ptr::copy_nonoverlapping(src, data.as_mut_ptr(), len) };
    let mut y = [0u8; 16];
    hash_padded(k, &mut y, aad);
    if dir == Direction::Decrypt {
        hash_padded(k, &mut y, &data[..len]);
    }
    for (d, s) in data[..len].iter_mut().zip(ks[1..].as_flattened()) {
        *d ^= s;
    }
    if dir == Direction::Encrypt {
        hash_padded(k, &mut y, &data[..len]);
    }
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&((aad.len() as u64) * 8).to_be_bytes());
    lens[8..].copy_from_slice(&((len as u64) * 8).to_be_bytes());
    k.ghash.update(&mut y, &lens);
    let mut tag = ks[0];
    for (t, h) in tag.iter_mut().zip(y) {
        *t ^= h;
    }
    let release = verify.is_none_or(|expected| ct_eq(&tag[..expected.len()], expected));
    if release {
        // SAFETY: `len` writable bytes at `dst` (caller's contract).
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst, len) };
    }
    wipe_bytes(ks.as_flattened_mut());
    wipe_bytes(&mut data[..len]); // what was written
    (tag, release)
}
