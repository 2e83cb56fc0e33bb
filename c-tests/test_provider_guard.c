/*
 * test_provider's guard pages (see test_provider.c): key, IV, AAD, input, output and tag
 * each ending at an unmapped page, sealed and opened at lengths around the block and lane
 * boundaries, against the default provider.
 */
#include "test_provider.h"

/* n bytes that end where an unmapped page begins: a read or write past them faults (and the
 * test dies, which scripts/test-openssl-provider.sh counts as a failure). */
struct guarded {
    unsigned char *map;
    size_t maplen;
};
static unsigned char *guarded(struct guarded *g, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = n / page + 1;
    g->maplen = (pages + 1) * page;
    g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED || mprotect(g->map + pages * page, page, PROT_NONE) != 0) {
        fprintf(stderr, "guard page mapping failed\n");
        exit(2);
    }
    return g->map + pages * page - n;
}
static void unguard(struct guarded *g) { munmap(g->map, g->maplen); }

/* Every buffer a message's calls read or write (key, IV, AAD, input, output, tag, a TLS
 * record) ends at a guard page, for lengths around the block and lane boundaries: sealed
 * out of place, opened in place, the results compared with the default provider's. */
void guard_pages(void)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 112, 113, 127, 128, 129, 255, 256, 257, 1420};
    for (size_t kl = 16; kl <= 32; kl += 16) {
        int k = kidx(kl);
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (size_t aadlen = 0; aadlen <= 13; aadlen += 13) {
                size_t len = lens[li];
                struct guarded gk, gi, ga, gin, gout, gt;
                unsigned char *key = guarded(&gk, kl), *iv = guarded(&gi, 12), *aad = guarded(&ga, aadlen);
                unsigned char *in = guarded(&gin, len), *out = guarded(&gout, len), *tag = guarded(&gt, 16);
                unsigned char *want = malloc(len + 1), wtag[16];
                fill(key, kl), fill(iv, 12), fill(aad, aadlen), fill(in, len);
                struct msg m = {key, iv, aad, in, NULL, kl, 12, aadlen, len, 16, 1, 0, 0, 0};
                int a = run(ours[k], &m, out, tag), b = want ? run(theirs[k], &m, want, wtag) : 0;
                CHECK(a == 1 && b == 1 && memcmp(out, want, len) == 0 && memcmp(tag, wtag, 16) == 0,
                      "guarded seal, key %zu, %zu bytes, AAD %zu", kl, len, aadlen);
                /* open in place: the guarded ciphertext copied into the guarded input
                 * buffer (run() copies it) and opened there, against the tag at its guard */
                unsigned char *plain = malloc(len + 1);
                if (plain)
                    memcpy(plain, in, len);
                struct msg o = {key, iv, aad, out, tag, kl, 12, aadlen, len, 16, 0, 0, 0, 1};
                CHECK(plain && run(ours[k], &o, in, NULL) == 1 && memcmp(in, plain, len) == 0,
                      "guarded open in place, key %zu, %zu bytes, AAD %zu", kl, len, aadlen);
                free(plain);
                free(want);
                unguard(&gk), unguard(&gi), unguard(&ga), unguard(&gin), unguard(&gout), unguard(&gt);
            }
        }
    }
    ERR_clear_error();
}
