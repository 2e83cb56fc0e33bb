#!/usr/bin/env python3
# model-arm-openssl.py - OpenSSL's AArch32 AES-GCM loops, modelled from Debian's armhf
# libcrypto.so.3 the way scripts/model-arm.py models ours (same disassembly, fusion
# emulation, llvm-mca runs and cache), for the comparison rows of the arm-ce table.
#
# OpenSSL's 32-bit GCM is two-pass: aes_v8_ctr32_encrypt_blocks (3 blocks in flight) and
# gcm_ghash_v8 (2 blocks aggregated), so its AES-GCM loop cost is the sum of the two.
# Debian strips the library and builds it as Thumb-2, so the loops are found by what
# they hold instead of by symbol, and each signature must match exactly one loop:
#   ghash2x  an innermost loop with 8 vmull.p64 and no AES (32 bytes per iteration);
#   ctr3x    a loop with 24 aese.8 and 3 rev around an inner loop that starts at the same
#            address (the two-rounds-per-pass key loop). It is flattened as OpenSSL runs
#            it: the inner loop twice (AES-128) or four times (AES-256), then the rest
#            of the outer loop (48 bytes per iteration).
# usage: model-arm-openssl.py --lib LIBCRYPTO [--mca M --objdump O --cpus A,B --cache DIR]
import argparse
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('model_arm', os.path.join(here, 'model-arm.py'))
M = importlib.util.module_from_spec(spec)
spec.loader.exec_module(M)


class Body:
    """what model_arm.body_lines needs: a list of instructions"""
    def __init__(self, insns):
        self.insns = insns


def all_loops(funcs):
    """every backward-branch loop [target, branch] inside a function, as index pairs"""
    out = []
    for f in funcs:
        idx = {ins.addr: k for k, ins in enumerate(f.insns)}
        for k, ins in enumerate(f.insns):
            if ins.target is not None and M.is_branch(ins.mnem) and ins.target <= ins.addr \
                    and ins.target in idx and M.BR32.match(ins.mnem) and ins.mnem not in ('b', 'b.w'):
                out.append((f, idx[ins.target], k))
    return out


def count(insns, prefix):
    return sum(1 for i in insns if i.mnem.startswith(prefix))


def find(funcs):
    loops = all_loops(funcs)
    innermost = lambda f, a, b: not any(g is f and a <= c <= d <= b and (c, d) != (a, b)
                                        for g, c, d in loops)
    ghash = [(f, a, b) for f, a, b in loops
             if count(f.insns[a:b + 1], 'vmull.p64') == 8 and count(f.insns[a:b + 1], 'aes') == 0
             and innermost(f, a, b)]
    ctr = []
    for f, a, b in loops:
        body = f.insns[a:b + 1]
        if count(body, 'aese') != 24 or count(body, 'rev') != 3:
            continue
        inner = [(fa, ib) for ff, fa, ib in loops if ff is f and fa == a and ib < b]
        if len(inner) == 1:
            ctr.append((f, a, inner[0][1], b))
    if len(ghash) != 1 or len(ctr) != 1:
        M.die(f'OpenSSL loops not found uniquely: {len(ghash)} GHASH 2x, {len(ctr)} CTR 3x '
              'candidates (a different OpenSSL build?)')
    return ghash[0], ctr[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--mca', default='llvm-mca-19')
    ap.add_argument('--objdump', default='llvm-objdump-19')
    ap.add_argument('--cpus', default='cortex-a57,cortex-a72')
    ap.add_argument('--cache')
    ap.add_argument('--iterations', type=int, default=M.ITERATIONS)
    args = ap.parse_args()
    cpus = args.cpus.split(',')
    funcs = M.disassemble(args.objdump, args.lib, 't32')
    (gf, ga, gb), (cf, ca, ci, cb) = find(funcs)
    inner, rest = cf.insns[ca:ci + 1], cf.insns[ci + 1:cb + 1]
    kernels = [('ghash2x', 'gcm_ghash_v8, 2 blocks aggregated', 32, gf.insns[ga:gb + 1], gf.insns[ga]),
               ('ctr3x-128', 'aes_v8_ctr32_encrypt_blocks, 3 blocks, AES-128', 48,
                inner * 2 + rest, cf.insns[ca]),
               ('ctr3x-256', 'same, AES-256', 48, inner * 4 + rest, cf.insns[ca])]
    runner = M.Runner(args.mca, args.iterations, args.cache)
    jobs, where = [], []
    for kid, _, nbytes, insns, _ in kernels:
        raw, _ = M.body_lines(Body(insns), False)
        fused, pairs = M.body_lines(Body(insns), True)
        for kind, body in [('raw', raw)] + ([('fused', fused)] if pairs else []):
            for cpu in cpus:
                jobs.append(('\n'.join(body) + '\n', 't32', cpu))
                where.append((kid, kind, cpu, nbytes))
    cpb = {}
    for (kid, kind, cpu, nbytes), res in zip(where, runner.run_all(jobs)):
        if not res['ok']:
            M.die(f'llvm-mca failed on {kid} ({cpu}): {res.get("why")}')
        cpb[(kid, kind, cpu)] = res['cyc_iter'] / nbytes
    get = lambda kid, kind, cpu: cpb.get((kid, kind, cpu), cpb.get((kid, 'raw', cpu)))
    print(f'# OpenSSL AArch32 loops from {args.lib} (Thumb-2, no symbols: found by signature); '
          'c/B raw / fused')
    print('| loop | B/iter | found at | ' + ' | '.join(M.SHORT.get(c, c) for c in cpus) + ' |')
    print('|---|---|---|' + '---|' * len(cpus))
    for kid, what, nbytes, insns, first in kernels:
        cells = []
        for cpu in cpus:
            r, f = get(kid, 'raw', cpu), get(kid, 'fused', cpu)
            cells.append(f'{r:.3f}' if abs(r - f) < 1e-9 else f'{r:.3f} / {f:.3f}')
        print(f'| openssl-{kid} ({what}) | {nbytes} | {first.addr:#x}, {len(insns)} insns | '
              + ' | '.join(cells) + ' |')
    for size in ('128', '256'):
        cells = [f'{get("ctr3x-" + size, "raw", c) + get("ghash2x", "raw", c):.3f} / '
                 f'{get("ctr3x-" + size, "fused", c) + get("ghash2x", "fused", c):.3f}' for c in cpus]
        print(f'| openssl two-pass AES-{size}-GCM (ctr3x-{size} + ghash2x) | | | '
              + ' | '.join(cells) + ' |')
    runner.prune()
    return 0


if __name__ == '__main__':
    sys.exit(main())
