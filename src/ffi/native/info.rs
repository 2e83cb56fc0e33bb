//! What the library says about itself: error descriptions, the backends, the version.

use super::*;
use crate::cpu;
use crate::error::Error;
use core::ffi::c_char;

/// A static English description of an error code (never NULL).
#[no_mangle]
pub extern "C" fn sgcm_strerror(err: sgcm_error_t) -> *const c_char {
    let s = if err == SGCM_ERR_NO_ERROR {
        "Success\0"
    } else {
        Error::ALL
            .iter()
            .find(|e| e.code() == err)
            .map(|e| e.message_nul())
            .unwrap_or("Unknown error code\0")
    };
    s.as_ptr() as *const c_char
}

/// Name of the backend new keys use (e.g. "aarch64-ce", "soft"), or NULL when
/// `STITCHGCM_IMPL` names an unknown or unavailable backend.
#[no_mangle]
pub extern "C" fn sgcm_impl_name() -> *const c_char {
    match cpu::selected() {
        Ok(id) => id.name_nul().as_ptr(),
        Err(_) => core::ptr::null(),
    }
}

/// The `index`-th backend this CPU can run, best first; NULL past the end.
/// Any of these names may be forced with `STITCHGCM_IMPL=<name>`.
#[no_mangle]
pub extern "C" fn sgcm_impl_available(index: usize) -> *const c_char {
    match cpu::available().get(index) {
        Some(id) => id.name_nul().as_ptr(),
        None => core::ptr::null(),
    }
}

/// The library version, e.g. "0.1.0".
#[no_mangle]
pub extern "C" fn sgcm_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_constants_match_the_error_enum() {
        let pairs = [
            (SGCM_ERR_CHECKSUM, Error::TagMismatch),
            (SGCM_ERR_CIPHER_ALGO, Error::CipherAlgo),
            (SGCM_ERR_INV_KEYLEN, Error::InvalidKeyLength),
            (SGCM_ERR_INV_ARG, Error::InvalidArgument),
            (SGCM_ERR_NOT_SUPPORTED, Error::NotSupported),
            (SGCM_ERR_INV_CIPHER_MODE, Error::InvalidMode),
            (SGCM_ERR_INV_LENGTH, Error::InvalidLength),
            (SGCM_ERR_INV_STATE, Error::InvalidState),
            (SGCM_ERR_MISSING_KEY, Error::MissingKey),
            (SGCM_ERR_LIMIT_REACHED, Error::LimitReached),
            (SGCM_ERR_BUFFER_TOO_SHORT, Error::BufferTooShort),
        ];
        assert_eq!(pairs.len(), Error::ALL.len());
        for (c, e) in pairs {
            assert_eq!(c, e.code(), "{e:?}");
        }
    }
}
