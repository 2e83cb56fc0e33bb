//! Vector-permute AES for a few blocks (after Mike Hamburg, "Accelerating AES with Vector
//! Permute Instructions", CHES 2009): the S-box from 16-entry tables that live in vector
//! registers (`tbl` on AArch64, `vtbl` on AArch32), so nothing is looked up in memory by a
//! secret. Bit-slicing computes eight blocks at the cost of eight; this costs per block,
//! which is what a message of one to three blocks (plus E(K, J0)) needs. What both NEON
//! backends share is here: the tables, the state layout, the key form, and a scalar model
//! of the whole cipher that the tests check against FIPS-197.
//!
//! **The field.** GF(2^8) is written over its subfield GF(16) as x = i + k·t with
//! t² = t + ζ (ζ ∈ GF(16), t ∉ GF(16)); a state byte holds the nibbles (i, k) of that
//! form ([`TOWER`] maps a standard byte there). With j = i + k, the conjugate of x is
//! j + k·t and its norm N = ij + ζk² lies in GF(16), so 1/x = (j + k·t)/N. Hamburg's
//! trick computes it with unary tables only, using 1/(1/u + 1/v) = uv/(u + v):
//!   io = j + 1/(1/i + 1/(ζk)) = N/(i + ζk),   jo = i + 1/(1/j + 1/(ζk)) = N/(j + ζk),
//! and then 1/x = (ζ + t)/io + (1 + ζ + t)/jo, a sum of a function of io and one of jo:
//! the output tables ([`SB_MID`], [`SB_LAST`]) hold those functions composed with the
//! S-box's linear part (and, for the next round, with ×2 and the change of basis). A
//! table index ≥ 16 reads as 0, and 1/0 is stored as 0x80: it stays ≥ 16 when nibbles
//! are added to it, so it acts as ∞ (1/∞ = 0), which makes x = 0 and the zero nibbles
//! come out right without a branch (the scalar model below checks all 256 inputs).
//!
//! **The state** of a block is row-major (byte 4·row + col), split in two halves of two
//! rows each, so that ShiftRows stays within a half (one 8-byte permutation each) and
//! MixColumns' "next row" is an 8-byte `ext` across the two halves. The S-box's constant
//! 0x63 passes through MixColumns unchanged and is folded into the round keys.
//!
//! **A round** (r < Nr): ShiftRows (folded into the input permutation for r = 1), the
//! S-box tables giving A and 2A, then MixColumns 2A + 3B + C + D (B, C, D the next rows)
//! and the round key; the last round's tables give standard bytes, and its ShiftRows
//! and the way back to column-major order are one permutation ([`OUT_PERM`]).

use crate::backend::aes_schedule::RoundKeys;
use crate::backend::sbox::AFFINE_CONSTANT;

// ---------------------------------------------------------------- field arithmetic
/// Product in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (table construction only).
const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    r
}

const fn gpow(a: u8, mut n: u32) -> u8 {
    let mut r = 1;
    while n > 0 {
        r = gmul(r, a);
        n -= 1;
    }
    r
}

/// 1/a (0 for 0).
const fn ginv(a: u8) -> u8 {
    gpow(a, 254)
}

/// The S-box's linear part (the affine map without 0x63).
const fn linear(y: u8) -> u8 {
    y ^ y.rotate_left(1) ^ y.rotate_left(2) ^ y.rotate_left(3) ^ y.rotate_left(4)
}

/// A generator of GF(16)* inside GF(2^8) (0x03 generates GF(2^8)*, of order 255).
const W: u8 = gpow(3, 17);

/// The GF(16) element with nibble `n`: coordinates on the basis 1, W, W², W³.
const fn nib_dec(n: u8) -> u8 {
    let mut y = 0;
    let mut b = 0;
    while b < 4 {
        if (n >> b) & 1 != 0 {
            y ^= gpow(W, b);
        }
        b += 1;
    }
    y
}

/// The nibble of a GF(16) element.
const fn nib_enc(y: u8) -> u8 {
    let mut n = 0;
    while n < 16 {
        if nib_dec(n) == y {
            return n;
        }
        n += 1;
    }
    panic!("not in GF(16)")
}

const fn in_subfield(y: u8) -> bool {
    gpow(y, 16) == y
}

/// t: the first byte outside GF(16) with ζ = t² + t inside it.
const T: u8 = {
    let mut t = 2u8;
    while in_subfield(t) || !in_subfield(gmul(t, t) ^ t) {
        t += 1;
    }
    t
};
const ZETA: u8 = gmul(T, T) ^ T;

/// The tower form (i, k) of a standard byte x = i + k·t, as the byte i·16 + k.
const fn tower_slow(x: u8) -> u8 {
    let mut i = 0;
    while i < 16 {
        let mut k = 0;
        while k < 16 {
            if nib_dec(i) ^ gmul(nib_dec(k), T) == x {
                return (i << 4) | k;
            }
            k += 1;
        }
        i += 1;
    }
    panic!("no tower form")
}

/// [`tower_slow`] of the eight single-bit bytes: the change of basis is linear, so these
/// columns give it for every byte.
const TOWER: [u8; 8] = {
    let mut c = [0u8; 8];
    let mut b = 0;
    while b < 8 {
        c[b] = tower_slow(1 << b);
        b += 1;
    }
    c
};

/// The tower form of a byte, without a branch or an index on its bits (key setup).
#[inline(always)]
pub(crate) const fn tower(x: u8) -> u8 {
    let mut r = 0;
    let mut b = 0;
    while b < 8 {
        r ^= TOWER[b] & 0u8.wrapping_sub((x >> b) & 1);
        b += 1;
    }
    r
}

// ---------------------------------------------------------------- tables
/// ∞ = 1/0: any byte ≥ 16 that stays ≥ 16 when a nibble is added (see the top).
const INF: u8 = 0x80;

/// 1/u in GF(16), with 1/0 = ∞.
pub(crate) const INV: [u8; 16] = {
    let mut t = [INF; 16];
    let mut n = 1;
    while n < 16 {
        t[n] = nib_enc(ginv(nib_dec(n as u8)));
        n += 1;
    }
    t
};

/// 1/(ζk), with 1/0 = ∞.
pub(crate) const ZINV: [u8; 16] = {
    let mut t = [INF; 16];
    let mut n = 1;
    while n < 16 {
        t[n] = nib_enc(ginv(gmul(ZETA, nib_dec(n as u8))));
        n += 1;
    }
    t
};

/// What the output tables apply to 1/x's parts: the S-box's linear part, then ×`mul` in
/// GF(2^8), then (for a middle round) the change to the tower form.
const fn out_tables(mul: u8, to_tower: bool) -> [[u8; 16]; 2] {
    let parts = [ZETA ^ T, 1 ^ ZETA ^ T];
    let mut t = [[0u8; 16]; 2];
    let mut p = 0;
    while p < 2 {
        // Index 0 never occurs (io, jo ≠ 0 for x ≠ 0, and ∞ for x = 0): left 0.
        let mut n = 1;
        while n < 16 {
            let v = gmul(mul, linear(gmul(parts[p], ginv(nib_dec(n as u8)))));
            t[p][n] = if to_tower { tower(v) } else { v };
            n += 1;
        }
        p += 1;
    }
    t
}

/// Middle rounds: [U(io), V(io)] for A = U[io] ^ V[jo] (tower form) …
pub(crate) const SB_MID: [[u8; 16]; 2] = out_tables(1, true);
/// … and for 2A.
pub(crate) const SB_MID2: [[u8; 16]; 2] = out_tables(2, true);
/// The last round: standard bytes.
pub(crate) const SB_LAST: [[u8; 16]; 2] = out_tables(1, false);

/// The tower form of the low nibble and of the high nibble of a standard byte.
pub(crate) const TOWER_IN: [[u8; 16]; 2] = {
    let mut t = [[0u8; 16]; 2];
    let mut n = 0;
    while n < 16 {
        t[0][n] = tower(n as u8);
        t[1][n] = tower((n as u8) << 4);
        n += 1;
    }
    t
};

// ---------------------------------------------------------------- layout
/// Which byte each position takes from the other side: `IN_PERM` and `SHIFT_ROWS` are
/// indexed by the row-major position (row, col) and `OUT_PERM` by the standard one.
const fn perm(which: u8) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i / 4, i % 4);
        t[i] = match which {
            0 => r + 4 * ((c + r) % 4),
            1 => 4 * r + (c + r) % 4,
            // position i = row + 4·col of the standard block: (r, c) swapped
            _ => 4 * c + (r + c) % 4,
        } as u8;
        i += 1;
    }
    t
}

/// Standard block (byte row + 4·col) → row-major state after ShiftRows (round 1's).
pub(crate) const IN_PERM: [u8; 16] = perm(0);
/// ShiftRows on the row-major state.
pub(crate) const SHIFT_ROWS: [u8; 16] = perm(1);
/// The last round's ShiftRows from the row-major state, into standard order.
pub(crate) const OUT_PERM: [u8; 16] = perm(2);

/// Round key r as the vector-permute rounds add it: 0 as it is (added to the standard
/// block before the change of form); 1..Nr-1 with 0x63, in tower form, row-major; Nr
/// with 0x63 in standard order (added after [`OUT_PERM`]). Constant time: [`tower`] has
/// no branch or index on the key bytes.
pub(crate) fn round_keys(rk: &RoundKeys, rounds: usize, out: &mut RoundKeys) {
    for (r, (o, k)) in out.iter_mut().zip(rk).enumerate().take(rounds + 1) {
        if r == 0 {
            *o = *k;
        } else if r == rounds {
            *o = k.map(|b| b ^ AFFINE_CONSTANT);
        } else {
            for (p, b) in o.iter_mut().enumerate() {
                let (row, col) = (p / 4, p % 4);
                *b = tower(k[row + 4 * col] ^ AFFINE_CONSTANT);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! A byte-by-byte model of the vector code: `tbl` reads 0 at an index ≥ 16, the
    //! halves are the two 8-byte rows pairs, MixColumns is the `ext` form.
    use super::*;

    fn tbl(t: &[u8; 16], i: u8) -> u8 {
        if i < 16 {
            t[i as usize]
        } else {
            0
        }
    }

    /// A and 2A (or, `last`, the standard S-box output without 0x63) of a tower byte.
    fn sbox(x: u8, last: bool) -> (u8, u8) {
        let (i, k) = (x >> 4, x & 15);
        let j = i ^ k;
        let zk = tbl(&ZINV, k);
        let io = tbl(&INV, tbl(&INV, i) ^ zk) ^ j;
        let jo = tbl(&INV, tbl(&INV, j) ^ zk) ^ i;
        let t = if last { &SB_LAST } else { &SB_MID };
        (
            tbl(&t[0], io) ^ tbl(&t[1], jo),
            tbl(&SB_MID2[0], io) ^ tbl(&SB_MID2[1], jo),
        )
    }

    fn standard_sbox(x: u8) -> u8 {
        linear(ginv(x)) ^ AFFINE_CONSTANT
    }

    #[test]
    fn tables_give_the_sbox_for_every_byte() {
        for x in 0..=255u8 {
            let tx = tower(x);
            assert_eq!(
                TOWER_IN[0][(x & 15) as usize] ^ TOWER_IN[1][(x >> 4) as usize],
                tx
            );
            let (a, a2) = sbox(tx, false);
            let s = standard_sbox(x) ^ AFFINE_CONSTANT;
            assert_eq!(a, tower(s), "x = {x:#04x}");
            assert_eq!(a2, tower(gmul(2, s)), "2A, x = {x:#04x}");
            assert_eq!(sbox(tx, true).0, s, "last, x = {x:#04x}");
        }
        assert_eq!(standard_sbox(0x53), 0xed); // FIPS-197 §5.1.1
    }

    fn encrypt(key: &[u8], block: &[u8; 16]) -> [u8; 16] {
        let mut rk = [[0u8; 16]; 15];
        let rounds = crate::backend::aes_schedule::expand(key, &mut rk);
        let mut vk = [[0u8; 16]; 15];
        round_keys(&rk, rounds, &mut vk);
        let x: [u8; 16] = core::array::from_fn(|b| block[b] ^ vk[0][b]);
        let y: [u8; 16] = core::array::from_fn(|p| x[IN_PERM[p] as usize]);
        let mut s = y.map(|b| TOWER_IN[0][(b & 15) as usize] ^ TOWER_IN[1][(b >> 4) as usize]);
        for (r, key) in vk.iter().enumerate().take(rounds).skip(1) {
            if r > 1 {
                s = core::array::from_fn(|p| s[SHIFT_ROWS[p] as usize]);
            }
            let (a, a2): (Vec<u8>, Vec<u8>) = s.iter().map(|&x| sbox(x, false)).unzip();
            // Halves as the NEON code has them: lo = rows 0, 1, hi = rows 2, 3.
            let half = |v: &[u8], h: usize| -> [u8; 8] { v[8 * h..8 * h + 8].try_into().unwrap() };
            let ext4 = |p: [u8; 8], q: [u8; 8]| -> [u8; 8] {
                core::array::from_fn(|i| if i < 4 { p[i + 4] } else { q[i - 4] })
            };
            let x8 = |p: [u8; 8], q: [u8; 8]| -> [u8; 8] { core::array::from_fn(|i| p[i] ^ q[i]) };
            let (lo, hi, lo2, hi2) = (half(&a, 0), half(&a, 1), half(&a2, 0), half(&a2, 1));
            let s4 = {
                let u = x8(lo, hi);
                ext4(u, u)
            };
            let out_lo = x8(x8(x8(lo2, hi), ext4(lo2, hi2)), s4);
            let out_hi = x8(x8(x8(hi2, lo), ext4(hi2, lo2)), s4);
            s = core::array::from_fn(|p| (if p < 8 { out_lo[p] } else { out_hi[p - 8] }) ^ key[p]);
        }
        let a: Vec<u8> = s.iter().map(|&x| sbox(x, true).0).collect();
        core::array::from_fn(|b| a[OUT_PERM[b] as usize] ^ vk[rounds][b])
    }

    /// FIPS-197 Appendix C.1, C.2, C.3: plaintext 00112233…ff, key 000102… (its first
    /// 16, 24 or 32 bytes), and the ciphertext by key length.
    pub(crate) struct Fips197 {
        pub(crate) pt: [u8; 16],
        pub(crate) key: [u8; 32],
        pub(crate) want: [(usize, [u8; 16]); 3],
    }

    pub(crate) fn fips197() -> Fips197 {
        let pt: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let want = [
            "69c4e0d86a7b0430d8cdb78070b4c55a",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
            "8ea2b7ca516745bfeafc49904b496089",
        ]
        .map(|h| core::array::from_fn(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap()));
        Fips197 {
            pt,
            key,
            want: [(16, want[0]), (24, want[1]), (32, want[2])],
        }
    }

    #[test]
    fn fips197_vectors() {
        let Fips197 { pt, key, want } = fips197();
        for (len, ct) in want {
            assert_eq!(encrypt(&key[..len], &pt), ct, "AES-{}", 8 * len);
        }
    }
}
