#!/usr/bin/env bash
# What the libgcrypt interposer buys, measured by libgcrypt's own tool: tests/bench-slope of
# the installed libgcrypt (built by scripts/bench-slope-build.sh), every mode of `cipher aes
# aes192 aes256`, run plainly and with LD_PRELOAD=libstitchgcm-gcrypt.so, alternately, ROUNDS
# times (which one goes first alternates too). The GCM rows must show the speed-up; every other
# row is libgcrypt's own code either way, so its difference is the machine's noise, which the
# script reports alongside (each run's spread over the rounds).
#
# usage: scripts/bench-gcrypt-preload.sh [--rounds N] [--repetitions N] [ALGO...]
#   Prints the last round's two bench-slope outputs, then per row the medians over the
#   rounds (ns/B and c/B, plain and preloaded) and the speed-up. Exit 1 when a non-GCM row
#   differs by more than LIMIT percent (env, default 10) while both runs' spread is below it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rounds=5 reps=32 algos=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --repetitions) reps=$2; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) algos+=("$1") ;;
  esac
  shift
done
[ ${#algos[@]} -gt 0 ] || algos=(aes aes192 aes256)

slope=$(bash scripts/bench-slope-build.sh)
so=$top/target/release/libstitchgcm-gcrypt.so
scripts/build-gcrypt-preload.sh "$top/target" "$so" >/dev/null 2>&1 ||
  { echo "building $so failed" >&2; exit 1; }
out=$top/target/gcrypt-preload
rm -rf "$out"; mkdir -p "$out"
run() { # run plain|preloaded ROUND
  local env=()
  [ "$1" = preloaded ] && env=(LD_PRELOAD="$so")
  env "${env[@]}" "$slope" --cpu-mhz auto --repetitions "$reps" cipher "${algos[@]}" \
    >"$out/$1-$2.txt" 2>"$out/$1-$2.err" ||
    { echo "bench-slope ($1, round $2) failed:" >&2; tail -5 "$out/$1-$2.err" >&2; exit 1; }
}
backends=$(cargo run -q --release --example backends 2>/dev/null) # best first
backend=${backends%%$'\n'*}
echo "bench-slope $(pkg-config --modversion libgcrypt), plain vs LD_PRELOAD=libstitchgcm-gcrypt.so (backend ${STITCHGCM_IMPL:-$backend}); $rounds rounds, --repetitions $reps"
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds ..." >&2
  if [ $((r % 2)) = 1 ]; then run plain "$r"; run preloaded "$r"; else run preloaded "$r"; run plain "$r"; fi
done
echo
echo "=== bench-slope --cpu-mhz auto cipher ${algos[*]} (round $rounds, plain)"
cat "$out/plain-$rounds.txt"
echo
echo "=== the same with LD_PRELOAD=libstitchgcm-gcrypt.so"
cat "$out/preloaded-$rounds.txt"

python3 - "$out" "$rounds" "${LIMIT:-10}" <<'EOF'
import re, statistics, sys
out, rounds, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
row = re.compile(r'^ +(\S.*?) \| +([\d.]+) ns/B +[\d.]+ MiB/s +([\d.]+) c/B')
def parse(path):
    algo, rows = None, {}
    for line in open(path, encoding='utf-8'):
        m = re.match(r'^ (\S+) +\| +nanosecs', line)
        if m:
            algo = m.group(1)
            continue
        m = row.match(line)
        if m and algo:
            rows[(algo, m.group(1))] = (float(m.group(2)), float(m.group(3)))
    return rows
runs = {k: [parse(f'{out}/{k}-{r}.txt') for r in range(1, rounds + 1)] for k in ('plain', 'preloaded')}
def med(kind, key, i):
    return statistics.median(r[key][i] for r in runs[kind] if key in r)
def spread(kind, key):
    v = sorted(r[key][0] for r in runs[kind] if key in r)
    if len(v) < 4:
        return float('nan')
    q = statistics.quantiles(v, n=4)
    return (q[2] - q[0]) / statistics.median(v) * 100
keys = [k for k in runs['plain'][0] if all(k in r for rs in runs.values() for r in rs)]
print(f'\n=== medians over {rounds} rounds; spread = interquartile range / median (needs 4 rounds)')
print(f'{"row":<22} {"plain ns/B":>10} {"preloaded":>10} {"plain c/B":>10} {"preloaded":>10} {"speed-up":>9} {"spread":>14}')
worst, bad = 0.0, []
for k in keys:
    p, q = med('plain', k, 0), med('preloaded', k, 0)
    sp, sq = spread('plain', k), spread('preloaded', k)
    up = p / q if q else float('inf')
    gcm = k[1].startswith('GCM ')
    print(f'{k[0] + " " + k[1]:<22} {p:>10.3f} {q:>10.3f} {med("plain", k, 1):>10.3f} {med("preloaded", k, 1):>10.3f} '
          f'{up:>8.2f}x {sp:>6.0f}% {sq:>5.0f}%' + ('  <- served by stitchgcm' if gcm else ''))
    if not gcm:
        d = (q / p - 1) * 100
        worst = max(worst, abs(d))
        if abs(d) > limit and not (sp > limit or sq > limit):
            bad.append(f'{k[0]} {k[1]} {d:+.1f}%')
print(f'\nnon-GCM rows: largest difference {worst:.1f}% (limit {limit:.0f}%)')
if bad:
    print('differ beyond the limit with a steady machine: ' + ', '.join(bad))
    sys.exit(1)
EOF
