//! The GCM mode (NIST SP 800-38D): the only place that knows GCM.
//!
//! Everything here is plain data (no pointers, no heap), so it may live in a heap handle
//! or inside caller-owned C memory and survive `memcpy`:
//!
//! - [`Key`] (`key.rs`): an expanded key for one backend and the dispatch to its kernels;
//! - [`Core`] (`core.rs`): the 64-byte per-message state with nettle's `struct gcm_ctx`
//!   layout (J0, counter, GHASH state, AAD and text byte counts), which takes data in
//!   whole blocks plus one final partial block per phase, like nettle;
//! - [`Message`] (`message.rs`): a `Core` with a one-block buffer so that callers may
//!   split AAD and data anywhere, the phase, the length limits, tags and their check;
//! - [`seal`] / [`open`] (`oneshot.rs`): one whole message per call; `open` writes no
//!   plaintext unless the tag verifies;
//! - `generic.rs`: GCM over any caller-supplied 128-bit block function (what nettle's
//!   generic `gcm_*` functions compute), next to the fused path of [`Key`];
//! - `record.rs`: nettle's call sequence on a `Core` at the cost of a one-shot (AAD held
//!   unmultiplied, the first data call in one pass, the tag left for the digest);
//! - [`rfc4106`]: IPsec ESP framing (key‖salt, 8-byte explicit IV, 8/12-byte AAD, ICV of
//!   8/12/16 bytes, a counter IV generator) over the one-shot and [`Message`].
//!
//! The kernels see whole blocks only; the mode does J0, inc32, padding, the lengths
//! block, truncation and the constant-time tag comparison.

mod core;
pub(crate) mod generic;
mod key;
mod message;
mod oneshot;
mod record;
pub mod rfc4106;

pub(crate) use self::core::BlockKey;
pub use self::core::Core;
pub(crate) use crate::backend::aes_schedule::expand as aes_schedule;
pub(crate) use crate::backend::Direction;
pub use key::Key;
pub use message::Message;
pub use oneshot::{open, open_in_place, seal, seal_in_place};
pub(crate) use oneshot::{open_raw, seal_raw};
pub use rfc4106::{IvCounter, Rfc4106Key, Rfc4106Message};

pub const BLOCK: usize = 16;
/// Largest tag; tags may be truncated to 4, 8 or 12..=16 bytes.
pub const TAG_LEN: usize = 16;
/// SP 800-38D: at most 2^39 − 256 bits of text per IV.
pub const MAX_DATA: u64 = (1 << 36) - 32;
/// SP 800-38D: at most 2^64 − 1 bits of AAD (and of IV).
pub const MAX_AAD: u64 = (1 << 61) - 1;

/// Whether `len` is a tag length SP 800-38D allows (4 and 8 only for special uses).
pub const fn tag_len_ok(len: usize) -> bool {
    matches!(len, 4 | 8 | 12..=16)
}

/// Increments the 32-bit big-endian counter in bytes 12..16, wrapping (SP 800-38D inc32).
#[inline]
pub(crate) fn inc32(block: &mut [u8; 16]) {
    let c = u32::from_be_bytes([block[12], block[13], block[14], block[15]]).wrapping_add(1);
    block[12..].copy_from_slice(&c.to_be_bytes());
}

/// The keystream XOR of a partial block: `dst[i] = src[i] ^ ks[i]` for `i < ks.len()`,
/// and, when `ct` is given, the ciphertext side of each byte (the output when
/// encrypting, the input when decrypting) into `ct[i]` for GHASH.
///
/// # Safety
/// `src` readable and `dst` writable for `ks.len()` bytes, equal or disjoint; each input
/// byte is read before the output byte at the same offset is written.
#[inline]
pub(crate) unsafe fn xor_keystream(
    dir: Direction,
    src: *const u8,
    dst: *mut u8,
    ks: &[u8],
    mut ct: Option<&mut [u8]>,
) {
    for (i, k) in ks.iter().enumerate() {
        // SAFETY: i < ks.len(): inside both buffers (caller's contract); read before write.
        unsafe {
            let x = *src.add(i);
            let o = x ^ k;
            *dst.add(i) = o;
            if let Some(ct) = ct.as_deref_mut() {
                ct[i] = if dir == Direction::Encrypt { o } else { x };
            }
        }
    }
}
