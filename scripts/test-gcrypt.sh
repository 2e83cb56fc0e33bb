#!/usr/bin/env bash
# The libgcrypt interposer, tested the way users deploy it. c-tests/test_gcrypt.c (with
# test_gcrypt_misuse.c) is compiled against the SYSTEM libgcrypt headers and linked with
# -lgcrypt; it prints a transcript of every call's return value and output (libgcrypt's log
# lines included). Each run below must reproduce the transcript of plain libgcrypt line by
# line, and pass the program's own checks:
#
#   native            x86_64: LD_PRELOAD=libstitchgcm-gcrypt.so once per backend this CPU
#                     runs; LD_DEBUG=bindings must show every gcry_cipher_* reference of the
#                     program bound to the interposer and libgcrypt's gcry_cipher_* reached
#                     only from the interposer (the forwarded calls); with STITCHGCM_IMPL=bogus
#                     the transcript must change (AES-GCM opens are refused: proof that our
#                     code serves them); in FIPS mode (LIBGCRYPT_FORCE_FIPS_MODE=1) the preloaded
#                     transcript must be libgcrypt's FIPS one (nothing served); the library
#                     exports exactly the gcry_cipher_* set,
#                     @@GCRYPT_1.6, under its own soname; c-tests/test_gcrypt_preload.c checks
#                     what only the interposer does (bad input, the deliberate differences
#                     next to the real library's answers, geniv, secure memory).
#   aarch64|armv7 CPU the same under qemu -cpu CPU with Debian's arm64/armhf libgcrypt20 and
#                     libgpg-error0 (fetched by scripts/deps.sh into .deps/arm64, .deps/armhf),
#                     the C programs cross-compiled against the system headers, the
#                     interposer cross-built with Debian's rustc; the transcript in --quick.
# The interposer is built by scripts/build-gcrypt-preload.sh (as meson does).
#
# Each mode prints "N passed, M failed" (the format scripts/test.sh counts).
# usage: scripts/test-gcrypt.sh native | aarch64 CPU | armv7 CPU
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mode=${1:?mode}
work=$top/target/test-gcrypt/$mode
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; }
src=(c-tests/test_gcrypt.c c-tests/test_gcrypt_misuse.c)

case $mode in
native)
  triple="" cc=gcc rel=$top/target/release run=() quick=""
  libs=$(pkg-config --libs libgcrypt) inc=$(pkg-config --cflags libgcrypt)
  tdir=$top/target
  cargo build --release -q --example backends || { bad "cargo build"; finish; exit; } ;;
aarch64 | armv7)
  cpu=${2:?cpu}
  if [ $mode = aarch64 ]; then triple=aarch64-unknown-linux-gnu cc=aarch64-linux-gnu-gcc arch=arm64 multi=aarch64-linux-gnu q=qemu-aarch64
  else triple=armv7-unknown-linux-gnueabihf cc=arm-linux-gnueabihf-gcc arch=armhf multi=arm-linux-gnueabihf q=qemu-arm; fi
  rel=$top/target/debian/$triple/release quick=--quick
  deps=$top/.deps/$arch
  [ -e "$deps/usr/lib/$multi/libgcrypt.so.20" ] || { bad "$arch libgcrypt20 missing (scripts/deps.sh)"; finish; exit; }
  libpath=$deps/usr/lib/$multi:$deps/lib/$multi
  run=("$q" -L "/usr/$multi" -cpu "$cpu" -E "LD_LIBRARY_PATH=$libpath")
  # The native headers (gcrypt.h, gpg-error.h: the same API on every target), Debian's
  # ARM libraries.
  hdr=$work/include; mkdir -p "$hdr"
  for h in /usr/include/gcrypt.h /usr/include/x86_64-linux-gnu/gpg-error.h /usr/include/x86_64-linux-gnu/gpgrt.h; do
    ln -sf "$h" "$hdr/"
  done
  inc="-I$hdr" libs="$deps/usr/lib/$multi/libgcrypt.so.20 -Wl,-rpath-link,$deps/lib/$multi:$deps/usr/lib/$multi"
  tdir=$top/target/debian
  RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=$tdir cargo build --release -q --target $triple \
    --example backends || { bad "cross cargo build"; finish; exit; } ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac

so=$rel/libstitchgcm-gcrypt.so
scripts/build-gcrypt-preload.sh "$tdir" "$so" "$triple" >"$work/build.log" 2>&1 ||
  { bad "build $so"; tail -20 "$work/build.log"; finish; exit; }
# shellcheck disable=SC2086
$cc -O2 -Wall $inc -o "$work/test_gcrypt" "${src[@]}" $libs &&
$cc -O2 -Wall $inc -o "$work/test_gcrypt_preload" c-tests/test_gcrypt_preload.c $libs -ldl ||
  { bad "C build"; finish; exit; }

# The exports: exactly the gcry_cipher_* set, each the default version @@GCRYPT_1.6; no
# soname of libgcrypt's, nothing of stitchgcm's own C API or nettle's.
want=$(sed -n 's/^ *\(gcry_cipher_[a-z_]*\);$/\1/p' preload/gcrypt.map | sort)
got=$(objdump -T "$so" | awk '$2 == "g" && $(NF-1) == "GCRYPT_1.6" && $NF ~ /^gcry_/ {print $NF}' | sort)
other=$(objdump -T "$so" | awk '$2 == "g" && $4 != "*UND*" && $(NF-1) != "GCRYPT_1.6"' | wc -l)
soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
if [ "$want" = "$got" ] && [ "$other" = 0 ] && [ "$soname" = libstitchgcm-gcrypt.so ]; then ok
  echo "exports: $(echo "$got" | wc -l) gcry_cipher_* functions @@GCRYPT_1.6, nothing else; soname $soname"
else bad "exports: want [$want] got [$got], $other others, soname $soname"; fi

# The exports against the libgcrypt installed here, whatever its version: every function
# its gcrypt.h declares on a cipher handle (the handle is ours) is exported by the
# interposer, and whatever the interposer exports that this libgcrypt does not is one of
# the functions it declares no handle function for, i.e. a later libgcrypt's (1.11's
# setup_geniv/geniv on 1.10); c-tests/test_gcrypt_preload.c checks them against the version
# the loaded library reports.
if [ -z "$triple" ]; then reallib=$(ldd "$work/test_gcrypt" | awk '$1 ~ /^libgcrypt\.so\.20/ {print $3}')
else reallib=$deps/usr/lib/$multi/libgcrypt.so.20; fi
header=$(pkg-config --variable=includedir libgcrypt 2>/dev/null || echo /usr/include)/gcrypt.h
declared=$(grep -oE 'gcry_cipher_[a-z_]+ *\( *gcry_cipher_hd_t' "$header" | sed 's/ *(.*//' | sort -u)
theirs=$(objdump -T "$reallib" 2>/dev/null | awk '$2 == "g" && $4 != "*UND*" && $NF ~ /^gcry_cipher_/ {print $NF}' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$got"))
extra=$(comm -13 <(echo "$theirs") <(echo "$got"))
later=$(comm -12 <(echo "$extra") <(echo "$declared"))
if [ -n "$declared" ] && [ -n "$theirs" ] && [ -z "$missing" ] && [ -z "$later" ]; then ok
  echo "exports vs $(basename "$header") and $reallib: all $(echo "$declared" | wc -l) handle functions interposed; not in this libgcrypt: ${extra:-nothing}" | paste -sd' '
else bad "exports vs the installed libgcrypt ($reallib, $header): $(echo "$declared" | grep -c .) handle functions declared, $(echo "$theirs" | grep -c .) gcry_cipher_* exported; not interposed [$missing]; ours, declared, not in its library [$later]"; fi

# transcript_ok NAME OUT: the program passed its own checks and matches plain libgcrypt's.
transcript_ok() {
  if ! grep -q '^[0-9]* passed, 0 failed$' "$2"; then bad "$1: own checks"; grep -E '^FAIL' "$2" | head -5; return; fi
  if ! cmp -s "$work/ref.out" "$2"; then bad "$1: transcript differs from plain libgcrypt"; diff "$work/ref.out" "$2" | head -8; return; fi
  ok
}
# envrun VAR=VALUE... -- PROGRAM ARGS: runs PROGRAM (under qemu for ARM) with the variables
# set for it alone.
envrun() {
  local e=() x=() v
  while [ "$1" != -- ]; do e+=("$1"); shift; done
  shift
  if [ ${#run[@]} = 0 ]; then env "${e[@]}" "$@"; return; fi
  for v in "${e[@]}"; do x+=(-E "$v"); done
  "${run[@]}" "${x[@]}" "$@"
}

envrun X=1 -- "$work/test_gcrypt" $quick >"$work/ref.out" 2>&1
grep -q '^[0-9]* passed, 0 failed$' "$work/ref.out" && ok || { bad "plain libgcrypt run"; tail -3 "$work/ref.out"; }
echo "transcript: $(wc -l <"$work/ref.out") lines"
mapfile -t backends < <(envrun X=1 -- "$rel/examples/backends")
for b in "${backends[@]}"; do
  envrun STITCHGCM_IMPL="$b" LD_PRELOAD="$so" -- "$work/test_gcrypt" $quick >"$work/pre-$b.out" 2>&1
  transcript_ok "LD_PRELOAD ($b)" "$work/pre-$b.out"
done

# Bindings: the program's gcry_cipher_* references all to the interposer, and libgcrypt's
# gcry_cipher_* functions looked up only by the interposer (the forwarded calls).
rm -f "$work"/bind.*
envrun LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/bind" LD_PRELOAD="$so" -- "$work/test_gcrypt" $quick >/dev/null 2>&1
binds=$(cat "$work"/bind.* 2>/dev/null | grep "symbol \`gcry_cipher_")
count() { grep -cF -- "$1" <<<"$binds" || true; }
prog_all=$(count "binding file $work/test_gcrypt [0] to ")
prog_ours=$(count "binding file $work/test_gcrypt [0] to $so [0]")
fwd_all=$(grep -cE '/libgcrypt\.so\.20 \[0\]: normal symbol' <<<"$binds" || true)
fwd_ours=$(grep -E '/libgcrypt\.so\.20 \[0\]: normal symbol' <<<"$binds" | grep -cF "binding file $so [0] to " || true)
rm -f "$work"/bind.*
if [ "$prog_all" -gt 0 ] && [ "$prog_all" = "$prog_ours" ] && [ "$fwd_ours" -gt 0 ] && [ "$fwd_all" = "$fwd_ours" ]; then ok
  echo "bindings: the program's $prog_all gcry_cipher_* references all to the interposer; libgcrypt's gcry_cipher_* bound $fwd_all times, all from the interposer"
else bad "bindings: program $prog_ours of $prog_all to the interposer; libgcrypt's gcry_cipher_* $fwd_ours of $fwd_all from the interposer"; fi

# Negative control: with a backend that does not exist every AES-GCM open is refused, so the
# transcript must change (and say why on stderr).
envrun STITCHGCM_IMPL=bogus LD_PRELOAD="$so" -- "$work/test_gcrypt" $quick >"$work/bogus.out" 2>&1
if cmp -s "$work/ref.out" "$work/bogus.out"; then bad "negative control: a bogus backend did not change the transcript"
elif grep -q '^stitchgcm: gcry_cipher_open: STITCHGCM_IMPL' "$work/bogus.out"; then ok
else bad "negative control: no refusal message"; fi

# FIPS mode (forced through libgcrypt's LIBGCRYPT_FORCE_FIPS_MODE): the interposer serves
# nothing, so the transcript is libgcrypt's FIPS one (whose own checks fail: GCM encryption
# after a direct setiv is refused there, several algorithms do not open).
envrun LIBGCRYPT_FORCE_FIPS_MODE=1 -- "$work/test_gcrypt" $quick >"$work/fips-ref.out" 2>&1
envrun LIBGCRYPT_FORCE_FIPS_MODE=1 LD_PRELOAD="$so" -- "$work/test_gcrypt" $quick >"$work/fips-pre.out" 2>&1
if ! grep -q '^[0-9]* passed, [0-9]* failed$' "$work/fips-ref.out"; then bad "FIPS mode: the plain run did not finish"
elif cmp -s "$work/fips-ref.out" "$work/fips-pre.out"; then ok; echo "FIPS mode: transcript identical to libgcrypt's (nothing served)"
else bad "FIPS mode: the preloaded transcript differs"; diff "$work/fips-ref.out" "$work/fips-pre.out" | head -6; fi

envrun LD_PRELOAD="$so" -- "$work/test_gcrypt_preload" >"$work/preload.out" 2>&1
if grep -q '^[0-9]* passed, 0 failed$' "$work/preload.out"; then ok; echo "test_gcrypt_preload: $(tail -1 "$work/preload.out")"
else bad "test_gcrypt_preload"; grep -E 'FAIL|passed' "$work/preload.out" | head -8; fi
finish
