/*
 * The two timing methods; both give nanoseconds (clock.c turns them into cycles).
 *
 * slope_sweep is libgcrypt's tests/bench-slope method: for buffer sizes lo, lo + step, ...,
 * hi the time of one operation is the median of `reps` timings of a few back-to-back
 * operations (the count calibrated once, as bench-slope does, so that a timing at the
 * smallest size lasts about three single operations), and the result is the least-squares
 * slope of time against size, so fixed costs (setiv, tag, call overhead) fall into the
 * intercept and the slope is the per-byte cost of the bulk loop. By default the repetitions
 * are timed size after size, as bench-slope does; --interleaved takes them in passes over all
 * sizes instead, so a burst of load from other processes lands on all sizes alike instead of
 * tilting the slope -- steadier on a busy machine, but on this VM it reads about 10% slower
 * than bench-slope's order for every implementation (scripts/bench-gcrypt-crosscheck.sh), so
 * it is not the default.
 *
 * message_sweep is the tcrypt-style method (Linux's tcrypt AEAD speed test): fixed message
 * sizes, the time of one whole message at each, the median of `reps` timings taken in
 * passes over all sizes. Small messages are where per-call costs show.
 */
#include "harness.h"

#include <stdlib.h>
#include <time.h>

double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ordinary least squares: slope of y over x. */
static double ls_slope(const double *x, const double *y, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  double d = n * sxx - sx * sx;
  return d != 0 ? (n * sxy - sx * sy) / d : 0;
}

/* Median over `reps` timings of `iters` back-to-back runs, per run, in ns. */
double time_point(run_fn run, void *ctx, uint8_t *buf, size_t len, unsigned iters, int reps,
                  double *scratch) {
  for (int r = 0; r < reps; r++) {
    double t0 = now_ns();
    for (unsigned i = 0; i < iters; i++) run(ctx, buf, len);
    scratch[r] = now_ns() - t0;
  }
  return median(scratch, reps) / iters;
}

/* Calibration as bench-slope does it: grow the loop count until a timing at the smallest
 * size is at least three times the one-iteration time (so the timer's granularity and the
 * clock_gettime cost are small against it). */
static unsigned calibrate(run_fn run, void *ctx, uint8_t *buf, size_t len, int reps,
                          double *scratch) {
  unsigned iters = 1;
  double first = time_point(run, ctx, buf, len, 1, reps, scratch);
  if (first < 1.0) first = 1.0;
  while (iters < (1u << 20) && time_point(run, ctx, buf, len, iters + 1, reps, scratch) *
                                       (iters + 1) < first * 2.9)
    iters++;
  return iters + 1;
}

/* ns per unit of `x` over a sweep of sizes: the bench-slope measurement. */
double slope_sweep(run_fn run, void *ctx, uint8_t *buf, size_t lo, size_t hi, size_t step,
                   int reps) {
  int n = (int)((hi - lo) / step) + 1;
  double *xs = calloc((size_t)n, sizeof *xs), *ys = calloc((size_t)n, sizeof *ys);
  double *scratch = calloc((size_t)reps, sizeof *scratch);
  if (!xs || !ys || !scratch) abort();
  unsigned iters = calibrate(run, ctx, buf, lo, reps, scratch);
  for (int i = 0; i < n; i++) xs[i] = (double)(lo + (size_t)i * step);
  if (opt.sequential) {
    /* bench-slope's order: all repetitions of one size, then the next size. */
    for (int i = 0; i < n; i++)
      ys[i] = time_point(run, ctx, buf, (size_t)xs[i], iters, reps, scratch);
  } else {
    /* Interleaved: each pass times every size once, alternately upwards and downwards.
     * On a quiet machine this gives what bench-slope's order gives; on a shared one a
     * burst of load lands on all sizes alike and shifts the intercept, where bench-slope's
     * order lets it land on a run of neighbouring sizes and tilt the slope. */
    double *t = calloc((size_t)n * (size_t)reps, sizeof *t);
    if (!t) abort();
    for (int r = 0; r < reps; r++)
      for (int k = 0; k < n; k++) {
        int i = r % 2 ? n - 1 - k : k;
        t[(size_t)i * (size_t)reps + (size_t)r] =
            time_point(run, ctx, buf, (size_t)xs[i], iters, 1, scratch);
      }
    for (int i = 0; i < n; i++) ys[i] = median(t + (size_t)i * (size_t)reps, reps);
    free(t);
  }
  double s = ls_slope(xs, ys, n);
  free(xs);
  free(ys);
  free(scratch);
  return s;
}

/* ns per message at each of sizes[0..n): for each size a loop count so that one timing is
 * >= ~20 us (well above clock_gettime's cost and resolution), then the median of the
 * repetitions, taken in passes over all sizes as in slope_sweep's interleaved order. */
void message_sweep(run_fn run, void *ctx, uint8_t *buf, const size_t *sizes, size_t n,
                   int reps, double *ns) {
  double *scratch = calloc((size_t)reps, sizeof *scratch);
  unsigned *iters = calloc(n, sizeof *iters);
  double *tm = calloc(n * (size_t)reps, sizeof *tm);
  if (!scratch || !iters || !tm) abort();
  for (size_t s = 0; s < n; s++) {
    iters[s] = 1;
    for (;;) {
      double t0 = now_ns();
      for (unsigned i = 0; i < iters[s]; i++) run(ctx, buf, sizes[s]);
      if (now_ns() - t0 >= 20000 || iters[s] >= (1u << 24)) break;
      iters[s] *= 2;
    }
  }
  for (int r = 0; r < reps; r++)
    for (size_t s = 0; s < n; s++)
      tm[s * (size_t)reps + (size_t)r] = time_point(run, ctx, buf, sizes[s], iters[s], 1, scratch);
  for (size_t s = 0; s < n; s++) ns[s] = median(tm + s * (size_t)reps, reps);
  free(tm);
  free(iters);
  free(scratch);
}
