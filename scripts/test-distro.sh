#!/usr/bin/env bash
# Both README commands from a fresh clone on a fresh Debian release, amd64: builds a plain
# `debootstrap` root of RELEASE (once; cached), copies a clone of the current commit into it
# and runs scripts/bench.sh, then scripts/test.sh, inside it with chroot, printing each one's
# summary. It proves that deps.sh knows the release's package names and that nothing depends
# on what the development host happens to have (rustup, an earlier .deps/ or .vectors/).
# Not part of scripts/test.sh (the default suite): a first run downloads a root and the
# whole toolchain, and test.sh inside takes as long as it does on the host.
#
# usage: scripts/test-distro.sh RELEASE [--dir DIR] [--fresh] [--only deps|bench|test|packages]
#                               [-- ARGS]
#   RELEASE   bookworm | trixie
#   --dir     where roots are kept (default target/distro): DIR/RELEASE, DIR/RELEASE.base.tar
#             (the pristine root), DIR/RELEASE-logs/
#   --fresh   start again from the pristine root (the default reuses the root as the last run
#             left it, installed packages included: quick, but deps.sh then installs nothing)
#   --only    one step: deps (scripts/deps.sh alone), bench, test, or packages
#             (scripts/test-packages.sh: dpkg-buildpackage, lintian, the smoke test in a clean
#             root of RELEASE made inside this one) (default: bench then test, as the README
#             says; each runs deps.sh first, like a new user's)
#   -- ARGS   passed to the step's script with --only (e.g. `--only test -- --only aarch64`)
# Needs root (debootstrap, chroot, mounts). The mounts (/proc, /sys, /dev, /dev/pts,
# /dev/shm) are made in a private mount namespace (unshare), so they go away with it, also
# when the run is interrupted. The uncommitted state of the work tree is not copied.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

release="" dir=$top/target/distro fresh=0 only="" extra=""
while [ $# -gt 0 ]; do
  case $1 in
    bookworm | trixie) release=$1 ;;
    --dir) dir=$2; shift ;;
    --fresh) fresh=1 ;;
    --only) only=$2; shift ;;
    --) shift; extra=$(printf ' %q' "$@"); break ;;
    *) echo "usage: scripts/test-distro.sh bookworm|trixie [--dir DIR] [--fresh] [--only deps|bench|test|packages]" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$release" ] || { echo "test-distro.sh: which release? bookworm or trixie" >&2; exit 2; }
case $only in "" | deps | bench | test | packages) ;; *) echo "test-distro.sh: --only deps|bench|test|packages" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "test-distro.sh: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
[ "$(dpkg --print-architecture)" = amd64 ] ||
  { echo "test-distro.sh: amd64 hosts only (ARM hosts: scripts/test-arm-host.sh)" >&2; exit 1; }

MIRROR=${ROOT_MIRROR:-http://deb.debian.org/debian}
SECURITY=${ROOT_SECURITY:-http://deb.debian.org/debian-security}
root=$dir/$release base=$dir/$release.base.tar logs=$dir/$release-logs
mkdir -p "$dir" "$logs"
log() { printf '[test-distro %s] %s\n' "$release" "$*"; }

if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing debootstrap"
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# The pristine root: debootstrap's default variant (what a minimal installed system has, apt
# included), with the sources a Debian installer writes (the release, its -updates and
# -security), kept as a tar so that --fresh costs an unpack, not a download.
if [ ! -e "$base" ]; then
  log "debootstrap $release into $root (a few minutes)"
  rm -rf "$root" "$root.tmp"
  debootstrap --arch=amd64 "$release" "$root.tmp" "$MIRROR" >"$logs/debootstrap.log" 2>&1 ||
    { tail -5 "$logs/debootstrap.log"; exit 1; }
  printf 'deb %s %s main\n' "$MIRROR" "$release" "$MIRROR" "$release-updates" >"$root.tmp/etc/apt/sources.list"
  printf 'deb %s %s-security main\n' "$SECURITY" "$release" >>"$root.tmp/etc/apt/sources.list"
  tar -C "$root.tmp" -cf "$base.tmp" . && mv "$base.tmp" "$base"
  mv "$root.tmp" "$root"
elif [ $fresh = 1 ] || [ ! -d "$root/usr" ]; then
  log "fresh root from $base"
  rm -rf "$root"; mkdir -p "$root"
  tar -C "$root" -xf "$base"
fi

# The host's local CA certificates (a TLS-inspecting egress proxy's, say), so that pip and
# cargo in the root reach PyPI and crates.io as the host does; installing ca-certificates
# (pulled in by python3-pip) picks them up, an installed one is refreshed below.
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

# A clone of the current commit (not the work tree's uncommitted changes) where a user would
# have one; .deps/, .vectors/ and target/ are not in it, so deps.sh and the build start cold.
commit=$(git -C "$top" rev-parse HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
  log "note: uncommitted changes in $top are not part of the run (commit $commit)"
if [ "$(git -C "$root/root/stitchgcm" rev-parse HEAD 2>/dev/null || true)" != "$commit" ] || [ $fresh = 1 ]; then
  rm -rf "$root/root/stitchgcm"
  git clone -q --no-hardlinks "$top" "$root/root/stitchgcm"
  git -C "$root/root/stitchgcm" checkout -q --detach "$commit"
fi
log "commit $(git -C "$top" log -1 --format='%h %s' | cut -c1-80)"

# in_root CMD: CMD (a shell string) as root in the root, a clean environment, the clone as
# its working directory, with the kernel file systems mounted in a private namespace. The
# root is first bound onto itself so that its "/" is a mount point, as a host's is: a
# program that makes a mount namespace of its own (the suite's sshd) can then make "/"
# private there ("unshare -m" fails with EINVAL on a plain directory).
in_root() {
  unshare --mount --propagation private -- /bin/sh -ec '
    r=$1; shift
    mount --bind "$r" "$r"
    mount -t proc proc "$r/proc"
    mount -t sysfs sys "$r/sys"
    mount --bind /dev "$r/dev"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts" 2>/dev/null || mount --bind /dev/pts "$r/dev/pts"
    mount -t tmpfs shm "$r/dev/shm"
    exec chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      /bin/bash -c "cd /root/stitchgcm && { [ ! -x /usr/sbin/update-ca-certificates ] || update-ca-certificates >/dev/null; } && $1"
  ' in_root "$root" "$1"
}

rc_all=0
run_step() { # NAME CMD SUMMARY-FILTER...
  local name=$1 cmd=$2 rc=0 t0; shift 2
  log "$cmd (log: $logs/$name.log)"
  t0=$(date +%s)
  in_root "$cmd" >"$logs/$name.log" 2>&1 || rc=$?
  log "$name: exit $rc after $(( $(date +%s) - t0 ))s"
  "$@" <"$logs/$name.log" || true
  [ $rc = 0 ] || { tail -20 "$logs/$name.log"; rc_all=1; }
}
# Summaries: deps.sh's toolchain line; bench-gcm's header and its per-implementation checks;
# test.sh's table from its summary heading on.
deps_summary() { grep -E '^\[deps\] (Debian.s Rust toolchain|ok)|^E:|deps.sh:'; }
bench_summary() { grep -E '^\[deps\] Debian.s Rust|^(bench-gcm|implementations):|^check |EMULATED|FAIL' | head -40; }
test_summary() { sed -n '/^=== summary/,$p'; }
packages_summary() { grep -vE '^\[(deps|roots)\]' | tail -12; }

in_root 'grep PRETTY_NAME /etc/os-release'
case $only in
  deps) run_step deps "bash scripts/deps.sh$extra" deps_summary ;;
  bench) run_step bench "scripts/bench.sh$extra" bench_summary ;;
  test) run_step test "scripts/test.sh$extra" test_summary ;;
  packages) run_step packages "bash scripts/test-packages.sh$extra" packages_summary ;;
  "") run_step bench 'scripts/bench.sh' bench_summary
      run_step test 'scripts/test.sh' test_summary ;;
esac
exit $rc_all
