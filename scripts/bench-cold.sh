#!/usr/bin/env bash
# The caches-disturbed TLS records (bench-gcm's "GCM enc aad13 cold" rows, bench/gcm/cold.c)
# next to the warm ones, in alternating rounds: on a shared machine one run's figures move by
# 10-20%, so this runs every implementation ROUNDS times, each round running them one after
# the other in its own bench-gcm process (--only =LABEL), the order reversed every other
# round, and reports per implementation and size the medians over the rounds of the warm and
# the cold cycles per message, the cold penalty (cold - warm), each implementation's ratio to
# REF (default nettle) taken within each round and then the median over the rounds (paired:
# seconds apart, so load hits both alike), and each row's own spread over the rounds
# (interquartile range / median), which says how noisy the machine was.
#
# usage: scripts/bench-cold.sh [--rounds N] [--repetitions N] [--cold-mb N] [--algo aes]
#                              [--ref LABEL] [--build DIR]
# Output: the side-by-side tables of a first run with every implementation (bench-gcm's own
# format), then the rounds' table. Files in target/bench-cold/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

rounds=7 reps=32 cold_mb=4 algo=aes ref=nettle build=build
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --repetitions) reps=$2; shift ;;
    --cold-mb) cold_mb=$2; shift ;;
    --algo) algo=$2; shift ;;
    --ref) ref=$2; shift ;;
    --build) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -d "$build/meson-private" ] || meson setup "$build" >/dev/null
nice -n 5 ninja -C "$build" bench/bench-gcm >/dev/null
out=$top/target/bench-cold
rm -rf "$out"; mkdir -p "$out"
sets="GCM enc aad13,GCM enc aad13 cold"
bench() { # label (or "" for all) -> CSV on stdout
  "$build/bench/bench-gcm" ${1:+--only "=$1"} --no-slope --rowsets "$sets" --algo "$algo" \
    --repetitions "$reps" --cold-mb "$cold_mb" --out "$out" "${@:2}" 2>/dev/null
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
bench "" | tee "$out/side-by-side.txt"
mapfile -t labels < <(sed -n 's/^implementations: //p' "$out/side-by-side.txt" | tr ' ' '\n')
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds ..." >&2
  order=("${labels[@]}")
  if [ $((r % 2)) = 0 ]; then
    order=(); for ((i = ${#labels[@]} - 1; i >= 0; i--)); do order+=("${labels[i]}"); done
  fi
  for l in "${order[@]}"; do bench "$l" --csv | grep '^tcrypt,' >>"$out/round-$r.csv"; done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "$rounds" "$ref" "${labels[@]}" <<'EOF'
import csv, statistics, sys
out, rounds, ref, labels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
# per round: {(label, mode, algo, bytes): cycles}
runs = []
for r in range(1, rounds + 1):
    d = {}
    for f in csv.reader(open(f'{out}/round-{r}.csv')):
        d[(f[3], f[2], f[1], int(f[4]))] = float(f[7])
    runs.append(d)
def med(v):
    return statistics.median(v) if v else float('nan')
def spread(v):
    if len(v) < 4:
        return float('nan')
    q = statistics.quantiles(v, n=4)
    return (q[2] - q[0]) / statistics.median(v) * 100
algos = sorted({k[2] for d in runs for k in d})
sizes = sorted({k[3] for d in runs for k in d})
print(f'\n=== {rounds} alternating rounds, one bench-gcm process per implementation and round; cycles per message,'
      f'\n    medians over the rounds; "x {ref}": the ratio to {ref} within each round, median over the rounds;'
      f'\n    spread: interquartile range / median over the rounds (warm | cold)')
w = max(len(l) for l in labels)
worst = 0.0
for a in algos:
    print(f'\n{a}, TLS record (13-byte AAD)')
    print(f'{"implementation":<{w}} {"bytes":>5} | {"warm":>7} {"cold":>7} {"penalty":>8} | '
          f'{"warm x " + ref:>12} {"cold x " + ref:>12} | {"spread":>13}')
    for l in labels:
        for n in sizes:
            warm = [d[(l, 'GCM enc aad13', a, n)] for d in runs if (l, 'GCM enc aad13', a, n) in d]
            cold = [d[(l, 'GCM enc aad13 cold', a, n)] for d in runs if (l, 'GCM enc aad13 cold', a, n) in d]
            if not cold:
                continue
            def paired(mode):
                return med([d[(l, mode, a, n)] / d[(ref, mode, a, n)] for d in runs
                            if (l, mode, a, n) in d and (ref, mode, a, n) in d])
            sw, sc = spread(warm), spread(cold)
            worst = max(worst, sw if sw == sw else 0, sc if sc == sc else 0)
            print(f'{l:<{w}} {n:>5} | {med(warm):>7.0f} {med(cold):>7.0f} {med(cold) - med(warm):>+8.0f} | '
                  f'{paired("GCM enc aad13"):>11.2f}x {paired("GCM enc aad13 cold"):>11.2f}x | '
                  f'{sw:>5.0f}% {sc:>5.0f}%')
print(f'\nlargest spread of a row over the rounds: {worst:.0f}% '
      f'(load now {open("/proc/loadavg").read().split()[0]})')
EOF
