//! Out-of-bounds access tests with guard pages (no external vectors; results are compared
//! with the same computation on ordinary heap buffers through the `soft` backend).
//!
//! Every buffer handed to the library (key, IV, AAD, input, output, tag) lives in its own
//! mmap'ed page framed by `PROT_NONE` pages, placed either so that it ENDS exactly at the
//! following guard page (catches over-reads and over-writes) or STARTS right after the
//! preceding guard page (catches under-reads). Every data length 0..=300, every backend in
//! `cpu::available()`, encryption and decryption, in place and out of place, streaming in
//! one piece and in chunks that each sit at a guard, the one-shot `seal`/`open`, and the C
//! ABI (handle, `sgcm_seal`/`sgcm_open` and `sgcm_aead_seal`/`sgcm_aead_open`). A stray
//! access kills the test with SIGSEGV, which is the point.

mod common;

use common::guard::*;
use common::*;
use stitchgcm::ffi::native::{SGCM_ERR_CHECKSUM, SGCM_ERR_NO_ERROR};
use stitchgcm::{open, seal, BackendId, Error, Key, Message};

/// Inputs for one data length and their reference results from ordinary heap buffers.
struct Inputs {
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    pt: Vec<u8>,
    tag_len: usize,
    ct: Vec<u8>,
    tag: [u8; 16],
}

fn inputs(rng: &mut Rng, len: usize) -> Inputs {
    let key = rng.bytes([16, 24, 32][len % 3]);
    let iv_len = if len % 2 == 0 { 12 } else { 1 + len % 64 };
    let iv = rng.bytes(iv_len);
    // AAD of every length 0..=300 too (10 is coprime to 301), differing from the data length.
    let aad = rng.bytes((len * 10 + 3) % (MAX_LEN + 1));
    let pt = rng.bytes(len);
    let soft_key = Key::with_backend(&key, soft()).unwrap();
    let mut ct = vec![0u8; len];
    let mut tag = [0u8; 16];
    seal(&soft_key, &iv, &aad, &pt, &mut ct, &mut tag).unwrap();
    Inputs {
        key,
        iv,
        aad,
        pt,
        tag_len: TAG_LENS[len % TAG_LENS.len()],
        ct,
        tag,
    }
}

/// The Rust API on one backend with every buffer at a guard.
fn rust_api(r: &mut Regions, b: BackendId, at: At, x: &Inputs, rng: &mut Rng) {
    let ctx = format!("[{}] {at:?} len {}", b.name(), x.pt.len());
    let tl = x.tag_len;
    let key = Key::with_backend(r.key.with(at, &x.key), b).unwrap();
    let iv = r.iv.with(at, &x.iv);
    let aad = r.aad.with(at, &x.aad);

    // Encrypt out of place, tag into a buffer of exactly the tag length.
    let mut m = Message::new(&key, iv).unwrap();
    m.aad(&key, aad).unwrap();
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    m.encrypt_to(&key, src, dst).unwrap();
    assert_eq!(dst[..], x.ct[..], "{ctx}: encrypt_to");
    let tag = r.tag.place(at, tl);
    m.tag(&key, tag).unwrap();
    assert_eq!(tag[..], x.tag[..tl], "{ctx}: tag");

    // Encrypt in place.
    let mut m = Message::new(&key, iv).unwrap();
    m.aad(&key, aad).unwrap();
    let buf = r.dst.with(at, &x.pt);
    m.encrypt(&key, buf).unwrap();
    assert_eq!(buf[..], x.ct[..], "{ctx}: encrypt in place");

    // Decrypt out of place and in place; verify reads a tag at a guard.
    let tag = r.tag.with(at, &x.tag[..tl]);
    let mut m = Message::new(&key, iv).unwrap();
    m.aad(&key, aad).unwrap();
    let src = r.src.with(at, &x.ct);
    let dst = r.dst.place(at, x.ct.len());
    m.decrypt_to(&key, src, dst).unwrap();
    assert_eq!(dst[..], x.pt[..], "{ctx}: decrypt_to");
    assert_eq!(m.verify(&key, tag), Ok(()), "{ctx}: verify");

    let mut m = Message::new(&key, iv).unwrap();
    m.aad(&key, aad).unwrap();
    let buf = r.dst.with(at, &x.ct);
    m.decrypt(&key, buf).unwrap();
    assert_eq!(buf[..], x.pt[..], "{ctx}: decrypt in place");
    assert_eq!(m.verify(&key, tag), Ok(()), "{ctx}: verify (in place)");

    // Streaming in chunks, each AAD and data chunk copied to sit at a guard on its own.
    for dir_encrypt in [true, false] {
        let (input, want) = if dir_encrypt {
            (&x.pt, &x.ct)
        } else {
            (&x.ct, &x.pt)
        };
        let mut m = Message::new(&key, iv).unwrap();
        let mut pos = 0;
        for n in rng.chunks(x.aad.len()) {
            m.aad(&key, r.aad.with(at, &x.aad[pos..pos + n])).unwrap();
            pos += n;
        }
        let mut out = Vec::with_capacity(input.len());
        let mut pos = 0;
        for n in rng.chunks(input.len()) {
            let chunk = &input[pos..pos + n];
            let in_place = rng.chance(1, 2);
            let d = if in_place {
                let d = r.dst.with(at, chunk);
                if dir_encrypt {
                    m.encrypt(&key, d).unwrap();
                } else {
                    m.decrypt(&key, d).unwrap();
                }
                d
            } else {
                let s = r.src.with(at, chunk);
                let d = r.dst.place(at, n);
                if dir_encrypt {
                    m.encrypt_to(&key, s, d).unwrap();
                } else {
                    m.decrypt_to(&key, s, d).unwrap();
                }
                d
            };
            out.extend_from_slice(d);
            pos += n;
        }
        assert_eq!(
            &out,
            want,
            "{ctx}: chunked {}",
            if dir_encrypt { "encrypt" } else { "decrypt" }
        );
        let tag = r.tag.place(at, tl);
        m.tag(&key, tag).unwrap();
        assert_eq!(tag[..], x.tag[..tl], "{ctx}: chunked tag");
    }

    // One shot: seal, open, open with a bad tag (which must not write).
    let aad = r.aad.with(at, &x.aad);
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    let tag = r.tag.place(at, tl);
    seal(&key, iv, aad, src, dst, tag).unwrap();
    assert_eq!(dst[..], x.ct[..], "{ctx}: seal");
    assert_eq!(tag[..], x.tag[..tl], "{ctx}: seal tag");
    let src = r.src.with(at, &x.ct);
    let dst = r.dst.place(at, x.ct.len());
    open(&key, iv, aad, src, dst, tag).unwrap();
    assert_eq!(dst[..], x.pt[..], "{ctx}: open");
    tag[tl - 1] ^= 1;
    let dst = r.dst.with(at, &vec![0x5c; x.ct.len()]);
    assert_eq!(
        open(&key, iv, aad, src, dst, tag),
        Err(Error::TagMismatch),
        "{ctx}: open bad tag"
    );
    assert!(
        dst.iter().all(|&v| v == 0x5c),
        "{ctx}: open wrote on failure"
    );
}

/// The C ABI (selected backend) with every buffer at a guard.
fn c_abi(r: &mut Regions, handles: &[CHandle; 3], at: At, x: &Inputs) {
    let ctx = format!("[C ABI] {at:?} len {}", x.pt.len());
    let tl = x.tag_len;
    let h = &handles[(x.key.len() - 16) / 8];
    let key = r.key.with(at, &x.key);
    let iv = r.iv.with(at, &x.iv);
    let aad = r.aad.with(at, &x.aad);
    assert_eq!(h.setkey(key), SGCM_ERR_NO_ERROR, "{ctx}: setkey");

    // Encrypt out of place; then in place (in == NULL); then decrypt both ways.
    for (encrypt, in_place) in [(true, false), (true, true), (false, false), (false, true)] {
        let (input, want) = if encrypt {
            (&x.pt, &x.ct)
        } else {
            (&x.ct, &x.pt)
        };
        assert_eq!(h.setiv(iv), SGCM_ERR_NO_ERROR, "{ctx}: setiv");
        assert_eq!(
            h.authenticate(aad),
            SGCM_ERR_NO_ERROR,
            "{ctx}: authenticate"
        );
        let rc = if in_place {
            let buf = r.dst.with(at, input);
            let rc = if encrypt {
                h.encrypt_in_place(buf)
            } else {
                h.decrypt_in_place(buf)
            };
            assert_eq!(buf[..], want[..], "{ctx}: in place (encrypt {encrypt})");
            rc
        } else {
            let src = r.src.with(at, input);
            let dst = r.dst.place(at, input.len());
            let rc = if encrypt {
                h.encrypt_to(src, dst)
            } else {
                h.decrypt_to(src, dst)
            };
            assert_eq!(dst[..], want[..], "{ctx}: out of place (encrypt {encrypt})");
            rc
        };
        assert_eq!(
            rc, SGCM_ERR_NO_ERROR,
            "{ctx}: crypt (encrypt {encrypt}, in place {in_place})"
        );
        if encrypt {
            let tag = r.tag.place(at, tl);
            assert_eq!(h.gettag(tag), SGCM_ERR_NO_ERROR, "{ctx}: gettag");
            assert_eq!(tag[..], x.tag[..tl], "{ctx}: gettag");
        } else {
            let tag = r.tag.with(at, &x.tag[..tl]);
            assert_eq!(h.checktag(tag), SGCM_ERR_NO_ERROR, "{ctx}: checktag");
        }
    }

    // sgcm_seal / sgcm_open, out of place and in place.
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    let tag = r.tag.place(at, tl);
    assert_eq!(
        c_seal(key, iv, aad, src, dst, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: sgcm_seal"
    );
    assert_eq!(
        (&dst[..], &tag[..]),
        (&x.ct[..], &x.tag[..tl]),
        "{ctx}: sgcm_seal"
    );
    let src = r.src.with(at, &x.ct);
    let dst = r.dst.place(at, x.ct.len());
    assert_eq!(
        c_open(key, iv, aad, src, dst, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: sgcm_open"
    );
    assert_eq!(dst[..], x.pt[..], "{ctx}: sgcm_open");

    let buf = r.dst.with(at, &x.pt);
    let tag = r.tag.place(at, tl);
    assert_eq!(
        c_seal_in_place(key, iv, aad, buf, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: sgcm_seal in place"
    );
    assert_eq!(
        (&buf[..], &tag[..]),
        (&x.ct[..], &x.tag[..tl]),
        "{ctx}: sgcm_seal in place"
    );
    assert_eq!(
        c_open_in_place(key, iv, aad, buf, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: sgcm_open in place"
    );
    assert_eq!(buf[..], x.pt[..], "{ctx}: sgcm_open in place");

    let buf = r.dst.with(at, &x.ct);
    tag[0] ^= 0x40;
    assert_eq!(
        c_open_in_place(key, iv, aad, buf, tag),
        SGCM_ERR_CHECKSUM,
        "{ctx}: sgcm_open bad tag"
    );
    assert_eq!(buf[..], x.ct[..], "{ctx}: sgcm_open wrote on failure");

    // sgcm_aead_seal / sgcm_aead_open on the keyed handle, out of place and in place.
    let src = r.src.with(at, &x.pt);
    let dst = r.dst.place(at, x.pt.len());
    let tag = r.tag.place(at, tl);
    assert_eq!(
        h.aead_seal(iv, aad, Some(src), dst, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: aead_seal"
    );
    assert_eq!(
        (&dst[..], &tag[..]),
        (&x.ct[..], &x.tag[..tl]),
        "{ctx}: aead_seal"
    );
    let src = r.src.with(at, &x.ct);
    let dst = r.dst.place(at, x.ct.len());
    assert_eq!(
        h.aead_open(iv, aad, Some(src), dst, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: aead_open"
    );
    assert_eq!(dst[..], x.pt[..], "{ctx}: aead_open");
    let buf = r.dst.with(at, &x.pt);
    let tag = r.tag.place(at, tl);
    assert_eq!(
        h.aead_seal(iv, aad, None, buf, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: aead_seal in place"
    );
    assert_eq!(
        (&buf[..], &tag[..]),
        (&x.ct[..], &x.tag[..tl]),
        "{ctx}: aead_seal in place"
    );
    assert_eq!(
        h.aead_open(iv, aad, None, buf, tag),
        SGCM_ERR_NO_ERROR,
        "{ctx}: aead_open in place"
    );
    assert_eq!(buf[..], x.pt[..], "{ctx}: aead_open in place");
    let buf = r.dst.with(at, &x.ct);
    tag[0] ^= 0x40;
    assert_eq!(
        h.aead_open(iv, aad, None, buf, tag),
        SGCM_ERR_CHECKSUM,
        "{ctx}: aead_open bad tag"
    );
    assert_eq!(buf[..], x.ct[..], "{ctx}: aead_open wrote on failure");
}

fn run(at: At) {
    let mut r = Regions::new();
    let mut rng = Rng::new(0x6a7d_0000 ^ at as u64);
    let handles = [CHandle::open(16), CHandle::open(24), CHandle::open(32)];
    let backends = backends();
    let mut checked = 0;
    for len in 0..=MAX_LEN {
        let x = inputs(&mut rng, len);
        for &b in &backends {
            rust_api(&mut r, b, at, &x, &mut rng);
        }
        c_abi(&mut r, &handles, at, &x);
        checked += 1;
    }
    assert_eq!(checked, MAX_LEN + 1);
}

#[test]
fn buffers_ending_at_a_guard_page() {
    run(At::End);
}

#[test]
fn buffers_starting_after_a_guard_page() {
    run(At::Start);
}

/// The harness itself: touching the byte after a guarded buffer must fault (checked in a
/// forked child), or the tests above would prove nothing.
#[test]
fn guard_page_is_armed() {
    let g = Guarded::new();
    let target = g.guard_after();
    // SAFETY: fork has no memory-safety preconditions; the child only performs a volatile
    // read and `_exit`, both async-signal-safe.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: deliberately reads the PROT_NONE page in the forked child, which must die
        // of SIGSEGV here; the parent never performs this access.
        unsafe {
            core::ptr::read_volatile(target);
            libc::_exit(0);
        }
    }
    let mut status = 0;
    // SAFETY: waits for the child created above; `status` is a valid out-pointer.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid, "waitpid failed");
    assert!(
        libc::WIFSIGNALED(status) && matches!(libc::WTERMSIG(status), libc::SIGSEGV | libc::SIGBUS),
        "reading the guard page did not fault (status {status:#x})"
    );
}
