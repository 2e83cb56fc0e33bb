//! [`Message`]: one message in progress over a [`Core`], for callers who split AAD and
//! data anywhere (libgcrypt's rules and the native C API).
//!
//! A one-block buffer holds AAD until a whole block is there, and during the data phase
//! the ciphertext of the block a call left open, with its keystream; whole blocks in
//! between go straight to the fused kernel. E(K, J0), the tag mask, is computed with the
//! first data (as one more lane of the kernel, or beside the first keystream block), so
//! a short message does not pay a separate block encryption for it. The phase is
//! tracked, the SP 800-38D length limits are enforced before any state changes, and the
//! tag is compared in constant time.

use super::core::{BlockKey, Core};
use super::{tag_len_ok, xor_keystream, Direction, Key, BLOCK, MAX_AAD, MAX_DATA};
use crate::error::Error;
use crate::secret::{ct_eq, wipe_bytes};

#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Aad = 0,
    Data = 1,
    Done = 2,
}

/// A message in progress: any split of AAD and data, either direction, in place or not.
/// Wiped on drop.
#[repr(C)]
#[derive(Clone)]
pub struct Message {
    core: Core,
    /// AAD phase: pending AAD bytes. Data phase: ciphertext bytes of the current block.
    pending: [u8; 16],
    /// Keystream of the current partial data block.
    keystream: [u8; 16],
    /// The tag once computed (phase Done).
    tag: [u8; 16],
    /// E(K, J0), computed with the first data.
    mask: [u8; 16],
    pending_len: u8,
    phase: Phase,
    mask_ready: bool,
}

impl Message {
    /// Starts a message under `key` with `iv` (at least one byte).
    pub fn new(key: &Key, iv: &[u8]) -> Result<Message, Error> {
        if iv.is_empty() || iv.len() as u64 > MAX_AAD {
            return Err(Error::InvalidLength);
        }
        Ok(Message {
            core: Core::start(key, iv),
            pending: [0; 16],
            keystream: [0; 16],
            tag: [0; 16],
            mask: [0; 16],
            pending_len: 0,
            phase: Phase::Aad,
            mask_ready: false,
        })
    }

    /// Adds associated data; any length, any number of calls, before the first data.
    pub fn aad(&mut self, key: &Key, mut aad: &[u8]) -> Result<(), Error> {
        if self.phase != Phase::Aad {
            return Err(Error::InvalidState);
        }
        let total = self.core.aad_len + self.pending_len as u64;
        if aad.len() as u64 > MAX_AAD - total {
            return Err(Error::InvalidLength);
        }
        let used = self.pending_len as usize;
        if used > 0 {
            let n = aad.len().min(BLOCK - used);
            self.pending[used..used + n].copy_from_slice(&aad[..n]);
            self.pending_len += n as u8;
            aad = &aad[n..];
            if self.pending_len as usize == BLOCK {
                self.core.aad(key, &self.pending);
                self.pending_len = 0;
            }
        }
        let whole = aad.len() / BLOCK * BLOCK;
        self.core.aad(key, &aad[..whole]);
        let rest = &aad[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len += rest.len() as u8;
        Ok(())
    }

    /// Encrypts `buf` in place.
    pub fn encrypt(&mut self, key: &Key, buf: &mut [u8]) -> Result<(), Error> {
        let (src, dst, len) = (buf.as_ptr(), buf.as_mut_ptr(), buf.len());
        // SAFETY: `buf` is valid for reads and writes of its length; src == dst.
        unsafe { self.crypt_raw(key, Direction::Encrypt, src, dst, len) }
    }

    /// Decrypts `buf` in place. The plaintext must not be trusted until [`Message::verify`].
    pub fn decrypt(&mut self, key: &Key, buf: &mut [u8]) -> Result<(), Error> {
        let (src, dst, len) = (buf.as_ptr(), buf.as_mut_ptr(), buf.len());
        // SAFETY: as in `encrypt`.
        unsafe { self.crypt_raw(key, Direction::Decrypt, src, dst, len) }
    }

    /// Encrypts `src` into the first `src.len()` bytes of `dst`.
    pub fn encrypt_to(&mut self, key: &Key, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        self.crypt_to(key, Direction::Encrypt, src, dst)
    }

    /// Decrypts `src` into the first `src.len()` bytes of `dst`.
    pub fn decrypt_to(&mut self, key: &Key, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        self.crypt_to(key, Direction::Decrypt, src, dst)
    }

    fn crypt_to(
        &mut self,
        key: &Key,
        dir: Direction,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<(), Error> {
        if dst.len() < src.len() {
            return Err(Error::BufferTooShort);
        }
        // SAFETY: distinct borrows cannot overlap; both hold `src.len()` bytes.
        unsafe { self.crypt_raw(key, dir, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
    }

    /// Encrypts or decrypts `len` bytes from `src` to `dst`, any split: first the block a
    /// previous call left open, then whole blocks through the fused kernel, then a new
    /// open block with the rest.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; they are equal or disjoint.
    pub(crate) unsafe fn crypt_raw(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        if self.phase == Phase::Done {
            return Err(Error::InvalidState);
        }
        // Checked before any state changes, so that a rejected call changes nothing.
        if len as u64 > MAX_DATA - self.data_len() {
            return Err(Error::InvalidLength);
        }
        if self.phase == Phase::Aad {
            self.flush_aad(key);
            self.phase = Phase::Data;
        }
        // SAFETY (all three): each phase works on the next bytes of both buffers and
        // returns how many it took; the offsets never pass `len`.
        let mut done = unsafe { self.fill_open_block(key, dir, src, dst, len) };
        done += unsafe { self.whole_blocks(key, dir, src.add(done), dst.add(done), len - done) };
        unsafe { self.open_block(key, dir, src.add(done), dst.add(done), len - done) };
        Ok(())
    }

    /// Continues the partial block a previous call left open; returns the bytes used.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`].
    unsafe fn fill_open_block(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> usize {
        let used = self.pending_len as usize;
        if used == 0 || len == 0 {
            return 0;
        }
        let n = len.min(BLOCK - used);
        let ks = &self.keystream[used..used + n];
        // SAFETY: n ≤ len bytes of both buffers (caller's contract).
        unsafe { xor_keystream(dir, src, dst, ks, Some(&mut self.pending[used..used + n])) };
        self.pending_len += n as u8;
        if self.pending_len as usize == BLOCK {
            key.ghash(&mut self.core.y, &self.pending);
            self.core.data_len += BLOCK as u64;
            self.pending_len = 0;
        }
        n
    }

    /// The whole blocks of `len` bytes through the fused kernel (the first data of the
    /// message also computes the tag mask); returns the bytes used.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`].
    unsafe fn whole_blocks(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> usize {
        let blocks = len / BLOCK;
        if blocks == 0 {
            return 0;
        }
        let mask = if self.mask_ready {
            None
        } else {
            self.mask = self.core.j0;
            self.mask_ready = true;
            Some(&mut self.mask)
        };
        // SAFETY: 16*blocks ≤ len bytes of both buffers (caller's contract).
        unsafe { self.core.blocks(key, dir, src, dst, blocks, mask) };
        blocks * BLOCK
    }

    /// Opens a new partial block with the last `len` < 16 bytes.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`].
    unsafe fn open_block(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        if len == 0 {
            return;
        }
        debug_assert!(len < BLOCK && self.pending_len == 0);
        if self.mask_ready {
            self.keystream = self.core.next_keystream(key);
        } else {
            (self.keystream, self.mask) = self.core.next_keystream_and_mask(key);
            self.mask_ready = true;
        }
        let ks = &self.keystream[..len];
        // SAFETY: `len` bytes of both buffers (caller's contract).
        unsafe { xor_keystream(dir, src, dst, ks, Some(&mut self.pending[..len])) };
        self.pending_len = len as u8;
    }

    fn flush_aad(&mut self, key: &Key) {
        let n = self.pending_len as usize;
        if n > 0 {
            self.core.aad(key, &self.pending[..n]);
            self.pending_len = 0;
        }
    }

    fn finalize(&mut self, key: &Key) {
        match self.phase {
            Phase::Done => return,
            Phase::Aad => self.flush_aad(key),
            Phase::Data => {
                let n = self.pending_len as usize;
                if n > 0 {
                    self.pending[n..].fill(0);
                    key.ghash(&mut self.core.y, &self.pending);
                    self.core.data_len += n as u64;
                    self.pending_len = 0;
                }
            }
        }
        if !self.mask_ready {
            self.mask = self.core.j0;
            key.encrypt_block(&mut self.mask);
            self.mask_ready = true;
        }
        self.tag = self.core.finish_masked(key, &self.mask);
        wipe_bytes(&mut self.mask);
        wipe_bytes(&mut self.keystream);
        wipe_bytes(&mut self.pending);
        self.phase = Phase::Done;
    }

    /// Writes the first `out.len()` bytes of the tag (4, 8 or 12..=16). Ends the message:
    /// further data is refused; repeated calls return the same tag.
    pub fn tag(&mut self, key: &Key, out: &mut [u8]) -> Result<(), Error> {
        if !tag_len_ok(out.len()) {
            return Err(Error::InvalidLength);
        }
        self.finalize(key);
        out.copy_from_slice(&self.tag[..out.len()]);
        Ok(())
    }

    /// Compares `expected` (4, 8 or 12..=16 bytes) with the tag in constant time.
    pub fn verify(&mut self, key: &Key, expected: &[u8]) -> Result<(), Error> {
        if !tag_len_ok(expected.len()) {
            return Err(Error::InvalidLength);
        }
        self.finalize(key);
        if ct_eq(&self.tag[..expected.len()], expected) {
            Ok(())
        } else {
            Err(Error::TagMismatch)
        }
    }

    /// Total AAD bytes accepted so far.
    pub fn aad_len(&self) -> u64 {
        let pending = if self.phase == Phase::Aad {
            self.pending_len
        } else {
            0
        };
        self.core.aad_len + pending as u64
    }

    /// Total text bytes processed so far.
    pub fn data_len(&self) -> u64 {
        let pending = if self.phase == Phase::Data {
            self.pending_len
        } else {
            0
        };
        self.core.data_len + pending as u64
    }

    /// Overwrites every secret-dependent byte of the message state.
    pub fn wipe(&mut self) {
        self.core.wipe();
        wipe_bytes(&mut self.pending);
        wipe_bytes(&mut self.keystream);
        wipe_bytes(&mut self.tag);
        wipe_bytes(&mut self.mask);
        self.pending_len = 0;
        self.phase = Phase::Done;
    }
}

impl Drop for Message {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl core::fmt::Debug for Message {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Message")
            .field("phase", &self.phase)
            .field("aad_len", &self.aad_len())
            .field("data_len", &self.data_len())
            .finish_non_exhaustive()
    }
}
