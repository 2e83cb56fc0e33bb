//! Misuse cases of the one-shot calls: `sgcm_seal`/`sgcm_open` (raw key) and
//! `sgcm_aead_seal`/`sgcm_aead_open` (a keyed handle). A refused call must write nothing:
//! the output buffers are pre-filled and checked (a failed open must never release
//! plaintext).

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

/// Which call `run` makes.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    Seal,
    Open,
    AeadSeal,
    AeadOpen,
}

/// Runs `edit`ed arguments through seal (`open` false) or open, over a valid message whose
/// output buffer holds 0x3c; returns the code, or MIXED if a refused call wrote.
fn call(open: bool, edit: impl FnOnce(&mut Args)) -> u32 {
    run(
        if open { Via::Open } else { Via::Seal },
        Handle::Keyed,
        edit,
    )
}

/// The handle the aead calls get (`a.key` is ignored by them).
#[derive(Clone, Copy)]
enum Handle {
    Keyed,
    Unkeyed,
    Reset,
    Null,
    Zeroed,
}

fn aead(open: bool, h: Handle, edit: impl FnOnce(&mut Args)) -> u32 {
    run(if open { Via::AeadOpen } else { Via::AeadSeal }, h, edit)
}

fn run(via: Via, which: Handle, edit: impl FnOnce(&mut Args)) -> u32 {
    let open = matches!(via, Via::Open | Via::AeadOpen);
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
    let handle = CHandle::open(16);
    match which {
        Handle::Keyed => assert_eq!(handle.setkey(&KEY), 0),
        Handle::Reset => assert_eq!((handle.setkey(&KEY), handle.reset()), (0, 0)),
        _ => {}
    }
    let fake = vec![0u64; 512]; // memory that never held a handle
    let h = match which {
        Handle::Null => null_mut(),
        Handle::Zeroed => fake.as_ptr() as sgcm_cipher_hd_t,
        _ => handle.raw(),
    };
    let (ta, tl) = (a.tag, a.taglen);
    // SAFETY: every pointer is valid for its length unless the case made it NULL (or gave a
    // zero length), which the functions must refuse before use; `h` is an open handle,
    // NULL, or zeroed memory that must be refused.
    let rc = unsafe {
        match via {
            Via::Open => sgcm_open(
                a.key, a.keylen, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, ta, tl,
            ),
            Via::Seal => sgcm_seal(
                a.key, a.keylen, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, ta, tl,
            ),
            Via::AeadOpen => sgcm_aead_open(
                h, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, ta, tl,
            ),
            Via::AeadSeal => sgcm_aead_seal(
                h, a.iv, a.ivlen, a.aad, a.aadlen, a.src, a.len, a.out, ta, tl,
            ),
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
    v.extend(aead_cases());
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

/// The keyed one-shot calls: the same argument cases, plus the handle's own.
fn aead_cases() -> Vec<Case> {
    use Handle::*;
    let pair = |name: &'static str, seal: fn() -> u32, open: fn() -> u32| {
        [
            Case {
                front: "aead-seal",
                name,
                run: seal,
            },
            Case {
                front: "aead-open",
                name,
                run: open,
            },
        ]
    };
    let mut v = Vec::new();
    v.extend(pair(
        "NULL handle: one-shot",
        || aead(false, Null, |_| ()),
        || aead(true, Null, |_| ()),
    ));
    v.extend(pair(
        "not an open handle (zeroed memory)",
        || aead(false, Zeroed, |_| ()),
        || aead(true, Zeroed, |_| ()),
    ));
    v.extend(pair(
        "one-shot before setkey",
        || aead(false, Unkeyed, |_| ()),
        || aead(true, Unkeyed, |_| ()),
    ));
    v.extend(pair(
        "one-shot after reset keeps the key",
        || aead(false, Reset, |_| ()),
        || aead(true, Reset, |_| ()),
    ));
    v.extend(pair(
        "bad tag length before setkey",
        || aead(false, Unkeyed, |a| a.taglen = 5),
        || aead(true, Unkeyed, |a| a.taglen = 5),
    ));
    v.extend(pair(
        "empty IV",
        || aead(false, Keyed, |a| a.ivlen = 0),
        || aead(true, Keyed, |a| a.ivlen = 0),
    ));
    v.extend(pair(
        "NULL IV, nonzero length",
        || aead(false, Keyed, |a| a.iv = null()),
        || aead(true, Keyed, |a| a.iv = null()),
    ));
    v.extend(pair(
        "NULL AAD, nonzero length",
        || aead(false, Keyed, |a| a.aad = null()),
        || aead(true, Keyed, |a| a.aad = null()),
    ));
    v.extend(pair(
        "NULL output, nonzero length",
        || aead(false, Keyed, |a| a.out = null_mut()),
        || aead(true, Keyed, |a| a.out = null_mut()),
    ));
    v.extend(pair(
        "NULL data, zero length",
        || {
            aead(false, Keyed, |a| {
                (a.aad, a.aadlen, a.src, a.len, a.out) = (null(), 0, null(), 0, null_mut())
            })
        },
        || {
            let t = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            aead(true, Keyed, |a| {
                (a.aad, a.aadlen, a.src, a.len, a.out) = (null(), 0, null(), 0, null_mut());
                a.tag = t.as_ptr() as *mut c_void;
            })
        },
    ));
    v.extend(pair(
        "tag length 5",
        || aead(false, Keyed, |a| a.taglen = 5),
        || aead(true, Keyed, |a| a.taglen = 5),
    ));
    v.extend(pair(
        "tag length 0",
        || aead(false, Keyed, |a| a.taglen = 0),
        || aead(true, Keyed, |a| a.taglen = 0),
    ));
    v.extend(pair(
        "tag length 17",
        || {
            let mut t = [0u8; 17];
            aead(false, Keyed, |a| {
                (a.tag, a.taglen) = (t.as_mut_ptr().cast(), 17)
            })
        },
        || {
            let mut t = [0u8; 17];
            t[..16].copy_from_slice(&oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap().1);
            aead(true, Keyed, |a| {
                (a.tag, a.taglen) = (t.as_mut_ptr().cast(), 17)
            })
        },
    ));
    v.extend(pair(
        "NULL tag",
        || aead(false, Keyed, |a| a.tag = null_mut()),
        || aead(true, Keyed, |a| a.tag = null_mut()),
    ));
    v.push(Case {
        front: "aead-seal",
        name: "NULL tag with a bad length",
        run: || aead(false, Keyed, |a| (a.tag, a.taglen) = (null_mut(), 5)),
    });
    v.push(Case {
        front: "aead-open",
        name: "wrong tag",
        run: || {
            let mut t = oracle_seal(&KEY, &IV, b"hdr", &PT).unwrap().1;
            t[9] ^= 2;
            aead(true, Keyed, |a| a.tag = t.as_mut_ptr().cast())
        },
    });
    v
}
