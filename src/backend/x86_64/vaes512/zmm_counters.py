"""The counter steps of the 512-bit pass (zmm/mod.rs) and the round-1 table they read,
for gen_zmm.py.

An iteration makes its sixteen counter blocks by dword adds to the last byte while the
counter's public low byte cannot carry (`counters_old`); through the native form (inc32)
out of line when it can or is not public (`counters_old_slow`, `counters_slow`); or, in a
pass long enough to build the round-1 table (`t1_build`), already through AES round 1, by
masked XORs from the table (`counters_fast`). They are a file of their own because they
are the only part that branches on `low` and knows the table's layout: the offsets below
must match `constants()` and `Powers` in zmm/mod.rs (zmm_text.py). Where the steps go is
zmm_pass.py's business.
"""


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
