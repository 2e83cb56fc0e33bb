//! nettle's AES-GCM ABI (libnettle.so.8, nettle 3.6–3.10), exported under nettle's own
//! symbol names so that programs speed up with `LD_PRELOAD=libstitchgcm.so` or by
//! linking `-lstitchgcm` ahead of `-lnettle`.
//!
//! All state lives in the caller's nettle-sized structs (`struct gcm_aes128_ctx` is
//! `{ struct gcm_key key; struct gcm_ctx gcm; struct aes128_ctx cipher; }`, 4336 bytes,
//! 8-byte aligned): nothing is allocated and nothing depends on the struct's address, so
//! a `memcpy`'d context keeps working. The layout stays what nettle's own code expects,
//! because real programs mix our functions with nettle's (GnuTLS keys with
//! `gcm_aes128_set_key` and then encrypts with the generic
//! `gcm_encrypt(…, nettle_aes128_encrypt, …)`):
//!
//! - `cipher` holds a genuine nettle AES key schedule (the FIPS-197 byte image, which is
//!   nettle's `uint32_t keys[]` on little-endian hosts);
//! - `gcm` is nettle's `struct gcm_ctx` field for field — it *is* the mode's [`Core`];
//! - `key` (nettle's private 4096-byte GHASH table) holds a [`Header`] and our expanded
//!   [`Key`] for the selected backend at a 16-byte aligned offset.
//!
//! The generic functions take the fused path when `f` is nettle's AES encrypt function
//! of the keyed size and the schedule in `cipher` is the one we expanded (checked on each
//! call with a constant-time compare of a fingerprint). Any other block cipher (Camellia,
//! SM4, a caller's own) runs through the same mode code with `f` for the keystream and a
//! portable constant-time GHASH keyed with H = f(0) from set-key time, exactly what
//! nettle computes.
//!
//! Misuse: nettle checks its call-order rules with `assert` (live in distribution builds)
//! and aborts; so does this front-end, with the same condition text on stderr. A
//! `gcm_key` that was never set up by one of the set-key functions also aborts (nettle
//! would silently compute garbage with it).
#![allow(clippy::missing_safety_doc, non_camel_case_types)]

use crate::backend as cpu;
use crate::backend::soft::GhashKey;
use crate::gcm::Key;
use crate::gcm::{BlockKey, Core, Direction, BLOCK};
use crate::secret::{ct_eq, wipe_bytes};
use core::ffi::{c_char, c_void, CStr};
use core::sync::atomic::{AtomicUsize, Ordering};
use std::io::Write;

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
    /// The first `aes_len` bytes of the AES schedule (the raw key) and its last round key:
    /// ties our expanded key to the nettle schedule it was made from.
    fingerprint: [u8; 48],
    /// GHASH keyed with H = f(0) as computed at set-key time (the generic path).
    ghash: GhashKey,
}

const HEADER_BYTES: usize = core::mem::size_of::<Header>();
const _: () = assert!(HEADER_BYTES + 8 + 16 + core::mem::size_of::<Key>() <= GCM_KEY_BYTES);
const _: () = assert!(core::mem::size_of::<Core>() == 64);

/// Prints nettle-style diagnostics and aborts (nettle's assertion failures raise SIGABRT).
fn die(func: &str, what: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "stitchgcm: {func}: {what}");
    std::process::abort()
}

fn assertion(func: &str, cond: bool, text: &str) {
    if !cond {
        die(func, &format!("Assertion '{text}' failed."));
    }
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
    let key_size = unsafe { (cipher as *const u32).read() } as usize;
    matches!(key_size, 16 | 24 | 32).then(|| AesView {
        // SAFETY: the schedule union starts 4 bytes in.
        schedule: unsafe { (cipher as *const u8).add(4) },
        key_len: key_size,
    })
}

/// If `f` is nettle's AES encryption, the schedule it will read from `cipher`.
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

fn rounds(key_len: usize) -> usize {
    key_len / 4 + 6
}

unsafe fn fingerprint(v: AesView) -> [u8; 48] {
    let mut fp = [0u8; 48];
    let last = 16 * rounds(v.key_len);
    // SAFETY: a nettle schedule of `key_len` holds 16 * (rounds + 1) bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(v.schedule, fp.as_mut_ptr(), v.key_len);
        core::ptr::copy_nonoverlapping(v.schedule.add(last), fp.as_mut_ptr().add(32), 16);
    }
    fp
}

/// Whether the schedule at `v` carries fingerprint `fp`, compared in constant time a word
/// at a time (this runs on every call, so it must be cheap).
unsafe fn fingerprint_matches(v: AesView, fp: &[u8; 48]) -> bool {
    let word = |p: *const u8, i: usize| {
        // SAFETY: callers pass offsets inside the schedule (see `fingerprint`).
        unsafe { (p.add(8 * i) as *const u64).read_unaligned() }
    };
    let last = 16 * rounds(v.key_len);
    let mut diff = 0u64;
    for i in 0..v.key_len / 8 {
        diff |= word(v.schedule, i) ^ word(fp.as_ptr(), i);
    }
    // SAFETY: the last round key lies inside the schedule.
    let tail = unsafe { v.schedule.add(last) };
    diff |= word(tail, 0) ^ word(fp.as_ptr(), 4);
    diff |= word(tail, 1) ^ word(fp.as_ptr(), 5);
    core::hint::black_box(diff) == 0
}

// ------------------------------------------------------------------ the gcm_key region

unsafe fn header<'a>(func: &str, gk: *const u8) -> &'a Header {
    if gk.is_null() {
        die(func, "NULL gcm key");
    }
    // SAFETY: `gk` points to a caller's `struct gcm_key` (4096 bytes, 8-byte aligned);
    // `Header` is plain data with alignment 8.
    let h = unsafe { &*(gk as *const Header) };
    let off = h.key_off as usize;
    let key_ok = h.aes_len == 0
        || (matches!(h.aes_len, 16 | 24 | 32)
            && off >= HEADER_BYTES
            && off + core::mem::size_of::<Key>() <= GCM_KEY_BYTES);
    if h.magic != MAGIC || !key_ok {
        die(func, "gcm key was not set up by a gcm_*set_key function");
    }
    h
}

/// Our expanded key inside `struct gcm_key`, in place when it is still 16-byte aligned;
/// a context copied to an address of another alignment gets an aligned copy in `tmp`
/// for the call (wiped when dropped).
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

/// Sets up `struct gcm_key` for AES with raw key `raw` (whose nettle schedule is already
/// in the cipher context at `view`) and returns our H = E(K, 0); aborts if no backend can
/// be used.
unsafe fn set_aes_key(func: &str, gk: *mut u8, raw: &[u8], view: AesView) -> [u8; 16] {
    let backend = match cpu::selected() {
        Ok(b) => b,
        Err(_) => die(func, "STITCHGCM_IMPL names no backend this CPU can run"),
    };
    // The first 16-byte aligned offset after the header (address arithmetic only).
    let key_off = (gk as usize + HEADER_BYTES).next_multiple_of(16) - gk as usize;
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
        // SAFETY: `view` describes the schedule just written by the caller.
        fingerprint: unsafe { fingerprint(view) },
        ghash: GhashKey::new(&h),
    };
    // SAFETY: the header occupies the first HEADER_BYTES of the struct, before the key.
    unsafe { (gk as *mut Header).write(hdr) };
    h
}

/// Sets up `struct gcm_key` for an arbitrary block cipher: GHASH with H = h only.
unsafe fn set_generic_key(gk: *mut u8, h: &[u8; 16]) {
    let hdr = Header {
        magic: MAGIC,
        key_off: 0,
        aes_len: 0,
        fingerprint: [0; 48],
        ghash: GhashKey::new(h),
    };
    // SAFETY: `gk` is the caller's `struct gcm_key`; the header fits at its start.
    unsafe { (gk as *mut Header).write(hdr) };
}

/// Writes nettle's AES schedule for `raw` at `schedule` (`16 * (rounds + 1)` bytes).
unsafe fn write_schedule(schedule: *mut u8, raw: &[u8]) {
    let mut rk = [[0u8; 16]; 15];
    let r = crate::backend::aes_schedule::expand(raw, &mut rk);
    // SAFETY: nettle's aes{128,192,256}_ctx hold exactly 16 * (r + 1) bytes.
    unsafe { core::ptr::copy_nonoverlapping(rk.as_ptr() as *const u8, schedule, 16 * (r + 1)) };
    wipe_bytes(rk.as_flattened_mut());
}

// ------------------------------------------------------------------ keys for the mode

/// The keystream source of the generic path.
enum Cipher<'a> {
    /// A caller's `nettle_cipher_func` and its context.
    Func(nettle_cipher_func, *const c_void),
    /// Our AES, rebuilt from a nettle schedule that no longer matches the fingerprint.
    Ours(&'a Key),
    /// set_iv and update need GHASH only.
    None,
}

/// GHASH with the set-key-time H plus a keystream source: what nettle's generic code does.
struct Generic<'a> {
    ghash: &'a GhashKey,
    cipher: Cipher<'a>,
}

impl Generic<'_> {
    fn ecb(&self, out: &mut [u8], inp: &[u8]) {
        match self.cipher {
            // SAFETY: nettle's contract for `f`: ECB over whole blocks of `cipher`.
            Cipher::Func(f, ctx) => unsafe { f(ctx, inp.len(), out.as_mut_ptr(), inp.as_ptr()) },
            Cipher::Ours(k) => {
                for (o, i) in out.chunks_exact_mut(16).zip(inp.chunks_exact(16)) {
                    let mut b: [u8; 16] = i.try_into().unwrap();
                    k.encrypt_block(&mut b);
                    o.copy_from_slice(&b);
                }
            }
            Cipher::None => unreachable!("GHASH-only key used for encryption"),
        }
    }
}

impl BlockKey for Generic<'_> {
    fn encrypt_block(&self, block: &mut [u8; 16]) {
        let inp = *block;
        self.ecb(block, &inp);
    }

    fn ghash(&self, y: &mut [u8; 16], data: &[u8]) {
        self.ghash.update(y, data);
    }

    unsafe fn crypt_blocks(
        &self,
        dir: Direction,
        ctr: &mut [u8; 16],
        y: &mut [u8; 16],
        mut src: *const u8,
        mut dst: *mut u8,
        mut blocks: usize,
    ) {
        const CHUNK: usize = 8;
        let mut ctrs = [0u8; CHUNK * BLOCK];
        let mut ks = [0u8; CHUNK * BLOCK];
        let mut buf = [0u8; CHUNK * BLOCK];
        while blocks > 0 {
            let n = blocks.min(CHUNK);
            let len = n * BLOCK;
            for c in ctrs.chunks_exact_mut(BLOCK).take(n) {
                c.copy_from_slice(ctr);
                crate::gcm::inc32(ctr);
            }
            self.ecb(&mut ks[..len], &ctrs[..len]);
            // SAFETY: the caller guarantees `len` readable bytes at `src`; `buf` is ours,
            // so in-place callers never see aliasing slices.
            unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), len) };
            if dir == Direction::Decrypt {
                self.ghash.update(y, &buf[..len]);
            }
            for (b, k) in buf[..len].iter_mut().zip(&ks[..len]) {
                *b ^= k;
            }
            if dir == Direction::Encrypt {
                self.ghash.update(y, &buf[..len]);
            }
            // SAFETY: the caller guarantees `len` writable bytes at `dst`.
            unsafe {
                core::ptr::copy_nonoverlapping(buf.as_ptr(), dst, len);
                src = src.add(len);
                dst = dst.add(len);
            }
            blocks -= n;
        }
        wipe_bytes(&mut ks);
        wipe_bytes(&mut buf);
    }
}

/// Either our fused backend key or the generic path.
enum Engine<'a> {
    Fast(&'a Key),
    Slow(Generic<'a>),
}

impl Engine<'_> {
    fn with<R>(&self, f: impl FnOnce(&dyn Dispatch) -> R) -> R {
        match self {
            Engine::Fast(k) => f(&Wrap(*k)),
            Engine::Slow(g) => f(&Wrap(g)),
        }
    }
}

/// Object-safe face of the mode operations this front-end needs.
trait Dispatch {
    fn start(&self, iv: &[u8]) -> Core;
    fn aad(&self, core: &mut Core, data: &[u8]);
    unsafe fn crypt(
        &self,
        core: &mut Core,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    );
    fn finish(&self, core: &mut Core) -> [u8; 16];
}

struct Wrap<'a, K: BlockKey>(&'a K);

impl<K: BlockKey> Dispatch for Wrap<'_, K> {
    fn start(&self, iv: &[u8]) -> Core {
        Core::start(self.0, iv)
    }
    fn aad(&self, core: &mut Core, data: &[u8]) {
        core.aad(self.0, data)
    }
    unsafe fn crypt(
        &self,
        core: &mut Core,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { core.crypt(self.0, dir, src, dst, len) }
    }
    fn finish(&self, core: &mut Core) -> [u8; 16] {
        core.finish(self.0)
    }
}

/// The engine for a call that names its cipher (`gcm_encrypt`, `gcm_decrypt`,
/// `gcm_digest`): fused when `f` is nettle's AES of the keyed size over the schedule we
/// expanded, generic otherwise.
unsafe fn engine_for<'a>(
    func: &str,
    gk: *const u8,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    tmp: &'a mut Option<Key>,
) -> Engine<'a> {
    // SAFETY: forwarded; `header` validates.
    let h = unsafe { header(func, gk) };
    let Some(f) = f else {
        die(func, "NULL cipher function")
    };
    if h.aes_len != 0 {
        // SAFETY: `f` identifies the layout of `cipher` when it is nettle's AES.
        if let Some(view) = unsafe { recognise(cipher, f) } {
            // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
            if view.key_len == h.aes_len as usize
                && unsafe { fingerprint_matches(view, &h.fingerprint) }
            {
                // SAFETY: `h` was validated for `gk`.
                return Engine::Fast(unsafe { our_key(func, gk, h, tmp) });
            }
        }
    }
    Engine::Slow(Generic {
        ghash: &h.ghash,
        cipher: Cipher::Func(f, cipher),
    })
}

/// The engine for the AES-specific functions, whose cipher is known to be nettle AES with
/// the schedule in `view`. If the schedule no longer matches our key (the caller re-keyed
/// `cipher` behind our back), a temporary key is expanded from the schedule's raw key and
/// GHASH keeps the set-key-time H, as nettle would.
unsafe fn engine_for_aes<'a>(
    func: &str,
    gk: *const u8,
    view: AesView,
    tmp: &'a mut Option<Key>,
) -> Engine<'a> {
    // SAFETY: forwarded; `header` validates.
    let h = unsafe { header(func, gk) };
    // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
    if h.aes_len as usize == view.key_len && unsafe { fingerprint_matches(view, &h.fingerprint) } {
        // SAFETY: `h` was validated for `gk`.
        return Engine::Fast(unsafe { our_key(func, gk, h, tmp) });
    }
    // SAFETY: as above.
    let fp = unsafe { fingerprint(view) };
    let backend = cpu::selected().unwrap_or(crate::backend::BackendId::Soft);
    let k = match Key::with_backend(&fp[..view.key_len], backend) {
        Ok(k) => tmp.insert(k),
        Err(_) => die(func, "key expansion failed"),
    };
    Engine::Slow(Generic {
        ghash: &h.ghash,
        cipher: Cipher::Ours(k),
    })
}

/// The engine for set_iv / update (GHASH only).
unsafe fn engine_ghash<'a>(func: &str, gk: *const u8, tmp: &'a mut Option<Key>) -> Engine<'a> {
    // SAFETY: forwarded; `header` validates.
    let h = unsafe { header(func, gk) };
    if h.aes_len != 0 {
        // SAFETY: `h` was validated for `gk`.
        return Engine::Fast(unsafe { our_key(func, gk, h, tmp) });
    }
    Engine::Slow(Generic {
        ghash: &h.ghash,
        cipher: Cipher::None,
    })
}

// ------------------------------------------------------------------ the operations

unsafe fn core_mut<'a>(func: &str, ctx: *mut u8) -> &'a mut Core {
    if ctx.is_null() {
        die(func, "NULL gcm context");
    }
    // SAFETY: `ctx` is the caller's `struct gcm_ctx` (64 bytes, 8-aligned) = `Core`.
    unsafe { &mut *(ctx as *mut Core) }
}

unsafe fn op_set_iv(func: &str, ctx: *mut u8, gk: *const u8, len: usize, iv: *const u8) {
    // SAFETY: forwarded from the exported function's contract.
    let iv = unsafe { bytes(func, iv, len) };
    let core = unsafe { core_mut(func, ctx) };
    *core = match <&[u8; 12]>::try_from(iv) {
        // nettle does not read the key for 96-bit IVs (it may be NULL).
        Ok(iv96) => Core::start_96(iv96),
        // SAFETY: forwarded.
        Err(_) => unsafe { engine_ghash(func, gk, &mut None) }.with(|e| e.start(iv)),
    };
}

unsafe fn op_update(func: &str, ctx: *mut u8, gk: *const u8, len: usize, data: *const u8) {
    // SAFETY: forwarded from the exported function's contract.
    let core = unsafe { core_mut(func, ctx) };
    assertion(
        func,
        core.aad_len % 16 == 0,
        "ctx->auth_size % GCM_BLOCK_SIZE == 0",
    );
    assertion(func, core.data_len == 0, "ctx->data_size == 0");
    // SAFETY: forwarded.
    let data = unsafe { bytes(func, data, len) };
    if data.is_empty() {
        return;
    }
    let mut tmp = None;
    unsafe { engine_ghash(func, gk, &mut tmp) }.with(|e| e.aad(core, data));
}

unsafe fn op_crypt(
    func: &str,
    e: &Engine,
    ctx: *mut u8,
    dir: Direction,
    len: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: forwarded from the exported function's contract.
    let core = unsafe { core_mut(func, ctx) };
    assertion(
        func,
        core.data_len % 16 == 0,
        "ctx->data_size % GCM_BLOCK_SIZE == 0",
    );
    if len == 0 {
        return;
    }
    if src.is_null() || dst.is_null() {
        die(func, "NULL buffer with non-zero length");
    }
    // SAFETY: nettle's contract: `len` bytes at `src` and `dst`, equal or disjoint.
    e.with(|e| unsafe { e.crypt(core, dir, src, dst, len) });
}

unsafe fn op_digest(func: &str, e: &Engine, ctx: *mut u8, len: usize, digest: *mut u8) {
    // SAFETY: forwarded from the exported function's contract.
    let core = unsafe { core_mut(func, ctx) };
    assertion(func, len <= 16, "length <= GCM_DIGEST_SIZE");
    // Like nettle: no reset; the GHASH state keeps the lengths block.
    let mut tag = e.with(|e| e.finish(core));
    if len > 0 {
        if digest.is_null() {
            die(func, "NULL digest with non-zero length");
        }
        // SAFETY: the caller provides `len` ≤ 16 writable bytes.
        unsafe { core::ptr::copy_nonoverlapping(tag.as_ptr(), digest, len) };
    }
    wipe_bytes(&mut tag);
}

// ------------------------------------------------------------------ generic gcm_*

/// `void gcm_set_key(struct gcm_key *key, const void *cipher, nettle_cipher_func *f)`
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_set_key(
    key: *mut c_void,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
) {
    const FUNC: &str = "nettle_gcm_set_key";
    let Some(f) = f else {
        die(FUNC, "NULL cipher function")
    };
    if key.is_null() {
        die(FUNC, "NULL gcm key");
    }
    let mut h = [0u8; 16];
    // SAFETY: nettle's contract: `cipher` is keyed for `f`.
    unsafe { f(cipher, 16, h.as_mut_ptr(), [0u8; 16].as_ptr()) };
    let gk = key as *mut u8;
    // If `f` is nettle's AES, take the raw key from its schedule and expand our own —
    // but only if our AES agrees with `f` on H (a genuine schedule), else stay generic.
    // SAFETY: `recognise` only reads `cipher` as the layout `f` implies.
    if let Some(view) = unsafe { recognise(cipher, f) } {
        // SAFETY: `view` is a schedule of `key_len` bytes' worth of rounds.
        let mut fp = unsafe { fingerprint(view) };
        let mut ours = unsafe { set_aes_key(FUNC, gk, &fp[..view.key_len], view) };
        let genuine = ct_eq(&ours, &h);
        wipe_bytes(&mut ours);
        wipe_bytes(&mut fp);
        if genuine {
            wipe_bytes(&mut h);
            return;
        }
    }
    // SAFETY: `gk` is the caller's `struct gcm_key`.
    unsafe {
        core::ptr::write_bytes(gk, 0, GCM_KEY_BYTES);
        set_generic_key(gk, &h);
    }
    wipe_bytes(&mut h);
}

/// `void gcm_set_iv(struct gcm_ctx *ctx, const struct gcm_key *key, size_t length, const uint8_t *iv)`
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_set_iv(
    ctx: *mut c_void,
    key: *const c_void,
    length: usize,
    iv: *const u8,
) {
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        op_set_iv(
            "nettle_gcm_set_iv",
            ctx as *mut u8,
            key as *const u8,
            length,
            iv,
        )
    }
}

/// `void gcm_update(struct gcm_ctx *ctx, const struct gcm_key *key, size_t length, const uint8_t *data)`
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_update(
    ctx: *mut c_void,
    key: *const c_void,
    length: usize,
    data: *const u8,
) {
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        op_update(
            "nettle_gcm_update",
            ctx as *mut u8,
            key as *const u8,
            length,
            data,
        )
    }
}

/// `void gcm_encrypt(struct gcm_ctx *ctx, const struct gcm_key *key, const void *cipher,
/// nettle_cipher_func *f, size_t length, uint8_t *dst, const uint8_t *src)`
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_encrypt(
    ctx: *mut c_void,
    key: *const c_void,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    const FUNC: &str = "nettle_gcm_encrypt";
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        let mut tmp = None;
        let e = engine_for(FUNC, key as *const u8, cipher, f, &mut tmp);
        op_crypt(
            FUNC,
            &e,
            ctx as *mut u8,
            Direction::Encrypt,
            length,
            dst,
            src,
        )
    }
}

/// `void gcm_decrypt(…)`, arguments as for `gcm_encrypt`.
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_decrypt(
    ctx: *mut c_void,
    key: *const c_void,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    const FUNC: &str = "nettle_gcm_decrypt";
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        let mut tmp = None;
        let e = engine_for(FUNC, key as *const u8, cipher, f, &mut tmp);
        op_crypt(
            FUNC,
            &e,
            ctx as *mut u8,
            Direction::Decrypt,
            length,
            dst,
            src,
        )
    }
}

/// `void gcm_digest(struct gcm_ctx *ctx, const struct gcm_key *key, const void *cipher,
/// nettle_cipher_func *f, size_t length, uint8_t *digest)`
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_digest(
    ctx: *mut c_void,
    key: *const c_void,
    cipher: *const c_void,
    f: Option<nettle_cipher_func>,
    length: usize,
    digest: *mut u8,
) {
    const FUNC: &str = "nettle_gcm_digest";
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        let mut tmp = None;
        let e = engine_for(FUNC, key as *const u8, cipher, f, &mut tmp);
        op_digest(FUNC, &e, ctx as *mut u8, length, digest)
    }
}

// ------------------------------------------------------------------ gcm_aes{128,192,256}_* and gcm_aes_*

/// The cipher context of a `struct gcm_aes*_ctx`: bare schedule, or `struct aes_ctx`.
#[derive(Clone, Copy)]
enum Layout {
    Fixed(usize),
    AesCtx,
}

unsafe fn aes_view(func: &str, ctx: *mut u8, layout: Layout) -> AesView {
    if ctx.is_null() {
        die(func, "NULL context");
    }
    // SAFETY: `ctx` is a caller's `struct gcm_aes*_ctx`; the cipher starts at 4160.
    let cipher = unsafe { ctx.add(CIPHER_OFFSET) };
    match layout {
        Layout::Fixed(key_len) => AesView {
            schedule: cipher,
            key_len,
        },
        // nettle's aes_encrypt aborts on a bad key_size too.
        Layout::AesCtx => unsafe { aes_ctx_view(cipher as *const c_void) }
            .unwrap_or_else(|| die(func, "aes_ctx has an invalid key size")),
    }
}

unsafe fn aes_set_key(func: &str, ctx: *mut u8, layout: Layout, key: *const u8, len: usize) {
    if ctx.is_null() {
        die(func, "NULL context");
    }
    // SAFETY: nettle's contract: `len` key bytes.
    let raw = unsafe { bytes(func, key, len) };
    // SAFETY: the cipher context starts at 4160 in every `struct gcm_aes*_ctx`.
    let cipher = unsafe { ctx.add(CIPHER_OFFSET) };
    let schedule = match layout {
        Layout::Fixed(_) => cipher,
        Layout::AesCtx => {
            // SAFETY: `struct aes_ctx` = { unsigned key_size; union schedule } at 4160.
            unsafe { (cipher as *mut u32).write(len as u32) };
            unsafe { cipher.add(4) }
        }
    };
    // SAFETY: the schedule fits the cipher context of this key size.
    unsafe { write_schedule(schedule, raw) };
    let view = AesView {
        schedule,
        key_len: len,
    };
    // SAFETY: the gcm_key is at offset 0 of the context.
    let mut h = unsafe { set_aes_key(func, ctx, raw, view) };
    wipe_bytes(&mut h);
}

macro_rules! aes_variant {
    ($layout:expr, $set_iv:ident, $update:ident, $encrypt:ident, $decrypt:ident, $digest:ident) => {
        #[doc = concat!("`void ", stringify!($set_iv), "(ctx, size_t length, const uint8_t *iv)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $set_iv(ctx: *mut c_void, length: usize, iv: *const u8) {
            let ctx = ctx as *mut u8;
            // SAFETY: nettle's contract; the gcm_ctx is at 4096, the gcm_key at 0.
            unsafe {
                let gcm = if ctx.is_null() { ctx } else { ctx.add(GCM_CTX_OFFSET) };
                op_set_iv(stringify!($set_iv), gcm, ctx, length, iv)
            }
        }

        #[doc = concat!("`void ", stringify!($update), "(ctx, size_t length, const uint8_t *data)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $update(ctx: *mut c_void, length: usize, data: *const u8) {
            let ctx = ctx as *mut u8;
            // SAFETY: as above.
            unsafe {
                let gcm = if ctx.is_null() { ctx } else { ctx.add(GCM_CTX_OFFSET) };
                op_update(stringify!($update), gcm, ctx, length, data)
            }
        }

        #[doc = concat!("`void ", stringify!($encrypt), "(ctx, size_t length, uint8_t *dst, const uint8_t *src)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $encrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8) {
            const FUNC: &str = stringify!($encrypt);
            let ctx = ctx as *mut u8;
            let mut tmp = None;
            // SAFETY: as above; the cipher context is at 4160.
            unsafe {
                let view = aes_view(FUNC, ctx, $layout);
                let e = engine_for_aes(FUNC, ctx, view, &mut tmp);
                op_crypt(FUNC, &e, ctx.add(GCM_CTX_OFFSET), Direction::Encrypt, length, dst, src)
            }
        }

        #[doc = concat!("`void ", stringify!($decrypt), "(ctx, size_t length, uint8_t *dst, const uint8_t *src)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $decrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8) {
            const FUNC: &str = stringify!($decrypt);
            let ctx = ctx as *mut u8;
            let mut tmp = None;
            // SAFETY: as above.
            unsafe {
                let view = aes_view(FUNC, ctx, $layout);
                let e = engine_for_aes(FUNC, ctx, view, &mut tmp);
                op_crypt(FUNC, &e, ctx.add(GCM_CTX_OFFSET), Direction::Decrypt, length, dst, src)
            }
        }

        #[doc = concat!("`void ", stringify!($digest), "(ctx, size_t length, uint8_t *digest)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $digest(ctx: *mut c_void, length: usize, digest: *mut u8) {
            const FUNC: &str = stringify!($digest);
            let ctx = ctx as *mut u8;
            let mut tmp = None;
            // SAFETY: as above.
            unsafe {
                let view = aes_view(FUNC, ctx, $layout);
                let e = engine_for_aes(FUNC, ctx, view, &mut tmp);
                op_digest(FUNC, &e, ctx.add(GCM_CTX_OFFSET), length, digest)
            }
        }
    };
}

aes_variant!(
    Layout::Fixed(16),
    nettle_gcm_aes128_set_iv,
    nettle_gcm_aes128_update,
    nettle_gcm_aes128_encrypt,
    nettle_gcm_aes128_decrypt,
    nettle_gcm_aes128_digest
);
aes_variant!(
    Layout::Fixed(24),
    nettle_gcm_aes192_set_iv,
    nettle_gcm_aes192_update,
    nettle_gcm_aes192_encrypt,
    nettle_gcm_aes192_decrypt,
    nettle_gcm_aes192_digest
);
aes_variant!(
    Layout::Fixed(32),
    nettle_gcm_aes256_set_iv,
    nettle_gcm_aes256_update,
    nettle_gcm_aes256_encrypt,
    nettle_gcm_aes256_decrypt,
    nettle_gcm_aes256_digest
);
aes_variant!(
    Layout::AesCtx,
    nettle_gcm_aes_set_iv,
    nettle_gcm_aes_update,
    nettle_gcm_aes_encrypt,
    nettle_gcm_aes_decrypt,
    nettle_gcm_aes_digest
);

/// `void gcm_aesNNN_set_key(struct gcm_aesNNN_ctx *ctx, const uint8_t *key)` for each size.
macro_rules! fixed_set_key {
    ($name:ident, $key_len:literal) => {
        #[doc = concat!("`void ", stringify!($name), "(ctx, const uint8_t *key)`: ", stringify!($key_len), "-byte key.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name(ctx: *mut c_void, key: *const u8) {
            // SAFETY: nettle's contract: the matching `struct gcm_aesNNN_ctx` and the key bytes.
            unsafe {
                aes_set_key(stringify!($name), ctx as *mut u8, Layout::Fixed($key_len), key, $key_len)
            }
        }
    };
}

fixed_set_key!(nettle_gcm_aes128_set_key, 16);
fixed_set_key!(nettle_gcm_aes192_set_key, 24);
fixed_set_key!(nettle_gcm_aes256_set_key, 32);

/// `void gcm_aes_set_key(struct gcm_aes_ctx *ctx, size_t length, const uint8_t *key)`
/// (deprecated in nettle). Like nettle's `aes_set_encrypt_key`, aborts unless `length`
/// is 16, 24 or 32.
#[no_mangle]
pub unsafe extern "C" fn nettle_gcm_aes_set_key(ctx: *mut c_void, length: usize, key: *const u8) {
    const FUNC: &str = "nettle_gcm_aes_set_key";
    if !matches!(length, 16 | 24 | 32) {
        die(
            FUNC,
            &format!("invalid AES key length {length} (must be 16, 24 or 32)"),
        );
    }
    // SAFETY: nettle's contract: a `struct gcm_aes_ctx` and `length` key bytes.
    unsafe { aes_set_key(FUNC, ctx as *mut u8, Layout::AesCtx, key, length) }
}
