/*
 * TLS 1.2 records in stitchgcm.so (see stitchgcm_prov.c), as libssl's record layer makes
 * them: the tlsaad, tlsivfixed and tlsivinv parameters, the record IV's invocation counter
 * (tlsivgen reads it through prov_params.c), and one record sealed or opened in place.
 */
#include "prov.h"

/* The IV of the next TLS record: the current iv[] (fixed part || 8-byte counter), copied
 * to nonce; the counter is then incremented for the record after it. */
int tls_next_iv(struct gcm_ctx *ctx, unsigned char *nonce)
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
int tls_record(struct gcm_ctx *ctx, unsigned char *out, size_t *outl, const unsigned char *in,
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

int set_tls_aad(struct gcm_ctx *ctx, const OSSL_PARAM *p)
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

int set_tls_iv_fixed(struct gcm_ctx *ctx, const OSSL_PARAM *p)
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
int set_tls_iv_inv(struct gcm_ctx *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || !ctx->iv_gen || !ctx->key_set ||
        ctx->enc || p->data_size == 0 || p->data_size > ctx->ivlen)
        return 0;
    memcpy(ctx->iv + ctx->ivlen - p->data_size, p->data, p->data_size);
    ctx->iv_state = IV_BUFFERED;
    return start_message(ctx);
}
