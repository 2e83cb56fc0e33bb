//! x86_64 backends: AES-NI + PCLMULQDQ on 128-bit registers (`aesni`), VAES +
//! VPCLMULQDQ on 256-bit registers (`vaes`) and on 512-bit registers (`vaes512`). Both use one key layout, key setup, GHASH
//! arithmetic and single-block code (`common`); each folder holds only its own kernels.
//! Measured rates and the history of these loops: `docs/x86_64.md`.

pub(crate) mod aesni;
mod common;
pub(crate) mod vaes;
pub(crate) mod vaes512;
