//! `sgcm_cipher_copy`: a second handle with the key and the message in progress of the
//! first (OpenSSL's `dupctx` and `EVP_CIPHER_CTX_copy` need one; the provider is its user).

use super::{
    handle_ref, sgcm_cipher_handle, sgcm_cipher_hd_t, sgcm_error_t, SGCM_ERR_INV_ARG,
    SGCM_ERR_INV_CIPHER_MODE, SGCM_ERR_NO_ERROR,
};

/// Opens a copy of handle `src`: its key and the message in progress (IV, AAD and data so
/// far), so that both go on independently from there (what OpenSSL's `EVP_CIPHER_CTX_copy`
/// and a provider's `dupctx` need). On failure `*dst` is set to NULL (when `dst` is not
/// NULL). Checked in this order: `dst` NULL or `src` not an open handle (`INV_ARG`), `src`
/// an RFC 4106 handle (`INV_CIPHER_MODE`: not copied yet). Closing either handle wipes only
/// its own copy.
///
/// # Safety
/// `dst` is NULL or valid for writing one pointer; `src` is an open handle.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_copy(
    dst: *mut sgcm_cipher_hd_t,
    src: sgcm_cipher_hd_t,
) -> sgcm_error_t {
    if dst.is_null() {
        return SGCM_ERR_INV_ARG;
    }
    // SAFETY: `dst` is non-NULL and writable by the caller's contract.
    unsafe { *dst = core::ptr::null_mut() };
    // SAFETY: forwarded contract.
    let s = match unsafe { handle_ref(src) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    if s.rfc4106.is_some() {
        return SGCM_ERR_INV_CIPHER_MODE;
    }
    let h = Box::new(sgcm_cipher_handle {
        magic: s.magic,
        key_len: s.key_len,
        key: s.key.clone(),
        msg: s.msg.clone(),
        rfc4106: None,
    });
    // SAFETY: as above.
    unsafe { *dst = Box::into_raw(h) };
    SGCM_ERR_NO_ERROR
}
