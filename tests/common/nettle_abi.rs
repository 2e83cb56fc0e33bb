//! The nettle ABI that libstitchgcm exports (`#[no_mangle]` functions of src/ffi/nettle/,
//! not public Rust items), declared for the tests that call it directly: the Rust twin of
//! c-tests/nettle_abi.h. Contexts are nettle's structs, passed as untyped pointers.
#![allow(dead_code)] // each test binary uses part of it

use core::ffi::c_void;

/// nettle's `nettle_cipher_func`: ECB over `length` bytes of `src` into `dst`.
pub type NettleCipherFn = unsafe extern "C" fn(*const c_void, usize, *mut u8, *const u8);

extern "C" {
    pub fn nettle_gcm_set_key(key: *mut c_void, cipher: *const c_void, f: Option<NettleCipherFn>);
    pub fn nettle_gcm_set_iv(ctx: *mut c_void, key: *const c_void, length: usize, iv: *const u8);
    pub fn nettle_gcm_update(ctx: *mut c_void, key: *const c_void, length: usize, data: *const u8);
    pub fn nettle_gcm_encrypt(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: Option<NettleCipherFn>,
        length: usize,
        dst: *mut u8,
        src: *const u8,
    );
    pub fn nettle_gcm_decrypt(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: Option<NettleCipherFn>,
        length: usize,
        dst: *mut u8,
        src: *const u8,
    );
    pub fn nettle_gcm_digest(
        ctx: *mut c_void,
        key: *const c_void,
        cipher: *const c_void,
        f: Option<NettleCipherFn>,
        length: usize,
        digest: *mut u8,
    );
    pub fn nettle_gcm_aes_set_key(ctx: *mut c_void, length: usize, key: *const u8);
}

macro_rules! fixed {
    ($($set_key:ident $set_iv:ident $update:ident $encrypt:ident $decrypt:ident $digest:ident;)*) => {
        extern "C" {$(
            pub fn $set_key(ctx: *mut c_void, key: *const u8);
            pub fn $set_iv(ctx: *mut c_void, length: usize, iv: *const u8);
            pub fn $update(ctx: *mut c_void, length: usize, data: *const u8);
            pub fn $encrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8);
            pub fn $decrypt(ctx: *mut c_void, length: usize, dst: *mut u8, src: *const u8);
            pub fn $digest(ctx: *mut c_void, length: usize, digest: *mut u8);
        )*}
    };
}

fixed! {
    nettle_gcm_aes128_set_key nettle_gcm_aes128_set_iv nettle_gcm_aes128_update
        nettle_gcm_aes128_encrypt nettle_gcm_aes128_decrypt nettle_gcm_aes128_digest;
    nettle_gcm_aes192_set_key nettle_gcm_aes192_set_iv nettle_gcm_aes192_update
        nettle_gcm_aes192_encrypt nettle_gcm_aes192_decrypt nettle_gcm_aes192_digest;
    nettle_gcm_aes256_set_key nettle_gcm_aes256_set_iv nettle_gcm_aes256_update
        nettle_gcm_aes256_encrypt nettle_gcm_aes256_decrypt nettle_gcm_aes256_digest;
}
