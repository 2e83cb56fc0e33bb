//! An AES-GCM handle that answers every call the way libgcrypt's own GCM handle does
//! (libgcrypt 1.8 to 1.12: cipher.c, cipher-gcm.c), with the mode's `Key` and `Message`
//! doing the work. Its state is libgcrypt's, flag for flag:
//!
//! - `key`: set by the first good setkey (libgcrypt's `ghash_fn`); `key_mark`
//!   (`marks.key`) is cleared by a rejected setkey, which blocks encrypt/decrypt but not
//!   authenticate or gettag, which go on with the old key;
//! - `msg` (`marks.iv`), `tagged` (`marks.tag`), `data_started` (AAD finalized: any
//!   encrypt/decrypt, even of 0 bytes), `over_limit` (sticky until the next IV);
//! - `tagiv`, E(K, J0): libgcrypt computes it when the IV is set, wipes it when the tag is
//!   computed, and does not touch it when a setiv is rejected, so a gettag without an IV
//!   returns it — zero after open, reset or a finished message, otherwise the mask of the
//!   last message. A re-key keeps the open message's past (mask, open keystream block,
//!   GHASH of whole blocks) and `tagiv` under the old key (`Message::before_rekey`).
//!   E(K, J0) of an IV is the tag of an empty message under that IV, so the mode
//!   computes it.
//!
//! The tag (`tag.rs`) and 1.11's IV generation (`geniv.rs`) are beside this file. Error
//! values here are bare gpg-error codes; the exports add libgcrypt's error source.

mod fast;
mod geniv;
mod tag;

use geniv::Geniv;
use stitchgcm::gcm::{MAX_AAD, MAX_DATA};
use stitchgcm::{Error, Key, Message};
use tag::{mask_message, TagIv};

/// gpg-error codes (gpg-error.h).
pub mod code {
    pub const CHECKSUM: u32 = 10;
    pub const INV_KEYLEN: u32 = 44;
    pub const INV_ARG: u32 = 45;
    pub const NOT_SUPPORTED: u32 = 60;
    pub const TOO_SHORT: u32 = 66;
    pub const NOT_IMPLEMENTED: u32 = 69;
    pub const INV_HANDLE: u32 = 73;
    pub const INV_LENGTH: u32 = 139;
    pub const INV_STATE: u32 = 156;
    pub const ENOMEM: u32 = 0x8000 | 86;
}
use code::*;

/// First word of our handles. libgcrypt's are 0x24091964 and 0x46919042.
pub const MAGIC: u32 = 0x5347_4347; // "SGCG"

/// A copy of an IV: in place up to 16 bytes (every IV in practice), on the heap beyond.
#[derive(Default)]
struct IvCopy {
    short: [u8; 16],
    len: usize,
    long: Vec<u8>,
}

impl IvCopy {
    fn set(&mut self, iv: &[u8]) {
        self.len = iv.len();
        if iv.len() <= 16 {
            self.short[..iv.len()].copy_from_slice(iv);
        } else {
            self.long.clear();
            self.long.extend_from_slice(iv);
        }
    }

    #[inline(always)]
    fn set_96(&mut self, iv: &[u8; 12]) {
        self.len = 12;
        self.short[..12].copy_from_slice(iv);
    }

    fn get(&self) -> &[u8] {
        if self.len <= 16 {
            &self.short[..self.len]
        } else {
            &self.long
        }
    }
}

#[repr(C)]
pub struct GcmHandle {
    magic: u32,
    /// Puts the next eight bytes at offset 8: the fast paths (`fast.rs`) read and write
    /// them as one aligned word.
    _align: u32,
    pub secure: bool,
    key_mark: bool,
    tagged: bool,
    data_started: bool,
    over_limit: bool,
    /// The message if there is one (libgcrypt's `marks.iv`), else `msg` is idle.
    has_iv: bool,
    /// libgcrypt's `unused` (keystream bytes left in the block) while there is no
    /// message: a rejected setiv leaves it as the last message left it.
    unused_without_iv: u8,
    /// `tagiv` holds a frozen mask or `tag_without_iv` a tag: the rare states, which the
    /// fast paths (`fast.rs`) leave to the general way. Kept by [`GcmHandle::sync_rare`]
    /// after every write of those two fields outside `fast.rs` (which only writes
    /// `Zero`/`Live` while neither is rare), so the fast paths test one flag word.
    rare: bool,
    /// The real libgcrypt handle of the same algorithm, mode and flags, never keyed: it
    /// answers the calls that do not depend on GCM state (rare `ctl` and `info`
    /// commands, encrypt without key and its log line) exactly as libgcrypt does.
    pub real: *mut core::ffi::c_void,
    key: Option<Key>,
    /// The message, idle while there is none (`has_iv`).
    msg: Message,
    /// The IV of the last message started (explicitly or implicitly).
    iv: IvCopy,
    tagiv: TagIv,
    /// The tag of a handle tagged without an IV (`None`: the zero tag).
    tag_without_iv: Option<Message>,
    geniv: Geniv,
}

/// The message if there is one (libgcrypt's `marks.iv`); a free function so that it
/// borrows only those fields.
fn live(msg: &mut Message, has_iv: bool) -> Option<&mut Message> {
    has_iv.then_some(msg)
}

fn status(r: Result<(), Error>) -> u32 {
    r.err().map_or(0, Error::code)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Encrypt,
    Decrypt,
}

impl GcmHandle {
    pub fn new(secure: bool, real: *mut core::ffi::c_void) -> GcmHandle {
        GcmHandle {
            magic: MAGIC,
            _align: 0,
            secure,
            key_mark: false,
            tagged: false,
            data_started: false,
            over_limit: false,
            has_iv: false,
            unused_without_iv: 0,
            rare: false,
            real,
            key: None,
            msg: Message::idle(),
            iv: IvCopy::default(),
            tagiv: TagIv::Zero,
            tag_without_iv: None,
            geniv: Geniv::default(),
        }
    }

    /// Recomputes `rare` from `tagiv` and `tag_without_iv` (see the field).
    fn sync_rare(&mut self) {
        self.rare =
            !matches!(self.tagiv, TagIv::Zero | TagIv::Live) || self.tag_without_iv.is_some();
    }

    pub fn key_mark(&self) -> bool {
        self.key_mark
    }

    /// `setkey`: 16, 24 or 32 bytes whatever the AES variant the handle was opened for.
    ///
    /// # Safety
    /// `raw` is NULL or readable for `len` bytes.
    pub unsafe fn setkey(&mut self, raw: *const u8, len: usize) -> u32 {
        if !matches!(len, 16 | 24 | 32) {
            self.key_mark = false;
            return INV_KEYLEN;
        }
        if raw.is_null() {
            return INV_ARG; // libgcrypt would read through NULL
        }
        // SAFETY: non-NULL and readable for `len` bytes (caller's contract).
        let raw = unsafe { core::slice::from_raw_parts(raw, len) };
        if let Some(old) = &self.key {
            if let Some(m) = live(&mut self.msg, self.has_iv) {
                m.before_rekey(old);
            }
            if matches!(self.tagiv, TagIv::Live) {
                self.tagiv = mask_message(old, self.iv.get()).map_or(TagIv::Zero, TagIv::Frozen);
                self.sync_rare();
            }
        }
        let r = match self.key.as_mut() {
            Some(k) => k.set(raw),
            // Expanded in place from a placeholder, so no copy of the real key's
            // schedule is left on the stack (secure handles keep it in locked pages).
            None => Key::new(&[0u8; 16]).and_then(|k| {
                let r = self.key.insert(k).set(raw);
                if r.is_err() {
                    self.key = None; // never the placeholder as a key
                }
                r
            }),
        };
        if r.is_ok() {
            self.key_mark = true;
        }
        status(r)
    }

    fn start(&mut self, iv: &[u8]) {
        let Some(key) = self.key.as_ref() else { return };
        // Callers have checked the IV length (1 ..= 2^61 - 1 bytes).
        self.has_iv = self.msg.restart(key, iv).is_ok();
        self.iv.set(iv);
        self.tagiv = TagIv::Live;
        self.sync_rare();
    }

    /// libgcrypt's implicit IV: 16 zero bytes, when data or AAD come without setiv.
    fn start_implicit(&mut self) {
        self.start(&[0u8; 16]);
    }

    /// `setiv`. A rejected IV leaves the handle without one (and `tagiv` as it was).
    ///
    /// # Safety
    /// `iv` is NULL or readable for `len` bytes.
    pub unsafe fn setiv(&mut self, iv: *const u8, len: usize) -> u32 {
        self.unused_without_iv = self.unused();
        self.msg.end();
        self.has_iv = false;
        self.tag_without_iv = None;
        self.sync_rare();
        self.tagged = false;
        self.data_started = false;
        self.over_limit = false;
        if len == 0 {
            return INV_LENGTH;
        }
        // libgcrypt needs a key for IVs other than 12 bytes and crashes without one for
        // 12 bytes; both are an error here.
        if self.key.is_none() {
            return INV_STATE;
        }
        if len as u64 > MAX_AAD {
            self.over_limit = true;
            return INV_LENGTH;
        }
        if iv.is_null() {
            return INV_ARG;
        }
        // SAFETY: non-NULL and readable for `len` bytes (caller's contract).
        self.start(unsafe { core::slice::from_raw_parts(iv, len) });
        0
    }

    /// `setctr`: the next data continues from counter block `ctr` (NULL or length 0: the
    /// zero block). Inside a partial block of data libgcrypt's keystream and GHASH blocks
    /// come apart, which the mode does not model: NOT_SUPPORTED there.
    ///
    /// # Safety
    /// `ctr` is NULL or readable for `len` bytes.
    pub unsafe fn setctr(&mut self, ctr: *const u8, len: usize) -> u32 {
        let mut block = [0u8; 16];
        if !ctr.is_null() && len != 0 {
            if len != 16 {
                return INV_ARG;
            }
            // SAFETY: non-NULL and readable for 16 bytes (caller's contract).
            block.copy_from_slice(unsafe { core::slice::from_raw_parts(ctr, 16) });
        }
        // Without a message the counter is never used: the next IV, explicit or
        // implicit, replaces it.
        self.unused_without_iv = 0;
        match live(&mut self.msg, self.has_iv).map(|m| m.set_counter(&block)) {
            Some(Err(_)) => NOT_SUPPORTED,
            _ => 0,
        }
    }

    /// `authenticate`: AAD in any number of calls of any length, before the data.
    ///
    /// # Safety
    /// `aad` is NULL or readable for `len` bytes.
    pub unsafe fn authenticate(&mut self, aad: *const u8, len: usize) -> u32 {
        if self.over_limit {
            return INV_LENGTH;
        }
        if self.tagged || self.data_started || self.key.is_none() {
            return INV_STATE;
        }
        if !self.has_iv {
            self.start_implicit();
        }
        let (Some(key), Some(msg)) = (self.key.as_ref(), live(&mut self.msg, self.has_iv)) else {
            return INV_STATE;
        };
        // Checked here, before a slice of `len` bytes is formed: libgcrypt answers a
        // length over the limit without reading the buffer.
        if len as u64 > MAX_AAD - msg.aad_len() {
            self.over_limit = true;
            return INV_LENGTH;
        }
        if aad.is_null() && len > 0 {
            return INV_ARG; // libgcrypt would read through NULL
        }
        let aad: &[u8] = if len == 0 {
            &[]
        } else {
            // SAFETY: non-NULL and readable for `len` bytes (caller's contract).
            unsafe { core::slice::from_raw_parts(aad, len) }
        };
        status(msg.aad(key, aad))
    }

    /// `encrypt`/`decrypt` after libgcrypt's key check (a handle without `key_mark` is
    /// answered by the real library). `src` is NULL for in place (`outsize` bytes of
    /// `out`). A failed encrypt fills `out` with 0x42, as libgcrypt does.
    ///
    /// # Safety
    /// `out` is NULL or writable for `outsize` bytes; `src` is NULL or readable for
    /// `inlen` bytes.
    pub unsafe fn crypt(
        &mut self,
        dir: Dir,
        out: *mut u8,
        outsize: usize,
        src: *const u8,
        inlen: usize,
    ) -> u32 {
        let (src, len) = if src.is_null() {
            (out as *const u8, outsize)
        } else {
            (src, inlen)
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { self.crypt_checked(dir, out, outsize, src, len) };
        if rc != 0 && dir == Dir::Encrypt && !out.is_null() {
            // SAFETY: `out` is writable for `outsize` bytes.
            unsafe { core::ptr::write_bytes(out, 0x42, outsize) };
        }
        rc
    }

    /// # Safety
    /// As for [`GcmHandle::crypt`], with `src` readable for `len` bytes.
    unsafe fn crypt_checked(
        &mut self,
        dir: Dir,
        out: *mut u8,
        outsize: usize,
        src: *const u8,
        len: usize,
    ) -> u32 {
        if outsize < len {
            return Error::BufferTooShort.code();
        }
        if self.over_limit {
            return INV_LENGTH;
        }
        if self.tagged || self.key.is_none() {
            return INV_STATE;
        }
        if !self.has_iv {
            self.start_implicit();
        }
        self.data_started = true;
        let (Some(key), Some(msg)) = (self.key.as_ref(), live(&mut self.msg, self.has_iv)) else {
            return INV_STATE;
        };
        if len as u64 > MAX_DATA - msg.data_len() {
            self.over_limit = true;
            return INV_LENGTH;
        }
        if len == 0 {
            return status(msg.encrypt(key, &mut []));
        }
        if out.is_null() || src.is_null() {
            // libgcrypt would read or write through NULL, after ending the AAD (padding its
            // GHASH under the current key, which a re-key before the tag would show): so
            // does an empty data call here.
            let _ = msg.encrypt(key, &mut []);
            return INV_ARG;
        }
        let (s, d) = (src as usize, out as usize);
        let r = if s == d {
            // SAFETY: in place: `out` is readable and writable for `len` ≤ outsize bytes.
            let buf = unsafe { core::slice::from_raw_parts_mut(out, len) };
            match dir {
                Dir::Encrypt => msg.encrypt(key, buf),
                Dir::Decrypt => msg.decrypt(key, buf),
            }
        } else {
            // Overlap other than in place is not allowed by libgcrypt either; the answer
            // here is as if the input had been copied first (the copy is made before any
            // output is written, and wiped).
            let disjoint = s.saturating_add(len) <= d || d.saturating_add(len) <= s;
            let mut copy = if disjoint {
                Vec::new()
            } else {
                // SAFETY: `src` readable for `len` bytes; nothing writes `out` meanwhile.
                unsafe { core::slice::from_raw_parts(src, len) }.to_vec()
            };
            let input: &[u8] = if disjoint {
                // SAFETY: readable for `len` bytes and disjoint from `out`.
                unsafe { core::slice::from_raw_parts(src, len) }
            } else {
                &copy
            };
            // SAFETY: writable for `len` ≤ outsize bytes, not overlapping `input`.
            let dst = unsafe { core::slice::from_raw_parts_mut(out, len) };
            let r = match dir {
                Dir::Encrypt => msg.encrypt_to(key, input, dst),
                Dir::Decrypt => msg.decrypt_to(key, input, dst),
            };
            // SAFETY: `copy` owns `copy.len()` writable bytes.
            unsafe { libc::explicit_bzero(copy.as_mut_ptr().cast(), copy.len()) };
            r
        };
        status(r)
    }

    /// `gcry_cipher_reset`: ends the message, keeps the key (and its mark).
    #[inline]
    pub fn reset(&mut self) {
        self.unused_without_iv = 0;
        // A finished message (the usual case: reset after the tag) is left for the next IV
        // or the close to wipe, as the native handle leaves it: its mask and keystream are
        // wiped already, the tag was the caller's. Any other is wiped now.
        if !(self.has_iv && self.tagged) {
            self.msg.end();
        }
        self.has_iv = false;
        self.tag_without_iv = None;
        self.tagiv = TagIv::Zero;
        self.rare = false;
        self.tagged = false;
        self.data_started = false;
        self.over_limit = false;
    }

    /// libgcrypt's `unused`: keystream bytes left in the current counter block.
    fn unused(&self) -> u8 {
        if self.has_iv {
            ((16 - self.msg.data_len() % 16) % 16) as u8
        } else {
            self.unused_without_iv
        }
    }

    /// libgcrypt's private test command PRIV_CIPHERCTL_GET_INPUT_VECTOR (62): the count of
    /// keystream bytes left (16 for none), then that many bytes of the IV buffer, which
    /// GCM never writes (zeros).
    ///
    /// # Safety
    /// `buf` is NULL or writable for `len` bytes.
    pub unsafe fn input_vector(&self, buf: *mut u8, len: usize) -> u32 {
        if len < 17 {
            return TOO_SHORT;
        }
        if buf.is_null() {
            return INV_ARG; // libgcrypt would write through NULL
        }
        let n = match self.unused() {
            0 => 16,
            n => n,
        };
        // SAFETY: writable for `len` ≥ 17 > n bytes (caller's contract).
        unsafe {
            *buf = n;
            core::ptr::write_bytes(buf.add(1), 0, n as usize);
        }
        0
    }
}
