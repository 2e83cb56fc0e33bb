"""The machine model of gen_kernels.py: the register and memory layout the ARMv7 kernels
share with the Rust glue (run.rs: constant table and scratch block; key.rs: key layout),
programs over virtual NEON values (`Prog`), and the register allocator that maps them onto
q0-q15 (furthest-next-use eviction; values with a memory source are re-loaded instead of
spilled, others spill to the scratch block, or below sp in the message kernels; values can
arrive in given registers and be left in given registers at the end).
"""

# General-purpose registers used by the kernels (Rust reserves r6, r7, r9, r11, sp, pc).
# Every kernel gets its pointers in fixed registers so the asm text needs no operands.
R_KEY, R_KEY2, R_SRC, R_DST, R_N, R_H, R_CONST, R_SCR, R_Y = (
    'r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r8', 'r10', 'r12')

# Layout of the constant table (bytes), shared with run.rs (CONSTS).
C_K48, C_K32, C_K16 = 0, 8, 16          # d masks for the vmull.p8 fold
C_SR = 32                              # ShiftRows index, row-major state
C_CTR = 48                             # native counter (rev32) -> row-major big-endian
C_FIN = 64                             # last ShiftRows + row-major -> column-major
C_M55, C_M33, C_M0F = 80, 96, 112      # transpose masks (q)
C_ONE = 128                            # (0, 0, 0, 1) as u32 lanes
CONST_BYTES = 144

# Layout of the vector-permute constant table (bytes), shared with vperm.rs (VCONSTS):
# the 0x0f mask, the nibble tables of backend/vperm.rs (1/u, 1/(zeta k), the middle rounds'
# A and 2A output pairs, the last round's pair, the two nibbles' tower forms), the
# permutations (native counter -> row-major state after ShiftRows, ShiftRows, last round
# -> standard order) and (0, 0, 0, 1) as u32 lanes.
V_LOW, V_INV, V_ZINV, V_MID, V_MID2, V_LAST, V_TIN = 0, 16, 32, 48, 80, 112, 144
V_IN, V_SR, V_OUT, V_ONE = 176, 192, 208, 224
# ... then the vmull.p8 fold masks of the GHASH (as C_K48..C_K16), for the single-pass
# message kernels, which read this table only.
V_K48, V_K32, V_K16 = 240, 248, 256
VCONST_BYTES = 272

# Scratch buffer layout (bytes), shared with run.rs: counter (native, rev32 form) at 0,
# spill slots from 16.
S_CTR = 0
S_SPILL = 16
SCRATCH_BYTES = 1024

# Offset of NeonKey.rounds from its sliced round keys (15 x 128 bytes, then the H powers,
# 8 x 128), read by the rolled group kernels; mod.rs asserts it.
K_ROUNDS = 15 * 128 + 8 * 128

# GHASH key layout per power H^k (k = 1..8), at 128*(k-1): for the lo, hi and Karatsuba
# middle 64-bit operand (type t at 40*t) the operand and its rotations by 1..4 bytes.
HPOW_BYTES = 128


class Val:
    __slots__ = ('id', 'src', 'name', 'd')

    def __init__(self, vid, src=None, name='', d=False):
        # d: a memory value of 8 bytes (one vldr into the low half when loaded)
        self.id, self.src, self.name, self.d = vid, src, name, d


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
    """A program over virtual values. `scr` is the base register of the spill slots, from
    byte `spill_base` on; `args` are values in given q registers at entry, `results`
    values that must be in given q registers at exit."""

    def __init__(self, scr=R_SCR, spill_base=S_SPILL):
        self.ops = []
        self.n = 0
        self.scr, self.spill_base = scr, spill_base
        self.args, self.results = [], []
        self.keep = ()

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

    def shr8(self, a, s):
        r = self.val()
        self.emit(f'vshr.u8 {{0}}, {{1}}, #{s}', [(r, 'q'), (a, 'q')], defs=[r])
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

    def load_d(self, base, off):
        """An 8-byte value at [base + off] (the low half; the high half is undefined)."""
        v = self.val(src=(base, off))
        v.d = True
        return v

    def arg(self, q):
        """A value that is in register q at entry."""
        v = self.val()
        self.args.append((v, q))
        return v

    def result(self, v, q):
        """`v` is to be in register q at exit (the moves are made after the last op)."""
        self.results.append((v, q))

    def ld_post(self, base):
        """Load of 16 bytes of caller memory at `base`, which advances by 16."""
        r = self.val()
        self.emit('vld1.8 {{{0}, {1}}}, [' + base + ']!', [(r, 'lo'), (r, 'hi')], defs=[r], kind='ld')
        return r

    def st_post(self, v, base):
        """Store of 16 bytes to caller memory at `base`, which advances by 16."""
        self.emit('vst1.8 {{{0}, {1}}}, [' + base + ']!', [(v, 'lo'), (v, 'hi')], kind='st')

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
    memory source is (re)loaded on demand and never stored; others spill to scratch.
    Registers in `prog.keep` are left alone (they hold values across the program)."""
    ops = list(prog.ops)
    if prog.results:
        ops.append(Op('', [(v, 'q') for v, _ in prog.results], kind='results'))
    scr = prog.scr
    uses_at = {}
    for i, op in enumerate(ops):
        for v in op.uses():
            uses_at.setdefault(v.id, []).append(i)
        for v in op.defs:
            uses_at.setdefault(v.id, [])
    ptr = {k: 0 for k in uses_at}

    def next_use(v, i):
        lst = uses_at.get(v.id, [])
        p = ptr.get(v.id, 0)
        while p < len(lst) and lst[p] < i:
            p += 1
        ptr[v.id] = p
        return lst[p] if p < len(lst) else None

    reg = [None] * nregs      # q index -> Val
    where = {}                # val id -> q index
    spilled = {}              # val id -> slot offset (clean copy in memory)
    free_slots = list(range(prog.spill_base, prog.spill_base + SCRATCH_BYTES - S_SPILL, 16))
    out = []
    stats = {'spill': 0, 'reload': 0, 'remat': 0, 'spill_bytes': 0}

    def emit_load(v, q):
        if v.src is not None:
            base, off = v.src
            out.append(f'vldr d{2 * q}, [{base}, #{off}]')
            if not v.d:
                out.append(f'vldr d{2 * q + 1}, [{base}, #{off + 8}]')
            stats['remat'] += 1
        else:
            off = spilled[v.id]
            out.append(f'vldr d{2 * q}, [{scr}, #{off}]')
            out.append(f'vldr d{2 * q + 1}, [{scr}, #{off + 8}]')
            stats['reload'] += 1

    def evict(i, pinned):
        best, bq = -1, None
        for q in range(nregs):
            if q in prog.keep:
                continue
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
            stats['spill_bytes'] = max(stats['spill_bytes'], off + 16 - prog.spill_base)
            out.append(f'vstr d{2 * bq}, [{scr}, #{off}]')
            out.append(f'vstr d{2 * bq + 1}, [{scr}, #{off + 8}]')
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

    for v, q in prog.args:
        reg[q], where[v.id] = v, q
        if next_use(v, 0) is None:
            release(v)

    want = {v.id: q for v, q in prog.results}

    def place_results():
        """Moves (or reloads) each result into its register; every other value is dead."""
        stats['natural'] = [where.get(v.id) for v, _ in prog.results]
        todo = list(prog.results)
        while todo:
            for k, (v, q) in enumerate(todo):
                if where.get(v.id) == q:
                    del todo[k]
                    break
                occ = reg[q]
                if occ is not None and occ.id in want:
                    continue
                if occ is not None:
                    del where[occ.id]
                if v.id in where:
                    s = where.pop(v.id)
                    reg[s] = None
                    out.append(f'vorr q{q}, q{s}, q{s}')
                else:
                    emit_load(v, q)
                reg[q], where[v.id] = v, q
                del todo[k]
                break
            else:  # a cycle: move one result aside to a register no result wants
                v, q = todo[0]
                f = next(r for r in range(nregs)
                         if reg[r] is None and r not in want.values() and r not in prog.keep)
                s = where.pop(v.id)
                reg[s] = None
                out.append(f'vorr q{f}, q{s}, q{s}')
                reg[f], where[v.id] = v, f

    for i, op in enumerate(ops):
        if op.kind == 'raw':
            out.append(op.fmt)
            continue
        if op.kind == 'results':
            place_results()
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
            q = want.get(v.id)
            if q is None or reg[q] is not None:  # a result goes where it is wanted if free
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
