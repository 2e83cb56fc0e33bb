//! AArch64 backends: the crypto extensions (`ce`, AESE/AESMC + PMULL, with an EOR3
//! variant for SHA3-capable cores) and plain NEON for cores without them (`neon`).
//! `common.rs` holds what both use, `one_pass.rs` what their short-message kernels share.

pub(crate) mod ce;
mod common;
pub(crate) mod neon;
mod one_pass;
