//! A backend's one-pass short-message entries (`crypt_short`, `crypt_short_hold`,
//! `open_short`) called
//! directly, so the path under test is certainly the one-pass one: every key size, every
//! data length the limits allow (1–4 blocks and beyond, partial blocks included), AAD
//! lengths around block boundaries, in place and out of place at unaligned offsets.
//!
//! Answers come from RustCrypto's `aes-gcm` (96-bit IVs, J0 = IV ‖ 1), and for J0s whose
//! 32-bit counter wraps inside the message from the generic path over the soft backend
//! (its AES and GHASH are checked against FIPS-197 and NIST vectors elsewhere).

use crate::backend::soft::Soft;
use crate::backend::{short, Backend, Direction, Material};
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use aes_gcm::AesGcm;

fn keyed<B: Backend>(key: &[u8]) -> Material {
    let mut m = Material::uninit();
    B::init(&mut m, key);
    m
}

fn oracle(key: &[u8], iv: &[u8; 12], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let mut buf = pt.to_vec();
    let nonce = aes_gcm::Nonce::from_slice(iv);
    macro_rules! seal {
        ($aes:ty) => {
            AesGcm::<$aes, U12>::new_from_slice(key)
                .unwrap()
                .encrypt_in_place_detached(nonce, aad, &mut buf)
                .unwrap()
        };
    }
    let tag = match key.len() {
        16 => seal!(Aes128),
        24 => seal!(Aes192),
        _ => seal!(Aes256),
    };
    (buf, tag.into())
}

/// Where input and output sit: out of place (source and destination offsets in their
/// buffers) or in place (the one buffer's offset).
#[derive(Clone, Copy, Debug)]
enum Place {
    Apart(usize, usize),
    Same(usize),
}

const PLACES: [Place; 4] = [
    Place::Apart(0, 0),
    Place::Apart(1, 3),
    Place::Same(0),
    Place::Same(7),
];

/// Runs `f(src, dst)` on `input` placed as `place` says; returns the output bytes.
fn placed(input: &[u8], place: Place, f: impl FnOnce(*const u8, *mut u8)) -> Vec<u8> {
    let len = input.len();
    match place {
        Place::Apart(s, d) => {
            let mut src = vec![0x5au8; s + len + 16];
            src[s..s + len].copy_from_slice(input);
            let mut dst = vec![0xa5u8; d + len + 16];
            f(src[s..].as_ptr(), dst[d..].as_mut_ptr());
            assert!(dst[..d].iter().chain(&dst[d + len..]).all(|&b| b == 0xa5));
            assert_eq!(&src[s..s + len], input, "input changed");
            dst[d..d + len].to_vec()
        }
        Place::Same(o) => {
            let mut buf = vec![0x3cu8; o + len + 16];
            buf[o..o + len].copy_from_slice(input);
            let p = buf[o..].as_mut_ptr();
            f(p, p);
            assert!(buf[..o].iter().chain(&buf[o + len..]).all(|&b| b == 0x3c));
            buf[o..o + len].to_vec()
        }
    }
}

/// Seal, decrypt and open (right, truncated and wrong tags) of one message from `j0`,
/// against `ct` and `tag`; returns the number of calls checked.
fn one<B: Backend>(m: &Material, j0: &[u8; 16], aad: &[u8], pt: &[u8], ct: &[u8], tag: &[u8; 16]) {
    let len = pt.len();
    let what = |w: &str, p: Place| format!("{w} aad {} len {len} {p:?}", aad.len());
    for place in PLACES {
        let mut got = [0u8; 16];
        // SAFETY: `placed` gives `len` readable and writable bytes, equal or disjoint; the
        // callers keep the message within B's limits.
        let out = placed(pt, place, |s, d| unsafe {
            got = B::crypt_short(m, Direction::Encrypt, j0, aad, s, d, len)
        });
        assert_eq!((&out[..], &got), (ct, tag), "{}", what("seal", place));
        // SAFETY: as above.
        let out = placed(ct, place, |s, d| unsafe {
            got = B::crypt_short(m, Direction::Decrypt, j0, aad, s, d, len)
        });
        assert_eq!((&out[..], &got), (pt, tag), "{}", what("decrypt", place));
        // With the ciphertext kept: the same answers, and the zero-padded ciphertext in
        // `hold` (the bytes after it untouched).
        let padded = len.div_ceil(16) * 16;
        let mut want_hold = ct.to_vec();
        want_hold.resize(padded, 0);
        want_hold.extend_from_slice(&[0xee; 16]);
        for (dir, input, output) in [(Direction::Encrypt, pt, ct), (Direction::Decrypt, ct, pt)] {
            let mut hold = vec![0xeeu8; padded + 16];
            // SAFETY: as above; `hold` has room for the padded ciphertext.
            let out = placed(input, place, |s, d| unsafe {
                got = B::crypt_short_hold(m, dir, j0, aad, s, d, len, hold.as_mut_ptr())
            });
            let w = what(&format!("{dir:?} keeping the ciphertext"), place);
            assert_eq!((&out[..], &got, &hold), (output, tag, &want_hold), "{w}");
        }
        for (t, want) in [(&tag[..], true), (&tag[..12], true)] {
            let mut ok = false;
            // SAFETY: as above; the tag is at most 16 bytes.
            let out = placed(ct, place, |s, d| unsafe {
                ok = B::open_short(m, j0, aad, s, d, len, t)
            });
            assert_eq!((ok, &out[..]), (want, pt), "{}", what("open", place));
        }
        let mut bad = *tag;
        bad[len % 16] ^= 0x10;
        let mut ok = true;
        // SAFETY: as above.
        let out = placed(ct, place, |s, d| unsafe {
            ok = B::open_short(m, j0, aad, s, d, len, &bad)
        });
        let untouched = match place {
            Place::Apart(..) => vec![0xa5; len],
            Place::Same(_) => ct.to_vec(),
        };
        assert_eq!(
            (ok, out),
            (false, untouched),
            "{}",
            what("open, wrong tag", place)
        );
    }
}

/// Every key size, data length and a spread of AAD lengths within `B`'s limits.
pub(crate) fn check<B: Backend>() -> usize {
    if !B::is_available() {
        return 0;
    }
    let text: Vec<u8> = (0..16 * B::SHORT_DATA_BLOCKS)
        .map(|i| (i * 61 + 17) as u8)
        .collect();
    let aad_all: Vec<u8> = (0..112).map(|i| (i * 23 + 5) as u8).collect();
    let mut cases = 0;
    for key_len in [16, 24, 32] {
        let key: Vec<u8> = (0..key_len).map(|i| (i * 37 + key_len) as u8).collect();
        let m = keyed::<B>(&key);
        let soft = keyed::<Soft>(&key);
        let iv: [u8; 12] = core::array::from_fn(|i| (i * 11 + key_len) as u8);
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(&iv);
        j0[15] = 1;
        // inc32 wraps after the second data block.
        let mut wrap = j0;
        wrap[12..].copy_from_slice(&0xffff_fffeu32.to_be_bytes());
        for len in 0..=text.len() {
            // Every bit of a byte count below 128 set in some AAD length and data length.
            for a in [0, 1, 7, 13, 16, 17, 33, 48, 98, 112] {
                let (aad, pt) = (&aad_all[..a], &text[..len]);
                if !short::fits(a, len, B::SHORT_DATA_BLOCKS, B::SHORT_HASH_BLOCKS) {
                    continue;
                }
                let (ct, tag) = oracle(&key, &iv, aad, pt);
                one::<B>(&m, &j0, aad, pt, &ct, &tag);
                let mut ct = vec![0u8; len];
                // SAFETY: `len` bytes each, disjoint; within the generic path's limits,
                // which are at least B's.
                let tag = unsafe {
                    short::crypt::<Soft>(
                        &soft,
                        Direction::Encrypt,
                        &wrap,
                        aad,
                        pt.as_ptr(),
                        ct.as_mut_ptr(),
                        len,
                    )
                };
                one::<B>(&m, &wrap, aad, pt, &ct, &tag);
                cases += 2;
            }
        }
    }
    cases
}

#[test]
fn the_generic_path_over_the_soft_backend() {
    assert!(check::<Soft>() > 0);
}
