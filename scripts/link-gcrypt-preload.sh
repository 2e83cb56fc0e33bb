#!/usr/bin/env bash
# Links libstitchgcm-gcrypt.so from the preload crate's static library, with
# preload/gcrypt.map as the only version script: the gcry_cipher_* exports come out as
# gcry_cipher_*@@GCRYPT_1.6 (libgcrypt's own version node, so dlvsym finds them too) with
# any linker, and nothing else is exported — no Rust std, none of stitchgcm's own
# nettle_gcm_*/sgcm_* exports. (A Rust cdylib cannot do this with GNU ld: rustc adds an
# anonymous version script of its own; see reference notes on symbol versioning.)
# The soname is the library's own, never libgcrypt's.
#
# usage: scripts/link-gcrypt-preload.sh CC STATICLIB OUT.so
set -euo pipefail
cc=$1 archive=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
"$cc" -shared -o "$out" -Wl,--whole-archive "$archive" -Wl,--no-whole-archive \
  -Wl,--version-script="$top/preload/gcrypt.map" -Wl,-soname,libstitchgcm-gcrypt.so \
  -Wl,--gc-sections -Wl,-z,relro,-z,now -Wl,--no-undefined -lgcc_s -lpthread -ldl -lm -lc
