#!/usr/bin/env bash
# The C tests built with sanitizers (gcc) and linked against the release libstitchgcm:
#   - AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover: the first report
#     fails the run; LeakSanitizer on) for every C test in the table below, the libgcrypt
#     interposer's tests (preloaded) and the pkg-config consumer;
#   - ThreadSanitizer for the threaded test (c-tests/test_threads.c).
# (Under qemu-user, where ASan may not start at all, UBSan alone, and said; see below.)
# The library itself is Rust and not instrumented; the sanitizers check the C side of every
# call (buffers, lifetimes, UB in the callers, races between the test's threads) with the
# real library in between. The pkg-config consumer is built from an install into a
# temporary prefix (c-tests/test_pkgconfig.sh, needs the meson build dir `build`).
#
# usage: scripts/sanitize.sh     prints one line per run and "N passed, M failed"
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
work=$top/target/sanitize
mkdir -p "$work/inc"
ln -sfn /usr/include/valgrind "$work/inc/valgrind"
lib=$top/target/release
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

cargo build --release --lib -q || { bad "cargo build"; echo "$pass passed, $fail failed"; exit 1; }
ln -sf libstitchgcm.so "$lib/libstitchgcm.so.0"

# name | source | extra flags | arguments  (a test that needs a library not installed here is
# reported, not skipped silently: nettle-dev is in scripts/deps.sh)
tests=(
  "native|c-tests/test_native.c||"
  "cavp|c-tests/test_cavp.c||$top/.vectors/cavp"
  "nettle (relinked)|c-tests/test_nettle.c|$(pkg-config --cflags --libs nettle 2>/dev/null)|--quick"
  "threads|c-tests/test_threads.c|-lpthread|16 20"
  "alignment|c-tests/test_alignment.c||"
  "ctgrind harness (no valgrind)|c-tests/test_ctgrind.c|-I$work/inc -ldl|--quick"
)
common=(-O1 -g -fno-sanitize-recover=all -fno-omit-frame-pointer)
asan=(-fsanitize=address,undefined "${common[@]}")
leaks=1
# LeakSanitizer cannot run under a tracer (an emulated root's proot is one): there it is off,
# and said so; everything else ASan checks still runs.
if [ "$(awk '/^TracerPid:/ {print $2}' /proc/self/status 2>/dev/null)" != 0 ]; then
  leaks=0; echo "note: traced (ptrace), so LeakSanitizer is off: leak checks need an untraced run"
fi
# Under qemu-user (an emulated ARM root: the guest's uname, the host's kernel arch) a 32-bit
# guest's thread stacks can land where ASan's fixed 32-bit shadow layout has no shadow
# (ASan then stops on its own "CHECK failed: ... AddrIsInMem"): that failure, and only it,
# is reported as not run there, since it says nothing of the code under test.
# (An ARM userland on an ARM kernel of the other width, e.g. armhf on arm64, is not that.)
emulated=0
case "$(uname -m) $(cat /proc/sys/kernel/arch 2>/dev/null || uname -m)" in
  arm*" "arm* | arm*" "aarch64 | aarch64" "arm* | aarch64" "aarch64) ;;
  arm*" "* | aarch64" "*) emulated=1 ;;
esac
export ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=0:exitcode=99
# Under qemu-user ASan may not start at all (Debian 13's gcc 14 on arm64: a program that only
# prints "hi" dies with SIGSEGV right after ASan installs its signal handlers). An empty
# program built the same way tells: if it builds but cannot run, the C tests are built with
# UBSan alone and that is said -- it is the emulator, not the code under test. Natively
# there is no such probe: a broken ASan fails the runs below.
san="ASan+UBSan"
if [ $emulated = 1 ]; then
  printf 'int main(void) { return 0; }\n' >"$work/probe.c"
  gcc "${asan[@]}" -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1 ||
    { bad "build an empty program with ASan+UBSan, see $work/probe.log"; echo "$pass passed, $fail failed"; exit 1; }
  if ! "$work/probe" >>"$work/probe.log" 2>&1; then
    asan=(-fsanitize=undefined "${common[@]}") san="UBSan"
    echo "note: ASan cannot start under qemu-user here (an empty program built with it fails, see $work/probe.log): the C tests run with UBSan alone"
  fi
fi
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The same options compiled in (c-tests/asan_options.c says why); the libgcrypt interposer's
# runs add verify_asan_link_order=0:handle_segv=0 (see below).
defaults() { # OBJECT OPTIONS
  gcc -std=gnu11 "${asan[@]}" -DSGCM_ASAN_OPTIONS="\"$2\"" -c -o "$1" c-tests/asan_options.c
}
defaults "$work/asan_options.o" "$ASAN_OPTIONS" || { bad "build c-tests/asan_options.c"; exit 1; }
defaults "$work/asan_options_preload.o" "$ASAN_OPTIONS:verify_asan_link_order=0:handle_segv=0" ||
  { bad "build c-tests/asan_options.c"; exit 1; }
for t in "${tests[@]}"; do
  IFS='|' read -r name src extra args <<<"$t"
  exe=$work/$(basename "$src" .c)-asan log=$work/$(basename "$src" .c)-asan.log
  # shellcheck disable=SC2086
  if ! gcc -std=gnu11 "${asan[@]}" -Iinclude -Ic-tests -o "$exe" "$src" "$work/asan_options.o" -L"$lib" -lstitchgcm \
       -Wl,-rpath,"$lib" $extra >"$log" 2>&1; then
    bad "$name: build with $san"; tail -5 "$log"; continue
  fi
  # shellcheck disable=SC2086
  "$exe" $args >>"$log" 2>&1; rc=$?
  if [ $rc = 0 ] && ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
    ok "$name: $san ($(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1))"
  elif [ $emulated = 1 ] && grep -q 'AddressSanitizer: CHECK failed: .*AddrIsInMem' "$log"; then
    echo "note: $name: ASan+UBSan not run to the end: under qemu-user a thread's stack lies outside ASan's 32-bit shadow (see $log)"
  else
    bad "$name: $san (rc $rc), see $log"; grep -E -A8 'ERROR: |runtime error:|^FAIL' "$log" | head -20
  fi
done

# The libgcrypt interposer's tests (scripts/test-gcrypt.sh runs them unsanitized against
# libgcrypt's transcripts): built against the system libgcrypt with the sanitizers and run
# with LD_PRELOAD=libstitchgcm-gcrypt.so (the preloaded library comes before libasan, which
# ASan accepts with verify_asan_link_order=0; handle_segv=0 leaves the crash that one check
# expects from the real libgcrypt a crash).
so=$top/target/release/libstitchgcm-gcrypt.so
if scripts/build-gcrypt-preload.sh "$top/target" "$so" >"$work/gcrypt-build.log" 2>&1; then
  ginc=$(pkg-config --cflags libgcrypt) glibs=$(pkg-config --libs libgcrypt)
  for t in "transcript|c-tests/test_gcrypt.c c-tests/test_gcrypt_misuse.c" \
           "interposer only|c-tests/test_gcrypt_preload.c"; do
    name=${t%%|*} srcs=${t#*|} exe=$work/gcrypt-${name// /-} log=$work/gcrypt-${name// /-}.log
    # shellcheck disable=SC2086
    if gcc -std=gnu11 "${asan[@]}" -Ic-tests $ginc -o "$exe" $srcs "$work/asan_options_preload.o" $glibs -ldl >"$log" 2>&1 &&
       ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0:handle_segv=0 LD_PRELOAD=$so "$exe" >>"$log" 2>&1 &&
       grep -qE '^[0-9]+ passed, 0 failed' "$log" &&
       ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
      ok "libgcrypt interposer, $name: $san ($(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1))"
    else bad "libgcrypt interposer, $name: $san, see $log"; grep -E -A8 'ERROR: |runtime error:|^FAIL' "$log" | head -20; fi
  done
else bad "libgcrypt interposer: build, see $work/gcrypt-build.log"; fi

# The pkg-config consumer, shared and static, from an install of the meson build.
if [ -d build/meson-private ]; then
  log=$work/pkgconfig-asan.log
  if CC="cc ${asan[*]} $work/asan_options.o" bash c-tests/test_pkgconfig.sh build c-tests/pkgconfig_consumer.c >"$log" 2>&1 &&
     ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
    ok "pkg-config consumer: $san ($(tail -n1 "$log"))"
  else bad "pkg-config consumer: $san, see $log"; tail -10 "$log"; fi
else
  bad "pkg-config consumer: no meson build dir (run meson setup build)"
fi

# ThreadSanitizer: the threaded test, more threads than cores, first use raced. gcc has no
# TSan for 32-bit ARM (no libtsan on armhf): said, not counted.
exe=$work/test_threads-tsan log=$work/test_threads-tsan.log
if [ "$(dpkg --print-architecture 2>/dev/null)" = armhf ]; then
  echo "note: threads: TSan not run (gcc has no ThreadSanitizer for 32-bit ARM)"
elif gcc -std=gnu11 -O1 -g -fsanitize=thread -Iinclude -Ic-tests -o "$exe" c-tests/test_threads.c \
     -L"$lib" -lstitchgcm -lpthread -Wl,-rpath,"$lib" >"$log" 2>&1; then
  TSAN_OPTIONS=halt_on_error=1:exitcode=99 "$exe" 24 20 >>"$log" 2>&1; rc=$?
  if [ $rc = 0 ] && ! grep -q 'WARNING: ThreadSanitizer' "$log"; then
    ok "threads: TSan ($(grep -E '^threads:' "$log"))"
  else bad "threads: TSan (rc $rc), see $log"; grep -A12 'WARNING: ThreadSanitizer' "$log" | head -20; fi
else bad "threads: build with TSan"; tail -5 "$log"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
