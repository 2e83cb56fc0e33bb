//! `x86_64-vaes512`: AES-GCM with VAES and VPCLMULQDQ on 512-bit (AVX-512) registers.
//!
//! The method of `x86_64-vaes` (stitched CTR + GHASH in the POLYVAL domain of `common/`,
//! Karatsuba, one reduction per sixteen blocks, the same key layout and key setup) on
//! registers of four blocks: an iteration covers sixteen blocks in four registers, so on
//! Golden Cove-class cores (one 512-bit VAESENC per cycle, as two 256-bit ones) the AES
//! rate is that of `x86_64-vaes` with half the instructions, and VPCLMULQDQ forms four
//! products per instruction instead of two; on Zen 5 the 512-bit AES rate doubles too.
//! The loop is one `asm!` pass (`zmm/mod.rs`) that also gives the GHASH-only and CTR-only
//! loops. Remainders of 1..=15 blocks (with E(K, J0) as one more lane) run in one masked
//! zmm tail (`zmm::tail`: four registers of blocks under byte masks, no scalar loop, one
//! aggregated reduction); a whole message (`whole.rs`: `crypt_whole`, `crypt_message`) ends in
//! the same tail with its partial block and its lengths block, one pass from the loop to
//! the tag; the GHASH-only and CTR-only remainders run on `x86_64-vaes`'s 256-bit code,
//! short messages on `common`'s one-pass path, as for the other x86_64 backends.
//!
//! Selection (`common::cpu`): available where the CPU and OS run AVX-512F/BW/VL, VAES and
//! VPCLMULQDQ; preferred over `x86_64-vaes` except on the Intel cores where 512-bit
//! vectors lower the clock (Skylake-X, Ice Lake, Tiger Lake), the policy of Linux's
//! AES-GCM glue. `STITCHGCM_IMPL` forces either backend on any CPU that runs it.

mod whole;
mod zmm;

use super::common::{
    bswap_mask, ctr_from_native, ctr_to_native, encrypt_block, load, store, vaes512_available,
    vaes512_preferred, x86_backend, XKey,
};
use super::vaes;
use crate::backend::PublicCtr;
use core::arch::x86_64::*;

/// The backend.
pub(crate) struct X86Vaes512;

x86_backend! {
    X86Vaes512 = c"x86_64-vaes512",
    available: vaes512_available,
    preferred: vaes512_preferred,
    crypt: crypt,
    ghash: ghash,
    ctr: ctr,
    whole: whole::whole,
    message: whole::message,
}

/// Blocks per iteration of the 512-bit pass.
const WIDE: usize = 16;

/// The pass's `low` for a counter at `at`: its low byte if public, else
/// [`zmm::NOT_PUBLIC`] (no fast counter step).
#[inline(always)]
fn low_byte(at: PublicCtr) -> u64 {
    match at.low32() {
        Some(c) => u64::from(c & 0xff),
        None => zmm::NOT_PUBLIC,
    }
}

/// `iterations` ≥ 1 sixteen-block iterations, stitched, in one pass over the state `st`
/// (the native counter, then the POLYVAL-domain GHASH state). Decryption hashes the
/// ciphertext it reads in the same iteration. Encryption hashes the ciphertext of the
/// previous iteration, read back from `dst`: the first iteration runs AES only, and the
/// last one's ciphertext is hashed after the loop from the registers. `low`: see
/// [`zmm::pass`].
#[inline(always)]
unsafe fn crypt_wide<const R: usize, const ENC: bool>(
    k: &XKey,
    st: &mut [u8; 32],
    src: *const u8,
    dst: *mut u8,
    iterations: usize,
    low: u64,
) {
    // SAFETY: `src`/`dst` hold 256·iterations bytes (caller's contract); the CPU check
    // was made when the key was set up; `hp` stays inside `dst` behind the blocks being
    // written (encryption) or equals `src` (decryption).
    unsafe {
        if ENC {
            zmm::pass::<R, 1, 1, 1>(k, st, src, dst, dst, iterations, low);
        } else {
            zmm::pass::<R, 1, 1, 0>(k, st, src, dst, src, iterations, low);
        }
    }
}

/// The stitched loop for this key's size (10, 12 or 14 rounds) and direction `ENC`,
/// inlined into its two callers ([`crypt`] and `whole::wide`, where a disassembly finds
/// the loops): called directly, not through a function pointer as `per_key_size!` does for
/// the other x86_64 backends, so that ct-static follows `low` from the callers' arguments
/// to the pass's branch (a kernel called through a pointer starts with public arguments
/// there, whatever its callers pass).
///
/// # Safety
/// As for [`zmm::pass`] with `AES` and `HASH` (`hp` = `dst` when encrypting, `src` when
/// decrypting); the CPU features checked at key setup.
#[inline(always)]
unsafe fn wide<const ENC: bool>(
    k: &XKey,
    st: &mut [u8; 32],
    src: *const u8,
    dst: *mut u8,
    iterations: usize,
    low: u64,
) {
    // SAFETY: forwarded contract.
    unsafe {
        match k.rounds {
            10 => crypt_wide::<10, ENC>(k, st, src, dst, iterations, low),
            12 => crypt_wide::<12, ENC>(k, st, src, dst, iterations, low),
            _ => crypt_wide::<14, ENC>(k, st, src, dst, iterations, low),
        }
    }
}

/// The fused kernel for one direction: whole sixteen-block iterations (with the fast
/// counter step where `at` allows it), then the remainder (and `j0`) in the masked tail.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn crypt<const ENC: bool>(
    k: &XKey,
    ctr: &mut [u8; 16],
    y: &mut [u8; 16],
    mut src: *const u8,
    mut dst: *mut u8,
    blocks: usize,
    j0: Option<&mut [u8; 16]>,
    at: PublicCtr,
) {
    // SAFETY: features enabled; `src`/`dst` hold 16·blocks bytes (caller's contract).
    unsafe {
        let mut c = ctr_to_native(ctr);
        let mut acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
        let iterations = blocks / WIDE;
        if iterations > 0 {
            let mut st = [0u8; 32];
            store(st.as_mut_ptr(), c);
            store(st.as_mut_ptr().add(16), acc);
            wide::<ENC>(k, &mut st, src, dst, iterations, low_byte(at));
            c = load(st.as_ptr());
            acc = load(st.as_ptr().add(16));
            src = src.add(16 * WIDE * iterations);
            dst = dst.add(16 * WIDE * iterations);
        }
        let left = blocks % WIDE;
        if left > 0 {
            tail::<ENC>(k, &mut c, &mut acc, src, dst, left, j0);
        } else if let Some(j) = j0 {
            encrypt_block(k, j);
        }
        ctr_from_native(c, ctr);
        store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
    }
}

/// The masked tail of 1..=15 blocks (and `j0`), compiled per register count, direction
/// and J0 lane.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn tail<const ENC: bool>(
    k: &XKey,
    c: &mut __m128i,
    acc: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    j0: Option<&mut [u8; 16]>,
) {
    // SAFETY: `src`/`dst` hold 16·n bytes, 1 ≤ n ≤ 15 (caller's contract), G = ⌈n/4⌉;
    // `j` is a block exactly when J = 1.
    unsafe {
        let mut st = [0u8; 32];
        store(st.as_mut_ptr(), *c);
        store(st.as_mut_ptr().add(16), *acc);
        let e = ENC as usize;
        let (j, jl) = match j0 {
            Some(j) => (j.as_mut_ptr(), true),
            None => (core::ptr::null_mut(), false),
        };
        let (len, none) = (16 * n, core::ptr::null_mut());
        macro_rules! go {
            ($g:literal) => {
                match (e, jl) {
                    (1, true) => zmm::tail::<$g, 1, 1, 0>(k, &mut st, src, dst, len, j, none),
                    (1, false) => zmm::tail::<$g, 1, 0, 0>(k, &mut st, src, dst, len, j, none),
                    (_, true) => zmm::tail::<$g, 0, 1, 0>(k, &mut st, src, dst, len, j, none),
                    (_, false) => zmm::tail::<$g, 0, 0, 0>(k, &mut st, src, dst, len, j, none),
                }
            };
        }
        match n.div_ceil(4) {
            1 => go!(1),
            2 => go!(2),
            3 => go!(3),
            _ => go!(4),
        }
        *c = _mm_add_epi32(*c, _mm_cvtsi32_si128(n as i32));
        *acc = load(st.as_ptr().add(16));
    }
}

/// GHASH-only: whole sixteen-block groups on zmm (one reduction each), the rest on
/// `x86_64-vaes`'s code.
#[inline(never)]
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn kernel_ghash(k: &XKey, y: &mut [u8; 16], mut data: *const u8, blocks: usize) {
    // SAFETY: `data` holds 16·blocks bytes (caller's contract); features enabled.
    unsafe {
        let iterations = blocks / WIDE;
        if iterations > 0 {
            let mut st = [0u8; 32];
            let acc = _mm_shuffle_epi8(load(y.as_ptr()), bswap_mask());
            store(st.as_mut_ptr().add(16), acc);
            let none = core::ptr::null_mut();
            zmm::pass::<10, 0, 1, 0>(k, &mut st, none, none, data, iterations, zmm::NOT_PUBLIC);
            let acc = load(st.as_ptr().add(16));
            store(y.as_mut_ptr(), _mm_shuffle_epi8(acc, bswap_mask()));
            data = data.add(16 * WIDE * iterations);
        }
        if blocks % WIDE > 0 {
            vaes::ghash(k, y, data, blocks % WIDE);
        }
    }
}

#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ghash(k: &XKey, y: &mut [u8; 16], data: *const u8, blocks: usize) {
    // SAFETY: forwarded contract; features enabled.
    unsafe { kernel_ghash(k, y, data, blocks) }
}

/// CTR keystream only: whole sixteen-block groups on zmm, the rest on `x86_64-vaes`'s
/// code.
#[target_feature(enable = "avx2,aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ctr(k: &XKey, ctr: &mut [u8; 16], mut src: *const u8, mut dst: *mut u8, blocks: usize) {
    // SAFETY: `src`/`dst` hold 16·blocks bytes (caller's contract); features enabled;
    // the round count is the key's (public).
    unsafe {
        let iterations = blocks / WIDE;
        if iterations > 0 {
            let mut st = [0u8; 32];
            store(st.as_mut_ptr(), ctr_to_native(ctr));
            let (none, low) = (core::ptr::null(), zmm::NOT_PUBLIC);
            match k.rounds {
                10 => zmm::pass::<10, 1, 0, 0>(k, &mut st, src, dst, none, iterations, low),
                12 => zmm::pass::<12, 1, 0, 0>(k, &mut st, src, dst, none, iterations, low),
                _ => zmm::pass::<14, 1, 0, 0>(k, &mut st, src, dst, none, iterations, low),
            }
            ctr_from_native(load(st.as_ptr()), ctr);
            src = src.add(16 * WIDE * iterations);
            dst = dst.add(16 * WIDE * iterations);
        }
        vaes::ctr_only(k, ctr, src, dst, blocks % WIDE);
    }
}

#[cfg(test)]
mod tests {
    //! The kernels against the portable `soft` backend at the entry points, beyond the
    //! lengths the message-level tests reach: up to 300 blocks (many loop iterations),
    //! counters that wrap (inc32) inside a group of sixteen, in place and out of place at
    //! odd offsets, every key size, both directions, with and without the J0 lane; and
    //! GHASH-only and CTR-only. Skipped, visibly, where the CPU lacks AVX-512 VAES.
    use super::X86Vaes512;
    use crate::backend::soft::Soft;
    use crate::backend::{Backend, Direction, Material, PublicCtr};

    fn keyed<B: Backend>(key: &[u8]) -> Material {
        let mut m = Material::uninit();
        B::init(&mut m, key);
        m
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            // splitmix64
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    const COUNTS: [usize; 31] = [
        0, 1, 2, 5, 8, 9, 12, 15, 16, 17, 22, 31, 32, 33, 41, 47, 48, 49, 58, 63, 64, 65, 79, 80,
        100, 127, 128, 129, 255, 256, 300,
    ];

    /// One fused call on backend `B`: (output, counter, state, J0 lane).
    #[allow(clippy::too_many_arguments)]
    fn run<B: Backend>(
        m: &Material,
        dir: Direction,
        ctr: [u8; 16],
        y: [u8; 16],
        input: &[u8],
        in_place: bool,
        offset: usize,
        j0: Option<[u8; 16]>,
    ) -> (Vec<u8>, [u8; 16], [u8; 16], Option<[u8; 16]>) {
        let blocks = input.len() / 16;
        let mut buf = vec![0x5au8; input.len() + 2 * offset + 64];
        let mut src_buf = vec![0u8; input.len() + offset];
        let (mut ctr, mut y, mut j) = (ctr, y, j0);
        let out_at = offset;
        if in_place {
            buf[out_at..out_at + input.len()].copy_from_slice(input);
        } else {
            src_buf[offset..].copy_from_slice(input);
        }
        let dst = buf[out_at..].as_mut_ptr();
        let src = if in_place {
            dst as *const u8
        } else {
            src_buf[offset..].as_ptr()
        };
        // SAFETY: `src` and `dst` hold 16·blocks bytes each, equal or disjoint.
        unsafe {
            B::crypt(
                m,
                dir,
                &mut ctr,
                &mut y,
                src,
                dst,
                blocks,
                j.as_mut(),
                PublicCtr::UNKNOWN,
            )
        };
        // The bytes around the output stay untouched.
        assert!(buf[..out_at].iter().all(|&b| b == 0x5a));
        assert!(buf[out_at + input.len()..].iter().all(|&b| b == 0x5a));
        (buf[out_at..out_at + input.len()].to_vec(), ctr, y, j)
    }

    /// `crypt_whole` and `crypt_message` (the stitched loop, then the masked tail with the
    /// partial and lengths blocks; `crypt_message` also the state after the whole blocks)
    /// against `soft`: every length to 300 bytes and some beyond, AAD of several lengths,
    /// both directions, in place and out of place at odd offsets, every key size; nothing
    /// written around the output.
    #[test]
    fn whole_messages_against_soft() {
        if !X86Vaes512::is_available() {
            eprintln!("SKIPPED: x86_64-vaes512 whole messages: this CPU lacks AVX-512 with VAES");
            return;
        }
        let mut rng = Rng(0x4a);
        let mut cases = 0;
        for key_len in [16, 24, 32] {
            let key = rng.bytes(key_len);
            let (m, s) = (keyed::<X86Vaes512>(&key), keyed::<Soft>(&key));
            // Whole iterations only (no tail), with the round-1 table from 20 of them.
            let longer = [511, 512, 513, 767, 768, 1031, 4111, 5120, 8192, 8193];
            for len in (0..=300).chain(longer) {
                for (case, aad_len) in [0usize, 1, 13, 16, 17, 40].into_iter().enumerate() {
                    let dir = if (len + case) % 2 == 0 {
                        Direction::Encrypt
                    } else {
                        Direction::Decrypt
                    };
                    let input = rng.bytes(len);
                    let aad = rng.bytes(aad_len);
                    let mut j0: [u8; 16] = rng.bytes(16).try_into().unwrap();
                    // Half the cases with a 96-bit IV's J0 and its counter position given
                    // (the fast counter step, the round-1 table in long passes).
                    let at = if case % 2 == 0 {
                        j0[12..].copy_from_slice(&[0, 0, 0, 1]);
                        PublicCtr::iv96_after(0)
                    } else {
                        PublicCtr::UNKNOWN
                    };
                    let in_place = (len / 3 + case) % 2 == 0;
                    let offset = (rng.next() % 64) as usize;
                    // (output, tag, y) of crypt_whole (y zero) or crypt_message.
                    let run = |b: &Material, ours: bool, whole: bool| {
                        let mut buf = vec![0x5au8; len + 2 * offset + 64];
                        let mut src_buf = vec![0u8; len + offset];
                        if in_place {
                            buf[offset..offset + len].copy_from_slice(&input);
                        } else {
                            src_buf[offset..].copy_from_slice(&input);
                        }
                        let dst = buf[offset..].as_mut_ptr();
                        let src = if in_place {
                            dst as *const u8
                        } else {
                            src_buf[offset..].as_ptr()
                        };
                        let mut y = [0u8; 16];
                        // SAFETY: `src` and `dst` hold `len` bytes each, equal or disjoint.
                        let tag = unsafe {
                            match (ours, whole) {
                                (true, true) => {
                                    X86Vaes512::crypt_whole(b, dir, &j0, &aad, src, dst, len, at)
                                }
                                (false, true) => {
                                    Soft::crypt_whole(b, dir, &j0, &aad, src, dst, len, at)
                                }
                                (true, false) => X86Vaes512::crypt_message(
                                    b, dir, &j0, &aad, src, dst, len, &mut y, at,
                                ),
                                (false, false) => Soft::crypt_message(
                                    b, dir, &j0, &aad, src, dst, len, &mut y, at,
                                ),
                            }
                        };
                        assert!(buf[..offset].iter().all(|&x| x == 0x5a));
                        assert!(buf[offset + len..].iter().all(|&x| x == 0x5a));
                        (buf[offset..offset + len].to_vec(), tag, y)
                    };
                    for whole in [true, false] {
                        assert!(
                            run(&s, false, whole) == run(&m, true, whole),
                            "whole {whole}: key {key_len}, {len} bytes, AAD {aad_len}, {dir:?}"
                        );
                    }
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 3 * (301 + 10) * 6);
    }

    /// The fast counter step (`Backend::crypt` with the counter's low 32 bits given as
    /// public): every low byte the first iteration can start at, and starts just below an
    /// inc32 wrap, over runs of one, two and twenty-one iterations (the byte wraps inside
    /// an iteration, at its edge and between two; the round-1 table from 20 iterations
    /// with AES-128, fewer with longer keys) with a tail, both directions, every key size,
    /// against `soft` and against the same call with nothing public known.
    #[test]
    fn public_counter_positions_against_soft() {
        if !X86Vaes512::is_available() {
            eprintln!(
                "SKIPPED: x86_64-vaes512 counter positions: this CPU lacks AVX-512 with VAES"
            );
            return;
        }
        let mut rng = Rng(0x29c);
        let mut cases = 0;
        for key_len in [16, 24, 32] {
            let key = rng.bytes(key_len);
            let (m, s) = (keyed::<X86Vaes512>(&key), keyed::<Soft>(&key));
            let highs = [0u32, 0x0000_1200, 0xffff_ff00];
            for (i, low) in (0..=255u32).enumerate() {
                let blocks = [16, 35, 340][i % 3];
                let dir = if i % 2 == 0 {
                    Direction::Encrypt
                } else {
                    Direction::Decrypt
                };
                let c32 = highs[i % 3] | low;
                let mut ctr: [u8; 16] = rng.bytes(16).try_into().unwrap();
                ctr[12..].copy_from_slice(&c32.to_be_bytes());
                let y: [u8; 16] = rng.bytes(16).try_into().unwrap();
                let input = rng.bytes(16 * blocks);
                let run_at = |at: PublicCtr| {
                    let (mut c, mut h) = (ctr, y);
                    let mut out = input.clone();
                    // SAFETY: in place over 16·blocks bytes.
                    unsafe {
                        X86Vaes512::crypt(
                            &m,
                            dir,
                            &mut c,
                            &mut h,
                            out.as_ptr(),
                            out.as_mut_ptr(),
                            blocks,
                            None,
                            at,
                        )
                    };
                    (out, c, h)
                };
                let want = run::<Soft>(&s, dir, ctr, y, &input, true, 0, None);
                let want = (want.0, want.1, want.2);
                let public = PublicCtr::iv96_after(u64::from(c32.wrapping_sub(2)));
                assert_eq!(public.low32(), Some(c32));
                assert!(
                    run_at(public) == want,
                    "public counter {c32:#x}: key {key_len}, {blocks} blocks, {dir:?}"
                );
                assert!(
                    run_at(PublicCtr::UNKNOWN) == want,
                    "counter {c32:#x} not public: key {key_len}, {blocks} blocks, {dir:?}"
                );
                cases += 1;
            }
        }
        assert_eq!(cases, 3 * 256);
    }

    #[test]
    fn kernels_against_soft() {
        if !X86Vaes512::is_available() {
            eprintln!("SKIPPED: x86_64-vaes512 kernels: this CPU lacks AVX-512 with VAES");
            return;
        }
        let mut rng = Rng(0x29);
        let mut cases = 0;
        for key_len in [16, 24, 32] {
            let key = rng.bytes(key_len);
            let (m, s) = (keyed::<X86Vaes512>(&key), keyed::<Soft>(&key));
            for &blocks in &COUNTS {
                for (case, dir) in [Direction::Encrypt, Direction::Decrypt]
                    .into_iter()
                    .enumerate()
                {
                    let input = rng.bytes(16 * blocks);
                    let mut ctr: [u8; 16] = rng.bytes(16).try_into().unwrap();
                    if (blocks + case) % 2 == 0 {
                        // inc32 wraps a few blocks in.
                        ctr[12..].copy_from_slice(
                            &(0u32.wrapping_sub(5 + blocks as u32 % 7)).to_be_bytes(),
                        );
                    }
                    let y: [u8; 16] = rng.bytes(16).try_into().unwrap();
                    let j0 = if blocks % 3 == 0 {
                        Some(rng.bytes(16).try_into().unwrap())
                    } else {
                        None
                    };
                    let in_place = (blocks / 2 + case) % 2 == 0;
                    let offset = (rng.next() % 64) as usize;
                    let want = run::<Soft>(&s, dir, ctr, y, &input, in_place, offset, j0);
                    let got = run::<X86Vaes512>(&m, dir, ctr, y, &input, in_place, offset, j0);
                    assert!(
                        want == got,
                        "crypt: key {key_len}, {blocks} blocks, {dir:?}, in place {in_place}"
                    );
                    // GHASH-only and CTR-only over the same input.
                    let (mut y1, mut y2) = (y, y);
                    // SAFETY: `input` holds 16·blocks bytes.
                    unsafe {
                        Soft::ghash(&s, &mut y1, input.as_ptr(), blocks);
                        X86Vaes512::ghash(&m, &mut y2, input.as_ptr(), blocks);
                    }
                    assert_eq!(y1, y2, "ghash: {blocks} blocks");
                    let (mut c1, mut c2) = (ctr, ctr);
                    let (mut o1, mut o2) = (input.clone(), input.clone());
                    // SAFETY: in place over 16·blocks bytes.
                    unsafe {
                        Soft::ctr(&s, &mut c1, o1.as_ptr(), o1.as_mut_ptr(), blocks);
                        X86Vaes512::ctr(&m, &mut c2, o2.as_ptr(), o2.as_mut_ptr(), blocks);
                    }
                    assert_eq!((o1, c1), (o2, c2), "ctr: key {key_len}, {blocks} blocks");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 3 * COUNTS.len() * 2);
    }
}
