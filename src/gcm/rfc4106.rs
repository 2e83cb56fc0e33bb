//! RFC 4106: AES-GCM in IPsec ESP, as framing around the GCM of this module — no second GCM.
//!
//! An SA's keying material is the AES key followed by a 4-byte salt (20, 28 or 36 bytes,
//! RFC 4106 §8.1). Each packet carries an 8-byte explicit IV; the GCM nonce is salt‖IV
//! (§4), 96 bits, so J0 = salt‖IV‖0^31‖1 is built directly and the IV never goes through
//! GHASH. The AAD is SPI‖sequence number (8 bytes) or SPI‖ESN high‖low (12 bytes, §5 and
//! RFC 4303 §2.2.1) and is fed to GHASH as it is; the ICV is the GCM tag cut to 8, 12 or
//! 16 bytes (§6). A packet is one call of the keyed one-shot ([`super::seal_raw`],
//! [`super::open_raw`]): whatever makes short messages fast there serves ESP unchanged,
//! and open releases no plaintext unless the ICV verifies.
//!
//! [`Rfc4106Message`] is the streaming form (a [`Message`] whose AAD must total 8 or 12
//! bytes), [`IvCounter`] the sender's IV source that §3.1 allows: a 64-bit counter that
//! hands out every value once and then refuses, so no IV is ever repeated by it.

use super::{Direction, Key, Message};
use crate::backend::BackendId;
use crate::error::Error;
use crate::secret::wipe_bytes;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Bytes of salt after the AES key (RFC 4106 §8.1).
pub const RFC4106_SALT_LEN: usize = 4;
/// Bytes of the explicit IV each packet carries (RFC 4106 §3.1).
pub const RFC4106_IV_LEN: usize = 8;
/// Most AAD a packet has: SPI‖ESN (RFC 4106 §5).
const MAX_ESP_AAD: usize = 12;

/// Whether `len` is an AES key plus salt: 20, 28 or 36 bytes.
pub const fn rfc4106_key_len_ok(len: usize) -> bool {
    matches!(len, 20 | 28 | 36)
}

/// Whether `len` is an ESP AAD: SPI‖SN (8) or SPI‖ESN (12).
pub const fn rfc4106_aad_len_ok(len: usize) -> bool {
    matches!(len, 8 | 12)
}

/// Whether `len` is an ICV length RFC 4106 §6 allows: 8, 12 or 16.
pub const fn rfc4106_icv_len_ok(len: usize) -> bool {
    matches!(len, 8 | 12 | 16)
}

/// An SA's key: the expanded AES key and the salt. Both are wiped on drop.
#[derive(Clone)]
pub struct Rfc4106Key {
    key: Key,
    salt: [u8; RFC4106_SALT_LEN],
}

impl Rfc4106Key {
    /// Keys from AES key‖salt (20, 28 or 36 bytes) for the selected backend.
    pub fn new(key_and_salt: &[u8]) -> Result<Rfc4106Key, Error> {
        let (aes, salt) = split_key(key_and_salt)?;
        Ok(Rfc4106Key {
            key: Key::new(aes)?,
            salt,
        })
    }

    /// [`Rfc4106Key::new`] for a given backend (tests compare backends with it).
    pub fn with_backend(key_and_salt: &[u8], backend: BackendId) -> Result<Rfc4106Key, Error> {
        let (aes, salt) = split_key(key_and_salt)?;
        Ok(Rfc4106Key {
            key: Key::with_backend(aes, backend)?,
            salt,
        })
    }

    /// The AES-GCM key underneath.
    pub fn gcm_key(&self) -> &Key {
        &self.key
    }

    /// Length of the keying material it was made from (20, 28 or 36).
    pub fn key_len(&self) -> usize {
        self.key.key_len() + RFC4106_SALT_LEN
    }

    /// The GCM nonce salt‖IV of a packet (an IV of exactly 8 bytes).
    fn nonce(&self, iv: &[u8]) -> Result<Nonce, Error> {
        let iv: [u8; RFC4106_IV_LEN] = iv.try_into().map_err(|_| Error::InvalidLength)?;
        // Assembled in registers and stored whole: built byte by byte on the stack, its
        // reads back stalled store forwarding (a measurable share of a short packet).
        let salt = u32::from_le_bytes(self.salt) as u128;
        Ok(Nonce(
            (salt | ((u64::from_le_bytes(iv) as u128) << 32)).to_le_bytes(),
        ))
    }

    /// The nonce of one whole packet, after the RFC 4106 length rules.
    fn packet_nonce(&self, iv: &[u8], aad: &[u8], icv_len: usize) -> Result<Nonce, Error> {
        if !rfc4106_aad_len_ok(aad.len()) || !rfc4106_icv_len_ok(icv_len) {
            return Err(Error::InvalidLength);
        }
        self.nonce(iv)
    }

    /// Seals one packet: `src` → `dst` (same length), ICV of 8, 12 or 16 bytes into `icv`.
    pub fn seal(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        icv: &mut [u8],
    ) -> Result<(), Error> {
        if dst.len() < src.len() {
            return Err(Error::BufferTooShort);
        }
        // SAFETY: distinct borrows, both at least `src.len()` bytes long.
        unsafe { self.seal_raw(iv, aad, src.as_ptr(), dst.as_mut_ptr(), src.len(), icv) }
    }

    /// Opens one packet; writes nothing to `dst` unless the ICV verifies.
    pub fn open(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        icv: &[u8],
    ) -> Result<(), Error> {
        if dst.len() < src.len() {
            return Err(Error::BufferTooShort);
        }
        // SAFETY: distinct borrows, both at least `src.len()` bytes long.
        unsafe { self.open_raw(iv, aad, src.as_ptr(), dst.as_mut_ptr(), src.len(), icv) }
    }

    /// [`Rfc4106Key::seal`] on raw pointers; `src == dst` (in place) is allowed.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(crate) unsafe fn seal_raw(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        icv: &mut [u8],
    ) -> Result<(), Error> {
        let nonce = self.packet_nonce(iv, aad, icv.len())?;
        // SAFETY: forwarded from the caller.
        unsafe { super::seal_raw(&self.key, nonce.bytes(), aad, src, dst, len, icv) }
    }

    /// [`Rfc4106Key::open`] on raw pointers; `src == dst` (in place) is allowed.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(crate) unsafe fn open_raw(
        &self,
        iv: &[u8],
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
        icv: &[u8],
    ) -> Result<(), Error> {
        let nonce = self.packet_nonce(iv, aad, icv.len())?;
        // SAFETY: forwarded from the caller.
        unsafe { super::open_raw(&self.key, nonce.bytes(), aad, src, dst, len, icv) }
    }
}

/// A packet's GCM nonce salt‖IV in the first 12 of 16 aligned bytes; wiped on drop (it
/// holds the salt) with two word stores.
#[repr(C, align(16))]
struct Nonce([u8; 16]);

impl Nonce {
    fn bytes(&self) -> &[u8] {
        &self.0[..12]
    }
}

impl Drop for Nonce {
    fn drop(&mut self) {
        wipe_bytes(&mut self.0);
    }
}

/// AES key and salt of 20, 28 or 36 bytes of keying material.
fn split_key(key_and_salt: &[u8]) -> Result<(&[u8], [u8; RFC4106_SALT_LEN]), Error> {
    if !rfc4106_key_len_ok(key_and_salt.len()) {
        return Err(Error::InvalidKeyLength);
    }
    let (aes, salt) = key_and_salt.split_at(key_and_salt.len() - RFC4106_SALT_LEN);
    let mut s = [0u8; RFC4106_SALT_LEN];
    s.copy_from_slice(salt);
    Ok((aes, s))
}

impl Drop for Rfc4106Key {
    fn drop(&mut self) {
        wipe_bytes(&mut self.salt); // the Key wipes itself
    }
}

impl core::fmt::Debug for Rfc4106Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Rfc4106Key")
            .field("backend", &self.key.backend_name())
            .field("key_len", &self.key_len())
            .finish_non_exhaustive()
    }
}

/// One packet in progress, AAD and data split anywhere (a [`Message`] under salt‖IV).
/// The AAD must total 8 or 12 bytes: a call that would take it past 12 is refused at
/// once; 8 or 12 is checked at the first data and at the ICV, and a refused call
/// changes nothing (more AAD may still complete it).
#[derive(Debug)]
pub struct Rfc4106Message {
    msg: Message,
    /// Until the first data or the ICV: more AAD may come.
    aad_open: bool,
}

impl Rfc4106Message {
    /// Starts a packet under `key` with its 8-byte explicit IV.
    pub fn new(key: &Rfc4106Key, iv: &[u8]) -> Result<Rfc4106Message, Error> {
        let nonce = key.nonce(iv)?;
        Ok(Rfc4106Message {
            msg: Message::new(&key.key, nonce.bytes())?,
            aad_open: true,
        })
    }

    /// Adds AAD (SPI‖SN or SPI‖ESN, in any number of pieces).
    pub fn aad(&mut self, key: &Rfc4106Key, aad: &[u8]) -> Result<(), Error> {
        if !self.aad_open {
            return Err(Error::InvalidState);
        }
        if aad.len() as u64 > (MAX_ESP_AAD as u64).saturating_sub(self.msg.aad_len()) {
            return Err(Error::InvalidLength);
        }
        self.msg.aad(&key.key, aad)
    }

    /// The AAD is whole (8 or 12 bytes), so data or the ICV may follow.
    fn aad_complete(&self) -> Result<(), Error> {
        if self.aad_open && !rfc4106_aad_len_ok(self.msg.aad_len() as usize) {
            return Err(Error::InvalidLength);
        }
        Ok(())
    }

    /// Encrypts `buf` in place.
    pub fn encrypt(&mut self, key: &Rfc4106Key, buf: &mut [u8]) -> Result<(), Error> {
        let (src, dst, len) = (buf.as_ptr(), buf.as_mut_ptr(), buf.len());
        // SAFETY: `buf` is valid for reads and writes of its length; src == dst.
        unsafe { self.crypt_raw(key, Direction::Encrypt, src, dst, len) }
    }

    /// Decrypts `buf` in place; not to be trusted before [`Rfc4106Message::verify`].
    pub fn decrypt(&mut self, key: &Rfc4106Key, buf: &mut [u8]) -> Result<(), Error> {
        let (src, dst, len) = (buf.as_ptr(), buf.as_mut_ptr(), buf.len());
        // SAFETY: as in `encrypt`.
        unsafe { self.crypt_raw(key, Direction::Decrypt, src, dst, len) }
    }

    /// Encrypts or decrypts `len` bytes, any split.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes; equal or disjoint.
    pub(crate) unsafe fn crypt_raw(
        &mut self,
        key: &Rfc4106Key,
        dir: Direction,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), Error> {
        self.aad_complete()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.msg.crypt_raw(&key.key, dir, src, dst, len) }?;
        self.aad_open = false;
        Ok(())
    }

    /// Writes the ICV (8, 12 or 16 bytes). Ends the packet.
    pub fn icv(&mut self, key: &Rfc4106Key, out: &mut [u8]) -> Result<(), Error> {
        self.finish_check(out.len())?;
        self.msg.tag(&key.key, out)
    }

    /// Compares `expected` (8, 12 or 16 bytes) with the ICV in constant time.
    pub fn verify(&mut self, key: &Rfc4106Key, expected: &[u8]) -> Result<(), Error> {
        self.finish_check(expected.len())?;
        self.msg.verify(&key.key, expected)
    }

    fn finish_check(&mut self, icv_len: usize) -> Result<(), Error> {
        if !rfc4106_icv_len_ok(icv_len) {
            return Err(Error::InvalidLength);
        }
        self.aad_complete()?;
        self.aad_open = false;
        Ok(())
    }
}

/// The sender's IV source of RFC 4106 §3.1: a 64-bit big-endian counter from a start
/// value, each value handed out once (atomically, so one-shot seals on several threads
/// share it), then [`Error::LimitReached`] for good once 2^64 − 1 has been used.
#[derive(Debug)]
pub struct IvCounter {
    next: AtomicU64,
    /// Set by the one call that hands out 2^64 − 1.
    spent: AtomicBool,
}

impl IvCounter {
    /// A counter whose first IV is `start` (8 bytes, big-endian).
    pub fn new(start: &[u8]) -> Result<IvCounter, Error> {
        let start: [u8; RFC4106_IV_LEN] = start.try_into().map_err(|_| Error::InvalidLength)?;
        Ok(IvCounter {
            next: AtomicU64::new(u64::from_be_bytes(start)),
            spent: AtomicBool::new(false),
        })
    }

    /// The next IV, never one handed out before.
    pub fn next_iv(&self) -> Result<[u8; RFC4106_IV_LEN], Error> {
        let below_max = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1));
        match below_max {
            Ok(n) => Ok(n.to_be_bytes()),
            // `next` stays at 2^64 − 1: exactly one caller wins it.
            Err(max) => match self.spent.swap(true, Ordering::Relaxed) {
                false => Ok(max.to_be_bytes()),
                true => Err(Error::LimitReached),
            },
        }
    }
}
