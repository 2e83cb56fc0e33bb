/*
 * The native C API from C: known answers (McGrew–Viega GCM spec test cases 1–4, the
 * values also quoted in NIST's GCM validation material), streaming with every split,
 * in place vs out of place, and the documented error codes for misuse.
 */
#include <stitchgcm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#include "check.h"

static size_t unhex(const char *s, unsigned char *out)
{
    size_t n = 0;
    for (; s[0] && s[1]; s += 2) {
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (unsigned char)v;
    }
    return n;
}

struct kat {
    const char *k, *iv, *p, *a, *c, *t;
};

/* McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test cases 1-4. */
static const struct kat kats[] = {
    {"00000000000000000000000000000000", "000000000000000000000000", "", "", "",
     "58e2fccefa7e3061367f1d57a4e7455a"},
    {"00000000000000000000000000000000", "000000000000000000000000",
     "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"},
    {"feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
     "",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {"feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
};

static void known_answers(void)
{
    for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
        unsigned char k[32], iv[64], p[64], a[64], c[64], t[16], out[64], tag[16];
        size_t kl = unhex(kats[i].k, k), ivl = unhex(kats[i].iv, iv), pl = unhex(kats[i].p, p);
        size_t al = unhex(kats[i].a, a);
        unhex(kats[i].c, c);
        unhex(kats[i].t, t);
        sgcm_error_t e = sgcm_seal(k, kl, iv, ivl, a, al, p, pl, out, tag, 16);
        CHECK(e == 0 && memcmp(out, c, pl) == 0 && memcmp(tag, t, 16) == 0, "seal case %zu", i + 1);

        /* Every split point of the data, in place, through the handle API. */
        for (size_t split = 0; split <= pl; split++) {
            sgcm_cipher_hd_t h;
            e = sgcm_cipher_open(&h, SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0);
            memcpy(out, p, pl);
            e |= sgcm_cipher_setkey(h, k, kl);
            e |= sgcm_cipher_setiv(h, iv, ivl);
            e |= sgcm_cipher_authenticate(h, a, al / 2);
            e |= sgcm_cipher_authenticate(h, a + al / 2, al - al / 2);
            e |= sgcm_cipher_encrypt(h, out, split, NULL, 0);
            e |= sgcm_cipher_encrypt(h, out + split, pl - split, NULL, 0);
            e |= sgcm_cipher_gettag(h, tag, 16);
            CHECK(e == 0 && memcmp(out, c, pl) == 0 && memcmp(tag, t, 16) == 0,
                  "handle case %zu split %zu", i + 1, split);
            sgcm_cipher_close(h);
        }

        /* open: good tag decrypts; a flipped tag bit leaves the output untouched. */
        memset(out, 0x5a, sizeof out);
        e = sgcm_open(k, kl, iv, ivl, a, al, c, pl, out, t, 16);
        CHECK(e == 0 && memcmp(out, p, pl) == 0, "open case %zu", i + 1);
        t[5] ^= 0x10;
        memset(out, 0x5a, sizeof out);
        e = sgcm_open(k, kl, iv, ivl, a, al, c, pl, out, t, 16);
        int untouched = 1;
        for (size_t j = 0; j < sizeof out; j++)
            untouched &= out[j] == 0x5a;
        CHECK(e == SGCM_ERR_CHECKSUM && untouched, "open of a forged tag, case %zu", i + 1);
    }
}

static void errors(void)
{
    unsigned char key[32] = {0}, iv[12] = {0}, buf[64] = {0}, tag[32];
    sgcm_cipher_hd_t h = (sgcm_cipher_hd_t)1;

    CHECK(sgcm_cipher_open(NULL, SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0) == SGCM_ERR_INV_ARG, "open NULL");
    CHECK(sgcm_cipher_open(&h, 1, SGCM_MODE_GCM, 0) == SGCM_ERR_CIPHER_ALGO && h == NULL, "bad algo");
    CHECK(sgcm_cipher_open(&h, SGCM_CIPHER_AES128, 1, 0) == SGCM_ERR_INV_CIPHER_MODE, "bad mode");
    CHECK(sgcm_cipher_open(&h, SGCM_CIPHER_AES128, SGCM_MODE_GCM, 64) == SGCM_ERR_CIPHER_ALGO, "bad flags");
    CHECK(sgcm_cipher_setkey(NULL, key, 16) == SGCM_ERR_INV_ARG, "setkey NULL handle");

    CHECK(sgcm_cipher_open(&h, SGCM_CIPHER_AES256, SGCM_MODE_GCM, SGCM_FLAG_SECURE) == 0, "open");
    CHECK(sgcm_cipher_encrypt(h, buf, 16, NULL, 0) == SGCM_ERR_MISSING_KEY, "data before key");
    CHECK(sgcm_cipher_setiv(h, iv, 12) == SGCM_ERR_INV_STATE, "iv before key");
    CHECK(sgcm_cipher_setkey(h, key, 16) == SGCM_ERR_INV_KEYLEN, "AES-256 with 16-byte key");
    CHECK(sgcm_cipher_setkey(h, NULL, 32) == SGCM_ERR_INV_ARG, "NULL key");
    CHECK(sgcm_cipher_setkey(h, key, 32) == 0, "setkey");
    CHECK(sgcm_cipher_encrypt(h, buf, 16, NULL, 0) == SGCM_ERR_INV_STATE, "data before IV");
    CHECK(sgcm_cipher_setiv(h, iv, 0) == SGCM_ERR_INV_LENGTH, "empty IV");
    CHECK(sgcm_cipher_setiv(h, iv, 1) == 0, "1-byte IV");
    CHECK(sgcm_cipher_setiv(h, iv, 12) == 0, "setiv");
    CHECK(sgcm_cipher_authenticate(h, NULL, 5) == SGCM_ERR_INV_ARG, "NULL aad");
    CHECK(sgcm_cipher_authenticate(h, buf, 5) == 0, "aad");
    CHECK(sgcm_cipher_encrypt(h, buf, 8, buf + 16, 9) == SGCM_ERR_BUFFER_TOO_SHORT, "short out");
    CHECK(sgcm_cipher_encrypt(h, NULL, 0, buf, 9) == SGCM_ERR_BUFFER_TOO_SHORT, "NULL out");
    CHECK(sgcm_cipher_encrypt(h, buf, 7, NULL, 0) == 0, "encrypt 7");
    CHECK(sgcm_cipher_authenticate(h, buf, 5) == SGCM_ERR_INV_STATE, "aad after data");
    static const size_t bad[] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(sgcm_cipher_gettag(h, tag, bad[i]) == SGCM_ERR_INV_LENGTH, "gettag %zu", bad[i]);
        CHECK(sgcm_cipher_checktag(h, tag, bad[i]) == SGCM_ERR_INV_LENGTH, "checktag %zu", bad[i]);
    }
    unsigned char t1[16], t2[32];
    memset(t2, 0xee, sizeof t2);
    CHECK(sgcm_cipher_gettag(h, t1, 16) == 0, "gettag");
    CHECK(sgcm_cipher_gettag(h, t2, 32) == 0 && memcmp(t1, t2, 16) == 0 && t2[16] == 0xee,
          "gettag > 16 writes 16 bytes of the same tag");
    CHECK(sgcm_cipher_checktag(h, t1, 12) == 0, "truncated checktag");
    CHECK(sgcm_cipher_checktag(h, t2, 17) == SGCM_ERR_CHECKSUM, "checktag > 16");
    t1[0] ^= 1;
    CHECK(sgcm_cipher_checktag(h, t1, 16) == SGCM_ERR_CHECKSUM, "checktag mismatch");
    CHECK(sgcm_cipher_encrypt(h, buf, 16, NULL, 0) == SGCM_ERR_INV_STATE, "data after tag");
    CHECK(sgcm_cipher_reset(h) == 0, "reset");
    CHECK(sgcm_cipher_encrypt(h, buf, 16, NULL, 0) == SGCM_ERR_INV_STATE, "reset ends the message");
    /* ... and keeps the key: McGrew-Viega test case 14 (AES-256, zero key and IV, one zero
     * block) without a new setkey. */
    static const unsigned char ct14[16] = {0xce, 0xa7, 0x40, 0x3d, 0x4d, 0x60, 0x6b, 0x6e,
                                           0x07, 0x4e, 0xc5, 0xd3, 0xba, 0xf3, 0x9d, 0x18};
    static const unsigned char tag14[16] = {0xd0, 0xd1, 0xc8, 0xa7, 0x99, 0x99, 0x6b, 0xf0,
                                            0x26, 0x5b, 0x98, 0xb5, 0xd4, 0x8a, 0xb9, 0x19};
    memset(buf, 0, 16);
    CHECK(sgcm_cipher_setiv(h, iv, 12) == 0 && sgcm_cipher_encrypt(h, buf, 16, NULL, 0) == 0 &&
              sgcm_cipher_gettag(h, t1, 16) == 0 && !memcmp(buf, ct14, 16) && !memcmp(t1, tag14, 16),
          "reset keeps the key (McGrew-Viega case 14)");
    sgcm_cipher_close(h);
    sgcm_cipher_close(NULL);

    CHECK(sgcm_seal(key, 15, iv, 12, NULL, 0, buf, 16, buf, tag, 16) == SGCM_ERR_INV_KEYLEN, "seal keylen");
    CHECK(sgcm_seal(key, 16, iv, 12, NULL, 0, buf, 16, buf, tag, 3) == SGCM_ERR_INV_LENGTH, "seal taglen");
    CHECK(sgcm_seal(key, 16, iv, 12, NULL, 0, buf, 16, NULL, tag, 16) == SGCM_ERR_INV_ARG, "seal NULL out");
    CHECK(sgcm_open(key, 16, iv, 0, NULL, 0, buf, 16, buf, tag, 16) == SGCM_ERR_INV_LENGTH, "open empty IV");

    for (unsigned e = 0; e < 300; e++)
        CHECK(sgcm_strerror(e) != NULL, "strerror %u", e);
    CHECK(strcmp(sgcm_strerror(SGCM_ERR_CHECKSUM), "Unknown error code") != 0, "strerror text");
}

static void info(void)
{
    const char *name = sgcm_impl_name();
    CHECK(name != NULL, "impl name");
    int listed = 0;
    for (size_t i = 0; sgcm_impl_available(i); i++) {
        printf("backend available: %s\n", sgcm_impl_available(i));
        listed |= name && strcmp(name, sgcm_impl_available(i)) == 0;
    }
    CHECK(listed, "the selected backend is among the available ones");
    CHECK(sgcm_version() && strlen(sgcm_version()) > 0, "version");
    printf("stitchgcm %s, backend %s\n", sgcm_version(), name ? name : "(none)");
}

/* sgcm_cipher_copy: a copy taken mid-message goes on independently of the original and
 * gives the same ciphertext and tag; closing one leaves the other working. */
static void copy(void)
{
    static const unsigned char key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const unsigned char iv[12] = {9, 9, 9};
    unsigned char a[100], b[100], ta[16], tb[16], aad[21];
    memset(aad, 0x5a, sizeof aad);
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = b[i] = (unsigned char)(i * 7);
    sgcm_cipher_hd_t h, c = (sgcm_cipher_hd_t)1;
    CHECK(sgcm_cipher_copy(NULL, NULL) == SGCM_ERR_INV_ARG, "copy NULL dst");
    CHECK(sgcm_cipher_copy(&c, NULL) == SGCM_ERR_INV_ARG && c == NULL, "copy NULL src");
    CHECK(sgcm_cipher_open(&h, SGCM_CIPHER_AES128, SGCM_MODE_GCM, 0) == 0, "open");
    CHECK(sgcm_cipher_setkey(h, key, 16) == 0 && sgcm_cipher_setiv(h, iv, 12) == 0, "key, iv");
    CHECK(sgcm_cipher_authenticate(h, aad, sizeof aad) == 0, "aad");
    CHECK(sgcm_cipher_encrypt(h, a, 37, NULL, 0) == 0, "first 37 bytes");
    memcpy(b, a, 37);
    CHECK(sgcm_cipher_copy(&c, h) == 0 && c != NULL, "copy mid-message");
    CHECK(sgcm_cipher_encrypt(h, a + 37, 63, NULL, 0) == 0 && sgcm_cipher_gettag(h, ta, 16) == 0,
          "original goes on");
    sgcm_cipher_close(h);
    CHECK(sgcm_cipher_encrypt(c, b + 37, 63, NULL, 0) == 0 && sgcm_cipher_gettag(c, tb, 16) == 0,
          "copy goes on after the original is closed");
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(ta, tb, 16) == 0, "same ciphertext and tag");
    sgcm_cipher_close(c);
    CHECK(sgcm_cipher_open(&h, SGCM_CIPHER_AES128, SGCM_MODE_RFC4106, 0) == 0, "open rfc4106");
    CHECK(sgcm_cipher_copy(&c, h) == SGCM_ERR_INV_CIPHER_MODE && c == NULL, "rfc4106 not copied");
    sgcm_cipher_close(h);
}

int main(void)
{
    info();
    known_answers();
    errors();
    copy();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
