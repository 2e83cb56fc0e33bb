#!/usr/bin/env bash
# Cross-checks bench/bench-gcm against libgcrypt's own tests/bench-slope: its libgcrypt rows
# must agree with bench-slope's GCM enc/dec/auth rows (same method, same library) within a
# few percent, otherwise our harness measures something else.
#
# bench-slope is built from the installed version's source by scripts/bench-slope-build.sh;
# this runs both tools ROUNDS times, alternating so that load changes hit both alike, and
# compares them row by row. A round runs, for each key size,
# bench-slope and bench-gcm back to back (which one goes first alternates between rounds), so
# load hits both alike; the verdict compares the medians over the rounds of each row. Also
# printed: the median of the per-round (paired) differences, the best rounds, and each tool's
# own spread over the rounds (interquartile range / median) -- when that spread is larger than
# the limit, the machine is too busy for the verdict to mean much. bench-slope runs with
# CROSSCHECK_GCM_ONLY set (GCM rows only), so a round takes seconds, not minutes, and many
# short alternating rounds beat a few long ones on a shared machine. bench-gcm runs its
# "libgcrypt" row only (--only =libgcrypt), not "libgcrypt->stitchgcm".
#
# usage: scripts/bench-gcrypt-crosscheck.sh [--rounds N] [--repetitions N] [--build DIR]
#   --build: the meson build directory with bench/bench-gcm (default: build; configured and
#   built if missing). Output: both tools' text tables of the last round, then
#   row | bench-slope c/B | bench-gcm c/B | ns/B delta %. Exit 1 when a row differs by more
#   than LIMIT percent (env, default 5). BENCH_GCM_ARGS (env) adds options to bench-gcm,
#   e.g. --interleaved.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

rounds=7 reps=32 build=build limit=${LIMIT:-5}
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --repetitions) reps=$2; shift ;;
    --build) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

slope_bin=$(bash scripts/bench-slope-build.sh) || exit 1
work=$top/target/gcrypt-crosscheck

if [ ! -x "$build/bench/bench-gcm" ]; then
  [ -d "$build/meson-private" ] || meson setup "$build" >/dev/null
  ninja -C "$build" bench/bench-gcm >/dev/null
fi

out=$work/out
rm -rf "$out"; mkdir -p "$out"
slope() {
  CROSSCHECK_GCM_ONLY=1 "$slope_bin" --cpu-mhz auto --repetitions "$reps" \
    cipher "$1" >>"$out/slope-$r.txt"
}
ours() {
  "$build/bench/bench-gcm" --only =libgcrypt --algo "$1" --no-tcrypt --repetitions "$reps" ${BENCH_GCM_ARGS:-} \
    --out "$out" 2>/dev/null | sed -n '/^Cipher (libgcrypt/,/^ *=$/p' >>"$out/ours-$r.txt"
}
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds ..." >&2
  for algo in aes aes192 aes256; do
    if [ $((r % 2)) = 1 ]; then slope $algo; ours $algo; else ours $algo; slope $algo; fi
  done
done

echo
echo "=== libgcrypt tests/bench-slope --cpu-mhz auto --repetitions $reps cipher aes aes192 aes256 (last round, GCM rows)"
grep -E '^Cipher:|^ AES|GCM (enc|dec|auth)|^ +=$' "$out/slope-$rounds.txt" | grep -v 'GCM-SIV'
echo
echo "=== bench/bench-gcm --only =libgcrypt --repetitions $reps (last round)"
grep -vE '^Cipher' "$out/ours-$rounds.txt"

# Text rows -> "ALGO|MODE ns cpb" lines, then medians over the rounds and the deltas.
python3 - "$out" "$rounds" "$limit" <<'EOF'
import re, statistics, sys
out, rounds, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
row = re.compile(r'^ +(GCM (?:enc|dec|auth)) \| +([\d.]+) ns/B +([\d.]+) MiB/s +([\d.]+) c/B +(\d+)')
def parse(path):
    algo, rows = None, {}
    for line in open(path, encoding='utf-8'):
        m = re.match(r'^ (AES\d*) +\|', line)
        if m:
            algo = m.group(1)
            continue
        m = row.match(line)
        if m and algo:
            rows[(algo, m.group(1))] = (float(m.group(2)), float(m.group(4)), float(m.group(5)))
    return rows
slope = [parse(f'{out}/slope-{r}.txt') for r in range(1, rounds + 1)]
ours = [parse(f'{out}/ours-{r}.txt') for r in range(1, rounds + 1)]
print(f'\n=== {rounds} rounds; "paired delta" = median over rounds of (bench-gcm / bench-slope - 1) within a round;'
      f'\n    spread = interquartile range / median of a tool\'s rounds (needs 4 rounds)')
print(f'{"":<16} {"median ns/B over rounds":>31} | {"paired":>7} | {"median c/B":>13} | {"auto Mhz":>11} | {"best round ns/B":>22} | {"spread":>13}')
print(f'{"row":<16} {"bench-slope":>11} {"bench-gcm":>11} {"delta":>7} | {"delta":>7} | {"slope":>6} {"gcm":>6} | {"slope":>5} {"gcm":>5} | {"slope":>6} {"gcm":>6} {"delta":>7} | {"slope":>6} {"gcm":>6}')
worst = 0
noise = 0.0
for key in sorted(slope[0], key=lambda k: (k[0], ['GCM enc', 'GCM dec', 'GCM auth'].index(k[1]))):
    a = [s[key] for s in slope if key in s]
    b = [o[key] for o in ours if key in o]
    if not b:
        print(f'{key[0]+" "+key[1]:<16} missing in bench-gcm'); worst = 1e9; continue
    med = lambda v, i: statistics.median(x[i] for x in v)
    d = (med(b, 0) / med(a, 0) - 1) * 100
    # paired: same round, seconds apart
    pd = statistics.median((o[key][0] / s[key][0] - 1) * 100
                           for s, o in zip(slope, ours) if key in s and key in o)
    def spread(v):
        if len(v) < 4: return float('nan')
        q = statistics.quantiles([x[0] for x in v], n=4)
        return (q[2] - q[0]) / statistics.median(x[0] for x in v) * 100
    noise = max(noise, spread(a), spread(b))
    worst = max(worst, abs(d))
    lo_a, lo_b = min(x[0] for x in a), min(x[0] for x in b)
    print(f'{key[0]+" "+key[1]:<16} {med(a,0):>11.3f} {med(b,0):>11.3f} {d:>+6.1f}% | {pd:>+6.1f}% | '
          f'{med(a,1):>6.3f} {med(b,1):>6.3f} | {med(a,2):>5.0f} {med(b,2):>5.0f} | '
          f'{lo_a:>6.3f} {lo_b:>6.3f} {(lo_b / lo_a - 1) * 100:>+6.1f}% | '
          f'{spread(a):>5.0f}% {spread(b):>5.0f}%')
print(f'\nlargest difference of the medians {worst:.1f}% (limit {limit:.0f}%): {"OK" if worst <= limit else "TOO FAR"}')
if noise > limit:
    print(f'note: the rounds themselves spread by up to {noise:.0f}% (load {open("/proc/loadavg").read().split()[0]}): '
          f'too busy a machine to confirm agreement within {limit:.0f}%; rerun when it is quiet or with more --rounds')
sys.exit(0 if worst <= limit else 1)
EOF
