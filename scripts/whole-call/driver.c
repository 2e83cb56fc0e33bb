/*
 * driver.c - the program the whole-call model traces (scripts/model-arm.sh --whole-call).
 *
 * It reuses the benchmark's implementations as they are: bench/gcm/registry.c and the
 * family files impl-*.c listed in bench/gcm/sources.txt (so every peer's call sequence is
 * written once, there), and traces one of the slots of a registered implementation:
 *   seal          the handle API's message: setiv + AAD + encrypt + tag on a keyed handle
 *   seal_keyed    a whole message in one call on a keyed handle (filled once it exists)
 *   seal_rfc4106  RFC 4106, 8-byte explicit IV (filled once it exists)
 *   sgcm_seal     stitchgcm's raw-key one-shot (expands the key on every call)
 *   gnutls        nettle's API as GnuTLS drives it (nettle labels): gcm_aesNNN_set_iv,
 *                 gcm_aesNNN_update, the generic gcm_encrypt(..., nettle_aesNNN_encrypt, ...)
 *                 and gcm_aesNNN_digest (run with LD_PRELOAD=libstitchgcm.so, stitchgcm's)
 * For each key size and message size it runs the call a few times on the same context and
 * buffers, then once more between the trace plugin's marker instructions (trace-plugin.c),
 * so lazy binding, first-use initialisation and cold paths are outside the window.
 *
 * usage: driver --impl LABEL [--entry SLOT] [--keys 128,256] [--sizes 16,64] [--iv 12]
 *               [--aad 13] [--warm 3] [--regions PATH]
 * --regions writes where the caller's buffers and the context lie (regions.c), for the
 * footprint report (scripts/footprint/).
 * stdout: "version <text>", then one line per window, in window order:
 *   window <k> <slot> <keybits> <ivlen> <aadlen> <bytes> <tag hex>
 * or "unavailable <slot> <keybits>" when the implementation lacks the call.
 */
#include "harness.h"
#include "impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stitchgcm.h>

#include "markers.h"
#include "regions.h"

#define MAXLIST 32

struct options opt; /* registry.c reads opt.only; nothing is filtered here */

/* sgcm_seal takes the raw key on every call: its context is the key. */
struct raw_key {
  uint8_t key[64];
  size_t len;
};
static void *raw_key_setup(const uint8_t *key, size_t keylen) {
  struct raw_key *k = malloc(sizeof *k);
  if (!k || keylen > sizeof k->key) die("raw key");
  memcpy(k->key, key, keylen);
  k->len = keylen;
  return k;
}
static void raw_key_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                         size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                         uint8_t tag[16]) {
  const struct raw_key *k = c;
  sgcm_error_t e = sgcm_seal(k->key, k->len, iv, ivlen, aad, alen, in, len, out, tag, 16);
  if (e) die("sgcm_seal: %s", sgcm_strerror(e));
}

#ifdef HAVE_NETTLE
#include <nettle/aes.h>
#include <nettle/gcm.h>

/* The gnutls entry: GnuTLS's nettle back end keys with gcm_aesNNN_set_key and encrypts
 * with the generic gcm_encrypt over the context's own gcm, key and cipher fields. */
union gnutls_ctx {
  struct gcm_aes128_ctx a128;
  struct gcm_aes256_ctx a256;
};
static size_t gnutls_keylen;
static void *gnutls_setup(const uint8_t *key, size_t keylen) {
  union gnutls_ctx *c = aligned_alloc(64, (sizeof *c + 63) / 64 * 64);
  if (!c || (keylen != 16 && keylen != 32)) die("gnutls entry: AES-128 or AES-256 only");
  gnutls_keylen = keylen;
  if (keylen == 16) gcm_aes128_set_key(&c->a128, key);
  else gcm_aes256_set_key(&c->a256, key);
  return c;
}
static void gnutls_seal(void *v, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                        size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                        uint8_t tag[16]) {
  union gnutls_ctx *c = v;
  if (gnutls_keylen == 16) {
    gcm_aes128_set_iv(&c->a128, ivlen, iv);
    gcm_aes128_update(&c->a128, alen, aad);
    gcm_encrypt(&c->a128.gcm, &c->a128.key, &c->a128.cipher,
                (nettle_cipher_func *)nettle_aes128_encrypt, len, out, in);
    gcm_aes128_digest(&c->a128, 16, tag);
  } else {
    gcm_aes256_set_iv(&c->a256, ivlen, iv);
    gcm_aes256_update(&c->a256, alen, aad);
    gcm_encrypt(&c->a256.gcm, &c->a256.key, &c->a256.cipher,
                (nettle_cipher_func *)nettle_aes256_encrypt, len, out, in);
    gcm_aes256_digest(&c->a256, 16, tag);
  }
}
/* Its layout: the key material (GHASH table and AES schedule) and the message state. */
static size_t gnutls_ranges(const void *v, struct region *r) {
  const union gnutls_ctx *c = v;
  if (gnutls_keylen == 16) {
    r[0] = (struct region){"key", &c->a128.key, sizeof c->a128.key};
    r[1] = (struct region){"key", &c->a128.cipher, sizeof c->a128.cipher};
    r[2] = (struct region){"state", &c->a128.gcm, sizeof c->a128.gcm};
  } else {
    r[0] = (struct region){"key", &c->a256.key, sizeof c->a256.key};
    r[1] = (struct region){"key", &c->a256.cipher, sizeof c->a256.cipher};
    r[2] = (struct region){"state", &c->a256.gcm, sizeof c->a256.gcm};
  }
  return 3;
}
#endif

static size_t parse_list(const char *s, size_t *v) {
  size_t n = 0;
  while (*s && n < MAXLIST) {
    char *end;
    v[n++] = strtoul(s, &end, 10);
    if (end == s) die("bad number list");
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

static void *xalloc(size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (!p) die("allocation");
  return p;
}

int main(int argc, char **argv) {
  const char *label = NULL, *slot = "seal";
  size_t keys[MAXLIST] = {128, 256}, nkeys = 2;
  size_t sizes[MAXLIST] = {16, 64, 256, 1420, 8192}, nsizes = 5;
  size_t ivlen = 12, aadlen = 13, warm = 3, maxlen = 0, window = 0, i, k, s;
  uint8_t key[64], iv[64], aad[256], tag[16], *in, *out;
  const struct impl *p = NULL;
  void *(*setup)(const uint8_t *, size_t);
  size_t (*ranges)(const void *, struct region *) = NULL;
  seal_fn seal;
  char version[128] = "?";

  for (i = 1; i + 1 < (size_t)argc; i += 2) {
    const char *a = argv[i], *v = argv[i + 1];
    if (!strcmp(a, "--impl")) label = v;
    else if (!strcmp(a, "--entry")) slot = v;
    else if (!strcmp(a, "--keys")) nkeys = parse_list(v, keys);
    else if (!strcmp(a, "--sizes")) nsizes = parse_list(v, sizes);
    else if (!strcmp(a, "--iv")) ivlen = strtoul(v, NULL, 10);
    else if (!strcmp(a, "--aad")) aadlen = strtoul(v, NULL, 10);
    else if (!strcmp(a, "--warm")) warm = strtoul(v, NULL, 10);
    else if (!strcmp(a, "--regions")) regions_open(v);
    else die("unknown option %s", a);
  }
  if (i != (size_t)argc || !label) die("usage: driver --impl LABEL [--entry SLOT] [...]");
  if (ivlen > sizeof iv || aadlen > sizeof aad) die("IV or AAD too long");
  for (k = 0; k < nkeys; k++)
    if (keys[k] % 8 || keys[k] / 8 > sizeof key) die("bad key size %zu bits", keys[k]);
  impl_discover();
  for (int j = 0; j < nimpl; j++)
    if (!strcmp(impls[j].label, label)) p = &impls[j];
  if (!p) die("no implementation %s in this build", label);
  if (p->init) p->init(p);
  if (p->version) p->version(version, sizeof version);
  setup = p->setup;
  if (!strcmp(slot, "seal")) seal = p->seal;
  else if (!strcmp(slot, "seal_keyed")) seal = p->seal_keyed;
  else if (!strcmp(slot, "seal_rfc4106")) seal = p->seal_rfc4106;
  else if (!strcmp(slot, "sgcm_seal") && !strncmp(label, "stitchgcm/", 10))
    setup = raw_key_setup, seal = raw_key_seal;
#ifdef HAVE_NETTLE
  else if (!strcmp(slot, "gnutls") && !strncmp(label, "nettle", 6))
    setup = gnutls_setup, seal = gnutls_seal, ranges = gnutls_ranges;
#endif
  else die("unknown entry %s for %s", slot, label);
  printf("version %s %s\n", label, version);

  for (s = 0; s < nsizes; s++)
    if (sizes[s] > maxlen) maxlen = sizes[s];
  in = xalloc(maxlen + 1);
  out = xalloc(maxlen + 1);
  /* fixed, unremarkable inputs: every implementation sees the same bytes */
  for (i = 0; i < sizeof key; i++) key[i] = (uint8_t)(i * 7 + 1);
  for (i = 0; i < sizeof iv; i++) iv[i] = (uint8_t)(0xc0 + i);
  for (i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)(i * 3 + 5);
  for (i = 0; i < maxlen; i++) in[i] = (uint8_t)(i * 11 + 2);

  for (k = 0; k < nkeys; k++) {
    void *ctx;
    if (!seal) {
      printf("unavailable %s %zu\n", slot, keys[k]);
      continue;
    }
    ctx = setup(key, keys[k] / 8);
    for (s = 0; s < nsizes; s++) {
      for (i = 0; i < warm; i++) seal(ctx, iv, ivlen, aad, aadlen, in, out, sizes[s], tag);
      WC_MARK_START();
      seal(ctx, iv, ivlen, aad, aadlen, in, out, sizes[s], tag);
      WC_MARK_STOP();
      if (regions_on()) {
        struct region bufs[] = {{"iv", iv, ivlen}, {"aad", aad, aadlen}, {"in", in, sizes[s]},
                                {"out", out, sizes[s]}, {"tag", tag, 16}, {"ctx", ctx, 0}},
                      known[4];
        regions_window(window + 1, bufs, 6, known, ranges ? ranges(ctx, known) : 0);
      }
      printf("window %zu %s %zu %zu %zu %zu ", ++window, slot, keys[k], ivlen, aadlen, sizes[s]);
      for (i = 0; i < 16; i++) printf("%02x", tag[i]);
      printf("\n");
    }
    if (setup == raw_key_setup || ranges) free(ctx);
    else if (p->teardown) p->teardown(ctx);
  }
  regions_close();
  return 0;
}
