/*
 * The clock estimate ("auto Mhz"), libgcrypt's bench-slope method: time a chain of
 * dependent one-cycle integer operations with the same slope sweep as the benchmarks, and
 * take one operation as one cycle. It is measured before and after each benchmark, and the
 * benchmark is repeated until the two agree (turbo/frequency changes otherwise skew
 * cycles/byte). --cpu-mhz N replaces all of it with a fixed clock.
 */
#include "harness.h"

#include <math.h>

/* One unit of the clock chain: 1024 dependent single-cycle integer operations (xor, sub
 * alternating, as in libgcrypt's auto-Mhz). The empty asm makes the value opaque to the
 * compiler after every operation, so nothing folds, and costs no instruction. The loop
 * counter is independent of the chain, so on any core that issues two instructions a cycle
 * the loop overhead hides beside it; the slope over the unit count removes the rest. */
#define CHAIN1 \
  v ^= 1;      \
  __asm__ __volatile__("" : "+r"(v));  \
  v -= 2;      \
  __asm__ __volatile__("" : "+r"(v))
#define CHAIN4 CHAIN1; CHAIN1; CHAIN1; CHAIN1
#define CHAIN16 CHAIN4; CHAIN4; CHAIN4; CHAIN4
#define CHAIN64 CHAIN16; CHAIN16; CHAIN16; CHAIN16
#define CHAIN512 CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64

static volatile unsigned long chain_sink;
static void chain_run(void *ctx, uint8_t *buf, size_t units) {
  (void)ctx;
  (void)buf;
  unsigned long v = units;
  for (size_t u = 0; u < units; u++) {
    CHAIN512; /* 1024 operations */
  }
  chain_sink = v;
}

/* GHz = cycles per ns, taking one chain operation as one cycle. */
static double auto_ghz(void) {
  double ns_per_unit = slope_sweep(chain_run, NULL, NULL, 16, 80, 8, 16);
  return ns_per_unit > 0 ? 1024.0 / ns_per_unit : 0;
}

/* Runs `bench` with the clock measured before and after, until both agree (libgcrypt's
 * target 5e-5, relaxed x2 every 4th try), at most opt.max_tries times. */
struct clocked clocked_run(bench_fn bench, void *arg) {
  struct clocked c = {0, 0, 0};
  if (opt.fixed_mhz > 0) {
    c.value = bench(arg);
    c.ghz = opt.fixed_mhz / 1000;
    return c;
  }
  double target = 5e-5;
  for (int t = 1;; t++) {
    if (t % 4 == 0) target *= 2;
    double before = auto_ghz();
    c.value = bench(arg);
    double after = auto_ghz();
    c.ghz = (before + after) / 2;
    c.ghz_diff = after > 0 ? fabs(1 - before / after) : 1;
    if ((c.value > 0 && c.ghz_diff <= target) || t >= opt.max_tries || opt.quick) break;
  }
  return c;
}
