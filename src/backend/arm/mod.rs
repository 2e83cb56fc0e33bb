//! AArch32 backends: NEON without the crypto extensions (`neon`). A backend for the
//! AArch32 crypto extensions goes beside it as its own folder; what two of them share
//! goes into a file here (as `aarch64/common.rs` does for AArch64).

pub(crate) mod neon;
