/*
 * Coverage of the OpenSSL provider's C code for libFuzzer when it is compiled by GCC (the
 * provider target; fuzz/build.rs). GCC's only edge instrumentation,
 * -fsanitize-coverage=trace-pc, calls __sanitizer_cov_trace_pc in every basic block, and
 * libFuzzer refuses that callback (it exits: "no longer supported"). build.rs renames the
 * calls in the provider's objects to stitchgcm_fuzz_trace_pc, defined here: it counts the
 * block's return address, hashed, in libFuzzer's extra-counters section, which libFuzzer
 * reads as coverage features (the "ft:" figure; "cov:" counts the Rust code's PCs only).
 * Compiled without instrumentation. With clang, build.rs uses -fsanitize=fuzzer-no-link
 * instead and this file is not built.
 */
#include <stdint.h>

#define COUNTERS (1u << 14)

__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t counters[COUNTERS];

void stitchgcm_fuzz_trace_pc(void);

void stitchgcm_fuzz_trace_pc(void)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    counters[(pc ^ (pc >> 14)) & (COUNTERS - 1)]++;
}
