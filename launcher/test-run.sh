#!/usr/bin/env bash
# stitchgcm-run as installed: meson install into a DESTDIR, then the launcher from there.
#   - --env: our libraries first, then the LD_PRELOAD entries that were there, ours not twice;
#   - --gnutls-nettle: GNUTLS_CPUID_OVERRIDE=0x1 exactly where GnuTLS has code of its own;
#   - --check on check-target (nettle's and libgcrypt's AES-GCM, if both were found): every
#     reference bound to the drop-ins, each drop-in reporting the backend the library
#     itself reports (sgcm_impl_name through the probe) and STITCHGCM_IMPL=soft changing
#     both; with --nettle-only the libgcrypt calls stay libgcrypt's and --check must say so;
#   - --check on a program that makes no such calls must not claim anything.
# usage: test-run.sh BUILD_DIR [CHECK_TARGET]
set -uo pipefail
build=$1 target=${2:-}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null || { echo "FAIL: meson install"; exit 1; }
run=$(find "$dest" -path '*/bin/stitchgcm-run' | head -n1)
[ -x "$run" ] || { echo "FAIL: stitchgcm-run not installed"; exit 1; }
libdir=$(dirname "$(find "$dest" -name libstitchgcm.so.0 | head -n1)")
n=$libdir/libstitchgcm.so.0 g=$(find "$dest" -name libstitchgcm-gcrypt.so | head -n1)

out=$(LD_PRELOAD="/x/a.so $n:/x/b.so" "$run" --env 2>/dev/null)
[ "$out" = "LD_PRELOAD=$n:$g:/x/a.so:/x/b.so" ] && ok || bad "--env merge: $out"
out=$(LD_PRELOAD= "$run" --env --gcrypt-only)
[ "$out" = "LD_PRELOAD=$g" ] && ok || bad "--env --gcrypt-only: $out"
out=$("$run" --env --gnutls-nettle 2>/dev/null | grep GNUTLS_CPUID_OVERRIDE)
case $(uname -m) in
  x86_64 | aarch64) [ "$out" = GNUTLS_CPUID_OVERRIDE=0x1 ] && ok || bad "--gnutls-nettle: '$out'" ;;
  *) [ -z "$out" ] && ok || bad "--gnutls-nettle on $(uname -m): '$out'" ;;
esac
out=$(LD_PRELOAD= "$run" sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$n:$g" ] && ok || bad "run: LD_PRELOAD=$out"

if [ -n "$target" ]; then
  want=$(LD_PRELOAD=$n "$(find "$dest" -name stitchgcm-probe | head -n1)" backends | sed -n 's/.*: backend \([^;]*\);.*/\1/p')
  out=$("$run" --check "$target" 2>&1); rc=$?
  if [ $rc = 0 ] && grep -q "^check-target: both tags right" <<<"$out" &&
     [ "$(grep -c "backend $want\b" <<<"$out")" = 2 ] &&
     grep -q 'nettle ABI  [0-9]* reference(s) .* bound to libstitchgcm.so.0' <<<"$out" &&
     grep -q 'libgcrypt   [0-9]* reference(s) .* bound to libstitchgcm-gcrypt.so' <<<"$out" &&
     ! grep -q 'NOT interposed' <<<"$out"; then ok; else bad "--check (backend $want):"; echo "$out"; fi
  out=$(STITCHGCM_IMPL=soft "$run" --check "$target" 2>&1); rc=$?
  [ $rc = 0 ] && [ "$(grep -c 'backend soft' <<<"$out")" = 2 ] && ok || { bad "--check with STITCHGCM_IMPL=soft"; echo "$out"; }
  out=$(STITCHGCM_IMPL=bogus "$run" --check "$target" 2>&1); rc=$?
  [ $rc != 0 ] && grep -q 'NO backend' <<<"$out" && ok || { bad "--check with a bogus backend passed"; echo "$out"; }
  out=$("$run" --check --nettle-only "$target" 2>&1); rc=$?
  [ $rc = 0 ] && grep -q 'libstitchgcm-gcrypt.so is not loaded' <<<"$out" && ok ||
    { bad "--check --nettle-only"; echo "$out"; }
else
  echo "check-target not built (nettle or libgcrypt headers missing): --check on it skipped"
fi
out=$("$run" --check true 2>&1); rc=$?
[ $rc != 0 ] && grep -q 'no references' <<<"$out" && ok || { bad "--check true claimed bindings"; echo "$out"; }
echo "$pass passed, $fail failed"
[ $fail = 0 ]
