//! What both x86_64 backends share: the key layout and key setup, single blocks and the
//! counter on 128-bit registers, the POLYVAL-domain GHASH arithmetic, the CTR-only
//! remainder, CPU feature detection and the `impl Backend` itself.
//!
//! GHASH runs in the POLYVAL domain of RFC 8452 (AES-GCM-SIV): a GCM block, byte-reversed
//! (`pshufb`), is a POLYVAL field element, and GHASH with key H equals POLYVAL with key
//! mulX(H) (RFC 8452, appendix A). POLYVAL's product a·b·x^-128 is what PCLMULQDQ plus a
//! Montgomery-style reduction gives cheaply: two multiplications by the 64-bit constant
//! 0xc2…00 fold the low 128 bits of the 256-bit product away (Gueron's "fast reduction";
//! also Intel's GCM whitepaper, revised). Because the reduction multiplies by x^-128
//! every time, the "powers" stored in the key are POLYVAL powers (H, H·H·x^-128, …), and
//! aggregation works unchanged: Y' = (Y + C0)·H^n + C1·H^(n-1) + … + C(n-1)·H with one
//! reduction per group. Products use Karatsuba (three carry-less multiplications per
//! block; the middle operands of the key powers are precomputed).
//!
//! The counter is kept byte-reversed, so inc32 is one `paddd` on lane 0 and each counter
//! block costs one `pshufb`. Key expansion uses AESENCLAST on a broadcast word as the
//! S-box (ShiftRows has no effect when the four columns are equal): no table. Everything
//! here is constant time by construction: AES-NI and (V)PCLMULQDQ have data-independent
//! timing, and no branch or address depends on key, data or tag.
//!
//! This module is private to `x86_64`, so `pub(crate)` below means "for `aesni` and
//! `vaes`".

mod block;
mod cpu;
mod ctr;
mod dispatch;
mod key;
mod polyval;
pub(crate) mod short;

pub(crate) use block::{
    bswap_mask, ctr_block, ctr_from_native, ctr_to_native, encrypt_block, encrypt_block2, load,
    middle_rounds, rk, store,
};
pub(crate) use cpu::{aesni_available, vaes512_available, vaes512_preferred, vaes_available};
pub(crate) use ctr::ctr_only;
pub(crate) use dispatch::{
    ghash_by_count, per_key_size, pin_registers, tail_by_count, x86_backend,
};
pub(crate) use key::{init, XKey};
pub(crate) use polyval::{ghash_n, ghash_partial, tag, Acc};
pub(crate) use short::short;
