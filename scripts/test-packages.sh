#!/usr/bin/env bash
# The Debian packages on this (amd64) host: `dpkg-buildpackage -b` in a fresh clone of HEAD
# (debian/: libstitchgcm0, libstitchgcm-dev, stitchgcm-preload; the C tests run inside the
# build and dpkg-gensymbols checks the exports against the symbols files), lintian
# (--pedantic, info tags too; every override carries its reason), then the packages installed
# into a clean root of this host's release, Debian 12 or 13 (scripts/roots.sh; on a Debian 13
# host scripts/test-distro.sh trixie --only packages), and debian/tests/smoke run there: a
# pkg-config consumer, stitchgcm-run --check on a nettle+libgcrypt program, GnuTLS over
# loopback through stitchgcm-run. The arm64/armhf packages: scripts/test-arm-host.sh.
# Not part of scripts/test.sh (a few minutes, and a root of ~300 MB).
#
# usage: scripts/test-packages.sh [--no-deps] [--roots DIR]
#   DIR caches the clean root (default $STITCHGCM_ROOTS or ~/.cache/stitchgcm-roots).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=${STITCHGCM_ROOTS:-$HOME/.cache/stitchgcm-roots} deps=1
while [ $# -gt 0 ]; do
  case $1 in
    --no-deps) deps=0 ;;
    --roots) ROOTS=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=scripts/roots.sh
. "$top/scripts/roots.sh"
[ $deps = 1 ] && { bash "$top/scripts/deps.sh" --packaging --roots || exit 1; }
arch=$(dpkg --print-architecture)
out=$top/target/deb/$arch
logs=$top/target/deb/logs
rm -rf "$out"; mkdir -p "$out/src" "$logs"
rows=() failed=0
row() { rows+=("$(printf '%-8s %-26s %s' "$arch" "$1" "$2")"); [ "$3" = 0 ] || failed=1; }

git clone -q "$top" "$out/src/stitchgcm" && git -C "$out/src/stitchgcm" checkout -q "$(git -C "$top" rev-parse HEAD)"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] || echo "note: uncommitted changes are not in the clone"
# The NIST vectors (scripts/deps.sh) for the CAVP test in the build.
[ -d "$top/.vectors" ] && ln -s "$top/.vectors" "$out/src/stitchgcm/.vectors"
echo "building the packages (log: $logs/build-$arch.log)"
(cd "$out/src/stitchgcm" && dpkg-buildpackage -b -us -uc) >"$logs/build-$arch.log" 2>&1
rc=$?
tests=$(grep -E '^Ok: ' "$logs/build-$arch.log" | grep -Eo '[0-9]+' | tail -1)
row "dpkg-buildpackage -b" "$([ $rc = 0 ] && echo "ok, meson tests ${tests:-?} ok, symbols as debian/*.symbols" || echo FAILED)" $rc
[ $rc = 0 ] || { tail -30 "$logs/build-$arch.log"; }
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/" 2>/dev/null

if [ $rc = 0 ]; then
  lintian -I -E --pedantic --fail-on error,warning,info,pedantic "$out"/stitchgcm_*_"$arch".changes >/dev/null 2>&1
  rc=$?  # (with --show-overrides, --fail-on counts the overridden tags too)
  lintian -I -E --pedantic --show-overrides "$out"/stitchgcm_*_"$arch".changes >"$logs/lintian-$arch.log" 2>&1
  grep -v 'running with root privileges' "$logs/lintian-$arch.log" | sed 's/^/  /'
  row lintian "$([ $rc = 0 ] && echo "clean ($(grep -c '^O: ' "$logs/lintian-$arch.log") overridden tags, each explained)" || echo "tags above")" $rc
  root_base "$arch" "$(root_cache "$arch")/base" || row "clean root" FAILED 1
  root_smoke "$(root_cache "$arch")/base" "$arch" "$out" "$out/src/stitchgcm" "$logs/smoke-$arch.log"
  rc=$?
  sed -n '/^ok: \|^FAIL: \|passed, .* failed$/p' "$logs/smoke-$arch.log" | sed 's/^/  /'
  row "smoke (clean root)" "$(tail -1 "$logs/smoke-$arch.log")" $rc
fi
echo
printf '%s\n' "${rows[@]}"
ls "$out"/*.deb 2>/dev/null | sed 's|.*/|  |'
exit $failed
