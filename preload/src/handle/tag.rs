//! The tag of libgcrypt's GCM handle: `gettag` and `checktag` finish the message (or,
//! without an IV, take libgcrypt's `tagiv`: zero, or E(K, J0) of the last message left
//! unfinished) and repeat that tag afterwards.

use super::code::*;
use super::{live, status, GcmHandle};
use stitchgcm::{Key, Message};

/// libgcrypt's `tagiv` as far as it outlives a message. Inline, not boxed: a secure
/// handle keeps it in its locked pages.
#[allow(clippy::large_enum_variant)]
pub(super) enum TagIv {
    /// Zero: after open, reset, or once the tag has been computed.
    Zero,
    /// E(K, J0) of `GcmHandle::iv` under the current key.
    Live,
    /// A finished empty message whose tag is E(K, J0) under an earlier key.
    Frozen(Message),
}

/// The empty message under `iv`, finished: its tag is E(K, J0). (`iv` is the IV of a
/// message that started, so `None` does not happen.)
pub(super) fn mask_message(key: &Key, iv: &[u8]) -> Option<Message> {
    let mut m = Message::new(key, iv).ok()?;
    let mut t = [0u8; 16];
    let _ = m.tag(key, &mut t);
    t.fill(0);
    Some(m)
}

/// libgcrypt's tag-length gate: 4, 8, 12..16 bytes, or more (of which 16 are used).
fn tag_len_ok(n: usize) -> bool {
    matches!(n, 4 | 8 | 12..)
}

/// Where a computed tag is kept.
#[derive(Clone, Copy)]
enum Holder {
    Message,
    WithoutIv,
    Zero,
}

impl GcmHandle {
    /// Computes the tag if it is not yet: of the message, or libgcrypt's tag without IV.
    fn finish(&mut self) -> Result<Holder, u32> {
        let key = self.key.as_ref().ok_or(INV_STATE)?;
        if !self.tagged {
            if let Some(m) = live(&mut self.msg, self.has_iv) {
                let mut t = [0u8; 16];
                let _ = m.tag(key, &mut t);
                t.fill(0);
            } else {
                self.tag_without_iv = match core::mem::replace(&mut self.tagiv, TagIv::Zero) {
                    TagIv::Zero => None,
                    TagIv::Live => mask_message(key, self.iv.get()),
                    TagIv::Frozen(m) => Some(m),
                };
            }
            self.tagged = true;
            self.tagiv = TagIv::Zero;
            self.sync_rare();
        }
        Ok(if self.has_iv {
            Holder::Message
        } else if self.tag_without_iv.is_some() {
            Holder::WithoutIv
        } else {
            Holder::Zero
        })
    }

    /// The key and the finished message that holds the tag (none for the zero tag).
    fn holder(&mut self, h: Holder) -> (Option<&Key>, Option<&mut Message>) {
        let m = match h {
            Holder::Message => live(&mut self.msg, self.has_iv),
            Holder::WithoutIv => self.tag_without_iv.as_mut(),
            Holder::Zero => None,
        };
        (self.key.as_ref(), m)
    }

    /// `gettag`: the first `min(len, 16)` bytes of the tag.
    ///
    /// # Safety
    /// `out` is NULL or writable for `min(len, 16)` bytes.
    pub unsafe fn gettag(&mut self, out: *mut u8, len: usize) -> u32 {
        if !tag_len_ok(len) || self.over_limit {
            return INV_LENGTH;
        }
        if let (Some(key), Some(m), false) = (
            self.key.as_ref(),
            live(&mut self.msg, self.has_iv),
            out.is_null(),
        ) {
            // The usual case, in one step: the message computes (or repeats) its tag.
            // SAFETY: non-NULL and writable for min(len, 16) bytes (caller's contract).
            let out = unsafe { core::slice::from_raw_parts_mut(out, len.min(16)) };
            self.tagged = true;
            self.tagiv = TagIv::Zero;
            self.rare = self.tag_without_iv.is_some(); // sync_rare, field by field
            return status(m.tag(key, out));
        }
        let h = match self.finish() {
            Ok(h) => h,
            Err(e) => return e,
        };
        if out.is_null() {
            return INV_ARG; // libgcrypt would write through NULL
        }
        // SAFETY: non-NULL and writable for min(len, 16) bytes (caller's contract).
        let out = unsafe { core::slice::from_raw_parts_mut(out, len.min(16)) };
        match self.holder(h) {
            (Some(key), Some(m)) => status(m.tag(key, out)),
            _ => {
                out.fill(0);
                0
            }
        }
    }

    /// `checktag`: 0 if the first `len` bytes match, CHECKSUM if not or if `len` > 16.
    ///
    /// # Safety
    /// `tag` is NULL or readable for `len` bytes.
    pub unsafe fn checktag(&mut self, tag: *const u8, len: usize) -> u32 {
        if !tag_len_ok(len) || self.over_limit {
            return INV_LENGTH;
        }
        if let (Some(key), Some(m), false, true) = (
            self.key.as_ref(),
            live(&mut self.msg, self.has_iv),
            tag.is_null(),
            len <= 16,
        ) {
            // The usual case, in one step (the message computes its tag if need be).
            // SAFETY: non-NULL and readable for `len` bytes (caller's contract).
            let tag = unsafe { core::slice::from_raw_parts(tag, len) };
            self.tagged = true;
            self.tagiv = TagIv::Zero;
            self.rare = self.tag_without_iv.is_some(); // sync_rare, field by field
            return status(m.verify(key, tag));
        }
        let h = match self.finish() {
            Ok(h) => h,
            Err(e) => return e,
        };
        if len > 16 {
            return CHECKSUM;
        }
        if tag.is_null() {
            return INV_ARG; // libgcrypt would read through NULL
        }
        // SAFETY: non-NULL and readable for `len` bytes (caller's contract).
        let tag = unsafe { core::slice::from_raw_parts(tag, len) };
        match self.holder(h) {
            (Some(key), Some(m)) => status(m.verify(key, tag)),
            // The expected tag is all zero (no secret): an OR over every byte, no early exit.
            _ if tag.iter().fold(0, |a, b| a | b) == 0 => 0,
            _ => CHECKSUM,
        }
    }
}
