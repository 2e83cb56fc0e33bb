#!/usr/bin/env python3
# model-arm.py - engine behind scripts/model-arm.sh: static (llvm-mca) throughput model
# of each ARM kernel's steady-state inner loop, in cycles per byte.
#
# Method (the same as the one behind the peer figures in the project's ARM anchors, so the
# numbers compare):
#   1. Disassemble the built library once per target with llvm-objdump (demangled names).
#      Every branch target address is rewritten as a label .Lx<hex>, comments are dropped.
#   2. A kernel is a table row: a symbol pattern (a fragment of the demangled Rust path,
#      matched at `::` / identifier boundaries, the `::h<hash>` suffix ignored) and the
#      bytes it consumes per loop iteration.  In the matching function every backward
#      branch (target inside the function, at or before the branch) delimits a loop
#      [target, branch]; the innermost loops (those containing no other loop) are kept
#      and the one with the most instructions is the steady-state loop.
#   3. The loop body, straight-line, is given to llvm-mca (-iterations=500, -mcpu=CPU,
#      -mattr=+aes,+sha2,+sha3 on AArch64, triple armv8a-linux-gnueabihf and +crypto on
#      AArch32).  c/B = (Total Cycles / Iterations) / bytes per iteration.
#   4. llvm-mca does not model AESE+AESMC (AESD+AESIMC) macro-fusion.  The "fused" run
#      emulates it: an in-place `aesmc vX, vX` directly following `aese vX, ...` (same X)
#      is dropped, so the pair costs one crypto-pipe slot and the AESE latency.  Raw and
#      fused bracket the truth on A57/A72; fused is the better estimate on N1/V1.
#   5. The scheduling model really used for each CPU is read back from llvm-mca's
#      "Resources" section (unit names such as A57UnitB), so an alias (cortex-a72 uses the
#      A57 model) is visible; a CPU that llvm-mca does not know or has no model for is n/a.
# Cross-check of bytes/iteration: counter steps (`subs/sub/adds rN, rN, #k`) and pointer
# advances (`add rN, rN, #k` or post/pre-index write-back on a register used as an address
# in the loop) are compared with the table; a mismatch is printed as a warning.
# Python 3 standard library only.
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

ITERATIONS = 500
A64_CPUS = ['cortex-a53', 'cortex-a57', 'cortex-a72', 'neoverse-n1', 'neoverse-v1']
CPUSETS = {                       # default CPUs per table row kind
    'a64': A64_CPUS,
    'a32ce': ['cortex-a57', 'cortex-a72'],                 # no AArch32 A53/N1/V1 model
    'a32neon': ['cortex-a57', 'cortex-a72', 'cortex-a9'],
}
TARGETS = {
    'a64': {'triple': 'aarch64-linux-gnu', 'mattr': '+aes,+sha2,+sha3', 'comment': '//'},
    'a32': {'triple': 'armv8a-linux-gnueabihf', 'mattr': '+crypto', 'comment': '@'},
    # Thumb-2 code of a library without symbols (Debian's armhf libcrypto: model-arm-openssl.py)
    't32': {'triple': 'thumbv8a-linux-gnueabihf', 'mattr': '+crypto', 'comment': '@', 'thumb': True},
}
SHORT = {'cortex-a53': 'A53', 'cortex-a55': 'A55', 'cortex-a57': 'A57', 'cortex-a72': 'A72',
         'neoverse-n1': 'N1', 'neoverse-v1': 'V1', 'neoverse-v2': 'V2', 'cortex-a9': 'A9'}
UNTRUSTED = {'cortex-a53': 'LLVM\'s A53 model is 1.6-4.5x pessimistic and does not keep rank '
                           '(ANCHORS.md); printed for completeness only',
             'cortex-a55': 'A55 model: A53 proxy, also untrustworthy'}
FUSE_PAIRS = {('aese', 'aesmc'), ('aesd', 'aesimc'), ('aese.8', 'aesmc.8'), ('aesd.8', 'aesimc.8')}


def warn(msg):
    sys.stderr.write('model-arm: ' + msg + '\n')


def die(msg, code=2):
    warn(msg)
    sys.exit(code)


# ---------------------------------------------------------------- kernel table
class Row:
    def __init__(self, kid, target, nbytes, cpuset, pattern, note=''):
        self.id, self.target, self.bytes, self.cpuset = kid, target, nbytes, cpuset
        self.pattern, self.note = pattern, note
        # "expect aese=80 pmull=26" in the note: instruction counts the steady-state loop
        # must contain. A mismatch means the wrong loop was found (typically LLVM left an
        # inner loop over AES rounds rolled, and that tiny loop got modelled).
        m = re.search(r'expect((?:\s+\w+=\d+)+)', note)
        self.expect = dict((k, int(v)) for k, v in
                           (kv.split('=') for kv in m.group(1).split())) if m else {}
        # "flatten=K" in the note: a kernel without a steady-state loop of its own (one
        # call of a few blocks), modelled as back-to-back calls: the function straight
        # through with its one loop (the rounds) repeated K times, see Flat.
        m = re.search(r'flatten=(\d+)', note)
        self.flatten = int(m.group(1)) if m else 0
        # "rounds=K" in the note: the steady-state loop holds one inner loop (a rolled
        # round loop whose count is data, as arm-neon's group kernels read it from the
        # key) that runs K times per iteration; the outer loop is modelled with the inner
        # one's body repeated K times, see Nested.
        m = re.search(r'rounds=(\d+)', note)
        self.rounds = int(m.group(1)) if m else 0


def read_table(path):
    rows = []
    for n, line in enumerate(open(path), 1):
        body, _, note = line.partition('#')
        f = body.split()
        if not f:
            continue
        if len(f) != 5:
            die(f'{path}:{n}: want "id target bytes cpus symbol", got {line.strip()!r}')
        kid, target, nbytes, cpuset, pattern = f
        if target not in TARGETS:
            die(f'{path}:{n}: target must be a64 or a32, not {target}')
        if cpuset not in CPUSETS:
            die(f'{path}:{n}: cpus must be one of {", ".join(CPUSETS)}, not {cpuset}')
        rows.append(Row(kid, target, float(nbytes), cpuset, pattern, note.strip()))
    return rows


# ---------------------------------------------------------------- disassembly
class Insn:
    __slots__ = ('addr', 'mnem', 'ops', 'text', 'target', 'unknown')


class Func:
    def __init__(self, addr, name):
        self.addr, self.name, self.norm, self.insns = addr, name, normalize(name), []


def normalize(name):
    """Demangled name -> path without hash, legacy-mangling escapes undone."""
    n = re.sub(r'\.llvm\.\d+$', '', name)
    n = re.sub(r'::h[0-9a-f]{16}$', '', n)
    for a, b in (('$LT$', '<'), ('$GT$', '>'), ('$u20$', ' '), ('$RF$', '&'), ('$BP$', '*'),
                 ('$C$', ','), ('$u7b$', '{'), ('$u7d$', '}'), ('$u5b$', '['), ('$u5d$', ']'),
                 ('$u27$', "'"), ('$SP$', '@'), ('..', '::')):
        n = n.replace(a, b)
    return re.sub(r'^_<', '<', n)


def split_target(text):
    """Replace the 'ADDR <symbol+off>' reference (brackets may nest in Rust names) with
    a label; return (new text, address or None)."""
    m = re.search(r'(?:0x)?([0-9a-f]+) <', text)
    if not m:
        return text, None
    depth, j = 0, m.end() - 1
    while j < len(text):
        if text[j] == '<':
            depth += 1
        elif text[j] == '>':
            depth -= 1
            if depth == 0:
                break
        j += 1
    addr = int(m.group(1), 16)
    return text[:m.start()] + f'.Lx{addr:x}' + text[j + 1:], addr


def disassemble(objdump, lib, target):
    t = TARGETS[target]
    # +v8: the AArch32 crypto instructions (AESE.8, VMULL.P64) decode only for ARMv8.
    mattr = t['mattr'] + (',+neon,+v8' if target in ('a32', 't32') else '')
    cmd = [objdump, '-d', '--demangle', '--no-show-raw-insn', '--mattr=' + mattr, lib]
    if t.get('thumb'):
        cmd.insert(1, '--triple=' + t['triple'])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f'{" ".join(cmd)} failed: {p.stderr.strip()[:300]}')
    funcs, cur = [], None
    fn_re = re.compile(r'^([0-9a-f]+) <(.+)>:$')
    ins_re = re.compile(r'^\s*([0-9a-f]+):\s*(.*)$')
    for line in p.stdout.splitlines():
        m = fn_re.match(line)
        if m:
            cur = Func(int(m.group(1), 16), m.group(2))
            funcs.append(cur)
            continue
        m = ins_re.match(line)
        if not m or cur is None:
            continue
        text, tgt = split_target(m.group(2).strip())
        text = text.split(t['comment'])[0].strip()
        if not text or text.startswith('.'):        # data words inside code
            continue
        i = Insn()
        i.addr, i.target = int(m.group(1), 16), tgt
        i.unknown = text.startswith('<unknown>')
        parts = text.split(None, 1)
        i.mnem = parts[0].lower()
        i.ops = parts[1].strip() if len(parts) > 1 else ''
        i.text = f'{parts[0]}\t{i.ops}' if i.ops else parts[0]
        cur.insns.append(i)
    return funcs


def find_funcs(funcs, pattern):
    rx = re.compile(r'(?<![\w])' + re.escape(pattern) + r'(?![\w])')
    seen, out = set(), []
    for f in funcs:
        if f.insns and (rx.search(f.norm) or rx.search(f.name)) and f.addr not in seen:
            seen.add(f.addr)
            out.append(f)
    return out


# ---------------------------------------------------------------- loops
BR64 = re.compile(r'^(b|b\.(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)|cbn?z|tbn?z)$')
BR32 = re.compile(r'^(b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?|cbn?z)$')
CALL = re.compile(r'^(bl|blr|blx|blraa|blrab|blraaz|blrabz)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?$')


def is_branch(mnem):
    return bool(BR64.match(mnem) or BR32.match(mnem))


class Loop:
    def __init__(self, func, a, b):
        self.func, self.a, self.b = func, a, b
        self.insns = func.insns[a:b + 1]
        self.start, self.end = self.insns[0].addr, self.insns[-1].addr

    def __len__(self):
        return len(self.insns)


def innermost_loops(func):
    idx = {ins.addr: k for k, ins in enumerate(func.insns)}
    loops = []
    for k, ins in enumerate(func.insns):
        if ins.target is not None and is_branch(ins.mnem) and ins.target <= ins.addr \
                and ins.target in idx:
            loops.append((idx[ins.target], k))
    inner = [p for p in loops
             if not any(q != p and p[0] <= q[0] and q[1] <= p[1] for q in loops)]
    return [Loop(func, a, b) for a, b in sorted(set(inner))]


class Flat:
    """A whole call as straight-line code: the function from its entry to the first
    `ret` after its one loop, with the loop's body repeated `times` (the rounds a call
    runs). Priced with -iterations like a loop it stands for calls back to back, as the
    vpaes figure of the ARM model reference was (its 2-block call flattened the same way)."""

    def __init__(self, func, loop, times):
        end = next((k for k in range(loop.b + 1, len(func.insns))
                    if func.insns[k].mnem == 'ret'), len(func.insns) - 1)
        self.insns = func.insns[:loop.a] + loop.insns * times + func.insns[loop.b + 1:end + 1]
        self.start, self.end = func.insns[0].addr, func.insns[end].addr

    def __len__(self):
        return len(self.insns)


class Nested:
    """The loop around `inner` (the smallest loop of `func` holding it) with the inner
    loop's body, its branch included, repeated `times`: one iteration of the outer loop
    as it runs when the inner one is taken times - 1 times (llvm-mca prices a branch by
    its slot, not by prediction; the inner loop's exit is one mispredicted branch per
    outer iteration on a core without a loop predictor, not modelled)."""

    def __init__(self, func, inner, times):
        idx = {ins.addr: k for k, ins in enumerate(func.insns)}
        outer = [(idx[i.target], k) for k, i in enumerate(func.insns)
                 if i.target is not None and is_branch(i.mnem) and i.target <= i.addr
                 and i.target in idx and idx[i.target] <= inner.a and k > inner.b]
        self.ok = bool(outer)
        a, b = min(outer, key=lambda p: p[1] - p[0]) if outer else (inner.a, inner.b)
        ins = func.insns
        self.insns = ins[a:inner.a] + inner.insns * times + ins[inner.b + 1:b + 1]
        self.start, self.end = ins[a].addr, ins[b].addr
        self.a, self.b = a, b

    def __len__(self):
        return len(self.insns)


def pick_loop(func):
    inner = innermost_loops(func)
    if not inner:
        return None, inner
    best = inner[0]
    for lp in inner[1:]:
        if len(lp) > len(best):
            best = lp
    return best, inner


# ---------------------------------------------------------------- body text, fusion, checks
def regs_of(ops):
    return [o.strip().split('.')[0].strip('{} ') for o in ops.split(',')] if ops else []


def body_lines(loop, fuse):
    out, nfused, prev = [], 0, None
    for ins in loop.insns:
        if ins.unknown:
            continue
        if fuse and prev is not None and (prev.mnem, ins.mnem) in FUSE_PAIRS:
            r1, r2 = regs_of(prev.ops), regs_of(ins.ops)
            if len(r2) == 2 and r2[0] == r2[1] and r1 and r1[0] == r2[0]:
                nfused += 1
                prev = None
                continue
        out.append('\t' + ins.text)
        prev = ins
    return out, nfused


MEM = re.compile(r'\[\s*([xwr]\d+|sp)(?::\d+)?\s*(?:,\s*#(-?(?:0x)?[0-9a-f]+))?\s*\](!?)(?:\s*,\s*#(-?(?:0x)?[0-9a-f]+))?')


def reglist_bytes(ops):
    """Bytes transferred by an AArch32 vld1/vst1 register list, for `[rN]!`."""
    m = re.search(r'\{([^}]*)\}', ops)
    if not m:
        return None
    n = 0
    for part in m.group(1).split(','):
        part = part.strip()
        r = re.match(r'([dq])(\d+)(?:\s*-\s*[dq](\d+))?', part)
        if not r:
            return None
        cnt = int(r.group(3)) - int(r.group(2)) + 1 if r.group(3) else 1
        n += cnt * (8 if r.group(1) == 'd' else 16)
    return n


def evidence(loop):
    """(counter steps, pointer advances) seen in the loop, as lists of (value, text)."""
    bases, posts, counters, adds = set(), {}, [], []
    for ins in loop.insns:
        for m in MEM.finditer(ins.ops):
            reg = m.group(1)
            bases.add(reg)
            if m.group(4):                               # post-index [rN], #k
                posts.setdefault(reg, []).append((int(m.group(4), 0), ins.text))
            elif m.group(3) == '!':                      # pre-index [rN, #k]! or vld1 [rN]!
                k = int(m.group(2), 0) if m.group(2) else reglist_bytes(ins.ops)
                if k:
                    posts.setdefault(reg, []).append((k, ins.text))
        m = re.match(r'^([xwr]\d+),\s*([xwr]\d+),\s*#((?:0x)?[0-9a-f]+)$', ins.ops)
        if m and m.group(1) == m.group(2):
            k = int(m.group(3), 0)
            if ins.mnem in ('subs', 'sub', 'adds'):
                counters.append((k, ins.text))
            elif ins.mnem == 'add':
                adds.append((m.group(1), k, ins.text))
    pointers = [(k, t) for reg, k, t in adds if reg in bases]
    for reg, lst in posts.items():
        pointers.append((sum(k for k, _ in lst) + sum(k for r, k, _ in adds if r == reg),
                         f'{reg} write-back x{len(lst)}'))
    return counters, pointers


def cross_check(loop, nbytes):
    counters, pointers = evidence(loop)
    if not counters and not pointers:
        return 'none', []
    ok = [t for k, t in counters if k in (nbytes, nbytes / 16)] + \
         [t for k, t in pointers if k == nbytes]
    seen = [f'{t} (={k})' for k, t in counters + pointers]
    return ('ok' if ok else 'WARN'), (ok if ok else seen)


# ---------------------------------------------------------------- llvm-mca
def run_mca(mca, src, target, cpu, iterations, extra=()):
    t = TARGETS[target]
    cmd = [mca, '-mtriple=' + t['triple'], '-mcpu=' + cpu, '-mattr=' + t['mattr'],
           f'-iterations={iterations}', *extra, src]
    p = subprocess.run(cmd, capture_output=True, text=True)
    res = {'cmd': cmd, 'out': p.stdout, 'err': p.stderr, 'ok': False, 'model': None}
    err = p.stderr
    if 'not a recognized processor' in err:
        res['why'] = 'unknown cpu'
    elif 'unable to find instruction-level scheduling information' in err:
        res['why'] = 'no model'
    elif p.returncode != 0 or 'Total Cycles' not in p.stdout:
        first = next((l for l in err.splitlines() if 'error' in l), 'llvm-mca failed')
        res['why'] = first.split('error:')[-1].strip()[:100]
    else:
        it = int(re.search(r'^Iterations:\s+(\d+)', p.stdout, re.M).group(1))
        cyc = int(re.search(r'^Total Cycles:\s+(\d+)', p.stdout, re.M).group(1))
        m = re.search(r'^Resources:\n\[[^\]]+\]\s+-\s+(\S+)', p.stdout, re.M)
        unit = m.group(1) if m else '?'
        rt = re.search(r'^Block RThroughput:\s+([\d.]+)', p.stdout, re.M)
        res.update(ok=True, cyc_iter=cyc / it, rthroughput=float(rt.group(1)) if rt else None,
                   model=re.sub(r'Unit.*$', '', unit) if 'Unit' in unit else unit)
    return res


def mca_version(mca):
    out = subprocess.run([mca, '--version'], capture_output=True, text=True).stdout
    m = re.search(r'LLVM version (\d+)\.(\d+)\.(\d+)', out)
    return m.group(0).split()[-1] if m else '?'


# ---------------------------------------------------------------- modelling
class Result:
    pass


def locate(row, funcs):
    r = Result()
    r.row, r.status, r.notes = row, 'ok', []
    cands = find_funcs(funcs, row.pattern)
    if not cands:
        r.status = 'missing'
        return r
    picks = [(f, *pick_loop(f)) for f in cands]
    with_loop = [p for p in picks if p[1] is not None]
    if not with_loop:
        r.status, r.func = 'no loop', cands[0]
        return r
    f, loop, inner = max(with_loop, key=lambda p: len(p[1]))
    if len(cands) > 1:
        r.notes.append(f'{len(cands)} functions match {row.pattern!r}; using {f.norm} '
                       f'(largest innermost loop); others: '
                       + ', '.join(c.norm for c in cands if c is not f))
    if row.flatten:
        if len(inner) != 1:
            r.notes.append(f'flatten wants one loop (the rounds); {f.norm} has {len(inner)}')
        loop = Flat(f, loop, row.flatten)
    mid_exits_ok = True
    if row.rounds:
        if len(inner) > 1:
            # A round loop left in the middle as well as at the bottom (aarch64-neon's
            # four-round loop, which AES-192 leaves mid-turn) jumps from both exits to the
            # head of the group loop: the middle one reads as a second backward-branch loop
            # from that head. The round loop is then the one whose back edge comes last.
            loop = max(inner, key=lambda lp: lp.b)
        nested = Nested(f, loop, row.rounds)
        if len(inner) > 1:
            mid_exits_ok = all(lp is loop or lp.a == nested.a for lp in inner)
        if not mid_exits_ok:
            r.notes.append(f'rounds= wants one inner loop; {f.norm} has {len(inner)}')
        loop = nested
        if not loop.ok:
            r.notes.append('rounds=: no loop around the inner one')
    r.func, r.loop, r.inner = f, loop, inner
    r.raw, _ = body_lines(loop, False)
    r.fused, r.npairs = body_lines(loop, True)
    r.check, r.check_detail = ('none', []) if row.flatten else cross_check(loop, row.bytes)
    if row.flatten and len(inner) != 1 or row.rounds and (not mid_exits_ok or not loop.ok):
        r.check = 'WARN'
    if r.check == 'WARN':
        r.notes.append(f'bytes/iteration {row.bytes:g} from the table disagrees with the loop: '
                       + '; '.join(r.check_detail))
    for mnem, want in row.expect.items():
        have = sum(1 for i in loop.insns if i.mnem.startswith(mnem))
        if have != want:
            r.check = 'WARN'
            r.notes.append(f'expected {want} {mnem}* instructions in the loop, found {have}: '
                           'wrong loop (a rolled inner loop?) or a changed kernel')
    if any(CALL.match(i.mnem) for i in loop.insns):
        names = {fn.addr: fn.norm for fn in funcs}
        r.notes.append('loop makes calls, callee work NOT modelled: ' + '; '.join(
            dict.fromkeys(f'{i.mnem} {names.get(i.target, hex(i.target))}' if i.target is not None else i.text
                          for i in loop.insns if CALL.match(i.mnem))))
    unk = sum(1 for i in loop.insns if i.unknown)
    if unk:
        r.notes.append(f'{unk} instruction(s) in the loop could not be decoded (dropped)')
    return r


class Runner:
    """Runs llvm-mca in parallel with two savings that do not change any number:
    - a result cache keyed by (llvm-mca binary and version, triple, mattr, cpu, iterations,
      loop text), so an unchanged loop is not simulated again;
    - CPUs whose one-iteration report of the same loop is byte-identical use the same
      scheduling model (cortex-a72 is LLVM's A57 model), so the long run is shared."""

    def __init__(self, mca, iterations, cache=None):
        self.mca, self.iterations, self.cache = mca, iterations, cache
        self.version = mca_version(mca)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=(os.cpu_count() or 2) + 1)
        if cache:
            os.makedirs(cache, exist_ok=True)

    def _key(self, body, target, cpu, iterations, extra):
        t = TARGETS[target]
        h = hashlib.sha256('\0'.join([os.path.realpath(self.mca), self.version, t['triple'], t['mattr'],
                                       cpu, str(iterations), ' '.join(extra), body]).encode())
        return h.hexdigest()[:32]

    def run(self, body, target, cpu, iterations=None, extra=()):
        iterations = iterations or self.iterations
        path = os.path.join(self.cache, self._key(body, target, cpu, iterations, extra) + '.json') \
            if self.cache else None
        if path and os.path.exists(path):
            try:
                res = json.load(open(path))
                os.utime(path)                      # LRU for prune()
                return res
            except (ValueError, OSError):
                pass
        with tempfile.NamedTemporaryFile('w', suffix='.s', delete=False) as fh:
            fh.write(body)
        try:
            res = run_mca(self.mca, fh.name, target, cpu, iterations, extra)
        finally:
            os.unlink(fh.name)
        res['cmd'] = res['cmd'][:-1] + ['LOOP.s']
        if path:
            tmp = path + f'.{os.getpid()}.{threading.get_ident()}.tmp'
            json.dump(res, open(tmp, 'w'))
            os.replace(tmp, path)
        return res

    def run_all(self, jobs):
        """jobs: list of (body, target, cpu) -> list of results, same order."""
        # 1. group CPUs by scheduling model: one-iteration report of the target's longest loop
        probe_body = {}
        for body, target, _ in jobs:
            if len(body) > len(probe_body.get(target, '')):
                probe_body[target] = body
        probe = {(t, c): self.pool.submit(self.run, probe_body[t], t, c, 1)
                 for t, c in dict.fromkeys((t, c) for _, t, c in jobs)}
        alias, first = {}, {}
        for (t, c), fut in probe.items():
            res = fut.result()
            sig = (t, res['out']) if res['ok'] else (t, c)
            alias[(t, c)] = first.setdefault(sig, c)
        # 2. the full runs, once per loop and distinct model
        canon = [(b, t, alias[(t, c)]) for b, t, c in jobs]
        full = {j: self.pool.submit(self.run, *j) for j in dict.fromkeys(canon)}
        return [full[j].result() for j in canon]

    def prune(self, keep=2000):
        """Bound the cache: drop the least recently used entries beyond `keep`."""
        if not self.cache:
            return
        files = [os.path.join(self.cache, f) for f in os.listdir(self.cache) if f.endswith('.json')]
        if len(files) > keep:
            files.sort(key=lambda f: os.stat(f).st_mtime)
            for f in files[:len(files) - keep]:
                try:
                    os.unlink(f)
                except OSError:
                    pass


def model(results, cpus_for, runner, workdir):
    jobs, where = [], []
    for r in results:
        if r.status != 'ok':
            continue
        r.mca = {}
        variants = [('raw', r.raw)] + ([('fused', r.fused)] if r.npairs else [])
        for kind, body in variants:
            text = '\n'.join(body) + '\n'
            if workdir:
                with open(os.path.join(workdir, f'{r.row.id}.{kind}.s'), 'w') as fh:
                    fh.write(text)
            for cpu in cpus_for(r.row):
                jobs.append((text, r.row.target, cpu))
                where.append((r, kind, cpu))
    for (r, kind, cpu), res in zip(where, runner.run_all(jobs)):
        r.mca[(kind, cpu)] = res
        if workdir:
            with open(os.path.join(workdir, f'{r.row.id}.{kind}.{cpu}.mca'), 'w') as fh:
                fh.write('# ' + ' '.join(res['cmd']) + '\n' + res['out']
                         + ('\n# stderr:\n' + res['err'] if res['err'] else ''))
        for l in res['err'].splitlines():
            note = 'llvm-mca: ' + l.strip()
            if 'warning' in l and note not in r.notes:
                r.notes.append(note)


def cell(r, cpu):
    raw = r.mca.get(('raw', cpu))
    if raw is None:
        return '–'
    if not raw['ok']:
        return f'n/a ({raw["why"]})'
    s = f'{raw["cyc_iter"] / r.row.bytes:.3f}'
    fz = r.mca.get(('fused', cpu))
    if fz is not None:
        s += ' / ' + (f'{fz["cyc_iter"] / r.row.bytes:.3f}' if fz['ok'] else 'n/a')
    return s


def print_table(results, columns, out=sys.stdout):
    hdr = ['kernel', 'B/iter', 'insns', 'loop', 'check'] + \
          [SHORT.get(c, c) + ('†' if c in UNTRUSTED else '') for c in columns]
    rows = []
    for r in results:
        if r.status != 'ok':
            rows.append([r.row.id, f'{r.row.bytes:g}', '', r.status, ''] + ['' for _ in columns])
            continue
        ins = f'{len(r.raw)}' + (f'/{len(r.fused)}' if r.npairs else '')
        where = f'{r.loop.start:#x}-{r.loop.end:#x}'
        rows.append([r.row.id, f'{r.row.bytes:g}', ins, where, r.check] + [cell(r, c) for c in columns])
    w = [max(len(h), *(len(x[i]) for x in rows)) if rows else len(h) for i, h in enumerate(hdr)]
    fmt = lambda cells: '| ' + ' | '.join(c.ljust(w[i]) for i, c in enumerate(cells)) + ' |'
    print(fmt(hdr), file=out)
    print('|' + '|'.join('-' * (x + 2) for x in w) + '|', file=out)
    for x in rows:
        print(fmt(x), file=out)


def models_line(results, columns):
    seen = {}
    for r in results:
        for (kind, cpu), res in getattr(r, 'mca', {}).items():
            if res['ok']:
                seen.setdefault((r.row.target, cpu), res['model'])
            elif res['why'] in ('unknown cpu', 'no model'):
                seen.setdefault((r.row.target, cpu), 'none: ' + res['why'])
    parts = []
    for tgt in ('a64', 'a32'):
        items = [f'{c}={seen[(tgt, c)]}' for c in columns if (tgt, c) in seen]
        if items:
            parts.append(('AArch64: ' if tgt == 'a64' else 'AArch32: ') + ', '.join(items))
    return '; '.join(parts)


# ---------------------------------------------------------------- commands
def load_libs(args):
    funcs = {}
    for target, lib in (('a64', args.lib_a64), ('a32', args.lib_a32)):
        if lib:
            if not os.path.exists(lib):
                die(f'library {lib} not found (build it, or drop --no-build)')
            funcs[target] = disassemble(args.objdump, lib, target)
    return funcs


def make_workdir(args):
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    return args.keep


def cmd_table(args, rows):
    funcs = load_libs(args)
    rows = [r for r in rows if r.target in funcs]
    if not rows:
        die('no table rows for the selected target(s)')
    user_cpus = [c for c in re.split(r'[,\s]+', args.cpus) if c] if args.cpus else None
    cpus_for = (lambda row: user_cpus) if user_cpus else (lambda row: CPUSETS[row.cpuset])
    columns = []
    for row in rows:
        for c in cpus_for(row):
            if c not in columns:
                columns.append(c)
    results = [locate(row, funcs[row.target]) for row in rows]
    runner = Runner(args.mca, args.iterations, args.cache)
    model(results, cpus_for, runner, make_workdir(args))
    runner.prune()
    print(f'# llvm-mca {mca_version(args.mca)} ({args.mca}), -iterations={args.iterations}; '
          f'cells: c/B raw / fused (one number: no AESE+AESMC pair, raw = fused)')
    for tgt, lib in (('a64', args.lib_a64), ('a32', args.lib_a32)):
        if lib:
            print(f'# {tgt}: {lib}  [{TARGETS[tgt]["triple"]}, -mattr={TARGETS[tgt]["mattr"]}]')
    print_table(results, columns)
    print(f'# models used: {models_line(results, columns)}')
    for c in columns:
        if c in UNTRUSTED:
            print(f'# † {SHORT.get(c, c)}: {UNTRUSTED[c]}')
    print('# check: bytes/iteration of the table vs counter/pointer steps found in the loop '
          '(ok / WARN / none = nothing to check)')
    for r in results:
        if r.status == 'ok':
            what = (f'whole call {r.loop.start:#x}-{r.loop.end:#x}, its loop x{r.row.flatten}'
                    if r.row.flatten else f'loop {r.loop.start:#x}-{r.loop.end:#x}'
                    + (f', its inner loop x{r.row.rounds}' if r.row.rounds else ''))
            print(f'# {r.row.id}: {r.func.norm} {what} '
                  f'({len(r.loop)} insns, {len(r.inner)} innermost loop(s), {r.npairs} fused pairs)'
                  + (f' [{r.row.note}]' if r.row.note else ''))
        elif r.status == 'no loop':
            print(f'# {r.row.id}: {r.func.norm} has no backward branch')
        for n in r.notes:
            print(f'#   warning: {n}')
    if args.keep:
        print(f'# loop bodies and llvm-mca outputs kept in {args.keep}')
    return 0


def resolve(args, rows, funcs, kernel):
    row = next((r for r in rows if r.id == kernel), None)
    if row is None:
        tgt = 'a32' if 'a64' not in funcs else 'a64'
        row = Row(kernel, tgt, 0, 'a64' if tgt == 'a64' else 'a32ce', kernel, 'ad hoc pattern')
    if row.target not in funcs:
        die(f'{kernel} is an {row.target} kernel: use --target '
            + ('armv7' if row.target == 'a32' else 'aarch64') + ' or all')
    r = locate(row, funcs[row.target])
    if r.status != 'ok':
        die(f'{kernel}: {r.status} (pattern {row.pattern!r})', 1)
    return r


def cmd_pressure(args, rows):
    funcs = load_libs(args)
    r = resolve(args, rows, funcs, args.pressure[0])
    cpu = args.pressure[1]
    runner, workdir = Runner(args.mca, args.iterations, args.cache), make_workdir(args)
    for kind, body in [('raw', r.raw)] + ([('fused', r.fused)] if r.npairs else []):
        text = '\n'.join(body) + '\n'
        if workdir:
            with open(os.path.join(workdir, f'{r.row.id}.{kind}.s'), 'w') as fh:
                fh.write(text)
        res = runner.run(text, r.row.target, cpu, extra=('-resource-pressure', '-bottleneck-analysis'))
        print(f'######## {r.row.id} [{kind}] on {cpu}: {r.func.norm} loop '
              f'{r.loop.start:#x}-{r.loop.end:#x}, {len(body)} insns')
        if not res['ok']:
            print(f'n/a ({res["why"]})\n{res["err"]}')
            continue
        if r.row.bytes:
            print(f'# {res["cyc_iter"]:.2f} cycles/iter / {r.row.bytes:g} B = '
                  f'{res["cyc_iter"] / r.row.bytes:.3f} c/B, model {res["model"]}')
        print(res['out'])
        if res['err'].strip():
            print(res['err'])
    for n in r.notes:
        print(f'# warning: {n}')
    return 0


def cmd_loops(args, rows):
    funcs = load_libs(args)
    r = resolve(args, rows, funcs, args.loops)
    print(f'# {r.row.id}: {r.func.norm} @ {r.func.addr:#x}; innermost backward-branch loops:')
    for lp in r.inner:
        mark = '  <- modelled' if lp is r.loop else ''
        print(f'#   {lp.start:#x}-{lp.end:#x}  {len(lp)} insns{mark}')
    counters, pointers = evidence(r.loop)
    print(f'# counter steps: {counters or "none"}')
    print(f'# pointer advances: {pointers or "none"}')
    print(f'# check vs {r.row.bytes:g} B/iter: {r.check} {r.check_detail}')
    for n in r.notes:
        print(f'# warning: {n}')
    print(f'.Lx{r.loop.start:x}:')
    print('\n'.join(r.raw))
    return 0


# ---------------------------------------------------------------- self-test
def synth_a64(gcm):
    """OpenSSL-like 8-block AES-128 CTR loop (optionally stitched with an 8-block
    aggregated Karatsuba GHASH): 8 x (10 AESE + 9 AESMC) + eor with the last key."""
    L = ['\t.text', '\t.type\tselftest_%s,%%function' % ('gcm8' if gcm else 'ctr8'),
         'selftest_%s:' % ('gcm8' if gcm else 'ctr8'),
         '\tmov\tw9, #0',
         '0:',                                               # a 1-block tail loop first:
         '\tld1\t{v0.16b}, [x0], #16', '\teor\tv0.16b, v0.16b, v16.16b',
         '\tst1\t{v0.16b}, [x1], #16', '\tsubs\tx2, x2, #1', '\tb.ne\t0b',
         '1:']
    for b in range(8):
        L.append(f'\tmov\tv{b}.16b, v30.16b')
    L += ['\tadd\tw9, w9, #8', '\tmov\tv30.s[3], w9']
    for rnd in range(10):
        for b in range(8):
            L.append(f'\taese\tv{b}.16b, v{16 + rnd}.16b')
            if rnd < 9:
                L.append(f'\taesmc\tv{b}.16b, v{b}.16b')
    L += ['\tld1\t{v8.16b, v9.16b, v10.16b, v11.16b}, [x0], #64',
          '\tld1\t{v12.16b, v13.16b, v14.16b, v15.16b}, [x0], #64']
    for b in range(8):
        L.append(f'\teor3\tv{8 + b}.16b, v{8 + b}.16b, v{b}.16b, v26.16b')
    L += ['\tst1\t{v8.16b, v9.16b, v10.16b, v11.16b}, [x1], #64',
          '\tst1\t{v12.16b, v13.16b, v14.16b, v15.16b}, [x1], #64']
    if gcm:   # GHASH of the 8 ciphertext blocks: 3 PMULL each + 2 for the reduction
        L.append('\teor\tv8.16b, v8.16b, v31.16b')      # Xi into the first block
        for b in range(8):
            x, h = 8 + b, 27 + (b % 3)
            if b == 0:
                L += [f'\tpmull\tv0.1q, v{x}.1d, v{h}.1d', f'\tpmull2\tv1.1q, v{x}.2d, v{h}.2d',
                      f'\text\tv3.16b, v{x}.16b, v{x}.16b, #8', f'\teor\tv3.16b, v3.16b, v{x}.16b',
                      f'\tpmull\tv2.1q, v3.1d, v{h}.1d']
            else:
                L += [f'\tpmull\tv4.1q, v{x}.1d, v{h}.1d', f'\tpmull2\tv5.1q, v{x}.2d, v{h}.2d',
                      f'\text\tv3.16b, v{x}.16b, v{x}.16b, #8', f'\teor\tv3.16b, v3.16b, v{x}.16b',
                      f'\tpmull\tv6.1q, v3.1d, v{h}.1d',
                      '\teor\tv0.16b, v0.16b, v4.16b', '\teor\tv1.16b, v1.16b, v5.16b',
                      '\teor\tv2.16b, v2.16b, v6.16b']
        L += ['\teor3\tv2.16b, v2.16b, v0.16b, v1.16b',
              '\tpmull\tv7.1q, v0.1d, v25.1d', '\text\tv4.16b, v0.16b, v0.16b, #8',
              '\teor3\tv2.16b, v2.16b, v4.16b, v7.16b',
              '\tpmull\tv7.1q, v2.1d, v25.1d', '\text\tv4.16b, v2.16b, v2.16b, #8',
              '\teor3\tv31.16b, v1.16b, v4.16b, v7.16b']
    L += ['\tsubs\tx3, x3, #8', '\tb.ne\t1b', '\tret']
    return '\n'.join(L) + '\n'


def synth_a32():
    """AArch32 8-block AES-128 CTR core with aese.8/aesmc.8 (keys cycle through q8-q15)."""
    L = ['\t.syntax unified', '\t.arch armv8-a', '\t.fpu crypto-neon-fp-armv8', '\t.arm', '\t.text',
         '\t.type\tselftest_ctr8_a32,%function', 'selftest_ctr8_a32:', '1:']
    for rnd in range(10):
        for b in range(8):
            L.append(f'\taese.8\tq{b}, q{8 + rnd % 8}')
            if rnd < 9:
                L.append(f'\taesmc.8\tq{b}, q{b}')
    L += ['\tadd\tr0, r0, #128', '\tsubs\tr2, r2, #8', '\tbne\t1b', '\tbx\tlr']
    return '\n'.join(L) + '\n'


def cmd_selftest(args):
    mc = args.mca.replace('llvm-mca', 'llvm-mc')
    tmp = tempfile.mkdtemp(prefix='model-arm-selftest.')
    try:
        objs = {}
        for name, target, text, triple, attr in (
                ('ctr8', 'a64', synth_a64(False), 'aarch64-linux-gnu', '+aes,+sha3'),
                ('gcm8', 'a64', synth_a64(True), 'aarch64-linux-gnu', '+aes,+sha3'),
                ('ctr8_a32', 'a32', synth_a32(), 'armv8a-linux-gnueabihf', '+crypto')):
            s, o = os.path.join(tmp, name + '.s'), os.path.join(tmp, name + '.o')
            open(s, 'w').write(text)
            p = subprocess.run([mc, '-triple=' + triple, '-mattr=' + attr, '-filetype=obj', s, '-o', o],
                               capture_output=True, text=True)
            if p.returncode != 0:
                die(f'llvm-mc failed on {name}: {p.stderr[:400]}')
            objs[name] = (target, o)
        rows = [Row('ctr8', 'a64', 128, 'a64', 'selftest_ctr8'),
                Row('gcm8', 'a64', 128, 'a64', 'selftest_gcm8'),
                Row('ctr8_a32', 'a32', 128, 'a32ce', 'selftest_ctr8_a32')]
        results = []
        for row in rows:
            target, o = objs[row.id]
            results.append(locate(row, disassemble(args.objdump, o, target)))
        model(results, lambda row: CPUSETS[row.cpuset], Runner(args.mca, args.iterations), None)
        print('# self-test: synthetic OpenSSL-like loops assembled with llvm-mc, then located and')
        print('# modelled through the same path as the library kernels (objdump -> loop -> llvm-mca)')
        print_table(results, A64_CPUS)
        # single crypto pipe (A57/A72; N1 in LLVM's model): raw = AESE+AESMC (+PMULL) slots,
        # fused = AESE (+PMULL) slots, per 128 bytes
        bounds = {'ctr8': (8 * 19 / 128, 8 * 10 / 128), 'gcm8': ((8 * 19 + 26) / 128, (8 * 10 + 26) / 128),
                  'ctr8_a32': (8 * 19 / 128, 8 * 10 / 128)}
        bad = 0
        print('# crypto-pipe bound check (A57/A72/N1 models: AESE, AESMC and PMULL share one pipe, '
              '1 op/cycle; bound = ops per 128 B / 128)')
        for r in results:
            if r.status != 'ok':
                print(f'#   {r.row.id}: {r.status}  FAIL')
                bad += 1
                continue
            want_loop = 8 * 19 + (26 if r.row.id == 'gcm8' else 0)
            nins = sum(1 for i in r.loop.insns if i.mnem.startswith(('aes', 'pmull')))
            ok_loop = nins == want_loop and r.npairs == 72 and r.check == 'ok'
            print(f'#   {r.row.id}: picked {len(r.inner)} innermost loops -> {len(r.loop)} insns, '
                  f'{nins} AES/PMULL ops (want {want_loop}), {r.npairs} pairs fused (want 72), '
                  f'check {r.check}: {"ok" if ok_loop else "FAIL"}')
            bad += not ok_loop
            braw, bfus = bounds[r.row.id]
            for cpu in ('cortex-a57', 'cortex-a72', 'neoverse-n1'):
                res = [r.mca.get((k, cpu)) for k in ('raw', 'fused')]
                if not res[0] or not res[0]['ok']:
                    continue
                got = [x['cyc_iter'] / 128 for x in res]
                rtp = [x['rthroughput'] / 128 for x in res]
                # llvm-mca's own resource bound must be the crypto-pipe bound exactly; the
                # simulation may not beat it and lands a few % above (scheduling slack, as
                # OpenSSL's 8x loop: 0.868 vs 0.83 on A57)
                good = all(abs(t - b) < 5e-4 and b - 5e-4 <= g <= b * 1.12
                           for g, t, b in zip(got, rtp, (braw, bfus)))
                bad += not good
                print(f'#   {r.row.id} {cpu}: bound raw/fused {braw:.3f}/{bfus:.3f}; llvm-mca resource '
                      f'bound {rtp[0]:.3f}/{rtp[1]:.3f}; simulated {got[0]:.3f}/{got[1]:.3f}: '
                      f'{"ok" if good else "FAIL"}')
        print('# self-test ' + ('passed' if not bad else f'FAILED ({bad})'))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description='llvm-mca model of ARM kernel loops (see model-arm.sh)')
    ap.add_argument('--table', help='kernel table file')
    ap.add_argument('--lib-a64')
    ap.add_argument('--lib-a32')
    ap.add_argument('--cpus')
    ap.add_argument('--keep')
    ap.add_argument('--cache', help='result cache directory (default: none)')
    ap.add_argument('--iterations', type=int, default=ITERATIONS)
    ap.add_argument('--mca', default='llvm-mca-19')
    ap.add_argument('--objdump', default='llvm-objdump-19')
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--pressure', nargs=2, metavar=('KERNEL', 'CPU'))
    g.add_argument('--loops', metavar='KERNEL')
    g.add_argument('--selftest', action='store_true')
    args = ap.parse_args()
    if args.selftest:
        return cmd_selftest(args)
    if not args.table:
        die('--table is required')
    rows = read_table(args.table)
    if args.pressure:
        return cmd_pressure(args, rows)
    if args.loops:
        return cmd_loops(args, rows)
    return cmd_table(args, rows)


if __name__ == '__main__':
    sys.exit(main())
