//! nettle's AES-GCM ABI (libnettle.so.8, nettle 3.6–3.10), exported under nettle's own
//! symbol names (`exports.rs`) so that programs speed up with `LD_PRELOAD=libstitchgcm.so`
//! or by linking `-lstitchgcm` ahead of `-lnettle`.
//!
//! All state lives in the caller's nettle-sized structs (`struct gcm_aes128_ctx` is
//! `{ struct gcm_key key; struct gcm_ctx gcm; struct aes128_ctx cipher; }`, 4336 bytes,
//! 8-byte aligned): nothing is allocated and nothing depends on the struct's address, so
//! a `memcpy`'d context keeps working — at any address: caller structs are only read and
//! written through unaligned copies, never borrowed as Rust references, except our
//! expanded key where its address is 16-byte aligned. The layout stays what nettle's own
//! code expects, because real programs mix our functions with nettle's (GnuTLS keys with
//! `gcm_aes128_set_key` and then encrypts with the generic
//! `gcm_encrypt(…, nettle_aes128_encrypt, …)`):
//!
//! - `cipher` holds a genuine nettle AES key schedule (the FIPS-197 byte image, which is
//!   nettle's `uint32_t keys[]` on little-endian hosts);
//! - `gcm` is nettle's `struct gcm_ctx` field for field — it *is* the mode's [`Core`];
//! - `key` (nettle's private 4096-byte GHASH table) holds a [`Header`] and our expanded
//!   [`Key`] for the selected backend at a 16-byte aligned offset.
//!
//! This file is the layout and the recognition of nettle's AES; the GCM is the mode's
//! (`gcm::generic::Engine`): the fused path when `f` is nettle's AES encrypt function of
//! the keyed size and the schedule in `cipher` is the one we expanded (a constant-time
//! compare of a fingerprint on each call), else the generic path — `f` for the keystream
//! and a portable GHASH keyed with H = f(0) from set-key time, exactly what nettle does.
//! `ops.rs` runs the operations — on our key found in place with a few compares when it
//! can, through the checks and copies below when not; `exports.rs` is the symbols.
//!
//! Misuse: nettle checks its call-order rules with `assert` (live in distribution builds)
//! and aborts; so does this front-end, with the same condition text on stderr. A
//! `gcm_key` that was never set up by one of the set-key functions also aborts (nettle
//! would silently compute garbage with it).
#![allow(clippy::missing_safety_doc, non_camel_case_types)]

mod exports;
mod ops;

use crate::cpu;
use crate::gcm::generic::{BlockFn, Engine, GhashTable, Keystream};
use crate::gcm::{BlockKey, Core, Direction, Key};
use crate::secret::{ct_eq, wipe_bytes};
use core::ffi::{c_char, c_void, CStr};
use core::sync::atomic::{AtomicUsize, Ordering};

/// nettle's `nettle_cipher_func`: ECB over `length` bytes (a multiple of 16).
pub type nettle_cipher_func =
    unsafe extern "C" fn(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8);

/// `sizeof(struct gcm_key)` and the offsets inside `struct gcm_aes*_ctx`.
const GCM_KEY_BYTES: usize = 4096;
const GCM_CTX_OFFSET: usize = 4096;
const CIPHER_OFFSET: usize = 4160;

/// "stitchgcm nettle key", version 1.
const MAGIC: u64 = 0x5347_434d_4e4b_0001;

/// The start of nettle's `struct gcm_key` as this front-end uses it.
#[repr(C)]
#[derive(Clone, Copy)]
struct Header {
    magic: u64,
    /// Offset of the expanded [`Key`] from the start of `struct gcm_key`, chosen at set-key
    /// time so that the key was 16-byte aligned there (0 when there is no AES key).
    key_off: u32,
    /// 16, 24 or 32 when `cipher` was recognised as nettle AES of that size and our key
    /// matches it; 0 for any other block cipher.
    aes_len: u32,
    /// The address of `nettle_aes{128,192,256}_encrypt` for `aes_len` (0 if the process
    /// has none): a call naming it needs no search through nettle's AES functions.
    aes_fn: usize,
    /// The first two round keys of the AES schedule (they hold the raw key): tie our
    /// expanded key to the nettle schedule it was made from.
    fingerprint: [u8; 32],
    /// GHASH keyed with H = f(0) as computed at set-key time (the generic path).
    ghash: GhashTable,
}

const HEADER_BYTES: usize = core::mem::size_of::<Header>();
const _: () = assert!(HEADER_BYTES + 8 + 16 + core::mem::size_of::<Key>() <= GCM_KEY_BYTES);
const _: () = assert!(core::mem::size_of::<Core>() == 64);

/// Prints nettle-style diagnostics and aborts (nettle's assertion failures raise SIGABRT).
#[cold]
#[inline(never)]
fn die(func: &str, what: &str) -> ! {
    die_parts(func, &[what.as_bytes()])
}

/// `die` with a message in pieces (no formatting machinery in the library: `src/panic.rs`).
#[cold]
#[inline(never)]
fn die_parts(func: &str, what: &[&[u8]]) -> ! {
    let head: [&[u8]; 3] = [b"stitchgcm: ", func.as_bytes(), b": "];
    let mut parts: [&[u8]; 8] = [b""; 8];
    parts[..3].copy_from_slice(&head);
    let n = what.len().min(parts.len() - 4);
    parts[3..3 + n].copy_from_slice(&what[..n]);
    parts[3 + n] = b"\n";
    crate::panic::abort_with(&parts[..4 + n])
}

#[inline(always)]
fn assertion(func: &str, cond: bool, text: &str) {
    if !cond {
        assertion_failed(func, text);
    }
}

#[cold]
#[inline(never)]
fn assertion_failed(func: &str, text: &str) -> ! {
    die_parts(func, &[b"Assertion '", text.as_bytes(), b"' failed."])
}

/// A byte slice from a C pointer; nettle allows NULL with length 0.
unsafe fn bytes<'a>(func: &str, p: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    if p.is_null() {
        die(func, "NULL buffer with non-zero length");
    }
    // SAFETY: non-NULL, and the caller promises `len` readable bytes (nettle's contract).
    unsafe { core::slice::from_raw_parts(p, len) }
}

// ------------------------------------------------------------------ recognising nettle AES

/// Addresses of nettle's `nettle_aes{128,192,256}_encrypt` and `nettle_aes_encrypt` as the
/// process sees them (0 until found). Only global-scope lookups are used, which is also
/// how the caller's own reference to the function was bound.
static AES_FN: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];
const AES_FN_NAMES: [&CStr; 4] = [
    c"nettle_aes128_encrypt",
    c"nettle_aes192_encrypt",
    c"nettle_aes256_encrypt",
    c"nettle_aes_encrypt",
];

fn aes_fn(i: usize) -> usize {
    let cached = AES_FN[i].load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no preconditions.
    let p = unsafe {
        libc::dlsym(
            libc::RTLD_DEFAULT,
            AES_FN_NAMES[i].as_ptr() as *const c_char,
        )
    };
    AES_FN[i].store(p as usize, Ordering::Relaxed);
    p as usize
}

/// Where a recognised nettle AES context keeps its schedule.
#[derive(Clone, Copy)]
struct AesView {
    schedule: *const u8,
    key_len: usize,
}

/// `struct aes128_ctx` & co. are the bare schedule; the deprecated `struct aes_ctx` is
/// `{ unsigned key_size; union { … } u; }` with the size in bytes.
unsafe fn aes_ctx_view(cipher: *const c_void) -> Option<AesView> {
    // SAFETY: the caller passes a `struct aes_ctx`, whose first member is `unsigned`.
    let key_size = unsafe { (cipher as *const u32).read_unaligned() } as usize;
    matches!(key_size, 16 | 24 | 32).then(|| AesView {
        // SAFETY: the schedule union starts 4 bytes in.
        schedule: unsafe { (cipher as *const u8).add(4) },
        key_len: key_size,
    })
}

/// If `f` is nettle's AES encryption, the schedule it will read from `cipher`.
#[inline]
unsafe fn recognise(cipher: *const c_void, f: nettle_cipher_func) -> Option<AesView> {
    let f = f as usize;
    for (i, key_len) in [16, 24, 32].into_iter().enumerate() {
        if f == aes_fn(i) {
            return Some(AesView {
                schedule: cipher as *const u8,
                key_len,
            });
        }
    }
    if f == aes_fn(3) {
        // SAFETY: `f` is nettle_aes_encrypt, so `cipher` is a `struct aes_ctx`.
        return unsafe { aes_ctx_view(cipher) };
    }
    None
}

/// The first two round keys of the schedule at `v`, which begin with the raw key (all of
/// it for AES-128 in the first, for AES-192 and AES-256 in the two).
unsafe fn fingerprint(v: AesView) -> [u8; 32] {
    let mut fp = [0u8; 32];
    // SAFETY: a nettle schedule holds at least 11 round keys.
    unsafe { core::ptr::copy_nonoverlapping(v.schedule, fp.as_mut_ptr(), 32) };
    fp
}

/// The raw key at the start of the schedule at `v` (its first `key_len` bytes).
unsafe fn raw_key(v: AesView) -> [u8; 32] {
    let mut k = [0u8; 32];
    // SAFETY: the schedule starts with the `key_len` ≤ 32 raw key bytes.
    unsafe { core::ptr::copy_nonoverlapping(v.schedule, k.as_mut_ptr(), v.key_len) };
    k
}

/// Whether the schedule at `v` carries fingerprint `fp`, compared in constant time a word
/// at a time. This runs on every call, so it is short: the round keys that hold the raw
/// key (the first for AES-128, the first two otherwise). A schedule is its key's
/// expansion, so they tell exactly whether set-key or a re-key by nettle's functions wrote
/// it, and they are contiguous: no address arithmetic on the key size.
#[inline(always)]
unsafe fn fingerprint_matches(v: AesView, fp: &[u8; 32]) -> bool {
    let word = |p: *const u8, i: usize| {
        // SAFETY: callers pass offsets inside the first two round keys.
        unsafe { (p.add(8 * i) as *const u64).read_unaligned() }
    };
    let mut diff =
        (word(v.schedule, 0) ^ word(fp.as_ptr(), 0)) | (word(v.schedule, 1) ^ word(fp.as_ptr(), 1));
    if v.key_len != 16 {
        diff |= (word(v.schedule, 2) ^ word(fp.as_ptr(), 2))
            | (word(v.schedule, 3) ^ word(fp.as_ptr(), 3));
    }
    // Whether the caller re-keyed `cipher` is public (declassified for the ctgrind check).
    crate::secret::is_zero_public(diff)
}

// ------------------------------------------------------------------ the gcm_key region

/// The header at the start of a caller's `struct gcm_key`, validated: borrowed in place
/// when its address suits `Header`'s alignment (always, for structs that nettle's own
/// code laid out), else copied into `copy`.
#[inline]
unsafe fn header<'a>(func: &str, gk: *const u8, copy: &'a mut Option<Header>) -> &'a Header {
    if gk.is_null() {
        die(func, "NULL gcm key");
    }
    let p = gk as *const Header;
    let h: &'a Header = if p.is_aligned() {
        // SAFETY: aligned, inside the caller's 4096-byte `struct gcm_key`, and `Header` is
        // plain data (any bit pattern is a value; it is validated below).
        unsafe { &*p }
    } else {
        // SAFETY: as above, read without alignment into an owned copy.
        copy.insert(unsafe { p.read_unaligned() })
    };
    if !h.is_valid() {
        die(func, "gcm key was not set up by a gcm_*set_key function");
    }
    h
}

impl Header {
    /// Whether this is a header our set-key functions wrote: the magic, and an AES size
    /// with a key offset inside the struct (or no AES key).
    #[inline(always)]
    fn is_valid(&self) -> bool {
        let off = self.key_off as usize;
        let key_ok = self.aes_len == 0
            || (matches!(self.aes_len, 16 | 24 | 32)
                && off >= HEADER_BYTES
                && off <= GCM_KEY_BYTES - core::mem::size_of::<Key>());
        self.magic == MAGIC && key_ok
    }

    /// Whether the AES schedule at `view` is the one our key was expanded from.
    #[inline(always)]
    unsafe fn matches_schedule(&self, view: AesView) -> bool {
        // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
        self.aes_len as usize == view.key_len
            && unsafe { fingerprint_matches(view, &self.fingerprint) }
    }
}

/// Our expanded key inside `struct gcm_key`, in place when it is still 16-byte aligned;
/// a context copied to an address of another alignment gets an aligned copy in `tmp`
/// for the call (wiped when dropped).
#[inline]
unsafe fn our_key<'a>(func: &str, gk: *const u8, h: &Header, tmp: &'a mut Option<Key>) -> &'a Key {
    // SAFETY: `header` checked that the key lies inside the 4096-byte struct.
    let p = unsafe { gk.add(h.key_off as usize) } as *const Key;
    let k: &'a Key = if p as usize % core::mem::align_of::<Key>() == 0 {
        // SAFETY: aligned, inside the caller's struct, and `Key` is plain data (any bit
        // pattern is a valid value; `is_usable` below rejects nonsense ids).
        unsafe { &*p }
    } else {
        // SAFETY: as above, read without alignment into an owned (wiped on drop) copy.
        tmp.insert(unsafe { p.read_unaligned() })
    };
    if !k.is_usable() {
        die(func, "gcm key holds no usable backend key");
    }
    k
}

/// Where set-key puts our key in the `struct gcm_key` at `gk`: the first 16-byte aligned
/// offset after the header (address arithmetic only). A key found at this offset is in
/// place and aligned.
#[inline(always)]
fn aligned_key_offset(gk: *const u8) -> usize {
    let at = gk as usize;
    (at.wrapping_add(HEADER_BYTES + 15) & !15).wrapping_sub(at)
}

/// Sets up `struct gcm_key` for AES with raw key `raw` (whose nettle schedule is already
/// in the cipher context at `view`) and returns our H = E(K, 0); aborts if no backend can
/// be used.
unsafe fn set_aes_key(func: &str, gk: *mut u8, raw: &[u8], view: AesView) -> [u8; 16] {
    let backend = match cpu::selected() {
        Ok(b) => b,
        Err(_) => die(func, "STITCHGCM_IMPL names no backend this CPU can run"),
    };
    let key_off = aligned_key_offset(gk);
    // SAFETY: `key_off + size_of::<Key>()` ≤ 4096 (const-asserted with slack for the
    // alignment step), the address is 16-aligned and `Key` is plain data.
    let key = unsafe { &mut *(gk.add(key_off) as *mut Key) };
    if key.init_in_place(raw, backend).is_err() {
        die(func, "key expansion failed");
    }
    let mut h = [0u8; 16];
    key.encrypt_block(&mut h);
    let hdr = Header {
        magic: MAGIC,
        key_off: key_off as u32,
        aes_len: raw.len() as u32,
        aes_fn: aes_fn(raw.len() / 8 - 2),
        // SAFETY: `view` describes the schedule just written by the caller.
        fingerprint: unsafe { fingerprint(view) },
        ghash: GhashTable::new(&h),
    };
    // SAFETY: the header occupies the first HEADER_BYTES of the struct, before the key.
    unsafe { (gk as *mut Header).write_unaligned(hdr) };
    h
}

/// Sets up `struct gcm_key` for an arbitrary block cipher: GHASH with H = h only.
unsafe fn set_generic_key(gk: *mut u8, h: &[u8; 16]) {
    let hdr = Header {
        magic: MAGIC,
        key_off: 0,
        aes_len: 0,
        aes_fn: 0,
        fingerprint: [0; 32],
        ghash: GhashTable::new(h),
    };
    // SAFETY: `gk` is the caller's `struct gcm_key`; the header fits at its start.
    unsafe { (gk as *mut Header).write_unaligned(hdr) };
}

/// Writes nettle's AES schedule for `raw` at `schedule` (`16 * (rounds + 1)` bytes).
unsafe fn write_schedule(schedule: *mut u8, raw: &[u8]) {
    let mut rk = [[0u8; 16]; 15];
    let r = crate::gcm::aes_schedule(raw, &mut rk);
    // SAFETY: nettle's aes{128,192,256}_ctx hold exactly 16 * (r + 1) bytes.
    unsafe { core::ptr::copy_nonoverlapping(rk.as_ptr() as *const u8, schedule, 16 * (r + 1)) };
    wipe_bytes(rk.as_flattened_mut());
}

// ------------------------------------------------------------------ engines

/// The engine for a call that names its cipher (`gcm_encrypt`, `gcm_decrypt`,
/// `gcm_digest`): fused when `f` is nettle's AES of the keyed size over the schedule we
/// expanded, generic (`ecb`, the caller's `f`) otherwise.
#[inline]
unsafe fn engine_for<'a>(
    func: &str,
    gk: *const u8,
    h: &'a Header,
    cipher: *const c_void,
    f: nettle_cipher_func,
    ecb: BlockFn<'a>,
    tmp: &'a mut Option<Key>,
) -> Engine<'a> {
    if h.aes_len != 0 && !cipher.is_null() {
        let view = if f as usize == h.aes_fn {
            // The function set-key found for this key size: `cipher` is its bare schedule.
            Some(AesView {
                schedule: cipher as *const u8,
                key_len: h.aes_len as usize,
            })
        } else {
            // SAFETY: `f` identifies the layout of `cipher` when it is nettle's AES.
            unsafe { recognise(cipher, f) }
        };
        if let Some(view) = view {
            // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
            if unsafe { h.matches_schedule(view) } {
                // SAFETY: `h` was validated for `gk`.
                return Engine::Fused(unsafe { our_key(func, gk, h, tmp) });
            }
        }
    }
    Engine::Generic(&h.ghash, Keystream::Func(ecb))
}

/// The engine for the AES-specific functions, whose cipher is known to be nettle AES with
/// the schedule in `view`. If the schedule no longer matches our key (the caller re-keyed
/// `cipher` behind our back), a temporary key is expanded from the schedule's raw key and
/// GHASH keeps the set-key-time H, as nettle would.
#[inline]
unsafe fn engine_for_aes<'a>(
    func: &str,
    gk: *const u8,
    h: &'a Header,
    view: AesView,
    tmp: &'a mut Option<Key>,
) -> Engine<'a> {
    // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
    if unsafe { h.matches_schedule(view) } {
        // SAFETY: `h` was validated for `gk`.
        return Engine::Fused(unsafe { our_key(func, gk, h, tmp) });
    }
    // SAFETY: as above.
    let mut raw = unsafe { raw_key(view) };
    let backend = cpu::selected().unwrap_or(cpu::BackendId::Soft);
    let k = match Key::with_backend(&raw[..view.key_len], backend) {
        Ok(k) => tmp.insert(k),
        Err(_) => die(func, "key expansion failed"),
    };
    wipe_bytes(&mut raw);
    Engine::Generic(&h.ghash, Keystream::Key(k))
}

/// The engine for set_iv / update (GHASH only).
#[inline]
unsafe fn engine_ghash<'a>(
    func: &str,
    gk: *const u8,
    h: &'a Header,
    tmp: &'a mut Option<Key>,
) -> Engine<'a> {
    if h.aes_len != 0 {
        // SAFETY: `h` was validated for `gk`.
        return Engine::Fused(unsafe { our_key(func, gk, h, tmp) });
    }
    Engine::Generic(&h.ghash, Keystream::None)
}

// ------------------------------------------------------------------ the operations

/// Runs `op` on the caller's `struct gcm_ctx` (64 bytes): in place when its address
/// suits `Core`'s alignment, else on a copy that is written back. The copy holds nothing
/// the caller's struct does not, so it needs no wiping.
#[inline]
unsafe fn with_core<R>(func: &str, ctx: *mut u8, op: impl FnOnce(&mut Core) -> R) -> R {
    if ctx.is_null() {
        die(func, "NULL gcm context");
    }
    let p = ctx as *mut Core;
    if p.is_aligned() {
        // SAFETY: aligned, the caller's `struct gcm_ctx` = `Core` (plain data), and no
        // other reference to it exists during the call.
        return op(unsafe { &mut *p });
    }
    // SAFETY: as above, read and written without alignment.
    let mut core = unsafe { p.read_unaligned() };
    let r = op(&mut core);
    // SAFETY: as above.
    unsafe { p.write_unaligned(core) };
    r
}
