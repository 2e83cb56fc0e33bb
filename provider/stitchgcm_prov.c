/*
 * stitchgcm.so, an OpenSSL 3 provider: AES-128-GCM, AES-192-GCM and AES-256-GCM with the
 * property "provider=stitchgcm", served by stitchgcm's native API (sgcm_* handles of
 * libstitchgcm.so.0, which the module links; only OSSL_provider_init is exported).
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
 *
 * This file: the provider itself (OSSL_provider_init, its query, parameters and reason
 * strings, the error queue) and the ciphers' dispatch tables. The rest: prov_cipher.c
 * (contexts, init, update, final), prov_params.c (parameters), prov_tls.c (TLS 1.2
 * records), prov.h (what they share).
 */
#include "prov.h"

const OSSL_ITEM reason_strings[] = {
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

void raise_error(const struct prov *p, const char *file, const char *func, int line, int reason,
                 const char *fmt, ...)
{
    if (p == NULL || p->new_error == NULL || p->vset_error == NULL)
        return;
    p->new_error(p->core);
    if (p->set_error_debug != NULL)
        p->set_error_debug(p->core, file, line, func);
    va_list ap;
    va_start(ap, fmt);
    p->vset_error(p->core, reason, fmt, ap);
    va_end(ap);
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
