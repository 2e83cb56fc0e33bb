//! The data-moving calls of the native handle target's program: streaming
//! `sgcm_cipher_encrypt`/`decrypt` ([`crypt`]) and the one-shots ([`one_shot`]) —
//! `sgcm_seal`/`sgcm_open` with a raw key, `sgcm_aead_seal`/`sgcm_aead_open` with a
//! handle's key. Every pointer guarded or NULL, every length valid or not, and the result
//! compared with the Rust API on `soft` (`Message`, `seal`).

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

/// A handle and what the model knows about it.
pub struct Slot {
    pub h: Handle,
    pub key_len: usize,
    pub key: Option<Key>,
    pub msg: Option<Message>,
}

/// `sgcm_cipher_encrypt`/`decrypt`: in place (`in` NULL) or from a separate buffer,
/// with an output of the chosen size.
///
/// # Safety
/// `h` is NULL or an open handle, the one `slot` models.
pub unsafe fn crypt(op: &Op, h: Handle, slot: Option<&mut Slot>, mut e: Expect) {
    let seed = op.seed as u64;
    let enc = op.kind == Kind::Encrypt;
    let len = op.len;
    let out_size = match op.out_size {
        0 => len,
        1 => len + 1,
        2 => len + 17,
        _ => len.saturating_sub(1),
    };
    let data = filled(seed, len.max(out_size));
    // In place, `out` holds the input and `outsize` is its length; otherwise a separate
    // input of `len` bytes and an output of `out_size` bytes.
    let (len, out_size) = if op.in_place {
        (out_size, out_size)
    } else {
        (len, out_size)
    };
    let out_init = if op.in_place {
        data[..out_size].to_vec()
    } else {
        vec![0x4d; out_size]
    };
    let mut out = Guarded::new(&out_init, op.off_out);
    let src = (!op.in_place).then(|| Guarded::new(&data[..len], op.off_in));
    let out_p = if op.null(1) {
        null_mut()
    } else {
        out.mut_ptr() as *mut c_void
    };
    let in_p = src.as_ref().map_or(null(), |s| s.ptr() as *const c_void);
    let live = !h.is_null();
    let has_key = slot.as_ref().is_some_and(|s| s.key.is_some());
    let has_msg = slot.as_ref().is_some_and(|s| s.msg.is_some());
    e.unless(out_size >= len, BUFFER_TOO_SHORT)
        .unless(!(len > 0 && out_p.is_null()), INV_ARG)
        .needs_message(live, has_key, has_msg);
    let mut want_out = out_init.clone();
    let want = match (e.valid(), slot) {
        (
            true,
            Some(Slot {
                key: Some(k),
                msg: Some(m),
                ..
            }),
        ) => {
            let input = data[..len].to_vec();
            let dst = &mut want_out[..len];
            code(if enc {
                m.encrypt_to(k, &input, dst)
            } else {
                m.decrypt_to(k, &input, dst)
            })
        }
        _ => OK,
    };
    // An in-place call's `inlen` is documented as ignored: pass something else.
    let inlen = if op.in_place { len ^ 5 } else { len };
    // SAFETY: `out_p` is NULL or writable for `out_size` bytes; `in_p` NULL or readable
    // for `inlen` bytes, in its own allocation.
    let rc = unsafe {
        if enc {
            sgcm_cipher_encrypt(h, out_p, out_size, in_p, inlen)
        } else {
            sgcm_cipher_decrypt(h, out_p, out_size, in_p, inlen)
        }
    };
    let what = if enc {
        "sgcm_cipher_encrypt"
    } else {
        "sgcm_cipher_decrypt"
    };
    e.check_model(what, rc, want);
    out.check("crypt output");
    if let Some(s) = &src {
        s.check("crypt input");
        assert_eq!(s.bytes(), &data[..len], "{what} modified its input");
    }
    if !(e.valid() && rc == OK) {
        want_out = out_init;
    }
    assert!(
        out.bytes() == want_out,
        "{what}: output differs from the model (rc {rc})"
    );
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
