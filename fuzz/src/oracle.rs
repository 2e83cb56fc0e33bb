//! The independent reference: RustCrypto `aes-gcm` 0.10. Its nonce size is a type
//! parameter, so it is instantiated for the IV lengths the targets use most (0..=64 and a
//! few long ones); for any other length [`seal`] returns `None` and the targets compare
//! with the `soft` backend only. Its tag type covers 12..=16 bytes; shorter tags are
//! checked as the prefix of the full tag, which is how SP 800-38D truncates.

use aes_gcm::aead::consts::*;
use aes_gcm::aead::generic_array::{ArrayLength, GenericArray};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use aes_gcm::AesGcm;

fn seal_with<A, N>(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16])
where
    AesGcm<A, N>: KeyInit + AeadInPlace,
    N: ArrayLength<u8>,
{
    let cipher = AesGcm::<A, N>::new_from_slice(key).expect("key length checked by caller");
    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_in_place_detached(GenericArray::from_slice(iv), aad, &mut buf)
        .expect("within aes-gcm's length limits");
    let mut t = [0u8; 16];
    t.copy_from_slice(tag.as_slice());
    (buf, t)
}

fn seal_n<N: ArrayLength<u8>>(
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    pt: &[u8],
) -> Option<(Vec<u8>, [u8; 16])> {
    Some(match key.len() {
        16 => seal_with::<Aes128, N>(key, iv, aad, pt),
        24 => seal_with::<Aes192, N>(key, iv, aad, pt),
        32 => seal_with::<Aes256, N>(key, iv, aad, pt),
        _ => return None,
    })
}

macro_rules! by_iv_len {
    ($key:expr, $iv:expr, $aad:expr, $pt:expr; $($n:literal => $u:ty),* $(,)?) => {
        match $iv.len() {
            $($n => seal_n::<$u>($key, $iv, $aad, $pt),)*
            _ => None,
        }
    };
}

/// The IV lengths [`seal`] covers.
pub fn covers_iv_len(n: usize) -> bool {
    n <= 64 || matches!(n, 96 | 128 | 255 | 256)
}

/// Ciphertext and full tag from `aes-gcm`, or `None` for an IV length it is not
/// instantiated for (or a key length that is not AES).
pub fn seal(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> Option<(Vec<u8>, [u8; 16])> {
    by_iv_len!(key, iv, aad, pt;
        0 => U0, 1 => U1, 2 => U2, 3 => U3, 4 => U4, 5 => U5, 6 => U6, 7 => U7, 8 => U8,
        9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13, 14 => U14, 15 => U15, 16 => U16,
        17 => U17, 18 => U18, 19 => U19, 20 => U20, 21 => U21, 22 => U22, 23 => U23,
        24 => U24, 25 => U25, 26 => U26, 27 => U27, 28 => U28, 29 => U29, 30 => U30,
        31 => U31, 32 => U32, 33 => U33, 34 => U34, 35 => U35, 36 => U36, 37 => U37,
        38 => U38, 39 => U39, 40 => U40, 41 => U41, 42 => U42, 43 => U43, 44 => U44,
        45 => U45, 46 => U46, 47 => U47, 48 => U48, 49 => U49, 50 => U50, 51 => U51,
        52 => U52, 53 => U53, 54 => U54, 55 => U55, 56 => U56, 57 => U57, 58 => U58,
        59 => U59, 60 => U60, 61 => U61, 62 => U62, 63 => U63, 64 => U64,
        96 => U96, 128 => U128, 255 => U255, 256 => U256,
    )
}
