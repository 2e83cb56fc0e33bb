//! Small helpers shared by the mode and the backends: wiping and constant-time compare.

use core::sync::atomic::{compiler_fence, Ordering};

/// Overwrites `buf` with zeros that the optimizer must keep. Plain stores (inlined, so
/// that a 16-byte block is one vector store: per-message wiping is on the hot path of
/// short messages) followed by an empty `asm!` that is handed the buffer's address and may,
/// as far as the compiler knows, read any memory: the zeros must be in memory before it,
/// even when the buffer is dead afterwards (the barrier BoringSSL's `OPENSSL_cleanse` uses).
/// Targets without stable `asm!` get volatile byte stores instead.
#[inline(always)]
pub(crate) fn wipe_bytes(buf: &mut [u8]) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm"))]
    {
        buf.fill(0);
        // SAFETY: an empty instruction sequence; it only receives a pointer.
        unsafe {
            core::arch::asm!("/* {0} */", in(reg) buf.as_ptr(), options(nostack, readonly, preserves_flags))
        };
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
    for b in buf.iter_mut() {
        // SAFETY: `b` is a valid, exclusive reference to one byte.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    compiler_fence(Ordering::SeqCst);
}

/// Overwrites `buf` with zeros that the optimizer must keep (as [`wipe_bytes`]).
#[inline(always)]
pub(crate) fn wipe_u64(buf: &mut [u64]) {
    // SAFETY: any u64 is 8 initialised bytes; the view covers exactly `buf`.
    let bytes =
        unsafe { core::slice::from_raw_parts_mut(buf.as_mut_ptr() as *mut u8, 8 * buf.len()) };
    wipe_bytes(bytes);
}

/// Constant-time equality of two equal-length byte strings: the time depends on the
/// length only, never on where (or whether) they differ.
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
