//! Backend kernels: AES and GHASH over whole 16-byte blocks, one implementation per CPU
//! family, all behind [`Backend`].
//!
//! A backend knows nothing of GCM's phases, buffering, lengths block or errors: the mode
//! (`gcm/`) is its only caller. Key material is plain data ([`Material`]) so that a keyed
//! context can be copied with `memcpy` and live inside caller-owned memory (the nettle ABI
//! needs this); the backend in use is recorded as a [`BackendId`] byte, never as a
//! function pointer. `registry.rs` lists the backends; `aes_schedule.rs` and `sbox.rs`
//! are the pieces several of them share.
//!
//! Conventions shared by every kernel:
//! - blocks, counters and the GHASH state `y` are in the byte order of the GCM spec
//!   (SP 800-38D): `y` is the 16-byte big-endian field element, the counter block is
//!   `J0`-style with a 32-bit big-endian counter in bytes 12..16 that wraps (inc32);
//! - `src`/`dst` may be the same pointer (in place) and need no alignment; other
//!   overlaps are not allowed;
//! - nothing is read or written outside `src[..16*blocks]` / `dst[..16*blocks]`.

pub(crate) mod aes_schedule;
mod registry;
pub(crate) mod sbox;
pub(crate) mod soft;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "arm")]
pub(crate) mod arm;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub(crate) use registry::with_backend;
pub use registry::{available, by_name, compiled, selected, BackendId};

/// Which way the fused kernel runs: encryption hashes the ciphertext it writes,
/// decryption the ciphertext it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

/// Room for one backend's expanded key: AES round keys in whatever form the backend
/// wants plus its GHASH key material (H, powers of H, Karatsuba halves). 3840 bytes fits
/// a bit-sliced 8-block AES-256 schedule (1920 bytes) with H^1..H^16 beside it, and
/// leaves room in nettle's 4096-byte `struct gcm_key` for the mode's own header.
pub(crate) const MATERIAL_BYTES: usize = 3840;

/// Backend-private expanded key. Each backend views it as its own `#[repr(C)]` struct of
/// integers through [`Material::view`], so any bit pattern is valid and copying is safe.
#[repr(C, align(16))]
#[derive(Clone)]
pub struct Material {
    words: [u64; MATERIAL_BYTES / 8],
}

/// Marker for the backends' key layouts: plain integer data, no padding requirements
/// beyond 16-byte alignment, no pointers, no invalid bit patterns.
///
/// # Safety
/// Implementors must be `#[repr(C)]` (or transparent) aggregates of integers or arrays of
/// integers, at most [`MATERIAL_BYTES`] long and with alignment at most 16.
pub(crate) unsafe trait Plain: Sized {}

impl Material {
    pub(crate) const fn zeroed() -> Self {
        Material {
            words: [0; MATERIAL_BYTES / 8],
        }
    }

    pub(crate) fn view<T: Plain>(&self) -> &T {
        const { assert!(core::mem::size_of::<T>() <= MATERIAL_BYTES) };
        const { assert!(core::mem::align_of::<T>() <= 16) };
        // SAFETY: `T: Plain` is a plain integer aggregate that fits (checked above) in
        // this 16-byte-aligned buffer, and every bit pattern is a valid `T`.
        unsafe { &*(self.words.as_ptr() as *const T) }
    }

    pub(crate) fn view_mut<T: Plain>(&mut self) -> &mut T {
        const { assert!(core::mem::size_of::<T>() <= MATERIAL_BYTES) };
        const { assert!(core::mem::align_of::<T>() <= 16) };
        // SAFETY: as in `view`; the exclusive borrow of `self` covers the whole `T`.
        unsafe { &mut *(self.words.as_mut_ptr() as *mut T) }
    }

    /// Overwrites the key material with zeros in a way the optimizer may not remove.
    pub(crate) fn wipe(&mut self) {
        crate::secret::wipe_u64(&mut self.words);
    }
}

/// The interface every backend implements. All functions are associated functions:
/// dispatch is a `match` on [`BackendId`], so there is no state but [`Material`].
pub(crate) trait Backend {
    /// Name used by `STITCHGCM_IMPL` and `sgcm_impl_name()` (a C string for the ABI).
    const NAME: &'static core::ffi::CStr;

    /// Whether this CPU can run the backend (the build already excludes other arches).
    fn is_available() -> bool;

    /// Expands an AES key (16, 24 or 32 bytes; the caller has checked) into `m`,
    /// including H = E(K, 0^128) and whatever GHASH tables the backend uses.
    fn init(m: &mut Material, key: &[u8]);

    /// Encrypts one block in place (the tag mask, short tails).
    fn encrypt_block(m: &Material, block: &mut [u8; 16]);

    /// Encrypts two independent blocks in place (J0 and the keystream block of a message
    /// shorter than one block). Backends that run several blocks at once override it.
    fn encrypt_block2(m: &Material, a: &mut [u8; 16], b: &mut [u8; 16]) {
        Self::encrypt_block(m, a);
        Self::encrypt_block(m, b);
    }

    /// GHASH-only: absorbs `blocks` 16-byte blocks from `data` into `y`.
    ///
    /// # Safety
    /// `data` must be valid for reads of `16 * blocks` bytes.
    unsafe fn ghash(m: &Material, y: &mut [u8; 16], data: *const u8, blocks: usize);

    /// The fused kernel: CTR over `blocks` whole blocks from `src` to `dst` with GHASH of
    /// the ciphertext (written when encrypting, read when decrypting) into `y`. `ctr` is
    /// the next counter block and is advanced by `blocks` (inc32). With `j0`, the block is
    /// also encrypted in place as one more lane (E(K, J0), the tag mask, rides along with
    /// the first data of a message instead of costing a call of its own).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; they are equal or do
    /// not overlap.
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt(
        m: &Material,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
        j0: Option<&mut [u8; 16]>,
    );

    /// CTR keystream only (the second pass of a verify-then-decrypt open).
    ///
    /// # Safety
    /// As for [`Backend::crypt`].
    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize);
}
