/*
 * stitchgcm.so, an OpenSSL 3 provider: AES-128-GCM, AES-192-GCM and AES-256-GCM with the
 * property "provider=stitchgcm", served by stitchgcm's native API (sgcm_* handles; the
 * library is linked in statically, only OSSL_provider_init is exported).
 *
 * Written against OpenSSL 3.0's core_dispatch.h ABI. Errors go to OpenSSL's error queue
 * through the core's new_error / set_error_debug / vset_error functions, with this
 * provider's reason strings. What is implemented and what is not: docs/openssl-provider.md.
 *
 * One context holds one sgcm handle (the expanded key and the message in progress) and
 * what EVP keeps around it: the IV (applied lazily, at the first AAD or data call, as
 * OpenSSL's own GCM does, so that key and IV may come in either order), the tag (set by
 * the caller before a decrypting final, or computed by an encrypting one), and the TLS 1.2
 * record state (tlsaad, the fixed and explicit IV parts).
 */
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

static const OSSL_ITEM reason_strings[] = {
    {R_NOT_KEYED, "no key set"},
    {R_BAD_KEYLEN, "invalid key length"},
    {R_BAD_IVLEN, "invalid IV length (1 to 128 bytes)"},
    {R_NO_IV, "no IV set"},
    {R_IV_USED, "the IV was used by a finished message: set a new one"},
    {R_BAD_TAG, "invalid tag parameter"},
    {R_BAD_TAGLEN, "tag length not allowed (4, 8, 12 to 16 bytes; SP 800-38D)"},
    {R_TAG_MISMATCH, "TLS record tag mismatch"},
    {R_BAD_PARAM, "invalid parameter"},
    {R_OUT_TOO_SMALL, "output buffer too small"},
    {R_BAD_TLS, "invalid TLS record or TLS parameter"},
    {R_RANDOM, "no random bytes from the kernel"},
    {R_LIBRARY, "stitchgcm refused the call"},
    {R_TOO_MANY_RECORDS, "too many TLS records under one key"},
    {0, NULL},
};

struct prov {
    const OSSL_CORE_HANDLE *core;
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
};

static void raise_error(const struct prov *p, const char *func, int line, int reason, const char *fmt, ...)
{
    if (p == NULL || p->new_error == NULL || p->vset_error == NULL)
        return;
    p->new_error(p->core);
    if (p->set_error_debug != NULL)
        p->set_error_debug(p->core, __FILE__, line, func);
    va_list ap;
    va_start(ap, fmt);
    p->vset_error(p->core, reason, fmt, ap);
    va_end(ap);
}

#define ERR(ctx, reason) raise_error((ctx)->prov, __func__, __LINE__, (reason), NULL)
#define ERR_LIB(ctx, e)                                                                       \
    raise_error((ctx)->prov, __func__, __LINE__, R_LIBRARY, "%s", sgcm_strerror(e))

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

static int algo_of(size_t keylen)
{
    return keylen == 16 ? SGCM_CIPHER_AES128 : keylen == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
}

static void *gcm_newctx(void *provctx, size_t keylen)
{
    struct gcm_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    ctx->prov = provctx;
    ctx->keylen = keylen;
    ctx->ivlen = IV_DEFAULT;
    ctx->taglen = UNSET;
    ctx->tls_aad_len = UNSET;
    sgcm_error_t e = sgcm_cipher_open(&ctx->h, algo_of(keylen), SGCM_MODE_GCM, 0);
    if (e != 0) {
        ERR_LIB(ctx, e);
        free(ctx);
        return NULL;
    }
    return ctx;
}

static void *gcm128_newctx(void *provctx) { return gcm_newctx(provctx, 16); }
static void *gcm192_newctx(void *provctx) { return gcm_newctx(provctx, 24); }
static void *gcm256_newctx(void *provctx) { return gcm_newctx(provctx, 32); }

static void gcm_freectx(void *vctx)
{
    struct gcm_ctx *ctx = vctx;
    if (ctx == NULL)
        return;
    sgcm_cipher_close(ctx->h); /* wipes the key schedule and the message state */
    OPENSSL_cleanse(ctx, sizeof *ctx);
    free(ctx);
}

static void *gcm_dupctx(void *vctx)
{
    const struct gcm_ctx *src = vctx;
    struct gcm_ctx *ctx = malloc(sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    *ctx = *src;
    sgcm_error_t e = sgcm_cipher_copy(&ctx->h, src->h);
    if (e != 0) {
        ERR_LIB(src, e);
        OPENSSL_cleanse(ctx, sizeof *ctx);
        free(ctx);
        return NULL;
    }
    return ctx;
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int gcm_init(struct gcm_ctx *ctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    ctx->enc = enc;
    if (iv != NULL) {
        if (ivlen == 0 || ivlen > IV_MAX) {
            ERR(ctx, R_BAD_IVLEN);
            return 0;
        }
        ctx->ivlen = ivlen;
        memcpy(ctx->iv, iv, ivlen);
        ctx->iv_state = IV_BUFFERED;
    }
    if (key != NULL) {
        if (keylen != ctx->keylen) {
            ERR(ctx, R_BAD_KEYLEN);
            return 0;
        }
        sgcm_error_t e = sgcm_cipher_setkey(ctx->h, key, keylen);
        if (e != 0) {
            ERR_LIB(ctx, e);
            return 0;
        }
        ctx->key_set = 1;
        ctx->tls_records = 0;
        /* setkey ended the handle's message: a message in progress starts again under
         * the new key with its IV (a finished one still wants a new IV). */
        if (ctx->iv_state == IV_STARTED)
            ctx->iv_state = IV_BUFFERED;
    }
    return gcm_set_ctx_params(ctx, params);
}

static int gcm_einit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                     size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                     size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

static int random_bytes(struct gcm_ctx *ctx, unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ERR(ctx, R_RANDOM);
            return 0;
        }
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

/* Gives the handle the message's IV if it does not have it yet: the IV set by init, or on
 * encryption without one a random IV of ivlen >= 12 bytes (as OpenSSL's GCM; the caller
 * reads it back with the "iv" parameter). */
static int start_message(struct gcm_ctx *ctx)
{
    if (!ctx->key_set) {
        ERR(ctx, R_NOT_KEYED);
        return 0;
    }
    switch (ctx->iv_state) {
    case IV_STARTED:
        return 1;
    case IV_FINISHED:
        ERR(ctx, R_IV_USED);
        return 0;
    case IV_NONE:
        if (!ctx->enc || ctx->ivlen < IV_DEFAULT) {
            ERR(ctx, R_NO_IV);
            return 0;
        }
        if (!random_bytes(ctx, ctx->iv, ctx->ivlen))
            return 0;
        break;
    case IV_BUFFERED:
        break;
    }
    sgcm_error_t e = sgcm_cipher_setiv(ctx->h, ctx->iv, ctx->ivlen);
    if (e != 0) {
        ERR_LIB(ctx, e);
        return 0;
    }
    ctx->iv_state = IV_STARTED;
    return 1;
}

/* The IV of the next TLS record: the current iv[] (fixed part || 8-byte counter), copied
 * to nonce; the counter is then incremented for the record after it. */
static int tls_next_iv(struct gcm_ctx *ctx, unsigned char *nonce)
{
    if (!ctx->iv_gen || !ctx->key_set || ctx->ivlen < TLS_EXPLICIT_IV) {
        ERR(ctx, R_BAD_TLS);
        return 0;
    }
    memcpy(nonce, ctx->iv, ctx->ivlen);
    for (size_t i = ctx->ivlen; i-- > ctx->ivlen - 8;)
        if (++ctx->iv[i] != 0)
            break;
    return 1;
}

/* One TLS 1.2 record, in place: explicit IV (8) || payload || tag (16), under the AAD set
 * with tlsaad just before. Encryption writes the explicit IV and the tag; decryption
 * checks the tag first and writes no plaintext unless it verifies (sgcm_aead_open). */
static int tls_record(struct gcm_ctx *ctx, unsigned char *out, size_t *outl, const unsigned char *in,
                      size_t len)
{
    int ok = 0;
    unsigned char nonce[IV_MAX];
    *outl = 0;
    if (!ctx->key_set) {
        ERR(ctx, R_NOT_KEYED);
        goto done;
    }
    if (out != in || len < TLS_EXPLICIT_IV + TLS_TAG) {
        ERR(ctx, R_BAD_TLS);
        goto done;
    }
    size_t plen = len - TLS_EXPLICIT_IV - TLS_TAG;
    if (ctx->enc) {
        if (++ctx->tls_records == 0) {
            ERR(ctx, R_TOO_MANY_RECORDS);
            goto done;
        }
        if (!tls_next_iv(ctx, nonce))
            goto done;
        memcpy(out, nonce + ctx->ivlen - TLS_EXPLICIT_IV, TLS_EXPLICIT_IV);
        sgcm_error_t e = sgcm_aead_seal(ctx->h, nonce, ctx->ivlen, ctx->tls_aad, ctx->tls_aad_len,
                                        out + TLS_EXPLICIT_IV, plen, out + TLS_EXPLICIT_IV,
                                        out + TLS_EXPLICIT_IV + plen, TLS_TAG);
        if (e != 0) {
            ERR_LIB(ctx, e);
            goto done;
        }
        *outl = len;
    } else {
        if (!ctx->iv_gen || ctx->ivlen < TLS_EXPLICIT_IV) {
            ERR(ctx, R_BAD_TLS);
            goto done;
        }
        memcpy(nonce, ctx->iv, ctx->ivlen - TLS_EXPLICIT_IV);
        memcpy(nonce + ctx->ivlen - TLS_EXPLICIT_IV, in, TLS_EXPLICIT_IV);
        sgcm_error_t e = sgcm_aead_open(ctx->h, nonce, ctx->ivlen, ctx->tls_aad, ctx->tls_aad_len,
                                        in + TLS_EXPLICIT_IV, plen, out + TLS_EXPLICIT_IV,
                                        in + TLS_EXPLICIT_IV + plen, TLS_TAG);
        if (e != 0) {
            /* Queued, as OpenSSL's own GCM queues "cipher operation failed" for a record
             * that does not verify (unlike a streaming final: gcm_final). */
            if (e == SGCM_ERR_CHECKSUM)
                ERR(ctx, R_TAG_MISMATCH);
            else
                ERR_LIB(ctx, e);
            goto done;
        }
        *outl = plen;
    }
    ok = 1;
done:
    ctx->iv_state = IV_FINISHED;
    ctx->tls_aad_len = UNSET;
    OPENSSL_cleanse(nonce, sizeof nonce);
    return ok;
}

/* AAD (out NULL) or data, any length, in place when in == out. */
static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    struct gcm_ctx *ctx = vctx;
    if (ctx->tls_aad_len != UNSET)
        return tls_record(ctx, out, outl, in, inl);
    *outl = 0;
    if (inl == 0)
        return 1;
    if (in == NULL) {
        ERR(ctx, R_BAD_PARAM);
        return 0;
    }
    if (out != NULL && outsize < inl) {
        ERR(ctx, R_OUT_TOO_SMALL);
        return 0;
    }
    if (!start_message(ctx))
        return 0;
    sgcm_error_t e;
    if (out == NULL)
        e = sgcm_cipher_authenticate(ctx->h, in, inl);
    else if (ctx->enc)
        e = sgcm_cipher_encrypt(ctx->h, out, inl, in, inl);
    else
        e = sgcm_cipher_decrypt(ctx->h, out, inl, in, inl);
    if (e != 0) {
        ERR_LIB(ctx, e);
        return 0;
    }
    *outl = inl;
    return 1;
}

/* Ends the message: encryption computes the tag (read with the "tag" parameter),
 * decryption checks the tag set before, in constant time (sgcm_cipher_checktag). */
static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct gcm_ctx *ctx = vctx;
    (void)out;
    (void)outsize;
    *outl = 0;
    if (ctx->tls_aad_len != UNSET) {
        ERR(ctx, R_BAD_TLS);
        return 0;
    }
    /* A decrypting final without a tag, or with one that does not verify, fails quietly,
     * as OpenSSL's own GCM does: nothing on the error queue (callers that check the queue
     * after a failed open see what they would see without this provider, and a stream of
     * forged messages costs no error-queue allocations). */
    if (!ctx->enc && ctx->taglen == UNSET)
        return 0;
    if (!start_message(ctx))
        return 0;
    sgcm_error_t e;
    if (ctx->enc) {
        e = sgcm_cipher_gettag(ctx->h, ctx->tag, TAG_MAX);
        if (e == 0)
            ctx->taglen = TAG_MAX;
    } else {
        e = sgcm_cipher_checktag(ctx->h, ctx->tag, ctx->taglen);
    }
    ctx->iv_state = IV_FINISHED; /* the IV is not used again */
    if (e == SGCM_ERR_CHECKSUM)
        return 0;
    if (e != 0) {
        ERR_LIB(ctx, e);
        return 0;
    }
    return 1;
}

/* EVP_Cipher(): data or AAD with in, the final step without. */
static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
                      size_t inl)
{
    struct gcm_ctx *ctx = vctx;
    if (ctx->tls_aad_len == UNSET && in == NULL)
        return gcm_final(vctx, out, outl, outsize);
    return gcm_update(vctx, out, outl, outsize, in, inl);
}

/* ---- parameters */

static int set_tls_aad(struct gcm_ctx *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || p->data_size != TLS_AAD_LEN)
        return 0;
    memcpy(ctx->tls_aad, p->data, TLS_AAD_LEN);
    /* The record length in the AAD counts the explicit IV (and, received, the tag); the
     * AAD authenticates the payload's length. */
    size_t len = (size_t)ctx->tls_aad[TLS_AAD_LEN - 2] << 8 | ctx->tls_aad[TLS_AAD_LEN - 1];
    size_t extra = TLS_EXPLICIT_IV + (ctx->enc ? 0 : TLS_TAG);
    if (len < extra)
        return 0;
    len -= extra;
    ctx->tls_aad[TLS_AAD_LEN - 2] = (unsigned char)(len >> 8);
    ctx->tls_aad[TLS_AAD_LEN - 1] = (unsigned char)len;
    ctx->tls_aad_len = TLS_AAD_LEN;
    return 1;
}

static int set_tls_iv_fixed(struct gcm_ctx *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL)
        return 0;
    if (p->data_size == (size_t)-1) { /* EVP_CTRL_GCM_SET_IV_FIXED with -1: the whole IV */
        memcpy(ctx->iv, p->data, ctx->ivlen);
    } else {
        if (p->data_size < TLS_FIXED_IV || p->data_size > ctx->ivlen ||
            ctx->ivlen - p->data_size < TLS_EXPLICIT_IV)
            return 0;
        memcpy(ctx->iv, p->data, p->data_size);
        /* A sender's invocation counter starts at a random value. */
        if (ctx->enc && !random_bytes(ctx, ctx->iv + p->data_size, ctx->ivlen - p->data_size))
            return 0;
    }
    ctx->iv_gen = 1;
    ctx->iv_state = IV_BUFFERED;
    return 1;
}

/* tlsivinv: a receiver's explicit IV (the last bytes of the IV); starts the message. */
static int set_tls_iv_inv(struct gcm_ctx *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || !ctx->iv_gen || !ctx->key_set ||
        ctx->enc || p->data_size == 0 || p->data_size > ctx->ivlen)
        return 0;
    memcpy(ctx->iv + ctx->ivlen - p->data_size, p->data, p->data_size);
    ctx->iv_state = IV_BUFFERED;
    return start_message(ctx);
}

/* The first parameter of each name in names[] (NULL where there is none), as
 * OSSL_PARAM_locate finds them, in one pass over params. EVP asks one parameter at a time
 * (the IV length on every init, the tag after every message), and a locate per name known
 * here would be a strcmp call each: about a tenth of a short message's cost on the A72
 * model (docs/openssl-provider.md). A name is compared in full only when its first byte
 * matches. */
static void find_params(const OSSL_PARAM *params, const char *const names[], size_t n, const OSSL_PARAM *found[])
{
    for (size_t i = 0; i < n; i++)
        found[i] = NULL;
    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++)
        for (size_t i = 0; i < n; i++)
            if (found[i] == NULL && p->key[0] == names[i][0] && strcmp(p->key, names[i]) == 0) {
                found[i] = p;
                break;
            }
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct gcm_ctx *ctx = vctx;
    const OSSL_PARAM *p;
    size_t sz;
    if (params == NULL)
        return 1;
    enum { S_TAG, S_IVLEN, S_KEYLEN, S_TLS_AAD, S_TLS_IV_FIXED, S_TLS_IV_INV, S_N };
    static const char *const names[S_N] = {
        OSSL_CIPHER_PARAM_AEAD_TAG,      OSSL_CIPHER_PARAM_AEAD_IVLEN,          OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV,
    };
    const OSSL_PARAM *found[S_N];
    find_params(params, names, S_N, found);

    if ((p = found[S_TAG]) != NULL) {
        void *vp = ctx->tag;
        if (!OSSL_PARAM_get_octet_string(p, &vp, TAG_MAX, &sz) || ctx->enc) {
            ERR(ctx, R_BAD_TAG);
            return 0;
        }
        if (!(sz == 4 || sz == 8 || (sz >= 12 && sz <= 16))) {
            ERR(ctx, R_BAD_TAGLEN);
            return 0;
        }
        ctx->taglen = sz;
    }
    if ((p = found[S_IVLEN]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &sz) || sz == 0 || sz > IV_MAX) {
            ERR(ctx, R_BAD_IVLEN);
            return 0;
        }
        if (sz != ctx->ivlen) {
            /* An IV set or generated at the old length is no longer valid. */
            if (ctx->iv_state != IV_NONE)
                ctx->iv_state = IV_FINISHED;
            ctx->ivlen = sz;
        }
    }
    if ((p = found[S_KEYLEN]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &sz) || sz != ctx->keylen) {
            ERR(ctx, R_BAD_KEYLEN);
            return 0;
        }
    }
    if ((p = found[S_TLS_AAD]) != NULL) {
        if (!set_tls_aad(ctx, p)) {
            ERR(ctx, R_BAD_TLS);
            return 0;
        }
    }
    if ((p = found[S_TLS_IV_FIXED]) != NULL) {
        if (!set_tls_iv_fixed(ctx, p)) {
            ERR(ctx, R_BAD_TLS);
            return 0;
        }
    }
    if ((p = found[S_TLS_IV_INV]) != NULL) {
        if (!set_tls_iv_inv(ctx, p)) {
            ERR(ctx, R_BAD_TLS);
            return 0;
        }
    }
    return 1;
}

static int get_iv(struct gcm_ctx *ctx, OSSL_PARAM *p)
{
    if (ctx->iv_state == IV_NONE || ctx->ivlen > p->data_size) {
        ERR(ctx, R_NO_IV);
        return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, ctx->iv, ctx->ivlen)) {
        ERR(ctx, R_BAD_PARAM);
        return 0;
    }
    return 1;
}

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct gcm_ctx *ctx = vctx;
    OSSL_PARAM *p;
    /* the two EVP asks on every message first: the search stops at the match */
    enum { G_IVLEN, G_TAG, G_KEYLEN, G_TAGLEN, G_IV, G_UPDATED_IV, G_TLS_AAD_PAD, G_TLS_IV_GEN, G_N };
    static const char *const names[G_N] = {
        OSSL_CIPHER_PARAM_IVLEN,      OSSL_CIPHER_PARAM_AEAD_TAG,          OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_CIPHER_PARAM_IV,               OSSL_CIPHER_PARAM_UPDATED_IV,
        OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN,
    };
    const OSSL_PARAM *found[G_N];
    find_params(params, names, G_N, found);
/* the caller's own array, writable (get_ctx_params is given it so) */
#define FOUND(i) ((OSSL_PARAM *)found[i])

    if ((p = FOUND(G_IVLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, ctx->ivlen))
        goto bad;
    if ((p = FOUND(G_KEYLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, ctx->keylen))
        goto bad;
    if ((p = FOUND(G_TAGLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, ctx->taglen != UNSET ? ctx->taglen : TAG_MAX))
        goto bad;
    if ((p = FOUND(G_IV)) != NULL && !get_iv(ctx, p))
        return 0;
    if ((p = FOUND(G_UPDATED_IV)) != NULL && !get_iv(ctx, p))
        return 0;
    if ((p = FOUND(G_TLS_AAD_PAD)) != NULL &&
        !OSSL_PARAM_set_size_t(p, TLS_TAG))
        goto bad;
    if ((p = FOUND(G_TAG)) != NULL) {
        /* The tag of the last encryption, the first data_size bytes of it. */
        if (p->data_size == 0 || p->data_size > TAG_MAX || !ctx->enc || ctx->taglen == UNSET) {
            ERR(ctx, R_BAD_TAG);
            return 0;
        }
        if (!OSSL_PARAM_set_octet_string(p, ctx->tag, p->data_size))
            goto bad;
    }
    if ((p = FOUND(G_TLS_IV_GEN)) != NULL) {
        /* EVP_CTRL_GCM_IV_GEN: start a message with the next IV, hand out its last bytes. */
        unsigned char nonce[IV_MAX];
        if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING || !tls_next_iv(ctx, nonce)) {
            ERR(ctx, R_BAD_TLS);
            return 0;
        }
        size_t n = p->data_size == 0 || p->data_size > ctx->ivlen ? ctx->ivlen : p->data_size;
        /* the message runs under nonce; iv[] already holds the next one (as in OpenSSL,
         * "iv" then reads the next IV) */
        sgcm_error_t e = sgcm_cipher_setiv(ctx->h, nonce, ctx->ivlen);
        int ok = e == 0;
        if (ok) {
            ctx->iv_state = IV_STARTED;
            memcpy(p->data, nonce + ctx->ivlen - n, n);
        } else {
            ERR_LIB(ctx, e);
        }
        OPENSSL_cleanse(nonce, sizeof nonce);
        if (!ok)
            return 0;
    }
    return 1;
bad:
    ERR(ctx, R_BAD_PARAM);
    return 0;
}
#undef FOUND

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
        OSSL_PARAM_END,
    };
    return list;
}

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
        OSSL_PARAM_END,
    };
    return list;
}

/* The algorithm's constants: mode, AEAD, custom IV, key length, block size 1, IV 12. */
static int gcm_get_params(OSSL_PARAM params[], size_t keylen)
{
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL &&
        !OSSL_PARAM_set_uint(p, EVP_CIPH_GCM_MODE))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) != NULL &&
        !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) != NULL &&
        !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL &&
        !OSSL_PARAM_set_size_t(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, IV_DEFAULT))
        return 0;
    return 1;
}

static int gcm128_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 16); }
static int gcm192_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 24); }
static int gcm256_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 32); }

static const OSSL_PARAM *gcm_gettable_params(void *provctx)
{
    (void)provctx;
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
        OSSL_PARAM_END,
    };
    return list;
}

#define FN(f) ((void (*)(void))(f))
#define GCM_FUNCTIONS(bits)                                                                    \
    static const OSSL_DISPATCH gcm##bits##_functions[] = {                                     \
        {OSSL_FUNC_CIPHER_NEWCTX, FN(gcm##bits##_newctx)},                                     \
        {OSSL_FUNC_CIPHER_FREECTX, FN(gcm_freectx)},                                           \
        {OSSL_FUNC_CIPHER_DUPCTX, FN(gcm_dupctx)},                                             \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, FN(gcm_einit)},                                        \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, FN(gcm_dinit)},                                        \
        {OSSL_FUNC_CIPHER_UPDATE, FN(gcm_update)},                                             \
        {OSSL_FUNC_CIPHER_FINAL, FN(gcm_final)},                                               \
        {OSSL_FUNC_CIPHER_CIPHER, FN(gcm_cipher)},                                             \
        {OSSL_FUNC_CIPHER_GET_PARAMS, FN(gcm##bits##_get_params)},                             \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, FN(gcm_get_ctx_params)},                             \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, FN(gcm_set_ctx_params)},                             \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, FN(gcm_gettable_params)},                           \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, FN(gcm_gettable_ctx_params)},                   \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, FN(gcm_settable_ctx_params)},                   \
        {0, NULL},                                                                             \
    }
GCM_FUNCTIONS(128);
GCM_FUNCTIONS(192);
GCM_FUNCTIONS(256);

/* The names are the default provider's, so that fetches by any of them find these. */
static const OSSL_ALGORITHM ciphers[] = {
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", "provider=stitchgcm", gcm128_functions,
     "AES-128-GCM by stitchgcm"},
    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", "provider=stitchgcm", gcm192_functions,
     "AES-192-GCM by stitchgcm"},
    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", "provider=stitchgcm", gcm256_functions,
     "AES-256-GCM by stitchgcm"},
    {NULL, NULL, NULL, NULL},
};

/* ---- the provider */

static const OSSL_ALGORITHM *prov_query(void *provctx, int operation_id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? ciphers : NULL;
}

static const OSSL_ITEM *prov_reasons(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static const OSSL_PARAM *prov_gettable_params(void *provctx)
{
    (void)provctx;
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
        OSSL_PARAM_END,
    };
    return list;
}

static int prov_get_params(void *provctx, OSSL_PARAM params[])
{
    (void)provctx;
    OSSL_PARAM *p;
    const char *impl = sgcm_impl_name();
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "stitchgcm AES-GCM provider"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, sgcm_version()))
        return 0;
    /* buildinfo: the backend this process runs (STITCHGCM_IMPL or the CPU's best) */
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, impl != NULL ? impl : "(STITCHGCM_IMPL names no usable backend)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

static void prov_teardown(void *provctx)
{
    free(provctx);
}

static const OSSL_DISPATCH prov_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, FN(prov_teardown)},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, FN(prov_gettable_params)},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, FN(prov_get_params)},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, FN(prov_query)},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, FN(prov_reasons)},
    {0, NULL},
};

int OSSL_provider_init(const OSSL_CORE_HANDLE *core, const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
                       void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *core, const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
                       void **provctx)
{
    /* A backend forced with STITCHGCM_IMPL that this CPU cannot run: refuse to load
     * rather than fail every context later (OpenSSL's own code then stays in use). */
    if (sgcm_impl_name() == NULL)
        return 0;
    struct prov *p = calloc(1, sizeof *p);
    if (p == NULL)
        return 0;
    p->core = core;
    for (; in != NULL && in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            p->new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            p->set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            p->vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
    *out = prov_functions;
    *provctx = p;
    return 1;
}
