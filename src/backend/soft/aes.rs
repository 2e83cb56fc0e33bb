//! Portable constant-time AES encryption (AES-128/192/256), bit-sliced four blocks at a
//! time.
//!
//! A table-driven AES leaks its key through the cache: the S-box lookup address depends
//! on key and data. Here nothing is ever looked up by a secret. The 512 state bits of
//! four blocks are *bit-sliced* into eight `u64` words, word `j` holding bit `j` of all
//! 64 state bytes, so that one Boolean operation on the words acts on that bit of every
//! byte at once (Käsper–Schwabe, "Faster and timing-attack resistant AES-GCM", CHES
//! 2009; the 64-bit "ct64" arrangement of four blocks is the one of BearSSL's
//! `aes_ct64`). Inside a word, bit `16*row + 4*col + lane` belongs to byte (row, col)
//! of block `lane`, so the rows are the four 16-bit quarters of the word:
//!
//! - SubBytes is the Boyar–Peralta depth-16 S-box circuit ("A depth-16 circuit for the
//!   AES S-box", IACR ePrint 2011/332): the GF(2^8) inversion and affine map written as
//!   128 AND/XOR/XNOR gates evaluated on whole words;
//! - ShiftRows rotates the columns inside each 16-bit row (fixed shifts and masks);
//! - MixColumns needs the other rows of the same column, which are plain 16- and
//!   32-bit rotations of the word, and multiplication by x, which only moves words;
//! - the key schedule runs its SubWord through the same circuit, and each round key is
//!   stored bit-sliced and copied into all four lanes, so AddRoundKey is eight XORs.
//!
//! Going in and out of this form is a fixed byte shuffle plus an 8×8 bit-matrix
//! transpose across the words. Every operation is a shift, rotate, AND, OR or XOR on
//! `u64`s with a sequence that depends only on the key size, so the running time and
//! the memory access pattern are independent of key and data. Only encryption is
//! provided: GCM never runs the inverse cipher.

/// Bit-sliced expanded key: round key r occupies rk[8*r .. 8*r+8] in the same
/// bit-sliced layout as the state, replicated for the 4 block lanes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct BitslicedKey {
    pub(crate) rk: [u64; 120], // 15 round keys × 8 words (AES-256 maximum)
    pub(crate) rounds: u64,    // 10, 12 or 14
}

// SAFETY: `BitslicedKey` is `#[repr(C)]` and holds plain integers only (a `u64` array
// and a `u64`): no padding, no pointers, every bit pattern is a valid value.
unsafe impl crate::backend::Plain for BitslicedKey {}

/// The low and high 32 bits of a word.
const LO32: u64 = 0x0000_0000_FFFF_FFFF;
const HI32: u64 = 0xFFFF_FFFF_0000_0000;

/// Exchanges the bits of `x` selected by `mask` with the bits `shift` positions above
/// them (a "delta swap"); `mask` and `mask << shift` must not overlap.
#[inline(always)]
fn delta_swap(x: u64, mask: u64, shift: u32) -> u64 {
    let d = ((x >> shift) ^ x) & mask;
    x ^ d ^ (d << shift)
}

/// Byte perfect shuffle: the bytes (little-endian order) `a0 a1 a2 a3 b0 b1 b2 b3`
/// become `a0 b0 a1 b1 a2 b2 a3 b3`.
#[inline(always)]
fn zip_bytes(x: u64) -> u64 {
    let x = delta_swap(x, 0x0000_0000_FFFF_0000, 16);
    delta_swap(x, 0x0000_FF00_0000_FF00, 8)
}

/// Inverse of [`zip_bytes`].
#[inline(always)]
fn unzip_bytes(x: u64) -> u64 {
    let x = delta_swap(x, 0x0000_FF00_0000_FF00, 8);
    delta_swap(x, 0x0000_0000_FFFF_0000, 16)
}

/// Swaps bit `s` of the word index with bit `s` of the bit position, for the pair of
/// words (`a` = index with that bit clear, `b` = index with it set). `mask` selects
/// the positions whose bit `s` is clear.
#[inline(always)]
fn swap_across(a: u64, b: u64, mask: u64, s: u32) -> (u64, u64) {
    let d = ((a >> s) ^ b) & mask;
    (a ^ (d << s), b ^ d)
}

/// Transposes the eight 8×8 bit matrices formed by byte `k` of all eight words: after
/// the call, bit `i` of byte `k` of word `j` is what bit `j` of byte `k` of word `i`
/// was. It is an involution, used both to enter and to leave the bit-sliced form.
#[inline]
fn transpose8(q: &mut [u64; 8]) {
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let [mut q0, mut q1, mut q2, mut q3, mut q4, mut q5, mut q6, mut q7] = *q;

    (q0, q1) = swap_across(q0, q1, M1, 1);
    (q2, q3) = swap_across(q2, q3, M1, 1);
    (q4, q5) = swap_across(q4, q5, M1, 1);
    (q6, q7) = swap_across(q6, q7, M1, 1);

    (q0, q2) = swap_across(q0, q2, M2, 2);
    (q1, q3) = swap_across(q1, q3, M2, 2);
    (q4, q6) = swap_across(q4, q6, M2, 2);
    (q5, q7) = swap_across(q5, q7, M2, 2);

    (q0, q4) = swap_across(q0, q4, M4, 4);
    (q1, q5) = swap_across(q1, q5, M4, 4);
    (q2, q6) = swap_across(q2, q6, M4, 4);
    (q3, q7) = swap_across(q3, q7, M4, 4);

    *q = [q0, q1, q2, q3, q4, q5, q6, q7];
}

/// Converts four blocks, each given as its two little-endian 64-bit halves (bytes
/// 0..8 = columns 0 and 1, bytes 8..16 = columns 2 and 3), to bit-sliced form.
///
/// Derivation: the target position `p = 16*row + 4*col + lane` splits into the byte
/// index `p >> 3 = 2*row + (col >> 1)` and the in-byte index `p & 7 = 4*(col & 1) +
/// lane`. [`transpose8`] turns that in-byte index into the word index, so before it
/// word `4*(col & 1) + lane` must hold the bytes of columns `col & 1` and `(col & 1) +
/// 2` of that lane, interleaved row by row — which is what [`zip_bytes`] produces.
#[inline]
fn bitslice(halves: &[[u64; 2]; 4]) -> [u64; 8] {
    let mut q = [0u64; 8];
    for (lane, &[lo, hi]) in halves.iter().enumerate() {
        q[lane] = zip_bytes((lo & LO32) | (hi << 32)); // columns 0 and 2
        q[lane + 4] = zip_bytes((lo >> 32) | (hi & HI32)); // columns 1 and 3
    }
    transpose8(&mut q);
    q
}

/// Inverse of [`bitslice`].
#[inline]
fn unbitslice(mut q: [u64; 8]) -> [[u64; 2]; 4] {
    transpose8(&mut q);
    let mut halves = [[0u64; 2]; 4];
    for (lane, out) in halves.iter_mut().enumerate() {
        let even = unzip_bytes(q[lane]); // columns 0 | 2 << 32
        let odd = unzip_bytes(q[lane + 4]); // columns 1 | 3 << 32
        *out = [(even & LO32) | (odd << 32), (even >> 32) | (odd & HI32)];
    }
    halves
}

/// SubBytes on all 64 bytes: the shared Boyar–Peralta circuit (`backend/sbox.rs`), then
/// its affine constant 0x63 as NOTs of slices 0, 1, 5 and 6.
#[inline]
fn sub_bytes(q: &mut [u64; 8]) {
    crate::backend::sbox::sub_bytes_planes(q);
    for (j, x) in q.iter_mut().enumerate() {
        if (crate::backend::sbox::AFFINE_CONSTANT >> j) & 1 == 1 {
            *x = !*x;
        }
    }
}

/// ShiftRows: row `r` (bits 16r..16r+16) is rotated so that column `c` receives what
/// was in column `c + r mod 4`, i.e. the 16-bit row turns right by 4r bits.
#[inline]
fn shift_rows(q: &mut [u64; 8]) {
    for x in q.iter_mut() {
        let v = *x;
        *x = (v & 0x0000_0000_0000_FFFF)
            | ((v >> 4) & 0x0000_0000_0FFF_0000)
            | ((v << 12) & 0x0000_0000_F000_0000)
            | ((v >> 8) & 0x0000_00FF_0000_0000)
            | ((v << 8) & 0x0000_FF00_0000_0000)
            | ((v >> 12) & 0x000F_0000_0000_0000)
            | ((v << 4) & 0xFFF0_0000_0000_0000);
    }
}

/// MixColumns. With `a` a byte of the state and `a1`, `a2`, `a3` the bytes one, two
/// and three rows further down the same column (cyclically), the new byte is
/// `2a + 3a1 + a2 + a3 = 2(a + a1) + a1 + (a2 + a3)`. Rotating a word right by 16 bits
/// brings every row's lower neighbour onto it (`a1`); a further rotation by 32 turns
/// `a + a1` into `a2 + a3`. Doubling in GF(2^8) (modulus x^8+x^4+x^3+x+1) moves slice
/// `j` to slice `j+1` and folds the old top slice into slices 0, 1, 3 and 4.
#[inline]
fn mix_columns(q: &mut [u64; 8]) {
    let a1: [u64; 8] = core::array::from_fn(|j| q[j].rotate_right(16));
    let s: [u64; 8] = core::array::from_fn(|j| q[j] ^ a1[j]);
    let top = s[7];
    let doubled = [
        top,
        s[0] ^ top,
        s[1],
        s[2] ^ top,
        s[3] ^ top,
        s[4],
        s[5],
        s[6],
    ];
    for j in 0..8 {
        q[j] = doubled[j] ^ a1[j] ^ s[j].rotate_right(32);
    }
}

#[inline]
fn add_round_key(q: &mut [u64; 8], rk: &[u64]) {
    for (x, k) in q.iter_mut().zip(rk) {
        *x ^= *k;
    }
}

/// key.len() is 16, 24 or 32 (caller guarantees; debug_assert it).
pub(crate) fn expand_key(key: &[u8], out: &mut BitslicedKey) {
    let mut bytes = [[0u8; 16]; 15];
    let rounds = crate::backend::aes_schedule::expand(key, &mut bytes);

    let mut halves = [[0u64; 2]; 4];
    for (r, dst) in out.rk.chunks_exact_mut(8).take(rounds + 1).enumerate() {
        let rk = &bytes[r];
        let h = [
            u64::from_le_bytes(rk[..8].try_into().unwrap()),
            u64::from_le_bytes(rk[8..].try_into().unwrap()),
        ];
        halves = [h; 4];
        dst.copy_from_slice(&bitslice(&halves));
    }
    out.rk[8 * (rounds + 1)..].fill(0);
    out.rounds = rounds as u64;

    crate::secret::wipe_bytes(bytes.as_flattened_mut());
    crate::secret::wipe_u64(halves.as_flattened_mut());
}

/// Encrypts 4 independent 16-byte blocks in place.
pub(crate) fn encrypt4(k: &BitslicedKey, blocks: &mut [[u8; 16]; 4]) {
    let rounds = k.rounds as usize;
    debug_assert!(matches!(rounds, 10 | 12 | 14));

    let mut halves = [[0u64; 2]; 4];
    for (h, b) in halves.iter_mut().zip(blocks.iter()) {
        let (lo, hi) = b.split_at(8);
        *h = [
            u64::from_le_bytes(lo.try_into().unwrap()),
            u64::from_le_bytes(hi.try_into().unwrap()),
        ];
    }
    let mut q = bitslice(&halves);

    let (first, rest) = k.rk[..8 * (rounds + 1)].split_at(8);
    let (middle, last) = rest.split_at(8 * (rounds - 1));
    add_round_key(&mut q, first);
    for rk in middle.chunks_exact(8) {
        sub_bytes(&mut q);
        shift_rows(&mut q);
        mix_columns(&mut q);
        add_round_key(&mut q, rk);
    }
    sub_bytes(&mut q);
    shift_rows(&mut q);
    add_round_key(&mut q, last);

    for (b, [lo, hi]) in blocks.iter_mut().zip(unbitslice(q)) {
        b[..8].copy_from_slice(&lo.to_le_bytes());
        b[8..].copy_from_slice(&hi.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm::aes::cipher::{BlockEncrypt, KeyInit};
    use aes_gcm::aes::{Aes128, Aes192, Aes256, Block};

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn block(s: &str) -> [u8; 16] {
        hex(s).try_into().unwrap()
    }

    fn expanded(key: &[u8]) -> BitslicedKey {
        let mut k = BitslicedKey {
            rk: [0xa5; 120],
            rounds: 0,
        };
        expand_key(key, &mut k);
        k
    }

    /// Minimal splitmix64 generator for reproducible test inputs.
    struct SplitMix64(u64);

    impl SplitMix64 {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn fill(&mut self, buf: &mut [u8]) {
            for chunk in buf.chunks_mut(8) {
                let v = self.next_u64().to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
        }
    }

    /// Reference AES encryption of one block with the `aes` crate.
    fn reference(key: &[u8], pt: &[u8; 16]) -> [u8; 16] {
        let mut b = Block::from(*pt);
        match key.len() {
            16 => Aes128::new_from_slice(key).unwrap().encrypt_block(&mut b),
            24 => Aes192::new_from_slice(key).unwrap().encrypt_block(&mut b),
            32 => Aes256::new_from_slice(key).unwrap().encrypt_block(&mut b),
            _ => unreachable!(),
        }
        b.into()
    }

    /// Runs one FIPS-197 Appendix C vector in each of the four lanes in turn, next
    /// to unrelated blocks (checked against the reference) in the other lanes.
    fn check_appendix_c(key_hex: &str, ct_hex: &str) {
        let key = hex(key_hex);
        let pt = block("00112233445566778899aabbccddeeff");
        let ct = block(ct_hex);
        let k = expanded(&key);
        let mut rng = SplitMix64(0x0c0f_f1ce);
        for lane in 0..4 {
            let mut blocks = [[0u8; 16]; 4];
            for b in blocks.iter_mut() {
                rng.fill(b);
            }
            blocks[lane] = pt;
            let inputs = blocks;
            encrypt4(&k, &mut blocks);
            assert_eq!(blocks[lane], ct, "lane {lane}");
            for other in (0..4).filter(|&o| o != lane) {
                assert_eq!(blocks[other], reference(&key, &inputs[other]));
            }
        }
    }

    #[test]
    fn fips197_c1_aes128() {
        check_appendix_c(
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        );
    }

    #[test]
    fn fips197_c2_aes192() {
        check_appendix_c(
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        );
    }

    #[test]
    fn fips197_c3_aes256() {
        check_appendix_c(
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        );
    }

    /// Un-bitslices round key `r`, checking that the four lanes agree.
    fn round_key_bytes(k: &BitslicedKey, r: usize) -> [u8; 16] {
        let q: [u64; 8] = k.rk[8 * r..8 * r + 8].try_into().unwrap();
        let lanes = unbitslice(q);
        assert!(
            lanes.iter().all(|l| *l == lanes[0]),
            "round key {r} lanes differ"
        );
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&lanes[0][0].to_le_bytes());
        out[8..].copy_from_slice(&lanes[0][1].to_le_bytes());
        out
    }

    #[test]
    fn fips197_appendix_a_key_expansion() {
        let cases = [
            (
                "2b7e151628aed2a6abf7158809cf4f3c",
                10,
                "d014f9a8c9ee2589e13f0cc8b6630ca6",
            ),
            (
                "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                12,
                "e98ba06f448c773c8ecc720401002202",
            ),
            (
                "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                14,
                "fe4890d1e6188d0b046df344706c631e",
            ),
        ];
        for (key_hex, rounds, last_hex) in cases {
            let key = hex(key_hex);
            let k = expanded(&key);
            assert_eq!(k.rounds, rounds);
            // The first round key is the key itself (its first 16 bytes).
            assert_eq!(round_key_bytes(&k, 0)[..], key[..16]);
            assert_eq!(round_key_bytes(&k, rounds as usize), block(last_hex));
            assert!(k.rk[8 * (rounds as usize + 1)..].iter().all(|&x| x == 0));
        }
    }

    fn gf_mul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        p
    }

    /// The AES S-box from its definition: inversion in GF(2^8), then the affine map.
    fn sbox_reference(x: u8) -> u8 {
        // x^254 = x^-1 (and 0 for 0).
        let mut inv = 1u8;
        for _ in 0..254 {
            inv = gf_mul(inv, x);
        }
        inv ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63
    }

    #[test]
    fn sbox_circuit_exhaustive() {
        for base in (0..256).step_by(64) {
            // Bit position p of slice j carries bit j of the value base + p.
            let mut q = [0u64; 8];
            for p in 0..64 {
                let v = (base + p) as u64;
                for (j, w) in q.iter_mut().enumerate() {
                    *w |= ((v >> j) & 1) << p;
                }
            }
            sub_bytes(&mut q);
            for p in 0..64 {
                let got = (0..8).fold(0u8, |acc, j| acc | ((((q[j] >> p) & 1) as u8) << j));
                let x = (base + p) as u8;
                assert_eq!(got, sbox_reference(x), "S({x:#04x})");
            }
        }
    }

    #[test]
    fn bitslice_layout_and_roundtrip() {
        let mut rng = SplitMix64(7);
        for _ in 0..100 {
            let halves: [[u64; 2]; 4] = core::array::from_fn(|_| [rng.next_u64(), rng.next_u64()]);
            let q = bitslice(&halves);
            // Bit 16*row + 4*col + lane of slice j is bit j of that byte.
            for (lane, h) in halves.iter().enumerate() {
                let bytes: Vec<u8> = h.iter().flat_map(|x| x.to_le_bytes()).collect();
                for (idx, &byte) in bytes.iter().enumerate() {
                    let (col, row) = (idx / 4, idx % 4);
                    let p = 16 * row + 4 * col + lane;
                    for (j, w) in q.iter().enumerate() {
                        assert_eq!((w >> p) & 1, u64::from(byte >> j) & 1);
                    }
                }
            }
            assert_eq!(unbitslice(q), halves);
        }
    }

    fn differential(key_len: usize, seed: u64) {
        let mut rng = SplitMix64(seed);
        let mut key = vec![0u8; key_len];
        for _ in 0..300 {
            rng.fill(&mut key);
            let k = expanded(&key);
            for _ in 0..2 {
                let mut blocks = [[0u8; 16]; 4];
                for b in blocks.iter_mut() {
                    rng.fill(b);
                }
                let inputs = blocks;
                encrypt4(&k, &mut blocks);
                for (got, pt) in blocks.iter().zip(&inputs) {
                    assert_eq!(*got, reference(&key, pt), "key {key:02x?}");
                }
            }
        }
    }

    #[test]
    fn differential_aes128() {
        differential(16, 128);
    }

    #[test]
    fn differential_aes192() {
        differential(24, 192);
    }

    #[test]
    fn differential_aes256() {
        differential(32, 256);
    }

    #[test]
    fn rekeying_clears_longer_schedule() {
        let mut k = BitslicedKey {
            rk: [0; 120],
            rounds: 0,
        };
        expand_key(&[0x11; 32], &mut k);
        expand_key(&[0x22; 16], &mut k);
        assert_eq!(k.rounds, 10);
        assert!(k.rk[88..].iter().all(|&x| x == 0));
        let mut b = [[0x33; 16]; 4];
        encrypt4(&k, &mut b);
        assert_eq!(b[0], reference(&[0x22; 16], &[0x33; 16]));
    }
}
