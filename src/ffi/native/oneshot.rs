//! The one-shot calls: a whole message per call, on a keyed handle (`sgcm_aead_seal`,
//! `sgcm_aead_open`, the per-packet interface) or with a raw key (`sgcm_seal`,
//! `sgcm_open`, which expand the key for the call). Opening writes no plaintext unless
//! the tag verifies.

use super::{handle_ref, input, sgcm_cipher_hd_t, sgcm_error_t, status};
use crate::cpu;
use crate::error::Error;
use crate::gcm::{self, Key};
use core::ffi::c_void;

/// The pointer rules shared by the one-shot calls: `out` (and the tag) may be NULL only
/// for an empty message; `in` NULL means in place.
pub(in crate::ffi) fn one_shot_io(
    in_: *const c_void,
    out: *mut c_void,
    len: usize,
) -> Result<(*const u8, *mut u8), Error> {
    if len > 0 && out.is_null() {
        return Err(Error::InvalidArgument);
    }
    let src = if in_.is_null() {
        out as *const u8
    } else {
        in_ as *const u8
    };
    Ok((src, out as *mut u8))
}

/// An output buffer of a length the call allows (`len_ok`, else `SGCM_ERR_INV_LENGTH`).
///
/// # Safety
/// `p` is NULL or writable for `len` bytes.
pub(in crate::ffi) unsafe fn output<'a>(
    p: *mut c_void,
    len: usize,
    len_ok: bool,
) -> Result<&'a mut [u8], Error> {
    if !len_ok {
        return Err(Error::InvalidLength);
    }
    if p.is_null() {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: non-NULL and writable for `len` bytes (caller's contract).
    Ok(unsafe { core::slice::from_raw_parts_mut(p as *mut u8, len) })
}

/// # Safety
/// `tag` is NULL or writable for `taglen` bytes.
pub(in crate::ffi) unsafe fn tag_out<'a>(
    tag: *mut c_void,
    taglen: usize,
) -> Result<&'a mut [u8], Error> {
    // SAFETY: forwarded contract.
    unsafe { output(tag, taglen, gcm::tag_len_ok(taglen)) }
}

/// Seals one whole message with the key of an open handle (the per-packet call of TLS,
/// QUIC and IPsec stacks): IV (≥ 1 byte; 12 is the fast, standard one), AAD, `len` bytes
/// from `in` to `out` (`in` NULL or equal to `out`: in place), tag of `taglen` bytes (4, 8,
/// 12..16). The handle's own message state is neither used nor changed, so several
/// threads may seal and open on one handle at once as long as none re-keys or closes it.
/// Errors: `SGCM_ERR_INV_ARG` (NULL handle or pointer), `SGCM_ERR_MISSING_KEY` (no key
/// set), `SGCM_ERR_INV_LENGTH` (IV, tag or GCM length limits). On an RFC 4106 handle this
/// is the per-packet ESP call: the 8-byte explicit IV (the handle adds the salt), AAD of
/// 8 or 12 bytes, an ICV of 8, 12 or 16; any other length is `SGCM_ERR_INV_LENGTH`.
///
/// # Safety
/// `h` is an open handle; every pointer is readable (writable for `out`, `tag`) for its
/// length; `in` and `out` are equal or disjoint. Pointers may be NULL when their length
/// is 0.
#[no_mangle]
pub unsafe extern "C" fn sgcm_aead_seal(
    h: sgcm_cipher_hd_t,
    iv: *const c_void,
    ivlen: usize,
    aad: *const c_void,
    aadlen: usize,
    in_: *const c_void,
    len: usize,
    out: *mut c_void,
    tag: *mut c_void,
    taglen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle_ref(h)? };
        let (iv, aad) = unsafe { (input(iv, ivlen)?, input(aad, aadlen)?) };
        let tag = unsafe { tag_out(tag, taglen)? };
        let (src, dst) = one_shot_io(in_, out, len)?;
        if let Some(esp) = h.rfc4106.as_deref() {
            // SAFETY: as below.
            return unsafe { esp.key()?.seal_raw(iv, aad, src, dst, len, tag) };
        }
        let key = h.key.as_ref().ok_or(Error::MissingKey)?;
        // SAFETY: `src`/`dst` valid for `len` bytes, equal or disjoint (contract).
        unsafe { gcm::seal_raw(key, iv, aad, src, dst, len, tag) }
    })())
}

/// Opens one whole message with the key of an open handle; writes no plaintext unless the
/// tag verifies (`SGCM_ERR_CHECKSUM` on a mismatch, with `out` untouched). Arguments,
/// threading and errors as for `sgcm_aead_seal` (RFC 4106 handles likewise), with `tag`
/// readable.
///
/// # Safety
/// As for `sgcm_aead_seal`.
#[no_mangle]
pub unsafe extern "C" fn sgcm_aead_open(
    h: sgcm_cipher_hd_t,
    iv: *const c_void,
    ivlen: usize,
    aad: *const c_void,
    aadlen: usize,
    in_: *const c_void,
    len: usize,
    out: *mut c_void,
    tag: *const c_void,
    taglen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let h = unsafe { handle_ref(h)? };
        let (iv, aad, tag) =
            unsafe { (input(iv, ivlen)?, input(aad, aadlen)?, input(tag, taglen)?) };
        let (src, dst) = one_shot_io(in_, out, len)?;
        if let Some(esp) = h.rfc4106.as_deref() {
            // SAFETY: as below.
            return unsafe { esp.key()?.open_raw(iv, aad, src, dst, len, tag) };
        }
        let key = h.key.as_ref().ok_or(Error::MissingKey)?;
        // SAFETY: `src`/`dst` valid for `len` bytes, equal or disjoint (contract).
        unsafe { gcm::open_raw(key, iv, aad, src, dst, len, tag) }
    })())
}

/// One-shot encryption with a raw key: key (16/24/32 bytes selects AES-128/192/256), then
/// as `sgcm_aead_seal`. The key is expanded for this call only (and wiped): a caller
/// with many messages under one key should key a handle once and use `sgcm_aead_seal`.
///
/// # Safety
/// Every pointer is readable (writable for `out`, `tag`) for its length; `in` and `out`
/// are equal or disjoint. Pointers may be NULL when their length is 0.
#[no_mangle]
pub unsafe extern "C" fn sgcm_seal(
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
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let (key, iv, aad) =
            unsafe { (input(key, keylen)?, input(iv, ivlen)?, input(aad, aadlen)?) };
        let tag = unsafe { tag_out(tag, taglen)? };
        let (src, dst) = one_shot_io(in_, out, len)?;
        // Expanded in place: the key is never moved, and only its used part is wiped.
        let mut k = Key::empty();
        k.init_in_place(key, cpu::selected()?)?;
        // SAFETY: `src`/`dst` valid for `len` bytes, equal or disjoint (contract).
        unsafe { gcm::seal_raw(&k, iv, aad, src, dst, len, tag) }
    })())
}

/// One-shot decryption with a raw key that writes no plaintext unless the tag verifies
/// (it hashes the ciphertext first and decrypts only after a constant-time tag check).
/// Returns `SGCM_ERR_CHECKSUM` on a mismatch, with `out` untouched. The key is expanded
/// for this call only, as in `sgcm_seal`.
///
/// # Safety
/// As for `sgcm_seal`, with `tag` readable.
#[no_mangle]
pub unsafe extern "C" fn sgcm_open(
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
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let (key, iv, aad, tag) = unsafe {
            (
                input(key, keylen)?,
                input(iv, ivlen)?,
                input(aad, aadlen)?,
                input(tag, taglen)?,
            )
        };
        let (src, dst) = one_shot_io(in_, out, len)?;
        let mut k = Key::empty();
        k.init_in_place(key, cpu::selected()?)?;
        // SAFETY: `src`/`dst` valid for `len` bytes, equal or disjoint (contract).
        unsafe { gcm::open_raw(&k, iv, aad, src, dst, len, tag) }
    })())
}
