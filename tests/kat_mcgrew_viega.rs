//! The 18 test cases of D. McGrew and J. Viega, "The Galois/Counter Mode of Operation
//! (GCM)", revised submission to NIST (2005), appendix B: AES-128 (cases 1-6), AES-192
//! (7-12) and AES-256 (13-18), with 96-bit IVs and the 64-bit (cases 5, 11, 17) and
//! 480-bit (cases 6, 12, 18) IVs that go through GHASH.
//!
//! Transcribed from GNU Nettle's test suite, `testsuite/gcm-test.c` in
//! https://github.com/gnutls/nettle (commit 130683715e3e06a91f83ed088cd921b8a54c1e52),
//! which cites the spec (http://www.cryptobarn.com/papers/gcm-spec.pdf). Only K, P, A,
//! IV, C and T are used (not H or the intermediate GHASH values). As a guard against
//! transcription slips every case is also checked against the independent RustCrypto
//! `aes-gcm` oracle.
//!
//! Each case runs through the Rust API (streaming in one piece and byte by byte, one-shot
//! `seal`/`open`, every truncated tag length, a flipped tag bit) on every available
//! backend, and through the C ABI (handle and `sgcm_seal`/`sgcm_open`).

mod common;

use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::{open, seal, Error, Key, Message};

struct Case {
    n: u32,
    k: &'static str,
    p: &'static str,
    a: &'static str,
    iv: &'static str,
    c: &'static str,
    t: &'static str,
}

const K0_128: &str = "00000000000000000000000000000000";
const K0_192: &str = "000000000000000000000000000000000000000000000000";
const K0_256: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const K_128: &str = "feffe9928665731c6d6a8f9467308308";
const K_192: &str = "feffe9928665731c6d6a8f9467308308feffe9928665731c";
const K_256: &str = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
const P_ZERO: &str = "00000000000000000000000000000000";
/// 64-byte plaintext of cases 3, 9, 15.
const P_64: &str = concat!(
    "d9313225f88406e5a55909c5aff5269a",
    "86a7a9531534f7da2e4c303d8a318a72",
    "1c3c0c95956809532fcf0e2449a6b525",
    "b16aedf5aa0de657ba637b391aafd255"
);
/// 60-byte plaintext of the cases with AAD.
const P_60: &str = concat!(
    "d9313225f88406e5a55909c5aff5269a",
    "86a7a9531534f7da2e4c303d8a318a72",
    "1c3c0c95956809532fcf0e2449a6b525",
    "b16aedf5aa0de657ba637b39"
);
const A_20: &str = concat!("feedfacedeadbeeffeedfacedeadbeef", "abaddad2");
const IV_ZERO: &str = "000000000000000000000000";
const IV_96: &str = "cafebabefacedbaddecaf888";
const IV_64: &str = "cafebabefacedbad";
const IV_480: &str = concat!(
    "9313225df88406e555909c5aff5269aa",
    "6a7a9538534f7da1e4c303d2a318a728",
    "c3c0c95156809539fcf0e2429a6b5254",
    "16aedbf5a0de6a57a637b39b"
);

const CASES: [Case; 18] = [
    Case {
        n: 1,
        k: K0_128,
        p: "",
        a: "",
        iv: IV_ZERO,
        c: "",
        t: "58e2fccefa7e3061367f1d57a4e7455a",
    },
    Case {
        n: 2,
        k: K0_128,
        p: P_ZERO,
        a: "",
        iv: IV_ZERO,
        c: "0388dace60b6a392f328c2b971b2fe78",
        t: "ab6e47d42cec13bdf53a67b21257bddf",
    },
    Case {
        n: 3,
        k: K_128,
        p: P_64,
        a: "",
        iv: IV_96,
        c: concat!(
            "42831ec2217774244b7221b784d0d49c",
            "e3aa212f2c02a4e035c17e2329aca12e",
            "21d514b25466931c7d8f6a5aac84aa05",
            "1ba30b396a0aac973d58e091473f5985"
        ),
        t: "4d5c2af327cd64a62cf35abd2ba6fab4",
    },
    Case {
        n: 4,
        k: K_128,
        p: P_60,
        a: A_20,
        iv: IV_96,
        c: concat!(
            "42831ec2217774244b7221b784d0d49c",
            "e3aa212f2c02a4e035c17e2329aca12e",
            "21d514b25466931c7d8f6a5aac84aa05",
            "1ba30b396a0aac973d58e091"
        ),
        t: "5bc94fbc3221a5db94fae95ae7121a47",
    },
    Case {
        n: 5,
        k: K_128,
        p: P_60,
        a: A_20,
        iv: IV_64,
        c: concat!(
            "61353b4c2806934a777ff51fa22a4755",
            "699b2a714fcdc6f83766e5f97b6c7423",
            "73806900e49f24b22b097544d4896b42",
            "4989b5e1ebac0f07c23f4598"
        ),
        t: "3612d2e79e3b0785561be14aaca2fccb",
    },
    Case {
        n: 6,
        k: K_128,
        p: P_60,
        a: A_20,
        iv: IV_480,
        c: concat!(
            "8ce24998625615b603a033aca13fb894",
            "be9112a5c3a211a8ba262a3cca7e2ca7",
            "01e4a9a4fba43c90ccdcb281d48c7c6f",
            "d62875d2aca417034c34aee5"
        ),
        t: "619cc5aefffe0bfa462af43c1699d050",
    },
    Case {
        n: 7,
        k: K0_192,
        p: "",
        a: "",
        iv: IV_ZERO,
        c: "",
        t: "cd33b28ac773f74ba00ed1f312572435",
    },
    Case {
        n: 8,
        k: K0_192,
        p: P_ZERO,
        a: "",
        iv: IV_ZERO,
        c: "98e7247c07f0fe411c267e4384b0f600",
        t: "2ff58d80033927ab8ef4d4587514f0fb",
    },
    Case {
        n: 9,
        k: K_192,
        p: P_64,
        a: "",
        iv: IV_96,
        c: concat!(
            "3980ca0b3c00e841eb06fac4872a2757",
            "859e1ceaa6efd984628593b40ca1e19c",
            "7d773d00c144c525ac619d18c84a3f47",
            "18e2448b2fe324d9ccda2710acade256"
        ),
        t: "9924a7c8587336bfb118024db8674a14",
    },
    Case {
        n: 10,
        k: K_192,
        p: P_60,
        a: A_20,
        iv: IV_96,
        c: concat!(
            "3980ca0b3c00e841eb06fac4872a2757",
            "859e1ceaa6efd984628593b40ca1e19c",
            "7d773d00c144c525ac619d18c84a3f47",
            "18e2448b2fe324d9ccda2710"
        ),
        t: "2519498e80f1478f37ba55bd6d27618c",
    },
    Case {
        n: 11,
        k: K_192,
        p: P_60,
        a: A_20,
        iv: IV_64,
        c: concat!(
            "0f10f599ae14a154ed24b36e25324db8",
            "c566632ef2bbb34f8347280fc4507057",
            "fddc29df9a471f75c66541d4d4dad1c9",
            "e93a19a58e8b473fa0f062f7"
        ),
        t: "65dcc57fcf623a24094fcca40d3533f8",
    },
    Case {
        n: 12,
        k: K_192,
        p: P_60,
        a: A_20,
        iv: IV_480,
        c: concat!(
            "d27e88681ce3243c4830165a8fdcf9ff",
            "1de9a1d8e6b447ef6ef7b79828666e45",
            "81e79012af34ddd9e2f037589b292db3",
            "e67c036745fa22e7e9b7373b"
        ),
        t: "dcf566ff291c25bbb8568fc3d376a6d9",
    },
    Case {
        n: 13,
        k: K0_256,
        p: "",
        a: "",
        iv: IV_ZERO,
        c: "",
        t: "530f8afbc74536b9a963b4f1c4cb738b",
    },
    Case {
        n: 14,
        k: K0_256,
        p: P_ZERO,
        a: "",
        iv: IV_ZERO,
        c: "cea7403d4d606b6e074ec5d3baf39d18",
        t: "d0d1c8a799996bf0265b98b5d48ab919",
    },
    Case {
        n: 15,
        k: K_256,
        p: P_64,
        a: "",
        iv: IV_96,
        c: concat!(
            "522dc1f099567d07f47f37a32a84427d",
            "643a8cdcbfe5c0c97598a2bd2555d1aa",
            "8cb08e48590dbb3da7b08b1056828838",
            "c5f61e6393ba7a0abcc9f662898015ad"
        ),
        t: "b094dac5d93471bdec1a502270e3cc6c",
    },
    Case {
        n: 16,
        k: K_256,
        p: P_60,
        a: A_20,
        iv: IV_96,
        c: concat!(
            "522dc1f099567d07f47f37a32a84427d",
            "643a8cdcbfe5c0c97598a2bd2555d1aa",
            "8cb08e48590dbb3da7b08b1056828838",
            "c5f61e6393ba7a0abcc9f662"
        ),
        t: "76fc6ece0f4e1768cddf8853bb2d551b",
    },
    Case {
        n: 17,
        k: K_256,
        p: P_60,
        a: A_20,
        iv: IV_64,
        c: concat!(
            "c3762df1ca787d32ae47c13bf19844cb",
            "af1ae14d0b976afac52ff7d79bba9de0",
            "feb582d33934a4f0954cc2363bc73f78",
            "62ac430e64abe499f47c9b1f"
        ),
        t: "3a337dbf46a792c45e454913fe2ea8f2",
    },
    Case {
        n: 18,
        k: K_256,
        p: P_60,
        a: A_20,
        iv: IV_480,
        c: concat!(
            "5a8def2f0c9e53f1f75d7853659e2a20",
            "eeb2b22aafde6419a058ab4f6f746bf4",
            "0fc0c3b780f244452da3ebf1c5d82cde",
            "a2418997200ef82e44ae7e3f"
        ),
        t: "a44a8266ee1c8eb0c8b5d4cf5ae9f19a",
    },
];

struct Decoded {
    k: Vec<u8>,
    p: Vec<u8>,
    a: Vec<u8>,
    iv: Vec<u8>,
    c: Vec<u8>,
    t: Vec<u8>,
}

fn decode(c: &Case) -> Decoded {
    let d = Decoded {
        k: hex(c.k),
        p: hex(c.p),
        a: hex(c.a),
        iv: hex(c.iv),
        c: hex(c.c),
        t: hex(c.t),
    };
    let n = c.n;
    assert_eq!(
        d.k.len(),
        [16, 24, 32][((n - 1) / 6) as usize],
        "case {n}: key length"
    );
    assert_eq!(d.p.len(), d.c.len(), "case {n}: P and C lengths");
    assert!(matches!(d.iv.len(), 8 | 12 | 60), "case {n}: IV length");
    assert_eq!(d.t.len(), 16, "case {n}: tag length");
    d
}

/// The transcription agrees with an independent implementation.
#[test]
fn mcgrew_viega_transcription_matches_oracle() {
    for case in &CASES {
        let d = decode(case);
        let (c, t) =
            oracle_seal(&d.k, &d.iv, &d.a, &d.p).expect("oracle supports 8/12/60-byte IVs");
        assert_eq!(to_hex(&c), case.c, "case {}: oracle ciphertext", case.n);
        assert_eq!(to_hex(&t), case.t, "case {}: oracle tag", case.n);
    }
    let ns: Vec<u32> = CASES.iter().map(|c| c.n).collect();
    assert_eq!(ns, (1..=18).collect::<Vec<u32>>());
}

#[test]
fn mcgrew_viega_rust_api() {
    let mut checked = 0;
    for case in &CASES {
        let d = decode(case);
        let n = case.n;
        for b in backends() {
            let name = b.name();
            let key = Key::with_backend(&d.k, b).unwrap();
            assert_eq!(key.backend_name(), name);

            // One-shot seal and open.
            let mut c = vec![0u8; d.p.len()];
            let mut t = [0u8; 16];
            seal(&key, &d.iv, &d.a, &d.p, &mut c, &mut t).unwrap();
            assert_eq!(to_hex(&c), case.c, "case {n} [{name}]: seal C");
            assert_eq!(to_hex(&t), case.t, "case {n} [{name}]: seal T");
            let mut p = vec![0u8; d.c.len()];
            open(&key, &d.iv, &d.a, &d.c, &mut p, &d.t).unwrap();
            assert_eq!(p, d.p, "case {n} [{name}]: open P");

            // Streaming, byte by byte, in place.
            let mut m = Message::new(&key, &d.iv).unwrap();
            for byte in d.a.chunks(1) {
                m.aad(&key, byte).unwrap();
            }
            let mut buf = d.p.clone();
            for byte in buf.chunks_mut(1) {
                m.encrypt(&key, byte).unwrap();
            }
            let mut t = [0u8; 16];
            m.tag(&key, &mut t).unwrap();
            assert_eq!(buf, d.c, "case {n} [{name}]: byte-wise C");
            assert_eq!(t[..], d.t[..], "case {n} [{name}]: byte-wise T");

            // Every allowed truncation verifies; a flipped bit does not.
            for &tl in &TAG_LENS {
                let mut m = Message::new(&key, &d.iv).unwrap();
                m.aad(&key, &d.a).unwrap();
                let mut buf = d.c.clone();
                m.decrypt(&key, &mut buf).unwrap();
                assert_eq!(
                    m.verify(&key, &d.t[..tl]),
                    Ok(()),
                    "case {n} [{name}]: {tl}-byte tag"
                );
                assert_eq!(buf, d.p, "case {n} [{name}]: decrypt P");

                let mut bad = d.t[..tl].to_vec();
                bad[tl - 1] ^= 0x80;
                let mut m = Message::new(&key, &d.iv).unwrap();
                m.aad(&key, &d.a).unwrap();
                let mut buf = d.c.clone();
                m.decrypt(&key, &mut buf).unwrap();
                assert_eq!(
                    m.verify(&key, &bad),
                    Err(Error::TagMismatch),
                    "case {n} [{name}]: bad {tl}-byte tag"
                );
                let mut p = vec![0x33u8; d.c.len()];
                assert_eq!(
                    open(&key, &d.iv, &d.a, &d.c, &mut p, &bad),
                    Err(Error::TagMismatch)
                );
                assert!(
                    p.iter().all(|&x| x == 0x33),
                    "case {n} [{name}]: open wrote on failure"
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 18);
}

#[test]
fn mcgrew_viega_c_abi() {
    let mut checked = 0;
    for case in &CASES {
        let d = decode(case);
        let n = case.n;

        // Handle: out of place encrypt, in place decrypt.
        let h = CHandle::open(d.k.len());
        assert_eq!(h.setkey(&d.k), SGCM_ERR_NO_ERROR);
        assert_eq!(h.setiv(&d.iv), SGCM_ERR_NO_ERROR);
        assert_eq!(h.authenticate(&d.a), SGCM_ERR_NO_ERROR);
        let mut c = vec![0u8; d.p.len()];
        assert_eq!(h.encrypt_to(&d.p, &mut c), SGCM_ERR_NO_ERROR);
        let mut t = [0u8; 16];
        assert_eq!(h.gettag(&mut t), SGCM_ERR_NO_ERROR);
        assert_eq!(to_hex(&c), case.c, "case {n}: handle C");
        assert_eq!(to_hex(&t), case.t, "case {n}: handle T");

        assert_eq!(h.setiv(&d.iv), SGCM_ERR_NO_ERROR);
        assert_eq!(h.authenticate(&d.a), SGCM_ERR_NO_ERROR);
        let mut buf = d.c.clone();
        assert_eq!(h.decrypt_in_place(&mut buf), SGCM_ERR_NO_ERROR);
        assert_eq!(h.checktag(&d.t), SGCM_ERR_NO_ERROR, "case {n}: checktag");
        assert_eq!(buf, d.p, "case {n}: handle P");

        // One-shot, out of place and in place.
        let mut c = vec![0u8; d.p.len()];
        let mut t = [0u8; 16];
        assert_eq!(
            c_seal(&d.k, &d.iv, &d.a, &d.p, &mut c, &mut t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(
            (to_hex(&c), to_hex(&t)),
            (case.c.to_string(), case.t.to_string()),
            "case {n}: sgcm_seal"
        );
        let mut buf = d.p.clone();
        let mut t = [0u8; 16];
        assert_eq!(
            c_seal_in_place(&d.k, &d.iv, &d.a, &mut buf, &mut t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(
            (to_hex(&buf), to_hex(&t)),
            (case.c.to_string(), case.t.to_string()),
            "case {n}: sgcm_seal in place"
        );
        assert_eq!(
            c_open_in_place(&d.k, &d.iv, &d.a, &mut buf, &d.t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(buf, d.p, "case {n}: sgcm_open in place");

        let mut bad = d.t.clone();
        bad[0] ^= 1;
        let mut p = vec![0x77u8; d.c.len()];
        assert_eq!(
            c_open(&d.k, &d.iv, &d.a, &d.c, &mut p, &bad),
            SGCM_ERR_CHECKSUM,
            "case {n}: bad tag"
        );
        assert!(
            p.iter().all(|&x| x == 0x77),
            "case {n}: sgcm_open wrote on failure"
        );
        checked += 1;
    }
    assert_eq!(checked, 18);
}
