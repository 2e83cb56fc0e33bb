#!/usr/bin/env bash
# stitchgcm-run as installed: meson install into a DESTDIR, then the launcher from there.
#   - --env: our libraries first, then the LD_PRELOAD entries that were there, ours not twice;
#   - --gnutls-nettle: GNUTLS_CPUID_OVERRIDE=0x1 exactly where GnuTLS has code of its own;
#   - --check on check-target (nettle's and libgcrypt's AES-GCM, if both were found): every
#     reference bound to the drop-ins, each drop-in reporting the backend the library
#     itself reports (sgcm_impl_name through the probe) and STITCHGCM_IMPL=soft changing
#     both; with --nettle-only the libgcrypt calls stay libgcrypt's and --check must say so;
#   - --check on a program that makes no such calls must not claim anything;
#   - --openssl (if the provider was built) on openssl-target, a plain EVP_aes_128_gcm()
#     program with a known answer that names the provider serving it: stitchgcm's under the
#     launcher, the default one without; --env's variables; --check's fetch report and
#     module count, and its refusal when the provider cannot load (STITCHGCM_IMPL=bogus);
#     the program's own configuration kept (a provider it activates stays active); the
#     module's libstitchgcm.so.0 the installed one.
# usage: test-run.sh BUILD_DIR [CHECK_TARGET] [--openssl OPENSSL_TARGET]
set -uo pipefail
build=$1 target="" ossl_target=""
shift
while [ $# -gt 0 ]; do
  case $1 in
    --openssl) ossl_target=$2; shift ;;
    *) target=$1 ;;
  esac
  shift
done
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

if [ -n "$ossl_target" ]; then
  module=$(find "$dest" -name stitchgcm.so | head -n1)
  cnf=$(find "$dest" -path '*/share/stitchgcm/openssl.cnf' | head -n1)
  [ -n "$module" ] && [ -n "$cnf" ] && ok || bad "stitchgcm.so ($module) or openssl.cnf ($cnf) not installed"
  probe=$(find "$dest" -name stitchgcm-probe | head -n1)
  sysconf=$(env -u OPENSSL_CONF "$probe" openssl-conf)
  [ -f "$sysconf" ] || sysconf=/dev/null
  out=$(env -u OPENSSL_CONF LD_PRELOAD= "$run" --env --openssl-only)
  want="OPENSSL_CONF=$cnf
STITCHGCM_OPENSSL_BASE=$sysconf
STITCHGCM_OPENSSL_MODULE=$module"
  [ "$out" = "$want" ] && ok || bad "--env --openssl-only: '$out', not '$want'"
  # The program's own OPENSSL_CONF becomes the base; a nested --openssl keeps the outer base.
  printf 'openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n[provider_sect]\nlegacy = legacy_sect\n[legacy_sect]\nactivate = 1\n' >"$dest/own.cnf"
  out=$(OPENSSL_CONF=$dest/own.cnf "$run" --env --openssl | grep STITCHGCM_OPENSSL_BASE)
  [ "$out" = "STITCHGCM_OPENSSL_BASE=$dest/own.cnf" ] && ok || bad "--env with OPENSSL_CONF set: '$out'"
  out=$(OPENSSL_CONF=$dest/own.cnf "$run" --openssl-only "$run" --env --openssl-only | grep STITCHGCM_OPENSSL_BASE)
  [ "$out" = "STITCHGCM_OPENSSL_BASE=$dest/own.cnf" ] && ok || bad "nested --openssl: '$out'"

  # The negative control first: the program tells the providers apart.
  out=$(env -u OPENSSL_CONF "$ossl_target" 2>&1); rc=$?
  [ $rc = 0 ] && [ "$out" = "openssl-target: provider default, known answer right" ] && ok ||
    bad "openssl-target alone: $out"
  for opt in --openssl --openssl-only; do
    out=$(env -u OPENSSL_CONF LD_PRELOAD= "$run" $opt sh -c '"$1"; echo "LD_PRELOAD=$LD_PRELOAD"' sh "$ossl_target" 2>&1); rc=$?
    if [ $opt = --openssl ]; then pre="$n:$g"; else pre=""; fi
    [ $rc = 0 ] && [ "$out" = "openssl-target: provider stitchgcm, known answer right
LD_PRELOAD=$pre" ] && ok || bad "$opt openssl-target: $out"
  done
  # The module is linked against libstitchgcm.so.0: this installation's, through its RUNPATH.
  out=$(env -u OPENSSL_CONF LD_PRELOAD= LD_DEBUG=files "$run" --openssl-only "$ossl_target" 2>&1 |
        sed -n 's/.*calling init: \(.*libstitchgcm\.so\.0\)$/\1/p' | xargs -r readlink -m | sort -u)
  [ "$out" = "$n" ] && ok || bad "the module's libstitchgcm.so.0: '$out', not $n"
  want=$(LD_PRELOAD=$n "$probe" backends | sed -n 's/.*: backend \([^;]*\);.*/\1/p')
  out=$(env -u OPENSSL_CONF "$run" --check --openssl-only "$ossl_target" 2>&1); rc=$?
  if [ $rc = 0 ] && grep -q "AES-128-GCM from provider stitchgcm ($module, backend $want), known answer right" <<<"$out" &&
     grep -q 'provider stitchgcm, known answer right' <<<"$out" &&
     grep -q 'libcrypto loaded stitchgcm.so in 1 of 1 process(es) using it' <<<"$out" &&
     ! grep -q 'LD_PRELOAD\|nettle ABI' <<<"$out"; then ok; else bad "--check --openssl-only openssl-target:"; echo "$out"; fi
  out=$(env -u OPENSSL_CONF STITCHGCM_IMPL=bogus "$run" --check --openssl-only "$ossl_target" 2>&1); rc=$?
  [ $rc != 0 ] && grep -q 'AES-128-GCM from provider default' <<<"$out" &&
    grep -q 'openssl-target: provider default' <<<"$out" && grep -q '^verdict: not' <<<"$out" && ok ||
    { bad "--check --openssl-only with a bogus backend passed"; echo "$out"; }
  out=$(env -u OPENSSL_CONF "$run" --check --openssl-only sh -c : 2>&1); rc=$?
  [ $rc != 0 ] && grep -q 'no process used libcrypto' <<<"$out" && ok || { bad "--check --openssl-only true passed"; echo "$out"; }
  # The base's own providers stay active (openssl's CLI, if there is one, lists them).
  if command -v openssl >/dev/null; then
    out=$(OPENSSL_CONF=$dest/own.cnf "$run" --openssl-only openssl list -providers 2>&1)
    [ "$(grep -cE '^  (default|legacy|stitchgcm)$' <<<"$out")" = 3 ] && ok || bad "the base's legacy provider lost: $out"
  fi
else
  echo "the OpenSSL provider not built: --openssl skipped"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
