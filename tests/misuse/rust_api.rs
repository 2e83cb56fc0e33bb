//! Misuse cases of the Rust API (`Key`, `Message`, `seal`, `open`); the Error variants
//! carry the same numbers as the C codes. NULL pointers cannot be expressed here.

use crate::common::*;
use crate::{same, Case, MIXED};
use stitchgcm::{open, seal, Error, Key, Message};

const KEY: [u8; 16] = [7; 16];
const IV: [u8; 12] = [9; 12];

fn code(r: Result<(), Error>) -> u32 {
    r.err().map_or(0, |e| e.code())
}

fn key() -> Key {
    Key::new(&KEY).unwrap()
}

/// MIXED unless the message's tag is the oracle's for (aad, pt); else `rc`.
fn tag_is(m: &mut Message, aad: &[u8], pt: &[u8], rc: u32) -> u32 {
    let mut t = [0u8; 16];
    m.tag(&key(), &mut t).unwrap();
    if t == oracle_seal(&KEY, &IV, aad, pt).unwrap().1 {
        rc
    } else {
        MIXED
    }
}

pub fn cases() -> Vec<Case> {
    let case = |name, run| Case {
        front: "rust",
        name,
        run,
    };
    vec![
        case("key length does not fit", || {
            let mut codes = Vec::new();
            for len in (1..=64).filter(|n| ![16, 24, 32].contains(n)) {
                codes.push(code(Key::new(&vec![1u8; len]).map(|_| ())));
                for b in backends() {
                    codes.push(code(Key::with_backend(&vec![1u8; len], b).map(|_| ())));
                }
            }
            same(&codes)
        }),
        case("empty key", || code(Key::new(&[]).map(|_| ()))),
        case("empty IV", || {
            let k = key();
            let (mut ct, mut tag) = ([0u8; 4], [0u8; 16]);
            same(&[
                code(Message::new(&k, &[]).map(|_| ())),
                code(seal(&k, &[], b"", b"abcd", &mut ct, &mut tag)),
                code(open(&k, &[], b"", &ct, &mut [0u8; 4], &tag)),
            ])
        }),
        case("AAD after data", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            m.aad(&k, b"aad").unwrap();
            let mut buf = [0u8; 31];
            m.encrypt(&k, &mut buf[..5]).unwrap();
            let rc = same(&[code(m.aad(&k, b"late")), code(m.aad(&k, b""))]);
            m.encrypt(&k, &mut buf[5..]).unwrap();
            tag_is(&mut m, b"aad", &[0u8; 31], rc)
        }),
        case("AAD after a partial AAD block", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            let rc = same(&[
                code(m.aad(&k, b"abc")),
                code(m.aad(&k, b"defghijklmnopqrstu")),
            ]);
            tag_is(&mut m, b"abcdefghijklmnopqrstu", b"", rc)
        }),
        case("AAD after the tag", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            m.tag(&k, &mut [0u8; 16]).unwrap();
            code(m.aad(&k, b"x"))
        }),
        case("data after the tag", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            m.tag(&k, &mut [0u8; 16]).unwrap();
            same(&[
                code(m.encrypt(&k, &mut [0u8; 3])),
                code(m.decrypt(&k, &mut [0u8; 3])),
                code(m.encrypt(&k, &mut [])),
                code(m.encrypt_to(&k, b"x", &mut [0u8; 1])),
                code(m.decrypt_to(&k, b"x", &mut [0u8; 1])),
            ])
        }),
        case("data after verify", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            let t = oracle_seal(&KEY, &IV, b"", b"").unwrap().1;
            m.verify(&k, &t).unwrap();
            same(&[code(m.decrypt(&k, &mut [0u8; 1])), code(m.aad(&k, b"x"))])
        }),
        case("data after a partial data block", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            let mut buf = [0u8; 40];
            let (a, b) = buf.split_at_mut(7);
            let rc = same(&[code(m.encrypt(&k, a)), code(m.encrypt(&k, b))]);
            if buf[..] != oracle_seal(&KEY, &IV, b"", &[0u8; 40]).unwrap().0[..] {
                return MIXED;
            }
            tag_is(&mut m, b"", &[0u8; 40], rc)
        }),
        case("output shorter than input", || {
            let k = key();
            let src = [1u8; 40];
            let mut codes = Vec::new();
            for dst_len in [0, 1, 16, 39] {
                let mut m = Message::new(&k, &IV).unwrap();
                let mut dst = vec![0xeeu8; dst_len];
                codes.push(code(m.encrypt_to(&k, &src, &mut dst)));
                codes.push(code(m.decrypt_to(&k, &src, &mut dst)));
                let mut tag = [0u8; 16];
                codes.push(code(seal(&k, &IV, b"", &src, &mut dst, &mut tag)));
                codes.push(code(open(&k, &IV, b"", &src, &mut dst, &tag)));
                if dst.iter().any(|&x| x != 0xee) {
                    return MIXED;
                }
                // Nothing was consumed: still in the AAD phase, the empty message's tag.
                m.aad(&k, b"aad").unwrap();
                if tag_is(&mut m, b"aad", b"", 0) != 0 {
                    return MIXED;
                }
            }
            same(&codes)
        }),
        case("tag length 5", || tag_len_codes(5)),
        case("tag length 0", || tag_len_codes(0)),
        case("tag length 17", || tag_len_codes(17)),
        case("wrong tag", || {
            let k = key();
            let pt = [0x42u8; 70];
            let (ct, mut tag) = oracle_seal(&KEY, &IV, b"aad", &pt).unwrap();
            tag[3] ^= 1; // inside the 12-byte prefix too
            let mut out = [0x99u8; 70];
            let mut m = Message::new(&k, &IV).unwrap();
            m.aad(&k, b"aad").unwrap();
            m.decrypt(&k, &mut ct.clone()).unwrap();
            let rc = same(&[
                code(open(&k, &IV, b"aad", &ct, &mut out, &tag)),
                code(m.verify(&k, &tag)),
                code(m.verify(&k, &tag[..12])),
            ]);
            if out != [0x99u8; 70] {
                return MIXED; // open released plaintext of a forged message
            }
            rc
        }),
        case("tag twice", || {
            let k = key();
            let mut m = Message::new(&k, &IV).unwrap();
            m.aad(&k, b"x").unwrap();
            let (mut a, mut b) = ([0u8; 16], [1u8; 16]);
            let rc = same(&[
                code(m.tag(&k, &mut a)),
                code(m.tag(&k, &mut b)),
                code(m.verify(&k, &a)),
            ]);
            if a != b {
                return MIXED;
            }
            rc
        }),
    ]
}

/// `tag`, `verify`, `seal` and `open` with an `n`-byte tag, and that a refused `tag`
/// wrote nothing and did not end the message.
fn tag_len_codes(n: usize) -> u32 {
    let k = key();
    let mut m = Message::new(&k, &IV).unwrap();
    let mut out = vec![0u8; n];
    let rc_tag = code(m.tag(&k, &mut out));
    if out.iter().any(|&x| x != 0) {
        return MIXED;
    }
    if tag_is(&mut m, b"", b"", 0) != 0 {
        return MIXED;
    }
    let mut m = Message::new(&k, &IV).unwrap();
    let (mut ct, mut t) = ([0u8; 4], vec![0u8; n]);
    same(&[
        rc_tag,
        code(m.verify(&k, &vec![0u8; n])),
        code(seal(&k, &IV, b"", b"abcd", &mut ct, &mut t)),
        code(open(&k, &IV, b"", &ct, &mut [0u8; 4], &t)),
    ])
}
