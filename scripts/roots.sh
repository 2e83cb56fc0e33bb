# Debian roots (12 or 13: $ROOT_RELEASE) for testing on other architectures without their
# hardware, and clean roots for the package smoke test (sourced by scripts/test-arm-host.sh
# and scripts/test-packages.sh). No binfmt_misc is needed: the
# first stage of debootstrap unpacks the foreign packages on the host, the second stage and
# everything after it run under proot, which starts every program of the root through
# qemu-user (`proot -q qemu-ARCH-static`; for the host's own architecture plain proot). apt
# inside gets the archive keyring by path (signed-by), which apt under proot needs. proot 5.1
# does not know statx, faccessat2, openat2, clone3: scripts/proot-syscalls.c makes them fail
# with ENOSYS so that their callers fall back to calls proot translates.
#
# $ROOTS is the cache directory (the helper is built into $ROOTS/.bin). $ROOT_RELEASE is the
# release (bookworm or trixie; default: this host's own, else bookworm).
#
#   root_cache ARCH        the directory of ARCH's roots for $ROOT_RELEASE: $ROOTS/ARCH for
#                          bookworm (the layout from before releases), else $ROOTS/RELEASE-ARCH
#   root_base ARCH DIR     debootstrap minbase $ROOT_RELEASE into DIR once (stamp DIR/.base-ok)
#   root_trust DIR ARCH    the host's local CA certificates (/usr/local/share/ca-certificates:
#                          e.g. a TLS-inspecting proxy's) into the root, so that pip and
#                          cargo there reach their registries as the host does
#   root_dpkg_resume DIR ARCH  completes a dpkg run a stopped machine cut off
#   root_copy SRC DST      DST := a fresh copy of the root SRC
#   root_run DIR ARCH CMD  runs CMD (a shell string) in the root as (fake) root, with
#                          /dev, /proc, /sys and $ROOT_BINDS ("host:guest ...") bound
set -o pipefail

ROOT_MIRROR=${ROOT_MIRROR:-http://deb.debian.org/debian}
ROOT_SECURITY=${ROOT_SECURITY:-http://deb.debian.org/debian-security}
if [ -z "${ROOT_RELEASE:-}" ]; then
  ROOT_RELEASE=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
  case $ROOT_RELEASE in bookworm | trixie) ;; *) ROOT_RELEASE=bookworm ;; esac
fi

root_cache() { # ARCH
  if [ "$ROOT_RELEASE" = bookworm ]; then echo "$ROOTS/$1"; else echo "$ROOTS/$ROOT_RELEASE-$1"; fi
}

root_qemu() { # ARCH: the qemu-user binary proot runs the root's programs with ("" = native)
  case $1 in
    "$(dpkg --print-architecture)") echo "" ;;
    arm64) echo qemu-aarch64-static ;;
    armhf) echo qemu-arm-static ;;
    amd64) echo qemu-x86_64-static ;;
    *) echo "roots.sh: no qemu for $1" >&2; return 1 ;;
  esac
}

root_proot() { # proot ARGS..., under the system call filter
  local helper=$ROOTS/.bin/proot-syscalls src
  src=$(dirname "${BASH_SOURCE[0]}")/proot-syscalls.c
  if [ ! -x "$helper" ] || [ "$src" -nt "$helper" ]; then
    mkdir -p "$ROOTS/.bin" && cc -O2 -Wall -o "$helper" "$src" || return 1
  fi
  "$helper" proot "$@"
}

root_run() { # DIR ARCH CMD...
  local dir=$1 arch=$2 q b; shift 2
  q=$(root_qemu "$arch") || return 1
  local args=(-0 -r "$dir" -w / -b /dev -b /proc -b /sys)
  [ -n "$q" ] && args=(-q "$q" "${args[@]}")
  for b in ${ROOT_BINDS:-}; do args+=(-b "$b"); done
  root_proot "${args[@]}" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive /bin/sh -c "$*"
}

root_base() { # ARCH DIR
  local arch=$1 dir=$2 q
  [ -e "$dir/.base-ok" ] && return 0
  q=$(root_qemu "$arch") || return 1
  echo "[roots] debootstrap $ROOT_RELEASE $arch into $dir (first stage on the host, second stage under ${q:-proot})"
  rm -rf "$dir"; mkdir -p "$(dirname "$dir")"
  debootstrap --foreign --arch="$arch" --variant=minbase "$ROOT_RELEASE" "$dir" "$ROOT_MIRROR" \
    >"$dir.debootstrap.log" 2>&1 || { tail -5 "$dir.debootstrap.log"; return 1; }
  local args=(-0 -r "$dir" -w /)
  [ -n "$q" ] && args=(-q "$q" "${args[@]}")
  DEBOOTSTRAP_DIR=/debootstrap root_proot "${args[@]}" /debootstrap/debootstrap --second-stage \
    >>"$dir.debootstrap.log" 2>&1 || { tail -5 "$dir.debootstrap.log"; return 1; }
  local k=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'deb [signed-by=%s] %s %s main\n' "$k" "$ROOT_MIRROR" "$ROOT_RELEASE" "$k" "$ROOT_MIRROR" "$ROOT_RELEASE-updates" \
    "$k" "$ROOT_SECURITY" "$ROOT_RELEASE-security" >"$dir/etc/apt/sources.list"
  # apt drops privileges to _apt for downloads, which proot's fake root cannot do.
  echo 'APT::Sandbox::User "root";' >"$dir/etc/apt/apt.conf.d/99proot"
  echo 'APT::Install-Recommends "false";' >>"$dir/etc/apt/apt.conf.d/99proot"
  # apt-get update fails when any one index does, e.g. a security index caught mid-sync on the
  # mirror ("File has unexpected size"): tried three times, then the indexes it got are used
  # (as apt itself does), and what cannot be installed without the missing one fails later,
  # by name.
  local try
  for try in 1 2 3; do
    root_run "$dir" "$arch" 'apt-get update -qq' >>"$dir.debootstrap.log" 2>&1 && break
    [ $try = 3 ] && { grep '^E: ' "$dir.debootstrap.log" | tail -3
                      echo "[roots] apt-get update in $dir failed three times: going on with the indexes it has"; break; }
    sleep 20
  done
  root_trust "$dir" "$arch" && touch "$dir/.base-ok"
}

root_trust() { # DIR ARCH
  local dir=$1 arch=$2 local_ca=/usr/local/share/ca-certificates c changed=0
  [ -d "$local_ca" ] || return 0
  mkdir -p "$dir$local_ca"
  for c in "$local_ca"/*.crt; do
    [ -e "$c" ] || continue
    cmp -s "$c" "$dir$c" || { cp "$c" "$dir$c"; changed=1; }
  done
  # Where ca-certificates is installed already, its store is rebuilt; otherwise its
  # installation picks the files up.
  if [ $changed = 1 ] && [ -x "$dir/usr/sbin/update-ca-certificates" ]; then
    root_run "$dir" "$arch" 'update-ca-certificates >/dev/null'
  fi
}

root_dpkg_resume() { # DIR ARCH: finish a dpkg run that was cut off (a stopped machine)
  # dpkg journals unfinished work in updates/; while anything is there apt refuses to run.
  local dir=$1 arch=$2
  [ -n "$(ls -A "$dir/var/lib/dpkg/updates" 2>/dev/null)" ] || return 0
  echo "[$arch] dpkg was interrupted in $dir: dpkg --configure -a"
  root_run "$dir" "$arch" 'dpkg --configure -a'
}

root_copy() { # SRC DST
  rm -rf "$2"
  cp -a "$1" "$2"
}

# root_smoke BASE ARCH DEBDIR SRC LOG: installs the built packages from DEBDIR (and what
# debian/tests/control's Depends line lists) into a fresh copy of the root BASE and runs
# debian/tests/smoke there from the source files it needs (SRC: a source tree). 0 if it passed.
root_smoke() {
  local base=$1 arch=$2 debs=$3 src=$4 log=$5 dir
  dir=$(dirname "$base")/smoke
  root_copy "$base" "$dir"
  mkdir -p "$dir/tmp/debs" "$dir/tmp/src"
  cp "$debs"/libstitchgcm0_*.deb "$debs"/libstitchgcm-dev_*.deb "$debs"/stitchgcm-preload_*.deb \
    "$debs"/stitchgcm-openssl-provider_*.deb "$dir/tmp/debs/"
  (cd "$src" && cp --parents debian/tests/smoke c-tests/pkgconfig_consumer.c launcher/check-target.c \
    launcher/openssl-target.c "$dir/tmp/src/")
  # The test's dependencies, first alternative of each, but for our own packages.
  local needs
  needs=$(sed -n 's/^Depends: //p' "$src/debian/tests/control" | tr ',' '\n' | sed 's/|.*//; s/ //g' |
          grep -vE '^(libstitchgcm|stitchgcm)' | paste -sd' ')
  # A root of the host's own architecture runs in a real chroot where it can (root,
  # unshare): sshd's privilege separation chroots, which proot cannot (the OpenSSH part of
  # the test says so and is not run in the emulated roots). There openssh-server is not
  # installed either: its postinst runs systemd-sysusers, which aborts under proot on armhf
  # ("Assertion 'path_is_absolute(p)' failed", Debian 13), and fails the installation.
  local chroot=0
  if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
     [ "$arch" = "$(dpkg --print-architecture 2>/dev/null)" ]; then chroot=1; fi
  [ $chroot = 1 ] || needs=$(tr ' ' '\n' <<<"$needs" | grep -vx openssh-server | paste -sd' ')
  local cmd="apt-get install -y -qq /tmp/debs/*.deb $needs >/dev/null && dpkg-query -W 'libstitchgcm*' 'stitchgcm-*' && cd /tmp/src && sh debian/tests/smoke"
  if [ $chroot = 1 ]; then
    root_chroot_run "$dir" "$cmd" >"$log" 2>&1
  else
    root_run "$dir" "$arch" "$cmd" >"$log" 2>&1
  fi
}

# root_chroot_run DIR CMD: CMD in a real chroot of DIR (the host's architecture, as root),
# /proc, /sys and /dev mounted in a private mount namespace that goes away with it. (Where
# "/" is no mount point, as in a plain chroot, it cannot be made private: propagation is then
# left as it is, safe inside a namespace that is private already, as scripts/test-distro.sh's.)
root_chroot_run() {
  local prop=private
  unshare -m --propagation private true 2>/dev/null || prop=unchanged
  unshare -m --propagation $prop sh -c 'mount -t proc proc "$1/proc" && mount -t sysfs sys "$1/sys" &&
    mount --rbind /dev "$1/dev" && exec chroot "$1" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    TERM=dumb DEBIAN_FRONTEND=noninteractive /bin/sh -c "$2"' sh "$1" "$2"
}
