#!/usr/bin/env bash
# The OpenSSL provider stitchgcm.so (provider/), as meson builds it:
#   - c-tests/test_provider*.c: OpenSSL's own GCM cases (evp_test's evpciph_aes_common.txt,
#     fetched by scripts/deps.sh into .vectors/openssl; a zero case count fails), the
#     differential run against the default provider, TLS 1.2 records, errors; then again
#     with an openssl.cnf that activates the provider (docs/openssl-provider.md), checking
#     that a fetch without properties, as EVP_aes_128_gcm() users make, gets stitchgcm's;
#   - openssl s_server / s_client over loopback, TLS 1.3 (TLS_AES_128_GCM_SHA256,
#     TLS_AES_256_GCM_SHA384) and TLS 1.2 (ECDHE-ECDSA-AES128/256-GCM), with the provider
#     configured (OPENSSL_CONF) on the server, the client or both, the other peer on
#     OpenSSL's default provider: a 1 MiB file transferred intact, the negotiated cipher
#     the one asked for, and the provider mapped into the configured process.
#
# With --qemu TARGET CPU (aarch64 or armv7, a qemu CPU model): the module and the C test
# cross-built against the cross-built libstitchgcm.so (target/debian, as scripts/test.sh's
# ARM suites build it) and Debian's arm64/armhf libcrypto (.deps, scripts/deps.sh), run
# under qemu-user: the evp_test cases and a shorter differential run, with the backend the
# CPU selects and, where it has the crypto extensions, again with the NEON one forced (the
# boards the provider is for). No TLS loopback there (no ARM openssl program here).
# Prints "N passed, M failed" (the format scripts/test.sh counts). Runs in a few seconds
# natively, a minute or two under qemu.
# usage: scripts/test-openssl-provider.sh [BUILD_DIR]   (default: build; meson setup first)
#        scripts/test-openssl-provider.sh --qemu aarch64|armv7 CPU
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; }
data=$top/.vectors/openssl/evpciph_aes_common.txt

# counts a C test's "N passed, M failed" line into ours
c_test() {
  local log=$1 rc=$2 line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  if [ -n "$line" ]; then
    pass=$((pass + ${line%% *})); set -- $line; fail=$((fail + $3))
  fi
  if [ "$rc" != 0 ] && { [ -z "$line" ] || [ "${3:-0}" = 0 ]; }; then bad "$log: exit $rc"; fi
  grep FAIL "$log" | head -5
}

if [ "${1:-}" = --qemu ]; then
  target=${2:?target} cpu=${3:?cpu}
  case $target in
  aarch64) triple=aarch64-unknown-linux-gnu cc=aarch64-linux-gnu-gcc arch=arm64 multi=aarch64-linux-gnu
           q=qemu-aarch64 neon=aarch64-neon ;;
  armv7) triple=armv7-unknown-linux-gnueabihf cc=arm-linux-gnueabihf-gcc arch=armhf multi=arm-linux-gnueabihf
         q=qemu-arm neon=arm-neon ;;
  *) echo "usage: $0 --qemu aarch64|armv7 CPU" >&2; exit 2 ;;
  esac
  work=$top/target/test-openssl-provider/$target-$cpu
  rm -rf "$work" && mkdir -p "$work"
  rel=$top/target/debian/$triple/release deps=$top/.deps/$arch
  libdir=$deps/usr/lib/$multi
  [ -e "$rel/libstitchgcm.so" ] || { bad "$rel/libstitchgcm.so missing (cargo build --release --target $triple)"; finish; exit 1; }
  [ -e "$libdir/libcrypto.so.3" ] || { bad "$arch libcrypto missing (scripts/deps.sh)"; finish; exit 1; }
  [ -s "$data" ] || bad "$data missing (scripts/deps.sh fetches it)"
  ln -sf libstitchgcm.so "$rel/libstitchgcm.so.0"
  # Debian's headers of the target (opensslconf.h differs per architecture); the module as
  # the package links it: against libstitchgcm.so.0 and libcrypto, exporting its entry only.
  inc=(-Iinclude -I"$deps/usr/include" -I"$deps/usr/include/$multi")
  if ! "$cc" -O2 -fPIC -shared "${inc[@]}" -o "$work/stitchgcm.so" provider/*.c \
         -L"$rel" -lstitchgcm "$libdir/libcrypto.so.3" -Wl,--version-script=provider/stitchgcm.map \
         -Wl,--no-undefined >"$work/build.log" 2>&1 ||
     ! "$cc" -O2 "${inc[@]}" -o "$work/test_provider" c-tests/test_provider*.c \
         "$libdir/libcrypto.so.3" -Wl,-rpath-link,"$libdir" >>"$work/build.log" 2>&1; then
    tail -20 "$work/build.log"; bad "cross build"; finish; exit 1
  fi
  run=("$q" -L "/usr/$multi" -cpu "$cpu" -E "LD_LIBRARY_PATH=$rel:$libdir")
  backend=$("$q" -L "/usr/$multi" -cpu "$cpu" "$rel/examples/backends" 2>/dev/null | head -n1)
  envs=("")
  [ -n "$backend" ] && [ "$backend" != "$neon" ] && envs+=("STITCHGCM_IMPL=$neon")
  for e in "${envs[@]}"; do
    log=$work/evp${e:+-forced}.log
    env ${e:+"$e"} "${run[@]}" "$work/test_provider" "$work/stitchgcm.so" "$data" \
      >"$log" 2>&1
    c_test "$log" $?
    grep -E '^(evp_test data|provider)' "$log"
  done
  finish
  exit
fi

build=${1:-build}
work=$top/target/test-openssl-provider
rm -rf "$work" && mkdir -p "$work"

ninja -C "$build" provider/stitchgcm.so c-tests/test_provider >"$work/build.log" 2>&1 ||
  { tail -20 "$work/build.log"; bad "build"; finish; exit 1; }
module=$(realpath "$build/provider/stitchgcm.so")
[ -s "$data" ] || bad "$data missing (scripts/deps.sh fetches it)"

cat >"$work/openssl.cnf" <<EOF
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect

[provider_sect]
default = default_sect
stitchgcm = stitchgcm_sect

[default_sect]
activate = 1

[stitchgcm_sect]
module = $module
activate = 1

[algorithm_sect]
default_properties = ?provider=stitchgcm
EOF

"$build/c-tests/test_provider" "$module" "$data" >"$work/evp.log" 2>&1; c_test "$work/evp.log" $?
grep -E '^(evp_test data|provider)' "$work/evp.log"
STITCHGCM_PROV_CONF=$work/openssl.cnf STITCHGCM_PROV_ROUNDS=300 \
  "$build/c-tests/test_provider" "$module" >"$work/conf.log" 2>&1; c_test "$work/conf.log" $?

# ---- TLS loopback
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" >"$work/req.log" 2>&1 || bad "certificate"
mkdir -p "$work/www" && head -c 1048576 /dev/urandom >"$work/www/data.bin"
want=$(sha256sum <"$work/www/data.bin" | cut -d' ' -f1)
port=$((20000 + RANDOM % 20000))

# loopback SIDE PROTO CIPHER: SIDE is server, client or both (where the provider is configured)
loopback() {
  local side=$1 proto=$2 cipher=$3 sconf=/dev/null cconf=/dev/null copt spid got n
  [ "$side" != client ] && sconf=$work/openssl.cnf
  [ "$side" != server ] && cconf=$work/openssl.cnf
  if [ "$proto" = tls1_3 ]; then copt=(-ciphersuites "$cipher"); else copt=(-cipher "$cipher"); fi
  port=$((port + 1))
  (cd "$work/www" && exec env OPENSSL_CONF="$sconf" openssl s_server -quiet -WWW -naccept 1 \
     -accept "127.0.0.1:$port" -key "$work/key.pem" -cert "$work/cert.pem" "-$proto" "${copt[@]}" \
     >"$work/server.log" 2>&1) &
  spid=$!
  for n in $(seq 50); do
    grep -q ":$(printf '%04X' $port) " /proc/net/tcp 2>/dev/null && break
    sleep 0.1
  done
  local maps=""
  [ -r /proc/$spid/maps ] && maps=$(cat /proc/$spid/maps 2>/dev/null)
  printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
    OPENSSL_CONF="$cconf" timeout 30 openssl s_client -connect "127.0.0.1:$port" -servername localhost \
      "-$proto" "${copt[@]}" -CAfile "$work/cert.pem" -verify_return_error -ign_eof \
      >"$work/client.out" 2>"$work/client.err"
  wait $spid 2>/dev/null
  # the body follows the blank line after the HTTP header
  got=$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"HTTP/1.0 200 ok")
j = d.find(b"\r\n\r\n", i)
print(hashlib.sha256(d[j + 4:j + 4 + 1048576]).hexdigest() if i >= 0 and j >= 0 else "none")' "$work/client.out")
  local what="$side $proto $cipher"
  if [ "$got" = "$want" ]; then ok; else bad "$what: file not transferred intact"; tail -5 "$work/client.err"; fi
  if grep -q "Cipher is $cipher\|Cipher    : $cipher" "$work/client.out" "$work/client.err"; then ok
  else bad "$what: cipher $cipher not negotiated"; fi
  if [ "$side" != client ]; then
    # the configured server process has the module mapped
    if grep -q 'stitchgcm.so' <<<"$maps"; then ok; else bad "$what: provider not loaded by s_server"; fi
  fi
}

for side in server client both; do
  loopback $side tls1_3 TLS_AES_128_GCM_SHA256
  loopback $side tls1_3 TLS_AES_256_GCM_SHA384
  loopback $side tls1_2 ECDHE-ECDSA-AES128-GCM-SHA256
  loopback $side tls1_2 ECDHE-ECDSA-AES256-GCM-SHA384
done
finish
