#!/usr/bin/env bash
# Installs everything stitchgcm needs on a fresh Debian 12 (bookworm) or Debian 13 (trixie)
# machine (Raspberry Pi OS on either counts as its Debian release): x86_64 (the development
# host: cross builds and qemu for ARM) or an arm64/armhf host (native builds only: Debian's
# Rust toolchain, no cross packages, no models). Packages are taken by the release's own
# names and its current versions, never pinned to one Debian revision (the archive keeps only
# the newest). Idempotent: every step checks whether its result is already there.
#
# usage: scripts/deps.sh [--packaging] [--roots] [--peers RELEASE]
#   --packaging  also what `dpkg-buildpackage -b` needs (debian/control's Build-Depends, lintian)
#                and git (scripts/test-packages.sh builds from a clone)
#   --roots      also debootstrap, proot and qemu-user-static (scripts/test-arm-host.sh,
#                scripts/test-distro.sh)
#   --peers R    also another release's arm64/armhf peer libraries and glibc, for the
#                whole-call model's --release R rows (scripts/deps-peers.sh R; x86_64 only)
#
# Debian's Rust toolchain (>= 1.85, the MSRV), by release:
#   bookworm: rustc-web, cargo-web, rustfmt-web, rust-web-clippy, libstd-rust-web-dev
#   trixie:   rustc, cargo, rustfmt, rust-clippy, libstd-rust-dev
# On x86_64 (cargo and rustfmt come from rustup where it is installed, else from Debian):
#   - that rustc plus the aarch64/armv7 standard libraries taken from the same release's
#     arm64/armhf std packages at exactly the installed rustc's version, so ARM can be
#     cross-built without rustup targets;
#   - cross gcc, qemu-user, meson/ninja/pkg-config, llvm-19 (llvm-mca with N1/V1 models; on
#     ARM hosts too, whose constant-time step disassembles with llvm-objdump-19);
#   - nettle, libgcrypt and OpenSSL headers for the side-by-side comparisons, gnutls-bin
#     for the TLS loopback test, Debian's arm64 libnettle for the qemu drop-in test, the arm64
#     nettle/OpenSSL/libgcrypt and qemu's plugin header for the whole-call model, the armhf
#     libgcrypt20 + libgpg-error0 for the libgcrypt interposer test under qemu-arm, the armhf
#     libnettle (qemu-arm drop-in test) and libssl (OpenSSL's AArch32 loops, modelled) --
#     each by the release's package name (libnettle8 / libnettle8t64, libssl3 / libssl3t64);
#     the arm64/armhf openssl program at that libssl's version (TLS loopback under qemu);
#   - Debian's arm64/armhf openssh-client with the libraries it needs, and Debian's amd64
#     openssh-server unpacked into .deps/amd64 (never installed), for OpenSSH over loopback
#     under qemu;
#   - valgrind (native), and Debian's arm64/armhf valgrind as qemu sysroots for the
#     constant-time check of the ARM backends;
#   - the NIST CAVP GCM vectors from the cryptography-vectors wheel (PyPI), and OpenSSL's
#     evp_test data (evpciph_aes_common.txt) from Debian's OpenSSL source tarball;
#   - cargo-fuzz (crates.io) for the fuzz targets, run with rustup's nightly toolchain.
set -euo pipefail

packaging=0 roots=0 peers=()
while [ $# -gt 0 ]; do
  case $1 in
    --packaging) packaging=1 ;;
    --roots) roots=1 ;;
    --peers) [ -n "${2:-}" ] || { echo "deps.sh: --peers wants a release" >&2; exit 2; }
             peers+=("$2"); shift ;;
    *) echo "deps.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
host_arch=$(dpkg --print-architecture)
case $host_arch in
  amd64 | arm64 | armhf) ;;
  *) echo "deps.sh: Debian $host_arch is not a supported host (amd64, arm64, armhf)" >&2; exit 1 ;;
esac

# The release decides the package names. Raspberry Pi OS reports its Debian codename.
codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
case $codename in
  bookworm)
    # Debian 12's rustc is 1.63; the -web family is the one at the MSRV or later.
    rustc_pkg=rustc-web std_pkg=libstd-rust-web-dev clippy_pkg=rust-web-clippy
    cargo_pkg=cargo-web rustfmt_pkg=rustfmt-web
    nettle_pkg=libnettle8 ssl_pkg=libssl3
    # qemu 7.2's plugin header stands alone.
    plugin_pkgs=() ;;
  trixie)
    rustc_pkg=rustc std_pkg=libstd-rust-dev clippy_pkg=rust-clippy
    cargo_pkg=cargo rustfmt_pkg=rustfmt
    # The 64-bit time_t transition renamed these on every architecture (same sonames).
    nettle_pkg=libnettle8t64 ssl_pkg=libssl3t64
    # qemu 10's plugin header includes glib.h (the whole-call model's trace plugin).
    plugin_pkgs=(libglib2.0-dev) ;;
  *)
    pretty=$( (. /etc/os-release && echo "${PRETTY_NAME:-}") 2>/dev/null || true)
    echo "deps.sh: ${pretty:-this system} (codename '${codename:-unknown}') is not supported:" \
      "stitchgcm's scripts know Debian 12 (bookworm) and Debian 13 (trixie), and Raspberry Pi" \
      "OS built on either" >&2
    exit 1 ;;
esac
RUST_MIN_VERSION=1.85
CRYPTOGRAPHY_VECTORS_VERSION=44.0.0
top=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

log() { printf '[deps] %s\n' "$*"; }
die() { printf 'deps.sh: %s\n' "$*" >&2; exit 1; }

# Debian's Rust toolchain, every package at one version (see rust_version below).
rust_pkgs=("$rustc_pkg" "$std_pkg" "$clippy_pkg")
apt_pkgs=(
  build-essential pkg-config meson ninja-build python3 python3-pip unzip
  nettle-dev libgcrypt20-dev libssl-dev gnutls-bin valgrind
  llvm-19
)
if [ "$host_arch" = amd64 ]; then
  # rustup's cargo drives the native build where it is installed (the development host, which
  # also needs its nightly for fuzzing); Debian's rustc the ARM cross builds.
  apt_pkgs+=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross
             qemu-user "${plugin_pkgs[@]}")
  command -v rustup >/dev/null 2>&1 || rust_pkgs+=("$cargo_pkg" "$rustfmt_pkg")
else
  # An ARM host builds natively with Debian's cargo and lints with Debian's rustfmt/clippy.
  rust_pkgs+=("$cargo_pkg" "$rustfmt_pkg")
fi
[ $packaging = 1 ] && { apt_pkgs+=(dpkg-dev debhelper lintian librust-libc-dev librust-cfg-if-dev help2man git)
                        [[ " ${rust_pkgs[*]} " = *" $cargo_pkg "* ]] || rust_pkgs+=("$cargo_pkg"); }
[ $roots = 1 ] && apt_pkgs+=(debootstrap proot qemu-user-static)

# The ARM standard libraries are copied out of the arm64/armhf std packages into
# /usr/lib/rustlib (apt cannot co-install them with the amd64 ones), so apt does not keep
# them at the installed rustc's version: a stamp says which Debian version they came from.
# (Without a stamp -- a tree made before stamps -- the libstd rlib must carry this rustc's
# version line, which rustc writes into its metadata.)
arm_triples=(arm64:aarch64-unknown-linux-gnu armhf:armv7-unknown-linux-gnueabihf)
arm_std_current() { # TRIPLE DEB-VERSION: the copy in /usr/lib/rustlib is from that version
  local d=/usr/lib/rustlib/$1 rlib
  rlib=$(ls "$d"/lib/libstd-*.rlib 2>/dev/null | head -n1 || true)
  [ -n "$rlib" ] || return 1
  if [ -e "$d/DEBIAN-VERSION" ]; then [ "$(cat "$d/DEBIAN-VERSION")" = "$2" ]; return; fi
  [ -x /usr/bin/rustc ] && grep -qaF "$(/usr/bin/rustc --version)" "$rlib"
}

installed_version() { # PACKAGE -> version if installed
  local have
  have=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true)
  case "$have" in "install ok installed "* | "hold ok installed "*) echo "${have##* }" ;; esac
}

# The cross builds need the foreign architectures' indexes (std packages, peer libraries).
# (Lists are read into variables before grep -q: under pipefail, grep -q's early exit can
# kill the writer with SIGPIPE and fail the pipeline although the line was found.)
need_update=1 arch_added=0
if [ "$host_arch" = amd64 ]; then
  foreign=$(dpkg --print-foreign-architectures)
  for arch in arm64 armhf; do
    if ! grep -qx "$arch" <<<"$foreign"; then
      log "dpkg --add-architecture $arch"
      $SUDO dpkg --add-architecture "$arch"; arch_added=1
    fi
  done
fi
apt_update() {
  [ $need_update = 1 ] || return 0
  # An index error for a foreign architecture on the security mirror is harmless here.
  $SUDO apt-get update -qq || true
  need_update=0
}

# The toolchain's version: the installed rustc's when it is new enough and (on x86_64) the
# ARM std packages exist at that version or are already copied; else the release's
# candidate. All of the family is then installed at that one version (apt would otherwise be
# free to mix security and main versions, which rustc cannot link together).
rust_version() {
  local inst cand ok t versions
  inst=$(installed_version "$rustc_pkg")
  if [ -n "$inst" ] && dpkg --compare-versions "$inst" ge "$RUST_MIN_VERSION~"; then
    ok=1
    if [ "$host_arch" = amd64 ]; then
      for t in "${arm_triples[@]}"; do
        arm_std_current "${t#*:}" "$inst" && continue
        versions=$(apt-cache madison "$std_pkg:${t%%:*}" 2>/dev/null | awk '{print $3}')
        grep -qxF "$inst" <<<"$versions" || ok=0
      done
    fi
    [ $ok = 1 ] && { echo "$inst"; return; }
  fi
  cand=$(apt-cache policy "$rustc_pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  { [ -n "$cand" ] && [ "$cand" != "(none)" ]; } || return 1
  dpkg --compare-versions "$cand" ge "$RUST_MIN_VERSION~" || return 1
  echo "$cand"
}
# A fresh host (no rustc yet, or new architectures) chooses from fresh indexes.
{ [ -n "$(installed_version "$rustc_pkg")" ] && [ $arch_added = 0 ]; } || apt_update
rust_ver=$(rust_version) || { apt_update; rust_ver=$(rust_version) ||
  die "Debian's $rustc_pkg >= $RUST_MIN_VERSION is not available here ($codename; apt-cache policy $rustc_pkg)"; }
for p in "${rust_pkgs[@]}"; do apt_pkgs+=("$p=$rust_ver"); done

missing=()
for p in "${apt_pkgs[@]}"; do
  name=${p%%=*}; want=${p#*=}
  have=$(installed_version "$name")
  if [ -z "$have" ]; then missing+=("$p")
  elif [ "$name" != "$p" ] && [ "$have" != "$want" ]; then missing+=("$p"); fi
done

if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends --allow-downgrades \
    --allow-change-held-packages "${missing[@]}" >/dev/null
fi
log "Debian's Rust toolchain: ${rust_pkgs[*]} $rust_ver ($codename)"


# ---- x86_64 hosts only, up to the vectors: what the cross builds, the qemu tests and the ARM
# models need (an ARM host runs none of them).
if [ "$host_arch" = amd64 ]; then

# The ARM standard libraries for Debian's rustc: same version, taken from the arm64/armhf debs.
for pair in "${arm_triples[@]}"; do
  arch=${pair%%:*}; triple=${pair#*:}
  arm_std_current "$triple" "$rust_ver" && continue
  log "installing the Rust standard library for $triple from Debian ($std_pkg:$arch $rust_ver)"
  apt_update
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq "$std_pkg:$arch=$rust_ver" && dpkg-deb -x ./*.deb x)
  $SUDO mkdir -p /usr/lib/rustlib
  $SUDO rm -rf "/usr/lib/rustlib/$triple"
  $SUDO cp -a "$tmp/x/usr/lib/rustlib/$triple" /usr/lib/rustlib/
  echo "$rust_ver" | $SUDO tee "/usr/lib/rustlib/$triple/DEBIAN-VERSION" >/dev/null
  rm -rf "$tmp"
done

# rustup's cargo/rustfmt/clippy drive the native build; make sure the components exist.
if command -v rustup >/dev/null 2>&1; then
  components=$(rustup component list --installed 2>/dev/null || true)
  grep -q '^clippy' <<<"$components" || rustup component add clippy rustfmt || true
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
fetch_deb() { # ARCH PACKAGE FILE-IT-PROVIDES [VERSION]: apt-get download + dpkg-deb -x into .deps/ARCH
  local arch=$1 pkg=$2 file=$3 dir=$top/.deps/$1
  # (trixie's packages moved /lib/<multiarch> files under /usr: either place counts.)
  if [ -e "$dir/$file" ] || [ -e "$dir/usr/$file" ]; then return 0; fi
  extract_deb "$arch" "$pkg" "${4:-}"
}
extract_deb() { # ARCH PACKAGE [VERSION]
  local arch=$1 pkg=$2 dir=$top/.deps/$1 ver=${3:-} tmp
  # By default the version of the installed amd64 package (a package not installed here:
  # the current one).
  [ -n "$ver" ] || ver=$(dpkg-query -W -f='${Version}' "$pkg:amd64" 2>/dev/null ||
                         dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
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
# fetch_closure ARCH PACKAGE FILE-IT-PROVIDES: unless FILE is there, PACKAGE and, recursively,
# the libraries it depends on (lib* packages, the first of alternatives, by the release's
# own names) into .deps/ARCH -- not libc6 (qemu's -L sysroot, /usr/<multiarch>, has it), not
# what .deps/ARCH holds already (its VERSIONS), on amd64 not what is installed here.
# PACKAGE itself comes last: its FILE says the whole closure is there.
fetch_closure() {
  local arch=$1 pkg=$2 file=$3 dir=$top/.deps/$1 seen=" libc6 " todo p d deps
  if [ -e "$dir/$file" ] || [ -e "$dir/usr/$file" ]; then return 0; fi
  todo=("$pkg")
  while [ ${#todo[@]} -gt 0 ]; do
    p=${todo[0]}; todo=("${todo[@]:1}")
    [[ $seen = *" $p "* ]] && continue
    seen+="$p "
    if [ "$p" != "$pkg" ]; then
      grep -q "^Package: $p Version: " "$dir/VERSIONS" 2>/dev/null && continue
      [ "$arch" = amd64 ] && [ -n "$(installed_version "$p")" ] && continue
    fi
    deps=$(apt-cache show --no-all-versions "$p:$arch" 2>/dev/null |
           sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' | tr ',' '\n' |
           sed 's/|.*//; s/(.*//; s/:any//; s/[[:space:]]//g' | grep '^lib' || true)
    for d in $deps; do todo+=("$d"); done
    [ "$p" = "$pkg" ] || extract_deb "$arch" "$p"
  done
  extract_deb "$arch" "$pkg"
}
fetch_arm64() { fetch_deb arm64 "$@"; }
L=usr/lib/aarch64-linux-gnu
fetch_arm64 "$nettle_pkg" $L/libnettle.so.8
fetch_arm64 "$ssl_pkg" $L/libcrypto.so.3
fetch_arm64 libgcrypt20 $L/libgcrypt.so.20
fetch_arm64 libgpg-error0 lib/aarch64-linux-gnu/libgpg-error.so.0
fetch_arm64 libssl-dev usr/include/aarch64-linux-gnu/openssl/configuration.h
fetch_arm64 libgcrypt20-dev usr/include/gcrypt.h
fetch_arm64 libgpg-error-dev usr/include/aarch64-linux-gnu/gpg-error.h
# OpenSSL 3.5 (Debian 13) links libz and libzstd: cross links against its libcrypto need them
# beside it (on Debian 12 they are merely unused).
fetch_arm64 zlib1g lib/aarch64-linux-gnu/libz.so.1
fetch_arm64 libzstd1 lib/aarch64-linux-gnu/libzstd.so.1

# qemu's TCG plugin header (qemu-plugin.h, GPL-2.0-or-later: API version 1 in Debian 12's qemu
# 7.2, 4 in Debian 13's qemu 10, which includes glib.h; not kept in this
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
  for s in "$codename" "$codename-updates"; do echo "deb-src http://deb.debian.org/debian $s main"; done >"$qa/sources.list"
  echo "deb-src http://deb.debian.org/debian-security $codename-security main" >>"$qa/sources.list"
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
fetch_deb armhf "$nettle_pkg" usr/lib/arm-linux-gnueabihf/libnettle.so.8
fetch_deb armhf "$ssl_pkg" usr/lib/arm-linux-gnueabihf/libcrypto.so.3
fetch_deb armhf libssl-dev usr/include/arm-linux-gnueabihf/openssl/configuration.h
fetch_deb armhf zlib1g lib/arm-linux-gnueabihf/libz.so.1
fetch_deb armhf libzstd1 lib/arm-linux-gnueabihf/libzstd.so.1

# Debian's arm64 and armhf openssl program, at the version of the libssl3 fetched above (it
# needs only that and libc), for the TLS loopback under qemu-user
# (scripts/test-openssl-provider.sh --qemu): s_server/s_client with the provider configured.
for arch in arm64 armhf; do
  fetch_deb $arch openssl usr/bin/openssl \
    "$(sed -n "s/^Package: $ssl_pkg Version: //p" "$top/.deps/$arch/VERSIONS" | tail -n1)"
done
# OpenSSH over loopback under qemu-user (scripts/test-openssl-provider.sh --qemu): Debian's
# arm64/armhf ssh client (openssh-client and the libraries it needs) with the provider
# configured, against this machine's sshd -- Debian's amd64 openssh-server unpacked into
# .deps/amd64 (with what it needs that is not installed here), never installed: no system
# sshd is set up or started.
fetch_closure arm64 openssh-client usr/bin/ssh
fetch_closure armhf openssh-client usr/bin/ssh
fetch_closure amd64 openssh-server usr/sbin/sshd

# Debian's arm64 and armhf valgrind for the constant-time check of the ARM backends
# (scripts/ctgrind.sh runs memcheck under qemu-user): each a sysroot for `qemu -L` holding
# valgrind, libc6 with its debug symbols (memcheck needs ld.so's), libgcc-s1 and libnettle8.
libc_ver=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null || true)
nettle_ver=$(dpkg-query -W -f='${Version}' "$nettle_pkg" 2>/dev/null || true)
for arch in arm64 armhf; do
  vg=$top/.deps/valgrind-$arch
  ls "$vg"/usr/libexec/valgrind/memcheck-*-linux >/dev/null 2>&1 &&
    [ -e "$vg/usr/lib/debug/.build-id" ] && continue
  log "fetching Debian's $arch valgrind and libc6 debug symbols"
  apt_update
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq "valgrind:$arch" "libc6:$arch${libc_ver:+=$libc_ver}" \
     "libc6-dbg:$arch${libc_ver:+=$libc_ver}" "libgcc-s1:$arch" \
     "$nettle_pkg:$arch${nettle_ver:+=$nettle_ver}" 2>/dev/null &&
   rm -rf "$vg" && mkdir -p "$vg" && for d in ./*.deb; do dpkg-deb -x "$d" "$vg"; done)
  rm -rf "$tmp"
done
# Debian 13's packages keep everything under /usr; the /lib, /bin, /sbin links of a merged
# /usr come from base-files, not from the debs above. qemu -L looks for the dynamic loader at
# /lib/ld-linux-*.so.*, so make the links where no package made the directory (also in a
# sysroot fetched before this step existed).
for arch in arm64 armhf; do
  for d in lib bin sbin; do
    vg=$top/.deps/valgrind-$arch
    [ -e "$vg/$d" ] || [ ! -d "$vg/usr/$d" ] || ln -s "usr/$d" "$vg/$d"
  done
done
# Other releases' peers for the whole-call model (--peers).
for r in "${peers[@]}"; do "$top/scripts/deps-peers.sh" "$r"; done
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
# OpenSSL's own evp_test data for the provider's test (c-tests/test_provider.c): OpenSSL 3.0
# keeps its GCM cases in evpciph_aes_common.txt. Taken from Debian's source tarball of
# OpenSSL (bookworm's 3.0 series; the pool keeps it), checked against its SHA-256; only that
# file is kept. Third-party data: never committed (.vectors/ is ignored).
OPENSSL_TESTS_VERSION=3.0.20
OPENSSL_TESTS_SHA256=c80a01dfc70ece4dc21168932c37739042d404d46ccc81a5986dd75314ecda6f
ossl_data="$top/.vectors/openssl"
if [ ! -s "$ossl_data/evpciph_aes_common.txt" ]; then
  log "fetching OpenSSL $OPENSSL_TESTS_VERSION's evp_test data (Debian source tarball, 15 MB)"
  mkdir -p "$ossl_data"
  python3 - "$OPENSSL_TESTS_VERSION" "$OPENSSL_TESTS_SHA256" "$ossl_data" <<'PY'
import hashlib, io, sys, tarfile, urllib.request
version, sha256, dest = sys.argv[1:4]
url = f"http://deb.debian.org/debian/pool/main/o/openssl/openssl_{version}.orig.tar.gz"
data = urllib.request.urlopen(url, timeout=300).read()
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit(f"deps.sh: {url}: SHA-256 mismatch")
name = f"openssl-{version}/test/recipes/30-test_evp_data/evpciph_aes_common.txt"
with tarfile.open(fileobj=io.BytesIO(data)) as t:
    text = t.extractfile(name).read()
open(f"{dest}/evpciph_aes_common.txt", "wb").write(text)
open(f"{dest}/VERSION", "w").write(f"{version} {url}\n")
PY
fi
log "ok"
