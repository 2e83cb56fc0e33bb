//! Whole messages of 8 to 16 blocks (113..=256 bytes) after at most one block of AAD, in
//! one pass (`crypt_message` of both `aarch64-ce` variants): a TLS record or a QUIC packet
//! of a few hundred bytes. The stitched kernel would run them as one group encrypted
//! alone and two hashed after the loop, each with its own reduction, behind a separate
//! GHASH call for the AAD and a separate tail call for E(K, J0) and the lengths block;
//! every one of those is a latency chain the next waits for.
//!
//! Here E(K, J0) and the counter blocks run AES round-major, exactly as many lanes as the
//! message needs, in three batches (J0 with blocks 0..6, then 6..11, then the rest); the
//! GHASH of a batch's ciphertext comes before the next batch's AES, so that its XORs,
//! bit reversals and EXTs run on the vector pipe that Neoverse N1's AES leaves free (AESE
//! and PMULL issue on one pipe there, which bounds the whole pass). The AAD block is
//! multiplied by H during the first batch. The whole data blocks are one Karatsuba sum
//! over H^w..H^1 (the AAD's product folded into the first) with one reduction; that is
//! the state the mode keeps for a message that goes on (`y`). The tag multiplies it,
//! with the partial block and the lengths block, once more. (The batch shapes that were
//! priced: docs/modeling.md.)
//!
//! Constant time as `short.rs`: branches depend on lengths only.

use super::short::{aes_lanes, Start, Sum};
use super::CeKey;
use crate::backend::aarch64::common::{from_halves, to_halves};
use crate::backend::aarch64::one_pass::{bits, block_at, mask_halves, unrolled};
use crate::backend::partial::{load_partial, store_partial};
use core::arch::aarch64::*;

/// Blocks (a partial last one counts) a message must have to be taken here.
pub(super) const MIN_BLOCKS: usize = 8;
/// At most: J0 and sixteen counter blocks are seventeen AES lanes, and the whole data
/// blocks take the sixteen stored powers of H.
pub(super) const MAX_BLOCKS: usize = 16;
/// Where the second and the third AES batch start (the blocks are hashed batch by batch).
const FIRST: usize = 6;
const SECOND: usize = 11;

/// The block of halves `lo`, `hi` by two FMOVs from general registers (on Neoverse N1
/// no vector-pipe µop; LLVM would copy a vector and insert a lane instead).
#[inline(always)]
fn from_general(lo: u64, hi: u64) -> uint8x16_t {
    let v: uint8x16_t;
    // SAFETY: two register moves; no memory, stack or flags touched.
    unsafe {
        core::arch::asm!(
            "fmov {v:d}, {lo}",
            "fmov {v:v}.d[1], {hi}",
            v = out(vreg) v,
            lo = in(reg) lo,
            hi = in(reg) hi,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    v
}

/// The pass over a message of `W` whole blocks and, with `P`, a partial one: the output,
/// the GHASH state after the AAD and the whole blocks at `y` (GCM byte order), and the
/// full tag. (`P` is a parameter so that every power of H is a constant.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn pass<const W: usize, const P: bool, const ENC: bool>(
    k: &CeKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    y: &mut [u8; 16],
) -> [u8; 16] {
    let b = W + P as usize;
    debug_assert!((MIN_BLOCKS..=MAX_BLOCKS).contains(&b) && len.div_ceil(16) == b);
    debug_assert!(len / 16 == W && aad.len() <= 16);
    // SAFETY (whole body): only inlined into `neon,aes` kernels; every access stays
    // inside the `len` bytes of `src`/`dst` (the last block through load_partial /
    // store_partial), the AAD's bytes and `y`; the powers used are H^1..H^16.
    unsafe {
        let st = Start::message(j0, aad.len(), len);
        // Lane 0 is J0, lane i + 1 the counter block of block i.
        let mut s = [st.j0; MAX_BLOCKS + 1];
        // The counter blocks are built in general registers (`rev`, `orr`) and moved
        // in whole, which keeps two vector µops per block off the pipes the AES and
        // GHASH need (the generated loops do the same).
        let be = vreinterpretq_u64_u8(st.j0);
        let ivlo = vgetq_lane_u64::<0>(be);
        let iv2 = vgetq_lane_u64::<1>(be) & 0xffff_ffff;
        let c0 = vgetq_lane_u32::<3>(st.ctr);
        unrolled!(16; b, i => {
            let c = u64::from(c0.wrapping_add(i as u32).swap_bytes());
            s[i + 1] = from_general(ivlo, iv2 | (c << 32));
        });
        // The first batch: J0 and blocks 0..FIRST. Its GHASH comes before the next
        // batch's AES, so that its XORs and bit reversals run on the vector pipe the
        // AES does not use.
        let last = aes_lanes::<{ FIRST + 1 }>(k, &mut s);
        let z = vdupq_n_u8(0);
        let mut sum = Sum::zero();
        let mut partial = z;
        // Block i: output, and its ciphertext into the sum (whole block i takes
        // H^(W-i); a partial last block waits for the tag). Block 0 carries the AAD's
        // state A·H.
        macro_rules! block {
            ($i:expr, $after_aad:expr) => {{
                let i: usize = $i;
                let left = if i < W { 16 } else { len - 16 * W };
                let x = if left < 16 {
                    from_halves(load_partial(src.add(16 * i), left))
                } else {
                    vld1q_u8(src.add(16 * i))
                };
                let o = veorq_u8(s[i + 1], veorq_u8(last, x));
                if left >= 16 {
                    vst1q_u8(dst.add(16 * i), o);
                } else {
                    store_partial(dst.add(16 * i), to_halves(o), left);
                }
                let hashed = if !ENC {
                    x
                } else if left < 16 {
                    vandq_u8(o, from_halves(mask_halves(left)))
                } else {
                    o
                };
                let mut h = vrbitq_u8(hashed);
                if i == 0 {
                    h = veorq_u8(h, $after_aad);
                }
                if i < W {
                    sum.add(k, h, W - i);
                } else {
                    partial = h;
                }
            }};
        }
        let mut after_aad = z;
        if !aad.is_empty() {
            let mut a = Sum::zero();
            a.add(k, vrbitq_u8(block_at(aad.as_ptr(), 0, aad.len())), 1);
            after_aad = a.reduce_onto(z);
        }
        unrolled!(16; FIRST, i => {
            block!(i, after_aad);
        });
        // The later batches: AES of blocks from..to (lanes from+1..=to), then their
        // GHASH, which overlaps the next batch's AES.
        macro_rules! batch {
            ($from:expr, $to:expr) => {{
                let (from, to): (usize, usize) = ($from, $to);
                let lanes = &mut s[from + 1..];
                match to - from {
                    0 => {}
                    1 => _ = aes_lanes::<1>(k, lanes),
                    2 => _ = aes_lanes::<2>(k, lanes),
                    3 => _ = aes_lanes::<3>(k, lanes),
                    4 => _ = aes_lanes::<4>(k, lanes),
                    5 => _ = aes_lanes::<5>(k, lanes),
                    6 => _ = aes_lanes::<6>(k, lanes),
                    7 => _ = aes_lanes::<7>(k, lanes),
                    8 => _ = aes_lanes::<8>(k, lanes),
                    _ => unreachable!(),
                }
                unrolled!(16; to, i => {
                    if i >= from {
                        block!(i, z);
                    }
                });
            }};
        }
        let second = if b < SECOND { b } else { SECOND };
        batch!(FIRST, second);
        batch!(second, b);
        let state = sum.reduce_onto(z);
        vst1q_u8(y.as_mut_ptr(), vrbitq_u8(state));

        // The tag: the state times H, or with a partial block (state + P)·H^2 + L·H;
        // E(K, J0) goes in before the bit order is turned back.
        let lengths = from_halves(bits(aad.len() as u64, len as u64));
        let mut t = Sum::zero();
        if P {
            t.add(k, veorq_u8(state, partial), 2);
            t.add(k, lengths, 1);
        } else {
            t.add(k, veorq_u8(state, lengths), 1);
        }
        let mask = vrbitq_u8(veorq_u8(s[0], last));
        let tag = vrbitq_u8(t.reduce_onto(mask));
        let mut full = [0u8; 16];
        vst1q_u8(full.as_mut_ptr(), tag);
        full
    }
}

/// [`pass`] compiled for one block count and direction; every argument in a register.
#[inline(never)]
#[target_feature(enable = "neon,aes")]
unsafe fn kernel<const W: usize, const P: bool, const ENC: bool>(
    k: &CeKey,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    y: &mut [u8; 16],
) -> [u8; 16] {
    // SAFETY: forwarded contract; features enabled on this function.
    unsafe { pass::<W, P, ENC>(k, j0, aad, src, dst, len, y) }
}

type Kernel =
    unsafe fn(&CeKey, &[u8; 16], &[u8], *const u8, *mut u8, usize, &mut [u8; 16]) -> [u8; 16];

/// Whether a message of `aad_len` and `len` bytes is taken here.
#[inline(always)]
pub(super) fn fits(aad_len: usize, len: usize) -> bool {
    aad_len <= 16 && (MIN_BLOCKS..=MAX_BLOCKS).contains(&len.div_ceil(16))
}

/// A whole message that [`fits`], in direction `enc`: the output, the GHASH state after
/// the AAD and the whole blocks at `y`, and the full tag.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, equal or disjoint; the message
/// [`fits`]; the CPU has AES and PMULL.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn medium(
    k: &CeKey,
    enc: bool,
    j0: &[u8; 16],
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    y: &mut [u8; 16],
) -> [u8; 16] {
    debug_assert!(fits(aad.len(), len));
    // The kernel of (whole blocks, partial block?) for the direction, by a dense index
    // (so that the choice is one table lookup): 2·(blocks − 8), plus one with a partial
    // block.
    let index = 2 * (len.div_ceil(16) - MIN_BLOCKS) + usize::from(len % 16 != 0);
    macro_rules! by_blocks {
        ($dir:expr) => {
            match index {
                0 => kernel::<8, false, $dir> as Kernel,
                1 => kernel::<7, true, $dir> as Kernel,
                2 => kernel::<9, false, $dir> as Kernel,
                3 => kernel::<8, true, $dir> as Kernel,
                4 => kernel::<10, false, $dir> as Kernel,
                5 => kernel::<9, true, $dir> as Kernel,
                6 => kernel::<11, false, $dir> as Kernel,
                7 => kernel::<10, true, $dir> as Kernel,
                8 => kernel::<12, false, $dir> as Kernel,
                9 => kernel::<11, true, $dir> as Kernel,
                10 => kernel::<13, false, $dir> as Kernel,
                11 => kernel::<12, true, $dir> as Kernel,
                12 => kernel::<14, false, $dir> as Kernel,
                13 => kernel::<13, true, $dir> as Kernel,
                14 => kernel::<15, false, $dir> as Kernel,
                15 => kernel::<14, true, $dir> as Kernel,
                16 => kernel::<16, false, $dir> as Kernel,
                17 => kernel::<15, true, $dir> as Kernel,
                _ => unreachable!("message outside the medium limits"),
            }
        };
    }
    let f = if enc {
        by_blocks!(true)
    } else {
        by_blocks!(false)
    };
    // SAFETY: forwarded contract.
    unsafe { f(k, j0, aad, src, dst, len, y) }
}
