/*
 * nettle through the per-key-size gcm_aesNNN_* functions (what GnuTLS uses).
 *
 * libstitchgcm exports nettle's gcm_* names too. If they won the symbol lookup (link order,
 * or LD_PRELOAD=libstitchgcm.so), this row measures stitchgcm through nettle's API, and its
 * label says so ("nettle->stitchgcm"); bench/meson.build links the peers first so that the
 * plain "nettle" row stays on the real libnettle.
 */
#include "impl.h"

#include <stdio.h>
#include <stdlib.h>

#include <nettle/gcm.h>
#include <nettle/memops.h>
#include <nettle/version.h>

union nt_ctx {
  struct gcm_aes128_ctx a128;
  struct gcm_aes192_ctx a192;
  struct gcm_aes256_ctx a256;
};
struct nt {
  size_t keylen;
  union nt_ctx u;
};
static void *nt_setup(const uint8_t *key, size_t keylen) {
  struct nt *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
  if (!n) abort();
  n->keylen = keylen;
  if (keylen == 16) gcm_aes128_set_key(&n->u.a128, key);
  else if (keylen == 24) gcm_aes192_set_key(&n->u.a192, key);
  else gcm_aes256_set_key(&n->u.a256, key);
  return n;
}
static void nt_teardown(void *c) { free(c); }
#define NT_DISPATCH(n, fn, ...)                                     \
  do {                                                              \
    if ((n)->keylen == 16) gcm_aes128_##fn(&(n)->u.a128, __VA_ARGS__); \
    else if ((n)->keylen == 24) gcm_aes192_##fn(&(n)->u.a192, __VA_ARGS__); \
    else gcm_aes256_##fn(&(n)->u.a256, __VA_ARGS__);                \
  } while (0)
static void nt_enc(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  uint8_t tag[16];
  NT_DISPATCH(n, set_iv, 12, bench_nonce);
  NT_DISPATCH(n, encrypt, len, buf, buf);
  NT_DISPATCH(n, digest, 16, tag);
}
static void nt_dec(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  static const uint8_t zero[16];
  uint8_t tag[16];
  NT_DISPATCH(n, set_iv, 12, bench_nonce);
  NT_DISPATCH(n, decrypt, len, buf, buf);
  NT_DISPATCH(n, digest, 16, tag);
  bench_sink += memeql_sec(tag, zero, 16);
}
static void nt_auth(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  uint8_t tag[16], one = 0xff;
  NT_DISPATCH(n, set_iv, 12, bench_nonce);
  NT_DISPATCH(n, update, len, buf);
  NT_DISPATCH(n, encrypt, 1, &one, &one);
  NT_DISPATCH(n, digest, 16, tag);
}
static void nt_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  struct nt *n = c;
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  NT_DISPATCH(n, encrypt, len, out, in);
  NT_DISPATCH(n, digest, 16, tag);
}
static int nt_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  struct nt *n = c;
  uint8_t t[16];
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  NT_DISPATCH(n, decrypt, len, out, in);
  NT_DISPATCH(n, digest, 16, t);
  return memeql_sec(t, tag, 16);
}

static void nt_version(char *out, size_t n) {
  snprintf(out, n, "%d.%d", nettle_version_major(), nettle_version_minor());
}

void nettle_register(void) {
  int ours = impl_lands_in_stitchgcm((void *)&nettle_gcm_aes128_encrypt);
  struct impl *p = impl_add(ours ? "nettle->stitchgcm" : "nettle");
  /* The version is libnettle's, not what the calls reach: none printed when interposed. */
  p->version = ours ? NULL : nt_version;
  p->setup = nt_setup, p->teardown = nt_teardown, p->seal = nt_seal, p->open_ = nt_open;
  p->op[MODE_ENC] = nt_enc, p->op[MODE_DEC] = nt_dec, p->op[MODE_AUTH] = nt_auth;
}
