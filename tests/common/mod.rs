//! Helpers shared by the integration tests: hex decoding, a seeded PRNG, the location of
//! the NIST CAVP vector files, a RAII wrapper over the `sgcm_cipher_*` C handle (GCM and
//! RFC 4106), thin wrappers over `sgcm_seal`/`sgcm_open`, and the independent RustCrypto
//! `aes-gcm` oracle (also as RFC 4106). `guard.rs`: guard-page regions; `seeded.rs`: the
//! pieces of the seeded differential runs. Each test binary uses only part of this module.
#![allow(dead_code)]

pub mod guard;
pub mod seeded;

use aes_gcm::aead::consts::{U1, U12, U16, U60, U8};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use aes_gcm::AesGcm;
use core::ffi::{c_int, c_void};
use std::path::PathBuf;
use stitchgcm::cpu;
use stitchgcm::ffi::native::*;
use stitchgcm::ffi::rfc4106::*;
use stitchgcm::BackendId;

/// Decodes a hex string (upper or lower case, even length, no separators).
pub fn hex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len() % 2 == 0, "odd-length hex string {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .unwrap_or_else(|e| panic!("bad hex {:?} in {s:?}: {e}", &s[i..i + 2]))
        })
        .collect()
}

/// Lower-case hex, for failure messages.
pub fn to_hex(b: &[u8]) -> String {
    use std::fmt::Write;
    b.iter()
        .fold(String::with_capacity(2 * b.len()), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// splitmix64: small, seeded, deterministic; good enough to pick test parameters.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0);
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }

    /// Picks an element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Splits `len` into random chunk lengths (0-length and 1-byte chunks included).
    pub fn chunks(&mut self, len: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut left = len;
        // Sometimes one piece, sometimes many small ones, sometimes mixed sizes.
        let style = self.below(4);
        while left > 0 {
            let n = match style {
                0 => left,
                1 => self.range(0, 3.min(left)),
                2 => self.range(0, 17.min(left)),
                _ => self.range(0, left),
            };
            out.push(n);
            left -= n;
            if self.chance(1, 10) {
                out.push(0);
            }
        }
        out
    }
}

/// The backends to test: every backend this CPU can run (at least `soft`).
pub fn backends() -> Vec<BackendId> {
    let list = cpu::available();
    assert!(
        list.iter().any(|b| b.name() == "soft"),
        "cpu::available() = {:?} does not list the soft backend",
        list.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    list
}

/// The portable reference backend.
pub fn soft() -> BackendId {
    cpu::by_name("soft").expect("the soft backend must always be available")
}

/// Whether a tag length is one SP 800-38D allows (4, 8, 12..=16).
pub fn tag_len_ok(n: usize) -> bool {
    matches!(n, 4 | 8 | 12..=16)
}

/// Tag lengths the API accepts.
pub const TAG_LENS: [usize; 7] = [4, 8, 12, 13, 14, 15, 16];

/// Where the NIST CAVP GCM `.rsp` files are: `$STITCHGCM_VECTORS`, else
/// `<crate>/.vectors/cavp` (the crate path is fixed at compile time so that test binaries
/// run under qemu-user from another directory still find them).
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("STITCHGCM_VECTORS") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.vectors/cavp")),
    }
}

/// Reads one vector file, or `None` when the vectors were never fetched and nothing asks for
/// them: a developer's first `cargo test` in a fresh clone (before `scripts/deps.sh`) then
/// says on the terminal, once per test binary, that these tests did not run and what fetches
/// them, instead of failing with a panic per file. `STITCHGCM_REQUIRE_VECTORS=1` (set by
/// `scripts/test.sh`) makes a missing file a failure, so the suite can never count a
/// vector test as passed without its vectors; so is any other read error, a directory that
/// holds some files but not this one (a broken fetch, not a fresh clone), and a
/// `STITCHGCM_VECTORS` that names no such directory (a typo, not a fresh clone).
pub fn read_vector_file(name: &str) -> Option<String> {
    let dir = vectors_dir();
    let path = dir.join(name);
    let required = std::env::var_os("STITCHGCM_REQUIRE_VECTORS").is_some_and(|v| v == "1")
        || std::env::var_os("STITCHGCM_VECTORS").is_some_and(|v| !v.is_empty());
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required && !dir.exists() => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                // Straight to the stderr handle: libtest captures eprintln! of a passing
                // test and would hide the line.
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED: the NIST CAVP vector tests below did not run (they report ok): \
                     no {}; run scripts/deps.sh to fetch the vectors",
                    dir.display()
                );
            });
            None
        }
        Err(e) => panic!(
            "cannot read test vector file {}: {e}\n\
             The NIST CAVP GCM vectors are missing: run scripts/deps.sh (it downloads them \
             into <crate>/.vectors/cavp), or set STITCHGCM_VECTORS to a directory holding \
             gcmEncryptExtIV{{128,192,256}}.rsp and gcmDecrypt{{128,192,256}}.rsp.",
            path.display()
        ),
    }
}

/// `SGCM_CIPHER_AES*` for a key length in bytes.
pub fn algo_for(key_len: usize) -> c_int {
    match key_len {
        16 => SGCM_CIPHER_AES128,
        24 => SGCM_CIPHER_AES192,
        32 => SGCM_CIPHER_AES256,
        _ => panic!("no algorithm for a {key_len}-byte key"),
    }
}

/// An open `sgcm_cipher_hd_t`, closed on drop. Methods return the raw error codes.
pub struct CHandle(sgcm_cipher_hd_t);

impl CHandle {
    /// Opens a GCM handle for AES with `key_len`-byte keys; panics on failure.
    pub fn open(key_len: usize) -> CHandle {
        CHandle::open_mode(key_len, SGCM_MODE_GCM)
    }

    /// Opens a handle in `mode` (`SGCM_MODE_GCM` or `SGCM_MODE_RFC4106`) for AES with
    /// `key_len`-byte AES keys; panics on failure.
    pub fn open_mode(key_len: usize, mode: c_int) -> CHandle {
        let mut h: sgcm_cipher_hd_t = core::ptr::null_mut();
        // SAFETY: `h` is a valid place for one handle pointer.
        let rc = unsafe { sgcm_cipher_open(&mut h, algo_for(key_len), mode, 0) };
        assert_eq!(
            rc, SGCM_ERR_NO_ERROR,
            "sgcm_cipher_open({key_len}-byte key, mode {mode})"
        );
        assert!(!h.is_null());
        CHandle(h)
    }

    pub fn raw(&self) -> sgcm_cipher_hd_t {
        self.0
    }

    pub fn setkey(&self, key: &[u8]) -> u32 {
        // SAFETY: open handle; `key` readable for its length.
        unsafe { sgcm_cipher_setkey(self.0, key.as_ptr().cast(), key.len()) }
    }

    pub fn setiv(&self, iv: &[u8]) -> u32 {
        // SAFETY: open handle; `iv` readable for its length.
        unsafe { sgcm_cipher_setiv(self.0, iv.as_ptr().cast(), iv.len()) }
    }

    pub fn authenticate(&self, aad: &[u8]) -> u32 {
        // SAFETY: open handle; `aad` readable for its length.
        unsafe { sgcm_cipher_authenticate(self.0, aad.as_ptr().cast(), aad.len()) }
    }

    /// Out of place: `src` into the start of `dst` (`outsize` = `dst.len()`).
    pub fn encrypt_to(&self, src: &[u8], dst: &mut [u8]) -> u32 {
        // SAFETY: open handle; distinct borrows, readable/writable for their lengths.
        unsafe {
            sgcm_cipher_encrypt(
                self.0,
                dst.as_mut_ptr().cast(),
                dst.len(),
                src.as_ptr().cast(),
                src.len(),
            )
        }
    }

    /// In place through `in == NULL`.
    pub fn encrypt_in_place(&self, buf: &mut [u8]) -> u32 {
        // SAFETY: open handle; `buf` writable for its length; `in` NULL means in place.
        unsafe {
            sgcm_cipher_encrypt(
                self.0,
                buf.as_mut_ptr().cast(),
                buf.len(),
                core::ptr::null(),
                0,
            )
        }
    }

    pub fn decrypt_to(&self, src: &[u8], dst: &mut [u8]) -> u32 {
        // SAFETY: as in `encrypt_to`.
        unsafe {
            sgcm_cipher_decrypt(
                self.0,
                dst.as_mut_ptr().cast(),
                dst.len(),
                src.as_ptr().cast(),
                src.len(),
            )
        }
    }

    pub fn decrypt_in_place(&self, buf: &mut [u8]) -> u32 {
        // SAFETY: as in `encrypt_in_place`.
        unsafe {
            sgcm_cipher_decrypt(
                self.0,
                buf.as_mut_ptr().cast(),
                buf.len(),
                core::ptr::null(),
                0,
            )
        }
    }

    pub fn gettag(&self, out: &mut [u8]) -> u32 {
        // SAFETY: open handle; `out` writable for its length (≥ min(len, 16)).
        unsafe { sgcm_cipher_gettag(self.0, out.as_mut_ptr().cast(), out.len()) }
    }

    pub fn checktag(&self, tag: &[u8]) -> u32 {
        // SAFETY: open handle; `tag` readable for its length.
        unsafe { sgcm_cipher_checktag(self.0, tag.as_ptr().cast(), tag.len()) }
    }

    pub fn reset(&self) -> u32 {
        // SAFETY: open handle.
        unsafe { sgcm_cipher_reset(self.0) }
    }

    /// `sgcm_aead_seal` on this handle's key; `src` None: in place on `dst`.
    pub fn aead_seal(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: Option<&[u8]>,
        dst: &mut [u8],
        tag: &mut [u8],
    ) -> u32 {
        let (sp, len) = src.map_or((core::ptr::null(), dst.len()), |s| (s.as_ptr(), s.len()));
        assert!(dst.len() >= len);
        // SAFETY: open handle; every pointer valid for its length; `src` is NULL (in place)
        // or a borrow distinct from `dst`.
        unsafe {
            sgcm_aead_seal(
                self.0,
                iv.as_ptr().cast(),
                iv.len(),
                aad.as_ptr().cast(),
                aad.len(),
                sp.cast(),
                len,
                dst.as_mut_ptr().cast(),
                tag.as_mut_ptr().cast(),
                tag.len(),
            )
        }
    }

    /// `sgcm_aead_open` on this handle's key; `src` None: in place on `dst`.
    pub fn aead_open(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: Option<&[u8]>,
        dst: &mut [u8],
        tag: &[u8],
    ) -> u32 {
        let (sp, len) = src.map_or((core::ptr::null(), dst.len()), |s| (s.as_ptr(), s.len()));
        assert!(dst.len() >= len);
        // SAFETY: as in `aead_seal`.
        unsafe {
            sgcm_aead_open(
                self.0,
                iv.as_ptr().cast(),
                iv.len(),
                aad.as_ptr().cast(),
                aad.len(),
                sp.cast(),
                len,
                dst.as_mut_ptr().cast(),
                tag.as_ptr().cast(),
                tag.len(),
            )
        }
    }
}

/// The RFC 4106 calls (on a handle opened with `SGCM_MODE_RFC4106`).
impl CHandle {
    pub fn setup_geniv(&self, start: &[u8]) -> u32 {
        // SAFETY: open handle; `start` readable for its length.
        unsafe { sgcm_cipher_setup_geniv(self.0, start.as_ptr().cast(), start.len()) }
    }

    pub fn geniv(&self, iv: &mut [u8]) -> u32 {
        // SAFETY: open handle; `iv` writable for its length.
        unsafe { sgcm_cipher_geniv(self.0, iv.as_mut_ptr().cast(), iv.len()) }
    }

    /// `sgcm_aead_seal_geniv`; `src` None: in place on `dst`.
    pub fn aead_seal_geniv(
        &self,
        iv: &mut [u8],
        aad: &[u8],
        src: Option<&[u8]>,
        dst: &mut [u8],
        icv: &mut [u8],
    ) -> u32 {
        let (sp, len) = src.map_or((core::ptr::null(), dst.len()), |s| (s.as_ptr(), s.len()));
        assert!(dst.len() >= len);
        // SAFETY: open handle; every pointer valid for its length; `src` is NULL (in place)
        // or a borrow distinct from `dst`.
        unsafe {
            sgcm_aead_seal_geniv(
                self.0,
                iv.as_mut_ptr().cast(),
                iv.len(),
                aad.as_ptr().cast(),
                aad.len(),
                sp.cast(),
                len,
                dst.as_mut_ptr().cast(),
                icv.as_mut_ptr().cast(),
                icv.len(),
            )
        }
    }
}

impl Drop for CHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from `sgcm_cipher_open` and is closed only here.
        unsafe { sgcm_cipher_close(self.0) }
    }
}

/// `sgcm_seal`, out of place.
pub fn c_seal(
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &mut [u8],
) -> u32 {
    assert!(dst.len() >= src.len());
    // SAFETY: every pointer is valid for its length; `src` and `dst` are distinct borrows.
    unsafe {
        sgcm_seal(
            key.as_ptr().cast(),
            key.len(),
            iv.as_ptr().cast(),
            iv.len(),
            aad.as_ptr().cast(),
            aad.len(),
            src.as_ptr().cast(),
            src.len(),
            dst.as_mut_ptr().cast(),
            tag.as_mut_ptr().cast(),
            tag.len(),
        )
    }
}

/// `sgcm_seal` in place (`in == NULL`).
pub fn c_seal_in_place(key: &[u8], iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> u32 {
    // SAFETY: every pointer is valid for its length; `in` NULL means in place on `buf`.
    unsafe {
        sgcm_seal(
            key.as_ptr().cast(),
            key.len(),
            iv.as_ptr().cast(),
            iv.len(),
            aad.as_ptr().cast(),
            aad.len(),
            core::ptr::null(),
            buf.len(),
            buf.as_mut_ptr().cast(),
            tag.as_mut_ptr().cast(),
            tag.len(),
        )
    }
}

/// `sgcm_open`, out of place.
pub fn c_open(key: &[u8], iv: &[u8], aad: &[u8], src: &[u8], dst: &mut [u8], tag: &[u8]) -> u32 {
    assert!(dst.len() >= src.len());
    // SAFETY: every pointer is valid for its length; `src` and `dst` are distinct borrows.
    unsafe {
        sgcm_open(
            key.as_ptr().cast(),
            key.len(),
            iv.as_ptr().cast(),
            iv.len(),
            aad.as_ptr().cast(),
            aad.len(),
            src.as_ptr().cast(),
            src.len(),
            dst.as_mut_ptr().cast(),
            tag.as_ptr().cast(),
            tag.len(),
        )
    }
}

/// `sgcm_open` in place (`in == NULL`).
pub fn c_open_in_place(key: &[u8], iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> u32 {
    // SAFETY: every pointer is valid for its length; `in` NULL means in place on `buf`.
    unsafe {
        sgcm_open(
            key.as_ptr().cast(),
            key.len(),
            iv.as_ptr().cast(),
            iv.len(),
            aad.as_ptr().cast(),
            aad.len(),
            core::ptr::null::<c_void>(),
            buf.len(),
            buf.as_mut_ptr().cast(),
            tag.as_ptr().cast(),
            tag.len(),
        )
    }
}

/// RFC 4106 through the oracle: plain GCM with nonce = salt‖IV, where `key_and_salt` is
/// the AES key followed by the 4-byte salt.
pub fn oracle_seal_rfc4106(
    key_and_salt: &[u8],
    iv: &[u8; 8],
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, [u8; 16]) {
    let (key, salt) = key_and_salt.split_at(key_and_salt.len() - 4);
    let nonce = [salt, &iv[..]].concat();
    oracle_seal(key, &nonce, aad, pt).expect("an AES key of 16, 24 or 32 bytes")
}

/// IV lengths the independent oracle is instantiated for.
pub const ORACLE_IV_LENS: [usize; 5] = [1, 8, 12, 16, 60];

/// Seals with RustCrypto's `aes-gcm` (independent of this crate): ciphertext and full
/// 16-byte tag, or `None` if the key or IV length has no instantiation here.
pub fn oracle_seal(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> Option<(Vec<u8>, [u8; 16])> {
    macro_rules! run {
        ($aes:ty, $n:ty) => {{
            let cipher = AesGcm::<$aes, $n>::new_from_slice(key).ok()?;
            let mut buf = pt.to_vec();
            let tag = cipher
                .encrypt_in_place_detached(aes_gcm::Nonce::<$n>::from_slice(iv), aad, &mut buf)
                .ok()?;
            let mut t = [0u8; 16];
            t.copy_from_slice(&tag);
            Some((buf, t))
        }};
    }
    macro_rules! by_key {
        ($n:ty) => {
            match key.len() {
                16 => run!(Aes128, $n),
                24 => run!(Aes192, $n),
                32 => run!(Aes256, $n),
                _ => None,
            }
        };
    }
    match iv.len() {
        1 => by_key!(U1),
        8 => by_key!(U8),
        12 => by_key!(U12),
        16 => by_key!(U16),
        60 => by_key!(U60),
        _ => None,
    }
}
