# classify.py - sorts what one traced call touched (mem-plugin.c's trace, the driver's
# --regions file) and counts it in distinct 64-byte lines and bytes (used by footprint.py).
#
# Code: each distinct instruction's bytes, by the object its address lies in (maps): the
# implementation's own library ("lib"), libc, or anything else (the driver and the
# benchmark's glue, ld.so, other libraries).
#
# Data: each byte read or written, in the first class that holds it:
#   caller  the caller's buffers (IV, AAD, input, output, tag) and, for implementations whose
#           context pointer is the benchmark's own small struct (libgcrypt, OpenSSL) or a raw
#           key (sgcm_seal), that heap block;
#   key     the expanded key: stitchgcm's `Key` (src/gcm/key.rs: `Material` then the backend
#           and key-length bytes, #[repr(C, align(16))]) found by its layout in the heap or
#           the dead stack; nettle's `struct gcm_key` and AES context (the driver's ranges);
#           for libgcrypt and OpenSSL, whose contexts are opaque, the heap bytes the call
#           only reads (key schedule, H table, method objects);
#   state   the rest of the context: the handle's message state and header, nettle's
#           `struct gcm_ctx`, the heap bytes libgcrypt or OpenSSL write;
#   stack   the [stack] mapping;
#   const   file-backed mappings without write permission (.rodata, RELRO data, the GOT);
#   other   globals (.data, .bss), the thread's TLS block, heap blocks outside the context.
# A line holding bytes of two classes counts in both; the totals count each line once.
import bisect
import os
import re
import struct
import subprocess

LINE = 64
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASSES = ('key', 'state', 'caller', 'stack', 'const', 'other')
CODE = ('lib', 'libc', 'other')
# kind -> (libraries whose code is "lib", where the context's key is found)
KINDS = {
    'stitchgcm': (('libstitchgcm.so',), 'heap'),
    'rawkey': (('libstitchgcm.so',), 'stack'),
    'interposer': (('libstitchgcm-gcrypt.so',), 'heap'),
    'nettle': (('libnettle.so',), 'ranges'),
    'nettle-abi': (('libstitchgcm.so',), 'ranges'),
    'libgcrypt': (('libgcrypt.so', 'libgpg-error.so'), 'read-only'),
    'openssl': (('libcrypto.so',), 'read-only'),
}
# context pointers that are not the library's object
CALLER_CTX = ('rawkey', 'libgcrypt', 'openssl', 'interposer')


class Problem(Exception):
    pass


def material_bytes():
    src = open(os.path.join(ROOT, 'src', 'backend', 'mod.rs')).read()
    m = re.search(r'const MATERIAL_BYTES: usize = (\d+);', src)
    if not m:
        raise Problem('MATERIAL_BYTES not found in src/backend/mod.rs')
    return int(m.group(1))


def parse_regions(path):
    wins, cur, maps, probe, tls = {}, None, [], None, None
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        f = line.split()
        if not f:
            continue
        if f[0] == 'window':
            cur = wins.setdefault(int(f[1]), {'bufs': [], 'ranges': [], 'dumps': {}})
        elif f[0] == 'buf':
            cur['bufs'].append((f[1], int(f[2], 16), int(f[3])))
        elif f[0] == 'range':
            cur['ranges'].append((f[1], int(f[2], 16), int(f[3])))
        elif f[0] == 'dump':
            cur['dumps'][f[1]] = (int(f[2], 16), int(f[3]), f[4])
        elif f[0] == 'probe':
            probe = int(f[1], 16)
        elif f[0] == 'tls':
            tls = int(f[1], 16)
        elif f[0] == 'maps':
            for m in lines[i + 1:]:
                p = m.split(None, 5)
                lo, hi = (int(x, 16) for x in p[0].split('-'))
                maps.append((lo, hi, p[1], p[5].strip() if len(p) > 5 else '', int(p[2], 16)))
            break
    return wins, maps, probe, tls


def parse_trace(path):
    wins, cur = {}, None
    for line in open(path):
        f = line.split()
        if f[0] == 'W':
            cur = wins[int(f[1])] = {'code': [], 'data': []}
        elif f[0] == 'I':
            cur['code'].append((int(f[1], 16), int(f[2])))
        elif f[0] == 'D':
            cur['data'].append((int(f[1], 16), int(f[2]), f[3] == 'w', int(f[5], 16)))
        elif f[0] == 'E':
            cur['insns'], cur['accesses'] = int(f[2]), int(f[3])
            cur['closed'] = 'unterminated' not in line
    return wins


class Intervals:
    """Disjoint-or-not labelled intervals; lookup returns the first label added that holds x."""

    def __init__(self):
        self.items = []

    def add(self, lo, hi, label):
        if hi > lo:
            self.items.append((lo, hi, label))

    def label(self, x):
        for lo, hi, lab in self.items:
            if lo <= x < hi:
                return lab
        return None


def heap_chunks(base, blob):
    """glibc's chunks in the heap mapping -> [(user start, end)]: from the first start whose
    walk over the size fields runs to the top chunk, which ends within a page of the mapping's
    end (the mapping is rounded up to pages)."""
    n = len(blob)
    for start in range(0, 4096, 16):
        pos, out = start, []
        while pos + 16 <= n:
            size = struct.unpack_from('<Q', blob, pos + 8)[0] & ~7
            if size < 32 or size % 16 or pos + size > n:
                break
            out.append((base + pos + 16, base + pos + size))
            pos += size
        if pos > n - 4096 - 16 and len(out) > 1:
            return out
    raise Problem('no glibc chunk walk fits the heap dump')


def find_keys(base, blob, keylen):
    """Start addresses of stitchgcm `Key`s in `blob`: 16-byte aligned, `Material.init` (the
    layout's size) in 16..MATERIAL_BYTES after the words, then (Material being padded to 16
    bytes) a backend id byte and the key length."""
    mb = material_bytes()
    tail = (mb + 8 + 15) // 16 * 16               # size_of::<Material>()
    size = tail + 16                               # size_of::<Key>()
    out = []
    for off in range((-base) % 16, len(blob) - size + 1, 16):
        init = struct.unpack_from('<Q', blob, off + mb)[0]
        if 16 <= init <= mb and 1 <= blob[off + tail] <= 15 and blob[off + tail + 1] == keylen:
            out.append((base + off, base + off + size, init))
    return out


class Cell:
    pass


def analyse(row, out, trace_path, regions_path):
    libs, key_where = KINDS[row['kind']]
    wins, maps, probe, tls = parse_regions(regions_path)
    trace = parse_trace(trace_path)
    calls = [l.split() for l in out.splitlines() if l.startswith('window ')]
    if len(trace) != len(calls) or not all(w.get('closed') for w in trace.values()):
        raise Problem(f'{len(trace)} windows traced for {len(calls)} calls (markers lost?)')
    cells = []
    for call in calls:
        k, keybits, size = int(call[1]), int(call[3]), int(call[6])
        reg, tr = wins[k], trace[k]
        c = Cell()
        c.row, c.keybits, c.size, c.tag, c.insns, c.problems = row, keybits, size, call[7], tr['insns'], []
        c.code, c.code_bytes = count_code(tr['code'], maps, libs)
        c.code_raw, c.maps = tr['code'], maps
        c.data, c.data_bytes, c.notes = count_data(row, tr['data'], reg, maps, probe, tls, keybits // 8,
                                                   key_where)
        check_buffers(c, tr['data'], reg)
        cells.append(c)
    return cells


def count_code(code, maps, libs):
    lines = {g: set() for g in CODE}
    nbytes = {g: 0 for g in CODE}
    for va, sz in code:
        obj = next((os.path.basename(p) for lo, hi, _, p, _ in maps if lo <= va < hi), '?')
        g = 'lib' if obj.startswith(libs) else 'libc' if obj.startswith('libc.so') else 'other'
        lines[g].update(range(va // LINE, (va + sz - 1) // LINE + 1))
        nbytes[g] += sz
    return lines, nbytes


def count_data(row, data, reg, maps, probe, tls, keylen, key_where):
    notes = []
    bufs = Intervals()
    for name, a, n in reg['bufs']:
        if name != 'ctx':
            bufs.add(a, a + n, 'caller')
    heap_base, heap_len, heap_file = reg['dumps']['heap']
    chunks = heap_chunks(heap_base, open(heap_file, 'rb').read())
    starts = [lo for lo, _ in chunks]

    def chunk_of(x):
        i = bisect.bisect_right(starts, x) - 1
        return chunks[i] if i >= 0 and x < chunks[i][1] else None

    ctx = next(a for name, a, _ in reg['bufs'] if name == 'ctx')
    if row['kind'] in CALLER_CTX and chunk_of(ctx):
        bufs.add(*chunk_of(ctx), 'caller')
    known = Intervals()
    for name, a, n in reg['ranges']:
        known.add(a, a + n, name)
    written = set()
    for a, n, w, _ in data:
        if w:
            written.update(range(a, a + n))
    touched = set()
    for a, n, _, _ in data:
        touched.update(range(a, a + n))
    if key_where in ('heap', 'stack'):
        base, _, path = reg['dumps'][key_where]
        cands = find_keys(base, open(path, 'rb').read(), keylen)
        hits = sorted(((sum(1 for x in touched if lo <= x < hi), lo, hi, init) for lo, hi, init in cands),
                      reverse=True)
        if not hits or hits[0][0] == 0:
            raise Problem(f'no stitchgcm Key found in the {key_where} that the call read')
        _, lo, hi, init = hits[0]
        known.add(lo, lo + init, 'key')          # the backend's layout: what a message may read
        known.add(lo + init, hi, 'key')           # the unused rest of Material, the id bytes
        notes.append(f'Key at {lo:#x} (+{lo % LINE} in its line), layout {init} B; offsets read: ' +
                     spans(sorted(x - lo for x in touched if lo <= x < hi)))
        home = chunk_of(lo)                       # None for a key on the stack
        if home:
            known.add(home[0], home[1], 'state')
    maplab = Intervals()
    for lo, hi, perms, path, _ in maps:
        if lo <= probe < hi:
            lab = 'heap'
        elif tls is not None and lo <= tls < hi and not path:
            lab = 'other'                          # the TLS block (stack canary, errno)
        elif path == '[stack]':
            lab = 'stack'
        elif path.startswith('/') and 'w' not in perms:
            lab = 'const'
        else:
            lab = 'other'                          # .data, .bss (an anonymous mapping after one)
        maplab.add(lo, hi, lab)
    lines = {k: set() for k in CLASSES}
    nbytes = {k: 0 for k in CLASSES}
    members = {k: [] for k in CLASSES}
    for x in touched:
        lab = bufs.label(x) or known.label(x)
        if lab is None:
            m = maplab.label(x) or 'other'
            if m == 'heap':
                ch = chunk_of(x)
                if key_where == 'read-only' and ch:
                    lab = 'state' if x in written else 'key'
                else:
                    lab = 'other'
            else:
                lab = m
        lines[lab].add(x // LINE)
        nbytes[lab] += 1
        members[lab].append(x)
    notes += data_detail(members, data, maps)
    return lines, nbytes, notes


def data_detail(members, data, maps):
    """Detail notes (--detail): where the stack, constant and other bytes lie, and the stack
    bytes by the object whose code touched them."""
    out = []
    sym = symbols([pc for _, _, _, pc in data], maps)
    who, fn_of = {}, {}
    for a, n, _, pc in data:
        for x in range(a, a + n):
            who.setdefault(x, sym[pc][0])
            fn_of.setdefault(x, sym[pc][1])
    st = sorted(members['stack'])
    if st:
        by = {}
        for x in st:
            k = f'{who[x]}: {fn_of[x]}'
            by[k] = by.get(k, 0) + 1
        out.append(f'detail: stack {len(st)} B within {st[-1] - st[0] + 1} B below the top touched; first '
                   'touched by ' + '; '.join(f'{k} {n} B' for k, n in sorted(by.items(), key=lambda kv: -kv[1])))
    for cls in ('state', 'const', 'other'):
        groups = {}
        for x in sorted(members[cls]):
            m = next(((lo, p) for lo, hi, _, p, _ in maps if lo <= x < hi), (0, '?'))
            groups.setdefault(m, []).append(x)
        for (lo, path), xs in groups.items():
            name = os.path.basename(path) or f'anonymous mapping {lo:#x}'
            out.append(f'detail: {cls} {len(xs)} B in {name}: ' + spans([x - lo for x in xs]) +
                       f' (offsets; read by {", ".join(sorted({who.get(x, "?") for x in xs}))})')
    return out


def spans(xs):
    """'a-b c-d' for the runs of consecutive integers in sorted xs."""
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(f'{xs[i]}-{xs[j] + 1}' if j > i else str(xs[i]))
        i = j + 1
    return ' '.join(out)


SYMBOLIZER = '/usr/lib/llvm-19/bin/llvm-symbolizer'


def symbols(addrs, maps):
    """{vaddr: (object, function)} by llvm-symbolizer, from the addresses relative to each
    object's first mapping (its first segment has p_vaddr 0)."""
    base = {}
    for lo, _, _, path, off in maps:               # the load address: the mapping at offset 0
        if off == 0 and path.startswith('/'):
            base.setdefault(path, lo)
    per_obj = {}
    for va in set(addrs):
        path = next((p for lo, hi, _, p, _ in maps if lo <= va < hi), '')
        per_obj.setdefault(path, []).append(va)
    out = {}
    for path, vas in per_obj.items():
        vas.sort()
        names = []
        if path in base:
            p = subprocess.run([SYMBOLIZER, '--obj=' + path, '--no-inlines', '--functions=linkage', '--demangle'],
                               input='\n'.join(hex(v - base[path]) for v in vas) + '\n', capture_output=True,
                               text=True)
            names = [blk.split('\n')[0] for blk in p.stdout.strip().split('\n\n')]
        if len(names) != len(vas):
            names = ['?'] * len(vas)
        for v, n in zip(vas, names):
            out[v] = (os.path.basename(path) or '?', short_name(n))
    return out


def functions(code, maps):
    """Executed code by function: [(bytes, lines, object, function)], largest first."""
    sym = symbols([va for va, _ in code], maps)
    out = {}
    for va, sz in code:
        lines, nbytes = out.setdefault(sym[va], (set(), [0]))
        lines.update(range(va // LINE, (va + sz - 1) // LINE + 1))
        nbytes[0] += sz
    return sorted(((b[0], len(l), o, f) for (o, f), (l, b) in out.items()), reverse=True)


def short_name(f):
    """A Rust path without its hash and generic arguments, legacy-mangling escapes decoded."""
    f = re.sub(r'::h[0-9a-f]{16}$', '', f)
    for esc, ch in (('$LT$', '<'), ('$GT$', '>'), ('$u20$', ' '), ('$u7b$', '{'), ('$u7d$', '}'), ('..', '::')):
        f = f.replace(esc, ch)
    f = re.sub(r'^_<', '<', f)
    while '<' in f:
        g = re.sub(r'<[^<>]*>', '', f)
        if g == f:
            break
        f = g
    return f


def check_buffers(c, data, reg):
    """The call must read exactly the IV, the AAD and the input, and write the output and the
    tag: the trace holds the whole call."""
    rd, wr = set(), set()
    for a, n, w, _ in data:
        (wr if w else rd).update(range(a, a + n))
    for name, a, n in reg['bufs']:
        if name in ('iv', 'aad', 'in'):
            got = len(rd & set(range(a, a + n)))
            if got != n:
                c.problems.append(f'read {got} of the {n} bytes of {name}')
        elif name in ('out', 'tag'):
            got = len(wr & set(range(a, a + n)))
            if got != n:
                c.problems.append(f'wrote {got} of the {n} bytes of {name}')


def fmt(lines, nbytes):
    return f'{len(lines)} ({nbytes})' if lines else '-'


def label_of(c):
    return c.row['id'] if c.row['backend'] == '-' else f'{c.row["backend"]} {c.row["id"]}'


def report(cells, detail, target_name):
    """Prints one table per target, key and size; returns the problems found (tags that
    differ between implementations, buffers not read or written whole)."""
    problems = []
    groups = {}
    for c in cells:
        groups.setdefault((c.row['target'], c.keybits, c.size), []).append(c)
    for (target, kb, size), cs in sorted(groups.items()):
        print(f'\n{target_name[target]}, AES-{kb}, 12-byte IV, 13-byte AAD, {size}-byte message, encrypt + tag: '
              'distinct 64-byte lines (bytes) touched by one warm call')
        hdr = ['row', 'insns'] + [f'code {g}' for g in CODE] + ['code total'] + \
            [f'{k}' for k in CLASSES] + ['data total']
        body = []
        for c in cs:
            label = label_of(c)
            code_all = set().union(*c.code.values())
            data_all = set().union(*c.data.values())
            body.append([label, str(c.insns)] + [fmt(c.code[g], c.code_bytes[g]) for g in CODE] +
                        [fmt(code_all, sum(c.code_bytes.values()))] +
                        [fmt(c.data[k], c.data_bytes[k]) for k in CLASSES] +
                        [fmt(data_all, sum(c.data_bytes.values()))])
        w = [max(len(r[i]) for r in [hdr] + body) for i in range(len(hdr))]
        print('| ' + ' | '.join(h.ljust(w[i]) for i, h in enumerate(hdr)) + ' |')
        print('|' + '|'.join('-' * (x + 2) for x in w) + '|')
        for r in body:
            print('| ' + ' | '.join(v.rjust(w[i]) if i else v.ljust(w[i]) for i, v in enumerate(r)) + ' |')
        tags = {c.tag for c in cs}
        if len(tags) != 1:
            problems.append(f'{target} AES-{kb} {size} B: the tags differ: {sorted(tags)}')
        problems += [f'{label_of(c)} {size} B: {p}' for c in cs for p in c.problems]
        for c in cs:
            for n in c.notes if detail else [n for n in c.notes if not n.startswith(('Key at', 'detail:'))]:
                print(f'#   {label_of(c)}: {n}')
            if detail:
                print(f'#   {label_of(c)}: code by function, bytes executed / lines:')
                for nbytes, nlines, obj, fn in functions(c.code_raw, c.maps):
                    print(f'#     {nbytes:6d} B {nlines:3d} lines  {obj}: {fn}')
    return problems
