//! Error behaviour of the Rust API and the native C ABI beyond the misuse table
//! (tests/misuse.txt, run by tests/misuse.rs, holds every "this call must return that
//! code" case of every front-end): sweeps over every key and tag length against the
//! independent RustCrypto `aes-gcm` oracle, backend lookup, error numbers and
//! `sgcm_strerror`, backend names, and that a handle is usable again after `reset`.

mod common;

use common::*;
use core::ffi::CStr;
use stitchgcm::ffi::native::*;
use stitchgcm::{cpu, open, open_in_place, seal, seal_in_place, Error, Key, Message};

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

/// Every accepted key length, for every backend (the refused ones are a row of the
/// misuse table).
#[test]
fn rust_key_lengths() {
    for len in [16, 24, 32] {
        let k = vec![1u8; len];
        let key = Key::new(&k).unwrap();
        assert_eq!(key.key_len(), len);
        assert_eq!(key.backend_name(), cpu::selected().unwrap().name());
        for b in backends() {
            let key = Key::with_backend(&k, b).unwrap();
            assert_eq!((key.key_len(), key.backend()), (len, b));
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
        // In place: the same lengths rule, and a refused call leaves the buffer alone.
        let mut buf = *pt;
        let mut t = vec![0u8; n];
        let r = seal_in_place(&key, &IV, aad, &mut buf, &mut t);
        if ok {
            assert_eq!((r, &buf), (Ok(()), &ct), "seal_in_place tag length {n}");
            assert_eq!(open_in_place(&key, &IV, aad, &mut buf, &t), Ok(()));
            assert_eq!(&buf, pt);
        } else {
            assert_eq!((r, &buf), (Err(Error::InvalidLength), pt));
            assert_eq!(
                open_in_place(&key, &IV, aad, &mut buf, &t),
                Err(Error::InvalidLength)
            );
            assert_eq!(&buf, pt);
        }
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
fn c_reset_keeps_the_key() {
    // Reset in the AAD, in the data, and after the tag: each time the message ends (its
    // data, AAD and tag are refused until a new IV) and the key stays, as in libgcrypt.
    for stage in 0..3 {
        let h = ready_handle();
        let (mut buf, mut tag) = ([0u8; 16], [0u8; 16]);
        assert_eq!(h.authenticate(b"x"), SGCM_ERR_NO_ERROR);
        if stage >= 1 {
            assert_eq!(h.encrypt_in_place(&mut buf[..5]), SGCM_ERR_NO_ERROR);
        }
        if stage >= 2 {
            assert_eq!(h.gettag(&mut tag), SGCM_ERR_NO_ERROR);
        }
        assert_eq!(h.reset(), SGCM_ERR_NO_ERROR, "stage {stage}");
        buf = [0u8; 16];
        assert_eq!(
            h.encrypt_in_place(&mut buf),
            SGCM_ERR_INV_STATE,
            "no IV after reset"
        );
        assert_eq!(h.decrypt_in_place(&mut buf), SGCM_ERR_INV_STATE);
        assert_eq!(h.authenticate(b"x"), SGCM_ERR_INV_STATE);
        assert_eq!(h.gettag(&mut tag), SGCM_ERR_INV_STATE);
        assert_eq!(buf, [0u8; 16], "refused calls write nothing");
        assert_eq!(h.reset(), SGCM_ERR_NO_ERROR, "reset twice");

        // The next message under the same key, no setkey in between.
        assert_eq!(h.setiv(&IV), SGCM_ERR_NO_ERROR);
        assert_eq!(h.encrypt_in_place(&mut buf), SGCM_ERR_NO_ERROR);
        assert_eq!(h.gettag(&mut tag), SGCM_ERR_NO_ERROR);
        let (ct, t) = oracle_seal(&KEY, &IV, b"", &[0u8; 16]).unwrap();
        assert_eq!((buf.to_vec(), tag), (ct, t), "stage {stage}");
    }
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

/// `sgcm_aead_seal` / `sgcm_aead_open` (the keyed one-shot calls on a handle) leave the
/// handle's own streaming message alone; their errors are rows of the misuse table.
#[test]
fn c_aead_leaves_the_streaming_message_alone() {
    let pt = [0x51u8; 24];
    let mut ct = [0u8; 24];
    let mut tag = [0u8; 16];
    let h = ready_handle();
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
}
