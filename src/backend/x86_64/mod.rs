//! x86_64 backends: AES-NI + PCLMULQDQ on 128-bit registers (`aesni`), and VAES +
//! VPCLMULQDQ on 256-bit registers (`vaes`), which reuses `aesni`'s key layout and tails.

pub(crate) mod aesni;
pub(crate) mod vaes;
