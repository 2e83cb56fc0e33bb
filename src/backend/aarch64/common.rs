//! What both AArch64 backends use: the counter block in a register, and vector
//! instructions written as one-instruction `asm!`.
//!
//! The counter block is kept with each 32-bit word in native (little-endian) order, so
//! that a vector add on lane 3 is inc32 (wrapping mod 2^32, as GCM requires); `rev32`
//! turns it back into the big-endian block AES encrypts.
//!
//! [`crypt`] is the fused entry of both (`Backend::crypt`) around a backend's
//! [`Kernels`]: the counter goes into native order and the GHASH state into natural bit
//! order (`rbit`) once, whole groups go to the group kernel, the rest and J0 to the tail.
//!
//! [`kernel_entries!`] writes the `Backend` entries both forward to their own files the
//! same way (`crypt.rs`: the kernels and CTR alone; `short.rs`: the one-pass message).
//!
//! Some instructions are written as `asm!` instead of intrinsics because LLVM rewrote the
//! intrinsic into several instructions (PMULL2 into lane moves plus PMULL, TRN1 into a
//! copy plus a lane insert), adding vector µops on the pipe the crypto instructions
//! need. [`vector_insn!`] defines each such function once: register-only, `pure` and
//! `nomem`, so LLVM still schedules it freely.

use core::arch::aarch64::*;

/// The counter block `ctr` with its 32-bit words in native order.
#[inline(always)]
pub(super) unsafe fn ctr_to_native(ctr: &[u8; 16]) -> uint32x4_t {
    // SAFETY: 16 readable bytes; NEON is part of the AArch64 baseline.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(ctr.as_ptr()))) }
}

/// Stores a native-order counter back as the big-endian block.
#[inline(always)]
pub(super) unsafe fn ctr_from_native(c: uint32x4_t, out: &mut [u8; 16]) {
    // SAFETY: 16 writable bytes; NEON baseline.
    unsafe { vst1q_u8(out.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(c))) }
}

/// inc32 applied `i` times to a native-order counter.
#[inline(always)]
pub(super) unsafe fn ctr_add(c: uint32x4_t, i: u32) -> uint32x4_t {
    // SAFETY: NEON baseline.
    unsafe { vaddq_u32(c, vsetq_lane_u32::<3>(i, vdupq_n_u32(0))) }
}

/// Counter block number `i` after `c`, big-endian, ready to be encrypted.
#[inline(always)]
pub(super) unsafe fn ctr_block(c: uint32x4_t, i: u32) -> uint8x16_t {
    // SAFETY: NEON baseline.
    unsafe { vrev32q_u8(vreinterpretq_u8_u32(ctr_add(c, i))) }
}

/// A zero-padded block from two little-endian halves.
#[inline(always)]
pub(super) unsafe fn from_halves(v: [u64; 2]) -> uint8x16_t {
    // SAFETY: NEON is part of the AArch64 baseline.
    unsafe { vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(v[0]), vcreate_u64(v[1]))) }
}

/// A block as two little-endian halves.
#[inline(always)]
pub(super) unsafe fn to_halves(v: uint8x16_t) -> [u64; 2] {
    // SAFETY: NEON baseline.
    unsafe {
        let w = vreinterpretq_u64_u8(v);
        [vgetq_lane_u64::<0>(w), vgetq_lane_u64::<1>(w)]
    }
}

/// `groups` whole groups from `src` to `dst`: advances the native counter and the GHASH
/// state (natural bit order).
pub(super) type GroupKernel<K> =
    unsafe fn(&K, &mut uint32x4_t, &mut uint8x16_t, *const u8, *mut u8, usize);

/// The fewer than a group of blocks after them (`n`), and `j0` (when given) encrypted in
/// place as one more lane.
pub(super) type TailKernel<K> = unsafe fn(
    &K,
    &mut uint32x4_t,
    &mut uint8x16_t,
    *const u8,
    *mut u8,
    usize,
    Option<&mut [u8; 16]>,
);

/// A backend's kernels for one key size, direction and variant, as [`crypt`] runs them.
pub(super) struct Kernels<K> {
    pub(super) groups: GroupKernel<K>,
    pub(super) tail: TailKernel<K>,
}

/// `Backend::crypt` over `kernels`, whose groups are `GROUP` blocks.
///
/// # Safety
/// As for `Backend::crypt`; the CPU runs the kernels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn crypt<K, const GROUP: usize>(
    k: &K,
    kernels: Kernels<K>,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: `src`/`dst` hold 16*blocks bytes (caller's contract); NEON baseline.
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = vrbitq_u8(vld1q_u8(y.as_ptr()));
        let groups = blocks / GROUP;
        if groups > 0 {
            (kernels.groups)(k, &mut c, &mut acc, src, dst, groups);
        }
        let done = groups * GROUP;
        if done < blocks || j0.is_some() {
            // J0 (first data of a message) rides along as one more lane of the tail.
            (kernels.tail)(
                k,
                &mut c,
                &mut acc,
                src.add(16 * done),
                dst.add(16 * done),
                blocks - done,
                j0,
            );
        }
        ctr_from_native(c, ctr);
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(acc));
    }
}

/// Defines `unsafe fn name(a, b, …) -> uint8x16_t` as the one instruction `insn`, whose
/// operands are `{r}` (the result) and the arguments by name, all vector registers.
/// Attributes (`#[inline]`, `#[target_feature]`) come first; the caller's target features
/// must include the instruction's.
macro_rules! vector_insn {
    ($($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident),+) = $insn:literal;)+) => {$(
        $(#[$attr])*
        $vis unsafe fn $name($($arg: uint8x16_t),+) -> uint8x16_t {
            let r: uint8x16_t;
            // SAFETY: one register-only instruction, no memory or flags; the target
            // features (of this function or of every caller) guarantee it exists.
            unsafe {
                core::arch::asm!($insn, r = lateout(vreg) r, $($arg = in(vreg) $arg,)+
                    options(pure, nomem, nostack, preserves_flags));
            }
            r
        }
    )+};
}
pub(super) use vector_insn;

/// The `Backend` entries an AArch64 backend forwards to its own `crypt.rs` and
/// `short.rs`: the fused kernel through [`crypt`] with the backend's `GROUP` and the
/// [`Kernels`] that `$kernels(key, dir)` picks, CTR alone, and the one-pass short message
/// (which keeps the ciphertext at a non-null hold) and its open. Used inside
/// `impl Backend for …`, with the key type `$key`; the caller's module provides `crypt`,
/// `short` and `GROUP`.
macro_rules! kernel_entries {
    ($key:ty, $kernels:expr) => {
        unsafe fn crypt(
            m: &Material,
            dir: Direction,
            ctr: &mut [u8; 16],
            y: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            blocks: usize,
            j0: Option<&mut [u8; 16]>,
            _at: crate::backend::PublicCtr,
        ) {
            let k: &$key = m.view();
            let kernels = $kernels(k, dir);
            // SAFETY: forwarded contract; CPU support checked at key setup.
            unsafe {
                crate::backend::aarch64::common::crypt::<_, GROUP>(
                    k, kernels, ctr, y, src, dst, blocks, j0,
                )
            }
        }

        unsafe fn ctr(
            m: &Material,
            ctr: &mut [u8; 16],
            src: *const u8,
            dst: *mut u8,
            blocks: usize,
        ) {
            // SAFETY: forwarded contract; CPU support checked at key setup.
            unsafe { crypt::ctr_only(m.view(), ctr, src, dst, blocks) }
        }

        const SHORT_DATA_BLOCKS: usize = short::DATA_BLOCKS;
        const SHORT_HASH_BLOCKS: usize = short::HASH_BLOCKS;
        const SHORT_HOLD_KERNEL: bool = true;

        #[inline(always)]
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
            let enc = dir == Direction::Encrypt;
            // SAFETY: forwarded contract (the mode checked the limits); CPU support
            // checked at key setup.
            unsafe { short::short(m.view(), enc, j0, aad, src, dst, len, hold) }
        }

        #[inline(always)]
        unsafe fn open_short(
            m: &Material,
            j0: &[u8; 16],
            aad: &[u8],
            src: *const u8,
            dst: *mut u8,
            len: usize,
            tag: &[u8],
        ) -> bool {
            // SAFETY: forwarded contract; CPU support checked at key setup.
            let (mut full, ok) = unsafe { short::open(m.view(), j0, aad, src, dst, len, tag) };
            crate::secret::wipe_block(&mut full);
            ok
        }
    };
}
pub(super) use kernel_entries;
