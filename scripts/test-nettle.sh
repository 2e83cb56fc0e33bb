#!/usr/bin/env bash
# The nettle drop-in, tested the way users deploy it. c-tests/test_nettle.c is compiled
# against the SYSTEM nettle headers and linked with -lnettle; it prints a transcript of
# ciphertexts and digests. Each mode below must reproduce the transcript of plain libnettle
# exactly, and pass the program's own checks:
#
#   native            x86_64: LD_PRELOAD=libstitchgcm.so, and relinked with -lstitchgcm
#                     ahead of -lnettle, once per backend this CPU runs; LD_DEBUG=bindings
#                     must show every nettle_gcm_* reference (the program's and libnettle's
#                     own) bound to libstitchgcm; with STITCHGCM_IMPL=bogus the preloaded
#                     run must abort (proof that our code, not nettle's, runs); the
#                     exports against the installed nettle's library and gcm.h, whatever
#                     its version (exports_ok below; also in the qemu modes).
#   gnutls            gnutls-serv/gnutls-cli over loopback, TLS 1.2 and 1.3, AES-128-GCM and
#                     AES-256-GCM only, 3 MB each (gnutls-cli receives only ~0.5 MB/s here,
#                     whatever the library), both ends started by the launcher
#                     (`stitchgcm-run --nettle-only --gnutls-nettle`, meson's configured
#                     copy in build/): stitchgcm preloaded and, where GnuTLS has AES-GCM
#                     code of its own (x86_64, AArch64), GNUTLS_CPUID_OVERRIDE=0x1 so that
#                     its nettle path runs; binding check and a bogus-backend negative
#                     control as above.
#   aarch64 CPU       under qemu-aarch64 -cpu CPU with Debian's arm64 libnettle8 (fetched by
#                     scripts/deps.sh into .deps/arm64): preload and relink, every backend.
#   armv7 CPU         the same under qemu-arm -cpu CPU with Debian's armhf libnettle8
#                     (.deps/armhf): the 32-bit layouts of nettle's structs. Both qemu modes
#                     also check the relinked program's bindings and the bogus-backend control.
#
# Each mode prints "N passed, M failed" (the format scripts/test.sh counts).
# usage: scripts/test-nettle.sh native|gnutls|aarch64 CPU|armv7 CPU
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mode=${1:?mode}
work=$top/target/test-nettle
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; }

# transcript_ok NAME REF OUT: the program passed its own checks and matches the reference.
transcript_ok() {
  local name=$1 ref=$2 out=$3
  if ! grep -q '^[0-9]* passed, 0 failed$' "$out"; then bad "$name: own checks"; grep -E '^FAIL' "$out" | head -5; return; fi
  if ! cmp -s "$ref" "$out"; then bad "$name: transcript differs from plain nettle"; diff "$ref" "$out" | head -6; return; fi
  ok
}

# bindings_ok NAME LOGPREFIX: every binding of one of our exported nettle_gcm_* symbols
# went to libstitchgcm, and there was at least one.
bindings_ok() {
  local name=$1 prefix=$2 total=0 wrong=0 s exports
  # The library's own list of nettle_gcm_* exports (built by now).
  exports=$(nm -D --defined-only "$rel/libstitchgcm.so" 2>/dev/null | awk '$3 ~ /^nettle_gcm_/ {print $3}')
  [ -n "$exports" ] || { bad "$name: no nettle_gcm_* exports found"; return; }
  for s in $exports; do
    total=$((total + $(cat "$prefix".* | grep -c "symbol \`$s'" || true)))
    wrong=$((wrong + $(cat "$prefix".* | grep "symbol \`$s'" | grep -vc 'libstitchgcm' || true)))
  done
  rm -f "$prefix".*
  if [ $total -gt 0 ] && [ $wrong = 0 ]; then ok; echo "$name: $total nettle_gcm_* bindings, all to libstitchgcm"
  else bad "$name: $total bindings, $wrong not to libstitchgcm"; fi
}

# exports_ok LIBNETTLE: our exports against the nettle installed here, whatever its
# version (nothing pinned): its library's soname is libnettle.so.8, the ABI the drop-in
# implements (nettle 3.6 to 3.10 and later 3.x; nettle 4's libnettle.so.9 differs:
# docs/nettle4.md); every function its nettle/gcm.h declares on a GCM key or context (the
# generic ones and AES's) is exported by libstitchgcm; and every nettle_* symbol libstitchgcm
# exports is one this libnettle exports too.
exports_ok() {
  local lib=$1 header soname declared ours theirs missing extra version
  header=$(pkg-config --variable=includedir nettle 2>/dev/null || echo /usr/include)/nettle/gcm.h
  version=$(pkg-config --modversion nettle 2>/dev/null || echo "?")
  soname=$(objdump -p "$lib" 2>/dev/null | awk '$1 == "SONAME" {print $2}')
  declared=$(grep -oE '^gcm_[a-z0-9_]+ *\((const )?struct gcm_(key|ctx|aes(128|192|256)?_ctx) *\*' "$header" |
             sed 's/ *(.*//; s/^/nettle_/' | sort -u)
  ours=$(nm -D --defined-only "$rel/libstitchgcm.so" | awk '$3 ~ /^nettle_/ {print $3}' | sort -u)
  theirs=$(objdump -T "$lib" 2>/dev/null | awk '$2 == "g" && $4 != "*UND*" && $NF ~ /^nettle_/ {print $NF}' | sort -u)
  missing=$(comm -23 <(echo "$declared") <(echo "$ours") | paste -sd' ')
  extra=$(comm -23 <(echo "$ours") <(echo "$theirs") | paste -sd' ')
  if [ "$soname" != libnettle.so.8 ]; then
    bad "exports: $lib (nettle $version) has soname ${soname:-?}; the drop-in implements libnettle.so.8 (nettle 3.x; nettle 4: docs/nettle4.md)"
  elif [ -z "$declared" ] || [ -z "$theirs" ] || [ -n "$missing" ] || [ -n "$extra" ]; then
    bad "exports vs $lib and $header: $(echo "$declared" | grep -c .) GCM functions declared, not exported by us [$missing]; ours not in this libnettle [$extra]"
  else ok; echo "exports vs $soname (headers: nettle $version): all $(echo "$declared" | wc -l) GCM key/context functions of gcm.h interposed, our $(echo "$ours" | wc -l) nettle_* symbols all in this libnettle"
  fi
}

case $mode in
native)
  rel=$top/target/release
  cargo build --release -q --lib --example backends || { bad "cargo build"; finish; exit; }
  ln -sf libstitchgcm.so "$rel/libstitchgcm.so.0"
  cflags="-O2 -Wall $(pkg-config --cflags nettle)"
  gcc $cflags -o "$work/plain" c-tests/test_nettle.c $(pkg-config --libs nettle) &&
  gcc $cflags -o "$work/relinked" c-tests/test_nettle.c -L"$rel" -Wl,-rpath,"$rel" -lstitchgcm \
    $(pkg-config --libs nettle) || { bad "C build"; finish; exit; }
  "$work/plain" >"$work/ref.out" 2>&1 && grep -q '^[0-9]* passed, 0 failed$' "$work/ref.out" &&
    ok || bad "plain nettle run"
  exports_ok "$(ldd "$work/plain" | awk '$1 ~ /^libnettle\.so/ {print $3}')"
  mapfile -t backends < <("$rel/examples/backends")
  for b in "${backends[@]}"; do
    STITCHGCM_IMPL=$b LD_PRELOAD=$rel/libstitchgcm.so "$work/plain" >"$work/pre-$b.out" 2>&1
    transcript_ok "LD_PRELOAD ($b)" "$work/ref.out" "$work/pre-$b.out"
    STITCHGCM_IMPL=$b "$work/relinked" >"$work/rel-$b.out" 2>&1
    transcript_ok "relinked ($b)" "$work/ref.out" "$work/rel-$b.out"
  done
  LD_DEBUG=bindings LD_DEBUG_OUTPUT=$work/bind LD_PRELOAD=$rel/libstitchgcm.so "$work/plain" >/dev/null 2>&1
  bindings_ok "LD_PRELOAD" "$work/bind"
  LD_DEBUG=bindings LD_DEBUG_OUTPUT=$work/bind "$work/relinked" >/dev/null 2>&1
  bindings_ok "relinked" "$work/bind"
  if STITCHGCM_IMPL=bogus LD_PRELOAD=$rel/libstitchgcm.so "$work/plain" >/dev/null 2>"$work/bogus.err"; then
    bad "negative control: a bogus backend did not stop the preloaded run"
  elif grep -q 'stitchgcm: nettle_gcm_aes128_set_key: STITCHGCM_IMPL' "$work/bogus.err"; then ok
  else bad "negative control: unexpected failure"; cat "$work/bogus.err"; fi
  finish ;;

gnutls)
  rel=$top/target/release
  command -v gnutls-serv >/dev/null || { bad "gnutls-bin not installed"; finish; exit; }
  cd "$work"
  certtool --generate-privkey --key-type=ecdsa --outfile key.pem >/dev/null 2>&1
  printf 'cn = localhost\ndns_name = localhost\nexpiration_days = 2\ntls_www_server\nsigning_key\n' >tmpl
  certtool --generate-self-signed --load-privkey key.pem --template tmpl --outfile cert.pem >/dev/null 2>&1
  head -c 3000000 /dev/urandom >data.bin
  size=$(stat -c %s data.bin)
  ln -sf libstitchgcm.so "$rel/libstitchgcm.so.0"
  [ -e "$top/build/launcher/stitchgcm-run" ] || (cd "$top" && meson setup build >/dev/null) ||
    { bad "meson setup build (for the launcher)"; finish; exit; }
  launch=(sh "$top/build/launcher/stitchgcm-run" --libdir "$rel" --nettle-only --gnutls-nettle)
  echo "launcher: $("${launch[@]}" --env 2>&1 | paste -sd' ')"
  # transfer LABEL PRIORITY [env...]: serves data.bin over HTTP and fetches it with
  # gnutls-cli; prints the negotiated suite; returns 0 when the body arrived intact.
  transfer() {
    local label=$1 prio=$2; shift 2
    local port=$((20000 + RANDOM % 30000))
    env "$@" "${launch[@]}" gnutls-serv -q --http --httpdata=data.bin --x509keyfile key.pem \
      --x509certfile cert.pem -p $port --priority "$prio" >serv-$label.log 2>&1 &
    local sp=$! w=0
    # Until the server listens (state 0A in /proc/net/tcp*): emulated, start-up takes seconds.
    while [ $w -lt 300 ] && kill -0 $sp 2>/dev/null &&
          ! grep -qiE "^ *[0-9]+: [0-9a-f]+:$(printf '%04X' $port) [0-9a-f]+:[0-9a-f]+ 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
    do sleep 0.1; w=$((w + 1)); done
    # The request, then stdin held open (gnutls-cli stops at its end) until the wait is over.
    rm -f "done-$label"
    (printf 'GET / HTTP/1.0\r\n\r\n'; while [ ! -e "done-$label" ]; do sleep 0.2; done) |
      env "$@" "${launch[@]}" gnutls-cli --logfile=cli-$label.log --insecure -p $port --priority "$prio" 127.0.0.1 \
      >got-$label.bin 2>cli-$label.err &
    local cp=$!
    # Waits while the body keeps arriving: 60 s without progress ends it (natively the
    # whole transfer takes a second; emulated, with LD_DEBUG, minutes), 15 min in all.
    local t=0 idle=0 got=0 last=0
    while [ $t -lt 9000 ] && [ $idle -lt 600 ] && kill -0 $sp 2>/dev/null && [ "$got" -lt "$size" ]; do
      sleep 0.1; t=$((t + 1))
      got=$(stat -c %s got-$label.bin 2>/dev/null || echo 0)
      if [ "$got" = "$last" ]; then idle=$((idle + 1)); else idle=0 last=$got; fi
    done
    sleep 0.2
    touch "done-$label"; kill $cp $sp 2>/dev/null; wait $cp $sp 2>/dev/null
    grep -o 'Description: .*' cli-$label.log | head -1
    [ "$(tail -c "$size" got-$label.bin | cmp - data.bin >/dev/null 2>&1 && echo y)" = y ]
  }
  base="NORMAL:-CIPHER-ALL:-VERS-ALL"
  for v in TLS1.2 TLS1.3; do
    for c in AES-128-GCM AES-256-GCM; do
      label=$v-$c prio="$base:+VERS-$v:+$c"
      if transfer "$label" "$prio" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/gbind"; then
        if grep -q "$c" cli-$label.log; then ok; echo "$label: $((size / 1000000)) MB intact"
        else bad "$label: suite not negotiated"; fi
      else bad "$label: transfer failed"; tail -n 3 cli-$label.err serv-$label.log; fi
      bindings_ok "$label" "$work/gbind"
    done
  done
  # Negative control: with a backend name that does not exist our set-key aborts, so the
  # transfer must fail — the GCM work really went through stitchgcm.
  if transfer bogus "$base:+VERS-TLS1.3:+AES-128-GCM" STITCHGCM_IMPL=bogus; then
    bad "negative control: transfer succeeded with a bogus backend"
  elif grep -q 'stitchgcm: nettle_gcm_aes128_set_key' serv-bogus.log cli-bogus.err 2>/dev/null; then
    ok; echo "negative control: aborted in nettle_gcm_aes128_set_key as expected"
  else bad "negative control: failed for another reason"; tail -n 3 serv-bogus.log cli-bogus.err; fi
  finish ;;

aarch64|armv7)
  # Debian's arm64 or armhf libnettle8 under qemu: the same program cross-compiled against
  # it, plain (the reference transcript), preloaded and relinked for every backend the CPU
  # model runs, the bindings of both, and a bogus backend that must stop the preloaded run.
  cpu=${2:?cpu}
  if [ $mode = aarch64 ]; then
    triple=aarch64-unknown-linux-gnu deb=arm64 multi=aarch64-linux-gnu qemu=qemu-aarch64
  else
    triple=armv7-unknown-linux-gnueabihf deb=armhf multi=arm-linux-gnueabihf qemu=qemu-arm
  fi
  rel=$top/target/debian/$triple/release
  libdir=$top/.deps/$deb/usr/lib/$multi
  [ -e "$libdir/libnettle.so.8" ] || { bad "$deb libnettle8 missing (scripts/deps.sh)"; finish; exit; }
  [ -e "$rel/libstitchgcm.so" ] || { bad "cross-built library missing"; finish; exit; }
  ln -sf libstitchgcm.so "$rel/libstitchgcm.so.0"
  exports_ok "$libdir/libnettle.so.8"
  inc=$work/include-$deb; mkdir -p "$inc"; ln -sfn /usr/include/nettle "$inc/nettle"
  cc=$multi-gcc
  $cc -O2 -I"$inc" -o "$work/plain-$deb" c-tests/test_nettle.c "$libdir/libnettle.so.8" &&
  $cc -O2 -I"$inc" -o "$work/relinked-$deb" c-tests/test_nettle.c -L"$rel" -lstitchgcm \
    "$libdir/libnettle.so.8" || { bad "cross C build"; finish; exit; }
  q=($qemu -L /usr/$multi -cpu "$cpu" -E "LD_LIBRARY_PATH=$libdir:$rel")
  # --quick: the long sweep is covered natively; qemu is slow.
  "${q[@]}" "$work/plain-$deb" --quick >"$work/ref-$deb.out" 2>&1 &&
    grep -q '^[0-9]* passed, 0 failed$' "$work/ref-$deb.out" && ok || bad "plain $deb nettle under qemu"
  mapfile -t backends < <($qemu -L /usr/$multi -cpu "$cpu" "$rel/examples/backends")
  echo "$qemu -cpu $cpu: backends ${backends[*]}"
  for b in "${backends[@]}"; do
    "${q[@]}" -E STITCHGCM_IMPL="$b" -E LD_PRELOAD="$rel/libstitchgcm.so" "$work/plain-$deb" --quick \
      >"$work/pre-$deb-$b.out" 2>&1
    transcript_ok "qemu -cpu $cpu LD_PRELOAD ($b)" "$work/ref-$deb.out" "$work/pre-$deb-$b.out"
    "${q[@]}" -E STITCHGCM_IMPL="$b" "$work/relinked-$deb" --quick >"$work/rel-$deb-$b.out" 2>&1
    transcript_ok "qemu -cpu $cpu relinked ($b)" "$work/ref-$deb.out" "$work/rel-$deb-$b.out"
  done
  "${q[@]}" -E LD_DEBUG=bindings -E LD_DEBUG_OUTPUT="$work/qbind" -E LD_PRELOAD="$rel/libstitchgcm.so" \
    "$work/plain-$deb" --quick >/dev/null 2>&1
  bindings_ok "qemu -cpu $cpu LD_PRELOAD" "$work/qbind"
  "${q[@]}" -E LD_DEBUG=bindings -E LD_DEBUG_OUTPUT="$work/qbind" "$work/relinked-$deb" --quick \
    >/dev/null 2>&1
  bindings_ok "qemu -cpu $cpu relinked" "$work/qbind"
  if "${q[@]}" -E STITCHGCM_IMPL=bogus -E LD_PRELOAD="$rel/libstitchgcm.so" "$work/plain-$deb" \
       --quick >/dev/null 2>"$work/bogus-$deb.err"; then
    bad "negative control: a bogus backend did not stop the preloaded run"
  elif grep -q 'stitchgcm: nettle_gcm_aes128_set_key: STITCHGCM_IMPL' "$work/bogus-$deb.err"; then ok
  else bad "negative control: unexpected failure"; cat "$work/bogus-$deb.err"; fi
  finish ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
