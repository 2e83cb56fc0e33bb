/* Shared by test_gcrypt.c and test_gcrypt_misuse.c: the check counters, the transcript
 * printers and a deterministic byte stream. */
#ifndef TEST_GCRYPT_H
#define TEST_GCRYPT_H
#include <gcrypt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int failures, checks;

#define CHECK(cond, ...)                                                                 \
  do {                                                                                   \
    checks++;                                                                            \
    if (!(cond)) {                                                                       \
      failures++;                                                                        \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
      printf(__VA_ARGS__);                                                               \
      printf("\n");                                                                      \
    }                                                                                    \
  } while (0)

uint64_t rnd(void);
void fill(uint8_t *p, size_t n);
/* "label <hex>", long buffers shortened to 40 bytes and a hash of all of them. */
void hex(const char *label, const uint8_t *p, size_t n);
void unhex(const char *s, uint8_t *out, size_t n);
/* Prints "what -> 0x........" (every call's result goes into the transcript). */
gcry_error_t rc(const char *what, gcry_error_t e);
gcry_cipher_hd_t open_gcm(int algo, unsigned flags);

void misuse(void);
void other_handles(void);
#endif
