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
 *   gnutls        nettle's API as GnuTLS drives it per record (nettle labels; impl.h's
 *                 seal_gnutls, impl-nettle.c): gcm_aesNNN_set_iv, gcm_aesNNN_update, the
 *                 generic gcm_encrypt(..., nettle_aesNNN_encrypt, ...), gcm_aesNNN_digest
 *                 (run with LD_PRELOAD=libstitchgcm.so, the label is "nettle->stitchgcm")
 *   gnutls_open   the same record decrypted (open_gnutls): gcm_decrypt instead, then the
 *                 constant-time compare with the tag
 *   open          the handle API's decryption (open_)
 * For each key size and message size it runs the call a few times on the same context and
 * buffers, then once more between the trace plugin's marker instructions (trace-plugin.c),
 * so lazy binding, first-use initialisation and cold paths are outside the window. An
 * opening entry decrypts what the implementation's matching sealing call made before the
 * first of them (outside every window), so each traced call has a tag that verifies; the
 * driver stops if one is refused, and prints that tag, which is the sealing call's.
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
  uint8_t key[64], iv[64], aad[256], tag[16], *in, *out, *ct;
  const struct impl *p = NULL;
  void *(*setup)(const uint8_t *, size_t);
  seal_fn seal;
  open_fn open = NULL; /* an opening entry: the call traced; seal then makes its input */
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
  else if (!strcmp(slot, "gnutls")) seal = p->seal_gnutls;
  else if (!strcmp(slot, "gnutls_open")) seal = p->seal_gnutls, open = p->open_gnutls;
  else if (!strcmp(slot, "open")) seal = p->seal, open = p->open_;
  else die("unknown entry %s for %s", slot, label);
  if (!open && strstr(slot, "open")) seal = NULL; /* no opening call: unavailable */
  printf("version %s %s\n", label, version);

  for (s = 0; s < nsizes; s++)
    if (sizes[s] > maxlen) maxlen = sizes[s];
  in = xalloc(maxlen + 1);
  out = xalloc(maxlen + 1);
  ct = xalloc(maxlen + 1);
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
      int ok = 1;
      if (open) { /* the record to open and its tag, made before the warm-up */
        seal(ctx, iv, ivlen, aad, aadlen, in, ct, sizes[s], tag);
        for (i = 0; i < warm; i++) ok &= open(ctx, iv, ivlen, aad, aadlen, ct, out, sizes[s], tag);
        WC_MARK_START();
        ok &= open(ctx, iv, ivlen, aad, aadlen, ct, out, sizes[s], tag);
        WC_MARK_STOP();
        if (!ok || memcmp(out, in, sizes[s])) die("%s %s refused its own record", label, slot);
      } else {
        for (i = 0; i < warm; i++) seal(ctx, iv, ivlen, aad, aadlen, in, out, sizes[s], tag);
        WC_MARK_START();
        seal(ctx, iv, ivlen, aad, aadlen, in, out, sizes[s], tag);
        WC_MARK_STOP();
      }
      if (regions_on()) {
        struct region bufs[] = {{"iv", iv, ivlen}, {"aad", aad, aadlen},
                                {"in", open ? ct : in, sizes[s]}, {"out", out, sizes[s]},
                                {"tag", tag, 16}, {"ctx", ctx, 0}},
                      known[4];
        struct impl_range r[4];
        size_t n = setup == p->setup && p->layout ? p->layout(ctx, r) : 0;
        for (i = 0; i < n; i++) known[i] = (struct region){r[i].kind, r[i].addr, r[i].len};
        regions_window(window + 1, bufs, 6, known, n);
      }
      printf("window %zu %s %zu %zu %zu %zu ", ++window, slot, keys[k], ivlen, aadlen, sizes[s]);
      for (i = 0; i < 16; i++) printf("%02x", tag[i]);
      printf("\n");
    }
    if (setup == raw_key_setup) free(ctx);
    else if (p->teardown) p->teardown(ctx);
  }
  regions_close();
  return 0;
}
