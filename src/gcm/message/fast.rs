//! The calls of a TLS record on a [`Message`] — a 96-bit IV, one piece of AAD shorter
//! than a block, the tag after a one-pass data call — each in a few instructions, for
//! front-ends that have already checked their own arguments. Each returns `false`,
//! changing nothing, when the message is not in the state it expects; the caller then
//! takes the general call, which gives the same answer for the same state.

use super::{Message, Phase, BLOCK};
use crate::backend::partial::{load_partial, store_block};
use crate::backend::{Direction, PublicCtr};
use crate::error::Error;
use crate::gcm::Key;
use crate::secret::wipe_block;

/// Where a message's counter comes from, set by the call order (never by comparing counter
/// blocks: J0 is derived from the key for IVs other than 96 bits). One byte, so that
/// `restart_96` sets it, with the position known, in the one store that says the counter
/// was not moved.
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Counter {
    /// `set_counter` moved it off inc32(J0) (the one-pass path counts from J0).
    Moved = 0,
    /// inc32(J0) onwards, J0 from an IV of other than 96 bits (derived from the key).
    FromJ0 = 1,
    /// inc32(J0) onwards with a 96-bit IV: J0 = IV‖0^31‖1, so the counter is 2 plus the
    /// counter blocks used, public ([`Message::public_ctr`]).
    Iv96 = 2,
}

impl Message {
    /// [`Message::restart`] with a 96-bit IV (which needs no key): always applies.
    #[inline(always)]
    pub(crate) fn restart_96(&mut self, iv: &[u8; 12]) {
        // After a tag only the tag is left to wipe: the core is overwritten below. (An
        // idle message takes the same store, so that this is one test.)
        if matches!(self.phase, Phase::Aad | Phase::Data) {
            self.wipe();
        } else {
            wipe_block(&mut self.tag);
        }
        self.core.restart_96(iv);
        self.held_len = 0;
        self.open_len = 0;
        self.mask_ready = false;
        self.provisional = false;
        self.counter = Counter::Iv96;
        self.phase = Phase::Aad;
    }

    /// Whether `set_counter` moved the counter off inc32(J0).
    #[inline(always)]
    pub(super) fn counter_moved(&self) -> bool {
        self.counter == Counter::Moved
    }

    /// The counter's position if it follows from public values alone: with a 96-bit IV and
    /// the counter not moved, 2 plus one counter block per data block so far (a partial
    /// block counts one: the block left open has its keystream). Computed from the call
    /// order and the data length, never read from the counter block, so that kernels may
    /// branch on it.
    #[inline(always)]
    pub(super) fn public_ctr(&self) -> PublicCtr {
        if self.counter == Counter::Iv96 {
            PublicCtr::iv96_after(self.core.data_len.div_ceil(BLOCK as u64))
        } else {
            PublicCtr::UNKNOWN
        }
    }

    /// [`Message::aad`] for the first AAD of a message, 1..=15 bytes: one block store.
    /// `false`, changing nothing, for any other call (then take [`Message::aad`]).
    /// Public for the libgcrypt interposer (`preload/`), not part of the documented API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn first_short_aad(&mut self, aad: &[u8]) -> bool {
        let n = aad.len();
        // One test for the three conditions (a first AAD call after `restart`).
        let others = (self.phase as u64 ^ Phase::Aad as u64) | u64::from(self.held_len);
        // The length test is folded away where the caller has made it (the native handle).
        if others | self.core.aad_len != 0 || n == 0 || n >= BLOCK {
            return false;
        }
        // SAFETY: `aad` holds `n` (1..=15) readable bytes; `held` 16 writable at 0.
        unsafe { store_block(self.held.as_mut_ptr(), load_partial(aad.as_ptr(), n)) };
        self.held_len = n as u8;
        self.core.aad_len = n as u64;
        true
    }

    /// [`Message::tag`] for a full 16-byte tag that the one-pass data call computed.
    /// `false`, changing nothing, otherwise (then take [`Message::tag`]). Public for the
    /// libgcrypt interposer (`preload/`), not part of the documented API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn provisional_tag(&mut self, out: &mut [u8; 16]) -> bool {
        if !self.provisional {
            return false;
        }
        self.end_provisional();
        *out = self.tag;
        true
    }

    /// [`Message::encrypt_to`] on raw pointers, in place or not, as the native handle
    /// calls it: no slices to form, one call for both. Public for the libgcrypt
    /// interposer (`preload/`), not part of the documented API.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; they are equal or disjoint.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn encrypt_raw(
        &mut self,
        key: &Key,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        // SAFETY: forwarded contract.
        unsafe { self.crypt_raw(key, Direction::Encrypt, src, dst, len) }
    }

    /// [`Message::decrypt_to`] on raw pointers, as [`Message::encrypt_raw`].
    ///
    /// # Safety
    /// As for [`Message::encrypt_raw`].
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn decrypt_raw(
        &mut self,
        key: &Key,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        // SAFETY: forwarded contract.
        unsafe { self.crypt_raw(key, Direction::Decrypt, src, dst, len) }
    }
}
