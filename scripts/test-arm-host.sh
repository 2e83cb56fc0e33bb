#!/usr/bin/env bash
# The README's two commands on Debian 12 or 13 arm64 and armhf hosts, proved here without ARM
# hardware: for each architecture an emulated Debian root of RELEASE (scripts/roots.sh: debootstrap,
# then proot + qemu-user-static; no binfmt_misc), a fresh clone of HEAD inside it, and there
#   bench   scripts/bench.sh: deps.sh installs the native toolchain (no cross packages),
#           meson builds the library and the harness, bench-gcm runs against the root's own
#           nettle, libgcrypt and OpenSSL -- and must say EMULATED (it is, here);
#   test    scripts/test.sh: the native part of the matrix (lint, every backend the emulated
#           CPU runs, C tests, both drop-ins against the root's libnettle/libgcrypt, GnuTLS
#           loopback); its summary table is printed;
#   deb     deps.sh --packaging, dpkg-buildpackage -b in the clone (a native build), lintian
#           on the host (--pedantic, info tags too);
#   smoke   the packages installed into a clean copy of the root, debian/tests/smoke.
# Everything runs emulated (rustc included), so this takes hours and stays out of
# scripts/test.sh. Resumable: each step leaves a stamp with the commit it passed for and is
# skipped when that stamp matches HEAD; the roots stay cached in DIR.
#
# usage: scripts/test-arm-host.sh [bookworm|trixie] [--arch arm64|armhf]... [--roots DIR]
#                                 [--update] [--force] [--steps bench,test,deb,smoke]
#   bookworm|trixie  the release of the roots (default bookworm); their cache: DIR/ARCH for
#             bookworm, DIR/trixie-ARCH for trixie (scripts/roots.sh root_cache)
#   --update  keep the clone in the root and check out HEAD there (incremental builds)
#             instead of a fresh clone; --force: redo the steps even if their stamps match.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=${STITCHGCM_ROOTS:-$HOME/.cache/stitchgcm-roots}
arches=() update=0 force=0 steps=bench,test,deb,smoke release=bookworm
while [ $# -gt 0 ]; do
  case $1 in
    bookworm | trixie) release=$1 ;;
    --arch) arches+=("$2"); shift ;;
    --roots) ROOTS=$2; shift ;;
    --update) update=1 ;;
    --force) force=1 ;;
    --steps) steps=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#arches[@]} -gt 0 ] || arches=(arm64 armhf)
export ROOT_RELEASE=$release
# shellcheck source=scripts/roots.sh
. "$top/scripts/roots.sh"
bash "$top/scripts/deps.sh" --packaging --roots || exit 1
commit=$(git -C "$top" rev-parse HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] || echo "note: uncommitted changes are not in the clone"
rows=() failed=0
row() { rows+=("$(printf '%-9s %-6s %-6s %-8s %s' "$release" "$1" "$2" "$3" "$4")"); }
has_step() { [[ ",$steps," = *",$1,"* ]]; }
now() { date +%s; }

for arch in "${arches[@]}"; do
  dir=$(root_cache "$arch"); logs=$dir/logs stamps=$dir/stamps
  mkdir -p "$logs" "$stamps"
  base=$dir/base work=$dir/work clone=$dir/work/build/stitchgcm
  root_base "$arch" "$base" || { row "$arch" base FAILED "debootstrap (see $base.debootstrap.log)"; failed=1; continue; }
  [ -e "$work/.base-ok" ] || { echo "[$arch] work root from the base"; root_copy "$base" "$work"; }
  root_trust "$base" "$arch" && root_trust "$work" "$arch" || { row "$arch" base FAILED "CA certificates"; failed=1; continue; }
  root_dpkg_resume "$work" "$arch" || { row "$arch" base FAILED "dpkg --configure -a"; failed=1; continue; }
  if [ $update = 1 ] && [ -d "$clone/.git" ]; then
    git -C "$clone" fetch -q "$top" "$commit" && git -C "$clone" checkout -q --detach "$commit"
  elif [ "$(git -C "$clone" rev-parse HEAD 2>/dev/null)" != "$commit" ] || [ $force = 1 ]; then
    echo "[$arch] fresh clone of $commit"
    rm -rf "$clone"; mkdir -p "$(dirname "$clone")"
    git clone -q "$top" "$clone" && git -C "$clone" checkout -q --detach "$commit"
    rm -f "$stamps"/*
  fi

  # Each step: skipped when its stamp says it passed for this commit (the row then repeats
  # that run's summary), else run in the work root from the clone, logged, judged.
  done_before() { [ $force = 0 ] && [ "$(head -1 "$stamps/$1" 2>/dev/null)" = "$commit" ]; }
  again() { row "$arch" "$1" ok "$(tail -1 "$stamps/$1") (earlier run)"; }
  run() { # NAME COMMAND
    local t0 rc
    echo "[$arch] $1: $2 (log: $logs/$1.log)"
    t0=$(now)
    root_run "$work" "$arch" "cd /build/stitchgcm && $2" >"$logs/$1.log" 2>&1
    rc=$?
    minutes=$(( ($(now) - t0 + 30) / 60 ))
    return $rc
  }
  verdict() { # NAME RC SUMMARY
    if [ "$2" = 0 ]; then printf '%s\n%s\n' "$commit" "$3" >"$stamps/$1"; row "$arch" "$1" ok "$3"
    else rm -f "$stamps/$1"; row "$arch" "$1" FAILED "$3"; failed=1; fi
  }

  if ! has_step bench; then :
  elif done_before bench; then again bench
  else
    run bench "scripts/bench.sh"; rc=$?
    banner=$(grep -c '^\*\*\* EMULATED' "$logs/bench.log")
    [ "$banner" -gt 0 ] || rc=1
    verdict bench $rc "$(grep -c '^check .* OK' "$logs/bench.log") implementations checked OK, EMULATED banner $([ "$banner" -gt 0 ] && echo shown || echo MISSING), $minutes min"
    [ $rc = 0 ] || tail -20 "$logs/bench.log"
  fi

  if ! has_step test; then :
  elif done_before test; then again test
  else
    run test "scripts/test.sh"; rc=$?
    verdict test $rc "$(tail -1 "$logs/test.log"), $minutes min"
  fi
  if has_step test && [ -e "$logs/test.log" ]; then
    echo "[$arch] scripts/test.sh summary:"; sed -n '/^=== summary/,$p' "$logs/test.log"
  fi

  debs=$dir/debs
  if ! has_step deb; then :
  elif done_before deb; then again deb
  else
    run deb "bash scripts/deps.sh --packaging && rm -f ../*.deb ../*.changes ../*.buildinfo && dpkg-buildpackage -b -us -uc"
    rc=$?
    if [ $rc = 0 ]; then
      rm -rf "$debs"; mkdir -p "$debs"
      cp "$clone"/../*.deb "$clone"/../*.changes "$clone"/../*.buildinfo "$debs/"
      lintian -I -E --pedantic --fail-on error,warning,info,pedantic "$debs"/stitchgcm_*_"$arch".changes >/dev/null 2>&1
      rc=$?  # (with --show-overrides, --fail-on counts the overridden tags too)
      lintian -I -E --pedantic --show-overrides "$debs"/stitchgcm_*_"$arch".changes >"$logs/lintian.log" 2>&1
      grep -v 'running with root privileges' "$logs/lintian.log" | sed 's/^/  /'
      verdict deb $rc "$(cd "$debs" && ls ./*.deb | grep -vc dbgsym) packages (+dbgsym), meson tests $(grep -E '^Ok: ' "$logs/deb.log" | grep -Eo '[0-9]+' | tail -1) ok, lintian $([ $rc = 0 ] && echo "clean, $(grep -c '^O: ' "$logs/lintian.log") explained overrides" || echo TAGS), $minutes min"
    else verdict deb 1 "dpkg-buildpackage failed"; tail -30 "$logs/deb.log"; fi
  fi

  if ! has_step smoke; then :
  elif done_before smoke; then again smoke
  elif ! ls "$debs"/stitchgcm-preload_*.deb >/dev/null 2>&1; then verdict smoke 1 "no packages built"
  else
    echo "[$arch] smoke: the packages in a clean root (log: $logs/smoke.log)"
    t0=$(now)
    root_smoke "$base" "$arch" "$debs" "$clone" "$logs/smoke.log"
    rc=$?
    sed -n '/^ok: \|^FAIL: /p' "$logs/smoke.log" | sed 's/^/  /'
    verdict smoke $rc "$(tail -1 "$logs/smoke.log"), $(( ($(now) - t0 + 30) / 60 )) min"
  fi
done

echo
echo "test-arm-host.sh $release summary ($commit)"
printf '%s\n' "${rows[@]}"
exit $failed
