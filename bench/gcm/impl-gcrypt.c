/*
 * libgcrypt through exactly the calls tests/bench-slope makes (reset, setiv, final, ...), so
 * that scripts/bench-gcrypt-crosscheck.sh can put these rows next to bench-slope's own.
 *
 * As for nettle, the label says when the gcry_cipher_* calls land in libstitchgcm (an
 * interposer preloaded in front of libgcrypt): "libgcrypt->stitchgcm".
 */
#include "impl.h"

#include <stdio.h>

#include <gcrypt.h>

static void gc_check(gcry_error_t e, const char *what) {
  if (e) die("libgcrypt %s: %s", what, gcry_strerror(e));
}
static void *gc_setup(const uint8_t *key, size_t keylen) {
  static const int algo[] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};
  gcry_cipher_hd_t h;
  gc_check(gcry_cipher_open(&h, algo[(keylen - 16) / 8], GCRY_CIPHER_MODE_GCM, 0), "open");
  gc_check(gcry_cipher_setkey(h, key, keylen), "setkey");
  return h;
}
static void gc_teardown(void *c) { gcry_cipher_close(c); }
static void gc_enc(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16];
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, bench_nonce, 12);
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, buf, len, buf, len), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static void gc_dec(void *c, uint8_t *buf, size_t len) {
  static const uint8_t zero[16];
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, bench_nonce, 12);
  gcry_cipher_final(c);
  gc_check(gcry_cipher_decrypt(c, buf, len, buf, len), "decrypt");
  gcry_error_t e = gcry_cipher_checktag(c, zero, 16);
  if (gcry_err_code(e) != GPG_ERR_CHECKSUM) gc_check(e, "checktag");
}
static void gc_auth(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16], one = 0xff;
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, bench_nonce, 12);
  gc_check(gcry_cipher_authenticate(c, buf, len), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, &one, 1, &one, 1), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static void gc_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  gcry_cipher_reset(c);
  gc_check(gcry_cipher_setiv(c, iv, ivlen), "setiv");
  gc_check(gcry_cipher_authenticate(c, aad, alen), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, out, len, in, len), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static int gc_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  gcry_cipher_reset(c);
  gc_check(gcry_cipher_setiv(c, iv, ivlen), "setiv");
  gc_check(gcry_cipher_authenticate(c, aad, alen), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_decrypt(c, out, len, in, len), "decrypt");
  return gcry_cipher_checktag(c, tag, 16) == 0;
}

/* libgcrypt wants its version checked and its initialisation declared finished. */
static void gc_init(const struct impl *p) {
  (void)p;
  if (!gcry_check_version(GCRYPT_VERSION)) die("libgcrypt version mismatch");
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}
static void gc_version(char *out, size_t n) { snprintf(out, n, "%s", gcry_check_version(NULL)); }

void gcrypt_register(void) {
  int ours = impl_lands_in_stitchgcm((void *)&gcry_cipher_encrypt);
  struct impl *p = impl_add(ours ? "libgcrypt->stitchgcm" : "libgcrypt");
  p->init = gc_init;
  /* The version is libgcrypt's, not what the calls reach: none printed when interposed. */
  p->version = ours ? NULL : gc_version;
  p->setup = gc_setup, p->teardown = gc_teardown, p->seal = gc_seal, p->open_ = gc_open;
  p->op[MODE_ENC] = gc_enc, p->op[MODE_DEC] = gc_dec, p->op[MODE_AUTH] = gc_auth;
}
