//! The calls of the gcrypt_abi target that need more than a few lines (encrypt/decrypt,
//! checktag, ctl, the geniv pair, setiv's exceptions) and the helpers every call uses; the
//! method and the list of exceptions are in `fuzz_targets/gcrypt_abi.rs`.

use crate::gcrypt::err::*;
use crate::gcrypt::{real, Api, Hd, OURS};
use crate::gcrypt_program::*;
use crate::gcrypt_state::{GcmState, GenivModel};
use crate::guard::Guarded;
use crate::{filled, hex, tracing};
use core::ffi::c_void;
use core::ptr::{null, null_mut};

pub struct Slot {
    pub ours: Hd,
    pub real: Hd,
    /// AES-GCM: the interposer's own handle (else both sides are libgcrypt's).
    pub served: bool,
    pub st: GcmState,
    pub geniv: Option<GenivModel>,
}

/// A guarded buffer of `bytes`, or NULL; the pointer and the buffer.
pub fn buffer(bytes: &[u8], off: usize, null: bool) -> (Guarded, *mut c_void) {
    let mut g = Guarded::new(bytes, off);
    let p = if null {
        null_mut()
    } else {
        g.mut_ptr() as *mut c_void
    };
    (g, p)
}

/// The answers of a call (the call itself is printed before it is made).
pub fn trace(_op: &Op, ours: u32, real: Option<u32>, note: &str) {
    if tracing() {
        let r = real.map_or("-".to_string(), |r| format!("{r:#010x}"));
        eprintln!("    ours {ours:#010x} real {r} {note}");
    }
}

pub fn same(what: &str, ours: u32, real: u32) {
    assert!(
        ours == real,
        "{what}: interposer {ours:#010x}, libgcrypt {real:#010x}"
    );
}

/// The documented answer of an exception.
pub fn documented(what: &str, got: u32, want: u32) {
    assert!(got == want, "{what}: {got:#010x}, documented {want:#010x}");
}

/// Whether a NULL buffer of `len` > 0 bytes was answered INV_ARG (the documented exception
/// where libgcrypt would dereference it).
pub fn null_refused(null: bool, len: usize, rc: u32) -> bool {
    null && len > 0 && code(rc) == INV_ARG
}

/// A setiv of `iv` (or NULL) with `len`, on both sides, with the crash exceptions; returns
/// the agreed code. `ours_rc` is the interposer's answer (a setiv or a geniv).
///
/// # Safety
/// `p` is NULL or readable for `iv.len()` ≥ `len` bytes unless `len` is [`HUGE_AAD`].
pub unsafe fn real_setiv(
    s: &Slot,
    p: *const c_void,
    len: usize,
    ours_rc: u32,
) -> (u32, &'static str) {
    if !s.st.keyed && len == 12 {
        // libgcrypt would encrypt J0 with no key schedule; refused without a key anyway.
        documented(
            "setiv of 12 bytes before a key",
            ours_rc,
            USER_1 | INV_STATE,
        );
        let thirteen = [0u8; 13];
        // SAFETY: 13 readable bytes; libgcrypt refuses them without reading (no key).
        let r = unsafe { (real().setiv)(s.real, thirteen.as_ptr().cast(), 13) };
        documented("libgcrypt's setiv(13) before a key", r, USER_1 | INV_STATE);
        return (r, "(12 bytes before a key)");
    }
    if null_refused(p.is_null(), len, ours_rc) && len != HUGE_AAD {
        documented("setiv(NULL)", ours_rc, USER_1 | INV_ARG);
        // SAFETY: length 0: libgcrypt ends the message and reads nothing.
        let r = unsafe { (real().setiv)(s.real, [0u8; 1].as_ptr().cast(), 0) };
        documented("libgcrypt's setiv(…, 0)", r, USER_1 | INV_LENGTH);
        return (r, "(NULL IV)");
    }
    // SAFETY: the caller's contract; a huge length is refused before reading.
    let r = unsafe { (real().setiv)(s.real, p, len) };
    same("setiv", ours_rc, r);
    (r, "")
}

/// encrypt/decrypt: `op.len` bytes (or [`HUGE_DATA`]) out of place, in place with
/// `in == NULL` (over `outsize` bytes) or with `in == out`, into `outsize` bytes.
pub fn crypt(s: &mut Slot, op: &Op) {
    let enc = op.kind == Kind::Encrypt;
    let input = filled(op.seed as u64, op.len);
    let out_len = match op.out_size {
        0 => op.len,
        1 => op.len + 1,
        2 => op.len + 17,
        3 => op.len.saturating_sub(1),
        _ => 0,
    };
    let inlen = if op.huge { HUGE_DATA } else { op.len };
    // A huge decrypt claims a huge output too (refused before a byte is written); a
    // failed encrypt fills `outsize` bytes with 0x42, so its outsize stays the buffer's.
    let outsize = if op.huge && !enc { HUGE_DATA } else { out_len };
    let mut init = input.clone();
    init.resize(out_len, 0xc3);
    // libgcrypt's in place: `in == NULL` (also when `out` is NULL with `in == out`).
    let effective = if op.place == 1 || (op.place == 2 && op.null) {
        outsize
    } else {
        inlen
    };
    // Whether the length libgcrypt works on is the huge one (in place it is `outsize`).
    let huge = effective >= HUGE_DATA;
    let side = |api: &Api, h: Hd| {
        let (out, po) = buffer(&init, op.off_out, op.null);
        let src = (op.place == 0).then(|| Guarded::new(&input, op.off_in));
        let pi: *const c_void = match (op.place, &src) {
            (0, Some(g)) => g.ptr().cast(),
            (1, _) => null(),
            _ => po,
        };
        let f = if enc { api.encrypt } else { api.decrypt };
        // SAFETY: `out` NULL or writable for `out_len` bytes (outsize beyond it only when
        // libgcrypt refuses the length unread); `in` readable for `op.len` bytes or NULL.
        let rc = unsafe { f(h, po, outsize, pi, inlen) };
        out.check("output");
        if let Some(g) = &src {
            g.check("input");
            assert!(g.bytes() == input, "the input was modified");
        }
        let bytes = out.bytes().to_vec();
        (rc, bytes)
    };
    let (a, out_a) = side(&OURS, s.ours);
    let b = if s.served && null_refused(op.null, effective, a) && !huge {
        documented("encrypt/decrypt(out NULL)", a, GCRYPT | INV_ARG);
        let mut one = [0u8; 1];
        let f = if enc { real().encrypt } else { real().decrypt };
        // SAFETY: no bytes: every check, the implicit IV and the end of the AAD.
        let b = unsafe { f(s.real, one.as_mut_ptr().cast(), 0, one.as_ptr().cast(), 0) };
        documented("libgcrypt's encrypt/decrypt of 0 bytes", b, 0);
        s.st.data(0, false, b);
        b
    } else {
        let (b, out_b) = side(real(), s.real);
        same(if enc { "encrypt" } else { "decrypt" }, a, b);
        if b != 0 || !s.st.tainted {
            assert_eq!(hex(&out_a), hex(&out_b), "output bytes (rc {b:#x})");
        }
        s.st.data(effective, huge, b);
        b
    };
    trace(op, a, Some(b), if s.st.tainted { "(tainted)" } else { "" });
}

/// checktag of `op.len` bytes: the right tag (libgcrypt's, taken with a gettag first,
/// which changes nothing checktag would not), one bit flipped, or other bytes.
pub fn checktag(s: &mut Slot, op: &Op) {
    let mut tag = filled(op.seed as u64, op.len);
    // Only where checktag's length check passes, which a gettag would skip.
    if op.tag_kind < 2 && matches!(op.len, 4 | 8 | 12..) {
        let mut full = [0u8; 16];
        // SAFETY: 16 writable bytes.
        if unsafe { (real().gettag)(s.real, full.as_mut_ptr().cast(), 16) } == 0 {
            s.st.tag(0);
            let n = op.len.min(16);
            tag[..n].copy_from_slice(&full[..n]);
        }
        if op.tag_kind == 1 {
            let bit = op.bit as usize % (8 * op.len);
            tag[bit / 8] ^= 1 << (bit % 8);
        }
    }
    let (go, po) = buffer(&tag, op.off_in, op.null);
    let (gr, pr) = buffer(&tag, op.off_in, op.null);
    // SAFETY: NULL or `len` readable bytes.
    let a = unsafe { (OURS.checktag)(s.ours, po, op.len) };
    let verdict = |rc: u32| rc == 0 || rc == GCRYPT | CHECKSUM;
    let b = if null_refused(op.null, op.len, a) {
        documented("checktag(NULL)", a, GCRYPT | INV_ARG);
        // SAFETY: 16 readable bytes for a tag of at most 16 (a longer one is not read).
        let b = unsafe { (real().checktag)(s.real, [0u8; 16].as_ptr().cast(), op.len) };
        assert!(verdict(b), "libgcrypt's checktag: {b:#x}");
        b
    } else {
        // SAFETY: as above.
        let b = unsafe { (real().checktag)(s.real, pr, op.len) };
        if !(s.st.tainted && verdict(a) && verdict(b)) {
            same("checktag", a, b);
        }
        b
    };
    trace(op, a, Some(b), if s.st.tainted { "(tainted)" } else { "" });
    s.st.tag(b);
    go.check("checktag tag (interposer)");
    gr.check("checktag tag (libgcrypt)");
}

pub fn ctl(s: &mut Slot, op: &Op) {
    let init = filled(op.seed as u64, op.len);
    let (bo, po) = buffer(&init, op.off_out, op.null);
    let (br, pr) = buffer(&init, op.off_out, op.null);
    // SAFETY: NULL or `len` writable bytes.
    let a = unsafe { (OURS.ctl)(s.ours, op.cmd, po, op.len) };
    let get_iv = op.cmd == 62 && op.len >= 17;
    let b = if get_iv && null_refused(op.null, op.len, a) {
        documented("ctl(GET_INPUT_VECTOR, NULL)", a, GCRYPT | INV_ARG);
        let mut buf = [0u8; 17];
        // SAFETY: 17 writable bytes, all it writes.
        let b = unsafe { (real().ctl)(s.real, 62, buf.as_mut_ptr().cast(), 17) };
        documented("libgcrypt's ctl(GET_INPUT_VECTOR)", b, 0);
        b
    } else {
        // SAFETY: as above; the other commands do not touch a NULL buffer.
        let b = unsafe { (real().ctl)(s.real, op.cmd, pr, op.len) };
        same("ctl", a, b);
        assert_eq!(hex(bo.bytes()), hex(br.bytes()), "ctl buffer");
        b
    };
    trace(op, a, Some(b), "");
    if op.cmd == 4 && b == 0 {
        s.st.reset();
    }
    bo.check("ctl buffer (interposer)");
    br.check("ctl buffer (libgcrypt)");
}

pub fn setup_geniv(s: &mut Slot, op: &Op) {
    let fixed = filled(op.seed as u64, op.len);
    let dynamic = filled(!(op.seed as u64), op.len2);
    let (fo, pf) = buffer(&fixed, op.off_in, op.null);
    let (d, pd) = buffer(&dynamic, op.off_out, op.null2);
    // SAFETY: NULL or readable for their lengths.
    let a = unsafe { (OURS.setup_geniv.unwrap())(s.ours, op.method, pf, op.len, pd, op.len2) };
    fo.check("fixed IV");
    d.check("dynamic IV");
    let real_fn = real().setup_geniv;
    let b = if s.served {
        let bad = op.method != 1
            || op.len + op.len2 > 16
            || (op.null && op.len > 0)
            || (op.null2 && op.len2 > 0);
        documented("setup_geniv", a, if bad { USER_1 | INV_ARG } else { 0 });
        if !bad {
            s.geniv = Some(GenivModel {
                fixed,
                counter: dynamic,
            });
        }
        real_fn
            .filter(|_| !bad) // (1.11 would read through a NULL too)
            // SAFETY: readable for their lengths.
            .map(|f| unsafe { f(s.real, op.method, pf, op.len, pd, op.len2) })
    } else {
        // SAFETY: as above (no NULLs on forwarded handles).
        real_fn.map(|f| unsafe { f(s.real, op.method, pf, op.len, pd, op.len2) })
    };
    trace(op, a, b, "");
    match b {
        Some(b) => same("setup_geniv", a, b),
        None if !s.served => documented("setup_geniv before 1.11", a, USER_1 | NOT_IMPLEMENTED),
        None => {}
    }
}

pub fn geniv(s: &mut Slot, op: &Op) {
    let (io, pi) = buffer(&vec![0x77; op.len], op.off_out, op.null);
    // SAFETY: NULL or `len` writable bytes.
    let a = unsafe { (OURS.geniv.unwrap())(s.ours, pi, op.len) };
    io.check("geniv IV");
    if !s.served {
        let b = real().geniv.map(|f| {
            let (_ir, pr) = buffer(&vec![0x77; op.len], op.off_out, op.null);
            // SAFETY: `len` writable bytes (no NULLs on forwarded handles).
            unsafe { f(s.real, pr, op.len) }
        });
        trace(op, a, b, "");
        return match b {
            Some(b) => same("geniv", a, b),
            None => documented("geniv before 1.11", a, USER_1 | NOT_IMPLEMENTED),
        };
    }
    let fits = s.geniv.as_ref().is_some_and(|g| g.len() == op.len);
    if !fits || (op.null && op.len > 0) {
        trace(op, a, None, "(refused: nothing set)");
        return documented("geniv without its setup", a, USER_1 | INV_ARG);
    }
    let iv = s.geniv.as_mut().unwrap().next_iv();
    assert_eq!(hex(io.bytes()), hex(&iv), "geniv's IV");
    // The real side: the setiv 1.11's geniv does.
    let ir = Guarded::new(&iv, op.off_in);
    // SAFETY: `iv.len()` readable bytes.
    let (b, note) = unsafe { real_setiv(s, ir.ptr().cast(), iv.len(), a) };
    trace(op, a, Some(b), note);
    s.st.setiv(iv.len(), false, b);
}
