//! Whole short messages in one pass, for both x86_64 backends (a handful of blocks gains
//! nothing from 256-bit registers): E(K, J0) and up to seven counter blocks run AES
//! round-major as two, four, five or eight lanes — AES is latency-bound here, so a few
//! unused lanes cost little, and four lane counts keep the kernels few; five is the
//! 64-byte message's exact count, which would waste three lanes of eight — and
//! GHASH over the AAD, the ciphertext and the lengths block is one aggregated sum over
//! H^n..H^1 with one reduction. Partial blocks are read and written in registers
//! (`backend/partial.rs`); the partial last ciphertext block is masked to its length
//! before it is hashed. Opening compares the tag before it stores any plaintext, which
//! waits in registers meanwhile.
//!
//! Everything here is constant time: the branches and the one table offset (the mask of
//! the partial block) depend on lengths, which are public.

use super::{bswap_mask, load, middle_rounds, rk, store, Acc, XKey};
use crate::backend::partial::{load_partial, store_partial, PARTIAL_MASK};
use crate::secret::ct_eq;
use core::arch::x86_64::*;

/// Data blocks per call: eight AES lanes with E(K, J0).
pub(crate) const DATA_BLOCKS: usize = 7;
/// GHASH blocks per call (AAD + data + lengths): the sixteen stored powers of H.
pub(crate) const HASH_BLOCKS: usize = 16;

#[inline(always)]
unsafe fn from_halves(v: [u64; 2]) -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi64x(v[1] as i64, v[0] as i64) }
}

#[inline(always)]
unsafe fn to_halves(v: __m128i) -> [u64; 2] {
    // SAFETY: SSE4.1 is enabled in every caller.
    unsafe {
        [
            _mm_cvtsi128_si64(v) as u64,
            _mm_extract_epi64::<1>(v) as u64,
        ]
    }
}

/// `$f::<…, LANES>($args)` (generic arguments before LANES optional) with the lanes a
/// message of `$len` bytes needs: E(K, J0) and one per block, rounded up to the counts
/// that are compiled (2, 4, 5, 8).
macro_rules! by_lanes {
    ($len:expr, $f:ident $(::<$($g:tt),*>)? ($($arg:expr),*)) => {
        // Lanes for 1, 2-3, 4 and more blocks, told apart on the byte count.
        match $len {
            0..=16 => $f::<$($($g,)*)? 2>($($arg),*),
            17..=48 => $f::<$($($g,)*)? 4>($($arg),*),
            49..=64 => $f::<$($($g,)*)? 5>($($arg),*),
            _ => $f::<$($($g,)*)? 8>($($arg),*),
        }
    };
}

/// One pass over a message within the limits from its J0: the output, the full tag, and
/// the zero-padded ciphertext at `hold` unless it is NULL. (Only the choice of lanes,
/// inlined into the caller: one call per message, every argument but two in a register.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn short<const ENC: bool>(
    k: &XKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    hold: *mut u8,
) -> [u8; 16] {
    // SAFETY: forwarded contract (the caller checked the CPU's features).
    unsafe { by_lanes!(len, seal_lanes::<ENC>(k, j0, aad, src, dst, len, hold)) }
}

/// [`short`] opening: the full tag, and whether it starts with `expected` (the output is
/// written only then).
#[inline(always)]
pub(crate) unsafe fn open(
    k: &XKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> ([u8; 16], bool) {
    // SAFETY: forwarded contract (the caller checked the CPU's features).
    unsafe { by_lanes!(len, open_lanes(k, j0, aad, src, dst, len, expected)) }
}

/// [`lanes`] without a tag to check.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn seal_lanes<const ENC: bool, const LANES: usize>(
    k: &XKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    hold: *mut u8,
) -> [u8; 16] {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe { lanes::<ENC, LANES>(k, j0, aad, src, dst, len, None, hold).0 }
}

/// [`lanes`] opening against `expected`.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn open_lanes<const LANES: usize>(
    k: &XKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    expected: &[u8],
) -> ([u8; 16], bool) {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe {
        let hold = core::ptr::null_mut();
        lanes::<false, LANES>(k, j0, aad, src, dst, len, Some(expected), hold)
    }
}

/// The pass with `LANES` AES lanes (E(K, J0) and `LANES` − 1 counter blocks): returns the
/// full tag, and whether the output was written — always, unless `verify` holds a tag
/// (opening) that the computed one does not start with.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn lanes<const ENC: bool, const LANES: usize>(
    k: &XKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    verify: Option<&[u8]>,
    hold: *mut u8,
) -> ([u8; 16], bool) {
    let n = len.div_ceil(16);
    let a = aad.len().div_ceil(16);
    let total = a + n + 1;
    debug_assert!(n < LANES && n <= DATA_BLOCKS && total <= HASH_BLOCKS);
    // SAFETY: features enabled; every pointer access stays inside the `len` bytes of
    // `src`/`dst` and `aad` (block_at, store_partial); key indices ≤ 15.
    unsafe {
        let bs = bswap_mask();
        // J0 byte-reversed has its 32-bit counter in lane 0: lane i is J0 + i (inc32).
        let c = _mm_shuffle_epi8(load(j0.as_ptr()), bs);
        let key = rk(k, 0);
        let mut lanes = [_mm_setzero_si128(); LANES];
        for (i, l) in lanes.iter_mut().enumerate() {
            let ctr = _mm_shuffle_epi8(_mm_add_epi32(c, _mm_cvtsi32_si128(i as i32)), bs);
            *l = _mm_xor_si128(ctr, key);
        }
        let last = middle_rounds!(k, |key| {
            for l in lanes.iter_mut() {
                *l = _mm_aesenc_si128(*l, key);
            }
        });
        for l in lanes.iter_mut() {
            *l = _mm_aesenclast_si128(*l, last);
        }

        // GHASH: block j of `total` takes H^(total - j), stored at h[16 - total + j]. Whole
        // blocks in plain loops, then at most one partial block each for AAD and data.
        let mut sum = Acc::new();
        let (hp, hkp) = (k.h.as_ptr().add(16 - total), k.hk.as_ptr().add(16 - total));
        let mut j = 0;
        let mut hash = |x: __m128i| {
            sum.mul_add(
                _mm_shuffle_epi8(x, bs),
                load(hp.add(j) as *const u8),
                load(hkp.add(j) as *const u8),
            );
            j += 1;
        };
        let (aad_whole, aad_left) = (aad.len() / 16, aad.len() % 16);
        for i in 0..aad_whole {
            hash(load(aad.as_ptr().add(16 * i)));
        }
        if aad_left > 0 {
            hash(from_halves(load_partial(
                aad.as_ptr().add(16 * aad_whole),
                aad_left,
            )));
        }
        let mut out = [_mm_setzero_si128(); LANES];
        // The ciphertext blocks hashed are also kept at `hold` when the caller asks. A
        // fixed trip count with the condition inside unrolls, `out` stays in registers.
        for i in 0..LANES - 1 {
            if i < n {
                let left = len - 16 * i;
                let (x, o) = if left >= 16 {
                    let x = load(src.add(16 * i));
                    (x, _mm_xor_si128(x, lanes[i + 1]))
                } else {
                    let x = from_halves(load_partial(src.add(16 * i), left));
                    let o = _mm_xor_si128(x, lanes[i + 1]);
                    // The keystream past the data is masked off (the padded block is hashed).
                    (
                        x,
                        _mm_and_si128(o, load(PARTIAL_MASK.as_ptr().add(16 - left))),
                    )
                };
                out[i] = o;
                let c = if ENC { o } else { x };
                if !hold.is_null() {
                    store(hold.add(16 * i), c);
                }
                hash(c);
            }
        }
        let bits = _mm_set_epi64x((aad.len() as i64) << 3, (len as i64) << 3);
        sum.mul_add(bits, load(k.h[15].as_ptr()), load(k.hk[15].as_ptr()));
        let tag_reg = _mm_xor_si128(_mm_shuffle_epi8(sum.reduce(), bs), lanes[0]);
        let mut tag = [0u8; 16];
        store(tag.as_mut_ptr(), tag_reg);

        let release = match verify {
            Some(expected) => ct_eq(&tag[..expected.len()], expected),
            None => true,
        };
        if release {
            for (i, o) in out.iter().enumerate().take(LANES - 1) {
                if i < n {
                    let left = len - 16 * i;
                    if left >= 16 {
                        store(dst.add(16 * i), *o);
                    } else {
                        store_partial(dst.add(16 * i), to_halves(*o), left);
                    }
                }
            }
        }
        (tag, release)
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::short::check::check;
    use crate::backend::x86_64::{aesni::X86Aesni, vaes::X86Vaes, vaes512::X86Vaes512};
    use crate::backend::Backend;

    #[test]
    fn every_key_size_length_and_placement() {
        // `check` runs nothing (0 cases) where the CPU lacks the backend.
        assert!(check::<X86Aesni>() > 0 || !X86Aesni::is_available());
        assert!(check::<X86Vaes>() > 0 || !X86Vaes::is_available());
        assert!(check::<X86Vaes512>() > 0 || !X86Vaes512::is_available());
    }
}
