#!/usr/bin/env bash
# deps-peers.sh - one Debian release's arm64/armhf peer libraries (nettle, libgcrypt, OpenSSL)
# with that release's libc6 and libgcc-s1, unpacked into .deps/release/RELEASE/{arm64,armhf}:
# each directory is a sysroot for `qemu -L` (a newer nettle or OpenSSL needs its own glibc), so
# the whole-call model (scripts/model-arm.sh --whole-call --release RELEASE) can trace another
# release's peers on this host -- it needs Debian 12's dynamically linked qemu-user, Debian 13's
# cannot load TCG plugins. The host's own release's peers stay where scripts/deps.sh puts them.
#
# usage: scripts/deps-peers.sh RELEASE     (bookworm | trixie; scripts/deps.sh --peers RELEASE)
#
# apt-get download with a private configuration (sources, lists, cache and an empty dpkg status
# under .deps/apt-RELEASE), so the system's apt is untouched and its installed versions do not
# steer the choice: each package is the release's current one (with its -updates and -security
# suites), checked against the signed indexes by the system's Debian archive keyring.
# Idempotent: a directory whose VERSIONS lists every package is left alone.
set -euo pipefail

release=${1:-}
case $release in
  bookworm) nettle_pkg=libnettle8 ssl_pkg=libssl3 ;;
  # the 64-bit time_t transition renamed these (same sonames)
  trixie) nettle_pkg=libnettle8t64 ssl_pkg=libssl3t64 ;;
  *) echo "usage: scripts/deps-peers.sh bookworm|trixie" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/.deps/release/$release
log() { printf '[deps-peers] %s\n' "$*"; }

# per architecture: the peers the model traces, their runtime dependencies, and the loader
pkgs_arm64="$nettle_pkg libgcrypt20 libgpg-error0 $ssl_pkg zlib1g libzstd1 libc6 libgcc-s1"
pkgs_armhf="$nettle_pkg libgcrypt20 libgpg-error0 $ssl_pkg zlib1g libzstd1 libc6 libgcc-s1"

complete() { # ARCH: every package of the list is recorded in VERSIONS
  local p pkgs; pkgs=pkgs_$1
  [ -f "$out/$1/VERSIONS" ] || return 1
  for p in ${!pkgs}; do grep -q "^Package: $p Version: " "$out/$1/VERSIONS" || return 1; done
}
if complete arm64 && complete armhf; then log "$release: already in $out"; exit 0; fi

apt=$top/.deps/apt-$release
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc/preferences.d"
: >"$apt/status"
{
  for s in "$release" "$release-updates"; do
    echo "deb [arch=arm64,armhf] http://deb.debian.org/debian $s main"
  done
  echo "deb [arch=arm64,armhf] http://deb.debian.org/debian-security $release-security main"
} >"$apt/sources.list"
aopt=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts="$apt/etc/preferences.d"
      -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" -o Dir::Cache="$apt/cache"
      -o APT::Architecture=amd64 -o APT::Architectures::=arm64 -o APT::Architectures::=armhf -qq)
log "apt-get update ($release arm64/armhf, private lists in $apt)"
apt-get "${aopt[@]}" update

for arch in arm64 armhf; do
  complete "$arch" && continue
  pkgs=pkgs_$arch
  log "fetching $release's $arch ${!pkgs}"
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get "${aopt[@]}" download $(printf "%s:$arch " ${!pkgs}))
  rm -rf "${out:?}/$arch"
  mkdir -p "$out/$arch"
  for d in "$tmp"/*.deb; do
    dpkg-deb -x "$d" "$out/$arch"
    dpkg-deb -f "$d" Package Version | paste -sd' ' >>"$out/$arch/VERSIONS"
  done
  rm -rf "$tmp"
  # A merged-/usr release's packages keep everything under /usr; the /lib link comes from
  # base-files. qemu -L looks for the loader at /lib/ld-linux-*.so.*.
  for d in lib bin sbin; do
    [ -e "$out/$arch/$d" ] || [ ! -d "$out/$arch/usr/$d" ] || ln -s "usr/$d" "$out/$arch/$d"
  done
done
rm -rf "$apt"
log "$release: $(cat "$out"/arm64/VERSIONS | tr '\n' ';')"
