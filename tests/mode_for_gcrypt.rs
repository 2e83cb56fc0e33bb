//! What the libgcrypt front-end needs from the mode beyond the usual calls: re-keying in
//! place (`Key::set`), a message that carries on under a new key the way libgcrypt's does
//! (`Message::before_rekey`) and a counter set mid-message (`Message::set_counter`),
//! checked against the independent RustCrypto `aes-gcm` oracle. (Where libgcrypt mixes two
//! keys in one message the only oracle is libgcrypt: scripts/test-gcrypt.sh.)

mod common;

use common::*;
use stitchgcm::{seal, Error, Key, Message};

const IV: [u8; 12] = [0x5a; 12];

fn xor(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

#[test]
fn set_expands_like_new_and_rejects_bad_lengths() {
    for len in [16, 24, 32] {
        let raw: Vec<u8> = (0..len as u8).collect();
        let mut key = Key::new(&[0u8; 16]).unwrap();
        key.set(&raw).unwrap();
        assert_eq!(key.key_len(), len);
        let pt = [0x33u8; 37];
        let (mut ct, mut tag) = ([0u8; 37], [0u8; 16]);
        seal(&key, &IV, b"aad", &pt, &mut ct, &mut tag).unwrap();
        let (oct, otag) = oracle_seal(&raw, &IV, b"aad", &pt).unwrap();
        assert_eq!((ct.to_vec(), tag), (oct, otag), "key length {len}");

        // A rejected length leaves the key as it was.
        assert_eq!(key.set(&raw[..15]), Err(Error::InvalidKeyLength));
        seal(&key, &IV, b"aad", &pt, &mut ct, &mut tag).unwrap();
        assert_eq!(tag, otag, "key length {len} after a rejected set");
    }
}

/// The tag of an empty message with no AAD is E(K, J0): GHASH of the all-zero lengths
/// block is zero.
fn mask(key: &[u8]) -> [u8; 16] {
    oracle_seal(key, &IV, b"", b"").unwrap().1
}

#[test]
fn fixed_mask_survives_a_key_change() {
    let (k1, k2) = ([1u8; 16], [2u8; 32]);
    let (key1, key2) = (Key::new(&k1).unwrap(), Key::new(&k2).unwrap());
    let pt = [0x44u8; 50];
    for fix in [false, true] {
        let mut msg = Message::new(&key1, &IV).unwrap();
        msg.aad(&key1, b"header").unwrap();
        if fix {
            msg.before_rekey(&key1);
        }
        let mut buf = pt;
        msg.encrypt(&key2, &mut buf).unwrap();
        let mut tag = [0u8; 16];
        msg.tag(&key2, &mut tag).unwrap();
        // Counter blocks and GHASH (the 6 bytes of AAD are not a whole block yet) use the
        // key in force: k2 (J0 of a 96-bit IV needs no key). Only the mask differs:
        // E(k1, J0) after before_rekey, else E(k2, J0).
        let (oct, otag) = oracle_seal(&k2, &IV, b"header", &pt).unwrap();
        assert_eq!(buf.to_vec(), oct);
        let want = if fix {
            xor(&xor(&otag, &mask(&k2)), &mask(&k1))
        } else {
            otag
        };
        assert_eq!(to_hex(&tag), to_hex(&want), "before_rekey called: {fix}");
    }
}

/// Without an actual key change, `before_rekey` changes nothing: at every point of a
/// message (AAD partly held back, the short one-pass path, an open data block, whole
/// blocks held back, long data through the fused kernel) the result is the oracle's.
#[test]
fn before_rekey_with_the_same_key_changes_nothing() {
    let raw = [3u8; 24];
    let key = Key::new(&raw).unwrap();
    let aad: Vec<u8> = (0..40u8).collect();
    let pt: Vec<u8> = (0..300u16).map(|i| (i * 7) as u8).collect();
    let (oct, otag) = oracle_seal(&raw, &IV, &aad, &pt).unwrap();
    for (a, cuts) in [
        (13, vec![5, 37]),
        (40, vec![0, 16, 17, 200]),
        (0, vec![3, 150, 299]),
    ] {
        let (aad, pt) = (&aad[..a], &pt[..]);
        let (oct, otag) = if a == 40 {
            (oct.clone(), otag)
        } else {
            oracle_seal(&raw, &IV, aad, pt).unwrap()
        };
        for before_data in [false, true] {
            let mut msg = Message::new(&key, &IV).unwrap();
            msg.aad(&key, &aad[..a / 2]).unwrap();
            msg.before_rekey(&key);
            msg.aad(&key, &aad[a / 2..]).unwrap();
            if before_data {
                msg.before_rekey(&key);
            }
            let mut buf = pt.to_vec();
            let mut at = 0;
            for &c in &cuts {
                msg.encrypt(&key, &mut buf[at..c]).unwrap();
                msg.before_rekey(&key);
                at = c;
            }
            msg.encrypt(&key, &mut buf[at..]).unwrap();
            let mut tag = [0u8; 16];
            msg.tag(&key, &mut tag).unwrap();
            assert_eq!(
                (to_hex(&buf), tag),
                (to_hex(&oct), otag),
                "aad {a}, cuts {cuts:?}"
            );
        }
    }
}

/// libgcrypt's `setctr` on a GCM handle: the data continues from the given counter block
/// (plain CTR from there); GHASH and the tag go on over the ciphertext as usual.
#[test]
fn set_counter_between_blocks() {
    let raw = [6u8; 16];
    let key = Key::new(&raw).unwrap();
    let pt = [0x21u8; 48];
    // The keystream from counter block c is the oracle's encryption of zeros under the
    // 96-bit IV c[..12] when c ends in 00000002 (= J0 + 1).
    let mut c = [0xc3u8; 16];
    c[12..].copy_from_slice(&2u32.to_be_bytes());
    let (ks, _) = oracle_seal(&raw, &c[..12], b"", &[0u8; 32]).unwrap();

    let mut msg = Message::new(&key, &IV).unwrap();
    msg.aad(&key, b"abc").unwrap();
    msg.set_counter(&c).unwrap(); // before the data: the data starts at c
    let mut buf = pt;
    msg.encrypt(&key, &mut buf[..16]).unwrap();
    msg.set_counter(&c).unwrap(); // between whole blocks: the next block reuses c
    msg.encrypt(&key, &mut buf[16..21]).unwrap();
    assert_eq!(msg.set_counter(&c), Err(Error::InvalidState)); // inside a block
    msg.encrypt(&key, &mut buf[21..]).unwrap();
    let want: Vec<u8> = (0..48)
        .map(|i| pt[i] ^ ks[if i < 16 { i } else { i - 16 }])
        .collect();
    assert_eq!(to_hex(&buf), to_hex(&want));

    // The tag: GHASH over AAD and this ciphertext, masked with E(K, J0) of the IV, so a
    // normal decryption under the IV verifies it.
    let mut tag = [0u8; 16];
    msg.tag(&key, &mut tag).unwrap();
    let mut dec = Message::new(&key, &IV).unwrap();
    dec.aad(&key, b"abc").unwrap();
    dec.decrypt(&key, &mut buf).unwrap();
    dec.verify(&key, &tag).unwrap();
}
