//! The GHASH input a [`Message`] holds back (`held`): AAD gathered into blocks, and after
//! a one-pass data call the ciphertext the streaming API may still need; filled, hashed
//! when full, and zero-padded to a block boundary. Held AAD is always followed by zeros up
//! to its block boundary (each way of adding it writes them), so the one-pass path need
//! not pad it.

use super::{Message, BLOCK, HOLD};
use crate::backend::partial::{load_partial, store_block, PARTIAL_MASK};
use crate::gcm::core::BlockKey;
use crate::gcm::Key;

impl Message {
    /// Appends GHASH input to `held`, hashing it whenever it fills; whole blocks of a long
    /// input are hashed straight from it once `held` is empty. (Not inlined, so that the
    /// one-block AAD of `aad` needs no registers saved.)
    #[inline(never)]
    pub(super) fn hold(&mut self, key: &Key, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let used = self.held_len as usize;
            if used == 0 && bytes.len() >= HOLD {
                let whole = bytes.len() / BLOCK * BLOCK;
                key.ghash(&mut self.core.y, &bytes[..whole]);
                bytes = &bytes[whole..];
                continue;
            }
            let n = bytes.len().min(HOLD - used);
            let short = n < BLOCK && used + BLOCK <= HOLD;
            if short {
                // A short piece (a TLS header) as one 16-byte store, not a memcpy call;
                // the bytes after it in `held` are not in use.
                // SAFETY: `bytes` holds `n` readable bytes; `held` 16 writable at `used`.
                unsafe {
                    store_block(
                        self.held[used..].as_mut_ptr(),
                        load_partial(bytes.as_ptr(), n),
                    )
                };
            } else {
                self.held[used..used + n].copy_from_slice(&bytes[..n]);
            }
            // Zeros from the end up to the block boundary (the short store wrote those in
            // its 16 bytes): what is held is always padded in place.
            let end = used + n;
            let written = if short { used + BLOCK } else { end };
            let pad = end.next_multiple_of(BLOCK).min(HOLD);
            if pad > written {
                self.held[written..pad].fill(0);
            }
            self.held_len += n as u8;
            bytes = &bytes[n..];
            if self.held_len as usize == HOLD {
                self.flush_held(key);
            }
        }
    }

    /// Hashes what `held` holds (a whole number of blocks).
    pub(super) fn flush_held(&mut self, key: &Key) {
        let n = self.held_len as usize;
        debug_assert!(n % BLOCK == 0);
        key.ghash(&mut self.core.y, &self.held[..n]);
        self.held_len = 0;
    }

    /// Zero-pads `held` to a block boundary (the end of the AAD, or of the data).
    pub(super) fn pad_held(&mut self) {
        let n = self.held_len as usize;
        let used = n % BLOCK;
        if used != 0 {
            let start = n - used;
            // The mask of `used` bytes as two words of PARTIAL_MASK (no 128-bit shift).
            let mask = &PARTIAL_MASK[BLOCK - used..2 * BLOCK - used];
            for half in 0..2 {
                let at = start + 8 * half;
                let m = u64::from_le_bytes(mask[8 * half..8 * half + 8].try_into().unwrap());
                let w = u64::from_le_bytes(self.held[at..at + 8].try_into().unwrap()) & m;
                self.held[at..at + 8].copy_from_slice(&w.to_le_bytes());
            }
            self.held_len = (start + BLOCK) as u8;
        }
    }
}
