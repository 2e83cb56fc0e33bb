//! Small helpers shared by the mode and the backends: wiping and constant-time compare.

use core::sync::atomic::{compiler_fence, Ordering};

/// Overwrites `buf` with zeros through volatile stores the optimizer must keep (whole
/// words where aligned: per-message wiping is on the hot path of short messages).
pub(crate) fn wipe_bytes(buf: &mut [u8]) {
    // SAFETY: any bit pattern is a valid u64, so viewing the aligned middle as words is sound.
    let (head, words, tail) = unsafe { buf.align_to_mut::<u64>() };
    for b in head.iter_mut().chain(tail.iter_mut()) {
        // SAFETY: `b` is a valid, exclusive reference to one byte.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    for w in words.iter_mut() {
        // SAFETY: `w` is a valid, exclusive, aligned reference to one u64.
        unsafe { core::ptr::write_volatile(w, 0) };
    }
    compiler_fence(Ordering::SeqCst);
}

/// Overwrites one block with zeros (the per-message wipes of tags, masks and counters).
/// On AArch64 and x86_64 a plain 16-byte store followed by an empty `asm!` that is given
/// the block's address and may read memory, so the store must happen before it (the
/// barrier of OpenSSL's `OPENSSL_cleanse`): a volatile `[u8; 16]` store is compiled
/// there as zeros stored to the stack, loaded back and stored again, and on AArch64 that
/// 16-byte load from two 8-byte stores cannot be forwarded. Elsewhere one volatile store.
#[inline(always)]
pub(crate) fn wipe_block(b: &mut [u8; 16]) {
    #[cfg(any(target_arch = "aarch64", target_arch = "x86_64"))]
    {
        *b = [0u8; 16];
        // SAFETY: an empty instruction string; it only receives the address.
        unsafe {
            core::arch::asm!("/* {0} */", in(reg) b.as_ptr(), options(nostack, preserves_flags, readonly))
        };
    }
    #[cfg(not(any(target_arch = "aarch64", target_arch = "x86_64")))]
    {
        // SAFETY: `b` is a valid, exclusive reference to 16 bytes; `[u8; 16]` has
        // alignment 1.
        unsafe { core::ptr::write_volatile(b, [0u8; 16]) };
        compiler_fence(Ordering::SeqCst);
    }
}

/// Overwrites `buf` with zeros through volatile stores the optimizer must keep.
pub(crate) fn wipe_u64(buf: &mut [u64]) {
    for w in buf.iter_mut() {
        // SAFETY: `w` is a valid, exclusive reference to one u64.
        unsafe { core::ptr::write_volatile(w, 0) };
    }
    compiler_fence(Ordering::SeqCst);
}

/// Whether `diff` (an OR of XORs, computed without branches) is zero, as a public verdict
/// (a ctgrind build tells valgrind so: src/valgrind.rs). The value passes through an
/// empty `asm!` first, so the compiler cannot turn the accumulation before it into early
/// exits; unlike `black_box`, which stores and reloads it through the stack, it stays in
/// its register where there is a 64-bit one.
#[inline(always)]
pub(crate) fn is_zero_public(diff: u64) -> bool {
    #[cfg(any(target_arch = "aarch64", target_arch = "x86_64"))]
    let diff = {
        let mut d = diff;
        // SAFETY: an empty instruction string; it only claims to change `d`.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) d, options(pure, nomem, nostack, preserves_flags))
        };
        d
    };
    #[cfg(not(any(target_arch = "aarch64", target_arch = "x86_64")))]
    let diff = core::hint::black_box(diff);
    crate::valgrind::declassify(diff == 0)
}

/// Constant-time equality of two equal-length byte strings: the time depends on the
/// length only, never on where (or whether) they differ. (Inline: the libgcrypt
/// interposer's checktag reaches it from its crate through `Message::verify`.)
#[inline]
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    // black_box keeps the compiler from turning the OR-accumulation into an early exit.
    // The verdict is public (a ctgrind build tells valgrind so: src/valgrind.rs).
    crate::valgrind::declassify(core::hint::black_box(diff) == 0)
}
