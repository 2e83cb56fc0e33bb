//! Whole messages in one pass on `x86_64-vaes512` (`crypt_whole` and `crypt_message`):
//! the AAD's GHASH, the stitched loop, then one masked tail (`zmm::tail`) for the last
//! bytes, with the partial last block under byte masks, E(K, J0) as one more lane and the
//! lengths block absorbed — where the generic path (`backend/whole.rs`) runs the partial
//! block's keystream and the lengths block as calls of their own, each a latency chain
//! behind the last. How the message splits ([`split`]): decryption leaves 1..=16 blocks
//! to the tail, which hashes them between its rounds; encryption hashes its ciphertext
//! after the rounds, so an encryption tail of sixteen blocks costs about two stitched
//! iterations, and a message of whole iterations (8 KiB, a 16 KiB TLS record) has none:
//! E(K, J0) and the lengths block (one multiplication) follow the loop.

use super::zmm;
use super::{low_byte, X86Vaes512, WIDE};
use crate::backend::short::first_counter;
use crate::backend::x86_64::common::{
    bswap_mask, ctr_to_native, encrypt_block, load, store, Acc, XKey,
};
use crate::backend::{Backend, Direction, Material, PublicCtr};
use crate::secret::wipe_block;
use core::arch::x86_64::*;

/// `crypt_whole`: a message after its AAD's GHASH in one pass — the stitched loop for
/// every whole 256 bytes, then the masked tail for the rest (the partial last block under
/// byte masks), E(K, J0) as one more lane and the lengths block absorbed at the end. An
/// empty message takes the generic path. `at`: the public position of inc32(J0), if any
/// (`Backend::crypt_whole`).
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn whole(
    m: &Material,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    at: PublicCtr,
) -> [u8; 16] {
    // SAFETY: the caller's contract (`src`/`dst` hold `len` bytes); features enabled.
    unsafe {
        if len == 0 {
            let mut y = [0u8; 16];
            let tag = crate::backend::whole::crypt::<X86Vaes512>(
                m, dir, j0, aad, src, dst, len, &mut y, at,
            );
            wipe_block(&mut y);
            return tag;
        }
        one_pass::<1>(m, dir, j0, aad, src, dst, len, at).finish(None)
    }
}

/// `crypt_message`: as [`whole`], but the tail's GHASH stops at the whole blocks (the
/// state `y` a streaming message goes on from) and the tag multiplies that state with the
/// partial block and the lengths block once more, in the same pass. Messages whose tail
/// would hold a partial block alone (1..=15 bytes past a multiple of 256) take the generic
/// path.
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn message(
    m: &Material,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    y: &mut [u8; 16],
    at: PublicCtr,
) -> [u8; 16] {
    // SAFETY: the caller's contract (`src`/`dst` hold `len` bytes); features enabled.
    unsafe {
        if len < 16 || (1..16).contains(&split(dir, len).1) {
            return crate::backend::whole::crypt::<X86Vaes512>(
                m, dir, j0, aad, src, dst, len, y, at,
            );
        }
        one_pass::<2>(m, dir, j0, aad, src, dst, len, at).finish(Some(y))
    }
}

/// The pass of [`whole`] and [`message`] (`LB` as for `zmm::tail`), its state left in the
/// returned `Whole`. The secrets of the message (GHASH state, E(K, J0)) stay there,
/// written and read by out-of-line callees only, so that the frame this is inlined into
/// holds nothing but the public values it spills (what ct-static's per-frame view of the
/// stack can follow).
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn one_pass<const LB: usize>(
    m: &Material,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    mut src: *const u8,
    mut dst: *mut u8,
    len: usize,
    at: PublicCtr,
) -> Whole {
    // SAFETY: the caller's contract (`src`/`dst` hold `len` bytes, len ≥ 1, and no tail
    // of a partial block alone with `LB` = 2); features enabled in the callers.
    unsafe {
        let k: &XKey = m.view();
        let mut w = Whole {
            st: [_mm_setzero_si128(); 2],
            y: [0; 16],
            mask: *j0,
            lengths: [0; 16],
        };
        X86Vaes512::ghash_bytes(m, &mut w.y, aad.as_ptr(), aad.len());
        w.start(j0, aad.len(), len);
        let (iterations, rest) = split(dir, len);
        if iterations > 0 {
            let low = low_byte(at);
            match dir {
                Direction::Encrypt => wide::<true>(k, &mut w, src, dst, iterations, low),
                Direction::Decrypt => wide::<false>(k, &mut w, src, dst, iterations, low),
            }
            src = src.add(16 * WIDE * iterations);
            dst = dst.add(16 * WIDE * iterations);
        }
        match (rest, dir) {
            // No tail to take E(K, J0) as a lane: after the loop, whose AES holds port 0
            // (before it, the block's rounds measured 1% slower at 8 KiB), beside the
            // last GHASH.
            (0, _) => {
                w.encrypt_j0(k);
                w.lengths::<LB>(k)
            }
            (_, Direction::Encrypt) => last::<1, LB>(k, &mut w, src, dst, rest),
            (_, Direction::Decrypt) => last::<0, LB>(k, &mut w, src, dst, rest),
        }
        w
    }
}

/// How [`one_pass`] splits a message of `len` ≥ 1 bytes: (stitched iterations, bytes left
/// to the tail). Decryption: 1..=256 bytes to the tail; encryption: the whole iterations,
/// 0..=255 bytes to the tail.
fn split(dir: Direction, len: usize) -> (usize, usize) {
    let iterations = match dir {
        Direction::Encrypt => len / (16 * WIDE),
        Direction::Decrypt => (len.div_ceil(16) - 1) / WIDE,
    };
    (iterations, len - 16 * WIDE * iterations)
}

/// The message state of [`one_pass`]: the native counter and the POLYVAL-domain GHASH
/// state (as the 512-bit pass keeps them), GHASH of the AAD, E(K, J0) (J0 until the tail
/// encrypts it in place) and the lengths block (with `LB` = 2, then the tag's state).
#[repr(C)]
struct Whole {
    st: [__m128i; 2],
    y: [u8; 16],
    mask: [u8; 16],
    lengths: [u8; 16],
}

impl Whole {
    /// The first counter and the state after the AAD, in the pass's forms; the lengths
    /// block in the POLYVAL domain (byte-reversed).
    #[inline(never)]
    #[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn start(&mut self, j0: &[u8; 16], aad_len: usize, len: usize) {
        // SAFETY: features enabled; the fields are 16-byte blocks.
        unsafe {
            self.st[0] = ctr_to_native(&first_counter(j0));
            self.st[1] = _mm_shuffle_epi8(load(self.y.as_ptr()), bswap_mask());
            let l = _mm_set_epi64x((aad_len as i64) << 3, (len as i64) << 3);
            store(self.lengths.as_mut_ptr(), l);
        }
    }

    /// E(K, J0) in place of J0 in `mask`, for a message without a tail (which would take it
    /// as a lane).
    #[inline(never)]
    #[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn encrypt_j0(&mut self, k: &XKey) {
        // SAFETY: features enabled.
        unsafe { encrypt_block(k, &mut self.mask) }
    }

    /// The end of a message without a tail: the lengths block absorbed as the tail's `LB`
    /// step does it, (state ^ L)·H, into `st` (`LB` = 1) or over L (`LB` = 2, the state
    /// over the whole blocks left in `st`).
    #[inline(never)]
    #[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn lengths<const LB: usize>(&mut self, k: &XKey) {
        // SAFETY: features enabled; the fields are 16-byte blocks.
        unsafe {
            let mut sum = Acc::new();
            sum.mul_add(
                _mm_xor_si128(self.st[1], load(self.lengths.as_ptr())),
                load(k.h[15].as_ptr()),
                load(k.hk[15].as_ptr()),
            );
            match LB {
                1 => self.st[1] = sum.reduce(),
                _ => store(self.lengths.as_mut_ptr(), sum.reduce()),
            }
        }
    }

    /// The tag, masked with E(K, J0): from the state in `st` (`LB` = 1, `y` None), or from
    /// the one over `lengths` with the whole blocks' state given to `y` (`LB` = 2); the
    /// secrets wiped.
    #[inline(never)]
    #[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn finish(&mut self, y: Option<&mut [u8; 16]>) -> [u8; 16] {
        // SAFETY: features enabled; the fields are 16-byte blocks.
        unsafe {
            let bs = bswap_mask();
            let state = match y {
                Some(y) => {
                    store(y.as_mut_ptr(), _mm_shuffle_epi8(self.st[1], bs));
                    load(self.lengths.as_ptr())
                }
                None => self.st[1],
            };
            let t = _mm_xor_si128(_mm_shuffle_epi8(state, bs), load(self.mask.as_ptr()));
            let mut tag = [0u8; 16];
            store(tag.as_mut_ptr(), t);
            crate::secret::wipe_bytes(&mut *(self.st.as_mut_ptr() as *mut [u8; 32]));
            wipe_block(&mut self.y);
            wipe_block(&mut self.mask);
            wipe_block(&mut self.lengths);
            tag
        }
    }
}

/// The whole iterations of [`one_pass`] on its state (out of line, as [`last`]).
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn wide<const ENC: bool>(
    k: &XKey,
    w: &mut Whole,
    src: *const u8,
    dst: *mut u8,
    iterations: usize,
    low: u64,
) {
    // SAFETY: `src`/`dst` hold 256·iterations bytes (caller's contract); `st` is the 32
    // bytes of the two blocks.
    unsafe {
        let st = &mut *(w.st.as_mut_ptr() as *mut [u8; 32]);
        super::wide::<ENC>(k, st, src, dst, iterations, low)
    }
}

/// The end of [`one_pass`]: the tail of `rest` bytes (1..=256) with E(K, J0) and the
/// lengths block, compiled per register count, direction and `LB`.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn last<const ENC: usize, const LB: usize>(
    k: &XKey,
    w: &mut Whole,
    src: *const u8,
    dst: *mut u8,
    rest: usize,
) {
    // SAFETY: `src`/`dst` hold `rest` bytes, 1 ≤ rest ≤ 256 (16 ≤ rest with `LB` = 2:
    // caller's contract); G is ⌈rest/64⌉ in each arm; `st` is the 32 bytes of the two
    // blocks.
    unsafe {
        let st = &mut *(w.st.as_mut_ptr() as *mut [u8; 32]);
        let (j, lp) = (w.mask.as_mut_ptr(), w.lengths.as_mut_ptr());
        match rest.div_ceil(64) {
            1 => zmm::tail::<1, ENC, 1, LB>(k, st, src, dst, rest, j, lp),
            2 => zmm::tail::<2, ENC, 1, LB>(k, st, src, dst, rest, j, lp),
            3 => zmm::tail::<3, ENC, 1, LB>(k, st, src, dst, rest, j, lp),
            _ => zmm::tail::<4, ENC, 1, LB>(k, st, src, dst, rest, j, lp),
        }
    }
}
