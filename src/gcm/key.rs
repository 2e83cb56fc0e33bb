//! [`Key`]: an AES-GCM key expanded for one backend, and the dispatch from the mode to
//! that backend's kernels (a `match` on the stored [`BackendId`], never a pointer).

use super::core::BlockKey;
use super::{Direction, BLOCK};
use crate::backend::{self, short, with_backend, Backend, BackendId, Material, PublicCtr};
use crate::error::Error;

/// An expanded AES-GCM key for one backend. Wiped on drop.
#[repr(C, align(16))]
#[derive(Clone)]
pub struct Key {
    material: Material,
    backend: u8,
    key_len: u8,
}

impl Key {
    /// Expands `key` (16, 24 or 32 bytes) for the selected backend (see
    /// [`crate::cpu::selected`]).
    pub fn new(key: &[u8]) -> Result<Key, Error> {
        Key::with_backend(key, backend::selected()?)
    }

    /// Expands `key` for a given backend (tests use this to compare backends).
    pub fn with_backend(key: &[u8], backend: BackendId) -> Result<Key, Error> {
        let mut k = Key::empty();
        k.expand(key, backend)?;
        Ok(k)
    }

    /// No key (zeroed material, no backend): a place to expand one into with
    /// [`Key::init_in_place`], so that the expanded key is never moved.
    #[inline(always)]
    pub(crate) fn empty() -> Key {
        Key {
            material: Material::uninit(),
            backend: 0,
            key_len: 0,
        }
    }

    /// [`Key::with_backend`] into existing memory (caller-owned C structs, a stack slot),
    /// so that no copy of the expanded key is left behind; the previous key is wiped.
    pub(crate) fn init_in_place(&mut self, key: &[u8], backend: BackendId) -> Result<(), Error> {
        self.wipe();
        self.expand(key, backend)
    }

    /// Re-expands this key in place from `key` (16, 24 or 32 bytes) for the selected
    /// backend, leaving no copy of the expanded key behind on the stack (front-ends that
    /// keep keys in locked memory use it). On error the key is unchanged.
    pub fn set(&mut self, key: &[u8]) -> Result<(), Error> {
        let backend = backend::selected()?;
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(Error::InvalidKeyLength);
        }
        self.init_in_place(key, backend)
    }

    /// Checks the key length and the CPU, then lets the backend expand `key` into zeroed
    /// material.
    fn expand(&mut self, key: &[u8], backend: BackendId) -> Result<(), Error> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(Error::InvalidKeyLength);
        }
        if !backend.is_available() {
            return Err(Error::NotSupported);
        }
        self.backend = backend as u8;
        self.key_len = key.len() as u8;
        with_backend!(backend, B => B::init(&mut self.material, key));
        Ok(())
    }

    /// Whether the stored backend id names a backend of this build (a check on keys found
    /// in caller-owned memory; the CPU was checked when the key was set up).
    pub(crate) fn is_usable(&self) -> bool {
        BackendId::from_u8(self.backend).is_some() && self.has_aes_len()
    }

    /// Whether the stored key length is an AES key's: what bounds every round count and
    /// schedule read made from it. (The backend id needs no check for memory safety: an
    /// id no backend has dispatches to `soft`, whose material view checks its size.)
    #[inline(always)]
    pub(crate) fn has_aes_len(&self) -> bool {
        matches!(self.key_len, 16 | 24 | 32)
    }

    pub fn backend(&self) -> BackendId {
        // `backend` is only ever written from a valid id in `init_in_place`.
        BackendId::from_u8(self.backend).unwrap_or(BackendId::Soft)
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend().name()
    }

    /// Key size in bytes (16, 24 or 32).
    pub fn key_len(&self) -> usize {
        self.key_len as usize
    }

    /// Overwrites all key material (the bytes its backend's layout uses; a key that no
    /// backend of this build set up holds none). The key is unusable afterwards until
    /// re-expanded.
    pub fn wipe(&mut self) {
        if let Some(id) = BackendId::from_u8(self.backend) {
            with_backend!(id, B => self.material.wipe_prefix(B::KEY_BYTES));
        }
    }

    /// ECB encryption of whole blocks from `inp` to `out` (the keystream of GCM over a
    /// caller's cipher when that cipher turns out to be this AES key).
    pub(crate) fn ecb(&self, out: &mut [u8], inp: &[u8]) {
        for (o, i) in out.chunks_exact_mut(BLOCK).zip(inp.chunks_exact(BLOCK)) {
            let mut b = [0u8; 16];
            b.copy_from_slice(i);
            self.encrypt_block(&mut b);
            o.copy_from_slice(&b);
        }
    }

    /// CTR keystream over whole blocks, no GHASH (the second pass of a verified open).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; equal or disjoint.
    pub(crate) unsafe fn ctr(
        &self,
        ctr: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
    ) {
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe { B::ctr(&self.material, ctr, src, dst, blocks) })
    }
}

impl Key {
    /// Whether a message of `aad_len` bytes of AAD and `len` of data is short enough for
    /// the backend's one-pass path ([`Key::crypt_short`], [`Key::open_short`]).
    #[inline(always)]
    pub(crate) fn fits_short(&self, aad_len: usize, len: usize) -> bool {
        with_backend!(self.backend(), B => {
            short::fits(aad_len, len, B::SHORT_DATA_BLOCKS, B::SHORT_HASH_BLOCKS)
        })
    }

    /// A whole message that [`Key::fits_short`], in the backend's one pass: the output,
    /// and the full tag returned (decryption releases the plaintext unverified).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn crypt_short(
        &self,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> [u8; 16] {
        debug_assert!(self.fits_short(aad.len(), len));
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt_short(&self.material, dir, j0, aad, src, dst, len)
        })
    }

    /// [`Key::crypt_short`] that also leaves the zero-padded ciphertext at `hold`.
    ///
    /// # Safety
    /// As for [`Key::crypt_short`]; `hold` writable for `len` rounded up to a block.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn crypt_short_hold(
        &self,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        hold: *mut u8,
    ) -> [u8; 16] {
        debug_assert!(self.fits_short(aad.len(), len));
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt_short_hold(&self.material, dir, j0, aad, src, dst, len, hold)
        })
    }

    /// A whole message of any length in one backend call: the output, the full tag
    /// returned, and GHASH(AAD ‖ whole ciphertext blocks) in `y` (decryption releases
    /// the plaintext unverified). `at`: the public position of inc32(J0), if any
    /// ([`PublicCtr::iv96_after`]`(0)` for a 96-bit IV).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint; `at` is
    /// [`PublicCtr::UNKNOWN`] or the low 32 bits of inc32(`j0`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn crypt_message(
        &self,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        y: &mut [u8; 16],
        at: PublicCtr,
    ) -> [u8; 16] {
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt_message(&self.material, dir, j0, aad, src, dst, len, y, at)
        })
    }

    /// A whole message of any length in one backend call when nothing of it is kept
    /// afterwards: the output, and the full tag returned (decryption releases the
    /// plaintext unverified). `at` as for [`Key::crypt_message`].
    ///
    /// # Safety
    /// As for [`Key::crypt_message`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn crypt_whole(
        &self,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        at: PublicCtr,
    ) -> [u8; 16] {
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt_whole(&self.material, dir, j0, aad, src, dst, len, at)
        })
    }

    /// [`BlockKey::crypt_blocks`] with the counter's public position `at`, if any.
    ///
    /// # Safety
    /// As for [`BlockKey::crypt_blocks`]; `at` is [`PublicCtr::UNKNOWN`] or the low 32
    /// bits of `ctr`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn crypt_blocks_at(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
        at: PublicCtr,
    ) {
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::crypt(&self.material, dir, ctr, y, src, dst, blocks, j0, at)
        })
    }

    /// The verifying one-pass open of a message that [`Key::fits_short`]: the plaintext
    /// is written only if the tag matches; returns whether it did.
    ///
    /// # Safety
    /// As for [`Key::crypt_short`]; `tag` is at most 16 bytes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn open_short(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        tag: &[u8],
    ) -> bool {
        debug_assert!(self.fits_short(aad.len(), len));
        // SAFETY: forwarded from the caller.
        with_backend!(self.backend(), B => unsafe {
            B::open_short(&self.material, j0, aad, src, dst, len, tag)
        })
    }
}

impl BlockKey for Key {
    fn encrypt_block(&self, block: &mut [u8; 16]) {
        with_backend!(self.backend(), B => B::encrypt_block(&self.material, block))
    }

    fn encrypt_block2(&self, a: &mut [u8; 16], b: &mut [u8; 16]) {
        with_backend!(self.backend(), B => B::encrypt_block2(&self.material, a, b))
    }

    fn tag(&self, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
        with_backend!(self.backend(), B => B::tag(&self.material, j0, y, lens))
    }

    fn ghash(&self, y: &mut [u8; 16], data: &[u8]) {
        debug_assert!(data.len() % BLOCK == 0);
        // SAFETY: `data` is a valid slice of `data.len()` bytes, a multiple of 16.
        with_backend!(self.backend(), B => unsafe {
            B::ghash(&self.material, y, data.as_ptr(), data.len() / BLOCK)
        })
    }

    fn ghash_padded(&self, y: &mut [u8; 16], data: &[u8]) {
        // SAFETY: `data` is a valid slice of `data.len()` bytes.
        with_backend!(self.backend(), B => unsafe {
            B::ghash_bytes(&self.material, y, data.as_ptr(), data.len())
        })
    }

    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { self.crypt_blocks_at(dir, ctr, y, src, dst, blocks, j0, PublicCtr::UNKNOWN) }
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
