//! The RFC 4106 (IPsec ESP) face of the native C API: handles opened with
//! `SGCM_MODE_RFC4106`, and the IV generator calls.
//!
//! Such a handle takes the same calls as a GCM handle with ESP's framing (the mode's
//! `gcm::rfc4106` does it; this file only translates): `setkey` takes AES key‖salt
//! (16/24/32 + 4 bytes for the handle's algorithm), `setiv` the packet's 8-byte explicit
//! IV, `authenticate` at most 12 bytes in total, which must be 8 (SPI‖SN) or 12 (SPI‖ESN)
//! when the first data or the ICV comes; `gettag`/`checktag` and the keyed one-shot
//! `sgcm_aead_seal`/`sgcm_aead_open` take ICVs of 8, 12 or 16 bytes. `native.rs` hands each
//! call on such a handle to the [`Rfc4106State`] here.
//!
//! The mode number: libgcrypt has no RFC 4106 mode (its mode numbers run 0..16), so
//! `SGCM_MODE_RFC4106` is 4106, far from any number libgcrypt uses or is likely to use,
//! so that a libgcrypt-shaped front-end can never take it for one of libgcrypt's modes.

use super::native::{
    handle, handle_ref, input, one_shot_io, output, sgcm_cipher_hd_t, sgcm_error_t, status, tag_out,
};
use crate::error::Error;
use crate::gcm::rfc4106::{
    rfc4106_aad_len_ok, rfc4106_icv_len_ok, RFC4106_IV_LEN, RFC4106_SALT_LEN,
};
use crate::gcm::{Direction, IvCounter, Rfc4106Key, Rfc4106Message};
use core::ffi::{c_int, c_void};

/// IPsec ESP framing of GCM, RFC 4106 (see `sgcm_cipher_open`). libgcrypt has no such
/// mode; the number is the RFC's, far outside libgcrypt's mode numbers (0..16), so it is
/// never taken for one of them.
pub const SGCM_MODE_RFC4106: c_int = 4106;
/// Bytes of salt after the AES key in an RFC 4106 `setkey`.
pub const SGCM_RFC4106_SALT_LEN: usize = 4;
/// Bytes of an RFC 4106 explicit IV.
pub const SGCM_RFC4106_IV_LEN: usize = 8;
const _: () = assert!(SGCM_RFC4106_SALT_LEN == RFC4106_SALT_LEN);
const _: () = assert!(SGCM_RFC4106_IV_LEN == RFC4106_IV_LEN);

/// What an RFC 4106 handle holds: the SA's key and salt, the packet in progress, and the
/// IV generator once set up.
#[derive(Default)]
pub(crate) struct Rfc4106State {
    key: Option<Rfc4106Key>,
    msg: Option<Rfc4106Message>,
    ivgen: Option<IvCounter>,
}

impl Rfc4106State {
    /// AES key‖salt for a handle whose algorithm takes `aes_len`-byte keys. Ends any
    /// packet in progress; the IV generator carries on.
    pub(super) fn setkey(&mut self, aes_len: usize, key: &[u8]) -> Result<(), Error> {
        if key.len() != aes_len + RFC4106_SALT_LEN {
            return Err(Error::InvalidKeyLength);
        }
        self.msg = None;
        self.key = Some(Rfc4106Key::new(key)?);
        Ok(())
    }

    pub(super) fn setiv(&mut self, iv: &[u8]) -> Result<(), Error> {
        self.msg = None;
        let key = self.key.as_ref().ok_or(Error::InvalidState)?;
        self.msg = Some(Rfc4106Message::new(key, iv)?);
        Ok(())
    }

    pub(super) fn authenticate(&mut self, aad: &[u8]) -> Result<(), Error> {
        let (key, msg) = self.parts()?;
        msg.aad(key, aad)
    }

    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(super) unsafe fn crypt(
        &mut self,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        let key = self.key.as_ref().ok_or(Error::MissingKey)?;
        let msg = self.msg.as_mut().ok_or(Error::InvalidState)?;
        // SAFETY: forwarded from the caller.
        unsafe { msg.crypt_raw(key, dir, src, dst, len) }
    }

    /// # Safety
    /// `tag` writable for `taglen` bytes when `taglen` is 8, 12 or 16.
    pub(super) unsafe fn gettag(&mut self, tag: *mut c_void, taglen: usize) -> Result<(), Error> {
        if !rfc4106_icv_len_ok(taglen) {
            return Err(Error::InvalidLength);
        }
        let (key, msg) = self.parts()?;
        // SAFETY: non-NULL (checked by the caller) and writable for `taglen` bytes.
        let out = unsafe { core::slice::from_raw_parts_mut(tag as *mut u8, taglen) };
        msg.icv(key, out)
    }

    pub(super) fn checktag(&mut self, tag: &[u8]) -> Result<(), Error> {
        if !rfc4106_icv_len_ok(tag.len()) {
            return Err(Error::InvalidLength);
        }
        let (key, msg) = self.parts()?;
        msg.verify(key, tag)
    }

    /// Ends the packet in progress (it wipes itself); key, salt and IV generator stay, as
    /// the key of a GCM handle does.
    pub(super) fn reset(&mut self) {
        self.msg = None;
    }

    fn parts(&mut self) -> Result<(&Rfc4106Key, &mut Rfc4106Message), Error> {
        let key = self.key.as_ref().ok_or(Error::InvalidState)?;
        let msg = self.msg.as_mut().ok_or(Error::InvalidState)?;
        Ok((key, msg))
    }

    /// The SA's key, for the per-packet calls (shared access, the packet in progress
    /// untouched).
    pub(super) fn key(&self) -> Result<&Rfc4106Key, Error> {
        self.key.as_ref().ok_or(Error::MissingKey)
    }
}

/// The RFC 4106 state of an open handle, or `SGCM_ERR_INV_CIPHER_MODE` for a GCM handle.
///
/// # Safety
/// `h` is NULL or an open handle.
unsafe fn rfc4106_mut<'a>(h: sgcm_cipher_hd_t) -> Result<&'a mut Rfc4106State, Error> {
    // SAFETY: forwarded contract.
    unsafe { handle(h)? }
        .rfc4106
        .as_deref_mut()
        .ok_or(Error::InvalidMode)
}

/// # Safety
/// As for [`rfc4106_mut`]; shared access.
unsafe fn rfc4106_ref<'a>(h: sgcm_cipher_hd_t) -> Result<&'a Rfc4106State, Error> {
    // SAFETY: forwarded contract.
    unsafe { handle_ref(h)? }
        .rfc4106
        .as_deref()
        .ok_or(Error::InvalidMode)
}

/// # Safety
/// `p` is NULL or writable for `len` bytes.
unsafe fn iv_out<'a>(p: *mut c_void, len: usize) -> Result<&'a mut [u8], Error> {
    // SAFETY: forwarded contract.
    unsafe { output(p, len, len == RFC4106_IV_LEN) }
}

/// Sets up the IV generator of an RFC 4106 handle (RFC 4106 §3.1 counter IVs, shaped like
/// libgcrypt 1.11's `gcry_cipher_setup_geniv` with the salt as its fixed part): the next
/// IV will be the 8 bytes at `start` (big-endian), then start + 1, …, up to 2^64 − 1;
/// after that every generating call fails with `SGCM_ERR_LIMIT_REACHED` (libgcrypt's
/// counter wraps around instead). Setting it up again starts over from the new value,
/// so a caller who does so must not repeat values under one key; `setkey` and
/// `sgcm_cipher_reset` leave it alone, `sgcm_cipher_close` removes it. Errors: `SGCM_ERR_INV_LENGTH` (`len` ≠ 8),
/// `SGCM_ERR_INV_ARG` (NULL), `SGCM_ERR_INV_CIPHER_MODE` (not an RFC 4106 handle).
///
/// # Safety
/// `h` is an open handle; `start` readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_setup_geniv(
    h: sgcm_cipher_hd_t,
    start: *const c_void,
    len: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let esp = unsafe { rfc4106_mut(h)? };
        let start = unsafe { input(start, len)? };
        esp.ivgen = Some(IvCounter::new(start)?);
        Ok(())
    })())
}

/// Takes the next IV from the generator, writes it to `iv` (8 bytes) and starts a packet
/// with it, as `sgcm_cipher_setiv` would (libgcrypt 1.11's `gcry_cipher_geniv`). Errors:
/// `SGCM_ERR_INV_STATE` (no key, or no `sgcm_cipher_setup_geniv`), `SGCM_ERR_LIMIT_REACHED`
/// (every IV used), `SGCM_ERR_INV_LENGTH` (`ivlen` ≠ 8), `SGCM_ERR_INV_ARG`,
/// `SGCM_ERR_INV_CIPHER_MODE`. A call that fails uses up no IV and, as a failed
/// `sgcm_cipher_setiv`, leaves the handle without a packet.
///
/// # Safety
/// `h` is an open handle; `iv` writable for `ivlen` bytes.
#[no_mangle]
pub unsafe extern "C" fn sgcm_cipher_geniv(
    h: sgcm_cipher_hd_t,
    iv: *mut c_void,
    ivlen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let esp = unsafe { rfc4106_mut(h)? };
        esp.msg = None;
        let out = unsafe { iv_out(iv, ivlen)? };
        esp.key.as_ref().ok_or(Error::InvalidState)?;
        let next = esp.ivgen.as_ref().ok_or(Error::InvalidState)?.next_iv()?;
        esp.setiv(&next)?;
        out.copy_from_slice(&next);
        Ok(())
    })())
}

/// Seals one packet with the next IV of the generator, which it writes to `iv` (8 bytes;
/// it goes into the packet after SPI and sequence number): the per-packet call of an ESP
/// sender. Otherwise as `sgcm_aead_seal` on an RFC 4106 handle (AAD 8 or 12 bytes, ICV 8,
/// 12 or 16, `in` NULL or equal to `out` in place), and safe to call from several threads
/// on one handle: each call gets an IV of its own. Errors as for `sgcm_aead_seal`, and
/// `SGCM_ERR_INV_STATE` (no generator), `SGCM_ERR_LIMIT_REACHED` (every IV used),
/// `SGCM_ERR_INV_CIPHER_MODE` (not an RFC 4106 handle). Lengths are checked before an IV
/// is taken, so a refused call uses none.
///
/// # Safety
/// `h` is an open handle; every pointer is readable (writable for `iv`, `out`, `icv`) for
/// its length; `in` and `out` are equal or disjoint; `in`/`out` may be NULL when `len` is 0.
#[no_mangle]
pub unsafe extern "C" fn sgcm_aead_seal_geniv(
    h: sgcm_cipher_hd_t,
    iv: *mut c_void,
    ivlen: usize,
    aad: *const c_void,
    aadlen: usize,
    in_: *const c_void,
    len: usize,
    out: *mut c_void,
    icv: *mut c_void,
    icvlen: usize,
) -> sgcm_error_t {
    status((|| {
        // SAFETY: forwarded contract.
        let esp = unsafe { rfc4106_ref(h)? };
        let iv = unsafe { iv_out(iv, ivlen)? };
        let aad = unsafe { input(aad, aadlen)? };
        let icv = unsafe { tag_out(icv, icvlen)? };
        let (src, dst) = one_shot_io(in_, out, len)?;
        let key = esp.key()?;
        let ivgen = esp.ivgen.as_ref().ok_or(Error::InvalidState)?;
        if !rfc4106_aad_len_ok(aadlen) || !rfc4106_icv_len_ok(icvlen) {
            return Err(Error::InvalidLength);
        }
        let next = ivgen.next_iv()?;
        // SAFETY: `src`/`dst` valid for `len` bytes, equal or disjoint (contract).
        unsafe { key.seal_raw(&next, aad, src, dst, len, icv) }?;
        iv.copy_from_slice(&next);
        Ok(())
    })())
}
