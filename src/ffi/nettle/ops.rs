//! The nettle operations on a caller's `struct gcm_ctx` (the mode's [`Core`]), and the two
//! ways to the key they run on.
//!
//! The fast way serves every call on structs that nettle's own code laid out and one of
//! our set-key functions filled, with nettle's AES named as the cipher: a few loads and
//! compares find the core and our expanded key in place, and the operation runs on an
//! `Engine::Fused` made on the spot, whose dispatch the compiler folds away (no copies,
//! nothing on the stack but the operation's own).
//! Everything else — a struct at an odd address, a key that is not AES or not ours, a
//! cipher re-keyed behind GCM's back, misuse — goes the general way, out of line so that
//! its 4 KB key copies stay out of the fast frames: `header`, the engines and `with_core`,
//! which validate, copy and abort as nettle would. Both ways run the same [`Op`] bodies.

use super::*;

/// The cipher context of a `struct gcm_aes*_ctx`: bare schedule, or `struct aes_ctx`.
#[derive(Clone, Copy)]
pub(super) enum Layout {
    Fixed(usize),
    AesCtx,
}

/// The schedule in the cipher context of the `struct gcm_aes*_ctx` at `ctx` (non-NULL).
#[inline(always)]
unsafe fn aes_schedule(ctx: *mut u8, layout: Layout) -> Option<AesView> {
    // SAFETY: `ctx` is a caller's `struct gcm_aes*_ctx`; the cipher starts at 4160.
    let cipher = unsafe { ctx.add(CIPHER_OFFSET) };
    match layout {
        Layout::Fixed(key_len) => Some(AesView {
            schedule: cipher,
            key_len,
        }),
        // SAFETY: the cipher context of this layout is a `struct aes_ctx`.
        Layout::AesCtx => unsafe { aes_ctx_view(cipher as *const c_void) },
    }
}

// ------------------------------------------------------------------ the operations

/// One nettle operation on a core, with whichever engine the call found (the fast way
/// makes its `Engine::Fused` on the spot, so that the engine's dispatch folds away).
pub(super) trait Op {
    /// # Safety
    /// The pointers the operation holds are valid as nettle's contract for it says.
    /// `ours` is the AES key in `struct gcm_key`, when `e` is a generic engine and there
    /// is one (the key a one-pass tag was computed with; see `gcm/record.rs`).
    unsafe fn run(self, func: &str, core: &mut Core, e: &Engine, ours: Option<&Key>);
}

/// `gcm_update`'s call-order assertions; the AAD.
#[inline(always)]
unsafe fn update_checks<'a>(func: &str, core: &Core, len: usize, data: *const u8) -> &'a [u8] {
    assertion(
        func,
        core.aad_len % 16 == 0,
        "ctx->auth_size % GCM_BLOCK_SIZE == 0",
    );
    assertion(func, core.text_len() == 0, "ctx->data_size == 0");
    // SAFETY: nettle's contract: `len` bytes at `data`.
    unsafe { bytes(func, data, len) }
}

pub(super) struct Update {
    pub len: usize,
    pub data: *const u8,
}

impl Op for Update {
    #[inline(always)]
    unsafe fn run(self, func: &str, core: &mut Core, e: &Engine, _: Option<&Key>) {
        // SAFETY: forwarded.
        let data = unsafe { update_checks(func, core, self.len, self.data) };
        if !data.is_empty() {
            e.record_aad(core, data);
        }
    }
}

pub(super) struct Crypt {
    pub dir: Direction,
    pub len: usize,
    pub dst: *mut u8,
    pub src: *const u8,
}

impl Op for Crypt {
    #[inline(always)]
    unsafe fn run(self, func: &str, core: &mut Core, e: &Engine, ours: Option<&Key>) {
        assertion(
            func,
            core.text_len() % 16 == 0,
            "ctx->data_size % GCM_BLOCK_SIZE == 0",
        );
        if self.len == 0 {
            return;
        }
        if self.src.is_null() || self.dst.is_null() {
            die(func, "NULL buffer with non-zero length");
        }
        // SAFETY: nettle's contract: `len` bytes at `src` and `dst`, equal or disjoint.
        unsafe { e.record_crypt(core, ours, self.dir, self.src, self.dst, self.len) }
    }
}

pub(super) struct Digest {
    pub len: usize,
    pub out: *mut u8,
}

impl Op for Digest {
    #[inline(always)]
    unsafe fn run(self, func: &str, core: &mut Core, e: &Engine, ours: Option<&Key>) {
        assertion(func, self.len <= 16, "length <= GCM_DIGEST_SIZE");
        // Like nettle: no reset; the GHASH state keeps the lengths block.
        let mut tag = e.record_digest(core, ours);
        if self.len > 0 {
            if self.out.is_null() {
                die(func, "NULL digest with non-zero length");
            }
            // SAFETY: the caller provides `len` ≤ 16 writable bytes.
            unsafe {
                if self.len == 16 {
                    // One store, not a call to memcpy (the usual full tag).
                    (self.out as *mut u128).write_unaligned(u128::from_ne_bytes(tag));
                } else {
                    copy_part(&tag, self.out, self.len);
                }
            }
        }
        // The full tag (the caller may have taken part of it), in one volatile store.
        // SAFETY: `tag` is a live local.
        unsafe { core::ptr::write_volatile(&mut tag, [0; 16]) };
    }
}

/// A truncated tag, out of line (inline, the compiler would merge the full tag's store
/// into this call to memcpy).
///
/// # Safety
/// `out` is writable for `len` ≤ 16 bytes.
#[cold]
#[inline(never)]
unsafe fn copy_part(tag: &[u8; 16], out: *mut u8, len: usize) {
    // SAFETY: forwarded.
    unsafe { core::ptr::copy_nonoverlapping(tag.as_ptr(), out, len) }
}

/// `gcm_set_iv`: a fresh core for `iv`, `core_off` bytes into the struct at `base` (NULL:
/// no core; as in [`ghash_call`]). A 96-bit IV needs no key (nettle does not read it
/// then; it may be NULL), and the usual call nothing but its core written.
#[inline(always)]
pub(super) unsafe fn set_iv(
    func: &str,
    base: *mut u8,
    core_off: usize,
    gk: *const u8,
    len: usize,
    iv: *const u8,
) {
    // SAFETY: nettle's contract: `len` bytes at `iv`; the caller's struct at `base`.
    unsafe {
        if len == 12 && !iv.is_null() && !base.is_null() {
            // The caller's 64-byte `struct gcm_ctx`, written without alignment.
            let fresh = Core::start_96(&*(iv as *const [u8; 12]));
            return (base.add(core_off) as *mut Core).write_unaligned(fresh);
        }
        let ctx = if base.is_null() {
            base
        } else {
            base.add(core_off)
        };
        set_iv_general(func, ctx, gk, len, iv)
    }
}

#[cold]
#[inline(never)]
unsafe fn set_iv_general(func: &str, ctx: *mut u8, gk: *const u8, len: usize, iv: *const u8) {
    // SAFETY: nettle's contract: `len` bytes at `iv`.
    let iv = unsafe { bytes(func, iv, len) };
    let fresh = match <&[u8; 12]>::try_from(iv) {
        Ok(iv96) => Core::start_96(iv96),
        // SAFETY: forwarded.
        Err(_) => unsafe { start_other(func, gk, iv) },
    };
    if ctx.is_null() {
        die(func, "NULL gcm context");
    }
    // SAFETY: the caller's 64-byte `struct gcm_ctx`, written without alignment.
    unsafe { (ctx as *mut Core).write_unaligned(fresh) };
}

unsafe fn start_other(func: &str, gk: *const u8, iv: &[u8]) -> Core {
    let (mut copy, mut tmp) = (None, None);
    // SAFETY: forwarded; `header` validates.
    unsafe {
        let h = header(func, gk, &mut copy);
        engine_ghash(func, gk, h, &mut tmp).start(iv)
    }
}

// ------------------------------------------------------------------ the fast way

/// Our expanded AES key in the `struct gcm_key` at `gk` and its header, borrowed in place:
/// when both are ours and where set-key put them relative to an address of this
/// alignment (then they are aligned and inside the struct; a struct moved to an address
/// of another alignment takes the general way). The header's AES size is checked by
/// the callers that read a schedule of that size.
#[inline(always)]
unsafe fn fused_in_place<'a>(gk: *const u8) -> Option<(&'a Header, &'a Key)> {
    let hp = gk as *const Header;
    if gk.is_null() || !hp.is_aligned() {
        return None;
    }
    // SAFETY: non-NULL, aligned, inside the caller's 4096-byte struct; `Header` is plain
    // data (any bit pattern is a value; checked next).
    let h = unsafe { &*hp };
    let off = aligned_key_offset(gk);
    if h.magic != MAGIC || h.key_off as usize != off {
        return None;
    }
    // SAFETY: `off` is 16-byte aligned and leaves room for the key (const-asserted), and
    // `Key` is plain data (any bit pattern is a value). Where our set-key put it, behind
    // our magic, the key is ours unless the caller scribbled on its struct; then only the
    // length matters, which bounds the schedule reads (see `Key::has_aes_len`).
    let k = unsafe { &*(gk.add(off) as *const Key) };
    (k.has_aes_len() && k.key_len() == h.aes_len as usize).then_some((h, k))
}

/// The caller's `struct gcm_ctx` borrowed in place, when non-NULL and aligned.
#[inline(always)]
unsafe fn core_in_place<'a>(ctx: *mut u8) -> Option<&'a mut Core> {
    let p = ctx as *mut Core;
    // SAFETY: aligned, the caller's `struct gcm_ctx` = `Core` (plain data), and no other
    // reference to it exists during the call.
    (!ctx.is_null() && p.is_aligned()).then(|| unsafe { &mut *p })
}

/// A GHASH-only call (`gcm_update`): the core `core_off` bytes into the struct at `base`
/// (NULL: no core), the key at `gk`. The address of the core is formed only past the
/// NULL test, so that the short way is a few tests and no select.
#[inline(always)]
pub(super) unsafe fn ghash_call(
    func: &str,
    base: *mut u8,
    core_off: usize,
    gk: *const u8,
    op: Update,
) {
    // SAFETY: nettle's contract for the pointers.
    unsafe {
        // The usual AAD (a record header, 1..=16 bytes) is held in the core: no key needed.
        if !base.is_null() && op.len.wrapping_sub(1) < 16 && !op.data.is_null() {
            if let Some(core) = core_in_place(base.add(core_off)) {
                if core.hold(core::slice::from_raw_parts(op.data, op.len)) {
                    return;
                }
            }
        }
        let ctx = if base.is_null() {
            base
        } else {
            base.add(core_off)
        };
        ghash_keyed(func, ctx, gk, op)
    }
}

/// [`ghash_call`] past the held AAD, out of line (the short way needs no stack frame).
#[inline(never)]
unsafe fn ghash_keyed(func: &str, ctx: *mut u8, gk: *const u8, op: Update) {
    // SAFETY: nettle's contract for the pointers.
    unsafe {
        if let (Some((_, k)), Some(core)) = (fused_in_place(gk), core_in_place(ctx)) {
            return op.run(func, core, &Engine::Fused(k), None);
        }
        ghash_general(func, ctx, gk, op)
    }
}

/// The fast way of a call naming its cipher (`gcm_encrypt`, `gcm_decrypt`, `gcm_digest`):
/// the core and our key, when `f` is the AES function set-key found for the key's size
/// and `cipher` holds the schedule our key was expanded from.
#[inline(always)]
unsafe fn named_fast<'a>(
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
) -> Option<(&'a mut Core, &'a Key)> {
    // SAFETY: nettle's contract for the pointers; `cipher` is read only as the schedule
    // of the AES function `f` is.
    unsafe {
        let ((h, k), f) = (fused_in_place(gk)?, f?);
        let view = AesView {
            schedule: cipher as *const u8,
            key_len: h.aes_len as usize,
        };
        if f as usize == h.aes_fn && !cipher.is_null() && h.matches_schedule(view) {
            return core_in_place(ctx).map(|core| (core, k));
        }
        None
    }
}

/// A call naming its cipher: [`named_fast`], else the general way.
#[inline(always)]
pub(super) unsafe fn named_call(
    func: &str,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    op: impl Op,
) {
    // SAFETY: nettle's contract for the pointers.
    unsafe {
        match named_fast(ctx, gk, cipher, f) {
            Some((core, k)) => op.run(func, core, &Engine::Fused(k), None),
            None => named_general(func, ctx, gk, cipher, f, op),
        }
    }
}

/// `gcm_encrypt` / `gcm_decrypt`: [`named_call`] with the operation's fields passed to
/// the general way as they came (in registers), so that the fast way stores nothing.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn named_crypt(
    func: &'static str,
    dir: Direction,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    len: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: nettle's contract for the pointers.
    unsafe {
        match named_fast(ctx, gk, cipher, f) {
            Some((core, k)) => {
                Crypt { dir, len, dst, src }.run(func, core, &Engine::Fused(k), None)
            }
            None => named_crypt_general(func, dir, ctx, gk, cipher, f, len, dst, src),
        }
    }
}

#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn named_crypt_general(
    func: &'static str,
    dir: Direction,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    len: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: forwarded.
    unsafe { named_general(func, ctx, gk, cipher, f, Crypt { dir, len, dst, src }) }
}

/// A call of the AES-specific functions on the `struct gcm_aes*_ctx` at `ctx`.
#[inline(always)]
pub(super) unsafe fn aes_call(func: &str, ctx: *mut u8, layout: Layout, op: impl Op) {
    // SAFETY: nettle's contract: `ctx` is a `struct gcm_aes*_ctx` of this layout.
    unsafe {
        if let Some((h, k)) = fused_in_place(ctx) {
            if let Some(view) = aes_schedule(ctx, layout) {
                if h.matches_schedule(view) {
                    if let Some(core) = core_in_place(ctx.add(GCM_CTX_OFFSET)) {
                        return op.run(func, core, &Engine::Fused(k), None);
                    }
                }
            }
        }
        aes_general(func, ctx, layout, op)
    }
}

/// The header at the start of the `struct gcm_key` at `gk`, borrowed in place when it is
/// aligned and carries our magic (its AES fields are checked by whoever reads them).
#[inline(always)]
unsafe fn header_in_place<'a>(gk: *const u8) -> Option<&'a Header> {
    let hp = gk as *const Header;
    if gk.is_null() || !hp.is_aligned() {
        return None;
    }
    // SAFETY: non-NULL, aligned, inside the caller's 4096-byte struct; `Header` is plain
    // data (any bit pattern is a value).
    let h = unsafe { &*hp };
    (h.magic == MAGIC).then_some(h)
}

/// The full tag of a message whose first data call left it in the core (`gcm/record.rs`),
/// written to `out` if the cipher is still the schedule our key was expanded from (else
/// nettle's digest would mask it with the new one). The usual digest, without a key.
#[inline(always)]
unsafe fn digest_kept_tag(h: &Header, core: &mut Core, view: AesView, op: &Digest) -> bool {
    // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
    if op.len != 16 || op.out.is_null() || !unsafe { h.matches_schedule(view) } {
        return false;
    }
    let Some(tag) = core.take_tag() else {
        return false;
    };
    // SAFETY: the caller's 16 writable bytes at `out` (nettle's contract).
    unsafe { (op.out as *mut [u8; 16]).write_unaligned(tag) };
    true
}

/// `gcm_aesNNN_digest`: the kept tag when there is one, else [`aes_call`].
#[inline(always)]
pub(super) unsafe fn aes_digest(func: &str, ctx: *mut u8, layout: Layout, op: Digest) {
    // SAFETY: nettle's contract: `ctx` is a `struct gcm_aes*_ctx` of this layout.
    unsafe {
        if let Some(h) = header_in_place(ctx) {
            if let (Some(view), Some(core)) = (
                aes_schedule(ctx, layout),
                core_in_place(ctx.add(GCM_CTX_OFFSET)),
            ) {
                if digest_kept_tag(h, core, view, &op) {
                    return;
                }
            }
        }
        aes_call_keyed(func, ctx, layout, op)
    }
}

/// `gcm_digest`: the kept tag when `f` is the AES function set-key found, else
/// [`named_call`].
#[inline(always)]
pub(super) unsafe fn named_digest(
    func: &str,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    op: Digest,
) {
    // SAFETY: nettle's contract for the pointers; `cipher` is read only as the schedule
    // of the AES function `f` is.
    unsafe {
        if let (Some(h), Some(f), Some(core)) = (header_in_place(gk), f, core_in_place(ctx)) {
            if f as usize == h.aes_fn && h.aes_len != 0 && !cipher.is_null() {
                let view = AesView {
                    schedule: cipher as *const u8,
                    key_len: h.aes_len as usize,
                };
                if digest_kept_tag(h, core, view, &op) {
                    return;
                }
            }
        }
        named_call_keyed(func, ctx, gk, cipher, f, op)
    }
}

#[inline(never)]
unsafe fn aes_call_keyed(func: &str, ctx: *mut u8, layout: Layout, op: Digest) {
    // SAFETY: forwarded.
    unsafe { aes_call(func, ctx, layout, op) }
}

#[inline(never)]
unsafe fn named_call_keyed(
    func: &str,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    op: Digest,
) {
    // SAFETY: forwarded.
    unsafe { named_call(func, ctx, gk, cipher, f, op) }
}

// ------------------------------------------------------------------ the general way

/// Our AES key in the `struct gcm_key` at `gk`, for a generic engine `e`: the key a
/// one-pass tag in the core was computed with (`gcm/record.rs`). A fused engine runs it
/// already; a generic key has none.
unsafe fn tagging_key<'a>(
    func: &str,
    gk: *const u8,
    h: &Header,
    e: &Engine,
    tmp: &'a mut Option<Key>,
) -> Option<&'a Key> {
    match e {
        // SAFETY: `h` was validated for `gk`.
        Engine::Generic(..) if h.aes_len != 0 => Some(unsafe { our_key(func, gk, h, tmp) }),
        _ => None,
    }
}

#[cold]
#[inline(never)]
unsafe fn ghash_general(func: &str, ctx: *mut u8, gk: *const u8, op: Update) {
    // SAFETY: forwarded; `with_core` and `header` validate.
    unsafe {
        with_core(func, ctx, |core| {
            // A call without data reads no key (nettle's does not either).
            if update_checks(func, core, op.len, op.data).is_empty() {
                return;
            }
            let (mut copy, mut tmp) = (None, None);
            let h = header(func, gk, &mut copy);
            op.run(func, core, &engine_ghash(func, gk, h, &mut tmp), None);
        })
    }
}

#[cold]
#[inline(never)]
unsafe fn named_general(
    func: &str,
    ctx: *mut u8,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    op: impl Op,
) {
    let mut copy = None;
    // SAFETY: nettle's contract for the arguments; `header` validates.
    let h = unsafe { header(func, gk, &mut copy) };
    let Some(f) = f else {
        die(func, "NULL cipher function")
    };
    let ecb = |out: &mut [u8], inp: &[u8]| {
        // SAFETY: nettle's contract for `f`: ECB over whole blocks of `cipher`.
        unsafe { f(cipher, inp.len(), out.as_mut_ptr(), inp.as_ptr()) }
    };
    let mut tmp = None;
    // SAFETY: as above.
    unsafe {
        let e = engine_for(func, gk, h, cipher, f, &ecb, &mut tmp);
        let mut ours_tmp = None;
        let ours = tagging_key(func, gk, h, &e, &mut ours_tmp);
        with_core(func, ctx, |core| op.run(func, core, &e, ours))
    }
}

#[cold]
#[inline(never)]
unsafe fn aes_general(func: &str, ctx: *mut u8, layout: Layout, op: impl Op) {
    if ctx.is_null() {
        die(func, "NULL context");
    }
    // SAFETY: nettle's contract: `ctx` is a `struct gcm_aes*_ctx` of this layout;
    // `header` validates. nettle's aes_encrypt aborts on a bad key_size too.
    unsafe {
        let view = aes_schedule(ctx, layout)
            .unwrap_or_else(|| die(func, "aes_ctx has an invalid key size"));
        let (mut copy, mut tmp) = (None, None);
        let h = header(func, ctx, &mut copy);
        let e = engine_for_aes(func, ctx, h, view, &mut tmp);
        let mut ours_tmp = None;
        let ours = tagging_key(func, ctx, h, &e, &mut ours_tmp);
        with_core(func, ctx.add(GCM_CTX_OFFSET), |core| {
            op.run(func, core, &e, ours)
        })
    }
}
