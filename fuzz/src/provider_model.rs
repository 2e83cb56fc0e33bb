//! The `provider` target's model of a provider context (the provider's `struct gcm_ctx`,
//! by its documented rules), the reference for a message's bytes, and the check of each
//! call's answer and of the error queue.

use crate::oracle;
use crate::provider::*;
use crate::tracing;
use core::ffi::c_void;
use stitchgcm::{BackendId, Key};

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Iv {
    None,
    Buffered,
    Started,
    Finished,
}

/// A context and what the model knows of it (the provider's `struct gcm_ctx`).
#[derive(Clone)]
pub struct Ctx {
    pub p: *mut c_void,
    pub c: usize,
    pub keylen: usize,
    pub enc: bool,
    pub key: Option<Vec<u8>>,
    pub iv_state: Iv,
    pub ivlen: usize,
    pub iv: Vec<u8>,
    pub taglen: Option<usize>,
    pub tag: [u8; 16],
    pub tls_aad: Option<[u8; 13]>,
    pub iv_gen: bool,
    // the message in progress
    pub msg_iv: Vec<u8>,
    pub aad: Vec<u8>,
    /// every data call's input and output, and the ciphertext the tag covers (the input
    /// when decrypting, the output when encrypting: a context may switch direction
    /// mid-message by re-init without key or IV, as OpenSSL's own GCM allows)
    pub inp: Vec<u8>,
    pub out: Vec<u8>,
    pub ct: Vec<u8>,
    pub data: bool,
}

impl Ctx {
    pub fn new(p: *mut c_void, c: usize) -> Ctx {
        Ctx {
            p,
            c,
            keylen: 16 + 8 * c,
            enc: false,
            key: None,
            iv_state: Iv::None,
            ivlen: 12,
            iv: vec![0; 128],
            taglen: None,
            tag: [0; 16],
            tls_aad: None,
            iv_gen: false,
            msg_iv: vec![],
            aad: vec![],
            inp: vec![],
            out: vec![],
            ct: vec![],
            data: false,
        }
    }

    pub fn cipher(&self) -> &'static Cipher {
        &ciphers()[self.c]
    }

    /// The message's first call: the provider gives the handle its IV (start_message).
    pub fn start(&mut self) {
        self.iv_state = Iv::Started;
        self.msg_iv = self.iv[..self.ivlen].to_vec();
        self.aad.clear();
        self.inp.clear();
        self.out.clear();
        self.ct.clear();
        self.data = false;
    }

    /// The model of start_message: whether it succeeds, and whether the provider picks a
    /// random IV (which the harness then reads back).
    pub fn can_start(&self) -> (bool, bool) {
        if self.key.is_none() {
            return (false, false);
        }
        match self.iv_state {
            Iv::Started | Iv::Buffered => (true, false),
            Iv::Finished => (false, false),
            Iv::None => (self.enc && self.ivlen >= 12, true),
        }
    }
}

/// Ciphertext (CTR of `input`) and the tag of `input` taken as plaintext.
pub fn reference(key: &[u8], iv: &[u8], aad: &[u8], input: &[u8]) -> (Vec<u8>, [u8; 16]) {
    if oracle::covers_iv_len(iv.len()) {
        return oracle::seal(key, iv, aad, input).expect("AES key");
    }
    let k = Key::with_backend(key, BackendId::Soft).expect("soft key");
    let mut out = vec![0u8; input.len()];
    let mut tag = [0u8; 16];
    stitchgcm::seal(&k, iv, aad, input, &mut out, &mut tag).expect("seal");
    (out, tag)
}

/// What the message's data calls must have output (the key stream applied to their input)
/// and its tag (over the AAD and the ciphertext).
pub fn expected(x: &Ctx) -> (Vec<u8>, [u8; 16]) {
    let key = x.key.as_ref().expect("keyed");
    let (out, _) = reference(key, &x.msg_iv, &x.aad, &x.inp);
    let (pt, _) = reference(key, &x.msg_iv, &x.aad, &x.ct);
    let (_, tag) = reference(key, &x.msg_iv, &x.aad, &pt);
    (out, tag)
}

/// The call's answer against the model's, and the error-queue rule.
pub fn answer(what: &str, got: i32, want: bool, quiet: bool) {
    let (errors, reason) = take_errors();
    if tracing() {
        eprintln!(
            "  {what} -> {got} (model {}) errors {errors} reason {reason}",
            want as i32
        );
    }
    assert_eq!(
        got, want as i32,
        "{what}: answer {got}, the model says {}",
        want as i32
    );
    if got == 1 {
        assert_eq!(
            errors, 0,
            "{what} succeeded with an error queued (reason {reason})"
        );
    } else if !quiet {
        assert!(errors > 0, "{what} failed without an error on the queue");
    } else {
        assert_eq!(
            errors, 0,
            "{what}: a quiet failure queued an error (reason {reason})"
        );
    }
}

/// The invocation counter: the IV's last 8 bytes, big-endian.
pub fn increment(iv: &mut [u8]) {
    let l = iv.len();
    for b in iv[l - 8..].iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

pub fn model_ivlen(x: &mut Ctx, n: usize) -> bool {
    if n == 0 || n > 128 {
        return false;
    }
    if n != x.ivlen {
        if x.iv_state != Iv::None {
            x.iv_state = Iv::Finished;
        }
        x.ivlen = n;
    }
    true
}

pub fn set_params(x: &Ctx, p: &[OSSL_PARAM]) -> i32 {
    // SAFETY: a live context, an OSSL_PARAM_END-terminated array of valid parameters.
    unsafe { x.cipher().f::<SetParams>(SET_CTX_PARAMS)(x.p, p.as_ptr()) }
}

/// Reads the provider's IV back after it chose one at random ("iv" parameter).
pub fn learn_iv(x: &mut Ctx) {
    let mut buf = vec![0u8; 128];
    let mut p = [
        OSSL_PARAM::new(c"iv", OCTET_STRING, buf.as_mut_ptr().cast(), 128),
        OSSL_PARAM::end(),
    ];
    // SAFETY: a live context, a 128-byte buffer.
    let ok = unsafe { x.cipher().f::<GetParams>(GET_CTX_PARAMS)(x.p, p.as_mut_ptr()) };
    answer("get iv (learn)", ok, true, false);
    x.iv[..x.ivlen].copy_from_slice(&buf[..x.ivlen]);
}
