//! Single blocks and tails of `arm-neon`, over the kernels of `run.rs`.
//!
//! The group kernels only run whole groups of eight blocks. A tail of up to
//! [`SMALL_LANES`] counter blocks (J0 included, when it rides along) takes the
//! vector-permute kernels instead, a few lanes per call, so one block costs one lane and
//! not a group; a longer tail runs one more group on a stack copy (the unused keystream
//! is discarded and the copy wiped). A short message puts J0 first, so E(K, J0) (the tag
//! mask) costs no call of its own. GHASH of a tail of 1..=7 blocks is the one-pass
//! GHASH kernel of that many blocks (`ghash_short`), with `y` added into the first.

use super::run::{Mode, VPERM_LANES};
use super::{NeonKey, GROUP};
use crate::backend::arm::common::add_ctr;

/// Counter blocks up to which a tail runs through the vector-permute kernels: at four
/// lanes (two calls of two) they still cost less than one eight-block bit-sliced group.
const SMALL_LANES: usize = 4;

impl NeonKey {
    /// GHASH of 1..=7 blocks in one pass from zero, with `y` added into the first.
    pub(super) fn ghash_tail(&self, y: &mut [u8; 16], data: &[u8]) {
        let n = data.len() / 16;
        debug_assert!((1..GROUP).contains(&n) && data.len() == 16 * n);
        let mut blocks = [[0u8; 16]; GROUP - 1];
        for (b, d) in blocks.iter_mut().zip(data.chunks_exact(16)) {
            b.copy_from_slice(d);
        }
        for (b, yb) in blocks[0].iter_mut().zip(y.iter()) {
            *b ^= yb;
        }
        *y = self.ghash_short(&blocks[..n]);
        // The first block holds the GHASH state it was given; the others are public.
        crate::secret::wipe_block(&mut blocks[0]);
    }

    /// E(K, `ctr` + i) for the `out.len()` ≤ [`SMALL_LANES`] lanes, by the vector-permute
    /// kernels, [`VPERM_LANES`] at a time.
    fn vperm_lanes(&self, ctr: &[u8; 16], out: &mut [[u8; 16]]) {
        let mut c = *ctr;
        for chunk in out.chunks_mut(VPERM_LANES) {
            self.vperm(&c, chunk);
            add_ctr(&mut c, chunk.len() as u32);
        }
    }

    /// CTR over `n` ≤ 7 blocks (`src` → `dst`), the counters starting at `ctr`, which
    /// advances by `n`. With `first` (J0: the caller has checked it is the counter just
    /// before `ctr`), the keystream starts there and `first` is encrypted in place as its
    /// lane 0, so a short message and its tag mask cost one run.
    ///
    /// # Safety
    /// `src`/`dst` hold `16 * n` bytes, equal or disjoint.
    pub(super) unsafe fn ctr_tail(
        &self,
        ctr: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        n: usize,
        first: Option<&mut [u8; 16]>,
    ) {
        debug_assert!(n < GROUP);
        // The lane the data starts at (a public choice, not a secret index).
        let at = usize::from(first.is_some());
        let start = match &first {
            Some(j0) => **j0,
            None => *ctr,
        };
        if at + n <= SMALL_LANES {
            let mut ks = [[0u8; 16]; SMALL_LANES];
            self.vperm_lanes(&start, &mut ks[..at + n]);
            for (i, k) in ks[at..at + n].iter().enumerate() {
                // SAFETY: block `i` < `n` of both buffers (caller's contract), read before
                // it is written.
                unsafe {
                    let x = src.add(16 * i).cast::<[u8; 16]>().read_unaligned();
                    let o = (u128::from_ne_bytes(x) ^ u128::from_ne_bytes(*k)).to_ne_bytes();
                    dst.add(16 * i).cast::<[u8; 16]>().write_unaligned(o);
                }
            }
            if let Some(j0) = first {
                *j0 = ks[0];
            }
            crate::secret::wipe_bytes(ks[..at + n].as_flattened_mut());
            add_ctr(ctr, n as u32);
            return;
        }
        let at = 16 * at;
        let mut buf = [0u8; 16 * GROUP];
        let mut y = [0u8; 16];
        // SAFETY: `src` holds 16*n bytes; `buf` is a separate stack array with room for
        // at most 1 + n ≤ 8 blocks.
        unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr().add(at), 16 * n) };
        let mut c = start;
        // SAFETY: `buf` is one group, in place.
        unsafe { self.run(Mode::Ctr, &mut c, &mut y, buf.as_ptr(), buf.as_mut_ptr(), 1) };
        if let Some(j0) = first {
            j0.copy_from_slice(&buf[..16]);
        }
        // SAFETY: `dst` holds 16*n bytes.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr().add(at), dst, 16 * n) };
        crate::secret::wipe_bytes(&mut buf);
        add_ctr(ctr, n as u32);
    }

    /// [`NeonKey::ctr_tail`] with GHASH of the ciphertext (read before it is overwritten
    /// when decrypting in place, read back when encrypting).
    ///
    /// # Safety
    /// As for [`NeonKey::ctr_tail`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn crypt_tail(
        &self,
        enc: bool,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        n: usize,
        first: Option<&mut [u8; 16]>,
    ) {
        let mut cipher = [0u8; 16 * GROUP];
        // SAFETY: `src` and `dst` hold 16*n bytes (caller's contract).
        unsafe {
            if !enc {
                core::ptr::copy_nonoverlapping(src, cipher.as_mut_ptr(), 16 * n);
            }
            self.ctr_tail(ctr, src, dst, n, first);
            if enc {
                core::ptr::copy_nonoverlapping(dst, cipher.as_mut_ptr(), 16 * n);
            }
        }
        if n > 0 {
            self.ghash_tail(y, &cipher[..16 * n]);
        }
    }

    /// Encrypts one block: the one-lane vector-permute kernel.
    pub(super) fn encrypt_block(&self, block: &mut [u8; 16]) {
        let mut out = [[0u8; 16]];
        self.vperm(block, &mut out);
        *block = out[0];
        crate::secret::wipe_bytes(&mut out[0]);
    }

    /// Encryption or decryption with GHASH of the ciphertext over whole blocks.
    ///
    /// # Safety
    /// `src`/`dst` hold `16 * blocks` bytes, equal or disjoint.
    pub(super) unsafe fn crypt(
        &self,
        enc: bool,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        src: *const u8,
        dst: *mut u8,
        blocks: usize,
    ) {
        let groups = blocks / GROUP;
        let mode = if enc { Mode::Enc } else { Mode::Dec };
        // SAFETY: the caller's contract; the offsets stay inside the buffers.
        unsafe {
            if groups > 0 {
                self.run(mode, ctr, y, src, dst, groups);
            }
            let n = blocks % GROUP;
            if n > 0 {
                let off = 16 * GROUP * groups;
                self.crypt_tail(enc, ctr, y, src.add(off), dst.add(off), n, None);
            }
        }
    }
}

/// Whether `b` is inc32(`a`) (counter blocks: public values).
pub(super) fn is_next(a: &[u8; 16], b: &[u8; 16]) -> bool {
    let mut n = *a;
    add_ctr(&mut n, 1);
    // Counters come from J0, which for IVs other than 96 bits is derived from the key:
    // compared in constant time. Whether they are adjacent follows from the mode's call
    // order alone (inc32 wraps), so the verdict is public.
    crate::secret::ct_eq(&n, b)
}
