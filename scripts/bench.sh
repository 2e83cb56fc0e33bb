#!/usr/bin/env bash
# Builds the library and runs the benchmark.
# Today: the Rust criterion benchmark of every backend this CPU runs. The side-by-side
# bench-slope C harness against nettle, libgcrypt and OpenSSL replaces it (issue 6).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ "${1:-}" = --no-deps ] || bash scripts/deps.sh
cargo build --release --lib
cargo bench -p stitchgcm-bench --bench gcm -- --noplot
