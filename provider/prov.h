/*
 * The provider's shared declarations (stitchgcm.so, an OpenSSL 3 provider of AES-GCM over
 * stitchgcm's native API; the overview is in stitchgcm_prov.c): limits, the provider's
 * reason codes, the context, and the functions one part of the module calls in another.
 * Everything declared here is hidden: the module exports OSSL_provider_init only.
 */
#ifndef STITCHGCM_PROV_H
#define STITCHGCM_PROV_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/random.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <stitchgcm.h>

#define IV_MAX 128        /* bytes, as OpenSSL's GCM (1024 bits) */
#define IV_DEFAULT 12
#define TAG_MAX 16
#define TLS_AAD_LEN 13    /* EVP_AEAD_TLS1_AAD_LEN */
#define TLS_FIXED_IV 4    /* EVP_GCM_TLS_FIXED_IV_LEN */
#define TLS_EXPLICIT_IV 8 /* EVP_GCM_TLS_EXPLICIT_IV_LEN */
#define TLS_TAG 16        /* EVP_GCM_TLS_TAG_LEN */
#define UNSET ((size_t)-1)

/* Reason codes of this provider (its own error library, numbered by the core). */
enum {
    R_NOT_KEYED = 1,
    R_BAD_KEYLEN,
    R_BAD_IVLEN,
    R_NO_IV,
    R_IV_USED,
    R_BAD_TAG,
    R_BAD_TAGLEN,
    R_TAG_MISMATCH,
    R_BAD_PARAM,
    R_OUT_TOO_SMALL,
    R_BAD_TLS,
    R_RANDOM,
    R_LIBRARY,
    R_TOO_MANY_RECORDS,
};

struct prov {
    const OSSL_CORE_HANDLE *core;
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
};

#pragma GCC visibility push(hidden)

/* An error on OpenSSL's queue, through the core's functions (stitchgcm_prov.c). */
void raise_error(const struct prov *p, const char *file, const char *func, int line, int reason,
                 const char *fmt, ...);

#define ERR(ctx, reason) raise_error((ctx)->prov, __FILE__, __func__, __LINE__, (reason), NULL)
#define ERR_LIB(ctx, e)                                                                       \
    raise_error((ctx)->prov, __FILE__, __func__, __LINE__, R_LIBRARY, "%s", sgcm_strerror(e))

enum iv_state {
    IV_NONE,     /* no IV yet */
    IV_BUFFERED, /* iv[] holds the next message's IV, not yet given to the handle */
    IV_STARTED,  /* the handle has a message under iv[] in progress */
    IV_FINISHED, /* the message ended (final): a new IV is needed */
};

struct gcm_ctx {
    const struct prov *prov;
    sgcm_cipher_hd_t h;
    size_t keylen;
    int enc;
    int key_set;
    enum iv_state iv_state;
    size_t ivlen;
    unsigned char iv[IV_MAX];
    size_t taglen; /* UNSET until a tag is set (decrypt) or computed (encrypt) */
    unsigned char tag[TAG_MAX];
    /* TLS 1.2 (libssl's record layer) */
    size_t tls_aad_len; /* UNSET unless tlsaad was set for the next record */
    unsigned char tls_aad[TLS_AAD_LEN];
    int iv_gen; /* tlsivfixed was set: iv[] is fixed part || invocation counter */
    uint64_t tls_records;
};

extern const OSSL_ITEM reason_strings[];

/* prov_cipher.c: contexts and the streaming calls */
void *gcm128_newctx(void *provctx);
void *gcm192_newctx(void *provctx);
void *gcm256_newctx(void *provctx);
void gcm_freectx(void *vctx);
void *gcm_dupctx(void *vctx);
int gcm_einit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv, size_t ivlen,
              const OSSL_PARAM params[]);
int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv, size_t ivlen,
              const OSSL_PARAM params[]);
int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
               size_t inl);
int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize);
int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
               size_t inl);
int random_bytes(struct gcm_ctx *ctx, unsigned char *p, size_t n);
int start_message(struct gcm_ctx *ctx);

/* prov_params.c: context and algorithm parameters */
int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[]);
int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[]);
const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx);
const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx);
int gcm128_get_params(OSSL_PARAM params[]);
int gcm192_get_params(OSSL_PARAM params[]);
int gcm256_get_params(OSSL_PARAM params[]);
const OSSL_PARAM *gcm_gettable_params(void *provctx);

/* prov_tls.c: TLS 1.2 records */
int tls_next_iv(struct gcm_ctx *ctx, unsigned char *nonce);
int tls_record(struct gcm_ctx *ctx, unsigned char *out, size_t *outl, const unsigned char *in, size_t len);
int set_tls_aad(struct gcm_ctx *ctx, const OSSL_PARAM *p);
int set_tls_iv_fixed(struct gcm_ctx *ctx, const OSSL_PARAM *p);
int set_tls_iv_inv(struct gcm_ctx *ctx, const OSSL_PARAM *p);

#pragma GCC visibility pop

#endif
