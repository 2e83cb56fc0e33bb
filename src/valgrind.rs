//! Valgrind client requests for the constant-time validation build (cargo feature
//! `ct-validation`; scripts/ctgrind.sh builds with it).
//!
//! The method is Adam Langley's "ctgrind", as in BoringSSL's constant-time validation:
//! the test harness marks keys, data and tags as *undefined* memory, and memcheck then
//! reports every conditional branch and every memory address computed from them. The one
//! branch the library may take on secret data is on the verdict of a constant-time
//! comparison (did the tag match?), which is public once computed; [`declassify`] tells
//! memcheck so. Without the feature it is the identity and nothing is compiled in.
//!
//! A client request is valgrind's documented protocol (valgrind.h): a sequence of
//! rotations that sums to a no-op, which valgrind's translator recognises, followed by a
//! marker instruction; one register holds the address of a six-word argument block, one
//! a default result. Natively the sequence does nothing.

/// The verdict of a constant-time comparison, made public for memcheck.
#[inline(always)]
pub(crate) fn declassify(verdict: bool) -> bool {
    #[cfg(feature = "ct-validation")]
    {
        let v = verdict;
        // VG_USERREQ__MAKE_MEM_DEFINED = VG_USERREQ_TOOL_BASE('M', 'C') + 2.
        request(0x4d43_0002, &v as *const bool as usize, 1);
        // Read back through memory, so the now-defined copy is what the caller sees.
        // SAFETY: `v` is a live local.
        unsafe { core::ptr::read_volatile(&v) }
    }
    #[cfg(not(feature = "ct-validation"))]
    verdict
}

#[cfg(feature = "ct-validation")]
#[inline(always)]
fn request(code: usize, a1: usize, a2: usize) {
    let args: [usize; 6] = [code, a1, a2, 0, 0, 0];
    let p = args.as_ptr();
    // SAFETY: the rotations sum to a multiple of the word size (registers unchanged) and
    // the marker `xchg`/`orr` is a no-op; valgrind reads the argument block at `p`.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        core::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
            in("rax") p, inout("rdx") 0usize => _, options(nostack, preserves_flags)
        );
        #[cfg(target_arch = "aarch64")]
        core::arch::asm!(
            "ror x12, x12, #3", "ror x12, x12, #13", "ror x12, x12, #51", "ror x12, x12, #61",
            "orr x10, x10, x10",
            in("x4") p, inout("x3") 0usize => _, options(nostack, preserves_flags)
        );
        #[cfg(target_arch = "arm")]
        core::arch::asm!(
            "mov r12, r12, ror #3", "mov r12, r12, ror #13", "mov r12, r12, ror #29",
            "mov r12, r12, ror #19", "orr r10, r10, r10",
            in("r4") p, inout("r3") 0usize => _, options(nostack, preserves_flags)
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
    let _ = p;
}
