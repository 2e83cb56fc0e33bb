#!/usr/bin/env bash
# nettle alone vs nettle with stitchgcm preloaded, on this machine (x86_64), in one run:
# bench/nettle-preload.c times TLS records the way GnuTLS makes them through nettle's API
# (bench/gcm/impl-nettle.c's seal_gnutls / open_gnutls: gcm_aesNNN_set_iv, _update, the
# generic gcm_encrypt or gcm_decrypt with nettle_aesNNN_encrypt, _digest, and on decryption
# the constant-time tag compare), AES-128 and AES-256, 16 B to 64 KiB. It runs alternately
# without and with LD_PRELOAD=libstitchgcm.so (three rounds, best kept, so a slow period of
# the shared machine has to cover all three rounds of one side to show), and the two are
# printed side by side with the speed-up (nettle's ns/B over stitchgcm's), after the CPU
# model and the backend stitchgcm chose, and the clock (bench/gcm/chain.h: a chain of
# dependent register adds, cross-checked by a chain of imuls, and the TSC rate; the
# cycles per byte are ns/B times the add chain's rate, the best of the rounds).
# usage: scripts/bench-nettle.sh [--no-build]
#   STITCHGCM_IMPL=<backend> forces stitchgcm's backend (examples/backends lists them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/target/bench-nettle
mkdir -p "$out"
if [ "${1:-}" != --no-build ]; then
  cargo build --release -q --lib --example backends
fi
lib=$top/target/release/libstitchgcm.so
[ -f "$lib" ] || { echo "bench-nettle: $lib not built" >&2; exit 2; }
gcc -O2 -Wall -Wextra -Werror $(pkg-config --cflags nettle) -Ibench -o "$out/nettle-preload" \
  bench/nettle-preload.c bench/gcm/impl-nettle.c $(pkg-config --libs nettle) -ldl
for round in 1 2 3; do
  "$out/nettle-preload" >"$out/plain-$round.txt"
  LD_PRELOAD=$lib "$out/nettle-preload" >"$out/preload-$round.txt"
done
# The preloaded runs must have reached stitchgcm (the program labels itself by where
# nettle_gcm_aes128_encrypt resolved), the plain ones libnettle.
grep -qx 'label nettle' "$out/plain-1.txt" && grep -qx 'label nettle->stitchgcm' "$out/preload-1.txt" ||
  { echo "bench-nettle: the preload did not take (or the plain run was interposed)" >&2; exit 1; }
backend=${STITCHGCM_IMPL:-$("$top/target/release/examples/backends" | sed -n 1p)}
echo "nettle $(pkg-config --modversion nettle) alone vs with LD_PRELOAD=libstitchgcm.so (backend: $backend)"
echo "$(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); ns per byte, best of 3 rounds"
python3 - "$out" <<'PY'
import sys, glob, collections
out = sys.argv[1]
def load(kind):
    best = collections.OrderedDict()
    for f in sorted(glob.glob(f"{out}/{kind}-*.txt")):
        for line in open(f):
            if line.startswith('label '):
                continue
            if line.startswith('clock '):
                clocks.append([float(x) for x in line.split()[1:]])
                continue
            case, size, v = line.split()
            key = (case, int(size))
            best[key] = min(best.get(key, 1e30), float(v))
    return best
clocks = []
plain, pre = load("plain"), load("preload")
ghz = max(c[0] for c in clocks)
imul = max(c[1] for c in clocks)
tsc = max(c[2] for c in clocks)
line = f"clock {ghz:.2f} GHz (dependent register adds)"
if imul > 0:
    line += f", {imul:.2f} GHz (dependent imuls), TSC {tsc:.3f} GHz"
    if abs(ghz / imul - 1) > 0.05:
        line += " -- WARNING: the two chains disagree, c/B suspect"
print(line)
print(f"{'case':<20} {'bytes':>6} {'nettle ns/B':>12} {'+stitchgcm':>11} {'speed-up':>9}"
      f" {'nettle c/B':>11} {'+stitchgcm':>11}")
for key, p in plain.items():
    s = pre[key]
    print(f"{key[0]:<20} {key[1]:>6} {p:>12.3f} {s:>11.3f} {p / s:>8.2f}x"
          f" {p * ghz:>11.3f} {s * ghz:>11.3f}")
PY
