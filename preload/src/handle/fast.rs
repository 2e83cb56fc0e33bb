//! The calls of one packet on a keyed handle with a message in progress — reset, a 96-bit
//! IV, one piece of AAD shorter than a block, the data in one call, the full tag — each
//! without the general path's checks, for the exports' fast paths (`lib.rs`). Each either
//! does exactly what the general method does for that state and those arguments, or
//! returns `None` (`false`) having changed nothing, and the caller takes the general method.

use super::tag::TagIv;
use super::{status, Dir, GcmHandle};
use stitchgcm::{Error, Key};

/// Bits of [`GcmHandle::flags`].
const KEY_MARK: u64 = 1 << 8;
const TAGGED: u64 = 1 << 16;
const DATA_STARTED: u64 = 1 << 24;
const OVER_LIMIT: u64 = 1 << 32;
const HAS_IV: u64 = 1 << 40;
const RARE: u64 = 1 << 56;
/// The byte of `unused_without_iv`.
const UNUSED_BYTE: u64 = 0xff << 48;

/// Where the eight flag bytes start (`secure` .. `rare`, declared in that order). Read as a
/// word on x86_64 only; the layout is asserted everywhere.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const FLAGS_AT: usize = core::mem::offset_of!(GcmHandle, secure);
const _: () = assert!(FLAGS_AT % 8 == 0 && core::mem::offset_of!(GcmHandle, rare) == FLAGS_AT + 7);

impl GcmHandle {
    /// The eight flag bytes as one word. The fast paths write them back in one store
    /// ([`GcmHandle::update_flags`]): a word read right after single-byte stores to it is not
    /// store-forwarded and waits for them (about ten cycles on x86). On x86_64 it is one
    /// aligned load; elsewhere a load per byte, which the AArch64 cores' models price
    /// lower (the masks of several flags are no logical immediates there).
    #[inline(always)]
    fn flags(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `GcmHandle` is `repr(C)` with the eight one-byte fields at `FLAGS_AT`
        // (const-asserted), inside the struct; a byte array needs no alignment (the
        // handle's own, 8, makes the word aligned).
        let bytes =
            unsafe { ((self as *const Self as *const u8).add(FLAGS_AT) as *const [u8; 8]).read() };
        #[cfg(not(target_arch = "x86_64"))]
        let bytes = [
            self.secure as u8,
            self.key_mark as u8,
            self.tagged as u8,
            self.data_started as u8,
            self.over_limit as u8,
            self.has_iv as u8,
            self.unused_without_iv,
            self.rare as u8,
        ];
        u64::from_le_bytes(bytes)
    }

    /// Clears the flags in `clear` and sets those in `set` (constants of one-byte bool
    /// flags, or `UNUSED_BYTE` to clear), given `f`, the [`GcmHandle::flags`] read by this
    /// call. On x86_64 one store of the whole word, which the next call's load is
    /// forwarded from; elsewhere the fields named, each a byte store.
    #[inline(always)]
    fn update_flags(&mut self, f: u64, clear: u64, set: u64) {
        debug_assert!(set & !0x0101_0101_0101_0101 == 0 && f == self.flags());
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `flags`; every bool byte written is 0 or 1 (`set` has only bits of
        // one-byte flags), so the fields stay valid.
        unsafe {
            ((self as *mut Self as *mut u8).add(FLAGS_AT) as *mut [u8; 8])
                .write((f & !clear | set).to_le_bytes())
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = f;
            let named = clear | set;
            for (bit, field) in [
                (TAGGED, &mut self.tagged),
                (DATA_STARTED, &mut self.data_started),
                (OVER_LIMIT, &mut self.over_limit),
                (HAS_IV, &mut self.has_iv),
            ] {
                if named & bit != 0 {
                    *field = set & bit != 0;
                }
            }
            if clear & UNUSED_BYTE != 0 {
                self.unused_without_iv = 0;
            }
            // (The fast paths never change `secure`, `key_mark` or `rare`.)
            debug_assert!(named & (0xff | KEY_MARK | RARE) == 0);
        }
    }

    /// [`GcmHandle::reset`] after the tag of a message (the usual reset between packets):
    /// the finished message is left for the next IV or the close to wipe.
    #[inline(always)]
    pub fn reset_finished(&mut self) -> bool {
        let f = self.flags();
        if f & (HAS_IV | TAGGED | RARE) != HAS_IV | TAGGED {
            return false;
        }
        self.update_flags(
            f,
            UNUSED_BYTE | HAS_IV | TAGGED | DATA_STARTED | OVER_LIMIT,
            0,
        );
        // SAFETY: a plain write over `Zero` or `Live` (not `rare`, checked above), which own nothing,
        // so no drop is skipped.
        unsafe { core::ptr::write(&mut self.tagiv, TagIv::Zero) };
        true
    }

    /// [`GcmHandle::setiv`] with a 12-byte IV on a handle with a key, no message in
    /// progress (none, or a finished one) and no tag kept beside the message (the usual
    /// state between packets): always applies then.
    #[inline(always)]
    pub fn setiv_96(&mut self, iv: &[u8; 12]) -> bool {
        // The rare states, whose ending wipes a message, go the general way; so no call is
        // left on this path.
        let Some(key) = self.key.as_ref() else {
            return false;
        };
        // (A pointer, so that the flags can be written while it is kept.)
        let key: *const Key = key;
        let f = self.flags();
        if f & (HAS_IV | TAGGED) == HAS_IV || f & RARE != 0 {
            return false;
        }
        // `unused_without_iv` is left as it is: only read while there is no message, and
        // written by every call that leaves the handle without one (a rejected setiv,
        // reset, setctr). `Message::restart` with 96 bits ends the message in place.
        self.update_flags(f, TAGGED | DATA_STARTED | OVER_LIMIT, HAS_IV);
        // SAFETY: `self.key`, which `update_flags` does not write.
        let _ = self.msg.restart(unsafe { &*key }, iv); // a 96-bit IV is never refused
        self.iv.set_96(iv);
        // SAFETY: a plain write over `Zero` or `Live` (not `rare`, checked above), which own nothing,
        // so no drop is skipped.
        unsafe { core::ptr::write(&mut self.tagiv, TagIv::Live) };
        true
    }

    /// [`GcmHandle::authenticate`] of 1..=15 bytes while the message takes AAD.
    #[inline(always)]
    pub fn authenticate_short(&mut self, aad: &[u8]) -> bool {
        // (A message implies a key: `has_iv` is only set by starting one, which needs the
        // key, and a handle never loses its key.)
        if self.flags() & (HAS_IV | OVER_LIMIT | TAGGED | DATA_STARTED) != HAS_IV {
            return false;
        }
        // The message's first AAD in one store; any other (refused: nothing changed) goes
        // the general way, which gives libgcrypt's answer.
        self.msg.first_short_aad(aad)
    }

    /// [`GcmHandle::crypt`] on a keyed handle with a message in progress, `src` and `out`
    /// equal or disjoint, non-NULL, `len` ≤ the room in `out`.
    ///
    /// # Safety
    /// `src` readable and `out` writable for `len` bytes.
    #[inline(always)]
    pub unsafe fn crypt_fast(
        &mut self,
        dir: Dir,
        out: *mut u8,
        src: *const u8,
        len: usize,
    ) -> Option<u32> {
        let f = self.flags();
        if f & (KEY_MARK | HAS_IV | OVER_LIMIT | TAGGED) != KEY_MARK | HAS_IV {
            return None;
        }
        let key: *const Key = self.key.as_ref()?;
        let (s, d) = (src as usize, out as usize);
        if s != d && (s.wrapping_sub(d) < len || d.wrapping_sub(s) < len) {
            return None; // overlapping: the general path copies the input first
        }
        self.update_flags(f, 0, DATA_STARTED);
        // SAFETY: `self.key`, which `update_flags` does not write.
        let key = unsafe { &*key };
        // SAFETY: `src` readable and `out` writable for `len` bytes (caller's contract),
        // equal or disjoint (checked).
        let r = unsafe {
            match dir {
                Dir::Encrypt => self.msg.encrypt_raw(key, src, out, len),
                Dir::Decrypt => self.msg.decrypt_raw(key, src, out, len),
            }
        };
        // With a message in progress the one refusal is the data limit, which changes
        // nothing in the message; libgcrypt then keeps refusing until the next IV.
        if matches!(r, Err(Error::InvalidLength)) {
            self.over_limit = true;
        }
        Some(status(r))
    }

    /// [`GcmHandle::gettag`] of the full tag that the message's one-pass data call
    /// computed (`Message::provisional_tag`), with no tag mask kept beside the message.
    #[inline(always)]
    pub fn gettag_full(&mut self, out: &mut [u8; 16]) -> bool {
        let f = self.flags();
        if f & (HAS_IV | OVER_LIMIT | RARE) != HAS_IV {
            return false;
        }
        if !self.msg.provisional_tag(out) {
            return false;
        }
        self.update_flags(f, 0, TAGGED);
        // SAFETY: a plain write over `Zero` or `Live` (not `rare`, checked above), which own nothing,
        // so no drop is skipped.
        unsafe { core::ptr::write(&mut self.tagiv, TagIv::Zero) };
        true
    }

    /// [`GcmHandle::checktag`] of 4, 8 or 12..=16 bytes (the caller checked the length)
    /// against a message in progress or finished, with no tag mask kept beside it.
    #[inline(always)]
    pub fn checktag_fast(&mut self, tag: &[u8]) -> Option<u32> {
        let f = self.flags();
        if f & (HAS_IV | OVER_LIMIT | RARE) != HAS_IV {
            return None;
        }
        let key: *const Key = self.key.as_ref()?;
        self.update_flags(f, 0, TAGGED);
        // SAFETY: a plain write over `Zero` or `Live` (not `rare`, checked above), which own nothing,
        // so no drop is skipped.
        unsafe { core::ptr::write(&mut self.tagiv, TagIv::Zero) };
        // SAFETY: `self.key`, which `update_flags` and the write above do not touch.
        Some(status(self.msg.verify(unsafe { &*key }, tag)))
    }
}
