/*
 * NIST CAVP AES-GCM known answers through the C ABI.
 *
 * Reads gcmEncryptExtIV{128,192,256}.rsp and gcmDecrypt{128,192,256}.rsp (from NIST's
 * CAVP, shipped in the cryptography-vectors wheel; scripts/deps.sh fetches them) and
 * checks every record three ways: one-shot sgcm_seal/sgcm_open, the keyed one-shot
 * sgcm_aead_seal/sgcm_aead_open on a handle, and the handle API with the data split at a
 * record-dependent point. FAIL records of the decrypt files must be
 * rejected with SGCM_ERR_CHECKSUM and leave the output untouched.
 *
 * usage: test_cavp <dir with the .rsp files>
 */
#include <stitchgcm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 1024

struct record {
    unsigned char key[32], iv[MAX], pt[MAX], aad[MAX], ct[MAX], tag[16];
    size_t keylen, ivlen, ptlen, aadlen, ctlen, taglen;
    int fail, has_pt;
};

static int failures;
static long checked;

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
    size_t n = 0;
    while (s[0] && s[1] && s[0] != '\n' && s[0] != '\r') {
        unsigned v;
        if (n == cap || sscanf(s, "%2x", &v) != 1) {
            fprintf(stderr, "bad hex: %s\n", s);
            exit(2);
        }
        out[n++] = (unsigned char)v;
        s += 2;
    }
    return n;
}

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (failures++ < 20) {                                                       \
                fprintf(stderr, "%s: ", name);                                           \
                fprintf(stderr, __VA_ARGS__);                                            \
                fputc('\n', stderr);                                                     \
            }                                                                            \
        }                                                                                \
    } while (0)

static void check_encrypt(const char *name, const struct record *r)
{
    unsigned char out[MAX], tag[16];
    sgcm_error_t e = sgcm_seal(r->key, r->keylen, r->iv, r->ivlen, r->aad, r->aadlen, r->pt,
                               r->ptlen, out, tag, r->taglen);
    CHECK(e == 0, "seal error %u (%s)", e, sgcm_strerror(e));
    CHECK(memcmp(out, r->ct, r->ptlen) == 0, "seal ciphertext differs");
    CHECK(memcmp(tag, r->tag, r->taglen) == 0, "seal tag differs");

    /* Handle API, data split at a record-dependent point, in place. */
    int algo = r->keylen == 16 ? SGCM_CIPHER_AES128
               : r->keylen == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
    sgcm_cipher_hd_t h;
    e = sgcm_cipher_open(&h, algo, SGCM_MODE_GCM, 0);
    CHECK(e == 0, "open %u", e);
    if (e)
        return;
    size_t split = r->ptlen ? (checked * 7) % (r->ptlen + 1) : 0;
    size_t asplit = r->aadlen ? (checked * 5) % (r->aadlen + 1) : 0;
    memcpy(out, r->pt, r->ptlen);
    e = sgcm_cipher_setkey(h, r->key, r->keylen);
    e |= sgcm_cipher_setiv(h, r->iv, r->ivlen);
    e |= sgcm_cipher_authenticate(h, r->aad, asplit);
    e |= sgcm_cipher_authenticate(h, r->aad + asplit, r->aadlen - asplit);
    e |= sgcm_cipher_encrypt(h, out, split, NULL, 0);
    e |= sgcm_cipher_encrypt(h, out + split, r->ptlen - split, NULL, 0);
    e |= sgcm_cipher_checktag(h, r->tag, r->taglen);
    CHECK(e == 0, "handle path error");
    CHECK(memcmp(out, r->ct, r->ptlen) == 0, "handle ciphertext differs");

    /* Keyed one-shot on the same handle, out of place. */
    unsigned char out2[MAX];
    e = sgcm_aead_seal(h, r->iv, r->ivlen, r->aad, r->aadlen, r->pt, r->ptlen, out2, tag,
                       r->taglen);
    CHECK(e == 0, "aead_seal error %u", e);
    CHECK(memcmp(out2, r->ct, r->ptlen) == 0, "aead_seal ciphertext differs");
    CHECK(memcmp(tag, r->tag, r->taglen) == 0, "aead_seal tag differs");
    sgcm_cipher_close(h);
}

static void check_decrypt(const char *name, const struct record *r)
{
    unsigned char out[MAX];
    memset(out, 0xa5, sizeof out);
    sgcm_error_t e = sgcm_open(r->key, r->keylen, r->iv, r->ivlen, r->aad, r->aadlen, r->ct,
                               r->ctlen, out, r->tag, r->taglen);
    if (r->fail) {
        CHECK(e == SGCM_ERR_CHECKSUM, "FAIL record accepted (%u)", e);
        for (size_t i = 0; i < r->ctlen; i++)
            CHECK(out[i] == 0xa5, "rejected open wrote output");
    } else {
        CHECK(e == 0, "open error %u (%s)", e, sgcm_strerror(e));
        CHECK(r->has_pt && r->ptlen == r->ctlen && memcmp(out, r->pt, r->ptlen) == 0,
              "open plaintext differs");
    }

    int algo = r->keylen == 16 ? SGCM_CIPHER_AES128
               : r->keylen == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
    sgcm_cipher_hd_t h;
    e = sgcm_cipher_open(&h, algo, SGCM_MODE_GCM, 0);
    if (e)
        return;
    size_t split = r->ctlen ? (checked * 3) % (r->ctlen + 1) : 0;
    e = sgcm_cipher_setkey(h, r->key, r->keylen);
    e |= sgcm_cipher_setiv(h, r->iv, r->ivlen);
    e |= sgcm_cipher_authenticate(h, r->aad, r->aadlen);
    e |= sgcm_cipher_decrypt(h, out, split, r->ct, split);
    e |= sgcm_cipher_decrypt(h, out + split, r->ctlen - split, r->ct + split, r->ctlen - split);
    CHECK(e == 0, "handle decrypt error");
    e = sgcm_cipher_checktag(h, r->tag, r->taglen);
    CHECK(e == (r->fail ? SGCM_ERR_CHECKSUM : 0u), "handle checktag gave %u", e);
    if (!r->fail)
        CHECK(memcmp(out, r->pt, r->ptlen) == 0, "handle plaintext differs");

    /* Keyed one-shot on the same handle, in place: nothing may change on a FAIL record. */
    memcpy(out, r->ct, r->ctlen);
    e = sgcm_aead_open(h, r->iv, r->ivlen, r->aad, r->aadlen, NULL, r->ctlen, out, r->tag,
                       r->taglen);
    if (r->fail) {
        CHECK(e == SGCM_ERR_CHECKSUM, "aead_open accepted a FAIL record (%u)", e);
        CHECK(memcmp(out, r->ct, r->ctlen) == 0, "rejected aead_open wrote output");
    } else {
        CHECK(e == 0, "aead_open error %u", e);
        CHECK(memcmp(out, r->pt, r->ptlen) == 0, "aead_open plaintext differs");
    }
    sgcm_cipher_close(h);
}

static long run_file(const char *dir, const char *file, int decrypt)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run scripts/deps.sh)\n", path);
        exit(2);
    }
    const char *name = file;
    struct record r;
    int in_record = 0;
    long n = 0;
    memset(&r, 0, sizeof r);
    for (;;) {
        char *got = fgets(line, sizeof line, f);
        int blank = !got || line[0] == '\n' || line[0] == '\r';
        if (blank && in_record) {
            if (decrypt)
                check_decrypt(name, &r);
            else
                check_encrypt(name, &r);
            checked++;
            n++;
            in_record = 0;
            memset(&r, 0, sizeof r);
        }
        if (!got)
            break;
#define FIELD(tag, buf, len)                                                             \
    if (strncmp(line, tag " = ", sizeof(tag " = ") - 1) == 0) {                          \
        len = unhex(line + sizeof(tag " = ") - 1, buf, sizeof buf);                      \
        in_record = 1;                                                                   \
        continue;                                                                        \
    }
        FIELD("Key", r.key, r.keylen)
        FIELD("IV", r.iv, r.ivlen)
        FIELD("AAD", r.aad, r.aadlen)
        FIELD("CT", r.ct, r.ctlen)
        FIELD("Tag", r.tag, r.taglen)
        if (strncmp(line, "PT = ", 5) == 0) {
            r.ptlen = unhex(line + 5, r.pt, sizeof r.pt);
            r.has_pt = 1;
            continue;
        }
        if (strncmp(line, "FAIL", 4) == 0)
            r.fail = 1;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <cavp dir>\n", argv[0]);
        return 2;
    }
    static const char *enc[] = {"gcmEncryptExtIV128.rsp", "gcmEncryptExtIV192.rsp",
                                "gcmEncryptExtIV256.rsp"};
    static const char *dec[] = {"gcmDecrypt128.rsp", "gcmDecrypt192.rsp", "gcmDecrypt256.rsp"};
    for (int i = 0; i < 3; i++) {
        long a = run_file(argv[1], enc[i], 0), b = run_file(argv[1], dec[i], 1);
        /* Each CAVP GCM file holds 7875 records; a parser bug must not skip any. */
        if (a != 7875 || b != 7875) {
            fprintf(stderr, "record count %ld/%ld, expected 7875\n", a, b);
            failures++;
        }
    }
    printf("CAVP via C ABI (%s): %ld records, %d failures\n", sgcm_impl_name(), checked,
           failures);
    printf("%ld passed, %d failed\n", checked - failures, failures);
    return failures != 0;
}
