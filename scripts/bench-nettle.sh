#!/usr/bin/env bash
# nettle alone vs nettle with stitchgcm preloaded, on this machine (x86_64), in one run:
# bench/nettle-preload.c times GnuTLS-style TLS records through nettle's API; it runs
# alternately without and with LD_PRELOAD=libstitchgcm.so (three rounds, best kept) and the
# two are printed side by side with the speed-up.
# usage: scripts/bench-nettle.sh [--no-build]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/target/bench-nettle
mkdir -p "$out"
if [ "${1:-}" != --no-build ]; then
  cargo build --release -q --lib --example backends
fi
lib=$top/target/release/libstitchgcm.so
gcc -O2 -Wall $(pkg-config --cflags nettle) -o "$out/nettle-preload" bench/nettle-preload.c \
  $(pkg-config --libs nettle)
for round in 1 2 3; do
  "$out/nettle-preload" >"$out/plain-$round.txt"
  LD_PRELOAD=$lib "$out/nettle-preload" >"$out/preload-$round.txt"
done
backend=${STITCHGCM_IMPL:-$("$top/target/release/examples/backends" | head -n1)}
echo "nettle $(pkg-config --modversion nettle) alone vs with LD_PRELOAD=libstitchgcm.so (backend: $backend)"
echo "$(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); ns per byte, best of 3 rounds"
python3 - "$out" <<'EOF'
import sys, glob, collections
out = sys.argv[1]
def load(kind):
    best = collections.OrderedDict()
    for f in sorted(glob.glob(f"{out}/{kind}-*.txt")):
        for line in open(f):
            case, size, v = line.split()
            key = (case, int(size))
            best[key] = min(best.get(key, 1e30), float(v))
    return best
plain, pre = load("plain"), load("preload")
print(f"{'case':<20} {'bytes':>6} {'nettle ns/B':>12} {'+stitchgcm':>11} {'speed-up':>9}")
for key, p in plain.items():
    s = pre[key]
    print(f"{key[0]:<20} {key[1]:>6} {p:>12.3f} {s:>11.3f} {p / s:>8.2f}x")
EOF
