/*
 * Focused benchmark for the nettle drop-in: the same nettle-API program runs once against
 * plain libnettle and once with LD_PRELOAD=libstitchgcm.so (scripts/bench-nettle.sh does
 * both and prints them side by side). It times what GnuTLS does per TLS record, through
 * bench-gcm's nettle implementation (bench/gcm/impl-nettle.c: seal_gnutls and open_gnutls,
 * so the call sequence is the one bench-gcm and the whole-call model use):
 *   seal: gcm_aesNNN_set_iv, gcm_aesNNN_update (13-byte header), the generic
 *         gcm_encrypt(..., nettle_aesNNN_encrypt, ...) and gcm_aesNNN_digest;
 *   open: the same with gcm_decrypt, then the constant-time compare with the record's tag
 *         (out of place, a tag that verifies: every timed record is accepted).
 *
 * Output: first "label <nettle or nettle->stitchgcm>", then one line per case,
 * "case size ns/B" (best of several runs of ~50 ms each), so the script can join the two
 * runs, and last "clock <add chain GHz> <imul chain GHz> <TSC GHz>" (gcm/chain.h: the
 * imul chain and the TSC on x86_64 only, else 0), so that the script can give cycles. Built against the system nettle headers, with impl-nettle.c and the few registry
 * calls it needs defined here (no libstitchgcm at link time).
 */
#define _POSIX_C_SOURCE 200809L
#include "gcm/impl.h"
/* After impl.h, which sets the feature macros before any system header. */
#include "gcm/chain.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What impl-nettle.c takes from bench-gcm's registry (bench/gcm/registry.c). */
const uint8_t bench_nonce[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
volatile unsigned long bench_sink;
int impl_preload_rows; /* 0: this program is preloaded from outside, or not at all */
const char *impl_stitchgcm_so(void) { return NULL; }
static struct impl the_impl;
static int nregistered;
struct impl *impl_add(const char *label) {
  if (nregistered++) {
    fprintf(stderr, "nettle-preload: more than one nettle implementation registered\n");
    exit(2);
  }
  snprintf(the_impl.label, sizeof the_impl.label, "%s", label);
  return &the_impl;
}
int impl_lands_in_stitchgcm(void *fn) {
  Dl_info info;
  return dladdr(fn, &info) && impl_is_stitchgcm_file(info.dli_fname);
}
void nettle_register(void);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint8_t sink; /* keeps the tags observable */

/* One record size: returns ns per byte of payload, best of 7 runs of ~50 ms. The IV is the
 * same for every record: neither library's cost depends on its value, and the opened
 * records then carry a tag that verifies. */
static double record_ns_per_byte(const struct impl *p, int open, size_t size, size_t key_len) {
  uint8_t key[32] = {7}, hdr[13] = {2}, tag[16];
  uint8_t *pt = malloc(size + 16), *ct = malloc(size + 16);
  if (!pt || !ct) exit(2);
  memset(pt, 3, size);
  void *ctx = p->setup(key, key_len);
  p->seal_gnutls(ctx, bench_nonce, 12, hdr, 13, pt, ct, size, tag);
  double best = 1e30;
  /* Records between clock reads: about 16 KiB of payload, at least 16, so that a read of the
   * clock (~20 ns on a VM) stays under 1% of the time charged to the records. */
  long batch = size < 1024 ? 16384 / (long)size : 16;
  for (int rep = 0; rep < 7; rep++) {
    long n = 0;
    double t0 = now(), t;
    do {
      for (long i = 0; i < batch; i++, n++) {
        if (!open) {
          p->seal_gnutls(ctx, bench_nonce, 12, hdr, 13, pt, ct, size, tag);
          sink ^= tag[0];
        } else if (!p->open_gnutls(ctx, bench_nonce, 12, hdr, 13, ct, pt, size, tag)) {
          fprintf(stderr, "nettle-preload: %s refused its own record\n", p->label);
          exit(1);
        }
      }
      t = now();
    } while (t - t0 < 0.05);
    double v = (t - t0) * 1e9 / ((double)n * size);
    if (v < best) best = v;
  }
  p->teardown(ctx);
  free(pt);
  free(ct);
  return best;
}

/* GHz of one chain: the best of 7 timings of 2000 units (2M operations, ~1 ms) over the
 * operations' total latency. */
static double chain_ghz(int imul) {
  (void)imul;
  double best = 0;
  for (int rep = 0; rep < 7; rep++) {
    double t0 = now();
#if CHAIN_HAVE_IMUL
    if (imul) chain_imul_units(2000);
    else
#endif
      chain_add_units(2000);
    double g = 2000.0 * CHAIN_OPS / ((now() - t0) * 1e9);
#if CHAIN_HAVE_IMUL
    if (imul) g *= CHAIN_IMUL_LATENCY;
#endif
    if (g > best) best = g;
  }
  return best;
}

static double tsc_ghz(void) {
  double t0 = now(), t;
  uint64_t c0 = chain_tsc();
  while ((t = now()) - t0 < 0.05) {
  }
  return (double)(chain_tsc() - c0) / ((t - t0) * 1e9);
}

int main(void) {
  static const size_t sizes[] = {16, 64, 256, 1420, 8192, 65536};
  nettle_register();
  if (!the_impl.seal_gnutls || !the_impl.open_gnutls) return 2;
  printf("label %s\n", the_impl.label);
  for (int open = 0; open < 2; open++)
    for (int k = 0; k < 2; k++) {
      size_t key_len = k ? 32 : 16;
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        printf("tls-%s-aes%zu %zu %.4f\n", open ? "open" : "seal", key_len * 8, sizes[i],
               record_ns_per_byte(&the_impl, open, sizes[i], key_len));
    }
  printf("clock %.3f %.3f %.3f\n", chain_ghz(0), CHAIN_HAVE_IMUL ? chain_ghz(1) : 0.0,
         tsc_ghz());
  return 0;
}
