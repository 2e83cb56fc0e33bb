/* Helpers of the drop-in transcript tests (test_nettle.c, test_gcrypt*.c): the check
 * counters, a deterministic byte stream so that every run prints the same transcript,
 * and hex decoding. The including program defines `int failures, checks`. */
#ifndef STITCHGCM_TRANSCRIPT_H
#define STITCHGCM_TRANSCRIPT_H
#include <stdint.h>
#include <stdio.h>

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

/* xorshift64*, one stream per program (only one file of a program uses it). */
static inline uint64_t rnd(void) {
  static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}
static inline void fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rnd() >> 56);
}

static inline void unhex(const char *s, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) sscanf(s + 2 * i, "%2hhx", &out[i]);
}
#endif
