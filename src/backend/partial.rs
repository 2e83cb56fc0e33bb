//! Partial blocks in registers: the first `n` < 16 bytes of caller memory read as a
//! zero-padded block, and written back, without touching a byte outside them and without
//! a round trip through a stack buffer (a block built byte by byte in memory and then
//! read as one 16-byte load cannot be store-forwarded on x86 and stalls).
//!
//! The reads overlap: 9..15 bytes are two 8-byte reads, the second shifted down over the
//! first (on x86_64, 12..15 bytes: 8, then two 4-byte reads); 4..7 bytes two 4-byte
//! reads; 1..3 bytes the first, middle and last byte. The branches depend on the length,
//! which is public; the bytes never steer anything.
// `store_partial`: only the backends with a one-pass short-message kernel of their own.
#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")),
    allow(dead_code)
)]

/// 16 bytes of 0xff then 16 of zero: the mask of an `r`-byte partial block is the 16
/// bytes at offset 16 − r.
pub(crate) static PARTIAL_MASK: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// The first `n` bytes at `p` (0 < `n` < 16) as a zero-padded block: two little-endian
/// halves.
///
/// # Safety
/// `p` is readable for `n` bytes.
#[inline(always)]
pub(crate) unsafe fn load_partial(p: *const u8, n: usize) -> [u64; 2] {
    debug_assert!(n > 0 && n < 16);
    // SAFETY (all): the reads stay inside the `n` readable bytes.
    if n < 8 {
        return [unsafe { load_under_8(p, n) }, 0];
    }
    let lo = u64::from_le_bytes(unsafe { p.cast::<[u8; 8]>().read_unaligned() });
    if n == 8 {
        return [lo, 0];
    }
    // x86_64, 12..15 bytes (a TLS record header is 13): the upper half in two 4-byte
    // reads inside it. A block the caller has just stored as 16 bytes (AAD held by a
    // front-end) is store-forwarded to those, but not to an 8-byte read across its
    // middle, which waits about ten cycles for the store.
    if cfg!(target_arch = "x86_64") && n >= 12 {
        return [lo, unsafe { load_under_8(p.add(8), n - 8) }];
    }
    let hi = u64::from_le_bytes(unsafe { p.add(n - 8).cast::<[u8; 8]>().read_unaligned() })
        >> (8 * (16 - n));
    [lo, hi]
}

/// The first `n` bytes at `p` (0 < `n` < 8), zero-extended: 4..7 bytes as two
/// overlapping 4-byte reads, 1..3 as the first, middle and last byte.
///
/// # Safety
/// `p` is readable for `n` bytes.
#[inline(always)]
unsafe fn load_under_8(p: *const u8, n: usize) -> u64 {
    debug_assert!(n > 0 && n < 8);
    let u32_at = |i: usize| {
        // SAFETY: callers pass offsets with 4 bytes inside the `n` readable ones.
        u64::from(u32::from_le_bytes(unsafe {
            p.add(i).cast::<[u8; 4]>().read_unaligned()
        }))
    };
    // SAFETY (byte reads): offsets below `n`.
    let byte_at = |i: usize| u64::from(unsafe { p.add(i).read() });
    if n >= 4 {
        let top = if n > 4 {
            (u32_at(n - 4) >> (8 * (8 - n))) << 32
        } else {
            0
        };
        u32_at(0) | top
    } else {
        byte_at(0) | (byte_at(n / 2) << (8 * (n / 2))) | (byte_at(n - 1) << (8 * (n - 1)))
    }
}

/// Writes the block with little-endian halves `v` to `p` as one 16-byte store where the
/// architecture has baseline vector registers, so that a 16-byte load of it right after
/// is store-forwarded (two 8-byte stores read back as one block are not, on x86).
///
/// # Safety
/// `p` is writable for 16 bytes.
#[inline(always)]
pub(crate) unsafe fn store_block(p: *mut u8, v: [u64; 2]) {
    // SAFETY (all arms): 16 writable bytes at `p`; the vector units are baseline.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use core::arch::x86_64::*;
        _mm_storeu_si128(p as *mut __m128i, _mm_set_epi64x(v[1] as i64, v[0] as i64));
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        use core::arch::aarch64::*;
        vst1q_u64(
            p as *mut u64,
            vcombine_u64(vcreate_u64(v[0]), vcreate_u64(v[1])),
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    unsafe {
        (p as *mut [u64; 2]).write_unaligned([v[0].to_le(), v[1].to_le()]);
    }
}

/// Writes the first `n` bytes (0 < `n` < 16) of the block `v` to `p`.
///
/// # Safety
/// `p` is writable for `n` bytes.
#[inline(always)]
pub(crate) unsafe fn store_partial(p: *mut u8, v: [u64; 2], n: usize) {
    debug_assert!(n > 0 && n < 16);
    let mut rest = u128::from(v[0]) | (u128::from(v[1]) << 64);
    let mut at = 0;
    for width in [8, 4, 2, 1] {
        if n & width != 0 {
            let bytes = rest.to_le_bytes();
            // SAFETY: `at + width` ≤ `n` writable bytes.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(at), width) };
            rest >>= 8 * width;
            at += width;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_round_trips_and_reads_only_its_bytes() {
        let src: [u8; 15] = core::array::from_fn(|i| 0xa0 ^ (i as u8).wrapping_mul(37));
        for n in 1..16 {
            // Exactly `n` bytes exist: a slice of that length (Miri/ASan would see more).
            // SAFETY: `src[..n]` is readable.
            let v = unsafe { load_partial(src[..n].as_ptr(), n) };
            let mut want = [0u8; 16];
            want[..n].copy_from_slice(&src[..n]);
            let got = [v[0].to_le_bytes(), v[1].to_le_bytes()].concat();
            assert_eq!(got, want, "load {n}");
            let mut out = [0x55u8; 17];
            // SAFETY: `out[1..]` has 16 writable bytes.
            unsafe { store_partial(out[1..].as_mut_ptr(), v, n) };
            assert_eq!(out[1..=n], src[..n], "store {n}");
            assert!(
                out[0] == 0x55 && out[n + 1..].iter().all(|&b| b == 0x55),
                "store {n} wrote outside"
            );
        }
    }
}
