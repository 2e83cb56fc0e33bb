//! The streaming message's paths around short messages, exhaustively over small sizes:
//! AAD of 0..=40 bytes, data split into a first and a second call of 0..=40 bytes each,
//! both directions, every backend, against the independent implementation. A short
//! first data call is answered in one pass with a provisional tag; the second call must
//! carry on from it exactly as the regular path would (`Message::resume`).

mod common;

use common::*;
use stitchgcm::{Key, Message};

const SIZES: [usize; 12] = [0, 1, 7, 12, 13, 15, 16, 17, 31, 32, 33, 40];

#[test]
fn short_first_call_then_more_data() {
    let key_bytes = [0x42u8; 16];
    let iv = [0x24u8; 12];
    let text: Vec<u8> = (0..80u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
    let aad_all: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(13) ^ 0xa3).collect();
    let mut cases = 0;
    for b in backends() {
        let key = Key::with_backend(&key_bytes, b).unwrap();
        for &a in &SIZES {
            let aad = &aad_all[..a];
            for &first in &SIZES {
                for &second in &SIZES {
                    let pt = &text[..first + second];
                    let (want_ct, want_tag) = oracle_seal(&key_bytes, &iv, aad, pt).unwrap();
                    // Encrypt in two calls.
                    let mut m = Message::new(&key, &iv).unwrap();
                    m.aad(&key, aad).unwrap();
                    let mut buf = pt.to_vec();
                    m.encrypt(&key, &mut buf[..first]).unwrap();
                    m.encrypt(&key, &mut buf[first..]).unwrap();
                    let mut tag = [0u8; 16];
                    m.tag(&key, &mut tag).unwrap();
                    assert_eq!(
                        (&buf[..], tag),
                        (&want_ct[..], want_tag),
                        "{b:?} enc aad {a} {first}+{second}"
                    );
                    // Decrypt in two calls, then verify.
                    let mut m = Message::new(&key, &iv).unwrap();
                    m.aad(&key, aad).unwrap();
                    m.decrypt(&key, &mut buf[..first]).unwrap();
                    m.decrypt(&key, &mut buf[first..]).unwrap();
                    assert_eq!(&buf[..], pt, "{b:?} dec aad {a} {first}+{second}");
                    assert_eq!(
                        m.verify(&key, &want_tag),
                        Ok(()),
                        "{b:?} verify aad {a} {first}+{second}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, backends().len() * SIZES.len().pow(3));
}
