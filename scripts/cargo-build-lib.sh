#!/usr/bin/env bash
# meson helper: builds the Rust library with cargo and copies it where meson expects it.
# usage: cargo-build-lib.sh <source root> <cargo target dir> <out dir> [rust target triple]
# $CARGO (default cargo) is the cargo to run (the Debian package build sets /usr/bin/cargo).
set -euo pipefail
src=$1 target_dir=$2 out=$3 triple=${4:-}
args=(build --release --lib --manifest-path "$src/Cargo.toml" --target-dir "$target_dir")
libdir="$target_dir/release"
if [ -n "$triple" ]; then
  args+=(--target "$triple")
  libdir="$target_dir/$triple/release"
  # Cross builds use Debian's rustc, which has the ARM standard libraries.
  export RUSTC=${RUSTC:-/usr/bin/rustc}
fi
"${CARGO:-cargo}" "${args[@]}"
cp -f "$libdir/libstitchgcm.so" "$out/libstitchgcm.so"
cp -f "$libdir/libstitchgcm.so" "$out/libstitchgcm.so.0"
cp -f "$libdir/libstitchgcm.a" "$out/libstitchgcm.a"
