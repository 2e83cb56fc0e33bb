//! Which x86_64 backends this CPU runs. AES-NI needs AES, PCLMULQDQ, SSSE3 and SSE4.1.
//! VAES needs those, AVX2 (which also says the OS saves the ymm state) and the VAES and
//! VPCLMULQDQ bits of CPUID leaf 7 (ECX bits 9 and 10), read directly because Rust 1.85
//! (the MSRV) has no stable `vaes`/`vpclmulqdq` target features to detect.

use core::arch::x86_64::{__cpuid_count, __get_cpuid_max};

pub(crate) fn aesni_available() -> bool {
    std::arch::is_x86_feature_detected!("aes")
        && std::arch::is_x86_feature_detected!("pclmulqdq")
        && std::arch::is_x86_feature_detected!("ssse3")
        && std::arch::is_x86_feature_detected!("sse4.1")
}

/// Cached: CPUID is slow in a virtual machine (it traps to the hypervisor, ~µs), and keys
/// set up in caller memory ask on every call.
pub(crate) fn vaes_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(detect_vaes)
}

fn detect_vaes() -> bool {
    if !aesni_available() || !std::arch::is_x86_feature_detected!("avx2") {
        return false;
    }
    #[allow(unused_unsafe)] // `__cpuid*` are safe functions in newer Rust, not in 1.85
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 7 is only read when the maximum
    // basic leaf reaches it.
    unsafe {
        if __get_cpuid_max(0).0 < 7 {
            return false;
        }
        let ecx = __cpuid_count(7, 0).ecx;
        ecx & (1 << 9) != 0 && ecx & (1 << 10) != 0
    }
}
