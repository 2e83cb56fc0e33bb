/*
 * The caches-disturbed method (the "caches disturbed" row sets, rowsets.c): every timed
 * message runs right after the harness has pushed the implementation out of the caches, so
 * that it finds its expanded key, its state and its code cold, as a packet does after a
 * noisy neighbour or a context switch.
 *
 * The disturbance, before each message: a read of one word per 64-byte line of a data buffer
 * (--cold-mb, default 4 MiB: four times this machine kind's 1 MiB L2, so L1d, L2 and the
 * data TLBs are refilled with it), then a run through a block of code twice the size of L1i
 * (64 KiB: one jump per 64-byte line, x86_64 and AArch64 only; elsewhere the data walk alone
 * reaches L1i only where L2 is inclusive), which also refills the instruction TLB and the
 * branch predictors. The L3 (32 MiB, shared, on this machine kind) loses at most the walk's
 * size: the implementation's lines mostly come back from L3, not from DRAM; a walk larger
 * than the L3 (--cold-mb 64) makes them DRAM-cold. The caller's own buffers (message, IV,
 * AAD) are read again after the walk, so they are warm for every implementation alike.
 *
 * One message per timing, with the clock read on either side (a pair of warm clock reads,
 * measured after the same disturbance, is subtracted), COLD_REPS times the usual repetitions,
 * taken in passes over all sizes as in message_sweep. The figure is the interquartile mean
 * (the mean of the middle half), not the median: one message lasts a few hundred ns and
 * this VM's clock moves in 10 ns steps, which a median keeps and a mean of many timings
 * resolves, while the outer quarters drop the interrupted ones.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE 64
#define CODE_BYTES (64 * 1024)
#define COLD_REPS 4

static uint8_t *data_walk;
static size_t data_bytes;
static void (*code_walk)(void);
static volatile uint64_t walk_sink;

/* The code block: each 64-byte line jumps to the next one, the last returns. */
static void make_code_walk(void) {
#if defined(__x86_64__) || defined(__aarch64__)
  uint8_t *p = mmap(NULL, CODE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  for (size_t off = 0; off < CODE_BYTES; off += LINE) {
    int last = off + LINE == CODE_BYTES;
#if defined(__x86_64__)
    static const uint8_t jmp_next[2] = {0xeb, LINE - 2}, ret[1] = {0xc3}; /* jmp rel8; ret */
    memcpy(p + off, last ? ret : jmp_next, last ? sizeof ret : sizeof jmp_next);
#else
    uint32_t insn = last ? 0xd65f03c0u : 0x14000000u | (LINE / 4); /* ret; b .+64 */
    memcpy(p + off, &insn, sizeof insn);
#endif
  }
  __builtin___clear_cache((char *)p, (char *)p + CODE_BYTES);
  if (mprotect(p, CODE_BYTES, PROT_READ | PROT_EXEC)) {
    munmap(p, CODE_BYTES);
    return;
  }
  *(void **)&code_walk = p; /* dlsym's idiom for an object pointer to a function pointer */
#endif
}

static void setup(void) {
  if (data_walk) return;
  data_bytes = (size_t)(opt.cold_mb * 1024 * 1024) / LINE * LINE;
  if (data_bytes < LINE) data_bytes = LINE;
  data_walk = malloc(data_bytes);
  if (!data_walk) die("caches-disturbed row sets: no %zu-byte buffer", data_bytes);
  memset(data_walk, 1, data_bytes); /* backed by pages of its own, not the zero page */
  make_code_walk();
}

static void touch(const uint8_t *p, size_t len) {
  uint64_t s = 0;
  for (size_t i = 0; i < len; i += LINE) s += p[i];
  if (len) s += p[len - 1];
  walk_sink += s;
}

static void disturb(const uint8_t *buf, size_t len) {
  uint64_t s = 0;
  for (size_t i = 0; i < data_bytes; i += LINE) s += *(const volatile uint64_t *)(data_walk + i);
  walk_sink += s;
  if (code_walk) code_walk();
  touch(buf, len);
  touch(rowset_aad, sizeof rowset_aad);
  touch(bench_nonce, sizeof bench_nonce);
}

const char *cold_description(void) {
  static char text[256];
  setup();
  snprintf(text, sizeof text,
           "before each message: a read walk over %.0f MiB of data%s; the caller's buffers are "
           "read again after it (bench/gcm/cold.c)",
           (double)data_bytes / (1024 * 1024),
           code_walk ? " and a run through 64 KiB of code" : " (no code walk on this target)");
  return text;
}

/* The mean of the middle half of v[0..n) (sorts v). */
static double iq_mean(double *v, int n) {
  median(v, n);
  int lo = n / 4, hi = n - n / 4;
  double s = 0;
  for (int i = lo; i < hi; i++) s += v[i];
  return s / (hi - lo);
}

int cold_repetitions(void) { return COLD_REPS * opt.repetitions; }

void cold_sweep(run_fn run, void *ctx, uint8_t *buf, const size_t *sizes, size_t n, int reps,
                double *ns) {
  setup();
  reps *= COLD_REPS;
  double *tm = calloc(n * (size_t)reps, sizeof *tm), *clock = calloc((size_t)reps, sizeof *clock);
  if (!tm || !clock) abort();
  for (int r = 0; r < reps; r++) {
    disturb(buf, 0);
    double t0 = now_ns();
    clock[r] = now_ns() - t0;
    for (size_t k = 0; k < n; k++) {
      size_t s = r % 2 ? n - 1 - k : k;
      disturb(buf, sizes[s]);
      t0 = now_ns();
      run(ctx, buf, sizes[s]);
      tm[s * (size_t)reps + (size_t)r] = now_ns() - t0;
    }
  }
  double overhead = iq_mean(clock, reps);
  for (size_t s = 0; s < n; s++) ns[s] = iq_mean(tm + s * (size_t)reps, reps) - overhead;
  free(tm);
  free(clock);
}
