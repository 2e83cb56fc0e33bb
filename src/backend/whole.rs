//! Whole messages of any length in one call (the keyed one-shot seal, and the first data
//! call of a streaming message, which then holds a provisional tag): the generic path
//! every backend gets from the trait, built from its other entries — GHASH of the AAD,
//! the fused kernel over the whole blocks with E(K, J0) beside them, one keystream block
//! for a partial last block, then GHASH of that block and of the lengths block in one
//! call. A backend with kernels that take these pieces in passing overrides it
//! (`Backend::crypt_message`).

use super::short::{first_counter, lengths};
use super::{Backend, Direction, Material};
use crate::secret::wipe_bytes;

/// The generic `crypt_message`: the full tag; `y` receives GHASH(AAD ‖ whole blocks).
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
            B::crypt(m, dir, &mut ctr, y, src, dst, blocks, Some(&mut mask));
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
            let off = 16 * blocks;
            for (i, (k, c)) in ks.iter().zip(last.iter_mut()).take(rest).enumerate() {
                let x = *src.add(off + i);
                let o = x ^ k;
                *dst.add(off + i) = o;
                *c = if dir == Direction::Encrypt { o } else { x };
            }
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
        wipe_bytes(&mut last);
        tag
    }
}
