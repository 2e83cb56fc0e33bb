/*
 * RFC 4106 through the C ABI: the ESP packets of draft-mcgrew-gcm-test-01 (read from the
 * data file given as argv[1], tests/data/draft-mcgrew-gcm-test-01-esp.txt, which cites its
 * source) rebuilt byte for byte by an SGCM_MODE_RFC4106 handle -- the per-packet
 * sgcm_aead_seal/sgcm_aead_open, the streaming calls, ICVs of 8/12/16 bytes, a bad ICV
 * releasing nothing -- and, when built with OpenSSL's libcrypto (HAVE_LIBCRYPTO), random
 * packets of every key size, AAD of 8 and 12 bytes, ICVs of 8, 12 and 16 and payloads up
 * to 1500 bytes (1420 among them) checked against OpenSSL's plain AES-GCM with
 * nonce = salt || IV and AAD = SPI || SN (|| ESN) in both directions, through the one-shot,
 * the streaming handle and sgcm_aead_seal_geniv.
 *
 * The backend is the process's (STITCHGCM_IMPL); with --all-backends the program runs
 * itself once per backend this CPU has, with STITCHGCM_IMPL set. Prints "N passed, M failed".
 */
#include <stitchgcm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

static int passed, failed;

#include "check.h"

enum { KEY, SPI, SEQ, NONCE, PT, AAD, CTTAG, PACKET, NFIELD };
static const char *const field_name[NFIELD] = {"key", "spi", "seq", "nonce", "plaintext",
                                               "aad", "ctext+tag", "packet"};
struct packet {
    unsigned char f[NFIELD][128];
    size_t len[NFIELD];
};

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Appends the hex digits of `s` (up to a space or the end) to field `f` of `p`. */
static void append_hex(struct packet *p, int f, const char *s)
{
    for (; hexval(s[0]) >= 0 && hexval(s[1]) >= 0 && p->len[f] < sizeof p->f[f]; s += 2)
        p->f[f][p->len[f]++] = (unsigned char)(hexval(s[0]) << 4 | hexval(s[1]));
}

/* Reads the data file: "name = hex" lines, continuation lines, "(N octets)" checks. */
static size_t read_packets(const char *path, struct packet *out, size_t max)
{
    FILE *fp = fopen(path, "r");
    char line[256];
    size_t n = 0;
    int cur = -1;
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, fp)) {
        char *s = line + strspn(line, " \t");
        size_t octets;
        if (*s == '#' || *s == '\n' || *s == 0)
            continue;
        if (strncmp(s, "algorithm = ", 12) == 0) {
            CHECK(n < max && strncmp(s + 12, "AES-GCM-ESP", 11) == 0, "record %zu", n + 1);
            if (n == max)
                break;
            memset(&out[n++], 0, sizeof *out);
            cur = -1;
        } else if (sscanf(s, "(%zu octets)", &octets) == 1) {
            CHECK(cur >= 0 && out[n - 1].len[cur] == octets, "record %zu: length", n);
        } else if (strstr(s, " = ")) {
            cur = -1;
            for (int f = 0; f < NFIELD; f++)
                if (strncmp(s, field_name[f], strlen(field_name[f])) == 0 &&
                    s[strlen(field_name[f])] == ' ')
                    cur = f;
            CHECK(cur >= 0 && n > 0, "record %zu: unknown field %s", n, s);
            if (cur >= 0)
                append_hex(&out[n - 1], cur, strstr(s, " = ") + 3);
        } else if (cur >= 0) {
            append_hex(&out[n - 1], cur, s);
        }
    }
    fclose(fp);
    return n;
}

static sgcm_cipher_hd_t open_rfc4106(size_t aes_len)
{
    static const int algo[] = {SGCM_CIPHER_AES128, SGCM_CIPHER_AES192, SGCM_CIPHER_AES256};
    sgcm_cipher_hd_t h = NULL;
    sgcm_error_t e = sgcm_cipher_open(&h, algo[(aes_len - 16) / 8], SGCM_MODE_RFC4106, 0);
    CHECK(e == 0 && h, "open RFC 4106 handle (AES-%zu)", aes_len * 8);
    return h;
}

static void draft_packets(const char *path)
{
    static struct packet pk[32];
    size_t n = read_packets(path, pk, 32);
    CHECK(n == 16, "16 ESP cases in %s (found %zu)", path, n);
    for (size_t i = 0; i < n; i++) {
        struct packet *p = &pk[i];
        size_t klen = p->len[KEY], len = p->len[PT], icvlens[] = {8, 12, 16};
        unsigned char key[36], pkt[160], icv[16], buf[128];
        const unsigned char *iv = p->f[NONCE] + 4;
        memcpy(key, p->f[KEY], klen);
        memcpy(key + klen, p->f[NONCE], 4); /* the salt */
        CHECK(p->len[CTTAG] == len + 16 && p->len[PACKET] == len + 32, "case %zu", i + 1);
        sgcm_cipher_hd_t h = open_rfc4106(klen);
        CHECK(sgcm_cipher_setkey(h, key, klen + 4) == 0, "case %zu setkey", i + 1);
        /* The packet: SPI, low 32 bits of the sequence number, IV, ciphertext, ICV. */
        memcpy(pkt, p->f[SPI], 4);
        memcpy(pkt + 4, p->f[SEQ] + p->len[SEQ] - 4, 4);
        memcpy(pkt + 8, iv, 8);
        sgcm_error_t e = sgcm_aead_seal(h, iv, 8, p->f[AAD], p->len[AAD], p->f[PT], len,
                                        pkt + 16, pkt + 16 + len, 16);
        CHECK(e == 0 && memcmp(pkt, p->f[PACKET], len + 32) == 0, "case %zu aead_seal", i + 1);
        for (size_t k = 0; k < 3; k++) {
            memcpy(buf, p->f[PT], len);
            e = sgcm_aead_seal(h, iv, 8, p->f[AAD], p->len[AAD], NULL, len, buf, icv, icvlens[k]);
            CHECK(e == 0 && memcmp(buf, p->f[CTTAG], len) == 0 &&
                      memcmp(icv, p->f[CTTAG] + len, icvlens[k]) == 0,
                  "case %zu in place, %zu-byte ICV", i + 1, icvlens[k]);
            e = sgcm_aead_open(h, iv, 8, p->f[AAD], p->len[AAD], NULL, len, buf, icv, icvlens[k]);
            CHECK(e == 0 && memcmp(buf, p->f[PT], len) == 0, "case %zu open", i + 1);
        }
        memcpy(icv, p->f[CTTAG] + len, 16);
        icv[i % 16] ^= 0x01;
        memset(buf, 0xa5, sizeof buf);
        e = sgcm_aead_open(h, iv, 8, p->f[AAD], p->len[AAD], p->f[CTTAG], len, buf, icv, 16);
        int untouched = 1;
        for (size_t j = 0; j < sizeof buf; j++)
            untouched &= buf[j] == 0xa5;
        CHECK(e == SGCM_ERR_CHECKSUM && untouched, "case %zu: a bad ICV releases nothing", i + 1);
        /* Streaming: the AAD in two calls, the payload in two, the ICV at 12 bytes. */
        e = sgcm_cipher_setiv(h, iv, 8);
        e |= sgcm_cipher_authenticate(h, p->f[AAD], 3);
        e |= sgcm_cipher_authenticate(h, p->f[AAD] + 3, p->len[AAD] - 3);
        e |= sgcm_cipher_encrypt(h, buf, len / 2 + 1, p->f[PT], len / 2 + 1);
        e |= sgcm_cipher_encrypt(h, buf + len / 2 + 1, len - len / 2 - 1, p->f[PT] + len / 2 + 1,
                                 len - len / 2 - 1);
        e |= sgcm_cipher_gettag(h, icv, 12);
        CHECK(e == 0 && memcmp(buf, p->f[CTTAG], len) == 0 &&
                  memcmp(icv, p->f[CTTAG] + len, 12) == 0,
              "case %zu streaming", i + 1);
        e = sgcm_cipher_setiv(h, iv, 8);
        e |= sgcm_cipher_authenticate(h, p->f[AAD], p->len[AAD]);
        e |= sgcm_cipher_decrypt(h, buf, len, NULL, 0);
        e |= sgcm_cipher_checktag(h, p->f[CTTAG] + len, 16);
        CHECK(e == 0 && memcmp(buf, p->f[PT], len) == 0, "case %zu streaming open", i + 1);
        sgcm_cipher_close(h);
    }
}

#ifdef HAVE_LIBCRYPTO
static unsigned long long rng_state = 0x4106c0ffee;
static unsigned rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33);
}
static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
}

static const EVP_CIPHER *evp_gcm(size_t aes_len)
{
    return aes_len == 16 ? EVP_aes_128_gcm() : aes_len == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

/* OpenSSL's plain GCM: 12-byte nonce, AAD, payload, 16-byte tag; enc = 0 checks `tag`. */
static int openssl_gcm(int enc, size_t aes_len, const unsigned char *key,
                       const unsigned char *nonce, const unsigned char *aad, size_t alen,
                       const unsigned char *in, size_t len, unsigned char *out,
                       unsigned char *tag, size_t taglen)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, ok = c && EVP_CipherInit_ex(c, evp_gcm(aes_len), NULL, key, nonce, enc) == 1 &&
                    EVP_CipherUpdate(c, NULL, &n, aad, (int)alen) == 1 &&
                    (len == 0 || EVP_CipherUpdate(c, out, &n, in, (int)len) == 1);
    if (ok && !enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, (int)taglen, tag) == 1;
    ok = ok && EVP_CipherFinal_ex(c, out + len, &n) == 1;
    if (ok && enc)
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, (int)taglen, tag) == 1;
    EVP_CIPHER_CTX_free(c);
    return ok;
}

static void versus_openssl(void)
{
    static const size_t icvlens[] = {8, 12, 16};
    static unsigned char pt[1500], ct[1500 + 16], ref[1500 + 16], back[1500 + 16];
    for (int i = 0; i < 600; i++) {
        size_t aes_len = 16 + 8 * (size_t)(i % 3), alen = i % 2 ? 12 : 8;
        size_t icvlen = icvlens[(i / 3) % 3];
        size_t len = i % 7 == 0 ? 1420 : i % 5 == 0 ? rnd() % 64 : rnd() % 1501;
        unsigned char key[36], iv[8], aad[12], nonce[12], icv[16], ref_icv[16];
        fill(key, aes_len + 4);
        fill(iv, 8);
        fill(aad, alen);
        fill(pt, len);
        memcpy(nonce, key + aes_len, 4);
        memcpy(nonce + 4, iv, 8);
        CHECK(openssl_gcm(1, aes_len, key, nonce, aad, alen, pt, len, ref, ref_icv, 16),
              "OpenSSL seal %d", i);
        sgcm_cipher_hd_t h = open_rfc4106(aes_len);
        CHECK(sgcm_cipher_setkey(h, key, aes_len + 4) == 0, "setkey %d", i);
        /* The one-shot against OpenSSL's packet, and OpenSSL's packet opened by us. */
        sgcm_error_t e = sgcm_aead_seal(h, iv, 8, aad, alen, pt, len, ct, icv, icvlen);
        CHECK(e == 0 && memcmp(ct, ref, len) == 0 && memcmp(icv, ref_icv, icvlen) == 0,
              "aead_seal vs OpenSSL, packet %d (AES-%zu, %zu bytes, AAD %zu, ICV %zu)", i,
              aes_len * 8, len, alen, icvlen);
        e = sgcm_aead_open(h, iv, 8, aad, alen, ref, len, back, ref_icv, icvlen);
        CHECK(e == 0 && memcmp(back, pt, len) == 0, "aead_open of OpenSSL's packet %d", i);
        /* Streaming in two pieces, and OpenSSL opening our packet. */
        size_t cut = len ? rnd() % len : 0;
        e = sgcm_cipher_setiv(h, iv, 8);
        e |= sgcm_cipher_authenticate(h, aad, alen);
        e |= sgcm_cipher_encrypt(h, ct, cut, pt, cut);
        e |= sgcm_cipher_encrypt(h, ct + cut, len - cut, pt + cut, len - cut);
        e |= sgcm_cipher_gettag(h, icv, 16);
        CHECK(e == 0 && memcmp(ct, ref, len) == 0 && memcmp(icv, ref_icv, 16) == 0,
              "streaming vs OpenSSL, packet %d", i);
        CHECK(openssl_gcm(0, aes_len, key, nonce, aad, alen, ct, len, back, icv, 16) &&
                  memcmp(back, pt, len) == 0,
              "OpenSSL opens our packet %d", i);
        /* The generator's IV, checked by OpenSSL. */
        unsigned char giv[8];
        e = sgcm_cipher_setup_geniv(h, iv, 8);
        e |= sgcm_aead_seal_geniv(h, giv, 8, aad, alen, pt, len, ct, icv, 16);
        CHECK(e == 0 && memcmp(giv, iv, 8) == 0 &&
                  openssl_gcm(0, aes_len, key, nonce, aad, alen, ct, len, back, icv, 16),
              "seal_geniv checked by OpenSSL, packet %d", i);
        sgcm_cipher_close(h);
    }
}
#endif

/* Runs this program once per backend with STITCHGCM_IMPL set; prints and returns the
 * number of backends that passed and failed. */
static int each_backend(char **argv)
{
    int bad = 0, good = 0;
    for (size_t i = 0; sgcm_impl_available(i); i++) {
        const char *b = sgcm_impl_available(i);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("STITCHGCM_IMPL", b, 1);
            execv("/proc/self/exe", (char *[]){argv[0], argv[1], NULL});
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        printf("backend %s: %s\n", b, ok ? "ok" : "FAILED");
        bad += !ok;
        good += ok;
    }
    printf("%d passed, %d failed (backends)\n", good, bad);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--all-backends") == 0) {
        return each_backend(argv) != 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA-FILE [--all-backends]\n", argv[0]);
        return 2;
    }
    printf("stitchgcm %s, backend %s\n", sgcm_version(), sgcm_impl_name());
    draft_packets(argv[1]);
#ifdef HAVE_LIBCRYPTO
    versus_openssl();
#else
    printf("built without libcrypto: no cross-check against OpenSSL\n");
#endif
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
