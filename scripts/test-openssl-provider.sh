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
#     the one asked for, and the provider mapped into each configured process.
#
# With --qemu TARGET CPU (aarch64 or armv7, a qemu CPU model): the module and the C test
# cross-built against the cross-built libstitchgcm.so (target/debian, as scripts/test.sh's
# ARM suites build it) and Debian's arm64/armhf libcrypto (.deps, scripts/deps.sh), run
# under qemu-user: the evp_test cases and a shorter differential run, with the backend the
# CPU selects and, where it has the crypto extensions, again with the NEON one forced (the
# boards the provider is for); then the same TLS loopback with Debian's arm64/armhf openssl
# program (.deps, scripts/deps.sh) under qemu-user as the configured peer, server or
# client, the CPU's backend, and this machine's openssl on the default provider as the
# other: 256 KiB intact, the cipher, the module mapped in the emulated process; and
# OpenSSH: Debian's ARM ssh client under qemu, configured, sending that file to this
# machine's sshd (Debian's, unpacked by scripts/deps.sh; needs root) with
# aes128-gcm@openssh.com and aes256-gcm@openssh.com.
# Prints "N passed, M failed" (the format scripts/test.sh counts). Runs in a few seconds
# natively, well under a minute under qemu.
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

# write_cnf MODULE FILE: an openssl.cnf activating the default provider and MODULE, which a
# fetch without properties prefers (docs/openssl-provider.md)
write_cnf() {
  cat >"$2" <<EOF
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
module = $1
activate = 1

[algorithm_sect]
default_properties = ?provider=stitchgcm
EOF
}

# ---- TLS loopback: openssl s_server -WWW and s_client over 127.0.0.1.
# conf_ssl runs the peer configured with the provider ($work/openssl.cnf through
# OPENSSL_CONF), plain_ssl the other one (OpenSSL's default provider); natively both are
# this machine's openssl, under --qemu the configured one is Debian's ARM openssl under qemu.
conf_ssl=(openssl) plain_ssl=(openssl)
# tls_setup SIZE: a P-256 certificate and key, a SIZE-byte file to serve, a port to start at
tls_setup() {
  size=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -keyout "$work/key.pem" -out "$work/cert.pem" >"$work/req.log" 2>&1 || bad "certificate"
  mkdir -p "$work/www" && head -c "$size" /dev/urandom >"$work/www/data.bin"
  want=$(sha256sum <"$work/www/data.bin" | cut -d' ' -f1)
  port=$((20000 + RANDOM % 20000))
}
# the process PID runs (not exited, not a zombie)
alive() { grep -q '^State:[[:space:]]*[^Z]' "/proc/$1/status" 2>/dev/null; }
# the process PID has the module mapped (a qemu-user process maps its guest's files too);
# waits up to 20 s for it while the process runs
mapped() {
  local n
  for n in $(seq 200); do
    grep -q '/stitchgcm\.so$' "/proc/$1/maps" 2>/dev/null && return 0
    alive "$1" || return 1
    sleep 0.1
  done
  return 1
}

# loopback SIDE PROTO CIPHER: SIDE is server, client or both (where the provider is configured)
loopback() {
  local side=$1 proto=$2 cipher=$3 sconf=/dev/null cconf=/dev/null copt spid cpid got n
  local srv=("${plain_ssl[@]}") cli=("${plain_ssl[@]}") smap=1 cmap=1
  [ "$side" != client ] && sconf=$work/openssl.cnf srv=("${conf_ssl[@]}")
  [ "$side" != server ] && cconf=$work/openssl.cnf cli=("${conf_ssl[@]}")
  if [ "$proto" = tls1_3 ]; then copt=(-ciphersuites "$cipher"); else copt=(-cipher "$cipher"); fi
  # a port nothing on this machine uses (the server then listens there)
  port=$((port + 1))
  while grep -q ":$(printf '%04X' $port) " /proc/net/tcp 2>/dev/null; do port=$((port + 1)); done
  (cd "$work/www" && exec env OPENSSL_CONF="$sconf" "${srv[@]}" s_server -quiet -WWW -naccept 1 \
     -accept "127.0.0.1:$port" -key "$work/key.pem" -cert "$work/cert.pem" "-$proto" "${copt[@]}" \
     >"$work/server.log" 2>&1) &
  spid=$!
  for n in $(seq 200); do
    grep -q ":$(printf '%04X' $port) " /proc/net/tcp 2>/dev/null && break
    alive $spid || break
    sleep 0.1
  done
  # the configured server has the module mapped once it listens
  [ "$side" != client ] && { mapped $spid; smap=$?; }
  # The client reads its request from a FIFO held open until its maps were looked at: it
  # cannot finish before (the server answers the request, then closes).
  rm -f "$work/request" && mkfifo "$work/request"
  (exec env OPENSSL_CONF="$cconf" "${cli[@]}" s_client -connect "127.0.0.1:$port" -servername localhost \
     "-$proto" "${copt[@]}" -CAfile "$work/cert.pem" -verify_return_error -ign_eof \
     <"$work/request" >"$work/client.out" 2>"$work/client.err") &
  cpid=$!
  exec 7>"$work/request"
  [ "$side" != server ] && { mapped $cpid; cmap=$?; }
  # (in a subshell: a client gone already must not take this shell with SIGPIPE)
  (printf 'GET /data.bin HTTP/1.0\r\n\r\n' >&7) 2>/dev/null
  exec 7>&-
  # (a watchdog: neither peer may hang the test)
  (trap 'kill $t 2>/dev/null; exit' TERM; sleep 60 & t=$!; wait $t; kill $cpid $spid 2>/dev/null) &
  local dog=$!
  wait $cpid 2>/dev/null
  # the server is done once its one client is (it waits for another where that never connected)
  for n in $(seq 50); do alive $spid || break; sleep 0.1; done
  kill $spid 2>/dev/null; wait $spid 2>/dev/null
  kill $dog 2>/dev/null; wait $dog 2>/dev/null
  # the body follows the blank line after the HTTP header
  got=$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"HTTP/1.0 200 ok")
j = d.find(b"\r\n\r\n", i)
n = int(sys.argv[2])
print(hashlib.sha256(d[j + 4:j + 4 + n]).hexdigest() if i >= 0 and j >= 0 else "none")' "$work/client.out" "$size")
  local what="$side $proto $cipher"
  if [ "$got" = "$want" ]; then ok; else bad "$what: file not transferred intact"; tail -n 5 "$work/client.err" "$work/server.log"; fi
  if grep -q "Cipher is $cipher\|Cipher    : $cipher" "$work/client.out" "$work/client.err"; then ok
  else bad "$what: cipher $cipher not negotiated"; fi
  # the configured processes have the module mapped
  if [ "$side" != client ]; then
    if [ $smap = 0 ]; then ok; else bad "$what: provider not loaded by s_server"; fi
  fi
  if [ "$side" != server ]; then
    if [ $cmap = 0 ]; then ok; else bad "$what: provider not loaded by s_client"; fi
  fi
}
# tls_rows SIDE...: both TLS 1.3 GCM suites and both TLS 1.2 ECDHE-ECDSA GCM ones, the
# provider configured on each SIDE given
tls_rows() {
  local side
  for side in "$@"; do
    loopback $side tls1_3 TLS_AES_128_GCM_SHA256
    loopback $side tls1_3 TLS_AES_256_GCM_SHA384
    loopback $side tls1_2 ECDHE-ECDSA-AES128-GCM-SHA256
    loopback $side tls1_2 ECDHE-ECDSA-AES256-GCM-SHA384
  done
}

# OpenSSH over loopback under --qemu: Debian's ARM ssh client under qemu with the provider
# configured (OPENSSL_CONF; OpenSSH's GCM goes through EVP_aes_*_gcm()), connecting with
# aes128-gcm@openssh.com and then aes256-gcm@openssh.com to this machine's sshd (Debian's
# amd64 openssh-server as scripts/deps.sh unpacks it into .deps/amd64, else an installed
# one) on the default provider: the served file sent intact, each cipher the one in use,
# the module mapped in the emulated ssh while it sends. sshd runs in a mount namespace of
# its own, where /etc/passwd has OpenSSH's privilege separation user and /run/sshd exists,
# so nothing on this machine changes; root logs in with a throwaway key (AuthorizedKeysFile
# in the test's directory). Needs root (sshd's privilege separation).
ssh_loopback() {
  local s=$work/ssh qssh=$deps/usr/bin/ssh sroot=$top/.deps/amd64 sshd sport uid spid cpid c dog n
  sshd=$sroot/usr/sbin/sshd
  [ -x "$sshd" ] || sshd=/usr/sbin/sshd
  if [ "$(id -u)" != 0 ]; then echo "OpenSSH loopback not run: needs root (sshd)"; return; fi
  if [ ! -x "$qssh" ] || [ ! -x "$sshd" ]; then
    bad "OpenSSH loopback: $qssh or an sshd missing (scripts/deps.sh)"; return
  fi
  local qrun=("$q" -L "/usr/$multi" -cpu "$cpu" -E "LD_LIBRARY_PATH=$rel:$libdir:$deps/lib/$multi")
  mkdir -m 700 "$s" && mkdir -m 755 "$s/run" "$s/run/sshd"
  "${qrun[@]}" "$deps/usr/bin/ssh-keygen" -q -t ed25519 -N '' -f "$s/host" &&
    "${qrun[@]}" "$deps/usr/bin/ssh-keygen" -q -t ed25519 -N '' -f "$s/user" &&
    cp "$s/user.pub" "$s/authorized_keys" || { bad "OpenSSH loopback: ssh-keygen"; return; }
  cp /etc/passwd "$s/passwd"
  if ! grep -q '^sshd:' "$s/passwd"; then
    uid=65533
    while cut -d: -f3 "$s/passwd" | grep -qx $uid; do uid=$((uid - 1)); done
    echo "sshd:x:$uid:65534:OpenSSH privilege separation (test):/run/sshd:/usr/sbin/nologin" >>"$s/passwd"
  fi
  sport=$((port + 1))
  while grep -q ":$(printf '%04X' $sport) " /proc/net/tcp 2>/dev/null; do sport=$((sport + 1)); done
  cat >"$s/sshd_config" <<EOF
Port $sport
ListenAddress 127.0.0.1
HostKey $s/host
PidFile none
AuthorizedKeysFile $s/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Ciphers aes128-gcm@openssh.com,aes256-gcm@openssh.com
EOF
  # OpenSSH 9.8 and later run helpers at their installed paths unless told (unpacked sshd)
  [ -x "$sroot/usr/lib/openssh/sshd-session" ] && [ "$sshd" = "$sroot/usr/sbin/sshd" ] &&
    echo "SshdSessionPath $sroot/usr/lib/openssh/sshd-session" >>"$s/sshd_config"
  [ -x "$sroot/usr/lib/openssh/sshd-auth" ] && [ "$sshd" = "$sroot/usr/sbin/sshd" ] &&
    echo "SshdAuthPath $sroot/usr/lib/openssh/sshd-auth" >>"$s/sshd_config"
  local smulti
  smulti=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
  (exec unshare -m sh -c 'mount --bind "$1" /etc/passwd && mount --bind "$2" /run && shift 2 && exec "$@"' \
     sh "$s/passwd" "$s/run" env LD_LIBRARY_PATH="$sroot/usr/lib/$smulti:$sroot/lib/$smulti" \
     "$sshd" -D -e -f "$s/sshd_config" 2>"$s/sshd.log") &
  spid=$!
  for n in $(seq 100); do
    grep -q ":$(printf '%04X' $sport) " /proc/net/tcp 2>/dev/null && break
    alive $spid || break
    sleep 0.1
  done
  if ! grep -q ":$(printf '%04X' $sport) " /proc/net/tcp 2>/dev/null; then
    bad "OpenSSH loopback: sshd did not start"; tail -5 "$s/sshd.log"; kill $spid 2>/dev/null; wait $spid 2>/dev/null
    return
  fi
  for c in aes128-gcm@openssh.com aes256-gcm@openssh.com; do
    rm -f "$s/in" "$s/recv.bin" && mkfifo "$s/in"
    (exec env OPENSSL_CONF="$work/openssl.cnf" "${qrun[@]}" "$qssh" -v -F /dev/null -i "$s/user" \
       -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no \
       -o UserKnownHostsFile=/dev/null -p $sport -c $c root@127.0.0.1 "cat >'$s/recv.bin'" \
       <"$s/in" >"$s/$c.out" 2>"$s/$c.err") &
    cpid=$!
    (trap 'kill $t 2>/dev/null; exit' TERM; sleep 60 & t=$!; wait $t; kill $cpid 2>/dev/null) &
    dog=$!
    exec 7>"$s/in"
    cat "$work/www/data.bin" >&7 2>/dev/null
    # ssh still running (its input open): the module mapped in it
    mapped $cpid; n=$?
    exec 7>&-
    wait $cpid 2>/dev/null
    kill $dog 2>/dev/null; wait $dog 2>/dev/null
    if cmp -s "$work/www/data.bin" "$s/recv.bin"; then ok
    else bad "OpenSSH $c: file not sent intact"; tail -n 5 "$s/$c.err" "$s/sshd.log"; fi
    # (-c offers that cipher alone: the session ran on it or not at all; -v says it did)
    if grep -q "client->server cipher: $c " "$s/$c.err" && grep -q "server->client cipher: $c " "$s/$c.err"
    then ok; else bad "OpenSSH $c: cipher not negotiated"; fi
    if [ $n = 0 ]; then ok; else bad "OpenSSH $c: provider not loaded by ssh"; fi
  done
  kill $spid 2>/dev/null; wait $spid 2>/dev/null
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
  # TLS loopback: Debian's ARM openssl under qemu with the cross-built module configured,
  # this machine's openssl (default provider) the other peer, with the backend the CPU
  # selects; a smaller file than natively (emulated).
  qssl=$deps/usr/bin/openssl
  if [ -x "$qssl" ]; then
    write_cnf "$work/stitchgcm.so" "$work/openssl.cnf"
    conf_ssl=("${run[@]}" "$qssl")
    tls_setup 262144
    tls_rows server client
  else
    bad "$qssl missing (scripts/deps.sh fetches Debian's $arch openssl)"
  fi
  ssh_loopback
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

write_cnf "$module" "$work/openssl.cnf"

"$build/c-tests/test_provider" "$module" "$data" >"$work/evp.log" 2>&1; c_test "$work/evp.log" $?
grep -E '^(evp_test data|provider)' "$work/evp.log"
STITCHGCM_PROV_CONF=$work/openssl.cnf STITCHGCM_PROV_ROUNDS=300 \
  "$build/c-tests/test_provider" "$module" >"$work/conf.log" 2>&1; c_test "$work/conf.log" $?

# ---- TLS loopback, both peers this machine's openssl
tls_setup 1048576
tls_rows server client both
finish
