/*
 * The parameters of stitchgcm.so's ciphers (see stitchgcm_prov.c): the context's, set and
 * got (ivlen, keylen, tag, taglen, iv, updated-iv, the TLS ones), their gettable and
 * settable lists, and the algorithms' constant parameters.
 */
#include "prov.h"

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

int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
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

int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
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

const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
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

const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
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

int gcm128_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 16); }
int gcm192_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 24); }
int gcm256_get_params(OSSL_PARAM params[]) { return gcm_get_params(params, 32); }

const OSSL_PARAM *gcm_gettable_params(void *provctx)
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
