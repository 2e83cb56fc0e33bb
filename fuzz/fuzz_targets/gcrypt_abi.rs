//! The libgcrypt interposer's argument handling, differentially: a fuzzer-chosen program of
//! `gcry_cipher_*` calls (`gcrypt_program`) on up to two handle pairs, each call made once
//! on the interposer (`stitchgcm-gcrypt`, linked in) and once on the system's libgcrypt
//! (`gcrypt::real`), with equal, separately guarded buffers. Return codes, every output
//! byte (ciphertext, the 0x42 fill of a failed encrypt, tags, `ctl`/`info` results) and the
//! handles' magic words must agree. Handles: AES, AES192 and AES256 in GCM (served by the
//! interposer, with or without GCRY_CIPHER_SECURE) and AES-CBC and Camellia-GCM, which it
//! must forward untouched.
//!
//! The interposer's documented differences (docs/libgcrypt.md, "Deliberate differences") are the only
//! exceptions, and each is checked for its documented answer instead:
//! - where libgcrypt crashes — a 12-byte setiv before any key, a NULL buffer with a
//!   length — the interposer must answer INV_STATE or INV_ARG; the real side gets instead
//!   the call that leaves its handle in the same state (a setiv of 13 bytes, which
//!   libgcrypt refuses without a key; the same call with that length 0) and that call's
//!   documented answer is asserted. On forwarded handles (libgcrypt on both sides) such
//!   calls are not made;
//! - a message started while bytes of the last one wait in libgcrypt's GHASH buffer gets a
//!   non-GCM tag from libgcrypt (`gcrypt_state`): its codes are compared, its bytes not;
//! - `setup_geniv`/`geniv` (libgcrypt 1.11): on served handles checked against a model of
//!   1.11's rule, the real side doing the setiv of the generated IV (Debian 12's 1.10 has
//!   neither); on forwarded handles before 1.11, NOT_IMPLEMENTED.
//!
//! `STITCHGCM_FUZZ_TRACE=1` prints every call with both answers.
#![no_main]

use core::ptr::null_mut;
use stitchgcm_fuzz::gcrypt::err::*;
use stitchgcm_fuzz::gcrypt::{magic, real, Hd, MAGIC_NORMAL, MAGIC_OURS, MAGIC_SECURE, OURS};
use stitchgcm_fuzz::gcrypt_calls::*;
use stitchgcm_fuzz::gcrypt_program::*;
use stitchgcm_fuzz::gcrypt_state::GcmState;
use stitchgcm_fuzz::input::Visit;
use stitchgcm_fuzz::{filled, hex, tracing, Seeds};

struct Machine {
    slots: [Option<Slot>; 2],
}

impl Machine {
    fn close(&mut self, slot: usize) {
        if let Some(s) = self.slots[slot].take() {
            // SAFETY: open handles, closed once.
            unsafe {
                (OURS.close)(s.ours);
                (real().close)(s.real);
            }
        }
    }

    fn open(&mut self, op: &Op) {
        self.close(op.slot);
        let (algo, mode) = CIPHERS[op.cipher];
        let flags = op.secure as u32;
        let (mut ours, mut theirs): (Hd, Hd) = (null_mut(), null_mut());
        // SAFETY: writable handle pointers.
        let (a, b) = unsafe {
            (
                (OURS.open)(&mut ours, algo, mode, flags),
                (real().open)(&mut theirs, algo, mode, flags),
            )
        };
        trace(op, a, Some(b), "");
        same("open", a, b);
        if a != 0 {
            assert!(
                ours.is_null() && theirs.is_null(),
                "failed open left a handle"
            );
            return;
        }
        let served = op.cipher < 3;
        let libgcrypt = if op.secure {
            MAGIC_SECURE
        } else {
            MAGIC_NORMAL
        };
        // SAFETY: both handles just opened.
        let (m_ours, m_real) = unsafe { (magic(ours), magic(theirs)) };
        assert_eq!(m_real, libgcrypt, "libgcrypt's magic");
        let want = if served { MAGIC_OURS } else { libgcrypt };
        assert_eq!(m_ours, want, "the interposer's handle for {algo}/{mode}");
        self.slots[op.slot] = Some(Slot {
            ours,
            real: theirs,
            served,
            st: GcmState::default(),
            geniv: None,
        });
    }

    fn run(&mut self, op: &Op) {
        let Some(s) = self.slots[op.slot].as_mut() else {
            return;
        };
        // On forwarded handles libgcrypt answers both sides: no call it would crash on.
        let risky_null = match op.kind {
            Kind::Info => false,
            Kind::Ctl => op.null && op.cmd == 62 && op.len >= 17,
            Kind::SetupGeniv => op.null || op.null2,
            _ => op.null,
        };
        if !s.served && (risky_null || op.huge) {
            return;
        }
        let seed = op.seed as u64;
        match op.kind {
            Kind::Open | Kind::Close => unreachable!(),
            Kind::SetKey => {
                let key = filled(seed, op.len);
                let (ko, po) = buffer(&key, op.off_in, op.null);
                let (kr, pr) = buffer(&key, op.off_in, op.null);
                // SAFETY: NULL or `len` readable bytes.
                let a = unsafe { (OURS.setkey)(s.ours, po, op.len) };
                let b = if null_refused(op.null, op.len, a) && matches!(op.len, 16 | 24 | 32) {
                    documented("setkey(NULL)", a, USER_1 | INV_ARG);
                    None // libgcrypt would read the key; the handle is unchanged on both sides
                } else {
                    // SAFETY: as above (libgcrypt checks the length before reading).
                    Some(unsafe { (real().setkey)(s.real, pr, op.len) })
                };
                trace(op, a, b, "");
                if let Some(b) = b {
                    same("setkey", a, b);
                    s.st.setkey(b);
                }
                ko.check("setkey key (interposer)");
                kr.check("setkey key (libgcrypt)");
            }
            Kind::SetIv => {
                if !s.served && !s.st.keyed && op.len == 12 {
                    return; // libgcrypt's crash, on both sides
                }
                let iv = filled(seed, op.len);
                let len = if op.huge { HUGE_AAD } else { op.len };
                let (io, po) = buffer(&iv, op.off_in, op.null);
                let (ir, pr) = buffer(&iv, op.off_in, op.null);
                // SAFETY: NULL or `len` readable bytes, or a length refused unread.
                let a = unsafe { (OURS.setiv)(s.ours, po, len) };
                let (b, note) = if s.served {
                    // SAFETY: as above.
                    unsafe { real_setiv(s, pr, len, a) }
                } else {
                    // SAFETY: as above.
                    let b = unsafe { (real().setiv)(s.real, pr, len) };
                    same("setiv", a, b);
                    (b, "")
                };
                trace(op, a, Some(b), note);
                s.st.setiv(len, op.huge, b);
                io.check("setiv IV (interposer)");
                ir.check("setiv IV (libgcrypt)");
            }
            Kind::Authenticate => {
                let aad = filled(seed, op.len);
                let len = if op.huge { HUGE_AAD } else { op.len };
                let (go, po) = buffer(&aad, op.off_in, op.null);
                let (gr, pr) = buffer(&aad, op.off_in, op.null);
                // SAFETY: NULL or `len` readable bytes, or a length refused unread.
                let a = unsafe { (OURS.authenticate)(s.ours, po, len) };
                let b = if null_refused(op.null, len, a) && !op.huge {
                    documented("authenticate(NULL)", a, GCRYPT | INV_ARG);
                    // SAFETY: length 0: every check, the implicit IV, nothing read.
                    let b = unsafe { (real().authenticate)(s.real, pr.cast_const(), 0) };
                    documented("libgcrypt's authenticate(…, 0)", b, 0);
                    s.st.aad(0, false, b);
                    b
                } else {
                    // SAFETY: as above.
                    let b = unsafe { (real().authenticate)(s.real, pr, len) };
                    same("authenticate", a, b);
                    s.st.aad(len, op.huge, b);
                    b
                };
                trace(op, a, Some(b), "");
                go.check("AAD (interposer)");
                gr.check("AAD (libgcrypt)");
            }
            Kind::Encrypt | Kind::Decrypt => crypt(s, op),
            Kind::GetTag => {
                let n = op.len.min(16);
                let (to, po) = buffer(&vec![0x6b; n], op.off_out, op.null);
                let (tr, pr) = buffer(&vec![0x6b; n], op.off_out, op.null);
                // SAFETY: NULL or min(len, 16) writable bytes.
                let a = unsafe { (OURS.gettag)(s.ours, po, op.len) };
                let b = if null_refused(op.null, op.len, a) {
                    documented("gettag(NULL)", a, GCRYPT | INV_ARG);
                    let mut tag = [0u8; 16];
                    // SAFETY: 16 writable bytes, all gettag writes.
                    let b = unsafe { (real().gettag)(s.real, tag.as_mut_ptr().cast(), op.len) };
                    documented("libgcrypt's gettag", b, 0);
                    b
                } else {
                    // SAFETY: as above.
                    let b = unsafe { (real().gettag)(s.real, pr, op.len) };
                    same("gettag", a, b);
                    if !s.st.tainted {
                        assert_eq!(hex(to.bytes()), hex(tr.bytes()), "gettag bytes");
                    }
                    b
                };
                trace(op, a, Some(b), if s.st.tainted { "(tainted)" } else { "" });
                s.st.tag(b);
                to.check("tag (interposer)");
                tr.check("tag (libgcrypt)");
            }
            Kind::CheckTag => checktag(s, op),
            Kind::Ctl => ctl(s, op),
            Kind::Info => {
                let (bo, po) = buffer(&[0x33; 8], op.off_out, op.null);
                let (br, pr) = buffer(&[0x33; 8], op.off_out, op.null);
                let (mut no, mut nr) = (0x5a5a_usize, 0x5a5a_usize);
                let pick = |n: &mut usize| {
                    if op.null2 {
                        null_mut()
                    } else {
                        n as *mut usize
                    }
                };
                let (pno, pnr) = (pick(&mut no), pick(&mut nr));
                // SAFETY: NULL or 8 writable bytes; NULL or a writable size_t.
                let (a, b) = unsafe {
                    (
                        (OURS.info)(s.ours, op.cmd, po, pno),
                        (real().info)(s.real, op.cmd, pr, pnr),
                    )
                };
                trace(op, a, Some(b), "");
                same("info", a, b);
                assert_eq!((no, bo.bytes()), (nr, br.bytes()), "info results");
                bo.check("info buffer (interposer)");
                br.check("info buffer (libgcrypt)");
            }
            Kind::SetupGeniv => setup_geniv(s, op),
            Kind::Geniv => geniv(s, op),
        }
    }
}

fn run(data: &[u8]) {
    real(); // libgcrypt loaded before the interposer first looks for it
    let program = Program::decode(data);
    let mut m = Machine {
        slots: [None, None],
    };
    for op in &program.0 {
        if tracing() {
            eprintln!("{op:?}");
        }
        match op.kind {
            Kind::Open => m.open(op),
            Kind::Close => m.close(op.slot),
            _ => m.run(op),
        }
    }
    m.close(0);
    m.close(1);
}

/// Lifecycles for every cipher and the secure flag, then programs for each exception,
/// limit and quirk, in `gcrypt_program::parse`'s text form.
fn seeds() -> Seeds {
    let mut progs: Vec<(String, String)> = Vec::new();
    for (cipher, key) in [(0, 16), (1, 24), (2, 32), (3, 16), (4, 16)] {
        for (secure, iv) in [(0, 12), (1, 1), (0, 60)] {
            progs.push((
                format!("life-c{cipher}-s{secure}-k{key}-iv{iv}"),
                format!(
                    "open cipher={cipher} secure={secure}; setkey len={key}; setiv len={iv}; \
                     auth len=5; auth len=27; encrypt len=15; encrypt len=300 place=1 offout=3; \
                     gettag len=16; setiv len={iv}; auth len=32; decrypt len=64 place=2; \
                     decrypt len=3; checktag len=12; checktag tagkind=1 bit=9; close"
                ),
            ));
        }
    }
    let ready = "open; setkey; setiv;";
    let cases: [(&str, String); 24] = [
        (
            "any-key-length",
            "open cipher=2; setkey len=16; setiv; encrypt; gettag".into(),
        ),
        (
            "bad-key-then-data",
            format!("{ready} auth; setkey len=17; auth; encrypt; gettag"),
        ),
        (
            "setkey-null",
            "open; setkey null; setkey null len=17; setkey; setiv".into(),
        ),
        (
            "setiv-before-key",
            "open; setiv; setiv len=13; setiv len=0; setkey; encrypt".into(),
        ),
        (
            "setiv-null",
            "open; setkey; setiv null; setiv null len=0; auth; gettag".into(),
        ),
        (
            "setiv-huge",
            "open; setkey; setiv huge; auth; encrypt; gettag; setiv; gettag".into(),
        ),
        (
            "implicit-iv",
            "open; setkey; auth len=7; encrypt len=20; gettag".into(),
        ),
        (
            "no-key-data",
            "open; encrypt; decrypt place=1; auth; gettag; setkey; encrypt".into(),
        ),
        (
            "aad-huge",
            format!("{ready} auth huge; auth; encrypt; gettag"),
        ),
        (
            "data-huge",
            format!("{ready} decrypt huge; decrypt; encrypt huge; gettag"),
        ),
        (
            "aad-null",
            format!("{ready} auth null; auth null len=0; encrypt"),
        ),
        (
            "out-null",
            format!("{ready} encrypt null; decrypt null place=1 out=2; gettag"),
        ),
        (
            "out-short",
            format!("{ready} encrypt out=3; encrypt out=4; decrypt out=2"),
        ),
        (
            "in-null-empty",
            format!("{ready} encrypt place=1 out=4; auth; gettag"),
        ),
        (
            "tag-lengths",
            format!("{ready} gettag len=5; gettag len=0; gettag len=64; gettag len=8"),
        ),
        (
            "tag-null",
            format!("{ready} gettag null; checktag null; checktag null len=17"),
        ),
        (
            "checktag-lengths",
            format!("{ready} checktag len=3; checktag len=20; checktag len=13"),
        ),
        (
            "stale-ghash",
            format!("{ready} auth len=5; setiv; auth len=3; gettag; setiv; gettag"),
        ),
        (
            "stale-then-long-iv",
            format!("{ready} encrypt len=7; setiv len=20; encrypt; gettag"),
        ),
        (
            "tag-without-iv",
            format!("{ready} encrypt; setiv len=0; gettag; setiv; gettag"),
        ),
        (
            "ctl",
            format!(
                "{ready} encrypt len=5; ctl cmd=62 len=17; ctl cmd=62 len=16; ctl cmd=62 null \
                 len=17; ctl cmd=5; ctl cmd=5 len=4; ctl cmd=75 len=4; ctl cmd=75 null len=4; \
                 ctl cmd=3; ctl cmd=0; ctl cmd=1000; ctl cmd=4; encrypt; gettag"
            ),
        ),
        (
            "info",
            "open; info; info null=0; info null2=1; info cmd=77 null=0; info cmd=0; \
             open slot=1 cipher=3; info slot=1; info slot=1 null=0"
                .into(),
        ),
        (
            "geniv",
            "open; setkey; geniv; setup_geniv len=4 len2=8; geniv; encrypt; gettag; geniv; \
             geniv len=11; setup_geniv method=2; setup_geniv len=9 len2=9; setup_geniv null \
             len=4; setup_geniv len=0 len2=1; geniv len=1; geniv null len=1"
                .into(),
        ),
        (
            "two-handles-rekey",
            "open; open slot=1 cipher=4; setkey; setkey slot=1; setiv; setiv slot=1; auth; \
             setkey len=32; encrypt; decrypt slot=1; geniv slot=1; close slot=1; gettag"
                .into(),
        ),
    ];
    progs.extend(cases.into_iter().map(|(n, p)| (n.to_string(), p)));
    progs
        .into_iter()
        .map(|(name, text)| (name, parse(&text).encode()))
        .collect()
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
