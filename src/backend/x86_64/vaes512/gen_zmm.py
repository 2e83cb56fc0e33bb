#!/usr/bin/env python3
"""Generates zmm/: the 512-bit pass (zmm/mod.rs) and tail (zmm/tail.rs) of x86_64-vaes512, an `asm!` template each.

Usage (the contract of the other generators under src/backend, gen_*.py):
  python3 src/backend/x86_64/vaes512/gen_zmm.py            write zmm/mod.rs and zmm/tail.rs (beside this file)
  python3 src/backend/x86_64/vaes512/gen_zmm.py --verify   write nothing: exit 1 unless zmm/
                                                           is what this generates

Why generated: the listing is flat (every instruction of one iteration in order, the
GHASH groups and the reduction steps slotted between the AES rounds, `.if` on the
template's constants for the key size and the AES / GHASH switches); the tables below say
the order once. The method and the register plan are in zmm/mod.rs's opening comment.
"""
import os
import sys

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'zmm')
# The pass (with the constants both templates read) and the tail, a file each.
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


# The fast counter step's limit on the counter's low byte: the sixteen blocks c..c+15 and
# the next iteration's c+16..c+19 then stay below 256, so no carry leaves the byte.
LOW_MAX = 255 - 19
# Offsets in CONSTANTS of 4, 8, 12, 16 added to the last byte of a block in GCM byte order
# (the top byte of its dword 3).
BYTE_INC = 448


# Round-1 table (the first AES round by table; see zmm/mod.rs's opening comment): the
# pass's buffer at {hb} holds it from byte T1_AT on, T1_SLOTS 16-byte slots; dword q of
# slot j is T1[64q + j]. Passes of fewer than T1_MIN iterations (by round count) do not
# build it: building it costs about as much as 5-6 iterations gain with 10 rounds, 3
# with 14 (measured on a Sapphire Rapids-class Xeon, whose 512-bit VAESENC runs on one
# port: the build's 16 VAESENC are that port's).
T1_AT = 256
T1_SLOTS = 80
T1_MIN = {10: 20, 12: 14, 14: 10}
# The iterations (by round count) a pass with the table runs before its first read of it,
# with the counter step without the table: the reads straddle the table's 64-byte stores,
# so they cannot be forwarded from them and wait until the stores reach the cache. With
# 10 rounds, one iteration of lead left about 3 ns of that wait at 8 KiB (Sapphire
# Rapids class; a third iteration gained nothing); with 14 the second cost 0.3%. At most
# two: the second's out-of-line counter steps are labels 23/24 (encryption), 25/26
# (decryption).
T1_LEAD = {10: 2, 12: 1, 14: 1}
LEAD_STEPS = {'enc': (23, 24), 'dec': (25, 26)}
# Offsets in CONSTANTS: the byte shuffle that puts round key 0's byte 15 at bytes 3, 7,
# 11, 15 of each lane (zero elsewhere); 0x52 at the other bytes (zero at those four);
# 0x52 in every byte; the slots' inputs (byte 15, 3, 7, 11 of slot j: 64q + j mod 256 for
# q = 0..3).
T1_SHUF = 704
T1_C52 = 768
ALL52 = 832
T1_IN = 896


def counters_old(slow, back):
    """zmm0-3: the counter blocks c..c+15 (zmm15: c..c+3 in GCM byte order), XORed with
    round key 0; zmm15 advanced by 16. The blocks are zmm15 plus 4, 8, 12 in the last byte
    (a dword add: no byte swap) when {low}, the counter's low byte, is public and at most
    LOW_MAX; else (`{low}` past LOW_MAX, or 512 when the counter is not public) the
    out-of-line step at label `slow` (`counters_old_slow`) swaps to the native form and
    back. {low} is then advanced by 16 in its low byte (its bit 9 stays)."""
    s = ['vpxorq zmm0, zmm15, zmm16',
         f'cmp {{low:e}}, {LOW_MAX}',
         f'ja {slow}f']
    for b in (1, 2, 3):
        s.append(f'vpaddd zmm{b}, zmm15, [{{c}} + {BYTE_INC + 64 * (b - 1)}]')
    s.append(f'vpaddd zmm15, zmm15, [{{c}} + {BYTE_INC + 192}]')
    s.append(f'{back}:')
    for b in (1, 2, 3):
        s.append(f'vpxorq zmm{b}, zmm{b}, zmm16')
    s.append('add {low:l}, 16')
    return s


def native_step(a):
    """zmm1-3: the counter blocks c+4..c+15 and zmm15 advanced by 16, through the native
    form (inc32 on dword 0: any counter)."""
    a('vpshufb zmm15, zmm15, zmm14')
    for b in (1, 2, 3):
        a(f'vpaddd zmm{b}, zmm15, [{{c}} + {64 + 64 * b}]')
        a(f'vpshufb zmm{b}, zmm{b}, zmm14')
    a('vpaddd zmm15, zmm15, [{c} + 320]')
    a('vpshufb zmm15, zmm15, zmm14')


def counters_old_slow(a, slow, back):
    """The counter step of `counters_old` through the native form, out of line at label
    `slow`, back to `back`."""
    a(f'{slow}:')
    native_step(a)
    a(f'jmp {back}b')


def counters_fast(slow, back):
    """zmm0-3: the counter blocks c..c+15 after AES round 1 (round key 0, then the first
    VAESENC); zmm15 (c..c+3 in GCM byte order) advanced by 16. While {low}, the counter's
    low byte, is at most LOW_MAX, a block is zmm11 (round 1 of the counter block c with
    its low byte replaced by one that S maps to 0) ^ T1[its low byte] in dword 0: a
    merge-masked XOR (k1: dword 0 of each lane) from the table's slots at {tq}; else the
    out-of-line step at label `slow` (`counters_slow`). {low} is advanced by 16 in its low
    byte, {tq} to the next iteration's slots (16 slots on, or, when the slot number passes
    64, to the next column: a CMOV on {low}'s bits 4-5)."""
    s = [f'cmp {{low:e}}, {LOW_MAX}',
         f'ja {slow}f']
    for b in range(4):
        s.append(f'vmovdqa64 zmm{b}, zmm11')
        s.append(f'vpxord zmm{b} {{{{k1}}}}, zmm11, [{{tq}} + {64 * b}]')
    s.append(f'vpaddd zmm15, zmm15, [{{c}} + {BYTE_INC + 192}]')
    s.append('add {tq}, 256')
    s.append('add {low:l}, 16')
    s.append('test {low:l}, 0x30')
    s.append(f'jnz {back}f')
    s.append(f'sub {{tq}}, {1024 - 4}')
    s.append(f'{back}:')
    return s


def tq_from_low(a):
    """{tq}: the round-1 table's slot of {low}'s low byte v, at {hb} + T1_AT + 16 (v mod
    64) + 4 (v div 64) (dword v div 64 of slot v mod 64). {tp} serves as scratch and is
    {hb} again after (the loops' CMOVE of {tp} comes before the counter step, and is
    made again here)."""
    a('movzx {tp:e}, {low:l}')
    a('mov {tq:e}, {tp:e}')
    a('shr {tp:e}, 6')
    a('and {tq:e}, 63')
    a('shl {tq:e}, 4')
    a(f'lea {{tq}}, [{{tq}} + {{tp}} * 4 + {T1_AT}]')
    a('add {tq}, {hb}')
    a('mov {tp}, {hb}')
    a('.if {hash} && !{encp}')
    a('cmp {n}, 1')
    a('cmove {tp}, {h}')
    a('.endif')


def const1(a):
    """zmm11: AES round 1 of the counter block of zmm15's lane 0 with its low byte
    replaced by 0x52 after round key 0 (S(0x52) = 0), in every lane."""
    a('vshufi32x4 zmm11, zmm15, zmm15, 0')
    a('vpxorq zmm11, zmm11, zmm16')
    a(f'vmovdqu8 zmm11 {{{{k2}}}}, [{{c}} + {ALL52}]')
    a('vaesenc zmm11, zmm11, zmm17')


def counters_slow(a, slow, back):
    """The counter step of `counters_fast` for a low byte past LOW_MAX, out of line at
    label `slow`, back to `back`: the blocks through the native form, round key 0 and
    round 1 by instructions, then zmm11 and {tq} anew (the counter's upper bytes moved)."""
    a(f'{slow}:')
    a('vpxorq zmm0, zmm15, zmm16')
    native_step(a)
    for b in (1, 2, 3):
        a(f'vpxorq zmm{b}, zmm{b}, zmm16')
    for b in range(4):
        a(f'vaesenc zmm{b}, zmm{b}, zmm17')
    a('add {low:l}, 16')
    const1(a)
    tq_from_low(a)
    a(f'jmp {back}b')


def t1_build(a):
    """With at least T1_MIN iterations and a public counter: the round-1 table at {hb} +
    T1_AT, then the pass's table section (label 21); else on to the pass without it. Slot
    j's input is 0x52 but for bytes 15, 3, 7, 11 (those ShiftRows takes to row 3 of
    columns 0-3), which are round key 0's byte 15 ^ (64q + j); AESENC with a zero key
    leaves in column q MixColumns of (0, 0, 0, S(that byte)): T1[64q + j], the difference
    the counter's low byte 64q + j makes to round 1 against a low byte that S maps to 0."""
    for rounds, least in T1_MIN.items():
        a(f'.if {{r}} == {rounds}')
        a(f'cmp {{n}}, {least}')
        a('.endif')
    a('jb 22f')
    a('cmp {low:e}, 255')
    a('ja 22f')
    a('mov {tq:e}, 0x1111')
    a('kmovw k1, {tq:e}')
    a('mov {tq}, 0x8000800080008000')
    a('kmovq k2, {tq}')
    a(f'vpshufb zmm5, zmm16, [{{c}} + {T1_SHUF}]')
    a(f'vpxorq zmm5, zmm5, [{{c}} + {T1_C52}]')
    a('vpxorq xmm4, xmm4, xmm4')
    # Slots 0-63 by AESENC; slot 64 + i is slot i one column on (dword q + 1 of slot i
    # in dword q): stored again 4 bytes lower, 64 slots on (slot 63's dword 3, T1[255],
    # and the extra slots' dword 3 take what is not read: the fast step's low bytes are
    # at most LOW_MAX + 15).
    for i in range(16):
        a(f'vpxorq zmm6, zmm5, [{{c}} + {T1_IN + 64 * i}]')
        a('vaesenc zmm6, zmm6, zmm4')
        a(f'vmovdqa64 [{{hb}} + {T1_AT + 64 * i}], zmm6')
        if i < 4:
            a(f'vmovdqu64 [{{hb}} + {T1_AT + 1024 - 4 + 64 * i}], zmm6')
    a('jmp 21f')
    a('22:')


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


def listing():
    out = []
    a = out.append

    def iteration(aes, hash_, rounds, slow, back, advance_hp=True, table=False):
        """One iteration of `rounds` AES rounds; `aes` and `hash_` are assembler
        conditions ('1' always, '0' never); `slow` and `back`: the labels of the
        iteration's out-of-line counter step and of its way back; `table`: the counter
        step of the round-1 table (`counters_fast`, which does round 1 too), else
        `counters_old`."""
        step = counters_fast(slow, back) if table else counters_old(slow, back)
        emit(a, [(aes, i) for i in step] if aes != '0' else [])
        # The GHASH steps and the last round's key ^ input (zmm4-7, free once the
        # products are summed) spread over the gaps after rounds 1 .. rounds-1.
        stream = []
        if hash_ != '0':
            stream += [(hash_, i) for i in ghash_stream(False, '{tp}')]
        if aes != '0':
            stream += [(aes, f'vpxorq zmm{4 + b}, zmm30, [{{src}} + {64 * b}]')
                       for b in range(4)]
        chunks = spread(stream, rounds - 1)
        for r in range(1, rounds):
            k = 16 + r if r < 10 else 26 + (r - 10)
            if aes != '0' and (r > 1 or not table):
                emit(a, [(aes, f'vaesenc zmm{b}, zmm{b}, zmm{k}') for b in range(4)])
            emit(a, chunks[r - 1])
        last = [f'vaesenclast zmm{b}, zmm{b}, zmm{4 + b}' for b in range(4)]
        last += [f'vmovdqu64 [{{dst}} + {64 * b}], zmm{b}' for b in range(4)]
        emit(a, [(aes, i) for i in last] if aes != '0' else [])
        a('add {src}, 256')
        a('add {dst}, 256')
        if advance_hp:
            a('add {hp}, 256')

    def per_key(body):
        for rounds in (10, 12, 14):
            a(f'.if {{r}} == {rounds}')
            body(rounds)
            a('.endif')

    def lead_iterations(aes, hash_, steps):
        """The iterations after the first that a pass with the table runs before it
        reads the table (`T1_LEAD`), their out-of-line counter steps at labels `steps`."""
        for rounds, lead in T1_LEAD.items():
            assert lead in (1, 2)
            if lead == 2:
                a(f'.if {{r}} == {rounds}')
                a('dec {n}')
                iteration(aes, hash_, rounds, *steps)
                a('.endif')

    # Set-up: the mask; the counters c..c+3; the round keys; the state, four lanes wide
    # (lane 0; the others zero); with GHASH, the table of broadcast powers at {hb}:
    # H^16, H^12, H^8, H^4, each in all four lanes of its 64 bytes.
    a('vmovdqu64 zmm14, [{c}]')
    a('.if {aes}')
    a('vbroadcasti32x4 zmm15, [{st}]')
    a('vpaddd zmm15, zmm15, [{c} + 64]')
    a('vpshufb zmm15, zmm15, zmm14')
    keys(a)
    a('.endif')
    a('.if {hash}')
    a('vmovdqu xmm10, [{st} + 16]')
    for g in range(4):
        a(f'vbroadcasti32x4 zmm4, [{{h}} + {64 * g}]')
        a(f'vmovdqa64 [{{hb}} + {64 * g}], zmm4')
    a('mov {tp}, {hb}')
    a('.endif')
    a('.if {aes}')
    t1_build(a)
    a('.endif')
    def lead_slow_steps(steps):
        """The out-of-line counter steps of `lead_iterations`."""
        for rounds, lead in T1_LEAD.items():
            if lead == 2:
                a(f'.if {{r}} == {rounds}')
                counters_old_slow(a, *steps)
                a('.endif')

    # Without the round-1 table (labels 2-9), then (.if {aes}) with it (labels 12-39):
    # the same loops, the table's taking its first T1_LEAD iterations with the counter step
    # without the table (the table's stores are then still fresh: its loads, which
    # straddle them, would wait for them to reach the cache).
    def loops(table):
        lb = 10 if table else 0
        first_step = (17, 18) if table else (7, 8)
        a('.if {encp}')
        # Encryption: the first iteration runs AES alone; each further one hashes the
        # ciphertext the one before it stored ({hp} = {dst} - 256) between its rounds,
        # with the broadcast powers; the last iteration's ciphertext is hashed after the
        # loop, from the registers, with H^16..H^1.
        per_key(lambda r: iteration('1', '0', r, *first_step, advance_hp=False))
        if table:
            lead_iterations('1', '1', LEAD_STEPS['enc'])
            const1(a)
            tq_from_low(a)
        a('dec {n}')
        a(f'jz {lb + 4}f')
        a('.p2align 6')
        a(f'{lb + 2}:')
        per_key(lambda r: iteration('1', '1', r, lb + 5, lb + 6, table=table))
        a('dec {n}')
        a(f'jnz {lb + 2}b')
        a(f'{lb + 4}:')
        for i in ghash_stream(True, '{h}'):
            a(i)
        a('.else')
        # Decryption (hashing the input between the rounds), AES alone, or GHASH alone;
        # the last iteration hashes with H^16..H^1.
        if table:
            a('.if {hash}')
            a('cmp {n}, 1')
            a('cmove {tp}, {h}')
            a('.endif')
            per_key(lambda r: iteration('{aes}', '{hash}', r, 19, 20))
            lead_iterations('{aes}', '{hash}', LEAD_STEPS['dec'])
            const1(a)
            tq_from_low(a)
            a('dec {n}')
            a('jz 13f')
        a('.p2align 6')
        a(f'{lb + 2}:')
        a('.if {hash}')
        a('cmp {n}, 1')
        a('cmove {tp}, {h}')
        a('.endif')
        per_key(lambda r: iteration('{aes}', '{hash}', r, lb + 5, lb + 6, table=table))
        a('dec {n}')
        a(f'jnz {lb + 2}b')
        if table:
            a('13:')
        a('.endif')

    loops(False)
    a('.if {aes}')
    a('jmp 9f')
    a('21:')
    loops(True)
    # The round-1 table is derived from round key 0: wiped before the way out.
    a('vpxorq xmm4, xmm4, xmm4')
    for i in range(T1_SLOTS * 16 // 64):
        a(f'vmovdqa64 [{{hb}} + {T1_AT + 64 * i}], zmm4')
    a('9:')
    a('vpshufb xmm15, xmm15, xmm14')
    a('vmovdqu [{st}], xmm15')
    # The iterations' out-of-line counter steps: the fast forms fall through.
    a('jmp 39f')
    counters_old_slow(a, 5, 6)
    counters_slow(a, 15, 16)
    a('.if {encp}')
    counters_old_slow(a, 7, 8)
    counters_old_slow(a, 17, 18)
    lead_slow_steps(LEAD_STEPS['enc'])
    a('.else')
    counters_old_slow(a, 19, 20)
    lead_slow_steps(LEAD_STEPS['dec'])
    a('.endif')
    a('39:')
    a('.endif')
    a('.if {hash}')
    # The four lanes summed: the state.
    a('vextracti64x4 ymm12, zmm10, 1')
    a('vpxor ymm10, ymm10, ymm12')
    a('vextracti128 xmm12, ymm10, 1')
    a('vpxor xmm11, xmm10, xmm12')
    a('vmovdqu [{st} + 16], xmm11')
    # The powers of H: wiped, as the table is.
    a('vpxorq xmm4, xmm4, xmm4')
    for g in range(4):
        a(f'vmovdqa64 [{{hb}} + {64 * g}], zmm4')
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
//! decrypting) is spread evenly over the gaps between the AES rounds (by port-0/5 uops, so
//! that the multiplies and XORs fill port 5 while the rounds hold port 0 throughout the
//! iteration): four groups of four blocks, four VPCLMULQDQ per group (schoolbook: with
//! 512-bit registers the Karatsuba pre-XOR costs more port-0/5 work than the fourth
//! multiply), the products summed three at a time by ternary XORs, then the two Montgomery
//! reduction steps of `common/polyval.rs`, applied to the unassembled low, middle and high
//! sums (low folded into the middle, the middle into the high; see `reduce` in
//! `gen_zmm.py`) on all four lanes at once. One reduction per sixteen blocks (aggregated
//! reduction).
//!
//! The state stays four lanes wide from one iteration to the next and the lanes are summed
//! once, at the end of the pass. Each iteration but the last multiplies all four blocks of
//! group g by the same power H^(16-4g) (the table at `hb`, built at the start), and block
//! 0's lanes absorb the state's lanes. Lane j then carries the sum, over the blocks in
//! lane j so far, of block·H^(e+j), e being the exponent the block is due at that point
//! of the message's GHASH (H^(16-4g-j) at the end of its own iteration): every block of
//! lane j is j powers ahead, in every iteration, since all lanes step by H^16 per
//! iteration. The last iteration uses H^16..H^1 in the usual order (lane j of group g:
//! H^(16-4g-j)): that multiplies lane j of the state by H^(16-j), the H^16 every earlier
//! block is due less the j it is ahead, so the four lanes then sum to the GHASH. No inverse
//! of H is needed; the lane sum (two extracts and two XORs) leaves the loop.
//!
//! The XOR with the input is folded into the last round key (AESENCLAST(x, k ^ m) =
//! AESENCLAST(x, k) ^ m), as Linux's `aes-gcm-vaes-avx512.S` does; the loop shape
//! (sixteen blocks per iteration in zmm, GHASH of the previous iteration's blocks while
//! the next are encrypted) is the one that file and BoringSSL's port describe. Written
//! here from those descriptions, not copied. Generated by `gen_zmm.py` (`--verify` checks
//! that this file is what it generates).
//!
//! Why `asm!` for a whole pass rather than one-instruction wrappers as in `vaes/ymm.rs`:
//! Rust 1.85 (the MSRV) has neither the AVX-512 target features nor the `zmm_reg` operand
//! class without them, so LLVM cannot hold a zmm value between two `asm!` blocks; the
//! pass keeps everything in named registers (zmm0-31, all declared clobbered) and ends
//! with `vzeroupper`. The branches (and the `cmove` of the powers' table for the last
//! iteration) are on the loop counter, the rest is the assembler's `.if` on the key size
//! and the switches (constants), and the counter steps' on `low` (public, above):
//! nothing depends on key, data or tag.
//!
//! Counter blocks: zmm15 holds c..c+3 in GCM byte order. When the caller knows the
//! counter's low byte from public values alone (`low`: for a 96-bit IV the counter is 2 +
//! the blocks before it, a function of the message's lengths), an iteration whose low
//! byte is at most 236 makes its blocks and the next iteration's zmm15 by dword adds to
//! the last byte (no carry can leave it: c+19 ≤ 255), 8 port-0/5 uops with the XORs of
//! round key 0; any other iteration, and every one when the counter is not public (`low`
//! = 512, which no step brings under 237), takes an out-of-line step through the native
//! form (inc32 on dword 0) and back, 13 uops. The branch is on `low` alone, a register
//! the caller computed from lengths, never on the counter in `st`: for other IV lengths
//! J0 = GHASH_H(IV), and the counter's low byte is derived from the key.
//!
//! Round 1 by table (a pass of at least `T1_MIN` iterations of `gen_zmm.py`, 20 with
//! AES-128, 14 with AES-192, 10 with AES-256, whose counter is public): between two
//! carries out of the low byte, the sixteen counter blocks of an iteration differ in
//! their last byte v only, and AES round 1 (round key 0, SubBytes, ShiftRows,
//! MixColumns, round key 1) is affine in S(v ^ k0[15]) once the rest is fixed: the state
//! after it is K1 ^ T1[v], K1 being round 1 of the block with a last byte that S maps to 0
//! (0x52 after round key 0: one VAESENC per carry, in zmm11) and T1[v] = MixColumns of
//! (0, 0, 0, S(v ^ k0[15])) in column 0 (dword 0; ShiftRows takes byte 15 there). The pass
//! builds T1 (256 dwords) at its start in its stack buffer, four per 128-bit lane of 16
//! VAESENC (byte v ^ k0[15] at bytes 15, 3, 7, 11, the others 0x52, a zero round key:
//! column q gets T1[64q + j]); an iteration then makes its blocks after round 1 by four
//! merge-masked XORs (dword 0 of each lane) of K1 with the table, read at {tq} = slot c
//! mod 64 + 4 bytes · (c div 64), slots 64-79 repeating 0-15 one column on so that
//! sixteen consecutive v are one 256-byte read: 4 port-0/5 uops instead of 8 for the
//! counters and 4 VAESENC (port 0) for round 1. The table's address is a function of
//! `low` alone (public, as the branch above); its contents depend on one key byte and are
//! only ever XORed. The first iteration (two with AES-128) takes the counter step without
//! the table (the table's 64-byte stores are then still in flight and its reads straddle
//! them), the iterations whose low byte passes 236 an out-of-line step through the native
//! form that also makes K1 and {tq} anew. Shorter passes and passes with a counter that is not
//! public run the same loops without the table (labels 2-9; the table's, 12-39).
//!
//! Registers (pass): zmm0-3 AES blocks; zmm4-7 GHASH input and products, then the last
//! round's key ^ input; zmm8/9/10 the lo/mid/hi sums, zmm10 also the four-lane state
//! between iterations; zmm11 K1 (with the table); zmm12, 13, 31 products; zmm14 the
//! byte-reversal mask; zmm15 the counter blocks c..c+3 (GCM byte order); zmm16-29 round
//! keys 0..13 broadcast to all lanes, zmm30 the last; k1 dword 0 of each lane, k2 byte 15
//! of each lane. (The tail keeps the state in lane 0 of zmm11 and its counters native.)

use crate::backend::x86_64::common::XKey;

mod tail;
pub(super) use tail::tail;

/// The pass's constants, 64 bytes each: the per-lane byte reversal; the lane offsets
/// 0, 1, 2, 3 and the increments 4, 8, 12, 16 of the native counter (dword 0 of each lane:
/// inc32); POLYVAL's reduction constant (low qword 1, high qword 0xc2 << 56) in every lane;
/// the increments 4, 8, 12, 16 of the last byte of a block in GCM byte order (the top byte
/// of dword 3).
#[repr(C, align(64))]
struct Constants([u32; 16 * 14 + 4 * 80]);

/// Bytes 15, 3, 7, 11 of a block: those ShiftRows takes to row 3 of columns 0, 1, 2, 3.
const ROW3: [usize; 4] = [15, 3, 7, 11];

const fn constants() -> Constants {
    let mut t = [0u32; 16 * 14 + 4 * 80];
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
        let mut k = 1;
        while k <= 4 {
            t[16 * (6 + k) + 4 * lane + 3] = (4 * k as u32) << 24;
            k += 1;
        }
        // The round-1 table's shuffle (byte 15 to the ROW3 bytes, zero elsewhere), its
        // 0x52 bytes (zero at ROW3), and 0x52 in every byte.
        let mut d = 0;
        while d < 4 {
            t[16 * 11 + 4 * lane + d] = 0x0f80_8080;
            t[16 * 12 + 4 * lane + d] = 0x0052_5252;
            t[16 * 13 + 4 * lane + d] = 0x5252_5252;
            d += 1;
        }
        lane += 1;
    }
    // The round-1 table's inputs: slot j has 64q + j (mod 256) at byte ROW3[q].
    let mut j = 0;
    while j < 80 {
        let mut q = 0;
        while q < 4 {
            let b = ROW3[q];
            t[16 * 14 + 4 * j + b / 4] |= (((64 * q + j) % 256) as u32) << (8 * (b % 4));
            q += 1;
        }
        j += 1;
    }
    Constants(t)
}

static CONSTANTS: Constants = constants();

/// `low` for a counter that is not public: bit 9 set, which the steps' adds to the low
/// byte keep, so that the fast counter step is never taken.
pub(super) const NOT_PUBLIC: u64 = 512;

/// The pass's stack buffer: the broadcast powers (H^16, H^12, H^8, H^4, each in four
/// lanes), then the round-1 table (80 slots of 16 bytes; see the opening comment).
#[repr(C, align(64))]
struct Powers([u8; 256 + 16 * 80]);

/// `n` ≥ 1 iterations of sixteen blocks: with `AES`, CTR from `src` to `dst` from the
/// native counter in `st[0..16]` (advanced by 16 per iteration); with `HASH`, GHASH of
/// 256 bytes at `hp` per iteration into the POLYVAL-domain state in `st[16..32]`
/// (decryption: `hp` = `src`). With `ENCP` (and `AES` and `HASH`), encryption in one
/// pass: GHASH of the ciphertext written, each iteration's during the next one's rounds
/// and the last one's after the loop (`hp` = `dst`). `R` is the number of AES rounds (10,
/// 12, 14). The three pointers advance by 256 bytes per iteration. `low`: the low byte
/// of the counter in `st[0..16]` when that follows from public values alone (a 96-bit IV:
/// see the opening comment), else [`NOT_PUBLIC`]; it picks each iteration's counter step.
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
    low: u64,
) {
    debug_assert!(n >= 1 && (R == 10 || R == 12 || R == 14));
    debug_assert!(low < 256 || low == NOT_PUBLIC);
    // SAFETY: the caller's contract above; the template reads the key (`rk`: 16·(R+1)
    // bytes; `h`: the 256 bytes of H^16..H^1), the constants (2176 bytes) and `st`, and
    // writes only `st`, `dst[..256·n]` and its own buffer `hb` (it reads only bytes
    // of it that it wrote before); every vector and mask register it touches is declared
    // clobbered and the upper halves are cleared on the way out.
    unsafe {
        // Written by the template before it reads it, and the parts it wrote (key
        // material: powers of H, the round-1 table) zeroed by it before it returns: left
        // uninitialized here (no 1.5 KiB memset per pass).
        let mut hb = core::mem::MaybeUninit::<Powers>::uninit();
        core::arch::asm!(
'''

TAIL = '''            st = in(reg) st.as_mut_ptr(),
            rk = in(reg) k.rk.as_ptr(),
            h = in(reg) k.h.as_ptr(),
            hb = in(reg) hb.as_mut_ptr().cast::<u8>(),
            tp = out(reg) _,
            c = in(reg) CONSTANTS.0.as_ptr(),
            src = inout(reg) src => _,
            dst = inout(reg) dst => _,
            hp = inout(reg) hp => _,
            n = inout(reg) n => _,
            low = inout(reg) low => _,
            tq = out(reg) _,
            r = const R,
            aes = const AES,
            hash = const HASH,
            encp = const ENCP,
@CLOBBERS@            options(nostack),
        );
    }
}
'''


TAIL_FN_HEAD = '''//! The tail of `x86_64-vaes512`: the last 1..=256 bytes of a message in one `asm!`
//! template, four zmm registers of blocks under byte masks (no scalar loop), E(K, J0) as
//! one more lane, one reduction, and with `LB` the lengths block. The method and the
//! register plan are in `mod.rs`'s opening comment. Generated by `gen_zmm.py` (`--verify`
//! checks that this file is what it generates).

use super::CONSTANTS;
use crate::backend::x86_64::common::XKey;

/// `LOW_BITS[b]`: the low `b` bits set (0 ≤ b ≤ 64), the byte mask of `b` bytes in a
/// register. A table read by the public length rather than a shift, whose code LLVM
/// shapes by what it can prove about the length at each caller (a scalar form it picks
/// for lengths it knows are under 256 measured about 1 ns slower at 1420 bytes).
static LOW_BITS: [u64; 65] = {
    let mut t = [u64::MAX; 65];
    let mut b = 0;
    while b < 64 {
        t[b] = (1 << b) - 1;
        b += 1;
    }
    t
};

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
/// As for [`super::pass`]; `src` readable and `dst` writable for `len` bytes (equal or disjoint),
/// `j0` a writable block if `J`, `lengths` a readable (`LB` = 1) or writable (2) block;
/// 1 ≤ len ≤ 256 (16 ≤ len with `LB` = 2) and G = ⌈n/4⌉.
#[inline(always)]
pub(in crate::backend::x86_64::vaes512) unsafe fn tail<
    const G: usize,
    const ENC: usize,
    const J: usize,
    const LB: usize,
>(
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
        _ => LOW_BITS[bytes(g)],
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
    return {
        'mod.rs': HEAD + listing() + TAIL.replace('@CLOBBERS@', clobbers + masks[:2 * len(masks) // 7]),
        'tail.rs': TAIL_FN_HEAD + tail_listing()
        + TAIL_FN_TAIL.replace('@CLOBBERS@', clobbers + masks),
    }


if __name__ == '__main__':
    files = generate()
    if sys.argv[1:] == ['--verify']:
        def current(name, text):
            try:
                with open(os.path.join(DIR, name)) as f:
                    return f.read() == text
            except OSError:
                return False
        sys.exit(0 if all(current(n, t) for n, t in files.items()) else 1)
    elif sys.argv[1:]:
        sys.exit(__doc__)
    os.makedirs(DIR, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(DIR, name), 'w') as f:
            f.write(text)
