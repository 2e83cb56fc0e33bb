#!/usr/bin/env bash
# The cache footprint of one warm message (issue 15, item 4): for stitchgcm through each of its
# APIs (the handle: setiv + 13-byte AAD + encrypt + gettag; the keyed one-shot sgcm_aead_seal;
# the raw-key sgcm_seal; the nettle ABI as GnuTLS drives it; the libgcrypt interposer through
# libgcrypt's API) and for nettle, libgcrypt and OpenSSL driven the same way, the distinct
# 64-byte lines (and bytes) of code executed (the implementation's library, libc, other) and of
# data read or written (expanded key, message state, caller's buffers, stack, constants, other),
# at 16, 64, 256 and 1420 bytes, AES-128.
#
# Traced under qemu-user with a TCG plugin (scripts/footprint/mem-plugin.c) between the
# whole-call driver's markers: x86_64 under qemu-x86_64 -cpu max (backends x86_64-aesni and
# soft; x86_64-vaes needs VPCLMULQDQ, which qemu 7.2 lacks), aarch64 under qemu-aarch64
# -cpu neoverse-n1 (aarch64-ce, aarch64-neon) with Debian's arm64 peers. Method: docs/footprint.md.
#
# usage: scripts/footprint.sh [--target x86_64|aarch64|all] [--no-build] [--detail]
#                             [--sizes 16,64,256,1420] [--keys 128] [--only ROW,...]
#   --detail also lists each row's code by function, the expanded key's offsets read and
#   where the stack, constant and other bytes lie. Output also in target/footprint/footprint.txt.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
target=all build=1 args=()
while [ $# -gt 0 ]; do
  case $1 in
    --target) target=${2:?}; shift ;;
    --no-build) build=0 ;;
    *) args+=("$1") ;;
  esac
  shift
done
libs=()
if [ "$target" = x86_64 ] || [ "$target" = all ]; then
  if [ $build = 1 ]; then
    cargo build --release -q --lib
    scripts/build-gcrypt-preload.sh target target/release/libstitchgcm-gcrypt.so >/dev/null 2>&1
  fi
  libs+=(--lib-x64 target/release/libstitchgcm.so)
fi
if [ "$target" = aarch64 ] || [ "$target" = all ]; then
  t=aarch64-unknown-linux-gnu
  if [ $build = 1 ]; then
    RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian cargo build --release -q --lib --target $t
    scripts/build-gcrypt-preload.sh target/debian target/debian/$t/release/libstitchgcm-gcrypt.so $t \
      >/dev/null 2>&1
  fi
  libs+=(--lib-a64 target/debian/$t/release/libstitchgcm.so)
fi
[ ${#libs[@]} -gt 0 ] || { echo "footprint: --target x86_64, aarch64 or all" >&2; exit 2; }
mkdir -p target/footprint
python3 scripts/footprint/footprint.py "${libs[@]}" --work target/footprint ${args[@]+"${args[@]}"} |
  tee target/footprint/footprint.txt
exit "${PIPESTATUS[0]}"
