//! Seeded differential tests of RFC 4106 (IPsec ESP): random packets of every key size
//! (key‖salt of 20/28/36 bytes, 8-byte explicit IV, AAD of 8 or 12 bytes, ICV of 8, 12 or
//! 16), payloads of 0..1500 bytes with the 1420-byte ESP frame among them, on every backend
//! in `cpu::available()` against plain GCM with nonce = salt‖IV and AAD = SPI‖SN(‖ESN) on
//! the `soft` backend and the independent RustCrypto `aes-gcm` oracle: the one-shot
//! seal/open, the streaming message with AAD and payload in random pieces, and packets with
//! one flipped bit (ciphertext, AAD or ICV) refused with nothing written. On the selected
//! backend half the cases also go through an `SGCM_MODE_RFC4106` handle: streaming with
//! random splits in place and out of place inside canary frames, `gettag`/`checktag`, the
//! per-packet `sgcm_aead_seal`/`open` and `sgcm_aead_seal_geniv` from a random start.
//! Seeds as in `differential.rs` (`STITCHGCM_TEST_SEED`).

mod common;

use common::seeded::*;
use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::ffi::rfc4106::SGCM_MODE_RFC4106;
use stitchgcm::{cpu, seal, BackendId, Error, Key, Rfc4106Key, Rfc4106Message};

const CASES: usize = 400;

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// One random ESP packet: AES key‖salt, explicit IV, SPI‖SN or SPI‖ESN, payload, ICV length.
struct EspCase {
    key_and_salt: Vec<u8>,
    iv: [u8; 8],
    aad: Vec<u8>,
    pt: Vec<u8>,
    icv_len: usize,
}

fn random_esp_case(rng: &mut Rng) -> EspCase {
    let key_len = rng.pick(&[20, 28, 36]);
    let pt_len = match rng.below(8) {
        0 => 1420,
        1..=2 => rng.range(0, 64),
        3 => rng.range(0, 2) * 16 + rng.pick(&[0, 1, 15]),
        _ => rng.range(0, 1500),
    };
    let mut iv = [0u8; 8];
    rng.fill(&mut iv);
    let aad_len = rng.pick(&[8, 12]);
    EspCase {
        key_and_salt: rng.bytes(key_len),
        iv,
        aad: rng.bytes(aad_len),
        pt: rng.bytes(pt_len),
        icv_len: rng.pick(&[8, 12, 16]),
    }
}

/// The same packet as plain GCM on the soft backend: nonce = salt‖IV.
fn esp_reference(c: &EspCase) -> (Vec<u8>, [u8; 16]) {
    let (aes, salt) = c.key_and_salt.split_at(c.key_and_salt.len() - 4);
    let soft_key = Key::with_backend(aes, soft()).unwrap();
    let nonce = [salt, &c.iv[..]].concat();
    let mut ct = vec![0u8; c.pt.len()];
    let mut tag = [0u8; 16];
    seal(&soft_key, &nonce, &c.aad, &c.pt, &mut ct, &mut tag).unwrap();
    (ct, tag)
}

fn run_esp_case(rng: &mut Rng, b: BackendId, handles: Option<&[CHandle; 3]>) {
    let c = random_esp_case(rng);
    let il = c.icv_len;
    let (ref_ct, ref_tag) = esp_reference(&c);
    let (oct, otag) = oracle_seal_rfc4106(&c.key_and_salt, &c.iv, &c.aad, &c.pt);
    assert_eq!(
        (&oct, otag),
        (&ref_ct, ref_tag),
        "soft GCM vs aes-gcm oracle"
    );

    let key = Rfc4106Key::with_backend(&c.key_and_salt, b).unwrap();
    let mut out = vec![0x33u8; c.pt.len() + 3];
    let mut icv = vec![0u8; il];
    key.seal(&c.iv, &c.aad, &c.pt, &mut out, &mut icv).unwrap();
    assert_eq!(
        to_hex(&out[..c.pt.len()]),
        to_hex(&ref_ct),
        "seal ciphertext"
    );
    assert!(
        out[c.pt.len()..].iter().all(|&x| x == 0x33),
        "seal wrote past the payload"
    );
    assert_eq!(icv[..], ref_tag[..il], "seal {il}-byte ICV");
    let mut back = vec![0u8; c.pt.len()];
    key.open(&c.iv, &c.aad, &ref_ct, &mut back, &icv).unwrap();
    assert_eq!(back, c.pt, "open");

    // Streaming, AAD and payload in random pieces, in place.
    let mut m = Rfc4106Message::new(&key, &c.iv).unwrap();
    for_chunks(&rng.chunks(c.aad.len()), |pos, n| {
        m.aad(&key, &c.aad[pos..pos + n]).unwrap();
    });
    let mut buf = c.pt.clone();
    for_chunks(&rng.chunks(buf.len()), |pos, n| {
        m.encrypt(&key, &mut buf[pos..pos + n]).unwrap();
    });
    let mut t = vec![0u8; il];
    m.icv(&key, &mut t).unwrap();
    assert_eq!((&buf, &t[..]), (&ref_ct, &ref_tag[..il]), "streaming seal");

    // A flipped bit in the ciphertext, the AAD or the ICV: refused, nothing written.
    let (mut bad_ct, mut bad_aad, mut bad_icv) = (ref_ct.clone(), c.aad.clone(), icv.clone());
    let target = if ref_ct.is_empty() {
        1 + rng.below(2)
    } else {
        rng.below(3)
    };
    let v = [&mut bad_ct, &mut bad_aad, &mut bad_icv][target].as_mut_slice();
    let bit = rng.below(v.len() * 8);
    v[bit / 8] ^= 1 << (bit % 8);
    let mut out = Framed::new(rng, bad_ct.len());
    let r = key.open(&c.iv, &bad_aad, &bad_ct, out.tail_from(0), &bad_icv);
    assert_eq!(
        r,
        Err(Error::TagMismatch),
        "open of a tampered packet ({target})"
    );
    assert!(
        out.buf == out.canary,
        "open wrote to dst for a tampered packet"
    );

    if let Some(handles) = handles {
        if rng.chance(1, 2) {
            check_esp_c_abi(
                rng,
                &handles[(c.key_and_salt.len() - 20) / 8],
                &c,
                &ref_ct,
                &ref_tag,
            );
        }
    }
}

/// An `SGCM_MODE_RFC4106` handle: streaming with random splits (in place or not), the
/// per-packet calls, and `sgcm_aead_seal_geniv` with a generator started at a random value.
fn check_esp_c_abi(rng: &mut Rng, h: &CHandle, c: &EspCase, ct: &[u8], tag: &[u8; 16]) {
    let il = c.icv_len;
    assert_eq!(h.setkey(&c.key_and_salt), SGCM_ERR_NO_ERROR, "setkey");
    for dir in [Dir::Encrypt, Dir::Decrypt] {
        let (input, want) = match dir {
            Dir::Encrypt => (&c.pt[..], ct),
            Dir::Decrypt => (ct, &c.pt[..]),
        };
        assert_eq!(h.setiv(&c.iv), SGCM_ERR_NO_ERROR, "setiv");
        for_chunks(&rng.chunks(c.aad.len()), |pos, n| {
            assert_eq!(h.authenticate(&c.aad[pos..pos + n]), SGCM_ERR_NO_ERROR);
        });
        let mut dst = Framed::new(rng, input.len());
        for_chunks(&rng.chunks(input.len()), |pos, n| {
            let rc = if rng.chance(1, 2) {
                dst.part(pos, n).copy_from_slice(&input[pos..pos + n]);
                match dir {
                    Dir::Encrypt => h.encrypt_in_place(dst.part(pos, n)),
                    Dir::Decrypt => h.decrypt_in_place(dst.part(pos, n)),
                }
            } else {
                match dir {
                    Dir::Encrypt => h.encrypt_to(&input[pos..pos + n], dst.tail_from(pos)),
                    Dir::Decrypt => h.decrypt_to(&input[pos..pos + n], dst.tail_from(pos)),
                }
            };
            assert_eq!(rc, SGCM_ERR_NO_ERROR, "C RFC 4106 chunk");
        });
        assert!(
            dst.frame_intact(),
            "C RFC 4106: bytes around the output were modified"
        );
        assert_eq!(dst.region(), want, "C RFC 4106 streaming output");
        if dir == Dir::Encrypt {
            let mut t = vec![0u8; il];
            assert_eq!(h.gettag(&mut t), SGCM_ERR_NO_ERROR, "gettag");
            assert_eq!(t[..], tag[..il], "C RFC 4106 gettag");
        } else {
            let mut t = tag[..il].to_vec();
            let bad = rng.chance(1, 2);
            if bad {
                t[rng.below(il)] ^= 0x80;
            }
            let want = if bad {
                SGCM_ERR_CHECKSUM
            } else {
                SGCM_ERR_NO_ERROR
            };
            assert_eq!(h.checktag(&t), want, "checktag");
        }
    }
    let mut sealed = c.pt.clone();
    let mut icv = vec![0u8; il];
    assert_eq!(h.aead_seal(&c.iv, &c.aad, None, &mut sealed, &mut icv), 0);
    assert_eq!((&sealed[..], &icv[..]), (ct, &tag[..il]), "sgcm_aead_seal");
    let mut opened = vec![0u8; ct.len()];
    assert_eq!(h.aead_open(&c.iv, &c.aad, Some(ct), &mut opened, &icv), 0);
    assert_eq!(opened, c.pt, "sgcm_aead_open");

    // The generator's IVs, sealed and checked against plain GCM with nonce salt‖IV.
    let start = rng.next_u64() >> 1;
    assert_eq!(h.setup_geniv(&start.to_be_bytes()), SGCM_ERR_NO_ERROR);
    for k in 0..2u64 {
        let mut iv = [0u8; 8];
        let mut out = vec![0u8; c.pt.len()];
        let rc = h.aead_seal_geniv(&mut iv, &c.aad, Some(&c.pt), &mut out, &mut icv);
        assert_eq!(rc, SGCM_ERR_NO_ERROR, "sgcm_aead_seal_geniv");
        assert_eq!(u64::from_be_bytes(iv), start + k, "generated IV");
        let (oct, otag) = oracle_seal_rfc4106(&c.key_and_salt, &iv, &c.aad, &c.pt);
        assert_eq!(
            (&out, &icv[..]),
            (&oct, &otag[..il]),
            "sgcm_aead_seal_geniv vs oracle"
        );
    }
}

#[test]
fn rfc4106_every_backend_vs_gcm_and_oracle() {
    let base = base_seed() ^ 0x4106;
    let selected = cpu::selected().expect("a usable backend (check STITCHGCM_IMPL)");
    let handles = [16, 24, 32].map(|n| CHandle::open_mode(n, SGCM_MODE_RFC4106));
    for b in backends() {
        for i in 0..CASES {
            let seed = base ^ (i as u64).wrapping_mul(0xd1b5_4a32_d192_ed03);
            let _ctx = FailureContext(format!(
                "RFC 4106, backend {} case {i} (case seed {seed:#x}; rerun with STITCHGCM_TEST_SEED={:#x})",
                b.name(),
                base_seed()
            ));
            let mut rng = Rng::new(seed);
            run_esp_case(&mut rng, b, (b == selected).then_some(&handles));
        }
    }
}
