//! AArch32 backends: NEON without the crypto extensions (`neon`).

pub(crate) mod neon;
