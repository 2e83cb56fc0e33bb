//! A record through nettle's calls at the cost of a one-shot: the [`Core`] (nettle's 64-byte
//! `struct gcm_ctx`) as the nettle front-end keeps it between `set_iv`, `update`,
//! `encrypt`/`decrypt` and `digest`.
//!
//! nettle's state is (J0, counter, GHASH state x, AAD bytes, text bytes), with x brought
//! up to date by every call: a record costs a GHASH of its AAD, a fused pass over its data
//! and, at the digest, GHASH of the lengths block and one more AES block, each in a call of
//! its own. Here x may also mean two other things, marked in the two top bits of the text
//! count (no message reaches 2^62 bytes; every other field keeps nettle's meaning):
//!
//! - `HELD`: x is nettle's GHASH state XORed with the last piece of AAD (at most a block,
//!   zero-padded), not yet multiplied by H. `update` of a short AAD is one XOR, and when
//!   that piece is the message's only AAD (at most 16 bytes of it) x is exactly the padded
//!   AAD block, which is what the one-pass kernels start from.
//! - `TAGGED`: the first data call ran the backend's one pass (or its whole-message path)
//!   over AAD, data and lengths and left the full tag T in x, as if the message ended there;
//!   `digest` copies it. nettle's GHASH state y is then not in the context, but y·H is:
//!   T ⊕ E(K, J0) is (y ⊕ L)·H for the lengths block L, so y·H = T ⊕ E(K, J0) ⊕ L·H, and
//!   more data carries on from there: the next block's step is (y ⊕ C)·H = y·H ⊕ C·H.
//! - `DIGESTED` (both bits): a `digest` took the tag of a `TAGGED` message. nettle's x after
//!   its digest is (y ⊕ L)·H = T ⊕ E(K, J0), one AES block away.
//!
//! Every other sequence first brings x back to nettle's meaning, so misuse (a second
//! digest, data after the digest) gives nettle's outputs byte for byte, and a context that
//! nettle's own `set_iv` wrote (no flag bits) is a valid start. T is the tag under the key
//! in `struct gcm_key` ("ours"), whatever cipher a later call names, so that key gives the
//! E(K, J0) these conversions need; GHASH's H is the same for every engine of a key.

use super::core::{BlockKey, Core};
use super::generic::Engine;
use super::{Direction, Key, BLOCK};
use crate::backend::partial::{load_partial, store_block};
use crate::backend::PublicCtr;
use crate::secret::wipe_block;

const HELD: u64 = 1 << 62;
const TAGGED: u64 = 1 << 63;
const DIGESTED: u64 = HELD | TAGGED;
const FLAGS: u64 = HELD | TAGGED;

/// `a ^= b`, a block at a time.
#[inline(always)]
fn xor_into(a: &mut [u8; 16], b: &[u8; 16]) {
    *a = (u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b)).to_ne_bytes();
}

impl Core {
    /// Text bytes so far (the count without the state bits).
    #[inline(always)]
    pub(crate) fn text_len(&self) -> u64 {
        self.data_len & !FLAGS
    }

    #[inline(always)]
    fn state(&self) -> u64 {
        self.data_len & FLAGS
    }

    /// Whether x holds all of the message's AAD unmultiplied and nothing else: nothing
    /// but the held piece (≤ 16 bytes, so no earlier AAD: earlier pieces are whole blocks)
    /// and no text, or no AAD and no text at all (then x is zero: GHASH of nothing, or a
    /// digest of an empty message, whose lengths block is zero).
    #[inline(always)]
    fn whole_aad_in_x(&self) -> bool {
        // A record's header held (the usual case, tested first), or nothing at all.
        if self.data_len == HELD {
            self.aad_len.wrapping_sub(1) < BLOCK as u64
        } else {
            self.data_len == 0 && self.aad_len == 0
        }
    }

    /// `update` of `aad` as one XOR into x, if it is at most a block (and not empty) and
    /// it may be held: no AAD held yet, no text, and nettle's rule for `update` kept (the
    /// AAD so far whole blocks). Else false, and nothing done. Needs no key: the nettle
    /// front-end tries it before it looks for one.
    #[inline(always)]
    pub(crate) fn hold(&mut self, aad: &[u8]) -> bool {
        let n = aad.len();
        if n == 0 || n > BLOCK || self.data_len != 0 || self.aad_len % BLOCK as u64 != 0 {
            return false;
        }
        let a = if n == BLOCK {
            // SAFETY: 16 readable bytes.
            unsafe { aad.as_ptr().cast::<[u8; 16]>().read_unaligned() }
        } else {
            let mut b = [0u8; 16];
            // SAFETY: `n` readable bytes, 0 < n < 16; `b` takes a block.
            unsafe { store_block(b.as_mut_ptr(), load_partial(aad.as_ptr(), n)) };
            b
        };
        xor_into(&mut self.y, &a);
        self.aad_len = self.aad_len.wrapping_add(n as u64);
        self.data_len = HELD;
        true
    }

    /// The tag a one-pass first data call left in x (`TAGGED`), now taken (`DIGESTED`);
    /// None in every other state.
    #[inline(always)]
    pub(crate) fn take_tag(&mut self) -> Option<[u8; 16]> {
        if self.state() != TAGGED {
            return None;
        }
        self.data_len |= DIGESTED;
        Some(self.y)
    }

    /// Whether the counter is still inc32(J0): the one pass counts from J0, and a caller
    /// may have moved the counter in its own struct. For IVs of other than 96 bits J0 is
    /// derived from the key, but whether the two agree follows from the caller's calls
    /// alone, so the verdict is public.
    #[inline(always)]
    fn counter_at_start(&self) -> bool {
        // The first 12 bytes equal, the last four one more (big-endian): no byte swap of
        // the whole block.
        let word =
            |b: &[u8; 16], i: usize| u32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        let head = |b: &[u8; 16]| u64::from_ne_bytes(b[..8].try_into().unwrap());
        let last = |b: &[u8; 16]| u32::from_be_bytes(b[12..].try_into().unwrap());
        let d = (head(&self.j0) ^ head(&self.ctr))
            | u64::from(word(&self.j0, 2) ^ word(&self.ctr, 2))
            | u64::from(last(&self.j0).wrapping_add(1) ^ last(&self.ctr));
        crate::secret::is_zero_public(d)
    }
}

impl Engine<'_> {
    /// E(K, J0) under the key that computed a `TAGGED` tag: ours (the engine itself when
    /// it is fused, since a fused engine only ever runs our key).
    fn tag_mask(&self, core: &Core, ours: Option<&Key>) -> [u8; 16] {
        let mut mask = core.j0;
        match (self, ours) {
            (Engine::Generic(..), Some(k)) => k.encrypt_block(&mut mask),
            _ => self.encrypt_block(&mut mask),
        }
        mask
    }

    /// `HELD` → nettle's state: x·H.
    fn settle_held(&self, core: &mut Core) {
        let x = core.y;
        core.y = [0; 16];
        self.ghash(&mut core.y, &x);
        core.data_len &= !HELD;
    }

    /// `DIGESTED` (or `TAGGED`, for a digest by another cipher) → nettle's state after its
    /// digest: T ⊕ E(K, J0).
    fn settle_tag(&self, core: &mut Core, ours: Option<&Key>) {
        let mut mask = self.tag_mask(core, ours);
        xor_into(&mut core.y, &mask);
        wipe_block(&mut mask);
        core.data_len &= !FLAGS;
    }

    /// nettle's `gcm_update` of non-empty `aad` (its assertions checked by the caller).
    #[inline(always)]
    pub(crate) fn record_aad(&self, core: &mut Core, aad: &[u8]) {
        if core.hold(aad) {
            return;
        }
        if core.state() == HELD {
            self.settle_held(core);
            if core.hold(aad) {
                return;
            }
        }
        self.aad(core, aad)
    }

    /// nettle's `gcm_encrypt` / `gcm_decrypt` of `len` > 0 bytes (its assertion checked by
    /// the caller). `ours` is the key in `struct gcm_key` when this engine is generic.
    ///
    /// # Safety
    /// As for [`Core::crypt`].
    #[inline(always)]
    pub(crate) unsafe fn record_crypt(
        &self,
        core: &mut Core,
        ours: Option<&Key>,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        if let Engine::Fused(k) = self {
            // SAFETY (both): forwarded from the caller.
            if core.whole_aad_in_x() && core.counter_at_start() {
                return unsafe { first_data(k, core, dir, src, dst, len) };
            }
            // The engine made here, out of line: a fused caller builds none in memory.
            return unsafe { crypt_after_fused(k, core, dir, src, dst, len) };
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.crypt_after(core, ours, dir, src, dst, len) }
    }

    /// [`Engine::record_crypt`] when the one pass does not apply: the state brought back to
    /// nettle's meaning, then the regular path.
    ///
    /// # Safety
    /// As for [`Core::crypt`].
    #[inline(never)]
    unsafe fn crypt_after(
        &self,
        core: &mut Core,
        ours: Option<&Key>,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        match core.state() {
            HELD => self.settle_held(core),
            DIGESTED => self.settle_tag(core, ours),
            // SAFETY: forwarded from the caller.
            TAGGED => return unsafe { self.resume(core, ours, dir, src, dst, len) },
            _ => {}
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.crypt(core, dir, src, dst, len) }
    }

    /// More data after a `TAGGED` first call: y·H = T ⊕ E(K, J0) ⊕ L·H, so the first
    /// block's GHASH step is y·H ⊕ GHASH(0, C); the rest runs as usual.
    ///
    /// # Safety
    /// As for [`Core::crypt`].
    unsafe fn resume(
        &self,
        core: &mut Core,
        ours: Option<&Key>,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let mut yh = self.tag_mask(core, ours);
        xor_into(&mut yh, &core.y);
        core.data_len &= !FLAGS;
        let mut lh = [0u8; 16];
        self.ghash(&mut lh, &core.lengths());
        xor_into(&mut yh, &lh);
        core.y = [0; 16];
        let first = len.min(BLOCK);
        // SAFETY: forwarded from the caller; `first` ≤ `len` bytes of both buffers.
        unsafe {
            self.crypt(core, dir, src, dst, first);
            xor_into(&mut core.y, &yh);
            if len > first {
                self.crypt(core, dir, src.add(first), dst.add(first), len - first);
            }
        }
        wipe_block(&mut yh);
    }

    /// nettle's `gcm_digest`: the full tag. Like nettle's, it leaves the message open (x
    /// moved on by the lengths block); a `TAGGED` message's tag is in x already.
    #[inline(always)]
    pub(crate) fn record_digest(&self, core: &mut Core, ours: Option<&Key>) -> [u8; 16] {
        if let Engine::Fused(_) = self {
            if let Some(tag) = core.take_tag() {
                return tag;
            }
        }
        self.digest_after(core, ours)
    }

    #[inline(never)]
    fn digest_after(&self, core: &mut Core, ours: Option<&Key>) -> [u8; 16] {
        match core.state() {
            HELD => self.settle_held(core),
            DIGESTED => self.settle_tag(core, ours),
            TAGGED => {
                // A digest naming another cipher than the one that computed the tag
                // (the caller re-keyed it): nettle's x after this digest is
                // T ⊕ E(K, J0) under our key, and its mask comes from the new cipher.
                self.settle_tag(core, ours);
                let mut tag = core.j0;
                self.encrypt_block(&mut tag);
                xor_into(&mut tag, &core.y);
                return tag;
            }
            _ => {}
        }
        self.finish(core)
    }
}

/// [`Engine::crypt_after`] of a fused engine (which needs no `ours`).
///
/// # Safety
/// As for [`Core::crypt`].
#[inline(never)]
unsafe fn crypt_after_fused(
    k: &Key,
    core: &mut Core,
    dir: Direction,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: forwarded from the caller.
    unsafe { Engine::Fused(k).crypt_after(core, None, dir, src, dst, len) }
}

/// The first data of a message whose AAD is all in x: the backend's one pass (or its
/// whole-message path) writes the output and the tag, which x keeps (`TAGGED`).
///
/// # Safety
/// As for [`Core::crypt`]; `len` > 0.
#[inline(always)]
unsafe fn first_data(
    k: &Key,
    core: &mut Core,
    dir: Direction,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let aad_len = core.aad_len as usize;
    let aad = &core.y[..aad_len];
    // SAFETY (both): forwarded from the caller; the AAD is the zero-padded block in x.
    core.y = if k.fits_short(aad_len, len) {
        unsafe { k.crypt_short(dir, &core.j0, aad, src, dst, len) }
    } else {
        unsafe { first_data_long(k, dir, &core.j0, aad, src, dst, len) }
    };
    let blocks = len.div_ceil(BLOCK) as u32;
    let c = u32::from_be_bytes(core.ctr[12..].try_into().unwrap()).wrapping_add(blocks);
    core.ctr[12..].copy_from_slice(&c.to_be_bytes());
    core.data_len = len as u64 | TAGGED;
}

/// [`first_data`] past the one pass's limits: the whole-message path, out of line.
///
/// # Safety
/// As for [`Core::crypt`].
#[inline(never)]
unsafe fn first_data_long(
    k: &Key,
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> [u8; 16] {
    // nettle's context does not say whether the IV had 96 bits: nothing public is known of
    // the counter.
    // SAFETY: forwarded from the caller.
    unsafe { k.crypt_whole(dir, j0, aad, src, dst, len, PublicCtr::UNKNOWN) }
}
