/*
 * The floors: what the widest AES and carry-less-multiply instructions of this CPU can do
 * at best, measured in the same run as the GCM rows, so that "how close to the limit" is
 * a ratio of two figures of one run, whatever the machine's clock.
 *
 * AES floor: eight registers of independent blocks (zmm: 32 blocks, ymm: 16, xmm or
 * AArch64 q: 8), each taken through a whole AES encryption of the run's key size (the
 * round-0 XOR, rounds-1 middle rounds, the last round) with one round key for every round:
 * only the AES instructions, from registers, no counter, no load, no store. Eight
 * registers cover the VAES latency (5 cycles on Golden Cove, 4 on Zen 4) at one or two per
 * cycle, so the figure is the AES units' throughput.
 *
 * GHASH floor: the carry-less multiplies a block costs in the backends' Karatsuba
 * (three 64x64 products per 16-byte block), eight independent registers of blocks per
 * pass, each product XORed into one of eight accumulators (so that it is not dead code and
 * no XOR chain is longer than the pass): no reduction, no byte swap, no load.
 *
 * The kernel width is the widest this CPU and OS run: AVX-512 + VAES/VPCLMULQDQ (zmm),
 * VAES/VPCLMULQDQ + AVX2 (ymm), AES-NI/PCLMULQDQ (xmm); AArch64 AESE+AESMC / PMULL(2).
 * Elsewhere there is no floor. Inline assembly throughout: the instructions run whatever
 * the compiler's target flags, after the CPU check.
 */
#include "harness.h"

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

/* Bytes one pass of a kernel covers. */
static size_t pass_bytes;
static const char *kernel_name = NULL;
static void (*aes_pass)(unsigned rounds, size_t passes);
static void (*ghash_pass)(size_t passes);

#if defined(__x86_64__)
/* Blocks in registers 0-7, the round key (or Karatsuba operand) in 8, GHASH products in
 * 9-11 and accumulators in 12-14. */
#define X86_AES_KERNEL(name, reg, tail, ...)                                              \
  static void name(unsigned rounds, size_t passes) {                                       \
    for (size_t p = 0; p < passes; p++) {                                                   \
      __asm__ __volatile__(                                                                 \
          ".irp r,0,1,2,3,4,5,6,7\n\tvpxor %%" reg "\\r, %%" reg "\\r, %%" reg "8\n\t.endr\n\t" \
          "mov %0, %%ecx\n\t"                                                               \
          "1:\n\t.irp r,0,1,2,3,4,5,6,7\n\tvaesenc %%" reg "8, %%" reg "\\r, %%" reg         \
          "\\r\n\t.endr\n\t"                                                                \
          "dec %%ecx\n\tjnz 1b\n\t"                                                         \
          ".irp r,0,1,2,3,4,5,6,7\n\tvaesenclast %%" reg "8, %%" reg "\\r, %%" reg          \
          "\\r\n\t.endr\n\t" tail                                                           \
          :                                                                                 \
          : "r"(rounds - 1)                                                                 \
          : "ecx", "cc", __VA_ARGS__);                                                         \
    }                                                                                       \
  }
#define X86_GHASH_KERNEL(name, reg, tail, ...)                                           \
  static void name(size_t passes) {                                                        \
    for (size_t p = 0; p < passes; p++) {                                                  \
      __asm__ __volatile__(                                                                \
          ".irp r,0,1,2,3,4,5,6,7\n\t"                                                     \
          "vpclmulqdq $0x00, %%" reg "\\r, %%" reg "\\r, %%" reg "9\n\t"                   \
          "vpclmulqdq $0x11, %%" reg "\\r, %%" reg "\\r, %%" reg "10\n\t"                  \
          "vpclmulqdq $0x00, %%" reg "8, %%" reg "\\r, %%" reg "11\n\t"                    \
          "vpxor %%" reg "9, %%" reg "12, %%" reg "12\n\t"                                 \
          "vpxor %%" reg "10, %%" reg "13, %%" reg "13\n\t"                                \
          "vpxor %%" reg "11, %%" reg "14, %%" reg "14\n\t"                                \
          ".endr\n\t" tail                                                                 \
          :                                                                                \
          :                                                                                \
          : __VA_ARGS__);                                                                     \
    }                                                                                      \
  }
#define XMM_CLOBBERS                                                                        \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14"
/* The ymm forms end with vzeroupper (no dirty upper state left to SSE code). */
X86_AES_KERNEL(aes_xmm, "xmm", "", XMM_CLOBBERS)
X86_AES_KERNEL(aes_ymm, "ymm", "vzeroupper\n\t", XMM_CLOBBERS)
X86_GHASH_KERNEL(ghash_xmm, "xmm", "", XMM_CLOBBERS)
X86_GHASH_KERNEL(ghash_ymm, "ymm", "vzeroupper\n\t", XMM_CLOBBERS)
/* zmm: EVEX forms (vpxorq, not vpxor); the upper halves of zmm0-15 are not the compiler's
 * (this file is not built for AVX-512), and vzeroupper after each pass leaves them clean. */
static void aes_zmm(unsigned rounds, size_t passes) {
  for (size_t p = 0; p < passes; p++) {
    __asm__ __volatile__(
        ".irp r,0,1,2,3,4,5,6,7\n\tvpxorq %%zmm\\r, %%zmm8, %%zmm\\r\n\t.endr\n\t"
        "mov %0, %%ecx\n\t"
        "1:\n\t.irp r,0,1,2,3,4,5,6,7\n\tvaesenc %%zmm8, %%zmm\\r, %%zmm\\r\n\t.endr\n\t"
        "dec %%ecx\n\tjnz 1b\n\t"
        ".irp r,0,1,2,3,4,5,6,7\n\tvaesenclast %%zmm8, %%zmm\\r, %%zmm\\r\n\t.endr\n\t"
        "vzeroupper\n\t"
        :
        : "r"(rounds - 1)
        : "ecx", "cc", XMM_CLOBBERS);
  }
}
static void ghash_zmm(size_t passes) {
  for (size_t p = 0; p < passes; p++) {
    __asm__ __volatile__(
        ".irp r,0,1,2,3,4,5,6,7\n\t"
        "vpclmulqdq $0x00, %%zmm\\r, %%zmm\\r, %%zmm9\n\t"
        "vpclmulqdq $0x11, %%zmm\\r, %%zmm\\r, %%zmm10\n\t"
        "vpclmulqdq $0x00, %%zmm8, %%zmm\\r, %%zmm11\n\t"
        "vpxorq %%zmm9, %%zmm12, %%zmm12\n\t"
        "vpxorq %%zmm10, %%zmm13, %%zmm13\n\t"
        "vpxorq %%zmm11, %%zmm14, %%zmm14\n\t"
        ".endr\n\t"
        "vzeroupper\n\t"
        :
        :
        : XMM_CLOBBERS);
  }
}
#endif

#if defined(__aarch64__)
/* AESE + AESMC per middle round (the pair cores fuse), AESE + EOR for the last. */
static void aes_neon(unsigned rounds, size_t passes) {
  for (size_t p = 0; p < passes; p++) {
    __asm__ __volatile__(
        ".arch_extension crypto\n\t"
        "mov w9, %w0\n\t"
        "1:\n\t.irp r,0,1,2,3,4,5,6,7\n\taese v\\r\\().16b, v8.16b\n\taesmc v\\r\\().16b, v\\r\\().16b\n\t"
        ".endr\n\t"
        "subs w9, w9, #1\n\tb.ne 1b\n\t"
        ".irp r,0,1,2,3,4,5,6,7\n\taese v\\r\\().16b, v8.16b\n\teor v\\r\\().16b, v\\r\\().16b, v8.16b\n\t"
        ".endr\n\t"
        :
        : "r"(rounds - 1)
        : "w9", "cc", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8");
  }
}
static void ghash_neon(size_t passes) {
  for (size_t p = 0; p < passes; p++) {
    __asm__ __volatile__(
        ".arch_extension crypto\n\t"
        ".irp r,0,1,2,3,4,5,6,7\n\t"
        "pmull v9.1q, v\\r\\().1d, v8.1d\n\t"
        "pmull2 v10.1q, v\\r\\().2d, v8.2d\n\t"
        "pmull v11.1q, v\\r\\().1d, v16.1d\n\t"
        "eor v12.16b, v12.16b, v9.16b\n\t"
        "eor v13.16b, v13.16b, v10.16b\n\t"
        "eor v14.16b, v14.16b, v11.16b\n\t"
        ".endr\n\t"
        :
        :
        : "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v16");
  }
}
#endif

const char *floor_kernel(void) {
  static int done;
  if (done) return kernel_name;
  done = 1;
#if defined(__x86_64__)
  __builtin_cpu_init();
  int vaes = __builtin_cpu_supports("vaes") && __builtin_cpu_supports("vpclmulqdq");
  if (vaes && __builtin_cpu_supports("avx512f")) {
    kernel_name = "zmm VAESENC / VPCLMULQDQ";
    aes_pass = aes_zmm, ghash_pass = ghash_zmm, pass_bytes = 8 * 64;
  } else if (vaes && __builtin_cpu_supports("avx2")) {
    kernel_name = "ymm VAESENC / VPCLMULQDQ";
    aes_pass = aes_ymm, ghash_pass = ghash_ymm, pass_bytes = 8 * 32;
  } else if (__builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul") &&
             __builtin_cpu_supports("avx")) {
    kernel_name = "xmm VAESENC / VPCLMULQDQ (AVX forms)";
    aes_pass = aes_xmm, ghash_pass = ghash_xmm, pass_bytes = 8 * 16;
  }
#elif defined(__aarch64__)
  unsigned long hw = getauxval(AT_HWCAP);
  if ((hw & (1ul << 3)) && (hw & (1ul << 4))) { /* HWCAP_AES, HWCAP_PMULL */
    kernel_name = "AArch64 AESE+AESMC / PMULL";
    aes_pass = aes_neon, ghash_pass = ghash_neon, pass_bytes = 8 * 16;
  }
#endif
  return kernel_name;
}

struct floor_ctx {
  unsigned rounds; /* 0: GHASH */
};
static void floor_run(void *ctx, uint8_t *buf, size_t len) {
  (void)buf;
  const struct floor_ctx *f = ctx;
  size_t passes = len / pass_bytes;
  if (f->rounds) aes_pass(f->rounds, passes);
  else ghash_pass(passes);
}

struct floor_arg {
  struct floor_ctx f;
};
static double floor_bench(void *v) {
  struct floor_arg *a = v;
  /* 4 KiB to 36 KiB: long enough that the loop's own cost is in the intercept. */
  return slope_sweep(floor_run, &a->f, NULL, 4096, 36864, 4096, opt.repetitions);
}

struct clocked floor_measure(int algo) {
  struct clocked none = {0, 0, 0};
  if (!floor_kernel()) return none;
  struct floor_arg a = {{algo < 0 ? 0 : 10 + 2 * (unsigned)algo}};
  return clocked_run(floor_bench, &a);
}
