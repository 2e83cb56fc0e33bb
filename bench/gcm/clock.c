/*
 * The clock estimate ("auto Mhz"), after libgcrypt's bench-slope method: time a chain of
 * dependent one-cycle integer operations with the same slope sweep as the benchmarks, and
 * take one operation as one cycle. The chain is of register-register adds, not
 * bench-slope's immediates, which Golden Cove-class cores fold at rename (chain.h); the
 * report's clock line cross-checks it with a chain of multiplies and prints the TSC.
 * It is measured before and after each benchmark, and the benchmark is repeated until
 * the two agree (turbo/frequency changes otherwise skew cycles/byte). --cpu-mhz N replaces all of it with a fixed clock.
 */
#include "harness.h"

#include "chain.h"

#include <math.h>

/* The chains (chain.h): CHAIN_OPS dependent register-register operations per unit; the
 * slope over the unit count removes the loop's fixed costs. */
static void add_run(void *ctx, uint8_t *buf, size_t units) {
  (void)ctx;
  (void)buf;
  chain_add_units(units);
}

/* GHz = cycles per ns, taking one add as one cycle. */
static double auto_ghz(void) {
  double ns_per_unit = slope_sweep(add_run, NULL, NULL, 16, 80, 8, 16);
  return ns_per_unit > 0 ? CHAIN_OPS / ns_per_unit : 0;
}

#if CHAIN_HAVE_IMUL
static void imul_run(void *ctx, uint8_t *buf, size_t units) {
  (void)ctx;
  (void)buf;
  chain_imul_units(units);
}
#endif

double tsc_ghz(void) {
  static double ghz = -1;
  if (ghz >= 0) return ghz;
  ghz = 0;
#if defined(__x86_64__)
  /* Ticks over 100 ms of CLOCK_MONOTONIC: both count through the same span, so an
   * interruption changes neither's ratio. */
  double t0 = now_ns(), t;
  uint64_t c0 = chain_tsc();
  while ((t = now_ns()) - t0 < 100e6) {
  }
  ghz = (double)(chain_tsc() - c0) / (t - t0);
#endif
  return ghz;
}

/* The clock line of the report: both chains and the TSC, and a warning when the chains
 * disagree by more than 5% (then neither can be trusted as the core's clock). */
void clock_describe(char *out, size_t n) {
  if (opt.fixed_mhz > 0) {
    snprintf(out, n, "fixed clock %.0f MHz (--cpu-mhz)", opt.fixed_mhz);
    return;
  }
  double add = auto_ghz();
#if CHAIN_HAVE_IMUL
  double ns = slope_sweep(imul_run, NULL, NULL, 16, 80, 8, 16);
  double imul = ns > 0 ? CHAIN_OPS * CHAIN_IMUL_LATENCY / ns : 0;
  double tsc = tsc_ghz();
  int disagree = imul <= 0 || fabs(add / imul - 1) > 0.05;
  snprintf(out, n,
           "clock %.2f GHz (chain of dependent register adds), %.2f GHz by the imul chain%s; "
           "TSC %.3f GHz",
           add, imul, disagree ? " -- WARNING: the two chains disagree, cycles are suspect" : "",
           tsc);
#else
  snprintf(out, n, "clock %.2f GHz (chain of dependent register adds)", add);
#endif
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
