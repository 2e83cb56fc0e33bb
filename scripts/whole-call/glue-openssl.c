/* glue-openssl.c - OpenSSL's entry for the whole-call driver: the EVP AEAD sequence on a
 * context keyed once: EncryptInit_ex(iv), EncryptUpdate(AAD), EncryptUpdate(data),
 * EncryptFinal_ex, GET_TAG. */
#include <stdio.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "whole-call.h"

const char *wc_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

static void *setup(const uint8_t *key, size_t keylen) {
  const EVP_CIPHER *ci = keylen == 16 ? EVP_aes_128_gcm() : keylen == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
  EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
  if (!c || !EVP_EncryptInit_ex(c, ci, NULL, key, NULL)) wc_die("EVP_EncryptInit_ex (key)");
  return c;
}

static void seal(void *c, const struct wc_msg *m) {
  int n = 0, f;
  if (m->ivlen != 12 && !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)m->ivlen, NULL))
    wc_die("EVP_CTRL_GCM_SET_IVLEN");
  if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, m->iv)) wc_die("EVP_EncryptInit_ex (iv)");
  if (m->aadlen && !EVP_EncryptUpdate(c, NULL, &n, m->aad, (int)m->aadlen)) wc_die("EVP_EncryptUpdate (aad)");
  if (!EVP_EncryptUpdate(c, m->out, &n, m->in, (int)m->len)) wc_die("EVP_EncryptUpdate");
  if (!EVP_EncryptFinal_ex(c, m->out + n, &f)) wc_die("EVP_EncryptFinal_ex");
  if (!EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, m->tag)) wc_die("EVP_CTRL_GCM_GET_TAG");
}

WC_ENTRIES({"evp", setup, seal});
