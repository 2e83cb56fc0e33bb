#!/usr/bin/env python3
# gen-arm-neon.py - generates src/backend/arm/neon/kernels.rs, the ARMv7 NEON kernels of
# the `arm-neon` backend, as one `asm!` block per loop.
#
# Why a generator: the kernels are long straight-line programs (a bit-sliced AES round is
# ~200 NEON instructions, GHASH with vmull.p8 ~70 per block) over more values than NEON's
# sixteen q registers hold. They are written here over *virtual* values; a small
# allocator maps them onto q0-q15 (furthest-next-use eviction, constants and table
# entries re-loaded from memory instead of spilled, other values spilled to a scratch
# buffer). `--check` runs the generated instruction text on a tiny NEON interpreter
# against a plain Python AES and GHASH before anything is written, so an allocation or
# algebra mistake shows up here, not only under qemu.
#
# Usage: scripts/gen-arm-neon.py [--check] [--verify] [--out FILE]
#   --check   run every kernel on the interpreter against the reference first
#   --verify  do not write: exit 1 if the file differs from what would be generated
# Python 3 standard library only.
import argparse
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# General-purpose registers used by the kernels (Rust reserves r6, r7, r9, r11, sp, pc).
# Every kernel gets its pointers in fixed registers so the asm text needs no operands.
R_KEY, R_KEY2, R_SRC, R_DST, R_N, R_H, R_CONST, R_SCR, R_Y = (
    'r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r8', 'r10', 'r12')

# Layout of the constant table (bytes), shared with mod.rs (CONSTS).
C_K48, C_K32, C_K16 = 0, 8, 16          # d masks for the vmull.p8 fold
C_SR = 32                              # ShiftRows index, row-major state
C_CTR = 48                             # native counter (rev32) -> row-major big-endian
C_FIN = 64                             # last ShiftRows + row-major -> column-major
C_M55, C_M33, C_M0F = 80, 96, 112      # transpose masks (q)
C_ONE = 128                            # (0, 0, 0, 1) as u32 lanes
CONST_BYTES = 144

# Scratch buffer layout (bytes), shared with mod.rs: counter (native, rev32 form) at 0,
# spill slots from 16.
S_CTR = 0
S_SPILL = 16
SCRATCH_BYTES = 1024

# GHASH key layout per power H^k (k = 1..8), at 128*(k-1): for the lo, hi and Karatsuba
# middle 64-bit operand (type t at 40*t) the operand and its rotations by 1..4 bytes.
HPOW_BYTES = 128


class Val:
    __slots__ = ('id', 'src', 'name')

    def __init__(self, vid, src=None, name=''):
        self.id, self.src, self.name = vid, src, name


class Op:
    """One machine instruction over virtual values. `fmt` has {0}, {1}, ... for the
    operands, each (value, part) with part 'q', 'lo' or 'hi'. `defs` are values it
    creates, `mods` values it writes in place (they are also read)."""
    __slots__ = ('fmt', 'opnds', 'defs', 'mods', 'early', 'kind')

    def __init__(self, fmt, opnds, defs=(), mods=(), early=False, kind='neon'):
        self.fmt, self.opnds, self.defs, self.mods = fmt, opnds, list(defs), list(mods)
        self.early, self.kind = early, kind

    def uses(self):
        d = set(v.id for v in self.defs)
        return [v for v, _ in self.opnds if v.id not in d]


class Prog:
    def __init__(self):
        self.ops = []
        self.n = 0

    def val(self, src=None, name=''):
        self.n += 1
        return Val(self.n, src, name)

    def emit(self, fmt, opnds, defs=(), mods=(), early=False, kind='neon'):
        self.ops.append(Op(fmt, opnds, defs, mods, early, kind))

    def raw(self, text):
        self.ops.append(Op(text, [], kind='raw'))

    # --- helpers: q-wide ops produce new values
    def q3(self, mnem, a, b, name=''):
        r = self.val(name=name)
        self.emit(mnem + ' {0}, {1}, {2}', [(r, 'q'), (a, 'q'), (b, 'q')], defs=[r])
        return r

    def xor(self, a, b):
        return self.q3('veor', a, b)

    def and_(self, a, b):
        return self.q3('vand', a, b)

    def shr(self, a, s):
        r = self.val()
        self.emit(f'vshr.u64 {{0}}, {{1}}, #{s}', [(r, 'q'), (a, 'q')], defs=[r])
        return r

    def shl(self, a, s):
        r = self.val()
        self.emit(f'vshl.i64 {{0}}, {{1}}, #{s}', [(r, 'q'), (a, 'q')], defs=[r])
        return r

    def ext(self, a, k):
        r = self.val()
        self.emit(f'vext.8 {{0}}, {{1}}, {{1}}, #{k}', [(r, 'q'), (a, 'q')], defs=[r])
        return r

    def load(self, base, off, name=''):
        """A 16-byte value at [base + off]; re-loadable, so never spilled."""
        return self.val(src=(base, off), name=name)

    def ldq(self, base, off):
        """Explicit load (for memory that may be overwritten later: data)."""
        r = self.val()
        self.emit(f'vldr {{0}}, [{base}, #{off}]', [(r, 'lo')], defs=[r], kind='ld')
        self.emit(f'vldr {{0}}, [{base}, #{off + 8}]', [(r, 'hi'), (r, 'q')], mods=[r], kind='ld')
        return r

    def ldu(self, base, off):
        """Load of caller memory, which may be unaligned (vld1 does not trap on that,
        vldr would on hardware): the address goes through lr."""
        r = self.val()
        self.raw(f'add lr, {base}, #{off}')
        self.emit('vld1.8 {{{0}, {1}}}, [lr]', [(r, 'lo'), (r, 'hi')], defs=[r], kind='ld')
        return r

    def stu(self, v, base, off):
        self.raw(f'add lr, {base}, #{off}')
        self.emit('vst1.8 {{{0}, {1}}}, [lr]', [(v, 'lo'), (v, 'hi')], kind='st')

    def stq(self, v, base, off):
        self.emit(f'vstr {{0}}, [{base}, #{off}]', [(v, 'lo')], kind='st')
        self.emit(f'vstr {{0}}, [{base}, #{off + 8}]', [(v, 'hi')], kind='st')

    def tbl(self, a, idx):
        r = self.val()
        self.emit('vtbl.8 {0}, {{{1}, {2}}}, {3}', [(r, 'lo'), (a, 'lo'), (a, 'hi'), (idx, 'lo')], defs=[r])
        self.emit('vtbl.8 {0}, {{{1}, {2}}}, {3}', [(r, 'hi'), (a, 'lo'), (a, 'hi'), (idx, 'hi'), (r, 'q')],
                  mods=[r])
        return r


# ------------------------------------------------------------------ register allocation
def allocate(prog, nregs=16):
    """Returns the instruction text. Values are allocated to q registers; a value with a
    memory source is (re)loaded on demand and never stored; others spill to scratch."""
    ops = prog.ops
    uses_at = {}
    for i, op in enumerate(ops):
        for v in op.uses():
            uses_at.setdefault(v.id, []).append(i)
        for v in op.defs:
            uses_at.setdefault(v.id, [])
    ptr = {k: 0 for k in uses_at}

    def next_use(v, i):
        lst = uses_at.get(v.id, [])
        p = ptr[v.id]
        while p < len(lst) and lst[p] < i:
            p += 1
        ptr[v.id] = p
        return lst[p] if p < len(lst) else None

    reg = [None] * nregs      # q index -> Val
    where = {}                # val id -> q index
    spilled = {}              # val id -> slot offset (clean copy in memory)
    free_slots = list(range(S_SPILL, SCRATCH_BYTES, 16))
    out = []
    stats = {'spill': 0, 'reload': 0, 'remat': 0}

    def emit_load(v, q):
        if v.src is not None:
            base, off = v.src
            out.append(f'vldr d{2 * q}, [{base}, #{off}]')
            out.append(f'vldr d{2 * q + 1}, [{base}, #{off + 8}]')
            stats['remat'] += 1
        else:
            off = spilled[v.id]
            out.append(f'vldr d{2 * q}, [{R_SCR}, #{off}]')
            out.append(f'vldr d{2 * q + 1}, [{R_SCR}, #{off + 8}]')
            stats['reload'] += 1

    def evict(i, pinned):
        best, bq = -1, None
        for q in range(nregs):
            v = reg[q]
            if v is None:
                return q
            if v.id in pinned:
                continue
            nu = next_use(v, i)
            d = 10 ** 9 if nu is None else nu
            if d > best:
                best, bq = d, q
        assert bq is not None, 'no register to evict'
        v = reg[bq]
        if next_use(v, i) is not None and v.src is None and v.id not in spilled:
            off = free_slots.pop(0)
            spilled[v.id] = off
            out.append(f'vstr d{2 * bq}, [{R_SCR}, #{off}]')
            out.append(f'vstr d{2 * bq + 1}, [{R_SCR}, #{off + 8}]')
            stats['spill'] += 1
        del where[v.id]
        reg[bq] = None
        return bq

    def release(v):
        if v.id in where:
            reg[where.pop(v.id)] = None
        if v.id in spilled:
            free_slots.append(spilled.pop(v.id))
            free_slots.sort()

    for i, op in enumerate(ops):
        if op.kind == 'raw':
            out.append(op.fmt)
            continue
        uses = op.uses()
        pinned = set(v.id for v in uses) | set(v.id for v in op.defs)
        for v in uses:
            if v.id not in where:
                q = evict(i, pinned)
                emit_load(v, q)
                reg[q], where[v.id] = v, q
        for v in op.mods:  # written: any memory copy is stale
            if v.id in spilled:
                free_slots.append(spilled.pop(v.id))
        dying = [v for v in uses if next_use(v, i + 1) is None and v not in op.mods]
        loc = {v.id: where[v.id] for v in uses}
        if not op.early:
            for v in dying:
                release(v)
        for v in op.defs:
            q = evict(i, pinned)
            reg[q], where[v.id] = v, q
            loc[v.id] = q
        names = []
        for v, part in op.opnds:
            q = loc[v.id]
            names.append({'q': f'q{q}', 'lo': f'd{2 * q}', 'hi': f'd{2 * q + 1}'}[part])
        out.append(op.fmt.format(*names))
        if op.early:
            for v in dying:
                release(v)
        for v in op.defs:
            if next_use(v, i + 1) is None:
                release(v)
    return out, stats


# ------------------------------------------------------------------ AES (bit-sliced)
def parse_sbox():
    """The Boyar-Peralta gates of the shared S-box circuit (src/backend/sbox.rs), used
    here verbatim as a netlist; the circuit leaves out the affine constant (folded into
    the keys)."""
    text = open(os.path.join(ROOT, 'src/backend/sbox.rs')).read()
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


def rk_base(off):
    return (R_KEY, off) if off < 1024 else (R_KEY2, off - 1024)


def aes8(p, blocks, rounds):
    """Encrypts 8 row-major blocks; returns 8 column-major (normal order) blocks."""
    s = transpose(p, blocks)
    sr = p.load(R_CONST, C_SR)
    fin = p.load(R_CONST, C_FIN)
    for r in range(rounds + 1):
        if r > 0:
            s = sub_bytes(p, s)
            s = [p.tbl(x, sr if r < rounds else fin) for x in s]
            if r < rounds:
                a1 = [p.ext(x, 4) for x in s]
                t = [p.xor(x, y) for x, y in zip(s, a1)]
                top = t[7]
                dbl = [top, p.xor(t[0], top), t[1], p.xor(t[2], top), p.xor(t[3], top), t[4], t[5], t[6]]
                s = [p.xor(p.xor(dbl[j], a1[j]), p.ext(t[j], 8)) for j in range(8)]
        s = [p.xor(x, p.load(*rk_base(128 * r + 16 * j))) for j, x in enumerate(s)]
    return transpose(p, s)


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


def reduce(p, lo, hi, mid):
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
    return p.ext(r, 8)   # back to the form of y: lo half = high word


def load_y(p):
    return p.ldu(R_Y, 0)   # kept in vrev64 form in memory (see mod.rs)


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


def k_ctr(rounds, mode):
    """mode: 'ctr' keystream only, 'enc' CTR then GHASH of the output, 'dec' GHASH of the
    input, then CTR."""
    p = Prog()

    def body():
        if mode == 'dec':
            y = load_y(p)
            y2 = ghash_group(p, lambda i: p.ldu(R_SRC, 16 * i), y, 8)
            p.stu(y2, R_Y, 0)
        ks = aes8(p, counters(p), rounds)
        for i in range(8):
            x = p.ldu(R_SRC, 16 * i)
            p.stu(p.xor(x, ks[i]), R_DST, 16 * i)
        if mode == 'enc':
            y = load_y(p)
            y2 = ghash_group(p, lambda i: p.ldu(R_DST, 16 * i), y, 8)
            p.stu(y2, R_Y, 0)
    loop(p, body, 128, 128)
    return p


KERNELS = [('kernel_ghash', lambda: k_ghash(8), 'GHASH only, 8 blocks per iteration')]
for _r, _bits in ((10, 128), (12, 192), (14, 256)):
    for _m, _what in (('ctr', 'CTR keystream only'), ('enc', 'CTR, then GHASH of the ciphertext'),
                      ('dec', 'GHASH of the ciphertext, then CTR')):
        KERNELS.append((f'kernel_{_m}_aes{_bits}', (lambda r=_r, m=_m: k_ctr(r, m)),
                        f'AES-{_bits}: {_what}, 8 blocks per iteration'))


# ------------------------------------------------------------------ interpreter (--check)
M64 = (1 << 64) - 1


class Machine:
    def __init__(self, mem, regs):
        self.d = [0] * 32
        self.mem = mem          # bytearray
        self.r = dict(regs)

    def q(self, n):
        return self.d[2 * n] | (self.d[2 * n + 1] << 64)

    def setq(self, n, v):
        self.d[2 * n], self.d[2 * n + 1] = v & M64, v >> 64

    def run(self, lines):
        labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(':')}
        pc = 0
        while pc < len(lines):
            l = lines[pc]
            pc += 1
            if l.endswith(':'):
                continue
            m, _, rest = l.partition(' ')
            a = [x.strip() for x in re.split(r',\s*(?![^{]*})(?![^\[]*\])', rest)]
            if m == 'bne':
                if self.r[R_N] != 0:
                    pc = labels[a[0][:-1]]
                continue
            if m in ('add', 'subs'):
                imm = int(a[2][1:])
                self.r.setdefault(a[0], 0)
                self.r[a[0]] = (self.r[a[1]] + (imm if m == 'add' else -imm)) & 0xffffffff
                continue
            self.neon(m, a)

    def rd(self, x):
        if x[0] == 'q':
            return self.q(int(x[1:])), 128
        return self.d[int(x[1:])], 64

    def wr(self, x, v):
        if x[0] == 'q':
            self.setq(int(x[1:]), v & ((1 << 128) - 1))
        else:
            self.d[int(x[1:])] = v & M64

    def neon(self, m, a):
        if m in ('vld1.8', 'vst1.8'):
            dd = [int(x) for x in re.findall(r'd(\d+)', a[0])]
            addr = self.r[a[1].strip('[]')]
            for k, dn in enumerate(dd):
                if m == 'vld1.8':
                    self.d[dn] = int.from_bytes(self.mem[addr + 8 * k:addr + 8 * k + 8], 'little')
                else:
                    self.mem[addr + 8 * k:addr + 8 * k + 8] = self.d[dn].to_bytes(8, 'little')
            return
        if m in ('vldr', 'vstr'):
            mm = re.match(r'\[(\w+), #(\d+)\]', a[1])
            addr = self.r[mm.group(1)] + int(mm.group(2))
            if m == 'vldr':
                self.wr(a[0], int.from_bytes(self.mem[addr:addr + 8], 'little'))
            else:
                self.mem[addr:addr + 8] = self.d[int(a[0][1:])].to_bytes(8, 'little')
            return
        if m in ('veor', 'vand'):
            x, w = self.rd(a[1])
            y, _ = self.rd(a[2])
            self.wr(a[0], x ^ y if m == 'veor' else x & y)
        elif m == 'vmov':
            self.wr(a[0], self.rd(a[1])[0])
        elif m == 'vmov.i64':
            self.wr(a[0], 0)
        elif m in ('vshr.u64', 'vshl.i64'):
            x, w = self.rd(a[1])
            s = int(a[2][1:])
            lanes = [(x >> (64 * k)) & M64 for k in range(w // 64)]
            lanes = [(l >> s) if m == 'vshr.u64' else ((l << s) & M64) for l in lanes]
            self.wr(a[0], sum(l << (64 * k) for k, l in enumerate(lanes)))
        elif m == 'vext.8':
            x, w = self.rd(a[1])
            n = w // 8
            k = int(a[3][1:])
            b = x.to_bytes(n, 'little')
            self.wr(a[0], int.from_bytes(bytes(b[(i + k) % n] for i in range(n)), 'little'))
        elif m == 'vrev64.8':
            x, w = self.rd(a[1])
            b = x.to_bytes(16, 'little')
            self.wr(a[0], int.from_bytes(b[7::-1] + b[15:7:-1], 'little'))
        elif m == 'vadd.i32':
            x, _ = self.rd(a[1])
            y, _ = self.rd(a[2])
            self.wr(a[0], sum((((x >> (32 * k)) + (y >> (32 * k))) & 0xffffffff) << (32 * k) for k in range(4)))
        elif m == 'vtbl.8':
            t = re.findall(r'd(\d+)', a[1])
            tb = b''.join(self.d[int(i)].to_bytes(8, 'little') for i in t)
            idx = self.rd(a[2])[0].to_bytes(8, 'little')
            self.wr(a[0], int.from_bytes(bytes(tb[i] if i < len(tb) else 0 for i in idx), 'little'))
        elif m == 'vmull.p8':
            x = self.rd(a[1])[0].to_bytes(8, 'little')
            y = self.rd(a[2])[0].to_bytes(8, 'little')
            self.wr(a[0], sum(clmul(x[k], y[k]) << (16 * k) for k in range(8)))
        else:
            raise ValueError(m)


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


# Reference AES and GHASH (plain Python, for --check only).
def xt(a):
    a <<= 1
    return a ^ 0x11b if a & 0x100 else a


def gmul8(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = xt(a), b >> 1
    return r


SBOX = []
for _x in range(256):
    _inv = 0 if _x == 0 else next(y for y in range(1, 256) if gmul8(_x, y) == 1)
    _s = _inv
    for _k in range(1, 5):
        _s ^= ((_inv << _k) | (_inv >> (8 - _k))) & 0xff
    SBOX.append(_s ^ 0x63)


def expand(key):
    nk = len(key) // 4
    rounds = nk + 6
    w = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rc = 1
    for i in range(nk, 4 * (rounds + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rc
            rc = xt(rc)
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - nk], t)])
    return [sum(w[4 * r:4 * r + 4], []) for r in range(rounds + 1)], rounds


def aes_ref(key, blk):
    rks, rounds = expand(key)
    s = [a ^ b for a, b in zip(blk, rks[0])]
    for r in range(1, rounds + 1):
        s = [SBOX[b] for b in s]
        s = [s[4 * ((c + r_) % 4) + r_] for c in range(4) for r_ in range(4)]
        if r < rounds:
            n = []
            for c in range(4):
                col = s[4 * c:4 * c + 4]
                for r_ in range(4):
                    n.append(xt(col[r_]) ^ xt(col[(r_ + 1) % 4]) ^ col[(r_ + 1) % 4] ^ col[(r_ + 2) % 4]
                             ^ col[(r_ + 3) % 4])
            s = n
        s = [a ^ b for a, b in zip(s, rks[r])]
    return bytes(s)


def gf_mul(x, y):   # GCM spec algorithm on 128-bit big-endian ints
    z, v = 0, x
    for i in range(127, -1, -1):
        if (y >> i) & 1:
            z ^= v
        v = (v >> 1) ^ (0xe1 << 120) if v & 1 else v >> 1
    return z


def key_material(key):
    """What mod.rs computes at key setup (mirrored here): bit-sliced round keys with 0x63
    folded in from round 1 on, and the vmull.p8 operands of H^k·x^-1 (reflected form)."""
    rks, rounds = expand(key)
    mem = bytearray(15 * 128)
    for r in range(rounds + 1):
        k = [b ^ (0x63 if r > 0 else 0) for b in rks[r]]
        for j in range(8):
            for pos in range(16):
                if r < rounds:   # row-major position pos = 4*row + col
                    byte = k[4 * (pos % 4) + pos // 4]
                else:            # column-major
                    byte = k[pos]
                mem[128 * r + 16 * j + pos] = 0xff if (byte >> j) & 1 else 0
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    hm = bytearray(8 * HPOW_BYTES)
    hp = h
    for k in range(8):
        # H·x^-1: in the spec's bit order multiplying by x^-1 is a left shift, folding
        # the carried-out x^-1 back as x^127 + x^6 + x + 1 (the reflected polynomial).
        w = hp << 1
        if w >> 128:
            w = (w ^ (1 << 128)) ^ 0xc2000000000000000000000000000001
        wl, wh = w & M64, w >> 64
        for t, v in enumerate((wl, wh, wl ^ wh)):
            for j in range(5):
                rot = ((v >> (8 * j)) | (v << (64 - 8 * j))) & M64 if j else v
                off = HPOW_BYTES * k + 40 * t + 8 * j
                hm[off:off + 8] = rot.to_bytes(8, 'little')
        hp = gf_mul(hp, h)
    return mem, hm, rounds


def consts():
    c = bytearray(CONST_BYTES)
    c[C_K48:C_K48 + 8] = ((1 << 48) - 1).to_bytes(8, 'little')
    c[C_K32:C_K32 + 8] = ((1 << 32) - 1).to_bytes(8, 'little')
    c[C_K16:C_K16 + 8] = ((1 << 16) - 1).to_bytes(8, 'little')
    c[C_SR:C_SR + 16] = bytes(4 * r + (cc + r) % 4 for r in range(4) for cc in range(4))
    c[C_CTR:C_CTR + 16] = bytes(4 * cc + 3 - r for r in range(4) for cc in range(4))
    fin = [0] * 16
    for cc in range(4):
        for r in range(4):
            fin[4 * cc + r] = 4 * r + (cc + r) % 4
    c[C_FIN:C_FIN + 16] = bytes(fin)
    c[C_M55:C_M55 + 16] = b'\x55' * 16
    c[C_M33:C_M33 + 16] = b'\x33' * 16
    c[C_M0F:C_M0F + 16] = b'\x0f' * 16
    c[C_ONE:C_ONE + 16] = (1 << 96).to_bytes(16, 'little')
    return bytes(c)


def ghash_ref(h, y, data):
    for i in range(0, len(data), 16):
        y = gf_mul(y ^ int.from_bytes(data[i:i + 16], 'big'), h)
    return y


def rev64(b):
    return bytes(b[7::-1] + b[15:7:-1])


def check(lines, name, rng):
    key = bytes(rng.randrange(256) for _ in range(16 if '128' in name or 'ghash' in name else
                                                   24 if '192' in name else 32))
    rkm, hm, rounds = key_material(key)
    iters = 2
    nb = 8
    data = bytes(rng.randrange(256) for _ in range(16 * nb * iters))
    y0 = bytes(rng.randrange(256) for _ in range(16))
    ctr0 = bytes(rng.randrange(256) for _ in range(12)) + bytes([0xff, 0xff, 0xff, 0xfb])
    # memory map
    A_KEY, A_H, A_C, A_S, A_Y, A_SRC, A_DST = 0, 4096, 6144, 8192, 12288, 16384, 32768
    mem = bytearray(65536)
    mem[A_KEY:A_KEY + len(rkm)] = rkm
    mem[A_H:A_H + len(hm)] = hm
    mem[A_C:A_C + CONST_BYTES] = consts()
    mem[A_Y:A_Y + 16] = rev64(y0)
    ctrn = b''.join(ctr0[4 * i:4 * i + 4][::-1] for i in range(4))
    mem[A_S + S_CTR:A_S + S_CTR + 16] = ctrn
    mem[A_SRC:A_SRC + len(data)] = data
    regs = {R_KEY: A_KEY, R_KEY2: A_KEY + 1024, R_SRC: A_SRC, R_DST: A_DST, R_N: 8 * iters, R_H: A_H,
            R_CONST: A_C, R_SCR: A_S, R_Y: A_Y}
    Machine(mem, regs).run(lines)
    h = int.from_bytes(aes_ref(key, bytes(16)), 'big')
    y = int.from_bytes(y0, 'big')
    got_y = int.from_bytes(rev64(bytes(mem[A_Y:A_Y + 16])), 'big')
    ok = True
    if name == 'kernel_ghash':
        ok = got_y == ghash_ref(h, y, data)
    else:
        c = int.from_bytes(ctr0[12:], 'big')
        ks = b''.join(aes_ref(key, ctr0[:12] + ((c + i) & 0xffffffff).to_bytes(4, 'big'))
                      for i in range(nb * iters))
        out = bytes(a ^ b for a, b in zip(data, ks))
        ok = bytes(mem[A_DST:A_DST + len(data)]) == out
        if 'enc' in name:
            ok = ok and got_y == ghash_ref(h, y, out)
        if 'dec' in name:
            ok = ok and got_y == ghash_ref(h, y, data)
        cn = bytes(mem[A_S:A_S + 16])
        ok = ok and b''.join(cn[4 * i:4 * i + 4][::-1] for i in range(4))[12:] == \
            ((c + nb * iters) & 0xffffffff).to_bytes(4, 'big')
    return ok


# ------------------------------------------------------------------ output
HEADER = '''\
// @generated by scripts/gen-arm-neon.py -- do not edit; edit the generator and re-run it.
//
// Each kernel is one `asm!` block holding one loop. Pointers arrive in fixed registers
// (see the generator: key r0, key+1024 r1, src r2, dst r3, count r4, H powers r5,
// constants r8, scratch r10, y r12); every q register is clobbered.

'''


def rust_fn(name, doc, lines):
    body = '\n'.join(f'            "{l.replace("{", "{{").replace("}", "}}")}",' for l in lines)
    return f'''/// {doc}.
///
/// # Safety
/// `k` points to the bit-sliced round keys (1920 bytes), `h` to the H powers, `c` to
/// [`super::CONSTS`], `s` to a 16-byte aligned scratch buffer of {SCRATCH_BYTES} bytes whose first
/// 16 bytes hold the counter (native lanes), `y` to the GHASH state (vrev64 form);
/// `src`/`dst` hold `16 * n` bytes (GHASH: `src` only), `n` a positive multiple of 8.
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
            inout("r1") k.wrapping_add(1024) => _,
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


CLOBBERS = '\n'.join(f'            out("d{i}") _,' for i in range(16)) + '\n            out("lr") _,'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--out', default=os.path.join(ROOT, 'src/backend/arm/neon/kernels.rs'))
    ap.add_argument('--verify', action='store_true')
    ap.add_argument('--only')
    args = ap.parse_args()
    rng = random.Random(1)
    parts = [HEADER]
    bad = 0
    for name, mk, doc in KERNELS:
        if args.only and args.only != name:
            continue
        p = mk()
        lines, st = allocate(p)
        ninsn = sum(1 for l in lines if not l.endswith(':'))
        msg = f'{name}: {ninsn} instructions, {st["spill"]} spills, {st["reload"]} reloads, {st["remat"]} loads'
        if args.check:
            ok = all(check(lines, name, rng) for _ in range(2))
            msg += ': ' + ('ok' if ok else 'MISMATCH')
            bad += not ok
        print(msg, file=sys.stderr)
        parts.append(rust_fn(name, doc, lines))
    if bad:
        sys.exit(1)
    if args.verify:
        same = os.path.exists(args.out) and open(args.out).read() == ''.join(parts)
        print(f'{args.out}: ' + ('up to date' if same else 'STALE (re-run the generator)'), file=sys.stderr)
        sys.exit(0 if same else 1)
    if not args.only:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, 'w') as fh:
            fh.write(''.join(parts))


if __name__ == '__main__':
    main()
