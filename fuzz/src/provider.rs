//! The OpenSSL provider (`provider/*.c`, compiled into this crate by `build.rs`) as the
//! `provider` target calls it: `OSSL_provider_init` with a fake core that offers only the
//! error functions (which count the errors the provider raises), the cipher dispatch
//! tables it answers a query with, and `OSSL_PARAM` arrays built here.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::ptr::null_mut;
use std::cell::Cell;

#[repr(C)]
pub struct OSSL_DISPATCH {
    pub function_id: c_int,
    pub function: Option<unsafe extern "C" fn()>,
}

#[repr(C)]
pub struct OSSL_ALGORITHM {
    pub names: *const c_char,
    pub properties: *const c_char,
    pub implementation: *const OSSL_DISPATCH,
    pub description: *const c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct OSSL_PARAM {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

pub const UNSIGNED_INTEGER: c_uint = 2;
pub const OCTET_STRING: c_uint = 5;
/// `OSSL_PARAM_UNMODIFIED`
pub const UNMODIFIED: usize = usize::MAX;

impl OSSL_PARAM {
    /// `key` must be a NUL-terminated literal (`c"ivlen"`).
    pub fn new(
        key: &'static core::ffi::CStr,
        data_type: c_uint,
        data: *mut c_void,
        size: usize,
    ) -> Self {
        OSSL_PARAM {
            key: key.as_ptr(),
            data_type,
            data,
            data_size: size,
            return_size: UNMODIFIED,
        }
    }

    pub fn end() -> Self {
        OSSL_PARAM {
            key: core::ptr::null(),
            data_type: 0,
            data: null_mut(),
            data_size: 0,
            return_size: 0,
        }
    }
}

// core_dispatch.h
const CORE_NEW_ERROR: c_int = 5;
const CORE_SET_ERROR_DEBUG: c_int = 6;
const CORE_VSET_ERROR: c_int = 7;
const PROVIDER_TEARDOWN: c_int = 1024;
const PROVIDER_QUERY_OPERATION: c_int = 1027;
const OP_CIPHER: c_int = 2;
pub const NEWCTX: c_int = 1;
pub const ENCRYPT_INIT: c_int = 2;
pub const DECRYPT_INIT: c_int = 3;
pub const UPDATE: c_int = 4;
pub const FINAL: c_int = 5;
pub const CIPHER: c_int = 6;
pub const FREECTX: c_int = 7;
pub const DUPCTX: c_int = 8;
pub const GET_CTX_PARAMS: c_int = 10;
pub const SET_CTX_PARAMS: c_int = 11;

extern "C" {
    fn OSSL_provider_init(
        core: *const c_void,
        r#in: *const OSSL_DISPATCH,
        out: *mut *const OSSL_DISPATCH,
        provctx: *mut *mut c_void,
    ) -> c_int;
}

thread_local! {
    static ERRORS: Cell<u32> = const { Cell::new(0) };
    static REASON: Cell<c_int> = const { Cell::new(0) };
}

unsafe extern "C" fn new_error(_core: *const c_void) {
    ERRORS.with(|e| e.set(e.get() + 1));
}

unsafe extern "C" fn set_error_debug(
    _core: *const c_void,
    file: *const c_char,
    _line: c_int,
    func: *const c_char,
) {
    assert!(
        !file.is_null() && !func.is_null(),
        "set_error_debug without file or function"
    );
}

/// The `va_list` is taken as the pointer it decays to (x86_64 SysV): not read.
unsafe extern "C" fn vset_error(
    _core: *const c_void,
    reason: c_int,
    _fmt: *const c_char,
    _args: *mut c_void,
) {
    REASON.with(|r| r.set(reason));
}

/// The errors raised since the last call (count, last reason), and a fresh count.
pub fn take_errors() -> (u32, c_int) {
    (ERRORS.with(|e| e.replace(0)), REASON.with(|r| r.replace(0)))
}

type Fn = unsafe extern "C" fn();

/// The fake core's functions (static: the provider keeps the function pointers only).
static CORE: [OSSL_DISPATCH; 4] = [
    OSSL_DISPATCH {
        function_id: CORE_NEW_ERROR,
        // SAFETY: the signatures core_dispatch.h gives these ids; called back as such.
        function: Some(unsafe {
            core::mem::transmute::<unsafe extern "C" fn(*const c_void), Fn>(new_error)
        }),
    },
    OSSL_DISPATCH {
        function_id: CORE_SET_ERROR_DEBUG,
        // SAFETY: as above.
        function: Some(unsafe {
            core::mem::transmute::<
                unsafe extern "C" fn(*const c_void, *const c_char, c_int, *const c_char),
                Fn,
            >(set_error_debug)
        }),
    },
    OSSL_DISPATCH {
        function_id: CORE_VSET_ERROR,
        // SAFETY: as above.
        function: Some(unsafe {
            core::mem::transmute::<
                unsafe extern "C" fn(*const c_void, c_int, *const c_char, *mut c_void),
                Fn,
            >(vset_error)
        }),
    },
    OSSL_DISPATCH {
        function_id: 0,
        function: None,
    },
];

/// The cipher functions of one algorithm (AES-128/192/256-GCM), as the provider's query
/// gives them.
#[derive(Clone, Copy)]
pub struct Cipher {
    pub provctx: *mut c_void,
    table: *const OSSL_DISPATCH,
}

// SAFETY: the provider's tables are static and its provctx is only read.
unsafe impl Send for Cipher {}
unsafe impl Sync for Cipher {}

pub type NewCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
pub type FreeCtx = unsafe extern "C" fn(*mut c_void);
pub type DupCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
pub type Init = unsafe extern "C" fn(
    *mut c_void,
    *const u8,
    usize,
    *const u8,
    usize,
    *const OSSL_PARAM,
) -> c_int;
pub type Update =
    unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize, *const u8, usize) -> c_int;
pub type Final = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
pub type SetParams = unsafe extern "C" fn(*mut c_void, *const OSSL_PARAM) -> c_int;
pub type GetParams = unsafe extern "C" fn(*mut c_void, *mut OSSL_PARAM) -> c_int;

impl Cipher {
    /// The function with dispatch id `id`, as type `F` (the caller names the matching type).
    ///
    /// # Safety
    /// `F` is the function pointer type of `id` in core_dispatch.h.
    pub unsafe fn f<F: Copy>(&self, id: c_int) -> F {
        let mut d = self.table;
        // SAFETY: a zero-terminated static table.
        unsafe {
            while (*d).function_id != 0 {
                if (*d).function_id == id {
                    let f = (*d).function.expect("a function");
                    assert_eq!(core::mem::size_of::<F>(), core::mem::size_of_val(&f));
                    return core::mem::transmute_copy(&f);
                }
                d = d.add(1);
            }
        }
        panic!("the provider has no function {id}");
    }
}

/// The provider, initialised once per process with the fake core: AES-128, -192 and
/// -256-GCM.
pub fn ciphers() -> &'static [Cipher; 3] {
    static C: std::sync::OnceLock<[Cipher; 3]> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        let (mut out, mut provctx): (*const OSSL_DISPATCH, *mut c_void) =
            (core::ptr::null(), null_mut());
        let core_handle = 0x5eed_usize as *const c_void; // opaque to the provider
                                                         // SAFETY: a valid dispatch table and out-pointers.
        let ok = unsafe { OSSL_provider_init(core_handle, CORE.as_ptr(), &mut out, &mut provctx) };
        assert_eq!(ok, 1, "OSSL_provider_init");
        let prov = Cipher {
            provctx,
            table: out,
        };
        type Query = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const OSSL_ALGORITHM;
        // SAFETY: the query's signature.
        let query: Query = unsafe { prov.f(PROVIDER_QUERY_OPERATION) };
        let _teardown: FreeCtx = unsafe { prov.f(PROVIDER_TEARDOWN) }; // present, never called
        let mut no_cache = 0;
        // SAFETY: the provider's own context.
        let algs = unsafe { query(provctx, OP_CIPHER, &mut no_cache) };
        assert!(!algs.is_null(), "no ciphers");
        let names = ["AES-128-GCM:", "AES-192-GCM:", "AES-256-GCM:"];
        let mut found = [None; 3];
        let mut a = algs;
        // SAFETY: a NULL-terminated static table of NUL-terminated names.
        unsafe {
            while !(*a).names.is_null() {
                let n = core::ffi::CStr::from_ptr((*a).names).to_str().unwrap();
                if let Some(i) = names.iter().position(|p| n.starts_with(p)) {
                    found[i] = Some(Cipher {
                        provctx,
                        table: (*a).implementation,
                    });
                }
                a = a.add(1);
            }
        }
        take_errors();
        found.map(|c| c.expect("AES-GCM of every key size"))
    })
}
