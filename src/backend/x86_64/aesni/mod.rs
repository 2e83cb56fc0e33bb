//! `x86_64-aesni`: AES-GCM with AES-NI and PCLMULQDQ on 128-bit registers.
//!
//! The main loop is *stitched* (Gueron–Kounavis, "Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode", and Gueron's later work on
//! aggregated reduction): each iteration runs AES-CTR on eight counter blocks and GHASH
//! on eight ciphertext blocks, so the AES unit and the carry-less multiplier work side by
//! side (`stitched.rs`). GHASH is the POLYVAL-domain arithmetic of `common/`. Short
//! messages and tails of fewer than eight blocks run their AES round-major and aggregate
//! their GHASH with one reduction; the first data of a message also carries E(K, J0) as
//! one more lane (`tail.rs`). The GHASH-only loop hashes sixteen blocks per reduction
//! (`ghash.rs`). Key setup, single blocks and the CTR-only pass are `common/`'s.

mod ghash;
mod stitched;
mod tail;

use super::common::{
    aesni_available, bswap_mask, ctr_from_native, ctr_only, ctr_to_native, load, store,
    x86_backend, XKey,
};
use crate::backend::PublicCtr;
use core::arch::x86_64::*;

/// The backend.
pub(crate) struct X86Aesni;

x86_backend! {
    X86Aesni = c"x86_64-aesni",
    available: aesni_available,
    crypt: crypt,
    ghash: ghash::ghash,
    ctr: ctr_only,
}

/// Blocks per iteration of the stitched loop.
const GROUP: usize = 8;

/// The fused kernel for one direction: whole groups of eight in the stitched loop, then
/// the remainder (and `j0`) in one round-major tail. No step depends on the counter's
/// position: `_at` is not used.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt<const ENC: bool>(
    k: &XKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
    _at: PublicCtr,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16*blocks bytes (caller's contract).
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let groups = blocks / GROUP;
        if groups > 0 {
            stitched::select::<ENC>(k.rounds)(k, &mut c, &mut acc, src, dst, groups);
        }
        let done = groups * GROUP;
        if done < blocks || j0.is_some() {
            tail::crypt_tail::<ENC>(
                k,
                &mut c,
                &mut acc,
                src.add(16 * done),
                dst.add(16 * done),
                blocks - done,
                j0,
            );
        }
        ctr_from_native(c, ctr);
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}
