//! The OpenSSL provider's entry points (`provider/*.c`), differentially: a fuzzer-chosen
//! program of dispatch calls on up to two contexts — newctx, encrypt/decrypt init with
//! keys and IVs of any length (or none), set and get of every context parameter (ivlen,
//! keylen, tag, taglen, iv, updated-iv, tlsaad, tlsaadpad, tlsivfixed, tlsivgen,
//! tlsivinv), updates of any size in place or not, with short outputs or no input, final
//! and EVP_Cipher's one call, TLS 1.2 records (whole, tampered, too short, not in place),
//! dupctx mid-message and both copies going on, re-init, freectx.
//!
//! Each call's answer is checked against a model of the provider's documented rules
//! (docs/openssl-provider.md): success or failure, and that a failure put an error on the
//! queue (through the fake core's new_error) except a decrypting final that does not
//! verify, which fails quietly as OpenSSL's own GCM does; that a success queued nothing.
//! Every message's bytes are checked against the reference (RustCrypto `aes-gcm`, or the
//! library's Rust API on the `soft` backend for IV lengths `aes-gcm` is not built for):
//! ciphertext, plaintext, tag, the verdict of a decrypting final and of a TLS record, and
//! that a record which does not verify leaves its ciphertext in place (no plaintext
//! released). Every buffer is guarded (`guard.rs`).
//!
//! Harness: `OSSL_provider_init` is called directly with a fake core (error functions
//! only), and the C files are compiled into this target by `build.rs` with ASan and
//! coverage. Not through libcrypto's EVP with the module loaded: the system's libcrypto is
//! not instrumented (its EVP layer would be invisible to the sanitizer and the fuzzer), and
//! EVP filters arguments (key lengths, NULLs, output sizes) before the provider sees them —
//! the provider's own checks are what is under test. libcrypto is still linked, for the
//! OSSL_PARAM helpers the provider calls.
#![no_main]

use core::ptr::{null, null_mut};
use stitchgcm_fuzz::guard::Guarded;
use stitchgcm_fuzz::input::Visit;
use stitchgcm_fuzz::provider::*;
use stitchgcm_fuzz::provider_model::*;
use stitchgcm_fuzz::provider_params::*;
use stitchgcm_fuzz::provider_program::*;
use stitchgcm_fuzz::{filled, hex, tracing, Seeds, TAG_LENS};

struct Machine {
    slots: [Option<Ctx>; 2],
}

impl Machine {
    fn free(&mut self, slot: usize) {
        if let Some(x) = self.slots[slot].take() {
            // SAFETY: a live context, freed once.
            unsafe { x.cipher().f::<FreeCtx>(FREECTX)(x.p) };
            take_errors();
        }
    }

    fn run(&mut self, op: &Op) {
        if tracing() {
            eprintln!("{op:?}");
        }
        let slot = op.slot;
        match op.kind {
            NEW => {
                self.free(slot);
                let c = op.sel % 3;
                // SAFETY: the provider's context.
                let p = unsafe { ciphers()[c].f::<NewCtx>(NEWCTX)(ciphers()[c].provctx) };
                answer("newctx", !p.is_null() as i32, true, false);
                self.slots[slot] = Some(Ctx::new(p, c));
            }
            FREE => self.free(slot),
            DUP => {
                let Some(x) = self.slots[slot].as_ref() else {
                    return;
                };
                // SAFETY: a live context.
                let p = unsafe { x.cipher().f::<DupCtx>(DUPCTX)(x.p) };
                answer("dupctx", !p.is_null() as i32, true, false);
                let mut y = x.clone();
                y.p = p;
                self.free(1 - slot);
                self.slots[1 - slot] = Some(y);
            }
            _ => {
                let Some(mut x) = self.slots[slot].take() else {
                    return;
                };
                match op.kind {
                    INIT => init(&mut x, op),
                    SET => set(&mut x, op),
                    GET => get(&mut x, op),
                    UPDATE_OP | CIPHER_OP if x.tls_aad.is_some() => record(&mut x, op),
                    UPDATE_OP | CIPHER_OP => update(&mut x, op),
                    FINAL_OP => final_(&mut x, op),
                    RECORD => {
                        if x.tls_aad.is_none() {
                            set_tls_aad(&mut x, op, true);
                        }
                        if x.tls_aad.is_some() {
                            record(&mut x, op);
                        }
                    }
                    _ => unreachable!(),
                }
                self.slots[slot] = Some(x);
            }
        }
    }
}

fn update(x: &mut Ctx, op: &Op) {
    let aad = op.bit(0);
    let in_place = op.bit(1) && !aad;
    let short = op.bit(2);
    let no_input = op.bit(3);
    let len = op.a;
    let data = filled(op.seed as u64 + 9, len);
    let outsize = if short && len > 0 { len - 1 } else { len };
    let mut out = (!aad).then(|| Guarded::filled(outsize.max(len), 0x77, op.flags as usize));
    let src = (!in_place).then(|| Guarded::new(&data, op.seed as usize));
    if in_place {
        out.as_mut().unwrap().bytes_mut()[..len].copy_from_slice(&data);
    }
    let outp = out.as_mut().map_or(null_mut(), |g| g.mut_ptr());
    let inp = if no_input {
        null()
    } else if in_place {
        outp.cast_const()
    } else {
        src.as_ref().unwrap().ptr()
    };
    let mut outl = 0x5a5a_usize;
    let via_cipher = op.kind == CIPHER_OP;
    // SAFETY: a live context; NULL or `len` readable input, NULL or `outsize` writable output.
    let ok = unsafe {
        if via_cipher {
            x.cipher().f::<Update>(CIPHER)(x.p, outp, &mut outl, outsize, inp, len)
        } else {
            x.cipher().f::<Update>(UPDATE)(x.p, outp, &mut outl, outsize, inp, len)
        }
    };
    if via_cipher && no_input {
        // EVP_Cipher without input is the final step
        return finish_final(x, ok, outl, "cipher(NULL)");
    }
    // the model (gcm_update)
    let want = if len == 0 {
        true
    } else if no_input || (!aad && outsize < len) {
        false
    } else {
        let (can, random) = x.can_start();
        if can && x.iv_state != Iv::Started {
            x.start();
            if random {
                learn_iv(x);
                x.msg_iv = x.iv[..x.ivlen].to_vec();
            }
        }
        can && !(aad && x.data)
    };
    answer("update", ok, want, false);
    if want {
        assert_eq!(outl, len, "update outl");
        if len > 0 {
            if aad {
                x.aad.extend_from_slice(&data);
            } else {
                x.data = true;
                let o = &out.as_ref().unwrap().bytes()[..len];
                x.ct.extend_from_slice(if x.enc { o } else { &data });
                x.inp.extend_from_slice(&data);
                x.out.extend_from_slice(o);
            }
        }
    } else {
        assert_eq!(outl, 0, "a failed update's outl");
    }
    if let Some(o) = &out {
        o.check("update output");
    }
    if let Some(s) = &src {
        s.check("update input");
        assert_eq!(s.bytes(), &data[..], "update changed its input");
    }
}

fn final_(x: &mut Ctx, op: &Op) {
    if !x.enc && op.bit(0) && x.key.is_some() && x.iv_state == Iv::Started {
        // the right tag (maybe truncated, maybe with one bit flipped), set just before
        let n = TAG_LENS[op.b % TAG_LENS.len()];
        let (_, full) = expected(x);
        let mut t = full[..n].to_vec();
        if op.bit(1) {
            t[op.a % n] ^= 1 << (op.seed % 8);
        }
        let p = [
            OSSL_PARAM::new(c"tag", OCTET_STRING, t.as_mut_ptr().cast(), n),
            OSSL_PARAM::end(),
        ];
        answer("set tag (right)", set_params(x, &p), true, false);
        x.tag[..n].copy_from_slice(&t);
        x.taglen = Some(n);
    }
    let mut outl = 0x5a5a_usize;
    let mut out = [0u8; 16];
    // SAFETY: a live context, 16 writable bytes.
    let ok = unsafe { x.cipher().f::<Final>(FINAL)(x.p, out.as_mut_ptr(), &mut outl, 16) };
    finish_final(x, ok, outl, "final");
}

fn finish_final(x: &mut Ctx, ok: i32, outl: usize, what: &str) {
    assert_eq!(outl, 0, "{what}: outl");
    if x.tls_aad.is_some() {
        return answer(what, ok, false, false);
    }
    if !x.enc && x.taglen.is_none() {
        return answer(what, ok, false, true);
    }
    let (can, random) = x.can_start();
    if !can {
        return answer(what, ok, false, false);
    }
    if x.iv_state != Iv::Started {
        x.start();
    }
    if x.enc {
        if random {
            // the IV was drawn by this final: the model reads it, then checks the tag
            answer(what, ok, true, false);
            learn_iv(x);
            x.msg_iv = x.iv[..x.ivlen].to_vec();
        } else {
            answer(what, ok, true, false);
        }
        let (out, tag) = expected(x);
        assert_eq!(hex(&x.out), hex(&out), "ciphertext");
        x.tag = tag;
        x.taglen = Some(16);
        // the tag, as EVP reads it
        let mut t = [0u8; 16];
        let mut p = [
            OSSL_PARAM::new(c"tag", OCTET_STRING, t.as_mut_ptr().cast(), 16),
            OSSL_PARAM::end(),
        ];
        // SAFETY: a live context, 16 writable bytes.
        let g = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
        answer("get tag after final", g, true, false);
        assert_eq!(hex(&t), hex(&tag), "tag");
    } else {
        let (out, tag) = expected(x);
        assert_eq!(hex(&x.out), hex(&out), "plaintext");
        let n = x.taglen.unwrap();
        let verifies = x.tag[..n] == tag[..n];
        answer(what, ok, verifies, true);
    }
    x.iv_state = Iv::Finished;
}

fn record(x: &mut Ctx, op: &Op) {
    let aad = x.tls_aad.expect("tlsaad set");
    let plen = op.a % 1500;
    let short = op.bit(4);
    let total = if short { op.b % 24 } else { plen + 24 };
    let not_in_place = op.bit(5);
    let tamper = op.bit(6);
    let mut rec = filled(op.seed as u64 + 11, total);
    let mut expect_plain = None;
    let fixed_ok = x.iv_gen && x.ivlen >= 8;
    match &x.key {
        Some(key) if !x.enc && !short && fixed_ok => {
            // a record sealed by the peer under the receiver's fixed IV part
            let l = x.ivlen;
            let mut nonce = x.iv[..l - 8].to_vec();
            nonce.extend_from_slice(&rec[..8]);
            let pt = rec[8..8 + plen].to_vec();
            let (ct, tag) = reference(key, &nonce, &aad, &pt);
            rec[8..8 + plen].copy_from_slice(&ct);
            rec[8 + plen..].copy_from_slice(&tag);
            if tamper {
                let i = op.b % (total * 8);
                rec[i / 8] ^= 1 << (i % 8);
            }
            expect_plain = Some((pt, !tamper));
        }
        _ => {}
    }
    let sent = rec.clone();
    let mut g = Guarded::new(&rec, op.flags as usize);
    let other = not_in_place.then(|| Guarded::filled(total, 0x33, op.seed as usize));
    let inp = g.ptr();
    let outp = match &other {
        Some(o) => o.ptr() as *mut u8,
        None => g.mut_ptr(),
    };
    let mut outl = 0x5a5a_usize;
    // SAFETY: a live context; `total` readable and writable bytes.
    let ok = unsafe { x.cipher().f::<Update>(UPDATE)(x.p, outp, &mut outl, total, inp, total) };
    // the model (tls_record): every outcome ends the message and consumes the AAD
    let pre = x.key.is_some() && !not_in_place && total >= 24 && fixed_ok;
    x.tls_aad = None;
    x.iv_state = Iv::Finished;
    if x.enc {
        answer("TLS seal", ok, pre, false);
        if pre {
            let l = x.ivlen;
            let nonce = x.iv[..l].to_vec();
            increment(&mut x.iv[..l]);
            let (ct, tag) = reference(x.key.as_ref().unwrap(), &nonce, &aad, &sent[8..8 + plen]);
            let got = g.bytes();
            assert_eq!(outl, total, "TLS seal outl");
            assert_eq!(hex(&got[..8]), hex(&nonce[l - 8..]), "explicit IV");
            assert_eq!(hex(&got[8..8 + plen]), hex(&ct), "TLS ciphertext");
            assert_eq!(hex(&got[8 + plen..]), hex(&tag), "TLS tag");
        }
    } else {
        match (&expect_plain, pre) {
            (Some((pt, verifies)), true) => {
                answer("TLS open", ok, *verifies, false);
                let got = g.bytes();
                if *verifies {
                    assert_eq!(outl, plen, "TLS open outl");
                    assert_eq!(hex(&got[8..8 + plen]), hex(pt), "TLS plaintext");
                } else {
                    assert_eq!(outl, 0, "failed TLS open outl");
                    assert_eq!(hex(got), hex(&sent), "a failed TLS open released plaintext");
                }
            }
            _ => answer("TLS open", ok, false, false),
        }
    }
    if ok == 0 && (x.enc || !pre) {
        assert_eq!(hex(g.bytes()), hex(&sent), "a refused record was written");
    }
    g.check("TLS record");
    if let Some(o) = &other {
        o.check("TLS record output");
    }
}

fn run(data: &[u8]) {
    ciphers();
    let program = Program::decode(data);
    let mut m = Machine {
        slots: [None, None],
    };
    for op in &program.0 {
        m.run(op);
    }
    m.free(0);
    m.free(1);
}

/// Lifecycles per key size (sealed, opened with the right tag, opened with a flipped
/// one), then one program per rule, in `provider_program::parse`'s text form.
fn seeds() -> Seeds {
    let mut progs: Vec<(String, String)> = (0..3)
        .map(|c| {
            (
                format!("seal-open-{}", 128 + 64 * c),
                format!(
                    "new sel={c} seed=1; init enc key iv seed=3; update len=13 aad seed=4; \
                     update len=17 seed=5; update len=100 inplace seed=6; final; \
                     get-tag size=16; init key iv seed=3; update len=13 aad seed=4; \
                     update len=117 inplace seed=5; final righttag b=6; init key iv seed=3; \
                     update len=40 seed=4; final righttag flip a=5 b=2 seed=3"
                ),
            )
        })
        .collect();
    let cases: [(&str, &str); 22] = [
        (
            "bad-key-lengths",
            "new; init enc key badkey b=17 seed=1; init enc key badkey seed=1; \
          init enc key b=32 seed=1; set-keylen x b=24; set-keylen",
        ),
        (
            "bad-iv-lengths",
            "new sel=1; init enc key iv ivlen seed=1; \
          init enc key iv ivlen a=129 seed=1; init enc key iv ivlen a=1 seed=1; \
          update len=20 seed=2; final",
        ),
        (
            "long-iv",
            "new sel=2; init enc key iv ivlen a=128 seed=1; update len=33 seed=2; final; \
          init enc key iv ivlen a=80 seed=1; update len=5 aad seed=2; final",
        ),
        (
            "ivlen-param",
            "new; set-ivlen x b=16; init enc key iv seed=1; set-ivlen x b=20; \
          update len=5; init enc key iv param b=60 seed=1; set-ivlen b=5; get-ivlen",
        ),
        (
            "random-iv",
            "new; init enc key seed=9; update len=30 seed=1; get-iv size=12; final; \
          update len=3 seed=1; get-updated-iv size=11; init enc seed=9; final",
        ),
        (
            "no-key",
            "new; init iv seed=1; update len=16; final; get-tag size=16",
        ),
        (
            "decrypt-no-iv-no-tag",
            "new; init key seed=1; update len=16; final; \
          init key iv seed=1; final",
        ),
        (
            "tags",
            "new; init key iv seed=1; set-tag size=3; set-tag size=17; set-tag size=4; \
          update len=7; final; init enc key iv seed=1; set-tag size=16; get-tag; \
          get-tag size=17; get-taglen",
        ),
        (
            "aad-after-data",
            "new; init enc key iv seed=9; update len=16; update len=5 aad; \
          update; final",
        ),
        (
            "short-out-null-in",
            "new; init enc key iv seed=9; update len=16 short; \
          update len=16 nullin; update len=16 aad nullin; cipher len=31 inplace; \
          cipher nullin",
        ),
        (
            "dup-mid-message",
            "new sel=2; init enc key iv seed=9; update len=20 aad; \
          update len=33; dup; update slot=1 len=40 seed=2; update len=40 seed=2; \
          final slot=1; free slot=1; final; get-tag size=16",
        ),
        (
            "dup-free-original",
            "new; init enc key iv; update len=10; dup; free; \
          update slot=1 len=20; final slot=1; get-tag slot=1 size=16",
        ),
        (
            "rekey-mid-message",
            "new; init enc key iv seed=9; update len=20; init enc key seed=4; \
          update len=20; final; init enc iv seed=4; final",
        ),
        (
            "direction-switch",
            "new; init key iv seed=9; update len=20; init enc; update len=20; \
          final; get-tag size=16",
        ),
        (
            "tls-seal",
            "new; init enc key seed=9; set-tlsivfixed std seed=1; record len=100; \
          record seed=1; record len=1400 seed=2; get-iv size=12",
        ),
        (
            "tls-open",
            "new sel=2; init key seed=9; set-tlsivfixed std seed=1; record len=100; \
          record len=50 b=77 tamper seed=1; record seed=2",
        ),
        (
            "tls-misuse",
            "new; init enc key seed=9; record len=10; set-tlsivfixed std seed=1; \
          record len=10 b=23 short; record len=10 notinplace; set-tlsaad b=12; \
          set-tlsaad std; set-tlsaad std sane; final; update len=40; set-tlsivfixed b=2; \
          set-tlsivfixed b=9; set-tlsivfixed x",
        ),
        (
            "tls-whole-iv",
            "new; init key seed=9; set-tlsivfixed x seed=1; \
          set-tlsivinv std seed=2; update len=10 aad; update len=30; final righttag b=6",
        ),
        (
            "tls-ivgen-ivinv",
            "new; init enc key seed=9; set-tlsivfixed std seed=1; \
          get-tlsivgen size=8; update len=13 aad; update len=50; final; get-tlsivgen; \
          new slot=1; init slot=1 key seed=9; set-tlsivfixed slot=1 std seed=1; \
          set-tlsivinv slot=1 std seed=3; update slot=1 len=50; set-tlsivinv slot=1 seed=3",
        ),
        (
            "tls-short-iv",
            "new; init enc key iv ivlen a=8; set-tlsivfixed std; set-ivlen x b=7; \
          get-tlsivgen; set-tlsivfixed x; record len=5",
        ),
        (
            "params-misc",
            "new sel=1; get-ivlen; get-keylen; get-taglen; get-tlsaadpad; \
          get-iv size=12; get-tlsivgen; set-tlsivinv b=8; free; free",
        ),
        (
            "two-contexts",
            "new; new slot=1 sel=2; init enc key iv; init slot=1 key iv; \
          update len=64; update slot=1 len=64; final; final slot=1 righttag b=3",
        ),
    ];
    progs.extend(cases.iter().map(|(n, p)| (n.to_string(), p.to_string())));
    progs
        .into_iter()
        .map(|(name, text)| (name, parse(&text).encode()))
        .collect()
}

stitchgcm_fuzz::fuzz_target_with_seeds!(run, seeds);
