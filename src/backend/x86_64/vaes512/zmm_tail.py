"""The listing of the tail (the `asm!` template of zmm/tail.rs), for gen_zmm.py: the last
1..16 blocks under byte masks in one to four registers, the J0 lane, their GHASH with
H^n..H^1 and one reduction, and the lengths steps ({lb}).

Separate from the pass (zmm_pass.py): it shares only the reduction (zmm_ghash.py) and
CONSTANTS with it, keeps its state in lane 0 and its counters native, and branches on
the key size at run time rather than by the template's constants.
"""
from zmm_ghash import reduce
from zmm_text import asm_lines


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
