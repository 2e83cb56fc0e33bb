//! Whole short messages through the one-shot calls, exhaustively over the sizes the
//! backends' one-call short path takes and a little beyond: data of 0..=120 bytes (the
//! short limit is 7 blocks), AAD across the GHASH-block limit, three key sizes, a 96-bit
//! and a 128-bit IV, every backend, against the independent implementation. Each open is
//! also tried with a flipped tag bit and a flipped ciphertext bit: it must fail and leave
//! the output buffer untouched.
//!
//! Then the sizes of the one-pass path for a few hundred bytes (`aarch64-ce`: 8..=16
//! blocks after at most one block of AAD) and a little beyond: 100..=280 bytes, AAD
//! around one block, through the one-shot seal (out of place, at odd offsets) and the
//! streaming message in one call each way (in place).

mod common;

use common::*;
use stitchgcm::{open, seal, Error, Key, Message};

const AAD_LENS: [usize; 9] = [0, 1, 15, 16, 17, 64, 143, 144, 161];

#[test]
fn short_messages_every_backend_vs_oracle() {
    let text: Vec<u8> = (0..120u8).map(|i| i.wrapping_mul(37) ^ 0x91).collect();
    let aad_all: Vec<u8> = (0..161u8).map(|i| i.wrapping_mul(11) ^ 0x3c).collect();
    let backends = backends();
    let mut cases = 0;
    for key_len in [16usize, 24, 32] {
        let key_bytes: Vec<u8> = (0..key_len as u8).map(|i| i ^ 0xa5).collect();
        let keys: Vec<Key> = backends
            .iter()
            .map(|&b| Key::with_backend(&key_bytes, b).unwrap())
            .collect();
        for iv_len in [12usize, 16] {
            let iv: Vec<u8> = (0..iv_len as u8)
                .map(|i| i.wrapping_mul(3) ^ 0x5e)
                .collect();
            for &a in &AAD_LENS {
                let aad = &aad_all[..a];
                for len in 0..=text.len() {
                    let pt = &text[..len];
                    let (want_ct, want_tag) = oracle_seal(&key_bytes, &iv, aad, pt).unwrap();
                    for (key, b) in keys.iter().zip(&backends) {
                        let what = format!("{b:?} key {key_len} iv {iv_len} aad {a} len {len}");
                        let mut ct = vec![0u8; len];
                        let mut tag = [0u8; 16];
                        seal(key, &iv, aad, pt, &mut ct, &mut tag).unwrap();
                        assert_eq!((&ct[..], tag), (&want_ct[..], want_tag), "seal {what}");
                        let mut back = vec![0u8; len];
                        open(key, &iv, aad, &ct, &mut back, &tag).unwrap();
                        assert_eq!(back, pt, "open {what}");
                        // A truncated tag (12 bytes) verifies on its prefix.
                        open(key, &iv, aad, &ct, &mut back, &tag[..12]).unwrap();
                        let mut bad_tag = tag;
                        bad_tag[len % 16] ^= 1 << (len % 8);
                        let mut out = vec![0xeeu8; len];
                        let r = open(key, &iv, aad, &ct, &mut out, &bad_tag);
                        assert_eq!(r, Err(Error::TagMismatch), "bad tag {what}");
                        assert!(out.iter().all(|&x| x == 0xee), "bad tag released {what}");
                        if len > 0 {
                            let mut bad_ct = ct.clone();
                            bad_ct[len - 1] ^= 0x80;
                            let r = open(key, &iv, aad, &bad_ct, &mut out, &tag);
                            assert_eq!(r, Err(Error::TagMismatch), "bad ct {what}");
                            assert!(out.iter().all(|&x| x == 0xee), "bad ct released {what}");
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, backends.len() * 3 * 2 * AAD_LENS.len() * 121);
}

#[test]
fn medium_messages_every_backend_vs_oracle() {
    const AAD: [usize; 6] = [0, 1, 13, 15, 16, 17];
    let text: Vec<u8> = (0..280u16)
        .map(|i| (i as u8).wrapping_mul(41) ^ 0x17)
        .collect();
    let aad_all: Vec<u8> = (0..17u8).map(|i| i.wrapping_mul(7) ^ 0xc9).collect();
    let iv = [0x6bu8; 12];
    let backends = backends();
    let mut cases = 0;
    for key_len in [16usize, 24, 32] {
        let key_bytes: Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x3d).collect();
        let keys: Vec<Key> = backends
            .iter()
            .map(|&b| Key::with_backend(&key_bytes, b).unwrap())
            .collect();
        for &a in &AAD {
            let aad = &aad_all[..a];
            for len in 100..=text.len() {
                let pt = &text[..len];
                let (want_ct, want_tag) = oracle_seal(&key_bytes, &iv, aad, pt).unwrap();
                for (key, b) in keys.iter().zip(&backends) {
                    let what = format!("{b:?} key {key_len} aad {a} len {len}");
                    // One-shot, out of place, input and output at odd offsets.
                    let (si, so) = (1 + len % 7, 3 + len % 5);
                    let mut src = vec![0u8; len + si];
                    src[si..].copy_from_slice(pt);
                    let mut dst = vec![0u8; len + so];
                    let mut tag = [0u8; 16];
                    seal(key, &iv, aad, &src[si..], &mut dst[so..], &mut tag).unwrap();
                    assert_eq!((&dst[so..], tag), (&want_ct[..], want_tag), "seal {what}");
                    // The streaming message, one call each way, in place.
                    let mut m = Message::new(key, &iv).unwrap();
                    m.aad(key, aad).unwrap();
                    let mut buf = pt.to_vec();
                    m.encrypt(key, &mut buf).unwrap();
                    let mut tag = [0u8; 16];
                    m.tag(key, &mut tag).unwrap();
                    assert_eq!((&buf[..], tag), (&want_ct[..], want_tag), "encrypt {what}");
                    let mut m = Message::new(key, &iv).unwrap();
                    m.aad(key, aad).unwrap();
                    m.decrypt(key, &mut buf).unwrap();
                    assert_eq!(&buf[..], pt, "decrypt {what}");
                    assert_eq!(m.verify(key, &want_tag), Ok(()), "verify {what}");
                    let mut bad = want_tag;
                    bad[len % 16] ^= 0x10;
                    let mut m = Message::new(key, &iv).unwrap();
                    m.aad(key, aad).unwrap();
                    let mut buf = want_ct.clone();
                    m.decrypt(key, &mut buf).unwrap();
                    assert_eq!(
                        m.verify(key, &bad),
                        Err(Error::TagMismatch),
                        "bad tag {what}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, backends.len() * 3 * AAD.len() * 181);
}
