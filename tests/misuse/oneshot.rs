//! Misuse cases of `sgcm_seal` and `sgcm_open`. A refused call must write nothing: the
//! output buffers are pre-filled and checked (a failed open must never release plaintext).

use crate::common::*;
use crate::{same, Case, MIXED};
use core::ffi::c_void;
use core::ptr::{null, null_mut};
use stitchgcm::ffi::native::*;

const KEY: [u8; 16] = [7; 16];
const IV: [u8; 12] = [9; 12];
const PT: [u8; 24] = [0x10; 24];

/// Raw arguments of one call, so a case can replace any pointer or length.
struct Args {
    key: *const c_void,
    keylen: usize,
    iv: *const c_void,
    ivlen: usize,
    aad: *const c_void,
    aadlen: usize,
    src: *const c_void,
    len: usize,
    out: *mut c_void,
    tag: *mut c_void,
    taglen: usize,
}

/// Runs `edit`ed arguments through seal (`open` false) or open, over a valid message whose
/// output buffer holds 0x3c; returns the code, or MIXED if a refused call wrote.
fn call(open: bool, edit: impl FnOnce(&mut Args)) -> u32 {
    let (ct, mut tag) = oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap();
    let mut out = [0x3cu8; 24];
    let mut a = Args {
        key: KEY.as_ptr().cast(),
        keylen: 16,
        iv: IV.as_ptr().cast(),
        ivlen: 12,
        aad: b"hdr".as_ptr().cast(),
        aadlen: 3,
        src: if open { ct.as_ptr() } else { PT.as_ptr() }.cast(),
        len: 24,
        out: out.as_mut_ptr().cast(),
        tag: tag.as_mut_ptr().cast(),
        taglen: 16,
    };
    edit(&mut a);
    // SAFETY: every pointer is valid for its length unless the case made it NULL (or gave a
    // zero length), which the functions must refuse before use.
    let rc = unsafe {
        if open {
            sgcm_open(
                a.key, a.keylen, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, a.tag,
                a.taglen,
            )
        } else {
            sgcm_seal(
                a.key, a.keylen, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, a.tag,
                a.taglen,
            )
        }
    };
    if rc != 0 && out != [0x3c; 24] {
        eprintln!("a refused call wrote its output");
        return MIXED;
    }
    rc
}

/// The same edit through seal and open, as a pair of cases.
fn both(name: &'static str, seal: fn() -> u32, open: fn() -> u32) -> [Case; 2] {
    [
        Case {
            front: "seal",
            name,
            run: seal,
        },
        Case {
            front: "open",
            name,
            run: open,
        },
    ]
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(both(
        "NULL key, nonzero length",
        || call(false, |a| a.key = null()),
        || call(true, |a| a.key = null()),
    ));
    v.extend(both(
        "key length does not fit",
        || same(&[15, 17, 20, 33].map(|n| call(false, |a| a.keylen = n))),
        || same(&[15, 17, 20, 33].map(|n| call(true, |a| a.keylen = n))),
    ));
    v.extend(both(
        "empty key",
        || call(false, |a| (a.key, a.keylen) = (null(), 0)),
        || call(true, |a| (a.key, a.keylen) = (null(), 0)),
    ));
    v.extend(both(
        "empty IV",
        || call(false, |a| a.ivlen = 0),
        || call(true, |a| a.ivlen = 0),
    ));
    v.extend(both(
        "NULL IV, nonzero length",
        || call(false, |a| a.iv = null()),
        || call(true, |a| a.iv = null()),
    ));
    v.extend(both(
        "NULL AAD, nonzero length",
        || call(false, |a| a.aad = null()),
        || call(true, |a| a.aad = null()),
    ));
    v.extend(both(
        "NULL output, nonzero length",
        || call(false, |a| a.out = null_mut()),
        || call(true, |a| a.out = null_mut()),
    ));
    v.extend(both(
        "NULL data, zero length",
        || {
            call(false, |a| {
                (a.aad, a.aadlen, a.src, a.len, a.out) = (null(), 0, null(), 0, null_mut())
            })
        },
        || {
            // The tag of the empty message with no AAD.
            let t = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            call(true, |a| {
                (a.aad, a.aadlen, a.src, a.len, a.out) = (null(), 0, null(), 0, null_mut());
                a.tag = t.as_ptr() as *mut c_void;
            })
        },
    ));
    v.extend(both(
        "tag length 5",
        || call(false, |a| a.taglen = 5),
        || call(true, |a| a.taglen = 5),
    ));
    v.extend(both(
        "tag length 0",
        || call(false, |a| a.taglen = 0),
        || call(true, |a| a.taglen = 0),
    ));
    v.extend(both(
        "tag length 17",
        || {
            let mut t = [0u8; 17];
            call(false, |a| (a.tag, a.taglen) = (t.as_mut_ptr().cast(), 17))
        },
        || {
            let mut t = [0u8; 17];
            t[..16].copy_from_slice(&oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap().1);
            call(true, |a| (a.tag, a.taglen) = (t.as_mut_ptr().cast(), 17))
        },
    ));
    v.extend(both(
        "NULL tag",
        || call(false, |a| a.tag = null_mut()),
        || call(true, |a| a.tag = null_mut()),
    ));
    v.extend(both(
        "bad key length and bad tag length",
        || call(false, |a| (a.keylen, a.taglen) = (15, 3)),
        || call(true, |a| (a.keylen, a.taglen) = (15, 3)),
    ));
    v.push(Case {
        front: "open",
        name: "wrong tag",
        run: || {
            let rcs = [0, 7, 15].map(|byte| {
                let mut t = oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap().1;
                t[byte] ^= 4;
                call(true, |a| a.tag = t.as_mut_ptr().cast())
            });
            // In place too: the buffer must still hold the ciphertext.
            let (ct, mut t) = oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap();
            t[3] ^= 8;
            let mut buf = ct.clone();
            let rc = c_open_in_place(&KEY, &IV, b"hdr", &mut buf, &t);
            if buf != ct {
                return MIXED;
            }
            same(&[rcs[0], rcs[1], rcs[2], rc])
        },
    });
    v
}
