#!/usr/bin/env python3
# whole-call.py - engine behind `scripts/model-arm.sh --whole-call`: the modelled cost of one
# whole warm call (setiv + AAD + data + tag) on ARM, for stitchgcm and for Debian's arm64
# builds of nettle, libgcrypt and OpenSSL driven the same way.
#
# Method (docs/modeling.md, "Whole-call model"):
#   1. driver.c, built with the benchmark's implementations (bench/gcm), seals each message
#      a few times and brackets one more call with marker instructions; qemu-user runs it with the trace
#      plugin (trace-plugin.c) under a real CPU model (-cpu neoverse-n1 / cortex-a72 /
#      cortex-a15, so the libraries pick the code paths such a core gets), which records the
#      instructions executed between the markers, in order.
#   2. The stream is disassembled by LLVM (trace.py) and priced as straight-line code by
#      llvm-mca 19 with -iterations=1 -call-latency=1 (the callee's instructions are in the
#      stream), raw and with AESE+AESMC fused by model-arm.py's own fusion (body_lines).
#   3. Checks (--check): every window closed, the tags of all implementations agree, each
#      stream holds its implementation's crypto instructions, sizes order the counts, and
#      the steady-state loop's share of an 8 KiB call matches the loop model within 2%: the
#      share is C(whole stream) - C(the stream without the loop's iterations), the loop
#      model is model-arm.py's -iterations=500 figure for the kernel whose loop body is the
#      traced one, times the iterations run.
# Traces are cached by the hash of everything that makes them (binaries, libraries, qemu,
# cpu, arguments); llvm-mca results in model-arm.py's cache, keyed by the exact text.
import argparse
import concurrent.futures
import glob
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, HERE)
import trace as wtrace  # noqa: E402

_spec = importlib.util.spec_from_file_location('model_arm', os.path.join(ROOT, 'scripts', 'model-arm.py'))
ma = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ma)

# target -> (qemu cpu traced, llvm-mca cpu priced)
TRACE_CPUS = {'a64': [('neoverse-n1', 'neoverse-n1'), ('cortex-a72', 'cortex-a72')],
              'a32': [('cortex-a15', 'cortex-a57')]}
TRIPLES = {'aarch64-unknown-linux-gnu': 'a64', 'armv7-unknown-linux-gnueabihf': 'a32'}
TOOLS = {'a64': dict(triple='aarch64-unknown-linux-gnu', cc='aarch64-linux-gnu-gcc', qemu='qemu-aarch64',
                     sysroot='/usr/aarch64-linux-gnu', deb='arm64', multiarch='aarch64-linux-gnu'),
         'a32': dict(triple='armv7-unknown-linux-gnueabihf', cc='arm-linux-gnueabihf-gcc', qemu='qemu-arm',
                     sysroot='/usr/arm-linux-gnueabihf', deb='armhf', multiarch='arm-linux-gnueabihf'),
         # the host, for the footprint report (scripts/footprint/): the system's own peers
         'x64': dict(triple='x86_64-unknown-linux-gnu', cc='gcc', qemu='qemu-x86_64', sysroot='/',
                     deb=None, multiarch='x86_64-linux-gnu')}
# bench/gcm/sources.txt's peer name -> the Debian runtime library its family links, and the
# headers it needs from the -dev package of the target's architecture (under .deps/<deb>/;
# MULTI = the multiarch directory; nettle's headers are the host's, they are the same)
PEER_LIB = {'nettle': 'libnettle.so.8', 'gcrypt': 'libgcrypt.so.20', 'openssl': 'libcrypto.so.3'}
PEER_HDRS = {'nettle': [], 'gcrypt': ['usr/include/gcrypt.h', 'usr/include/MULTI/gpg-error.h'],
             'openssl': ['usr/include/openssl/evp.h', 'usr/include/MULTI/openssl/configuration.h']}
# A row's implementation -> the Debian package whose version names a release row ({ver})
PEER_PKG = {'nettle': r'libnettle8(t64)?', 'libgcrypt': r'libgcrypt20', 'openssl': r'libssl3(t64)?'}
BENCH = os.path.join(ROOT, 'bench', 'gcm')
SHORT = {'neoverse-n1': 'N1', 'cortex-a72': 'A72', 'cortex-a57': 'A57'}


def die(msg):
    sys.stderr.write('whole-call: ' + msg + '\n')
    sys.exit(2)


class Row:
    pass


def read_rows(path):
    rows = []
    for n, line in enumerate(open(path), 1):
        f = line.split('#')[0].split()
        if not f:
            continue
        if len(f) != 10:
            die(f'{path}:{n}: want "id target impl entry keys sizes iv aad expect env", got {line.strip()!r}')
        r = Row()
        r.id, r.target, r.impl, r.entry, keys, sizes, iv, aad, expect, env = f
        if r.target not in TOOLS:
            die(f'{path}:{n}: unknown target in {line.strip()!r}')
        r.keys, r.sizes = [int(x) for x in keys.split(',')], [int(x) for x in sizes.split(',')]
        r.iv, r.aad = int(iv), int(aad)
        r.expect = [x for x in expect.split(',') if x != '-']
        # entries are separated by the commas that start a new NAME= (a value may hold
        # commas: NETTLE_FAT_OVERRIDE=arch:7,neon, check-sizes=16,1420)
        envs = [] if env == '-' else re.split(r',(?=-?[A-Za-z_][A-Za-z0-9_-]*=)', env)
        # "-cpu=NAME" in the env column: trace under that qemu CPU instead of the target's
        # (AArch32 rows that need the crypto extensions: -cpu=max)
        r.qcpu = next((e[5:] for e in envs if e.startswith('-cpu=')), None)
        # "check-sizes=N,...": under --check (the test suite) only these sizes, for rows whose
        # full set is slow to trace and price
        r.check_sizes = next(([int(x) for x in e[12:].split(',')] for e in envs
                              if e.startswith('check-sizes=')), None)
        # "release=NAME": the peer libraries of that Debian release (scripts/deps-peers.sh,
        # .deps/release/NAME/<arch>, also the qemu -L root: a newer library wants its glibc),
        # driven by the same driver binary (the sonames and ABIs are those of the host's); a
        # "{ver}" in the id becomes the library's major.minor from that release's package
        r.release = next((e[8:] for e in envs if e.startswith('release=')), None)
        r.env = [e for e in envs if not e.startswith(('-cpu=', 'check-sizes=', 'release='))]
        r.pkgver = r.pkg = None
        if r.release:
            r.pkgver, r.pkg = release_version(r.release, TOOLS[r.target]['deb'], r.impl)
            r.id = r.id.replace('{ver}', r.pkgver or 'unknown')
        elif '{ver}' in r.id:
            die(f'{path}:{n}: {{ver}} in the id of a row without release=')
        # LD_PRELOAD=@stitchgcm: the traced process runs with the row's target's libstitchgcm
        # preloaded (the nettle drop-in as deployed); its cells report where their
        # instructions ran (libstitchgcm's share)
        r.preload = any(e == 'LD_PRELOAD=@stitchgcm' for e in r.env)
        rows.append(r)
    return rows


def release_root(release, deb):
    return os.path.join(ROOT, '.deps', 'release', release, deb)


def release_version(release, deb, impl):
    """(major.minor, "package version") of the Debian package behind impl in release's .deps
    tree, or (None, None)."""
    pat = PEER_PKG.get(impl)
    if not pat:
        die(f'release rows are peers ({", ".join(PEER_PKG)}), not {impl}')
    try:
        lines = open(os.path.join(release_root(release, deb), 'VERSIONS')).read().splitlines()
    except OSError:
        return None, None
    for line in lines:
        m = re.match(r'Package: (' + pat + r') Version: (?:\d+:)?(?P<v>\d+\.\d+)', line)
        if m:
            return m.group('v'), line[9:].replace(' Version:', '')
    return None, None


def host_release():
    try:
        for line in open('/etc/os-release'):
            if line.startswith('VERSION_CODENAME='):
                return line.split('=', 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        die(f'{" ".join(cmd)} failed:\n{p.stderr[-1500:]}')
    return p.stdout


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str) and os.path.isfile(p):
            with open(p, 'rb') as fh:
                h.update(fh.read())
        h.update(repr(p).encode())
    return h.hexdigest()[:32]


class Build:
    """Plugin (host) and one driver per target, in target/debian/whole-call: driver.c with the
    benchmark's registry and family files (bench/gcm/sources.txt), every peer whose Debian
    library for the target is in .deps, linked before libstitchgcm as bench/meson.build does
    (libstitchgcm exports nettle's names too)."""

    def __init__(self, args):
        self.out = os.path.join(ROOT, 'target', 'debian', 'whole-call')
        os.makedirs(self.out, exist_ok=True)
        hdr = os.path.join(ROOT, '.deps', 'qemu-plugin')
        if not os.path.exists(os.path.join(hdr, 'qemu-plugin.h')):
            die('.deps/qemu-plugin/qemu-plugin.h missing: run scripts/deps.sh')
        self.plugin = os.path.join(self.out, 'trace-plugin.so')
        # qemu 9 and later's header includes glib.h (Debian 13: libglib2.0-dev, scripts/deps.sh).
        glib = subprocess.run(['pkg-config', '--cflags', 'glib-2.0'], capture_output=True, text=True)
        sh(['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC', '-I' + hdr]
           + (glib.stdout.split() if glib.returncode == 0 else [])
           + ['-o', self.plugin, os.path.join(HERE, 'trace-plugin.c')])
        self.drivers, self.libs = {}, args.libs

    def driver(self, target):
        """-> (binary, [library files it loads], [LD_LIBRARY_PATH dirs], peers) or a reason."""
        if target in self.drivers:
            return self.drivers[target]
        t = TOOLS[target]
        lib = self.libs.get(target)
        if not lib or not os.path.exists(lib):
            self.drivers[target] = f'no stitchgcm build for {t["triple"]}'
            return self.drivers[target]
        tdir = os.path.join(self.out, t['triple'])
        os.makedirs(tdir, exist_ok=True)
        soname = os.path.join(tdir, 'libstitchgcm.so.0')          # the library's soname
        if os.path.realpath(soname) != os.path.realpath(lib):
            if os.path.lexists(soname):
                os.unlink(soname)
            os.symlink(lib, soname)
        root, multi = os.path.join(ROOT, '.deps', t['deb']) if t['deb'] else '/', t['multiarch']
        dirs = [tdir, os.path.join(root, 'usr', 'lib', multi), os.path.join(root, 'lib', multi)]
        inc = os.path.join(self.out, 'include')
        os.makedirs(inc, exist_ok=True)
        if not os.path.exists(os.path.join(inc, 'nettle')):
            os.symlink('/usr/include/nettle', os.path.join(inc, 'nettle'))    # arch-independent headers
        cflags = ['-O2', '-Wall', '-Wextra', '-Werror', '-I' + BENCH, '-I' + inc, '-I' + os.path.join(ROOT, 'include'),
                  '-I' + os.path.join(root, 'usr', 'include'), '-I' + os.path.join(root, 'usr', 'include', multi)]
        srcs = [os.path.join(HERE, 'driver.c'), os.path.join(HERE, 'regions.c'), os.path.join(BENCH, 'registry.c')]
        peers, links = [], []
        for line in open(os.path.join(BENCH, 'sources.txt')):
            f = line.split('#')[0].split()
            if len(f) == 1 and f[0].startswith('impl-'):
                srcs.append(os.path.join(BENCH, f[0]))
            elif len(f) == 3 and f[1] in PEER_LIB:
                so = next((os.path.join(d, PEER_LIB[f[1]]) for d in dirs[1:]
                           if os.path.exists(os.path.join(d, PEER_LIB[f[1]]))), None)
                hdrs = [os.path.join(root, h.replace('MULTI', multi)) for h in PEER_HDRS[f[1]]]
                if so and all(os.path.exists(h) for h in hdrs):
                    srcs.append(os.path.join(BENCH, f[0]))
                    cflags.append('-DHAVE_' + f[1].upper())
                    peers.append(f[1])
                    links.append(so)
        # The libgcrypt interposer built next to the library gives the libgcrypt->stitchgcm
        # implementation (bench/gcm/impl-gcrypt.c dlopen()s it from this path).
        pre = os.path.join(os.path.dirname(lib), 'libstitchgcm-gcrypt.so')
        if 'gcrypt' in peers and os.path.exists(pre):
            cflags.append(f'-DSTITCHGCM_GCRYPT_SO="{pre}"')
        exe = os.path.join(tdir, 'wc-driver')
        sh([t['cc'], *cflags, '-o', exe, *srcs, *links, lib, '-ldl', '-Wl,-rpath-link,' + ':'.join(dirs)])
        # The OpenSSL provider module for the openssl->stitchgcm rows (STITCHGCM_PROVIDER=@provider
        # in a row's env; bench/gcm/impl-openssl.c loads it): linked as the package links it,
        # against libstitchgcm.so.0 and the target's libcrypto, exporting its entry only.
        prov = []
        if 'openssl' in peers:
            prov = [os.path.join(tdir, 'stitchgcm.so')]
            sh([t['cc'], '-O2', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC',
                '-I' + os.path.join(ROOT, 'include'), '-I' + os.path.join(root, 'usr', 'include'),
                '-I' + os.path.join(root, 'usr', 'include', multi), '-o', prov[0],
                *sorted(glob.glob(os.path.join(ROOT, 'provider', '*.c'))), soname, links[peers.index('openssl')],
                '-Wl,--version-script=' + os.path.join(ROOT, 'provider', 'stitchgcm.map'),
                '-Wl,--no-undefined', '-Wl,-rpath-link,' + ':'.join(dirs)])
        files = [lib] + [os.path.join(d, x) for d in dirs[1:] if os.path.isdir(d) for x in sorted(os.listdir(d))
                         if '.so' in x] + ([pre] if os.path.exists(pre) else []) + prov
        self.drivers[target] = (exe, files, dirs, peers)
        return self.drivers[target]

    def runtime(self, row):
        """-> (driver, [library files it loads], [LD_LIBRARY_PATH dirs], qemu -L root) for a
        row, or a reason: the host release's peers, or those of the row's release."""
        d = self.driver(row.target)
        if isinstance(d, str):
            return d
        exe, files, dirs, _ = d
        t = TOOLS[row.target]
        if not row.release:
            return exe, files, dirs, t['sysroot']
        root = release_root(row.release, t['deb'])
        if row.pkgver is None:
            return f'no {row.release} {t["deb"]} peers in {root} (scripts/deps-peers.sh {row.release})'
        libdir = os.path.join(root, 'usr', 'lib', t['multiarch'])
        pre = [f for f in files if f.endswith(('libstitchgcm-gcrypt.so', '/stitchgcm.so'))]
        return (exe, [files[0]] + [os.path.join(libdir, x) for x in sorted(os.listdir(libdir)) if '.so' in x] + pre,
                [dirs[0], libdir], root)


def run_trace(build, row, qcpu, cache):
    """Trace one row under one qemu CPU -> (trace path, driver stdout) or a reason string."""
    d = build.runtime(row)
    if isinstance(d, str):
        return d
    exe, files, dirs, sysroot = d
    t = TOOLS[row.target]
    qver = sh([t['qemu'], '--version']).splitlines()[0]
    dargs = ['--impl', row.impl, '--entry', row.entry, '--keys', ','.join(map(str, row.keys)),
             '--sizes', ','.join(map(str, row.sizes)), '--iv', str(row.iv), '--aad', str(row.aad)]
    key = digest(exe, build.plugin, *files, qver, qcpu, dargs, row.env)
    path = os.path.join(cache, key + '.trace')
    if os.path.exists(path) and os.path.exists(path + '.out'):
        return path, open(path + '.out').read()
    module = next((f for f in files if f.endswith('/stitchgcm.so')), '@provider')
    envs = [e.replace('@stitchgcm', build.libs[row.target]).replace('@provider', module) for e in row.env]
    # qemu's -E splits its argument at commas; a value with one goes through qemu's own
    # environment instead, which qemu-user hands to the guest (LD_PRELOAD must not: the
    # host's loader would read it)
    env = ['-E', 'LD_LIBRARY_PATH=' + ':'.join(dirs)] + [x for e in envs if ',' not in e for x in ('-E', e)]
    host = dict(os.environ, **dict(e.split('=', 1) for e in envs if ',' in e))
    cmd = [t['qemu'], '-L', sysroot, '-cpu', qcpu, *env, '-plugin', f'{build.plugin},out={path}.tmp',
           exe, *dargs]
    p = subprocess.run(cmd, capture_output=True, text=True, env=host)
    if p.returncode != 0:
        return f'driver failed under qemu -cpu {qcpu}: {p.stderr.strip()[-300:]}'
    os.replace(path + '.tmp', path)
    with open(path + '.out', 'w') as fh:
        fh.write(p.stdout)
    return path, p.stdout


def ours(row):
    """stitchgcm's rows (its backends, or a peer's calls into it): run whatever --release says."""
    return row.impl.startswith('stitchgcm/') or '->stitchgcm' in row.impl or row.preload


def count(seq, mnem):
    return sum(1 for i in seq if i.mnem.startswith(mnem))


def lines_of(seq, fused):
    """Assembly text of a stream; AArch32 switches between ARM and Thumb with .arm/.thumb
    (llvm-mca's triple starts in ARM state)."""
    out, i, state = [], 0, 'arm'
    while i < len(seq):
        j = i
        while j < len(seq) and seq[j].mode == seq[i].mode:
            j += 1
        if seq[i].mode != 'a64' and seq[i].mode != state:
            state = seq[i].mode
            out.append('\t.' + state)
        out += ma.body_lines(types.SimpleNamespace(insns=seq[i:j]), fused)[0]
        i = j
    return out


# no per-instruction views: a stream has thousands of instructions, only the totals are read
MCA_FLAGS = ('-call-latency=1', '-instruction-info=false', '-resource-pressure=false')


def mca_stream(runner, seq, target, cpu, fused):
    return runner.run('\n'.join(lines_of(seq, fused)) + '\n', target, cpu, 1, extra=MCA_FLAGS)


def canon(lines):
    return [re.sub(r'\.Lx[0-9a-f]+', '.L', x).strip() for x in lines]


class Kernels:
    """model-arm.py's kernel rows located in the stitchgcm build, by their loop body text."""

    def __init__(self, args):
        self.args, self.by_body = args, {}

    def load(self, target, lib):
        if target in self.by_body or not self.args.kernels:
            return
        funcs = ma.disassemble(self.args.objdump, lib, target)
        self.by_body[target] = {}
        for row in ma.read_table(self.args.kernels):
            if row.target != target:
                continue
            r = ma.locate(row, funcs)
            if r.status == 'ok':
                self.by_body[target].setdefault(tuple(canon(r.raw)), r)

    def find(self, target, body):
        return self.by_body.get(target, {}).get(tuple(canon(body)))


class Cell:
    pass


def main():
    ap = argparse.ArgumentParser(description='whole-call ARM model (see scripts/model-arm.sh --whole-call)')
    ap.add_argument('--table', required=True)
    ap.add_argument('--kernels', help="model-arm.sh's kernel table (for the loop cross-check)")
    ap.add_argument('--lib-a64')
    ap.add_argument('--lib-a32')
    ap.add_argument('--cpus', help='llvm-mca CPUs to keep (default: every traced CPU of the target)')
    ap.add_argument('--only', help='row ids to run')
    ap.add_argument('--release', help="Debian releases whose peer rows run, comma list or all (default: the "
                    "host's, whose peers are in .deps/<arch>); stitchgcm's own rows run in every selection")
    ap.add_argument('--keys', help='key sizes to keep of each row (bits, comma list)')
    ap.add_argument('--sizes', help='message sizes to keep of each row (bytes, comma list)')
    ap.add_argument('--cache')
    ap.add_argument('--loop-cache', help="model-arm.sh's own llvm-mca cache, for the loop model runs")
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--keep')
    ap.add_argument('--mca', default='llvm-mca-19')
    ap.add_argument('--mc', default='llvm-mc-19')
    ap.add_argument('--objdump', default='llvm-objdump-19')
    ap.add_argument('--profile', help='BITS:BYTES[,...]: per-function breakdown of these cells (profile.py)')
    args = ap.parse_args()
    args.lib_a64, args.lib_a32 = (os.path.abspath(x) if x else None for x in (args.lib_a64, args.lib_a32))
    args.libs = {'a64': args.lib_a64, 'a32': args.lib_a32}
    targets = [t for t in ('a64', 'a32') if args.libs[t]]
    host = host_release()
    releases = (args.release or host or '').split(',')
    rows = [r for r in read_rows(args.table) if r.target in targets
            and (not args.only or r.id in args.only.split(','))
            and ('all' in releases or ours(r) or (r.release or host) in releases)]
    if not rows:
        die('no rows for the selected target(s), --only and --release')
    for r in rows:
        if args.check and r.check_sizes and not args.only:
            r.sizes = [n for n in r.sizes if n in r.check_sizes]
        if args.keys:
            r.keys = [k for k in r.keys if str(k) in args.keys.split(',')]
        if args.sizes:
            r.sizes = [n for n in r.sizes if str(n) in args.sizes.split(',')]
    rows = [r for r in rows if r.keys and r.sizes]
    if not rows:
        die('no cells left after --keys/--sizes')
    cache = args.cache or tempfile.mkdtemp(prefix='whole-call.')
    tcache = os.path.join(cache, 'traces')
    os.makedirs(tcache, exist_ok=True)
    work = args.keep or tempfile.mkdtemp(prefix='whole-call-work.')
    os.makedirs(work, exist_ok=True)
    keep_cpus = set(args.cpus.split(',')) if args.cpus else None
    build = Build(args)
    runner = ma.Runner(args.mca, 1, os.path.join(cache, 'mca') if args.cache else None)
    kernels = Kernels(args)
    # the loop model's -iterations=500 runs are model-arm.sh's own: share its cache
    kernels.runner = ma.Runner(args.mca, 500, args.loop_cache) if args.loop_cache else runner
    problems, checks = [], [0]

    def check(ok, what):
        checks[0] += 1
        if not ok:
            problems.append(what)
        return ok

    # 1. traces, in parallel (qemu processes); 2. streams; 3. llvm-mca jobs
    plan = [(r, r.qcpu or q, m) for r in rows for q, m in TRACE_CPUS[r.target][:1 if r.qcpu else None]
            if not keep_cpus or m in keep_cpus]
    for r in rows:                      # builds first (rows share a driver)
        build.driver(r.target)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    traced = list(pool.map(lambda p: run_trace(build, p[0], p[1], tcache), plan))
    cells, jobs = [], []
    for (row, qcpu, mcpu), tr in zip(plan, traced):
        if isinstance(tr, str):
            print(f'# {row.id} -cpu {qcpu}: unavailable: {tr}')
            check(False, f'{row.id} -cpu {qcpu}: {tr}')
            continue
        path, out = tr
        labels = [l.split() for l in out.splitlines() if l.startswith('window ')]
        version = next((l[8:] for l in out.splitlines() if l.startswith('version ')), '?')
        if row.release:     # the release's library was the one loaded, not the host's
            check(re.search(r'\b' + re.escape(row.pkgver) + r'(\.|\b)', version) is not None,
                  f'{row.id} -cpu {qcpu}: the driver reports {version!r}, not {row.release}\'s {row.pkgver}')
        for l in out.splitlines():
            if l.startswith('unavailable '):
                check(False, f'{row.id}: {l}')
        blocks, windows = wtrace.parse(path)
        check(len(windows) == len(labels), f'{row.id} -cpu {qcpu}: {len(windows)} windows traced, '
              f'{len(labels)} calls made (markers lost?)')
        wdir = os.path.join(work, f'{row.id}.{qcpu}')
        os.makedirs(wdir, exist_ok=True)
        dis = wtrace.Disassembler(ma, args.mc, args.objdump, wdir)
        seqs, unknown = wtrace.streams(blocks, windows, row.target, dis)
        check(unknown == 0, f'{row.id} -cpu {qcpu}: {unknown} traced words LLVM cannot decode')
        for (w, seq), lab in zip(seqs, labels):
            c = Cell()
            c.row, c.qcpu, c.mcpu, c.version, c.seq, c.window = row, qcpu, mcpu, version, seq, w
            c.keybits, c.size, c.tag = int(lab[3]), int(lab[6]), lab[7]
            c.crypto = {m: count(seq, m.lstrip('!')) for m in row.expect}
            cells.append(c)
            if args.keep:
                with open(os.path.join(wdir, f'{c.keybits}-{c.size}.s'), 'w') as fh:
                    fh.write('\n'.join(lines_of(seq, False)) + '\n')
            texts = ['\n'.join(lines_of(seq, fused)) + '\n' for fused in (False, True)]
            for fused, text in zip((False, True), texts):
                if fused and text == texts[0]:       # no AESE+AESMC pair: one run serves both
                    jobs.append((c, fused, jobs[-1][2]))
                else:
                    jobs.append((c, fused, runner.pool.submit(runner.run, text, row.target, mcpu, 1, MCA_FLAGS)))
    for c, fused, fut in jobs:
        res = fut.result()
        setattr(c, 'fused' if fused else 'raw', res['cyc_iter'] if res['ok'] else None)
        check(res['ok'], f'{c.row.id} {c.keybits} {c.size} B on {c.mcpu}: llvm-mca: {res.get("why")}')
    slices = kernel_slices(cells, kernels, runner, check)
    report(cells, slices, runner)
    where_ran(args, build, cells, check)
    if args.profile:
        profile(args, build, cells)
    structure(cells, check)
    runner.prune()
    if args.check or problems:
        for p in problems:
            print(f'# FAIL: {p}')
        print(f'whole-call check: {checks[0] - len(problems)} passed, {len(problems)} failed')
    return 1 if problems and args.check else 0


def objects(args):
    """profile.py's placement of the loaded files, with the LLVM tools beside llvm-objdump."""
    import profile as wprofile
    tool = os.path.join(os.path.dirname(args.objdump), '') if os.path.sep in args.objdump else ''
    suffix = args.objdump.rsplit('llvm-objdump', 1)[-1]
    return wprofile, wprofile.Objects(tool + 'llvm-readelf' + suffix, tool + 'llvm-nm' + suffix)


def loaded_files(build, row):
    """Every file the row's driver may execute: itself, its libraries, the sysroot's libc."""
    exe, files, _, sysroot = build.runtime(row)
    t = TOOLS[row.target]
    libc = [os.path.join(sysroot, d, 'libc.so.6') for d in ('lib', 'usr/lib', 'lib/' + t['multiarch'])]
    return [exe] + files + [x for x in libc if os.path.exists(x) and x not in files]


def where_ran(args, build, cells, check):
    """Proof that the preloaded rows ran in libstitchgcm and the real-library rows did not:
    each cell's instructions by the loaded file they came from (profile.py places the files
    by their instruction words; the trace has no load addresses)."""
    want = [c for c in cells if c.row.preload or c.row.impl == 'nettle']
    if not want:
        return
    _, objs = objects(args)
    for c in want:
        shares = objs.shares(loaded_files(build, c.row), c.seq)
        c.ours = sum(n for f, n in shares.items() if f.startswith('libstitchgcm')) / max(len(c.seq), 1)
        c.theirs = sum(n for f, n in shares.items() if f.startswith('libnettle')) / max(len(c.seq), 1)
        c.shares = shares
        what = f'{c.row.id} AES-{c.keybits} {c.size} B -cpu {c.qcpu}'
        if c.row.preload:
            # the rest is the driver's side of the calls (impl-nettle.c, the PLT)
            check(c.ours >= 0.5 and c.theirs == 0, f'{what}: preloaded, but {c.ours:.0%} of the '
                  f'instructions in libstitchgcm, {c.theirs:.0%} in libnettle')
        else:
            check(c.ours == 0 and c.theirs >= 0.5, f'{what}: real nettle, but {c.ours:.0%} of the '
                  f'instructions in libstitchgcm, {c.theirs:.0%} in libnettle')
    print('\n# where the instructions ran (share of each call\'s instructions in libstitchgcm / '
          'in libnettle; the rest: the driver\'s calls, PLT, libc):')
    grid(want, lambda c: f'{c.ours:.0%} / {c.theirs:.0%}')


def profile(args, build, cells):
    """--profile: each selected cell's cycles by function (fused stream, the cell's CPU)."""
    wprofile, objs = objects(args)
    want = {tuple(map(int, x.split(':'))) for x in args.profile.split(',')}
    for c in cells:
        if (c.keybits, c.size) not in want:
            continue
        placed = objs.place(loaded_files(build, c.row), c.seq)
        target = ma.TARGETS[c.row.target]
        retire = wprofile.retire_cycles(args.mca, target['triple'], target['mattr'], c.mcpu,
                                        '\n'.join(lines_of(c.seq, True)) + '\n')
        wprofile.report(c, placed, retire, f'{c.row.id} AES-{c.keybits} {c.size} B on {c.mcpu} (fused)')


def kernel_slices(cells, kernels, runner, check):
    """The cross-check of the largest stitchgcm message against the loop model."""
    out = []
    for c in cells:
        if not c.row.impl.startswith('stitchgcm/') or c.size != max(c.row.sizes) or c.size < 4096:
            continue
        kernels.load(c.row.target, c.row.target == 'a64' and kernels.args.lib_a64 or kernels.args.lib_a32)
        loop = wtrace.steady_loop(c.seq, ma.is_branch)
        if not check(loop is not None, f'{c.row.id} {c.keybits} {c.size} B: no steady-state loop in the trace'):
            continue
        first, last, iters, n = loop
        r = kernels.find(c.row.target, lines_of(c.seq[first:first + n], False))
        if not check(r is not None, f'{c.row.id} {c.keybits} {c.size} B: the traced loop ({n} insns) is '
                     'no kernel loop of model-arm.sh'):
            continue
        s = types.SimpleNamespace(cell=c, kernel=r.row.id, iters=iters, n=n, share=n * iters / len(c.seq),
                                  bpi=r.row.bytes)
        for kind, body in (('raw', r.raw), ('fused', r.fused)):
            # the loop's share: the whole stream's cycles minus those of the stream without
            # the loop's iterations (the call's setup and tail joined)
            whole = [mca_stream(runner, c.seq, c.row.target, c.mcpu, kind == 'fused'),
                     mca_stream(runner, c.seq[:first] + c.seq[last + 1:], c.row.target, c.mcpu, kind == 'fused')]
            lm = kernels.runner.run('\n'.join(body) + '\n', c.row.target, c.mcpu, 500)
            if not all(x['ok'] for x in whole + [lm]):
                check(False, f'{c.row.id}: llvm-mca failed on the loop slice')
                continue
            sl, model = whole[0]['cyc_iter'] - whole[1]['cyc_iter'], lm['cyc_iter'] * iters
            setattr(s, kind, (sl, model, lm['cyc_iter'] / r.row.bytes))
            check(abs(sl / model - 1) <= 0.02, f'{c.row.id} {c.keybits} {c.size} B on {c.mcpu} {kind}: loop slice '
                  f'{sl:.0f} cycles vs loop model {model:.0f} ({sl / model - 1:+.1%}, limit 2%)')
        out.append(s)
    return out


def aes_bits(keybits):
    """The AES key size of a row's key bits: 160/224/288 are AES-128/192/256 + the 32-bit
    RFC 4106 salt."""
    return keybits - 32 if keybits % 64 == 32 else keybits


def fmt_cycles(c):
    if c.raw is None or c.fused is None:
        return 'n/a'
    return f'{c.raw:.0f}' if c.raw == c.fused else f'{c.raw:.0f} / {c.fused:.0f}'


def grid(cells, value):
    """Print one markdown table per (cpu, key, IV, AAD): message sizes x rows."""
    groups = {}
    for c in cells:
        groups.setdefault((c.row.target, c.mcpu, c.qcpu, c.keybits, c.row.iv, c.row.aad), []).append(c)
    for (target, mcpu, qcpu, kb, iv, aad), cs in groups.items():
        cols = list(dict.fromkeys(c.row.id for c in cs))
        sizes = sorted({c.size for c in cs})
        at = {(c.row.id, c.size): c for c in cs}
        key = f'AES-{aes_bits(kb)}' + (' + salt (RFC 4106)' if aes_bits(kb) != kb else '')
        print(f'\n{SHORT.get(mcpu, mcpu)} model (traced -cpu {qcpu}), {key}, {iv}-byte IV, {aad}-byte AAD, '
              'one call per record (entry *open: decrypt + tag check, else encrypt + 16-byte tag):')
        hdr = ['bytes'] + cols
        body = [[str(n)] + [value(at[(k, n)]) if (k, n) in at else '' for k in cols] for n in sizes]
        w = [max(len(r[i]) for r in [hdr] + body) for i in range(len(hdr))]
        print('| ' + ' | '.join(h.ljust(w[i]) for i, h in enumerate(hdr)) + ' |')
        print('|' + '|'.join('-' * (x + 2) for x in w) + '|')
        for r in body:
            print('| ' + ' | '.join(v.rjust(w[i]) if i else v.ljust(w[i]) for i, v in enumerate(r)) + ' |')


def report(cells, slices, runner):
    print(f'# whole-call model: llvm-mca {runner.version} -iterations=1 -call-latency=1 on the instruction '
          'stream of one warm call traced under qemu; cells: cycles raw / fused (AESE+AESMC)')
    grid(cells, fmt_cycles)
    print('\n# instructions per call (crypto instructions in brackets):')
    grid(cells, lambda c: f'{len(c.seq)} (' + ' '.join(f'{k.lstrip("!")}={v}' for k, v in c.crypto.items()) + ')')
    print('\n# implementations:')
    for rid, ver in dict.fromkeys((c.row.id, c.version) for c in cells):
        row = next(c.row for c in cells if c.row.id == rid)
        print(f'#   {rid}: {ver}; slot {row.entry}' + (f', {" ".join(row.env)}' if row.env else '')
              + (f'; Debian {row.release} {TOOLS[row.target]["deb"]} {row.pkg}' if row.release else ''))
    for s in slices:
        c = s.cell
        print(f'# loop cross-check {c.row.id} AES-{c.keybits} {c.size} B on {c.mcpu}: steady-state loop = '
              f'model-arm kernel {s.kernel} ({s.n} insns x {s.iters} iterations, {s.share:.0%} of the stream)')
        kinds = [k for k in ('raw', 'fused') if hasattr(s, k)]
        if len(kinds) == 2 and s.raw == s.fused:
            kinds = ['raw']                 # no AESE+AESMC pair: raw = fused
        for kind in kinds:
            sl, model, cpb = getattr(s, kind)
            print(f'#   {kind}: slice of the whole-call pricing {sl:.0f} cycles; loop model '
                  f'{cpb:.3f} c/B x {s.iters} x {s.bpi:g} B = {model:.0f} ({sl / model - 1:+.2%})')


def structure(cells, check):
    tags = {}
    for c in cells:
        tags.setdefault((c.keybits, c.row.iv, c.row.aad, c.size), set()).add(c.tag)
        rounds = {128: 10, 192: 12, 256: 14}.get(aes_bits(c.keybits), 10)
        blocks = -(-c.size // 16)
        for m, n in c.crypto.items():
            if m.startswith('!'):
                check(n == 0, f'{c.row.id} {c.keybits} {c.size} B -cpu {c.qcpu}: {n} {m[1:]} (expected none)')
            else:
                want = blocks * rounds if m == 'aese' else blocks
                check(n >= want, f'{c.row.id} {c.keybits} {c.size} B -cpu {c.qcpu}: {n} {m}, expected >= {want}')
        if c.fused is not None:
            check(len(c.seq) / 8 <= c.fused <= 4 * len(c.seq) and c.fused <= c.raw,
                  f'{c.row.id} {c.keybits} {c.size} B on {c.mcpu}: {c.fused:.0f} cycles for {len(c.seq)} insns')
    for k, v in tags.items():
        check(len(v) == 1, f'tags differ between implementations for AES-{k[0]} {k[3]} B: {sorted(v)}')
    series = {}
    for c in cells:
        series.setdefault((c.row.id, c.qcpu, c.keybits), []).append((c.size, len(c.seq)))
    for k, v in series.items():
        v.sort()
        check(all(a[1] < b[1] for a, b in zip(v, v[1:])), f'{k[0]} -cpu {k[1]} AES-{k[2]}: instruction '
              f'counts do not grow with the size: {v}')


if __name__ == '__main__':
    sys.exit(main())
