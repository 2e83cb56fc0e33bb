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

/// `x86_64-vaes512`: what `x86_64-vaes` needs, and AVX-512F/BW/VL (the standard library's
/// detection also checks that the OS saves the zmm and mask registers). Cached.
pub(crate) fn vaes512_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        vaes_available()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
    })
}

/// Whether the automatic choice takes `x86_64-vaes512`: wherever it runs, except on the
/// Intel cores that lower their clock for 512-bit vectors (Skylake-X, Ice Lake client
/// and server, Tiger Lake: family 6 models 0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c,
/// 0x8d), where `x86_64-vaes` is the better choice. Rocket Lake, Sapphire Rapids and
/// later Intel and Zen 4 and later AMD take it. (The list Linux keeps for its AES modes,
/// `zmm_exclusion_list` / `X86_FEATURE_PREFER_YMM` in arch/x86.)
pub(crate) fn vaes512_preferred() -> bool {
    vaes512_available() && !lowers_clock_for_zmm()
}

fn lowers_clock_for_zmm() -> bool {
    #[allow(unused_unsafe)] // `__cpuid*` are safe functions in newer Rust, not in 1.85
    // SAFETY: CPUID leaves 0 and 1 exist on every x86_64 CPU.
    let (vendor, eax) = unsafe {
        let l0 = __cpuid_count(0, 0);
        (
            [
                l0.ebx.to_le_bytes(),
                l0.edx.to_le_bytes(),
                l0.ecx.to_le_bytes(),
            ],
            __cpuid_count(1, 0).eax,
        )
    };
    let family = (eax >> 8) & 0xf;
    let model = ((eax >> 4) & 0xf) | ((eax >> 12) & 0xf0);
    vendor.concat() == b"GenuineIntel"
        && family == 6
        && matches!(model, 0x55 | 0x6a | 0x6c | 0x7d | 0x7e | 0x9d | 0x8c | 0x8d)
}
