# profile.py - where a whole call's modelled cycles go (whole-call.py --profile).
#
# Each traced instruction is given the function it belongs to: the loaded objects' base
# addresses are not in the trace, so every file the driver loads is matched against the
# traced instruction words (each distinct traced word votes for the page-aligned differences
# between its traced address and the addresses where the word occurs in a file's executable
# sections; the file's base is the difference with most votes). llvm-mca then prices the stream once more with its timeline view, and
# a run of consecutive instructions of one function is charged the retire cycles between the
# previous run's last retirement and its own: the functions' shares add up to the whole
# call. A function called several times is summed; "calls" counts its entries.
# The same placement gives each traced instruction its file (Objects.shares), which is how
# whole-call.py shows that a preloaded row's calls ran in libstitchgcm.
import collections
import os
import re
import subprocess
import tempfile

RUST_HASH = re.compile(r'::h[0-9a-f]{16}$')


class Objects:
    """Symbols of the files a traced process may execute, placed at their traced bases."""

    def __init__(self, readelf, nm):
        self.readelf, self.nm, self.files = readelf, nm, {}

    def _load(self, path):
        if path in self.files:
            return self.files[path]
        secs = []
        out = subprocess.run([self.readelf, '-SW', path], capture_output=True, text=True).stdout
        for m in re.finditer(r'\]\s+(\S+)\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*X\S*)',
                             out):
            secs.append((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
        data = open(path, 'rb').read()
        where = collections.defaultdict(list)
        for addr, off, size in secs:
            blob = data[off:off + size]
            for i in range(0, len(blob) - 3, 2):
                at = where[blob[i:i + 4]]
                if len(at) <= 8:
                    at.append(addr + i)
        syms = []
        out = ''.join(subprocess.run([self.nm, '-C', '--defined-only', '-S', *dyn, path], capture_output=True,
                                     text=True).stdout for dyn in ([], ['-D']))   # stripped files: dynamic only
        for line in out.splitlines():
            f = line.split(None, 3)
            if len(f) == 4 and f[2].lower() in ('t', 'w'):
                syms.append((int(f[0], 16), int(f[1], 16), RUST_HASH.sub('', f[3])))
        syms = sorted(set(syms))
        self.files[path] = (where, syms, [(addr, addr + size) for addr, _, size in secs])
        return self.files[path]

    def bases(self, paths, seq):
        """-> [(base, path)] for the files whose words the stream contains."""
        out = []
        for path in dict.fromkeys(os.path.realpath(p) for p in paths if os.path.isfile(p)):
            where = self._load(path)[0]
            votes = collections.Counter()
            for vaddr, hx in {(i.vaddr, i.hx) for i in seq if len(i.hx) == 8}:
                at = where.get(bytes.fromhex(hx), ())        # the trace gives memory order
                if len(at) <= 8:                             # a common word votes for nothing
                    votes.update(d for d in (vaddr - a for a in at) if d % 4096 == 0)
            if votes:
                base, n = votes.most_common(1)[0]
                if n >= 4:
                    out.append((base, path))
        return out

    def place(self, paths, seq):
        """-> [(base, name, syms)] for the files whose words the stream contains."""
        return [(base, os.path.basename(path), self._load(path)[1]) for base, path in self.bases(paths, seq)]

    def shares(self, paths, seq):
        """-> Counter {file name: instructions of seq in its executable sections}, and
        '(not placed)' for the rest."""
        spans = [(base + lo, base + hi, os.path.basename(path))
                 for base, path in self.bases(paths, seq) for lo, hi in self._load(path)[2]]
        out, memo = collections.Counter(), {}
        for i in seq:                   # a loop's addresses repeat: look each up once
            if i.vaddr not in memo:
                memo[i.vaddr] = next((name for lo, hi, name in spans if lo <= i.vaddr < hi), '(not placed)')
            out[memo[i.vaddr]] += 1
        return out


def name_of(placed, vaddr):
    best = None
    for base, fname, syms in placed:
        a = vaddr - base
        lo, hi = 0, len(syms)
        while lo < hi:
            mid = (lo + hi) // 2
            if syms[mid][0] <= a:
                lo = mid + 1
            else:
                hi = mid
        if lo and syms[lo - 1][0] <= a < syms[lo - 1][0] + max(syms[lo - 1][1], 4):
            best = syms[lo - 1][2]
            break
        if best is None and lo and 0 <= a - syms[lo - 1][0] < 1 << 16:
            best = f'{fname} (no symbol)'
    return best or '(not placed)'


def retire_cycles(mca, triple, mattr, cpu, text):
    """llvm-mca timeline of a straight-line stream -> the retire cycle of each instruction."""
    with tempfile.NamedTemporaryFile('w', suffix='.s', delete=False) as fh:
        fh.write(text)
    try:
        out = subprocess.run([mca, '-mtriple=' + triple, '-mcpu=' + cpu, '-mattr=' + mattr, '-iterations=1',
                              '-call-latency=1', '-instruction-info=false', '-resource-pressure=false',
                              '-timeline', '-timeline-max-iterations=1', '-timeline-max-cycles=0', fh.name],
                             capture_output=True, text=True).stdout
    finally:
        os.unlink(fh.name)
    res, col = [], None
    for line in out.split('Timeline view:', 1)[-1].splitlines():
        if line.startswith('Index') and col is None:
            col = line.index('0')            # the chart's first cycle column
        elif line.startswith('[0,') and col is not None:
            res.append(line.find('R', col) - col)
    return res


def short_name(name, width=70):
    """Rust's legacy mangling as llvm-nm leaves it ($LT$impl$u20$...) made readable."""
    for a, b in (('$LT$', '<'), ('$GT$', '>'), ('$u20$', ' '), ('$RF$', '&'), ('..', '::'), ('_<', '<')):
        name = name.replace(a, b)
    return name if len(name) <= width else '…' + name[-width + 1:]


def report(cell, placed, retire, title):
    """Per function: entries, instructions, cycles charged (share of the call)."""
    acc = collections.OrderedDict()
    prev_name, prev_r = None, 0
    for ins, r in zip(cell.seq, retire):
        n = name_of(placed, ins.vaddr)
        e = acc.setdefault(n, [0, 0, 0])
        if n != prev_name:
            e[0] += 1
        e[1] += 1
        if r >= 0:
            e[2] += r - prev_r
            prev_r = r
        prev_name = n
    total = max(prev_r, 1)
    print(f'\n{title}: {len(cell.seq)} insns, {total} cycles to the last retirement')
    print(f'| {"function":70} | calls | insns | cycles | share |')
    print(f'|{"-" * 72}|-------|-------|--------|-------|')
    for n, (calls, insns, cyc) in sorted(acc.items(), key=lambda kv: -kv[1][2]):
        print(f'| {short_name(n):70} | {calls:5} | {insns:5} | {cyc:6} | {cyc / total:5.0%} |')
