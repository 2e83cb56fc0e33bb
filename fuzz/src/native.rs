//! The native C API (`include/stitchgcm.h`) as the fuzz targets call it: through the C
//! symbols the library exports, not through Rust paths, so the targets see exactly what
//! a C caller sees. The codes are the header's `SGCM_ERR_*`.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_uint, c_void};

pub type sgcm_error_t = c_uint;
pub type Handle = *mut c_void;

pub const OK: sgcm_error_t = 0;
pub const CHECKSUM: sgcm_error_t = 10;
pub const CIPHER_ALGO: sgcm_error_t = 12;
pub const INV_KEYLEN: sgcm_error_t = 44;
pub const INV_ARG: sgcm_error_t = 45;
pub const NOT_SUPPORTED: sgcm_error_t = 60;
pub const INV_OP: sgcm_error_t = 61;
pub const INV_CIPHER_MODE: sgcm_error_t = 71;
pub const INV_LENGTH: sgcm_error_t = 139;
pub const INV_STATE: sgcm_error_t = 156;
pub const MISSING_KEY: sgcm_error_t = 181;
pub const BUFFER_TOO_SHORT: sgcm_error_t = 200;

/// Every code the header documents.
pub const ALL_CODES: [sgcm_error_t; 12] = [
    OK,
    CHECKSUM,
    CIPHER_ALGO,
    INV_KEYLEN,
    INV_ARG,
    NOT_SUPPORTED,
    INV_OP,
    INV_CIPHER_MODE,
    INV_LENGTH,
    INV_STATE,
    MISSING_KEY,
    BUFFER_TOO_SHORT,
];

pub const AES128: c_int = 7;
pub const AES192: c_int = 8;
pub const AES256: c_int = 9;
pub const MODE_GCM: c_int = 9;
/// `SGCM_MODE_RFC4106`: such handles open, but are not modelled by `native_handle`
/// (`tests/rfc4106_*.rs` and `c-tests/test_rfc4106.c` cover them).
pub const MODE_RFC4106: c_int = 4106;
/// The open flags libgcrypt defines (SECURE, ENABLE_SYNC, CBC_CTS, CBC_MAC, EXTENDED).
pub const KNOWN_FLAGS: c_uint = 0x1f;

extern "C" {
    pub fn sgcm_cipher_open(
        hd: *mut Handle,
        algo: c_int,
        mode: c_int,
        flags: c_uint,
    ) -> sgcm_error_t;
    pub fn sgcm_cipher_close(h: Handle);
    pub fn sgcm_cipher_setkey(h: Handle, key: *const c_void, keylen: usize) -> sgcm_error_t;
    pub fn sgcm_cipher_setiv(h: Handle, iv: *const c_void, ivlen: usize) -> sgcm_error_t;
    pub fn sgcm_cipher_authenticate(h: Handle, aad: *const c_void, len: usize) -> sgcm_error_t;
    pub fn sgcm_cipher_encrypt(
        h: Handle,
        out: *mut c_void,
        outsize: usize,
        in_: *const c_void,
        inlen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_cipher_decrypt(
        h: Handle,
        out: *mut c_void,
        outsize: usize,
        in_: *const c_void,
        inlen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_cipher_gettag(h: Handle, tag: *mut c_void, taglen: usize) -> sgcm_error_t;
    pub fn sgcm_cipher_checktag(h: Handle, tag: *const c_void, taglen: usize) -> sgcm_error_t;
    pub fn sgcm_cipher_reset(h: Handle) -> sgcm_error_t;
    pub fn sgcm_seal(
        key: *const c_void,
        keylen: usize,
        iv: *const c_void,
        ivlen: usize,
        aad: *const c_void,
        aadlen: usize,
        in_: *const c_void,
        len: usize,
        out: *mut c_void,
        tag: *mut c_void,
        taglen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_open(
        key: *const c_void,
        keylen: usize,
        iv: *const c_void,
        ivlen: usize,
        aad: *const c_void,
        aadlen: usize,
        in_: *const c_void,
        len: usize,
        out: *mut c_void,
        tag: *const c_void,
        taglen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_aead_seal(
        h: Handle,
        iv: *const c_void,
        ivlen: usize,
        aad: *const c_void,
        aadlen: usize,
        in_: *const c_void,
        len: usize,
        out: *mut c_void,
        tag: *mut c_void,
        taglen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_aead_open(
        h: Handle,
        iv: *const c_void,
        ivlen: usize,
        aad: *const c_void,
        aadlen: usize,
        in_: *const c_void,
        len: usize,
        out: *mut c_void,
        tag: *const c_void,
        taglen: usize,
    ) -> sgcm_error_t;
    pub fn sgcm_strerror(err: sgcm_error_t) -> *const c_char;
    pub fn sgcm_impl_name() -> *const c_char;
}

/// The codes a call may return: success alone when nothing is wrong with it, otherwise
/// any code for one of the things wrong with it (the header does not rank them).
#[derive(Default)]
pub struct Expect {
    violated: Vec<sgcm_error_t>,
}

impl Expect {
    /// Records `code` as acceptable when `cond` holds.
    pub fn unless(&mut self, cond: bool, code: sgcm_error_t) -> &mut Self {
        if !cond {
            self.violated.push(code);
        }
        self
    }

    /// Records any of `codes` as acceptable when `cond` does not hold.
    pub fn unless_any(&mut self, cond: bool, codes: &[sgcm_error_t]) -> &mut Self {
        if !cond {
            self.violated.extend_from_slice(codes);
        }
        self
    }

    /// The rule of every call that uses the message: a key (no key is `INV_STATE` or
    /// `MISSING_KEY`, the header leaves it open) and an IV. Only for a live handle.
    pub fn needs_message(&mut self, live: bool, has_key: bool, has_msg: bool) -> &mut Self {
        self.unless_any(!live || has_key, &[INV_STATE, MISSING_KEY])
            .unless(!live || has_msg, INV_STATE)
    }

    /// Whether the call is valid (no rule broken).
    pub fn valid(&self) -> bool {
        self.violated.is_empty()
    }

    /// Asserts `got` is a documented code with a description, and one this call may give.
    pub fn check(&self, what: &str, got: sgcm_error_t) {
        self.check_model(what, got, OK)
    }

    /// [`Expect::check`] where a valid call must return `model` (the Rust API's answer).
    pub fn check_model(&self, what: &str, got: sgcm_error_t, model: sgcm_error_t) {
        if crate::tracing() {
            eprintln!(
                "{what} -> {got} (allowed: {:?})",
                if self.valid() {
                    vec![model]
                } else {
                    self.violated.clone()
                }
            );
        }
        assert!(ALL_CODES.contains(&got), "{what}: undocumented code {got}");
        // SAFETY: sgcm_strerror takes any value and returns a static string.
        assert!(
            !unsafe { sgcm_strerror(got) }.is_null(),
            "{what}: sgcm_strerror({got}) is NULL"
        );
        if self.valid() {
            assert!(
                got == model,
                "{what}: returned {got}, the model says {model}"
            );
        } else {
            assert!(
                self.violated.contains(&got),
                "{what}: returned {got}, expected one of {:?}",
                self.violated
            );
        }
    }
}

/// The code of a Rust API result.
pub fn code(r: Result<(), stitchgcm::Error>) -> sgcm_error_t {
    match r {
        Ok(()) => OK,
        Err(e) => e.code(),
    }
}
