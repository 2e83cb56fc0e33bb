//! The one-shot calls of the native handle target's program — `sgcm_seal`/`sgcm_open`
//! with a raw key, `sgcm_aead_seal`/`sgcm_aead_open` with a handle's key: every pointer
//! guarded or NULL, every length valid or not, and the result compared with the Rust
//! API's `seal` (and `Message` for the tag an `open` must accept) on `soft`.

use crate::guard::Guarded;
use crate::native::*;
use crate::native_program::{Kind, Op};
use crate::{filled, hex, tag_len_ok};
use core::ffi::c_void;
use core::ptr::{null, null_mut};
use stitchgcm::{BackendId, Key, Message};

/// A guarded input buffer of `len` bytes, or none (a NULL argument).
pub fn input(len: usize, seed: u64, off: usize, is_null: bool) -> (Option<Guarded>, *const c_void) {
    if is_null {
        return (None, null());
    }
    let g = Guarded::new(&filled(seed, len), off);
    let p = g.ptr() as *const c_void;
    (Some(g), p)
}

pub fn soft_key(raw: &[u8]) -> Key {
    Key::with_backend(raw, BackendId::Soft).expect("soft key")
}

/// Where a one-shot call's key comes from.
pub enum KeySource<'a> {
    /// `sgcm_seal`/`sgcm_open`: `op.key_len` bytes (pointer 0).
    Raw,
    /// `sgcm_aead_seal`/`sgcm_aead_open` on `h` (NULL: pointer 0 is NULL, or no handle),
    /// whose key the model knows as `key`.
    Handle { h: Handle, key: Option<&'a Key> },
}

/// One one-shot call with every argument guarded or NULL.
pub fn one_shot(op: &Op, source: KeySource) {
    let seed = op.seed as u64;
    let seal = matches!(op.kind, Kind::Seal | Kind::AeadSeal);
    let raw = matches!(source, KeySource::Raw);
    let (key, key_p) = input(op.key_len, seed, op.off_in, !raw || op.null(0));
    let (iv, iv_p) = input(op.iv_len, seed + 1, op.off_in, op.null(1));
    let (aad, aad_p) = input(op.aad_len, seed + 2, op.off_in, op.null(2));
    let len = op.len;
    let msg = filled(seed + 3, len);
    let key_ok = !raw || matches!(op.key_len, 16 | 24 | 32);
    let tag_ok = tag_len_ok(op.tag_len);
    // What a valid call gives, from the Rust API (soft backend).
    let iv_b = iv.as_ref().map_or(&[][..], |b| b.bytes());
    let aad_b = aad.as_ref().map_or(&[][..], |b| b.bytes());
    let soft = match (&source, &key) {
        (KeySource::Raw, Some(k)) if key_ok && !iv_b.is_empty() => Some(soft_key(k.bytes())),
        (KeySource::Handle { key: Some(k), .. }, _) if !iv_b.is_empty() => Some((*k).clone()),
        _ => None,
    };
    // The tag of `msg` as ciphertext (for open) or as plaintext (for seal).
    let mut full = [0u8; 16];
    let mut sealed = msg.clone();
    if let Some(k) = &soft {
        if seal {
            stitchgcm::seal(k, iv_b, aad_b, &msg, &mut sealed, &mut full).expect("seal");
        } else {
            let mut m = Message::new(k, iv_b).expect("message");
            m.aad(k, aad_b).expect("aad");
            m.decrypt(k, &mut sealed).expect("decrypt");
            m.tag(k, &mut full).expect("tag");
        }
    }
    let mut tag_bytes = filled(seed + 4, op.tag_len);
    if !seal && op.tag_kind < 2 {
        let n = op.tag_len.min(16);
        tag_bytes[..n].copy_from_slice(&full[..n]);
        if op.tag_kind == 1 && op.tag_len > 0 {
            let bit = op.bit as usize % (8 * op.tag_len);
            tag_bytes[bit / 8] ^= 1 << (bit % 8);
        }
    }
    let mut tag = Guarded::new(&tag_bytes, op.off_out);
    let tag_p = if op.null(4) {
        null_mut()
    } else {
        tag.mut_ptr() as *mut c_void
    };
    let out_init = if op.in_place {
        msg.clone()
    } else {
        vec![0x4d; len]
    };
    let mut out = Guarded::new(&out_init, op.off_out);
    let src = (!op.in_place).then(|| Guarded::new(&msg, op.off_in));
    let out_p = if op.null(3) {
        null_mut()
    } else {
        out.mut_ptr() as *mut c_void
    };
    let in_p = src.as_ref().map_or(null(), |s| s.ptr() as *const c_void);

    let mut e = Expect::default();
    match source {
        KeySource::Raw => e
            .unless(!(key_p.is_null() && op.key_len > 0), INV_ARG)
            .unless(key_ok, INV_KEYLEN),
        KeySource::Handle { h, key } => e
            .unless(!h.is_null(), INV_ARG)
            .unless(h.is_null() || key.is_some(), MISSING_KEY),
    };
    e.unless(!(iv_p.is_null() && op.iv_len > 0), INV_ARG)
        .unless(!(aad_p.is_null() && op.aad_len > 0), INV_ARG)
        .unless(!(out_p.is_null() && len > 0), INV_ARG)
        .unless(tag_ok, INV_LENGTH)
        .unless(op.iv_len > 0, INV_LENGTH);
    if seal {
        e.unless(!tag_p.is_null(), INV_ARG);
    } else {
        e.unless(!(tag_p.is_null() && op.tag_len > 0), INV_ARG);
    }
    let right_tag = tag_ok && hex(&tag_bytes) == hex(&full[..op.tag_len.min(16)]);
    let want = if seal || right_tag { OK } else { CHECKSUM };
    // SAFETY: every pointer is NULL or valid for its length; `in_p` NULL (in place) or
    // its own allocation.
    let (h, l) = (handle_of(&source), op.key_len);
    let rc = unsafe {
        match (seal, raw) {
            (true, true) => sgcm_seal(
                key_p, l, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p, op.tag_len,
            ),
            (false, true) => sgcm_open(
                key_p, l, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p, op.tag_len,
            ),
            (true, false) => sgcm_aead_seal(
                h, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p, op.tag_len,
            ),
            (false, false) => sgcm_aead_open(
                h, iv_p, op.iv_len, aad_p, op.aad_len, in_p, len, out_p, tag_p, op.tag_len,
            ),
        }
    };
    let what = match (seal, raw) {
        (true, true) => "sgcm_seal",
        (false, true) => "sgcm_open",
        (true, false) => "sgcm_aead_seal",
        (false, false) => "sgcm_aead_open",
    };
    e.check_model(what, rc, want);
    for (b, name) in [(&key, "key"), (&iv, "IV"), (&aad, "AAD"), (&src, "input")] {
        if let Some(b) = b {
            b.check(&format!("{what} {name}"));
        }
    }
    out.check(&format!("{what} output"));
    tag.check(&format!("{what} tag"));
    if let Some(s) = &src {
        assert_eq!(s.bytes(), &msg[..], "{what} modified its input");
    }
    if e.valid() && rc == OK {
        assert!(
            out.bytes() == sealed,
            "{what}: output differs from the Rust API"
        );
        if seal {
            assert_eq!(
                tag.bytes(),
                &full[..op.tag_len],
                "{what}: tag differs from the Rust API"
            );
        }
    } else {
        assert!(
            out.bytes() == out_init,
            "{what} wrote its output on failure (rc {rc})"
        );
    }
    if !seal || !(e.valid() && rc == OK) {
        assert_eq!(tag.bytes(), &tag_bytes[..], "{what} changed the tag buffer");
    }
}

fn handle_of(source: &KeySource) -> Handle {
    match source {
        KeySource::Raw => null_mut(),
        KeySource::Handle { h, .. } => *h,
    }
}
