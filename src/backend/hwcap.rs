//! What the ARM backends ask the kernel about the CPU: the hardware capability words of
//! the auxiliary vector (`getauxval(AT_HWCAP)`, `AT_HWCAP2`), one glibc call each. On
//! AArch64 std's `is_aarch64_feature_detected!` would read the same word, but links a
//! `/proc/cpuinfo` parser and its string searching as a fallback (about 12 KB of `.text`,
//! `docs/footprint.md`); glibc always has the auxiliary vector, so the word is enough.
//! The bits are the Linux uapi's (`asm/hwcap.h` of each architecture).

use core::sync::atomic::{AtomicU8, Ordering};
use libc::c_ulong;

/// AArch64 `AT_HWCAP` bits.
#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64 {
    use super::c_ulong;
    pub(crate) const FP: c_ulong = 1 << 0;
    pub(crate) const ASIMD: c_ulong = 1 << 1;
    pub(crate) const AES: c_ulong = 1 << 3;
    pub(crate) const PMULL: c_ulong = 1 << 4;
    pub(crate) const SHA3: c_ulong = 1 << 17;
}

/// AArch32 `AT_HWCAP` (NEON) and `AT_HWCAP2` (AES, PMULL) bits.
#[cfg(target_arch = "arm")]
pub(crate) mod arm {
    use super::c_ulong;
    pub(crate) const NEON: c_ulong = 1 << 12;
    pub(crate) const AES2: c_ulong = 1 << 0;
    pub(crate) const PMULL2: c_ulong = 1 << 1;
}

/// Whether `AT_HWCAP` has every bit of `hw` and `AT_HWCAP2` every bit of `hw2`. The answer
/// is kept in `seen` (0: not asked yet, 1: no, 2: yes): key setup asks on every key, and a
/// one-shot call with a raw key sets one up per message, where two library calls would show.
/// Threads that race here store the same answer.
pub(crate) fn has(seen: &AtomicU8, hw: c_ulong, hw2: c_ulong) -> bool {
    match seen.load(Ordering::Relaxed) {
        0 => {}
        known => return known == 2,
    }
    // SAFETY: getauxval has no preconditions; it returns 0 for a type the kernel did not
    // pass, which reads as "no such feature".
    let (word, word2) = unsafe {
        (
            libc::getauxval(libc::AT_HWCAP),
            if hw2 == 0 {
                0
            } else {
                libc::getauxval(libc::AT_HWCAP2)
            },
        )
    };
    let yes = word & hw == hw && word2 & hw2 == hw2;
    seen.store(1 + yes as u8, Ordering::Relaxed);
    yes
}
