/*
 * libgcrypt through exactly the calls tests/bench-slope makes (reset, setiv, final, ...) in
 * the slope rows, so that scripts/bench-gcrypt-crosscheck.sh can put them next to
 * bench-slope's own; the record rows (seal/open) make libssh's per-packet calls.
 *
 * Two rows side by side: "libgcrypt", the real library's gcry_cipher_* (taken from the
 * loaded libgcrypt.so.20 by name and version, so they stay libgcrypt's even when this
 * program runs with an interposer preloaded), and "libgcrypt->stitchgcm", the same calls
 * into libstitchgcm-gcrypt.so, the interposer (dlopen()ed from the build tree, or from
 * $STITCHGCM_GCRYPT_SO; the row is left out when it is not there).
 */
#include "impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcrypt.h>

/* The cipher calls of one library. */
struct gc_api {
  gcry_error_t (*open)(gcry_cipher_hd_t *, int, int, unsigned int);
  void (*close)(gcry_cipher_hd_t);
  gcry_error_t (*ctl)(gcry_cipher_hd_t, int, void *, size_t);
  gcry_error_t (*setkey)(gcry_cipher_hd_t, const void *, size_t);
  gcry_error_t (*setiv)(gcry_cipher_hd_t, const void *, size_t);
  gcry_error_t (*authenticate)(gcry_cipher_hd_t, const void *, size_t);
  gcry_error_t (*encrypt)(gcry_cipher_hd_t, void *, size_t, const void *, size_t);
  gcry_error_t (*decrypt)(gcry_cipher_hd_t, void *, size_t, const void *, size_t);
  gcry_error_t (*gettag)(gcry_cipher_hd_t, void *, size_t);
  gcry_error_t (*checktag)(gcry_cipher_hd_t, const void *, size_t);
};
static struct gc_api real_api, interposer_api;

/* Fills `api` from the library `lib` (versioned lookup when `version` is set); 0 if a
 * function is missing. (Assigning through `*(void **)&` is dlsym's documented idiom.) */
static int gc_resolve(struct gc_api *api, void *lib, const char *version) {
  int ok = 1;
#define GC_FIND(field)                                                                   \
  ok &= (*(void **)&api->field = version ? dlvsym(lib, "gcry_cipher_" #field, version)  \
                                         : dlsym(lib, "gcry_cipher_" #field)) != NULL
  GC_FIND(open);
  GC_FIND(close);
  GC_FIND(ctl);
  GC_FIND(setkey);
  GC_FIND(setiv);
  GC_FIND(authenticate);
  GC_FIND(encrypt);
  GC_FIND(decrypt);
  GC_FIND(gettag);
  GC_FIND(checktag);
#undef GC_FIND
  return ok;
}

struct gc_ctx {
  const struct gc_api *api;
  gcry_cipher_hd_t h;
};

static void gc_check(gcry_error_t e, const char *what) {
  if (e) die("libgcrypt %s: %s", what, gcry_strerror(e));
}
static void *gc_setup_with(const struct gc_api *api, const uint8_t *key, size_t keylen) {
  static const int algo[] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};
  struct gc_ctx *c = malloc(sizeof *c);
  if (!c) die("out of memory");
  c->api = api;
  gc_check(api->open(&c->h, algo[(keylen - 16) / 8], GCRY_CIPHER_MODE_GCM, 0), "open");
  gc_check(api->setkey(c->h, key, keylen), "setkey");
  return c;
}
static void *gc_setup_real(const uint8_t *key, size_t keylen) { return gc_setup_with(&real_api, key, keylen); }
static void *gc_setup_interposer(const uint8_t *key, size_t keylen) {
  return gc_setup_with(&interposer_api, key, keylen);
}
static void gc_teardown(void *ctx) {
  struct gc_ctx *c = ctx;
  c->api->close(c->h);
  free(c);
}
/* gcry_cipher_reset and gcry_cipher_final are macros over gcry_cipher_ctl. */
static void gc_start(const struct gc_ctx *c, const uint8_t *iv, size_t ivlen) {
  c->api->ctl(c->h, GCRYCTL_RESET, NULL, 0);
  gc_check(c->api->setiv(c->h, iv, ivlen), "setiv");
}
static void gc_enc(void *ctx, uint8_t *buf, size_t len) {
  const struct gc_ctx *c = ctx;
  uint8_t tag[16];
  gc_start(c, bench_nonce, 12);
  c->api->ctl(c->h, GCRYCTL_FINALIZE, NULL, 0);
  gc_check(c->api->encrypt(c->h, buf, len, buf, len), "encrypt");
  gc_check(c->api->gettag(c->h, tag, 16), "gettag");
}
static void gc_dec(void *ctx, uint8_t *buf, size_t len) {
  const struct gc_ctx *c = ctx;
  static const uint8_t zero[16];
  gc_start(c, bench_nonce, 12);
  c->api->ctl(c->h, GCRYCTL_FINALIZE, NULL, 0);
  gc_check(c->api->decrypt(c->h, buf, len, buf, len), "decrypt");
  gcry_error_t e = c->api->checktag(c->h, zero, 16);
  if (gcry_err_code(e) != GPG_ERR_CHECKSUM) gc_check(e, "checktag");
}
static void gc_auth(void *ctx, uint8_t *buf, size_t len) {
  const struct gc_ctx *c = ctx;
  uint8_t tag[16], one = 0xff;
  gc_start(c, bench_nonce, 12);
  gc_check(c->api->authenticate(c->h, buf, len), "authenticate");
  c->api->ctl(c->h, GCRYCTL_FINALIZE, NULL, 0);
  gc_check(c->api->encrypt(c->h, &one, 1, &one, 1), "encrypt");
  gc_check(c->api->gettag(c->h, tag, 16), "gettag");
}
/* A record as libssh's libgcrypt back end seals and opens one (src/libgcrypt.c,
 * aes_gcm_encrypt / aes_gcm_decrypt): setiv, authenticate, encrypt or decrypt, gettag or
 * checktag -- no reset and no final, which a new IV makes unnecessary. */
static void gc_seal(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  const struct gc_ctx *c = ctx;
  gc_check(c->api->setiv(c->h, iv, ivlen), "setiv");
  gc_check(c->api->authenticate(c->h, aad, alen), "authenticate");
  gc_check(c->api->encrypt(c->h, out, len, in, len), "encrypt");
  gc_check(c->api->gettag(c->h, tag, 16), "gettag");
}
static int gc_open(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  const struct gc_ctx *c = ctx;
  gc_check(c->api->setiv(c->h, iv, ivlen), "setiv");
  gc_check(c->api->authenticate(c->h, aad, alen), "authenticate");
  gc_check(c->api->decrypt(c->h, out, len, in, len), "decrypt");
  return c->api->checktag(c->h, tag, 16) == 0;
}

/* libgcrypt wants its version checked and its initialisation declared finished. */
static void gc_init(const struct impl *p) {
  (void)p;
  if (!gcry_check_version(GCRYPT_VERSION)) die("libgcrypt version mismatch");
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}
static void gc_version(char *out, size_t n) { snprintf(out, n, "%s", gcry_check_version(NULL)); }

static struct impl *gc_add(const char *label, void *(*setup)(const uint8_t *, size_t)) {
  struct impl *p = impl_add(label);
  p->init = gc_init;
  p->setup = setup, p->teardown = gc_teardown, p->seal = gc_seal, p->open_ = gc_open;
  p->op[MODE_ENC] = gc_enc, p->op[MODE_DEC] = gc_dec, p->op[MODE_AUTH] = gc_auth;
  return p;
}

void gcrypt_register(void) {
  void *lib = dlopen("libgcrypt.so.20", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib || !gc_resolve(&real_api, lib, "GCRYPT_1.6")) die("libgcrypt's gcry_cipher_* not found");
  gc_add("libgcrypt", gc_setup_real)->version = gc_version;
  const char *so = getenv("STITCHGCM_GCRYPT_SO");
#ifdef STITCHGCM_GCRYPT_SO
  if (!so) so = STITCHGCM_GCRYPT_SO;
#endif
  void *ours = so ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
  /* The version would be libgcrypt's, not what the calls reach: none printed. */
  if (ours && gc_resolve(&interposer_api, ours, NULL)) gc_add("libgcrypt->stitchgcm", gc_setup_interposer);
}
