/* The C tests' check: counts into the including program's `int passed, failed` and names
 * the failing line on stderr; CHECK_FAILED(), if the includer defines it, runs after that
 * (the provider's tests print OpenSSL's error queue). (The drop-in transcript tests keep
 * theirs in transcript.h: there a failure is part of the transcript, on stdout; test_cavp.c
 * caps its reports.) */
#ifndef STITCHGCM_CHECK_H
#define STITCHGCM_CHECK_H
#include <stdio.h>

#ifndef CHECK_FAILED
#define CHECK_FAILED() ((void)0)
#endif

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (cond) {                                                                      \
            passed++;                                                                    \
        } else {                                                                         \
            failed++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            CHECK_FAILED();                                                              \
        }                                                                                \
    } while (0)

#endif
