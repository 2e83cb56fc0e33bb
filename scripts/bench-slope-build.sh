#!/usr/bin/env bash
# Builds libgcrypt's own tests/bench-slope for the installed libgcrypt and prints the path of
# the binary (messages go to stderr). bench-slope is not in Debian's binary packages, so this
# fetches the source of the installed version (Debian's orig tarball, checked against the
# SHA-256 in the version's .dsc; gnupg.org's tarball as a fallback, checked against the same
# sum when the .dsc was found) and builds tests/bench-slope.c alone against the system
# libgcrypt (a 5-line config.h and a shim for its ../src/gcrypt.h include). The one change
# to bench-slope.c: with CROSSCHECK_GCM_ONLY set in the environment its mode loop skips
# every mode but GCM; unset, it is the pristine tool. Used by
# scripts/bench-gcrypt-crosscheck.sh and scripts/bench-gcrypt-preload.sh.
#
# usage: scripts/bench-slope-build.sh   (cached in target/gcrypt-crosscheck)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec 3>&1 1>&2 # everything but the final path to stderr
work=$top/target/gcrypt-crosscheck
mkdir -p "$work"
upstream=$(pkg-config --modversion libgcrypt)
debver=$(dpkg-query -W -f='${source:Version}' libgcrypt20 2>/dev/null || true)
tarball=libgcrypt-$upstream.tar.bz2
echo "installed libgcrypt $upstream (Debian ${debver:-?})"

fetch() {
  if command -v curl >/dev/null; then curl -sSfL --retry 2 --max-time 300 -o "$2" "$1"
  else python3 -c 'import sys, urllib.request as u; open(sys.argv[2], "wb").write(u.urlopen(sys.argv[1], timeout=300).read())' "$1" "$2"
  fi
}

if [ ! -s "$work/$tarball" ]; then
  sum=""
  if [ -n "$debver" ]; then
    pool=http://deb.debian.org/debian/pool/main/libg/libgcrypt20
    dsc=libgcrypt20_$debver.dsc
    if fetch "$pool/$dsc" "$work/$dsc" ||
       fetch "https://snapshot.debian.org/package/libgcrypt20/$debver/$dsc" "$work/$dsc" 2>/dev/null; then
      sum=$(awk '/^Checksums-Sha256:/{f=1;next} /^[^ ]/{f=0} f && $3 ~ /orig\.tar\.bz2$/ {print $1}' "$work/$dsc")
      fetch "$pool/libgcrypt20_$upstream.orig.tar.bz2" "$work/$tarball.part" || rm -f "$work/$tarball.part"
    fi
  fi
  if [ ! -s "$work/$tarball.part" ]; then
    fetch "https://gnupg.org/ftp/gcrypt/libgcrypt/$tarball" "$work/$tarball.part" ||
      { echo "cannot download the libgcrypt $upstream source" >&2; exit 1; }
  fi
  if [ -n "$sum" ]; then
    echo "$sum  $work/$tarball.part" | sha256sum -c --quiet - ||
      { echo "checksum mismatch for $tarball" >&2; exit 1; }
    echo "source: $tarball, sha256 $sum (from $dsc; the .dsc's signature is not checked)"
  else
    echo "source: $tarball (WARNING: no .dsc found, checksum not verified)"
  fi
  mv "$work/$tarball.part" "$work/$tarball"
fi

src=$work/libgcrypt-$upstream
if [ ! -x "$src/tests/bench-slope" ]; then
  tar -C "$work" -xjf "$work/$tarball" "libgcrypt-$upstream/tests/bench-slope.c" \
    "libgcrypt-$upstream/tests/t-common.h"
  mkdir -p "$src/src"
  sed -i 's/^\( *\)cipher_bench_one (algo, &cipher_modes\[i\]);/\1if (!getenv ("CROSSCHECK_GCM_ONLY") || cipher_modes[i].mode == GCRY_CIPHER_MODE_GCM)\n\1  cipher_bench_one (algo, \&cipher_modes[i]);/' \
    "$src/tests/bench-slope.c"
  grep -q CROSSCHECK_GCM_ONLY "$src/tests/bench-slope.c" ||
    { echo "could not restrict bench-slope to GCM (source changed?)" >&2; exit 1; }
  echo '#include <gcrypt.h>' >"$src/src/gcrypt.h"
  cat >"$src/tests/config.h" <<'EOF'
#define HAVE_CLOCK_GETTIME 1
#define HAVE_GCC_ASM_VOLATILE_MEMORY 1
#define _GCRYPT_CONFIG_H_INCLUDED 1
#include <stdint.h>
typedef uint64_t u64;
EOF
  (cd "$src/tests" && cc -O2 -DHAVE_CONFIG_H -I. bench-slope.c -o bench-slope \
     $(pkg-config --cflags --libs libgcrypt) -lgpg-error)
fi
echo "$src/tests/bench-slope" >&3
