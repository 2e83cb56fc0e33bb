//! nettle's AES-GCM ABI as the nettle_abi target calls it: the exported functions
//! (declared here with nettle's prototypes from `<nettle/gcm.h>`), the caller-owned memory
//! of one keyed instance ([`Inst`]) in each of the four ways a program can key it
//! ([`Front`]), and the block ciphers the generic functions get: this crate's own AES-ECB
//! function and stand-ins for nettle's `nettle_aes*_encrypt`, which the target binary
//! exports (see build.rs) so that the library recognises them as nettle's AES.
#![allow(clippy::missing_safety_doc)] // the stand-ins keep nettle's contract

use crate::guard::Guarded;
use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use core::ffi::c_void;
use core::sync::atomic::{AtomicUsize, Ordering};

type CipherFn =
    unsafe extern "C" fn(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8);

extern "C" {
    fn nettle_gcm_aes128_set_key(ctx: *mut c_void, key: *const u8);
    fn nettle_gcm_aes192_set_key(ctx: *mut c_void, key: *const u8);
    fn nettle_gcm_aes256_set_key(ctx: *mut c_void, key: *const u8);
    fn nettle_gcm_aes_set_key(ctx: *mut c_void, length: usize, key: *const u8);
    fn nettle_gcm_set_key(key: *mut c_void, cipher: *const c_void, f: CipherFn);
    fn nettle_gcm_set_iv(ctx: *mut c_void, key: *const c_void, length: usize, iv: *const u8);
    fn nettle_gcm_update(ctx: *mut c_void, key: *const c_void, length: usize, data: *const u8);
    fn nettle_gcm_encrypt(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: CipherFn,
        length: usize,
        dst: *mut u8,
        src: *const u8,
    );
    fn nettle_gcm_decrypt(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: CipherFn,
        length: usize,
        dst: *mut u8,
        src: *const u8,
    );
    fn nettle_gcm_digest(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: CipherFn,
        length: usize,
        digest: *mut u8,
    );
}

/// The `set_iv, update, encrypt, decrypt, digest` of one AES-specific family.
struct Family {
    set_iv: unsafe extern "C" fn(*mut c_void, usize, *const u8),
    update: unsafe extern "C" fn(*mut c_void, usize, *const u8),
    encrypt: unsafe extern "C" fn(*mut c_void, usize, *mut u8, *const u8),
    decrypt: unsafe extern "C" fn(*mut c_void, usize, *mut u8, *const u8),
    digest: unsafe extern "C" fn(*mut c_void, usize, *mut u8),
}

macro_rules! families {
    ($($name:ident: $set_iv:ident, $update:ident, $encrypt:ident, $decrypt:ident, $digest:ident;)*) => {
        extern "C" {
            $(
                fn $set_iv(ctx: *mut c_void, length: usize, iv: *const u8);
                fn $update(ctx: *mut c_void, length: usize, data: *const u8);
                fn $encrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8);
                fn $decrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8);
                fn $digest(ctx: *mut c_void, length: usize, digest: *mut u8);
            )*
        }
        $(
            const $name: Family = Family {
                set_iv: $set_iv,
                update: $update,
                encrypt: $encrypt,
                decrypt: $decrypt,
                digest: $digest,
            };
        )*
    };
}

families! {
    GCM_AES128: nettle_gcm_aes128_set_iv, nettle_gcm_aes128_update, nettle_gcm_aes128_encrypt,
        nettle_gcm_aes128_decrypt, nettle_gcm_aes128_digest;
    GCM_AES192: nettle_gcm_aes192_set_iv, nettle_gcm_aes192_update, nettle_gcm_aes192_encrypt,
        nettle_gcm_aes192_decrypt, nettle_gcm_aes192_digest;
    GCM_AES256: nettle_gcm_aes256_set_iv, nettle_gcm_aes256_update, nettle_gcm_aes256_encrypt,
        nettle_gcm_aes256_decrypt, nettle_gcm_aes256_digest;
    GCM_AES: nettle_gcm_aes_set_iv, nettle_gcm_aes_update, nettle_gcm_aes_encrypt,
        nettle_gcm_aes_decrypt, nettle_gcm_aes_digest;
}

fn family(key_len: usize, aes_ctx: bool) -> &'static Family {
    match (aes_ctx, key_len) {
        (true, _) => &GCM_AES,
        (false, 16) => &GCM_AES128,
        (false, 24) => &GCM_AES192,
        _ => &GCM_AES256,
    }
}

// ------------------------------------------------------------------ block ciphers

pub enum AnyAes {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

impl AnyAes {
    pub fn new(key: &[u8]) -> AnyAes {
        match key.len() {
            16 => AnyAes::A128(Aes128::new_from_slice(key).unwrap()),
            24 => AnyAes::A192(Aes192::new_from_slice(key).unwrap()),
            _ => AnyAes::A256(Aes256::new_from_slice(key).unwrap()),
        }
    }

    /// nettle_cipher_func semantics: ECB over `length` bytes, `dst == src` allowed.
    unsafe fn ecb(&self, length: usize, dst: *mut u8, src: *const u8) {
        assert!(
            length.is_multiple_of(16),
            "cipher function called with {length} bytes"
        );
        for i in (0..length).step_by(16) {
            let mut b = [0u8; 16];
            // SAFETY: nettle's contract: `length` bytes at `src` and `dst`.
            unsafe { core::ptr::copy_nonoverlapping(src.add(i), b.as_mut_ptr(), 16) };
            let blk = (&mut b).into();
            match self {
                AnyAes::A128(a) => a.encrypt_block(blk),
                AnyAes::A192(a) => a.encrypt_block(blk),
                AnyAes::A256(a) => a.encrypt_block(blk),
            }
            // SAFETY: as above.
            unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(i), 16) };
        }
    }
}

/// This target's own cipher function; `ctx` is an [`AnyAes`].
pub unsafe extern "C" fn own_aes(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8) {
    // SAFETY: the target passes an `AnyAes` as the cipher context.
    unsafe { (*(ctx as *const AnyAes)).ecb(length, dst, src) }
}

/// nettle's AES over a nettle schedule: its first words are the raw key (FIPS-197 key
/// expansion; nettle keeps the words in host order, the key's bytes on little-endian).
/// Calls of the nettle AES functions below: the library must not need them once it has
/// recognised them (it encrypts with its own expanded key instead).
pub static NETTLE_AES_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe fn nettle_schedule_aes(
    schedule: *const u8,
    key_len: usize,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    NETTLE_AES_CALLS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: a nettle schedule holds at least `key_len` bytes.
    let raw = unsafe { core::slice::from_raw_parts(schedule, key_len) };
    // SAFETY: forwarded.
    unsafe { AnyAes::new(raw).ecb(length, dst, src) }
}

#[no_mangle]
pub unsafe extern "C" fn nettle_aes128_encrypt(
    ctx: *const c_void,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: `ctx` is a `struct aes128_ctx`.
    unsafe { nettle_schedule_aes(ctx as *const u8, 16, length, dst, src) }
}

#[no_mangle]
pub unsafe extern "C" fn nettle_aes192_encrypt(
    ctx: *const c_void,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: `ctx` is a `struct aes192_ctx`.
    unsafe { nettle_schedule_aes(ctx as *const u8, 24, length, dst, src) }
}

#[no_mangle]
pub unsafe extern "C" fn nettle_aes256_encrypt(
    ctx: *const c_void,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: `ctx` is a `struct aes256_ctx`.
    unsafe { nettle_schedule_aes(ctx as *const u8, 32, length, dst, src) }
}

/// `struct aes_ctx { unsigned key_size; union { … } u; }`.
#[no_mangle]
pub unsafe extern "C" fn nettle_aes_encrypt(
    ctx: *const c_void,
    length: usize,
    dst: *mut u8,
    src: *const u8,
) {
    // SAFETY: `ctx` is a `struct aes_ctx`: the size in bytes, then the schedule.
    unsafe {
        let key_len = (ctx as *const u32).read() as usize;
        assert!(
            matches!(key_len, 16 | 24 | 32),
            "aes_ctx key size {key_len}"
        );
        nettle_schedule_aes((ctx as *const u8).add(4), key_len, length, dst, src)
    }
}

pub fn nettle_aes_fn(key_len: usize, aes_ctx: bool) -> CipherFn {
    match (aes_ctx, key_len) {
        (true, _) => nettle_aes_encrypt,
        (false, 16) => nettle_aes128_encrypt,
        (false, 24) => nettle_aes192_encrypt,
        _ => nettle_aes256_encrypt,
    }
}

/// `sizeof(struct gcm_key)`, and where `struct gcm_aes*_ctx` keeps its `gcm_ctx` and cipher.
pub const GCM_KEY_BYTES: usize = 4096;
pub const GCM_CTX_BYTES: usize = 64;
pub const CIPHER_OFFSET: usize = GCM_KEY_BYTES + GCM_CTX_BYTES;
/// `sizeof(struct gcm_aes128_ctx)` … and `sizeof(struct gcm_aes_ctx)` (244-byte
/// `struct aes_ctx`, padded to the 8-byte alignment of `struct gcm_key`).
pub fn ctx_bytes(key_len: usize, aes_ctx: bool) -> usize {
    if aes_ctx {
        CIPHER_OFFSET + 248
    } else {
        CIPHER_OFFSET + 16 * (key_len / 4 + 7)
    }
}

#[derive(Clone, Copy, Default, PartialEq)]
pub enum Front {
    /// `gcm_aes{128,192,256}_*` or `gcm_aes_*`.
    #[default]
    Aes,
    /// Generic `gcm_*` with this target's cipher function.
    OwnCipher,
    /// Generic `gcm_*` over a `gcm_aes*_ctx` with nettle's AES function (recognised).
    NettleAes,
    /// `gcm_set_key` and the generic `gcm_*` over a standalone AES context (the schedule
    /// `gcm_aes*_set_key` wrote) with nettle's AES function (recognised at set-key time).
    NettleAesSetKey,
}
pub const FRONTS: [Front; 4] = [
    Front::Aes,
    Front::OwnCipher,
    Front::NettleAes,
    Front::NettleAesSetKey,
];

// ------------------------------------------------------------------ the contexts

/// The caller-owned memory of one keyed instance.
pub enum Inst {
    /// A `struct gcm_aes*_ctx`, used through the AES functions or (`generic`) through the
    /// generic ones with nettle's AES function.
    Ctx {
        ctx: Guarded,
        key_len: usize,
        aes_ctx: bool,
        generic: bool,
    },
    /// `struct gcm_key`, `struct gcm_ctx` and a cipher context with its function.
    Split {
        key: Guarded,
        ctx: Guarded,
        cipher: Cipher,
        f: CipherFn,
    },
}

pub enum Cipher {
    Own(Box<AnyAes>),
    /// A nettle AES context (`struct aes*_ctx` or `struct aes_ctx`).
    Nettle(Guarded),
}

/// A `gcm_aes*_ctx` keyed with `key` by the library's set-key function.
fn keyed_ctx(key: &[u8], aes_ctx: bool) -> Guarded {
    let mut ctx = Guarded::filled(ctx_bytes(key.len(), aes_ctx), 0x5a, 0);
    let p = ctx.mut_ptr() as *mut c_void;
    // SAFETY: a context of the right size, 16-byte aligned; `key.len()` key bytes.
    unsafe {
        match (aes_ctx, key.len()) {
            (true, n) => nettle_gcm_aes_set_key(p, n, key.as_ptr()),
            (false, 16) => nettle_gcm_aes128_set_key(p, key.as_ptr()),
            (false, 24) => nettle_gcm_aes192_set_key(p, key.as_ptr()),
            _ => nettle_gcm_aes256_set_key(p, key.as_ptr()),
        }
    }
    ctx.check("set_key context");
    ctx
}

impl Inst {
    /// Keys `key` (16, 24 or 32 bytes) the way `front` says; `aes_ctx` chooses the
    /// deprecated `struct gcm_aes_ctx` / `struct aes_ctx` layouts over the fixed-size ones.
    pub fn new(front: Front, aes_ctx: bool, key: &[u8]) -> Inst {
        let key_len = key.len();
        let generic = front == Front::NettleAes;
        let (cipher, f) = match front {
            Front::Aes | Front::NettleAes => {
                let ctx = keyed_ctx(key, aes_ctx);
                return Inst::Ctx {
                    ctx,
                    key_len,
                    aes_ctx,
                    generic,
                };
            }
            Front::OwnCipher => (Cipher::Own(Box::new(AnyAes::new(key))), own_aes as CipherFn),
            Front::NettleAesSetKey => {
                let ctx = keyed_ctx(key, aes_ctx);
                let schedule = Guarded::new(&ctx.bytes()[CIPHER_OFFSET..], 0);
                (Cipher::Nettle(schedule), nettle_aes_fn(key_len, aes_ctx))
            }
        };
        let mut gcm_key = Guarded::filled(GCM_KEY_BYTES, 0x5a, 0);
        let ctx = Guarded::filled(GCM_CTX_BYTES, 0x5a, 0);
        let c = cipher_ptr(&cipher);
        // SAFETY: a 4096-byte gcm_key; `c` is what `f` expects.
        unsafe { nettle_gcm_set_key(gcm_key.mut_ptr() as *mut c_void, c, f) };
        gcm_key.check("gcm_set_key key");
        Inst::Split {
            key: gcm_key,
            ctx,
            cipher,
            f,
        }
    }

    /// `memcpy`s the caller memory to fresh buffers at offset `off` from 16-alignment.
    pub fn relocate(&mut self, off: usize) {
        match self {
            Inst::Ctx { ctx, .. } => *ctx = Guarded::new(ctx.bytes(), off),
            Inst::Split {
                key, ctx, cipher, ..
            } => {
                *key = Guarded::new(key.bytes(), off);
                *ctx = Guarded::new(ctx.bytes(), 8 - off);
                if let Cipher::Nettle(c) = cipher {
                    *c = Guarded::new(c.bytes(), off);
                }
            }
        }
    }

    pub fn check(&self, what: &str) {
        match self {
            Inst::Ctx { ctx, .. } => ctx.check(what),
            Inst::Split {
                key, ctx, cipher, ..
            } => {
                key.check(what);
                ctx.check(what);
                if let Cipher::Nettle(c) = cipher {
                    c.check(what);
                }
            }
        }
    }

    /// (gcm_ctx, gcm_key, cipher context, cipher function) for the generic functions.
    fn generic(&mut self) -> (*mut c_void, *const c_void, *const c_void, CipherFn) {
        match self {
            Inst::Ctx {
                ctx,
                key_len,
                aes_ctx,
                ..
            } => {
                let p = ctx.mut_ptr();
                // SAFETY: offsets inside the context.
                unsafe {
                    (
                        p.add(GCM_KEY_BYTES) as *mut c_void,
                        p as *const c_void,
                        p.add(CIPHER_OFFSET) as *const c_void,
                        nettle_aes_fn(*key_len, *aes_ctx),
                    )
                }
            }
            Inst::Split {
                key,
                ctx,
                cipher,
                f,
            } => (
                ctx.mut_ptr() as *mut c_void,
                key.ptr() as *const c_void,
                cipher_ptr(cipher),
                *f,
            ),
        }
    }

    fn aes_family(&mut self) -> Option<(&'static Family, *mut c_void)> {
        match self {
            Inst::Ctx {
                ctx,
                key_len,
                aes_ctx,
                generic: false,
            } => Some((family(*key_len, *aes_ctx), ctx.mut_ptr() as *mut c_void)),
            _ => None,
        }
    }

    // The four calls below keep nettle's contract when their callers keep theirs: the
    // contexts were keyed by `new`, the pointers are valid for `len` bytes (or NULL with
    // `len` 0), and nettle's call order holds.

    /// # Safety
    /// `iv` readable for `len` bytes.
    pub unsafe fn set_iv(&mut self, len: usize, iv: *const u8) {
        if let Some((f, ctx)) = self.aes_family() {
            // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
            return unsafe { (f.set_iv)(ctx, len, iv) };
        }
        let (ctx, key, _, _) = self.generic();
        // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
        unsafe { nettle_gcm_set_iv(ctx, key, len, iv) }
    }

    /// # Safety
    /// `data` readable for `len` bytes; no data yet in this message.
    pub unsafe fn update(&mut self, len: usize, data: *const u8) {
        if let Some((f, ctx)) = self.aes_family() {
            // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
            return unsafe { (f.update)(ctx, len, data) };
        }
        let (ctx, key, _, _) = self.generic();
        // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
        unsafe { nettle_gcm_update(ctx, key, len, data) }
    }

    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, equal or disjoint.
    pub unsafe fn crypt(&mut self, decrypt: bool, len: usize, dst: *mut u8, src: *const u8) {
        if let Some((f, ctx)) = self.aes_family() {
            let op = if decrypt { f.decrypt } else { f.encrypt };
            // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
            return unsafe { op(ctx, len, dst, src) };
        }
        let (ctx, key, cipher, cf) = self.generic();
        let op = if decrypt {
            nettle_gcm_decrypt
        } else {
            nettle_gcm_encrypt
        };
        // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
        unsafe { op(ctx, key, cipher, cf, len, dst, src) }
    }

    /// # Safety
    /// `out` writable for `len` ≤ 16 bytes.
    pub unsafe fn digest(&mut self, len: usize, out: *mut u8) {
        if let Some((f, ctx)) = self.aes_family() {
            // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
            return unsafe { (f.digest)(ctx, len, out) };
        }
        let (ctx, key, cipher, cf) = self.generic();
        // SAFETY: the caller's contract (see the `# Safety` above); `new` keyed the context.
        unsafe { nettle_gcm_digest(ctx, key, cipher, cf, len, out) }
    }
}

fn cipher_ptr(c: &Cipher) -> *const c_void {
    match c {
        Cipher::Own(a) => &**a as *const AnyAes as *const c_void,
        Cipher::Nettle(g) => g.ptr() as *const c_void,
    }
}

/// Whether the library's `dlsym` lookup sees this binary's nettle AES functions (else the
/// recognised-AES fronts would silently test the generic path only).
pub fn nettle_aes_visible() -> bool {
    static SEEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SEEN.get_or_init(|| {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"nettle_aes128_encrypt".as_ptr()) };
        core::ptr::eq(p, nettle_aes128_encrypt as *const c_void)
    })
}
