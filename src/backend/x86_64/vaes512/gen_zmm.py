#!/usr/bin/env python3
"""Generates zmm.rs: the 512-bit pass of x86_64-vaes512 as one `asm!` template.

Usage (the contract of the other generators under src/backend, gen_*.py):
  python3 src/backend/x86_64/vaes512/gen_zmm.py            write zmm.rs (beside this file)
  python3 src/backend/x86_64/vaes512/gen_zmm.py --verify   write nothing: exit 1 unless zmm.rs
                                                           is what this generates

Why generated: the listing is flat (every instruction of one iteration in order, the
GHASH groups and the reduction steps slotted between the AES rounds, `.if` on the
template's constants for the key size and the AES / GHASH switches); the tables below say
the order once. The method and the register plan are in zmm.rs's opening comment.
"""
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zmm.rs')
POLY = 384  # offset of the reduction constant in CONSTANTS


def keys(a):
    """Round keys 0-9 in zmm16-25, 10-13 in zmm26-29 as the key size needs, the last in
    zmm30, each broadcast to the four lanes."""
    for r in range(10):
        a(f'vbroadcasti32x4 zmm{16 + r}, [{{rk}} + {16 * r}]')
    a('.if {r} > 10')
    a('vbroadcasti32x4 zmm26, [{rk} + 160]')
    a('vbroadcasti32x4 zmm27, [{rk} + 176]')
    a('.endif')
    a('.if {r} > 12')
    a('vbroadcasti32x4 zmm28, [{rk} + 192]')
    a('vbroadcasti32x4 zmm29, [{rk} + 208]')
    a('.endif')
    a('vbroadcasti32x4 zmm30, [{rk} + {r} * 16]')


def counters(a):
    """zmm0-3: the counter blocks of zmm15 + 0, 4, 8, 12 in GCM byte order, XORed with
    round key 0."""
    a('vpshufb zmm0, zmm15, zmm14')
    for b in (1, 2, 3):
        a(f'vpaddd zmm{b}, zmm15, [{{c}} + {64 + 64 * b}]')
        a(f'vpshufb zmm{b}, zmm{b}, zmm14')


def reduce(a, step):
    """The three steps from the sums of products zmm8/9/10 (LO, MI, HI) to the state
    xmm11. The product is HI·x^128 + MI·x^64 + LO; its POLYVAL value, times
    x^-128, is folded 64 bits at a time without assembling the two 128-bit halves: for a
    64-bit a, a·x^-64 = a·x^64 + a·c (mod P, c = 0xc2 << 56), so LO·x^-64 = swap(LO) ^
    clmul(lo0, c) joins MI, and (MI ^ that)·x^-64 = swap(..) ^ clmul(..0, c) joins HI
    (the order in which Linux's VAES/AVX-512 GCM code folds its products: LO into MI,
    MI into HI). Every lane at once; the four lanes are summed last."""
    if step == 1:
        a(f'vpclmulqdq zmm12, zmm8, [{{c}} + {POLY}], 0x10')
        a('vpshufd zmm8, zmm8, 0x4e')
    elif step == 2:
        a('vpternlogq zmm9, zmm8, zmm12, 0x96')
        a(f'vpclmulqdq zmm12, zmm9, [{{c}} + {POLY}], 0x10')
        a('vpshufd zmm9, zmm9, 0x4e')
    else:
        a('vpternlogq zmm10, zmm9, zmm12, 0x96')
        a('vextracti64x4 ymm12, zmm10, 1')
        a('vpxor ymm10, ymm10, ymm12')
        a('vextracti128 xmm12, ymm10, 1')
        a('vpxor xmm11, xmm10, xmm12')


def asm_lines(out):
    return ''.join(f'            "{s}",\n' for s in out)


def listing():
    out = []
    a = out.append

    def aes_round(k, cond):
        if cond:
            a(f'.if {cond}')
        for b in range(4):
            a(f'vaesenc zmm{b}, zmm{b}, zmm{k}')
        if cond:
            a('.endif')

    def hash_group(g, late=False):
        # Four blocks against H^(16-4g-j): lo, hi and the two middle products
        # (schoolbook: four multiplies, no Karatsuba pre-XOR, the middle sum in one
        # ternary XOR). Late: the ciphertext of the iteration just done, from zmm{g}.
        if late:
            a(f'vpshufb zmm4, zmm{g}, zmm14')
        else:
            a(f'vmovdqu64 zmm4, [{{hp}} + {64 * g}]')
            a('vpshufb zmm4, zmm4, zmm14')
        if g == 0:
            a('vpxorq zmm4, zmm4, zmm11')  # the state joins block 0
        hg = f'[{{h}} + {64 * g}]'
        if g == 0:
            a(f'vpclmulqdq zmm8, zmm4, {hg}, 0x00')
            a(f'vpclmulqdq zmm10, zmm4, {hg}, 0x11')
            a(f'vpclmulqdq zmm9, zmm4, {hg}, 0x01')
            a(f'vpclmulqdq zmm5, zmm4, {hg}, 0x10')
            a('vpxorq zmm9, zmm9, zmm5')
        else:
            a(f'vpclmulqdq zmm5, zmm4, {hg}, 0x00')
            a(f'vpclmulqdq zmm6, zmm4, {hg}, 0x11')
            a(f'vpclmulqdq zmm7, zmm4, {hg}, 0x01')
            a(f'vpclmulqdq zmm4, zmm4, {hg}, 0x10')
            a('vpxorq zmm8, zmm8, zmm5')
            a('vpxorq zmm10, zmm10, zmm6')
            a('vpternlogq zmm9, zmm7, zmm4, 0x96')

    def iteration(aes, hash_, advance_hp=True):
        """One iteration; `aes` and `hash_` are assembler conditions ('1' always)."""
        g = lambda c: None if c == '1' else c  # noqa: E731
        if g(aes):
            a(f'.if {aes}')
        counters(a)
        a('vpaddd zmm15, zmm15, [{c} + 320]')
        for b in range(4):
            a(f'vpxorq zmm{b}, zmm{b}, zmm16')
        if g(aes):
            a('.endif')
        # Rounds 1-7 each carry one step of GHASH; the rest are AES alone.
        steps = [lambda: hash_group(0), lambda: hash_group(1), lambda: hash_group(2),
                 lambda: hash_group(3), lambda: reduce(a, 1), lambda: reduce(a, 2),
                 lambda: reduce(a, 3)]
        for r in range(1, 10):
            aes_round(16 + r, g(aes))
            if r <= len(steps) and hash_ != '0':
                if g(hash_):
                    a(f'.if {hash_}')
                steps[r - 1]()
                if g(hash_):
                    a('.endif')
        if g(aes):
            a(f'.if {aes}')
        a('.if {r} > 10')
        aes_round(26, None)
        aes_round(27, None)
        a('.endif')
        a('.if {r} > 12')
        aes_round(28, None)
        aes_round(29, None)
        a('.endif')
        # The last round with the input folded into its key, and the output.
        for b in range(4):
            a(f'vpxorq zmm{4 + b}, zmm30, [{{src}} + {64 * b}]')
        for b in range(4):
            a(f'vaesenclast zmm{b}, zmm{b}, zmm{4 + b}')
        for b in range(4):
            a(f'vmovdqu64 [{{dst}} + {64 * b}], zmm{b}')
        if g(aes):
            a('.endif')
        a('add {src}, 256')
        a('add {dst}, 256')
        if advance_hp:
            a('add {hp}, 256')

    # Set-up: the mask; the counters c..c+3; the round keys; the state.
    a('vmovdqu64 zmm14, [{c}]')
    a('.if {aes}')
    a('vbroadcasti32x4 zmm15, [{st}]')
    a('vpaddd zmm15, zmm15, [{c} + 64]')
    keys(a)
    a('.endif')
    a('.if {hash}')
    a('vmovdqu xmm11, [{st} + 16]')
    a('.endif')
    a('.if {encp}')
    # Encryption: the first iteration runs AES alone; each further one hashes the
    # ciphertext the one before it stored ({hp} = {dst} - 256) between its rounds; the
    # last iteration's ciphertext is hashed after the loop, from the registers.
    iteration('1', '0', advance_hp=False)  # {hp} stays one iteration behind
    a('dec {n}')
    a('jz 4f')
    a('2:')
    iteration('1', '1')
    a('dec {n}')
    a('jnz 2b')
    a('4:')
    for g_ in range(4):
        hash_group(g_, late=True)
    for s_ in (1, 2, 3):
        reduce(a, s_)
    a('.else')
    # Decryption (hashing the input between the rounds), AES alone, or GHASH alone.
    a('2:')
    iteration('{aes}', '{hash}')
    a('dec {n}')
    a('jnz 2b')
    a('.endif')
    a('.if {aes}')
    a('vmovdqu [{st}], xmm15')
    a('.endif')
    a('.if {hash}')
    a('vmovdqu [{st} + 16], xmm11')
    a('.endif')
    a('vzeroupper')
    return asm_lines(out)


def tail_listing():
    """1..16 blocks, the last of them possibly partial, and, if {jl}, the J0 lane: {grp} =
    1..4 registers of blocks (as many as the n blocks need, so that one to four blocks
    cost one register's rounds), the bytes past the data masked off (byte masks k1-k4, one
    per register) in every load and store. Decryption hashes its input between the rounds,
    encryption its output after them (zeroed past the data: the partial block is hashed
    zero-padded); H^n..H^1 (at {hp}) are loaded under block masks (k5 for the last
    register; the others are whole), so nothing past the data or the n powers is read
    anywhere. With {lb}, the state then absorbs the lengths block at {lp} and is multiplied
    by H once more: the whole message's GHASH. The key size is a run-time branch on {rn}
    (public), so the tail is compiled per register count, direction, J0 lane and lengths
    step only."""
    out = []
    a = out.append

    def each(body):
        """`body(b)` for the registers b < {grp}."""
        for b in range(4):
            if b:
                a(f'.if {{grp}} > {b}')
            body(b)
            if b:
                a('.endif')

    def aes_round(k):
        each(lambda b: a(f'vaesenc zmm{b}, zmm{b}, zmm{k}'))
        a('.if {jl}')
        a(f'vaesenc xmm31, xmm31, xmm{k}')
        a('.endif')

    def hash_group(g, enc):
        m = f'{{{{k{g + 1}}}}}'
        if enc:
            a(f'vmovdqa64 zmm4, zmm{g}')
        else:
            a(f'vmovdqu8 zmm4 {m} {{{{z}}}}, [{{src}} + {64 * g}]')
        a('vpshufb zmm4, zmm4, zmm14')
        # {lb} = 2: the partial block (if any) is set aside (to lane 0 of zmm13, zero if
        # none) and left out of the sum, which then covers the whole blocks only.
        a(f'.if {{lb}} == 2 && {{grp}} == {g + 1}')
        a('vpcompressq zmm13 {{k6}} {{z}}, zmm4')
        a('vmovdqu64 zmm4 {{k7}} {{z}}, zmm4')
        a('.endif')
        if g == 0:
            a('vpxorq zmm4, zmm4, zmm11')
        # The powers by whole blocks: the last register's from k5, the others' are all
        # there (the low eight bits of their byte masks are all ones).
        a(f'.if {{grp}} == {g + 1}')
        a(f'vmovdqu64 zmm6 {{{{k5}}}} {{{{z}}}}, [{{hp}} + {64 * g}]')
        a('.else')
        a(f'vmovdqu64 zmm6 {m} {{{{z}}}}, [{{hp}} + {64 * g}]')
        a('.endif')
        if g == 0:
            a('vpclmulqdq zmm8, zmm4, zmm6, 0x00')
            a('vpclmulqdq zmm10, zmm4, zmm6, 0x11')
            a('vpclmulqdq zmm9, zmm4, zmm6, 0x01')
            a('vpclmulqdq zmm5, zmm4, zmm6, 0x10')
            a('vpxorq zmm9, zmm9, zmm5')
        else:
            a('vpclmulqdq zmm5, zmm4, zmm6, 0x00')
            a('vpclmulqdq zmm7, zmm4, zmm6, 0x11')
            a('vpclmulqdq zmm12, zmm4, zmm6, 0x01')
            a('vpclmulqdq zmm4, zmm4, zmm6, 0x10')
            a('vpxorq zmm8, zmm8, zmm5')
            a('vpxorq zmm10, zmm10, zmm7')
            a('vpternlogq zmm9, zmm12, zmm4, 0x96')

    a('vmovdqu64 zmm14, [{c}]')
    each(lambda b: a(f'kmovq k{b + 1}, [{{m}} + {8 * b}]'))
    a('kmovq k5, [{m} + 32]')
    a('.if {lb} == 2')
    a('kmovq k6, [{m} + 40]')
    a('kmovq k7, [{m} + 48]')
    a('.endif')
    a('vbroadcasti32x4 zmm15, [{st}]')
    a('vpaddd zmm15, zmm15, [{c} + 64]')
    # Round keys 0-13 (those past the key size are read but not used: the schedule
    # array always has fifteen) and the last from {lk}.
    for r in range(14):
        a(f'vbroadcasti32x4 zmm{16 + r}, [{{rk}} + {16 * r}]')
    a('vbroadcasti32x4 zmm30, [{lk}]')
    a('vmovdqu xmm11, [{st} + 16]')
    a('vpshufb zmm0, zmm15, zmm14')
    for b in (1, 2, 3):
        a(f'.if {{grp}} > {b}')
        a(f'vpaddd zmm{b}, zmm15, [{{c}} + {64 + 64 * b}]')
        a(f'vpshufb zmm{b}, zmm{b}, zmm14')
        a('.endif')
    each(lambda b: a(f'vpxorq zmm{b}, zmm{b}, zmm16'))
    a('.if {jl}')
    a('vmovdqu64 xmm31, [{j}]')
    a('vpxorq xmm31, xmm31, xmm16')
    a('.endif')
    dec_steps = [lambda g=g: hash_group(g, False) for g in range(4)] + \
        [lambda s=s: reduce(a, s) for s in (1, 2, 3)]
    for r in range(1, 10):
        aes_round(16 + r)
        if r <= len(dec_steps):
            a('.if {enc} == 0')
            if r <= 4 and r > 1:
                a(f'.if {{grp}} > {r - 1}')
            dec_steps[r - 1]()
            if r <= 4 and r > 1:
                a('.endif')
            a('.endif')
    a('cmp {rn}, 10')
    a('je 3f')
    aes_round(26)
    aes_round(27)
    a('cmp {rn}, 12')
    a('je 3f')
    aes_round(28)
    aes_round(29)
    a('3:')
    each(lambda b: a(f'vmovdqu8 zmm{4 + b} {{{{k{b + 1}}}}} {{{{z}}}}, [{{src}} + {64 * b}]'))
    each(lambda b: a(f'vpxorq zmm{4 + b}, zmm{4 + b}, zmm30'))
    each(lambda b: a(f'vaesenclast zmm{b}, zmm{b}, zmm{4 + b}'))
    each(lambda b: a(f'vmovdqu8 [{{dst}} + {64 * b}] {{{{k{b + 1}}}}}, zmm{b}'))
    a('.if {jl}')
    a('vaesenclast xmm31, xmm31, xmm30')
    a('vmovdqu64 [{j}], xmm31')
    a('.endif')
    a('.if {enc}')
    # The keystream past the data is not hashed.
    each(lambda b: a(f'vmovdqu8 zmm{b} {{{{k{b + 1}}}}} {{{{z}}}}, zmm{b}'))
    each(lambda b: hash_group(b, True))
    for s_ in (1, 2, 3):
        reduce(a, s_)
    a('.endif')
    a('.if {lb} == 1')
    # (state ^ L)·H: the 128-bit products land in lane 0 (VEX writes clear the rest), so
    # the reduction steps above serve unchanged.
    a('vpxor xmm4, xmm11, [{lp}]')
    a('vmovdqu xmm6, [{h1}]')
    a('vpclmulqdq xmm8, xmm4, xmm6, 0x00')
    a('vpclmulqdq xmm10, xmm4, xmm6, 0x11')
    a('vpclmulqdq xmm9, xmm4, xmm6, 0x01')
    a('vpclmulqdq xmm5, xmm4, xmm6, 0x10')
    a('vpxor xmm9, xmm9, xmm5')
    for s_ in (1, 2, 3):
        reduce(a, s_)
    a('.endif')
    a('vmovdqu [{st} + 16], xmm11')
    a('.if {lb} == 2')
    # The state over the whole blocks stays in st; the tag's state, (state ^ P)·Ha ^ L·H
    # with Ha = H^2 after a partial block P and H otherwise, replaces L at {lp}.
    a('vpxor xmm4, xmm11, xmm13')
    # Ha: H, replaced by H^2 under k1 (the block masks are done with) when the masks' last
    # slot says there is a partial block.
    a('vmovdqu xmm6, [{h1}]')
    a('kmovq k1, [{m} + 56]')
    a('vmovdqu64 xmm6 {{k1}}, [{h1} - 16]')
    a('vpclmulqdq xmm8, xmm4, xmm6, 0x00')
    a('vpclmulqdq xmm10, xmm4, xmm6, 0x11')
    a('vpclmulqdq xmm9, xmm4, xmm6, 0x01')
    a('vpclmulqdq xmm5, xmm4, xmm6, 0x10')
    a('vpxor xmm9, xmm9, xmm5')
    a('vmovdqu xmm4, [{lp}]')
    a('vmovdqu xmm6, [{h1}]')
    a('vpclmulqdq xmm5, xmm4, xmm6, 0x00')
    a('vpxor xmm8, xmm8, xmm5')
    a('vpclmulqdq xmm5, xmm4, xmm6, 0x11')
    a('vpxor xmm10, xmm10, xmm5')
    a('vpclmulqdq xmm5, xmm4, xmm6, 0x01')
    a('vpclmulqdq xmm7, xmm4, xmm6, 0x10')
    a('vpxor xmm5, xmm5, xmm7')
    a('vpxor xmm9, xmm9, xmm5')
    for s_ in (1, 2, 3):
        reduce(a, s_)
    a('vmovdqu [{lp}], xmm11')
    a('.endif')
    a('vzeroupper')
    return asm_lines(out)


HEAD = '''//! The 512-bit pass of `x86_64-vaes512`: one `asm!` template that runs `n` iterations of
//! sixteen blocks (four zmm registers of four blocks) and does, by its constant switches,
//! AES-CTR (`AES`), GHASH (`HASH`) or both stitched. Stitched, the GHASH of sixteen blocks
//! (at `hp`: the previous iteration's ciphertext when encrypting, this one's when
//! decrypting) runs between the first seven AES rounds: one group of four blocks after
//! each of rounds 1-4 (four VPCLMULQDQ per group against H^16..H^1, schoolbook: with
//! 512-bit registers the Karatsuba pre-XOR costs more port-0/5 work than the fourth
//! multiply; four powers per register, block 0 taking the highest and absorbing the
//! state), then the two Montgomery reduction steps of `common/polyval.rs`, applied to the
//! unassembled low, middle and high sums (low folded into the middle, the middle into the
//! high; see `reduce` in `gen_zmm.py`) on all four lanes at once (they are linear, so the
//! lanes may be reduced before they are summed), and the sum of the four lanes into the
//! new 128-bit state. One reduction per sixteen blocks (aggregated reduction). The XOR with the input is folded into the last round key
//! (AESENCLAST(x, k ^ m) = AESENCLAST(x, k) ^ m), as Linux's `aes-gcm-vaes-avx512.S`
//! does; the loop shape (sixteen blocks per iteration in zmm, GHASH of the previous
//! iteration's blocks while the next are encrypted) is the one that file and BoringSSL's
//! port describe. Written here from those descriptions, not copied. Generated by
//! `gen_zmm.py` (`--verify` checks that this file is what it generates).
//!
//! Why `asm!` for a whole pass rather than one-instruction wrappers as in `vaes/ymm.rs`:
//! Rust 1.85 (the MSRV) has neither the AVX-512 target features nor the `zmm_reg` operand
//! class without them, so LLVM cannot hold a zmm value between two `asm!` blocks; the
//! pass keeps everything in named registers (zmm0-31, all declared clobbered) and ends
//! with `vzeroupper`. The branches are the loop counter and the assembler's `.if` on the
//! key size and the switches (constants): nothing depends on key, data or tag.
//!
//! Registers: zmm0-3 AES blocks; zmm4-7 GHASH input and products, then the last round's
//! key ^ input; zmm8/9/10 the lo/mid/hi accumulators; zmm11 the state (lane 0, the other
//! lanes zero); zmm12-13 temporaries; zmm14 the byte-reversal mask; zmm15 four native
//! counters c..c+3; zmm16-29 round keys 0..13 broadcast to all lanes, zmm30 the last.

use crate::backend::x86_64::common::XKey;

/// The pass's constants, 64 bytes each: the per-lane byte reversal; the lane offsets
/// 0, 1, 2, 3 and the increments 4, 8, 12, 16 of the native counter (dword 0 of each lane:
/// inc32); POLYVAL's reduction constant (low qword 1, high qword 0xc2 << 56) in every lane.
#[repr(C, align(64))]
struct Constants([u32; 16 * 7]);

const fn constants() -> Constants {
    let mut t = [0u32; 16 * 7];
    let mut lane = 0;
    while lane < 4 {
        // Byte reversal of each 128-bit lane: bytes 15, 14, ..., 0.
        t[4 * lane] = 0x0c0d_0e0f;
        t[4 * lane + 1] = 0x0809_0a0b;
        t[4 * lane + 2] = 0x0405_0607;
        t[4 * lane + 3] = 0x0001_0203;
        t[16 + 4 * lane] = lane as u32;
        let mut k = 1;
        while k <= 4 {
            t[16 * (1 + k) + 4 * lane] = 4 * k as u32;
            k += 1;
        }
        t[16 * 6 + 4 * lane] = 1;
        t[16 * 6 + 4 * lane + 3] = 0xc200_0000;
        lane += 1;
    }
    Constants(t)
}

static CONSTANTS: Constants = constants();

/// `n` ≥ 1 iterations of sixteen blocks: with `AES`, CTR from `src` to `dst` from the
/// native counter in `st[0..16]` (advanced by 16 per iteration); with `HASH`, GHASH of
/// 256 bytes at `hp` per iteration into the POLYVAL-domain state in `st[16..32]`
/// (decryption: `hp` = `src`). With `ENCP` (and `AES` and `HASH`), encryption in one
/// pass: GHASH of the ciphertext written, each iteration's during the next one's rounds
/// and the last one's after the loop (`hp` = `dst`). `R` is the number of AES rounds (10,
/// 12, 14). The three pointers advance by 256 bytes per iteration.
///
/// # Safety
/// The CPU has AVX-512F/BW/VL, VAES and VPCLMULQDQ (`vaes512_available`); with `AES`,
/// `src` readable and `dst` writable for 256·n bytes (equal or disjoint); with `HASH`,
/// `hp` readable for 256·n bytes, and with `ENCP` equal to `dst`.
#[inline(always)]
pub(super) unsafe fn pass<
    const R: usize,
    const AES: usize,
    const HASH: usize,
    const ENCP: usize,
>(
    k: &XKey,
    st: &mut [u8; 32],
    src: *const u8,
    dst: *mut u8,
    hp: *const u8,
    n: usize,
) {
    debug_assert!(n >= 1 && (R == 10 || R == 12 || R == 14));
    // SAFETY: the caller's contract above; the template reads the key (`rk`: 16·(R+1)
    // bytes; `h`: the 256 bytes of H^16..H^1), the constants (448 bytes) and `st`, and
    // writes only `st` and `dst[..256·n]`; every vector register it touches is declared
    // clobbered and the upper halves are cleared on the way out.
    unsafe {
        core::arch::asm!(
'''

TAIL = '''            st = in(reg) st.as_mut_ptr(),
            rk = in(reg) k.rk.as_ptr(),
            h = in(reg) k.h.as_ptr(),
            c = in(reg) CONSTANTS.0.as_ptr(),
            src = inout(reg) src => _,
            dst = inout(reg) dst => _,
            hp = inout(reg) hp => _,
            n = inout(reg) n => _,
            r = const R,
            aes = const AES,
            hash = const HASH,
            encp = const ENCP,
@CLOBBERS@            options(nostack),
        );
    }
}
'''


TAIL_FN_HEAD = '''
/// The last `len` bytes (1..=256: n = ⌈len/16⌉ blocks, the last possibly partial, in
/// `G` = ⌈n/4⌉ registers) of a message and, if `J`, E(K, J0) of the block at `j0` (in
/// place) as one more lane: CTR from the native counter in `st[0..16]` (not advanced here)
/// and GHASH of the ciphertext into the state in `st[16..32]`, one reduction. `ENC` = 1
/// hashes the output, 0 the input. `LB` = 0: all n blocks (zero-padded) with H^n..H^1;
/// 1: the same, then (state ^ L)·H for the POLYVAL-domain lengths block L at `lengths`
/// (the message's GHASH); 2: the whole blocks only (w of them, at least one) with
/// H^w..H^1, which stays in `st`, and the message's GHASH — ((state ^ P)·H ^ L)·H for a
/// partial block P, else (state ^ L)·H — written over L at `lengths`.
///
/// # Safety
/// As for [`pass`]; `src` readable and `dst` writable for `len` bytes (equal or disjoint),
/// `j0` a writable block if `J`, `lengths` a readable (`LB` = 1) or writable (2) block;
/// 1 ≤ len ≤ 256 (16 ≤ len with `LB` = 2) and G = ⌈n/4⌉.
#[inline(always)]
pub(super) unsafe fn tail<const G: usize, const ENC: usize, const J: usize, const LB: usize>(
    k: &XKey,
    st: &mut [u8; 32],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    j0: *mut u8,
    lengths: *mut u8,
) {
    let n = len.div_ceil(16);
    let w = if LB == 2 { len / 16 } else { n }; // the blocks hashed
    debug_assert!((1..=256).contains(&len) && n.div_ceil(4) == G && w >= 1);
    // Byte masks of the four registers (the bytes of data in each); the block mask of the
    // last register's powers (two qword bits per block hashed); with `LB` = 2 the partial
    // block's lane (none: 0), again the whole blocks', and whether there is a partial
    // block (both qwords of H^2 then taken for H).
    let bytes = |g: usize| len.saturating_sub(64 * g).min(64);
    let last = 4 * (G - 1);
    let lane_bits = |blocks: usize| (1u64 << (2 * blocks)) - 1;
    let masks: [u64; 8] = core::array::from_fn(|g| match g {
        4 | 6 => lane_bits(w.saturating_sub(last)),
        5 if w < n => 3 << (2 * (n - 1 - last)),
        7 if w < n => 3,
        5 | 7 => 0,
        _ if bytes(g) == 64 => u64::MAX,
        _ => (1u64 << bytes(g)) - 1,
    });
    // SAFETY: the caller's contract; the template reads the key, the constants, `st`,
    // `masks`, the `len` bytes at `src`, the powers of the blocks it hashes (masked loads:
    // no byte past them) and, with `LB`, the block at `lengths` and H and H^2; it writes
    // `st`, the `len` bytes at `dst` (masked stores), `j0` if `J` and `lengths` if `LB` =
    // 2; every vector and mask register it touches is declared clobbered.
    unsafe {
        let hp = k.h.as_ptr().add(16 - w) as *const u8;
        core::arch::asm!(
'''

TAIL_FN_TAIL = '''            st = in(reg) st.as_mut_ptr(),
            rk = in(reg) k.rk.as_ptr(),
            c = in(reg) CONSTANTS.0.as_ptr(),
            src = in(reg) src,
            dst = in(reg) dst,
            m = in(reg) masks.as_ptr(),
            hp = in(reg) hp,
            j = in(reg) j0,
            lp = in(reg) lengths,
            h1 = in(reg) k.h[15].as_ptr(),
            rn = in(reg) k.rounds,
            lk = in(reg) k.rk[(k.rounds as usize).min(14)].as_ptr(),
            grp = const G,
            enc = const ENC,
            jl = const J,
            lb = const LB,
@CLOBBERS@            options(nostack),
        );
    }
}
'''


def generate():
    clobbers = ''.join(f'            out("zmm{k}") _,\n' for k in range(32))
    masks = ''.join(f'            out("k{k}") _,\n' for k in range(1, 8))
    return (HEAD + listing() + TAIL.replace('@CLOBBERS@', clobbers)
            + TAIL_FN_HEAD + tail_listing()
            + TAIL_FN_TAIL.replace('@CLOBBERS@', clobbers + masks))


if __name__ == '__main__':
    text = generate()
    if sys.argv[1:] == ['--verify']:
        with open(OUT) as f:
            sys.exit(0 if f.read() == text else 1)
    elif sys.argv[1:]:
        sys.exit(__doc__)
    with open(OUT, 'w') as f:
        f.write(text)
