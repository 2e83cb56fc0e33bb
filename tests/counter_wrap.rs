//! Counter blocks whose low byte wraps (255 -> 0) inside a run of the stitched loop, at the
//! edge of an iteration and between two, through the public API, every backend, against
//! the independent implementation. `x86_64-vaes512` makes its counter blocks without byte
//! swaps while the counter's public low byte is at most 236 (for a 96-bit IV the counter
//! is 2 plus the blocks before it); these messages put every phase of that byte against
//! its sixteen-block iterations: a first data call of 0..=17 blocks (and partial blocks)
//! moves the second, long call's counter. IVs of other lengths, whose J0 is GHASH_H(IV)
//! and so not public, are chosen with J0's low byte near 0xff, where a fast step taken on
//! them would carry wrongly.

mod common;

use aes_gcm::aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use common::*;
use stitchgcm::{Key, Message};

/// GF(2^128) product in GCM's bit order (blocks as big-endian integers).
fn gmul(x: u128, y: u128) -> u128 {
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 {
            (v >> 1) ^ (0xe1 << 120)
        } else {
            v >> 1
        };
    }
    z
}

/// J0 for an IV of other than 96 bits: GHASH_H(IV ‖ pad ‖ 0^64 ‖ [len(IV)]64).
fn j0_of(key: &[u8], iv: &[u8]) -> u128 {
    let mut h = GenericArray::from([0u8; 16]);
    match key.len() {
        16 => aes_gcm::aes::Aes128::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut h),
        24 => aes_gcm::aes::Aes192::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut h),
        _ => aes_gcm::aes::Aes256::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut h),
    }
    let h = u128::from_be_bytes(h.into());
    let mut y = 0u128;
    for chunk in iv.chunks(16) {
        let mut b = [0u8; 16];
        b[..chunk.len()].copy_from_slice(chunk);
        y = gmul(y ^ u128::from_be_bytes(b), h);
    }
    gmul(y ^ (iv.len() as u128 * 8), h)
}

/// Seals `pt` under `iv` in two data calls (the first of `first` bytes) and in one call,
/// and opens it in two, against the oracle.
fn check(key: &Key, key_bytes: &[u8], iv: &[u8], aad: &[u8], pt: &[u8], first: usize) {
    let b = key.backend();
    let what = format!(
        "{b:?} key {} iv {} first {first} len {}",
        key_bytes.len(),
        iv.len(),
        pt.len()
    );
    let (want_ct, want_tag) = oracle_seal(key_bytes, iv, aad, pt).unwrap();
    let mut m = Message::new(key, iv).unwrap();
    m.aad(key, aad).unwrap();
    let mut buf = pt.to_vec();
    m.encrypt(key, &mut buf[..first]).unwrap();
    m.encrypt(key, &mut buf[first..]).unwrap();
    let mut tag = [0u8; 16];
    m.tag(key, &mut tag).unwrap();
    assert!(buf == want_ct && tag == want_tag, "two-call seal: {what}");
    let mut m = Message::new(key, iv).unwrap();
    m.aad(key, aad).unwrap();
    m.decrypt(key, &mut buf[..first]).unwrap();
    m.decrypt(key, &mut buf[first..]).unwrap();
    assert!(buf == pt, "two-call open: {what}");
    assert_eq!(m.verify(key, &want_tag), Ok(()), "two-call verify: {what}");
    let mut one = pt.to_vec();
    let mut tag = [0u8; 16];
    stitchgcm::seal_in_place(key, iv, aad, &mut one, &mut tag).unwrap();
    assert!(one == want_ct && tag == want_tag, "one-shot seal: {what}");
}

#[test]
fn iv96_every_phase_of_the_low_byte() {
    let mut rng = Rng::new(0x29c);
    let mut cases = 0;
    for b in backends() {
        for key_len in [16, 32] {
            let kb = rng.bytes(key_len);
            let key = Key::with_backend(&kb, b).unwrap();
            let iv = rng.bytes(12);
            let aad = rng.bytes(13);
            // The second call's counter starts at 2 + ceil(first / 16): every residue mod
            // 16 (so every phase of the byte against the iterations), with whole and
            // partial first calls, then 300 blocks and a partial one (the byte wraps once
            // or twice, inside an iteration or at its edge). The first call of 0 bytes
            // leaves the whole message to one call (the whole-message path).
            for first_blocks in 0..=17usize {
                for partial in [0usize, 5] {
                    let first = 16 * first_blocks + partial;
                    let pt = rng.bytes(first + 16 * 300 + 7);
                    check(&key, &kb, &iv, &aad, &pt, first);
                    cases += 1;
                }
            }
            // Whole messages from counter 2 that end just before, at and after the wrap
            // (254 counter blocks reach low byte 255).
            for blocks in [240usize, 252, 253, 254, 255, 256, 270, 510, 512] {
                let pt = rng.bytes(16 * blocks);
                check(&key, &kb, &iv, &aad, &pt, 0);
                cases += 1;
            }
        }
    }
    assert!(cases > 0);
}

#[test]
fn other_iv_lengths_with_j0_near_the_wrap() {
    let mut rng = Rng::new(0x29d);
    let mut cases = 0;
    for b in backends() {
        for key_len in [16, 32] {
            let kb = rng.bytes(key_len);
            let key = Key::with_backend(&kb, b).unwrap();
            let aad = rng.bytes(13);
            // IVs of 8 and 16 bytes whose J0 has low byte 0xec..=0xff (inc32(J0) from 0xed:
            // the first iteration's blocks cross 255), found by trying IVs.
            let mut found = 0;
            while found < 6 {
                let iv = rng.bytes(if found % 2 == 0 { 16 } else { 8 });
                let low = j0_of(&kb, &iv) as u8;
                if low < 0xec {
                    continue;
                }
                for first in [0usize, 16 * 3] {
                    let pt = rng.bytes(first + 16 * 40 + 3);
                    check(&key, &kb, &iv, &aad, &pt, first);
                    cases += 1;
                }
                found += 1;
            }
        }
    }
    assert!(cases > 0);
}
