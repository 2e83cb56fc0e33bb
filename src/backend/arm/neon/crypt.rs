//! Single blocks and tails of `arm-neon`, over the kernels of `run.rs`.
//!
//! The kernels only run whole groups, so anything shorter runs one more group on a
//! stack copy: the unused keystream is discarded and the copy wiped. A short message
//! puts J0 first in that group, so E(K, J0) (the tag mask) costs no run of its own.
//! GHASH of a tail is its blocks placed at the end of a zero group, so the eight-block
//! kernel multiplies them by H^n..H^1.

use super::run::Mode;
use super::{NeonKey, GROUP};
use crate::backend::arm::common::add_ctr;

impl NeonKey {
    /// GHASH of 1..=7 blocks: placed at the end of a zero group, with `y` added into
    /// the first of them, so the eight-block kernel multiplies them by H^n..H^1.
    pub(super) fn ghash_tail(&self, y: &mut [u8; 16], data: &[u8]) {
        let n = data.len() / 16;
        debug_assert!((1..GROUP).contains(&n) && data.len() == 16 * n);
        let mut buf = [0u8; 16 * GROUP];
        let at = 16 * (GROUP - n);
        buf[at..].copy_from_slice(data);
        for (b, yb) in buf[at..at + 16].iter_mut().zip(y.iter()) {
            *b ^= yb;
        }
        *y = [0; 16];
        // SAFETY: `buf` is one whole group.
        unsafe { self.ghash_groups(y, buf.as_ptr(), 1) };
        crate::secret::wipe_bytes(&mut buf);
    }

    /// CTR over `n` ≤ 7 blocks (`src` → `dst`) through one group on a stack copy, the
    /// counters starting at `ctr`, which advances by `n`. With `first` (J0: the caller
    /// has checked it is the counter just before `ctr`), the group starts there and
    /// `first` is encrypted in place as its lane 0, so a short message and its tag mask
    /// cost one run.
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
        let at = 16 * usize::from(first.is_some());
        let mut buf = [0u8; 16 * GROUP];
        let mut y = [0u8; 16];
        // SAFETY: `src` holds 16*n bytes; `buf` is a separate stack array with room for
        // at most 1 + n ≤ 8 blocks.
        unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr().add(at), 16 * n) };
        let mut c = match &first {
            Some(j0) => **j0,
            None => *ctr,
        };
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
