//! libstitchgcm-gcrypt.so: an LD_PRELOAD interposer for libgcrypt's cipher handles that
//! serves AES-GCM with stitchgcm and leaves everything else to libgcrypt.
//!
//! `gcry_cipher_open` always opens the real handle first, so every refusal (unknown
//! algorithm or mode, bad flags, a disabled algorithm, FIPS state, no secure memory) is
//! libgcrypt's own answer. For AES, AES192 or AES256 in GCM mode — unless libgcrypt runs
//! in FIPS mode, or the handle asks for GCRY_CIPHER_ENABLE_SYNC, the one flag that
//! changes GCM state (through GCRYCTL_CFB_SYNC) — that handle is kept, unkeyed, inside a
//! stitchgcm handle (`handle.rs`) and ours is returned; it answers the few calls that do
//! not touch GCM state. Every other handle is libgcrypt's, returned untouched.
//!
//! Each exported function tells the handles apart by their first word (our magic, or
//! libgcrypt's two) and forwards real ones to libgcrypt (`real.rs`). NULL or foreign
//! pointers get an error instead of the crash libgcrypt would give, except where
//! libgcrypt itself answers them: `close` of a closed or foreign handle is libgcrypt's
//! fatal error, and `ctl`/`info` commands that never look at the handle are forwarded.
//!
//! Error values are libgcrypt's: the gpg-error code with source GPG_ERR_SOURCE_GCRYPT (1),
//! except setkey, setiv, setctr, setup_geniv and geniv, which libgcrypt's visibility.c
//! wraps with the default source GPG_ERR_SOURCE_USER_1 (32).

mod handle;
mod memory;
mod real;

use core::ffi::{c_int, c_uint, c_void};
use core::ptr;
use handle::{code::*, Dir, GcmHandle, MAGIC};
use real::{real, Hd, Real};

const SRC_GCRYPT: u32 = 1;
const SRC_USER_1: u32 = 32;

/// gpg_err_make: the source in bits 24..31, the code below; 0 stays 0.
fn gpg(source: u32, code: u32) -> c_uint {
    if code == 0 {
        0
    } else {
        ((source & 127) << 24) | (code & 0xffff)
    }
}

const GCRY_CIPHER_AES: c_int = 7;
const GCRY_CIPHER_AES256: c_int = 9;
const GCRY_CIPHER_MODE_GCM: c_int = 9;
const GCRY_CIPHER_SECURE: c_uint = 1;
const GCRY_CIPHER_ENABLE_SYNC: c_uint = 2;
const CTX_MAGIC_NORMAL: u32 = 0x2409_1964;
const CTX_MAGIC_SECURE: u32 = 0x4691_9042;
const GCRYCTL_RESET: c_int = 4;
const GCRYCTL_FINALIZE: c_int = 5;
const PRIV_CIPHERCTL_GET_INPUT_VECTOR: c_int = 62;
/// stitchgcm's own `ctl` command, none of libgcrypt's (`stitchgcm-run --check`): on one of
/// our handles, the NUL-terminated name of the backend serving it into `buffer`
/// (`GPG_ERR_TOO_SHORT` if it does not fit). libgcrypt answers it on its own handles with
/// `GPG_ERR_INV_OP`, so the caller also learns whether a handle is ours.
const STITCHGCM_CTL_BACKEND: c_int = 0x5347_4301; // "SGC", 1
/// `ctl` commands for which libgcrypt reads the handle (1.10 to 1.12, private ones
/// included): CFB_SYNC, RESET, SET_CBC_CTS, SET_CBC_MAC, 61-63 (test API),
/// SET_CCM_LENGTHS, SET_SBOX, SET_DECRYPTION_TAG. Others answer a NULL handle themselves.
const CTL_READS_HANDLE: [c_int; 10] = [3, 4, 41, 42, 61, 62, 63, 69, 73, 80];

enum Target<'a> {
    Ours(&'a mut GcmHandle),
    Real(&'static Real),
    Bad(u32),
}

/// # Safety
/// `h` is NULL or points to at least 4 readable bytes (any handle does).
unsafe fn target<'a>(h: Hd) -> Target<'a> {
    if h.is_null() {
        return Target::Bad(INV_ARG);
    }
    // SAFETY: readable (caller's contract); foreign pointers need not be aligned.
    match unsafe { ptr::read_unaligned(h as *const u32) } {
        // SAFETY: only our handles carry MAGIC; they are live GcmHandles from `memory`.
        MAGIC => Target::Ours(unsafe { &mut *(h as *mut GcmHandle) }),
        CTX_MAGIC_NORMAL | CTX_MAGIC_SECURE => real().map_or(Target::Bad(INV_HANDLE), Target::Real),
        _ => Target::Bad(INV_HANDLE),
    }
}

/// Our answer for our handle, libgcrypt's for a real one, an error (with `$source`) for
/// anything else.
macro_rules! dispatch {
    ($h:expr, $source:expr, |$ours:ident| $mine:expr, |$r:ident| $theirs:expr) => {
        // SAFETY: `$h` is a handle pointer from the caller (the exported function's contract).
        match unsafe { target($h) } {
            Target::Ours($ours) => $mine,
            Target::Real($r) => $theirs,
            Target::Bad(code) => gpg($source, code),
        }
    };
}

fn serves(algo: c_int, mode: c_int, flags: c_uint) -> bool {
    (GCRY_CIPHER_AES..=GCRY_CIPHER_AES256).contains(&algo)
        && mode == GCRY_CIPHER_MODE_GCM
        && flags & GCRY_CIPHER_ENABLE_SYNC == 0
}

/// # Safety
/// As libgcrypt's `gcry_cipher_open`; a NULL `handle` is an error here.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_open(
    handle: *mut Hd,
    algo: c_int,
    mode: c_int,
    flags: c_uint,
) -> c_uint {
    if handle.is_null() {
        return gpg(SRC_GCRYPT, INV_ARG);
    }
    let Some(r) = real() else {
        // SAFETY: non-NULL and writable (caller's contract).
        unsafe { *handle = ptr::null_mut() };
        return gpg(SRC_GCRYPT, NOT_IMPLEMENTED);
    };
    // SAFETY: libgcrypt's own open with the caller's arguments.
    let rc = unsafe { (r.open)(handle, algo, mode, flags) };
    if rc != 0 || !serves(algo, mode, flags) || r.fips_mode() {
        return rc;
    }
    // SAFETY: the real open succeeded, so `*handle` is its handle.
    let inner = unsafe { *handle };
    let refuse = |code: u32| {
        // SAFETY: `inner` is open and ours to close; `handle` is writable.
        unsafe {
            (r.close)(inner);
            *handle = ptr::null_mut();
        }
        gpg(SRC_GCRYPT, code)
    };
    if let Err(e) = stitchgcm::cpu::selected() {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!("stitchgcm: gcry_cipher_open: STITCHGCM_IMPL: {e}; AES-GCM handles refused")
        });
        return refuse(e.code());
    }
    let ours = memory::place(GcmHandle::new(flags & GCRY_CIPHER_SECURE != 0, inner));
    if ours.is_null() {
        return refuse(ENOMEM);
    }
    // SAFETY: as above.
    unsafe { *handle = ours as Hd };
    0
}

/// # Safety
/// As libgcrypt's `gcry_cipher_close`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_close(h: Hd) {
    if h.is_null() {
        return;
    }
    // SAFETY: caller's contract.
    match unsafe { target(h) } {
        Target::Ours(g) => {
            let inner = g.real;
            // SAFETY: our live handle, released once; the inner handle is closed once.
            unsafe {
                memory::release(g as *mut GcmHandle);
                if let Some(r) = real() {
                    (r.close)(inner);
                }
            }
        }
        // libgcrypt's handle, or a closed or foreign one, which libgcrypt reports as a
        // fatal error ("already closed/invalid handle").
        _ => {
            if let Some(r) = real() {
                // SAFETY: libgcrypt checks the handle's magic itself.
                unsafe { (r.close)(h) }
            }
        }
    }
}

/// # Safety
/// As libgcrypt's `gcry_cipher_ctl`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_ctl(
    h: Hd,
    cmd: c_int,
    buffer: *mut c_void,
    buflen: usize,
) -> c_uint {
    // The per-packet commands on our handle first (gcry_cipher_reset, gcry_cipher_final).
    // SAFETY: a handle pointer from the caller (this function's contract).
    if let Some(g) = unsafe { ours(h) } {
        if cmd == GCRYCTL_RESET && g.reset_finished() {
            return 0;
        }
        if cmd == GCRYCTL_FINALIZE && buffer.is_null() && buflen == 0 {
            return 0; // GCM ignores the mark
        }
    }
    // SAFETY: forwarded contract.
    unsafe { ctl_general(h, cmd, buffer, buflen) }
}

/// `gcry_cipher_ctl` but for its fast path (out of line).
///
/// # Safety
/// As libgcrypt's `gcry_cipher_ctl`.
#[inline(never)]
unsafe fn ctl_general(h: Hd, cmd: c_int, buffer: *mut c_void, buflen: usize) -> c_uint {
    if h.is_null() {
        return match real() {
            // SAFETY: a command libgcrypt answers without reading the handle.
            Some(r) if !CTL_READS_HANDLE.contains(&cmd) => unsafe {
                (r.ctl)(h, cmd, buffer, buflen)
            },
            _ => gpg(SRC_GCRYPT, INV_ARG),
        };
    }
    dispatch!(
        h,
        SRC_GCRYPT,
        |g| match cmd {
            GCRYCTL_RESET => {
                g.reset();
                0
            }
            GCRYCTL_FINALIZE if buffer.is_null() && buflen == 0 => 0, // GCM ignores the mark
            GCRYCTL_FINALIZE => gpg(SRC_GCRYPT, INV_ARG),
            // SAFETY: caller's contract for `buffer`.
            PRIV_CIPHERCTL_GET_INPUT_VECTOR =>
                gpg(SRC_GCRYPT, unsafe { g.input_vector(buffer.cast(), buflen) }),
            // SAFETY: caller's contract for `buffer`.
            STITCHGCM_CTL_BACKEND =>
                gpg(SRC_GCRYPT, unsafe { backend_name(buffer.cast(), buflen) }),
            // Everything else leaves GCM state alone: the real handle answers it.
            // SAFETY: our inner handle is a live libgcrypt handle.
            _ => real().map_or(gpg(SRC_GCRYPT, NOT_IMPLEMENTED), |r| unsafe {
                (r.ctl)(g.real, cmd, buffer, buflen)
            }),
        },
        |r| unsafe { (r.ctl)(h, cmd, buffer, buflen) }
    )
}

/// STITCHGCM_CTL_BACKEND: the selected backend's name and a NUL into `buffer[..len]`.
///
/// # Safety
/// `buffer` is NULL or writable for `len` bytes.
unsafe fn backend_name(buffer: *mut u8, len: usize) -> u32 {
    let Ok(id) = stitchgcm::cpu::selected() else {
        return NOT_SUPPORTED;
    };
    let name = id.name().as_bytes();
    if buffer.is_null() || len <= name.len() {
        return TOO_SHORT;
    }
    // SAFETY: `buffer` is writable for `len` > name.len() bytes (checked above).
    unsafe {
        ptr::copy_nonoverlapping(name.as_ptr(), buffer, name.len());
        *buffer.add(name.len()) = 0;
    }
    0
}

/// # Safety
/// As libgcrypt's `gcry_cipher_info`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_info(
    h: Hd,
    what: c_int,
    buffer: *mut c_void,
    nbytes: *mut usize,
) -> c_uint {
    let Some(r) = real() else {
        return gpg(SRC_GCRYPT, NOT_IMPLEMENTED);
    };
    if h.is_null() {
        // SAFETY: libgcrypt checks for a NULL handle in every command it knows.
        return unsafe { (r.info)(h, what, buffer, nbytes) };
    }
    // SAFETY: the inner handle of ours, or a real handle: libgcrypt's info on it.
    dispatch!(
        h,
        SRC_GCRYPT,
        |g| unsafe { (r.info)(g.real, what, buffer, nbytes) },
        |r| unsafe { (r.info)(h, what, buffer, nbytes) }
    )
}

/// Our handle, if `h` is one: the exports' fast paths (anything else goes to `dispatch!`).
///
/// # Safety
/// `h` is NULL or points to at least 4 readable bytes (any handle does).
#[inline(always)]
unsafe fn ours<'a>(h: Hd) -> Option<&'a mut GcmHandle> {
    // SAFETY: readable (caller's contract); foreign pointers need not be aligned. Only
    // our handles carry MAGIC; they are live GcmHandles from `memory`.
    unsafe {
        (!h.is_null() && ptr::read_unaligned(h as *const u32) == MAGIC)
            .then(|| &mut *(h as *mut GcmHandle))
    }
}

/// Exports libgcrypt's functions of the shape `(handle, buffer, length)`: our handle's
/// method of the same name with error source `$source`, libgcrypt's for its handles.
/// With `fast`, the usual call on our handle is answered first by that expression (the
/// answer, or `None` to take the general path, which is out of line so that the fast
/// path needs no stack frame).
macro_rules! export_buffer_call {
    ($name:ident($buf:ty) => $method:ident, $source:expr
     $(, fast |$g:ident| $fast:expr)?) => {
        /// # Safety
        /// As libgcrypt's function of the same name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(h: Hd, buf: $buf, len: usize) -> c_uint {
            $(
                // SAFETY: a handle pointer from the caller (this function's contract).
                if let Some($g) = unsafe { ours(h) } {
                    if let Some(rc) = $fast(buf, len) {
                        return rc;
                    }
                }
            )?
            /// # Safety
            /// As the exported function.
            #[inline(never)]
            unsafe fn general(h: Hd, buf: $buf, len: usize) -> c_uint {
                // SAFETY: caller's contract for `buf`.
                dispatch!(
                    h,
                    $source,
                    |g| gpg($source, unsafe { g.$method(buf.cast(), len) }),
                    |r| unsafe { (r.$method)(h, buf, len) }
                )
            }
            // SAFETY: forwarded contract.
            unsafe { general(h, buf, len) }
        }
    };
}

export_buffer_call!(gcry_cipher_setkey(*const c_void) => setkey, SRC_USER_1);
export_buffer_call!(gcry_cipher_setiv(*const c_void) => setiv, SRC_USER_1,
fast |g| |iv: *const c_void, len| {
    // Read once into registers: the handle's stores could alias the caller's IV, so a
    // borrowed IV would be loaded again for each of its two copies.
    // SAFETY: `iv` is readable for `len` = 12 bytes (caller's contract).
    (len == 12 && !iv.is_null() && g.setiv_96(&unsafe { (iv as *const [u8; 12]).read_unaligned() }))
        .then_some(0)
});
export_buffer_call!(gcry_cipher_setctr(*const c_void) => setctr, SRC_USER_1);
export_buffer_call!(gcry_cipher_authenticate(*const c_void) => authenticate, SRC_GCRYPT,
fast |g| |aad: *const c_void, len| {
    // SAFETY: `aad` is readable for `len` bytes (caller's contract).
    (len > 0 && len < 16 && !aad.is_null()
        && g.authenticate_short(unsafe { core::slice::from_raw_parts(aad.cast(), len) }))
        .then_some(0)
});
export_buffer_call!(gcry_cipher_gettag(*mut c_void) => gettag, SRC_GCRYPT,
fast |g| |out: *mut c_void, len| {
    if len < 16 || out.is_null() {
        return None;
    }
    // SAFETY: `out` is writable for min(len, 16) = 16 bytes (caller's contract).
    g.gettag_full(unsafe { &mut *(out as *mut [u8; 16]) }).then_some(0)
});
export_buffer_call!(gcry_cipher_checktag(*const c_void) => checktag, SRC_GCRYPT,
fast |g| |tag: *const c_void, len| {
    if !matches!(len, 4 | 8 | 12..=16) || tag.is_null() {
        return None;
    }
    // SAFETY: `tag` is readable for `len` bytes (caller's contract).
    g.checktag_fast(unsafe { core::slice::from_raw_parts(tag.cast(), len) })
        .map(|rc| gpg(SRC_GCRYPT, rc))
});

/// # Safety
/// As `gcry_cipher_encrypt`/`decrypt` (chosen by `dir`).
#[inline(always)]
unsafe fn crypt(
    dir: Dir,
    h: Hd,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> c_uint {
    // The usual call first (our keyed handle with a message, room enough), without the
    // general path's checks.
    let (src, len) = if inp.is_null() {
        (out as *const c_void, outsize)
    } else {
        (inp, inlen)
    };
    if !out.is_null() && outsize >= len {
        // SAFETY: a handle pointer from the caller (this function's contract).
        if let Some(g) = unsafe { ours(h) } {
            // SAFETY: `src` readable and `out` writable for `len` bytes (caller's contract).
            if let Some(rc) = unsafe { g.crypt_fast(dir, out.cast(), src.cast(), len) } {
                if rc != 0 && dir == Dir::Encrypt {
                    // SAFETY: `out` is writable for `outsize` bytes.
                    unsafe { ptr::write_bytes(out.cast::<u8>(), 0x42, outsize) };
                }
                return gpg(SRC_GCRYPT, rc);
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { crypt_general(dir, h, out, outsize, inp, inlen) }
}

/// `crypt` when its fast path does not apply (out of line).
///
/// # Safety
/// As `gcry_cipher_encrypt`/`decrypt` (chosen by `dir`).
#[inline(never)]
unsafe fn crypt_general(
    dir: Dir,
    h: Hd,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> c_uint {
    let real_fn = |r: &Real| {
        if dir == Dir::Encrypt {
            r.encrypt
        } else {
            r.decrypt
        }
    };
    dispatch!(
        h,
        SRC_GCRYPT,
        |g| {
            if !g.key_mark() {
                // No key: the real handle logs "cipher_encrypt: key not set" through
                // libgcrypt's log handler and answers MISSING_KEY.
                let inner = g.real;
                // SAFETY: our inner handle is a live libgcrypt handle.
                real().map_or(gpg(SRC_GCRYPT, NOT_IMPLEMENTED), |r| unsafe {
                    real_fn(r)(inner, out, outsize, inp, inlen)
                })
            } else {
                // SAFETY: caller's contract for the buffers.
                gpg(SRC_GCRYPT, unsafe {
                    g.crypt(dir, out.cast(), outsize, inp.cast(), inlen)
                })
            }
        },
        |r| unsafe { real_fn(r)(h, out, outsize, inp, inlen) }
    )
}

/// # Safety
/// As libgcrypt's `gcry_cipher_encrypt`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_encrypt(
    h: Hd,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> c_uint {
    // SAFETY: forwarded contract.
    unsafe { crypt(Dir::Encrypt, h, out, outsize, inp, inlen) }
}

/// # Safety
/// As libgcrypt's `gcry_cipher_decrypt`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_decrypt(
    h: Hd,
    out: *mut c_void,
    outsize: usize,
    inp: *const c_void,
    inlen: usize,
) -> c_uint {
    // SAFETY: forwarded contract.
    unsafe { crypt(Dir::Decrypt, h, out, outsize, inp, inlen) }
}

/// # Safety
/// As libgcrypt 1.11's `gcry_cipher_setup_geniv`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_setup_geniv(
    h: Hd,
    method: c_int,
    fixed_iv: *const c_void,
    fixed_iv_len: usize,
    dyn_iv: *const c_void,
    dyn_iv_len: usize,
) -> c_uint {
    // SAFETY: caller's contract for the buffers.
    dispatch!(
        h,
        SRC_USER_1,
        |g| gpg(SRC_USER_1, unsafe {
            g.setup_geniv(
                method,
                fixed_iv.cast(),
                fixed_iv_len,
                dyn_iv.cast(),
                dyn_iv_len,
            )
        }),
        |r| match r.setup_geniv {
            Some(f) => unsafe { f(h, method, fixed_iv, fixed_iv_len, dyn_iv, dyn_iv_len) },
            None => gpg(SRC_USER_1, NOT_IMPLEMENTED), // libgcrypt before 1.11
        }
    )
}

/// # Safety
/// As libgcrypt 1.11's `gcry_cipher_geniv`.
#[no_mangle]
pub unsafe extern "C" fn gcry_cipher_geniv(h: Hd, iv: *mut c_void, iv_len: usize) -> c_uint {
    // SAFETY: caller's contract for `iv`.
    dispatch!(
        h,
        SRC_USER_1,
        |g| gpg(SRC_USER_1, unsafe { g.geniv(iv.cast(), iv_len) }),
        |r| match r.geniv {
            Some(f) => unsafe { f(h, iv, iv_len) },
            None => gpg(SRC_USER_1, NOT_IMPLEMENTED),
        }
    )
}
