//! The GCM mode (NIST SP 800-38D): the only place that knows GCM.
//!
//! Two layers, both plain data (no pointers, no heap) so they may live in a heap handle
//! or inside caller-owned C memory and survive `memcpy`:
//!
//! - [`Core`] is the 64-byte per-message state with nettle's `struct gcm_ctx` layout
//!   (J0, counter, GHASH state, AAD and text byte counts). It accepts data in whole
//!   blocks plus one final partial block per phase, like nettle.
//! - [`Message`] wraps a `Core` with a one-block buffer so that callers may split AAD and
//!   data anywhere (libgcrypt and the native C API allow it), tracks the phase, enforces
//!   the length limits and computes and checks tags.
//!
//! The kernels see whole blocks only; this file does J0, inc32, padding, the lengths
//! block, truncation and the constant-time tag comparison.

pub(crate) use crate::backend::Direction;
use crate::backend::{self as cpu, with_backend, Backend, BackendId, Material};
use crate::error::Error;
use crate::secret::{ct_eq, wipe_bytes};

pub const BLOCK: usize = 16;
/// Largest tag; tags may be truncated to 4, 8 or 12..=16 bytes.
pub const TAG_LEN: usize = 16;
/// SP 800-38D: at most 2^39 − 256 bits of text per IV.
pub const MAX_DATA: u64 = (1 << 36) - 32;
/// SP 800-38D: at most 2^64 − 1 bits of AAD (and of IV).
pub const MAX_AAD: u64 = (1 << 61) - 1;

/// Whether `len` is a tag length SP 800-38D allows (4 and 8 only for special uses).
pub const fn tag_len_ok(len: usize) -> bool {
    matches!(len, 4 | 8 | 12..=16)
}

/// An expanded AES-GCM key for one backend. Wiped on drop.
#[repr(C, align(16))]
#[derive(Clone)]
pub struct Key {
    material: Material,
    backend: u8,
    key_len: u8,
}

impl Key {
    /// Expands `key` (16, 24 or 32 bytes) for the selected backend (see [`cpu::selected`]).
    pub fn new(key: &[u8]) -> Result<Key, Error> {
        Key::with_backend(key, cpu::selected()?)
    }

    /// Expands `key` for a given backend (tests use this to compare backends).
    pub fn with_backend(key: &[u8], backend: BackendId) -> Result<Key, Error> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(Error::InvalidKeyLength);
        }
        if !backend.is_available() {
            return Err(Error::NotSupported);
        }
        let mut k = Key {
            material: Material::zeroed(),
            backend: backend as u8,
            key_len: key.len() as u8,
        };
        with_backend!(backend, B => B::init(&mut k.material, key));
        Ok(k)
    }

    /// [`Key::with_backend`] into existing memory (caller-owned C structs), so that no
    /// copy of the expanded key is left behind on the stack.
    pub(crate) fn init_in_place(&mut self, key: &[u8], backend: BackendId) -> Result<(), Error> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(Error::InvalidKeyLength);
        }
        if !backend.is_available() {
            return Err(Error::NotSupported);
        }
        self.material.wipe();
        self.backend = backend as u8;
        self.key_len = key.len() as u8;
        with_backend!(backend, B => B::init(&mut self.material, key));
        Ok(())
    }

    /// Whether the stored backend id names a backend of this build (a check on keys found
    /// in caller-owned memory; the CPU was checked when the key was set up).
    pub(crate) fn is_usable(&self) -> bool {
        BackendId::from_u8(self.backend).is_some() && matches!(self.key_len, 16 | 24 | 32)
    }

    pub fn backend(&self) -> BackendId {
        // `backend` is only ever written from a valid id in `with_backend`.
        BackendId::from_u8(self.backend).unwrap_or(BackendId::Soft)
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend().name()
    }

    /// Key size in bytes (16, 24 or 32).
    pub fn key_len(&self) -> usize {
        self.key_len as usize
    }

    /// Overwrites all key material. The key is unusable afterwards until re-expanded.
    pub fn wipe(&mut self) {
        self.material.wipe();
    }

    pub(crate) fn encrypt_block(&self, block: &mut [u8; 16]) {
        with_backend!(self.backend(), B => B::encrypt_block(&self.material, block))
    }

    fn encrypt_block2(&self, a: &mut [u8; 16], b: &mut [u8; 16]) {
        with_backend!(self.backend(), B => B::encrypt_block2(&self.material, a, b))
    }

    fn ghash(&self, y: &mut [u8; 16], data: &[u8]) {
        debug_assert!(data.len() % BLOCK == 0);
        // SAFETY: `data` is a valid slice of `data.len()` bytes, a multiple of 16.
        with_backend!(self.backend(), B => unsafe {
            B::ghash(&self.material, y, data.as_ptr(), data.len() / BLOCK)
        })
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Key")
            .field("backend", &self.backend_name())
            .field("key_len", &self.key_len)
            .finish_non_exhaustive()
    }
}

/// What [`Core`] needs from a key: one-block encryption, GHASH, and CTR+GHASH over whole
/// blocks. [`Key`] implements it with a backend's fused kernels; the nettle front-end
/// implements it for a caller-supplied block cipher (nettle's generic `gcm_*` functions
/// accept any 128-bit cipher), so the GCM rules stay in this file either way.
pub(crate) trait BlockKey {
    fn encrypt_block(&self, block: &mut [u8; 16]);

    /// y = GHASH_H(y, data); `data` is whole blocks.
    fn ghash(&self, y: &mut [u8; 16], data: &[u8]);

    /// CTR over `blocks` whole blocks from `ctr` (advanced, inc32), with GHASH of the
    /// ciphertext into `y`.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; equal or disjoint.
    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
    );
}

impl BlockKey for Key {
    fn encrypt_block(&self, block: &mut [u8; 16]) {
        Key::encrypt_block(self, block)
    }

    fn ghash(&self, y: &mut [u8; 16], data: &[u8]) {
        Key::ghash(self, y, data)
    }

    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
    ) {
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt(&self.material, dir, ctr, y, src, dst, blocks, None)
        })
    }
}

/// Per-message state, laid out as nettle's `struct gcm_ctx` (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Core {
    /// J0, the pre-counter block; E(K, J0) masks the tag.
    pub j0: [u8; 16],
    /// The next counter block.
    pub ctr: [u8; 16],
    /// GHASH accumulator (big-endian field element as in the spec).
    pub y: [u8; 16],
    /// AAD bytes absorbed.
    pub aad_len: u64,
    /// Text bytes processed.
    pub data_len: u64,
}

impl Core {
    /// Starts a message: J0 = IV‖0^31‖1 for 96-bit IVs, else GHASH(IV‖pad‖[len(IV)]64).
    /// Any IV length is accepted here (nettle accepts 0); callers enforce their rules.
    pub(crate) fn start(key: &impl BlockKey, iv: &[u8]) -> Core {
        if let Ok(iv96) = <&[u8; 12]>::try_from(iv) {
            return Core::start_96(iv96);
        }
        let mut j0 = [0u8; 16];
        {
            let whole = iv.len() / BLOCK * BLOCK;
            key.ghash(&mut j0, &iv[..whole]);
            let mut last = [0u8; 16];
            last[..iv.len() - whole].copy_from_slice(&iv[whole..]);
            if iv.len() > whole {
                key.ghash(&mut j0, &last);
            }
            last = [0u8; 16];
            last[8..].copy_from_slice(&(iv.len() as u64).wrapping_mul(8).to_be_bytes());
            key.ghash(&mut j0, &last);
        }
        Core::with_j0(j0)
    }

    /// [`Core::start`] for a 96-bit IV, which needs no key: J0 = IV‖0^31‖1.
    pub(crate) fn start_96(iv: &[u8; 12]) -> Core {
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(iv);
        j0[15] = 1;
        Core::with_j0(j0)
    }

    fn with_j0(j0: [u8; 16]) -> Core {
        let mut ctr = j0;
        inc32(&mut ctr);
        Core {
            j0,
            ctr,
            y: [0; 16],
            aad_len: 0,
            data_len: 0,
        }
    }

    /// Absorbs AAD; all but the last call of a message must be multiples of 16 bytes
    /// (a partial block is zero-padded).
    pub(crate) fn aad(&mut self, key: &impl BlockKey, data: &[u8]) {
        let whole = data.len() / BLOCK * BLOCK;
        key.ghash(&mut self.y, &data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            key.ghash(&mut self.y, &last);
        }
        self.aad_len = self.aad_len.wrapping_add(data.len() as u64);
    }

    /// Encrypts or decrypts `len` bytes; all but the last call of a message must be
    /// multiples of 16 bytes.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(crate) unsafe fn crypt(
        &mut self,
        key: &impl BlockKey,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let blocks = len / BLOCK;
        if blocks > 0 {
            // SAFETY: forwarded from the caller: both buffers hold `len` ≥ 16*blocks bytes.
            unsafe { key.crypt_blocks(dir, &mut self.ctr, &mut self.y, src, dst, blocks) };
        }
        let tail = len - blocks * BLOCK;
        if tail > 0 {
            let mut ks = self.next_keystream(key);
            let mut ct = [0u8; 16];
            for i in 0..tail {
                // SAFETY: offset 16*blocks + i < len, inside both buffers; the input
                // byte is read before the output byte (same address in place).
                unsafe {
                    let x = *src.add(blocks * BLOCK + i);
                    let o = x ^ ks[i];
                    *dst.add(blocks * BLOCK + i) = o;
                    ct[i] = if dir == Direction::Encrypt { o } else { x };
                }
            }
            key.ghash(&mut self.y, &ct);
            wipe_bytes(&mut ks);
        }
        self.data_len = self.data_len.wrapping_add(len as u64);
    }

    /// [`Core::crypt`] over `len` > 0 bytes of whole blocks that start a message, also
    /// returning E(K, J0), the tag mask: the backend computes it alongside the blocks.
    ///
    /// # Safety
    /// As for [`Core::crypt`].
    pub(crate) unsafe fn crypt_first(
        &mut self,
        key: &Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> [u8; 16] {
        debug_assert!(len > 0 && len % BLOCK == 0);
        let mut mask = self.j0;
        // SAFETY: forwarded from the caller: both buffers hold `len` bytes.
        with_backend!(key.backend(), B => unsafe {
            B::crypt(
                &key.material,
                dir,
                &mut self.ctr,
                &mut self.y,
                src,
                dst,
                len / BLOCK,
                Some(&mut mask),
            )
        });
        self.data_len = self.data_len.wrapping_add(len as u64);
        mask
    }

    /// E(K, ctr) and E(K, J0) together (a message whose first data is under a block);
    /// then ctr += 1.
    fn next_keystream_and_mask(&mut self, key: &Key) -> ([u8; 16], [u8; 16]) {
        let (mut ks, mut mask) = (self.ctr, self.j0);
        key.encrypt_block2(&mut ks, &mut mask);
        inc32(&mut self.ctr);
        (ks, mask)
    }

    /// E(K, ctr), then ctr += 1.
    fn next_keystream(&mut self, key: &impl BlockKey) -> [u8; 16] {
        let mut ks = self.ctr;
        key.encrypt_block(&mut ks);
        inc32(&mut self.ctr);
        ks
    }

    /// The full 16-byte tag: GHASH of the lengths block, masked with E(K, J0).
    /// Leaves `y` modified (as nettle's `gcm_digest` does).
    pub(crate) fn finish(&mut self, key: &impl BlockKey) -> [u8; 16] {
        let mut mask = self.j0;
        key.encrypt_block(&mut mask);
        let tag = self.finish_masked(key, &mask);
        wipe_bytes(&mut mask);
        tag
    }

    /// [`Core::finish`] with E(K, J0) already computed.
    fn finish_masked(&mut self, key: &impl BlockKey, mask: &[u8; 16]) -> [u8; 16] {
        let mut lens = [0u8; 16];
        lens[..8].copy_from_slice(&self.aad_len.wrapping_mul(8).to_be_bytes());
        lens[8..].copy_from_slice(&self.data_len.wrapping_mul(8).to_be_bytes());
        key.ghash(&mut self.y, &lens);
        let mut tag = *mask;
        for (t, y) in tag.iter_mut().zip(self.y) {
            *t ^= y;
        }
        tag
    }

    pub fn wipe(&mut self) {
        wipe_bytes(&mut self.j0);
        wipe_bytes(&mut self.ctr);
        wipe_bytes(&mut self.y);
        self.aad_len = 0;
        self.data_len = 0;
    }
}

/// Increments the 32-bit big-endian counter in bytes 12..16, wrapping (SP 800-38D inc32).
#[inline]
pub(crate) fn inc32(block: &mut [u8; 16]) {
    let c = u32::from_be_bytes([block[12], block[13], block[14], block[15]]).wrapping_add(1);
    block[12..].copy_from_slice(&c.to_be_bytes());
}

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
    /// E(K, J0), computed with the first data (see `Core::crypt_first`).
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
        // SAFETY: `buf` is valid for reads and writes of its length; src == dst.
        unsafe {
            self.crypt_raw(
                key,
                Direction::Encrypt,
                buf.as_ptr(),
                buf.as_mut_ptr(),
                buf.len(),
            )
        }
    }

    /// Decrypts `buf` in place. The plaintext must not be trusted until [`Message::verify`].
    pub fn decrypt(&mut self, key: &Key, buf: &mut [u8]) -> Result<(), Error> {
        // SAFETY: as in `encrypt`.
        unsafe {
            self.crypt_raw(
                key,
                Direction::Decrypt,
                buf.as_ptr(),
                buf.as_mut_ptr(),
                buf.len(),
            )
        }
    }

    /// Encrypts `src` into the first `src.len()` bytes of `dst`.
    pub fn encrypt_to(&mut self, key: &Key, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        if dst.len() < src.len() {
            return Err(Error::BufferTooShort);
        }
        // SAFETY: distinct borrows cannot overlap; both hold `src.len()` bytes.
        unsafe {
            self.crypt_raw(
                key,
                Direction::Encrypt,
                src.as_ptr(),
                dst.as_mut_ptr(),
                src.len(),
            )
        }
    }

    /// Decrypts `src` into the first `src.len()` bytes of `dst`.
    pub fn decrypt_to(&mut self, key: &Key, src: &[u8], dst: &mut [u8]) -> Result<(), Error> {
        if dst.len() < src.len() {
            return Err(Error::BufferTooShort);
        }
        // SAFETY: as in `encrypt_to`.
        unsafe {
            self.crypt_raw(
                key,
                Direction::Decrypt,
                src.as_ptr(),
                dst.as_mut_ptr(),
                src.len(),
            )
        }
    }

    /// Encrypts or decrypts `len` bytes from `src` to `dst`, any split.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; they are equal or disjoint.
    pub(crate) unsafe fn crypt_raw(
        &mut self,
        key: &Key,
        dir: Direction,
        mut src: *const u8,
        mut dst: *mut u8,
        mut len: usize,
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

        // Finish the block a previous call left open.
        let used = self.pending_len as usize;
        if used > 0 && len > 0 {
            let n = len.min(BLOCK - used);
            for i in 0..n {
                // SAFETY: i < n ≤ len: inside both buffers; read before write.
                unsafe {
                    let x = *src.add(i);
                    let o = x ^ self.keystream[used + i];
                    *dst.add(i) = o;
                    self.pending[used + i] = if dir == Direction::Encrypt { o } else { x };
                }
            }
            self.pending_len += n as u8;
            // SAFETY: n ≤ len, so the advanced pointers stay within (or one past) the buffers.
            unsafe {
                src = src.add(n);
                dst = dst.add(n);
            }
            len -= n;
            if self.pending_len as usize == BLOCK {
                key.ghash(&mut self.core.y, &self.pending);
                self.core.data_len += BLOCK as u64;
                self.pending_len = 0;
            }
        }

        // Whole blocks through the fused kernel.
        let whole = len / BLOCK * BLOCK;
        if whole > 0 {
            // SAFETY: `whole` ≤ len bytes remain in both buffers.
            unsafe {
                if self.mask_ready {
                    self.core.crypt(key, dir, src, dst, whole);
                } else {
                    self.mask = self.core.crypt_first(key, dir, src, dst, whole);
                    self.mask_ready = true;
                }
            }
            // SAFETY: as above.
            unsafe {
                src = src.add(whole);
                dst = dst.add(whole);
            }
            len -= whole;
        }

        // Open a new partial block with the rest.
        if len > 0 {
            if self.mask_ready {
                self.keystream = self.core.next_keystream(key);
            } else {
                (self.keystream, self.mask) = self.core.next_keystream_and_mask(key);
                self.mask_ready = true;
            }
            for i in 0..len {
                // SAFETY: i < len: inside both buffers; read before write.
                unsafe {
                    let x = *src.add(i);
                    let o = x ^ self.keystream[i];
                    *dst.add(i) = o;
                    self.pending[i] = if dir == Direction::Encrypt { o } else { x };
                }
            }
            self.pending_len = len as u8;
        }
        Ok(())
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
        self.core.aad_len
            + if self.phase == Phase::Aad {
                self.pending_len as u64
            } else {
                0
            }
    }

    /// Total text bytes processed so far.
    pub fn data_len(&self) -> u64 {
        self.core.data_len
            + if self.phase == Phase::Data {
                self.pending_len as u64
            } else {
                0
            }
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

/// One-shot authenticated encryption: `src` → `dst` (same length), tag into `tag`
/// (4, 8 or 12..=16 bytes).
pub fn seal(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Error> {
    if !tag_len_ok(tag.len()) {
        return Err(Error::InvalidLength);
    }
    let mut m = Message::new(key, iv)?;
    m.aad(key, aad)?;
    m.encrypt_to(key, src, dst)?;
    m.tag(key, tag)
}

/// One-shot authenticated decryption that writes nothing to `dst` unless the tag
/// verifies: GHASH over the ciphertext first, then (only on success) CTR decryption.
pub fn open(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &[u8],
) -> Result<(), Error> {
    if dst.len() < src.len() {
        return Err(Error::BufferTooShort);
    }
    // SAFETY: distinct borrows, both `src.len()` bytes long.
    unsafe { open_raw(key, iv, aad, src.as_ptr(), dst.as_mut_ptr(), src.len(), tag) }
}

/// [`open`] on raw pointers; `src == dst` (in place) is allowed.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
pub(crate) unsafe fn open_raw(
    key: &Key,
    iv: &[u8],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: &[u8],
) -> Result<(), Error> {
    if !tag_len_ok(tag.len()) {
        return Err(Error::InvalidLength);
    }
    if iv.is_empty() || aad.len() as u64 > MAX_AAD {
        return Err(Error::InvalidLength);
    }
    if len as u64 > MAX_DATA {
        return Err(Error::InvalidLength);
    }
    let mut core = Core::start(key, iv);
    core.aad(key, aad);
    let start_ctr = core.ctr;
    let ct: &[u8] = if len == 0 {
        &[] // `src` may be NULL for an empty message; a slice may not.
    } else {
        // SAFETY: the caller guarantees `src` is readable for `len` bytes.
        unsafe { core::slice::from_raw_parts(src, len) }
    };
    core.aad(key, ct); // GHASH over the ciphertext, zero-padded: same as the data phase.
    core.data_len = len as u64;
    core.aad_len -= len as u64;
    let mut full = core.finish(key);
    let ok = ct_eq(&full[..tag.len()], tag);
    wipe_bytes(&mut full);
    core.wipe();
    if !ok {
        return Err(Error::TagMismatch);
    }
    let mut ctr = start_ctr;
    let blocks = len / BLOCK;
    // SAFETY: both buffers hold `len` ≥ 16*blocks bytes.
    with_backend!(key.backend(), B => unsafe { B::ctr(&key.material, &mut ctr, src, dst, blocks) });
    let tail = len - blocks * BLOCK;
    if tail > 0 {
        let mut ks = ctr;
        key.encrypt_block(&mut ks);
        for (i, k) in ks.iter().enumerate().take(tail) {
            // SAFETY: 16*blocks + i < len; read before write for in place.
            unsafe { *dst.add(blocks * BLOCK + i) = *src.add(blocks * BLOCK + i) ^ k };
        }
        wipe_bytes(&mut ks);
    }
    Ok(())
}
