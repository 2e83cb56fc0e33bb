/*
 * Focused benchmark for the nettle drop-in: the same nettle-API program runs once against
 * plain libnettle and once with LD_PRELOAD=libstitchgcm.so (scripts/bench-nettle.sh does
 * both and prints them side by side). It times what GnuTLS does per TLS record:
 * gcm_aes128_set_iv, gcm_aes128_update (13-byte header), the generic
 * gcm_encrypt(…, nettle_aes128_encrypt, …) and gcm_aes128_digest — and the plain
 * gcm_aesNNN_encrypt loop on long buffers for each key size.
 *
 * Output: one line per case, "case size ns/B" (best of several runs of ~50 ms each), so
 * the script can join the two runs. Built against the system nettle headers only.
 */
#define _POSIX_C_SOURCE 200809L
#include <nettle/aes.h>
#include <nettle/gcm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t sink;

/* GnuTLS-style record: returns ns per byte of payload. */
static double record_ns_per_byte(size_t size, size_t key_len) {
  static struct gcm_aes256_ctx ctx; /* large enough for every size */
  uint8_t key[32] = {7}, iv[12] = {1}, hdr[13] = {2}, tag[16];
  uint8_t *buf = malloc(size + 16);
  memset(buf, 3, size);
  nettle_cipher_func *f;
  if (key_len == 16) {
    gcm_aes128_set_key((struct gcm_aes128_ctx *)&ctx, key);
    f = (nettle_cipher_func *)aes128_encrypt;
  } else {
    gcm_aes256_set_key(&ctx, key);
    f = (nettle_cipher_func *)aes256_encrypt;
  }
  double best = 1e30;
  for (int rep = 0; rep < 7; rep++) {
    long n = 0;
    double t0 = now(), t;
    do {
      for (int i = 0; i < 16; i++) {
        iv[11] = (uint8_t)n++;
        if (key_len == 16) {
          gcm_aes128_set_iv((struct gcm_aes128_ctx *)&ctx, 12, iv);
          gcm_aes128_update((struct gcm_aes128_ctx *)&ctx, 13, hdr);
        } else {
          gcm_aes256_set_iv(&ctx, 12, iv);
          gcm_aes256_update(&ctx, 13, hdr);
        }
        gcm_encrypt(&ctx.gcm, &ctx.key, &ctx.cipher, f, size, buf, buf);
        if (key_len == 16)
          gcm_aes128_digest((struct gcm_aes128_ctx *)&ctx, 16, tag);
        else
          gcm_aes256_digest(&ctx, 16, tag);
        sink ^= tag[0];
      }
      t = now();
    } while (t - t0 < 0.05);
    double v = (t - t0) * 1e9 / ((double)n * size);
    if (v < best) best = v;
  }
  free(buf);
  return best;
}

int main(void) {
  static const size_t sizes[] = {16, 64, 256, 1420, 8192, 65536};
  for (int k = 0; k < 2; k++) {
    size_t key_len = k ? 32 : 16;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      printf("tls-record-aes%zu %zu %.4f\n", key_len * 8, sizes[i],
             record_ns_per_byte(sizes[i], key_len));
  }
  return sink == 0xff; /* keep the work observable */
}
