//! What both AArch32 backends use: the 32-bit big-endian counter of a counter block
//! (bytes 12..16), which both keep in memory form and step with inc32 (mod 2^32).

/// The counter word of `ctr`.
pub(super) fn counter(ctr: &[u8; 16]) -> u32 {
    u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]])
}

/// inc32 applied `n` times (wrapping, as GCM's counter does).
pub(super) fn add_ctr(ctr: &mut [u8; 16], n: u32) {
    let c = counter(ctr).wrapping_add(n);
    ctr[12..].copy_from_slice(&c.to_be_bytes());
}
