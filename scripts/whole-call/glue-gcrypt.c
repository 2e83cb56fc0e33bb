/* glue-gcrypt.c - libgcrypt's entry for the whole-call driver: setiv, authenticate,
 * encrypt, gettag on a keyed handle. */
#include <stdio.h>

#include <gcrypt.h>

#include "whole-call.h"

const char *wc_version(void) {
  static char v[48];
  snprintf(v, sizeof v, "libgcrypt %s", gcry_check_version(NULL));
  return v;
}

static void check(gcry_error_t e, const char *what) {
  if (e) wc_die(what);
}

static void *setup(const uint8_t *key, size_t keylen) {
  gcry_cipher_hd_t h;
  int algo = keylen == 16 ? GCRY_CIPHER_AES128 : keylen == 24 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
  if (!gcry_check_version(GCRYPT_VERSION)) wc_die("gcry_check_version");
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  check(gcry_cipher_open(&h, algo, GCRY_CIPHER_MODE_GCM, 0), "gcry_cipher_open");
  check(gcry_cipher_setkey(h, key, keylen), "gcry_cipher_setkey");
  return h;
}

static void seal(void *h, const struct wc_msg *m) {
  check(gcry_cipher_setiv(h, m->iv, m->ivlen), "gcry_cipher_setiv");
  check(gcry_cipher_authenticate(h, m->aad, m->aadlen), "gcry_cipher_authenticate");
  check(gcry_cipher_encrypt(h, m->out, m->len, m->in, m->len), "gcry_cipher_encrypt");
  check(gcry_cipher_gettag(h, m->tag, 16), "gcry_cipher_gettag");
}

/* what bench-gcm (after libgcrypt's bench-slope) calls: reset first, final before the data */
static void seal_bench(void *h, const struct wc_msg *m) {
  check(gcry_cipher_reset(h), "gcry_cipher_reset");
  check(gcry_cipher_setiv(h, m->iv, m->ivlen), "gcry_cipher_setiv");
  check(gcry_cipher_authenticate(h, m->aad, m->aadlen), "gcry_cipher_authenticate");
  check(gcry_cipher_final(h), "gcry_cipher_final");
  check(gcry_cipher_encrypt(h, m->out, m->len, m->in, m->len), "gcry_cipher_encrypt");
  check(gcry_cipher_gettag(h, m->tag, 16), "gcry_cipher_gettag");
}

WC_ENTRIES({"handle", setup, seal}, {"bench", setup, seal_bench});
