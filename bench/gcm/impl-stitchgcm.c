/*
 * stitchgcm through its handle API (sgcm_cipher_*; RFC 4106 handles for the salted row set),
 * one implementation per backend.
 *
 * The backends are discovered at run time: sgcm_impl_available() lists what this CPU runs
 * without fixing the process's choice, so the parent may ask. The library picks its backend
 * once per process from STITCHGCM_IMPL, so each backend's worker sets the variable before the
 * first call and checks that the library took it. STITCHGCM_IMPL in the harness's own
 * environment narrows the run to that one backend.
 */
#include "impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stitchgcm.h>

/* A GCM handle for a 16/24/32-byte key; an RFC 4106 handle for key || salt (20/28/36). */
static void *sg_setup(const uint8_t *key, size_t keylen) {
  static const int algo[] = {SGCM_CIPHER_AES128, SGCM_CIPHER_AES192, SGCM_CIPHER_AES256};
  int mode = keylen % 8 == SGCM_RFC4106_SALT_LEN ? SGCM_MODE_RFC4106 : SGCM_MODE_GCM;
  sgcm_cipher_hd_t h;
  sgcm_error_t e = sgcm_cipher_open(&h, algo[(keylen - 16) / 8], mode, 0);
  if (!e) e = sgcm_cipher_setkey(h, key, keylen);
  if (e) die("stitchgcm setkey: %s", sgcm_strerror(e));
  return h;
}
static void sg_teardown(void *c) { sgcm_cipher_close(c); }
static void sg_check(sgcm_error_t e, const char *what) {
  if (e) die("stitchgcm %s: %s", what, sgcm_strerror(e));
}
static void sg_enc(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16];
  sg_check(sgcm_cipher_setiv(c, bench_nonce, 12), "setiv");
  sg_check(sgcm_cipher_encrypt(c, buf, len, buf, len), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static void sg_dec(void *c, uint8_t *buf, size_t len) {
  static const uint8_t zero[16];
  sg_check(sgcm_cipher_setiv(c, bench_nonce, 12), "setiv");
  sg_check(sgcm_cipher_decrypt(c, buf, len, buf, len), "decrypt");
  sgcm_error_t e = sgcm_cipher_checktag(c, zero, 16);
  if (e != SGCM_ERR_CHECKSUM) sg_check(e, "checktag");
}
static void sg_auth(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16], one = 0xff;
  sg_check(sgcm_cipher_setiv(c, bench_nonce, 12), "setiv");
  sg_check(sgcm_cipher_authenticate(c, buf, len), "authenticate");
  sg_check(sgcm_cipher_encrypt(c, &one, 1, &one, 1), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static void sg_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  sg_check(sgcm_cipher_setiv(c, iv, ivlen), "setiv");
  sg_check(sgcm_cipher_authenticate(c, aad, alen), "authenticate");
  sg_check(sgcm_cipher_encrypt(c, out, len, in, len), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static int sg_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  sg_check(sgcm_cipher_setiv(c, iv, ivlen), "setiv");
  sg_check(sgcm_cipher_authenticate(c, aad, alen), "authenticate");
  sg_check(sgcm_cipher_decrypt(c, out, len, in, len), "decrypt");
  return sgcm_cipher_checktag(c, tag, 16) == 0;
}

static void sg_seal_keyed(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                          size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                          uint8_t tag[16]) {
  sg_check(sgcm_aead_seal(c, iv, ivlen, aad, alen, in, len, out, tag, 16), "aead_seal");
}

/* The per-packet ESP call on an RFC 4106 handle: 8-byte IV (the handle adds the salt). */
static void sg_seal_rfc4106(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                            size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                            uint8_t tag[16]) {
  sg_check(sgcm_aead_seal(c, iv, ivlen, aad, alen, in, len, out, tag, 16), "rfc4106 seal");
}

/* In the worker: force this backend before the library's first choice. */
static void sg_init(const struct impl *p) {
  setenv("STITCHGCM_IMPL", p->backend, 1);
  const char *got = sgcm_impl_name();
  if (!got || strcmp(got, p->backend)) die("backend %s could not be forced", p->backend);
}
static void sg_version(char *out, size_t n) { snprintf(out, n, "%s", sgcm_version()); }

void stitchgcm_register(void) {
  const char *forced = getenv("STITCHGCM_IMPL");
  int added = 0;
  for (size_t i = 0;; i++) {
    const char *b = sgcm_impl_available(i);
    if (!b) break;
    if (forced && *forced && strcmp(forced, b) != 0) continue;
    char label[64];
    snprintf(label, sizeof label, "stitchgcm/%s", b);
    struct impl *p = impl_add(label);
    p->backend = b;
    p->init = sg_init, p->version = sg_version;
    p->setup = sg_setup, p->teardown = sg_teardown, p->seal = sg_seal, p->open_ = sg_open;
    p->op[MODE_ENC] = sg_enc, p->op[MODE_DEC] = sg_dec, p->op[MODE_AUTH] = sg_auth;
    p->seal_keyed = sg_seal_keyed, p->seal_rfc4106 = sg_seal_rfc4106;
    added++;
  }
  /* Never quietly drop stitchgcm from the comparison. */
  if (forced && *forced && added == 0)
    die("STITCHGCM_IMPL=%s is not a backend this CPU runs", forced);
}
