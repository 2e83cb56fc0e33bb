//! [`Message`]: one message in progress over a [`Core`], for callers who split AAD and
//! data anywhere (libgcrypt's rules and the native C API).
//!
//! GHASH input is held back: AAD bytes, then (zero-padded to a block) the ciphertext,
//! collect in a 128-byte buffer and are hashed only when it fills, before a long run
//! through the fused kernel, or at the tag — then together with the lengths block, in
//! one call that aggregates the powers of H with a single reduction. A short message
//! (a TLS record: 13 bytes of AAD, a few blocks of data) is thus hashed once, at the tag,
//! instead of once for its AAD, once for its data and once for its lengths. Its data
//! runs through the CTR kernel; longer data goes straight to the fused CTR+GHASH kernel.
//! E(K, J0), the tag mask, is computed with the first data (as one more lane of the
//! kernel, or beside the first keystream block). The first data call of a message whose
//! AAD is all held goes to the backend in one call — the one-pass short path, or the
//! whole-message one — which returns the tag as if the message ended there; more data
//! drops that provisional tag and carries on. The phase is tracked, the SP 800-38D
//! length limits are enforced before any state changes, and the tag is compared in
//! constant time.

use super::core::{BlockKey, Core};
use super::{tag_len_ok, xor_keystream, Direction, Key, BLOCK, MAX_AAD, MAX_DATA};
use crate::backend::partial::{load_partial, store_block};
use crate::error::Error;
use crate::secret::{ct_eq, wipe_block};

mod fast;
mod first;
mod held;

use fast::Counter;

/// Bytes of AAD and ciphertext held back from GHASH (eight blocks).
const HOLD: usize = 8 * BLOCK;

#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// No message: nothing is accepted until [`Message::restart`].
    Idle = 0,
    Aad = 1,
    Data = 2,
    Done = 3,
}

/// A message in progress: any split of AAD and data, either direction, in place or not.
/// Wiped on drop.
#[repr(C)]
#[derive(Clone)]
pub struct Message {
    core: Core,
    /// GHASH input not yet hashed, in order: AAD, then (from a block boundary) ciphertext.
    held: [u8; HOLD],
    /// Keystream of the open (partial) data block.
    keystream: [u8; 16],
    /// The tag once computed (phase Done).
    tag: [u8; 16],
    /// E(K, J0), computed with the first data.
    mask: [u8; 16],
    held_len: u8,
    /// Bytes of the open data block (its ciphertext ends `held`); 0 when none is open.
    open_len: u8,
    phase: Phase,
    mask_ready: bool,
    /// `tag` holds the tag of the message as if it ended after its data so far (the
    /// one-pass path of a short first data call); more data discards it.
    provisional: bool,
    /// Where the counter comes from: inc32(J0) onwards, with a 96-bit IV or another, or
    /// where `set_counter` moved it ([`Counter`]).
    counter: Counter,
}

impl Message {
    /// Starts a message under `key` with `iv` (at least one byte).
    ///
    /// A `Message` is a 250-byte value: moving it (out of this function's `Result`, into
    /// a struct) copies it with wide stores that the first data call's loads of its state
    /// cannot be forwarded from, which costs about as much as a 16-byte record (bench/rust's
    /// `peers` bench shows it). For one message after another, keep a `Message` in place
    /// and [`restart`](Message::restart) it, or use [`seal_in_place`](crate::seal_in_place)
    /// and [`open_in_place`](crate::open_in_place) for whole messages.
    #[inline]
    pub fn new(key: &Key, iv: &[u8]) -> Result<Message, Error> {
        let mut m = Message::idle();
        m.restart(key, iv)?;
        Ok(m)
    }

    /// No message yet (a handle before its first IV): every call but
    /// [`Message::restart`] is refused with [`Error::InvalidState`].
    pub const fn idle() -> Message {
        Message {
            core: Core::zeroed(),
            held: [0; HOLD],
            keystream: [0; 16],
            tag: [0; 16],
            mask: [0; 16],
            held_len: 0,
            open_len: 0,
            phase: Phase::Idle,
            mask_ready: false,
            provisional: false,
            counter: Counter::FromJ0,
        }
    }

    /// Ends whatever message was in progress and starts a new one in place with `iv` (at
    /// least one byte). On error the message is left idle.
    #[inline(always)]
    pub fn restart(&mut self, key: &Key, iv: &[u8]) -> Result<(), Error> {
        if let Ok(iv96) = <&[u8; 12]>::try_from(iv) {
            self.restart_96(iv96); // the usual IV, inline: no call, no key
            return Ok(());
        }
        self.end();
        if iv.is_empty() || iv.len() as u64 > MAX_AAD {
            return Err(Error::InvalidLength);
        }
        self.core = Core::start(key, iv);
        self.held_len = 0;
        self.open_len = 0;
        self.mask_ready = false;
        self.provisional = false;
        self.counter = Counter::FromJ0;
        self.phase = Phase::Aad;
        Ok(())
    }

    /// Ends the message in progress (its secrets wiped) and leaves this one idle.
    #[inline]
    pub fn end(&mut self) {
        match self.phase {
            Phase::Idle => return,
            // The tag computation already wiped the buffer, keystream and mask.
            Phase::Done => {
                self.core.wipe();
                wipe_block(&mut self.tag);
            }
            Phase::Aad | Phase::Data => self.wipe(),
        }
        self.phase = Phase::Idle;
    }

    /// Prepares the message for a key change in its middle, as libgcrypt handles one:
    /// what came before stays under `old` — the tag mask E(K, J0) (libgcrypt derives it
    /// when the IV is set), the keystream of an open data block, GHASH of the whole blocks
    /// of input so far — and what follows (counter blocks, GHASH of later blocks) uses the
    /// new key. The libgcrypt front-end calls it with the old key before re-keying.
    pub fn before_rekey(&mut self, old: &Key) {
        if !matches!(self.phase, Phase::Aad | Phase::Data) {
            return;
        }
        if self.provisional {
            self.resume(old);
        }
        if !self.mask_ready {
            self.mask = self.core.j0;
            old.encrypt_block(&mut self.mask);
            self.mask_ready = true;
        }
        // Hash the whole blocks held back; a partial block (AAD, or the open data block,
        // which starts on a block boundary) moves to the front.
        let n = self.held_len as usize;
        let whole = n / BLOCK * BLOCK;
        if whole > 0 {
            old.ghash(&mut self.core.y, &self.held[..whole]);
            self.held.copy_within(whole..n, 0);
            self.held_len = (n - whole) as u8;
        }
    }

    /// Replaces the counter block the next data starts from (libgcrypt's `setctr` on a
    /// GCM handle). Only between whole blocks of data: inside a partial data block the
    /// keystream and GHASH blocks would come apart, which this state cannot represent
    /// (`InvalidState`). J0, and so the tag mask, stays.
    pub fn set_counter(&mut self, ctr: &[u8; 16]) -> Result<(), Error> {
        if self.phase == Phase::Data && self.open_len > 0 {
            return Err(Error::InvalidState);
        }
        self.core.ctr = *ctr;
        self.counter = Counter::Moved;
        Ok(())
    }

    /// Adds associated data; any length, any number of calls, before the first data.
    #[inline]
    pub fn aad(&mut self, key: &Key, aad: &[u8]) -> Result<(), Error> {
        if self.phase != Phase::Aad {
            return Err(Error::InvalidState);
        }
        if aad.len() as u64 > MAX_AAD - self.core.aad_len {
            return Err(Error::InvalidLength);
        }
        let (used, n) = (self.held_len as usize, aad.len());
        if used == 0 && n > 0 && n < BLOCK {
            // The usual AAD (a TLS or ESP header) in one piece: one block store.
            // SAFETY: `aad` holds `n` readable bytes; `held` 16 writable at 0.
            unsafe { store_block(self.held.as_mut_ptr(), load_partial(aad.as_ptr(), n)) };
            self.held_len = n as u8;
        } else {
            self.hold(key, aad);
        }
        self.core.aad_len += n as u64;
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
    /// previous call left open, then whole blocks, then a new open block with the rest.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; they are equal or disjoint.
    #[inline]
    pub(crate) unsafe fn crypt_raw(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        // The usual first (and only) data call of a short message, all its AAD held: the
        // backend's one pass, with the checks of `crypt_general` that apply (the phase is
        // Aad, so no data came yet and the length limit is the whole one).
        // `held` must take the padded AAD and data and the lengths block (which bounds
        // `len` far below MAX_DATA).
        if self.phase == Phase::Aad && self.whole_message() && len < HOLD {
            let aad = self.held_len as usize;
            if aad.div_ceil(BLOCK) + len.div_ceil(BLOCK) < HOLD / BLOCK && key.fits_short(aad, len)
            {
                // SAFETY: forwarded from the caller; room in `held` checked above.
                unsafe { self.first_data_short(key, dir, src, dst, len) };
                return Ok(());
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.crypt_general(key, dir, src, dst, len) }
    }

    /// Whether all the AAD so far is held and the one-pass paths may take the first data:
    /// not after `before_rekey`, whose mask is the old key's, nor after `set_counter` (the
    /// one pass counts from J0). Both are flags set by the call order: comparing counter
    /// blocks would branch on J0, which for IVs other than 96 bits is derived from the key.
    #[inline(always)]
    fn whole_message(&self) -> bool {
        self.core.aad_len == self.held_len as u64 && !self.mask_ready && !self.counter_moved()
    }

    /// [`Message::crypt_raw`] for everything but the one pass of a short message.
    ///
    /// # Safety
    /// As for [`Message::crypt_raw`].
    #[inline(never)]
    unsafe fn crypt_general(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        if matches!(self.phase, Phase::Idle | Phase::Done) {
            return Err(Error::InvalidState);
        }
        // Checked before any state changes, so that a rejected call changes nothing.
        if len as u64 > MAX_DATA - self.core.data_len {
            return Err(Error::InvalidLength);
        }
        if self.phase == Phase::Aad {
            if self.whole_message() {
                let aad = self.held_len as usize;
                let end = aad.next_multiple_of(BLOCK) + len.next_multiple_of(BLOCK);
                // SAFETY (both): forwarded from the caller.
                if end + BLOCK <= HOLD && key.fits_short(aad, len) {
                    unsafe { self.first_data_short(key, dir, src, dst, len) };
                } else {
                    unsafe { self.first_data_whole(key, dir, src, dst, len) };
                }
                return Ok(());
            }
            self.pad_held();
            self.phase = Phase::Data;
        } else if self.provisional {
            self.resume(key);
        }
        // SAFETY (all three): each phase works on the next bytes of both buffers and
        // returns how many it took; the offsets never pass `len`.
        let mut done = unsafe { self.fill_open_block(key, dir, src, dst, len) };
        done += unsafe { self.whole_blocks(key, dir, src.add(done), dst.add(done), len - done) };
        unsafe { self.open_block(key, dir, src.add(done), dst.add(done), len - done) };
        self.core.data_len += len as u64;
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
        let used = self.open_len as usize;
        if used == 0 || len == 0 {
            return 0;
        }
        let n = len.min(BLOCK - used);
        let at = self.held_len as usize;
        let ks = &self.keystream[used..used + n];
        // SAFETY: n ≤ len bytes of both buffers (caller's contract); `open_block` left
        // room in `held` for the whole open block.
        unsafe { xor_keystream(dir, src, dst, ks, Some(&mut self.held[at..at + n])) };
        self.held_len += n as u8;
        self.open_len = ((used + n) % BLOCK) as u8;
        if self.held_len as usize == HOLD {
            self.flush_held(key);
        }
        n
    }

    /// The whole blocks of `len` bytes: through the CTR kernel into `held` while they fit
    /// there with room for the lengths block, else through the fused kernel after
    /// hashing `held`. The first data of the message also computes the tag mask.
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
        let bytes = blocks * BLOCK;
        let at = self.held_len as usize;
        if at + bytes + BLOCK <= HOLD {
            if dir == Direction::Decrypt {
                // SAFETY: `bytes` readable at `src`, room in `held`; read before an
                // in-place decryption overwrites it.
                unsafe { core::ptr::copy_nonoverlapping(src, self.held[at..].as_mut_ptr(), bytes) };
            }
            if !self.mask_ready {
                self.mask = self.core.j0;
                key.encrypt_block(&mut self.mask);
                self.mask_ready = true;
            }
            // SAFETY: `bytes` ≤ len bytes of both buffers (caller's contract).
            unsafe { key.ctr(&mut self.core.ctr, src, dst, blocks) };
            if dir == Direction::Encrypt {
                // SAFETY: the ciphertext just written; room in `held`.
                unsafe { core::ptr::copy_nonoverlapping(dst, self.held[at..].as_mut_ptr(), bytes) };
            }
            self.held_len += bytes as u8;
        } else {
            self.flush_held(key);
            let at = self.public_ctr();
            debug_assert!(at
                .low32()
                .is_none_or(|c| c.to_be_bytes() == self.core.ctr[12..]));
            let mask = if self.mask_ready {
                None
            } else {
                self.mask = self.core.j0;
                self.mask_ready = true;
                Some(&mut self.mask)
            };
            // SAFETY: `bytes` ≤ len bytes of both buffers (caller's contract).
            unsafe {
                key.crypt_blocks_at(
                    dir,
                    &mut self.core.ctr,
                    &mut self.core.y,
                    src,
                    dst,
                    blocks,
                    mask,
                    at,
                )
            };
        }
        bytes
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
        debug_assert!(len < BLOCK && self.open_len == 0 && self.held_len as usize % BLOCK == 0);
        if self.held_len as usize + 2 * BLOCK > HOLD {
            // Keep room for the whole block and the lengths block after it.
            self.flush_held(key);
        }
        if self.mask_ready {
            self.keystream = self.core.next_keystream(key);
        } else {
            (self.keystream, self.mask) = self.core.next_keystream_and_mask(key);
            self.mask_ready = true;
        }
        let at = self.held_len as usize;
        let ks = &self.keystream[..len];
        // SAFETY: `len` bytes of both buffers (caller's contract); room in `held`.
        unsafe { xor_keystream(dir, src, dst, ks, Some(&mut self.held[at..at + len])) };
        self.held_len += len as u8;
        self.open_len = len as u8;
    }

    /// The provisional tag becomes the message's (the message ends after its data so far).
    #[inline(always)]
    fn end_provisional(&mut self) {
        debug_assert!(self.phase == Phase::Data);
        self.provisional = false;
        self.held_len = 0;
        self.open_len = 0;
        self.phase = Phase::Done;
    }

    /// Computes the tag: the rest of `held` and the lengths block in one GHASH call.
    #[inline(never)]
    fn finalize(&mut self, key: &Key) -> Result<(), Error> {
        match self.phase {
            Phase::Idle => return Err(Error::InvalidState),
            Phase::Done => return Ok(()),
            Phase::Aad | Phase::Data => {}
        }
        if self.provisional {
            self.end_provisional();
            return Ok(());
        }
        self.pad_held();
        if self.held_len as usize + BLOCK > HOLD {
            self.flush_held(key);
        }
        let at = self.held_len as usize;
        // SAFETY: room for the lengths block was kept above.
        unsafe { store_block(self.held[at..].as_mut_ptr(), self.core.lengths_halves()) };
        key.ghash(&mut self.core.y, &self.held[..at + BLOCK]);
        if !self.mask_ready {
            self.mask = self.core.j0;
            key.encrypt_block(&mut self.mask);
            self.mask_ready = true;
        }
        for (t, (m, y)) in self.tag.iter_mut().zip(self.mask.iter().zip(self.core.y)) {
            *t = m ^ y;
        }
        wipe_block(&mut self.mask);
        wipe_block(&mut self.keystream);
        self.held_len = 0;
        self.open_len = 0;
        self.phase = Phase::Done;
        Ok(())
    }

    /// Writes the first `out.len()` bytes of the tag (4, 8 or 12..=16). Ends the message:
    /// further data is refused; repeated calls return the same tag.
    #[inline]
    pub fn tag(&mut self, key: &Key, out: &mut [u8]) -> Result<(), Error> {
        if !tag_len_ok(out.len()) {
            return Err(Error::InvalidLength);
        }
        if self.provisional {
            // The usual case: the one pass of the only data call computed the tag.
            self.end_provisional();
        } else {
            self.finalize(key)?;
        }
        if let Ok(full) = <&mut [u8; 16]>::try_from(&mut *out) {
            // The usual full tag as one 16-byte copy, not a memcpy call.
            *full = self.tag;
        } else {
            out.copy_from_slice(&self.tag[..out.len()]);
        }
        Ok(())
    }

    /// Compares `expected` (4, 8 or 12..=16 bytes) with the tag in constant time.
    /// (Inline: the libgcrypt interposer's per-packet checktag calls it from its crate.)
    #[inline]
    pub fn verify(&mut self, key: &Key, expected: &[u8]) -> Result<(), Error> {
        if !tag_len_ok(expected.len()) {
            return Err(Error::InvalidLength);
        }
        self.finalize(key)?;
        if ct_eq(&self.tag[..expected.len()], expected) {
            Ok(())
        } else {
            Err(Error::TagMismatch)
        }
    }

    /// Total AAD bytes accepted so far.
    pub fn aad_len(&self) -> u64 {
        self.core.aad_len
    }

    /// Total text bytes processed so far.
    pub fn data_len(&self) -> u64 {
        self.core.data_len
    }

    /// Overwrites every secret-dependent byte of the message state (`held` holds AAD and
    /// ciphertext only, which are public). Always inline: a few stores, so that the
    /// callers' fast paths (`restart_96`, also from the libgcrypt interposer) make no call.
    #[inline(always)]
    pub fn wipe(&mut self) {
        self.core.wipe();
        wipe_block(&mut self.keystream);
        wipe_block(&mut self.tag);
        wipe_block(&mut self.mask);
        self.held_len = 0;
        self.open_len = 0;
        self.mask_ready = false;
        self.provisional = false;
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
