//! Differential fuzzing of the Rust streaming API, every backend this CPU runs.
//!
//! A case (decoded from the fuzzer's bytes) is a key of 16/24/32 bytes, an IV of any
//! length, AAD and data lengths, the sizes of the streaming calls for AAD, encryption and
//! decryption, in place or not, src/dst offsets from 16-byte alignment, a tag length, and
//! one bit to flip. For each backend in `cpu::available()`:
//! - streaming encryption (the given call sizes) must equal the `soft` backend's one-shot
//!   `seal`, which must equal RustCrypto `aes-gcm` where that is instantiated for the IV
//!   length (see `oracle`); a repeated full-length `tag` call must give the same tag;
//! - streaming decryption must give the plaintext back and `verify` accept the tag;
//! - one-shot `seal`/`open` likewise, with a destination longer than the source;
//! - with the bit flipped in the tag, the ciphertext or the AAD, `verify` and `open` must
//!   reject, and `open` must leave its destination untouched;
//! - no buffer may be read or written outside its region (`guard`).
#![no_main]

use stitchgcm::{cpu, open, seal, BackendId, Error, Key, Message};
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::{Codec, Visit};
use stitchgcm_fuzz::{counter, filled, hex, oracle, Seeds, TAG_LENS};

const MAX_AAD: usize = 1100;
const MAX_DATA: usize = 4200;
const MAX_IV: usize = 300;
/// Blocks before the counter wraps, at most (the data holds up to 262 blocks).
const MAX_CTR_BACK: usize = 270;
const MAX_CALLS: usize = 24;
/// Extra bytes of a "longer than needed" destination.
const DST_EXTRA: usize = 19;

/// Every decision of a case, in the order the fuzzer's bytes give them.
#[derive(Default)]
struct Spec {
    key: Vec<u8>,
    iv: Vec<u8>,
    /// 0: `iv` is the IV; 1: `iv` is the upper 96 bits of J0 and its low word is
    /// 2^32 − 1 − `ctr_back` (the counter wraps after `ctr_back` + 1 blocks); 2: likewise
    /// with the low word `ctr_word` except for a low byte of 255 − `ctr_back` % 256.
    counter: usize,
    ctr_back: usize,
    ctr_word: u32,
    aad_len: usize,
    data_len: usize,
    /// Seeds the AAD and plaintext bytes.
    seed: u64,
    aad_calls: Vec<usize>,
    enc_calls: Vec<usize>,
    dec_calls: Vec<usize>,
    in_place: bool,
    long_dst: bool,
    src_off: usize,
    dst_off: usize,
    tag_len: usize,
    /// 0: the tag, 1: the ciphertext, 2: the AAD (the tag when the other is empty).
    flip_in: usize,
    flip_bit: u16,
}

impl Visit for Spec {
    fn visit<C: Codec>(&mut self, c: &mut C) {
        let s = self;
        let mut key_len = s.key.len();
        c.pick(&mut key_len, &[16, 24, 32]);
        c.bytes(&mut s.key, key_len);
        c.below(&mut s.counter, 3);
        let mut iv_len = s.iv.len();
        if s.counter > 0 {
            iv_len = 12;
            c.range(&mut s.ctr_back, 0, MAX_CTR_BACK);
            c.u32(&mut s.ctr_word);
        } else {
            let mut standard_iv = iv_len == 12;
            c.bool(&mut standard_iv);
            if standard_iv {
                iv_len = 12;
            } else {
                c.range(&mut iv_len, 1, MAX_IV);
            }
        }
        c.bytes(&mut s.iv, iv_len);
        c.length(&mut s.aad_len, MAX_AAD);
        c.length(&mut s.data_len, MAX_DATA);
        c.u64(&mut s.seed);
        c.chunks(&mut s.aad_calls, s.aad_len, MAX_CALLS);
        c.chunks(&mut s.enc_calls, s.data_len, MAX_CALLS);
        c.chunks(&mut s.dec_calls, s.data_len, MAX_CALLS);
        c.bool(&mut s.in_place);
        c.bool(&mut s.long_dst);
        c.below(&mut s.src_off, 16);
        c.below(&mut s.dst_off, 16);
        c.pick(&mut s.tag_len, &TAG_LENS);
        c.below(&mut s.flip_in, 3);
        c.u16(&mut s.flip_bit);
    }
}

/// A decoded case with its message bytes and IV.
struct Case {
    s: Spec,
    iv: Vec<u8>,
    /// The J0 a `counter` case constructed its IV for.
    j0: Option<[u8; 16]>,
    aad: Vec<u8>,
    pt: Vec<u8>,
}

impl core::ops::Deref for Case {
    type Target = Spec;
    fn deref(&self) -> &Spec {
        &self.s
    }
}

fn case(data: &[u8]) -> Case {
    let s = Spec::decode(data);
    let j0 = (s.counter > 0).then(|| {
        let low = match s.counter {
            1 => u32::MAX - s.ctr_back as u32,
            _ => (s.ctr_word & !0xff) | (255 - (s.ctr_back % 256) as u32),
        };
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(&s.iv);
        j0[12..].copy_from_slice(&low.to_be_bytes());
        j0
    });
    Case {
        iv: j0.map_or_else(|| s.iv.clone(), |j| counter::iv_for_j0(&s.key, &j).to_vec()),
        j0,
        aad: filled(s.seed, s.aad_len),
        pt: filled(!s.seed, s.data_len),
        s,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// Runs `input` through a streaming message in the case's call sizes and returns the
/// message (before its tag) and the output.
fn stream(key: &Key, c: &Case, dir: Dir, input: &[u8], calls: &[usize]) -> (Message, Vec<u8>) {
    let mut m = Message::new(key, &c.iv).expect("IV of at least one byte");
    let aad = Guarded::new(&c.aad, c.src_off);
    let mut pos = 0;
    for &n in &c.aad_calls {
        m.aad(key, &aad.bytes()[pos..pos + n]).expect("aad");
        pos += n;
    }
    aad.check("AAD");
    let len = input.len();
    let out = if c.in_place {
        let mut buf = Guarded::new(input, c.dst_off);
        let mut pos = 0;
        for &n in calls {
            let part = &mut buf.bytes_mut()[pos..pos + n];
            match dir {
                Dir::Encrypt => m.encrypt(key, part),
                Dir::Decrypt => m.decrypt(key, part),
            }
            .expect("in-place call");
            pos += n;
        }
        buf.check("in-place buffer");
        buf.bytes().to_vec()
    } else {
        let src = Guarded::new(input, c.src_off);
        let extra = if c.long_dst { DST_EXTRA } else { 0 };
        let mut dst = Guarded::filled(len + extra, 0xd5, c.dst_off);
        let mut pos = 0;
        for &n in calls {
            let s = &src.bytes()[pos..pos + n];
            let d = &mut dst.bytes_mut()[pos..pos + n + extra];
            match dir {
                Dir::Encrypt => m.encrypt_to(key, s, d),
                Dir::Decrypt => m.decrypt_to(key, s, d),
            }
            .expect("out-of-place call");
            pos += n;
        }
        src.check("source");
        dst.check("destination");
        assert_eq!(src.bytes(), input, "the source was modified");
        assert!(
            dst.bytes()[len..].iter().all(|&b| b == 0xd5),
            "wrote past the source's length into a longer destination"
        );
        dst.bytes()[..len].to_vec()
    };
    assert_eq!(m.aad_len(), c.aad.len() as u64);
    assert_eq!(m.data_len(), len as u64);
    (m, out)
}

fn flip(v: &mut [u8], bit: u16) {
    let bit = bit as usize;
    let bit = bit % (8 * v.len());
    v[bit / 8] ^= 1 << (bit % 8);
}

fn check_backend(b: BackendId, c: &Case, ct: &[u8], tag: &[u8; 16]) {
    let tl = c.tag_len;
    let key = Key::with_backend(&c.key, b).expect("backend from cpu::available()");
    let name = b.name();

    let (mut m, out) = stream(&key, c, Dir::Encrypt, &c.pt, &c.enc_calls);
    assert!(out == ct, "{name}: streaming ciphertext differs from soft");
    let mut t = Guarded::filled(tl, 0, c.dst_off);
    m.tag(&key, t.bytes_mut()).expect("tag");
    t.check("tag");
    assert_eq!(
        t.bytes(),
        &tag[..tl],
        "{name}: {tl}-byte tag differs from soft"
    );
    let mut full = [0u8; 16];
    m.tag(&key, &mut full).expect("repeated tag");
    assert_eq!(&full, tag, "{name}: full tag after a truncated one");
    assert_eq!(m.encrypt(&key, &mut [0u8; 1]), Err(Error::InvalidState));

    let (mut m, out) = stream(&key, c, Dir::Decrypt, ct, &c.dec_calls);
    assert!(
        out == c.pt,
        "{name}: streaming decryption is not the plaintext"
    );
    assert_eq!(m.verify(&key, &tag[..tl]), Ok(()), "{name}: verify");

    // One shot, destinations longer than the source.
    let src = Guarded::new(&c.pt, c.src_off);
    let mut dst = Guarded::filled(c.pt.len() + DST_EXTRA, 0x3c, c.dst_off);
    let mut t = [0u8; 16];
    seal(
        &key,
        &c.iv,
        &c.aad,
        src.bytes(),
        dst.bytes_mut(),
        &mut t[..tl],
    )
    .expect("seal");
    dst.check("seal destination");
    assert!(dst.bytes()[..ct.len()] == *ct, "{name}: seal ciphertext");
    assert!(
        dst.bytes()[ct.len()..].iter().all(|&x| x == 0x3c),
        "{name}: seal wrote past the length"
    );
    assert_eq!(t[..tl], tag[..tl], "{name}: seal tag");
    let src = Guarded::new(ct, c.src_off);
    let mut dst = Guarded::filled(ct.len() + DST_EXTRA, 0x3c, c.dst_off);
    open(
        &key,
        &c.iv,
        &c.aad,
        src.bytes(),
        dst.bytes_mut(),
        &tag[..tl],
    )
    .expect("open");
    dst.check("open destination");
    assert!(dst.bytes()[..ct.len()] == *c.pt, "{name}: open plaintext");
    assert!(
        dst.bytes()[ct.len()..].iter().all(|&x| x == 0x3c),
        "{name}: open wrote past the length"
    );

    // One flipped bit: the streaming verify and the one-shot open must both reject.
    let (mut bad_tag, mut bad_ct, mut bad_aad) = (tag[..tl].to_vec(), ct.to_vec(), c.aad.clone());
    match c.flip_in {
        1 if !bad_ct.is_empty() => flip(&mut bad_ct, c.flip_bit),
        2 if !bad_aad.is_empty() => flip(&mut bad_aad, c.flip_bit),
        _ => flip(&mut bad_tag, c.flip_bit),
    }
    let mut m = Message::new(&key, &c.iv).expect("message");
    m.aad(&key, &bad_aad).expect("aad");
    let mut scratch = bad_ct.clone();
    m.decrypt(&key, &mut scratch).expect("decrypt");
    assert_eq!(
        m.verify(&key, &bad_tag),
        Err(Error::TagMismatch),
        "{name}: verify of a flipped bit"
    );
    let src = Guarded::new(&bad_ct, c.src_off);
    let mut dst = Guarded::filled(bad_ct.len(), 0xee, c.dst_off);
    let r = open(
        &key,
        &c.iv,
        &bad_aad,
        src.bytes(),
        dst.bytes_mut(),
        &bad_tag,
    );
    assert_eq!(r, Err(Error::TagMismatch), "{name}: open of a flipped bit");
    dst.check("open destination (rejected)");
    assert!(
        dst.bytes().iter().all(|&x| x == 0xee),
        "{name}: open wrote plaintext it rejected"
    );
}

fn run(data: &[u8]) {
    let c = case(data);
    let soft = Key::with_backend(&c.key, BackendId::Soft).expect("soft key");
    let mut ct = vec![0u8; c.pt.len()];
    let mut tag = [0u8; 16];
    seal(&soft, &c.iv, &c.aad, &c.pt, &mut ct, &mut tag).expect("soft seal");
    if let (Some(j0), true) = (c.j0, c.pt.len() >= 16) {
        // The constructed IV is in use: the first block is encrypted under inc32(J0).
        let ks = counter::aes_block(&c.key, &counter::counter_block(&j0, 1));
        let first: Vec<u8> = (0..16).map(|i| ct[i] ^ c.pt[i]).collect();
        assert_eq!(
            hex(&first),
            hex(&ks),
            "the IV does not give the J0 it was made for"
        );
    }
    if let Some((oct, otag)) = oracle::seal(&c.key, &c.iv, &c.aad, &c.pt) {
        assert!(oct == ct, "soft vs aes-gcm: ciphertext");
        assert_eq!(hex(&otag), hex(&tag), "soft vs aes-gcm: tag");
    }
    for b in cpu::available() {
        check_backend(b, &c, &ct, &tag);
    }
}

/// Hand-picked shapes: every key size and IV kind, empty and block-boundary lengths,
/// tiny and block-sized call splits, both placements, every tag length.
fn seeds() -> Seeds {
    let ivs: [&[u8]; 6] = [
        &[0x11; 12],
        &[0x22],
        &[0x33; 8],
        &[0x44; 16],
        &[0x55; 60],
        &[0x66; 200],
    ];
    // (AAD calls, data length, encryption calls, decryption calls)
    type Shape = (&'static [usize], usize, &'static [usize], &'static [usize]);
    let shapes: [Shape; 8] = [
        (&[], 0, &[], &[]),
        (&[20], 1, &[1], &[1]),
        (&[13, 0, 3], 15, &[15], &[7, 8]),
        (&[16], 16, &[16], &[1, 15]),
        (&[1, 1, 30], 17, &[0, 17], &[16, 1]),
        (&[64], 255, &[100, 155], &[255]),
        (&[], 512 + 31, &[31, 512], &[256, 256, 31]),
        (&[7], 4100, &[4100], &[1, 2, 3, 4094]),
    ];
    let mut out = Vec::new();
    let mut n = 0u64;
    for (ki, key_len) in [16, 24, 32].into_iter().enumerate() {
        for (si, &(aad_calls, data_len, enc, dec)) in shapes.iter().enumerate() {
            for iv in [ivs[0], ivs[(si + ki) % 5 + 1]] {
                n += 1;
                let k = n as usize;
                let mut spec = Spec {
                    key: filled(n, key_len),
                    iv: iv.to_vec(),
                    aad_len: aad_calls.iter().sum(),
                    data_len,
                    seed: n,
                    aad_calls: aad_calls.to_vec(),
                    enc_calls: enc.to_vec(),
                    dec_calls: dec.to_vec(),
                    in_place: k.is_multiple_of(2),
                    long_dst: k.is_multiple_of(3),
                    src_off: k * 5 % 16,
                    dst_off: k * 3 % 16,
                    tag_len: TAG_LENS[k % TAG_LENS.len()],
                    flip_in: k % 3,
                    flip_bit: (k * 37) as u16,
                    ..Spec::default()
                };
                let name = format!(
                    "k{key_len}-iv{}-aad{}-data{data_len}-{}",
                    iv.len(),
                    spec.aad_len,
                    if spec.in_place { "inplace" } else { "copy" }
                );
                out.push((name, spec.encode()));
            }
        }
        // The counter wrapping inside the message (after 1, 4 and 41 blocks) and its low
        // byte wrapping, split across calls.
        for (counter, back, data_len, calls) in [
            (1, 0, 40, &[40][..]),
            (1, 3, 100, &[17, 83][..]),
            (1, 40, 4100, &[1000, 3100][..]),
            (2, 0, 300, &[300][..]),
            (2, 7, 2000, &[5, 11, 1984][..]),
        ] {
            n += 1;
            let k = n as usize;
            let mut spec = Spec {
                key: filled(n, key_len),
                iv: filled(!n, 12),
                counter,
                ctr_back: back,
                ctr_word: (n * 0x0101_0101) as u32,
                data_len,
                seed: n,
                enc_calls: calls.to_vec(),
                dec_calls: calls.iter().rev().copied().collect(),
                in_place: k.is_multiple_of(2),
                src_off: k % 16,
                dst_off: (k * 7) % 16,
                tag_len: 16,
                ..Spec::default()
            };
            let name = format!("k{key_len}-counter{counter}-back{back}-data{data_len}");
            out.push((name, spec.encode()));
        }
    }
    out
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
