//! Holder crate for the benchmarks in `benches/`, and what they share: AES-GCM
//! implementations behind one in-place `seal`, stitchgcm's beside its peers (ring and
//! RustCrypto's `aes-gcm`).

use aes_gcm::aead::{AeadInPlace, KeyInit};

/// The IV every benchmark record uses (no implementation's cost depends on its value).
pub const IV: [u8; 12] = [0xca; 12];
/// A TLS record header, the AAD of the "with AAD" cases.
pub const TLS_AAD: [u8; 13] = [0x17, 3, 3, 0, 0x10, 1, 2, 3, 4, 5, 6, 7, 8];

/// One implementation's keyed state.
pub enum Impl {
    /// `stitchgcm::seal_in_place`.
    Stitch(stitchgcm::Key),
    /// The same key through the streaming `Message` made for each record (new, AAD,
    /// encrypt, tag): what a caller who does not keep a `Message` pays.
    StitchMessage(stitchgcm::Key),
    Ring(ring::aead::LessSafeKey),
    RustCrypto128(Box<aes_gcm::Aes128Gcm>),
    RustCrypto256(Box<aes_gcm::Aes256Gcm>),
}

impl Impl {
    /// stitchgcm (one shot, then `Message`), ring and RustCrypto, keyed with `key` (16 or
    /// 32 bytes), with their names.
    pub fn all(key: &[u8]) -> Vec<(&'static str, Impl)> {
        let alg = if key.len() == 16 {
            &ring::aead::AES_128_GCM
        } else {
            &ring::aead::AES_256_GCM
        };
        let ring_key = ring::aead::UnboundKey::new(alg, key).expect("ring key");
        let rc = if key.len() == 16 {
            Impl::RustCrypto128(Box::new(aes_gcm::Aes128Gcm::new_from_slice(key).unwrap()))
        } else {
            Impl::RustCrypto256(Box::new(aes_gcm::Aes256Gcm::new_from_slice(key).unwrap()))
        };
        vec![
            ("stitchgcm", Impl::Stitch(stitchgcm::Key::new(key).unwrap())),
            (
                "stitchgcm-message",
                Impl::StitchMessage(stitchgcm::Key::new(key).unwrap()),
            ),
            ("ring", Impl::Ring(ring::aead::LessSafeKey::new(ring_key))),
            ("aes-gcm", rc),
        ]
    }

    /// Seals `buf` in place behind `aad` with [`IV`]; returns the tag.
    #[inline(never)]
    pub fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let mut tag = [0u8; 16];
        match self {
            Impl::Stitch(k) => stitchgcm::seal_in_place(k, &IV, aad, buf, &mut tag).unwrap(),
            Impl::StitchMessage(k) => {
                let mut m = stitchgcm::Message::new(k, &IV).unwrap();
                m.aad(k, aad).unwrap();
                m.encrypt(k, buf).unwrap();
                m.tag(k, &mut tag).unwrap();
            }
            Impl::Ring(k) => {
                let nonce = ring::aead::Nonce::assume_unique_for_key(IV);
                let t = k
                    .seal_in_place_separate_tag(nonce, ring::aead::Aad::from(aad), buf)
                    .unwrap();
                tag.copy_from_slice(t.as_ref());
            }
            Impl::RustCrypto128(k) => {
                let t = k.encrypt_in_place_detached(&IV.into(), aad, buf).unwrap();
                tag.copy_from_slice(&t);
            }
            Impl::RustCrypto256(k) => {
                let t = k.encrypt_in_place_detached(&IV.into(), aad, buf).unwrap();
                tag.copy_from_slice(&t);
            }
        }
        tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peers agree with stitchgcm, so every benchmark row times the same work.
    #[test]
    fn all_implementations_agree() {
        for key_len in [16, 32] {
            let impls = Impl::all(&vec![0x33; key_len]);
            for aad in [&[][..], &TLS_AAD[..]] {
                for size in [0, 1, 16, 17, 255, 1420, 4099] {
                    let mut first: Option<(Vec<u8>, [u8; 16])> = None;
                    for (name, imp) in &impls {
                        let mut buf: Vec<u8> = (0..size).map(|i| i as u8).collect();
                        let tag = imp.seal(aad, &mut buf);
                        match &first {
                            None => first = Some((buf, tag)),
                            Some(f) => assert_eq!(f, &(buf, tag), "{name}, {size} bytes"),
                        }
                    }
                }
            }
        }
    }
}
