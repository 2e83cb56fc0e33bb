//! Whole short messages for `arm-neon`. Up to `MSG_BLOCKS` data blocks take one
//! generated kernel (`kernel_seal*`, `kernel_open*`): E(K, J0) and the counter blocks by
//! vector permutes (`backend/vperm.rs`) as one lane each, with the GHASH of everything
//! that needs no AES (the AAD, the lengths block and, opening, the ciphertext) merged
//! into their rounds, then the output, the rest of the GHASH (one reduction, H^n..H^1
//! stored) and the tag. The kernel takes and returns its blocks in registers (`run.rs`):
//! the glue here only reads the AAD and the last data block (by `vld1`, fewer than nine
//! bytes through `backend/partial.rs`; no byte outside the message), and writes the last
//! output block.
//!
//! The kernels take one block X of AAD, multiplied by H^(n+2) for n data blocks. More
//! AAD is folded into it: for AAD blocks A1..Aa, X = GHASH(A1..A(a-1)) + Aa (one GHASH
//! kernel call over the whole blocks where they are), since X·H^(n+2) is then the AAD's
//! share of the tag's GHASH. Longer messages (up to seven blocks) run the eight-lane
//! bit-sliced AES and one GHASH kernel over blocks assembled in a buffer.
//!
//! Opening writes the plaintext to a stack buffer, compares the tag, and only then copies
//! it out; the buffer is wiped. The branches depend on lengths (public) and on the outcome
//! of the tag comparison.

use super::kernels::MSG_BLOCKS;
use super::run::{Mode, MSG_KERNELS, Q};
use super::{NeonKey, GROUP};
use crate::backend::partial::{load_partial, store_partial, PARTIAL_MASK};
use crate::secret::{ct_eq, wipe_bytes, wipe_u64};

/// Data blocks per call: eight AES lanes with E(K, J0).
pub(super) const DATA_BLOCKS: usize = GROUP - 1;
/// GHASH blocks per call (AAD + data + lengths): the eight stored powers of H.
pub(super) const HASH_BLOCKS: usize = GROUP;

/// A block as two little-endian 64-bit words.
type Words = [u64; 2];

fn words(b: &[u8; 16]) -> Words {
    [
        u64::from_le_bytes(b[..8].try_into().unwrap()),
        u64::from_le_bytes(b[8..].try_into().unwrap()),
    ]
}

fn bytes(w: Words) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&w[0].to_le_bytes());
    b[8..].copy_from_slice(&w[1].to_le_bytes());
    b
}

/// Block `i` of `len` bytes at `p` (the last one zero-padded if partial).
///
/// # Safety
/// Block `i` starts inside the `len` readable bytes at `p`.
#[inline(always)]
unsafe fn block_at(p: *const u8, i: usize, len: usize) -> Words {
    let left = len - 16 * i;
    // SAFETY: the caller's contract; the reads stay inside the `left` bytes.
    unsafe {
        if left >= 16 {
            words(&p.add(16 * i).cast::<[u8; 16]>().read_unaligned())
        } else {
            load_partial(p.add(16 * i), left)
        }
    }
}

/// 16 bytes at `p` (any alignment) as a block in a q register: two `vld1.8`, where a
/// load through general registers would take a round trip through the stack.
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline(always)]
unsafe fn load_q(p: *const u8) -> Q {
    let (lo, hi): (f64, f64);
    // SAFETY: reads the 16 bytes at `p` (the caller's contract); NEON is present (the
    // backend is only chosen then).
    unsafe {
        core::arch::asm!(
            ".fpu neon",
            "vld1.8 {{{lo}}}, [{p}]!",
            "vld1.8 {{{hi}}}, [{p}]",
            p = inout(reg) p => _,
            lo = out(dreg_low16) lo,
            hi = out(dreg_low16) hi,
            options(nostack, readonly, preserves_flags),
        );
    }
    Q(lo, hi)
}

/// Stores the block `q` to the 16 bytes at `p` (any alignment).
///
/// # Safety
/// `p` is writable for 16 bytes.
#[inline(always)]
unsafe fn store_q(p: *mut u8, q: Q) {
    // SAFETY: writes the 16 bytes at `p` (the caller's contract); NEON is present.
    unsafe {
        core::arch::asm!(
            ".fpu neon",
            "vst1.8 {{{lo}}}, [{p}]!",
            "vst1.8 {{{hi}}}, [{p}]",
            p = inout(reg) p => _,
            lo = in(dreg_low16) q.0,
            hi = in(dreg_low16) q.1,
            options(nostack, preserves_flags),
        );
    }
}

/// Block `i` of `len` bytes at `p` (the last one zero-padded if partial), in a q register.
/// More than eight bytes are two `vld1.8` of eight, the second one ending at the last byte
/// and shifted down into place (`vshl` by a negative count); fewer go through general
/// registers (`backend/partial.rs`).
///
/// # Safety
/// Block `i` starts inside the `len` readable bytes at `p`.
#[inline(always)]
unsafe fn q_at(p: *const u8, i: usize, len: usize) -> Q {
    let left = len - 16 * i;
    // SAFETY: the caller's contract; the reads stay inside the `left` bytes.
    unsafe {
        let p = p.add(16 * i);
        if left >= 16 {
            load_q(p)
        } else if left > 8 {
            let (lo, hi): (f64, f64);
            core::arch::asm!(
                ".fpu neon",
                "vld1.8 {{{lo}}}, [{p}]",
                "vld1.8 {{{hi}}}, [{end}]",
                "vmov {t}, {s}, {s}",
                "vshl.u64 {hi}, {hi}, {t}",
                p = in(reg) p,
                end = in(reg) p.add(left - 8),
                s = in(reg) 8 * left as i32 - 128,
                lo = out(dreg_low16) lo,
                hi = out(dreg_low16) hi,
                t = out(dreg_low16) _,
                options(nostack, readonly, preserves_flags),
            );
            Q(lo, hi)
        } else {
            Q::new(load_partial(p, left))
        }
    }
}

/// Writes the first `left` (1..=16) bytes of block `q` to `p`.
///
/// # Safety
/// `p` is writable for `left` bytes.
#[inline(always)]
unsafe fn store_at(p: *mut u8, q: Q, left: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        if left >= 16 {
            store_q(p, q);
        } else {
            store_partial(p, q.words(), left);
        }
    }
}

impl NeonKey {
    /// The one AAD block of the message kernels (see the file header).
    #[inline(always)]
    fn aad_block(&self, aad: &[u8]) -> Q {
        let a = aad.len().div_ceil(16);
        if a == 0 {
            return Q::new([0; 2]);
        }
        // SAFETY: block a - 1 starts inside `aad`.
        let last = unsafe { q_at(aad.as_ptr(), a - 1, aad.len()) };
        if a == 1 {
            return last;
        }
        self.aad_prefix(aad, last)
    }

    /// X for more than one AAD block, `last` the last one (out of line: a function call
    /// here would make the common path keep its blocks in callee-saved registers).
    #[inline(never)]
    fn aad_prefix(&self, aad: &[u8], last: Q) -> Q {
        let a = aad.len().div_ceil(16);
        // SAFETY: the a - 1 whole blocks before the last are inside `aad`.
        let whole = unsafe { core::slice::from_raw_parts(aad.as_ptr().cast::<[u8; 16]>(), a - 1) };
        let (y, last) = (words(&self.ghash_short(whole)), last.words());
        Q::new([y[0] ^ last[0], y[1] ^ last[1]])
    }

    /// A message of at most `MSG_BLOCKS` data blocks through its kernel: the whole output
    /// blocks but the last written to `dst`, the tag and the last output block (its bytes
    /// past the message zero) returned. `open` hashes the input.
    ///
    /// # Safety
    /// As for [`NeonKey::crypt_short`]; `len` ≤ 16 · `MSG_BLOCKS`.
    #[inline(always)]
    unsafe fn msg(
        &self,
        open: bool,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> ([u8; 16], Q) {
        let n = len.div_ceil(16);
        let f = MSG_KERNELS[usize::from(open)][n];
        let left = len + 16 - 16 * n.max(1);
        let x = self.aad_block(aad);
        let lens = [aad.len() as u64 * 8, len as u64 * 8];
        // SAFETY: block n - 1 starts inside the `len` bytes at `src`; `PARTIAL_MASK` has
        // 16 bytes from 16 - left.
        let (last, mask) = unsafe {
            let last = if n > 0 {
                q_at(src, n - 1, len)
            } else {
                Q::new([0; 2])
            };
            (last, load_q(PARTIAL_MASK.as_ptr().add(16 - left)))
        };
        // SAFETY: the kernel reads the key, J0 and the n - 1 whole blocks at `src`, and
        // writes n - 1 blocks to `dst` (the caller's contract).
        let out = unsafe { f(self, j0.as_ptr(), src, dst, x, Q::new(lens), last, mask) };
        (bytes(out.0.words()), out.1)
    }

    /// `crypt_short`: one pass over a message within the limits from its J0; returns the
    /// full tag.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the message
    /// is within [`DATA_BLOCKS`] and [`HASH_BLOCKS`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn crypt_short(
        &self,
        enc: bool,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> [u8; 16] {
        let n = len.div_ceil(16);
        if n > MSG_BLOCKS {
            // SAFETY: forwarded contract.
            return unsafe { self.short(enc, j0, aad, src, dst, len, None).0 };
        }
        // SAFETY: forwarded contract; block n - 1 of `dst` has `len - 16 (n - 1)` bytes.
        unsafe {
            let (tag, last) = self.msg(!enc, j0, aad, src, dst, len);
            if n > 0 {
                store_at(dst.add(16 * (n - 1)), last, len + 16 - 16 * n);
            }
            tag
        }
    }

    /// `open_short`: the plaintext is written only if `tag` matches.
    ///
    /// # Safety
    /// As for [`NeonKey::crypt_short`]; `tag` is at most 16 bytes.
    pub(super) unsafe fn open_short(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        tag: &[u8],
    ) -> bool {
        let n = len.div_ceil(16);
        if n > MSG_BLOCKS {
            // SAFETY: forwarded contract.
            return unsafe { self.short(false, j0, aad, src, dst, len, Some(tag)).1 };
        }
        let mut buf = core::mem::MaybeUninit::<[Words; MSG_BLOCKS]>::uninit();
        let b = buf.as_mut_ptr().cast::<u8>();
        // SAFETY: `buf` has room for the n - 1 whole blocks the kernel writes and the
        // last one; blocks i < n are written before they are read.
        let ok = unsafe {
            let (full, last) = self.msg(true, j0, aad, src, b.cast(), len);
            let ok = ct_eq(&full[..tag.len()], tag);
            if n > 0 {
                store_q(b.add(16 * (n - 1)), last);
            }
            if ok {
                for i in 0..n {
                    store_at(dst.add(16 * i), load_q(b.add(16 * i)), len - 16 * i);
                }
            }
            ok
        };
        // SAFETY: the n blocks written above.
        wipe_u64(
            unsafe { core::slice::from_raw_parts_mut(b.cast::<Words>(), n) }.as_flattened_mut(),
        );
        ok
    }

    /// E(K, J0 + i) for i = 0..8 into `ks`: one bit-sliced run.
    fn short_keystream(&self, j0: &[u8; 16], ks: &mut [[u8; 16]; GROUP]) {
        let mut c = *j0;
        let mut y = [0u8; 16];
        *ks = [[0; 16]; GROUP];
        // SAFETY: `ks` is one whole group, in place (zeros in: the keystream out).
        unsafe {
            self.run(
                Mode::Ctr,
                &mut c,
                &mut y,
                ks.as_ptr().cast(),
                ks.as_mut_ptr().cast(),
                1,
            )
        };
    }

    /// One pass over a message of more than `MSG_BLOCKS` data blocks within the limits
    /// from its J0: returns the full tag and whether the output was written — always,
    /// unless `verify` holds a tag (opening) that the computed one does not start with.
    ///
    /// # Safety
    /// As for [`NeonKey::crypt_short`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn short(
        &self,
        enc: bool,
        j0: &[u8; 16],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        verify: Option<&[u8]>,
    ) -> ([u8; 16], bool) {
        let n = len.div_ceil(16);
        let a = aad.len().div_ceil(16);
        debug_assert!(n <= DATA_BLOCKS && a + n < HASH_BLOCKS);
        let mut ks = [[0u8; 16]; GROUP];
        self.short_keystream(j0, &mut ks);
        let mut hashed = [[0u8; 16]; HASH_BLOCKS];
        let mut out = [[0u64; 2]; DATA_BLOCKS];
        for (i, h) in hashed.iter_mut().enumerate().take(a) {
            // SAFETY: block i < a starts inside `aad`.
            *h = bytes(unsafe { block_at(aad.as_ptr(), i, aad.len()) });
        }
        for (i, o) in out.iter_mut().enumerate().take(n) {
            // SAFETY: block i < n starts inside the `len` bytes at `src`.
            let x = unsafe { block_at(src, i, len) };
            let k = words(&ks[i + 1]);
            *o = [x[0] ^ k[0], x[1] ^ k[1]];
            let left = len - 16 * i;
            let ct = if enc && left < 16 {
                let m = words(PARTIAL_MASK[16 - left..32 - left].try_into().unwrap());
                [o[0] & m[0], o[1] & m[1]]
            } else if enc {
                *o
            } else {
                x
            };
            hashed[a + i] = bytes(ct);
        }
        hashed[a + n] = crate::backend::short::lengths(aad.len(), len);
        let y = self.ghash_short(&hashed[..a + n + 1]);
        let mut tag = [0u8; 16];
        for ((t, h), k) in tag.iter_mut().zip(y).zip(ks[0]) {
            *t = h ^ k;
        }
        let release = verify.is_none_or(|expected| ct_eq(&tag[..expected.len()], expected));
        if release {
            for (i, o) in out.iter().enumerate().take(n) {
                let left = len - 16 * i;
                // SAFETY: block i of the `len` writable bytes at `dst`.
                unsafe {
                    if left >= 16 {
                        dst.add(16 * i)
                            .cast::<[u8; 16]>()
                            .write_unaligned(bytes(*o));
                    } else {
                        store_partial(dst.add(16 * i), *o, left);
                    }
                }
            }
        }
        // The keystream and the output (plaintext when opening); `hashed` is public.
        wipe_bytes(ks.as_flattened_mut());
        wipe_u64(out[..n].as_flattened_mut());
        (tag, release)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_key_size_length_and_placement() {
        assert!(crate::backend::short::check::check::<super::super::ArmNeon>() > 0);
    }
}
