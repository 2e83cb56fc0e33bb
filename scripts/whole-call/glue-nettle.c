/* glue-nettle.c - nettle's entry for the whole-call driver: the gcm_aesNNN_* calls GnuTLS
 * makes per record (set_iv, update with the AAD, encrypt, digest) on a keyed context. */
#include <stdio.h>
#include <stdlib.h>

#include <nettle/gcm.h>
#include <nettle/version.h>

#include "whole-call.h"

const char *wc_version(void) {
  static char v[32];
  snprintf(v, sizeof v, "nettle %d.%d", nettle_version_major(), nettle_version_minor());
  return v;
}

struct ctx {
  size_t keylen;
  union {
    struct gcm_aes128_ctx a128;
    struct gcm_aes256_ctx a256;
  } u;
};

static void *setup(const uint8_t *key, size_t keylen) {
  struct ctx *c;
  if (keylen != 16 && keylen != 32) return NULL;
  c = aligned_alloc(64, (sizeof *c + 63) / 64 * 64);
  if (!c) wc_die("allocation");
  c->keylen = keylen;
  if (keylen == 16) gcm_aes128_set_key(&c->u.a128, key);
  else gcm_aes256_set_key(&c->u.a256, key);
  return c;
}

static void seal(void *p, const struct wc_msg *m) {
  struct ctx *c = p;
  if (c->keylen == 16) {
    gcm_aes128_set_iv(&c->u.a128, m->ivlen, m->iv);
    gcm_aes128_update(&c->u.a128, m->aadlen, m->aad);
    gcm_aes128_encrypt(&c->u.a128, m->len, m->out, m->in);
    gcm_aes128_digest(&c->u.a128, 16, m->tag);
  } else {
    gcm_aes256_set_iv(&c->u.a256, m->ivlen, m->iv);
    gcm_aes256_update(&c->u.a256, m->aadlen, m->aad);
    gcm_aes256_encrypt(&c->u.a256, m->len, m->out, m->in);
    gcm_aes256_digest(&c->u.a256, 16, m->tag);
  }
}

WC_ENTRIES({"gcm_aes", setup, seal});
