//! The streaming message's paths around its first data call, exhaustively over chosen
//! sizes: data split into a first and a second call, both directions, every backend,
//! against the independent implementation. A first data call whose AAD is all held is
//! answered in one backend call with a provisional tag — the one-pass short path for
//! small AAD and data, the whole-message path otherwise — and the second call must carry
//! on from it exactly as the regular path would (`Message::resume`).

mod common;

use common::*;
use stitchgcm::{Key, Message};

const SIZES: [usize; 12] = [0, 1, 7, 12, 13, 15, 16, 17, 31, 32, 33, 40];

/// Seals and opens `pt` in two data calls after `aad`, the first of `first` bytes; with
/// nothing after it, the second call is empty, or left out when `empty` is false (then
/// the first call's provisional tag is the tag). Returns the number of cases run (one).
fn two_calls(
    key: &Key,
    key_bytes: &[u8],
    aad: &[u8],
    pt: &[u8],
    first: usize,
    empty: bool,
) -> usize {
    let iv = [0x24u8; 12];
    let b = key.backend();
    let (a, second) = (aad.len(), pt.len() - first);
    let (want_ct, want_tag) = oracle_seal(key_bytes, &iv, aad, pt).unwrap();
    // Encrypt in two calls.
    let mut m = Message::new(key, &iv).unwrap();
    m.aad(key, aad).unwrap();
    let mut buf = pt.to_vec();
    m.encrypt(key, &mut buf[..first]).unwrap();
    if second > 0 || empty {
        m.encrypt(key, &mut buf[first..]).unwrap();
    }
    let mut tag = [0u8; 16];
    m.tag(key, &mut tag).unwrap();
    assert_eq!(
        (&buf[..], tag),
        (&want_ct[..], want_tag),
        "{b:?} enc aad {a} {first}+{second}"
    );
    // Decrypt in two calls, then verify.
    let mut m = Message::new(key, &iv).unwrap();
    m.aad(key, aad).unwrap();
    m.decrypt(key, &mut buf[..first]).unwrap();
    if second > 0 || empty {
        m.decrypt(key, &mut buf[first..]).unwrap();
    }
    assert_eq!(&buf[..], pt, "{b:?} dec aad {a} {first}+{second}");
    assert_eq!(
        m.verify(key, &want_tag),
        Ok(()),
        "{b:?} verify aad {a} {first}+{second}"
    );
    1
}

#[test]
fn short_first_call_then_more_data() {
    let key_bytes = [0x42u8; 16];
    let text: Vec<u8> = (0..80u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
    let aad_all: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(13) ^ 0xa3).collect();
    let mut cases = 0;
    for b in backends() {
        let key = Key::with_backend(&key_bytes, b).unwrap();
        for &a in &SIZES {
            for &first in &SIZES {
                for &second in &SIZES {
                    let pt = &text[..first + second];
                    for empty in [false, true] {
                        cases += two_calls(&key, &key_bytes, &aad_all[..a], pt, first, empty);
                    }
                }
            }
        }
    }
    assert_eq!(cases, 2 * backends().len() * SIZES.len().pow(3));
}

/// First calls too long for the one pass (or AAD too long to hold with the data): the
/// whole-message path, then more data; all key sizes.
#[test]
fn long_first_call_then_more_data() {
    const AAD: [usize; 5] = [0, 13, 16, 40, 127];
    const FIRST: [usize; 10] = [0, 1, 100, 112, 113, 127, 128, 129, 256, 269];
    const SECOND: [usize; 6] = [0, 1, 15, 16, 17, 130];
    let text: Vec<u8> = (0..400u16)
        .map(|i| (i as u8).wrapping_mul(29) ^ 0x5c)
        .collect();
    let aad_all: Vec<u8> = (0..127u8).map(|i| i.wrapping_mul(13) ^ 0xa3).collect();
    let mut cases = 0;
    for b in backends() {
        for key_len in [16, 24, 32] {
            let key_bytes: Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x42).collect();
            let key = Key::with_backend(&key_bytes, b).unwrap();
            for &a in &AAD {
                for &first in &FIRST {
                    for &second in &SECOND {
                        let pt = &text[..first + second];
                        for empty in [false, true] {
                            cases += two_calls(&key, &key_bytes, &aad_all[..a], pt, first, empty);
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        cases,
        2 * backends().len() * 3 * AAD.len() * FIRST.len() * SECOND.len()
    );
}
