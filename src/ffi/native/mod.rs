//! The native C API (`sgcm_*`), shaped like libgcrypt's cipher handles.
//!
//! Every function validates its pointers and lengths and returns an error code (the
//! numbers of libgcrypt's gpg-error codes, without source bits); none of them aborts or
//! reads outside the buffers it is given. `sgcm_cipher_reset` ends the message and keeps
//! the key, as `gcry_cipher_reset` does; `sgcm_cipher_close` wipes everything. The
//! differences from libgcrypt that remain, on purpose, are listed in the header
//! (cbindgen.toml): no implicit IV, key length fixed by the algorithm, setkey ends the
//! message, no answers to misuse that libgcrypt only gives by accident. Handles opened
//! with `SGCM_MODE_RFC4106` take the same calls with IPsec ESP's framing; each call hands
//! them to `rfc4106.rs`.
#![allow(non_camel_case_types)]

use super::rfc4106::{Rfc4106State, SGCM_MODE_RFC4106};
use crate::cpu;
use crate::error::Error;
use crate::gcm::{self, Direction};
use crate::gcm::{Key, Message};
use core::ffi::{c_int, c_uint, c_void};

mod copy;
mod info;
mod oneshot;

pub use info::*;
pub use oneshot::*;
pub(in crate::ffi) use oneshot::{one_shot_io, output, tag_out};

/// Error code: 0 on success, otherwise one of the `SGCM_ERR_*` values.
pub type sgcm_error_t = c_uint;

/// Success.
pub const SGCM_ERR_NO_ERROR: sgcm_error_t = 0;
/// The authentication tag does not match (gpg-error GPG_ERR_CHECKSUM).
pub const SGCM_ERR_CHECKSUM: sgcm_error_t = 10;
/// Unknown algorithm or open flags (GPG_ERR_CIPHER_ALGO).
pub const SGCM_ERR_CIPHER_ALGO: sgcm_error_t = 12;
/// Key length does not fit the algorithm (GPG_ERR_INV_KEYLEN).
pub const SGCM_ERR_INV_KEYLEN: sgcm_error_t = 44;
/// NULL pointer or meaningless argument (GPG_ERR_INV_ARG).
pub const SGCM_ERR_INV_ARG: sgcm_error_t = 45;
/// `STITCHGCM_IMPL` names an unknown or unavailable backend (GPG_ERR_NOT_SUPPORTED).
pub const SGCM_ERR_NOT_SUPPORTED: sgcm_error_t = 60;
/// Mode is not GCM (GPG_ERR_INV_CIPHER_MODE).
pub const SGCM_ERR_INV_CIPHER_MODE: sgcm_error_t = 71;
/// Bad IV or tag length, or a GCM length limit exceeded (GPG_ERR_INV_LENGTH).
pub const SGCM_ERR_INV_LENGTH: sgcm_error_t = 139;
/// Call out of order: AAD after data, data after the tag, no IV (GPG_ERR_INV_STATE).
pub const SGCM_ERR_INV_STATE: sgcm_error_t = 156;
/// Encrypt or decrypt before a key was set (GPG_ERR_MISSING_KEY).
pub const SGCM_ERR_MISSING_KEY: sgcm_error_t = 181;
/// The IV generator has handed out every IV it has (GPG_ERR_LIMIT_REACHED).
pub const SGCM_ERR_LIMIT_REACHED: sgcm_error_t = 183;
/// Output buffer shorter than the input (GPG_ERR_BUFFER_TOO_SHORT).
pub const SGCM_ERR_BUFFER_TOO_SHORT: sgcm_error_t = 200;

/// AES with a 128-bit key (same number as GCRY_CIPHER_AES128).
pub const SGCM_CIPHER_AES128: c_int = 7;
/// AES with a 192-bit key (GCRY_CIPHER_AES192).
pub const SGCM_CIPHER_AES192: c_int = 8;
/// AES with a 256-bit key (GCRY_CIPHER_AES256).
pub const SGCM_CIPHER_AES256: c_int = 9;
/// Galois/Counter Mode (GCRY_CIPHER_MODE_GCM).
pub const SGCM_MODE_GCM: c_int = 9;
/// Accepted for libgcrypt compatibility; state is always wiped anyway (GCRY_CIPHER_SECURE).
pub const SGCM_FLAG_SECURE: c_uint = 1;
/// Length of a full GCM tag in bytes.
pub const SGCM_TAG_LEN: usize = 16;

const MAGIC_OPEN: u32 = 0x5347_434d; // "SGCM"
/// An open GCM handle (not RFC 4106) with a key: what the per-record fast paths look for,
/// one compare instead of three checks (`sgcm_cipher_setkey` sets it once the key is in).
const MAGIC_KEYED: u32 = 0x5347_434b; // "SGCK"
const MAGIC_CLOSED: u32 = 0xdead_5347;

/// Whether `magic` is that of an open handle, keyed or not.
fn is_open(magic: u32) -> bool {
    magic == MAGIC_OPEN || magic == MAGIC_KEYED
}
/// libgcrypt accepts SECURE, ENABLE_SYNC, CBC_CTS, CBC_MAC and EXTENDED; none matters
/// for GCM, so they are accepted and ignored here too.
const KNOWN_FLAGS: c_uint = 0x1f;

/// An open cipher handle (opaque to C).
pub struct sgcm_cipher_handle {
    magic: u32,
    key_len: usize,
    key: Option<Key>,
    msg: Message,
    /// `SGCM_MODE_RFC4106` handles: their key, packet and IV generator (`key` and `msg`
    /// stay unused).
    pub(super) rfc4106: Option<Box<Rfc4106State>>,
}

/// Handle type, as `gcry_cipher_hd_t`.
pub type sgcm_cipher_hd_t = *mut sgcm_cipher_handle;

pub(super) fn status(r: Result<(), Error>) -> sgcm_error_t {
    match r {
        Ok(()) => SGCM_ERR_NO_ERROR,
        Err(e) => e.code(),
    }
}

/// # Safety
/// `h` is NULL or a pointer returned by `sgcm_cipher_open` and not yet closed.
pub(super) unsafe fn handle<'a>(h: sgcm_cipher_hd_t) -> Result<&'a mut sgcm_cipher_handle, Error> {
    if h.is_null() {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: non-NULL and, by the caller's contract, a live handle from `open`.
    let h = unsafe { &mut *h };
    if !is_open(h.magic) {
        return Err(Error::InvalidArgument);
    }
    Ok(h)
}

/// Shared access to a handle (the one-shot calls, which may run concurrently).
///
/// # Safety
/// `h` is NULL or a pointer returned by `sgcm_cipher_open` and not yet closed.
pub(super) unsafe fn handle_ref<'a>(h: sgcm_cipher_hd_t) -> Result<&'a sgcm_cipher_handle, Error> {
    if h.is_null() {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: non-NULL and, by the caller's contract, a live handle from `open`.
    let h = unsafe { &*h };
    if !is_open(h.magic) {
        return Err(Error::InvalidArgument);
    }
    Ok(h)
}

/// The handle behind `h` when it is an open GCM handle with a key, for the fast paths of
/// the per-record calls (each of them falls back to its general path otherwise, which
/// then reports whatever is wrong).
///
/// # Safety
/// As for [`handle`].
#[inline(always)]
unsafe fn keyed_gcm<'a>(h: sgcm_cipher_hd_t) -> Option<(&'a Key, &'a mut Message)> {
    if h.is_null() {
        return None;
    }
    // SAFETY: non-NULL and, by the caller's contract, a live handle from `open`.
    let h = unsafe { &mut *h };
    if h.magic != MAGIC_KEYED {
        return None;
    }
    debug_assert!(h.key.is_some());
    // SAFETY: MAGIC_KEYED is stored only by `sgcm_cipher_setkey`, right after the key,
    // and only `sgcm_cipher_close` removes the key, after replacing the magic; so the key
    // is there (one test instead of two on every record).
    let key = unsafe { h.key.as_ref().unwrap_unchecked() };
    Some((key, &mut h.msg))
}

/// # Safety
/// `p` is NULL only when `len` is 0, else readable for `len` bytes.
pub(super) unsafe fn input<'a>(p: *const c_void, len: usize) -> Result<&'a [u8], Error> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: non-NULL and readable for `len` bytes by the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts(p as *const u8, len) })
}

/// Opens a handle for `algo` (`SGCM_CIPHER_AES128/192/256`) in `mode`: `SGCM_MODE_GCM`, or
/// `SGCM_MODE_RFC4106` (IPsec ESP: `setkey` takes the AES key of `algo` followed by the
/// 4-byte salt, `setiv` the 8-byte explicit IV, AAD 8 or 12 bytes, ICVs 8, 12 or 16; see
/// the RFC 4106 calls below). On failure `*hd` is set to NULL (when `hd` is not NULL).
/// Checked in this order, the first failure wins: `hd` NULL (`INV_ARG`), unknown `algo` or
/// `flags` (`CIPHER_ALGO`), `mode` (`INV_CIPHER_MODE`), `STITCHGCM_IMPL` unusable
/// (`NOT_SUPPORTED`).
///
/// # Safety
/// `hd` is NULL or valid for writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_open(
    hd: *mut sgcm_cipher_hd_t,
    algo: c_int,
    mode: c_int,
    flags: c_uint,
) -> sgcm_error_t {
    if hd.is_null() {
        return SGCM_ERR_INV_ARG;
    }
    // SAFETY: `hd` is non-NULL and writable by the caller's contract.
    unsafe { *hd = core::ptr::null_mut() };
    let key_len = match algo {
        SGCM_CIPHER_AES128 => 16,
        SGCM_CIPHER_AES192 => 24,
        SGCM_CIPHER_AES256 => 32,
        _ => return SGCM_ERR_CIPHER_ALGO,
    };
    if flags & !KNOWN_FLAGS != 0 {
        return SGCM_ERR_CIPHER_ALGO;
    }
    let rfc4106 = match mode {
        SGCM_MODE_GCM => None,
        SGCM_MODE_RFC4106 => Some(Box::default()),
        _ => return SGCM_ERR_INV_CIPHER_MODE,
    };
    if let Err(e) = cpu::selected() {
        return e.code();
    }
    let h = Box::new(sgcm_cipher_handle {
        magic: MAGIC_OPEN,
        key_len,
        key: None,
        msg: Message::idle(),
        rfc4106,
    });
    // SAFETY: as above.
    unsafe { *hd = Box::into_raw(h) };
    SGCM_ERR_NO_ERROR
}

/// Wipes key and message state and frees the handle. NULL is ignored.
///
/// # Safety
/// `h` is NULL or an open handle; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_close(h: sgcm_cipher_hd_t) {
    // SAFETY: forwarded contract.
    if let Ok(hr) = unsafe { handle(h) } {
        hr.magic = MAGIC_CLOSED;
        hr.key = None; // Key and Message wipe themselves on drop.
        hr.msg.end();
        hr.rfc4106 = None; // so do the RFC 4106 key, salt and packet
                           // SAFETY: `h` came from `Box::into_raw` in `sgcm_cipher_open` and is live.
        drop(unsafe { Box::from_raw(h) });
    }
}

/// Sets the key (16/24/32 bytes to match the algorithm; RFC 4106 handles: 20/28/36, the
/// AES key then the salt; else `SGCM_ERR_INV_KEYLEN`). Ends any message in progress.
/// Checked in this order: handle (`INV_ARG`; also for a pointer that is not an open handle,
/// where recognisable), `key` NULL with `keylen` > 0 (`INV_ARG`), `keylen` (`INV_KEYLEN`,
/// also for 0). A refused call changes nothing: the previous key and message stay.
///
/// # Safety
/// `h` is an open handle; `key` is readable for `keylen` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_setkey(
    h: sgcm_cipher_hd_t,
    key: *const c_void,
    keylen: usize,
) -> sgcm_error_t {
    // SAFETY: forwarded contract.
    status((|| {
        let h = unsafe { handle(h)? };
        let key = unsafe { input(key, keylen)? };
        if let Some(esp) = h.rfc4106.as_mut() {
            return esp.setkey(h.key_len, key);
        }
        if keylen != h.key_len {
            return Err(Error::InvalidKeyLength);
        }
        h.msg.end();
        h.key = Some(Key::new(key)?);
        h.magic = MAGIC_KEYED;
        Ok(())
    })())
}

/// Starts a new message with `iv` (any length from 1 byte; 12 is the fast, standard one;
/// RFC 4106 handles: exactly 8, else `SGCM_ERR_INV_LENGTH`). On error the handle is left
/// without an IV. Checked in this order: handle (`INV_ARG`), `iv` NULL with `ivlen` > 0
/// (`INV_ARG`), no key (`INV_STATE`, even for an empty IV), `ivlen` 0 (`INV_LENGTH`).
///
/// # Safety
/// `h` is an open handle; `iv` is readable for `ivlen` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_setiv(
    h: sgcm_cipher_hd_t,
    iv: *const c_void,
    ivlen: usize,
) -> sgcm_error_t {
    // The usual call (a 96-bit IV on a keyed GCM handle) first: what the general path
    // below does for it, without its checks.
    if ivlen == 12 && !iv.is_null() {
        // SAFETY: forwarded contract; `iv` is readable for 12 bytes.
        if let Some((_, msg)) = unsafe { keyed_gcm(h) } {
            msg.restart_96(unsafe { &*(iv as *const [u8; 12]) });
            return SGCM_ERR_NO_ERROR;
        }
    }
    // SAFETY: forwarded contract.
    unsafe { setiv_general(h, iv, ivlen) }
}

/// `sgcm_cipher_setiv` when its fast path does not apply (out of line, so that the fast
/// path needs no stack frame).
///
/// # Safety
/// As for `sgcm_cipher_setiv`.
#[inline(never)]
unsafe fn setiv_general(h: sgcm_cipher_hd_t, iv: *const c_void, ivlen: usize) -> sgcm_error_t {
    // SAFETY: forwarded contract.
    status((|| {
        let h = unsafe { handle(h)? };
        h.msg.end();
        let iv = unsafe { input(iv, ivlen)? };
        if let Some(esp) = h.rfc4106.as_mut() {
            return esp.setiv(iv);
        }
        let key = h.key.as_ref().ok_or(Error::InvalidState)?;
        h.msg.restart(key, iv)
    })())
}

/// Adds associated data (any length, any number of calls, before any data). RFC 4106
/// handles: at most 12 bytes in all (a call past that is `SGCM_ERR_INV_LENGTH` and adds
/// nothing); the first data, `gettag` and `checktag` refuse with `SGCM_ERR_INV_LENGTH`
/// unless the total is 8 (SPI‖SN) or 12 (SPI‖ESN), and change nothing then. Checked in this
/// order: handle (`INV_ARG`), `aad` NULL with `len` > 0 (`INV_ARG`), no key, no IV, after
/// data or after the tag (`INV_STATE`), the 2^61−1-byte AAD limit (`INV_LENGTH`). A refused
/// call changes nothing.
///
/// # Safety
/// `h` is an open handle; `aad` is readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_authenticate(
    h: sgcm_cipher_hd_t,
    aad: *const c_void,
    len: usize,
) -> sgcm_error_t {
    // The usual call (a TLS or ESP header as the message's first AAD) first.
    if len > 0 && len < 16 && !aad.is_null() {
        // SAFETY: forwarded contract; `aad` is readable for `len` bytes.
        if let Some((_, msg)) = unsafe { keyed_gcm(h) } {
            let aad = unsafe { core::slice::from_raw_parts(aad as *const u8, len) };
            if msg.first_short_aad(aad) {
                return SGCM_ERR_NO_ERROR;
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { authenticate_general(h, aad, len) }
}

/// `sgcm_cipher_authenticate` when its fast path does not apply (out of line, so that the fast
/// path needs no stack frame).
///
/// # Safety
/// As for `sgcm_cipher_authenticate`.
#[inline(never)]
unsafe fn authenticate_general(
    h: sgcm_cipher_hd_t,
    aad: *const c_void,
    len: usize,
) -> sgcm_error_t {
    // SAFETY: forwarded contract.
    status((|| {
        let h = unsafe { handle(h)? };
        let aad = unsafe { input(aad, len)? };
        if let Some(esp) = h.rfc4106.as_mut() {
            return esp.authenticate(aad);
        }
        let key = h.key.as_ref().ok_or(Error::InvalidState)?;
        let msg = &mut h.msg;
        msg.aad(key, aad)
    })())
}

/// # Safety
/// As for `sgcm_cipher_encrypt`.
#[inline(always)]
unsafe fn crypt(
    h: sgcm_cipher_hd_t,
    dir: Direction,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> sgcm_error_t {
    // The usual call (out of place or in place on a keyed GCM handle, room enough) first:
    // what the general path below does for it, without its checks.
    let (src, len) = if inp.is_null() {
        (out as *const u8, outsize)
    } else {
        (inp as *const u8, inlen)
    };
    if !out.is_null() && outsize >= len {
        // SAFETY: forwarded contract; `src` readable and `out` writable for `len` bytes.
        if let Some((key, msg)) = unsafe { keyed_gcm(h) } {
            return status(unsafe { msg.crypt_raw(key, dir, src, out as *mut u8, len) });
        }
    }
    // SAFETY: forwarded contract.
    unsafe { crypt_general(h, dir, out, outsize, inp, inlen) }
}

/// `crypt` when its fast path does not apply (out of line).
///
/// # Safety
/// As for `sgcm_cipher_encrypt`.
#[inline(never)]
unsafe fn crypt_general(
    h: sgcm_cipher_hd_t,
    dir: Direction,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(h)? };
        let (src, len) = if inp.is_null() {
            (out as *const u8, outsize)
        } else {
            (inp as *const u8, inlen)
        };
        if outsize < len {
            return Err(Error::BufferTooShort);
        }
        if len > 0 && out.is_null() {
            return Err(Error::InvalidArgument);
        }
        if let Some(esp) = h.rfc4106.as_mut() {
            // SAFETY: as below.
            return unsafe { esp.crypt(dir, src, out as *mut u8, len) };
        }
        let key = h.key.as_ref().ok_or(Error::MissingKey)?;
        let msg = &mut h.msg;
        // SAFETY: `src` readable and `out` writable for `len` bytes (caller's contract,
        // NULL excluded above); they are equal (in place) or disjoint.
        unsafe { msg.crypt_raw(key, dir, src, out as *mut u8, len) }
    })())
}

/// Encrypts `inlen` bytes from `in` into `out` (`outsize` ≥ `inlen`). With `in` NULL,
/// encrypts `outsize` bytes of `out` in place. Calls may split the data anywhere.
/// Checked in this order: handle (`INV_ARG`), `outsize` < `inlen` (`BUFFER_TOO_SHORT`,
/// also when `out` is NULL), `out` NULL with a nonzero length (`INV_ARG`), no key
/// (`MISSING_KEY`), no IV or after the tag (`INV_STATE`), more than 2^36−32 bytes of data
/// under one IV (`INV_LENGTH`). A refused call writes and consumes nothing.
///
/// # Safety
/// `h` is an open handle; `out` writable for `outsize` bytes; `in` NULL or readable for
/// `inlen` bytes, and either equal to `out` or not overlapping it.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_encrypt(
    h: sgcm_cipher_hd_t,
    out: *mut c_void,
    outsize: usize,
    in_: *const c_void,
    inlen: usize,
) -> sgcm_error_t {
    // SAFETY: forwarded contract.
    unsafe { crypt(h, Direction::Encrypt, out, outsize, in_, inlen) }
}

/// Decrypts like `sgcm_cipher_encrypt` (same checks, same order). Do not use the
/// plaintext before `sgcm_cipher_checktag` succeeds (or use `sgcm_open`, which checks first).
///
/// # Safety
/// As for `sgcm_cipher_encrypt`.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_decrypt(
    h: sgcm_cipher_hd_t,
    out: *mut c_void,
    outsize: usize,
    in_: *const c_void,
    inlen: usize,
) -> sgcm_error_t {
    // SAFETY: forwarded contract.
    unsafe { crypt(h, Direction::Decrypt, out, outsize, in_, inlen) }
}

/// Writes the tag: `taglen` of 4, 8 or 12..16 bytes, or more than 16 (then 16 bytes are
/// written, as libgcrypt does; RFC 4106 handles: an ICV of exactly 8, 12 or 16 bytes).
/// Ends the message; repeated calls give the same tag. Checked in this order: handle
/// (`INV_ARG`), `tag` NULL (`INV_ARG`, whatever `taglen`), `taglen` (`INV_LENGTH`; the
/// message does not end), no key or no IV (`INV_STATE`).
///
/// # Safety
/// `h` is an open handle; `tag` writable for `min(taglen, 16)` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_gettag(
    h: sgcm_cipher_hd_t,
    tag: *mut c_void,
    taglen: usize,
) -> sgcm_error_t {
    // The usual call (the full tag after a one-pass data call) first.
    if taglen >= SGCM_TAG_LEN && !tag.is_null() {
        // SAFETY: forwarded contract; `tag` is writable for 16 bytes.
        if let Some((_, msg)) = unsafe { keyed_gcm(h) } {
            if msg.provisional_tag(unsafe { &mut *(tag as *mut [u8; 16]) }) {
                return SGCM_ERR_NO_ERROR;
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { gettag_general(h, tag, taglen) }
}

/// `sgcm_cipher_gettag` when its fast path does not apply (out of line, so that the fast
/// path needs no stack frame).
///
/// # Safety
/// As for `sgcm_cipher_gettag`.
#[inline(never)]
unsafe fn gettag_general(h: sgcm_cipher_hd_t, tag: *mut c_void, taglen: usize) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(h)? };
        let n = taglen.min(SGCM_TAG_LEN);
        if tag.is_null() {
            return Err(Error::InvalidArgument);
        }
        if let Some(esp) = h.rfc4106.as_mut() {
            // SAFETY: `tag` is non-NULL and writable for `taglen` bytes (contract).
            return unsafe { esp.gettag(tag, taglen) };
        }
        if !gcm::tag_len_ok(n) {
            return Err(Error::InvalidLength);
        }
        let key = h.key.as_ref().ok_or(Error::InvalidState)?;
        let msg = &mut h.msg;
        // SAFETY: `tag` is non-NULL and writable for `n` bytes.
        let out = unsafe { core::slice::from_raw_parts_mut(tag as *mut u8, n) };
        msg.tag(key, out)
    })())
}

/// Checks a tag of 4, 8 or 12..16 bytes in constant time: 0 if it matches,
/// `SGCM_ERR_CHECKSUM` if not (also for lengths above 16, as libgcrypt; RFC 4106 handles:
/// an ICV of 8, 12 or 16 bytes, any other length is `SGCM_ERR_INV_LENGTH`). Ends the
/// message. Checked in this order: handle (`INV_ARG`), `tag` NULL with `taglen` > 0
/// (`INV_ARG`), `taglen` below 16 and not 4, 8, 12..15 (`INV_LENGTH`, also for 0 with a
/// NULL `tag`), no key or no IV (`INV_STATE`), then the comparison (`CHECKSUM`).
///
/// # Safety
/// `h` is an open handle; `tag` readable for `taglen` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_checktag(
    h: sgcm_cipher_hd_t,
    tag: *const c_void,
    taglen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(h)? };
        let expected = unsafe { input(tag, taglen)? };
        if let Some(esp) = h.rfc4106.as_mut() {
            return esp.checktag(expected);
        }
        if taglen < SGCM_TAG_LEN && !gcm::tag_len_ok(taglen) {
            return Err(Error::InvalidLength);
        }
        let key = h.key.as_ref().ok_or(Error::InvalidState)?;
        let msg = &mut h.msg;
        if taglen > SGCM_TAG_LEN {
            let mut scratch = [0u8; SGCM_TAG_LEN];
            msg.tag(key, &mut scratch)?;
            return Err(Error::TagMismatch);
        }
        msg.verify(key, expected)
    })())
}

/// Ends the message (its state is wiped) and keeps the key, as `gcry_cipher_reset` does:
/// the handle is ready for the next `sgcm_cipher_setiv` (RFC 4106 handles keep salt and IV
/// generator too). `sgcm_cipher_close` wipes the key.
///
/// # Safety
/// `h` is an open handle.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_reset(h: sgcm_cipher_hd_t) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle(h)? };
        h.msg.end(); // the message state is wiped, the key stays
        if let Some(esp) = h.rfc4106.as_mut() {
            esp.reset();
        }
        Ok(())
    })())
}
