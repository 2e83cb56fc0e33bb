//! AArch32 backends: the crypto extensions of ARMv8 cores in 32-bit mode (`ce`), NEON
//! without them (`neon`). What two of them share goes into a file here (as
//! `aarch64/common.rs` does for AArch64).

pub(crate) mod ce;
mod common;
pub(crate) mod neon;
