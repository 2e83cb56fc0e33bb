/*
 * The OpenSSL provider stitchgcm.so through EVP, in a library context of its own with the
 * provider loaded by its module path and the ciphers fetched with "provider=stitchgcm":
 *
 *  1. OpenSSL's own GCM cases: every aes-{128,192,256}-gcm stanza of the evp_test data files
 *     given (OpenSSL 3.0 keeps them in evpciph_aes_common.txt; scripts/deps.sh fetches it
 *     into .vectors/openssl), each direction the stanza allows, whole and byte by byte,
 *     in place and not; expected failures (Result = CIPHERFINAL_ERROR) must fail at final;
 *  2. a differential run against the default provider: random key sizes, IV lengths (1 to
 *     64 bytes, mostly 12), AAD and data lengths, random update splits, in place; both
 *     directions, truncated tags, a flipped tag bit, EVP_CIPHER_CTX_copy mid-message;
 *  3. the TLS 1.2 record calls (tlsivfixed, tlsaad, in-place records) across providers;
 *  4. guard pages: key, IV, AAD, input, output and tag each ending at an unmapped page,
 *     sealed and opened at lengths around the block and lane boundaries.
 *
 * Parts: test_provider.c (1, 2, the error queue, main), test_provider_tls.c (3),
 * test_provider_guard.c (4), test_provider.h (what they share).
 *
 * usage: test_provider MODULE.so [EVP_DATA.txt ...]   (STITCHGCM_PROV_SEED, _ROUNDS; _CONF:
 * an openssl.cnf that activates the provider instead of loading MODULE.so)
 * Prints "N passed, M failed"; fails when no GCM case was found in the files given.
 */
#include "test_provider.h"

int passed, failed;

OSSL_LIB_CTX *libctx;
EVP_CIPHER *ours[3], *theirs[3];

/* ---------------------------------------------------------------- one GCM message */

int run(EVP_CIPHER *c, const struct msg *m, unsigned char *out, unsigned char *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int rc = 0, outl;
    size_t ivlen = m->ivlen;
    OSSL_PARAM p[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
    unsigned char *buf = m->in_place ? out : malloc(m->len + 1);
    if (ctx == NULL || buf == NULL)
        goto done;
    if (m->in_place)
        memcpy(out, m->in, m->len);
    if (!EVP_CipherInit_ex2(ctx, c, NULL, NULL, m->enc, NULL))
        goto done;
    p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
    if (!EVP_CIPHER_CTX_set_params(ctx, p))
        goto done;
    if (!m->enc && !m->tag_late) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)m->tag, m->taglen);
        if (!EVP_CIPHER_CTX_set_params(ctx, p))
            goto done;
    }
    if (!EVP_CipherInit_ex2(ctx, NULL, m->key, m->iv, m->enc, NULL))
        goto done;
    for (size_t off = 0; off < m->aadlen;) {
        size_t n = m->chunk ? m->chunk : m->aadlen;
        if (n > m->aadlen - off)
            n = m->aadlen - off;
        if (!EVP_CipherUpdate(ctx, NULL, &outl, m->aad + off, (int)n))
            goto done;
        off += n;
    }
    const unsigned char *src = m->in_place ? out : m->in;
    size_t done_len = 0;
    for (size_t off = 0; off < m->len;) {
        size_t n = m->chunk ? m->chunk : m->len;
        if (n > m->len - off)
            n = m->len - off;
        if (!EVP_CipherUpdate(ctx, out + off, &outl, src + off, (int)n) || (size_t)outl != n)
            goto done;
        off += n;
        done_len += (size_t)outl;
    }
    if (!m->enc && m->tag_late) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)m->tag, m->taglen);
        if (!EVP_CIPHER_CTX_set_params(ctx, p))
            goto done;
    }
    if (!EVP_CipherFinal_ex(ctx, out + done_len, &outl) || outl != 0) {
        rc = -1;
        goto done;
    }
    if (m->enc) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, m->taglen);
        if (!EVP_CIPHER_CTX_get_params(ctx, p))
            goto done;
    }
    rc = 1;
done:
    if (!m->in_place)
        free(buf);
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

/* ---------------------------------------------------------------- evp_test data files */

#define FIELD_MAX 4096
struct stanza {
    char cipher[64];
    unsigned char key[64], iv[256], aad[FIELD_MAX], tag[32], pt[FIELD_MAX], ct[FIELD_MAX];
    size_t keylen, ivlen, aadlen, taglen, ptlen, ctlen;
    int has_key, has_iv, has_tag, has_pt, has_ct, tag_late;
    int op; /* 0 both, 1 encrypt, 2 decrypt */
    int expect_final_error;
    char bad[64]; /* first field this driver does not understand */
    int line;
};

static int unhex(const char *s, unsigned char *out, size_t max, size_t *len)
{
    size_t n = 0;
    while (*s) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) || n >= max)
            return 0;
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (unsigned char)v;
        s += 2;
    }
    *len = n;
    return 1;
}

static int is_aes_gcm(const char *name, size_t *keylen)
{
    static const struct {
        const char *name;
        size_t keylen;
    } names[] = {{"aes-128-gcm", 16}, {"aes-192-gcm", 24}, {"aes-256-gcm", 32},
                 {"id-aes128-GCM", 16}, {"id-aes192-GCM", 24}, {"id-aes256-GCM", 32}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *keylen = names[i].keylen;
            return 1;
        }
    return 0;
}

static int cases;

static void run_stanza(const struct stanza *s, const char *file)
{
    size_t keylen;
    if (!is_aes_gcm(s->cipher, &keylen))
        return;
    cases++;
    if (s->bad[0]) {
        CHECK(0, "%s:%d: unsupported field %s", file, s->line, s->bad);
        return;
    }
    int k = kidx(s->keylen);
    CHECK(s->has_key && s->has_iv && s->has_tag && s->has_pt && s->has_ct && s->keylen == keylen && k >= 0 &&
              s->ptlen == s->ctlen,
          "%s:%d: incomplete GCM case", file, s->line);
    if (!(s->has_key && s->has_iv && s->has_tag && s->ptlen == s->ctlen && k >= 0))
        return;
    unsigned char out[FIELD_MAX], tag[32];
    for (int enc = 1; enc >= 0; enc--) {
        if ((enc && s->op == 2) || (!enc && s->op == 1))
            continue;
        for (int variant = 0; variant < 4; variant++) {
            struct msg m = {s->key, s->iv, s->aad, enc ? s->pt : s->ct, s->tag,
                            s->keylen, s->ivlen, s->aadlen, s->ptlen, s->taglen,
                            enc, s->tag_late, variant & 1 ? 1 : 0, variant >> 1};
            memset(out, 0xa5, sizeof out);
            int rc = run(ours[k], &m, out, tag);
            const char *how = variant & 1 ? "byte by byte" : "whole";
            const char *where = variant & 2 ? "in place" : "out of place";
            if (s->expect_final_error) {
                CHECK(rc == -1, "%s:%d: %s %s %s: final should fail (rc %d)", file, s->line,
                      enc ? "encrypt" : "decrypt", how, where, rc);
            } else if (enc) {
                CHECK(rc == 1 && memcmp(out, s->ct, s->ctlen) == 0 && memcmp(tag, s->tag, s->taglen) == 0,
                      "%s:%d: encrypt %s %s (rc %d)", file, s->line, how, where, rc);
            } else {
                CHECK(rc == 1 && memcmp(out, s->pt, s->ptlen) == 0, "%s:%d: decrypt %s %s (rc %d)", file,
                      s->line, how, where, rc);
            }
        }
    }
}

static void run_file(const char *file)
{
    FILE *f = fopen(file, "r");
    CHECK(f != NULL, "cannot open %s", file);
    if (f == NULL)
        return;
    static char line[65536];
    static struct stanza s;
    int lineno = 0, open_stanza = 0;
    memset(&s, 0, sizeof s);
    for (;;) {
        char *got = fgets(line, sizeof line, f);
        lineno++;
        char *p = got;
        if (p != NULL) {
            p[strcspn(p, "\r\n")] = 0;
            while (isspace((unsigned char)*p))
                p++;
        }
        if (p == NULL || *p == 0) { /* end of a stanza */
            if (open_stanza)
                run_stanza(&s, file);
            memset(&s, 0, sizeof s);
            open_stanza = 0;
            if (got == NULL)
                break;
            continue;
        }
        if (*p == '#')
            continue;
        char *eq = strchr(p, '=');
        if (eq == NULL)
            continue;
        char *name = p, *val = eq + 1, *e = eq;
        while (e > name && isspace((unsigned char)e[-1]))
            e--;
        *e = 0;
        while (isspace((unsigned char)*val))
            val++;
        if (strcasecmp(name, "Title") == 0)
            continue;
        if (!open_stanza) {
            open_stanza = 1;
            s.line = lineno;
        }
        int ok = 1;
        if (strcasecmp(name, "Cipher") == 0)
            snprintf(s.cipher, sizeof s.cipher, "%s", val);
        else if (strcasecmp(name, "Key") == 0)
            ok = s.has_key = unhex(val, s.key, sizeof s.key, &s.keylen);
        else if (strcasecmp(name, "IV") == 0)
            ok = s.has_iv = unhex(val, s.iv, sizeof s.iv, &s.ivlen);
        else if (strcasecmp(name, "AAD") == 0) { /* repeated AAD lines are consecutive pieces */
            size_t n = 0;
            ok = unhex(val, s.aad + s.aadlen, sizeof s.aad - s.aadlen, &n);
            s.aadlen += n;
        } else if (strcasecmp(name, "Tag") == 0)
            ok = s.has_tag = unhex(val, s.tag, sizeof s.tag, &s.taglen);
        else if (strcasecmp(name, "Plaintext") == 0)
            ok = s.has_pt = unhex(val, s.pt, sizeof s.pt, &s.ptlen);
        else if (strcasecmp(name, "Ciphertext") == 0)
            ok = s.has_ct = unhex(val, s.ct, sizeof s.ct, &s.ctlen);
        else if (strcasecmp(name, "Operation") == 0)
            s.op = strcasecmp(val, "ENCRYPT") == 0 ? 1 : strcasecmp(val, "DECRYPT") == 0 ? 2 : (ok = 0);
        else if (strcasecmp(name, "Result") == 0)
            ok = s.expect_final_error = strcasecmp(val, "CIPHERFINAL_ERROR") == 0;
        else if (strcasecmp(name, "SetTagLate") == 0)
            s.tag_late = strcasecmp(val, "TRUE") == 0;
        else if (strcasecmp(name, "NextIV") == 0 || strcasecmp(name, "Availablein") == 0 ||
                 strcasecmp(name, "FIPSversion") == 0)
            ; /* NextIV: GCM keeps its IV; the others select providers of OpenSSL's own run */
        else
            ok = 0;
        if (!ok && !s.bad[0])
            snprintf(s.bad, sizeof s.bad, "%s", name);
    }
    fclose(f);
}

/* ---------------------------------------------------------------- differential */

static uint64_t rng_state;
uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}
size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }
void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
}

/* A message through EVP with random update splits; returns 1, or 0/-1 as run(). The split
 * points come from rnd() so both providers get their own, different, splits. */
static int run_split(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv, size_t ivlen,
                     const unsigned char *aad, size_t aadlen, unsigned char *buf, size_t len,
                     unsigned char *tag, size_t taglen, int copy_at)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *dup = NULL;
    OSSL_PARAM p[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
    int rc = 0, outl;
    p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
    if (ctx == NULL || !EVP_CipherInit_ex2(ctx, c, NULL, NULL, enc, p) ||
        !EVP_CipherInit_ex2(ctx, NULL, key, iv, enc, NULL))
        goto done;
    for (size_t off = 0; off < aadlen;) {
        size_t n = 1 + below(aadlen - off);
        if (!EVP_CipherUpdate(ctx, NULL, &outl, aad + off, (int)n))
            goto done;
        off += n;
    }
    for (size_t off = 0; off < len;) {
        size_t n = below(4) == 0 ? 1 + below(16) : 1 + below(len - off);
        if (n > len - off)
            n = len - off;
        if (!EVP_CipherUpdate(ctx, buf + off, &outl, buf + off, (int)n) || (size_t)outl != n)
            goto done;
        off += n;
        if (copy_at && dup == NULL && off >= len / 2) {
            /* go on with a copy, the original freed: dupctx must carry the message */
            dup = EVP_CIPHER_CTX_new();
            if (dup == NULL || !EVP_CIPHER_CTX_copy(dup, ctx))
                goto done;
            EVP_CIPHER_CTX_free(ctx);
            ctx = dup;
        }
    }
    if (!enc) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, taglen);
        if (!EVP_CIPHER_CTX_set_params(ctx, p))
            goto done;
    }
    if (!EVP_CipherFinal_ex(ctx, buf + len, &outl)) {
        rc = -1;
        goto done;
    }
    if (enc) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, taglen);
        if (!EVP_CIPHER_CTX_get_params(ctx, p))
            goto done;
    }
    rc = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

static void differential(int rounds)
{
    static const size_t taglens[] = {4, 8, 12, 13, 14, 15, 16};
    enum { MAXLEN = 1200 };
    unsigned char key[32], iv[64], aad[300], pt[MAXLEN + 16], a[MAXLEN + 16], b[MAXLEN + 16], ta[16], tb[16];
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        size_t keylen = 16 + 8 * below(3), k = (size_t)kidx(keylen);
        size_t ivlen = below(3) ? 12 : 1 + below(sizeof iv);
        size_t aadlen = below(4) ? below(40) : below(sizeof aad);
        size_t len = below(3) ? below(300) : below(MAXLEN);
        size_t taglen = taglens[below(sizeof taglens / sizeof taglens[0])];
        fill(key, keylen);
        fill(iv, ivlen);
        fill(aad, aadlen);
        fill(pt, len);
        memcpy(a, pt, len);
        memcpy(b, pt, len);
        int copy_at = below(4) == 0;
        int ra = run_split(ours[k], 1, key, iv, ivlen, aad, aadlen, a, len, ta, taglen, copy_at);
        int rb = run_split(theirs[k], 1, key, iv, ivlen, aad, aadlen, b, len, tb, taglen, 0);
        int ok = ra == 1 && rb == 1 && memcmp(a, b, len) == 0 && memcmp(ta, tb, taglen) == 0;
        /* decrypt the default provider's message with ours */
        memcpy(a, b, len);
        ok = ok && run_split(ours[k], 0, key, iv, ivlen, aad, aadlen, a, len, tb, taglen, below(4) == 0) == 1 &&
             memcmp(a, pt, len) == 0;
        /* a flipped bit anywhere (tag, ciphertext or AAD) must fail at final */
        memcpy(a, b, len);
        size_t where = below(taglen + len + aadlen);
        unsigned char bit = (unsigned char)(1u << below(8));
        if (where < taglen)
            tb[where] ^= bit;
        else if (where < taglen + len)
            a[where - taglen] ^= bit;
        else
            aad[where - taglen - len] ^= bit;
        ok = ok && run_split(ours[k], 0, key, iv, ivlen, aad, aadlen, a, len, tb, taglen, 0) == -1;
        if (!ok && bad++ < 10)
            fprintf(stderr, "differential round %d: key %zu iv %zu aad %zu len %zu tag %zu copy %d: rc %d/%d\n",
                    r, keylen, ivlen, aadlen, len, taglen, copy_at, ra, rb);
        CHECK(ok, "differential round %d", r);
    }
}

/* ---------------------------------------------------------------- errors */

static void errors(void)
{
    unsigned char key[16] = {0}, iv[12] = {0}, buf[32] = {0}, tag[16] = {0};
    int outl;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    CHECK(EVP_DecryptInit_ex2(ctx, ours[0], key, iv, NULL) && EVP_DecryptUpdate(ctx, buf, &outl, buf, 16),
          "decrypt init and update");
    ERR_clear_error();
    CHECK(!EVP_DecryptFinal_ex(ctx, buf, &outl), "final without a tag fails");
    /* quietly, as OpenSSL's own GCM: a failed open puts nothing on the error queue */
    CHECK(ERR_peek_last_error() == 0, "no error queued by a decrypting final without a tag");
    ERR_clear_error();
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 3), OSSL_PARAM_END};
    CHECK(!EVP_CIPHER_CTX_set_params(ctx, p), "3-byte tag refused");
    unsigned long e = ERR_peek_last_error();
    CHECK(e != 0 && ERR_reason_error_string(e) != NULL, "an error on the queue with a reason string");
    if (e != 0)
        printf("error queue: %s\n", ERR_reason_error_string(e));
    ERR_clear_error();
    CHECK(EVP_DecryptInit_ex2(ctx, NULL, key, iv, NULL), "re-init");
    p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16);
    CHECK(EVP_CIPHER_CTX_set_params(ctx, p) && !EVP_DecryptFinal_ex(ctx, buf, &outl), "wrong tag fails");
    CHECK(ERR_peek_last_error() == 0, "no error queued by a tag that does not verify");
    CHECK(!EVP_DecryptFinal_ex(ctx, buf, &outl), "a second final fails too (the IV is used)");
    ERR_clear_error();
    CHECK(EVP_EncryptInit_ex2(ctx, ours[0], key, NULL, NULL) && EVP_EncryptUpdate(ctx, buf, &outl, buf, 16) &&
              EVP_EncryptFinal_ex(ctx, buf, &outl),
          "encryption without an IV takes a random one");
    unsigned char got[12];
    p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, got, sizeof got);
    CHECK(EVP_CIPHER_CTX_get_params(ctx, p) && memcmp(got, iv, 12) != 0, "the random IV can be read");
    CHECK(!EVP_EncryptUpdate(ctx, buf, &outl, buf, 16), "no second message under that IV");
    ERR_clear_error();
    CHECK(!EVP_EncryptInit_ex2(ctx, ours[0], key, iv, NULL) || EVP_CIPHER_CTX_get_key_length(ctx) == 16,
          "key length");
    CHECK(EVP_CIPHER_CTX_set_key_length(ctx, 16) && !EVP_CIPHER_CTX_set_key_length(ctx, 32),
          "key length fixed by the algorithm");
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODULE.so [EVP_DATA.txt ...]\n", argv[0]);
        return 2;
    }
    const char *seed = getenv("STITCHGCM_PROV_SEED"), *rounds = getenv("STITCHGCM_PROV_ROUNDS");
    rng_state = seed ? strtoull(seed, NULL, 0) : 0x5eed5eedULL;
    if (rng_state == 0)
        rng_state = 1;
    libctx = OSSL_LIB_CTX_new();
    /* With STITCHGCM_PROV_CONF, an openssl.cnf that activates the provider and prefers it
     * (docs/openssl-provider.md): a fetch without properties must then give stitchgcm's. */
    const char *conf = getenv("STITCHGCM_PROV_CONF");
    OSSL_PROVIDER *prov = NULL, *dflt = NULL;
    if (conf != NULL) {
        CHECK(OSSL_LIB_CTX_load_config(libctx, conf), "load %s", conf);
    } else {
        /* a module path (OpenSSL takes a relative one as relative to its modules directory) */
        char *module = realpath(argv[1], NULL);
        prov = module ? OSSL_PROVIDER_load(libctx, module) : NULL;
        free(module);
        dflt = OSSL_PROVIDER_load(libctx, "default");
        CHECK(prov != NULL && dflt != NULL, "load %s and the default provider", argv[1]);
        if (prov == NULL || dflt == NULL) {
            printf("%d passed, %d failed\n", passed, failed);
            return 1;
        }
    }
    static const char *names[3] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    for (int i = 0; i < 3; i++) {
        ours[i] = EVP_CIPHER_fetch(libctx, names[i], conf ? NULL : "provider=stitchgcm");
        theirs[i] = EVP_CIPHER_fetch(libctx, names[i], "provider=default");
        const OSSL_PROVIDER *from = ours[i] ? EVP_CIPHER_get0_provider(ours[i]) : NULL;
        CHECK(ours[i] && theirs[i] &&
                  (conf ? strcmp(OSSL_PROVIDER_get0_name(from), "stitchgcm") == 0 : from == prov),
              "fetch %s%s", names[i], conf ? " without properties, configured" : "");
        if (!ours[i] || !theirs[i]) {
            printf("%d passed, %d failed\n", passed, failed);
            return 1;
        }
        CHECK(EVP_CIPHER_get_flags(ours[i]) & EVP_CIPH_FLAG_AEAD_CIPHER, "%s is an AEAD cipher", names[i]);
        CHECK(EVP_CIPHER_get_mode(ours[i]) == EVP_CIPH_GCM_MODE && EVP_CIPHER_get_iv_length(ours[i]) == 12 &&
                  EVP_CIPHER_get_key_length(ours[i]) == 16 + 8 * i && EVP_CIPHER_get_block_size(ours[i]) == 1,
              "%s constants", names[i]);
    }
    const char *impl = NULL;
    OSSL_PARAM pp[2] = {OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, (char **)&impl, 0),
                        OSSL_PARAM_END};
    if (OSSL_PROVIDER_get_params((OSSL_PROVIDER *)EVP_CIPHER_get0_provider(ours[0]), pp) && impl)
        printf("provider stitchgcm, backend %s\n", impl);

    int before = passed + failed;
    for (int i = 2; i < argc; i++)
        run_file(argv[i]);
    printf("evp_test data: %d GCM cases, %d checks\n", cases, passed + failed - before);
    if (argc > 2)
        CHECK(cases > 0, "no GCM case in the files given");

    differential(rounds ? atoi(rounds) : 3000);
    tls12();
    guard_pages();
    errors();

    for (int i = 0; i < 3; i++) {
        EVP_CIPHER_free(ours[i]);
        EVP_CIPHER_free(theirs[i]);
    }
    if (prov != NULL)
        OSSL_PROVIDER_unload(prov);
    if (dflt != NULL)
        OSSL_PROVIDER_unload(dflt);
    OSSL_LIB_CTX_free(libctx);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
