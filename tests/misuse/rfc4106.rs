//! Misuse cases of RFC 4106 handles (`SGCM_MODE_RFC4106`: key‖salt, an 8-byte explicit IV,
//! AAD of SPI‖SN or SPI‖ESN, ICVs of 8, 12 or 16 bytes), as the header documents them.

use crate::{same, Case, MIXED};
use stitchgcm::ffi::native::*;
use stitchgcm::ffi::rfc4106::SGCM_MODE_RFC4106;

const KEY_SALT: [u8; 20] = [0x42; 20];
const IV: [u8; 8] = [3; 8];

/// An open RFC 4106 handle for AES-128, closed on drop.
struct Esp(sgcm_cipher_hd_t);

impl Esp {
    fn open() -> Esp {
        let mut h = core::ptr::null_mut();
        // SAFETY: `h` is a valid place for the result.
        let rc = unsafe { sgcm_cipher_open(&mut h, SGCM_CIPHER_AES128, SGCM_MODE_RFC4106, 0) };
        assert_eq!(rc, 0);
        Esp(h)
    }
    fn keyed() -> Esp {
        let e = Esp::open();
        assert_eq!(e.setkey(&KEY_SALT), 0);
        e
    }
    fn ready(aad: &[u8]) -> Esp {
        let e = Esp::keyed();
        assert_eq!(e.setiv(&IV), 0);
        assert_eq!(e.authenticate(aad), 0);
        e
    }
    fn setkey(&self, k: &[u8]) -> u32 {
        // SAFETY: open handle; `k` readable for its length.
        unsafe { sgcm_cipher_setkey(self.0, k.as_ptr().cast(), k.len()) }
    }
    fn setiv(&self, iv: &[u8]) -> u32 {
        // SAFETY: open handle; `iv` readable for its length.
        unsafe { sgcm_cipher_setiv(self.0, iv.as_ptr().cast(), iv.len()) }
    }
    fn authenticate(&self, aad: &[u8]) -> u32 {
        // SAFETY: open handle; `aad` readable for its length.
        unsafe { sgcm_cipher_authenticate(self.0, aad.as_ptr().cast(), aad.len()) }
    }
    fn encrypt(&self, buf: &mut [u8]) -> u32 {
        // SAFETY: open handle; `buf` writable for its length; in place.
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
    fn gettag(&self, t: &mut [u8]) -> u32 {
        // SAFETY: open handle; `t` writable for its length.
        unsafe { sgcm_cipher_gettag(self.0, t.as_mut_ptr().cast(), t.len()) }
    }
    fn checktag(&self, t: &[u8]) -> u32 {
        // SAFETY: open handle; `t` readable for its length.
        unsafe { sgcm_cipher_checktag(self.0, t.as_ptr().cast(), t.len()) }
    }
    fn aead_seal(&self, iv: &[u8], aad: &[u8], tag_len: usize) -> u32 {
        let (mut buf, mut tag) = ([0u8; 32], vec![0u8; tag_len]);
        // SAFETY: open handle; every buffer valid for its length; in place.
        unsafe {
            sgcm_aead_seal(
                self.0,
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
}

impl Drop for Esp {
    fn drop(&mut self) {
        // SAFETY: opened in `open`, closed once.
        unsafe { sgcm_cipher_close(self.0) }
    }
}

pub fn cases() -> Vec<Case> {
    let case = |name, run| Case {
        front: "rfc4106",
        name,
        run,
    };
    vec![
        case("key length does not fit", || {
            let e = Esp::open();
            same(&[
                e.setkey(&[1u8; 16]),
                e.setkey(&[1u8; 24]),
                e.setkey(&[1u8; 21]),
            ])
        }),
        case("IV not 8 bytes", || {
            let e = Esp::keyed();
            same(&[e.setiv(&[3u8; 12]), e.setiv(&[3u8; 7]), e.setiv(&[])])
        }),
        case("AAD past 12 bytes", || {
            let e = Esp::keyed();
            assert_eq!(e.setiv(&IV), 0);
            assert_eq!(e.authenticate(&[1u8; 8]), 0);
            let rc = e.authenticate(&[1u8; 5]);
            // Nothing was added: with 4 more the AAD is SPI‖ESN and the packet goes on.
            if e.authenticate(&[1u8; 4]) != 0 || e.encrypt(&mut [0u8; 16]) != 0 {
                return MIXED;
            }
            rc
        }),
        case("AAD neither 8 nor 12 bytes", || {
            let e = Esp::ready(&[1u8; 5]);
            let mut t = [0u8; 16];
            let rc = same(&[e.encrypt(&mut [0u8; 16]), e.gettag(&mut t), e.checktag(&t)]);
            // They changed nothing: three more bytes make SPI‖SN and the packet goes on.
            if e.authenticate(&[1u8; 3]) != 0 || e.encrypt(&mut [0u8; 16]) != 0 {
                return MIXED;
            }
            rc
        }),
        case("ICV length 4", || {
            let e = Esp::ready(&[1u8; 8]);
            same(&[e.gettag(&mut [0u8; 4]), e.checktag(&[0u8; 4])])
        }),
        case("ICV length 17", || {
            Esp::ready(&[1u8; 8]).checktag(&[0u8; 17])
        }),
        case("one-shot: IV not 8 bytes", || {
            Esp::keyed().aead_seal(&[3u8; 12], &[1u8; 8], 16)
        }),
        case("one-shot: AAD neither 8 nor 12 bytes", || {
            Esp::keyed().aead_seal(&IV, &[1u8; 10], 16)
        }),
        case("one-shot: ICV length 4", || {
            Esp::keyed().aead_seal(&IV, &[1u8; 8], 4)
        }),
        case("one-shot before setkey", || {
            Esp::open().aead_seal(&IV, &[1u8; 8], 16)
        }),
    ]
}
