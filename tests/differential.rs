//! Seeded differential tests: thousands of random messages per backend in
//! `cpu::available()`, each backend compared with the portable `soft` backend and, for the
//! IV sizes it is instantiated for (1, 8, 12, 16, 60 bytes), with the independent
//! RustCrypto `aes-gcm` oracle. No external vectors: the inputs come from a splitmix64
//! PRNG; the base seed is fixed (override with `STITCHGCM_TEST_SEED=<hex or decimal>`,
//! the number of cases with `STITCHGCM_DIFF_CASES`) and printed with the case seed when a
//! case fails.
//!
//! Each case picks a key size, an IV length (mostly 12, also 1..=64 and longer), AAD and
//! data lengths 0..=1100 split into random chunks (0- and 1-byte chunks included), in
//! place or out of place at random unaligned offsets inside larger canary-filled buffers
//! (the bytes around the output must stay untouched), and a random truncated tag length.
//! Decryption must round-trip and verify; a flipped bit in the ciphertext, the AAD or the
//! tag must fail verification, and `open` must then leave its output untouched. On the
//! selected backend a share of the cases also runs through the C ABI streaming path
//! (chunked `sgcm_cipher_authenticate`/`encrypt`/`decrypt`, `in == NULL` in place) and
//! `sgcm_seal`/`sgcm_open`.

mod common;

use common::seeded::*;
use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::{cpu, open, open_in_place, seal, seal_in_place, BackendId, Error, Key, Message};

const DEFAULT_CASES: usize = 3000;
const MAX_LEN: usize = 1100;

fn case_count() -> usize {
    env_u64("STITCHGCM_DIFF_CASES").map_or(DEFAULT_CASES, |n| n as usize)
}

/// One random message and the way it is fed to the API.
struct Case {
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    pt: Vec<u8>,
    tag_len: usize,
}

fn random_len(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=3 => rng.range(0, 64),
        4 => rng.range(0, 2) * 16 + rng.pick(&[0, 1, 15]),
        _ => rng.range(0, MAX_LEN),
    }
}

fn random_case(rng: &mut Rng) -> Case {
    let key_len = rng.pick(&[16, 24, 32]);
    let iv_len = match rng.below(20) {
        0..=11 => 12,
        12..=13 => rng.pick(&[1, 8, 16, 60]),
        14..=18 => rng.range(1, 64),
        _ => rng.range(65, 300),
    };
    let aad_len = random_len(rng);
    let pt_len = random_len(rng);
    Case {
        key: rng.bytes(key_len),
        iv: rng.bytes(iv_len),
        aad: rng.bytes(aad_len),
        pt: rng.bytes(pt_len),
        tag_len: rng.pick(&TAG_LENS),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// Streams `input` through a `Message` (AAD and data in random chunks, in place or out of
/// place at random offsets) and returns the output region after checking its frame.
fn stream(rng: &mut Rng, key: &Key, c: &Case, dir: Dir, input: &[u8]) -> (Vec<u8>, Message) {
    let mut m = Message::new(key, &c.iv).unwrap();
    for_chunks(&rng.chunks(c.aad.len()), |pos, n| {
        m.aad(key, &c.aad[pos..pos + n]).unwrap();
    });
    let chunks = rng.chunks(input.len());
    let mut dst = Framed::new(rng, input.len());
    if rng.chance(1, 2) {
        // In place.
        dst.fill_region(input);
        for_chunks(&chunks, |pos, n| {
            let part = dst.part(pos, n);
            match dir {
                Dir::Encrypt => m.encrypt(key, part).unwrap(),
                Dir::Decrypt => m.decrypt(key, part).unwrap(),
            }
        });
    } else {
        // Out of place, from an unaligned source; `dst` sometimes longer than the chunk.
        let mut src = Framed::new(rng, input.len());
        src.fill_region(input);
        let long_dst = rng.chance(1, 2);
        for_chunks(&chunks, |pos, n| {
            let s = &src.region()[pos..pos + n];
            let d = if long_dst {
                dst.tail_from(pos)
            } else {
                dst.part(pos, n)
            };
            match dir {
                Dir::Encrypt => m.encrypt_to(key, s, d).unwrap(),
                Dir::Decrypt => m.decrypt_to(key, s, d).unwrap(),
            }
        });
        assert_eq!(src.region(), input, "the source was modified");
        assert!(src.frame_intact(), "bytes around the source were modified");
    }
    assert!(
        dst.frame_intact(),
        "bytes around the destination were modified"
    );
    assert_eq!(m.data_len(), input.len() as u64);
    assert_eq!(m.aad_len(), c.aad.len() as u64);
    (dst.region().to_vec(), m)
}

/// The C ABI streaming path and the one-shot C functions, for the selected backend.
fn check_c_abi(rng: &mut Rng, handles: &[CHandle; 3], c: &Case, ct: &[u8], tag: &[u8; 16]) {
    let h = &handles[(c.key.len() - 16) / 8];
    let tl = c.tag_len;
    for dir in [Dir::Encrypt, Dir::Decrypt] {
        let (input, want) = match dir {
            Dir::Encrypt => (&c.pt[..], ct),
            Dir::Decrypt => (ct, &c.pt[..]),
        };
        assert_eq!(h.setkey(&c.key), SGCM_ERR_NO_ERROR, "setkey");
        assert_eq!(h.setiv(&c.iv), SGCM_ERR_NO_ERROR, "setiv");
        for_chunks(&rng.chunks(c.aad.len()), |pos, n| {
            assert_eq!(
                h.authenticate(&c.aad[pos..pos + n]),
                SGCM_ERR_NO_ERROR,
                "authenticate"
            );
        });
        let mut dst = Framed::new(rng, input.len());
        let mut src = Framed::new(rng, input.len());
        src.fill_region(input);
        for_chunks(&rng.chunks(input.len()), |pos, n| {
            let rc = if rng.chance(1, 2) {
                // in == NULL: in place on `out`.
                dst.part(pos, n).copy_from_slice(&input[pos..pos + n]);
                match dir {
                    Dir::Encrypt => h.encrypt_in_place(dst.part(pos, n)),
                    Dir::Decrypt => h.decrypt_in_place(dst.part(pos, n)),
                }
            } else {
                let s = &src.region()[pos..pos + n];
                let d = if rng.chance(1, 2) {
                    dst.tail_from(pos)
                } else {
                    dst.part(pos, n)
                };
                match dir {
                    Dir::Encrypt => h.encrypt_to(s, d),
                    Dir::Decrypt => h.decrypt_to(s, d),
                }
            };
            assert_eq!(
                rc,
                SGCM_ERR_NO_ERROR,
                "C {} chunk",
                if dir == Dir::Encrypt {
                    "encrypt"
                } else {
                    "decrypt"
                }
            );
        });
        assert!(
            dst.frame_intact(),
            "C ABI: bytes around the output were modified"
        );
        assert!(
            src.frame_intact() && src.region() == input,
            "C ABI: the input was modified"
        );
        assert_eq!(dst.region(), want, "C ABI streaming output");
        match dir {
            Dir::Encrypt => {
                let mut t = [0u8; 16];
                assert_eq!(h.gettag(&mut t[..tl]), SGCM_ERR_NO_ERROR, "gettag");
                assert_eq!(t[..tl], tag[..tl], "C ABI gettag");
            }
            Dir::Decrypt => {
                if rng.chance(1, 2) {
                    assert_eq!(h.checktag(&tag[..tl]), SGCM_ERR_NO_ERROR, "checktag");
                } else {
                    let mut bad = tag[..tl].to_vec();
                    let bit = rng.below(tl * 8);
                    bad[bit / 8] ^= 1 << (bit % 8);
                    assert_eq!(h.checktag(&bad), SGCM_ERR_CHECKSUM, "checktag of a bad tag");
                }
            }
        }
    }

    // One-shot C functions, in place or not.
    let mut t = vec![0u8; tl];
    if rng.chance(1, 2) {
        let mut buf = c.pt.clone();
        assert_eq!(
            c_seal_in_place(&c.key, &c.iv, &c.aad, &mut buf, &mut t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(buf, ct, "sgcm_seal in place");
        assert_eq!(
            c_open_in_place(&c.key, &c.iv, &c.aad, &mut buf, &t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(buf, c.pt, "sgcm_open in place");
    } else {
        let mut out = vec![0u8; c.pt.len()];
        assert_eq!(
            c_seal(&c.key, &c.iv, &c.aad, &c.pt, &mut out, &mut t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(out, ct, "sgcm_seal");
        let mut back = vec![0u8; c.pt.len()];
        assert_eq!(
            c_open(&c.key, &c.iv, &c.aad, &out, &mut back, &t),
            SGCM_ERR_NO_ERROR
        );
        assert_eq!(back, c.pt, "sgcm_open");
    }
    assert_eq!(t[..], tag[..tl], "sgcm_seal tag");

    // The keyed one-shot calls on the handle (keyed above), in place or not.
    let mut kt = vec![0u8; tl];
    let in_place = rng.chance(1, 2);
    let mut sealed = if in_place {
        c.pt.clone()
    } else {
        vec![0u8; c.pt.len()]
    };
    let src = (!in_place).then_some(&c.pt[..]);
    assert_eq!(
        h.aead_seal(&c.iv, &c.aad, src, &mut sealed, &mut kt),
        SGCM_ERR_NO_ERROR
    );
    assert_eq!(sealed, ct, "sgcm_aead_seal");
    assert_eq!(kt[..], tag[..tl], "sgcm_aead_seal tag");
    let mut opened = if in_place {
        sealed.clone()
    } else {
        vec![0u8; ct.len()]
    };
    let src = (!in_place).then_some(&sealed[..]);
    assert_eq!(
        h.aead_open(&c.iv, &c.aad, src, &mut opened, &kt),
        SGCM_ERR_NO_ERROR
    );
    assert_eq!(opened, c.pt, "sgcm_aead_open");
    kt[rng.below(tl)] ^= 0x04;
    let mut untouched = vec![0xeeu8; ct.len()];
    assert_eq!(
        h.aead_open(&c.iv, &c.aad, Some(ct), &mut untouched, &kt),
        SGCM_ERR_CHECKSUM,
        "sgcm_aead_open bad tag"
    );
    assert!(
        untouched.iter().all(|&x| x == 0xee),
        "sgcm_aead_open wrote on failure"
    );

    t[rng.below(tl)] ^= 0x10;
    let mut out = vec![0xeeu8; ct.len()];
    assert_eq!(
        c_open(&c.key, &c.iv, &c.aad, ct, &mut out, &t),
        SGCM_ERR_CHECKSUM,
        "sgcm_open bad tag"
    );
    assert!(out.iter().all(|&x| x == 0xee), "sgcm_open wrote on failure");
}

fn run_case(rng: &mut Rng, b: BackendId, handles: Option<&[CHandle; 3]>, oracle_hits: &mut usize) {
    let c = random_case(rng);
    let tl = c.tag_len;

    // Reference: the soft backend, one shot, full tag.
    let soft_key = Key::with_backend(&c.key, soft()).unwrap();
    let mut ref_ct = vec![0u8; c.pt.len()];
    let mut ref_tag = [0u8; 16];
    seal(&soft_key, &c.iv, &c.aad, &c.pt, &mut ref_ct, &mut ref_tag).unwrap();

    // Independent oracle.
    if let Some((oct, otag)) = oracle_seal(&c.key, &c.iv, &c.aad, &c.pt) {
        assert_eq!(
            to_hex(&oct),
            to_hex(&ref_ct),
            "soft vs aes-gcm oracle: ciphertext"
        );
        assert_eq!(
            to_hex(&otag),
            to_hex(&ref_tag),
            "soft vs aes-gcm oracle: tag"
        );
        *oracle_hits += 1;
    }

    let key = Key::with_backend(&c.key, b).unwrap();
    assert_eq!(key.backend_name(), b.name());

    // Streaming encryption.
    let (ct, mut m) = stream(rng, &key, &c, Dir::Encrypt, &c.pt);
    assert_eq!(to_hex(&ct), to_hex(&ref_ct), "streaming ciphertext vs soft");
    let mut t = [0u8; 16];
    m.tag(&key, &mut t[..tl]).unwrap();
    assert_eq!(t[..tl], ref_tag[..tl], "streaming {tl}-byte tag vs soft");
    let mut full = [0u8; 16];
    m.tag(&key, &mut full).unwrap();
    assert_eq!(full, ref_tag, "full tag after a truncated one");
    assert_eq!(m.encrypt(&key, &mut [0u8; 1]), Err(Error::InvalidState));

    // Streaming decryption.
    let (pt, mut m) = stream(rng, &key, &c, Dir::Decrypt, &ref_ct);
    assert_eq!(pt, c.pt, "streaming decryption");
    assert_eq!(
        m.verify(&key, &ref_tag[..tl]),
        Ok(()),
        "verify of the right {tl}-byte tag"
    );

    // One shot on this backend, `dst` longer than `src`.
    let mut out = vec![0x11u8; c.pt.len() + 7];
    let mut t = vec![0u8; tl];
    seal(&key, &c.iv, &c.aad, &c.pt, &mut out, &mut t).unwrap();
    assert_eq!(out[..c.pt.len()], ref_ct[..], "seal ciphertext");
    assert!(
        out[c.pt.len()..].iter().all(|&x| x == 0x11),
        "seal wrote past src.len()"
    );
    assert_eq!(t[..], ref_tag[..tl], "seal tag");
    let mut back = vec![0x22u8; c.pt.len() + 5];
    open(&key, &c.iv, &c.aad, &ref_ct, &mut back, &t).unwrap();
    assert_eq!(back[..c.pt.len()], c.pt[..], "open plaintext");
    assert!(
        back[c.pt.len()..].iter().all(|&x| x == 0x22),
        "open wrote past src.len()"
    );

    // One shot in place.
    let mut buf = c.pt.clone();
    let mut t = vec![0u8; tl];
    seal_in_place(&key, &c.iv, &c.aad, &mut buf, &mut t).unwrap();
    assert_eq!(buf, ref_ct, "seal_in_place ciphertext");
    assert_eq!(t[..], ref_tag[..tl], "seal_in_place tag");
    open_in_place(&key, &c.iv, &c.aad, &mut buf, &t).unwrap();
    assert_eq!(buf, c.pt, "open_in_place plaintext");

    // Tampering: one flipped bit in the ciphertext, the AAD or the tag.
    let mut bad_ct = ref_ct.clone();
    let mut bad_aad = c.aad.clone();
    let mut bad_tag = ref_tag[..tl].to_vec();
    let target = loop {
        let t = rng.below(3);
        if (t == 0 && !bad_ct.is_empty()) || (t == 1 && !bad_aad.is_empty()) || t == 2 {
            break t;
        }
    };
    let flip = |v: &mut Vec<u8>, rng: &mut Rng| {
        let bit = rng.below(v.len() * 8);
        v[bit / 8] ^= 1 << (bit % 8);
    };
    match target {
        0 => flip(&mut bad_ct, rng),
        1 => flip(&mut bad_aad, rng),
        _ => flip(&mut bad_tag, rng),
    }
    let what = ["ciphertext", "AAD", "tag"][target];
    let mut out = Framed::new(rng, bad_ct.len());
    let r = open(&key, &c.iv, &bad_aad, &bad_ct, out.tail_from(0), &bad_tag);
    assert_eq!(r, Err(Error::TagMismatch), "open with a flipped {what} bit");
    assert!(
        out.buf == out.canary,
        "open wrote to dst after a flipped {what} bit"
    );
    let mut buf = bad_ct.clone();
    let r = open_in_place(&key, &c.iv, &bad_aad, &mut buf, &bad_tag);
    assert_eq!(
        r,
        Err(Error::TagMismatch),
        "open_in_place with a flipped {what} bit"
    );
    assert_eq!(
        buf, bad_ct,
        "open_in_place changed its buffer after a flipped {what} bit"
    );
    let mut m = Message::new(&key, &c.iv).unwrap();
    m.aad(&key, &bad_aad).unwrap();
    let mut buf = bad_ct.clone();
    m.decrypt(&key, &mut buf).unwrap();
    assert_eq!(
        m.verify(&key, &bad_tag),
        Err(Error::TagMismatch),
        "verify with a flipped {what} bit"
    );

    if let Some(handles) = handles {
        if rng.chance(1, 3) {
            check_c_abi(rng, handles, &c, &ref_ct, &ref_tag);
        }
    }
}

#[test]
fn differential_every_backend_vs_soft_and_oracle() {
    let base = base_seed();
    let cases = case_count();
    let selected = cpu::selected().expect("a usable backend (check STITCHGCM_IMPL)");
    let handles = [CHandle::open(16), CHandle::open(24), CHandle::open(32)];
    let mut total = 0usize;
    for b in backends() {
        let mut oracle_hits = 0usize;
        for i in 0..cases {
            let seed = base ^ (i as u64).wrapping_mul(0xd1b5_4a32_d192_ed03);
            let _ctx = FailureContext(format!(
                "backend {} case {i} (case seed {seed:#x}; base seed {base:#x}, rerun with STITCHGCM_TEST_SEED={base:#x})",
                b.name()
            ));
            let mut rng = Rng::new(seed);
            let h = (b == selected).then_some(&handles);
            run_case(&mut rng, b, h, &mut oracle_hits);
            total += 1;
        }
        // About 70% of the cases have an IV size the oracle is instantiated for.
        assert!(
            oracle_hits * 2 > cases,
            "only {oracle_hits} of {cases} cases were checked against the oracle"
        );
        eprintln!(
            "backend {}: {cases} cases, {oracle_hits} also against the aes-gcm oracle",
            b.name()
        );
    }
    assert_eq!(total, cases * backends().len());
}

/// Streaming with every split of a short message, on every backend: exhaustive over the
/// chunk boundaries near the block size, where buffering bugs live.
#[test]
fn differential_every_two_way_split() {
    let mut rng = Rng::new(base_seed() ^ 0x2);
    for b in backends() {
        for key_len in [16, 24, 32] {
            let key_bytes = rng.bytes(key_len);
            let iv = rng.bytes(12);
            let key = Key::with_backend(&key_bytes, b).unwrap();
            let soft_key = Key::with_backend(&key_bytes, soft()).unwrap();
            for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 65] {
                let aad = rng.bytes(len);
                let pt = rng.bytes(len);
                let mut ref_ct = vec![0u8; len];
                let mut ref_tag = [0u8; 16];
                seal(&soft_key, &iv, &aad, &pt, &mut ref_ct, &mut ref_tag).unwrap();
                for split in 0..=len {
                    let mut m = Message::new(&key, &iv).unwrap();
                    m.aad(&key, &aad[..split]).unwrap();
                    m.aad(&key, &aad[split..]).unwrap();
                    let mut buf = pt.clone();
                    let (x, y) = buf.split_at_mut(split);
                    m.encrypt(&key, x).unwrap();
                    m.encrypt(&key, y).unwrap();
                    let mut t = [0u8; 16];
                    m.tag(&key, &mut t).unwrap();
                    assert_eq!(
                        buf,
                        ref_ct,
                        "[{}] len {len} split {split}: ciphertext",
                        b.name()
                    );
                    assert_eq!(t, ref_tag, "[{}] len {len} split {split}: tag", b.name());

                    let mut m = Message::new(&key, &iv).unwrap();
                    m.aad(&key, &aad).unwrap();
                    let (x, y) = buf.split_at_mut(split);
                    m.decrypt(&key, x).unwrap();
                    m.decrypt(&key, y).unwrap();
                    assert_eq!(m.verify(&key, &ref_tag), Ok(()));
                    assert_eq!(buf, pt, "[{}] len {len} split {split}: plaintext", b.name());
                }
            }
        }
    }
}

/// GF(2^128) multiplication as in SP 800-38D, algorithm 1 (bit 0 = most significant).
fn gf_mul(x: u128, y: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
    }
    z
}

/// x^(2^128 - 2) = x^-1 for x != 0.
fn gf_inv(x: u128) -> u128 {
    let mut result = 1u128 << 127; // the field's 1
    let mut base = x;
    for bit in 0..128 {
        if bit != 0 {
            result = gf_mul(result, base);
        }
        base = gf_mul(base, base);
    }
    result
}

/// One AES block with the RustCrypto `aes` crate (independent of this crate).
fn aes_block(key: &[u8], block: [u8; 16]) -> [u8; 16] {
    use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
    let mut b = aes_gcm::aes::Block::from(block);
    match key.len() {
        16 => aes_gcm::aes::Aes128::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
        24 => aes_gcm::aes::Aes192::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
        _ => aes_gcm::aes::Aes256::new_from_slice(key)
            .unwrap()
            .encrypt_block(&mut b),
    }
    b.into()
}

/// The 32-bit counter wraps inside a message (inc32 only touches the low 32 bits, the
/// upper 96 bits of J0 stay). A 16-byte IV X gives J0 = X*H^2 + L*H (L = the length
/// block), so X = (J0 + L*H) * H^-2 yields any wanted J0: here J0's low word is
/// 2^32 - 1 - k, and the message is long enough to cross the wrap. Checked on every
/// backend against soft, the oracle and a counter-mode computation done here by hand
/// (which also proves the constructed J0 is the one in use).
#[test]
fn differential_counter_wrap() {
    let mut rng = Rng::new(base_seed() ^ 0x3);
    let mut wraps = 0;
    for b in backends() {
        for key_len in [16, 24, 32] {
            let kb = rng.bytes(key_len);
            let key = Key::with_backend(&kb, b).unwrap();
            let soft_key = Key::with_backend(&kb, soft()).unwrap();
            let h = u128::from_be_bytes(aes_block(&kb, [0; 16]));
            let h2_inv = gf_inv(gf_mul(h, h));
            let l = 128u128; // [len(A) = 0]64 || [len(IV) = 128 bits]64
            for k in 0..12u32 {
                let mut j0 = [0u8; 16];
                rng.fill(&mut j0[..12]);
                j0[12..].copy_from_slice(&(u32::MAX - k).to_be_bytes());
                let x = gf_mul(u128::from_be_bytes(j0) ^ gf_mul(l, h), h2_inv);
                let iv = x.to_be_bytes();
                // Long enough to wrap: k + 1 blocks reach counter 0, then some more.
                let len = 16 * (k as usize + 1) + rng.range(1, 100);
                let pt = rng.bytes(len);
                // Every other message with at most one block of AAD, so that the
                // one-pass paths for a few hundred bytes cross the wrap too.
                let aad_len = if k % 2 == 0 {
                    rng.range(0, 17)
                } else {
                    rng.range(0, 40)
                };
                let aad = rng.bytes(aad_len);

                // Counter mode by hand from the constructed J0.
                let mut want = pt.clone();
                for (i, chunk) in want.chunks_mut(16).enumerate() {
                    let mut ctr = j0;
                    let low = (u32::MAX - k).wrapping_add(1 + i as u32);
                    ctr[12..].copy_from_slice(&low.to_be_bytes());
                    for (p, s) in chunk.iter_mut().zip(aes_block(&kb, ctr)) {
                        *p ^= s;
                    }
                }

                let mut ct = vec![0u8; len];
                let mut tag = [0u8; 16];
                seal(&key, &iv, &aad, &pt, &mut ct, &mut tag).unwrap();
                assert_eq!(
                    to_hex(&ct),
                    to_hex(&want),
                    "[{}] k {k}: ciphertext vs hand-made CTR",
                    b.name()
                );
                let mut rct = vec![0u8; len];
                let mut rtag = [0u8; 16];
                seal(&soft_key, &iv, &aad, &pt, &mut rct, &mut rtag).unwrap();
                assert_eq!((&ct, tag), (&rct, rtag), "[{}] k {k}: vs soft", b.name());
                let (oct, otag) = oracle_seal(&kb, &iv, &aad, &pt).unwrap();
                assert_eq!((&ct, tag), (&oct, otag), "[{}] k {k}: vs oracle", b.name());

                // Streaming in random chunks and decryption across the wrap.
                let mut m = Message::new(&key, &iv).unwrap();
                m.aad(&key, &aad).unwrap();
                let mut buf = ct.clone();
                let mut pos = 0;
                for n in rng.chunks(len) {
                    m.decrypt(&key, &mut buf[pos..pos + n]).unwrap();
                    pos += n;
                }
                assert_eq!(m.verify(&key, &tag), Ok(()), "[{}] k {k}: verify", b.name());
                assert_eq!(buf, pt, "[{}] k {k}: decryption", b.name());
                wraps += 1;
            }
        }
    }
    assert_eq!(wraps, 36 * backends().len());
}

/// Long messages (up to 10 KiB, so the low byte of the 32-bit counter wraps several
/// times) for every backend against `soft`: the fast kernels treat groups whose counter
/// low byte does not wrap specially, and short messages with 96-bit IVs never get there.
/// Random IVs of 16 bytes give random starting counters; a random first chunk shifts
/// where the kernels' 8-block groups fall relative to the counter.
#[test]
fn differential_long_messages_cross_counter_byte_wraps() {
    let mut rng = Rng::new(base_seed() ^ 0x10e6);
    let soft = soft();
    for b in backends() {
        for case in 0..24 {
            let key_len = rng.pick(&[16usize, 24, 32]);
            let key_bytes = rng.bytes(key_len);
            let iv = rng.bytes(if case % 2 == 0 { 12 } else { 16 });
            let aad_len = rng.below(40);
            let aad = rng.bytes(aad_len);
            let len = rng.range(4096, 10240);
            let pt = rng.bytes(len);
            let first = rng.below(200);
            let run = |id: BackendId, decrypt: bool, input: &[u8]| {
                let key = Key::with_backend(&key_bytes, id).unwrap();
                let mut m = Message::new(&key, &iv).unwrap();
                m.aad(&key, &aad).unwrap();
                let mut buf = input.to_vec();
                let (head, tail) = buf.split_at_mut(first);
                if decrypt {
                    m.decrypt(&key, head).unwrap();
                    m.decrypt(&key, tail).unwrap();
                } else {
                    m.encrypt(&key, head).unwrap();
                    m.encrypt(&key, tail).unwrap();
                }
                let mut tag = [0u8; 16];
                m.tag(&key, &mut tag).unwrap();
                (buf, tag)
            };
            let want = run(soft, false, &pt);
            let got = run(b, false, &pt);
            assert!(
                got == want,
                "{}: encrypt differs from soft (case {case}, len {len}, first chunk {first})",
                b.name()
            );
            let back = run(b, true, &want.0);
            assert!(
                back.0 == pt && back.1 == want.1,
                "{}: decrypt differs (case {case}, len {len}, first chunk {first})",
                b.name()
            );
        }
    }
}
