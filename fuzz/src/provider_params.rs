//! The `provider` target's calls that set and get parameters (init included: it takes
//! a key, an IV and parameters), each checked against the model (`provider_model`).

use crate::guard::Guarded;
use crate::provider::*;
use crate::provider_model::*;
use crate::provider_program::Op;
use crate::{filled, hex, TAG_LENS};
use core::ffi::c_void;
use core::ptr::null;

/// A guarded copy of `bytes`, or none (the call then gets NULL).
pub fn guarded_or_null(bytes: Option<&[u8]>, off: usize) -> Option<Guarded> {
    bytes.map(|b| Guarded::new(b, off))
}

pub fn ptr(g: &Option<Guarded>) -> *const u8 {
    g.as_ref().map_or(null(), |g| g.ptr())
}

/// Encrypt or decrypt init. Flag bits (text form): `enc`; `key` (of the algorithm's
/// length, or with `badkey` of `b % 40` bytes); `iv` (12 bytes, or with `ivlen` `a % 140`);
/// `param`, an ivlen parameter of `b % 140` applied after key and IV.
pub fn init(x: &mut Ctx, op: &Op) {
    let enc = op.bit(0);
    let seed = op.seed as u64;
    let keylen = if op.bit(2) { op.b % 40 } else { x.keylen };
    let ivlen = if op.bit(4) { op.a % 140 } else { 12 };
    let key = op.bit(1).then(|| filled(seed, keylen));
    let iv = op.bit(3).then(|| filled(seed + 1, ivlen));
    let (gk, gi) = (
        guarded_or_null(key.as_deref(), op.seed as usize),
        guarded_or_null(iv.as_deref(), op.flags as usize),
    );
    let mut ivlen_param = op.b % 140;
    let with_param = op.bit(5);
    let params = [
        OSSL_PARAM::new(
            c"ivlen",
            UNSIGNED_INTEGER,
            (&mut ivlen_param as *mut usize).cast(),
            8,
        ),
        OSSL_PARAM::end(),
    ];
    let pp = if with_param { params.as_ptr() } else { null() };
    let f = if enc { ENCRYPT_INIT } else { DECRYPT_INIT };
    // SAFETY: a live context; NULL or readable key and IV of the lengths given.
    let ok = unsafe { x.cipher().f::<Init>(f)(x.p, ptr(&gk), keylen, ptr(&gi), ivlen, pp) };
    // the model (gcm_init)
    let mut want = true;
    x.enc = enc;
    if let Some(iv) = &iv {
        if ivlen == 0 || ivlen > 128 {
            want = false;
        } else {
            x.ivlen = ivlen;
            x.iv[..ivlen].copy_from_slice(iv);
            x.iv_state = Iv::Buffered;
        }
    }
    if want {
        if let Some(k) = &key {
            if keylen != x.keylen {
                want = false;
            } else {
                x.key = Some(k.clone());
                if x.iv_state == Iv::Started {
                    x.iv_state = Iv::Buffered;
                }
            }
        }
    }
    if want && with_param {
        want = model_ivlen(x, ivlen_param);
    }
    answer("init", ok, want, false);
    for g in gk.iter().chain(gi.iter()) {
        g.check("init key/IV");
    }
}

/// tlsaad (`sane`: as libssl sets it), the AAD of the next record.
pub fn set_tls_aad(x: &mut Ctx, op: &Op, sane: bool) {
    let len = if sane || op.bit(1) { 13 } else { op.b % 20 };
    let mut aad = filled(op.seed as u64 + 5, len);
    let extra = 8 + if x.enc { 0 } else { 16 };
    if len == 13 && (sane || op.bit(2)) {
        let rec = extra + op.a % 600; // a record length libssl would give
        aad[11] = (rec >> 8) as u8;
        aad[12] = rec as u8;
    }
    let g = Guarded::new(&aad, op.seed as usize);
    let p = [
        OSSL_PARAM::new(c"tlsaad", OCTET_STRING, g.ptr() as *mut c_void, len),
        OSSL_PARAM::end(),
    ];
    let ok = set_params(x, &p);
    let mut want = false;
    if len == 13 {
        let rec = (aad[11] as usize) << 8 | aad[12] as usize;
        if rec >= extra {
            let mut a = [0u8; 13];
            a.copy_from_slice(&aad);
            a[11] = ((rec - extra) >> 8) as u8;
            a[12] = (rec - extra) as u8;
            x.tls_aad = Some(a);
            want = true;
        } else if x.tls_aad.is_some() {
            // refused, but the provider copied the 13 bytes over the pending AAD first
            let mut a = [0u8; 13];
            a.copy_from_slice(&aad);
            x.tls_aad = Some(a);
        }
    }
    answer("set tlsaad", ok, want, false);
    g.check("tlsaad");
}

/// One parameter set, chosen by `sel`. The flag bits (text form `x`, `std`, `sane`):
/// bit 0 an ivlen or keylen of any value (`b`), the whole IV as tlsivfixed (its -1 length);
/// bit 1 the length libssl uses (tlsaad 13, tlsivfixed 4, tlsivinv 8 bytes); bit 2 a
/// tlsaad length field that a record could have. Lengths otherwise from `b`.
pub fn set(x: &mut Ctx, op: &Op) {
    let seed = op.seed as u64 + 7;
    match op.sel % 6 {
        0 => {
            // tag: any length; for decryption, sometimes the right one
            let n = op.b % 24;
            let bytes = filled(seed, n);
            let g = Guarded::new(&bytes, op.flags as usize);
            let p = [
                OSSL_PARAM::new(c"tag", OCTET_STRING, g.ptr() as *mut c_void, n),
                OSSL_PARAM::end(),
            ];
            let ok = set_params(x, &p);
            let want = n <= 16 && !x.enc && TAG_LENS.contains(&n);
            if want {
                x.tag[..n].copy_from_slice(&bytes);
                x.taglen = Some(n);
            }
            answer("set tag", ok, want, false);
            if n <= 16 && ok == 0 {
                // the provider copies before checking: the stored bytes now differ, so
                // the model forgets them (a later final is then not predicted)
                x.tag[..n].copy_from_slice(&bytes);
            }
            g.check("tag");
        }
        1 => {
            let mut n = if op.bit(0) {
                op.b % 140
            } else {
                [12, 16, 1, 128, 129, 0][op.b % 6]
            };
            let p = [
                OSSL_PARAM::new(c"ivlen", UNSIGNED_INTEGER, (&mut n as *mut usize).cast(), 8),
                OSSL_PARAM::end(),
            ];
            let ok = set_params(x, &p);
            let want = model_ivlen(x, n);
            answer("set ivlen", ok, want, false);
        }
        2 => {
            let mut n = if op.bit(0) { op.b % 40 } else { x.keylen };
            let p = [
                OSSL_PARAM::new(
                    c"keylen",
                    UNSIGNED_INTEGER,
                    (&mut n as *mut usize).cast(),
                    8,
                ),
                OSSL_PARAM::end(),
            ];
            let ok = set_params(x, &p);
            answer("set keylen", ok, n == x.keylen, false);
        }
        3 => set_tls_aad(x, op, false),
        4 => {
            // tlsivfixed: the fixed part (4 bytes as libssl, or any), or the whole IV (-1)
            let whole = op.bit(0);
            let n = if whole {
                usize::MAX
            } else if op.bit(1) {
                4
            } else {
                op.b % 20
            };
            let bytes = filled(seed, if whole { x.ivlen } else { n });
            let g = Guarded::new(&bytes, op.flags as usize);
            let p = [
                OSSL_PARAM::new(c"tlsivfixed", OCTET_STRING, g.ptr() as *mut c_void, n),
                OSSL_PARAM::end(),
            ];
            let ok = set_params(x, &p);
            let want = whole || (n >= 4 && n <= x.ivlen && x.ivlen - n >= 8);
            let mut random = false;
            if want {
                x.iv[..bytes.len()].copy_from_slice(&bytes);
                random = !whole && x.enc;
                x.iv_gen = true;
                x.iv_state = Iv::Buffered;
            }
            answer("set tlsivfixed", ok, want, false);
            if random {
                learn_iv(x); // the sender's counter starts at random
            }
            g.check("tlsivfixed");
        }
        _ => {
            let n = if op.bit(1) { 8 } else { op.b % 20 };
            let bytes = filled(seed, n);
            let g = Guarded::new(&bytes, op.flags as usize);
            let p = [
                OSSL_PARAM::new(c"tlsivinv", OCTET_STRING, g.ptr() as *mut c_void, n),
                OSSL_PARAM::end(),
            ];
            let ok = set_params(x, &p);
            let want = x.iv_gen && x.key.is_some() && !x.enc && n > 0 && n <= x.ivlen;
            if want {
                let l = x.ivlen;
                x.iv[l - n..l].copy_from_slice(&bytes);
                x.iv_state = Iv::Buffered;
                x.start();
            }
            answer("set tlsivinv", ok, want, false);
            g.check("tlsivinv");
        }
    }
}

pub fn get(x: &mut Ctx, op: &Op) {
    let which = op.sel % 8;
    let size_t_param = |x: &Ctx, key: &'static core::ffi::CStr| {
        let mut v = 0x5a5a_usize;
        let mut p = [
            OSSL_PARAM::new(key, UNSIGNED_INTEGER, (&mut v as *mut usize).cast(), 8),
            OSSL_PARAM::end(),
        ];
        // SAFETY: a live context, a writable size_t.
        let ok = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
        (ok, v)
    };
    match which {
        0 | 1 | 2 | 5 => {
            let (key, want) = match which {
                0 => (c"ivlen", x.ivlen),
                1 => (c"keylen", x.keylen),
                2 => (c"taglen", x.taglen.unwrap_or(16)),
                _ => (c"tlsaadpad", 16),
            };
            let (ok, v) = size_t_param(x, key);
            answer("get size_t", ok, true, false);
            assert_eq!(v, want, "get {key:?}");
        }
        3 | 4 => {
            let n = op.b % 140;
            let mut g = Guarded::filled(n, 0x6b, op.flags as usize);
            let key = if which == 3 { c"iv" } else { c"updated-iv" };
            let mut p = [
                OSSL_PARAM::new(key, OCTET_STRING, g.mut_ptr().cast(), n),
                OSSL_PARAM::end(),
            ];
            // SAFETY: a live context, n writable bytes.
            let ok = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
            let want = x.iv_state != Iv::None && x.ivlen <= n;
            answer("get iv", ok, want, false);
            if want {
                assert_eq!(
                    hex(&g.bytes()[..x.ivlen]),
                    hex(&x.iv[..x.ivlen]),
                    "get {key:?}"
                );
                assert_eq!(p[0].return_size, x.ivlen, "iv return_size");
            }
            g.check("iv out");
        }
        6 => {
            let n = op.b % 20;
            let mut g = Guarded::filled(n, 0x6b, op.flags as usize);
            let mut p = [
                OSSL_PARAM::new(c"tag", OCTET_STRING, g.mut_ptr().cast(), n),
                OSSL_PARAM::end(),
            ];
            // SAFETY: a live context, n writable bytes.
            let ok = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
            let want = n > 0 && n <= 16 && x.enc && x.taglen.is_some();
            answer("get tag", ok, want, false);
            if want {
                assert_eq!(hex(g.bytes()), hex(&x.tag[..n]), "get tag");
            }
            g.check("tag out");
        }
        _ => {
            // tlsivgen: a declared size of 0 or above ivlen means ivlen bytes (as OpenSSL):
            // the buffer has room for them
            let n = op.b % 20;
            let room = if n == 0 || n > x.ivlen { x.ivlen } else { n };
            let mut g = Guarded::filled(room, 0x6b, op.flags as usize);
            let mut p = [
                OSSL_PARAM::new(c"tlsivgen", OCTET_STRING, g.mut_ptr().cast(), n),
                OSSL_PARAM::end(),
            ];
            // SAFETY: a live context, max(n, ivlen) writable bytes.
            let ok = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
            let want = x.iv_gen && x.key.is_some() && x.ivlen >= 8;
            if want {
                x.iv_state = Iv::Buffered;
                x.start(); // under the current IV; the counter then moves on
                let l = x.ivlen;
                assert_eq!(hex(g.bytes()), hex(&x.iv[l - room..l]), "tlsivgen");
                increment(&mut x.iv[..l]);
            }
            answer("get tlsivgen", ok, want, false);
            g.check("tlsivgen out");
        }
    }
}
