//! Constant-time portable GHASH.
//!
//! Field elements are kept as two big-endian u64 halves of the 16-byte block, which is
//! the bit-reflected form of the GCM polynomial: the most significant bit of byte 0 is
//! the coefficient of x^0. A carry-less product of reflected operands is the reflection
//! of the true product, shifted right by one, so after one left shift the 256-bit
//! product is reduced modulo x^128 + x^7 + x^2 + x + 1 with shifts and XORs alone.
//!
//! The 64×64 carry-less multiply uses ordinary integer multiplication on operands with
//! "holes": each operand is split into four masks of every fourth bit, so in each of the
//! sixteen partial products at most 15 ones meet in any output bit below 60 (and the
//! count of 16 reachable at bits 60..63 carries only past bit 63). Carries therefore
//! never reach the next bit of the same residue class and the wanted bits come out
//! exact. The upper half of the 128-bit product is obtained from the same routine on
//! bit-reversed inputs. No table, no branch, no data-dependent address: timing does not
//! depend on H or the data (integer multiply is constant time on the 64-bit cores this
//! crate targets). The hole technique is the one described for BearSSL's ghash_ctmul64.

const M0: u64 = 0x1111_1111_1111_1111;
const M1: u64 = 0x2222_2222_2222_2222;
const M2: u64 = 0x4444_4444_4444_4444;
const M3: u64 = 0x8888_8888_8888_8888;

/// Low 64 bits of the carry-less product of `x` and `y`.
#[inline(always)]
fn clmul_lo(x: u64, y: u64) -> u64 {
    let (x0, x1, x2, x3) = (x & M0, x & M1, x & M2, x & M3);
    let (y0, y1, y2, y3) = (y & M0, y & M1, y & M2, y & M3);
    let m = u64::wrapping_mul;
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & M0) | (z1 & M1) | (z2 & M2) | (z3 & M3)
}

/// GHASH key: H in reflected halves, with the bit-reversed copies and the Karatsuba
/// middle operands precomputed once per key.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct GhashKey {
    h: [u64; 2],
    h_rev: [u64; 2],
    h_mid: u64,
    h_mid_rev: u64,
}

impl GhashKey {
    pub(crate) fn new(h: &[u8; 16]) -> Self {
        let (hi, lo) = load(h);
        GhashKey {
            h: [hi, lo],
            h_rev: [hi.reverse_bits(), lo.reverse_bits()],
            h_mid: hi ^ lo,
            h_mid_rev: (hi ^ lo).reverse_bits(),
        }
    }

    /// y = (y xor block) * H for each 16-byte block of `data`.
    pub(crate) fn update(&self, y: &mut [u8; 16], data: &[u8]) {
        debug_assert!(data.len() % 16 == 0);
        let (mut y1, mut y0) = load(y);
        for block in data.chunks_exact(16) {
            let (b1, b0) = load(block.try_into().unwrap());
            (y1, y0) = self.mul(y1 ^ b1, y0 ^ b0);
        }
        store(y, y1, y0);
    }

    /// Reflected field multiply of (a1:a0) by H: Karatsuba on 64-bit halves, each
    /// 64×64 product as low half + bit-reversed high half, then shift and reduce.
    #[inline]
    fn mul(&self, a1: u64, a0: u64) -> (u64, u64) {
        let (h1, h0) = (self.h[0], self.h[1]);
        let (r1, r0) = (self.h_rev[0], self.h_rev[1]);
        let a2 = a1 ^ a0;
        let (a1r, a0r, a2r) = (a1.reverse_bits(), a0.reverse_bits(), a2.reverse_bits());

        // Low and high 64-bit halves of the three 127-bit products.
        let lo0 = clmul_lo(a0, h0);
        let lo1 = clmul_lo(a1, h1);
        let lo2 = clmul_lo(a2, self.h_mid);
        let hi0 = clmul_lo(a0r, r0).reverse_bits() >> 1;
        let hi1 = clmul_lo(a1r, r1).reverse_bits() >> 1;
        let hi2 = clmul_lo(a2r, self.h_mid_rev).reverse_bits() >> 1;

        // Karatsuba: middle = p2 - p1 - p0, added at 64 bits.
        let mid_lo = lo2 ^ lo0 ^ lo1;
        let mid_hi = hi2 ^ hi0 ^ hi1;
        // 256-bit product w3:w2:w1:w0 (w3 most significant).
        let mut w0 = lo0;
        let mut w1 = hi0 ^ mid_lo;
        let mut w2 = lo1 ^ mid_hi;
        let mut w3 = hi1;

        // Reflected operands: shift the whole product left by one bit.
        w3 = (w3 << 1) | (w2 >> 63);
        w2 = (w2 << 1) | (w1 >> 63);
        w1 = (w1 << 1) | (w0 >> 63);
        w0 <<= 1;

        // Fold the high-degree half (the low words in reflected order) twice:
        // x^128 = x^7 + x^2 + x + 1 becomes shifts by 128, 127, 126 and 121 bits.
        w2 ^= w0 ^ (w0 >> 1) ^ (w0 >> 2) ^ (w0 >> 7);
        w1 ^= (w0 << 63) ^ (w0 << 62) ^ (w0 << 57);
        w3 ^= w1 ^ (w1 >> 1) ^ (w1 >> 2) ^ (w1 >> 7);
        w2 ^= (w1 << 63) ^ (w1 << 62) ^ (w1 << 57);
        (w3, w2)
    }
}

#[inline(always)]
fn load(b: &[u8; 16]) -> (u64, u64) {
    (
        u64::from_be_bytes(b[..8].try_into().unwrap()),
        u64::from_be_bytes(b[8..].try_into().unwrap()),
    )
}

#[inline(always)]
fn store(b: &mut [u8; 16], hi: u64, lo: u64) {
    b[..8].copy_from_slice(&hi.to_be_bytes());
    b[8..].copy_from_slice(&lo.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-by-bit GHASH multiply straight from SP 800-38D, Algorithm 1 (the "right
    /// shift" form), as an independent check of the multiply above.
    fn mul_spec(x: [u8; 16], y: [u8; 16]) -> [u8; 16] {
        let x = u128::from_be_bytes(x);
        let mut v = u128::from_be_bytes(y);
        let mut z = 0u128;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            let lsb = v & 1;
            v >>= 1;
            if lsb == 1 {
                v ^= 0xe1 << 120;
            }
        }
        z.to_be_bytes()
    }

    #[test]
    fn clmul_lo_matches_schoolbook() {
        let mut s = 0x0123_4567_89ab_cdefu64;
        for _ in 0..2000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = s ^ (s >> 29);
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let y = s ^ (s >> 31);
            let mut want = 0u64;
            for i in 0..64 {
                if (y >> i) & 1 == 1 {
                    want ^= x << i;
                }
            }
            assert_eq!(clmul_lo(x, y), want);
        }
        assert_eq!(clmul_lo(u64::MAX, u64::MAX), 0x5555_5555_5555_5555);
    }

    #[test]
    fn multiply_matches_spec_algorithm() {
        let mut s = 7u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s
        };
        for _ in 0..500 {
            let mut h = [0u8; 16];
            let mut x = [0u8; 16];
            h[..8].copy_from_slice(&next().to_le_bytes());
            h[8..].copy_from_slice(&next().to_le_bytes());
            x[..8].copy_from_slice(&next().to_le_bytes());
            x[8..].copy_from_slice(&next().to_le_bytes());
            let k = GhashKey::new(&h);
            let mut y = [0u8; 16];
            k.update(&mut y, &x);
            assert_eq!(y, mul_spec(x, h));
        }
        // All-ones operands exercise every carry path of the hole multiply.
        let k = GhashKey::new(&[0xff; 16]);
        let mut y = [0u8; 16];
        k.update(&mut y, &[0xff; 16]);
        assert_eq!(y, mul_spec([0xff; 16], [0xff; 16]));
    }

    #[test]
    fn mcgrew_viega_test_case_2_ghash() {
        // GCM spec (McGrew–Viega) test case 2: H = 66e94bd4ef8a2c3b884cfa59ca342b2e,
        // C = 0388dace60b6a392f328c2b971b2fe78, len block 0…0 0080,
        // GHASH(H, {}, C) = f38cbb1ad69223dcc3457ae5b6b0f885.
        let h = hex16("66e94bd4ef8a2c3b884cfa59ca342b2e");
        let k = GhashKey::new(&h);
        let mut y = [0u8; 16];
        let mut data = [0u8; 32];
        data[..16].copy_from_slice(&hex16("0388dace60b6a392f328c2b971b2fe78"));
        data[31] = 0x80;
        k.update(&mut y, &data);
        assert_eq!(y, hex16("f38cbb1ad69223dcc3457ae5b6b0f885"));
    }

    fn hex16(s: &str) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }
}
