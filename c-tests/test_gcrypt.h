/* Shared by test_gcrypt.c, test_gcrypt_misuse.c and test_gcrypt_preload.c: the transcript
 * printers (and, from transcript.h, the check counters and a deterministic byte stream). */
#ifndef TEST_GCRYPT_H
#define TEST_GCRYPT_H
#include <gcrypt.h>
#include <string.h>

extern int failures, checks;
#include "transcript.h"

/* "label <hex>", long buffers shortened to 40 bytes and a hash of all of them. */
void hex(const char *label, const uint8_t *p, size_t n);
/* Prints "what -> 0x........" (every call's result goes into the transcript). */
gcry_error_t rc(const char *what, gcry_error_t e);
gcry_cipher_hd_t open_gcm(int algo, unsigned flags);

void misuse(void);
void other_handles(void);
#endif
