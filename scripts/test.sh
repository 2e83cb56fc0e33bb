#!/usr/bin/env bash
# The whole test suite: installs what it needs (scripts/deps.sh), then runs
#   - lint: cargo fmt --check, cargo clippy -D warnings, header staleness, generated kernels
#     current (each src/backend/**/gen_*.py --verify);
#   - x86_64 native: every Rust test for every backend this CPU runs, and the C tests (meson);
#   - aarch64 under qemu-aarch64 -cpu max and -cpu cortex-a57 (crypto extensions, no SHA3): the
#     Rust tests and the C ABI tests with the detected
#     backend, then with every other backend forced through STITCHGCM_IMPL;
#   - armv7 under qemu-arm -cpu cortex-a15 (NEON, no crypto extensions) and -cpu max (AArch32
#     crypto extensions), likewise;
#   - the nettle drop-in (scripts/test-nettle.sh): x86_64 preload/relink/bindings, GnuTLS over
#     loopback, and preload/relink under qemu-aarch64 and qemu-arm with Debian's arm64 and
#     armhf libnettle;
#   - fuzzing: every cargo-fuzz target in fuzz/ for 60 s (FUZZ_SECONDS) from its seeds
#     (scripts/fuzz.sh, AddressSanitizer);
#   - constant time for every backend (scripts/ctgrind.sh: valgrind, also under qemu, and a
#     static check of the kernels) and the C tests under ASan+UBSan and TSan (scripts/sanitize.sh);
#   - the ARM models as structure checks (scripts/model-arm.sh: the kernel loops, and the
#     whole-call model with --whole-call --check for aarch64 and armv7);
#   - the libgcrypt interposer (scripts/test-gcrypt.sh): x86_64, and under qemu on every ARM
#     CPU above with Debian's arm64/armhf libgcrypt;
#   - the OpenSSL provider (scripts/test-openssl-provider.sh; under qemu too, with Debian's
#     arm64/armhf libcrypto): evp_test's GCM cases, the
#     differential run against OpenSSL's default provider, TLS loopback (under qemu with
#     Debian's ARM openssl program), OpenSSH loopback under qemu (Debian's ARM ssh client).
# and prints a table: target × CPU model × backend → passed/failed.
# On an arm64 or armhf host (Debian 12) the native part runs natively there -- lint, every
# backend that CPU runs, the C tests, both drop-ins against the host's own libnettle and
# libgcrypt, GnuTLS over loopback -- and the cross parts (qemu, models) are skipped: they
# need the x86_64 host's cross toolchains (scripts/test-arm-host.sh proves the ARM host path
# in emulated Debian roots).
#
# usage: scripts/test.sh [--no-deps] [--only native|fuzz|aarch64|armv7]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

deps=1 only=""
while [ $# -gt 0 ]; do
  case $1 in
    --no-deps) deps=0 ;;
    --only) only=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ $deps = 1 ] && { bash scripts/deps.sh || { echo "scripts/deps.sh failed" >&2; exit 1; }; }

# The host's target name in the table (Debian's architecture: an armhf userland on an arm64
# kernel is armv7).
case $(dpkg --print-architecture 2>/dev/null || uname -m) in
  amd64 | x86_64) host=x86_64 ;;
  arm64 | aarch64) host=aarch64 ;;
  armhf | armv7l) host=armv7 ;;
  *) host=$(uname -m) ;;
esac
cross=0; [ "$host" = x86_64 ] && cross=1
# .cargo/config.toml runs the ARM targets' binaries under qemu-user (cross runs); on an ARM
# host its own target's binaries run directly (`env` as the runner just executes them).
if [ $cross = 0 ]; then
  rust_host=$(rustc -vV | sed -n 's/^host: //p')
  export "CARGO_TARGET_$(echo "$rust_host" | tr 'a-z-' 'A-Z_')_RUNNER=env"
fi
if [ $cross = 0 ] && [ -n "$only" ] && [ "$only" != native ]; then
  echo "--only $only runs on x86_64 hosts; on this $host host: --only native"; exit 0
fi

export CARGO_TERM_COLOR=never
# The vector tests skip themselves (one line on stderr) when .vectors/ was never fetched, for a
# developer's first `cargo test`; the suite must fail instead (tests/common/mod.rs).
export STITCHGCM_REQUIRE_VECTORS=1
logdir=$top/target/test-logs
mkdir -p "$logdir"
rows=()
total_pass=0 total_fail=0
started=$(date +%s)

# record TARGET CPU BACKEND SUITE PASSED FAILED
record() {
  rows+=("$(printf '%-14s %-11s %-17s %-22s %7s %7s' "$1" "$2" "$3" "$4" "$5" "$6")")
  total_pass=$((total_pass + $5)); total_fail=$((total_fail + $6))
}

# Sums libtest's "test result: ... N passed; M failed" lines of a log. A run that died
# before printing its result (crash, signal) counts as one failure.
libtest_counts() {
  local log=$1 rc=$2 p f
  p=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  echo "$p $f"
}

# "N passed, M failed" of our C tests.
plain_counts() {
  local log=$1 rc=$2 p f
  p=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$log" | awk '{s+=$3} END {print s+0}')
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  echo "$p $f"
}

step() { printf '\n=== %s\n' "$*"; }

# tests_dir DIR: the target directory for `cargo test` beside the one (DIR) the rest of the
# suite builds the release library in. A test harness cannot abort on panic, so cargo builds
# the library it links with panic=unwind, while the library everything else uses is built
# as shipped (panic=abort). Sharing one directory, each build would invalidate the other's
# library and every test binary after it: seconds on x86_64, the better part of an hour of
# emulated rustc in scripts/test-arm-host.sh's roots, on every run.
tests_dir() { echo "$1/rust-tests"; }

# The .text budget of libstitchgcm.so, KiB (issue 30; docs/footprint.md, "Code size"): the
# issue's 450 on every target; armv7 (356 KiB) is held a little above the size it reached,
# so that nothing grows back unnoticed.
declare -A TEXT_BUDGET_KB=([x86_64]=450 [aarch64]=450 [armv7]=370)
# text_budget TARGET LIB: records a row, passed when LIB's .text is within the budget.
text_budget() {
  local bytes kb=${TEXT_BUDGET_KB[$1]}
  bytes=$(size -A "$2" 2>/dev/null | awk '$1 == ".text" {print $2}')
  if [ -n "$bytes" ] && [ "$bytes" -le $((kb * 1024)) ]; then
    echo "$1: libstitchgcm.so .text $((bytes / 1024)) KiB (budget $kb KiB)"
    record "$1" - all ".text budget" 1 0
  else
    echo "$1: libstitchgcm.so .text $(( ${bytes:-0} / 1024 )) KiB: over the budget of $kb KiB (docs/footprint.md)"
    record "$1" - all ".text budget" 0 1
  fi
}

# ---------------------------------------------------------------- lint
if [ -z "$only" ] || [ "$only" = native ]; then
  step "lint"
  p=0 f=0
  if cargo fmt --all --check >"$logdir/fmt.log" 2>&1; then p=$((p+1)); else f=$((f+1)); cat "$logdir/fmt.log"; fi
  if cargo clippy --workspace --all-targets -- -D warnings >"$logdir/clippy.log" 2>&1; then p=$((p+1)); else f=$((f+1)); tail -40 "$logdir/clippy.log"; fi
  # The ARM code is only compiled for ARM: lint it with Debian's clippy (the release's rustc,
  # 1.85 or newer), the library and the interposer (whose x86_64-only code paths leave items
  # unused elsewhere).
  # (An ARM host's own target is the plain clippy run above, the whole workspace.)
  for t in aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf; do
    [ $cross = 1 ] || continue
    if RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian-clippy /usr/bin/cargo-clippy clippy \
         --target $t --all-targets -p stitchgcm -p stitchgcm-gcrypt -- -D warnings \
         >"$logdir/clippy-$t.log" 2>&1; then
      p=$((p+1)); else f=$((f+1)); tail -40 "$logdir/clippy-$t.log"; fi
  done
  if cargo run -q -p header-gen -- --check >"$logdir/header.log" 2>&1; then p=$((p+1)); else f=$((f+1)); cat "$logdir/header.log"; fi
  # Generated kernels must be what their generators make: every src/backend/**/gen_*.py
  # takes --verify (exit 1 unless the committed file is current; the arm-neon one, whose
  # output build.rs generates and is not committed, runs its kernels on its interpreter
  # against a reference AES/GHASH).
  for gen in $(find src/backend -name 'gen_*.py' | sort); do
    log="$logdir/$(echo "${gen#src/backend/}" | tr / -).log"
    if python3 "$gen" --verify >"$log" 2>&1; then p=$((p+1)); else f=$((f+1)); cat "$log"; fi
  done
  record lint - - "fmt/clippy/header/gen" $p $f

  # -------------------------------------------------------------- x86_64 native
  step "$host native"
  cargo build --release --example backends -q
  mapfile -t backends < <(target/release/examples/backends)
  echo "backends: ${backends[*]}"
  log="$logdir/native-default.log"
  CARGO_TARGET_DIR=$(tests_dir target) cargo test --release --workspace >"$log" 2>&1; rc=$?
  read -r p f < <(libtest_counts "$log" $rc)
  record "$host" native "${backends[0]}*" "rust (all)" $p $f
  [ $rc = 0 ] || tail -30 "$log"
  for b in "${backends[@]:1}"; do
    log="$logdir/native-$b.log"
    STITCHGCM_IMPL=$b CARGO_TARGET_DIR=$(tests_dir target) cargo test --release --workspace --tests \
      >"$log" 2>&1; rc=$?
    read -r p f < <(libtest_counts "$log" $rc)
    record "$host" native "$b" "rust (forced)" $p $f
    [ $rc = 0 ] || tail -30 "$log"
  done

  step "C tests (meson)"
  log="$logdir/meson.log"
  { [ -d build/meson-private ] || meson setup build; } >"$log" 2>&1
  meson test -C build --print-errorlogs >>"$log" 2>&1; rc=$?
  ok=$(grep -Eo '^Ok: +[0-9]+' "$log" | grep -Eo '[0-9]+' || echo 0)
  bad=$(grep -Eo '^Fail: +[0-9]+' "$log" | grep -Eo '[0-9]+' || echo 0)
  [ $rc != 0 ] && [ "$bad" = 0 ] && bad=1
  record "$host" native "${backends[0]}*" "C via meson" "$ok" "$bad"
  [ $rc = 0 ] || tail -40 "$log"

  # nettle drop-in: system nettle vs LD_PRELOAD / relink (every backend), symbol bindings,
  # and GnuTLS over loopback with stitchgcm preloaded (scripts/test-nettle.sh).
  step "nettle drop-in"
  for m in native gnutls; do
    log="$logdir/nettle-$m.log"
    bash scripts/test-nettle.sh $m >"$log" 2>&1; rc=$?
    read -r p f < <(plain_counts "$log" $rc)
    if [ $m = native ]; then record "$host" native all "nettle ABI (C)" $p $f
    else record "$host" native "${backends[0]}*" "GnuTLS loopback" $p $f; fi
    [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10
  done

  # libgcrypt interposer: system libgcrypt vs LD_PRELOAD=libstitchgcm-gcrypt.so (every
  # backend), exports, bindings, bad input (scripts/test-gcrypt.sh).
  step "libgcrypt drop-in"
  log="$logdir/gcrypt-native.log"
  bash scripts/test-gcrypt.sh native >"$log" 2>&1; rc=$?
  read -r p f < <(plain_counts "$log" $rc)
  record "$host" native all "libgcrypt ABI (C)" $p $f
  [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10

  # OpenSSL provider (provider/stitchgcm.so): OpenSSL's evp_test GCM cases, differential
  # against the default provider, TLS 1.2 records, s_server/s_client TLS 1.2 and 1.3 loopback
  # with the provider configured on either or both peers (scripts/test-openssl-provider.sh,
  # a few seconds).
  step "OpenSSL provider"
  log="$logdir/openssl-provider.log"
  bash scripts/test-openssl-provider.sh build >"$log" 2>&1; rc=$?
  read -r p f < <(plain_counts "$log" $rc)
  record "$host" native "${backends[0]}*" "OpenSSL provider" $p $f
  [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10

  # debian/*.symbols list exactly what the two libraries export (names and versions).
  log="$logdir/symbols.log"
  if sh debian/symbols-current.sh target/release/libstitchgcm.so target/release/libstitchgcm-gcrypt.so \
       >"$log" 2>&1; then record "$host" native all "Debian symbols files" 2 0
  else record "$host" native all "Debian symbols files" 0 1; cat "$log"; fi
  [ -z "${TEXT_BUDGET_KB[$host]:-}" ] || text_budget "$host" target/release/libstitchgcm.so

  # Constant time (scripts/ctgrind.sh: valgrind with secrets marked undefined for the
  # backends valgrind runs, a static taint check of the kernels for x86_64-vaes, controls
  # that must be reported; docs/constant-time.md) and the C tests under ASan+UBSan and TSan.
  step "constant time and sanitizers"
  log="$logdir/ctgrind-native.log"
  bash scripts/ctgrind.sh native >"$log" 2>&1; rc=$?
  read -r p f < <(plain_counts "$log" $rc)
  record "$host" native all "constant time" $p $f
  [ $f = 0 ] || grep -E '^FAIL' "$log" | head -10
  log="$logdir/sanitize.log"
  bash scripts/sanitize.sh >"$log" 2>&1; rc=$?
  read -r p f < <(plain_counts "$log" $rc)
  san="C: ASan+UBSan, TSan"   # the row names what ran: under qemu ASan may not start
  ! grep -q '^note: ASan cannot start' "$log" || san="C: UBSan, TSan"
  record "$host" native "${backends[0]}*" "$san" $p $f
  [ $f = 0 ] || grep -E '^FAIL' "$log" | head -10
  grep -E '^note: ' "$log" || true   # what the sanitizers could not run here, and why
fi

# ---------------------------------------------------------------- fuzzing (bounded)
# Every cargo-fuzz target in fuzz/ (scripts/fuzz.sh: libFuzzer + AddressSanitizer, nightly)
# for FUZZ_SECONDS each (default 60) from its committed seeds alone. One row per target:
# passed when it did not crash and its seeds are what its generator makes; executions and
# coverage are in the fuzz table below and in the log. Lint of fuzz/ is its own row.
# (x86_64 hosts: fuzz.sh builds for x86_64 with rustup's nightly, which an ARM host's
# Debian toolchain does not have.)
# A host without rustup at all (a fresh Debian machine: Debian ships no nightly toolchain)
# cannot fuzz; the part is then reported as not run, in the summary too, rather than failed.
# Where rustup exists, a missing nightly or cargo-fuzz still fails the rows.
fuzz_skipped=""
if [ $cross = 1 ] && { [ -z "$only" ] || [ "$only" = native ] || [ "$only" = fuzz ]; } &&
   ! command -v rustup >/dev/null 2>&1; then
  fuzz_skipped="fuzzing not run: it needs rustup's nightly toolchain and cargo-fuzz (no rustup here)"
  step "fuzz: $fuzz_skipped"
elif [ $cross = 1 ] && { [ -z "$only" ] || [ "$only" = native ] || [ "$only" = fuzz ]; }; then
  step "fuzz (${FUZZ_SECONDS:-60}s per target)"
  log="$logdir/fuzz.log"
  bash scripts/fuzz.sh --seconds "${FUZZ_SECONDS:-60}" --fresh --lint --check-seeds \
    --work target/fuzz-suite >"$log" 2>&1; rc=$?
  fuzz_backend=$(cargo run -q --release --example backends 2>/dev/null | head -n1)
  p=$(grep -c '^lint [a-z-]*: ok' "$log"); f=$(grep -c '^lint [a-z-]*: FAILED' "$log")
  [ $((p + f)) -gt 0 ] || f=1
  record x86_64 native - "fuzz lint/unit tests" "$p" "$f"
  mapfile -t fuzz_rows < <(grep -E '^[a-z0-9_]+ +[0-9]+s ' "$log")
  if [ ${#fuzz_rows[@]} = 0 ]; then
    record x86_64 native - "fuzz (build)" 0 1; tail -30 "$log"
  fi
  for r in "${fuzz_rows[@]}"; do
    read -r t _ _ _ _ _ _ crashes verdict <<<"$r"
    p=0 f=1
    if [ "$crashes" = 0 ] && [ "$verdict" = ok ] && grep -q "^$t: seeds current" "$log"; then p=1 f=0; fi
    if [ "$t" = differential ]; then b=all; else b="${fuzz_backend:-?}*"; fi
    record x86_64 native "$b" "fuzz $t" $p $f
  done
  grep -E '^(target +time|[a-z0-9_]+ +[0-9]+s )|seeds|FAILED|panicked|SUMMARY|artifact' "$log"
fi

# ---------------------------------------------------------------- ARM under qemu
# cross_suite TRIPLE GCC QEMU SYSROOT CPU...
cross_suite() {
  local triple=$1 gcc=$2 qemu=$3 sysroot=$4; shift 4
  local short=${triple%%-*} tdir=target/debian
  step "$triple: build (Debian rustc $(/usr/bin/rustc --version | awk '{print $2}'))"
  local blog="$logdir/$short-build.log"
  if ! RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=$(tests_dir $tdir) cargo test --release --target "$triple" \
        --no-run --message-format=json >"$blog.json" 2>"$blog" ||
     ! RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=$tdir cargo build --release --target "$triple" \
        --lib --example backends >>"$blog" 2>&1; then
    tail -30 "$blog"
    record "$short" - - "build" 0 1
    return
  fi
  mapfile -t tests < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["executable"])' "$blog.json" | sort -u)
  local rel=$tdir/$triple/release
  text_budget "$short" "$rel/libstitchgcm.so"
  # The C ABI tests, cross-compiled against the cross-built shared library.
  local cbin=$logdir/$short-c
  mkdir -p "$cbin"
  "$gcc" -O2 -Iinclude -o "$cbin/test_native" c-tests/test_native.c -L"$rel" -lstitchgcm \
    -Wl,-rpath,"$top/$rel" &&
  "$gcc" -O2 -Iinclude -o "$cbin/test_cavp" c-tests/test_cavp.c -L"$rel" -lstitchgcm \
    -Wl,-rpath,"$top/$rel" &&
  "$gcc" -O2 -Iinclude -o "$cbin/test_threads" c-tests/test_threads.c -L"$rel" -lstitchgcm \
    -lpthread -Wl,-rpath,"$top/$rel" &&
  "$gcc" -O2 -Iinclude -o "$cbin/test_alignment" c-tests/test_alignment.c -L"$rel" -lstitchgcm \
    -Wl,-rpath,"$top/$rel" || { record "$short" - - "C build" 0 1; return; }
  # RFC 4106: against Debian's libcrypto of the target where scripts/deps.sh fetched one
  # (arm64), else the draft's ESP packets only.
  local rfc=() crypto=$top/.deps/arm64/usr/lib/aarch64-linux-gnu
  if [ "$short" = aarch64 ] && [ -e "$crypto/libcrypto.so" ]; then
    # DT_RPATH, not RUNPATH: it also finds libcrypto's own needs beside it under qemu (Debian
    # 13's OpenSSL 3.5 needs libz and libzstd; a RUNPATH serves only the program's direct ones).
    rfc=(-DHAVE_LIBCRYPTO -I.deps/arm64/usr/include -I.deps/arm64/usr/include/aarch64-linux-gnu
         -L"$crypto" -lcrypto -Wl,-rpath,"$crypto" -Wl,--disable-new-dtags)
  fi
  "$gcc" -O2 -Iinclude -o "$cbin/test_rfc4106" c-tests/test_rfc4106.c -L"$rel" -lstitchgcm \
    "${rfc[@]}" -Wl,-rpath,"$top/$rel" || { record "$short" - - "C build" 0 1; return; }
  # The cdylib's soname is libstitchgcm.so.0: make it findable next to the .so.
  ln -sf libstitchgcm.so "$rel/libstitchgcm.so.0"

  # A forced backend runs the same code under every CPU model that offers it (the model
  # only decides what is offered and detected): each runs under the first model that
  # offers it; later models run their detected backend and the ones not yet run.
  local cpu b
  local -A covered=()
  for cpu in "$@"; do
    local run=("$qemu" -L "$sysroot" -cpu "$cpu")
    mapfile -t backends < <("${run[@]}" "$rel/examples/backends")
    if [ ${#backends[@]} = 0 ]; then record "$short" "$cpu" - "backends" 0 1; continue; fi
    echo "$triple -cpu $cpu: backends ${backends[*]}"
    local first=1
    for b in "${backends[@]}"; do
      local label=$b env=()
      if [ $first = 0 ] && [ -n "${covered[$b]:-}" ]; then
        echo "$b: run under -cpu ${covered[$b]} above"
        continue
      fi
      covered[$b]=${covered[$b]:-$cpu}
      if [ $first = 1 ]; then label="$b*"; else env=(STITCHGCM_IMPL="$b"); fi
      first=0
      local log="$logdir/$short-$cpu-$b.log" p=0 f=0 rc t
      : >"$log"
      for t in "${tests[@]}"; do
        env "${env[@]}" "${run[@]}" "$t" >>"$log" 2>&1; rc=$?
        read -r tp tf < <(libtest_counts <(grep -E 'test result' "$log" | tail -n1) $rc)
        p=$((p + tp)); f=$((f + tf))
        [ $rc = 0 ] || echo "FAILED: $t" >>"$log"
      done
      record "$short" "$cpu" "$label" "rust (qemu)" $p $f
      [ $f = 0 ] || grep -E 'FAILED|panicked|failures:' "$log" | head -20
      log="$logdir/$short-$cpu-$b-c.log"
      { env "${env[@]}" "${run[@]}" "$cbin/test_native"; echo "rc=$?"
        env "${env[@]}" "${run[@]}" "$cbin/test_cavp" "$top/.vectors/cavp"; echo "rc=$?"
        env "${env[@]}" "${run[@]}" "$cbin/test_rfc4106" \
          "$top/tests/data/draft-mcgrew-gcm-test-01-esp.txt"; echo "rc=$?"
        # Threads (first use raced) and every buffer/context offset 0..15 (strict alignment).
        env "${env[@]}" "${run[@]}" "$cbin/test_threads"; echo "rc=$?"
        env "${env[@]}" "${run[@]}" "$cbin/test_alignment"; echo "rc=$?"; } >"$log" 2>&1
      read -r p f < <(plain_counts "$log" 0)
      grep -q 'rc=[1-9]' "$log" && [ "$f" = 0 ] && f=1
      record "$short" "$cpu" "$label" "C ABI (qemu)" $p $f
      [ $f = 0 ] || tail -20 "$log"
    done
    if [ "$short" = aarch64 ] || [ "$short" = armv7 ]; then
      # nettle drop-in with Debian's arm64/armhf libnettle8, every backend (scripts/test-nettle.sh).
      log="$logdir/$short-$cpu-nettle.log"
      bash scripts/test-nettle.sh "$short" "$cpu" >"$log" 2>&1; rc=$?
      read -r p f < <(plain_counts "$log" $rc)
      record "$short" "$cpu" all "nettle ABI (qemu)" $p $f
      [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10
    fi
    # libgcrypt interposer with Debian's arm64/armhf libgcrypt20 (scripts/test-gcrypt.sh).
    log="$logdir/$short-$cpu-gcrypt.log"
    bash scripts/test-gcrypt.sh "$short" "$cpu" >"$log" 2>&1; rc=$?
    read -r p f < <(plain_counts "$log" $rc)
    record "$short" "$cpu" all "libgcrypt ABI (qemu)" $p $f
    [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10
    # The OpenSSL provider with Debian's arm64/armhf libcrypto: evp_test's GCM cases and the
    # differential run, the detected backend and the NEON one; TLS and OpenSSH over loopback
    # with Debian's ARM openssl and ssh under qemu (scripts/test-openssl-provider.sh).
    log="$logdir/$short-$cpu-openssl-provider.log"
    bash scripts/test-openssl-provider.sh --qemu "$short" "$cpu" >"$log" 2>&1; rc=$?
    read -r p f < <(plain_counts "$log" $rc)
    record "$short" "$cpu" all "OpenSSL provider (qemu)" $p $f
    [ $f = 0 ] || grep -E 'FAIL' "$log" | head -10
  done
}

# The whole-call model as a structure check, not a timing test (scripts/model-arm.sh
# --whole-call --check): every trace taken and every marker found, all implementations'
# tags equal, each call ran its implementation's AES/GHASH instructions, counts grow with
# the size, the 8 KiB loop slice agrees with the loop model within 2%. Figures are printed.
# The whole-call model traces with a qemu TCG plugin, which only a dynamically linked
# qemu-user can load: Debian 12's is one, Debian 13's qemu-user is static (no -plugin
# option). Without it the rows are reported as not run, in the summary too, not failed.
whole_call_skipped=""
whole_call() { # TARGET CPU-COLUMN
  local q=qemu-aarch64; [ "$1" = aarch64 ] || q=qemu-arm
  if ! "$q" -h 2>/dev/null | grep -q '^-plugin'; then
    whole_call_skipped="whole-call model not run: this qemu-user ($("$q" --version | head -n1)) cannot load TCG plugins (Debian 13's is static; Debian 12's qemu-user can)"
    step "$1: $whole_call_skipped"
    return
  fi
  step "$1: whole-call model (qemu trace + llvm-mca; structure only)"
  local log="$logdir/whole-call-$1.log" rc p f
  bash scripts/model-arm.sh --target "$1" --no-build --whole-call --check >"$log" 2>&1; rc=$?
  read -r p f < <(sed -n 's/^whole-call check: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log") || true
  if [ $rc = 0 ] && [ "${f:-1}" = 0 ]; then record "$1" "$2" all "whole-call structure" "$p" 0
  else record "$1" "$2" all "whole-call structure" "${p:-0}" "${f:-1}"; grep -E 'FAIL|error|failed' "$log" | head -40; fi
  sed '/^# instructions per call/q' "$log" | grep -E '^(\| (bytes|16 |1420)|[A-Z0-9]+ model)' || true
}

# scripts/ctgrind.sh for an ARM target in the background (one thread: valgrind under qemu),
# joined by ctgrind_wait TARGET CPU-COLUMN WHAT once the section's other steps have run.
ctgrind_pid=""
ctgrind_start() { bash scripts/ctgrind.sh "$1" >"$logdir/ctgrind-$1.log" 2>&1 & ctgrind_pid=$!; }
ctgrind_wait() {
  local log="$logdir/ctgrind-$1.log" rc p f
  wait "$ctgrind_pid"; rc=$?
  step "$1: constant time ($3)"
  read -r p f < <(plain_counts "$log" $rc)
  record "$1" "$2" all "constant time" $p $f
  [ $f = 0 ] || grep -E '^FAIL' "$log" | head -10
}

if [ $cross = 1 ] && { [ -z "$only" ] || [ "$only" = aarch64 ]; }; then
  cross_suite aarch64-unknown-linux-gnu aarch64-linux-gnu-gcc qemu-aarch64 /usr/aarch64-linux-gnu max cortex-a57
  # Constant time: Debian's arm64 valgrind under qemu (aarch64-ce, -neon, soft) and the
  # static taint check of the AArch64 kernels (-eor3, which valgrind cannot run). valgrind is
  # one thread: it runs beside the models below and is collected after them (ctgrind_wait).
  ctgrind_start aarch64
  # The llvm-mca model as a structure check, not a timing test: every kernel must be found
  # and its loop must hold the AESE/PMULL counts the table expects (scripts/model-arm.sh).
  step "aarch64: model (llvm-mca)"
  log="$logdir/model-arm.log"
  bash scripts/model-arm.sh --target aarch64 --no-build >"$log" 2>&1; rc=$?
  bad=$(grep -E '^\| ' "$log" | grep -cE 'WARN|missing|no loop' || true)
  if [ $rc = 0 ] && [ "$bad" = 0 ]; then record aarch64 - - "model structure" 1 0
  else record aarch64 - - "model structure" 0 1; cat "$log"; fi
  grep -E '^\| (kernel|enc|dec|ghash)' "$log" || true
  whole_call aarch64 n1+a72
  ctgrind_wait aarch64 max "valgrind under qemu + static"
fi
# ---------------------------------------------------------------- bench harness under qemu
# bench/bench-gcm cross-built with only stitchgcm (no ARM peers installed) and run in quick
# mode: its timings are the emulator's, so this checks that it runs, that every backend
# agrees with the others and the known answers, and that it flags itself as emulated.
if [ $cross = 1 ] && { [ -z "$only" ] || [ "$only" = aarch64 ]; }; then
  step "aarch64: bench harness (qemu; timings meaningless)"
  rel=target/debian/aarch64-unknown-linux-gnu/release log=$logdir/aarch64-bench.log
  mkdir -p "$logdir/aarch64-c"
  # The harness's files from the list meson builds from, without the peers' (3-field) lines.
  bench_srcs=$(awk '!/^#/ && NF == 1 { print "bench/gcm/" $1 }' bench/gcm/sources.txt)
  if aarch64-linux-gnu-gcc -O2 -Iinclude -o "$logdir/aarch64-c/bench-gcm" $bench_srcs \
       -L"$rel" -lstitchgcm -lm -Wl,-rpath,"$top/$rel" >"$log" 2>&1 &&
     qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max "$logdir/aarch64-c/bench-gcm" --quick \
       --out "$logdir" >>"$log" 2>&1 && grep -q '^\*\*\* EMULATED' "$log"; then
    record aarch64 max all "bench harness (qemu)" 1 0
  else record aarch64 max all "bench harness (qemu)" 0 1; tail -20 "$log"; fi
fi
if [ $cross = 1 ] && { [ -z "$only" ] || [ "$only" = armv7 ]; }; then
  cross_suite armv7-unknown-linux-gnueabihf arm-linux-gnueabihf-gcc qemu-arm /usr/arm-linux-gnueabihf cortex-a15 max
  ctgrind_start armv7
  # The same structure check for the AArch32 kernels (arm-ce, arm-neon), on the A57 model only: the
  # A9 model is slow on loops of thousands of instructions and adds nothing to the check.
  step "armv7: model (llvm-mca)"
  log="$logdir/model-arm-a32.log"
  bash scripts/model-arm.sh --target armv7 --no-build --cpus cortex-a57 >"$log" 2>&1; rc=$?
  bad=$(grep -E '^\| ' "$log" | grep -cE 'WARN|missing|no loop' || true)
  if [ $rc = 0 ] && [ "$bad" = 0 ]; then record armv7 - - "model structure" 1 0
  else record armv7 - - "model structure" 0 1; cat "$log"; fi
  grep -E '^\| (kernel|a32-)' "$log" || true
  # arm-ce's asm! blocks switch the assembler to ARMv8 (.arch/.fpu) and back at their end:
  # the library must still be marked as an ARMv7 object.
  step "armv7: build attributes (readelf -A)"
  attrs=$(readelf -A target/debian/armv7-unknown-linux-gnueabihf/release/libstitchgcm.so 2>&1)
  if grep -q 'Tag_CPU_arch: v7$' <<<"$attrs" && grep -q 'Tag_FP_arch: VFPv3$' <<<"$attrs"; then
    record armv7 - - "build attributes" 1 0
  else record armv7 - - "build attributes" 0 1; echo "$attrs"; fi
  whole_call armv7 a15+max
  ctgrind_wait armv7 cortex-a15 "valgrind under qemu"
fi

# ---------------------------------------------------------------- summary
step "summary (* = detected backend; others forced with STITCHGCM_IMPL) in $(( $(date +%s) - started ))s"
printf '%-14s %-11s %-17s %-22s %7s %7s\n' target cpu backend suite passed failed
printf '%s\n' "${rows[@]}"
echo
[ $cross = 1 ] || echo "(on this $host host: native only; the qemu, model and fuzz parts run on x86_64 hosts)"
[ -z "$fuzz_skipped" ] || echo "($fuzz_skipped)"
[ -z "$whole_call_skipped" ] || echo "($whole_call_skipped)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
