//! [`Key`]: an AES-GCM key expanded for one backend, and the dispatch from the mode to
//! that backend's kernels (a `match` on the stored [`BackendId`], never a pointer).

use super::core::BlockKey;
use super::{Direction, BLOCK};
use crate::backend::{self, with_backend, Backend, BackendId, Material};
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
        let mut k = Key {
            material: Material::zeroed(),
            backend: BackendId::Soft as u8,
            key_len: 0,
        };
        k.expand(key, backend)?;
        Ok(k)
    }

    /// [`Key::with_backend`] into existing memory (caller-owned C structs), so that no
    /// copy of the expanded key is left behind on the stack.
    pub(crate) fn init_in_place(&mut self, key: &[u8], backend: BackendId) -> Result<(), Error> {
        self.material.wipe();
        self.expand(key, backend)
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
        BackendId::from_u8(self.backend).is_some() && matches!(self.key_len, 16 | 24 | 32)
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

    /// Overwrites all key material. The key is unusable afterwards until re-expanded.
    pub fn wipe(&mut self) {
        self.material.wipe();
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

impl BlockKey for Key {
    fn encrypt_block(&self, block: &mut [u8; 16]) {
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
        with_backend!(self.backend(), B => unsafe {
            B::crypt(&self.material, dir, ctr, y, src, dst, blocks, j0)
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
