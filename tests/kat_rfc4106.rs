//! RFC 4106 known answers: the 16 AES-GCM-ESP packets of draft-mcgrew-gcm-test-01
//! (`tests/data/draft-mcgrew-gcm-test-01-esp.txt`, which cites its source): AES-128/192/256,
//! 32-bit sequence numbers (8-byte AAD) and ESNs (12-byte AAD), 4 to 76 bytes of payload.
//!
//! The file is parsed as the draft prints it: every field's "(N octets)" is checked, the
//! salt and explicit IV are taken from the nonce, and the packet must be spi ‖ low 32 bits
//! of the sequence number ‖ IV ‖ ctext+tag and the AAD spi ‖ seq, so that a slip in
//! copying shows. As a second guard each case also goes through the independent RustCrypto
//! `aes-gcm` oracle (nonce = salt‖IV).
//!
//! Every case runs on every backend through the Rust API (one-shot seal/open, streaming
//! in pieces, ICVs of 8/12/16 bytes, a flipped ICV bit), and on the selected backend
//! through the C ABI: an `SGCM_MODE_RFC4106` handle's per-packet `sgcm_aead_seal`/`open`
//! and its streaming calls, each rebuilding the draft's whole ESP packet.

mod common;

use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::ffi::rfc4106::SGCM_MODE_RFC4106;
use stitchgcm::{Error, Rfc4106Key, Rfc4106Message};

const DRAFT: &str = include_str!("data/draft-mcgrew-gcm-test-01-esp.txt");

#[derive(Debug)]
struct Packet {
    n: usize,
    key: Vec<u8>,
    spi: Vec<u8>,
    seq: Vec<u8>,
    nonce: Vec<u8>,
    plaintext: Vec<u8>,
    aad: Vec<u8>,
    ctext_tag: Vec<u8>,
    packet: Vec<u8>,
}

impl Packet {
    fn salt(&self) -> &[u8] {
        &self.nonce[..4]
    }
    fn iv(&self) -> [u8; 8] {
        self.nonce[4..].try_into().unwrap()
    }
    fn key_and_salt(&self) -> Vec<u8> {
        [&self.key[..], self.salt()].concat()
    }
    fn ct(&self) -> &[u8] {
        &self.ctext_tag[..self.plaintext.len()]
    }
    fn icv(&self) -> &[u8] {
        &self.ctext_tag[self.plaintext.len()..]
    }
    /// The ESP packet from its parts: SPI, low 32 bits of the sequence number, IV,
    /// ciphertext, ICV.
    fn assemble(&self, ct: &[u8], icv: &[u8]) -> Vec<u8> {
        let seq_lo = &self.seq[self.seq.len() - 4..];
        [&self.spi[..], seq_lo, &self.iv(), ct, icv].concat()
    }
}

/// The records of the data file: `name = hex` lines, hex continuation lines, and an
/// "(N octets)" line after each field that checks its length.
fn packets() -> Vec<Packet> {
    let mut records: Vec<Vec<(String, Vec<u8>)>> = Vec::new();
    for line in DRAFT.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(v) = line.strip_prefix("algorithm = ") {
            assert_eq!(v, "AES-GCM-ESP");
            records.push(Vec::new());
            continue;
        }
        let rec = records
            .last_mut()
            .expect("a field before the first algorithm line");
        if let Some((name, value)) = line.split_once(" = ") {
            let v = if value == "(0 octets)" {
                vec![]
            } else {
                hex(value)
            };
            rec.push((name.to_string(), v));
        } else if let Some(n) = line
            .strip_prefix('(')
            .and_then(|l| l.strip_suffix(" octets)"))
        {
            let (name, v) = rec.last().unwrap();
            assert_eq!(v.len(), n.parse::<usize>().unwrap(), "length of {name}");
        } else {
            rec.last_mut().unwrap().1.extend(hex(line));
        }
    }
    records
        .into_iter()
        .enumerate()
        .map(|(i, rec)| {
            let get = |f: &str| {
                let found = rec.iter().find(|(n, _)| n == f);
                found
                    .unwrap_or_else(|| panic!("case {}: no {f}", i + 1))
                    .1
                    .clone()
            };
            let p = Packet {
                n: i + 1,
                key: get("key"),
                spi: get("spi"),
                seq: get("seq"),
                nonce: get("nonce"),
                plaintext: get("plaintext"),
                aad: get("aad"),
                ctext_tag: get("ctext+tag"),
                packet: get("packet"),
            };
            assert_eq!(rec.len(), 8, "case {}: fields", p.n);
            assert_eq!(p.aad, [&p.spi[..], &p.seq].concat(), "case {}: aad", p.n);
            assert_eq!(p.ctext_tag.len(), p.plaintext.len() + 16, "case {}", p.n);
            assert_eq!(
                p.packet,
                p.assemble(p.ct(), p.icv()),
                "case {}: packet",
                p.n
            );
            p
        })
        .collect()
}

#[test]
fn draft_file_holds_the_sixteen_esp_cases() {
    let all = packets();
    assert_eq!(all.len(), 16);
    let count = |f: &dyn Fn(&Packet) -> bool| all.iter().filter(|p| f(p)).count();
    assert_eq!(count(&|p| p.key.len() == 16), 11);
    assert_eq!(count(&|p| p.key.len() == 24), 1);
    assert_eq!(count(&|p| p.key.len() == 32), 4);
    assert_eq!(count(&|p| p.aad.len() == 12), 11, "ESN cases");
    assert_eq!(count(&|p| p.aad.len() == 8), 5, "32-bit sequence numbers");
}

#[test]
fn draft_packets_agree_with_the_oracle() {
    for p in packets() {
        let (ct, tag) = oracle_seal_rfc4106(&p.key_and_salt(), &p.iv(), &p.aad, &p.plaintext);
        assert_eq!(to_hex(&ct), to_hex(p.ct()), "case {}", p.n);
        assert_eq!(to_hex(&tag), to_hex(p.icv()), "case {}", p.n);
    }
}

#[test]
fn draft_packets_rust_api_every_backend() {
    for b in backends() {
        for p in packets() {
            let ctx = format!("[{}] case {}", b.name(), p.n);
            let key = Rfc4106Key::with_backend(&p.key_and_salt(), b).unwrap();
            assert_eq!(key.key_len(), p.key.len() + 4);
            for icv_len in [8, 12, 16] {
                let want_icv = &p.icv()[..icv_len];
                let mut ct = vec![0u8; p.plaintext.len()];
                let mut icv = vec![0u8; icv_len];
                key.seal(&p.iv(), &p.aad, &p.plaintext, &mut ct, &mut icv)
                    .unwrap();
                assert_eq!(p.assemble(&ct, &icv), p.assemble(p.ct(), want_icv), "{ctx}");

                let mut pt = vec![0u8; ct.len()];
                key.open(&p.iv(), &p.aad, p.ct(), &mut pt, want_icv)
                    .unwrap();
                assert_eq!(pt, p.plaintext, "{ctx} open");

                let mut bad = want_icv.to_vec();
                bad[p.n % icv_len] ^= 0x20;
                let mut out = vec![0xa5u8; ct.len()];
                let r = key.open(&p.iv(), &p.aad, p.ct(), &mut out, &bad);
                assert_eq!(r, Err(Error::TagMismatch), "{ctx} bad ICV");
                assert!(out.iter().all(|&x| x == 0xa5), "{ctx}: plaintext released");
            }
            // Streaming: the AAD in two pieces, the payload 3 bytes at a time.
            let mut buf = p.plaintext.clone();
            let mut m = Rfc4106Message::new(&key, &p.iv()).unwrap();
            m.aad(&key, &p.aad[..4]).unwrap();
            m.aad(&key, &p.aad[4..]).unwrap();
            for chunk in buf.chunks_mut(3) {
                m.encrypt(&key, chunk).unwrap();
            }
            let mut icv = [0u8; 16];
            m.icv(&key, &mut icv).unwrap();
            assert_eq!(p.assemble(&buf, &icv), p.packet, "{ctx} streaming");
            let mut m = Rfc4106Message::new(&key, &p.iv()).unwrap();
            m.aad(&key, &p.aad).unwrap();
            m.decrypt(&key, &mut buf).unwrap();
            assert_eq!(m.verify(&key, &icv[..12]), Ok(()), "{ctx} streaming verify");
            assert_eq!(buf, p.plaintext);
        }
    }
}

#[test]
fn draft_packets_c_abi() {
    for p in packets() {
        let ctx = format!("case {}", p.n);
        let h = CHandle::open_mode(p.key.len(), SGCM_MODE_RFC4106);
        assert_eq!(h.setkey(&p.key_and_salt()), SGCM_ERR_NO_ERROR, "{ctx}");
        // The per-packet one-shot, out of place and in place.
        let mut ct = vec![0u8; p.plaintext.len()];
        let mut icv = [0u8; 16];
        let rc = h.aead_seal(&p.iv(), &p.aad, Some(&p.plaintext), &mut ct, &mut icv);
        assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}");
        assert_eq!(p.assemble(&ct, &icv), p.packet, "{ctx} aead_seal");
        let mut buf = p.plaintext.clone();
        let mut icv8 = [0u8; 8];
        assert_eq!(h.aead_seal(&p.iv(), &p.aad, None, &mut buf, &mut icv8), 0);
        assert_eq!(p.assemble(&buf, &icv8), p.assemble(p.ct(), &p.icv()[..8]));
        assert_eq!(h.aead_open(&p.iv(), &p.aad, None, &mut buf, &icv8), 0);
        assert_eq!(buf, p.plaintext, "{ctx} aead_open in place");
        let mut out = vec![0x5au8; ct.len()];
        let mut bad = p.icv().to_vec();
        bad[15] ^= 1;
        let rc = h.aead_open(&p.iv(), &p.aad, Some(p.ct()), &mut out, &bad);
        assert_eq!(rc, SGCM_ERR_CHECKSUM, "{ctx} bad ICV");
        assert!(out.iter().all(|&x| x == 0x5a), "{ctx}: plaintext released");

        // The streaming calls: setiv, the AAD in two calls, data, gettag / checktag.
        assert_eq!(h.setiv(&p.iv()), SGCM_ERR_NO_ERROR);
        assert_eq!(h.authenticate(&p.aad[..5]), SGCM_ERR_NO_ERROR);
        assert_eq!(h.authenticate(&p.aad[5..]), SGCM_ERR_NO_ERROR);
        let mut ct2 = vec![0u8; p.plaintext.len()];
        assert_eq!(h.encrypt_to(&p.plaintext, &mut ct2), SGCM_ERR_NO_ERROR);
        let mut icv12 = [0u8; 12];
        assert_eq!(h.gettag(&mut icv12), SGCM_ERR_NO_ERROR);
        assert_eq!(p.assemble(&ct2, &icv12), p.assemble(p.ct(), &p.icv()[..12]));
        assert_eq!(h.setiv(&p.iv()), SGCM_ERR_NO_ERROR);
        assert_eq!(h.authenticate(&p.aad), SGCM_ERR_NO_ERROR);
        let mut pt = p.ct().to_vec();
        assert_eq!(h.decrypt_in_place(&mut pt), SGCM_ERR_NO_ERROR);
        assert_eq!(h.checktag(p.icv()), SGCM_ERR_NO_ERROR, "{ctx} checktag");
        assert_eq!(pt, p.plaintext);
    }
}
