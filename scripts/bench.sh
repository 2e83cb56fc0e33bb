#!/usr/bin/env bash
# The README's first command: installs what is missing (scripts/deps.sh), builds the library
# and the C benchmark harness with meson, and runs bench/bench-gcm -- stitchgcm (every
# backend this CPU runs, each forced in turn) next to nettle, libgcrypt and OpenSSL:
#   - bench-slope tables (GCM enc/dec/auth, ns/B, MiB/s, c/B, auto Mhz) per implementation;
#   - tcrypt-style tables (16 ... 8192-byte messages, cycles per message; TLS records);
#   - a check line per implementation (same ciphertexts and tags, known answers);
# and keeps the text, the CSV and the SVG chart in target/bench/ (bench-gcm.{txt,csv,svg}).
#
# usage: scripts/bench.sh [--no-deps] [--build DIR] [harness options...]
#   harness options: --quick, --repetitions N, --cpu-mhz auto|N, --only STR, --csv ...
#   (bench/bench-gcm --help). STITCHGCM_IMPL=<backend> narrows stitchgcm to one backend.
# A full run takes about a minute on 2 cores; scripts/bench-gcrypt-crosscheck.sh compares the
# libgcrypt rows with libgcrypt's own tests/bench-slope.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

deps=1 build=build args=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-deps) deps=0 ;;
    --build) build=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ $deps = 1 ] && bash scripts/deps.sh

{ [ -d "$build/meson-private" ] || meson setup "$build"; } >/dev/null
# The library through cargo (meson drives it), then the harness.
nice -n 5 ninja -C "$build" bench/bench-gcm >/dev/null ||
  { echo "build failed: ninja -C $build bench/bench-gcm" >&2; exit 1; }

out=$top/target/bench
mkdir -p "$out"
echo "load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bench/bench-gcm" --out "$out" ${args[@]+"${args[@]}"} | tee "$out/bench-gcm.txt"
