#!/bin/sh
# Quick check that debian/libstitchgcm0.symbols and debian/stitchgcm-preload.symbols list
# exactly what the built libraries export, names and versions (scripts/test.sh runs it, so a
# new or removed export shows without a package build; the package build itself checks the
# same with dpkg-gensymbols at level 4). On a difference: update the symbols file (a new
# symbol gets the version that first has it).
# usage: debian/symbols-current.sh LIBSTITCHGCM_SO LIBSTITCHGCM_GCRYPT_SO
set -u
export LC_ALL=C
here=$(dirname "$0")
status=0
for pair in "$1:$here/libstitchgcm0.symbols" "$2:$here/stitchgcm-preload.symbols"; do
  lib=${pair%%:*} file=${pair#*:}
  # A version node's own symbol (type A) is NODE@NODE, as dpkg-gensymbols writes it.
  got=$(nm -D --defined-only --with-symbol-versions "$lib" |
        awk '{ n = $3; if ($2 == "A" && n !~ /@/) n = n "@" n; print n }' |
        sed 's/@@*/@/; /@/!s/$/@Base/' | sort)
  want=$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$file" | sort)
  if [ "$got" = "$want" ]; then echo "$(basename "$file"): $(echo "$got" | wc -l) symbols, current"
  else
    echo "$(basename "$file") differs from $lib's exports (< in the file only, > exported only):"
    tmp=$(mktemp -d)
    printf '%s\n' "$want" >"$tmp/want"; printf '%s\n' "$got" >"$tmp/got"
    comm -23 "$tmp/want" "$tmp/got" | sed 's/^/< /'
    comm -13 "$tmp/want" "$tmp/got" | sed 's/^/> /'
    rm -rf "$tmp"
    status=1
  fi
done
exit $status
