#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a program against it using only
# `pkg-config --cflags --libs stitchgcm` (shared) and `--static` (static library).
# usage: test_pkgconfig.sh <build dir> <consumer.c>
set -euo pipefail
build=$1 src=$2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
pcdir=$(dirname "$(find "$dest" -name stitchgcm.pc | head -n1)")
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$pcdir
libdir=$dest$(pkg-config --variable=libdir stitchgcm | sed "s|^$dest||")
pass=0 fail=0
# shellcheck disable=SC2046
${CC:-cc} -o "$dest/consumer" "$src" $(pkg-config --cflags --libs stitchgcm)
if readelf -d "$dest/consumer" | grep -q 'NEEDED.*libstitchgcm.so.0' \
   && LD_LIBRARY_PATH=$libdir "$dest/consumer"; then pass=$((pass+1)); else fail=$((fail+1)); fi
# shellcheck disable=SC2046
${CC:-cc} -o "$dest/consumer-static" "$src" $(pkg-config --cflags stitchgcm) \
  "$libdir/libstitchgcm.a" $(pkg-config --static --libs-only-l stitchgcm | sed 's/-lstitchgcm//')
if "$dest/consumer-static"; then pass=$((pass+1)); else fail=$((fail+1)); fi
ls -l "$libdir"/libstitchgcm* "$dest$prefix"/include/stitchgcm.h >/dev/null
echo "installed under prefix $prefix: $(cd "$dest$prefix" && find . -name '*stitchgcm*' | sort | tr '\n' ' ')"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
