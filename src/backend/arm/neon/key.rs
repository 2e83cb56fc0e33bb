//! Key setup of `arm-neon`: the FIPS-197 schedule turned into bit planes and into the
//! vector-permute kernels' form, and the GHASH key's powers as the `vmull.p8` kernels
//! read them.
//!
//! Round keys 0..Nr-1 are sliced in the kernels' row-major state order, round Nr in
//! column-major order (the last round's ShiftRows and the way back to column-major are
//! one `vtbl`); 0x63, the S-box's affine constant, is folded into rounds 1..Nr. For each
//! power H^k, k = 1..8 (128 bytes, `HPOW_BYTES` in `neon_prog.py`): its low half, high
//! half and their XOR (the Karatsuba middle operand), each as the 64-bit word and its
//! rotations by 1..4 bytes. The powers are computed on `u128`s in the spec's bit order,
//! without branches, and stored as H^k·x^-1 so the kernels' reflected product needs no
//! 1-bit shift.

use super::NeonKey;

/// a·b in GF(2^128), the spec's bit order as a big-endian u128, without branches.
fn gf_mul(a: u128, b: u128) -> u128 {
    let mut z = 0u128;
    let mut v = a;
    for i in (0..128).rev() {
        z ^= v & 0u128.wrapping_sub((b >> i) & 1);
        v = (v >> 1) ^ ((0xe1u128 << 120) & 0u128.wrapping_sub(v & 1));
    }
    z
}

pub(super) fn init(k: &mut NeonKey, key: &[u8]) {
    let mut rk = [[0u8; 16]; 15];
    let rounds = crate::backend::aes_schedule::expand(key, &mut rk);
    k.rounds = rounds as u32;
    k.rk = [[0; 128]; 15];
    for (r, (round, sliced)) in rk.iter().zip(k.rk.iter_mut()).take(rounds + 1).enumerate() {
        let konst = if r > 0 { 0x63 } else { 0 };
        for j in 0..8 {
            for pos in 0..16 {
                let byte = if r < rounds {
                    round[4 * (pos % 4) + pos / 4] // row-major position
                } else {
                    round[pos]
                } ^ konst;
                sliced[16 * j + pos] = 0u8.wrapping_sub((byte >> j) & 1);
            }
        }
    }
    // The vector-permute kernels' keys (`backend/vperm.rs`), round 0 permuted as their
    // input (`IN_PERM`: the counter lanes are permuted before it is added).
    crate::backend::vperm::round_keys(&rk, rounds, &mut k.vrk);
    let mut k0 = k.vrk[0];
    for (b, &from) in k.vrk[0]
        .iter_mut()
        .zip(crate::backend::vperm::IN_PERM.iter())
    {
        *b = k0[from as usize];
    }
    crate::secret::wipe_bytes(&mut k0);
    crate::secret::wipe_bytes(rk.as_flattened_mut());

    let mut hb = [0u8; 16];
    k.h = [[0; 128]; 8];
    k.encrypt_block(&mut hb);
    let h = u128::from_be_bytes(hb);
    let mut p = h;
    for i in 0..8 {
        // H^(i+1)·x^-1: in the reflected form a left shift, the bit shifted out coming
        // back as x^127 + x^6 + x + 1 (so the kernel's product needs no 1-bit shift).
        let w =
            (p << 1) ^ (0xc200_0000_0000_0000_0000_0000_0000_0001 & 0u128.wrapping_sub(p >> 127));
        let (lo, hi) = (w as u64, (w >> 64) as u64);
        for (t, v) in [lo, hi, lo ^ hi].into_iter().enumerate() {
            for j in 0..5 {
                let at = 40 * t + 8 * j;
                k.h[i][at..at + 8].copy_from_slice(&v.rotate_right(8 * j as u32).to_le_bytes());
            }
        }
        p = gf_mul(p, h);
    }
    crate::secret::wipe_bytes(&mut hb);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gf_mul_identity_and_commutes() {
        let one = 1u128 << 127; // x^0 in the spec's bit order
        let a = 0x66e94bd4ef8a2c3b884cfa59ca342b2eu128;
        let b = 0x0388dace60b6a392f328c2b971b2fe78u128;
        assert_eq!(gf_mul(a, one), a);
        assert_eq!(gf_mul(a, b), gf_mul(b, a));
    }
}
