//! The real libgcrypt behind the interposer. Every `gcry_cipher_*` function this library
//! exports is looked up once, on first use, with `dlvsym(RTLD_NEXT, name, "GCRYPT_1.6")`
//! (libgcrypt 1.6 to 1.12 put every symbol in that one version node), which skips this
//! library and finds the next definition in the search order: libgcrypt's. When this
//! library was dlopen()ed instead of preloaded, RTLD_NEXT may not reach libgcrypt, so the
//! already-loaded `libgcrypt.so.20` is asked directly (RTLD_NOLOAD never loads it).

use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

/// `gcry_cipher_hd_t`.
pub type Hd = *mut c_void;

type DataFn = unsafe extern "C" fn(Hd, *const c_void, usize) -> c_uint;
type CryptFn = unsafe extern "C" fn(Hd, *mut c_void, usize, *const c_void, usize) -> c_uint;

/// libgcrypt's functions (the two 1.11 ones are absent from older versions).
pub struct Real {
    pub open: unsafe extern "C" fn(*mut Hd, c_int, c_int, c_uint) -> c_uint,
    pub close: unsafe extern "C" fn(Hd),
    pub ctl: unsafe extern "C" fn(Hd, c_int, *mut c_void, usize) -> c_uint,
    pub info: unsafe extern "C" fn(Hd, c_int, *mut c_void, *mut usize) -> c_uint,
    pub setkey: DataFn,
    pub setiv: DataFn,
    pub setctr: DataFn,
    pub authenticate: DataFn,
    pub encrypt: CryptFn,
    pub decrypt: CryptFn,
    pub gettag: unsafe extern "C" fn(Hd, *mut c_void, usize) -> c_uint,
    pub checktag: DataFn,
    #[allow(clippy::type_complexity)]
    pub setup_geniv: Option<
        unsafe extern "C" fn(Hd, c_int, *const c_void, usize, *const c_void, usize) -> c_uint,
    >,
    pub geniv: Option<unsafe extern "C" fn(Hd, *mut c_void, usize) -> c_uint>,
    control: unsafe extern "C" fn(c_int, ...) -> c_uint,
}

// SAFETY: the table holds plain function pointers into a loaded library.
unsafe impl Sync for Real {}
// SAFETY: as above.
unsafe impl Send for Real {}

extern "C" {
    // glibc's dlvsym (<dlfcn.h>), declared here: the libc crate of Debian 12 (0.2.139, which
    // the Debian package builds with) has no binding for it yet.
    fn dlvsym(handle: *mut c_void, symbol: *const c_char, version: *const c_char) -> *mut c_void;
}

const VERSION: &CStr = c"GCRYPT_1.6";
const GCRYCTL_FIPS_MODE_P: c_int = 55;

fn lookup(name: &CStr) -> *mut c_void {
    // SAFETY: dlvsym/dlopen/dlclose with NUL-terminated names; RTLD_NOLOAD only returns a
    // handle to a library that is already loaded, and dlclose drops that extra reference.
    unsafe {
        let p = dlvsym(libc::RTLD_NEXT, name.as_ptr(), VERSION.as_ptr());
        if !p.is_null() {
            return p;
        }
        let lib = libc::dlopen(
            c"libgcrypt.so.20".as_ptr(),
            libc::RTLD_LAZY | libc::RTLD_NOLOAD,
        );
        if lib.is_null() {
            return p;
        }
        let p = dlvsym(lib, name.as_ptr(), VERSION.as_ptr());
        libc::dlclose(lib);
        p
    }
}

/// A found symbol as the function type `F`.
///
/// # Safety
/// `F` is an `extern "C" fn` type matching the C prototype of the function at `p`.
unsafe fn as_fn<F: Copy>(p: *mut c_void) -> F {
    const { assert!(core::mem::size_of::<F>() == core::mem::size_of::<*mut c_void>()) };
    // SAFETY: same size (checked above); the caller vouches for the type.
    unsafe { core::mem::transmute_copy(&p) }
}

fn found(name: &CStr) -> Option<*mut c_void> {
    let p = lookup(name);
    (!p.is_null()).then_some(p)
}

fn load() -> Option<Real> {
    // SAFETY: each field's type is the prototype of that function in gcrypt.h.
    unsafe {
        Some(Real {
            open: as_fn(found(c"gcry_cipher_open")?),
            close: as_fn(found(c"gcry_cipher_close")?),
            ctl: as_fn(found(c"gcry_cipher_ctl")?),
            info: as_fn(found(c"gcry_cipher_info")?),
            setkey: as_fn(found(c"gcry_cipher_setkey")?),
            setiv: as_fn(found(c"gcry_cipher_setiv")?),
            setctr: as_fn(found(c"gcry_cipher_setctr")?),
            authenticate: as_fn(found(c"gcry_cipher_authenticate")?),
            encrypt: as_fn(found(c"gcry_cipher_encrypt")?),
            decrypt: as_fn(found(c"gcry_cipher_decrypt")?),
            gettag: as_fn(found(c"gcry_cipher_gettag")?),
            checktag: as_fn(found(c"gcry_cipher_checktag")?),
            setup_geniv: found(c"gcry_cipher_setup_geniv").map(|p| as_fn(p)),
            geniv: found(c"gcry_cipher_geniv").map(|p| as_fn(p)),
            control: as_fn(found(c"gcry_control")?),
        })
    }
}

/// The real library, or `None` if no libgcrypt is loaded (then no handle can exist either).
pub fn real() -> Option<&'static Real> {
    static REAL: OnceLock<Option<Real>> = OnceLock::new();
    REAL.get_or_init(load).as_ref()
}

impl Real {
    /// Whether libgcrypt runs in FIPS mode (`gcry_fips_mode_active()`); then we serve nothing.
    pub fn fips_mode(&self) -> bool {
        // SAFETY: gcry_control(GCRYCTL_FIPS_MODE_P, 0) only reads a flag.
        unsafe { (self.control)(GCRYCTL_FIPS_MODE_P, 0 as c_int) != 0 }
    }
}
