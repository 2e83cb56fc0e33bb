//! Re-keying in place (`Key::set`) and the tag mask of a message whose handle is re-keyed
//! mid-message (`Message::fix_tag_mask`, libgcrypt's semantics), checked against the
//! independent RustCrypto `aes-gcm` oracle.

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
            msg.fix_tag_mask(&key1);
        }
        let mut buf = pt;
        msg.encrypt(&key2, &mut buf).unwrap();
        let mut tag = [0u8; 16];
        msg.tag(&key2, &mut tag).unwrap();
        // Counter blocks and GHASH use the key in force: k2 (J0 of a 96-bit IV needs no
        // key). Only the mask differs: E(k1, J0) once fixed, else E(k2, J0).
        let (oct, otag) = oracle_seal(&k2, &IV, b"header", &pt).unwrap();
        assert_eq!(buf.to_vec(), oct);
        let want = if fix {
            xor(&xor(&otag, &mask(&k2)), &mask(&k1))
        } else {
            otag
        };
        assert_eq!(to_hex(&tag), to_hex(&want), "fix_tag_mask called: {fix}");
    }
}

#[test]
fn fix_tag_mask_after_data_changes_nothing() {
    let key = Key::new(&[3u8; 24]).unwrap();
    let other = Key::new(&[4u8; 24]).unwrap();
    let mut buf = [0x55u8; 20];
    let mut msg = Message::new(&key, &IV).unwrap();
    msg.encrypt(&key, &mut buf).unwrap();
    msg.fix_tag_mask(&other); // the first data already fixed the mask under `key`
    let mut tag = [0u8; 16];
    msg.tag(&key, &mut tag).unwrap();
    assert_eq!(
        tag,
        oracle_seal(&[3u8; 24], &IV, b"", &[0x55u8; 20]).unwrap().1
    );
}
