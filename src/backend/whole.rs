//! Whole messages of any length in one call (the keyed one-shot seal, and the first data
//! call of a streaming message, which then holds a provisional tag): the generic path
//! every backend gets from the trait, built from its other entries — GHASH of the AAD,
//! the fused kernel over the whole blocks with E(K, J0) beside them, one keystream block
//! for a partial last block, then GHASH of that block and of the lengths block in one
//! call. A backend with kernels that take these pieces in passing overrides it
//! (`Backend::crypt_message`).

use super::partial::{load_partial, store_block, store_partial};
use super::short::{first_counter, lengths};
use super::{Backend, Direction, Material, PublicCtr};
use crate::secret::wipe_bytes;

/// The generic `crypt_message`: the full tag; `y` receives GHASH(AAD ‖ whole blocks).
/// `at` (the position of inc32(J0), if public) goes to the fused kernel, which starts there.
///
/// # Safety
/// As for [`Backend::crypt_message`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(crate) unsafe fn crypt<B: Backend + ?Sized>(
    m: &Material,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    y: &mut [u8; 16],
    at: PublicCtr,
) -> [u8; 16] {
    *y = [0; 16];
    // SAFETY: `aad` is a slice; `src`/`dst` hold `len` bytes (caller's contract), so the
    // whole blocks and the `rest` bytes after them are inside both.
    unsafe {
        B::ghash_bytes(m, y, aad.as_ptr(), aad.len());
        let (blocks, rest) = (len / 16, len % 16);
        let mut ctr = first_counter(j0);
        let mut mask = *j0;
        let mut mask_done = false;
        if blocks > 0 {
            B::crypt(m, dir, &mut ctr, y, src, dst, blocks, Some(&mut mask), at);
            mask_done = true;
        }
        // The ciphertext side of the partial block, zero-padded, then the lengths block.
        let mut last = [0u8; 32];
        let mut hashed = 0;
        if rest > 0 {
            let mut ks = ctr;
            if mask_done {
                B::encrypt_block(m, &mut ks);
            } else {
                B::encrypt_block2(m, &mut ks, &mut mask);
                mask_done = true;
            }
            // The partial block in registers (`partial.rs`), not byte by byte.
            let off = 16 * blocks;
            let x = load_partial(src.add(off), rest);
            let k = [
                u64::from_le_bytes(ks[..8].try_into().unwrap()),
                u64::from_le_bytes(ks[8..].try_into().unwrap()),
            ];
            let o = [x[0] ^ k[0], x[1] ^ k[1]];
            store_partial(dst.add(off), o, rest);
            // Zero-padded: the bytes of `o` past `rest` are keystream.
            let ct = if dir == Direction::Encrypt {
                let keep = u128::MAX >> (8 * (16 - rest));
                let o = (u128::from(o[0]) | (u128::from(o[1]) << 64)) & keep;
                [o as u64, (o >> 64) as u64]
            } else {
                x
            };
            store_block(last.as_mut_ptr(), ct);
            wipe_bytes(&mut ks);
            hashed = 16;
        }
        if !mask_done {
            B::encrypt_block(m, &mut mask);
        }
        last[hashed..hashed + 16].copy_from_slice(&lengths(aad.len(), len));
        let mut tag = *y;
        B::ghash(m, &mut tag, last.as_ptr(), hashed / 16 + 1);
        for (t, k) in tag.iter_mut().zip(mask) {
            *t ^= k;
        }
        wipe_bytes(&mut mask);
        // (`last` holds ciphertext and lengths only: public.)
        tag
    }
}
