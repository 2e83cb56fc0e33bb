#!/usr/bin/env bash
# Builds libstitchgcm-gcrypt.so, the libgcrypt interposer: cargo builds the preload crate's
# static library, which is then linked with preload/gcrypt.map as the only version script,
# so that the gcry_cipher_* exports come out gcry_cipher_*@@GCRYPT_1.6 (libgcrypt's own
# version node: dlvsym finds them too) with any linker, and nothing else is exported (no Rust
# std, none of stitchgcm's own nettle_gcm_*/sgcm_* exports). A Rust cdylib cannot do this
# with GNU ld: rustc adds an anonymous version script of its own. The soname is the
# library's own, never libgcrypt's. Used by meson (preload/meson.build) and
# scripts/test-gcrypt.sh.
#
# usage: scripts/build-gcrypt-preload.sh CARGO_TARGET_DIR OUT.so [TRIPLE [CC...]]
#   TRIPLE: a Rust target (built with Debian's rustc, RUSTC overrides); CC: the C compiler
#   that links (default cc, or the triple's Debian cross gcc).
#   $CARGO (default cargo) is the cargo to run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
target_dir=$1 out=$2 triple=${3:-}
shift $(($# < 3 ? $# : 3))
args=(build --release -p stitchgcm-gcrypt --manifest-path "$top/Cargo.toml" --target-dir "$target_dir")
libdir=$target_dir/release cc=(cc)
if [ -n "$triple" ]; then
  args+=(--target "$triple")
  libdir=$target_dir/$triple/release
  export RUSTC=${RUSTC:-/usr/bin/rustc}
  case $triple in
    aarch64-unknown-linux-gnu) cc=(aarch64-linux-gnu-gcc) ;;
    armv7-unknown-linux-gnueabihf) cc=(arm-linux-gnueabihf-gcc) ;;
  esac
fi
[ $# -gt 0 ] && cc=("$@")
"${CARGO:-cargo}" "${args[@]}"
"${cc[@]}" -shared -o "$out" -Wl,--whole-archive "$libdir/libstitchgcm_gcrypt.a" -Wl,--no-whole-archive \
  -Wl,--version-script="$top/preload/gcrypt.map" -Wl,-soname,libstitchgcm-gcrypt.so \
  -Wl,--gc-sections -Wl,-z,relro,-z,now -Wl,--no-undefined -lgcc_s -lpthread -ldl -lm -lc
