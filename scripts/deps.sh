#!/usr/bin/env bash
# Installs everything stitchgcm needs on a fresh Debian 12 (bookworm) machine: x86_64 (the
# development host: cross builds and qemu for ARM) or an arm64/armhf host (native builds
# only: Debian's rustc-web, cargo-web and rustfmt-web, no cross packages, no models).
# Idempotent: every step checks whether its result is already there.
#
# usage: scripts/deps.sh [--packaging] [--roots]
#   --packaging  also what `dpkg-buildpackage -b` needs (debian/control's Build-Depends, lintian)
#   --roots      also debootstrap, proot and qemu-user-static (scripts/test-arm-host.sh)
#
# On x86_64:
#   - Debian's rustc-web 1.85 (the MSRV) plus the aarch64/armv7 standard libraries taken
#     from Debian's arm64/armhf libstd-rust-web-dev packages, so ARM can be cross-built
#     without rustup targets;
#   - cross gcc, qemu-user, meson/ninja/pkg-config, llvm-19 (llvm-mca with N1/V1 models; on
#     ARM hosts too, whose constant-time step disassembles with llvm-objdump-19);
#   - nettle, libgcrypt and OpenSSL headers for the side-by-side comparisons, gnutls-bin
#     for the TLS loopback test, Debian's arm64 libnettle8 for the qemu drop-in test, the arm64
#     nettle/OpenSSL/libgcrypt and qemu's plugin header for the whole-call model, the armhf
#     libgcrypt20 + libgpg-error0 for the libgcrypt interposer test under qemu-arm, the armhf
#     libnettle8 (qemu-arm drop-in test) and libssl3 (OpenSSL's AArch32 loops, modelled);
#   - valgrind (native), and Debian's arm64/armhf valgrind as qemu sysroots for the
#     constant-time check of the ARM backends;
#   - the NIST CAVP GCM vectors from the cryptography-vectors wheel (PyPI);
#   - cargo-fuzz (crates.io) for the fuzz targets, run with rustup's nightly toolchain.
set -euo pipefail

packaging=0 roots=0
for a in "$@"; do
  case $a in
    --packaging) packaging=1 ;;
    --roots) roots=1 ;;
    *) echo "deps.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
host_arch=$(dpkg --print-architecture)
case $host_arch in
  amd64 | arm64 | armhf) ;;
  *) echo "deps.sh: Debian $host_arch is not a supported host (amd64, arm64, armhf)" >&2; exit 1 ;;
esac

RUST_DEB_VERSION=1.85.0+dfsg3-1~deb12u3
CRYPTOGRAPHY_VECTORS_VERSION=44.0.0
top=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

log() { printf '[deps] %s\n' "$*"; }

# Debian's Rust toolchain, all of it at one version (held below).
rust_pkgs=(rustc-web libstd-rust-web-dev rust-web-clippy)
apt_pkgs=(
  build-essential pkg-config meson ninja-build python3 python3-pip unzip
  nettle-dev libgcrypt20-dev libssl-dev gnutls-bin valgrind
  llvm-19
)
if [ "$host_arch" = amd64 ]; then
  # rustup's cargo drives the native build; Debian's rustc the ARM cross builds.
  apt_pkgs+=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross
             qemu-user)
else
  # An ARM host builds natively with Debian's cargo and lints with Debian's rustfmt/clippy.
  rust_pkgs+=(cargo-web rustfmt-web)
fi
[ $packaging = 1 ] && { apt_pkgs+=(dpkg-dev debhelper lintian librust-libc-dev librust-cfg-if-dev help2man)
                        [[ " ${rust_pkgs[*]} " = *" cargo-web "* ]] || rust_pkgs+=(cargo-web); }
[ $roots = 1 ] && apt_pkgs+=(debootstrap proot qemu-user-static)
for p in "${rust_pkgs[@]}"; do apt_pkgs+=("$p=$RUST_DEB_VERSION"); done

missing=()
for p in "${apt_pkgs[@]}"; do
  name=${p%%=*}; want=${p#*=}
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  case "$have" in
    "install ok installed "* | "hold ok installed "*) [ "$name" = "$p" ] || [ "${have##* }" = "$want" ] || missing+=("$p") ;;
    *) missing+=("$p") ;;
  esac
done

need_update=1
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq || true
  need_update=0
  $SUDO apt-get install -y -qq --no-install-recommends --allow-downgrades \
    --allow-change-held-packages "${missing[@]}" >/dev/null
fi
# Keep a later `apt-get install` of something else from moving the pinned toolchain.
$SUDO apt-mark hold "${rust_pkgs[@]}" >/dev/null


# ---- x86_64 hosts only, up to the vectors: what the cross builds, the qemu tests and the ARM
# models need (an ARM host runs none of them).
if [ "$host_arch" = amd64 ]; then

# The ARM standard libraries for Debian's rustc: same version, taken from the arm64/armhf debs.
for pair in arm64:aarch64-unknown-linux-gnu armhf:armv7-unknown-linux-gnueabihf; do
  arch=${pair%%:*}; triple=${pair#*:}
  if [ -d "/usr/lib/rustlib/$triple/lib" ] && ls "/usr/lib/rustlib/$triple/lib"/libstd-*.rlib >/dev/null 2>&1; then
    continue
  fi
  log "installing the Rust standard library for $triple from Debian ($arch)"
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    $SUDO dpkg --add-architecture "$arch"; need_update=1
  fi
  if [ $need_update = 1 ]; then
    # An index error for a foreign architecture on the security mirror is harmless here.
    $SUDO apt-get update -qq || true
    need_update=0
  fi
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq "libstd-rust-web-dev:$arch=$RUST_DEB_VERSION" && dpkg-deb -x ./*.deb x)
  $SUDO mkdir -p /usr/lib/rustlib
  $SUDO cp -a "$tmp/x/usr/lib/rustlib/$triple" /usr/lib/rustlib/
  rm -rf "$tmp"
done

# rustup's cargo/rustfmt/clippy drive the native build; make sure the components exist.
if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt || true
fi

# cargo-fuzz (pinned) for the fuzz targets in fuzz/ (scripts/fuzz.sh, the bounded run in
# scripts/test.sh). It drives rustup's nightly toolchain, which this machine kind comes with;
# neither is fatal here: without them the fuzz rows of the suite fail and say why.
CARGO_FUZZ_VERSION=0.13.2
if command -v rustup >/dev/null 2>&1; then
  cargo +nightly --version >/dev/null 2>&1 || log "warning: no rustup nightly toolchain (fuzzing needs it)"
  if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    log "installing cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install -q --locked --version "$CARGO_FUZZ_VERSION" cargo-fuzz ||
      log "warning: cargo-fuzz $CARGO_FUZZ_VERSION did not install"
  fi
fi

# Debian's arm64 builds of the peers, each the same version as the installed amd64 package:
# libnettle8 for the nettle drop-in tests under qemu-aarch64 (scripts/test-nettle.sh aarch64);
# libnettle8, libssl3, libgcrypt20 and libgpg-error0 (runtime) and the -dev packages of the
# last three (arm64 headers and link names) for the whole-call model (scripts/whole-call/);
# libgcrypt20 and libgpg-error0 also for the libgcrypt interposer test (scripts/test-gcrypt.sh).
arm64=$top/.deps/arm64
fetch_deb() { # ARCH PACKAGE FILE-IT-PROVIDES: apt-get download + dpkg-deb -x into .deps/ARCH
  local arch=$1 pkg=$2 file=$3 dir=$top/.deps/$1 ver tmp
  [ -e "$dir/$file" ] && return 0
  ver=$(dpkg-query -W -f='${Version}' "$pkg:amd64" 2>/dev/null || dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
  log "fetching Debian's $arch $pkg ${ver}"
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  # The installed version may have left the archive (security updates): then the current one.
  (cd "$tmp" && { apt-get download -qq "$pkg:$arch${ver:+=$ver}" 2>/dev/null ||
      { log "  $pkg:$arch=$ver is no longer in the archive; taking the current version"
        apt-get download -qq "$pkg:$arch"; }; } &&
    mkdir -p "$dir" && dpkg-deb -x ./"${pkg}"_*.deb "$dir" &&
    dpkg-deb -f ./"${pkg}"_*.deb Package Version | paste -sd' ' >>"$dir/VERSIONS")
  rm -rf "$tmp"
}
fetch_arm64() { fetch_deb arm64 "$@"; }
L=usr/lib/aarch64-linux-gnu
fetch_arm64 libnettle8 $L/libnettle.so.8
fetch_arm64 libssl3 $L/libcrypto.so.3
fetch_arm64 libgcrypt20 $L/libgcrypt.so.20
fetch_arm64 libgpg-error0 lib/aarch64-linux-gnu/libgpg-error.so.0
fetch_arm64 libssl-dev usr/include/aarch64-linux-gnu/openssl/configuration.h
fetch_arm64 libgcrypt20-dev usr/include/gcrypt.h
fetch_arm64 libgpg-error-dev usr/include/aarch64-linux-gnu/gpg-error.h

# qemu's TCG plugin header (qemu-plugin.h, API version 1, GPL-2.0-or-later: not kept in this
# repository) from the Debian source package of the installed qemu-user, for the whole-call
# model's plugin (scripts/whole-call/trace-plugin.c). apt-get source with a private
# configuration (deb-src lines, lists and cache under .deps/), so the system's apt is untouched;
# apt checks the tarball against the signed Sources index.
qplug=$top/.deps/qemu-plugin
if [ ! -e "$qplug/qemu-plugin.h" ]; then
  qsrc=$(dpkg-query -W -f='${source:Version}' qemu-user 2>/dev/null || true)
  log "fetching qemu-plugin.h from Debian's qemu source ${qsrc}"
  qa=$top/.deps/apt-src
  mkdir -p "$qa/lists/partial" "$qa/cache" "$qplug"
  for s in bookworm bookworm-updates; do echo "deb-src http://deb.debian.org/debian $s main"; done >"$qa/sources.list"
  echo "deb-src http://deb.debian.org/debian-security bookworm-security main" >>"$qa/sources.list"
  aopt=(-o Dir::Etc::SourceList="$qa/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o Dir::State::Lists="$qa/lists" -o Dir::Cache="$qa/cache" -qq)
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get "${aopt[@]}" update && apt-get "${aopt[@]}" source --download-only "qemu${qsrc:+=$qsrc}" 2>/dev/null &&
    tar -xJf qemu_*.orig.tar.xz --wildcards '*/include/qemu/qemu-plugin.h' &&
    cp qemu-*/include/qemu/qemu-plugin.h "$qplug/")
  rm -rf "$tmp" "$qa"
fi

# Debian's armhf libgcrypt20 and libgpg-error0 (the arm64 ones are above), for the libgcrypt
# interposer tests under qemu (scripts/test-gcrypt.sh aarch64|armv7).
fetch_deb armhf libgcrypt20 usr/lib/arm-linux-gnueabihf/libgcrypt.so.20
fetch_deb armhf libgpg-error0 lib/arm-linux-gnueabihf/libgpg-error.so.0
# Debian's armhf libnettle8 (nettle drop-in tests under qemu-arm: scripts/test-nettle.sh
# armv7) and libssl3 with its -dev headers (OpenSSL's AArch32 loops and whole calls for the
# model comparison: scripts/model-arm.sh --openssl-armhf and --whole-call).
fetch_deb armhf libnettle8 usr/lib/arm-linux-gnueabihf/libnettle.so.8
fetch_deb armhf libssl3 usr/lib/arm-linux-gnueabihf/libcrypto.so.3
fetch_deb armhf libssl-dev usr/include/arm-linux-gnueabihf/openssl/configuration.h

# Debian's arm64 and armhf valgrind for the constant-time check of the ARM backends
# (scripts/ctgrind.sh runs memcheck under qemu-user): each a sysroot for `qemu -L` holding
# valgrind, libc6 with its debug symbols (memcheck needs ld.so's), libgcc-s1 and libnettle8.
libc_ver=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null || true)
nettle_ver=$(dpkg-query -W -f='${Version}' libnettle8 2>/dev/null || true)
for arch in arm64 armhf; do
  vg=$top/.deps/valgrind-$arch
  ls "$vg"/usr/libexec/valgrind/memcheck-*-linux >/dev/null 2>&1 &&
    [ -e "$vg/usr/lib/debug/.build-id" ] && continue
  log "fetching Debian's $arch valgrind and libc6 debug symbols"
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    $SUDO dpkg --add-architecture "$arch"; need_update=1
  fi
  if [ $need_update = 1 ]; then $SUDO apt-get update -qq || true; need_update=0; fi
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq "valgrind:$arch" "libc6:$arch${libc_ver:+=$libc_ver}" \
     "libc6-dbg:$arch${libc_ver:+=$libc_ver}" "libgcc-s1:$arch" \
     "libnettle8:$arch${nettle_ver:+=$nettle_ver}" 2>/dev/null &&
   rm -rf "$vg" && mkdir -p "$vg" && for d in ./*.deb; do dpkg-deb -x "$d" "$vg"; done)
  rm -rf "$tmp"
done
fi # ---- end of the x86_64-only part

# NIST CAVP GCM vectors (gcmEncryptExtIV*.rsp, gcmDecrypt*.rsp) from the cryptography-vectors wheel.
cavp="$top/.vectors/cavp"
if ! ls "$cavp"/gcmDecrypt256.rsp >/dev/null 2>&1; then
  log "fetching NIST CAVP GCM vectors (cryptography-vectors $CRYPTOGRAPHY_VECTORS_VERSION)"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" \
    "cryptography-vectors==$CRYPTOGRAPHY_VECTORS_VERSION"
  mkdir -p "$cavp"
  unzip -q -j -o "$tmp"/cryptography_vectors-*.whl \
    'cryptography_vectors/ciphers/AES/GCM/gcmEncryptExtIV*.rsp' \
    'cryptography_vectors/ciphers/AES/GCM/gcmDecrypt*.rsp' -d "$cavp"
  rm -rf "$tmp"
fi
log "ok"
