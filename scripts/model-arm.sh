#!/usr/bin/env bash
# model-arm.sh - static ARM speed model of stitchgcm's kernels: llvm-mca 19 applied to each
# kernel's steady-state inner loop, reported in cycles per byte, raw and with AESE+AESMC
# macro-fusion emulated.  This is how ARM speed is judged in this project (no ARM hardware).
#
# Method (same as the peer figures it is compared with, see docs/modeling.md):
#   - build the release library for the ARM target(s) with Debian's rustc (it has the ARM std);
#   - disassemble libstitchgcm.so with llvm-objdump-19, find each kernel by a fragment of its
#     demangled Rust path (table below), and in it the innermost backward-branch loop with the
#     most instructions (never a fixed address, so it survives code changes);
#   - feed that loop body to llvm-mca-19 (-iterations=500) for each CPU model; c/B =
#     cycles per iteration / bytes per iteration (a table column, cross-checked against the
#     loop's counter/pointer steps); run it again with every in-place AESMC (AESIMC) that
#     directly follows an AESE (AESD) on the same register dropped, since llvm-mca does not
#     model the fusion ("fused").  The work is done by scripts/model-arm.py.
#
# Usage:
#   scripts/model-arm.sh [--target aarch64|armv7|all] [--cpus LIST] [--keep DIR]
#                        [--no-build] [--iterations N]
#   scripts/model-arm.sh [--target ...] --pressure KERNEL CPU   llvm-mca resource pressure and
#                        bottleneck views of one loop (KERNEL: table id or a symbol fragment)
#   scripts/model-arm.sh [--target ...] --loops KERNEL          list the candidate loops, the
#                        counter/pointer evidence and the body that is modelled
#   scripts/model-arm.sh --selftest     model synthetic OpenSSL-like 8-block AES(-GCM) loops
#                        and check them against the crypto-pipe bound
#   scripts/model-arm.sh [--target ...] --whole-call [--check] [--only IDS]
#                        whole-call model: the instruction stream of one warm call (setiv +
#                        AAD + data + tag), traced under qemu with a TCG plugin and priced by
#                        llvm-mca -iterations=1, for stitchgcm and Debian's arm64 nettle,
#                        libgcrypt and OpenSSL, and GnuTLS's per-record nettle calls on
#                        Debian's libnettle and with libstitchgcm preloaded (table
#                        WHOLE_CALLS below; method in scripts/whole-call/whole-call.py and
#                        docs/modeling.md; the preloaded and nettle cells print their
#                        instructions' share in libstitchgcm / libnettle). --check also
#                        checks the structure (markers, tags, crypto instructions, the 8 KiB
#                        loop slice against the loop model within 2%, where the calls ran)
#                        and fails on a problem (rows with check-sizes= trace only those);
#                        --only runs some rows; --cpus keeps some llvm-mca CPUs;
#                        --profile BITS:BYTES[,...] adds, for those cells, the cycles per
#                        function (scripts/whole-call/profile.py);
#                        --release bookworm|trixie|all (comma list): whose Debian peer rows
#                        run, default the host's (its peers in .deps/arm64, .deps/armhf);
#                        another release's rows trace its libraries and its glibc from
#                        .deps/release/R (scripts/deps-peers.sh R); stitchgcm's own rows run
#                        in every selection; --keys BITS,... --sizes BYTES,... keep only
#                        those cells of each row
#   scripts/model-arm.sh --openssl-armhf  OpenSSL's AArch32 two-pass loops (CTR 3x, GHASH 2x)
#                        from Debian's armhf libcrypto.so.3 in .deps/armhf (scripts/deps.sh),
#                        the comparison rows of the arm-ce table (scripts/model-arm-openssl.py)
# Options:
#   --target T     aarch64 (default), armv7, or all
#   --cpus LIST    comma-separated -mcpu names, replacing the per-kernel defaults
#                  (AArch64: cortex-a53,cortex-a57,cortex-a72,neoverse-n1,neoverse-v1;
#                   AArch32: cortex-a57,cortex-a72, plus cortex-a9 for NEON-only kernels)
#   --keep DIR     keep the extracted loop bodies (*.raw.s, *.fused.s) and llvm-mca outputs
#   --no-build     model the library already in target/debian (skip cargo)
#   --no-cache     ignore the result cache (target/debian/model-arm-cache: llvm-mca results keyed
#                  by tool version, cpu, flags and the exact loop text, so reuse is exact)
#                  (--whole-call: target/debian/whole-call-cache, traces keyed by the hash of
#                  binaries, libraries, qemu, cpu and arguments, llvm-mca results as above)
#   --iterations N llvm-mca iterations (default 500, as for the peer figures)
# Environment: LLVM_MCA, LLVM_OBJDUMP override the tools (llvm-mca must be >= 19).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HELPER=$ROOT/scripts/model-arm.py

# ---- kernel table -----------------------------------------------------------------------
# id: short name (--pressure/--loops accept it); target: a64 (aarch64 build) or a32 (armv7
# build); bytes: consumed per iteration of the steady-state loop; cpus: default CPU set, a64 =
# A53/A57/A72/N1/V1, a32ce = A57/A72 (LLVM has no AArch32 A53/N1/V1 model), a32neon = A57/A72/A9
# (ARMv7 kernels that need no crypto extensions); symbol: fragment of the demangled path,
# matched at :: boundaries, hash ignored.  A kernel whose symbol is not in the build is
# printed as "missing".  Add a row per new kernel; text after # is a note shown in the report;
# "expect aese=N pmull=M" in it makes the check column WARN unless the modelled loop holds
# exactly that many such instructions (catches a rolled inner loop being modelled instead).
KERNELS=$(cat <<'TABLE'
# id            target bytes cpus     symbol
enc128          a64    128   a64      aarch64::ce::crypt::kernel_enc_aes128   # stitched CTR+GHASH, 8 blocks; expect aese=80 pmull=26
enc192          a64    128   a64      aarch64::ce::crypt::kernel_enc_aes192   # expect aese=96 pmull=26
enc256          a64    128   a64      aarch64::ce::crypt::kernel_enc_aes256   # expect aese=112 pmull=26
dec128          a64    128   a64      aarch64::ce::crypt::kernel_dec_aes128   # expect aese=80 pmull=26
dec192          a64    128   a64      aarch64::ce::crypt::kernel_dec_aes192   # expect aese=96 pmull=26
dec256          a64    128   a64      aarch64::ce::crypt::kernel_dec_aes256   # expect aese=112 pmull=26
ghash           a64    256   a64      aarch64::ce::ghash::kernel_ghash        # GHASH only, 16 blocks; expect pmull=50
enc128-eor3     a64    128   a64      aarch64::ce::crypt::kernel_enc_aes128_eor3 # EOR3 variant (SHA3 cores); expect aese=80 pmull=26
enc256-eor3     a64    128   a64      aarch64::ce::crypt::kernel_enc_aes256_eor3 # EOR3 variant (SHA3 cores); expect aese=112 pmull=26
dec128-eor3     a64    128   a64      aarch64::ce::crypt::kernel_dec_aes128_eor3 # EOR3 variant (SHA3 cores); expect aese=80 pmull=26
neon-ghash      a64    128   a64      aarch64::neon::ghash::kernel_ghash # NEON pmull.8b GHASH, 8 blocks, one placement+reduction; expect pmull=192
# aarch64::neon's ctr/enc/dec kernels serve every key size: rounds 2..Nr-1 are a loop of four
# rounds (one per MixColumns phase) whose count is read from the key; rounds=K: K turns of it
# (AES-128 2, AES-256 3; see Nested)
neon-ctr128     a64    128   a64      aarch64::neon::crypt::kernel_ctr # bit-sliced AES-128 CTR, 8 blocks; rounds=2
neon-ctr256     a64    128   a64      aarch64::neon::crypt::kernel_ctr # bit-sliced AES-256 CTR, 8 blocks; rounds=3
neon-enc128     a64    128   a64      aarch64::neon::crypt::kernel_enc # bit-sliced CTR + pmull.8b GHASH; rounds=2 expect pmull=192
neon-dec128     a64    128   a64      aarch64::neon::crypt::kernel_dec # rounds=2 expect pmull=192
neon-enc256     a64    128   a64      aarch64::neon::crypt::kernel_enc # rounds=3 expect pmull=192
neon-dec256     a64    128   a64      aarch64::neon::crypt::kernel_dec # rounds=3 expect pmull=192
neon-vperm1     a64    16    a64      aarch64::neon::vperm::lanes1 # vector-permute AES-128, 1 block per call; flatten=4 (two rounds an iteration)
neon-vperm2     a64    32    a64      aarch64::neon::vperm::lanes2 # 2 blocks per call; flatten=4
neon-vperm4     a64    64    a64      aarch64::neon::vperm::lanes4 # 4 blocks per call; flatten=8 (one round an iteration)
# arm::ce (AArch32 with the crypto extensions): generated asm, 4 blocks per iteration (8 for
# GHASH only); aese = 4 x rounds, vmull.p64 = 3 per block + 2 per reduction
a32-ce-enc128   a32    64    a32ce    arm::ce::kernels::kernel_enc_aes128   # stitched CTR+GHASH, 4 blocks; expect aese=40 vmull=14
a32-ce-enc192   a32    64    a32ce    arm::ce::kernels::kernel_enc_aes192   # expect aese=48 vmull=14
a32-ce-enc256   a32    64    a32ce    arm::ce::kernels::kernel_enc_aes256   # expect aese=56 vmull=14
a32-ce-dec128   a32    64    a32ce    arm::ce::kernels::kernel_dec_aes128   # expect aese=40 vmull=14
a32-ce-dec192   a32    64    a32ce    arm::ce::kernels::kernel_dec_aes192   # expect aese=48 vmull=14
a32-ce-dec256   a32    64    a32ce    arm::ce::kernels::kernel_dec_aes256   # expect aese=56 vmull=14
a32-ce-ghash    a32    128   a32ce    arm::ce::kernels::kernel_ghash        # GHASH only, 8 blocks; expect vmull=26
a32-ce-ctr128   a32    64    a32ce    arm::ce::kernels::kernel_ctr_aes128   # CTR only, 4 blocks; expect aese=40
a32-ce-ctr256   a32    64    a32ce    arm::ce::kernels::kernel_ctr_aes256   # expect aese=56
# arm::neon (ARMv7 NEON, no crypto extensions): generated asm, 8 blocks per iteration;
# vtbl = 16 per AES round (ShiftRows) + 16 (counter blocks), vmull = 8 x 3 per GHASH block.
# The ctr/enc/dec kernels serve every key size, their rounds 1..Nr-1 a loop whose count is
# read from the key: rounds=Nr-1 models an iteration for that key size (see Nested)
a32-ghash       a32    128   a32neon  arm::neon::kernels::kernel_ghash        # vmull.p8 GHASH, 8 blocks; expect vmull=192
a32-ctr128      a32    128   a32neon  arm::neon::kernels::kernel_ctr   # bit-sliced AES-128 CTR, 8 blocks; rounds=9 expect vtbl=176
a32-ctr256      a32    128   a32neon  arm::neon::kernels::kernel_ctr   # rounds=13 expect vtbl=240
a32-enc128      a32    128   a32neon  arm::neon::kernels::kernel_enc   # AES-128-GCM encrypt; rounds=9 expect vtbl=176 vmull=192
a32-dec128      a32    128   a32neon  arm::neon::kernels::kernel_dec   # rounds=9 expect vtbl=176 vmull=192
a32-enc192      a32    128   a32neon  arm::neon::kernels::kernel_enc   # rounds=11 expect vtbl=208 vmull=192
a32-enc256      a32    128   a32neon  arm::neon::kernels::kernel_enc   # rounds=13 expect vtbl=240 vmull=192
a32-dec256      a32    128   a32neon  arm::neon::kernels::kernel_dec   # rounds=13 expect vtbl=240 vmull=192
# soft backend (portable fallback; also keeps the script exercised before the CE kernels exist)
soft-ghash      a64    16    a64      soft::ghash::GhashKey::update   # 1 block/iteration
soft-aes-round  a64    64    a64      soft::aes::encrypt4             # ONE round of 4 blocks; calls sub_bytes/shift_rows (not modelled)
soft-ghash-a32  a32    16    a32neon  soft::ghash::GhashKey::update   # 1 block/iteration
TABLE
)

# ---- whole-call table (--whole-call) -------------------------------------------------------
# One row per implementation and workload, traced under each CPU of its target (a64: qemu
# -cpu neoverse-n1 priced on neoverse-n1, -cpu cortex-a72 on cortex-a72 = LLVM's A57 model;
# a32: qemu-arm -cpu cortex-a15 priced on cortex-a57, triple armv8a).  impl: a label the
# benchmark registers (bench/gcm/impl-*.c: stitchgcm/<backend>, nettle, libgcrypt,
# openssl; nettle->stitchgcm = nettle's label in a process with libstitchgcm preloaded);
# entry: the slot traced, seal (handle API: setiv + AAD + encrypt + tag), seal_keyed (keyed
# one-shot), seal_rfc4106, sgcm_seal (raw-key one-shot), gnutls / gnutls_open (nettle's
# calls as GnuTLS makes them per record, encrypt / decrypt + tag compare), or open (handle
# API decryption); keys and sizes: comma lists (bits, bytes); iv, aad: bytes; expect:
# mnemonics the stream of every call must contain (at least one per block, aese one per
# block and round), !m = must not; env: VAR=value[,...] for the traced process, - for none;
# an entry -cpu=NAME traces under that qemu CPU instead of the target's (AArch32 rows that
# need the crypto extensions: max); LD_PRELOAD=@stitchgcm preloads the target's
# libstitchgcm; STITCHGCM_PROVIDER=@provider gives the driver the target's build of the
# OpenSSL provider (its openssl->stitchgcm label: OpenSSL's EVP calls with the module loaded
# and preferred, bench/gcm/impl-openssl.c); check-sizes=N,... keeps only those sizes under
# --check (the test suite).
WHOLE_CALLS=$(cat <<'TABLE'
# id            target impl                   entry     keys    sizes               iv aad expect           env
stitchgcm       a64    stitchgcm/aarch64-ce   seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       -
stitchgcm-keyed a64    stitchgcm/aarch64-ce   seal_keyed 128,256 16,64,256,1420,8192 12 13 aese,pmull       -
stitchgcm-seal  a64    stitchgcm/aarch64-ce   sgcm_seal 128,256 16,64,256,1420,8192 12 13  aese,pmull       -
stitchgcm-neon  a64    stitchgcm/aarch64-neon seal      128,256 16,64,256,1420,8192 12 13  pmull,!aese      -
stitchgcm-neon-keyed a64 stitchgcm/aarch64-neon seal_keyed 128,256 16,64,256,1420,8192 12 13 pmull,!aese -
nettle          a64    nettle                 seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       -
libgcrypt       a64    libgcrypt              seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       -
libgcrypt-pre   a64    libgcrypt->stitchgcm   seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       -  # libgcrypt's calls, into the interposer
# decryption + tag check per record, the handle's and the interposer's (the record paths'
# opening rows below compare with these)
stitchgcm-open  a64    stitchgcm/aarch64-ce   open      128,256 16,64,256,1420,8192 12 13  aese,pmull       check-sizes=16
stitchgcm-neon-open a64 stitchgcm/aarch64-neon open     128,256 16,64,256,1420,8192 12 13  pmull,!aese      check-sizes=16
libgcrypt-open  a64    libgcrypt              open      128,256 16,64,256,1420,8192 12 13  aese,pmull       check-sizes=16
libgcrypt-pre-open a64 libgcrypt->stitchgcm   open      128,256 16,64,256,1420,8192 12 13  aese,pmull       check-sizes=16
openssl         a64    openssl                seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       -
arm-neon        a32    stitchgcm/arm-neon     seal      128,256 16,64,256,1420,8192 12 13  vmull,vtbl,!aese -
arm-neon-open   a32    stitchgcm/arm-neon     open      128,256 16,64,256,1420,8192 12 13  vmull,vtbl,!aese check-sizes=16
arm-neon-keyed  a32    stitchgcm/arm-neon     seal_keyed 128,256 16,64,256,1420,8192 12 13 vmull,vtbl,!aese -
# an ESP frame (1420 B, 8-byte AAD): RFC 4106's per-packet call (key bits include the 4-byte
# salt), and the same packet as plain GCM (12-byte nonce) through the keyed one-shot
esp-rfc4106     a64    stitchgcm/aarch64-ce   seal_rfc4106 160,224,288 1420        8  8   aese,pmull       -
esp-gcm         a64    stitchgcm/aarch64-ce   seal_keyed   128,192,256 1420        12 8   aese,pmull       -
# AArch32 with the crypto extensions (qemu -cpu max): arm-ce and Debian's armhf OpenSSL (its
# ARMv8 path), TLS records and ESP frames (8-byte AAD)
arm-ce          a32    stitchgcm/arm-ce       seal      128,256 16,64,256,1420,8192 12 13  aese,vmull       -cpu=max
openssl-a32     a32    openssl                seal      128,256 16,64,256,1420,8192 12 13  aese,vmull       -cpu=max
arm-ce-esp      a32    stitchgcm/arm-ce       seal      128,256 1420                12 8   aese,vmull       -cpu=max
openssl-a32-esp a32    openssl                seal      128,256 1420                12 8   aese,vmull       -cpu=max
arm-ce-esp-4106 a32    stitchgcm/arm-ce       seal_rfc4106 160,288 1420            8  8   aese,vmull       -cpu=max
arm-ce-esp-keyed a32   stitchgcm/arm-ce       seal_keyed   128,256 1420            12 8   aese,vmull       -cpu=max
# The path users actually run: GnuTLS's per-record calls into nettle's ABI (entries gnutls =
# encrypt, gnutls_open = decrypt + constant-time tag compare; bench/gcm/impl-nettle.c), on
# Debian's real libnettle and with libstitchgcm preloaded (LD_PRELOAD=@stitchgcm: the
# target's build; the driver's nettle row is then "nettle->stitchgcm"). Every cell of these
# rows reports its instructions' share in libstitchgcm and in libnettle (and --check fails a
# preloaded cell that did not run in libstitchgcm, or a real one that did). The backends are
# forced (STITCHGCM_IMPL) so that each column is what its title says.
gnutls          a64    nettle                 gnutls       128,256 16,64,256,1420,8192 12 13 aese,pmull  check-sizes=16,1420
gnutls-open     a64    nettle                 gnutls_open  128,256 16,64,256,1420,8192 12 13 aese,pmull  check-sizes=16,1420
gnutls-pre      a64    nettle->stitchgcm      gnutls       128,256 16,64,256,1420,8192 12 13 aese,pmull  LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=aarch64-ce,check-sizes=16,1420
gnutls-pre-open a64    nettle->stitchgcm      gnutls_open  128,256 16,64,256,1420,8192 12 13 aese,pmull  LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=aarch64-ce,check-sizes=16,1420
# AArch64 without the crypto extensions (some Cortex-A53/A55 SoCs): nettle's portable C
# (NETTLE_FAT_OVERRIDE=none; checked by hand with NETTLE_FAT_VERBOSE=1 under -cpu
# neoverse-n1: "libnettle: cpu features:" with nothing after it and no "enabling" line,
# where without the override it enables its AES, PMULL, SHA-1 and SHA-256 code) against
# aarch64-neon preloaded
gnutls-c        a64    nettle                 gnutls       128,256 16,64,256,1420,8192 12 13 !aese,!pmull NETTLE_FAT_OVERRIDE=none,check-sizes=16
gnutls-c-open   a64    nettle                 gnutls_open  128,256 16,64,256,1420,8192 12 13 !aese,!pmull NETTLE_FAT_OVERRIDE=none,check-sizes=16
gnutls-neon-pre a64    nettle->stitchgcm      gnutls       128,256 16,64,256,1420,8192 12 13 pmull,!aese LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=aarch64-neon,check-sizes=16
gnutls-neon-pre-open a64 nettle->stitchgcm    gnutls_open  128,256 16,64,256,1420,8192 12 13 pmull,!aese LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=aarch64-neon,check-sizes=16
# ARMv7 (qemu-arm -cpu cortex-a15, priced as A57): Debian's armhf libnettle8 told what a
# real Cortex-A15 reports (Debian 12's qemu-arm 7.2 shows the guest the host's /proc/cpuinfo,
# where nettle finds no ARM features; qemu 8.2 and later describe the emulated CPU): ARMv7 +
# NEON selects its ARMv6 table AES; its GHASH is C (nettle
# 3.8 has no AArch32 GHASH code, no vmull.p64 or vmull.p8), against arm-neon preloaded
gnutls-a32      a32    nettle                 gnutls       128,256 16,64,256,1420,8192 12 13 !aese,!vmull NETTLE_FAT_OVERRIDE=arch:7,neon,check-sizes=16
gnutls-a32-open a32    nettle                 gnutls_open  128,256 16,64,256,1420,8192 12 13 !aese,!vmull NETTLE_FAT_OVERRIDE=arch:7,neon,check-sizes=16
gnutls-a32-pre  a32    nettle->stitchgcm      gnutls       128,256 16,64,256,1420,8192 12 13 vmull,vtbl,!aese LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=arm-neon,check-sizes=16
gnutls-a32-pre-open a32 nettle->stitchgcm     gnutls_open  128,256 16,64,256,1420,8192 12 13 vmull,vtbl,!aese LD_PRELOAD=@stitchgcm,STITCHGCM_IMPL=arm-neon,check-sizes=16
# OpenSSL programs with stitchgcm's provider (the openssl row's EVP calls; the module loaded
# beside the default provider and preferred by default properties), and OpenSSL on cores
# without the crypto extensions (OPENSSL_armcap=0: its table AES and C GHASH) against the
# provider on aarch64-neon, and on armhf (Debian's armhf OpenSSL on a Cortex-A15: NEON, no
# crypto extensions) against the provider on arm-neon
openssl-prov    a64    openssl->stitchgcm     seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       STITCHGCM_PROVIDER=@provider,STITCHGCM_IMPL=aarch64-ce,check-sizes=16
openssl-c       a64    openssl                seal      128,256 16,64,256,1420,8192 12 13  !aese            OPENSSL_armcap=0,check-sizes=16
openssl-neon-prov a64  openssl->stitchgcm     seal      128,256 16,64,256,1420,8192 12 13  pmull,!aese      STITCHGCM_PROVIDER=@provider,STITCHGCM_IMPL=aarch64-neon,OPENSSL_armcap=0,check-sizes=16
openssl-a32-neon a32   openssl                seal      128,256 16,64,256,1420,8192 12 13  !aese            check-sizes=16
openssl-a32-prov a32   openssl->stitchgcm     seal      128,256 16,64,256,1420,8192 12 13  vmull,vtbl,!aese STITCHGCM_PROVIDER=@provider,STITCHGCM_IMPL=arm-neon,check-sizes=16
# Debian 13's peers (--release trixie or all; scripts/deps-peers.sh trixie fetches them): the
# same driver on trixie's libnettle8t64, libgcrypt20, libssl3t64 and glibc (qemu -L that tree),
# the same workloads as the Debian 12 rows above. {ver} = the library's major.minor, read from
# the package (and checked against what the loaded library reports).
nettle-{ver}    a64    nettle                 seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       release=trixie,check-sizes=16
libgcrypt-{ver} a64    libgcrypt              seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       release=trixie,check-sizes=16
libgcrypt-{ver}-open a64 libgcrypt            open      128,256 16,64,256,1420,8192 12 13  aese,pmull       release=trixie,check-sizes=16
openssl-{ver}   a64    openssl                seal      128,256 16,64,256,1420,8192 12 13  aese,pmull       release=trixie,check-sizes=16
openssl-{ver}-a32 a32  openssl                seal      128,256 16,64,256,1420,8192 12 13  aese,vmull       release=trixie,-cpu=max,check-sizes=16
nettle-{ver}-gnutls a64 nettle                gnutls       128,256 16,64,256,1420,8192 12 13 aese,pmull   release=trixie,check-sizes=16
nettle-{ver}-gnutls-open a64 nettle           gnutls_open  128,256 16,64,256,1420,8192 12 13 aese,pmull   release=trixie,check-sizes=16
# nettle 3.9 and later's C GHASH is side-channel silent and about 3x slower: the path of cores
# without the crypto extensions (NETTLE_FAT_OVERRIDE=none) and of armhf (arch:7,neon, as above)
nettle-{ver}-gnutls-c a64 nettle              gnutls       128,256 16,64,256,1420,8192 12 13 !aese,!pmull release=trixie,NETTLE_FAT_OVERRIDE=none,check-sizes=16
nettle-{ver}-gnutls-c-open a64 nettle         gnutls_open  128,256 16,64,256,1420,8192 12 13 !aese,!pmull release=trixie,NETTLE_FAT_OVERRIDE=none,check-sizes=16
nettle-{ver}-gnutls-a32 a32 nettle            gnutls       128,256 16,64,256,1420,8192 12 13 !aese,!vmull release=trixie,NETTLE_FAT_OVERRIDE=arch:7,neon,check-sizes=16
nettle-{ver}-gnutls-a32-open a32 nettle       gnutls_open  128,256 16,64,256,1420,8192 12 13 !aese,!vmull release=trixie,NETTLE_FAT_OVERRIDE=arch:7,neon,check-sizes=16
TABLE
)

usage() { # the header comment; to stderr when called for an error
  local fd=1; [ "${1:-0}" = 0 ] || fd=2
  awk 'NR>1 && !/^#/{exit} NR>1{sub(/^# ?/,""); print}' "${BASH_SOURCE[0]}" >&$fd; exit "${1:-0}"
}
die() { echo "model-arm: $*" >&2; exit 2; }

TARGET=aarch64 CPUS= KEEP= BUILD=1 CACHE=1 ITER=500 MODE=table PKERNEL= PCPU= WCHECK=0 WONLY= WPROFILE=
WRELEASE= WKEYS= WSIZES=
while [ $# -gt 0 ]; do
  case $1 in
    --target) TARGET=${2:?}; shift 2;;
    --target=*) TARGET=${1#*=}; shift;;
    --cpus) CPUS=${2:?}; shift 2;;
    --cpus=*) CPUS=${1#*=}; shift;;
    --keep) KEEP=${2:?}; shift 2;;
    --keep=*) KEEP=${1#*=}; shift;;
    --iterations) ITER=${2:?}; shift 2;;
    --no-build) BUILD=0; shift;;
    --no-cache) CACHE=0; shift;;
    --pressure) MODE=pressure; PKERNEL=${2:?--pressure KERNEL CPU}; PCPU=${3:?--pressure KERNEL CPU}; shift 3;;
    --loops) MODE=loops; PKERNEL=${2:?--loops KERNEL}; shift 2;;
    --selftest) MODE=selftest; shift;;
    --whole-call) MODE=wholecall; shift;;
    --check) WCHECK=1; shift;;
    --only) WONLY=${2:?}; shift 2;;
    --only=*) WONLY=${1#*=}; shift;;
    --profile) WPROFILE=${2:?}; shift 2;;
    --release) WRELEASE=${2:?}; shift 2;;
    --release=*) WRELEASE=${1#*=}; shift;;
    --keys) WKEYS=${2:?}; shift 2;;
    --sizes) WSIZES=${2:?}; shift 2;;
    --openssl-armhf) MODE=openssl; shift;;
    -h|--help) usage 0;;
    *) echo "model-arm: unknown argument $1" >&2; usage 2;;
  esac
done
case $TARGET in aarch64|armv7|all) ;; *) die "--target must be aarch64, armv7 or all";; esac
[[ $ITER =~ ^[0-9]+$ ]] || die "--iterations wants a number"

# ---- tools: llvm-mca must be 19 or newer (14 silently maps neoverse-n1/v1 onto the A57 model)
pick() { # first usable of the candidates
  local c; for c in "$@"; do [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return; }; done; return 1
}
MCA=$(pick "${LLVM_MCA:-}" llvm-mca-19 /usr/lib/llvm-19/bin/llvm-mca) || die "llvm-mca-19 not found (apt-get install llvm-19)"
OBJDUMP=$(pick "${LLVM_OBJDUMP:-}" llvm-objdump-19 /usr/lib/llvm-19/bin/llvm-objdump) || die "llvm-objdump-19 not found"
ver=$("$MCA" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9][0-9]*\)\..*/\1/p' | head -n1)
[ -n "$ver" ] || die "cannot read the version of $MCA"
[ "$ver" -ge 19 ] || die "$MCA is LLVM $ver; need >= 19 (older ones lack the neoverse-n1/v1 models and silently substitute A57)"
[ "$ver" -eq 19 ] || echo "model-arm: note: $MCA is LLVM $ver; the peer figures were made with 19.1.7, compare with care" >&2
PY=$(pick python3 /usr/bin/python3) || die "python3 not found"

COMMON=(--mca "$MCA" --objdump "$OBJDUMP" --iterations "$ITER")
if [ $MODE = selftest ]; then
  MC=$(pick "${MCA/llvm-mca/llvm-mc}" llvm-mc-19 /usr/lib/llvm-19/bin/llvm-mc) || die "llvm-mc-19 not found"
  [ "$MC" = "${MCA/llvm-mca/llvm-mc}" ] || die "self-test wants llvm-mc next to $MCA"
  exec "$PY" "$HELPER" "${COMMON[@]}" --selftest
fi

if [ $MODE = openssl ]; then
  lib=$ROOT/.deps/armhf/usr/lib/arm-linux-gnueabihf/libcrypto.so.3
  [ -f "$lib" ] || die "$lib not found (scripts/deps.sh fetches Debian's armhf libssl3)"
  # libssl3 on Debian 12, libssl3t64 on Debian 13 (the 64-bit time_t rename).
  ver=$(grep -hE '^Package: libssl3(t64)? ' "$ROOT/.deps/armhf/VERSIONS" 2>/dev/null | tail -n1 || true)
  echo "# ${ver:-libssl3 (version unknown)}"
  exec "$PY" "$ROOT/scripts/model-arm-openssl.py" "${COMMON[@]}" --lib "$lib" \
    --cpus "${CPUS:-cortex-a57,cortex-a72}" --cache "$ROOT/target/debian/model-arm-cache"
fi

# ---- build ---------------------------------------------------------------------------------
triples=()
case $TARGET in
  aarch64) triples=(aarch64-unknown-linux-gnu);;
  armv7) triples=(armv7-unknown-linux-gnueabihf);;
  all) triples=(aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf);;
esac
LIBARGS=()
for t in "${triples[@]}"; do
  lib=$ROOT/target/debian/$t/release/libstitchgcm.so
  if [ $BUILD = 1 ]; then
    echo "model-arm: building $t ..." >&2
    (cd "$ROOT" && RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian \
       cargo build --release --lib --target "$t" --quiet) >&2 || die "cargo build for $t failed"
    # The libgcrypt interposer beside it, for the libgcrypt->stitchgcm whole-call row.
    [ $MODE = wholecall ] && { "$ROOT/scripts/build-gcrypt-preload.sh" "$ROOT/target/debian" \
       "$ROOT/target/debian/$t/release/libstitchgcm-gcrypt.so" "$t" >/dev/null 2>&1 ||
       die "building the libgcrypt interposer for $t failed"; }
  fi
  [ -f "$lib" ] || die "$lib not found"
  case $t in aarch64*) LIBARGS+=(--lib-a64 "$lib");; *) LIBARGS+=(--lib-a32 "$lib");; esac
done

TABLEFILE=$(mktemp /tmp/model-arm-table.XXXXXX)
trap 'rm -f "$TABLEFILE"' EXIT
printf '%s\n' "$KERNELS" > "$TABLEFILE"

if [ $MODE = wholecall ]; then
  # The tracer is a TCG plugin: a dynamically linked qemu-user loads it (Debian 12's), a
  # static one cannot (Debian 13's qemu-user has no -plugin option).
  for q in qemu-aarch64 qemu-arm; do
    "$q" -h 2>/dev/null | grep -q '^-plugin' ||
      die "--whole-call: $q ($("$q" --version 2>/dev/null | head -n1)) cannot load TCG plugins (static build, as Debian 13's qemu-user is); run it where qemu-user is dynamically linked (Debian 12)"
  done
  MC=$(pick "${MCA/llvm-mca/llvm-mc}" llvm-mc-19 /usr/lib/llvm-19/bin/llvm-mc) || die "llvm-mc-19 not found"
  WTABLE=$(mktemp /tmp/model-arm-whole.XXXXXX)
  trap 'rm -f "$TABLEFILE" "$WTABLE"' EXIT
  printf '%s\n' "$WHOLE_CALLS" > "$WTABLE"
  WARGS=(--table "$WTABLE" --kernels "$TABLEFILE" "${LIBARGS[@]}" --mca "$MCA" --mc "$MC" --objdump "$OBJDUMP")
  [ -n "$CPUS" ] && WARGS+=(--cpus "$CPUS")
  [ -n "$KEEP" ] && WARGS+=(--keep "$KEEP")
  [ -n "$WONLY" ] && WARGS+=(--only "$WONLY")
  [ $CACHE = 1 ] && WARGS+=(--cache "$ROOT/target/debian/whole-call-cache" --loop-cache "$ROOT/target/debian/model-arm-cache")
  [ $WCHECK = 1 ] && WARGS+=(--check)
  [ -n "$WPROFILE" ] && WARGS+=(--profile "$WPROFILE")
  [ -n "$WKEYS" ] && WARGS+=(--keys "$WKEYS")
  [ -n "$WSIZES" ] && WARGS+=(--sizes "$WSIZES")
  if [ -n "$WRELEASE" ]; then
    for r in ${WRELEASE//,/ }; do
      case $r in
        all) ;;
        bookworm|trixie)
          # the host's release is .deps/<arch> (scripts/deps.sh); another one needs its tree
          host=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
          [ "$r" = "$host" ] || [ -f "$ROOT/.deps/release/$r/arm64/VERSIONS" ] ||
            die "--release $r: no $r peer libraries in .deps/release/$r (run scripts/deps-peers.sh $r)";;
        *) die "--release: bookworm, trixie or all, not $r";;
      esac
    done
    WARGS+=(--release "$WRELEASE")
  fi
  "$PY" "$ROOT/scripts/whole-call/whole-call.py" "${WARGS[@]}"
  exit
fi

ARGS=("${COMMON[@]}" --table "$TABLEFILE" "${LIBARGS[@]}")
[ -n "$CPUS" ] && ARGS+=(--cpus "$CPUS")
[ -n "$KEEP" ] && ARGS+=(--keep "$KEEP")
[ $CACHE = 1 ] && ARGS+=(--cache "$ROOT/target/debian/model-arm-cache")
case $MODE in
  pressure) ARGS+=(--pressure "$PKERNEL" "$PCPU");;
  loops) ARGS+=(--loops "$PKERNEL");;
esac
"$PY" "$HELPER" "${ARGS[@]}"
