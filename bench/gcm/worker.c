/*
 * One worker process per implementation, and the parent's side of its pipe.
 *
 * stitchgcm chooses its backend once per process from STITCHGCM_IMPL, so each backend gets a
 * fresh process with the variable set, and the peers get the same treatment so that no run
 * inherits another's cache/heap state. The worker checks the implementation (check.c), then
 * for each key size times bench-slope's three operations and every row set, and writes raw
 * figures on the pipe, one line each. An implementation with a preload library (the nettle
 * drop-in as deployed, "nettle->stitchgcm") is not run in the fork itself: the fork execs
 * this program again with LD_PRELOAD set and --worker LABEL FD, and that process, whose
 * symbol lookup the preloaded library won, runs the worker for LABEL on the same pipe:
 *   C <fingerprint> <failures> <messages> <version>
 *   S <algo> <mode> <ns/B> <GHz> <GHz before/after difference>
 *   T <row set> <algo> <size index> <ns/message> <GHz>
 * The parent reads them into res[].
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct result res[MAXIMPL];

struct slope_arg {
  const struct impl *p;
  void *ctx;
  int mode;
  uint8_t *buf;
};
static double slope_bench(void *v) {
  struct slope_arg *s = v;
  return slope_sweep(s->p->op[s->mode], s->ctx, s->buf, SLOPE_MIN, SLOPE_MAX, SLOPE_STEP,
                     opt.repetitions);
}

struct rowset_arg {
  struct rowset_runner r;
  uint8_t *buf;
  const struct rowset *rs;
  double ns[MAXSIZES];
};
static double rowset_bench(void *v) {
  struct rowset_arg *t = v;
  (t->rs->cold ? cold_sweep : message_sweep)(t->r.run, t->r.ctx, t->buf, t->rs->sizes,
                                             t->rs->nsizes, opt.repetitions, t->ns);
  return t->ns[t->rs->nsizes - 1] > 0 ? 1 : 0;
}

/* Times row set r for algo a on `handle` (keyed for a) and reports it. */
static void measure_rowset(const struct impl *p, size_t r, int a, void *handle, uint8_t *buf,
                           FILE *out) {
  const struct rowset *rs = &rowsets[r];
  if (rs->nsizes > MAXSIZES) die("row set %zu: raise MAXSIZES", r);
  struct rowset_arg t = {.buf = buf, .rs = rs};
  rowset_runner(rs, p, handle, &t.r);
  struct clocked c = clocked_run(rowset_bench, &t);
  for (size_t s = 0; s < rs->nsizes; s++)
    fprintf(out, "T %zu %d %zu %.6g %.6g\n", r, a, s, t.ns[s], c.ghz);
  fflush(out);
}

static void worker(const struct impl *p, FILE *out) {
  if (p->init) p->init(p);
  int fails, msgs;
  uint64_t fp = run_check(p, &fails, &msgs);
  char ver[64] = "?";
  if (p->version) p->version(ver, sizeof ver);
  fprintf(out, "C %016llx %d %d %s\n", (unsigned long long)fp, fails, msgs, ver);
  fflush(out);

  uint8_t *raw = malloc(8192 + 256), *buf = raw + 128 - ((uintptr_t)raw & 127);
  if (!raw) abort();
  for (size_t i = 0; i < 8192; i++) buf[i] = (uint8_t)(0x55 ^ (0 - i));
  uint8_t key[32 + 4];
  for (size_t i = 0; i < sizeof key; i++) key[i] = (uint8_t)(0x33 ^ (11 - i));
  for (int a = 0; a < NALGO; a++) {
    if (!(opt.algos >> a & 1)) continue;
    void *ctx = p->setup(key, algo_keylen[a]);
    for (int m = 0; m < NMODE && !opt.no_slope; m++) {
      struct slope_arg s = {p, ctx, m, buf};
      struct clocked c = clocked_run(slope_bench, &s);
      fprintf(out, "S %d %d %.6g %.6g %.6g\n", a, m, c.value, c.ghz, c.ghz_diff);
      fflush(out);
    }
    for (size_t r = 0; r < nrowsets && !opt.no_tcrypt; r++) {
      const struct rowset *rs = &rowsets[r];
      if (!(rs->algos >> a & 1) || !rowset_supported(rs, p) || !rowset_selected(rs)) continue;
      if (!rs->salt) {
        measure_rowset(p, r, a, ctx, buf, out);
        continue;
      }
      /* A salted row set keys its own handle (RFC 4106: AES key || salt). */
      void *salted = p->setup(key, algo_keylen[a] + rs->salt);
      measure_rowset(p, r, a, salted, buf, out);
      p->teardown(salted);
    }
    p->teardown(ctx);
  }
  free(raw);
}

/* The preloaded process's side (main.c's --worker LABEL FD). */
void serve_worker(const char *label, int fd) {
  for (int i = 0; i < nimpl; i++) {
    if (strcmp(impls[i].label, label)) continue;
    FILE *out = fdopen(fd, "w");
    if (!out) die("--worker: fd %d: %s", fd, strerror(errno));
    worker(&impls[i], out);
    fclose(out);
    return;
  }
  die("--worker: no implementation %s in this process (was the library preloaded?)", label);
}

/* In the fork: this program again, with the library preloaded (the options as given, so
 * that it measures what the parent asked for). */
static void exec_preloaded(const struct impl *p, int fd) {
  char fdarg[16];
  int n = 0;
  while (bench_argv[n]) n++;
  char **argv = calloc((size_t)n + 4, sizeof *argv);
  if (!argv) _exit(2);
  for (int k = 0; k < n; k++) argv[k] = bench_argv[k];
  snprintf(fdarg, sizeof fdarg, "%d", fd);
  argv[n] = "--worker", argv[n + 1] = (char *)p->label, argv[n + 2] = fdarg;
  if (setenv("LD_PRELOAD", p->preload, 1)) _exit(2);
  execv("/proc/self/exe", argv);
  fprintf(stderr, "bench-gcm: %s: exec with LD_PRELOAD: %s\n", p->label, strerror(errno));
  _exit(2);
}

void run_worker(int i) {
  int fd[2];
  fflush(stdout);
  if (pipe(fd)) die("pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    if (impls[i].preload) exec_preloaded(&impls[i], fd[1]);
    FILE *out = fdopen(fd[1], "w");
    if (!out) _exit(2);
    worker(&impls[i], out);
    fclose(out);
    _exit(0);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  char line[512];
  struct result *r = &res[i];
  while (in && fgets(line, sizeof line, in)) {
    int a, m;
    size_t s, set;
    double x, g, d;
    if (line[0] == 'C')
      sscanf(line, "C %llx %d %d %63s", &r->fp, &r->fails, &r->msgs, r->version);
    else if (sscanf(line, "S %d %d %lf %lf %lf", &a, &m, &x, &g, &d) == 5 && a >= 0 &&
             a < NALGO && m >= 0 && m < NMODE) {
      r->slope[a][m] = x, r->ghz[a][m] = g, r->ghzdiff[a][m] = d, r->have_slope[a][m] = 1;
    } else if (sscanf(line, "T %zu %d %zu %lf %lf", &set, &a, &s, &x, &g) == 5 &&
               set < nrowsets && a >= 0 && a < NALGO && s < rowsets[set].nsizes) {
      r->rs_ns[set][a][s] = x, r->rs_ghz[set][a] = g, r->have_rs[set][a] = 1;
    }
  }
  if (in) fclose(in);
  int st;
  waitpid(pid, &st, 0);
  r->ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (!r->ok) fprintf(stderr, "bench-gcm: %s: worker failed (status %d)\n", impls[i].label, st);
}

/* --rounds: folds this round's figures `r` into `best`, keeping for each figure the round
 * with the fewest cycles (ns times that round's clock estimate). A bench-slope figure comes
 * with its own clock estimate and is copied whole; the sizes of a row set share one, so a
 * better size is stored at the estimate `best` already has, its time scaled to the same
 * cycle count. The checks must pass in every round. */
void keep_best(struct result *best, const struct result *r, int first) {
  if (first) {
    *best = *r;
    return;
  }
  best->ok = best->ok && r->ok;
  best->fails += r->fails;
  best->msgs += r->msgs;
  if (best->fp != r->fp) best->fails++; /* a round that computed something else fails */
  for (int a = 0; a < NALGO; a++) {
    for (int m = 0; m < NMODE; m++) {
      if (!r->have_slope[a][m]) continue;
      if (!best->have_slope[a][m] ||
          r->slope[a][m] * r->ghz[a][m] < best->slope[a][m] * best->ghz[a][m]) {
        best->slope[a][m] = r->slope[a][m], best->ghz[a][m] = r->ghz[a][m];
        best->ghzdiff[a][m] = r->ghzdiff[a][m], best->have_slope[a][m] = 1;
      }
    }
    for (size_t set = 0; set < nrowsets; set++) {
      if (!r->have_rs[set][a]) continue;
      if (!best->have_rs[set][a]) {
        memcpy(best->rs_ns[set][a], r->rs_ns[set][a], sizeof r->rs_ns[set][a]);
        best->rs_ghz[set][a] = r->rs_ghz[set][a], best->have_rs[set][a] = 1;
        continue;
      }
      for (size_t s = 0; s < rowsets[set].nsizes; s++) {
        double c = r->rs_ns[set][a][s] * r->rs_ghz[set][a];
        if (c < best->rs_ns[set][a][s] * best->rs_ghz[set][a])
          best->rs_ns[set][a][s] = c / best->rs_ghz[set][a];
      }
    }
  }
}
