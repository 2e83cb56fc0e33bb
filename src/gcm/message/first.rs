//! The first data call of a [`Message`] whose AAD is all held: one backend call — the
//! one-pass short path, or the whole-message one — writes the output and returns the tag
//! as if the message ended there (the usual case: the next call asks for the tag). The
//! state is left where the regular path would have left it, so that more data can carry
//! on after [`Message::resume`] drops the provisional tag.

use super::{Direction, Message, Phase, BLOCK};
use crate::backend::partial::{load_partial, store_block};
use crate::gcm::core::BlockKey;
use crate::gcm::Key;
use crate::secret::wipe_block;

impl Message {
    /// The first data of a message whose AAD is all in `held`, when AAD and data are
    /// short: the backend's one pass writes the output and the tag as if the message
    /// ended here (the usual case: the next call asks for the tag). The ciphertext is
    /// kept in `held`, and the counter and lengths are where the regular path would have
    /// left them, so that [`Message::resume`] can carry on if more data comes.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`]; `held` has room for the padded AAD and data and
    /// the lengths block.
    #[inline(always)]
    pub(super) unsafe fn first_data_short(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let aad = self.held_len as usize;
        // SAFETY: the caller's contract (room in `held` for the padded AAD, the data and
        // the lengths block) bounds `aad`; said here so that padding needs no index checks.
        unsafe { core::hint::assert_unchecked(aad + BLOCK <= self.held.len()) };
        // The padded ciphertext goes after the padded AAD, whose zeros are in place
        // already (`held.rs`).
        let at = aad.next_multiple_of(BLOCK);
        debug_assert!(self.held[aad..at].iter().all(|&b| b == 0));
        let ct = self.held[at..].as_mut_ptr();
        // SAFETY: `len` bytes of both buffers (caller's contract), room in `held` for the
        // padded ciphertext after the padded AAD.
        self.tag = unsafe {
            key.crypt_short_hold(dir, &self.core.j0, &self.held[..aad], src, dst, len, ct)
        };
        self.counter_past(len.div_ceil(BLOCK));
        self.core.data_len = len as u64;
        self.held_len = (at + len) as u8;
        self.open_len = (len % BLOCK) as u8;
        self.provisional = true;
        self.phase = Phase::Data;
    }

    /// The first data of a message whose AAD is all in `held`, when the one pass does not
    /// take it: the backend's whole-message call writes the output and the tag as if the
    /// message ended here, and leaves GHASH of the AAD and the whole blocks in the core.
    /// `held` then keeps the ciphertext of the partial last block, so that the state is
    /// the regular path's after this call and [`Message::resume`] can carry on from it.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`].
    pub(super) unsafe fn first_data_whole(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let aad = self.held_len as usize;
        let (rest, off) = (len % BLOCK, len / BLOCK * BLOCK);
        // inc32(J0): no data yet
        let at = self.public_ctr();
        // SAFETY: `len` bytes of both buffers (caller's contract); the partial block's
        // ciphertext is read before an in-place decryption overwrites it, or after
        // encryption wrote it, and `held` has 16 bytes for it.
        unsafe {
            let mut open = [0u64; 2];
            if dir == Direction::Decrypt && rest > 0 {
                open = load_partial(src.add(off), rest);
            }
            self.tag = key.crypt_message(
                dir,
                &self.core.j0,
                &self.held[..aad],
                src,
                dst,
                len,
                &mut self.core.y,
                at,
            );
            if dir == Direction::Encrypt && rest > 0 {
                open = load_partial(dst.add(off), rest);
            }
            store_block(self.held.as_mut_ptr(), open);
        }
        self.counter_past(len.div_ceil(BLOCK));
        self.core.data_len = len as u64;
        self.held_len = rest as u8;
        self.open_len = rest as u8;
        self.provisional = true;
        self.phase = Phase::Data;
    }

    /// The counter block `blocks` after the first one (the one pass counts from J0).
    fn counter_past(&mut self, blocks: usize) {
        let j0 = &self.core.j0;
        let c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        self.core.ctr[12..].copy_from_slice(&c.wrapping_add(1 + blocks as u32).to_be_bytes());
    }

    /// More data after [`Message::first_data_short`] or [`Message::first_data_whole`]:
    /// drops the provisional tag and
    /// recovers what the regular path keeps — the tag mask, and the keystream of the
    /// block left open (the counter just before `ctr`).
    pub(super) fn resume(&mut self, key: &Key) {
        self.provisional = false;
        wipe_block(&mut self.tag);
        self.mask = self.core.j0;
        if self.open_len > 0 {
            let mut ks = self.core.ctr;
            let c = u32::from_be_bytes([ks[12], ks[13], ks[14], ks[15]]).wrapping_sub(1);
            ks[12..].copy_from_slice(&c.to_be_bytes());
            key.encrypt_block2(&mut ks, &mut self.mask);
            self.keystream = ks;
        } else {
            key.encrypt_block(&mut self.mask);
        }
        self.mask_ready = true;
    }
}
