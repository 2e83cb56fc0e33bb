/*
 * OpenSSL through EVP: one context keyed for encryption, one for decryption; a message is
 * Init(iv) + Update + Final + the tag ctrl, the usual EVP AEAD sequence. The IV length is
 * set only when it changes (the check mixes 12- and 8-byte IVs).
 *
 * "openssl->stitchgcm" is the same calls in a worker whose default library context has
 * stitchgcm's OpenSSL provider loaded beside the default provider and preferred by default
 * properties: what a program gets from an openssl.cnf that activates the provider with
 * `default_properties = ?provider=stitchgcm` (docs/openssl-provider.md). Setup checks that
 * the cipher really came from the provider. The module: $STITCHGCM_PROVIDER, else the
 * build tree's (STITCHGCM_PROVIDER_SO, set by bench/meson.build); no module, no row.
 */
#include "impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* The provider setup insists on (loaded in the openssl->stitchgcm worker only). */
static OSSL_PROVIDER *os_want_provider;

struct os {
  EVP_CIPHER_CTX *e, *d;
  size_t eiv, div; /* IV length each context is set to */
};
static void os_fail(const char *what) { die("OpenSSL %s failed", what); }
static void *os_setup(const uint8_t *key, size_t keylen) {
  const EVP_CIPHER *ci = keylen == 16 ? EVP_aes_128_gcm()
                         : keylen == 24 ? EVP_aes_192_gcm()
                                        : EVP_aes_256_gcm();
  struct os *o = malloc(sizeof *o);
  if (!o) abort();
  o->e = EVP_CIPHER_CTX_new();
  o->d = EVP_CIPHER_CTX_new();
  if (!o->e || !o->d || !EVP_EncryptInit_ex(o->e, ci, NULL, key, NULL) ||
      !EVP_DecryptInit_ex(o->d, ci, NULL, key, NULL))
    os_fail("setup");
  o->eiv = o->div = 12;
  if (os_want_provider) {
    const OSSL_PROVIDER *prov = EVP_CIPHER_get0_provider(EVP_CIPHER_CTX_get0_cipher(o->e));
    if (prov != os_want_provider)
      die("openssl->stitchgcm: AES-GCM came from the %s provider, not stitchgcm's",
          prov ? OSSL_PROVIDER_get0_name(prov) : "(no)");
  }
  return o;
}
static void os_teardown(void *c) {
  struct os *o = c;
  EVP_CIPHER_CTX_free(o->e);
  EVP_CIPHER_CTX_free(o->d);
  free(o);
}
static void os_setiv(struct os *o, int enc, const uint8_t *iv, size_t ivlen) {
  EVP_CIPHER_CTX *x = enc ? o->e : o->d;
  size_t *cur = enc ? &o->eiv : &o->div;
  if (ivlen != *cur) {
    if (!EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)ivlen, NULL)) os_fail("set ivlen");
    *cur = ivlen;
  }
  if (!(enc ? EVP_EncryptInit_ex(x, NULL, NULL, NULL, iv)
            : EVP_DecryptInit_ex(x, NULL, NULL, NULL, iv)))
    os_fail("setiv");
}
static void os_enc(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t tag[16];
  int n, m;
  os_setiv(o, 1, bench_nonce, 12);
  if (!EVP_EncryptUpdate(o->e, buf, &n, buf, (int)len) || !EVP_EncryptFinal_ex(o->e, buf + n, &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("encrypt");
}
static void os_dec(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t zero[16] = {0};
  int n, m;
  os_setiv(o, 0, bench_nonce, 12);
  if (!EVP_DecryptUpdate(o->d, buf, &n, buf, (int)len) ||
      !EVP_CIPHER_CTX_ctrl(o->d, EVP_CTRL_GCM_SET_TAG, 16, zero))
    os_fail("decrypt");
  bench_sink += (unsigned)EVP_DecryptFinal_ex(o->d, buf + n, &m); /* fails: wrong tag */
}
static void os_auth(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t tag[16], one = 0xff;
  int n, m;
  os_setiv(o, 1, bench_nonce, 12);
  if (!EVP_EncryptUpdate(o->e, NULL, &n, buf, (int)len) ||
      !EVP_EncryptUpdate(o->e, &one, &n, &one, 1) || !EVP_EncryptFinal_ex(o->e, &one, &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("authenticate");
}
static void os_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  struct os *o = c;
  int n = 0, m;
  os_setiv(o, 1, iv, ivlen);
  if ((alen && !EVP_EncryptUpdate(o->e, NULL, &n, aad, (int)alen)) ||
      (len && !EVP_EncryptUpdate(o->e, out, &n, in, (int)len)) ||
      !EVP_EncryptFinal_ex(o->e, out + (len ? n : 0), &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("seal");
}
static int os_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  struct os *o = c;
  int n = 0, m;
  uint8_t t[16];
  memcpy(t, tag, 16);
  os_setiv(o, 0, iv, ivlen);
  if ((alen && !EVP_DecryptUpdate(o->d, NULL, &n, aad, (int)alen)) ||
      (len && !EVP_DecryptUpdate(o->d, out, &n, in, (int)len)) ||
      !EVP_CIPHER_CTX_ctrl(o->d, EVP_CTRL_GCM_SET_TAG, 16, t))
    os_fail("open");
  return EVP_DecryptFinal_ex(o->d, out + (len ? n : 0), &m) == 1;
}

static void os_version(char *out, size_t n) {
  snprintf(out, n, "%s", OpenSSL_version(OPENSSL_VERSION_STRING));
}

static const char *os_provider_module(void) {
  const char *p = getenv("STITCHGCM_PROVIDER");
#ifdef STITCHGCM_PROVIDER_SO
  if (!p || !*p) p = STITCHGCM_PROVIDER_SO;
#endif
  return p && *p && access(p, R_OK) == 0 ? p : NULL;
}

/* In the openssl->stitchgcm worker, before any fetch: the default provider (loading one
 * explicitly stops OpenSSL from loading it implicitly) and stitchgcm's, preferred. */
static void os_provider_init(const struct impl *self) {
  (void)self;
  const char *module = os_provider_module();
  if (!module || !OSSL_PROVIDER_load(NULL, "default") ||
      !(os_want_provider = OSSL_PROVIDER_load(NULL, module)) ||
      !EVP_set_default_properties(NULL, "?provider=stitchgcm"))
    die("openssl->stitchgcm: cannot load the provider %s", module ? module : "(none found)");
}

static struct impl *os_add(const char *label) {
  struct impl *p = impl_add(label);
  p->version = os_version;
  p->setup = os_setup, p->teardown = os_teardown, p->seal = os_seal, p->open_ = os_open;
  p->op[MODE_ENC] = os_enc, p->op[MODE_DEC] = os_dec, p->op[MODE_AUTH] = os_auth;
  return p;
}

void openssl_register(void) {
  os_add("openssl");
  if (os_provider_module()) os_add("openssl->stitchgcm")->init = os_provider_init;
}
