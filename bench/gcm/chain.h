/*
 * The clock chains, shared by bench-gcm (clock.c) and bench/nettle-preload.c: loops of
 * dependent integer operations whose latency is known, so that their time gives the
 * core's clock, and the x86 time-stamp counter beside them.
 *
 * Why not libgcrypt's chain (xor and sub with immediates, which bench-gcm used first):
 * Golden Cove-class cores (Alder Lake, Sapphire Rapids and later) fold an immediate add or
 * sub into the renamer's bookkeeping, so such a chain runs faster than one operation per
 * cycle and the "clock" read about 8 GHz on a 2.6 GHz machine. Here both operands are
 * registers, which no core can fold at rename:
 *   - the add chain: v += w, w a register the compiler cannot see through; one cycle per
 *     add on every x86 and Arm core we know (ADD r64, r64; ADD Xd, Xn, Xm);
 *   - the imul chain (x86_64 only): v *= w, IMUL r64, r64, three cycles on every Intel
 *     core since Sandy Bridge and every AMD core since Zen (Agner Fog's tables; uops.info).
 *     It uses another unit (the multiplier) and another latency, so a core that somehow
 *     shortcut one would not shortcut the other the same way: bench-gcm warns when they
 *     disagree.
 * Each unit is CHAIN_OPS dependent operations; the loop counter is independent of the
 * chain and hides beside it on any core that issues two instructions per cycle.
 */
#ifndef BENCH_GCM_CHAIN_H
#define BENCH_GCM_CHAIN_H
#include <stddef.h>
#include <stdint.h>

#define CHAIN_OPS 1024

#if defined(__x86_64__)
#define CHAIN_ADD1 __asm__ __volatile__("add %1, %0" : "+r"(v) : "r"(w))
#define CHAIN_MUL1 __asm__ __volatile__("imul %1, %0" : "+r"(v) : "r"(w))
#define CHAIN_HAVE_IMUL 1
#define CHAIN_IMUL_LATENCY 3
#else
/* The empty asm makes v opaque after every add, so nothing folds, and costs nothing. */
#define CHAIN_ADD1 \
  v += w;          \
  __asm__ __volatile__("" : "+r"(v))
#define CHAIN_HAVE_IMUL 0
#endif
#define CHAIN_X8(op) op; op; op; op; op; op; op; op
#define CHAIN_X64(op) CHAIN_X8(CHAIN_X8(op))
#define CHAIN_X1024(op) CHAIN_X64(CHAIN_X8(op)); CHAIN_X64(CHAIN_X8(op))

static volatile unsigned long chain_sink_v;

/* `units` times CHAIN_OPS dependent one-cycle adds. */
static inline void chain_add_units(size_t units) {
  unsigned long v = units, w = (unsigned long)0x9e3779b97f4a7c15ull;
  __asm__ __volatile__("" : "+r"(w)); /* w is opaque: no constant folding */
  for (size_t u = 0; u < units; u++) {
    CHAIN_X1024(CHAIN_ADD1);
  }
  chain_sink_v = v;
}

#if CHAIN_HAVE_IMUL
/* `units` times CHAIN_OPS dependent three-cycle multiplies. */
static inline void chain_imul_units(size_t units) {
  unsigned long v = units | 1, w = (unsigned long)0x9e3779b97f4a7c15ull;
  __asm__ __volatile__("" : "+r"(w));
  for (size_t u = 0; u < units; u++) {
    CHAIN_X1024(CHAIN_MUL1);
  }
  chain_sink_v = v;
}
#endif

/* The time-stamp counter (x86 only; 0 elsewhere). On the CPUs this runs on the TSC is
 * invariant ("constant_tsc"): it counts at a fixed rate whatever the core's clock. */
static inline uint64_t chain_tsc(void) {
#if defined(__x86_64__)
  uint32_t lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
#else
  return 0;
#endif
}

#endif
