#!/usr/bin/env bash
# Constant-time checks of every backend (method and argument: docs/constant-time.md).
#
#   native    valgrind memcheck over c-tests/test_ctgrind.c (secrets marked undefined, the
#             library built with the cargo feature ct-validation; the OpenSSL provider's
#             EVP path too, the module built over that library) for each backend valgrind
#             can run here (soft, x86_64-aesni: valgrind hides VAES from CPUID); the static
#             taint check (scripts/ct-static.py) of the x86_64 kernels (x86_64-vaes, with
#             aesni and soft as a second opinion) and its self-test.
#   aarch64   Debian's arm64 valgrind under qemu-aarch64 -cpu max (.deps/valgrind-arm64,
#             scripts/deps.sh) for each backend it can run (aarch64-ce, aarch64-neon, soft:
#             valgrind 3.19 has no SHA3, so it hides aarch64-ce-eor3), and the static check
#             of the AArch64 kernels (aarch64-ce covers the -eor3 loops).
#   armv7     Debian's armhf valgrind under qemu-arm -cpu cortex-a15 (arm-neon, soft; under
#             -cpu max valgrind hides AES/PMULL), and the static check of the AArch32 kernels
#             (arm-ce's only machine-code check; arm-neon and soft as a second opinion).
#
# Every mode also proves the check can fail: the harness's deliberately leaky function
# (--leak) must be reported, and the library built WITHOUT ct-validation must be reported
# at its comparison verdicts. Prints one line per run and "N passed, M failed".
# usage: scripts/ctgrind.sh native|aarch64|armv7
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mode=${1:?usage: scripts/ctgrind.sh native|aarch64|armv7}
work=$top/target/ctgrind/$mode
mkdir -p "$work/inc"
ln -sfn /usr/include/valgrind "$work/inc/valgrind"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; exit; }

case $mode in
native)
  triple="" cc=gcc run=() vg=(valgrind) origins=yes
  ctlib=$top/target/ctgrind/release plainlib=$top/target/release
  build_ct() { cargo build --release --lib --example backends -q --features ct-validation --target-dir target/ctgrind; }
  build_plain() { cargo build --release --lib -q; }
  ;;
aarch64 | armv7)
  if [ $mode = aarch64 ]; then
    triple=aarch64-unknown-linux-gnu cc=aarch64-linux-gnu-gcc q=qemu-aarch64 cpu=max
    sys=$top/.deps/valgrind-arm64 tool=memcheck-arm64-linux
  else
    triple=armv7-unknown-linux-gnueabihf cc=arm-linux-gnueabihf-gcc q=qemu-arm cpu=cortex-a15
    sys=$top/.deps/valgrind-armhf tool=memcheck-arm-linux
  fi
  [ -x "$sys/usr/libexec/valgrind/$tool" ] || { bad "no $sys (run scripts/deps.sh)"; finish; }
  run=("$q" -L "$sys" -cpu "$cpu") origins=no
  export VALGRIND_LIB=$sys/usr/libexec/valgrind VALGRIND_LAUNCHER=$sys/usr/bin/valgrind
  vg=("${run[@]}" "$sys/usr/libexec/valgrind/$tool")
  ctlib=$top/target/debian-ct/$triple/release plainlib=$top/target/debian/$triple/release
  build_ct() { RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian-ct cargo build --release -q \
                 --target $triple --lib --example backends --features ct-validation; }
  build_plain() { RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian cargo build --release -q \
                    --target $triple --lib; }
  ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac

build_ct && build_plain || { bad "cargo build"; finish; }
for d in "$ctlib" "$plainlib"; do ln -sf libstitchgcm.so "$d/libstitchgcm.so.0"; done
# (natively with the OpenSSL provider's front-end, where libcrypto's headers are installed)
ctprov=()
# shellcheck disable=SC2207
[ $mode = native ] && pkg-config --exists libcrypto && ctprov=(-DCT_PROVIDER $(pkg-config --cflags libcrypto))
"$cc" -O2 -g -std=c11 -Wall -Wextra -Iinclude -I"$work/inc" "${ctprov[@]}" -o "$work/test_ctgrind" \
  c-tests/test_ctgrind.c -L"$ctlib" -lstitchgcm -ldl -Wl,-rpath,"$ctlib" ||
  { bad "C build"; finish; }
# The OpenSSL provider module over the ct-validation library, for the harness's provider
# front-end (native: the host's libcrypto; the ARM roots of .deps have no valgrind-able
# libcrypto setup here).
prov=()
if [ $mode = native ] && pkg-config --exists libcrypto; then
  # shellcheck disable=SC2046
  if gcc -O2 -g -fPIC -shared -Iinclude $(pkg-config --cflags libcrypto) -o "$work/stitchgcm.so" \
       provider/*.c -L"$ctlib" -lstitchgcm $(pkg-config --libs libcrypto) \
       -Wl,--version-script=provider/stitchgcm.map -Wl,--no-undefined; then
    prov=(STITCHGCM_CT_PROVIDER="$work/stitchgcm.so")
  else bad "OpenSSL provider build"; fi
fi

# memcheck LOG ENVVARS... -- ARGS: runs the harness under valgrind; prints the error count.
# Origins (where an undefined value came from) cost a quarter more time under qemu: there
# they are only tracked when a run is repeated to explain its failure (ORIGINS=yes).
memcheck() {
  local log=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" "${vg[@]}" --track-origins="${ORIGINS:-$origins}" --read-inline-info=yes \
    --num-callers=30 --suppressions=c-tests/ctgrind.supp "$work/test_ctgrind" "$@" >"$log" 2>&1
  echo "rc=$?" >>"$log"
  sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n1
}

# The backends this build and CPU offer, with and without valgrind in between.
mapfile -t all < <("${run[@]}" "$ctlib/examples/backends")
mapfile -t under < <("${vg[@]}" -q "$ctlib/examples/backends" 2>/dev/null)
echo "backends: ${all[*]}; under valgrind: ${under[*]}"
[ ${#under[@]} -gt 0 ] || { bad "valgrind runs nothing here"; finish; }
for b in "${under[@]}"; do
  log=$work/$b.log
  n=$(memcheck "$log" STITCHGCM_IMPL="$b" "${prov[@]}" -- )
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
  if [ "$n" = 0 ] && grep -q 'rc=0' "$log" && [[ $summary == *" 0 failed" ]]; then
    ok "ctgrind $mode $b: 0 errors ($summary; $(grep -o '[0-9]* messages' "$log"); OpenSSL provider $(grep -o 'OpenSSL provider [a-z]*' "$log" | cut -d' ' -f3))"
  else
    bad "ctgrind $mode $b: ${n:-?} errors ($summary), see $log"
    [ $origins = yes ] || ORIGINS=yes memcheck "$log" STITCHGCM_IMPL="$b" "${prov[@]}" -- >/dev/null
    grep -A12 -E '(Conditional jump|Use of uninitialised)' "$log" | head -40
  fi
done
for b in "${all[@]}"; do
  printf '%s\n' "${under[@]}" | grep -qx "$b" ||
    echo "not runnable under valgrind: $b (static check below)"
done

# The check can fail: a leaky function in the harness, and the library's own comparison
# verdicts when nothing declassifies them.
n=$(memcheck "$work/leak.log" -- --leak)
if [ "${n:-0}" -ge 2 ]; then ok "control: the leaky function is reported ($n errors)"
else bad "control: the leaky function was NOT reported (${n:-?} errors), see $work/leak.log"; fi
n=$(memcheck "$work/plain.log" LD_LIBRARY_PATH="$plainlib" STITCHGCM_IMPL="${under[0]}" -- --quick)
if [ "${n:-0}" -gt 0 ] && grep -qE '(at|by) 0x[0-9A-F]+: stitchgcm::' "$work/plain.log"; then
  ok "control: without ct-validation the verdict branches inside the library are reported ($n errors)"
else bad "control: the library without ct-validation was NOT reported (${n:-?} errors), see $work/plain.log"; fi
if [ ${#prov[@]} -gt 0 ]; then
  # and through the provider: its final branches on the library's verdict
  n=$(memcheck "$work/plain-provider.log" LD_LIBRARY_PATH="$plainlib" STITCHGCM_IMPL="${under[0]}" "${prov[@]}" -- --quick)
  if [ "${n:-0}" -gt 0 ] && grep -qE '(at|by) 0x[0-9A-F]+: gcm_final ' "$work/plain-provider.log"; then
    ok "control: without ct-validation the provider's verdict branch is reported"
  else bad "control: the provider's verdict branch was NOT reported, see $work/plain-provider.log"; fi
fi

# Static taint check of the kernels (all backends of this architecture in the table).
case $mode in
native) # the host's (Debian's architecture: an armhf userland may run on an arm64 kernel)
  case $(dpkg --print-architecture 2>/dev/null) in amd64) arch=x86_64 ;; arm64) arch=aarch64 ;; *) arch="" ;; esac ;;
aarch64) arch=aarch64 ;;
armv7) arch=armv7 ;;
esac
if [ -n "$arch" ]; then
  out=$(python3 scripts/ct-static.py --lib "$plainlib/libstitchgcm.so" --arch $arch)
  echo "$out" | grep -v '^[0-9]* passed'
  p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
fi
if [ $mode = native ]; then
  # On x86_64 every architecture through the cross compilers; on an ARM host its own.
  own=()
  case $(dpkg --print-architecture 2>/dev/null) in arm64) own=(--arch aarch64) ;; armhf) own=(--arch armv7) ;; esac
  if python3 scripts/ct-static.py --selftest "${own[@]}" >"$work/static-selftest.log" 2>&1; then
    ok "control: ct-static flags its leaky functions (${own[1]:-x86_64, aarch64 and armv7})"
  else bad "control: ct-static --selftest, see $work/static-selftest.log"; fi
fi
finish
