"""The listing of the 512-bit pass (the `asm!` template of zmm/mod.rs), for gen_zmm.py:
the set-up (mask, counters, round keys, state, the powers' table at {hb}), the round-1
table's build, the loops without and with the table (encryption hashing one iteration
behind, decryption and the single-switch passes in step), the table's lead iterations,
the out-of-line counter steps and the way out (lane sum, wipes).

This file holds the order only; what the steps compute is in zmm_counters.py and
zmm_ghash.py. The numeric labels share one template, so they are listed here (21/22 are
t1_build's, 23-26 LEAD_STEPS): without the table 2 (the loop), 4 (after the encryption
loop), 5/6 and 7/8 (out-of-line counter steps), 9 (past the table's loops); with it 21
(its loops), 22 (not built: on to the loops without it), 12, 13, 14 (the loops and after
them), 15-20 and 23-26 (out-of-line counter steps); 39 past the out-of-line steps.
"""
from zmm_counters import (LEAD_STEPS, T1_AT, T1_LEAD, T1_SLOTS, const1, counters_fast,
                          counters_old, counters_old_slow, counters_slow, t1_build,
                          tq_from_low)
from zmm_ghash import emit, ghash_stream, spread
from zmm_text import asm_lines


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
