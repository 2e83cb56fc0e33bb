//! Out-of-bounds access tests of RFC 4106 with guard pages (no external vectors; results
//! are compared with the same packet sealed on ordinary heap buffers through the `soft`
//! backend), in the manner of `guard_pages.rs`: the key‖salt, the 8-byte IV, the 8- or
//! 12-byte AAD, payload, output and the 8/12/16-byte ICV each in a page of their own,
//! ending at the next `PROT_NONE` page or starting right after the previous one. Every
//! payload length 0..=300, every backend in `cpu::available()`: `Rfc4106Key` seal/open
//! (and a bad ICV writing nothing), `Rfc4106Message` in chunks that each sit at a guard,
//! and on the selected backend an `SGCM_MODE_RFC4106` handle: `sgcm_aead_seal`/`open`,
//! the streaming calls and `sgcm_aead_seal_geniv`, whose IV output sits at a guard too.
//! `guard_pages.rs` checks that the guards fault.

mod common;

use common::guard::*;
use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::ffi::rfc4106::SGCM_MODE_RFC4106;
use stitchgcm::{BackendId, Error, Rfc4106Key, Rfc4106Message};

/// One ESP packet of a payload length, and its reference from the soft backend.
struct EspInputs {
    key: Vec<u8>,
    iv: [u8; 8],
    aad: Vec<u8>,
    pt: Vec<u8>,
    icv_len: usize,
    ct: Vec<u8>,
    icv: [u8; 16],
}

fn esp_inputs(rng: &mut Rng, len: usize) -> EspInputs {
    let key = rng.bytes([20, 28, 36][len % 3]);
    let mut iv = [0u8; 8];
    rng.fill(&mut iv);
    let aad = rng.bytes([8, 12][len % 2]);
    let pt = rng.bytes(len);
    let soft_key = Rfc4106Key::with_backend(&key, soft()).unwrap();
    let mut ct = vec![0u8; len];
    let mut icv = [0u8; 16];
    soft_key.seal(&iv, &aad, &pt, &mut ct, &mut icv).unwrap();
    let icv_len = [8, 12, 16][len / 2 % 3];
    EspInputs {
        key,
        iv,
        aad,
        pt,
        icv_len,
        ct,
        icv,
    }
}

/// `Rfc4106Key` and `Rfc4106Message` on one backend with every buffer at a guard.
fn esp_rust_api(r: &mut Regions, b: BackendId, at: At, x: &EspInputs, rng: &mut Rng) {
    let ctx = format!("[{} RFC 4106] {at:?} len {}", b.name(), x.pt.len());
    let il = x.icv_len;
    let key = Rfc4106Key::with_backend(r.key.with(at, &x.key), b).unwrap();
    let iv = r.iv.with(at, &x.iv);
    let aad = r.aad.with(at, &x.aad);
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    let icv = r.tag.place(at, il);
    key.seal(iv, aad, src, dst, icv).unwrap();
    assert_eq!(
        (&dst[..], &icv[..]),
        (&x.ct[..], &x.icv[..il]),
        "{ctx}: seal"
    );
    let src = r.src.with(at, &x.ct);
    let dst = r.dst.place(at, x.ct.len());
    key.open(iv, aad, src, dst, icv).unwrap();
    assert_eq!(dst[..], x.pt[..], "{ctx}: open");
    icv[0] ^= 8;
    let dst = r.dst.with(at, &vec![0x3c; x.ct.len()]);
    assert_eq!(
        key.open(iv, aad, src, dst, icv),
        Err(Error::TagMismatch),
        "{ctx}"
    );
    assert!(
        dst.iter().all(|&v| v == 0x3c),
        "{ctx}: open wrote on failure"
    );

    // Streaming, each AAD and payload chunk at a guard on its own, in place.
    let mut m = Rfc4106Message::new(&key, iv).unwrap();
    let mut pos = 0;
    for n in rng.chunks(x.aad.len()) {
        m.aad(&key, r.aad.with(at, &x.aad[pos..pos + n])).unwrap();
        pos += n;
    }
    let mut out = Vec::with_capacity(x.pt.len());
    let mut pos = 0;
    for n in rng.chunks(x.pt.len()) {
        let d = r.dst.with(at, &x.pt[pos..pos + n]);
        m.encrypt(&key, d).unwrap();
        out.extend_from_slice(d);
        pos += n;
    }
    let icv = r.tag.place(at, il);
    m.icv(&key, icv).unwrap();
    assert_eq!(
        (&out[..], &icv[..]),
        (&x.ct[..], &x.icv[..il]),
        "{ctx}: streaming"
    );
}

/// An `SGCM_MODE_RFC4106` handle (selected backend) with every buffer at a guard.
fn esp_c_abi(r: &mut Regions, handles: &[CHandle; 3], at: At, x: &EspInputs) {
    let ctx = format!("[C ABI RFC 4106] {at:?} len {}", x.pt.len());
    let il = x.icv_len;
    let h = &handles[(x.key.len() - 20) / 8];
    assert_eq!(
        h.setkey(r.key.with(at, &x.key)),
        SGCM_ERR_NO_ERROR,
        "{ctx}: setkey"
    );
    let iv = r.iv.with(at, &x.iv);
    let aad = r.aad.with(at, &x.aad);
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    let icv = r.tag.place(at, il);
    assert_eq!(
        h.aead_seal(iv, aad, Some(src), dst, icv),
        SGCM_ERR_NO_ERROR,
        "{ctx}"
    );
    assert_eq!(
        (&dst[..], &icv[..]),
        (&x.ct[..], &x.icv[..il]),
        "{ctx}: aead_seal"
    );
    let buf = r.dst.with(at, &x.ct);
    assert_eq!(
        h.aead_open(iv, aad, None, buf, icv),
        SGCM_ERR_NO_ERROR,
        "{ctx}"
    );
    assert_eq!(buf[..], x.pt[..], "{ctx}: aead_open in place");
    let buf = r.dst.with(at, &x.ct);
    icv[il - 1] ^= 1;
    assert_eq!(
        h.aead_open(iv, aad, None, buf, icv),
        SGCM_ERR_CHECKSUM,
        "{ctx}"
    );
    assert_eq!(buf[..], x.ct[..], "{ctx}: aead_open wrote on failure");

    // Streaming out of place: setiv, authenticate, encrypt, gettag; then checktag.
    assert_eq!(h.setiv(iv), SGCM_ERR_NO_ERROR, "{ctx}: setiv");
    assert_eq!(
        h.authenticate(aad),
        SGCM_ERR_NO_ERROR,
        "{ctx}: authenticate"
    );
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    assert_eq!(h.encrypt_to(src, dst), SGCM_ERR_NO_ERROR, "{ctx}: encrypt");
    assert_eq!(dst[..], x.ct[..], "{ctx}: encrypt");
    let icv = r.tag.place(at, il);
    assert_eq!(h.gettag(icv), SGCM_ERR_NO_ERROR, "{ctx}: gettag");
    assert_eq!(icv[..], x.icv[..il], "{ctx}: gettag");
    assert_eq!(h.setiv(iv), SGCM_ERR_NO_ERROR);
    assert_eq!(h.authenticate(aad), SGCM_ERR_NO_ERROR);
    let buf = r.dst.with(at, &x.ct);
    assert_eq!(h.decrypt_in_place(buf), SGCM_ERR_NO_ERROR, "{ctx}: decrypt");
    assert_eq!(
        h.checktag(r.tag.with(at, &x.icv[..il])),
        SGCM_ERR_NO_ERROR,
        "{ctx}"
    );

    // The generator, writing its IV into a buffer at a guard.
    assert_eq!(h.setup_geniv(iv), SGCM_ERR_NO_ERROR, "{ctx}: setup_geniv");
    let out_iv = r.iv.place(at, 8);
    let buf = r.dst.with(at, &x.pt);
    let icv = r.tag.place(at, il);
    assert_eq!(
        h.aead_seal_geniv(out_iv, aad, None, buf, icv),
        SGCM_ERR_NO_ERROR
    );
    assert_eq!(
        (&buf[..], &icv[..]),
        (&x.ct[..], &x.icv[..il]),
        "{ctx}: seal_geniv"
    );
    assert_eq!(out_iv[..], x.iv[..], "{ctx}: seal_geniv IV");
}

fn run_rfc4106(at: At) {
    let mut r = Regions::new();
    let mut rng = Rng::new(0x4106_0000 ^ at as u64);
    let handles = [16, 24, 32].map(|n| CHandle::open_mode(n, SGCM_MODE_RFC4106));
    let backends = backends();
    for len in 0..=MAX_LEN {
        let x = esp_inputs(&mut rng, len);
        for &b in &backends {
            esp_rust_api(&mut r, b, at, &x, &mut rng);
        }
        esp_c_abi(&mut r, &handles, at, &x);
    }
}

#[test]
fn buffers_ending_at_a_guard_page() {
    run_rfc4106(At::End);
}

#[test]
fn buffers_starting_after_a_guard_page() {
    run_rfc4106(At::Start);
}
