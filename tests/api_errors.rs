//! Error behaviour of the Rust API and the native C ABI (no external vectors; expected
//! tags come from the library's own successful calls or, where a value matters, from the
//! independent RustCrypto `aes-gcm` oracle): argument validation, NULL pointers, call
//! order, tag lengths, buffer sizes, `reset`/`close`, `sgcm_strerror`, the backend names,
//! that a rejected call changes nothing, and the SP 800-38D data-length limit (on 64-bit
//! Linux, through a huge but genuinely mapped buffer; see `data_length_limit`).

mod common;

use common::*;
use core::ffi::{c_void, CStr};
use core::ptr::{null, null_mut};
use stitchgcm::ffi::native::*;
use stitchgcm::{cpu, open, seal, Error, Key, Message};

const KEY: [u8; 16] = [7; 16];
const IV: [u8; 12] = [9; 12];

fn key() -> Key {
    Key::new(&KEY).unwrap()
}

/// A keyed handle with an IV set (AES-128).
fn ready_handle() -> CHandle {
    let h = CHandle::open(16);
    assert_eq!(h.setkey(&KEY), SGCM_ERR_NO_ERROR);
    assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
    h
}

/// The full tag of (KEY, IV, aad, pt) from the oracle.
fn oracle_tag(aad: &[u8], pt: &[u8]) -> [u8; 16] {
    oracle_seal(&KEY, &IV, aad, pt).unwrap().1
}

// ---------------------------------------------------------------- Rust API

#[test]
fn rust_key_lengths() {
    for len in 0..=64 {
        let k = vec![1u8; len];
        let ok = matches!(len, 16 | 24 | 32);
        match Key::new(&k) {
            Ok(key) => {
                assert!(ok, "Key::new accepted a {len}-byte key");
                assert_eq!(key.key_len(), len);
                assert_eq!(key.backend_name(), cpu::selected().unwrap().name());
            }
            Err(e) => {
                assert!(!ok, "Key::new rejected a {len}-byte key");
                assert_eq!(e, Error::InvalidKeyLength);
            }
        }
        for b in backends() {
            let r = Key::with_backend(&k, b);
            assert_eq!(
                r.is_ok(),
                ok,
                "Key::with_backend({len} bytes, {})",
                b.name()
            );
            if let Err(e) = r {
                assert_eq!(e, Error::InvalidKeyLength);
            }
        }
    }
}

#[test]
fn rust_backend_lookup() {
    assert_eq!(cpu::by_name("no-such-backend"), Err(Error::NotSupported));
    assert_eq!(cpu::by_name(""), Err(Error::NotSupported));
    for b in backends() {
        assert_eq!(cpu::by_name(b.name()), Ok(b));
        assert!(cpu::compiled().contains(&b));
        let k = Key::with_backend(&KEY, b).unwrap();
        assert_eq!(k.backend(), b);
        assert_eq!(k.backend_name(), b.name());
    }
    assert!(backends().contains(&cpu::selected().unwrap()));
}

#[test]
fn rust_iv_lengths() {
    let key = key();
    assert_eq!(Message::new(&key, &[]).err(), Some(Error::InvalidLength));
    for len in [1, 11, 12, 13, 16, 17, 64, 1000] {
        assert!(
            Message::new(&key, &vec![3u8; len]).is_ok(),
            "IV of {len} bytes"
        );
    }
    let mut ct = [0u8; 4];
    let mut tag = [0u8; 16];
    assert_eq!(
        seal(&key, &[], b"", b"abcd", &mut ct, &mut tag),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        open(&key, &[], b"", &ct, &mut [0u8; 4], &tag),
        Err(Error::InvalidLength)
    );
}

#[test]
fn rust_phase_errors() {
    let key = key();
    let (aad, pt) = (b"header bytes", b"some plaintext, 31 bytes long..");
    let want = oracle_tag(aad, pt);

    // AAD after data is refused and changes nothing.
    let mut m = Message::new(&key, &IV).unwrap();
    m.aad(&key, aad).unwrap();
    let mut buf = *pt;
    m.encrypt(&key, &mut buf[..5]).unwrap();
    assert_eq!(m.aad(&key, b"late"), Err(Error::InvalidState));
    assert_eq!(m.aad(&key, b""), Err(Error::InvalidState));
    m.encrypt(&key, &mut buf[5..]).unwrap();
    let mut tag = [0u8; 16];
    m.tag(&key, &mut tag).unwrap();
    assert_eq!(tag, want);

    // After the tag: no more data or AAD, the same tag again, and verify agrees.
    assert_eq!(m.encrypt(&key, &mut [0u8; 3]), Err(Error::InvalidState));
    assert_eq!(m.decrypt(&key, &mut [0u8; 3]), Err(Error::InvalidState));
    assert_eq!(m.encrypt(&key, &mut []), Err(Error::InvalidState));
    assert_eq!(
        m.encrypt_to(&key, b"x", &mut [0u8; 1]),
        Err(Error::InvalidState)
    );
    assert_eq!(
        m.decrypt_to(&key, b"x", &mut [0u8; 1]),
        Err(Error::InvalidState)
    );
    assert_eq!(m.aad(&key, b"x"), Err(Error::InvalidState));
    let mut again = [0u8; 16];
    m.tag(&key, &mut again).unwrap();
    assert_eq!(again, want, "a second tag call gives the same tag");
    assert_eq!(m.verify(&key, &want), Ok(()));
    assert_eq!(m.verify(&key, &want[..12]), Ok(()));

    // Verify ends the message too.
    let mut m = Message::new(&key, &IV).unwrap();
    m.aad(&key, aad).unwrap();
    let mut buf2 = buf;
    m.decrypt(&key, &mut buf2).unwrap();
    assert_eq!(&buf2, pt);
    assert_eq!(m.verify(&key, &want), Ok(()));
    assert_eq!(m.decrypt(&key, &mut [0u8; 1]), Err(Error::InvalidState));
    assert_eq!(m.aad(&key, b"x"), Err(Error::InvalidState));
}

#[test]
fn rust_tag_lengths() {
    let key = key();
    let (aad, pt) = (b"a", b"0123456789abcdefXYZ");
    let want = oracle_tag(aad, pt);
    for n in 0..=20 {
        let ok = matches!(n, 4 | 8 | 12..=16);
        let mut m = Message::new(&key, &IV).unwrap();
        m.aad(&key, aad).unwrap();
        let mut buf = *pt;
        m.encrypt(&key, &mut buf[..7]).unwrap();
        let mut out = vec![0u8; n];
        let r = m.tag(&key, &mut out);
        if ok {
            assert_eq!(r, Ok(()), "tag length {n}");
            assert_eq!(out[..], oracle_tag(aad, &pt[..7])[..n], "tag length {n}");
        } else {
            assert_eq!(r, Err(Error::InvalidLength), "tag length {n}");
            assert!(out.iter().all(|&x| x == 0), "a rejected tag call wrote");
            // The rejected call did not end the message.
            m.encrypt(&key, &mut buf[7..]).unwrap();
            let mut t = [0u8; 16];
            m.tag(&key, &mut t).unwrap();
            assert_eq!(t, want, "after a rejected tag length {n}");
        }

        let mut m = Message::new(&key, &IV).unwrap();
        m.aad(&key, aad).unwrap();
        let mut ct = *pt;
        m.encrypt(&key, &mut ct).unwrap();
        let mut m = Message::new(&key, &IV).unwrap();
        m.aad(&key, aad).unwrap();
        m.decrypt(&key, &mut ct).unwrap();
        let expected = if n <= 16 {
            want[..n].to_vec()
        } else {
            vec![0; n]
        };
        let r = m.verify(&key, &expected);
        if ok {
            assert_eq!(r, Ok(()), "verify length {n}");
            let mut bad = expected.clone();
            bad[n / 2] ^= 4;
            assert_eq!(
                m.verify(&key, &bad),
                Err(Error::TagMismatch),
                "verify bad tag length {n}"
            );
        } else {
            assert_eq!(r, Err(Error::InvalidLength), "verify length {n}");
        }

        // One-shot functions.
        let mut ct = [0u8; 19];
        let mut t = vec![0u8; n];
        let r = seal(&key, &IV, aad, pt, &mut ct, &mut t);
        assert_eq!(
            r,
            if ok {
                Ok(())
            } else {
                Err(Error::InvalidLength)
            },
            "seal tag length {n}"
        );
        if ok {
            assert_eq!(t[..], want[..n]);
            let mut back = [0u8; 19];
            assert_eq!(open(&key, &IV, aad, &ct, &mut back, &t), Ok(()));
            assert_eq!(&back, pt);
        } else {
            let mut back = [0xabu8; 19];
            assert_eq!(
                open(&key, &IV, aad, &ct, &mut back, &t),
                Err(Error::InvalidLength)
            );
            assert!(back.iter().all(|&x| x == 0xab));
        }
    }
}

#[test]
fn rust_buffer_too_short() {
    let key = key();
    let src = [1u8; 40];
    for dst_len in [0, 1, 16, 39] {
        let mut m = Message::new(&key, &IV).unwrap();
        let mut dst = vec![0xeeu8; dst_len];
        assert_eq!(
            m.encrypt_to(&key, &src, &mut dst),
            Err(Error::BufferTooShort)
        );
        assert_eq!(
            m.decrypt_to(&key, &src, &mut dst),
            Err(Error::BufferTooShort)
        );
        assert!(dst.iter().all(|&x| x == 0xee), "a rejected call wrote");
        // Nothing was consumed: AAD is still allowed and the tag is the empty message's.
        m.aad(&key, b"aad").unwrap();
        let mut t = [0u8; 16];
        m.tag(&key, &mut t).unwrap();
        assert_eq!(t, oracle_tag(b"aad", b""));

        let mut tag = [0u8; 16];
        assert_eq!(
            seal(&key, &IV, b"", &src, &mut dst, &mut tag),
            Err(Error::BufferTooShort)
        );
        assert_eq!(
            open(&key, &IV, b"", &src, &mut dst, &tag),
            Err(Error::BufferTooShort)
        );
        assert!(
            dst.iter().all(|&x| x == 0xee),
            "a rejected one-shot call wrote"
        );
    }
}

#[test]
fn rust_open_mismatch_writes_nothing() {
    let key = key();
    let pt = [0x42u8; 70];
    let mut ct = [0u8; 70];
    let mut tag = [0u8; 16];
    seal(&key, &IV, b"aad", &pt, &mut ct, &mut tag).unwrap();
    tag[15] ^= 1;
    let mut out = [0x99u8; 70];
    assert_eq!(
        open(&key, &IV, b"aad", &ct, &mut out, &tag),
        Err(Error::TagMismatch)
    );
    assert_eq!(out, [0x99u8; 70]);
    tag[15] ^= 1;
    assert_eq!(
        open(&key, &IV, b"aae", &ct, &mut out, &tag),
        Err(Error::TagMismatch)
    );
    assert_eq!(
        open(&key, &[9u8; 13], b"aad", &ct, &mut out, &tag),
        Err(Error::TagMismatch)
    );
    assert_eq!(out, [0x99u8; 70]);
    assert_eq!(open(&key, &IV, b"aad", &ct, &mut out, &tag), Ok(()));
    assert_eq!(out, pt);
}

#[test]
fn error_codes_are_gpg_error_codes() {
    let table = [
        (Error::TagMismatch, SGCM_ERR_CHECKSUM, 10),
        (Error::CipherAlgo, SGCM_ERR_CIPHER_ALGO, 12),
        (Error::InvalidKeyLength, SGCM_ERR_INV_KEYLEN, 44),
        (Error::InvalidArgument, SGCM_ERR_INV_ARG, 45),
        (Error::NotSupported, SGCM_ERR_NOT_SUPPORTED, 60),
        (Error::InvalidMode, SGCM_ERR_INV_CIPHER_MODE, 71),
        (Error::InvalidLength, SGCM_ERR_INV_LENGTH, 139),
        (Error::InvalidState, SGCM_ERR_INV_STATE, 156),
        (Error::MissingKey, SGCM_ERR_MISSING_KEY, 181),
        (Error::BufferTooShort, SGCM_ERR_BUFFER_TOO_SHORT, 200),
    ];
    assert_eq!(SGCM_ERR_NO_ERROR, 0);
    for (e, c, gpg) in table {
        assert_eq!(e.code(), gpg, "{e:?}");
        assert_eq!(c, gpg, "{e:?}");
        assert!(!e.message().is_empty());
        assert_eq!(e.to_string(), e.message());
        // SAFETY: sgcm_strerror returns a static NUL-terminated string (checked non-NULL).
        let s = unsafe { CStr::from_ptr(non_null(sgcm_strerror(c))) };
        assert_eq!(s.to_str().unwrap(), e.message(), "strerror({c})");
    }
}

// ---------------------------------------------------------------- C ABI

fn non_null<T>(p: *const T) -> *const T {
    assert!(!p.is_null());
    p
}

#[test]
fn c_null_handle() {
    let h: sgcm_cipher_hd_t = null_mut();
    let mut buf = [0u8; 16];
    let p = buf.as_mut_ptr() as *mut c_void;
    // SAFETY: every call gets a NULL handle, which the functions must reject before
    // touching anything; the other pointers are valid for the lengths given.
    unsafe {
        assert_eq!(
            sgcm_cipher_setkey(h, KEY.as_ptr().cast(), 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_cipher_setiv(h, IV.as_ptr().cast(), 12),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(sgcm_cipher_authenticate(h, p, 16), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_encrypt(h, p, 16, null(), 0), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_decrypt(h, p, 16, null(), 0), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_gettag(h, p, 16), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_checktag(h, p, 16), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_reset(h), SGCM_ERR_INV_ARG);
        sgcm_cipher_close(h); // a no-op
        sgcm_cipher_close(null_mut());
    }
    assert_eq!(buf, [0u8; 16]);
}

fn try_open(algo: i32, mode: i32, flags: u32) -> (u32, sgcm_cipher_hd_t) {
    // A non-NULL marker that the failing open must overwrite with NULL (never dereferenced).
    let mut h: sgcm_cipher_hd_t = core::ptr::NonNull::dangling().as_ptr();
    // SAFETY: `h` is a valid place for a handle pointer.
    let rc = unsafe { sgcm_cipher_open(&mut h, algo, mode, flags) };
    (rc, h)
}

fn close(h: sgcm_cipher_hd_t) {
    // SAFETY: `h` is NULL or a handle returned by a successful open, closed once.
    unsafe { sgcm_cipher_close(h) }
}

#[test]
fn c_open_errors() {
    // SAFETY: NULL `hd` must be rejected without being written.
    let rc = unsafe { sgcm_cipher_open(null_mut(), SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0) };
    assert_eq!(rc, SGCM_ERR_INV_ARG);

    for algo in [-1, 0, 1, 2, 6, 10, 11, 301, i32::MAX] {
        let (rc, h) = try_open(algo, SGCM_MODE_GCM, 0);
        assert_eq!(rc, SGCM_ERR_CIPHER_ALGO, "algo {algo}");
        assert!(h.is_null(), "algo {algo}: *hd not NULL after a failure");
    }
    for mode in [-1, 0, 1, 2, 6, 8, 10, 11, 16] {
        let (rc, h) = try_open(SGCM_CIPHER_AES256, mode, 0);
        assert_eq!(rc, SGCM_ERR_INV_CIPHER_MODE, "mode {mode}");
        assert!(h.is_null(), "mode {mode}: *hd not NULL after a failure");
    }
    for flags in [0x20, 0x100, 0x8000_0000] {
        let (rc, h) = try_open(SGCM_CIPHER_AES192, SGCM_MODE_GCM, flags);
        assert_eq!(rc, SGCM_ERR_CIPHER_ALGO, "flags {flags:#x}");
        assert!(h.is_null());
    }
    for algo in [SGCM_CIPHER_AES128, SGCM_CIPHER_AES192, SGCM_CIPHER_AES256] {
        for flags in [0, SGCM_FLAG_SECURE, 0x1f] {
            let (rc, h) = try_open(algo, SGCM_MODE_GCM, flags);
            assert_eq!(rc, SGCM_ERR_NO_ERROR, "algo {algo} flags {flags:#x}");
            assert!(!h.is_null());
            close(h);
        }
    }
}

#[test]
fn c_setkey_errors() {
    for key_len in [16, 24, 32] {
        let h = CHandle::open(key_len);
        for wrong in [0, 1, 15, 17, 31, 33, 64].into_iter().chain([16, 24, 32]) {
            if wrong == key_len {
                continue;
            }
            assert_eq!(
                h.setkey(&vec![5u8; wrong]),
                SGCM_ERR_INV_KEYLEN,
                "{wrong}-byte key on AES-{}",
                8 * key_len
            );
        }
        // SAFETY: open handle; NULL key with a nonzero length must be rejected.
        let rc = unsafe { sgcm_cipher_setkey(h.raw(), null(), key_len) };
        assert_eq!(rc, SGCM_ERR_INV_ARG);
        // Still no key: data is refused with MISSING_KEY.
        assert_eq!(h.encrypt_in_place(&mut [0u8; 4]), SGCM_ERR_MISSING_KEY);
        assert_eq!(h.setkey(&vec![5u8; key_len]), SGCM_ERR_NO_ERROR);
    }
}

#[test]
fn c_call_order_errors() {
    let mut buf = [0u8; 32];
    let mut tag = [0u8; 16];

    // No key yet.
    let h = CHandle::open(16);
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_MISSING_KEY);
    assert_eq!(h.decrypt_in_place(&mut buf), SGCM_ERR_MISSING_KEY);
    assert_eq!(h.encrypt_to(&[1; 8], &mut buf), SGCM_ERR_MISSING_KEY);
    assert_eq!(h.setiv(&IV), SGCM_ERR_INV_STATE);
    assert_eq!(h.authenticate(b"aad"), SGCM_ERR_INV_STATE);
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_INV_STATE);
    assert_eq!(h.checktag(&tag), SGCM_ERR_INV_STATE);
    assert_eq!(buf, [0u8; 32]);

    // Key but no IV.
    assert_eq!(h.setkey(&KEY), SGCM_ERR_NO_ERROR);
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_INV_STATE);
    assert_eq!(h.decrypt_to(&[1; 8], &mut buf), SGCM_ERR_INV_STATE);
    assert_eq!(h.authenticate(b"aad"), SGCM_ERR_INV_STATE);
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_INV_STATE);
    assert_eq!(h.checktag(&tag), SGCM_ERR_INV_STATE);
    assert_eq!(buf, [0u8; 32]);

    // Bad IVs leave the handle without an IV.
    assert_eq!(h.setiv(&[]), SGCM_ERR_INV_LENGTH);
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_INV_STATE);
    assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
    // SAFETY: open handle; NULL IV with a nonzero length must be rejected.
    let rc = unsafe { sgcm_cipher_setiv(h.raw(), null(), 12) };
    assert_eq!(rc, SGCM_ERR_INV_ARG);
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_INV_STATE);

    // AAD after data.
    assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
    assert_eq!(h.authenticate(b"aad"), SGCM_ERR_NO_ERROR);
    assert_eq!(h.encrypt_in_place(&mut buf[..5]), SGCM_ERR_NO_ERROR);
    assert_eq!(h.authenticate(b"late"), SGCM_ERR_INV_STATE);
    assert_eq!(h.encrypt_in_place(&mut buf[5..]), SGCM_ERR_NO_ERROR);
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_NO_ERROR);
    assert_eq!(
        tag,
        oracle_tag(b"aad", &[0u8; 32]),
        "the refused AAD changed nothing"
    );

    // Data and AAD after gettag; gettag again gives the same tag; checktag agrees.
    assert_eq!(h.encrypt_in_place(&mut [0u8; 1]), SGCM_ERR_INV_STATE);
    assert_eq!(h.decrypt_in_place(&mut [0u8; 1]), SGCM_ERR_INV_STATE);
    assert_eq!(h.authenticate(b"x"), SGCM_ERR_INV_STATE);
    let mut again = [0u8; 16];
    assert_eq!(h.gettag(&mut again), SGCM_ERR_NO_ERROR);
    assert_eq!(again, tag);
    assert_eq!(h.checktag(&tag), SGCM_ERR_NO_ERROR);

    // A new IV starts a new message; a new key ends it.
    assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
    assert_eq!(h.encrypt_in_place(&mut [0u8; 3]), SGCM_ERR_NO_ERROR);
    assert_eq!(h.setkey(&KEY), SGCM_ERR_NO_ERROR);
    assert_eq!(h.encrypt_in_place(&mut [0u8; 3]), SGCM_ERR_INV_STATE);
}

#[test]
fn c_buffer_errors() {
    let h = ready_handle();
    let src = [3u8; 20];
    let mut dst = [0xeeu8; 20];
    assert_eq!(
        h.encrypt_to(&src, &mut dst[..19]),
        SGCM_ERR_BUFFER_TOO_SHORT
    );
    assert_eq!(h.decrypt_to(&src, &mut dst[..0]), SGCM_ERR_BUFFER_TOO_SHORT);
    assert_eq!(dst, [0xeeu8; 20]);
    // SAFETY: open handle; NULL `out` with a nonzero length must be rejected; `src` is
    // readable for 20 bytes.
    unsafe {
        assert_eq!(
            sgcm_cipher_encrypt(h.raw(), null_mut(), 20, src.as_ptr().cast(), 20),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_cipher_decrypt(h.raw(), null_mut(), 16, null(), 0),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_cipher_authenticate(h.raw(), null(), 1),
            SGCM_ERR_INV_ARG
        );
        // Zero lengths with NULL pointers are fine.
        assert_eq!(
            sgcm_cipher_authenticate(h.raw(), null(), 0),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(
            sgcm_cipher_encrypt(h.raw(), null_mut(), 0, null(), 0),
            SGCM_ERR_NO_ERROR
        );
    }
    // Nothing was consumed by the failures: the message is still the empty one.
    let mut tag = [0u8; 16];
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_NO_ERROR);
    assert_eq!(tag, oracle_tag(b"", b""));
    // SAFETY: open handle; NULL tag pointers must be rejected.
    unsafe {
        assert_eq!(
            sgcm_cipher_gettag(h.raw(), null_mut(), 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(sgcm_cipher_checktag(h.raw(), null(), 16), SGCM_ERR_INV_ARG);
    }
}

#[test]
fn c_tag_lengths() {
    let pt = [0x61u8; 21];
    let want = oracle_tag(b"hdr", &pt);
    let start = || {
        let h = ready_handle();
        assert_eq!(h.authenticate(b"hdr"), SGCM_ERR_NO_ERROR);
        let mut buf = pt;
        assert_eq!(h.encrypt_in_place(&mut buf[..10]), SGCM_ERR_NO_ERROR);
        (h, buf)
    };
    for n in 0..=16usize {
        let ok = matches!(n, 4 | 8 | 12..=16);
        // gettag: a rejected length writes nothing and does not end the message.
        let (h, mut buf) = start();
        let mut out = [0u8; 16];
        let rc = h.gettag(&mut out[..n]);
        if ok {
            assert_eq!(rc, SGCM_ERR_NO_ERROR, "gettag {n}");
            assert_eq!(out[..n], oracle_tag(b"hdr", &pt[..10])[..n], "gettag {n}");
            assert!(
                out[n..].iter().all(|&x| x == 0),
                "gettag {n} wrote too much"
            );
        } else {
            assert_eq!(rc, SGCM_ERR_INV_LENGTH, "gettag {n}");
            assert_eq!(out, [0u8; 16]);
            assert_eq!(h.encrypt_in_place(&mut buf[10..]), SGCM_ERR_NO_ERROR);
            assert_eq!(h.gettag(&mut out), SGCM_ERR_NO_ERROR);
            assert_eq!(out, want, "after a rejected gettag({n})");
        }

        // checktag with the right prefix.
        let (h, mut buf) = start();
        assert_eq!(h.encrypt_in_place(&mut buf[10..]), SGCM_ERR_NO_ERROR);
        let rc = h.checktag(&want[..n]);
        assert_eq!(
            rc,
            if ok {
                SGCM_ERR_NO_ERROR
            } else {
                SGCM_ERR_INV_LENGTH
            },
            "checktag {n}"
        );
        if ok {
            let mut bad = want[..n].to_vec();
            bad[0] ^= 0x80;
            assert_eq!(h.checktag(&bad), SGCM_ERR_CHECKSUM, "checktag {n} mismatch");
            assert_eq!(
                h.checktag(&want[..n]),
                SGCM_ERR_NO_ERROR,
                "checktag {n} again"
            );
        }
    }

    // Longer than 16: gettag writes 16 bytes, checktag always reports CHECKSUM.
    for n in [17usize, 20, 32, 64] {
        let (h, mut buf) = start();
        assert_eq!(h.encrypt_in_place(&mut buf[10..]), SGCM_ERR_NO_ERROR);
        let mut out = vec![0xcdu8; n];
        assert_eq!(h.gettag(&mut out), SGCM_ERR_NO_ERROR, "gettag {n}");
        assert_eq!(out[..16], want[..], "gettag {n}");
        assert!(
            out[16..].iter().all(|&x| x == 0xcd),
            "gettag {n} wrote past 16 bytes"
        );

        let mut long = want.to_vec();
        long.resize(n, 0);
        assert_eq!(h.checktag(&long), SGCM_ERR_CHECKSUM, "checktag {n}");
        assert_eq!(h.checktag(&want), SGCM_ERR_NO_ERROR);
    }
}

#[test]
fn c_reset_forgets_the_key() {
    let h = ready_handle();
    assert_eq!(h.authenticate(b"x"), SGCM_ERR_NO_ERROR);
    assert_eq!(h.reset(), SGCM_ERR_NO_ERROR);
    let mut buf = [0u8; 16];
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_MISSING_KEY);
    assert_eq!(h.decrypt_in_place(&mut buf), SGCM_ERR_MISSING_KEY);
    assert_eq!(h.setiv(&IV), SGCM_ERR_INV_STATE);
    assert_eq!(h.authenticate(b"x"), SGCM_ERR_INV_STATE);
    let mut tag = [0u8; 16];
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_INV_STATE);
    assert_eq!(buf, [0u8; 16]);
    assert_eq!(h.reset(), SGCM_ERR_NO_ERROR, "reset twice");

    // Usable again after a new key.
    assert_eq!(h.setkey(&KEY), SGCM_ERR_NO_ERROR);
    assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
    assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_NO_ERROR);
    assert_eq!(h.gettag(&mut tag), SGCM_ERR_NO_ERROR);
    let (ct, t) = oracle_seal(&KEY, &IV, b"", &[0u8; 16]).unwrap();
    assert_eq!((buf.to_vec(), tag), (ct, t));
}

#[test]
fn c_strerror_never_null() {
    let mut codes: Vec<u32> = (0..=512).collect();
    codes.extend([1 << 15, (1 << 16) | 10, u32::MAX - 1, u32::MAX]);
    for c in codes {
        let p = sgcm_strerror(c);
        assert!(!p.is_null(), "strerror({c}) is NULL");
        // SAFETY: non-NULL, and documented to be a static NUL-terminated string.
        let s = unsafe { CStr::from_ptr(p) };
        let s = s
            .to_str()
            .unwrap_or_else(|_| panic!("strerror({c}) is not UTF-8"));
        assert!(!s.is_empty(), "strerror({c}) is empty");
    }
    // SAFETY: as above.
    let ok = unsafe { CStr::from_ptr(sgcm_strerror(0)) };
    assert_eq!(ok.to_str().unwrap(), "Success");
}

#[test]
fn c_impl_names() {
    let p = sgcm_impl_name();
    assert!(
        !p.is_null(),
        "sgcm_impl_name() is NULL (is STITCHGCM_IMPL set to something unknown?)"
    );
    // SAFETY: non-NULL static NUL-terminated string.
    let name = unsafe { CStr::from_ptr(p) }.to_str().unwrap();
    assert_eq!(name, cpu::selected().unwrap().name());
    if let Ok(forced) = std::env::var("STITCHGCM_IMPL") {
        if !forced.is_empty() {
            assert_eq!(name, forced, "STITCHGCM_IMPL is honoured");
        }
    }

    let avail = cpu::available();
    for (i, b) in avail.iter().enumerate() {
        let p = sgcm_impl_available(i);
        assert!(!p.is_null(), "sgcm_impl_available({i}) is NULL");
        // SAFETY: non-NULL static NUL-terminated string.
        let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap();
        assert_eq!(s, b.name(), "sgcm_impl_available({i})");
    }
    assert!(sgcm_impl_available(avail.len()).is_null());
    assert!(sgcm_impl_available(usize::MAX).is_null());

    let v = sgcm_version();
    assert!(!v.is_null());
    // SAFETY: non-NULL static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(v) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn c_seal_open_errors() {
    let pt = [0x10u8; 24];
    let mut ct = [0u8; 24];
    let mut tag = [0u8; 16];
    assert_eq!(
        c_seal(&KEY, &IV, b"", &pt, &mut ct, &mut tag),
        SGCM_ERR_NO_ERROR
    );
    let (oct, otag) = oracle_seal(&KEY, &IV, b"", &pt).unwrap();
    assert_eq!((ct.to_vec(), tag), (oct, otag));

    let mut out = [0u8; 24];
    // Key, IV and tag lengths.
    for kl in [0, 15, 17, 20, 33] {
        let k = vec![7u8; kl];
        assert_eq!(
            c_seal(&k, &IV, b"", &pt, &mut out, &mut tag.clone()),
            SGCM_ERR_INV_KEYLEN,
            "seal {kl}-byte key"
        );
        assert_eq!(
            c_open(&k, &IV, b"", &ct, &mut out, &tag),
            SGCM_ERR_INV_KEYLEN,
            "open {kl}-byte key"
        );
    }
    assert_eq!(
        c_seal(&KEY, &[], b"", &pt, &mut out, &mut tag.clone()),
        SGCM_ERR_INV_LENGTH
    );
    assert_eq!(
        c_open(&KEY, &[], b"", &ct, &mut out, &tag),
        SGCM_ERR_INV_LENGTH
    );
    for tl in [0usize, 1, 2, 3, 5, 6, 7, 9, 10, 11] {
        let mut t = vec![0u8; tl];
        assert_eq!(
            c_seal(&KEY, &IV, b"", &pt, &mut out, &mut t),
            SGCM_ERR_INV_LENGTH,
            "seal tag {tl}"
        );
        assert!(t.iter().all(|&x| x == 0));
        assert_eq!(
            c_open(&KEY, &IV, b"", &ct, &mut out, &tag[..tl]),
            SGCM_ERR_INV_LENGTH,
            "open tag {tl}"
        );
    }
    let mut long = [0u8; 17];
    assert_eq!(
        c_seal(&KEY, &IV, b"", &pt, &mut out, &mut long),
        SGCM_ERR_INV_LENGTH,
        "seal tag 17"
    );
    let mut long = tag.to_vec();
    long.push(0);
    assert_eq!(
        c_open(&KEY, &IV, b"", &ct, &mut out, &long),
        SGCM_ERR_INV_LENGTH,
        "open tag 17"
    );
    assert_eq!(out, [0u8; 24], "failed calls wrote");

    // Mismatch: nothing written.
    let mut bad = tag;
    bad[3] ^= 8;
    let mut out = [0x3cu8; 24];
    assert_eq!(
        c_open(&KEY, &IV, b"", &ct, &mut out, &bad),
        SGCM_ERR_CHECKSUM
    );
    assert_eq!(out, [0x3cu8; 24]);
    let mut inplace = ct;
    assert_eq!(
        c_open_in_place(&KEY, &IV, b"", &mut inplace, &bad),
        SGCM_ERR_CHECKSUM
    );
    assert_eq!(inplace, ct);

    // NULL pointers.
    let mut t = [0u8; 16];
    // SAFETY: every non-NULL pointer is valid for its length; the NULL ones (with nonzero
    // lengths) must be rejected before use, and NULL with length 0 is allowed.
    unsafe {
        let k = KEY.as_ptr().cast();
        let iv = IV.as_ptr().cast();
        let src = pt.as_ptr().cast();
        let o = out.as_mut_ptr().cast();
        let tp = t.as_mut_ptr().cast();
        assert_eq!(
            sgcm_seal(null(), 16, iv, 12, null(), 0, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_seal(k, 16, null(), 12, null(), 0, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_seal(k, 16, iv, 12, null(), 5, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_seal(k, 16, iv, 12, null(), 0, src, 24, null_mut(), tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_seal(k, 16, iv, 12, null(), 0, src, 24, o, null_mut(), 16),
            SGCM_ERR_INV_ARG
        );
        let tc = tag.as_ptr().cast();
        let c = ct.as_ptr().cast();
        assert_eq!(
            sgcm_open(null(), 16, iv, 12, null(), 0, c, 24, o, tc, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_open(k, 16, null(), 12, null(), 0, c, 24, o, tc, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_open(k, 16, iv, 12, null(), 3, c, 24, o, tc, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_open(k, 16, iv, 12, null(), 0, c, 24, null_mut(), tc, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_open(k, 16, iv, 12, null(), 0, c, 24, o, null(), 16),
            SGCM_ERR_INV_ARG
        );

        // Empty message with NULL data pointers (sgcm_open: see the test below).
        assert_eq!(
            sgcm_seal(k, 16, iv, 12, null(), 0, null(), 0, null_mut(), tp, 16),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(t, oracle_tag(b"", b""));
    }
    assert_eq!(out, [0x3cu8; 24], "failed calls wrote");
}

/// `sgcm_open` documents that pointers may be NULL when their length is 0, so an empty
/// message with `in == out == NULL` must verify. Run in a forked child: in builds with
/// debug assertions the standard library's precondition checks abort the whole process on
/// undefined behaviour (such as `slice::from_raw_parts(NULL, 0)`), and the abort must
/// show up as this test failing rather than take the other tests down with it.
#[test]
fn c_open_empty_message_with_null_pointers() {
    let mut tag = [0u8; 16];
    assert_eq!(
        c_seal(&KEY, &IV, b"", b"", &mut [], &mut tag),
        SGCM_ERR_NO_ERROR
    );
    let key = KEY.as_ptr().cast::<c_void>();
    let iv = IV.as_ptr().cast::<c_void>();
    let t = tag.as_ptr().cast::<c_void>();
    // SAFETY: fork has no memory-safety preconditions; the child makes one library call
    // (which allocates nothing) and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: key, IV and tag are valid for their lengths; NULL data pointers with
        // length 0 are allowed by the documented contract of sgcm_open.
        let rc = unsafe { sgcm_open(key, 16, iv, 12, null(), 0, null(), 0, null_mut(), t, 16) };
        // SAFETY: `_exit` ends the child without running the parent's atexit handlers.
        unsafe {
            libc::_exit(if rc == SGCM_ERR_NO_ERROR {
                0
            } else {
                100 + rc as i32 % 100
            })
        };
    }
    let mut status = 0;
    // SAFETY: waits for the child created above; `status` is a valid out-pointer.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid, "waitpid failed");
    assert!(
        !libc::WIFSIGNALED(status),
        "sgcm_open(len 0, in = out = NULL) killed the process with signal {} (a debug \
         build's UB check: gcm::open_raw calls slice::from_raw_parts(NULL, 0))",
        libc::WTERMSIG(status)
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "sgcm_open(len 0, in = out = NULL) failed (child status {status:#x})"
    );
    // The same call in this process (harmless here once the child survived it).
    // SAFETY: as in the child.
    let rc = unsafe { sgcm_open(key, 16, iv, 12, null(), 0, null(), 0, null_mut(), t, 16) };
    assert_eq!(rc, SGCM_ERR_NO_ERROR);
}

// ---------------------------------------------------------------- length limit

/// SP 800-38D allows at most 2^36 - 32 bytes of text per IV. The check must happen before
/// any work, so it is tested with buffers that really are that large: address space
/// backed by one small memfd mapped over and over (so it is genuinely readable and
/// writable, yet costs no memory unless touched). A watchdog aborts the process if a call
/// starts processing the data instead of refusing it.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod limit {
    use super::*;
    use stitchgcm::gcm::MAX_DATA;

    const CHUNK: usize = 64 << 20;

    pub struct Aliased {
        base: *mut u8,
        len: usize,
    }

    impl Aliased {
        /// `len` bytes (a multiple of CHUNK) of address space, every CHUNK mapping the
        /// same shared memory; `None` where the platform refuses.
        pub fn new(len: usize) -> Option<Aliased> {
            assert!(len % CHUNK == 0);
            // SAFETY: memfd_create takes a NUL-terminated name and flags.
            let fd = unsafe { libc::memfd_create(c"stitchgcm-limit".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            // SAFETY: `fd` is our memfd; ftruncate sizes it (sparse, no memory used).
            if unsafe { libc::ftruncate(fd, CHUNK as libc::off_t) } != 0 {
                // SAFETY: closes our own descriptor.
                unsafe { libc::close(fd) };
                return None;
            }
            // SAFETY: a fresh PROT_NONE reservation; nothing existing is affected.
            let base = unsafe {
                libc::mmap(
                    null_mut(),
                    len,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                // SAFETY: closes our own descriptor.
                unsafe { libc::close(fd) };
                return None;
            }
            let region = Aliased {
                base: base as *mut u8,
                len,
            };
            for off in (0..len).step_by(CHUNK) {
                // SAFETY: MAP_FIXED replaces only pages of our own reservation above.
                let p = unsafe {
                    libc::mmap(
                        region.base.add(off).cast(),
                        CHUNK,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED | libc::MAP_FIXED,
                        fd,
                        0,
                    )
                };
                if p == libc::MAP_FAILED {
                    // SAFETY: closes our own descriptor; `region` unmaps on drop.
                    unsafe { libc::close(fd) };
                    return None;
                }
            }
            // SAFETY: the mappings keep the memfd alive; the descriptor is ours.
            unsafe { libc::close(fd) };
            Some(region)
        }

        pub fn slice(&mut self) -> &mut [u8] {
            // SAFETY: the whole range is mapped readable and writable (aliased shared
            // pages); the exclusive borrow of `self` keeps the slice unique.
            unsafe { core::slice::from_raw_parts_mut(self.base, self.len) }
        }
    }

    impl Drop for Aliased {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly our reservation (and the views inside it).
            unsafe { libc::munmap(self.base.cast(), self.len) };
        }
    }

    /// Aborts the process if not dropped within `secs` seconds.
    pub struct Watchdog(Option<std::sync::mpsc::Sender<()>>);

    impl Watchdog {
        pub fn new(secs: u64) -> Watchdog {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            std::thread::spawn(move || {
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    rx.recv_timeout(std::time::Duration::from_secs(secs))
                {
                    eprintln!("data_length_limit: a call over the GCM length limit did not return at once: it is processing the data instead of refusing it");
                    std::process::abort();
                }
            });
            Watchdog(Some(tx))
        }
    }

    impl Drop for Watchdog {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }

    pub fn run() {
        let over = MAX_DATA as usize + 1;
        let span = (2 * over).div_ceil(CHUNK) * CHUNK;
        let Some(mut region) = Aliased::new(span) else {
            eprintln!(
                "data_length_limit: NOT RUN: cannot map {} GiB of aliased address space here",
                span >> 30
            );
            return;
        };
        let _dog = Watchdog::new(60);
        let all = region.slice();
        let (a, rest) = all.split_at_mut(over);
        let b = &mut rest[..over];
        let key = Key::new(&KEY).unwrap();

        // Rust API: the first data call over the limit is refused and changes nothing
        // (still in the AAD phase, tag of the empty message).
        let mut m = Message::new(&key, &IV).unwrap();
        assert_eq!(m.encrypt(&key, a), Err(Error::InvalidLength));
        assert_eq!(m.decrypt(&key, a), Err(Error::InvalidLength));
        assert_eq!(m.encrypt_to(&key, a, b), Err(Error::InvalidLength));
        assert_eq!(m.decrypt_to(&key, a, b), Err(Error::InvalidLength));
        m.aad(&key, b"still in the AAD phase").unwrap();
        let mut t = [0u8; 16];
        m.tag(&key, &mut t).unwrap();
        assert_eq!(t, oracle_tag(b"still in the AAD phase", b""));

        // After 16 bytes, 2^36 - 32 - 16 + 1 more are too many; exactly the rest would be
        // allowed (not tried: it would really process 64 GiB).
        let mut m = Message::new(&key, &IV).unwrap();
        let mut first = [0u8; 16];
        m.encrypt(&key, &mut first).unwrap();
        assert_eq!(
            m.encrypt(&key, &mut a[..over - 16]),
            Err(Error::InvalidLength)
        );
        assert_eq!(m.data_len(), 16);
        m.tag(&key, &mut t).unwrap();
        assert_eq!(t, oracle_tag(b"", &[0u8; 16]));

        let mut tag = [0u8; 16];
        assert_eq!(
            seal(&key, &IV, b"", a, b, &mut tag),
            Err(Error::InvalidLength)
        );
        assert_eq!(open(&key, &IV, b"", a, b, &tag), Err(Error::InvalidLength));

        // C ABI: handle (in place and out of place) and the one-shot functions.
        let h = ready_handle();
        assert_eq!(h.encrypt_in_place(a), SGCM_ERR_INV_LENGTH);
        assert_eq!(h.decrypt_in_place(a), SGCM_ERR_INV_LENGTH);
        assert_eq!(h.encrypt_to(a, b), SGCM_ERR_INV_LENGTH);
        assert_eq!(
            h.authenticate(b"x"),
            SGCM_ERR_NO_ERROR,
            "the refused call changed the phase"
        );
        assert_eq!(c_seal(&KEY, &IV, b"", a, b, &mut tag), SGCM_ERR_INV_LENGTH);
        assert_eq!(c_open(&KEY, &IV, b"", a, b, &tag), SGCM_ERR_INV_LENGTH);
        assert_eq!(
            c_seal_in_place(&KEY, &IV, b"", a, &mut tag),
            SGCM_ERR_INV_LENGTH
        );
        assert_eq!(
            c_open_in_place(&KEY, &IV, b"", a, &tag),
            SGCM_ERR_INV_LENGTH
        );

        // Nothing was written (every view shows the same memfd page 0 at offset 0).
        assert!(a[..4096].iter().all(|&x| x == 0) && b[over - 4096..].iter().all(|&x| x == 0));
    }
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn data_length_limit() {
    limit::run();
}

/// On 32-bit targets a single call cannot reach the limit at all.
#[cfg(target_pointer_width = "32")]
#[test]
fn data_length_limit_unreachable_on_32_bit() {
    assert!((usize::MAX as u64) < stitchgcm::gcm::MAX_DATA);
}

/// `sgcm_aead_seal` / `sgcm_aead_open`: the keyed one-shot calls' errors, and that they
/// leave the handle's own message alone.
#[test]
fn c_aead_errors_and_independence() {
    let pt = [0x51u8; 24];
    let mut ct = [0u8; 24];
    let mut tag = [0u8; 16];

    // No key yet.
    let fresh = CHandle::open(16);
    assert_eq!(
        fresh.aead_seal(&IV, b"", Some(&pt), &mut ct, &mut tag),
        SGCM_ERR_MISSING_KEY
    );
    assert_eq!(
        fresh.aead_open(&IV, b"", Some(&ct), &mut [0u8; 24], &tag),
        SGCM_ERR_MISSING_KEY
    );

    let h = ready_handle();
    // A streaming message in progress survives one-shot calls in between.
    assert_eq!(h.authenticate(b"hdr"), SGCM_ERR_NO_ERROR);
    assert_eq!(
        h.aead_seal(&IV, b"a", Some(&pt), &mut ct, &mut tag),
        SGCM_ERR_NO_ERROR
    );
    let mut oracle_ct = [0u8; 24];
    let mut oracle = [0u8; 16];
    seal(&key(), &IV, b"a", &pt, &mut oracle_ct, &mut oracle).unwrap();
    assert_eq!((ct, tag), (oracle_ct, oracle));
    let mut back = [0u8; 24];
    assert_eq!(
        h.aead_open(&IV, b"a", Some(&ct), &mut back, &tag),
        SGCM_ERR_NO_ERROR
    );
    assert_eq!(back, pt);
    let mut streamed = pt;
    assert_eq!(h.encrypt_in_place(&mut streamed), SGCM_ERR_NO_ERROR);
    let mut t = [0u8; 16];
    assert_eq!(h.gettag(&mut t), SGCM_ERR_NO_ERROR);
    let mut want = [0u8; 24];
    let mut want_tag = [0u8; 16];
    seal(&key(), &IV, b"hdr", &pt, &mut want, &mut want_tag).unwrap();
    assert_eq!(
        (streamed, t),
        (want, want_tag),
        "the handle's own message changed"
    );

    // Lengths.
    assert_eq!(
        h.aead_seal(&[], b"", Some(&pt), &mut ct, &mut tag),
        SGCM_ERR_INV_LENGTH
    );
    assert_eq!(
        h.aead_seal(&IV, b"", Some(&pt), &mut ct, &mut tag[..3]),
        SGCM_ERR_INV_LENGTH
    );
    assert_eq!(
        h.aead_open(&IV, b"", Some(&ct), &mut back, &tag[..9]),
        SGCM_ERR_INV_LENGTH
    );

    // NULL pointers; NULL with length 0 is allowed.
    // SAFETY: every non-NULL pointer is valid for its length; NULL ones with nonzero
    // lengths must be rejected before use.
    unsafe {
        let (iv, src, o, tp) = (
            IV.as_ptr().cast(),
            pt.as_ptr().cast(),
            back.as_mut_ptr().cast(),
            tag.as_mut_ptr().cast(),
        );
        let raw = h.raw();
        assert_eq!(
            sgcm_aead_seal(null_mut(), iv, 12, null(), 0, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_seal(raw, null(), 12, null(), 0, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_seal(raw, iv, 12, null(), 2, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_seal(raw, iv, 12, null(), 0, src, 24, null_mut(), tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_seal(raw, iv, 12, null(), 0, src, 24, o, null_mut(), 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_open(null_mut(), iv, 12, null(), 0, src, 24, o, tp, 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_open(raw, iv, 12, null(), 0, src, 24, o, null(), 16),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(
            sgcm_aead_seal(raw, iv, 12, null(), 0, null(), 0, null_mut(), tp, 16),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(tag, oracle_tag(b"", b""));
        assert_eq!(
            sgcm_aead_open(raw, iv, 12, null(), 0, null(), 0, null_mut(), tp, 16),
            SGCM_ERR_NO_ERROR
        );
    }
}
