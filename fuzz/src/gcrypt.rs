//! The two libgcrypt cipher APIs the gcrypt_abi target drives side by side: the
//! interposer's exports (crate `stitchgcm-gcrypt`, linked into the target and instrumented
//! like everything else) and the system's libgcrypt.so.20.
//!
//! libgcrypt is `dlopen`ed with RTLD_GLOBAL, which puts it in the executable's search
//! list: the interposer's `dlvsym(RTLD_NEXT, …, "GCRYPT_1.6")` forwarding then finds it
//! exactly as it does when preloaded in front of a program linked with libgcrypt
//! (`init` checks that). The executable does not export the interposer's symbols, so
//! libgcrypt's own functions stay libgcrypt's; the real side calls them through
//! `dlvsym` on libgcrypt's handle. Secure memory is disabled (GCRY_CIPHER_SECURE handles
//! are then libgcrypt's ordinary memory: the flag is still honoured and visible in the
//! handle's magic) and libgcrypt's log lines ("key not set") are silenced.

use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

pub type Hd = *mut c_void;
type DataFn = unsafe extern "C" fn(Hd, *const c_void, usize) -> c_uint;
type CryptFn = unsafe extern "C" fn(Hd, *mut c_void, usize, *const c_void, usize) -> c_uint;
type SetupGenivFn =
    unsafe extern "C" fn(Hd, c_int, *const c_void, usize, *const c_void, usize) -> c_uint;

/// The `gcry_cipher_*` functions of one side.
pub struct Api {
    pub open: unsafe extern "C" fn(*mut Hd, c_int, c_int, c_uint) -> c_uint,
    pub close: unsafe extern "C" fn(Hd),
    pub ctl: unsafe extern "C" fn(Hd, c_int, *mut c_void, usize) -> c_uint,
    pub info: unsafe extern "C" fn(Hd, c_int, *mut c_void, *mut usize) -> c_uint,
    pub setkey: DataFn,
    pub setiv: DataFn,
    pub authenticate: DataFn,
    pub encrypt: CryptFn,
    pub decrypt: CryptFn,
    pub gettag: unsafe extern "C" fn(Hd, *mut c_void, usize) -> c_uint,
    pub checktag: DataFn,
    /// libgcrypt 1.11's; `None` on the real side before 1.11.
    pub setup_geniv: Option<SetupGenivFn>,
    pub geniv: Option<unsafe extern "C" fn(Hd, *mut c_void, usize) -> c_uint>,
}

// SAFETY: plain function pointers.
unsafe impl Sync for Api {}
// SAFETY: as above.
unsafe impl Send for Api {}

/// gpg-error values as the calls return them: source in bits 24.., code below.
pub mod err {
    pub const GCRYPT: u32 = 1 << 24;
    pub const USER_1: u32 = 32 << 24;
    pub const CHECKSUM: u32 = 10;
    pub const INV_ARG: u32 = 45;
    pub const NOT_IMPLEMENTED: u32 = 69;
    pub const INV_LENGTH: u32 = 139;
    pub const INV_STATE: u32 = 156;
    pub const MISSING_KEY: u32 = 181;
    pub const BUFFER_TOO_SHORT: u32 = 200;
    /// The code without its source.
    pub fn code(rc: u32) -> u32 {
        rc & 0xffff
    }
}

/// The magic words in the first four bytes of a handle: libgcrypt's (normal, secure) and
/// the interposer's.
pub const MAGIC_NORMAL: u32 = 0x2409_1964;
pub const MAGIC_SECURE: u32 = 0x4691_9042;
pub const MAGIC_OURS: u32 = 0x5347_4347;

/// The interposer's exports.
pub static OURS: Api = Api {
    open: stitchgcm_gcrypt::gcry_cipher_open,
    close: stitchgcm_gcrypt::gcry_cipher_close,
    ctl: stitchgcm_gcrypt::gcry_cipher_ctl,
    info: stitchgcm_gcrypt::gcry_cipher_info,
    setkey: stitchgcm_gcrypt::gcry_cipher_setkey,
    setiv: stitchgcm_gcrypt::gcry_cipher_setiv,
    authenticate: stitchgcm_gcrypt::gcry_cipher_authenticate,
    encrypt: stitchgcm_gcrypt::gcry_cipher_encrypt,
    decrypt: stitchgcm_gcrypt::gcry_cipher_decrypt,
    gettag: stitchgcm_gcrypt::gcry_cipher_gettag,
    checktag: stitchgcm_gcrypt::gcry_cipher_checktag,
    setup_geniv: Some(stitchgcm_gcrypt::gcry_cipher_setup_geniv),
    geniv: Some(stitchgcm_gcrypt::gcry_cipher_geniv),
};

extern "C" {
    // glibc's dlvsym (<dlfcn.h>).
    fn dlvsym(handle: *mut c_void, symbol: *const c_char, version: *const c_char) -> *mut c_void;
}

fn sym(lib: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: a handle from dlopen and NUL-terminated names.
    unsafe { dlvsym(lib, name.as_ptr(), c"GCRYPT_1.6".as_ptr()) }
}

/// A found symbol as the function type `F`.
///
/// # Safety
/// `F` is an `extern "C" fn` type matching the C prototype of the function at `p`.
unsafe fn as_fn<F: Copy>(p: *mut c_void) -> F {
    assert!(!p.is_null(), "a gcry_cipher_* symbol is missing");
    const { assert!(core::mem::size_of::<F>() == core::mem::size_of::<*mut c_void>()) };
    // SAFETY: same size (checked above); the caller vouches for the type.
    unsafe { core::mem::transmute_copy(&p) }
}

unsafe extern "C" fn quiet_log(_: *mut c_void, _: c_int, _: *const c_char, _: *mut c_void) {}

fn load() -> Api {
    // SAFETY: dlopen of the system's libgcrypt; the function types below are gcrypt.h's
    // prototypes; gcry_check_version/gcry_control calls are libgcrypt's documented start-up.
    unsafe {
        let lib = libc::dlopen(
            c"libgcrypt.so.20".as_ptr(),
            libc::RTLD_NOW | libc::RTLD_GLOBAL,
        );
        assert!(!lib.is_null(), "libgcrypt.so.20 cannot be loaded");
        let check: unsafe extern "C" fn(*const c_char) -> *const c_char =
            as_fn(sym(lib, c"gcry_check_version"));
        let control: unsafe extern "C" fn(c_int, ...) -> c_uint = as_fn(sym(lib, c"gcry_control"));
        let set_log: unsafe extern "C" fn(*const c_void, *mut c_void) =
            as_fn(sym(lib, c"gcry_set_log_handler"));
        check(core::ptr::null());
        control(37, 0 as c_int); // GCRYCTL_DISABLE_SECMEM
        control(38, 0 as c_int); // GCRYCTL_INITIALIZATION_FINISHED
        set_log(quiet_log as *const c_void, core::ptr::null_mut());
        let open = sym(lib, c"gcry_cipher_open");
        // What the interposer's forwarding sees from this executable.
        let next = dlvsym(
            libc::RTLD_NEXT,
            c"gcry_cipher_open".as_ptr(),
            c"GCRYPT_1.6".as_ptr(),
        );
        assert!(
            next == open,
            "dlvsym(RTLD_NEXT) does not reach the loaded libgcrypt"
        );
        let opt = |name: &CStr| {
            let p = sym(lib, name);
            (!p.is_null()).then_some(p)
        };
        Api {
            open: as_fn(open),
            close: as_fn(sym(lib, c"gcry_cipher_close")),
            ctl: as_fn(sym(lib, c"gcry_cipher_ctl")),
            info: as_fn(sym(lib, c"gcry_cipher_info")),
            setkey: as_fn(sym(lib, c"gcry_cipher_setkey")),
            setiv: as_fn(sym(lib, c"gcry_cipher_setiv")),
            authenticate: as_fn(sym(lib, c"gcry_cipher_authenticate")),
            encrypt: as_fn(sym(lib, c"gcry_cipher_encrypt")),
            decrypt: as_fn(sym(lib, c"gcry_cipher_decrypt")),
            gettag: as_fn(sym(lib, c"gcry_cipher_gettag")),
            checktag: as_fn(sym(lib, c"gcry_cipher_checktag")),
            setup_geniv: opt(c"gcry_cipher_setup_geniv").map(|p| as_fn(p)),
            geniv: opt(c"gcry_cipher_geniv").map(|p| as_fn(p)),
        }
    }
}

/// The real libgcrypt, loaded and initialised on first use (before any interposer call,
/// which would otherwise look for libgcrypt too early and remember that it is missing).
pub fn real() -> &'static Api {
    static REAL: OnceLock<Api> = OnceLock::new();
    REAL.get_or_init(load)
}

/// The first word of a handle.
///
/// # Safety
/// `h` points to a live handle.
pub unsafe fn magic(h: Hd) -> u32 {
    // SAFETY: caller's contract; handles are at least word-aligned allocations.
    unsafe { core::ptr::read_unaligned(h as *const u32) }
}
