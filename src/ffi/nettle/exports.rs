//! The exported nettle functions: the generic `gcm_*` (any block cipher) and the AES ones
//! (`gcm_aes{128,192,256}_*` and the deprecated `gcm_aes_*`), each a thin wrapper that
//! names the caller's structs and hands them to the operations of `ops.rs`.

use super::ops::*;
use super::*;

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
        let mut raw = unsafe { raw_key(view) };
        let mut ours = unsafe { set_aes_key(FUNC, gk, &raw[..view.key_len], view) };
        let genuine = ct_eq(&ours, &h);
        wipe_bytes(&mut ours);
        wipe_bytes(&mut raw);
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
        set_iv(
            "nettle_gcm_set_iv",
            ctx as *mut u8,
            0,
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
    let op = Update { len: length, data };
    // SAFETY: nettle's contract for the arguments.
    unsafe { ghash_call("nettle_gcm_update", ctx as *mut u8, 0, key as *const u8, op) }
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
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        named_crypt(
            "nettle_gcm_encrypt",
            Direction::Encrypt,
            ctx as *mut u8,
            key as *const u8,
            cipher,
            f,
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
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        named_crypt(
            "nettle_gcm_decrypt",
            Direction::Decrypt,
            ctx as *mut u8,
            key as *const u8,
            cipher,
            f,
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
    let op = Digest {
        len: length,
        out: digest,
    };
    // SAFETY: nettle's contract for the arguments.
    unsafe {
        named_digest(
            "nettle_gcm_digest",
            ctx as *mut u8,
            key as *const u8,
            cipher,
            f,
            op,
        )
    }
}

// ------------------------------------------------------------------ gcm_aes{128,192,256}_* and gcm_aes_*

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
            unsafe { set_iv(stringify!($set_iv), ctx, GCM_CTX_OFFSET, ctx, length, iv) }
        }

        #[doc = concat!("`void ", stringify!($update), "(ctx, size_t length, const uint8_t *data)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $update(ctx: *mut c_void, length: usize, data: *const u8) {
            let ctx = ctx as *mut u8;
            // GHASH only, which our key does with the set-key-time H whatever the
            // cipher context holds now: no schedule check.
            // SAFETY: as above.
            unsafe { ghash_call(stringify!($update), ctx, GCM_CTX_OFFSET, ctx, Update { len: length, data }) }
        }

        #[doc = concat!("`void ", stringify!($encrypt), "(ctx, size_t length, uint8_t *dst, const uint8_t *src)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $encrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8) {
            const FUNC: &str = stringify!($encrypt);
            // SAFETY: as above; the cipher context is at 4160.
            unsafe { aes_call(FUNC, ctx as *mut u8, $layout, Crypt { dir: Direction::Encrypt, len: length, dst, src }) }
        }

        #[doc = concat!("`void ", stringify!($decrypt), "(ctx, size_t length, uint8_t *dst, const uint8_t *src)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $decrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8) {
            const FUNC: &str = stringify!($decrypt);
            // SAFETY: as above.
            unsafe { aes_call(FUNC, ctx as *mut u8, $layout, Crypt { dir: Direction::Decrypt, len: length, dst, src }) }
        }

        #[doc = concat!("`void ", stringify!($digest), "(ctx, size_t length, uint8_t *digest)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $digest(ctx: *mut c_void, length: usize, digest: *mut u8) {
            const FUNC: &str = stringify!($digest);
            // SAFETY: as above.
            unsafe { aes_digest(FUNC, ctx as *mut u8, $layout, Digest { len: length, out: digest }) }
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
        let mut digits = [0u8; 20];
        let digits = crate::panic::decimal(length as u64, &mut digits);
        die_parts(
            FUNC,
            &[
                b"invalid AES key length ",
                digits,
                b" (must be 16, 24 or 32)",
            ],
        );
    }
    // SAFETY: nettle's contract: a `struct gcm_aes_ctx` and `length` key bytes.
    unsafe { aes_set_key(FUNC, ctx as *mut u8, Layout::AesCtx, key, length) }
}
