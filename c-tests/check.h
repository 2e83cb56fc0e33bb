/* The C tests' check: counts into the including program's `int passed, failed` and names
 * the failing line on stderr. (The drop-in transcript tests keep theirs in transcript.h:
 * there a failure is part of the transcript, on stdout; test_cavp.c caps its reports.) */
#ifndef STITCHGCM_CHECK_H
#define STITCHGCM_CHECK_H
#include <stdio.h>

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (cond) {                                                                      \
            passed++;                                                                    \
        } else {                                                                         \
            failed++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

#endif
