/*
 * The nettle AES-GCM ABI that libstitchgcm exports (src/ffi/nettle.rs), declared without
 * nettle's headers so that tests can call the exports directly, on any target, with no
 * libnettle installed. Context sizes are nettle 3.6-3.10's (struct gcm_aes128_ctx & co.:
 * gcm_key 4096 bytes, gcm_ctx 64, then the AES context), 8-byte aligned.
 */
#ifndef STITCHGCM_TEST_NETTLE_ABI_H
#define STITCHGCM_TEST_NETTLE_ABI_H

#include <stddef.h>
#include <stdint.h>

#define NETTLE_GCM_KEY_SIZE 4096
#define NETTLE_GCM_CTX_OFFSET 4096
#define NETTLE_GCM_CIPHER_OFFSET 4160
#define NETTLE_GCM_AES128_CTX_SIZE 4336
#define NETTLE_GCM_AES192_CTX_SIZE 4368
#define NETTLE_GCM_AES256_CTX_SIZE 4400
#define NETTLE_GCM_AES_CTX_SIZE 4408 /* struct gcm_aes_ctx (deprecated interface) */
#define NETTLE_GCM_CTX_SIZE 64       /* struct gcm_ctx alone */
#define NETTLE_CTX_MAX 4408

typedef void nettle_cipher_fn(const void *ctx, size_t length, uint8_t *dst, const uint8_t *src);

void nettle_gcm_set_key(void *key, const void *cipher, nettle_cipher_fn *f);
void nettle_gcm_set_iv(void *ctx, const void *key, size_t length, const uint8_t *iv);
void nettle_gcm_update(void *ctx, const void *key, size_t length, const uint8_t *data);
void nettle_gcm_encrypt(void *ctx, const void *key, const void *cipher, nettle_cipher_fn *f,
                        size_t length, uint8_t *dst, const uint8_t *src);
void nettle_gcm_decrypt(void *ctx, const void *key, const void *cipher, nettle_cipher_fn *f,
                        size_t length, uint8_t *dst, const uint8_t *src);
void nettle_gcm_digest(void *ctx, const void *key, const void *cipher, nettle_cipher_fn *f,
                       size_t length, uint8_t *digest);

#define NETTLE_GCM_AES_DECLARE(n)                                                          \
  void nettle_gcm_aes##n##_set_key(void *ctx, const uint8_t *key);                         \
  void nettle_gcm_aes##n##_set_iv(void *ctx, size_t length, const uint8_t *iv);            \
  void nettle_gcm_aes##n##_update(void *ctx, size_t length, const uint8_t *data);          \
  void nettle_gcm_aes##n##_encrypt(void *ctx, size_t length, uint8_t *dst, const uint8_t *src); \
  void nettle_gcm_aes##n##_decrypt(void *ctx, size_t length, uint8_t *dst, const uint8_t *src); \
  void nettle_gcm_aes##n##_digest(void *ctx, size_t length, uint8_t *digest);
NETTLE_GCM_AES_DECLARE(128)
NETTLE_GCM_AES_DECLARE(192)
NETTLE_GCM_AES_DECLARE(256)
#undef NETTLE_GCM_AES_DECLARE

void nettle_gcm_aes_set_key(void *ctx, size_t length, const uint8_t *key);
void nettle_gcm_aes_set_iv(void *ctx, size_t length, const uint8_t *iv);
void nettle_gcm_aes_update(void *ctx, size_t length, const uint8_t *data);
void nettle_gcm_aes_encrypt(void *ctx, size_t length, uint8_t *dst, const uint8_t *src);
void nettle_gcm_aes_decrypt(void *ctx, size_t length, uint8_t *dst, const uint8_t *src);
void nettle_gcm_aes_digest(void *ctx, size_t length, uint8_t *digest);

/* One AES-GCM variant of the ABI, so tests can loop over the key sizes. `set_key` takes
 * the key length so that the deprecated gcm_aes_* interface fits the same table. */
typedef struct {
  const char *name;
  size_t key_len, ctx_size;
  void (*set_key)(void *ctx, size_t key_len, const uint8_t *key);
  void (*set_iv)(void *ctx, size_t length, const uint8_t *iv);
  void (*update)(void *ctx, size_t length, const uint8_t *data);
  void (*encrypt)(void *ctx, size_t length, uint8_t *dst, const uint8_t *src);
  void (*decrypt)(void *ctx, size_t length, uint8_t *dst, const uint8_t *src);
  void (*digest)(void *ctx, size_t length, uint8_t *digest);
} nettle_abi_variant;

#define NETTLE_ABI_FIXED(n)                                                                \
  static void nettle_abi_set_key_##n(void *ctx, size_t key_len, const uint8_t *key) {      \
    (void)key_len;                                                                         \
    nettle_gcm_aes##n##_set_key(ctx, key);                                                 \
  }
NETTLE_ABI_FIXED(128)
NETTLE_ABI_FIXED(192)
NETTLE_ABI_FIXED(256)
#undef NETTLE_ABI_FIXED

#define NETTLE_ABI_ROW(n)                                                                  \
  {"gcm_aes" #n, n / 8, NETTLE_GCM_AES##n##_CTX_SIZE, nettle_abi_set_key_##n,              \
   nettle_gcm_aes##n##_set_iv, nettle_gcm_aes##n##_update, nettle_gcm_aes##n##_encrypt,     \
   nettle_gcm_aes##n##_decrypt, nettle_gcm_aes##n##_digest}
#define NETTLE_ABI_LEGACY(n)                                                               \
  {"gcm_aes/" #n, n / 8, NETTLE_GCM_AES_CTX_SIZE, nettle_gcm_aes_set_key,                  \
   nettle_gcm_aes_set_iv, nettle_gcm_aes_update, nettle_gcm_aes_encrypt,                    \
   nettle_gcm_aes_decrypt, nettle_gcm_aes_digest}

/* The three fixed-size interfaces and the deprecated one at each key size. */
static const nettle_abi_variant nettle_abi_variants[6] = {
    NETTLE_ABI_ROW(128),    NETTLE_ABI_ROW(192),    NETTLE_ABI_ROW(256),
    NETTLE_ABI_LEGACY(128), NETTLE_ABI_LEGACY(192), NETTLE_ABI_LEGACY(256),
};
#define NETTLE_ABI_VARIANTS 6

#endif
