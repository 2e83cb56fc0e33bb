//! Misuse cases of the handle API (`sgcm_cipher_*`). Each returns the code of the call
//! under test; where a case also promises that a refused call changed nothing, it checks
//! that first (the tag of the message afterwards equals the oracle's).

use crate::common::*;
use crate::{same, Case, MIXED};
use core::ffi::c_void;
use core::ptr::{null, null_mut};
use stitchgcm::ffi::native::*;

const KEY: [u8; 16] = [7; 16];
const IV: [u8; 12] = [9; 12];

fn ready() -> CHandle {
    let h = CHandle::open(16);
    assert_eq!(h.setkey(&KEY), 0);
    assert_eq!(h.setiv(&IV), 0);
    h
}

fn keyed() -> CHandle {
    let h = CHandle::open(16);
    assert_eq!(h.setkey(&KEY), 0);
    h
}

/// The tag of the handle's message must be the oracle's for (aad, pt); else MIXED.
fn tag_is(h: &CHandle, aad: &[u8], pt: &[u8], code: u32) -> u32 {
    let mut t = [0u8; 16];
    assert_eq!(h.gettag(&mut t), 0);
    if t == oracle_seal(&KEY, &IV, aad, pt).unwrap().1 {
        code
    } else {
        eprintln!("the refused call changed the message");
        MIXED
    }
}

fn zeroed_handle() -> u32 {
    // Not an open handle: memory that never held one (a closed handle is freed memory, which
    // no library can recognise; this is the case the magic number catches).
    let fake = vec![0u64; 512];
    let h = fake.as_ptr() as sgcm_cipher_hd_t;
    // SAFETY: `h` points to 4 KiB of zeros, more than a handle; it must be refused.
    unsafe {
        same(&[
            sgcm_cipher_setkey(h, KEY.as_ptr().cast(), 16),
            sgcm_cipher_reset(h),
        ])
    }
}

fn open_code(algo: i32, mode: i32, flags: u32) -> u32 {
    let mut h: sgcm_cipher_hd_t = core::ptr::NonNull::dangling().as_ptr();
    // SAFETY: `h` is a valid place for the result.
    let rc = unsafe { sgcm_cipher_open(&mut h, algo, mode, flags) };
    if rc != 0 && !h.is_null() {
        eprintln!("*hd not NULL after a failed open");
        return MIXED;
    }
    if rc == 0 {
        // SAFETY: a handle from a successful open, closed once.
        unsafe { sgcm_cipher_close(h) };
    }
    rc
}

macro_rules! null_handle {
    ($($name:literal => $call:expr;)*) => {
        vec![$(Case { front: "handle", name: $name, run: || {
            let h: sgcm_cipher_hd_t = null_mut();
            let mut buf = [0u8; 16];
            let p = buf.as_mut_ptr() as *mut c_void;
            let _ = (h, p);
            // SAFETY: a NULL handle must be refused before anything is touched; the other
            // pointers are valid for the lengths given.
            unsafe { $call(h, p) }
        } }),*]
    };
}

pub fn cases() -> Vec<Case> {
    let mut v = null_handle! {
        "NULL handle: setkey" => |h, _| sgcm_cipher_setkey(h, KEY.as_ptr().cast(), 16);
        "NULL handle: setiv" => |h, _| sgcm_cipher_setiv(h, IV.as_ptr().cast(), 12);
        "NULL handle: authenticate" => |h, p| sgcm_cipher_authenticate(h, p, 16);
        "NULL handle: encrypt" => |h, p| sgcm_cipher_encrypt(h, p, 16, null(), 0);
        "NULL handle: decrypt" => |h, p| sgcm_cipher_decrypt(h, p, 16, null(), 0);
        "NULL handle: gettag" => |h, p| sgcm_cipher_gettag(h, p, 16);
        "NULL handle: checktag" => |h, p| sgcm_cipher_checktag(h, p, 16);
        "NULL handle: reset" => |h, _| sgcm_cipher_reset(h);
        "NULL handle: close" => |h, _| { sgcm_cipher_close(h); 0 };
    };
    let case = |name, run| Case {
        front: "handle",
        name,
        run,
    };
    v.extend([
        case("not an open handle (zeroed memory)", zeroed_handle),
        case("open: NULL result pointer", || {
            // SAFETY: a NULL result pointer must be refused without being written.
            unsafe { sgcm_cipher_open(null_mut(), SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0) }
        }),
        case("open: unknown algorithm", || {
            let codes: Vec<u32> = [-1, 0, 1, 2, 6, 10, 11, 301, i32::MAX]
                .into_iter()
                .map(|a| open_code(a, SGCM_MODE_GCM, 0))
                .collect();
            same(&codes)
        }),
        case("open: unknown flags", || {
            let codes: Vec<u32> = [0x20, 0x100, 0x8000_0000]
                .into_iter()
                .map(|f| open_code(SGCM_CIPHER_AES192, SGCM_MODE_GCM, f))
                .collect();
            same(&codes)
        }),
        case("open: mode not GCM", || {
            let codes: Vec<u32> = [-1, 0, 1, 2, 6, 8, 10, 11, 16]
                .into_iter()
                .map(|m| open_code(SGCM_CIPHER_AES256, m, 0))
                .collect();
            same(&codes)
        }),
        case("open: unknown algorithm and mode not GCM", || {
            open_code(1, 1, 0)
        }),
        case("NULL key, nonzero length", || {
            let h = CHandle::open(16);
            // SAFETY: open handle; a NULL key with a nonzero length must be refused.
            unsafe { sgcm_cipher_setkey(h.raw(), null(), 16) }
        }),
        case("key length does not fit", || {
            let mut codes = Vec::new();
            for key_len in [16, 24, 32] {
                let h = CHandle::open(key_len);
                for wrong in [1, 15, 17, 31, 33, 64, 16, 24, 32] {
                    if wrong != key_len {
                        codes.push(h.setkey(&vec![5u8; wrong]));
                    }
                }
                // Still no key.
                if h.encrypt_in_place(&mut [0u8; 4]) != SGCM_ERR_MISSING_KEY {
                    return MIXED;
                }
            }
            same(&codes)
        }),
        case("empty key", || {
            let h = CHandle::open(16);
            // SAFETY: open handle; NULL with length 0 is an empty key.
            unsafe { same(&[h.setkey(&[]), sgcm_cipher_setkey(h.raw(), null(), 0)]) }
        }),
        case("rejected setkey keeps the key and message", || {
            let h = ready();
            assert_eq!(h.authenticate(b"aad"), 0);
            let rc = same(&[h.setkey(&[1u8; 15]), h.setkey(&[1u8; 32])]);
            if rc != SGCM_ERR_INV_KEYLEN {
                return MIXED;
            }
            tag_is(&h, b"aad", b"", 0)
        }),
        case("empty IV", || ready().setiv(&[])),
        case("NULL IV, nonzero length", || {
            let h = keyed();
            // SAFETY: open handle; a NULL IV with a nonzero length must be refused.
            unsafe { sgcm_cipher_setiv(h.raw(), null(), 12) }
        }),
        case("setiv before setkey", || CHandle::open(16).setiv(&IV)),
        case("empty IV before setkey", || CHandle::open(16).setiv(&[])),
        case("data after a rejected setiv", || {
            let h = ready();
            let mut buf = [0u8; 4];
            if h.setiv(&[]) != SGCM_ERR_INV_LENGTH {
                return MIXED;
            }
            h.encrypt_in_place(&mut buf)
        }),
        case("NULL AAD, nonzero length", || {
            let h = ready();
            // SAFETY: open handle; NULL AAD with a nonzero length must be refused.
            let rc = unsafe { sgcm_cipher_authenticate(h.raw(), null(), 1) };
            tag_is(&h, b"", b"", rc)
        }),
        case("AAD before setkey", || {
            CHandle::open(16).authenticate(b"aad")
        }),
        case("AAD before setiv", || keyed().authenticate(b"aad")),
        case("AAD after data", || {
            let h = ready();
            let mut buf = [0u8; 32];
            assert_eq!(h.authenticate(b"aad"), 0);
            assert_eq!(h.encrypt_in_place(&mut buf[..5]), 0);
            let rc = same(&[h.authenticate(b"late"), h.authenticate(b"")]);
            assert_eq!(h.encrypt_in_place(&mut buf[5..]), 0);
            tag_is(&h, b"aad", &[0u8; 32], rc)
        }),
        case("AAD after a partial AAD block", || {
            let h = ready();
            let rc = same(&[
                h.authenticate(b"abc"),
                h.authenticate(b"defghijklmnopqrstu"),
            ]);
            tag_is(&h, b"abcdefghijklmnopqrstu", b"", rc)
        }),
        case("AAD after the tag", || {
            let h = ready();
            let mut t = [0u8; 16];
            assert_eq!(h.gettag(&mut t), 0);
            h.authenticate(b"x")
        }),
        case("data before setkey", || {
            let h = CHandle::open(16);
            let mut buf = [0u8; 32];
            same(&[
                h.encrypt_in_place(&mut buf),
                h.decrypt_in_place(&mut buf),
                h.encrypt_to(&[1; 8], &mut buf),
            ])
        }),
        case("data before setiv", || {
            let h = keyed();
            let mut buf = [0u8; 32];
            same(&[
                h.encrypt_in_place(&mut buf),
                h.decrypt_to(&[1; 8], &mut buf),
            ])
        }),
        case("data after the tag", || {
            let h = ready();
            let mut t = [0u8; 16];
            assert_eq!(h.gettag(&mut t), 0);
            same(&[
                h.encrypt_in_place(&mut [0u8; 1]),
                h.decrypt_in_place(&mut [0u8; 1]),
            ])
        }),
        case("data after checktag", || {
            let h = ready();
            let t = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            assert_eq!(h.checktag(&t), 0);
            same(&[h.decrypt_in_place(&mut [0u8; 1]), h.authenticate(b"x")])
        }),
        case("data after a partial data block", || {
            let h = ready();
            let mut buf = [0u8; 40];
            let (a, b) = buf.split_at_mut(7);
            let rc = same(&[h.encrypt_in_place(a), h.encrypt_in_place(b)]);
            let (ct, _) = oracle_seal(&KEY, &IV, b"", &[0u8; 40]).unwrap();
            if buf[..] != ct[..] {
                return MIXED;
            }
            tag_is(&h, b"", &[0u8; 40], rc)
        }),
        case("data after setkey ended the message", || {
            let h = ready();
            assert_eq!(h.encrypt_in_place(&mut [0u8; 3]), 0);
            assert_eq!(h.setkey(&KEY), 0);
            h.encrypt_in_place(&mut [0u8; 3])
        }),
        case("data after reset", || {
            let h = ready();
            assert_eq!(h.reset(), 0);
            same(&[
                h.encrypt_in_place(&mut [0u8; 16]),
                h.decrypt_in_place(&mut [0u8; 16]),
            ])
        }),
        case("AAD and tag after reset", || {
            let h = ready();
            assert_eq!(h.reset(), 0);
            let mut t = [0u8; 16];
            same(&[h.authenticate(b"x"), h.gettag(&mut t), h.checktag(&t)])
        }),
        case("setiv after reset keeps the key", || {
            let h = ready();
            assert_eq!(h.authenticate(b"x"), 0);
            assert_eq!(h.reset(), 0);
            let rc = h.setiv(&IV);
            tag_is(&h, b"", b"", rc) // the old AAD is gone, the key is the same
        }),
        case("output shorter than input", || {
            let h = ready();
            let src = [3u8; 20];
            let mut dst = [0xeeu8; 20];
            let rc = same(&[
                h.encrypt_to(&src, &mut dst[..19]),
                h.decrypt_to(&src, &mut dst[..0]),
            ]);
            if dst != [0xee; 20] {
                return MIXED;
            }
            tag_is(&h, b"", b"", rc)
        }),
        case("output shorter than input and no key", || {
            CHandle::open(16).encrypt_to(&[1; 8], &mut [0u8; 4])
        }),
        case("NULL output, nonzero length", || {
            let h = ready();
            let src = [3u8; 20];
            // SAFETY: open handle; NULL `out` with a big enough size must be refused.
            unsafe {
                same(&[
                    sgcm_cipher_encrypt(h.raw(), null_mut(), 20, src.as_ptr().cast(), 20),
                    sgcm_cipher_decrypt(h.raw(), null_mut(), 16, null(), 0),
                ])
            }
        }),
        case("NULL output, size smaller than input", || {
            let h = ready();
            let src = [3u8; 9];
            // SAFETY: open handle; the size check comes before the NULL check.
            unsafe { sgcm_cipher_encrypt(h.raw(), null_mut(), 0, src.as_ptr().cast(), 9) }
        }),
        case("NULL data, zero length", || {
            let h = ready();
            // SAFETY: open handle; NULL pointers with zero lengths are allowed.
            let rc = unsafe {
                same(&[
                    sgcm_cipher_authenticate(h.raw(), null(), 0),
                    sgcm_cipher_encrypt(h.raw(), null_mut(), 0, null(), 0),
                    sgcm_cipher_decrypt(h.raw(), null_mut(), 0, null(), 0),
                ])
            };
            tag_is(&h, b"", b"", rc)
        }),
    ]);
    v.extend(tag_cases());
    v
}

fn tag_cases() -> Vec<Case> {
    let case = |name, run| Case {
        front: "handle",
        name,
        run,
    };
    vec![
        case("tag length 5", || {
            let h = ready();
            let mut t = [0u8; 16];
            let rc = h.gettag(&mut t[..5]);
            if t != [0; 16] {
                return MIXED;
            }
            tag_is(&h, b"", b"", rc) // a refused gettag does not end the message
        }),
        case("checktag length 5", || ready().checktag(&[0u8; 5])),
        case("tag length 0", || ready().gettag(&mut [])),
        case("checktag length 0 with a NULL tag", || {
            let h = ready();
            // SAFETY: open handle; zero length: the tag is not read.
            unsafe { sgcm_cipher_checktag(h.raw(), null(), 0) }
        }),
        case("tag length 17", || {
            let h = ready();
            let mut t = [0xcdu8; 17];
            let rc = h.gettag(&mut t);
            let want = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            if t[..16] != want || t[16] != 0xcd {
                return MIXED; // 16 bytes written, nothing past them
            }
            rc
        }),
        case("checktag length 17", || {
            let h = ready();
            let mut long = oracle_seal(&KEY, &IV, b"", b"").unwrap().1.to_vec();
            long.push(0);
            h.checktag(&long)
        }),
        case("NULL tag", || {
            let h = ready();
            // SAFETY: open handle; a NULL tag must be refused.
            unsafe { sgcm_cipher_gettag(h.raw(), null_mut(), 16) }
        }),
        case("checktag with a NULL tag", || {
            let h = ready();
            // SAFETY: open handle; a NULL tag with a nonzero length must be refused.
            unsafe { sgcm_cipher_checktag(h.raw(), null(), 16) }
        }),
        case("NULL tag with a bad length", || {
            let h = ready();
            // SAFETY: open handle; NULL is checked before the length.
            unsafe { sgcm_cipher_gettag(h.raw(), null_mut(), 5) }
        }),
        case("wrong tag", || {
            let h = ready();
            let mut t = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            t[0] ^= 0x80;
            let rc = h.checktag(&t);
            t[0] ^= 0x80;
            if h.checktag(&t) != 0 {
                return MIXED; // a failed check does not change the tag
            }
            rc
        }),
        case("gettag before setkey", || {
            CHandle::open(16).gettag(&mut [0u8; 16])
        }),
        case("gettag before setiv", || keyed().gettag(&mut [0u8; 16])),
        case("checktag before setiv", || keyed().checktag(&[0u8; 16])),
        case("tag twice", || {
            let h = ready();
            let (mut a, mut b) = ([0u8; 16], [1u8; 16]);
            let rc = same(&[h.gettag(&mut a), h.gettag(&mut b), h.checktag(&a)]);
            if a != b {
                return MIXED;
            }
            rc
        }),
    ]
}
