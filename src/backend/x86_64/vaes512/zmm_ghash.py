"""The GHASH of the 512-bit pass and of the tail (zmm/), for gen_zmm.py: the sixteen
blocks of a stitched iteration as one stream in dependency order (`ghash_stream`), the
reduction steps (`reduce`, which the tail also slots between its rounds), and the cutting
of a stream into chunks of even port-0/5 weight emitted under the template's `.if`
(`weight`, `spread`, `emit`).

Separate from the listings because it is the arithmetic both of them use (POLYVAL-domain
products and their folding; see `reduce`), while where each step runs is theirs to say
(zmm_pass.py, zmm_tail.py).
"""

POLY = 384  # offset of the reduction constant in CONSTANTS


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


def ghash_stream(late, tbl):
    """The GHASH of sixteen blocks as one list of instructions in dependency order, for
    the stitched iteration to spread over its rounds. The state zmm10 (four lanes, see
    zmm/mod.rs's opening comment) joins block 0; the products are summed three at a time by
    ternary XORs (lo, mid and hi sums in zmm8/9/10, products held in zmm4-7, 12, 13, 31
    until a third arrives); the two reduction steps leave the new four-lane state in
    zmm10. Late: the blocks come from zmm0-3 (the ciphertext of the iteration just done),
    else from {hp}. `tbl`: the register that points to the powers."""
    s = []
    a = s.append

    def block(d, g):
        if late:
            a(f'vpshufb zmm{d}, zmm{g}, zmm14')
        else:
            a(f'vmovdqu64 zmm{d}, [{{hp}} + {64 * g}]')
            a(f'vpshufb zmm{d}, zmm{d}, zmm14')

    def mul(d, b, g, imm):
        a(f'vpclmulqdq zmm{d}, zmm{b}, [{tbl} + {64 * g}], {imm}')

    def t3(d, x, y):
        a(f'vpternlogq zmm{d}, zmm{x}, zmm{y}, 0x96')

    block(4, 0)
    a('vpxorq zmm4, zmm4, zmm10')
    mul(8, 4, 0, '0x00')
    mul(10, 4, 0, '0x11')
    mul(9, 4, 0, '0x01')
    mul(5, 4, 0, '0x10')
    block(4, 1)
    mul(6, 4, 1, '0x00')
    mul(7, 4, 1, '0x11')
    mul(12, 4, 1, '0x01')
    mul(4, 4, 1, '0x10')
    t3(9, 5, 12)
    block(5, 2)
    mul(12, 5, 2, '0x00')
    mul(13, 5, 2, '0x11')
    mul(31, 5, 2, '0x01')
    mul(5, 5, 2, '0x10')
    t3(8, 6, 12)
    t3(10, 7, 13)
    t3(9, 4, 31)
    block(4, 3)
    mul(6, 4, 3, '0x00')
    mul(7, 4, 3, '0x11')
    mul(12, 4, 3, '0x01')
    mul(4, 4, 3, '0x10')
    a('vpxorq zmm8, zmm8, zmm6')
    a('vpxorq zmm10, zmm10, zmm7')
    t3(9, 5, 12)
    a('vpxorq zmm9, zmm9, zmm4')
    # The reduction (see `reduce`), the result left four lanes wide in zmm10.
    a(f'vpclmulqdq zmm12, zmm8, [{{c}} + {POLY}], 0x10')
    a('vpshufd zmm8, zmm8, 0x4e')
    t3(9, 8, 12)
    a(f'vpclmulqdq zmm12, zmm9, [{{c}} + {POLY}], 0x10')
    a('vpshufd zmm9, zmm9, 0x4e')
    t3(10, 9, 12)
    return s


def weight(ins):
    """Port 0/5 uops of one instruction of the streams (loads and stores: none)."""
    return 0 if ins.startswith('vmovdqu64 zmm') else 1


def spread(stream, slots):
    """`stream` cut into `slots` consecutive chunks of about equal port 0/5 weight."""
    unit = sum(weight(i) for _, i in stream) / slots
    out = [[] for _ in range(slots)]
    acc = 0
    for cond, ins in stream:
        out[min(slots - 1, int(acc / unit))].append((cond, ins))
        acc += weight(ins)
    return out


def emit(a, items):
    """Items (condition, instruction), consecutive ones of one condition under one `.if`."""
    cur = None
    for cond, ins in items:
        if cond != cur:
            if cur not in (None, '1'):
                a('.endif')
            if cond != '1':
                a(f'.if {cond}')
            cur = cond
        a(ins)
    if cur not in (None, '1'):
        a('.endif')
