#!/usr/bin/env bash
# Builds the cargo-fuzz targets in fuzz/ (libFuzzer + AddressSanitizer, debug assertions on,
# nightly toolchain) and runs each for a fixed time, as many at once as there are cores
# (FUZZ_JOBS overrides), from its committed seeds (fuzz/seeds/<target>/) plus a working corpus
# kept in target/fuzz/corpus/<target>/.
# Prints per target: executions, libFuzzer's coverage figures (cov: edges, ft: features),
# corpus size, and crashes (a crash is any divergence a target asserts, a sanitizer report,
# a timeout or running out of memory); the reproducer is left in target/fuzz/artifacts/.
#
# usage: scripts/fuzz.sh [--seconds N] [--only T1,T2] [--fresh] [--no-build] [--lint]
#                        [--work DIR] [--write-seeds | --check-seeds]
#   --seconds N     time per target (default 600)
#   --only T1,T2    these targets only (default: every target `cargo fuzz list` names)
#   --fresh         start from the seeds alone (an empty working corpus)
#   --work DIR      corpus, artifacts, logs and the binaries run under DIR (default target/fuzz)
#   --lint          also cargo fmt --check, clippy -D warnings and the unit tests of fuzz/
#   --write-seeds   regenerate fuzz/seeds/<target>/ with each target's seed generator, no run
#   --check-seeds   fail if a committed seed directory differs from what its generator makes
# Reproduce a crash: fuzz/target/x86_64-unknown-linux-gnu/release/<target> <artifact>
# (STITCHGCM_FUZZ_TRACE=1 prints the calls a target makes).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

seconds=600 only="" fresh=0 build=1 lint=0 seeds_mode="" work=target/fuzz
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift ;;
    --only) only=$2; shift ;;
    --fresh) fresh=1 ;;
    --work) work=$2; shift ;;
    --no-build) build=0 ;;
    --lint) lint=1 ;;
    --write-seeds) seeds_mode=write ;;
    --check-seeds) seeds_mode=check ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

export CARGO_TERM_COLOR=never
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz.sh: rustup's nightly toolchain is missing (cargo-fuzz needs it)" >&2; exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: cargo-fuzz is missing (scripts/deps.sh installs it)" >&2; exit 1
fi

built=fuzz/target/x86_64-unknown-linux-gnu/release
# The runs use copies, so that a rebuild while they go on changes nothing under them.
bindir=$work/bin
mkdir -p "$work/logs" "$bindir"
failed=0

if [ $lint = 1 ]; then
  if (cd fuzz && cargo +nightly fmt --check); then echo "lint fmt: ok"
  else echo "lint fmt: FAILED (fuzz/: cargo +nightly fmt)"; failed=1; fi
  if (cd fuzz && cargo +nightly clippy --all-targets -q -- -D warnings); then echo "lint clippy: ok"
  else echo "lint clippy: FAILED"; failed=1; fi
  # The fuzz crate's own unit tests (e.g. the counter-placing IVs against aes-gcm).
  if (cd fuzz && cargo +nightly test -q --lib); then echo "lint unit-tests: ok"
  else echo "lint unit-tests: FAILED"; failed=1; fi
fi

if [ -n "$only" ]; then
  IFS=, read -r -a targets <<<"$only"
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no targets" >&2; exit 1; }

if [ $build = 1 ]; then
  echo "building ${targets[*]} (ASan, debug assertions)"
  for t in "${targets[@]}"; do
    cargo +nightly fuzz build --debug-assertions "$t" >"$work/logs/build-$t.log" 2>&1 ||
      { tail -30 "$work/logs/build-$t.log"; echo "fuzz.sh: build of $t failed" >&2; exit 1; }
  done
fi
for t in "${targets[@]}"; do
  cp "$built/$t" "$bindir/$t" || { echo "fuzz.sh: $t is not built" >&2; exit 1; }
done

# Seeds: each target writes its own when STITCHGCM_FUZZ_WRITE_SEEDS names a directory.
if [ -n "$seeds_mode" ]; then
  for t in "${targets[@]}"; do
    out=$work/seeds-new/$t
    STITCHGCM_FUZZ_WRITE_SEEDS=$out "$bindir/$t" >/dev/null 2>&1 ||
      { echo "$t: seed generator failed"; failed=1; continue; }
    if [ $seeds_mode = write ]; then
      rm -rf "fuzz/seeds/$t" && mkdir -p fuzz/seeds && cp -r "$out" "fuzz/seeds/$t"
      echo "$t: $(ls "fuzz/seeds/$t" | wc -l) seeds written to fuzz/seeds/$t"
    elif diff -r -q "$out" "fuzz/seeds/$t" >/dev/null 2>&1; then
      echo "$t: seeds current ($(ls "$out" | wc -l))"
    else
      echo "$t: fuzz/seeds/$t is not what the generator makes (scripts/fuzz.sh --write-seeds)"
      failed=1
    fi
  done
  [ $seeds_mode = write ] && exit $failed
fi

# One target per core at a time: each still gets its N seconds of one core (libFuzzer's loop
# is single-threaded), the wall time is divided by the cores. A target's row goes to a file,
# the table is printed in the targets' order.
fuzz_one() { # TARGET
  local t=$1 corpus=$work/corpus/$1 artifacts=$work/artifacts/$1 log=$work/logs/run-$1.log
  local rc execs rate last cov ft corp crashes verdict
  [ $fresh = 1 ] && rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
  echo "running $t for ${seconds}s"
  # -timeout: one input taking 30 s is a hang; -rss_limit_mb: room for ASan's quarantine.
  "$bindir/$t" "$corpus" "fuzz/seeds/$t" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=30 -rss_limit_mb=3072 -max_len=8192 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  execs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
  rate=$(grep -Eo 'stat::average_exec_per_sec: +[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n1)
  cov=$(grep -Eo 'cov: [0-9]+' <<<"$last" | grep -Eo '[0-9]+' || echo "-")
  ft=$(grep -Eo 'ft: [0-9]+' <<<"$last" | grep -Eo '[0-9]+' || echo "-")
  corp=$(grep -Eo 'corp: [0-9]+' <<<"$last" | grep -Eo '[0-9]+' || echo "-")
  if [ -z "$execs" ]; then # died before its final stats: count the progress lines' last "#N"
    execs=$(grep -Eo '^#[0-9]+' <<<"$last" | tr -d '#' || true)
  fi
  crashes=0 verdict=ok
  if [ $rc != 0 ]; then
    crashes=1 verdict="CRASH rc=$rc"
    { grep -E 'panicked at|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY|^stitchgcm:' \
        "$log" | head -6
      ls -t "$artifacts" | head -3 | sed "s|^|  artifact: $artifacts/|"; } >"$work/logs/crash-$t"
  fi
  printf '%-16s %6ss %12s %8s %7s %8s %8s %8s  %s\n' "$t" "$seconds" "${execs:-?}" \
    "${rate:-?}" "$cov" "$ft" "$corp" "$crashes" "$verdict" >"$work/logs/row-$t"
}
jobs_max=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$work/logs"
for t in "${targets[@]}"; do
  rm -f "$work/logs/row-$t" "$work/logs/crash-$t"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  fuzz_one "$t" &
done
wait
rows=()
for t in "${targets[@]}"; do
  if [ -s "$work/logs/row-$t" ]; then rows+=("$(cat "$work/logs/row-$t")"); else
    rows+=("$(printf '%-16s %6ss  no result' "$t" "$seconds")"); failed=1; fi
  [ -e "$work/logs/crash-$t" ] && { cat "$work/logs/crash-$t"; failed=1; }
done

echo
printf '%-16s %7s %12s %8s %7s %8s %8s %8s  %s\n' target time execs exec/s cov ft corpus crashes result
printf '%s\n' "${rows[@]}"
exit $failed
