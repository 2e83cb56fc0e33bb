//! The AES key expansion of FIPS-197 §5.2, written once: every backend and the nettle
//! front-end's schedule image start from it.
//!
//! Round key `r` comes out as the 16 bytes `rk[r]` in the standard order of the state
//! (column by column) — also the image nettle keeps in its `aes*_ctx` on little-endian
//! hosts. Each backend turns it into its own form (bit planes, byte-reversed registers).
//!
//! SubWord is a parameter. Backends with an AES unit pass it (AESENCLAST or AESE with a
//! zero round key on a word broadcast to all four columns: ShiftRows then has no effect),
//! which keeps key setup cheap for callers who expand a key per message; the others use
//! [`sub_word`], the shared S-box circuit. Both are constant time; the only branches
//! here depend on the word index, never on key bytes.

use crate::backend::sbox;
use crate::secret::wipe_bytes;

/// Round keys as bytes, room for AES-256's fifteen.
pub(crate) type RoundKeys = [[u8; 16]; 15];

/// Expands `key` (16, 24 or 32 bytes; the caller has checked) into `rk` with the shared
/// constant-time S-box circuit; rounds past the last are zeroed. Returns the number of
/// rounds (10, 12 or 14).
pub(crate) fn expand(key: &[u8], rk: &mut RoundKeys) -> usize {
    expand_with(key, sub_word, rk)
}

/// [`expand`] with a caller-supplied SubWord (the S-box on each byte of a word).
#[inline(always)]
pub(crate) fn expand_with(key: &[u8], sub_word: impl Fn(u32) -> u32, rk: &mut RoundKeys) -> usize {
    debug_assert!(matches!(key.len(), 16 | 24 | 32));
    let nk = key.len() / 4;
    let rounds = nk + 6;
    let total = 4 * (rounds + 1);
    // Words are little-endian u32s of their four bytes: RotWord, which moves byte 0 to
    // the end, is then a right rotation by 8 bits.
    let mut w = [0u32; 60];
    for (wi, b) in w.iter_mut().zip(key.chunks_exact(4)) {
        *wi = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    let mut rcon = 1u32;
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t.rotate_right(8)) ^ rcon;
            // x·rcon in GF(2^8); rcon is public.
            rcon = (rcon << 1) ^ (0x11b & 0u32.wrapping_sub(rcon >> 7));
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    for (i, word) in w.iter().enumerate() {
        let bytes = if i < total {
            word.to_le_bytes()
        } else {
            [0; 4]
        };
        rk[i / 4][4 * (i % 4)..4 * (i % 4) + 4].copy_from_slice(&bytes);
    }
    // SAFETY: any u32 array may be viewed as bytes of the same total size.
    wipe_bytes(unsafe { core::slice::from_raw_parts_mut(w.as_mut_ptr() as *mut u8, 240) });
    rounds
}

/// SubWord through the shared circuit: the four bytes become eight bit planes of one
/// `u8` each (plane `j` holds bit `j` of byte `k` at bit `k`).
pub(crate) fn sub_word(w: u32) -> u32 {
    let bytes = w.to_le_bytes();
    let mut q = [0u8; 8];
    for (j, plane) in q.iter_mut().enumerate() {
        for (k, b) in bytes.iter().enumerate() {
            *plane |= ((b >> j) & 1) << k;
        }
    }
    sbox::sub_bytes_planes(&mut q);
    let mut out = [sbox::AFFINE_CONSTANT; 4];
    for (j, plane) in q.iter().enumerate() {
        for (k, o) in out.iter_mut().enumerate() {
            *o ^= ((plane >> k) & 1) << j;
        }
    }
    let r = u32::from_le_bytes(out);
    wipe_bytes(&mut q);
    wipe_bytes(&mut out);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The S-box from its definition (inverse in GF(2^8), then the affine map), with
    /// data-dependent branches: fine for a test reference.
    fn sbox_reference(x: u8) -> u8 {
        let mul = |mut a: u8, mut b: u8| {
            let mut p = 0;
            while b != 0 {
                if b & 1 != 0 {
                    p ^= a;
                }
                a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
                b >>= 1;
            }
            p
        };
        let mut inv = 1u8;
        for _ in 0..254 {
            inv = mul(inv, x);
        }
        let inv = if x == 0 { 0 } else { inv };
        inv ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63
    }

    #[test]
    fn sub_word_is_the_sbox_on_every_byte_value() {
        for x in 0..=255u8 {
            let w = u32::from_le_bytes([x, x ^ 0x5a, x.wrapping_mul(7), !x]);
            let expect = w.to_le_bytes().map(sbox_reference);
            assert_eq!(sub_word(w), u32::from_le_bytes(expect), "byte {x:#04x}");
        }
    }

    /// FIPS-197 Appendix A: the key expansion examples (first and last round keys).
    #[test]
    fn fips197_appendix_a() {
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
            let mut rk = [[0xa5; 16]; 15];
            assert_eq!(expand(&key, &mut rk), rounds);
            assert_eq!(rk[0][..], key[..16]);
            assert_eq!(rk[rounds][..], hex(last_hex)[..]);
            assert!(rk[rounds + 1..].iter().all(|r| *r == [0; 16]));
        }
    }
}
