//! nettle's AES-GCM ABI as libnettle exports it, driven by fuzzer-chosen valid call
//! sequences and checked against the Rust API (`soft` backend; RustCrypto `aes-gcm` for
//! the empty IV, which the Rust API refuses and nettle accepts).
//!
//! Four ways in, each keyed with a fuzzer-chosen AES key:
//! - `nettle_gcm_aes{128,192,256}_*` on a `struct gcm_aesNNN_ctx`;
//! - the deprecated `nettle_gcm_aes_*` on a `struct gcm_aes_ctx` (any key size);
//! - the generic `nettle_gcm_*` with this target's own AES-ECB cipher function, on a
//!   separate `struct gcm_key`, `struct gcm_ctx` and cipher context;
//! - the generic functions over a `gcm_aesNNN_ctx` keyed by `gcm_aesNNN_set_key` with
//!   `nettle_aesNNN_encrypt` as the cipher function (what GnuTLS does). This binary defines
//!   and exports those nettle names itself (AES of the schedule's raw-key words through
//!   RustCrypto `aes`), so the library's `dlsym` lookup finds them and takes its
//!   recognised-AES path.
//!
//! Then up to four messages: IV (0..=80 bytes), AAD and data in calls of whole blocks but
//! the last (nettle's rule — nettle aborts otherwise, and so does the library, which is a
//! crash to libFuzzer, so this target keeps the rules), either direction, in place or not,
//! data at any alignment, a digest of 0..=16 bytes, and the context `memcpy`'d to another
//! 8-byte aligned address before the message and after its AAD (the ABI promises a
//! position-independent context). Every context and buffer is guarded.
#![no_main]
// The exported nettle AES stand-ins keep nettle's contract, described above.
#![allow(clippy::missing_safety_doc)]

use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use core::ffi::c_void;
use core::ptr::null;
use core::sync::atomic::{AtomicUsize, Ordering};
use stitchgcm::{BackendId, Key, Message};
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::{Codec, Visit};
use stitchgcm_fuzz::{filled, hex, oracle, Seeds};

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

enum AnyAes {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

impl AnyAes {
    fn new(key: &[u8]) -> AnyAes {
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
unsafe extern "C" fn own_aes(ctx: *const c_void, length: usize, dst: *mut u8, src: *const u8) {
    // SAFETY: the target passes an `AnyAes` as the cipher context.
    unsafe { (*(ctx as *const AnyAes)).ecb(length, dst, src) }
}

/// nettle's AES over a nettle schedule: its first words are the raw key (FIPS-197 key
/// expansion; nettle keeps the words in host order, the key's bytes on little-endian).
/// Calls of the nettle AES functions below: the library must not need them once it has
/// recognised them (it encrypts with its own expanded key instead).
static NETTLE_AES_CALLS: AtomicUsize = AtomicUsize::new(0);

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

fn nettle_aes_fn(key_len: usize, aes_ctx: bool) -> CipherFn {
    match (aes_ctx, key_len) {
        (true, _) => nettle_aes_encrypt,
        (false, 16) => nettle_aes128_encrypt,
        (false, 24) => nettle_aes192_encrypt,
        _ => nettle_aes256_encrypt,
    }
}

// ------------------------------------------------------------------ the case

/// `sizeof(struct gcm_key)`, and where `struct gcm_aes*_ctx` keeps its `gcm_ctx` and cipher.
const GCM_KEY_BYTES: usize = 4096;
const GCM_CTX_BYTES: usize = 64;
const CIPHER_OFFSET: usize = GCM_KEY_BYTES + GCM_CTX_BYTES;
const MAX_MSGS: usize = 4;
const MAX_IV: usize = 80;
const MAX_AAD: usize = 700;
const MAX_DATA: usize = 3000;
const MAX_CALLS: usize = 12;

/// `sizeof(struct gcm_aes128_ctx)` … and `sizeof(struct gcm_aes_ctx)` (244-byte
/// `struct aes_ctx`, padded to the 8-byte alignment of `struct gcm_key`).
fn ctx_bytes(key_len: usize, aes_ctx: bool) -> usize {
    if aes_ctx {
        CIPHER_OFFSET + 248
    } else {
        CIPHER_OFFSET + 16 * (key_len / 4 + 7)
    }
}

#[derive(Clone, Copy, Default, PartialEq)]
enum Front {
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
const FRONTS: [Front; 4] = [
    Front::Aes,
    Front::OwnCipher,
    Front::NettleAes,
    Front::NettleAesSetKey,
];

#[derive(Clone, Default)]
struct MsgSpec {
    iv: Vec<u8>,
    aad_len: usize,
    data_len: usize,
    seed: u64,
    aad_calls: Vec<usize>,
    data_calls: Vec<usize>,
    decrypt: bool,
    in_place: bool,
    src_off: usize,
    dst_off: usize,
    digest_len: usize,
    /// Where to `memcpy` the context first, after the AAD: 0 = stay, 1/2 = to an address
    /// 0/8 past a multiple of 16.
    move_before: usize,
    move_mid: usize,
    /// Pass NULL for the pointers of zero-length calls (nettle allows it).
    null_empty: bool,
}

#[derive(Default)]
struct Spec {
    front: Front,
    /// `struct gcm_aes_ctx` (the deprecated any-size functions) instead of a fixed size.
    aes_ctx: bool,
    key: Vec<u8>,
    msgs: Vec<MsgSpec>,
}

impl Visit for MsgSpec {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        let mut iv_len = self.iv.len();
        let mut standard = iv_len == 12;
        c.bool(&mut standard);
        if standard {
            iv_len = 12;
        } else {
            c.range(&mut iv_len, 0, MAX_IV);
        }
        c.bytes(&mut self.iv, iv_len);
        c.length(&mut self.aad_len, MAX_AAD);
        c.length(&mut self.data_len, MAX_DATA);
        c.u64(&mut self.seed);
        c.block_chunks(&mut self.aad_calls, self.aad_len, MAX_CALLS);
        c.block_chunks(&mut self.data_calls, self.data_len, MAX_CALLS);
        c.bool(&mut self.decrypt);
        c.bool(&mut self.in_place);
        c.below(&mut self.src_off, 16);
        c.below(&mut self.dst_off, 16);
        c.range(&mut self.digest_len, 0, 16);
        c.below(&mut self.move_before, 3);
        c.below(&mut self.move_mid, 3);
        c.bool(&mut self.null_empty);
    }
}

impl Visit for Spec {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        c.pick(&mut self.front, &FRONTS);
        c.bool(&mut self.aes_ctx);
        let mut key_len = self.key.len();
        c.pick(&mut key_len, &[16, 24, 32]);
        c.bytes(&mut self.key, key_len);
        let mut n = self.msgs.len();
        c.range(&mut n, 1, MAX_MSGS);
        self.msgs.resize_with(n, MsgSpec::default);
        self.msgs.iter_mut().for_each(|m| m.visit(c));
    }
}

// ------------------------------------------------------------------ the contexts

/// The caller-owned memory of one keyed instance.
enum Inst {
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

enum Cipher {
    Own(Box<AnyAes>),
    /// A nettle AES context (`struct aes*_ctx` or `struct aes_ctx`).
    Nettle(Guarded),
}

fn offset(sel: usize) -> usize {
    8 * (sel - 1)
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
    fn new(s: &Spec) -> Inst {
        let key_len = s.key.len();
        let generic = s.front == Front::NettleAes;
        let (cipher, f) = match s.front {
            Front::Aes | Front::NettleAes => {
                let ctx = keyed_ctx(&s.key, s.aes_ctx);
                return Inst::Ctx {
                    ctx,
                    key_len,
                    aes_ctx: s.aes_ctx,
                    generic,
                };
            }
            Front::OwnCipher => (
                Cipher::Own(Box::new(AnyAes::new(&s.key))),
                own_aes as CipherFn,
            ),
            Front::NettleAesSetKey => {
                let ctx = keyed_ctx(&s.key, s.aes_ctx);
                let schedule = Guarded::new(&ctx.bytes()[CIPHER_OFFSET..], 0);
                (Cipher::Nettle(schedule), nettle_aes_fn(key_len, s.aes_ctx))
            }
        };
        let mut key = Guarded::filled(GCM_KEY_BYTES, 0x5a, 0);
        let ctx = Guarded::filled(GCM_CTX_BYTES, 0x5a, 0);
        let c = cipher_ptr(&cipher);
        // SAFETY: a 4096-byte gcm_key; `c` is what `f` expects.
        unsafe { nettle_gcm_set_key(key.mut_ptr() as *mut c_void, c, f) };
        key.check("gcm_set_key key");
        Inst::Split {
            key,
            ctx,
            cipher,
            f,
        }
    }

    /// `memcpy`s the caller memory to fresh buffers at offset `off` from 16-alignment.
    fn relocate(&mut self, off: usize) {
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

    fn check(&self, what: &str) {
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

    fn set_iv(&mut self, len: usize, iv: *const u8) {
        // SAFETY (all calls below): contexts keyed by `new`; `len` bytes at each pointer.
        if let Some((f, ctx)) = self.aes_family() {
            return unsafe { (f.set_iv)(ctx, len, iv) };
        }
        let (ctx, key, _, _) = self.generic();
        unsafe { nettle_gcm_set_iv(ctx, key, len, iv) }
    }

    fn update(&mut self, len: usize, data: *const u8) {
        if let Some((f, ctx)) = self.aes_family() {
            return unsafe { (f.update)(ctx, len, data) };
        }
        let (ctx, key, _, _) = self.generic();
        unsafe { nettle_gcm_update(ctx, key, len, data) }
    }

    fn crypt(&mut self, decrypt: bool, len: usize, dst: *mut u8, src: *const u8) {
        if let Some((f, ctx)) = self.aes_family() {
            let op = if decrypt { f.decrypt } else { f.encrypt };
            return unsafe { op(ctx, len, dst, src) };
        }
        let (ctx, key, cipher, cf) = self.generic();
        let op = if decrypt {
            nettle_gcm_decrypt
        } else {
            nettle_gcm_encrypt
        };
        unsafe { op(ctx, key, cipher, cf, len, dst, src) }
    }

    fn digest(&mut self, len: usize, out: *mut u8) {
        if let Some((f, ctx)) = self.aes_family() {
            return unsafe { (f.digest)(ctx, len, out) };
        }
        let (ctx, key, cipher, cf) = self.generic();
        unsafe { nettle_gcm_digest(ctx, key, cipher, cf, len, out) }
    }
}

fn cipher_ptr(c: &Cipher) -> *const c_void {
    match c {
        Cipher::Own(a) => &**a as *const AnyAes as *const c_void,
        Cipher::Nettle(g) => g.ptr() as *const c_void,
    }
}

// ------------------------------------------------------------------ the model

/// Output and full tag of one message, from the Rust API (or `aes-gcm` for the empty IV).
fn model(key: &[u8], m: &MsgSpec, aad: &[u8], input: &[u8]) -> (Vec<u8>, [u8; 16]) {
    if m.iv.is_empty() {
        // CTR is its own inverse; the tag is over the ciphertext.
        let (out, tag) = oracle::seal(key, &m.iv, aad, input).expect("aes-gcm covers the empty IV");
        if !m.decrypt {
            return (out, tag);
        }
        let (_, tag) = oracle::seal(key, &m.iv, aad, &out).expect("aes-gcm covers the empty IV");
        return (out, tag);
    }
    let k = Key::with_backend(key, BackendId::Soft).expect("soft key");
    let mut msg = Message::new(&k, &m.iv).expect("IV of 1+ bytes");
    msg.aad(&k, aad).expect("aad");
    let mut out = input.to_vec();
    if m.decrypt {
        msg.decrypt(&k, &mut out).expect("decrypt");
    } else {
        msg.encrypt(&k, &mut out).expect("encrypt");
    }
    let mut tag = [0u8; 16];
    msg.tag(&k, &mut tag).expect("tag");
    (out, tag)
}

fn ptr_or_null(p: *const u8, len: usize, null_empty: bool) -> *const u8 {
    if len == 0 && null_empty {
        null()
    } else {
        p
    }
}

fn message(inst: &mut Inst, key: &[u8], m: &MsgSpec) {
    if m.move_before > 0 {
        inst.relocate(offset(m.move_before));
    }
    let iv = Guarded::new(&m.iv, m.src_off);
    inst.set_iv(m.iv.len(), ptr_or_null(iv.ptr(), m.iv.len(), m.null_empty));
    iv.check("IV");
    let aad_bytes = filled(m.seed, m.aad_len);
    let aad = Guarded::new(&aad_bytes, m.src_off);
    let mut pos = 0;
    for &n in &m.aad_calls {
        // SAFETY: `pos + n` ≤ the AAD's length.
        let p = unsafe { aad.ptr().add(pos) };
        inst.update(n, ptr_or_null(p, n, m.null_empty));
        pos += n;
    }
    aad.check("AAD");
    if m.move_mid > 0 {
        inst.relocate(offset(m.move_mid));
    }
    let input = filled(!m.seed, m.data_len);
    let src = (!m.in_place).then(|| Guarded::new(&input, m.src_off));
    let mut dst = if m.in_place {
        Guarded::new(&input, m.dst_off)
    } else {
        Guarded::filled(m.data_len, 0xc3, m.dst_off)
    };
    let mut pos = 0;
    for &n in &m.data_calls {
        // SAFETY: `pos + n` ≤ the data's length in both buffers.
        let (d, s) = unsafe {
            let d = dst.mut_ptr().add(pos);
            (d, src.as_ref().map_or(d as *const u8, |s| s.ptr().add(pos)))
        };
        let d = ptr_or_null(d, n, m.null_empty) as *mut u8;
        inst.crypt(m.decrypt, n, d, ptr_or_null(s, n, m.null_empty));
        pos += n;
    }
    let mut digest = Guarded::filled(m.digest_len, 0x99, m.dst_off);
    let dp = ptr_or_null(digest.mut_ptr(), m.digest_len, m.null_empty) as *mut u8;
    inst.digest(m.digest_len, dp);
    inst.check("context");
    dst.check("destination");
    digest.check("digest");
    if let Some(s) = &src {
        s.check("source");
        assert!(s.bytes() == input, "the source was modified");
    }
    let (want, tag) = model(key, m, &aad_bytes, &input);
    assert!(
        dst.bytes() == want,
        "{} output differs from the Rust API",
        if m.decrypt { "decrypt" } else { "encrypt" }
    );
    assert_eq!(
        hex(digest.bytes()),
        hex(&tag[..m.digest_len]),
        "digest differs from the Rust API's tag"
    );
}

/// Whether the library's `dlsym` lookup sees this binary's nettle AES functions (else the
/// recognised-AES fronts would silently test the generic path only).
fn nettle_aes_visible() -> bool {
    static SEEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SEEN.get_or_init(|| {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"nettle_aes128_encrypt".as_ptr()) };
        core::ptr::eq(p, nettle_aes128_encrypt as *const c_void)
    })
}

fn run(data: &[u8]) {
    assert!(
        nettle_aes_visible(),
        "nettle_aes128_encrypt is not exported (see build.rs)"
    );
    let s = Spec::decode(data);
    let mut inst = Inst::new(&s);
    let calls = || NETTLE_AES_CALLS.load(Ordering::Relaxed);
    let before = calls();
    for m in &s.msgs {
        message(&mut inst, &s.key, m);
    }
    if s.front != Front::OwnCipher {
        assert_eq!(
            calls(),
            before,
            "the library called nettle's AES instead of recognising it"
        );
    }
}

fn msg(
    iv_len: usize,
    aad_calls: &[usize],
    data_calls: &[usize],
    decrypt: bool,
    k: usize,
) -> MsgSpec {
    MsgSpec {
        iv: filled(k as u64, iv_len),
        aad_len: aad_calls.iter().sum(),
        data_len: data_calls.iter().sum(),
        seed: k as u64,
        aad_calls: aad_calls.to_vec(),
        data_calls: data_calls.to_vec(),
        decrypt,
        in_place: k % 2 == 1,
        src_off: k * 5 % 16,
        dst_off: k * 3 % 16,
        digest_len: [16, 12, 8, 4, 16, 0, 1, 15][k % 8],
        move_before: k % 3,
        move_mid: (k / 3) % 3,
        null_empty: k.is_multiple_of(4),
    }
}

/// Every front and key size with two messages each (shapes rotating through IV lengths
/// 0/1/12/16/80, empty and block-split AAD and data, both directions, every relocation).
fn seeds() -> Seeds {
    let shapes: [(usize, &[usize], &[usize]); 8] = [
        (12, &[], &[]),
        (12, &[16, 4], &[32, 17]),
        (1, &[0, 20], &[5]),
        (0, &[48], &[16, 0, 16, 100]),
        (16, &[], &[2048, 952]),
        (80, &[700], &[1]),
        (12, &[32, 32, 3], &[64, 64, 64, 64, 15]),
        (60, &[15], &[256, 256, 512, 7]),
    ];
    let mut out = Vec::new();
    let mut k = 0;
    for front in FRONTS {
        for key_len in [16, 24, 32] {
            for aes_ctx in [false, true] {
                if aes_ctx && front == Front::OwnCipher {
                    continue;
                }
                k += 1;
                let msgs = (0..2)
                    .map(|i| {
                        let (iv, aad, data) = shapes[(k + 3 * i) % shapes.len()];
                        msg(iv, aad, data, (k + i) % 2 == 1, k + i)
                    })
                    .collect();
                let mut spec = Spec {
                    front,
                    aes_ctx,
                    key: filled(k as u64, key_len),
                    msgs,
                };
                let name = format!(
                    "{}-{}-k{key_len}",
                    [
                        "aes-functions",
                        "own-cipher",
                        "generic-nettle-aes",
                        "set-key-nettle-aes"
                    ][front as usize],
                    if aes_ctx { "aes_ctx" } else { "fixed" }
                );
                out.push((name, spec.encode()));
            }
        }
    }
    out
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
