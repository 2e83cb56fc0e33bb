#!/usr/bin/env python3
# footprint.py - engine behind scripts/footprint.sh: the cache footprint of one warm message,
# in distinct 64-byte lines (and bytes) of code executed and of data read or written, for
# stitchgcm through each of its APIs and for nettle, libgcrypt and OpenSSL driven the same way.
#
# Method (docs/footprint.md):
#   1. The whole-call driver (scripts/whole-call/driver.c, built by whole-call.py's Build with
#      the benchmark's implementations) seals each message a few times, then once more between
#      two marker instructions, and writes where the caller's buffers and the context lie
#      (--regions, regions.c: buffers, known layouts, a dump of the heap and of the dead stack).
#   2. qemu-user runs it with mem-plugin.c, which records every distinct instruction and data
#      access between the markers: qemu-x86_64 -cpu max on x86_64 (AES-NI and PCLMULQDQ, no
#      VPCLMULQDQ: the x86_64-vaes backend does not run), qemu-aarch64 -cpu neoverse-n1 on ARM.
#   3. classify.py sorts code by the object it lies in and data into the expanded key, the
#      rest of the context (message state), the caller's buffers, the stack, constants and
#      the rest, and counts lines and bytes; this file prints the tables.
import argparse
import concurrent.futures
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import classify  # noqa: E402

_spec = importlib.util.spec_from_file_location('whole_call', os.path.join(ROOT, 'scripts', 'whole-call',
                                                                         'whole-call.py'))
wc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wc)

# Rows: id, target, label the benchmark registers, driver entry, what the row's code and
# context are (classify.KINDS), environment. STITCHGCM_IMPL forces the backend where the
# label does not (the nettle and libgcrypt front-ends pick the library's choice).
# Rows: id, label the benchmark registers, driver entry, what the row's code and context are
# (classify.KINDS), environment. The stitchgcm rows run for each backend, forced with
# STITCHGCM_IMPL (the nettle and libgcrypt front-ends take the library's choice); the peers
# once per target.
STITCHGCM_ROWS = [
    # id              impl                    entry         kind          env
    ('handle',        'stitchgcm/{b}',        'seal',       'stitchgcm',  []),
    ('aead_seal',     'stitchgcm/{b}',        'seal_keyed', 'stitchgcm',  []),
    ('sgcm_seal',     'stitchgcm/{b}',        'sgcm_seal',  'rawkey',     []),
    ('nettle-abi',    'nettle->stitchgcm',    'gnutls',     'nettle-abi', ['LD_PRELOAD={lib}']),
    ('gcrypt-abi',    'libgcrypt->stitchgcm', 'seal',       'interposer', []),
]
PEER_ROWS = [
    ('nettle',        'nettle',               'gnutls',     'nettle',     []),
    ('libgcrypt',     'libgcrypt',            'seal',       'libgcrypt',  []),
    ('openssl',       'openssl',              'seal',       'openssl',    []),
]
BACKENDS = {'x64': ['x86_64-aesni', 'soft'], 'a64': ['aarch64-ce', 'aarch64-neon']}
QEMU_CPU = {'x64': 'max', 'a64': 'neoverse-n1'}
TARGET_NAME = {'x64': 'x86_64 (qemu-x86_64 -cpu max)', 'a64': 'aarch64 (qemu-aarch64 -cpu neoverse-n1)'}


def die(msg):
    sys.stderr.write('footprint: ' + msg + '\n')
    sys.exit(2)


def plan(targets, backends, only):
    out = []
    for target in targets:
        for b in backends.get(target) or BACKENDS[target]:
            out += [dict(id=rid, target=target, backend=b, impl=impl.format(b=b), entry=entry, kind=kind,
                         env=env + [f'STITCHGCM_IMPL={b}']) for rid, impl, entry, kind, env in STITCHGCM_ROWS]
        out += [dict(id=rid, target=target, backend='-', impl=impl, entry=entry, kind=kind, env=env)
                for rid, impl, entry, kind, env in PEER_ROWS]
    return [r for r in out if not only or r['id'] in only]


def run(build, plugin, row, sizes, keys, work):
    """Trace one row -> (driver stdout, trace path, regions path) or a reason string."""
    d = build.driver(row['target'])
    if isinstance(d, str):
        return d
    exe, _, dirs, _ = d
    t = wc.TOOLS[row['target']]
    lib = os.path.join(os.path.dirname(exe), 'libstitchgcm.so.0')
    env = ['LD_LIBRARY_PATH=' + ':'.join(dirs)] + [e.format(lib=lib) for e in row['env']]
    stem = os.path.join(work, f'{row["target"]}.{row["backend"]}.{row["id"]}')
    cmd = [t['qemu'], '-L', t['sysroot'], '-cpu', QEMU_CPU[row['target']]] + \
        [x for e in env for x in ('-E', e)] + \
        ['-plugin', f'{plugin},out={stem}.trace', exe, '--impl', row['impl'], '--entry', row['entry'],
         '--keys', ','.join(map(str, keys)), '--sizes', ','.join(map(str, sizes)), '--regions', stem + '.regions']
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return f'driver failed: {" ".join(cmd)}\n{p.stderr.strip()[-600:]}'
    return p.stdout, stem + '.trace', stem + '.regions'


def main():
    ap = argparse.ArgumentParser(description='cache footprint of one warm message (scripts/footprint.sh)')
    ap.add_argument('--lib-x64')
    ap.add_argument('--lib-a64')
    ap.add_argument('--sizes', default='16,64,256,1420')
    ap.add_argument('--keys', default='128')
    ap.add_argument('--only', help='row ids, comma-separated')
    ap.add_argument('--backends', help='stitchgcm backends, comma-separated (default: per target)')
    ap.add_argument('--work', help='keep traces and dumps here')
    ap.add_argument('--detail', action='store_true', help='also list the touched lines of each row')
    args = ap.parse_args()
    args.libs = {'x64': args.lib_x64 and os.path.abspath(args.lib_x64),
                 'a64': args.lib_a64 and os.path.abspath(args.lib_a64)}
    targets = [t for t in ('x64', 'a64') if args.libs[t]]
    if not targets:
        die('no library given (--lib-x64, --lib-a64)')
    sizes = [int(x) for x in args.sizes.split(',')]
    keys = [int(x) for x in args.keys.split(',')]
    backends = {}
    if args.backends:
        for t in targets:
            backends[t] = [b for b in args.backends.split(',') if b in BACKENDS[t]]
    work = args.work or os.path.join(ROOT, 'target', 'footprint')
    os.makedirs(work, exist_ok=True)
    build = wc.Build(args)
    plugin = os.path.join(build.out, 'mem-plugin.so')
    # qemu 9 and later's header includes glib.h (Debian 13: libglib2.0-dev, scripts/deps.sh).
    glib = subprocess.run(['pkg-config', '--cflags', 'glib-2.0'], capture_output=True, text=True)
    wc.sh(['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC',
           '-I' + os.path.join(ROOT, '.deps', 'qemu-plugin')] + (glib.stdout.split() if glib.returncode == 0 else [])
          + ['-o', plugin, os.path.join(HERE, 'mem-plugin.c')])
    rows = plan(targets, backends, args.only and args.only.split(','))
    for t in targets:
        build.driver(t)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        traced = list(pool.map(lambda r: run(build, plugin, r, sizes, keys, work), rows))
    cells, problems = [], []
    for row, tr in zip(rows, traced):
        if isinstance(tr, str):
            problems.append(f'{row["id"]} ({row["backend"]}): {tr}')
            continue
        out, trace, regions = tr
        try:
            cells += classify.analyse(row, out, trace, regions)
        except classify.Problem as e:
            problems.append(f'{row["id"]} ({row["backend"]}): {e}')
    problems += classify.report(cells, args.detail, TARGET_NAME)
    for p in problems:
        print(f'# FAIL: {p}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
