/*
 * What the parts of test_provider (the OpenSSL provider stitchgcm.so through EVP; overview
 * and usage in test_provider.c) share: the pass/fail counters and CHECK, the fetched
 * ciphers, one GCM message through EVP (run), and the test's PRNG.
 */
#ifndef TEST_PROVIDER_H
#define TEST_PROVIDER_H

#define _DEFAULT_SOURCE /* realpath */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

extern int passed, failed;

/* A failed check also prints OpenSSL's error queue. */
#define CHECK_FAILED() ERR_print_errors_fp(stderr)
#include "check.h"

extern OSSL_LIB_CTX *libctx;
extern EVP_CIPHER *ours[3], *theirs[3]; /* AES-128/192/256-GCM */

static inline int kidx(size_t keylen) { return keylen == 16 ? 0 : keylen == 24 ? 1 : keylen == 32 ? 2 : -1; }

struct msg {
    const unsigned char *key, *iv, *aad, *in, *tag;
    size_t keylen, ivlen, aadlen, len, taglen;
    int enc, tag_late;
    size_t chunk; /* update size, 0: one call */
    int in_place;
};

/* Runs m through cipher c; writes the output to out and, encrypting, the tag to tag.
 * Returns 1 on success, 0 if a call before final failed, -1 if final failed. */
int run(EVP_CIPHER *c, const struct msg *m, unsigned char *out, unsigned char *tag);

/* the test's xorshift PRNG (STITCHGCM_PROV_SEED) */
uint64_t rnd(void);
size_t below(size_t n);
void fill(unsigned char *p, size_t n);

void tls12(void);       /* test_provider_tls.c */
void guard_pages(void); /* test_provider_guard.c */

#endif
