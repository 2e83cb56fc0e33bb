/*
 * test_provider's TLS 1.2 records (see test_provider.c): the record calls libssl makes
 * (tlsivfixed, then per record tlsaad and one in-place update), sealed by one provider and
 * opened by the other, both ways, with tampered records refused with an error queued.
 */
#include "test_provider.h"

/* One record through the TLS calls: tlsaad with the record header, then EVP_CipherUpdate
 * in place over explicit IV || payload || tag. The header's length is libssl's: explicit
 * IV and payload when sealing, the whole record when opening. Returns the output length
 * or -1. */
static int tls_record(EVP_CIPHER_CTX *ctx, unsigned char *rec, size_t reclen, uint64_t seq)
{
    size_t hdrlen = EVP_CIPHER_CTX_is_encrypting(ctx) ? reclen - 16 : reclen;
    unsigned char hdr[13];
    for (int i = 0; i < 8; i++)
        hdr[i] = (unsigned char)(seq >> (56 - 8 * i));
    hdr[8] = 23, hdr[9] = 3, hdr[10] = 3;
    hdr[11] = (unsigned char)(hdrlen >> 8), hdr[12] = (unsigned char)hdrlen;
    int outl;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, sizeof hdr, hdr) != 16)
        return -1;
    if (!EVP_CipherUpdate(ctx, rec, &outl, rec, (int)reclen))
        return -1;
    return outl;
}

void tls12(void)
{
    unsigned char key[32], fixed[4], pt[600], rec[600 + 24];
    for (int dir = 0; dir < 2; dir++) { /* 0: ours seal, default opens; 1: the other way */
        for (size_t kl = 16; kl <= 32; kl += 16) {
            int k = kidx(kl);
            fill(key, kl);
            fill(fixed, 4);
            EVP_CIPHER_CTX *s = EVP_CIPHER_CTX_new(), *o = EVP_CIPHER_CTX_new();
            int ok = EVP_CipherInit_ex2(s, dir ? theirs[k] : ours[k], key, NULL, 1, NULL) &&
                     EVP_CIPHER_CTX_ctrl(s, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0 &&
                     EVP_CipherInit_ex2(o, dir ? ours[k] : theirs[k], key, NULL, 0, NULL) &&
                     EVP_CIPHER_CTX_ctrl(o, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0;
            CHECK(ok, "TLS 1.2 setup (dir %d, key %zu)", dir, kl);
            for (uint64_t seq = 0; ok && seq < 40; seq++) {
                size_t len = below(sizeof pt);
                fill(pt, len);
                memcpy(rec + 8, pt, len);
                int n = tls_record(s, rec, len + 24, seq);
                int m = n == (int)len + 24 ? tls_record(o, rec, len + 24, seq) : -2;
                CHECK(m == (int)len && memcmp(rec + 8, pt, len) == 0, "TLS 1.2 record %llu (dir %d): %d %d",
                      (unsigned long long)seq, dir, n, m);
                if (seq % 8 == 7 && n == (int)len + 24) { /* a tampered record is refused */
                    memcpy(rec + 8, pt, len);
                    n = tls_record(s, rec, len + 24, seq);
                    rec[8 + below(len + 16)] ^= 1;
                    ERR_clear_error();
                    CHECK(tls_record(o, rec, len + 24, seq) < 0, "tampered TLS 1.2 record accepted");
                    /* with an error on the queue, from either provider (OpenSSL's own queues
                     * one for a record, none for a streaming final: errors() below) */
                    CHECK(ERR_peek_last_error() != 0, "no error queued by a tampered record (dir %d)", dir);
                }
            }
            EVP_CIPHER_CTX_free(s);
            EVP_CIPHER_CTX_free(o);
            ERR_clear_error();
        }
    }
}
