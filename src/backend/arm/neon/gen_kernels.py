#!/usr/bin/env python3
# gen_kernels.py - generates kernels.rs (beside this file), the ARMv7 NEON kernels of the
# `arm-neon` backend, as one `asm!` block per loop or per whole short message.
#
# Why a generator: the kernels are long straight-line programs (a bit-sliced AES round is
# ~200 NEON instructions, GHASH with vmull.p8 ~70 per block) over more values than NEON's
# sixteen q registers hold. They are written here over *virtual* values; a small
# allocator maps them onto q0-q15 (neon_prog.py). Every run first executes the generated
# instruction text on a tiny NEON interpreter against a plain Python AES and GHASH
# (neon_check.py), so an allocation or algebra mistake shows up here, not only under
# qemu. This file says what the kernels compute; the S-box gates are read from the
# shared circuit, src/backend/sbox.rs.
#
# The output is not committed (1.9 MB of `asm!` text): build.rs runs this generator for arm
# targets and includes its output (`--out`), so kernels.rs exists only in the build's OUT_DIR.
#
# Usage (the contract of the other generators under src/backend, gen_*.py, without a
# committed file):
#   python3 src/backend/arm/neon/gen_kernels.py --out PATH  write the kernels to PATH, unchecked
#                                                           (build.rs; a few seconds)
#   python3 src/backend/arm/neon/gen_kernels.py --verify    write nothing: exit 1 unless every
#                                                           kernel runs on the interpreter
#                                                           against a reference AES/GHASH
#                                                           (scripts/test.sh)
#   python3 src/backend/arm/neon/gen_kernels.py --only NAME check one kernel, print its
#                                                           statistics, write nothing
#   ... --search-round N, --search-msg N                    tuning searches with llvm-mca-19
#                                                           (the developer's, not the build's)
#   ... --only NAME --asm                                   print its instructions (for
#                                                           llvm-mca-19 -mtriple=armv8a-linux-
#                                                           gnueabihf -mcpu=cortex-a57)
# Python 3 standard library only.
import argparse
import os
import random
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
# The two helper modules beside this file (Python puts the script's folder on the path).
from neon_check import check  # noqa: E402
from neon_prog import (C_CTR, C_FIN, C_K16, C_K32, C_K48, C_M0F, C_M33, C_M55,  # noqa: E402
                       C_ONE, C_SR, K_ROUNDS, R_CONST, R_DST, R_H, R_KEY, R_KEY2, R_N, R_SCR,
                       R_SRC, R_Y, S_CTR, SCRATCH_BYTES, V_IN, V_INV, V_K16, V_K32, V_K48, V_LAST,
                       V_LOW, V_MID, V_MID2, V_ONE, V_OUT, V_SR, V_TIN, V_ZINV, Prog,
                       allocate)

HERE = os.path.dirname(os.path.abspath(__file__))
SBOX_RS = os.path.join(HERE, '..', '..', 'sbox.rs')


# ------------------------------------------------------------------ AES (bit-sliced)
def parse_sbox():
    """The Boyar-Peralta gates of the shared S-box circuit (src/backend/sbox.rs), used
    here verbatim as a netlist; the circuit leaves out the affine constant (folded into
    the keys)."""
    text = open(SBOX_RS).read()
    body = text[text.index('fn sub_bytes_planes'):]
    gates = re.findall(r'let (\w+) = (\w+) ([\^&]) (\w+);', body)
    outs = re.findall(r'q\[(\d)\] = !?\(?(\w+) \^ (\w+)\)?;', body)
    assert len(gates) == 27 + 63 + 30 and len(outs) == 8, (len(gates), len(outs))
    return gates, outs


GATES, SOUTS = parse_sbox()


def sub_bytes(p, s):
    """s[j] = slice j (bit j, LSB 0). Returns the S-box output slices minus 0x63."""
    env = {f'u{i}': s[7 - i] for i in range(8)}
    env['d'] = s[0]
    for name, a, op, b in GATES:
        env[name] = p.q3('veor' if op == '^' else 'vand', env[a], env[b])
    r = [None] * 8
    for j, a, b in SOUTS:
        r[int(j)] = p.xor(env[a], env[b])
    return r


def swapmove(p, a, b, mask, s):
    t = p.shr(a, s)
    t = p.xor(t, b)
    t = p.and_(t, mask)
    b = p.xor(b, t)
    t = p.shl(t, s)
    a = p.xor(a, t)
    return a, b


def transpose(p, q):
    q = list(q)
    m = {1: p.load(R_CONST, C_M55), 2: p.load(R_CONST, C_M33), 4: p.load(R_CONST, C_M0F)}
    for s, pairs in ((1, ((0, 1), (2, 3), (4, 5), (6, 7))), (2, ((0, 2), (1, 3), (4, 6), (5, 7))),
                     (4, ((0, 4), (1, 5), (2, 6), (3, 7)))):
        for a, b in pairs:
            q[a], q[b] = swapmove(p, q[a], q[b], m[s], s)
    return q


def aes_round(p, s, last, rk):
    """One round of the sliced state s (SubBytes, ShiftRows, MixColumns unless last,
    AddRoundKey); rk(j) gives the round key's slice j."""
    s = sub_bytes(p, s)
    perm = p.load(R_CONST, C_FIN if last else C_SR)
    s = [p.tbl(x, perm) for x in s]
    if not last:
        a1 = [p.ext(x, 4) for x in s]
        t = [p.xor(x, y) for x, y in zip(s, a1)]
        top = t[7]
        dbl = [top, p.xor(t[0], top), t[1], p.xor(t[2], top), p.xor(t[3], top), t[4], t[5], t[6]]
        s = [p.xor(p.xor(dbl[j], a1[j]), p.ext(t[j], 8)) for j in range(8)]
    return [p.xor(x, rk(j)) for j, x in enumerate(s)]


def counters(p):
    """Eight counter blocks, row-major, from the native counter in scratch; advances it."""
    c = p.ldq(R_SCR, S_CTR)
    one = p.load(R_CONST, C_ONE)
    perm = p.load(R_CONST, C_CTR)
    blocks = []
    for i in range(8):
        blocks.append(p.tbl(c, perm))
        c = p.q3('vadd.i32', c, one)
    p.stq(c, R_SCR, S_CTR)
    return blocks


# ------------------------------------------------------------------ AES (vector permute)
def vp_tables(p):
    """The constant tables of backend/vperm.rs, one re-loadable value each."""
    return {off: p.load(R_CONST, off) for off in
            (V_LOW, V_INV, V_ZINV, V_MID, V_MID + 16, V_MID2, V_MID2 + 16, V_LAST, V_LAST + 16,
             V_TIN, V_TIN + 16, V_IN, V_SR, V_OUT, V_ONE)}


def vp_sbox(p, t, xs, last):
    """The S-box of tower-form states (backend/vperm.rs): Hamburg's inversion with nibble
    tables (vtbl on constant tables only), then the output pair of the middle rounds
    (A and 2A, tower form) or of the last round (standard bytes). Constant time: vtbl is a
    register permute, its timing independent of the index bytes, which address no memory.
    Each step is emitted for every lane before the next step: the lanes are independent
    chains, and a core retiring in order (a 128-entry window on the A57 model) overlaps
    them only if their steps sit close together in the program."""
    def each(f, *cols):
        return [f(*args) for args in zip(*cols)]
    k = each(lambda x: p.and_(x, t[V_LOW]), xs)
    i = each(lambda x: p.shr8(x, 4), xs)
    j = each(p.xor, i, k)
    zk = each(lambda k_: p.tbl(t[V_ZINV], k_), k)
    iak = each(lambda i_, z: p.xor(p.tbl(t[V_INV], i_), z), i, zk)
    jak = each(lambda j_, z: p.xor(p.tbl(t[V_INV], j_), z), j, zk)
    io = each(lambda a, j_: p.xor(p.tbl(t[V_INV], a), j_), iak, j)
    jo = each(lambda a, i_: p.xor(p.tbl(t[V_INV], a), i_), jak, i)

    def out(off):
        return each(lambda a, b: p.xor(p.tbl(t[off], a), p.tbl(t[off + 16], b)), io, jo)
    return out(V_LAST) if last else (out(V_MID), out(V_MID2))


def vp_aes(p, lanes, rounds):
    """E(K, c + i) for the native counter c in scratch, i < lanes, stored to dst one block
    after the other. The state is row-major in one q register: ShiftRows is a vtbl (the
    first folded into the input permutation, the last into the output one), MixColumns'
    next row a 4-byte vext, and 2A + 3B + C + D = t + next(t) + D with t = 2A + B."""
    t = vp_tables(p)
    c = p.ldq(R_SCR, S_CTR)
    k0 = p.load(R_KEY, 0)
    s = []
    for b in range(lanes):
        x = p.xor(p.tbl(c, t[V_IN]), k0)
        s.append(p.xor(p.tbl(t[V_TIN], p.and_(x, t[V_LOW])), p.tbl(t[V_TIN + 16], p.shr8(x, 4))))
        if b + 1 < lanes:
            c = p.q3('vadd.i32', c, t[V_ONE])
    for r in range(1, rounds):
        rk = p.load(R_KEY, 16 * r)
        xs = s if r == 1 else [p.tbl(x, t[V_SR]) for x in s]
        a, a2 = vp_sbox(p, t, xs, False)
        u = [p.xor(y, p.ext(x, 4)) for x, y in zip(a, a2)]
        s = [p.xor(p.xor(w, p.ext(w, 4)), p.xor(p.ext(x, 12), rk)) for w, x in zip(u, a)]
    rk = p.load(R_KEY, 16 * rounds)
    for b, y in enumerate(vp_sbox(p, t, s, True)):
        p.stu(p.xor(p.tbl(y, t[V_OUT]), rk), R_DST, 16 * b)


# ------------------------------------------------------------------ GHASH (vmull.p8)
def dext(p, a, k):
    """64-bit rotation by k bytes of a d value (kept in the low half)."""
    r = p.val()
    p.emit(f'vext.8 {{0}}, {{1}}, {{1}}, #{k}', [(r, 'lo'), (a, 'lo')], defs=[r])
    return r


def vmull(p, a, b):
    r = p.val()
    p.emit('vmull.p8 {0}, {1}, {2}', [(r, 'q'), (a, 'lo'), (b, 'lo')], defs=[r], early=True)
    return r


def acc_add(p, acc, x):
    return x if acc is None else p.xor(acc, x)


def fold(p, v, mask_off, k):
    """Moves the wrapped lanes of a rotated-operand product into place and shifts."""
    p.emit('veor {0}, {1}, {2}', [(v, 'lo'), (v, 'lo'), (v, 'hi'), (v, 'q')], mods=[v])
    if mask_off is None:
        p.emit('vmov.i64 {0}, #0', [(v, 'hi'), (v, 'q')], mods=[v])
    else:
        m = p.load(R_CONST, mask_off)
        p.emit('vand {0}, {1}, {2}', [(v, 'hi'), (v, 'hi'), (m, 'lo'), (v, 'q')], mods=[v])
        p.emit('veor {0}, {1}, {2}', [(v, 'lo'), (v, 'lo'), (v, 'hi'), (v, 'q')], mods=[v])
    return p.ext(v, k)


def operand(p, x, t, y):
    """The 64-bit Karatsuba operand of type t (0 lo, 1 hi, 2 mid) of block x (raw)."""
    r = p.val()
    p.emit('vrev64.8 {0}, {1}', [(r, 'q'), (x, 'q')], defs=[r])
    if y is not None:
        r = p.xor(r, y)
    a = p.val()
    if t == 0:
        p.emit('vmov {0}, {1}', [(a, 'lo'), (r, 'hi')], defs=[a])
    elif t == 1:
        return r
    else:
        p.emit('veor {0}, {1}, {2}', [(a, 'lo'), (r, 'lo'), (r, 'hi')], defs=[a])
    return a


def ghash_group(p, loads, y, nblocks):
    """Y' = (Y + X0)·H^n + X1·H^(n-1) + ... ; `loads(i)` gives block i (raw bytes).
    Per Karatsuba type, the five raw vmull.p8 sums (D, L, M, N, K of the
    Câmara–Gouvêa–López–Dahab 64x64 product) are accumulated over all blocks and folded
    once: the fold is linear."""
    prods = []
    for t in range(3):
        acc = [None] * 5
        for i in range(nblocks):
            x = loads(i)
            a = operand(p, x, t, y if i == 0 else None)
            hb = 128 * (nblocks - 1 - i) + 40 * t
            b = [p.load(R_H, hb + 8 * j) for j in range(5)]
            a1, a2, a3 = dext(p, a, 1), dext(p, a, 2), dext(p, a, 3)
            acc[1] = acc_add(p, acc[1], p.xor(vmull(p, a1, b[0]), vmull(p, a, b[1])))
            acc[2] = acc_add(p, acc[2], p.xor(vmull(p, a2, b[0]), vmull(p, a, b[2])))
            acc[3] = acc_add(p, acc[3], p.xor(vmull(p, a3, b[0]), vmull(p, a, b[3])))
            acc[4] = acc_add(p, acc[4], vmull(p, a, b[4]))
            acc[0] = acc_add(p, acc[0], vmull(p, a, b[0]))
        lf = fold(p, acc[1], C_K48, 15)
        mf = fold(p, acc[2], C_K32, 14)
        nf = fold(p, acc[3], C_K16, 13)
        kf = fold(p, acc[4], None, 12)
        prods.append(p.xor(p.xor(acc[0], lf), p.xor(p.xor(mf, nf), kf)))
    return reduce(p, *prods)


def reduce(p, lo, hi, mid, swap=True):
    mid = p.xor(mid, p.xor(lo, hi))
    # lo = [X0 : X1 ^ mid.lo], hi = [X2 ^ mid.hi : X3]
    p.emit('veor {0}, {1}, {2}', [(lo, 'hi'), (lo, 'hi'), (mid, 'lo'), (lo, 'q')], mods=[lo])
    p.emit('veor {0}, {1}, {2}', [(hi, 'lo'), (hi, 'lo'), (mid, 'hi'), (hi, 'q')], mods=[hi])

    def g(src_part):   # z<<63 ^ z<<62 ^ z<<57 of a d value, into lo half of a new value
        t = []
        for s in (63, 62, 57):
            r = p.val()
            p.emit(f'vshl.i64 {{0}}, {{1}}, #{s}', [(r, 'lo'), (lo, src_part)], defs=[r])
            t.append(r)
        return p.xor(p.xor(t[0], t[1]), t[2])

    g0 = g('lo')
    p.emit('veor {0}, {1}, {2}', [(lo, 'hi'), (lo, 'hi'), (g0, 'lo'), (lo, 'q')], mods=[lo])
    s = p.xor(p.xor(lo, p.shr(lo, 1)), p.xor(p.shr(lo, 2), p.shr(lo, 7)))
    g1 = g('hi')
    p.emit('veor {0}, {1}, {2}', [(s, 'lo'), (s, 'lo'), (g1, 'lo'), (s, 'q')], mods=[s])
    r = p.xor(hi, s)
    return p.ext(r, 8) if swap else r   # back to the form of y: lo half = high word


def load_y(p):
    return p.ldu(R_Y, 0)   # kept in vrev64 form in memory (see run.rs)


# ------------------------------------------------------------------ kernels
def loop(p, body, step_src, step_dst, step_h=0):
    p.raw('1:')
    body()
    if step_src:
        p.raw(f'add {R_SRC}, {R_SRC}, #{step_src}')
    if step_dst:
        p.raw(f'add {R_DST}, {R_DST}, #{step_dst}')
    p.raw(f'subs {R_N}, {R_N}, #8')
    p.raw('bne 1b')


def k_ghash(nblocks):
    p = Prog()

    def body():
        y = load_y(p)
        y2 = ghash_group(p, lambda i: p.ldu(R_SRC, 16 * i), y, nblocks)
        p.stu(y2, R_Y, 0)
    loop(p, body, 16 * nblocks, 0)
    return p


# The group kernels (ctr, enc, dec) serve every key size: rounds 1..Nr-1 are a loop whose
# count is the key's round count (NeonKey.rounds, public: it depends on the key size only).
# The loop edge is a fixed register convention, the sliced state in the q registers
# STATE_Q and nothing else live (the spill slots free), so the pieces before, in and after
# the loop are allocated on their own. r1 walks the round keys (vld1 with write-back, one
# slice at a time, in order), lr counts the rounds (the round has no unaligned access,
# which would go through lr).
#
# Both found by `--search-round` (below): a state placement that the round body's
# allocation leaves where it found it (no moves at the loop edge), and the list-scheduling
# parameters of the body (alpha, beta, noise, seed; see schedule).
STATE_Q = (11, 14, 13, 2, 8, 10, 0, 5)
ROUND_ORDER = (1, 1, 0.5, 9600)


class Pieces:
    """A kernel made of separately allocated programs and raw lines between them."""

    def __init__(self):
        self.parts = []

    def prog(self, p):
        self.parts.append(p)

    def raw(self, *lines):
        self.parts.extend(lines)


def allocate_pieces(pieces):
    lines, st = [], {'spill': 0, 'reload': 0, 'remat': 0, 'spill_bytes': 0}
    for part in pieces.parts:
        if isinstance(part, str):
            lines.append(part)
            continue
        ls, s = allocate(part)
        lines += ls
        for k in ('spill', 'reload', 'remat'):
            st[k] += s[k]
        st['spill_bytes'] = max(st['spill_bytes'], s['spill_bytes'])
    return lines, st


def middle_round(state, order=None):
    """The body of the round loop: the state in and out in the registers `state`; the
    round keys are read in order, r1 advancing. `order` (ROUND_ORDER's form) reorders
    the ops (see schedule)."""
    p = Prog()
    s = aes_round(p, [p.arg(q) for q in state], False, lambda j: p.ld_post(R_KEY2))
    for j, x in enumerate(s):
        p.result(x, state[j])
    return schedule(p, *order) if order else p


def schedule(p, alpha, beta, noise, seed):
    """Reorders p's ops by list scheduling: among the ops whose inputs are ready, the one
    with the best alpha·(values it frees − values it makes) + beta·(ops on its longest
    path to the end) + noise·random (a seeded tie-break). alpha lowers register pressure
    (fewer spills, what an in-order A9 pays for), beta keeps independent work close
    together (what an out-of-order A57 overlaps); memory ops keep their order."""
    rng = random.Random(seed)
    ops, n = p.ops, len(p.ops)
    prod, readers, deps, last_mem = {}, {}, [set() for _ in p.ops], None
    for i, op in enumerate(ops):
        deps[i] |= {prod[v.id] for v in op.uses() if v.id in prod}
        deps[i] |= {r for v in op.mods for r in readers.get(v.id, ()) if r != i}
        if op.kind != 'neon':
            if last_mem is not None:
                deps[i].add(last_mem)
            last_mem = i
        for v in op.uses():
            readers.setdefault(v.id, []).append(i)
        for v in op.defs + op.mods:
            prod[v.id], readers[v.id] = i, []
    succ, indeg = [[] for _ in ops], [len(d) for d in deps]
    for i, d in enumerate(deps):
        for j in d:
            succ[j].append(i)
    height = [0] * n
    for i in range(n - 1, -1, -1):
        height[i] = 1 + max((height[j] for j in succ[i]), default=0)
    left = {}   # uses still to come of each value held in a register (not re-loadable)
    for op in ops:
        for v in op.uses():
            if v.src is None:
                left[v.id] = left.get(v.id, 0) + 1

    def score(i):
        op = ops[i]
        us = [v.id for v in op.uses() if v.src is None]
        frees = 0 if op.mods else sum(1 for v in set(us) if left[v] == us.count(v))
        return alpha * (frees - len(op.defs)) + beta * height[i] + noise * rng.random(), -i

    ready, out = [i for i in range(n) if indeg[i] == 0], []
    while ready:
        best = max(ready, key=score)
        ready.remove(best)
        out.append(ops[best])
        for v in ops[best].uses():
            if v.src is None:
                left[v.id] -= 1
        for j in succ[best]:
            indeg[j] -= 1
            if indeg[j] == 0:
                ready.append(j)
    p.ops = out
    return p


def k_ctr(mode):
    """mode: 'ctr' keystream only, 'enc' CTR then GHASH of the output, 'dec' GHASH of the
    input, then CTR. Any key size: rounds 1..Nr-1 are a loop (see STATE_Q)."""
    k = Pieces()
    k.raw('1:', f'add {R_KEY2}, {R_KEY}, #0')
    p = Prog()
    if mode == 'dec':
        y = load_y(p)
        p.stu(ghash_group(p, lambda i: p.ldu(R_SRC, 16 * i), y, 8), R_Y, 0)
    s = transpose(p, counters(p))
    for j, x in enumerate(s):
        p.result(p.xor(x, p.ld_post(R_KEY2)), STATE_Q[j])
    k.prog(p)
    k.raw(f'ldr lr, [{R_KEY}, #{K_ROUNDS}]', 'sub lr, lr, #1', '2:')
    k.prog(middle_round(STATE_Q, ROUND_ORDER))
    k.raw('subs lr, lr, #1', 'bne 2b')
    p = Prog()
    s = aes_round(p, [p.arg(q) for q in STATE_Q], True, lambda j: p.ld_post(R_KEY2))
    ks = transpose(p, s)
    for i in range(8):
        p.stu(p.xor(p.ldu(R_SRC, 16 * i), ks[i]), R_DST, 16 * i)
    if mode == 'enc':
        y = load_y(p)
        p.stu(ghash_group(p, lambda i: p.ldu(R_DST, 16 * i), y, 8), R_Y, 0)
    k.prog(p)
    k.raw(f'add {R_SRC}, {R_SRC}, #128', f'add {R_DST}, {R_DST}, #128', f'subs {R_N}, {R_N}, #8',
          'bne 1b')
    return k


def k_vperm(rounds, lanes):
    p = Prog()
    vp_aes(p, lanes, rounds)
    return p


def k_ghash_short(nblocks):
    """GHASH from zero of `nblocks` blocks at src (a whole short message: AAD, ciphertext,
    lengths), block i times H^(nblocks - i), one fold and reduction."""
    p = Prog()
    p.stu(ghash_group(p, lambda i: p.ldu(R_SRC, 16 * i), None, nblocks), R_Y, 0)
    return p


# ------------------------------------------------------------------ whole short messages
# The single-pass message kernels are `extern "C"` functions (AAPCS-VFP): the pointers come
# in r0-r3 (the key, J0, src, dst; the asm gets the vector-permute round keys in r0, the H
# powers in r5 and the constants in r8 instead), the blocks as pairs of doubles in d0-d7
# (q0-q3), and the tag and last output block go back in q0-q1. Spills go below sp.
R_J0 = 'r1'
MSG_ARGS = 4       # q0: AAD block, q1: lengths block (vrev64 form), q2: last data block,
                   # q3: mask of the last block's bytes


def vp_init(p, t, lanes):
    """The lanes' states after round 0, J0 + i for i < lanes (J0 in spec byte order at
    R_J0), ready for round 1 (its ShiftRows folded into the input permutation)."""
    j0 = p.val()
    p.emit('vld1.8 {{{0}, {1}}}, [' + R_J0 + ']', [(j0, 'lo'), (j0, 'hi')], defs=[j0], kind='ld')
    c = p.val()
    p.emit('vrev32.8 {0}, {1}', [(c, 'q'), (j0, 'q')], defs=[c])
    k0 = p.load(R_KEY, 0)
    s = []
    for b in range(lanes):
        x = p.xor(p.tbl(c, t[V_IN]), k0)
        s.append(p.xor(p.tbl(t[V_TIN], p.and_(x, t[V_LOW])), p.tbl(t[V_TIN + 16], p.shr8(x, 4))))
        if b + 1 < lanes:
            c = p.q3('vadd.i32', c, t[V_ONE])
    return s


def vp_round(p, t, xs, rk):
    """A middle round of states whose ShiftRows is done: SubBytes, MixColumns, + rk."""
    a, a2 = vp_sbox(p, t, xs, False)
    u = [p.xor(y, p.ext(x, 4)) for x, y in zip(a, a2)]
    return [p.xor(p.xor(w, p.ext(w, 4)), p.xor(p.ext(x, 12), rk)) for w, x in zip(u, a)]


def vp_keystream(p, lanes, rounds):
    """E(K, J0 + i) for i < lanes (J0 in spec byte order at R_J0) up to the last round's
    S-box: the rounds of vp_aes (the caller permutes and adds the last round key)."""
    t = vp_tables(p)
    j0 = p.val()
    p.emit('vld1.8 {{{0}, {1}}}, [' + R_J0 + ']', [(j0, 'lo'), (j0, 'hi')], defs=[j0], kind='ld')
    c = p.val()
    p.emit('vrev32.8 {0}, {1}', [(c, 'q'), (j0, 'q')], defs=[c])
    k0 = p.load(R_KEY, 0)
    s = []
    for b in range(lanes):
        x = p.xor(p.tbl(c, t[V_IN]), k0)
        s.append(p.xor(p.tbl(t[V_TIN], p.and_(x, t[V_LOW])), p.tbl(t[V_TIN + 16], p.shr8(x, 4))))
        if b + 1 < lanes:
            c = p.q3('vadd.i32', c, t[V_ONE])
    for r in range(1, rounds):
        rk = p.load(R_KEY, 16 * r)
        xs = s if r == 1 else [p.tbl(x, t[V_SR]) for x in s]
        a, a2 = vp_sbox(p, t, xs, False)
        u = [p.xor(y, p.ext(x, 4)) for x, y in zip(a, a2)]
        s = [p.xor(p.xor(w, p.ext(w, 4)), p.xor(p.ext(x, 12), rk)) for w, x in zip(u, a)]
    return vp_sbox(p, t, s, True)


def rev64(p, x):
    r = p.val()
    p.emit('vrev64.8 {0}, {1}', [(r, 'q'), (x, 'q')], defs=[r])
    return r


class Hash:
    """The raw vmull.p8 sums of a GHASH over blocks with given powers of H (the Karatsuba
    terms of ghash_group, accumulated block by block), then one fold and reduction."""

    def __init__(self, p):
        self.p = p
        self.acc = [[None] * 5 for _ in range(3)]

    def add(self, r, power):
        """Adds r·H^power, r a block in vrev64 form."""
        p = self.p
        for t in range(3):
            if t == 2:
                a = p.val()
                p.emit('veor {0}, {1}, {2}', [(a, 'lo'), (r, 'lo'), (r, 'hi')], defs=[a])
                a = (a, 'lo')
            else:
                a = (r, 'hi' if t == 0 else 'lo')
            hb = 128 * (power - 1) + 40 * t
            b = [p.load_d(R_H, hb + 8 * j) for j in range(5)]

            def rot(k):
                v = p.val()
                p.emit(f'vext.8 {{0}}, {{1}}, {{1}}, #{k}', [(v, 'lo'), a], defs=[v])
                return (v, 'lo')

            def mul(x, y):
                v = p.val()
                p.emit('vmull.p8 {0}, {1}, {2}', [(v, 'q'), x, (y, 'lo')], defs=[v], early=True)
                return v
            a1, a2, a3 = rot(1), rot(2), rot(3)
            acc = self.acc[t]
            acc[1] = acc_add(p, acc[1], p.xor(mul(a1, b[0]), mul(a, b[1])))
            acc[2] = acc_add(p, acc[2], p.xor(mul(a2, b[0]), mul(a, b[2])))
            acc[3] = acc_add(p, acc[3], p.xor(mul(a3, b[0]), mul(a, b[3])))
            acc[4] = acc_add(p, acc[4], mul(a, b[4]))
            acc[0] = acc_add(p, acc[0], mul(a, b[0]))

    def finish(self):
        """The reduced hash before reduce()'s last step, which swaps its halves."""
        p = self.p
        prods = []
        for acc in self.acc:
            lf = fold(p, acc[1], V_K48, 15)
            mf = fold(p, acc[2], V_K32, 14)
            nf = fold(p, acc[3], V_K16, 13)
            kf = fold(p, acc[4], None, 12)
            prods.append(p.xor(p.xor(acc[0], lf), p.xor(p.xor(mf, nf), kf)))
        return reduce(p, *prods, swap=False)


def segment(p, f):
    """The ops `f` emits, taken out of the program (to be merged into it)."""
    saved, p.ops = p.ops, []
    f()
    ops, p.ops = p.ops, saved
    return ops


def merge(a, b, frac):
    """The ops of `a` with those of `b` spread evenly over the first `frac` of them, each
    list in its own order (they must not depend on each other)."""
    out, k = [], 0
    for i, op in enumerate(a):
        out.append(op)
        while k < len(b) and k * len(a) * frac < (i + 1) * len(b):
            out.append(b[k])
            k += 1
    return out + b[k:]


def k_msg(rounds, n, dec, frac=0.9):
    """(Not built: the per-size kernel that k_msg_shared replaced, kept as the reference
    --search-msg prices it against.)

    A whole message of n data blocks (n - 1 whole ones at src, the last one in q2,
    zero-padded) after one block X of AAD (q0), from J0: E(K, J0 + i), i ≤ n, by vector
    permutes; the output (whole blocks to dst, the last one masked by q3 to q1); and the
    tag, E(K, J0) + GHASH(X, the ciphertext, the lengths block L (q1, vrev64 form)) into
    q0. Sealing hashes the output, opening the input. The GHASH of what needs no AES (X
    and L; opening: the whole ciphertext) is merged into the AES rounds.

    One block of data (n = 1: the call is as long as the dependency chain through the AES
    and the hash of the block) takes that block straight from its last S-box output y:
    out = tbl(y, OUT | ~m) + ((k + last) & m), and sealing hashes its vrev64 form
    tbl(y, vrev64(OUT) | ~vrev64(m)) + vrev64((k + last) & m) (vtbl gives 0 for an index
    past the table), three steps less on the chain; longer messages, bound by the work,
    not the chain, would lose by the extra lookups."""
    p = Prog(scr='sp', spill_base=0)
    x, lens, last, mask = (p.arg(q) for q in range(MSG_ARGS))
    h = Hash(p)
    ys = []
    cts = []
    km = []
    kss = []   # the keystream blocks but the one taken straight from the S-box (n = 1)
    rk = p.load(R_KEY, 16 * rounds)
    out = p.load(R_CONST, V_OUT)

    def ks(i):
        return p.xor(p.tbl(ys[i], out), rk)

    def early():
        h.add(rev64(p, x), n + 2)
        if dec:
            for i in range(n):
                cts.append(p.ld_post(R_SRC) if i + 1 < n else last)
                h.add(rev64(p, cts[-1]), n + 1 - i)
        h.add(lens, 1)
        if n == 1:
            km.extend((p.and_(p.xor(rk, last), mask), p.q3('vorn', out, mask)))
            if not dec:
                km.extend((rev64(p, km[0]), p.q3('vorn', rev64(p, out), rev64(p, mask))))
    def aes():
        ys.extend(vp_keystream(p, n + 1, rounds))
        kss.extend(ks(i) for i in range(n + 1) if i != 1 or n != 1)
    aes = segment(p, aes)
    p.ops += merge(aes, segment(p, early), frac)
    msg_tail(p, n, dec, h, ys, cts, km, kss, last, mask)
    return p


def msg_tail(p, n, dec, h, ys, cts, km, kss, last, mask):
    """The output blocks, the GHASH of the output (sealing) and the tag, after the AES."""
    for i in range(n):
        if n == 1:
            p.result(p.xor(p.tbl(ys[1], km[1]), km[0]), 1)
            if not dec:
                h.add(p.xor(p.tbl(ys[1], km[3]), km[2]), 2)
            break
        src = cts[i] if dec else (p.ld_post(R_SRC) if i + 1 < n else last)
        o = p.xor(src, kss[i + 1])
        if i + 1 < n:
            p.st_post(o, R_DST)
        else:  # no keystream byte leaves the kernel
            o = p.and_(o, mask)
            p.result(o, 1)
        if not dec:
            h.add(rev64(p, o), n + 1 - i)
    # tag = vrev64(y) + E(K, J0), y's halves swapped (reduce() without swap) by naming
    y, k0 = rev64(p, h.finish()), kss[0]
    tag = p.val()
    p.emit('veor {0}, {1}, {2}', [(tag, 'lo'), (y, 'hi'), (k0, 'lo')], defs=[tag])
    p.emit('veor {0}, {1}, {2}', [(tag, 'hi'), (y, 'lo'), (k0, 'hi'), (tag, 'q')], mods=[tag])
    p.result(tag, 0)


# The message kernels serve every key size (one per block count and direction): the AES
# is AES-256's, entered part way for the shorter keys, without a loop. After round 0 the
# kernel branches on the round count (public: the key size) to round 1 (AES-256), 3
# (AES-192) or 5 (AES-128) of the unrolled code; round r's key is read at
# R_RK + 16 * (r - 14), R_RK = the key + 16 * Nr, one pointer for every key size. The
# entries are register conventions: the lanes' states where round 0 leaves them, nothing
# else live (the four arguments are copied to the stack first, `vstmia`, and re-loaded
# where used: cheaper than keeping them in q0-q3 through the head, measured); the rounds
# before an entry (the head) end with the next ShiftRows, which round 1 has folded into its
# input permutation. What every key size runs (the last ten rounds, the GHASH merged into
# them, the output and the tag) is the AES-128 kernel as it was; the longer keys' first
# rounds run without merged GHASH work. The merge's span (frac, lo) and the head's list
# schedule are tuned per kernel (MSG_TUNE).
R_RK = 'r12'
ARG_BYTES = 16 * MSG_ARGS   # the arguments' copy at sp, below the spill slots
MSG_STATE_Q = (4, 5, 6, 7, 8, 9)   # where round 0 is asked to leave the states
HEAD_ROUNDS = 4    # AES-256's rounds before AES-128's entry


def k_msg_shared(n, dec, frac=0.9, state=None, order=None, horder=None, lo=0, regargs=False):
    """k_msg for every key size (see above): the same message, the same outputs. The
    lanes' states at the entries are where round 0 leaves them (no move on any path)."""
    lanes = n + 1
    keep = tuple(range(MSG_ARGS)) if regargs else ()

    def prog():
        p = Prog(scr='sp', spill_base=ARG_BYTES)
        p.keep = keep
        return p
    if state is None:
        p = prog()
        for b, x in enumerate(vp_init(p, vp_tables(p), lanes)):
            p.result(x, MSG_STATE_Q[b])
        state = allocate(p)[1]['natural']
    k = Pieces()
    # the round count (NeonKey.rounds, before vrk) compared, then made the round-key
    # pointer; no NEON op touches the flags until the branch
    if not regargs:
        k.raw('vstmia sp, {d0-d7}')
    k.raw(f'ldr {R_RK}, [{R_KEY}, #-16]', f'cmp {R_RK}, #12',
          f'add {R_RK}, {R_KEY}, {R_RK}, lsl #4')
    p = prog()
    for b, x in enumerate(vp_init(p, vp_tables(p), lanes)):
        p.result(x, state[b])
    k.prog(p)
    k.raw('blt 3f', 'beq 2f')
    for first in (1, 3):
        if first == 3:
            k.raw('2:')
        p = prog()
        s = [p.arg(state[b]) for b in range(lanes)]
        t = vp_tables(p)
        for r in (first, first + 1):
            s = [p.tbl(x, t[V_SR]) for x in vp_round(p, t, s, p.load(R_RK, 16 * (r - 14)))]
        for b, x in enumerate(s):
            p.result(x, state[b])
        k.prog(schedule(p, *horder) if horder else p)
    k.raw('3:')
    p = Prog(scr='sp', spill_base=ARG_BYTES)
    x, lens, last, mask = (p.arg(q) if regargs else p.load('sp', 16 * q) for q in range(MSG_ARGS))
    s0 = [p.arg(state[b]) for b in range(lanes)]
    h = Hash(p)
    ys, cts, km, kss = [], [], [], []
    rk = p.load(R_RK, 0)
    out = p.load(R_CONST, V_OUT)

    def ks(i):
        return p.xor(p.tbl(ys[i], out), rk)

    def early():
        h.add(rev64(p, x), n + 2)
        if dec:
            for i in range(n):
                cts.append(p.ld_post(R_SRC) if i + 1 < n else last)
                h.add(rev64(p, cts[-1]), n + 1 - i)
        h.add(lens, 1)
        if n == 1:
            km.extend((p.and_(p.xor(rk, last), mask), p.q3('vorn', out, mask)))
            if not dec:
                km.extend((rev64(p, km[0]), p.q3('vorn', rev64(p, out), rev64(p, mask))))

    def aes():
        t = vp_tables(p)
        s = s0
        for r in range(HEAD_ROUNDS + 1, 14):
            xs = s if r == HEAD_ROUNDS + 1 else [p.tbl(v, t[V_SR]) for v in s]
            s = vp_round(p, t, xs, p.load(R_RK, 16 * (r - 14)))
        ys.extend(vp_sbox(p, t, s, True))
        kss.extend(ks(i) for i in range(lanes) if i != 1 or n != 1)
    aes = segment(p, aes)
    cut = int(lo * len(aes))
    p.ops += aes[:cut] + merge(aes[cut:], segment(p, early), frac)
    msg_tail(p, n, dec, h, ys, cts, km, kss, last, mask)
    k.prog(schedule(p, *order) if order else p)
    return k


# Lane counts of the vector-permute kernels: single blocks, and a block with J0 (the
# message kernels below have their own).
VPERM_LANES = (1, 2)

# (name, program, doc, contract): the contract says what the pointers must be.
KERNELS = [('kernel_ghash', lambda: k_ghash(8), 'GHASH only, 8 blocks per iteration', 'loop')]
for _m, _what in (('ctr', 'CTR keystream only'), ('enc', 'CTR, then GHASH of the ciphertext'),
                  ('dec', 'GHASH of the ciphertext, then CTR')):
    KERNELS.append((f'kernel_{_m}', (lambda m=_m: k_ctr(m)),
                    f'AES (any key size, the rounds a loop): {_what}, 8 blocks per iteration',
                    'loop'))
for _r, _bits in ((10, 128), (12, 192), (14, 256)):
    for _l in VPERM_LANES:
        KERNELS.append((f'kernel_vperm{_l}_aes{_bits}', (lambda r=_r, l=_l: k_vperm(r, l)),
                        f'AES-{_bits} by vector permutes: E(K, counter + i) for the {_l} lane(s) '
                        f'i < {_l}.\n///\n/// Constant time: every S-box lookup is a `vtbl` on '
                        f'constant tables in\n/// registers (a register permute whose timing does '
                        f'not depend on the index\n/// bytes, which address no memory); loads are '
                        f'at fixed offsets only', 'vperm'))
for _t in range(1, 9):
    KERNELS.append((f'kernel_ghash_short{_t}', (lambda t=_t: k_ghash_short(t)),
                    f'GHASH from zero of {_t} block(s), aggregated, one reduction', 'short'))
# Data blocks of the single-pass message kernels: up to five (six lanes with J0, the
# vector-permute limit above); opening an empty message is sealing it.
MSG_BLOCKS = 5
# The message kernels' tuning (k_msg_shared's frac, lo, horder), found by a seeded search
# that priced each kernel's AES-128 and AES-256 paths with llvm-mca-19 (A57,
# -iterations=1) against the unrolled per-size kernels they replace, keeping the best of
# the worse of the two (docs/footprint.md, step 6); the others keep the defaults.
MSG_TUNE = {
    ('seal', 1): dict(frac=1.0, lo=0.03, horder=(2, 0.3, 0.5, 8834)),
    ('seal', 2): dict(frac=0.89, lo=0.03, horder=(1, 0.3, 1, 2069)),
    ('seal', 4): dict(frac=0.9, lo=0.03, horder=(4, 0.1, 0.5, 7993)),
    ('open', 1): dict(frac=0.95, lo=0.01),
    ('open', 2): dict(frac=0.96, lo=0.03, horder=(1, 0.3, 1, 2069)),
    ('open', 3): dict(frac=0.85, lo=0.025),
    ('open', 4): dict(frac=0.8, lo=0.1, horder=(0.5, 0.3, 0.5, 8117)),
}
for _d in ('seal', 'open'):
    for _n in range(0 if _d == 'seal' else 1, MSG_BLOCKS + 1):
        KERNELS.append((f'kernel_{_d}{_n}',
                        (lambda n=_n, d=_d: k_msg_shared(n, d == 'open', **MSG_TUNE.get((d, n), {}))),
                        f'AES-GCM (any key size) of a message of {_n} data block(s) after one '
                        f'block of AAD, in one pass\n/// ({"GHASH of the input" if _d == "open" else "GHASH of the output"})',
                        'msg'))


# ------------------------------------------------------------------ output
HEADER = '''\
// @generated by src/backend/arm/neon/gen_kernels.py at build time (build.rs) -- edit that;
// this file is not committed.
//
// Each kernel is one `asm!` block: a loop over groups of eight blocks, or (vperm, ghash_short)
// one straight pass for a short message. Pointers arrive in fixed registers
// (see the generator: key r0, round-key cursor r1, src r2, dst r3, count r4, H powers r5,
// constants r8, scratch r10, y r12); every q register is clobbered. The message kernels
// (seal, open) are `extern "C"` functions that take and return blocks in q0-q3.

use super::run::{Out, Q, VCONSTS};
use super::NeonKey;
use core::mem::offset_of;

'''


CONTRACTS = {
    'loop': f"""`k` points to the bit-sliced round keys (1920 bytes), `h` to the H powers, `c` to
/// `CONSTS` (run.rs), `s` to a 16-byte aligned scratch buffer of 16 + `GROUP_SPILL_BYTES` bytes whose first
/// 16 bytes hold the counter (native lanes), `y` to the GHASH state (vrev64 form);
/// `src`/`dst` hold `16 * n` bytes (GHASH: `src` only), `n` a positive multiple of 8.""",
    'vperm': """`k` points to the vector-permute round keys (240 bytes, key.rs), `c` to `VCONSTS`
/// (run.rs), `s` to a 16-byte aligned scratch buffer whose first 16 bytes hold the counter
/// (native lanes), followed by `VPERM_SPILL_BYTES` writable bytes; `dst` has room for the
/// lanes' blocks; the other pointers are not used.""",
    'msg': """`k` is a key; `j0` points to J0 (16 bytes); `src` is readable and `dst`
/// writable for the whole data blocks before the last (none for one block or none), equal
/// or disjoint; `x` is the AAD block, `lens` the lengths block in the GHASH kernels' vrev64
/// form, `last` the last data block, zero-padded, `mask` (sealing) the mask of its bytes.
/// Returns the tag and the last output block (whole: the caller stores its bytes).""",
    'short': """`h` points to the H powers, `c` to `CONSTS` (run.rs), `src` to the blocks (16
/// bytes each), `y` to 16 writable bytes (the hash, vrev64 form), `s` to a 16-byte aligned
/// scratch buffer of 16 + `GHASH_SHORT_SPILL_BYTES` bytes; the other pointers are not used.""",
}


def msg_lines(lines, spill):
    """A message kernel's stack frame: its spill area below sp, wiped on the way out
    (vst1 with writeback brings sp back)."""
    size = (spill + 15) // 16 * 16
    if not size:
        return lines
    wipe = ['vmov.i8 q2, #0', 'vmov.i8 q3, #0']
    wipe += ['vst1.64 {d4, d5, d6, d7}, [sp]!'] * (size // 32)
    wipe += ['vst1.64 {d4, d5}, [sp]!'] * (size % 32 // 16)
    return [f'sub sp, sp, #{size}'] + lines + wipe


def rust_msg_fn(name, doc, lines):
    body = '\n'.join(f'            "{l.replace("{", "{{").replace("}", "}}")}",' for l in lines)
    return f'''/// {doc}.
///
/// # Safety
/// {CONTRACTS['msg']}
pub(super) unsafe extern "C" fn {name}(
    k: *const NeonKey,
    j0: *const u8,
    src: *const u8,
    dst: *mut u8,
    x: Q,
    lens: Q,
    last: Q,
    mask: Q,
) -> Out {{
    let (t0, t1, o0, o1): (f64, f64, f64, f64);
    // SAFETY: the caller's contract covers every address the kernel touches; the NEON
    // unit is present (checked when the key was made); the stack below sp that it uses
    // is wiped before sp is restored.
    unsafe {{
        core::arch::asm!(
            ".fpu neon",
{body}
            in("r0") k.cast::<u8>().add(offset_of!(NeonKey, vrk)),
            in("r1") j0,
            inout("r2") src => _,
            inout("r3") dst => _,
            in("r5") k.cast::<u8>().add(offset_of!(NeonKey, h)),
            in("r8") VCONSTS.0.as_ptr(),
            inout("d0") x.0 => t0,
            inout("d1") x.1 => t1,
            inout("d2") lens.0 => o0,
            inout("d3") lens.1 => o1,
            inout("d4") last.0 => _,
            inout("d5") last.1 => _,
            inout("d6") mask.0 => _,
            inout("d7") mask.1 => _,
            out("r12") _,
{MSG_CLOBBERS}
        );
    }}
    Out(Q(t0, t1), Q(o0, o1))
}}
'''


def rust_fn(name, doc, lines, contract):
    body = '\n'.join(f'            "{l.replace("{", "{{").replace("}", "}}")}",' for l in lines)
    return f'''/// {doc}.
///
/// # Safety
/// {CONTRACTS[contract]}
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn {name}(
    k: *const u8,
    h: *const u8,
    c: *const u8,
    s: *mut u8,
    y: *mut u8,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {{
    // SAFETY: the caller's contract covers every address the loop touches; the NEON
    // unit is present (checked when the key was made).
    unsafe {{
        core::arch::asm!(
            ".fpu neon",
{body}
            inout("r0") k => _,
            out("r1") _,
            inout("r2") src => _,
            inout("r3") dst => _,
            inout("r4") n => _,
            in("r5") h,
            in("r8") c,
            in("r10") s,
            in("r12") y,
{CLOBBERS}
            options(nostack),
        );
    }}
}}
'''


def spill_table(spills):
    """How much of the scratch buffer after the counter the single-pass kernels write
    (their spills, to be wiped), so that their callers need no 1 KiB buffer."""
    # as rustfmt lays the table out: one line if it fits, else one row a line
    rows = ['[' + ', '.join(str(spills[f'kernel_vperm{l}_aes{b}']) for l in VPERM_LANES) + ']'
            for b in (128, 192, 256)]
    vp = ', '.join(rows)
    if len(vp) + 60 > 100:
        vp = ''.join(f'\n    {r},' for r in rows) + '\n'
    gs = ', '.join(str(spills[f'kernel_ghash_short{t}']) for t in range(1, 9))
    group = max(v for k, v in spills.items() if k == 'kernel_ghash' or k.split('_')[1] in ('ctr', 'enc', 'dec'))
    return f'''
/// Bytes of the scratch buffer after the counter that `kernel_vperm{{lanes}}_aes{{bits}}`
/// writes (spilled state), by key size (128, 192, 256) and lanes − 1.
pub(super) const VPERM_SPILL_BYTES: [[usize; {len(VPERM_LANES)}]; 3] = [{vp}];
/// The same for `kernel_ghash_short{{blocks}}`, by blocks − 1.
pub(super) const GHASH_SHORT_SPILL_BYTES: [usize; 8] = [{gs}];
/// The most any group kernel (`kernel_{{ctr,enc,dec}}_aes{{bits}}`, `kernel_ghash`) writes
/// after the counter, so that its callers size and wipe their scratch block to it.
pub(super) const GROUP_SPILL_BYTES: usize = {group};
/// Offset of the round count (`NeonKey::rounds`, u32) from the round keys, which the
/// group kernels read (their round loop's count).
pub(super) const ROUNDS_OFFSET: usize = {K_ROUNDS};
/// Data blocks of the largest message kernel (`kernel_seal{{blocks}}_aes{{bits}}`).
pub(super) const MSG_BLOCKS: usize = {MSG_BLOCKS};
'''


MSG_CLOBBERS = '\n'.join(f'            out("d{i}") _,' for i in range(8, 16))
CLOBBERS = '\n'.join(f'            out("d{i}") _,' for i in range(16)) + '\n            out("lr") _,'


def search_round(tries, mca):
    """Tries `tries` schedules of the round body, each with the state placement that
    needs no moves at the loop edge and the fewest instructions, and prices the AES-128
    CTR kernel they make with llvm-mca (A57 and A9, the loop rows' models); prints the
    best. For the developer (needs llvm-mca-19), not the build."""
    import subprocess
    import tempfile

    def cycles(lines, cpu):
        a, b = lines.index('2:'), lines.index('bne 2b')
        flat = lines[:a] + lines[a + 1:b + 1] * 9 + lines[b + 1:]   # AES-128: 9 rounds
        text = 'L1:\n' + '\n'.join(l.replace(' 1b', ' L1').replace(' 2b', ' L1') for l in flat
                                    if not l.endswith(':')) + '\n'
        with tempfile.NamedTemporaryFile('w', suffix='.s') as f:
            f.write(text)
            f.flush()
            out = subprocess.run([mca, '-mtriple=armv8a-linux-gnueabihf', '-mcpu=' + cpu,
                                  '-mattr=+crypto', '-iterations=50', f.name],
                                 capture_output=True, text=True, check=True).stdout
        return int(re.search(r'Total Cycles:\s+(\d+)', out).group(1)) / 50 / 128

    def placement(order, rng):
        best = None
        for _ in range(300):
            st = tuple(rng.sample(range(16), 8))
            lines, _ = allocate(middle_round(st, order))
            moves = sum(1 for l in lines if l.startswith('vorr'))
            if best is None or (moves, len(lines)) < best[0]:
                best = ((moves, len(lines)), st)
        return best[1] if best[0][0] == 0 else None

    global STATE_Q, ROUND_ORDER
    rng = random.Random(30)
    results = []
    for cand in [(STATE_Q, ROUND_ORDER)] + [None] * tries:
        if cand is None:
            order = (rng.choice((0.5, 1, 2, 4)), rng.choice((0, 0.1, 0.3, 1)),
                     rng.choice((0.5, 1)), rng.randrange(10000))
            st = placement(order, rng)
            if st is None:
                continue
            cand = (st, order)
        STATE_Q, ROUND_ORDER = cand
        lines, _ = allocate_pieces(k_ctr('ctr'))
        a57, a9 = cycles(lines, 'cortex-a57'), cycles(lines, 'cortex-a9')
        results.append((a57, a9, cand))
        print(f'A57 {a57:.3f} A9 {a9:.3f} c/B: STATE_Q = {cand[0]}, ROUND_ORDER = {cand[1]}',
              flush=True)
    results.sort(key=lambda r: (r[0], r[1]))
    print('best:', results[0])


def search_msg(tries, mca):
    """For each message kernel: llvm-mca-19 (A57, -iterations=1) cycles of its AES-128 and
    AES-256 paths against the unrolled per-size kernel of the same message (k_msg, the
    kernels before they were shared), with MSG_TUNE's parameters and with `tries` random
    ones (the merge's span, the head's schedule); prints the best by the worse of the two
    key sizes. For the developer (needs llvm-mca-19), not the build."""
    import subprocess
    import tempfile

    def cycles(lines):
        text = '\n'.join(l for l in lines if not l.endswith(':') and l[:3] not in ('blt', 'beq'))
        with tempfile.NamedTemporaryFile('w', suffix='.s') as f:
            f.write(text + '\n')
            f.flush()
            out = subprocess.run([mca, '-mtriple=armv8a-linux-gnueabihf', '-mcpu=cortex-a57',
                                  '-iterations=1', f.name],
                                 capture_output=True, text=True, check=True).stdout
        return int(re.search(r'Total Cycles:\s+(\d+)', out).group(1))

    def paths(n, dec, kw):
        lines, st = allocate_pieces(k_msg_shared(n, dec, **kw))
        lines = msg_lines(lines, st['spill_bytes'] + ARG_BYTES)
        cut = next(i for i, l in enumerate(lines) if l.startswith('blt'))
        return lines[:cut] + lines[lines.index('3:'):], lines   # AES-128, AES-256

    rng = random.Random(30)
    for d in ('seal', 'open'):
        for n in range(0 if d == 'seal' else 1, MSG_BLOCKS + 1):
            ref = []
            for r in (10, 14):
                lines, st = allocate(k_msg(r, n, d == 'open'))
                ref.append(cycles(msg_lines(lines, st['spill_bytes'])))
            best = None
            for i in range(tries + 1):
                kw = MSG_TUNE.get((d, n), {}) if i == 0 else {
                    'frac': rng.choice([x / 100 for x in range(80, 101)]),
                    'lo': rng.choice([x / 200 for x in range(10)])}
                if i and rng.random() < 0.6:
                    kw['horder'] = (rng.choice((0.5, 1, 2, 4)), rng.choice((0, 0.1, 0.3, 1)),
                                    rng.choice((0.5, 1)), rng.randrange(10000))
                try:
                    got = [cycles(x) - y for x, y in zip(paths(n, d == 'open', kw), ref)]
                except (AssertionError, IndexError):   # the allocator ran out of slots
                    continue
                if best is None or (max(got), sum(got)) < best[0]:
                    best = ((max(got), sum(got)), got, kw)
            print(f'{d}{n}: AES-128 {ref[0]} {best[1][0]:+d}, AES-256 {ref[1]} {best[1][1]:+d}: '
                  f'{best[2]}', flush=True)


def main():
    ap = argparse.ArgumentParser(description='Generates the arm-neon kernels (see the comment at the top).')
    ap.add_argument('--verify', action='store_true',
                    help='write nothing: exit 1 unless every kernel passes the interpreter check')
    ap.add_argument('--out', metavar='PATH', help='write the kernels to PATH without the check (build.rs)')
    ap.add_argument('--only', metavar='NAME', help='check one kernel only; write nothing')
    ap.add_argument('--asm', action='store_true',
                    help='with --only: print its instructions (for llvm-mca), check nothing')
    ap.add_argument('--search-round', metavar='N', type=int,
                    help='try N round-body schedules with llvm-mca-19 and print the best')
    ap.add_argument('--search-msg', metavar='N', type=int,
                    help='price the message kernels against the per-size ones with llvm-mca-19, '
                    'MSG_TUNE and N random tunings each, and print the best')
    args = ap.parse_args()
    if args.search_round:
        return search_round(args.search_round, os.environ.get('LLVM_MCA', 'llvm-mca-19'))
    if args.search_msg is not None:
        return search_msg(args.search_msg, os.environ.get('LLVM_MCA', 'llvm-mca-19'))
    if not (args.verify or args.out or args.only):
        ap.error('one of --out, --verify, --only')
    rng = random.Random(1)
    parts = [HEADER]
    bad = 0
    spills = {}
    for name, mk, doc, contract in KERNELS:
        if args.only and args.only != name:
            continue
        p = mk()
        lines, st = allocate_pieces(p) if isinstance(p, Pieces) else allocate(p)
        if contract == 'msg':
            lines = msg_lines(lines, st['spill_bytes'] + ARG_BYTES)
        if args.asm:
            print('\n'.join(lines))
            return
        if not args.out:
            ninsn = sum(1 for l in lines if not l.endswith(':'))
            ok = all(check(lines, name, rng) for _ in range(2))
            bad += not ok
            print(f'{name}: {ninsn} instructions, {st["spill"]} spills, {st["reload"]} reloads, '
                  f'{st["remat"]} loads: ' + ('ok' if ok else 'MISMATCH'), file=sys.stderr)
        if contract == 'msg':
            parts.append(rust_msg_fn(name, doc, lines))
        else:
            parts.append(rust_fn(name, doc, lines, contract))
        spills[name] = st['spill_bytes']
    if bad:
        sys.exit(1)
    if args.out:
        parts.append(spill_table(spills))
        with open(args.out, 'w') as fh:
            fh.write(''.join(parts))


if __name__ == '__main__':
    main()
