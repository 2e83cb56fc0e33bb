/*
 * The known-answer and agreement check every implementation passes before it is timed.
 *
 * For each key size: McGrew-Viega's test cases 4, 10 and 16 (sealed and opened), then a
 * sweep of lengths -- all tcrypt sizes and the awkward ones around block boundaries, with and
 * without AAD, 12- and 8-byte IVs -- each sealed, sealed again in place (and through the
 * keyed one-shot and GnuTLS's nettle calls where there are those) to the same bytes, opened
 * (also the GnuTLS way where there is one), and refused once its tag is corrupted. The sweep's ciphertexts and tags are fingerprinted (FNV-1a): the parent checks
 * that every implementation gives the same fingerprint, so they agree with each other on
 * every message, not only on the few with published answers. Implementations with an RFC 4106
 * call are also checked on ESP packets (check_rfc4106).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kat_key[NALGO] = {
    "feffe9928665731c6d6a8f9467308308",
    "feffe9928665731c6d6a8f9467308308feffe9928665731c",
    "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"};
static const char kat_p[] =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char kat_a[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char kat_iv[] = "cafebabefacedbaddecaf888";
/* McGrew-Viega test cases 4, 10, 16: ciphertext and tag. */
static const char *const kat_c[NALGO] = {
    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
    "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
    "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"};
static const char *const kat_t[NALGO] = {"5bc94fbc3221a5db94fae95ae7121a47",
                                         "2519498e80f1478f37ba55bd6d27618c",
                                         "76fc6ece0f4e1768cddf8853bb2d551b"};

static size_t unhex(const char *h, uint8_t *out) {
  size_t n = strlen(h) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(h + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
  return n;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* RFC 4106, for implementations with seal_rfc4106: an ESP packet of draft-mcgrew-gcm-test-01
 * per key size (its cases 2, 7 and 3: AES-128/192/256, 8-byte AAD), then a sweep of payload
 * lengths with 8- and 12-byte AAD, each sealed through seal_rfc4106 on a handle keyed with
 * key || salt and compared with seal() on a plain handle with nonce salt || IV, in place and
 * out of place. Not fingerprinted (the peers have no such call); returns the failures. */
struct esp_kat {
  const char *key, *nonce, *aad, *pt, *ct_tag;
};
static const struct esp_kat esp_kats[NALGO] = {
    {"feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "0000a5f80000000a",
     "4500003e698f000080114dccc0a80102c0a801010a980035002a2343b2d00100"
     "00010000000000000373697009637962" "65726369747902646b00000100010001",
     "deb22cd9b07c72c16e3a65beeb8df304a5a5897d33ae530f1ba76d5d114d2a5c"
     "3de81827c10e9a4f51330d0eec416642cfbb85a5b47e48a4ec3b9ba95d918bd1"
     "83b70d3aa8bc6ee4c309e9d85a41ad4a"},
    {"feffe9928665731c6d6a8f9467308308feffe9928665731c", "cafebabefacedbaddecaf888",
     "0000a5f80000000a",
     "45000028a4ad4000400678800a01038f0a010612802306b8cb712602dd6bb03e501016d075680001",
     "a5b1f8066029aea40e598b8122de02420938b3ab33f828e687b8858b5bfbdbd0"
     "315b27452144cc7795457b9652037f5318027b5b4cd7a636"},
    {"abbccddef00112233445566778899aababbccddef00112233445566778899aab",
     "112233440102030405060708", "4a2cbfe300000002",
     "4500003069a6400080062690c0a801029389155e0a9e008b2dc57ee000000000"
     "7002400020bf0000020405b40101040201020201",
     "ff425c9b724599df7a3bcd510194e00d6a78107f1b0b1cbf06efae9d65a5d763"
     "748a637985771d347f0545659f14e99def842d8eb335f4eecfdbf831824b4c49" "15956c96"},
};

static int check_rfc4106(const struct impl *p, const size_t *lens, size_t nlens, uint8_t *in,
                         uint8_t *ct, uint8_t *pt, int *messages) {
  int fails = 0;
  uint8_t key[36], nonce[12], aad[12], want[96], tag[16], t2[16], msg[80];
  for (int a = 0; a < NALGO; a++) {
    size_t kl = algo_keylen[a];
    const struct esp_kat *k = &esp_kats[a];
    unhex(k->key, key);
    unhex(k->nonce, nonce);
    memcpy(key + kl, nonce, 4); /* the salt */
    size_t alen = unhex(k->aad, aad), len = unhex(k->pt, msg);
    unhex(k->ct_tag, want);
    void *c = p->setup(key, kl + 4);
    p->seal_rfc4106(c, nonce + 4, 8, aad, alen, msg, ct, len, tag);
    if (memcmp(ct, want, len) || memcmp(tag, want + len, 16)) fails++;
    ++*messages;
    for (size_t i = 0; i < kl + 4; i++) key[i] = (uint8_t)(0x4b ^ (7 * i));
    p->teardown(c);
    c = p->setup(key, kl + 4);
    void *plain = p->setup(key, kl);
    memcpy(nonce, key + kl, 4);
    for (size_t li = 0; li < nlens; li++)
      for (alen = 8; alen <= 12; alen += 4) {
        size_t n = lens[li];
        nonce[4] = (uint8_t)li, nonce[11] = (uint8_t)alen;
        for (size_t i = 0; i < alen; i++) aad[i] = (uint8_t)(li + i);
        p->seal(plain, nonce, 12, aad, alen, in, ct, n, tag);
        p->seal_rfc4106(c, nonce + 4, 8, aad, alen, in, pt, n, t2);
        if (memcmp(pt, ct, n) || memcmp(t2, tag, 16)) fails++;
        memcpy(pt, in, n);
        p->seal_rfc4106(c, nonce + 4, 8, aad, alen, pt, pt, n, t2);
        if (memcmp(pt, ct, n) || memcmp(t2, tag, 16)) fails++;
        ++*messages;
      }
    p->teardown(plain);
    p->teardown(c);
  }
  return fails;
}

/* Returns the fingerprint of every ciphertext and tag (equal across implementations iff
 * they agree) and the number of known-answer or round-trip failures. */
uint64_t run_check(const struct impl *p, int *failures, int *messages) {
  static const size_t lens[] = {0, 1, 15, 16, 17, 31, 63, 64, 65, 255, 256, 257, 511, 512,
                                1023, 1024, 1420, 2047, 2048, 4095, 4096, 8191, 8192};
  static const size_t alens[] = {0, 13, 20, 64};
  uint64_t h = 0xcbf29ce484222325ull;
  uint8_t *in = malloc(8192), *ct = malloc(8192 + 1), *pt = malloc(8192 + 1), aad[64];
  uint8_t key[32], iv[12], tag[16], want[64], wtag[16], p60[60], a20[20];
  if (!in || !ct || !pt) abort();
  *failures = 0;
  *messages = 0;
  for (int a = 0; a < NALGO; a++) {
    /* Known answer. */
    unhex(kat_key[a], key);
    unhex(kat_iv, iv);
    unhex(kat_p, p60);
    unhex(kat_a, a20);
    unhex(kat_c[a], want);
    unhex(kat_t[a], wtag);
    void *c = p->setup(key, algo_keylen[a]);
    p->seal(c, iv, 12, a20, 20, p60, ct, 60, tag);
    if (memcmp(ct, want, 60) || memcmp(tag, wtag, 16)) ++*failures;
    if (!p->open_(c, iv, 12, a20, 20, want, pt, 60, wtag) || memcmp(pt, p60, 60)) ++*failures;
    p->teardown(c);
    ++*messages;
    /* Sweep. */
    for (size_t i = 0; i < algo_keylen[a]; i++) key[i] = (uint8_t)(0x33 ^ (11 - i));
    c = p->setup(key, algo_keylen[a]);
    for (size_t i = 0; i < 8192; i++) in[i] = (uint8_t)(0x55 ^ (0 - i));
    for (size_t i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)(i * 7 + 1);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
      for (size_t ai = 0; ai < sizeof alens / sizeof alens[0]; ai++) {
        size_t len = lens[li], ivlen = (li + ai) % 3 == 2 ? 8 : 12;
        memcpy(iv, bench_nonce, 12);
        iv[11] ^= (uint8_t)li;
        iv[0] ^= (uint8_t)ai;
        p->seal(c, iv, ivlen, aad, alens[ai], in, ct, len, tag);
        h = fnv(h, ct, len);
        h = fnv(h, tag, 16);
        /* The same message in place, as the row sets time it, and through every other
         * sealing call the implementation has. */
        seal_fn also[] = {p->seal, p->seal_keyed, p->seal_gnutls};
        for (size_t k = 0; k < sizeof also / sizeof also[0]; k++) {
          if (!also[k]) continue;
          uint8_t t2[16];
          memcpy(pt, in, len);
          also[k](c, iv, ivlen, aad, alens[ai], pt, pt, len, t2);
          if (memcmp(pt, ct, len) || memcmp(t2, tag, 16)) ++*failures;
        }
        open_fn opens[] = {p->open_, p->open_gnutls};
        for (size_t k = 0; k < sizeof opens / sizeof opens[0]; k++) {
          if (!opens[k]) continue;
          if (!opens[k](c, iv, ivlen, aad, alens[ai], ct, pt, len, tag) || memcmp(pt, in, len))
            ++*failures;
          tag[li % 16] ^= 0x40; /* a wrong tag must be refused */
          if (opens[k](c, iv, ivlen, aad, alens[ai], ct, pt, len, tag)) ++*failures;
          tag[li % 16] ^= 0x40;
        }
        ++*messages;
      }
    p->teardown(c);
  }
  if (p->seal_rfc4106)
    *failures += check_rfc4106(p, lens, sizeof lens / sizeof lens[0], in, ct, pt, messages);
  free(in);
  free(ct);
  free(pt);
  return h;
}
