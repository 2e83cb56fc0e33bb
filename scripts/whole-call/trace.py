# trace.py - reading the trace plugin's output (trace-plugin.c) and turning each window into
# the disassembled instruction stream that llvm-mca prices (used by whole-call.py).
#
# Each executed instruction word is disassembled by LLVM, not taken from qemu's own
# disassembly (capstone's syntax is not always what llvm-mca parses): the distinct words of a
# trace are written as `.inst` lines into one object with llvm-mc and disassembled back with
# model-arm.py's objdump reader, so the text is exactly the form the loop model prices.
# AArch32 mixes ARM and Thumb code; a 2-byte instruction is Thumb, a 4-byte word whose first
# halfword is no Thumb-2 prefix is ARM, and for the remaining words the block (which qemu
# translates in one mode) takes the mode whose LLVM mnemonics agree with qemu's disassembly.
import os
import re
import subprocess
import types


class Window:
    def __init__(self, index):
        self.index, self.refs, self.count, self.terminated = index, [], 0, True


def parse(path):
    """-> (blocks {id: [(vaddr, size, hex, qemu_disas)]}, [Window]) ; refs are (block, idx)."""
    blocks, windows, cur = {}, [], None
    with open(path) as fh:
        for line in fh:
            if line.startswith('B '):
                _, bid, n = line.split()
                insns = []
                for _ in range(int(n)):
                    v, size, hx, dis = (fh.readline().rstrip('\n').split(' ', 3) + ['', ''])[:4]
                    insns.append((int(v, 16), int(size), hx, dis))
                blocks[int(bid)] = insns
            elif line.startswith('W '):
                cur = Window(int(line.split()[1]))
            elif line.startswith('E '):
                f = line.split()
                cur.count, cur.terminated = int(f[2]), 'unterminated' not in line
                windows.append(cur)
                cur = None
            elif cur is not None:
                for tok in line.split():
                    p = tok.split(':')
                    bid = int(p[0])
                    first, count = (int(p[1]), int(p[2])) if len(p) == 3 else (0, len(blocks[bid]))
                    cur.refs.extend((bid, i) for i in range(first, first + count))
    return blocks, windows


def thumb2_prefix(hx):
    """The first halfword of a 4-byte word opens a 32-bit Thumb-2 instruction."""
    return (int(hx[2:4], 16) >> 3) in (0x1d, 0x1e, 0x1f)


def _mnem(s):
    m = s.split(None, 1)[0].lower() if s.strip() else ''
    return re.sub(r'\.(w|n)$', '', m)


def it_length(hx):
    """Instructions governed by a Thumb IT instruction (2-byte word hx), or 0."""
    hw = int(hx[2:4] + hx[0:2], 16)
    mask = hw & 0xf
    if len(hx) != 4 or hw & 0xff00 != 0xbf00 or not mask:
        return 0
    return 4 - (mask & -mask).bit_length() + 1


class Disassembler:
    """Disassembles units (mode, (hex, ...)): mode a64, arm or thumb; a unit is one word, or
    a Thumb IT instruction with the instructions it governs (they read as conditional only
    after it)."""

    def __init__(self, ma, mc, objdump, workdir):
        self.ma, self.mc, self.objdump, self.workdir = ma, mc, objdump, workdir

    def run(self, units, target):
        units = sorted(set(units), key=lambda u: (u[0] != 'arm', u))   # ARM words first (aligned)
        if target == 'a64':
            head = ['\t.text', '\t.globl\twc', '\t.type\twc,%function', 'wc:']
            triple = 'aarch64-linux-gnu'
        else:
            head = ['\t.syntax unified', '\t.arch armv8-a', '\t.fpu crypto-neon-fp-armv8', '\t.text',
                    '\t.globl\twc', '\t.type\twc,%function', '\t.arm', 'wc:']
            triple = 'armv8a-linux-gnueabihf'
        lines, addr, where, mode = list(head), 0, {}, 'arm' if target == 'a32' else 'a64'
        for u in units:
            m, hxs = u
            if m != mode:
                lines.append('\t.thumb')
                mode = m
            for k, hx in enumerate(hxs):
                where[addr] = (u, k)
                if m == 'thumb' and len(hx) == 4:
                    lines.append(f'\t.inst.n\t0x{hx[2:4]}{hx[0:2]}')
                    addr += 2
                elif m == 'thumb':
                    lines.append(f'\t.inst.w\t0x{hx[2:4]}{hx[0:2]}{hx[6:8]}{hx[4:6]}')
                    addr += 4
                else:
                    lines.append(f'\t.inst\t0x{hx[6:8]}{hx[4:6]}{hx[2:4]}{hx[0:2]}')
                    addr += 4
        src, obj = os.path.join(self.workdir, f'words-{target}.s'), os.path.join(self.workdir, f'words-{target}.o')
        with open(src, 'w') as fh:
            fh.write('\n'.join(lines) + '\n')
        p = subprocess.run([self.mc, '-triple=' + triple, '-filetype=obj', src, '-o', obj],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f'llvm-mc on the traced words: {p.stderr[:400]}')
        out = {u: [None] * len(u[1]) for u in units}
        for f in self.ma.disassemble(self.objdump, obj, target):
            for i in f.insns:
                if i.addr in where:
                    u, k = where[i.addr]
                    out[u][k] = i
        return out                      # a word objdump skipped stays None: unknown


def block_units(insns, mode):
    """-> per instruction of a block (unit, index in unit)."""
    res, i = [], 0
    while i < len(insns):
        n = 1 + (it_length(insns[i][2]) if mode == 'thumb' else 0)
        n = min(n, len(insns) - i)
        u = (mode, tuple(hx for _, _, hx, _ in insns[i:i + n]))
        res += [(u, k) for k in range(n)]
        i += n
    return res


def streams(blocks, windows, target, dis):
    """Disassemble every window: -> list of (Window, [insn]), and the number of words that
    LLVM could not decode (they are left out of the priced stream)."""
    used = {bid for w in windows for bid, _ in w.refs}
    mode = {}
    if target == 'a64':
        mode = {bid: 'a64' for bid in used}
    else:
        cand = set()
        for bid in used:
            for _, size, hx, _ in blocks[bid]:
                if size == 2 or thumb2_prefix(hx):
                    cand.add(('thumb', (hx,)))
                if size == 4:
                    cand.add(('arm', (hx,)))
        text = dis.run(cand, target)
        for bid in used:
            ins = blocks[bid]
            if any(size == 2 for _, size, _, _ in ins):
                mode[bid] = 'thumb'
            elif not all(thumb2_prefix(hx) for _, _, hx, _ in ins):
                mode[bid] = 'arm'
            else:
                score = {m: sum(1 for _, _, hx, d in ins if text[(m, (hx,))][0] is not None
                                and _mnem(text[(m, (hx,))][0].text) == _mnem(d)) for m in ('arm', 'thumb')}
                mode[bid] = 'thumb' if score['thumb'] > score['arm'] else 'arm'
    units = {bid: block_units(blocks[bid], mode[bid]) for bid in used}
    text = dis.run({u for us in units.values() for u, _ in us}, target)
    out, unknown = [], 0
    for w in windows:
        seq = []
        for bid, i in w.refs:
            u, k = units[bid][i]
            ins = text[u][k]
            if ins is None or ins.unknown:
                unknown += 1
                continue
            seq.append(types.SimpleNamespace(vaddr=blocks[bid][i][0], hx=blocks[bid][i][2], mnem=ins.mnem, ops=ins.ops, text=ins.text,
                                             unknown=False, mode=mode[bid]))
        out.append((w, seq))
    return out, unknown


def steady_loop(seq, is_branch):
    """The loop that covers most of the stream: a direct branch taken backwards (the next
    address is below its own; returns and indirect jumps do not count) that repeats.
    -> (first index, last index, iterations, body length) of the run of its iterations,
    or None."""
    cand = {}
    for i in range(len(seq) - 1):
        if seq[i + 1].vaddr < seq[i].vaddr and is_branch(seq[i].mnem):
            key = (seq[i + 1].vaddr, seq[i].vaddr)
            cand[key] = cand.get(key, 0) + 1

    def stays_inside(key):
        # a loop's iterations execute inside [start, end]; a branch back to a lower address
        # that leaves it (a tail call) is no loop
        start, end = key
        idx = [i for i, x in enumerate(seq) if x.vaddr == start]
        return all(start <= x.vaddr <= end for x in seq[idx[0]:idx[-1] + 1])
    best = sorted((kv for kv in cand.items() if kv[1] > 1), key=lambda kv: -kv[1] * (kv[0][1] - kv[0][0]))
    best = next((k for k, _ in best if stays_inside(k)), None)
    if best is None:
        return None
    start, end = best
    first = next(i for i, x in enumerate(seq) if x.vaddr == start)
    last = max(i for i, x in enumerate(seq) if x.vaddr == end)
    heads = [i for i in range(first, last + 1) if seq[i].vaddr == start]
    lens = {b - a for a, b in zip(heads, heads[1:] + [last + 1])}
    if len(lens) != 1:
        return None                     # iterations of different lengths: not one straight body
    return first, last, len(heads), lens.pop()
