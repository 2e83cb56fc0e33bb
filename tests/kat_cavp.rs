//! NIST CAVP GCM known-answer tests (GCMVS, CAVS 14.0): every record of
//! gcmEncryptExtIV{128,192,256}.rsp and gcmDecrypt{128,192,256}.rsp, as shipped in the
//! cryptography-vectors package and put into `.vectors/cavp` by `scripts/deps.sh`
//! (or found through `$STITCHGCM_VECTORS`). Before that fetch a plain `cargo test` skips
//! them with one line on stderr saying what to run; `scripts/test.sh` sets
//! `STITCHGCM_REQUIRE_VECTORS=1`, under which a missing file fails.
//!
//! Encrypt files: ciphertext and (truncated) tag must match. Decrypt files: records marked
//! `FAIL` must be rejected, the others must decrypt to `PT`. Every record goes through the
//! Rust API (streaming `Message` and one-shot `seal`/`open`, on every available backend)
//! and through the C ABI (`sgcm_cipher_*` handle and `sgcm_seal`/`sgcm_open`, on the
//! selected backend). The number of records checked is asserted, so a parse bug cannot
//! silently skip any.

mod common;

use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::{open, seal, BackendId, Error, Key, Message};

/// Records in each of the six files.
const RECORDS_PER_FILE: usize = 7875;

#[derive(Default, Clone, Copy)]
struct Section {
    keylen: Option<usize>,
    ivlen: Option<usize>,
    ptlen: Option<usize>,
    aadlen: Option<usize>,
    taglen: Option<usize>,
}

#[derive(Default)]
struct Record {
    line: usize,
    count: usize,
    key: Option<Vec<u8>>,
    iv: Option<Vec<u8>>,
    pt: Option<Vec<u8>>,
    aad: Option<Vec<u8>>,
    ct: Option<Vec<u8>>,
    tag: Option<Vec<u8>>,
    fail: bool,
}

/// A complete, validated record.
struct Vector {
    line: usize,
    count: usize,
    key: Vec<u8>,
    iv: Vec<u8>,
    /// `None` for a `FAIL` record.
    pt: Option<Vec<u8>>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

fn bits(sec: Option<usize>, what: &str, name: &str, line: usize) -> usize {
    let b = sec.unwrap_or_else(|| panic!("{name}:{line}: record before a [{what} = ..] header"));
    assert!(b % 8 == 0, "{name}:{line}: {what} = {b} is not whole bytes");
    b / 8
}

fn finish(rec: Record, sec: &Section, name: &str, decrypt: bool) -> Vector {
    let line = rec.line;
    let need = |v: Option<Vec<u8>>, f: &str| {
        v.unwrap_or_else(|| panic!("{name}:{line}: record without {f}"))
    };
    let key = need(rec.key, "Key");
    let iv = need(rec.iv, "IV");
    let aad = need(rec.aad, "AAD");
    let ct = need(rec.ct, "CT");
    let tag = need(rec.tag, "Tag");
    let pt = if decrypt {
        assert!(
            rec.fail != rec.pt.is_some(),
            "{name}:{line}: a decrypt record needs exactly one of PT and FAIL"
        );
        rec.pt
    } else {
        assert!(!rec.fail, "{name}:{line}: FAIL in an encrypt file");
        Some(need(rec.pt, "PT"))
    };
    assert_eq!(
        key.len(),
        bits(sec.keylen, "Keylen", name, line),
        "{name}:{line}: Key"
    );
    assert_eq!(
        iv.len(),
        bits(sec.ivlen, "IVlen", name, line),
        "{name}:{line}: IV"
    );
    assert_eq!(
        aad.len(),
        bits(sec.aadlen, "AADlen", name, line),
        "{name}:{line}: AAD"
    );
    assert_eq!(
        ct.len(),
        bits(sec.ptlen, "PTlen", name, line),
        "{name}:{line}: CT"
    );
    assert_eq!(
        tag.len(),
        bits(sec.taglen, "Taglen", name, line),
        "{name}:{line}: Tag"
    );
    if let Some(pt) = &pt {
        assert_eq!(pt.len(), ct.len(), "{name}:{line}: PT");
    }
    Vector {
        line,
        count: rec.count,
        key,
        iv,
        pt,
        aad,
        ct,
        tag,
    }
}

/// Parses one `.rsp` file into validated records; `None` when the vectors were never
/// fetched and not required (`read_vector_file`).
fn parse(name: &str, decrypt: bool) -> Option<Vec<Vector>> {
    let text = read_vector_file(name)?;
    let mut out = Vec::new();
    let mut sec = Section::default();
    let mut cur: Option<Record> = None;
    let mut expected_count = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(inner) = l.strip_prefix('[') {
            if let Some(rec) = cur.take() {
                out.push(finish(rec, &sec, name, decrypt));
            }
            let inner = inner
                .strip_suffix(']')
                .unwrap_or_else(|| panic!("{name}:{line}: bad header {l:?}"));
            let (k, v) = inner
                .split_once('=')
                .unwrap_or_else(|| panic!("{name}:{line}: bad header {l:?}"));
            let v: usize = v
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{name}:{line}: bad header value {l:?}: {e}"));
            let slot = match k.trim() {
                "Keylen" => &mut sec.keylen,
                "IVlen" => &mut sec.ivlen,
                "PTlen" => &mut sec.ptlen,
                "AADlen" => &mut sec.aadlen,
                "Taglen" => &mut sec.taglen,
                other => panic!("{name}:{line}: unknown header {other:?}"),
            };
            *slot = Some(v);
            expected_count = 0;
            continue;
        }
        if l == "FAIL" {
            let rec = cur
                .as_mut()
                .unwrap_or_else(|| panic!("{name}:{line}: FAIL outside a record"));
            assert!(!rec.fail, "{name}:{line}: FAIL twice");
            rec.fail = true;
            continue;
        }
        let (k, v) = l
            .split_once('=')
            .unwrap_or_else(|| panic!("{name}:{line}: unparsable line {l:?}"));
        let (k, v) = (k.trim(), v.trim());
        if k == "Count" {
            if let Some(rec) = cur.take() {
                out.push(finish(rec, &sec, name, decrypt));
            }
            let count: usize = v
                .parse()
                .unwrap_or_else(|e| panic!("{name}:{line}: bad Count: {e}"));
            assert_eq!(
                count, expected_count,
                "{name}:{line}: Count out of sequence"
            );
            expected_count += 1;
            cur = Some(Record {
                line,
                count,
                ..Record::default()
            });
            continue;
        }
        let rec = cur
            .as_mut()
            .unwrap_or_else(|| panic!("{name}:{line}: {k} outside a record"));
        let slot = match k {
            "Key" => &mut rec.key,
            "IV" => &mut rec.iv,
            "PT" => &mut rec.pt,
            "AAD" => &mut rec.aad,
            "CT" => &mut rec.ct,
            "Tag" => &mut rec.tag,
            other => panic!("{name}:{line}: unknown field {other:?}"),
        };
        assert!(slot.is_none(), "{name}:{line}: {k} twice in one record");
        *slot = Some(hex(v));
    }
    if let Some(rec) = cur.take() {
        out.push(finish(rec, &sec, name, decrypt));
    }
    Some(out)
}

/// Which split of AAD and data the streaming checks use (varies with the record).
fn split_at(v: &Vector, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (v.count * 7 + v.line) % (n + 1)
    }
}

fn check_encrypt(name: &str, v: &Vector, backends: &[BackendId], handle: &CHandle) {
    let ctx = format!("{name}:{} (Count = {})", v.line, v.count);
    let pt = v.pt.as_deref().expect("encrypt records have a PT");
    let tl = v.tag.len();

    for &b in backends {
        let key = Key::with_backend(&v.key, b).unwrap();
        // Streaming, AAD and data each split in two.
        let mut ct = vec![0u8; pt.len()];
        let mut tag = vec![0u8; tl];
        let mut m = Message::new(&key, &v.iv).unwrap();
        let a = split_at(v, v.aad.len());
        m.aad(&key, &v.aad[..a]).unwrap();
        m.aad(&key, &v.aad[a..]).unwrap();
        let d = split_at(v, pt.len());
        m.encrypt_to(&key, &pt[..d], &mut ct[..d]).unwrap();
        m.encrypt_to(&key, &pt[d..], &mut ct[d..]).unwrap();
        m.tag(&key, &mut tag).unwrap();
        assert_eq!(ct, v.ct, "{ctx} [{}]: Message ciphertext", b.name());
        assert_eq!(tag, v.tag, "{ctx} [{}]: Message tag", b.name());

        // One-shot.
        let mut ct2 = vec![0u8; pt.len()];
        let mut tag2 = vec![0u8; tl];
        seal(&key, &v.iv, &v.aad, pt, &mut ct2, &mut tag2).unwrap();
        assert_eq!(ct2, v.ct, "{ctx} [{}]: seal ciphertext", b.name());
        assert_eq!(tag2, v.tag, "{ctx} [{}]: seal tag", b.name());
    }

    // C handle: out of place, then the tag through gettag and checktag.
    let mut ct = vec![0u8; pt.len()];
    let mut tag = vec![0u8; tl];
    assert_eq!(handle.setkey(&v.key), SGCM_ERR_NO_ERROR, "{ctx}: setkey");
    assert_eq!(handle.setiv(&v.iv), SGCM_ERR_NO_ERROR, "{ctx}: setiv");
    assert_eq!(
        handle.authenticate(&v.aad),
        SGCM_ERR_NO_ERROR,
        "{ctx}: authenticate"
    );
    assert_eq!(
        handle.encrypt_to(pt, &mut ct),
        SGCM_ERR_NO_ERROR,
        "{ctx}: encrypt"
    );
    assert_eq!(handle.gettag(&mut tag), SGCM_ERR_NO_ERROR, "{ctx}: gettag");
    assert_eq!(ct, v.ct, "{ctx}: C handle ciphertext");
    assert_eq!(tag, v.tag, "{ctx}: C handle tag");
    assert_eq!(
        handle.checktag(&v.tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: checktag"
    );

    // sgcm_seal, then sgcm_open back.
    let mut ct = vec![0u8; pt.len()];
    let mut tag = vec![0u8; tl];
    let rc = c_seal(&v.key, &v.iv, &v.aad, pt, &mut ct, &mut tag);
    assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}: sgcm_seal");
    assert_eq!(ct, v.ct, "{ctx}: sgcm_seal ciphertext");
    assert_eq!(tag, v.tag, "{ctx}: sgcm_seal tag");
    let mut back = vec![0u8; pt.len()];
    let rc = c_open(&v.key, &v.iv, &v.aad, &v.ct, &mut back, &v.tag);
    assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}: sgcm_open");
    assert_eq!(back, pt, "{ctx}: sgcm_open plaintext");
}

fn check_decrypt(name: &str, v: &Vector, backends: &[BackendId], handle: &CHandle) {
    let ctx = format!("{name}:{} (Count = {})", v.line, v.count);
    let n = v.ct.len();
    const SENTINEL: u8 = 0xa5;

    for &b in backends {
        let key = Key::with_backend(&v.key, b).unwrap();
        // Streaming decrypt, then verify.
        let mut pt = vec![0u8; n];
        let mut m = Message::new(&key, &v.iv).unwrap();
        let a = split_at(v, v.aad.len());
        m.aad(&key, &v.aad[..a]).unwrap();
        m.aad(&key, &v.aad[a..]).unwrap();
        let d = split_at(v, n);
        m.decrypt_to(&key, &v.ct[..d], &mut pt[..d]).unwrap();
        m.decrypt_to(&key, &v.ct[d..], &mut pt[d..]).unwrap();
        let r = m.verify(&key, &v.tag);
        match &v.pt {
            None => assert_eq!(r, Err(Error::TagMismatch), "{ctx} [{}]: verify", b.name()),
            Some(want) => {
                assert_eq!(r, Ok(()), "{ctx} [{}]: verify", b.name());
                assert_eq!(&pt, want, "{ctx} [{}]: Message plaintext", b.name());
            }
        }

        // One-shot open: nothing written on failure.
        let mut pt = vec![SENTINEL; n];
        let r = open(&key, &v.iv, &v.aad, &v.ct, &mut pt, &v.tag);
        match &v.pt {
            None => {
                assert_eq!(r, Err(Error::TagMismatch), "{ctx} [{}]: open", b.name());
                assert!(
                    pt.iter().all(|&x| x == SENTINEL),
                    "{ctx} [{}]: open wrote to dst on failure",
                    b.name()
                );
            }
            Some(want) => {
                assert_eq!(r, Ok(()), "{ctx} [{}]: open", b.name());
                assert_eq!(&pt, want, "{ctx} [{}]: open plaintext", b.name());
            }
        }
    }

    // C handle, in place (in == NULL), then checktag.
    let mut buf = v.ct.clone();
    assert_eq!(handle.setkey(&v.key), SGCM_ERR_NO_ERROR, "{ctx}: setkey");
    assert_eq!(handle.setiv(&v.iv), SGCM_ERR_NO_ERROR, "{ctx}: setiv");
    assert_eq!(
        handle.authenticate(&v.aad),
        SGCM_ERR_NO_ERROR,
        "{ctx}: authenticate"
    );
    assert_eq!(
        handle.decrypt_in_place(&mut buf),
        SGCM_ERR_NO_ERROR,
        "{ctx}: decrypt"
    );
    let rc = handle.checktag(&v.tag);
    match &v.pt {
        None => assert_eq!(rc, SGCM_ERR_CHECKSUM, "{ctx}: checktag"),
        Some(want) => {
            assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}: checktag");
            assert_eq!(&buf, want, "{ctx}: C handle plaintext");
        }
    }

    // sgcm_open: nothing written on failure.
    let mut pt = vec![SENTINEL; n];
    let rc = c_open(&v.key, &v.iv, &v.aad, &v.ct, &mut pt, &v.tag);
    match &v.pt {
        None => {
            assert_eq!(rc, SGCM_ERR_CHECKSUM, "{ctx}: sgcm_open");
            assert!(
                pt.iter().all(|&x| x == SENTINEL),
                "{ctx}: sgcm_open wrote to out on failure"
            );
        }
        Some(want) => {
            assert_eq!(rc, SGCM_ERR_NO_ERROR, "{ctx}: sgcm_open");
            assert_eq!(&pt, want, "{ctx}: sgcm_open plaintext");
        }
    }
}

/// Checks every record of one file; returns (records, FAIL records), or `None` when the
/// file was skipped (vectors not fetched; a line on stderr says so).
fn run_file(name: &str, key_bits: usize, decrypt: bool) -> Option<(usize, usize)> {
    let vectors = parse(name, decrypt)?;
    let backends = backends();
    let handle = CHandle::open(key_bits / 8);
    let mut fails = 0;
    for v in &vectors {
        assert_eq!(v.key.len() * 8, key_bits, "{name}:{}: key size", v.line);
        if decrypt {
            fails += usize::from(v.pt.is_none());
            check_decrypt(name, v, &backends, &handle);
        } else {
            check_encrypt(name, v, &backends, &handle);
        }
    }
    assert_eq!(
        vectors.len(),
        RECORDS_PER_FILE,
        "{name}: records checked (a parse problem?)"
    );
    Some((vectors.len(), fails))
}

#[test]
fn cavp_encrypt_ext_iv_128() {
    run_file("gcmEncryptExtIV128.rsp", 128, false);
}

#[test]
fn cavp_encrypt_ext_iv_192() {
    run_file("gcmEncryptExtIV192.rsp", 192, false);
}

#[test]
fn cavp_encrypt_ext_iv_256() {
    run_file("gcmEncryptExtIV256.rsp", 256, false);
}

// The FAIL counts are those of the NIST files; they double-check the FAIL parsing.

#[test]
fn cavp_decrypt_128() {
    if let Some((_, fails)) = run_file("gcmDecrypt128.rsp", 128, true) {
        assert_eq!(fails, 4011, "gcmDecrypt128.rsp: FAIL records");
    }
}

#[test]
fn cavp_decrypt_192() {
    if let Some((_, fails)) = run_file("gcmDecrypt192.rsp", 192, true) {
        assert_eq!(fails, 3978, "gcmDecrypt192.rsp: FAIL records");
    }
}

#[test]
fn cavp_decrypt_256() {
    if let Some((_, fails)) = run_file("gcmDecrypt256.rsp", 256, true) {
        assert_eq!(fails, 3919, "gcmDecrypt256.rsp: FAIL records");
    }
}
