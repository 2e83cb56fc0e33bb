//! AArch64 backends: the crypto extensions (`ce`, AESE/AESMC + PMULL, with an EOR3
//! variant for SHA3-capable cores) and plain NEON for cores without them (`neon`).

pub(crate) mod ce;
pub(crate) mod neon;
