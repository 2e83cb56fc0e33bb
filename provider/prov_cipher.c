/*
 * The cipher contexts of stitchgcm.so (see stitchgcm_prov.c): new, free and dup; encrypt
 * and decrypt init (key and IV in either order, the IV applied lazily at the first AAD or
 * data call); update, final and EVP_Cipher's one call. TLS records are prov_tls.c's, the
 * parameters prov_params.c's.
 */
#include "prov.h"

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

void *gcm128_newctx(void *provctx) { return gcm_newctx(provctx, 16); }
void *gcm192_newctx(void *provctx) { return gcm_newctx(provctx, 24); }
void *gcm256_newctx(void *provctx) { return gcm_newctx(provctx, 32); }

void gcm_freectx(void *vctx)
{
    struct gcm_ctx *ctx = vctx;
    if (ctx == NULL)
        return;
    sgcm_cipher_close(ctx->h); /* wipes the key schedule and the message state */
    OPENSSL_cleanse(ctx, sizeof *ctx);
    free(ctx);
}

void *gcm_dupctx(void *vctx)
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

int gcm_einit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
              size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
              size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

int random_bytes(struct gcm_ctx *ctx, unsigned char *p, size_t n)
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
int start_message(struct gcm_ctx *ctx)
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

/* AAD (out NULL) or data, any length, in place when in == out. */
int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
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
int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
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
int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
               size_t inl)
{
    struct gcm_ctx *ctx = vctx;
    if (ctx->tls_aad_len == UNSET && in == NULL)
        return gcm_final(vctx, out, outl, outsize);
    return gcm_update(vctx, out, outl, outsize, in, inl);
}
