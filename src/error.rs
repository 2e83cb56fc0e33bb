//! Error values. Each equals libgcrypt's gpg-error code for the same condition (the code
//! part only, without gpg-error's source bits), so that a libgcrypt-compatible front-end
//! maps them one to one and C callers used to `gcry_err_code()` see familiar numbers.

use core::fmt;

#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// GPG_ERR_CHECKSUM: the authentication tag does not match.
    TagMismatch = 10,
    /// GPG_ERR_CIPHER_ALGO: unknown algorithm (or, as in libgcrypt, unknown open flags).
    CipherAlgo = 12,
    /// GPG_ERR_INV_KEYLEN: the key length does not fit the algorithm.
    InvalidKeyLength = 44,
    /// GPG_ERR_INV_ARG: a NULL pointer or an argument that makes no sense.
    InvalidArgument = 45,
    /// GPG_ERR_NOT_SUPPORTED: the implementation forced by `STITCHGCM_IMPL` is unknown or
    /// cannot run on this CPU.
    NotSupported = 60,
    /// GPG_ERR_INV_CIPHER_MODE: the mode is not GCM or RFC 4106, or the call does not
    /// exist for the handle's mode.
    InvalidMode = 71,
    /// GPG_ERR_INV_LENGTH: IV or tag length not allowed, or a GCM length limit exceeded.
    InvalidLength = 139,
    /// GPG_ERR_INV_STATE: call out of order (AAD after data, data after the tag, no IV).
    InvalidState = 156,
    /// GPG_ERR_MISSING_KEY: data operation before a key was set.
    MissingKey = 181,
    /// GPG_ERR_LIMIT_REACHED: an IV generator has handed out every value it has.
    LimitReached = 183,
    /// GPG_ERR_BUFFER_TOO_SHORT: the output buffer is shorter than the input.
    BufferTooShort = 200,
}

impl Error {
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// NUL-terminated description, shared with `sgcm_strerror`.
    pub(crate) const fn message_nul(self) -> &'static str {
        match self {
            Error::TagMismatch => "Checksum error (authentication tag mismatch)\0",
            Error::CipherAlgo => "Invalid cipher algorithm\0",
            Error::InvalidKeyLength => "Invalid key length\0",
            Error::InvalidArgument => "Invalid argument\0",
            Error::NotSupported => {
                "Not supported (STITCHGCM_IMPL names an unknown or unavailable implementation)\0"
            }
            Error::InvalidMode => "Invalid cipher mode\0",
            Error::InvalidLength => "Invalid length\0",
            Error::InvalidState => "Invalid state (call out of order or no IV set)\0",
            Error::MissingKey => "Missing key\0",
            Error::LimitReached => "Limit reached (IV generator exhausted)\0",
            Error::BufferTooShort => "Buffer too short\0",
        }
    }

    pub fn message(self) -> &'static str {
        let m = self.message_nul();
        &m[..m.len() - 1]
    }

    pub(crate) const ALL: [Error; 11] = [
        Error::TagMismatch,
        Error::CipherAlgo,
        Error::InvalidKeyLength,
        Error::InvalidArgument,
        Error::NotSupported,
        Error::InvalidMode,
        Error::InvalidLength,
        Error::InvalidState,
        Error::MissingKey,
        Error::LimitReached,
        Error::BufferTooShort,
    ];
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}
