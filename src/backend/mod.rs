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
#[cfg(any(target_arch = "aarch64", target_arch = "arm"))]
pub(crate) mod hwcap;
pub(crate) mod partial;
mod registry;
pub(crate) mod sbox;
pub(crate) mod short;
pub(crate) mod soft;
#[cfg(any(target_arch = "aarch64", target_arch = "arm", test))]
pub(crate) mod vperm;
mod whole;

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

/// The low 32 bits of a message's next counter block when they follow from public values
/// alone, for kernels with a faster counter step at some positions (`x86_64-vaes512`): with
/// a 96-bit IV, J0 = IV‖0^31‖1 and the counter is 2 plus the counter blocks used so far (a
/// function of the message's lengths). Unknown for other IV lengths (J0 = GHASH_H(IV), so
/// the counter is derived from the key) and for a counter the caller set. A kernel may
/// branch on this value; never on the counter block it is given, which comes from the
/// caller's state whatever the IV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PublicCtr(Option<u32>);

impl PublicCtr {
    /// Nothing public is known about the counter.
    pub(crate) const UNKNOWN: PublicCtr = PublicCtr(None);

    /// The counter of a message with a 96-bit IV after `blocks` counter blocks of data (a
    /// partial block counts one): inc32 of 2 + `blocks`.
    #[inline(always)]
    pub(crate) const fn iv96_after(blocks: u64) -> PublicCtr {
        PublicCtr(Some(2u32.wrapping_add(blocks as u32)))
    }

    /// The counter's low 32 bits, if public.
    #[inline(always)]
    pub(crate) const fn low32(self) -> Option<u32> {
        self.0
    }
}

/// Room for one backend's expanded key: AES round keys in whatever form the backend
/// wants plus its GHASH key material (H, powers of H, Karatsuba halves). 3840 bytes fits
/// a bit-sliced 8-block AES-256 schedule (1920 bytes) with H^1..H^16 beside it, and
/// leaves room in nettle's 4096-byte `struct gcm_key` for the mode's own header.
pub(crate) const MATERIAL_BYTES: usize = 3840;

use core::mem::MaybeUninit;

/// Backend-private expanded key. Each backend views it as its own `#[repr(C)]` struct of
/// integers through [`Material::view`], so any bit pattern is valid and copying is safe.
///
/// Only the part a backend's layout covers is ever written: a key set up per call (a
/// raw-key one-shot) does not pay for zeroing or wiping all of it. `init` says how many
/// bytes at the start are initialized; [`Material::view`] checks that its type lies
/// within them.
#[repr(C, align(16))]
#[derive(Clone)]
pub struct Material {
    words: [MaybeUninit<u64>; MATERIAL_BYTES / 8],
    init: u64,
}

/// Marker for the backends' key layouts: plain integer data, no padding requirements
/// beyond 16-byte alignment, no pointers, no invalid bit patterns.
///
/// # Safety
/// Implementors must be `#[repr(C)]` (or transparent) aggregates of integers or arrays of
/// integers, at most [`MATERIAL_BYTES`] long and with alignment at most 16.
pub(crate) unsafe trait Plain: Sized {}

impl Material {
    /// Nothing initialized yet (and, unlike a constant, nothing written: no memset).
    #[inline(always)]
    pub(crate) fn uninit() -> Self {
        Material {
            // SAFETY: an array of `MaybeUninit` needs no initialization (the pattern of
            // `MaybeUninit`'s documentation).
            words: unsafe {
                MaybeUninit::<[MaybeUninit<u64>; MATERIAL_BYTES / 8]>::uninit().assume_init()
            },
            init: 0,
        }
    }

    /// The backend's layout as written at key setup by [`Material::view_mut`].
    pub(crate) fn view<T: Plain>(&self) -> &T {
        const { assert!(core::mem::size_of::<T>() <= MATERIAL_BYTES) };
        const { assert!(core::mem::align_of::<T>() <= 16) };
        assert!(
            core::mem::size_of::<T>() as u64 <= self.init,
            "key material not set up"
        );
        // SAFETY: `T: Plain` is a plain integer aggregate that fits (checked above) in
        // this 16-byte-aligned buffer, its bytes are initialized (checked), and every
        // bit pattern is a valid `T`.
        unsafe { &*(self.words.as_ptr() as *const T) }
    }

    /// The backend's layout for key setup: zeroed, then handed out for writing.
    pub(crate) fn view_mut<T: Plain>(&mut self) -> &mut T {
        const { assert!(core::mem::size_of::<T>() <= MATERIAL_BYTES) };
        const { assert!(core::mem::align_of::<T>() <= 16) };
        let p = self.words.as_mut_ptr() as *mut T;
        // SAFETY: as in `view`; the zeroes make every byte of the `T` initialized, and
        // the exclusive borrow of `self` covers it.
        unsafe {
            core::ptr::write_bytes(p as *mut u8, 0, core::mem::size_of::<T>());
            self.init = core::mem::size_of::<T>() as u64;
            &mut *p
        }
    }

    /// Overwrites the first `bytes` of the key material (rounded up to whole words) with
    /// zeros in a way the optimizer may not remove.
    pub(crate) fn wipe_prefix(&mut self, bytes: usize) {
        let words = bytes.div_ceil(8).min(self.words.len());
        for w in &mut self.words[..words] {
            // SAFETY: `w` is a valid, exclusive place for one u64 (initialized or not).
            unsafe { core::ptr::write_volatile(w.as_mut_ptr(), 0) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// The interface every backend implements. All functions are associated functions:
/// dispatch is a `match` on [`BackendId`], so there is no state but [`Material`].
pub(crate) trait Backend {
    /// Name used by `STITCHGCM_IMPL` and `sgcm_impl_name()` (a C string for the ABI).
    const NAME: &'static core::ffi::CStr;

    /// Whether this CPU can run the backend (the build already excludes other arches).
    fn is_available() -> bool;

    /// Whether the automatic choice may take this backend on this CPU (it runs, and no
    /// backend listed after it is better here). `STITCHGCM_IMPL` can still force any
    /// available backend.
    fn is_preferred() -> bool {
        Self::is_available()
    }

    /// How many bytes at the start of [`Material`] the backend's key layout occupies:
    /// what wiping a key must overwrite (all of it unless the backend says less).
    const KEY_BYTES: usize = MATERIAL_BYTES;

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

    /// The end of a message: `y` absorbs the lengths block `lens`, and the tag is
    /// E(K, `j0`) ^ `y`. One call, so a backend can run the AES and the one-block GHASH
    /// side by side in registers (the per-call cost of streaming front-ends).
    fn tag(m: &Material, j0: &[u8; 16], y: &mut [u8; 16], lens: &[u8; 16]) -> [u8; 16] {
        let mut mask = *j0;
        Self::encrypt_block(m, &mut mask);
        // SAFETY: `lens` is one readable block.
        unsafe { Self::ghash(m, y, lens.as_ptr(), 1) };
        for (t, y) in mask.iter_mut().zip(y.iter()) {
            *t ^= y;
        }
        mask
    }

    /// GHASH of `len` bytes, the last partial block zero-padded (AAD, IVs). The default
    /// pads that block on the stack; a backend that reads it into a register
    /// (`partial.rs`) avoids a store-forwarding stall on the way.
    ///
    /// # Safety
    /// `data` must be valid for reads of `len` bytes.
    unsafe fn ghash_bytes(m: &Material, y: &mut [u8; 16], data: *const u8, len: usize) {
        let whole = len / 16;
        // SAFETY: the whole blocks lie in the `len` readable bytes.
        if whole > 0 {
            unsafe { Self::ghash(m, y, data, whole) };
        }
        let rest = len % 16;
        if rest > 0 {
            let mut last = [0u8; 16];
            // SAFETY: the last `rest` of the `len` readable bytes.
            unsafe {
                core::ptr::copy_nonoverlapping(data.add(16 * whole), last.as_mut_ptr(), rest);
                Self::ghash(m, y, last.as_ptr(), 1);
            }
        }
    }

    /// The fused kernel: CTR over `blocks` whole blocks from `src` to `dst` with GHASH of
    /// the ciphertext (written when encrypting, read when decrypting) into `y`. `ctr` is
    /// the next counter block and is advanced by `blocks` (inc32). With `j0`, the block is
    /// also encrypted in place as one more lane (E(K, J0), the tag mask, rides along with
    /// the first data of a message instead of costing a call of its own). `at`: the
    /// counter's position where the mode knows it from public values (see [`PublicCtr`]),
    /// for a kernel with a faster step at some positions; other backends ignore it.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `16 * blocks` bytes; they are equal or do
    /// not overlap. `at` is [`PublicCtr::UNKNOWN`] or the low 32 bits of `ctr`.
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
        at: PublicCtr,
    );

    /// CTR keystream only (the second pass of a verify-then-decrypt open).
    ///
    /// # Safety
    /// As for [`Backend::crypt`].
    unsafe fn ctr(m: &Material, ctr: &mut [u8; 16], src: *const u8, dst: *mut u8, blocks: usize);

    /// The limits of [`Backend::crypt_short`] / [`Backend::open_short`]: at most
    /// `SHORT_DATA_BLOCKS` data blocks (a partial last block counts as one), and fewer
    /// than `SHORT_HASH_BLOCKS` AAD plus data blocks (the lengths block is one more).
    const SHORT_DATA_BLOCKS: usize = short::DATA_BLOCKS;
    const SHORT_HASH_BLOCKS: usize = short::HASH_BLOCKS;

    /// Whether the backend's [`Backend::crypt_short_hold`] is a one-pass kernel of its own
    /// that takes a null `hold` (keeps nothing): then [`Backend::crypt_short`] is that
    /// kernel without a hold, and the backend writes only the one. (Set it only with a
    /// `crypt_short_hold` of the backend's own: the default one calls `crypt_short`.)
    const SHORT_HOLD_KERNEL: bool = false;

    /// A whole message within the `SHORT_*` limits in one call, from its J0: `len` bytes
    /// from `src` to `dst` (CTR from inc32(J0)), and the full tag returned — E(K, J0)
    /// beside the counter blocks, and GHASH from zero over the zero-padded AAD, the
    /// zero-padded ciphertext and the lengths block, with aggregated powers of H and one
    /// reduction. Decrypting releases the plaintext unverified: it serves the streaming
    /// API, whose caller checks the tag afterwards. The default is the backend's
    /// one-pass kernel without a hold ([`Backend::SHORT_HOLD_KERNEL`]), else the
    /// backend's other entries over stack buffers (`short.rs`).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the message
    /// is within the limits.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn crypt_short(
        m: &Material,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> [u8; 16] {
        // SAFETY (both): forwarded contract; a one-pass kernel takes a null hold.
        if Self::SHORT_HOLD_KERNEL {
            unsafe { Self::crypt_short_hold(m, dir, j0, aad, src, dst, len, core::ptr::null_mut()) }
        } else {
            unsafe { short::crypt::<Self>(m, dir, j0, aad, src, dst, len) }
        }
    }

    /// [`Backend::crypt_short`] that also writes the ciphertext, zero-padded to whole
    /// blocks, at `hold` (the streaming API keeps it in case more data follows). The
    /// default copies it around `crypt_short`; a one-pass kernel stores the blocks it
    /// hashes.
    ///
    /// # Safety
    /// As for [`Backend::crypt_short`]; `hold` writable for `len` rounded up to a block
    /// (or null, for a [`Backend::SHORT_HOLD_KERNEL`] called by `crypt_short`).
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt_short_hold(
        m: &Material,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        hold: *mut u8,
    ) -> [u8; 16] {
        // SAFETY: forwarded contract.
        unsafe { short::crypt_hold::<Self>(m, dir, j0, aad, src, dst, len, hold) }
    }

    /// A whole message of any length in one call, from its J0: `len` bytes from `src` to
    /// `dst` (CTR from inc32(J0)), and the full tag returned — GHASH from zero over the
    /// zero-padded AAD, the zero-padded ciphertext and the lengths block, masked with
    /// E(K, J0). `y` receives GHASH(AAD ‖ the whole ciphertext blocks), the state the
    /// message carries on from if more data follows (the last partial block, if any, is
    /// the caller's to keep). Decrypting releases the plaintext unverified, as
    /// [`Backend::crypt_short`]. `at`: the position of the first counter, inc32(J0), where
    /// it follows from public values ([`PublicCtr::iv96_after`]`(0)` for a 96-bit IV), as
    /// for [`Backend::crypt`]. The default runs the backend's other entries (`whole.rs`).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, equal or disjoint; `at` is
    /// [`PublicCtr::UNKNOWN`] or the low 32 bits of inc32(`j0`).
    #[allow(clippy::too_many_arguments)]
    unsafe fn crypt_message(
        m: &Material,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        y: &mut [u8; 16],
        at: PublicCtr,
    ) -> [u8; 16] {
        // SAFETY: forwarded contract.
        unsafe { whole::crypt::<Self>(m, dir, j0, aad, src, dst, len, y, at) }
    }

    /// [`Backend::crypt_message`] for callers that keep nothing of the message afterwards
    /// (the keyed one-shot seal, nettle's first data call): the full tag only, no state to
    /// go on from, so a backend may run the partial and the lengths block in the same pass
    /// as the whole blocks. The default is `crypt_message` (inlined: no call level more).
    /// `at` as for [`Backend::crypt_message`].
    ///
    /// # Safety
    /// As for [`Backend::crypt_message`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn crypt_whole(
        m: &Material,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        at: PublicCtr,
    ) -> [u8; 16] {
        let mut y = [0u8; 16];
        // SAFETY: forwarded contract.
        let tag = unsafe { Self::crypt_message(m, dir, j0, aad, src, dst, len, &mut y, at) };
        crate::secret::wipe_block(&mut y);
        tag
    }

    /// The one-shot opening of a message within the limits: computes the tag over `aad`
    /// and the ciphertext at `src`, and writes the plaintext to `dst` only if the first
    /// `tag.len()` bytes of that tag equal `tag` (compared in constant time); returns
    /// whether they did. Nothing is written to `dst` otherwise.
    ///
    /// # Safety
    /// As for [`Backend::crypt_short`]; `tag` is at most 16 bytes.
    #[allow(clippy::too_many_arguments)]
    unsafe fn open_short(
        m: &Material,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        tag: &[u8],
    ) -> bool {
        // SAFETY: forwarded contract.
        unsafe { short::open::<Self>(m, j0, aad, src, dst, len, tag) }
    }
}
