/*
 * nettle through the per-key-size gcm_aesNNN_* functions (what GnuTLS uses), and through
 * the exact calls GnuTLS makes per TLS record (seal_gnutls / open_gnutls, below).
 *
 * libstitchgcm exports nettle's gcm_* names too. If they won the symbol lookup (link order,
 * or LD_PRELOAD=libstitchgcm.so), this row measures stitchgcm through nettle's API, and its
 * label says so ("nettle->stitchgcm"); bench/meson.build links the peers first so that the
 * plain "nettle" row stays on the real libnettle. bench-gcm adds the "nettle->stitchgcm" row
 * itself (impl_preload_rows): the same calls in a process of its own started with
 * LD_PRELOAD=libstitchgcm (worker.c), which is how the drop-in is deployed.
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

/* GnuTLS's record path (lib/nettle/cipher.c, its AES-GCM entries): the context is nettle's
 * gcm_aesNNN_ctx, keyed with gcm_aesNNN_set_key; per record it sets the IV and the AAD
 * through the per-key-size functions but runs the data through the generic gcm_encrypt /
 * gcm_decrypt on the context's own gcm, key and cipher fields with nettle's AES block
 * function (libstitchgcm recognises that function and keeps its own AES). */
#define NT_GENERIC(n, bits, op, len, dst, src)                                       \
  gcm_##op(&(n)->u.a##bits.gcm, &(n)->u.a##bits.key, &(n)->u.a##bits.cipher,         \
           (nettle_cipher_func *)nettle_aes##bits##_encrypt, len, dst, src)
static void nt_generic(struct nt *n, int decrypt, size_t len, uint8_t *dst, const uint8_t *src) {
  if (n->keylen == 16) {
    if (decrypt) NT_GENERIC(n, 128, decrypt, len, dst, src);
    else NT_GENERIC(n, 128, encrypt, len, dst, src);
  } else if (n->keylen == 24) {
    if (decrypt) NT_GENERIC(n, 192, decrypt, len, dst, src);
    else NT_GENERIC(n, 192, encrypt, len, dst, src);
  } else {
    if (decrypt) NT_GENERIC(n, 256, decrypt, len, dst, src);
    else NT_GENERIC(n, 256, encrypt, len, dst, src);
  }
}
static void nt_seal_gnutls(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                           size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                           uint8_t tag[16]) {
  struct nt *n = c;
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  nt_generic(n, 0, len, out, in);
  NT_DISPATCH(n, digest, 16, tag);
}
/* GnuTLS compares the tag with its own constant-time gnutls_memcmp (lib/safe-memfuncs.c:
 * an OR of the byte differences over the whole length, no early exit), not with a nettle
 * function: the same loop is written here, so that under LD_PRELOAD no instruction of the
 * record's path is libnettle's, and it costs what GnuTLS's does (a volatile accumulator
 * would cost ten times as much and be charged to the record). */
static int nt_tag_equal(const uint8_t *a, const uint8_t *b) {
  unsigned d = 0;
  for (size_t i = 0; i < 16; i++) d |= a[i] ^ b[i];
  return d == 0;
}
static int nt_open_gnutls(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                          size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                          const uint8_t tag[16]) {
  struct nt *n = c;
  uint8_t t[16];
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  nt_generic(n, 1, len, out, in);
  NT_DISPATCH(n, digest, 16, t);
  return nt_tag_equal(t, tag);
}

/* nettle's context is public: the key material (GHASH table and AES schedule) and the
 * message state. */
static size_t nt_layout(const void *c, struct impl_range *r) {
  const struct nt *n = c;
#define NT_LAYOUT(bits)                                                           \
  (r[0] = (struct impl_range){"key", &n->u.a##bits.key, sizeof n->u.a##bits.key},  \
   r[1] = (struct impl_range){"key", &n->u.a##bits.cipher, sizeof n->u.a##bits.cipher}, \
   r[2] = (struct impl_range){"state", &n->u.a##bits.gcm, sizeof n->u.a##bits.gcm})
  if (n->keylen == 16) NT_LAYOUT(128);
  else if (n->keylen == 24) NT_LAYOUT(192);
  else NT_LAYOUT(256);
#undef NT_LAYOUT
  return 3;
}

static void nt_version(char *out, size_t n) {
  snprintf(out, n, "%d.%d", nettle_version_major(), nettle_version_minor());
}

static struct impl *nt_add(const char *label) {
  struct impl *p = impl_add(label);
  p->setup = nt_setup, p->teardown = nt_teardown, p->seal = nt_seal, p->open_ = nt_open;
  p->op[MODE_ENC] = nt_enc, p->op[MODE_DEC] = nt_dec, p->op[MODE_AUTH] = nt_auth;
  p->seal_gnutls = nt_seal_gnutls, p->open_gnutls = nt_open_gnutls, p->layout = nt_layout;
  return p;
}

void nettle_register(void) {
  int ours = impl_lands_in_stitchgcm((void *)&nettle_gcm_aes128_encrypt);
  struct impl *p = nt_add(ours ? "nettle->stitchgcm" : "nettle");
  /* The version is libnettle's, not what the calls reach: none printed when interposed. */
  p->version = ours ? NULL : nt_version;
  /* The drop-in as deployed: the same calls in a process started with libstitchgcm
   * preloaded (not in a run that is preloaded already: its one row is that). */
  const char *so = impl_preload_rows && !ours ? impl_stitchgcm_so() : NULL;
  if (so) nt_add("nettle->stitchgcm")->preload = so;
}
