/*
 * Constant-time validation under valgrind memcheck: the "ctgrind" method (Adam Langley,
 * 2010), as in BoringSSL's constant-time validation. Before every call into libstitchgcm
 * the secrets — keys, plaintexts, AAD, ciphertexts under check and expected tags — are
 * marked undefined (VALGRIND_MAKE_MEM_UNDEFINED); memcheck then reports each conditional
 * branch and each memory address inside the library computed from them. Outputs are
 * marked defined again before this program compares them. Return codes are NOT
 * declassified here, so a return code that depends on a secret is reported where this
 * program tests it; the library built with the cargo feature `ct-validation` declassifies
 * the one verdict it must branch on (does the tag match?). IVs and lengths are public.
 *
 * Covered: key setup for every key size through each front-end; the handle API (setiv
 * with 12-byte and other IVs, authenticate, encrypt, decrypt, gettag, checktag — good,
 * bad and truncated tags, in place and out of place, calls split inside blocks);
 * sgcm_seal/sgcm_open and the keyed sgcm_aead_seal/sgcm_aead_open (good and forged tags);
 * the nettle ABI (gcm_aes128/192/256_* and
 * the deprecated gcm_aes_*, set_key/set_iv/update/encrypt/decrypt/digest; the generic
 * gcm_* over a caller's cipher function; and, when libnettle.so.8 can be loaded, the
 * GnuTLS-style mix of nettle's aes128_set_encrypt_key with our generic gcm_* and
 * nettle_aes128_encrypt, which takes the fused path); the OpenSSL provider through EVP
 * (seal, open, forged open) when $STITCHGCM_CT_PROVIDER names the module. Message lengths cover tails and
 * every kernel's block counts (1, 2, 8 and 16 blocks, several iterations).
 *
 * usage: valgrind [options] test_ctgrind          the check (scripts/ctgrind.sh)
 *        valgrind [options] test_ctgrind --quick  four message lengths only
 *        valgrind [options] test_ctgrind --leak   a deliberately leaky function on the
 *                 same marked secrets: memcheck must report it (the check can fail)
 * Without valgrind the client requests do nothing and this is a plain functional test.
 * Prints "N passed, M failed" for its own checks; constant time is memcheck's verdict.
 */
#define _GNU_SOURCE
#include "nettle_abi.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stitchgcm.h>
#include <valgrind/memcheck.h>

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int passed, failed;
#include "check.h"

/* memcmp, but here: its reports carry this file's line numbers on every target. */
static __attribute__((noinline)) int differ(const void *a, const void *b, size_t n) {
  const uint8_t *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return 1;
  return 0;
}

static uint64_t rng = 0x243f6a8885a308d3ull;
static void fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    p[i] = (uint8_t)(rng >> 24);
  }
}

/* Every tail length and each kernel's block counts: 1, 2, 8 (aesni, CE, NEON) and 16
 * (vaes, GHASH-only) blocks and beyond, several steady-state iterations at the end. */
static const size_t lens[] = {0, 1, 15, 16, 17, 31, 32, 64, 100, 128, 129, 255, 256, 257, 1000, 4196};
#define NLENS (sizeof lens / sizeof lens[0])
static const size_t aad_lens[] = {0, 13, 16, 100, 256, 300, 1000};
#define NAADS (sizeof aad_lens / sizeof aad_lens[0])
#define MAXLEN 4196
static const size_t key_lens[] = {16, 24, 32};

static int algo(size_t key_len) {
  return key_len == 16 ? SGCM_CIPHER_AES128 : key_len == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
}

/* Everything one message needs; all secret buffers are marked per call. */
typedef struct {
  uint8_t key[32], iv[64], aad[MAXLEN], pt[MAXLEN], ct[MAXLEN], out[MAXLEN], tag[16], tag2[16], tag3[16];
  size_t key_len, iv_len, aad_len, len;
} msg;

static void reference(msg *m) {
  /* The one-shot seal of this message, with every secret marked: the baseline the other
   * front-ends must reproduce. */
  SECRET(m->key, m->key_len);
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  sgcm_error_t e = sgcm_seal(m->key, m->key_len, m->iv, m->iv_len, m->aad, m->aad_len, m->pt,
                             m->len, m->ct, m->tag, 16);
  PUBLIC(m->ct, m->len);
  PUBLIC(m->tag, 16);
  PUBLIC(m->pt, m->len);
  CHECK(e == 0, "seal key%zu iv%zu aad%zu len%zu: %u", m->key_len, m->iv_len, m->aad_len, m->len, e);
}

/* ------------------------------------------------------------------ one-shot */

static void one_shot(msg *m) {
  sgcm_error_t e;
  SECRET(m->key, m->key_len);
  SECRET(m->ct, m->len);
  SECRET(m->tag, 16);
  e = sgcm_open(m->key, m->key_len, m->iv, m->iv_len, m->aad, m->aad_len, m->ct, m->len, m->out,
                m->tag, 16);
  PUBLIC(m->out, m->len);
  PUBLIC(m->ct, m->len);
  PUBLIC(m->tag, 16);
  CHECK(e == 0 && !differ(m->out, m->pt, m->len), "open len%zu: %u", m->len, e);

  /* A forged tag (one bit): CHECKSUM, output untouched. */
  memcpy(m->tag2, m->tag, 16);
  m->tag2[m->len % 16] ^= 0x20;
  memset(m->out, 0xa5, m->len);
  SECRET(m->key, m->key_len);
  SECRET(m->ct, m->len);
  SECRET(m->tag2, 16);
  e = sgcm_open(m->key, m->key_len, m->iv, m->iv_len, m->aad, m->aad_len, m->ct, m->len, m->out,
                m->tag2, 16);
  PUBLIC(m->out, m->len);
  PUBLIC(m->ct, m->len);
  int untouched = 1;
  for (size_t i = 0; i < m->len; i++) untouched &= m->out[i] == 0xa5;
  CHECK(e == SGCM_ERR_CHECKSUM && untouched, "open forged len%zu: %u", m->len, e);

  /* In place (in == NULL), truncated 12-byte tag. */
  memcpy(m->out, m->ct, m->len);
  SECRET(m->key, m->key_len);
  SECRET(m->out, m->len);
  SECRET(m->tag, 16);
  e = sgcm_open(m->key, m->key_len, m->iv, m->iv_len, m->aad, m->aad_len, NULL, m->len, m->out,
                m->tag, 12);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag, 16);
  CHECK(e == 0 && !differ(m->out, m->pt, m->len), "open in place len%zu: %u", m->len, e);
}

/* ------------------------------------------------------------------ handle API */

/* Feeds `n` bytes in two or three calls whose split depends on the message, so partial
 * blocks are buffered and later completed. */
static size_t split_at(size_t n, size_t salt) {
  static const size_t cuts[] = {1, 15, 17, 5};
  size_t c = cuts[salt % 4];
  return c < n ? c : n;
}

static void handle(msg *m, size_t salt) {
  sgcm_cipher_hd_t h;
  sgcm_error_t e = sgcm_cipher_open(&h, algo(m->key_len), SGCM_MODE_GCM, 0);
  CHECK(e == 0, "cipher_open");
  if (e) return;
  SECRET(m->key, m->key_len);
  CHECK(sgcm_cipher_setkey(h, m->key, m->key_len) == 0, "setkey %zu", m->key_len);
  size_t a1 = split_at(m->aad_len, salt), d1 = split_at(m->len, salt + 1);

  /* Encrypt, out of place, AAD and data each in two calls. */
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  e = sgcm_cipher_setiv(h, m->iv, m->iv_len);
  e |= sgcm_cipher_authenticate(h, m->aad, a1);
  e |= sgcm_cipher_authenticate(h, m->aad + a1, m->aad_len - a1);
  e |= sgcm_cipher_encrypt(h, m->out, MAXLEN, m->pt, d1);
  e |= sgcm_cipher_encrypt(h, m->out + d1, MAXLEN - d1, m->pt + d1, m->len - d1);
  e |= sgcm_cipher_gettag(h, m->tag2, 16);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->pt, m->len);
  PUBLIC(m->aad, m->aad_len);
  CHECK(e == 0 && !differ(m->out, m->ct, m->len) && !differ(m->tag2, m->tag, 16),
        "handle encrypt key%zu iv%zu len%zu", m->key_len, m->iv_len, m->len);

  /* Decrypt in place, then check the right tag, a truncated one, a forged one. */
  memcpy(m->out, m->ct, m->len);
  SECRET(m->aad, m->aad_len);
  SECRET(m->out, m->len);
  SECRET(m->tag, 16);
  e = sgcm_cipher_setiv(h, m->iv, m->iv_len);
  e |= sgcm_cipher_authenticate(h, m->aad, m->aad_len);
  e |= sgcm_cipher_decrypt(h, m->out, d1, NULL, 0);
  e |= sgcm_cipher_decrypt(h, m->out + d1, m->len - d1, NULL, 0);
  sgcm_error_t good = sgcm_cipher_checktag(h, m->tag, 16);
  sgcm_error_t trunc = sgcm_cipher_checktag(h, m->tag, (size_t[]){4, 8, 12, 15}[salt % 4]);
  memcpy(m->tag2, m->tag, 16);
  m->tag2[salt % 16] ^= 1;
  sgcm_error_t bad = sgcm_cipher_checktag(h, m->tag2, 16);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag, 16);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->aad, m->aad_len);
  CHECK(e == 0 && good == 0 && trunc == 0 && bad == SGCM_ERR_CHECKSUM &&
            !differ(m->out, m->pt, m->len),
        "handle decrypt len%zu: %u %u %u %u", m->len, e, good, trunc, bad);
  sgcm_cipher_close(h);
}

/* The keyed one-shot calls on a handle: seal, open with the right and a forged tag. */
static void aead(msg *m) {
  sgcm_cipher_hd_t h;
  if (sgcm_cipher_open(&h, algo(m->key_len), SGCM_MODE_GCM, 0)) return;
  SECRET(m->key, m->key_len);
  CHECK(sgcm_cipher_setkey(h, m->key, m->key_len) == 0, "setkey");
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  sgcm_error_t e = sgcm_aead_seal(h, m->iv, m->iv_len, m->aad, m->aad_len, m->pt, m->len, m->out,
                                  m->tag2, 16);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->pt, m->len);
  CHECK(e == 0 && !differ(m->out, m->ct, m->len) && !differ(m->tag2, m->tag, 16),
        "aead_seal len%zu", m->len);
  SECRET(m->ct, m->len);
  SECRET(m->tag, 16);
  e = sgcm_aead_open(h, m->iv, m->iv_len, m->aad, m->aad_len, m->ct, m->len, m->out, m->tag, 16);
  PUBLIC(m->out, m->len);
  CHECK(e == 0 && !differ(m->out, m->pt, m->len), "aead_open len%zu", m->len);
  PUBLIC(m->tag, 16);
  memcpy(m->tag2, m->tag, 16);
  m->tag2[(m->len + 3) % 16] ^= 0x40;
  SECRET(m->tag2, 16);
  e = sgcm_aead_open(h, m->iv, m->iv_len, m->aad, m->aad_len, m->ct, m->len, m->out, m->tag2, 16);
  PUBLIC(m->ct, m->len);
  PUBLIC(m->aad, m->aad_len);
  CHECK(e == SGCM_ERR_CHECKSUM, "aead_open forged len%zu", m->len);
  sgcm_cipher_close(h);
}

/* ------------------------------------------------------------------ nettle ABI */

static void nettle_fixed(msg *m, const nettle_abi_variant *v) {
  static _Alignas(16) uint8_t ctx[NETTLE_CTX_MAX];
  SECRET(m->key, m->key_len);
  v->set_key(ctx, m->key_len, m->key);
  /* nettle: AAD and data in multiples of 16 except the last call. */
  size_t a1 = m->aad_len / 32 * 16, d1 = m->len / 32 * 16;
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  v->set_iv(ctx, m->iv_len, m->iv);
  v->update(ctx, a1, m->aad);
  v->update(ctx, m->aad_len - a1, m->aad + a1);
  v->encrypt(ctx, d1, m->out, m->pt);
  v->encrypt(ctx, m->len - d1, m->out + d1, m->pt + d1);
  v->digest(ctx, 16, m->tag2);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->pt, m->len);
  CHECK(!differ(m->out, m->ct, m->len) && !differ(m->tag2, m->tag, 16),
        "%s encrypt len%zu", v->name, m->len);

  memcpy(m->out, m->ct, m->len);
  SECRET(m->out, m->len);
  v->set_iv(ctx, m->iv_len, m->iv);
  v->update(ctx, m->aad_len, m->aad);
  v->decrypt(ctx, m->len, m->out, m->out);
  v->digest(ctx, 12, m->tag2);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag2, 12);
  PUBLIC(m->aad, m->aad_len);
  CHECK(!differ(m->out, m->pt, m->len) && !differ(m->tag2, m->tag, 12),
        "%s decrypt len%zu", v->name, m->len);
}

/* A branch-free toy block function (keyed byte-wise XOR and rotation): enough to drive
 * the generic gcm_* path over "any cipher", whose GHASH and counters are ours. */
static void toy_cipher(const void *ctx, size_t length, uint8_t *dst, const uint8_t *src) {
  const uint8_t *k = ctx;
  for (size_t i = 0; i < length; i++) dst[i] = (uint8_t)(((src[i] ^ k[i % 16]) << 1) | ((src[i] ^ k[i % 16]) >> 7));
}

static void nettle_generic(msg *m, nettle_cipher_fn *f, const void *cipher) {
  static _Alignas(16) uint8_t key[NETTLE_GCM_KEY_SIZE], gcm[NETTLE_GCM_CTX_SIZE];
  nettle_gcm_set_key(key, cipher, f);
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  nettle_gcm_set_iv(gcm, key, m->iv_len, m->iv);
  nettle_gcm_update(gcm, key, m->aad_len, m->aad);
  nettle_gcm_encrypt(gcm, key, cipher, f, m->len, m->out, m->pt);
  nettle_gcm_digest(gcm, key, cipher, f, 16, m->tag2);
  PUBLIC(m->pt, m->len);
  memcpy(m->tag3, m->tag2, 16);

  SECRET(m->out, m->len);
  nettle_gcm_set_iv(gcm, key, m->iv_len, m->iv);
  nettle_gcm_update(gcm, key, m->aad_len, m->aad);
  nettle_gcm_decrypt(gcm, key, cipher, f, m->len, m->out, m->out);
  nettle_gcm_digest(gcm, key, cipher, f, 16, m->tag2);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag3, 16);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->aad, m->aad_len);
  CHECK(!differ(m->out, m->pt, m->len) && !differ(m->tag2, m->tag3, 16),
        "generic gcm_* round trip len%zu", m->len);
}

/* nettle's own AES from libnettle.so.8, if it can be loaded (GnuTLS's mix of calls). */
static struct {
  void (*set_key)(void *ctx, const uint8_t *key);
  nettle_cipher_fn *encrypt;
} nettle_aes;

static void load_nettle(void) {
  void *lib = dlopen("libnettle.so.8", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) return;
  nettle_aes.set_key = (void (*)(void *, const uint8_t *))dlsym(lib, "nettle_aes128_set_encrypt_key");
  nettle_aes.encrypt = (nettle_cipher_fn *)dlsym(lib, "nettle_aes128_encrypt");
}

static void nettle_gnutls(msg *m) {
  static _Alignas(16) uint8_t aes[256];
  SECRET(m->key, 16);
  nettle_aes.set_key(aes, m->key); /* nettle's code (its report, if any, is suppressed) */
  nettle_generic(m, nettle_aes.encrypt, aes);
  /* Same result as our AES-128-GCM. */
  msg *r = malloc(sizeof *r);
  memcpy(r, m, sizeof *r);
  r->key_len = 16;
  reference(r);
  CHECK(!differ(r->tag, m->tag2, 16), "GnuTLS-style mix len%zu", m->len);
  free(r);
}

/* ------------------------------------------------------------------ OpenSSL provider */

/* The provider module ($STITCHGCM_CT_PROVIDER, built by scripts/ctgrind.sh against the
 * ct-validation library) through OpenSSL's EVP calls, libcrypto loaded with dlopen so that
 * this harness links nothing of OpenSSL's. Compiled with -DCT_PROVIDER (OpenSSL's headers
 * of the target needed; scripts/ctgrind.sh does so natively). */
#ifdef CT_PROVIDER
#include <openssl/core.h>
#include <openssl/core_names.h>
static struct {
  void *ctx; /* OSSL_LIB_CTX with the module and the default provider */
  void *cipher[3];
  void *(*ctx_new)(void);
  void (*ctx_free)(void *);
  int (*init)(void *, const void *, const uint8_t *, const uint8_t *, int, const OSSL_PARAM *);
  int (*update)(void *, uint8_t *, int *, const uint8_t *, int);
  int (*final)(void *, uint8_t *, int *);
  int (*get_params)(void *, OSSL_PARAM *);
  int (*set_params)(void *, const OSSL_PARAM *);
} ossl;

static void load_provider(void) {
  const char *module = getenv("STITCHGCM_CT_PROVIDER");
  void *lib = module ? dlopen("libcrypto.so.3", RTLD_NOW | RTLD_GLOBAL) : NULL;
  if (!lib) return;
  void *(*lib_ctx_new)(void) = (void *(*)(void))dlsym(lib, "OSSL_LIB_CTX_new");
  void *(*load)(void *, const char *) = (void *(*)(void *, const char *))dlsym(lib, "OSSL_PROVIDER_load");
  void *(*fetch)(void *, const char *, const char *) =
      (void *(*)(void *, const char *, const char *))dlsym(lib, "EVP_CIPHER_fetch");
  ossl.ctx_new = (void *(*)(void))dlsym(lib, "EVP_CIPHER_CTX_new");
  ossl.ctx_free = (void (*)(void *))dlsym(lib, "EVP_CIPHER_CTX_free");
  ossl.init = (int (*)(void *, const void *, const uint8_t *, const uint8_t *, int, const OSSL_PARAM *))dlsym(
      lib, "EVP_CipherInit_ex2");
  ossl.update = (int (*)(void *, uint8_t *, int *, const uint8_t *, int))dlsym(lib, "EVP_CipherUpdate");
  ossl.final = (int (*)(void *, uint8_t *, int *))dlsym(lib, "EVP_CipherFinal_ex");
  ossl.get_params = (int (*)(void *, OSSL_PARAM *))dlsym(lib, "EVP_CIPHER_CTX_get_params");
  ossl.set_params = (int (*)(void *, const OSSL_PARAM *))dlsym(lib, "EVP_CIPHER_CTX_set_params");
  if (!lib_ctx_new || !load || !fetch || !ossl.ctx_new || !ossl.init || !ossl.update || !ossl.final ||
      !ossl.get_params || !ossl.set_params)
    return;
  void *ctx = lib_ctx_new();
  if (!ctx || !load(ctx, module) || !load(ctx, "default")) return;
  static const char *names[3] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
  for (int i = 0; i < 3; i++)
    if (!(ossl.cipher[i] = fetch(ctx, names[i], "provider=stitchgcm"))) return;
  ossl.ctx = ctx;
}

/* One message each way through EVP: seal (the tag read back), open with the right tag and
 * with a forged one. The IV length is set when it is not 12. */
static int evp_message(msg *m, int enc, const uint8_t *in, uint8_t *out, uint8_t *tag) {
  void *c = ossl.ctx_new();
  size_t ivlen = m->iv_len;
  int n = 0, fin = 0, ok;
  OSSL_PARAM p[2] = {{OSSL_CIPHER_PARAM_AEAD_IVLEN, OSSL_PARAM_UNSIGNED_INTEGER, &ivlen, sizeof ivlen, 0},
                     {NULL, 0, NULL, 0, 0}};
  ok = c && ossl.init(c, ossl.cipher[m->key_len / 8 - 2], NULL, NULL, enc, p) &&
       ossl.init(c, NULL, m->key, m->iv, enc, NULL) &&
       (m->aad_len == 0 || ossl.update(c, NULL, &n, m->aad, (int)m->aad_len)) &&
       (m->len == 0 || ossl.update(c, out, &n, in, (int)m->len));
  OSSL_PARAM t[2] = {{OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_PARAM_OCTET_STRING, tag, 16, 0}, {NULL, 0, NULL, 0, 0}};
  if (ok && !enc) ok = ossl.set_params(c, t);
  if (ok) fin = ossl.final(c, out + m->len, &n);
  if (ok && fin && enc) ok = ossl.get_params(c, t);
  ossl.ctx_free(c);
  return ok ? (fin ? 1 : -1) : 0;
}

static void provider(msg *m) {
  SECRET(m->key, m->key_len);
  SECRET(m->aad, m->aad_len);
  SECRET(m->pt, m->len);
  int r = evp_message(m, 1, m->pt, m->out, m->tag2);
  PUBLIC(m->out, m->len);
  PUBLIC(m->tag2, 16);
  PUBLIC(m->pt, m->len);
  CHECK(r == 1 && !differ(m->out, m->ct, m->len) && !differ(m->tag2, m->tag, 16),
        "provider seal len%zu", m->len);
  SECRET(m->key, m->key_len);
  SECRET(m->ct, m->len);
  SECRET(m->tag2, 16);
  r = evp_message(m, 0, m->ct, m->out, m->tag2);
  PUBLIC(m->out, m->len);
  CHECK(r == 1 && !differ(m->out, m->pt, m->len), "provider open len%zu", m->len);
  PUBLIC(m->tag2, 16);
  m->tag2[(m->len + 5) % 16] ^= 0x08;
  SECRET(m->key, m->key_len);
  SECRET(m->tag2, 16);
  r = evp_message(m, 0, m->ct, m->out, m->tag2);
  PUBLIC(m->ct, m->len);
  PUBLIC(m->aad, m->aad_len);
  PUBLIC(m->out, m->len);
  CHECK(r == -1, "provider open forged len%zu", m->len);
}
#else
static struct { void *ctx; } ossl;
static void load_provider(void) {}
static void provider(msg *m) { (void)m; }
#endif

/* ------------------------------------------------------------------ the leak control */

/* What the check exists to catch: a table index from a key byte, and a loop whose trip
 * count is one (a branch no compiler turns into a select). */
static const uint8_t sbox_like[256] = {1, 2, 3};
static __attribute__((noinline)) int leaky(const uint8_t *key) {
  int r = sbox_like[key[0]];
  for (unsigned i = 0; i < (key[1] & 7u); i++) r = r * 3 + 1;
  return r;
}

int main(int argc, char **argv) {
  msg *m = calloc(1, sizeof *m);
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) {
    fill(m->key, 32);
    SECRET(m->key, 32);
    int r = leaky(m->key);
    PUBLIC(&r, sizeof r);
    printf("leak control ran (%d); memcheck must report 2 errors\n", r);
    return 0;
  }
  /* --quick: a few lengths only (the controls need reports, not coverage). */
  size_t nlens = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 4 : NLENS;
  load_nettle();
  load_provider();
  printf("backend %s; libnettle %s; OpenSSL provider %s\n", sgcm_impl_name() ? sgcm_impl_name() : "(none)",
         nettle_aes.encrypt ? "loaded" : "not loadable (GnuTLS-style case not run)",
         ossl.ctx ? "loaded" : "not loaded (STITCHGCM_CT_PROVIDER unset or libcrypto missing)");
  static const size_t iv_lens[] = {12, 1, 8, 16, 60};
  size_t messages = 0;
  for (size_t ki = 0; ki < 3; ki++)
    for (size_t li = 0; li < nlens; li++) {
      /* 12-byte IVs for every length; the other IV lengths on a rotation. */
      for (size_t ii = 0; ii < 2; ii++) {
        m->key_len = key_lens[ki];
        m->iv_len = ii == 0 ? 12 : iv_lens[1 + (li + ki) % 4];
        m->len = lens[li];
        m->aad_len = aad_lens[(li + ki + ii) % NAADS];
        fill(m->key, m->key_len);
        fill(m->iv, m->iv_len);
        fill(m->aad, m->aad_len);
        fill(m->pt, m->len);
        reference(m);
        one_shot(m);
        handle(m, li + ki + ii);
        aead(m);
        if (ossl.ctx) provider(m);
        nettle_fixed(m, &nettle_abi_variants[ki]);
        nettle_fixed(m, &nettle_abi_variants[3 + ki]);
        if (ki == 0) {
          SECRET(m->key, 16);
          nettle_generic(m, toy_cipher, m->key);
          if (nettle_aes.encrypt) nettle_gnutls(m);
        }
        messages++;
      }
    }
  /* A long AAD-only message (GHASH-only kernels, many iterations). */
  m->key_len = 16, m->iv_len = 12, m->len = 0, m->aad_len = MAXLEN;
  fill(m->aad, MAXLEN);
  reference(m);
  one_shot(m);
  handle(m, 3);
  nettle_fixed(m, &nettle_abi_variants[0]);
  messages++;
  printf("%zu messages through every front-end\n", messages);
  printf("%d passed, %d failed\n", passed, failed);
  free(m);
  return failed != 0;
}
