/* glue-stitchgcm.c - stitchgcm's entries for the whole-call driver: the handle API on a
 * keyed handle, and the raw-key one-shot sgcm_seal (which expands the key on every call). */
#include <stdio.h>

#include <stitchgcm.h>

#include "whole-call.h"

const char *wc_version(void) {
  static char v[96];
  snprintf(v, sizeof v, "stitchgcm %s %s", sgcm_version(), sgcm_impl_name());
  return v;
}

static void check(sgcm_error_t e, const char *what) {
  if (e) wc_die(what);
}

static void *handle_setup(const uint8_t *key, size_t keylen) {
  sgcm_cipher_hd_t h;
  int algo = keylen == 16 ? SGCM_CIPHER_AES128 : keylen == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
  check(sgcm_cipher_open(&h, algo, SGCM_MODE_GCM, 0), "sgcm_cipher_open");
  check(sgcm_cipher_setkey(h, key, keylen), "sgcm_cipher_setkey");
  return h;
}

static void handle_seal(void *h, const struct wc_msg *m) {
  check(sgcm_cipher_setiv(h, m->iv, m->ivlen), "sgcm_cipher_setiv");
  check(sgcm_cipher_authenticate(h, m->aad, m->aadlen), "sgcm_cipher_authenticate");
  check(sgcm_cipher_encrypt(h, m->out, m->len, m->in, m->len), "sgcm_cipher_encrypt");
  check(sgcm_cipher_gettag(h, m->tag, 16), "sgcm_cipher_gettag");
}

static void *no_setup(const uint8_t *key, size_t keylen) {
  (void)key;
  (void)keylen;
  return (void *)1; /* the one-shot keeps no context */
}

static void oneshot_seal(void *unused, const struct wc_msg *m) {
  (void)unused;
  check(sgcm_seal(m->key, m->keylen, m->iv, m->ivlen, m->aad, m->aadlen, m->in, m->len, m->out,
                  m->tag, 16),
        "sgcm_seal");
}

WC_ENTRIES({"handle", handle_setup, handle_seal}, {"seal", no_setup, oneshot_seal});
