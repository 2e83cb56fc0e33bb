//! IVs that put the 32-bit block counter where a case wants it, so that the fuzzer can
//! drive messages across the counter's wrap (inc32 wraps the low 32 bits of J0 and keeps
//! the upper 96) and across wraps of its low byte, which the wide kernels treat apart.
//!
//! For a 16-byte IV X, SP 800-38D gives J0 = GHASH_H(X ‖ L) = X·H² ⊕ L·H with L the
//! lengths block [0]64 ‖ [128]64, so X = (J0 ⊕ L·H)·H⁻² yields any wanted J0. Products in
//! GF(2^128) are one-block GHASH evaluations (RustCrypto `ghash`: GHASH_b(a) = a·b), the
//! inverse is a^(2^128−2) by square-and-multiply, H = AES_K(0^128).

use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use ghash::universal_hash::UniversalHash;
use ghash::GHash;

type Block = [u8; 16];

/// a·b in GCM's field, in the spec's byte order.
fn mul(a: &Block, b: &Block) -> Block {
    let mut g = GHash::new(b.into());
    g.update(&[(*a).into()]);
    g.finalize().into()
}

/// a⁻¹ = a^(2^128 − 2): the bits of the exponent are 127 ones and a final zero.
fn inv(a: &Block) -> Block {
    let mut r = *a; // a^1
    for _ in 0..126 {
        r = mul(&mul(&r, &r), a); // r = r² · a, one more 1 bit
    }
    mul(&r, &r) // the final 0 bit
}

fn xor(a: &Block, b: &Block) -> Block {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// AES_K(block) for a 16-, 24- or 32-byte key.
pub fn aes_block(key: &[u8], block: &Block) -> Block {
    let mut b = (*block).into();
    match key.len() {
        16 => Aes128::new_from_slice(key).unwrap().encrypt_block(&mut b),
        24 => Aes192::new_from_slice(key).unwrap().encrypt_block(&mut b),
        _ => Aes256::new_from_slice(key).unwrap().encrypt_block(&mut b),
    }
    b.into()
}

/// The 16-byte IV whose J0 under `key` is `j0`.
pub fn iv_for_j0(key: &[u8], j0: &Block) -> Block {
    let h = aes_block(key, &[0; 16]);
    let mut l = [0u8; 16];
    l[8..].copy_from_slice(&128u64.to_be_bytes());
    mul(&xor(j0, &mul(&l, &h)), &inv(&mul(&h, &h)))
}

/// J0 with its low 32 bits replaced: the counter block after `n` increments.
pub fn counter_block(j0: &Block, n: u32) -> Block {
    let mut c = *j0;
    let low = u32::from_be_bytes(j0[12..].try_into().unwrap()).wrapping_add(n);
    c[12..].copy_from_slice(&low.to_be_bytes());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `aes-gcm` (independent) encrypting zeros under the constructed IV shows the
    /// keystream of inc32(J0), inc32²(J0), … — across the wrap of the low word.
    #[test]
    fn constructed_iv_gives_the_wanted_j0() {
        for key in [vec![7u8; 16], vec![0x5c; 24], (0..32).collect()] {
            let mut j0 = [0xa1u8; 16];
            j0[12..].copy_from_slice(&(u32::MAX - 1).to_be_bytes());
            let iv = iv_for_j0(&key, &j0);
            let (ct, _) = crate::oracle::seal(&key, &iv, &[], &[0u8; 64]).unwrap();
            for (i, block) in ct.chunks(16).enumerate() {
                let want = aes_block(&key, &counter_block(&j0, 1 + i as u32));
                assert_eq!(block, want, "block {i}");
            }
            assert_eq!(counter_block(&j0, 2)[12..], [0, 0, 0, 0]);
        }
    }
}
