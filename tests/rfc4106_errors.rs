//! Misuse of the RFC 4106 API, Rust and C (no external vectors; where a value matters it
//! comes from the independent RustCrypto `aes-gcm` oracle with nonce = salt‖IV): key,
//! IV, AAD and ICV lengths and their documented codes, when the streaming AAD is checked
//! (at once past 12 bytes; 8 or 12 at the first data and at the ICV), that a refused call
//! changes nothing, a bad ICV releasing no plaintext, and the IV generator: its setup,
//! its order rules, no IV used up by a refused call, exhaustion at 2^64 − 1 with
//! `SGCM_ERR_LIMIT_REACHED`, and distinct IVs for concurrent senders on one handle.
//! Each concern has its own test function.

mod common;

use common::*;
use core::ffi::{c_void, CStr};
use core::ptr::{null, null_mut};
use stitchgcm::ffi::native::*;
use stitchgcm::ffi::rfc4106::*;
use stitchgcm::{Error, IvCounter, Rfc4106Key, Rfc4106Message};

/// AES-128 key ‖ salt.
const KEY: [u8; 20] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xca, 0xfe, 0xba, 0xbe,
];
const IV: [u8; 8] = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80];
const SPI_ESN: [u8; 12] = [0, 0, 0x43, 0x21, 0, 0, 0, 1, 0, 0, 0, 7];

fn key() -> Rfc4106Key {
    Rfc4106Key::new(&KEY).unwrap()
}

/// An `SGCM_MODE_RFC4106` AES-128 handle keyed with `KEY`.
fn keyed() -> CHandle {
    let h = CHandle::open_mode(16, SGCM_MODE_RFC4106);
    assert_eq!(h.setkey(&KEY), SGCM_ERR_NO_ERROR);
    h
}

fn oracle(iv: &[u8; 8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    oracle_seal_rfc4106(&KEY, iv, aad, pt)
}

// ---------------------------------------------------------------- Rust API

#[test]
fn rust_rfc4106_key_lengths() {
    for len in 0..=64 {
        let k = vec![3u8; len];
        let ok = matches!(len, 20 | 28 | 36);
        match Rfc4106Key::new(&k) {
            Ok(key) => {
                assert!(ok, "accepted a {len}-byte key");
                assert_eq!(key.key_len(), len);
                assert_eq!(key.gcm_key().key_len(), len - 4);
            }
            Err(e) => {
                assert!(!ok, "refused a {len}-byte key");
                assert_eq!(e, Error::InvalidKeyLength);
            }
        }
        for b in backends() {
            let r = Rfc4106Key::with_backend(&k, b);
            assert_eq!(r.is_ok(), ok, "{len} bytes on {}", b.name());
        }
    }
}

#[test]
fn rust_rfc4106_packet_lengths() {
    let key = key();
    let (pt, aad) = ([7u8; 33], &SPI_ESN[..8]);
    let (ct, tag) = oracle(&IV, aad, &pt);
    let mut out = [0u8; 33];
    for n in 0..=20 {
        let v = vec![0u8; n];
        let mut icv = [0u8; 16];
        let iv_r = key.seal(&v, aad, &pt, &mut out, &mut icv);
        assert_eq!(iv_r.is_ok(), n == 8, "{n}-byte IV");
        let aad_r = key.seal(&IV, &v, &pt, &mut out, &mut icv);
        assert_eq!(aad_r.is_ok(), n == 8 || n == 12, "{n}-byte AAD");
        let mut icv = vec![0u8; n];
        let icv_r = key.seal(&IV, aad, &pt, &mut out, &mut icv);
        assert_eq!(icv_r.is_ok(), matches!(n, 8 | 12 | 16), "{n}-byte ICV");
        for r in [iv_r, aad_r, icv_r] {
            assert!(matches!(r, Ok(()) | Err(Error::InvalidLength)), "{r:?}");
        }
        let mut expected = tag.to_vec();
        expected.resize(n, 0);
        let mut back = [0x77u8; 33];
        let open_r = key.open(&IV, aad, &ct, &mut back, &expected);
        match n {
            8 | 12 | 16 => assert_eq!((open_r, back), (Ok(()), pt), "open, {n}-byte ICV"),
            _ => {
                assert_eq!(open_r, Err(Error::InvalidLength), "open, {n}-byte ICV");
                assert_eq!(back, [0x77; 33], "open wrote for a {n}-byte ICV");
            }
        }
        if n != 8 {
            assert_eq!(
                Rfc4106Message::new(&key, &v).err(),
                Some(Error::InvalidLength)
            );
        }
    }
    let mut short = [0u8; 32];
    let mut icv = [0u8; 16];
    let r = key.seal(&IV, aad, &pt, &mut short, &mut icv);
    assert_eq!(r, Err(Error::BufferTooShort));
    assert_eq!(
        key.open(&IV, aad, &ct, &mut short, &tag),
        Err(Error::BufferTooShort)
    );
}

/// AAD past 12 bytes is refused at once; not 8 or 12 at the first data or the ICV; the
/// refused calls change nothing, so completing the AAD afterwards gives the right packet.
#[test]
fn rust_rfc4106_streaming_aad_rules() {
    let key = key();
    let pt = [9u8; 21];
    let (ct, tag) = oracle(&IV, &SPI_ESN, &pt);
    let mut m = Rfc4106Message::new(&key, &IV).unwrap();
    assert_eq!(m.aad(&key, &[0; 13]), Err(Error::InvalidLength));
    m.aad(&key, &SPI_ESN[..9]).unwrap();
    assert_eq!(m.aad(&key, &SPI_ESN[9..]).map(|_| ()), Ok(()), "9 + 3 = 12");
    assert_eq!(m.aad(&key, &[0]), Err(Error::InvalidLength), "13th byte");
    let mut buf = pt;
    m.encrypt(&key, &mut buf).unwrap();
    assert_eq!(m.aad(&key, &[]), Err(Error::InvalidState), "AAD after data");
    let mut icv = [0u8; 16];
    assert_eq!(m.icv(&key, &mut icv[..4]), Err(Error::InvalidLength));
    m.icv(&key, &mut icv).unwrap();
    assert_eq!((&buf[..], icv), (&ct[..], tag));

    // 9 bytes: the first data is refused and nothing changes; 3 more make it whole.
    let mut m = Rfc4106Message::new(&key, &IV).unwrap();
    m.aad(&key, &SPI_ESN[..9]).unwrap();
    let mut buf = pt;
    assert_eq!(m.encrypt(&key, &mut buf), Err(Error::InvalidLength));
    assert_eq!(buf, pt, "a refused encrypt wrote");
    assert_eq!(m.icv(&key, &mut icv), Err(Error::InvalidLength));
    m.aad(&key, &SPI_ESN[9..]).unwrap();
    m.encrypt(&key, &mut buf).unwrap();
    m.icv(&key, &mut icv).unwrap();
    assert_eq!(
        (&buf[..], icv),
        (&ct[..], tag),
        "after the AAD was completed"
    );

    // No AAD at all: the ICV of an empty payload is refused until the AAD is there.
    let (_, empty_tag) = oracle(&IV, &SPI_ESN[..8], &[]);
    let mut m = Rfc4106Message::new(&key, &IV).unwrap();
    assert_eq!(m.verify(&key, &empty_tag), Err(Error::InvalidLength));
    m.aad(&key, &SPI_ESN[..8]).unwrap();
    assert_eq!(m.verify(&key, &empty_tag[..12]), Ok(()));
    assert_eq!(m.verify(&key, &[0; 12]), Err(Error::TagMismatch));
}

#[test]
fn rust_iv_counter_exhausts_instead_of_wrapping() {
    for n in [0, 7, 9, 16] {
        assert_eq!(
            IvCounter::new(&vec![0; n]).err(),
            Some(Error::InvalidLength)
        );
    }
    let c = IvCounter::new(&5u64.to_be_bytes()).unwrap();
    assert_eq!(c.next_iv(), Ok(5u64.to_be_bytes()));
    assert_eq!(c.next_iv(), Ok(6u64.to_be_bytes()));
    let c = IvCounter::new(&(u64::MAX - 2).to_be_bytes()).unwrap();
    for v in [u64::MAX - 2, u64::MAX - 1, u64::MAX] {
        assert_eq!(c.next_iv(), Ok(v.to_be_bytes()));
    }
    for _ in 0..3 {
        assert_eq!(c.next_iv(), Err(Error::LimitReached));
    }
}

/// Threads drawing from one counter near its end: every value once, then only refusals.
#[test]
fn rust_iv_counter_concurrent_draws_are_distinct() {
    const THREADS: usize = 4;
    const DRAWS: usize = 300;
    let left = 1000u64; // fewer than THREADS * DRAWS
    let c = IvCounter::new(&(u64::MAX - (left - 1)).to_be_bytes()).unwrap();
    let mut got: Vec<u64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| s.spawn(|| (0..DRAWS).map(|_| c.next_iv()).collect::<Vec<_>>()))
            .collect();
        let all = workers.into_iter().flat_map(|w| w.join().unwrap());
        all.filter_map(|r| match r {
            Ok(iv) => Some(u64::from_be_bytes(iv)),
            Err(e) => {
                assert_eq!(e, Error::LimitReached);
                None
            }
        })
        .collect()
    });
    got.sort_unstable();
    let want: Vec<u64> = (u64::MAX - (left - 1)..=u64::MAX).collect();
    assert_eq!(got, want, "each remaining IV exactly once");
}

#[test]
fn limit_reached_is_gpg_error_183() {
    assert_eq!(Error::LimitReached.code(), 183);
    assert_eq!(SGCM_ERR_LIMIT_REACHED, 183);
    // SAFETY: sgcm_strerror returns a static NUL-terminated string.
    let s = unsafe { CStr::from_ptr(sgcm_strerror(SGCM_ERR_LIMIT_REACHED)) };
    assert_eq!(s.to_str().unwrap(), Error::LimitReached.message());
}

// ---------------------------------------------------------------- C ABI

#[test]
fn c_rfc4106_open_and_setkey() {
    assert_eq!(SGCM_MODE_RFC4106, 4106);
    for (aes, algo) in [
        (16, SGCM_CIPHER_AES128),
        (24, SGCM_CIPHER_AES192),
        (32, SGCM_CIPHER_AES256),
    ] {
        for flags in [0, SGCM_FLAG_SECURE, 0x1f] {
            let mut h: sgcm_cipher_hd_t = null_mut();
            // SAFETY: `h` is a valid place for a handle pointer.
            let rc = unsafe { sgcm_cipher_open(&mut h, algo, SGCM_MODE_RFC4106, flags) };
            assert_eq!(rc, SGCM_ERR_NO_ERROR);
            // SAFETY: a handle just opened, closed once.
            unsafe { sgcm_cipher_close(h) };
        }
        let h = CHandle::open_mode(aes, SGCM_MODE_RFC4106);
        assert_eq!(h.encrypt_in_place(&mut [0u8; 4]), SGCM_ERR_MISSING_KEY);
        assert_eq!(h.setiv(&IV), SGCM_ERR_INV_STATE, "setiv before setkey");
        let mut icv = [0u8; 16];
        assert_eq!(
            h.aead_seal(&IV, &SPI_ESN, None, &mut [0; 4], &mut icv),
            SGCM_ERR_MISSING_KEY
        );
        for len in 0..=40 {
            let want = if len == aes + 4 {
                SGCM_ERR_NO_ERROR
            } else {
                SGCM_ERR_INV_KEYLEN
            };
            assert_eq!(
                h.setkey(&vec![1u8; len]),
                want,
                "{len} bytes on AES-{}",
                aes * 8
            );
        }
        // SAFETY: open handle; a NULL key with a nonzero length must be refused.
        assert_eq!(
            unsafe { sgcm_cipher_setkey(h.raw(), null(), aes + 4) },
            SGCM_ERR_INV_ARG
        );
    }
}

#[test]
fn c_rfc4106_iv_lengths() {
    let h = keyed();
    let mut icv = [0u8; 16];
    for n in 0..=16 {
        let iv = vec![0u8; n];
        let want = if n == 8 {
            SGCM_ERR_NO_ERROR
        } else {
            SGCM_ERR_INV_LENGTH
        };
        assert_eq!(h.setiv(&iv), want, "setiv({n})");
        assert_eq!(
            h.aead_seal(&iv, &SPI_ESN, None, &mut [0; 5], &mut icv),
            want
        );
        if n != 8 {
            assert_eq!(
                h.authenticate(&SPI_ESN),
                SGCM_ERR_INV_STATE,
                "no IV after a bad one"
            );
        }
    }
}

/// The streaming AAD: past 12 bytes at once, not 8/12 at the first data and at the tag;
/// each refusal changes nothing.
#[test]
fn c_rfc4106_streaming_aad_rules() {
    let h = keyed();
    let pt = [4u8; 40];
    let (ct, tag) = oracle(&IV, &SPI_ESN, &pt);
    assert_eq!(h.setiv(&IV), 0);
    assert_eq!(h.authenticate(&[0; 13]), SGCM_ERR_INV_LENGTH);
    assert_eq!(h.authenticate(&SPI_ESN[..8]), 0);
    assert_eq!(h.authenticate(&SPI_ESN[8..]), 0);
    assert_eq!(h.authenticate(&[0]), SGCM_ERR_INV_LENGTH, "13th byte");
    let mut buf = pt;
    assert_eq!(h.encrypt_in_place(&mut buf), 0);
    assert_eq!(h.authenticate(&[]), SGCM_ERR_INV_STATE, "AAD after data");
    let mut icv = [0u8; 16];
    assert_eq!(h.gettag(&mut icv), 0);
    assert_eq!((&buf[..], icv), (&ct[..], tag));

    for short in [0usize, 1, 7, 9, 11] {
        assert_eq!(h.setiv(&IV), 0);
        assert_eq!(h.authenticate(&SPI_ESN[..short]), 0);
        let mut buf = pt;
        assert_eq!(
            h.encrypt_in_place(&mut buf),
            SGCM_ERR_INV_LENGTH,
            "{short}-byte AAD"
        );
        assert_eq!(buf, pt, "a refused encrypt wrote");
        let mut out = [0u8; 40];
        assert_eq!(h.decrypt_to(&ct, &mut out), SGCM_ERR_INV_LENGTH);
        assert_eq!(h.gettag(&mut icv), SGCM_ERR_INV_LENGTH);
        assert_eq!(h.checktag(&tag), SGCM_ERR_INV_LENGTH);
        assert_eq!(h.authenticate(&SPI_ESN[short..]), 0, "completing the AAD");
        assert_eq!(h.decrypt_to(&ct, &mut out), 0);
        assert_eq!(h.checktag(&tag[..8]), 0, "{short}-byte AAD completed");
        assert_eq!(out, pt);
    }
}

#[test]
fn c_rfc4106_icv_lengths() {
    let h = keyed();
    let aad = &SPI_ESN[..8];
    let pt = [6u8; 19];
    let (ct, tag) = oracle(&IV, aad, &pt);
    for n in 0..=32 {
        let ok = matches!(n, 8 | 12 | 16);
        let want = if ok {
            SGCM_ERR_NO_ERROR
        } else {
            SGCM_ERR_INV_LENGTH
        };
        let mut icv = vec![0u8; n];
        assert_eq!(h.setiv(&IV), 0);
        assert_eq!(h.authenticate(aad), 0);
        assert_eq!(h.gettag(&mut icv), want, "gettag({n})");
        let mut expected = tag.to_vec();
        expected.resize(n, 0);
        assert_eq!(h.setiv(&IV), 0);
        assert_eq!(h.authenticate(aad), 0);
        let mut out = [0u8; 19];
        assert_eq!(h.decrypt_to(&ct, &mut out), 0);
        assert_eq!(h.checktag(&expected), want, "checktag({n})");
        assert_eq!(
            h.aead_seal(&IV, aad, Some(&pt), &mut out, &mut icv),
            want,
            "seal({n})"
        );
        let mut back = [0x99u8; 19];
        let rc = h.aead_open(&IV, aad, Some(&ct), &mut back, &expected);
        assert_eq!(rc, want, "aead_open({n})");
        assert_eq!(back == pt, ok, "aead_open({n}) output");
    }
    for n in [8usize, 12, 16] {
        let mut bad = tag[..n].to_vec();
        bad[n - 1] ^= 2;
        let mut inplace = ct.clone();
        assert_eq!(
            h.aead_open(&IV, aad, None, &mut inplace, &bad),
            SGCM_ERR_CHECKSUM
        );
        assert_eq!(
            inplace, ct,
            "in-place open of a bad {n}-byte ICV changed the buffer"
        );
        assert_eq!(h.setiv(&IV), 0);
        assert_eq!(h.authenticate(aad), 0);
        assert_eq!(h.checktag(&bad), SGCM_ERR_CHECKSUM);
    }
    for n in [0usize, 4, 7, 13, 20] {
        let aad = vec![1u8; n];
        let mut icv = [0u8; 16];
        let rc = h.aead_seal(&IV, &aad, Some(&pt), &mut [0; 19], &mut icv);
        assert_eq!(rc, SGCM_ERR_INV_LENGTH, "{n}-byte AAD in the one-shot");
    }
}

#[test]
fn c_rfc4106_geniv_on_a_gcm_handle_and_null() {
    let g = CHandle::open(16);
    assert_eq!(g.setkey(&KEY[..16]), 0);
    let mut iv = [0u8; 8];
    let mut icv = [0u8; 16];
    assert_eq!(g.setup_geniv(&[0; 8]), SGCM_ERR_INV_CIPHER_MODE);
    assert_eq!(g.geniv(&mut iv), SGCM_ERR_INV_CIPHER_MODE);
    let rc = g.aead_seal_geniv(&mut iv, &SPI_ESN, None, &mut [0; 3], &mut icv);
    assert_eq!(rc, SGCM_ERR_INV_CIPHER_MODE);
    let p = iv.as_mut_ptr() as *mut c_void;
    // SAFETY: NULL handles must be refused before anything is touched; `p` is valid.
    unsafe {
        assert_eq!(sgcm_cipher_setup_geniv(null_mut(), p, 8), SGCM_ERR_INV_ARG);
        assert_eq!(sgcm_cipher_geniv(null_mut(), p, 8), SGCM_ERR_INV_ARG);
        let rc = sgcm_aead_seal_geniv(null_mut(), p, 8, null(), 0, null(), 0, null_mut(), p, 8);
        assert_eq!(rc, SGCM_ERR_INV_ARG);
    }
    let h = keyed();
    // SAFETY: open handle; NULL buffers with nonzero lengths must be refused.
    unsafe {
        assert_eq!(
            sgcm_cipher_setup_geniv(h.raw(), null(), 8),
            SGCM_ERR_INV_ARG
        );
        assert_eq!(h.setup_geniv(&[0; 8]), 0);
        assert_eq!(sgcm_cipher_geniv(h.raw(), null_mut(), 8), SGCM_ERR_INV_ARG);
    }
}

/// Order rules, no IV used up by a refused call, and the IV `geniv` sets is the one used.
#[test]
fn c_rfc4106_geniv_order_and_no_waste() {
    let h = CHandle::open_mode(16, SGCM_MODE_RFC4106);
    let mut iv = [0u8; 8];
    let mut icv = [0u8; 16];
    assert_eq!(h.geniv(&mut iv), SGCM_ERR_INV_STATE, "no key, no generator");
    for n in [0, 7, 9, 12] {
        assert_eq!(
            h.setup_geniv(&vec![0; n]),
            SGCM_ERR_INV_LENGTH,
            "setup_geniv({n})"
        );
    }
    assert_eq!(h.setup_geniv(&IV), 0);
    assert_eq!(h.geniv(&mut iv), SGCM_ERR_INV_STATE, "geniv before setkey");
    let rc = h.aead_seal_geniv(&mut iv, &SPI_ESN, None, &mut [0; 3], &mut icv);
    assert_eq!(rc, SGCM_ERR_MISSING_KEY, "seal_geniv before setkey");
    assert_eq!(h.setkey(&KEY), 0);
    assert_eq!(h.geniv(&mut [0u8; 7]), SGCM_ERR_INV_LENGTH);
    assert_eq!(
        h.aead_seal_geniv(&mut iv, &SPI_ESN[..9], None, &mut [0; 3], &mut icv),
        SGCM_ERR_INV_LENGTH
    );
    assert_eq!(
        h.aead_seal_geniv(&mut iv, &SPI_ESN, None, &mut [0; 3], &mut icv[..4]),
        SGCM_ERR_INV_LENGTH
    );
    assert_eq!(
        h.aead_seal_geniv(&mut [0u8; 9], &SPI_ESN, None, &mut [0; 3], &mut icv),
        SGCM_ERR_INV_LENGTH
    );

    // None of the refused calls took an IV: the first one handed out is the start.
    let pt = [0x42u8; 30];
    assert_eq!(h.geniv(&mut iv), 0);
    assert_eq!(iv, IV);
    assert_eq!(h.authenticate(&SPI_ESN), 0);
    let mut buf = pt;
    assert_eq!(h.encrypt_in_place(&mut buf), 0);
    assert_eq!(h.gettag(&mut icv), 0);
    assert_eq!(
        (buf.to_vec(), icv),
        oracle(&IV, &SPI_ESN, &pt),
        "the packet of the IV geniv set"
    );

    // The next one, through the one-shot; setkey keeps the counter.
    let mut out = [0u8; 30];
    assert_eq!(
        h.aead_seal_geniv(&mut iv, &SPI_ESN, Some(&pt), &mut out, &mut icv),
        0
    );
    let next = (u64::from_be_bytes(IV) + 1).to_be_bytes();
    assert_eq!(iv, next);
    assert_eq!(h.aead_open(&next, &SPI_ESN, Some(&out), &mut buf, &icv), 0);
    assert_eq!(buf, pt);
    assert_eq!(h.setkey(&KEY), 0);
    assert_eq!(h.geniv(&mut iv), 0);
    assert_eq!(
        u64::from_be_bytes(iv),
        u64::from_be_bytes(IV) + 2,
        "setkey keeps the counter"
    );
    // reset ends the packet and keeps key, salt and counter (as a GCM handle keeps its key).
    assert_eq!(h.reset(), 0);
    assert_eq!(
        h.authenticate(&SPI_ESN),
        SGCM_ERR_INV_STATE,
        "no packet after reset"
    );
    assert_eq!(h.geniv(&mut iv), 0);
    assert_eq!(
        u64::from_be_bytes(iv),
        u64::from_be_bytes(IV) + 3,
        "reset keeps the counter"
    );
    assert_eq!(h.authenticate(&SPI_ESN), 0);
    let mut buf = pt;
    assert_eq!(h.encrypt_in_place(&mut buf), 0);
    assert_eq!(h.gettag(&mut icv), 0);
    let want = oracle(&iv, &SPI_ESN, &pt);
    assert_eq!((buf.to_vec(), icv), want, "reset keeps key and salt");
}

#[test]
fn c_rfc4106_geniv_exhaustion() {
    let h = keyed();
    let mut iv = [0u8; 8];
    let mut icv = [0u8; 16];
    assert_eq!(h.setup_geniv(&(u64::MAX - 1).to_be_bytes()), 0);
    assert_eq!(h.geniv(&mut iv), 0);
    assert_eq!(iv, (u64::MAX - 1).to_be_bytes());
    assert_eq!(
        h.aead_seal_geniv(&mut iv, &SPI_ESN, None, &mut [1; 5], &mut icv),
        0
    );
    assert_eq!(iv, u64::MAX.to_be_bytes());
    for _ in 0..3 {
        let mut out = [9u8; 8];
        assert_eq!(h.geniv(&mut out), SGCM_ERR_LIMIT_REACHED);
        assert_eq!(out, [9; 8], "an exhausted geniv wrote an IV");
        let mut buf = [5u8; 5];
        let rc = h.aead_seal_geniv(&mut out, &SPI_ESN, None, &mut buf, &mut icv);
        assert_eq!(rc, SGCM_ERR_LIMIT_REACHED);
        assert_eq!((out, buf), ([9; 8], [5; 5]), "an exhausted seal wrote");
    }
    assert_eq!(
        h.authenticate(&SPI_ESN),
        SGCM_ERR_INV_STATE,
        "no packet after a refused geniv"
    );
    // Setting it up again starts over (the caller's decision).
    assert_eq!(h.setup_geniv(&[0; 8]), 0);
    assert_eq!(h.geniv(&mut iv), 0);
    assert_eq!(iv, [0; 8]);
}

/// Several threads sealing on one handle with the generator: every packet its own IV.
#[test]
fn c_rfc4106_seal_geniv_from_threads() {
    struct Shared(sgcm_cipher_hd_t);
    // SAFETY: the handle is only used through `sgcm_aead_seal_geniv`, which takes shared
    // access, and it outlives the scope.
    unsafe impl Sync for Shared {}
    let h = keyed();
    assert_eq!(h.setup_geniv(&[0; 8]), 0);
    let shared = Shared(h.raw());
    let pt = [3u8; 64];
    let mut ivs: Vec<[u8; 8]> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let shared = &shared;
                s.spawn(move || {
                    (0..200)
                        .map(|_| {
                            let (mut iv, mut out, mut icv) = ([0u8; 8], [0u8; 64], [0u8; 16]);
                            // SAFETY: a live handle; every buffer valid for its length.
                            let rc = unsafe {
                                sgcm_aead_seal_geniv(
                                    shared.0,
                                    iv.as_mut_ptr().cast(),
                                    8,
                                    SPI_ESN.as_ptr().cast(),
                                    12,
                                    pt.as_ptr().cast(),
                                    64,
                                    out.as_mut_ptr().cast(),
                                    icv.as_mut_ptr().cast(),
                                    16,
                                )
                            };
                            assert_eq!(rc, SGCM_ERR_NO_ERROR);
                            assert_eq!((out.to_vec(), icv), oracle(&iv, &SPI_ESN, &pt));
                            iv
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    ivs.sort_unstable();
    let want: Vec<[u8; 8]> = (0..800u64).map(u64::to_be_bytes).collect();
    assert_eq!(ivs, want, "IVs 0..800, each once");
}
