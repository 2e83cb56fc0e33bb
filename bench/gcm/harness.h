/*
 * What the harness's modules share: the options, the algorithms and bench-slope's modes, the
 * implementation registry, the row sets, the results a worker reports, and each module's
 * entry points. The implementations see only impl.h.
 *
 * The flow (main.c): the registry lists the implementations; each runs in its own worker
 * process (worker.c), which checks it (check.c) and times it (timing.c, with the clock of
 * clock.c) and reports raw figures on a pipe; the parent prints them (report.c) and draws
 * the chart (chart.c).
 */
#ifndef BENCH_GCM_HARNESS_H
#define BENCH_GCM_HARNESS_H
#include "impl.h"

#include <stdio.h>

/* bench-slope's algorithm names and key lengths; bit a of a set of algorithms is algo a. */
#define NALGO 3
extern const char *const algo_name[NALGO];
extern const size_t algo_keylen[NALGO];
extern const char *const mode_name[NMODE];

/* bench-slope's buffer sweep (16 ... 4112 step 64). */
#define SLOPE_MIN 16
#define SLOPE_MAX (4096 + 16)
#define SLOPE_STEP 64

extern struct options {
  int csv;
  int repetitions;   /* timings per point; the median is used */
  double fixed_mhz;  /* --cpu-mhz N; 0 = auto */
  int quick;         /* fewer repetitions, no frequency-stability retries */
  int emulated;      /* detected or forced: timings are meaningless */
  int max_tries;     /* frequency-stability retries per benchmark */
  const char *outdir;
  const char *only;  /* run only implementations whose label contains this */
  unsigned algos;    /* bit a: measure algo_name[a] */
  int no_tcrypt;     /* bench-slope tables only */
  int sequential;    /* bench-slope's timing order instead of interleaved passes */
  int tcrypt_lines;  /* also print the tcrypt tables as tcrypt's own log lines */
  int no_slope;      /* tcrypt-style tables only */
  const char *rowsets_only; /* --rowsets: the row sets whose CSV modes are in this list */
  double cold_mb;    /* the data walk of the caches-disturbed row sets (cold.c) */
  int rounds;        /* --rounds: every worker this many times, implementations in turn */
} opt;

/* registry.c */
#define MAXIMPL 16
extern struct impl impls[MAXIMPL];
extern int nimpl;
void impl_discover(void); /* every family, then the --only filter */

/* rowsets.c: the tcrypt-style tables, one row set each. */
enum rowset_call {
  CALL_ENC,          /* op[MODE_ENC]: setiv + encrypt + gettag, no AAD */
  CALL_SEAL,         /* seal(): setiv + AAD + encrypt + gettag through the handle API */
  CALL_SEAL_KEYED,   /* seal_keyed(): the whole message in one call */
  CALL_SEAL_RFC4106, /* seal_rfc4106() on a handle keyed with AES key + salt */
  CALL_SEAL_GNUTLS,  /* seal_gnutls(): nettle's calls as GnuTLS makes them per record */
  CALL_OPEN_GNUTLS,  /* open_gnutls() with a tag that fails (bench-slope's GCM dec does) */
  CALL_OPEN,         /* open_(): setiv + AAD + decrypt + tag check, a tag that fails */
};
#define MAXSIZES 16
struct rowset {
  const char *heading;   /* the table's first line (and what the chart's title says) */
  const char *tcrypt;    /* the algorithm name on --tcrypt-lines' header, e.g. "gcm(aes)" */
  const char *lines_tag; /* appended to that header ("" for tcrypt's own set) */
  const char *csv_mode;  /* the mode field of its CSV rows */
  unsigned algos;        /* the key sizes it measures */
  size_t salt;           /* bytes appended to the AES key (RFC 4106: 4) */
  size_t ivlen, aadlen;  /* the message's IV and AAD (CALL_ENC: 12, none) */
  enum rowset_call call;
  const size_t *sizes;
  size_t nsizes;
  const char *absent; /* printed instead of the table when no implementation has the call */
  int cold;           /* each message after the caches were disturbed (cold.c) */
};
extern const struct rowset rowsets[];
extern const size_t nrowsets;
#define MAXROWSETS 10
int rowset_supported(const struct rowset *rs, const struct impl *p);
int rowset_measured_anywhere(const struct rowset *rs);
int rowset_selected(const struct rowset *rs); /* by --rowsets */
/* The AAD of every row set's messages (the first aadlen bytes). */
extern const uint8_t rowset_aad[16];
/* The function and context that make one message of the row set on a keyed handle. */
struct rowset_runner {
  run_fn run;
  void *ctx;
  struct { seal_fn seal; open_fn open; void *handle; const struct rowset *rs; } bound;
};
void rowset_runner(const struct rowset *rs, const struct impl *p, void *handle,
                   struct rowset_runner *r);

/* timing.c */
double now_ns(void);
double median(double *v, int n);
double time_point(run_fn run, void *ctx, uint8_t *buf, size_t len, unsigned iters, int reps,
                  double *scratch);
double slope_sweep(run_fn run, void *ctx, uint8_t *buf, size_t lo, size_t hi, size_t step,
                   int reps);
void message_sweep(run_fn run, void *ctx, uint8_t *buf, const size_t *sizes, size_t n,
                   int reps, double *ns);

/* cold.c: message_sweep's figures, each message after the caches were disturbed. */
void cold_sweep(run_fn run, void *ctx, uint8_t *buf, const size_t *sizes, size_t n, int reps,
                double *ns);
const char *cold_description(void);
int cold_repetitions(void); /* timings per figure */

/* clock.c */
struct clocked {
  double value, ghz, ghz_diff;
};
typedef double (*bench_fn)(void *arg);
struct clocked clocked_run(bench_fn bench, void *arg);
/* The report's clock line: the add chain, the imul chain (x86_64) and the TSC rate, with
 * a warning when the chains disagree. */
void clock_describe(char *out, size_t n);
/* The TSC's ticks per ns (x86_64; 0 elsewhere), measured once per process. */
double tsc_ghz(void);

/* floor.c: the AES and GHASH floors of this CPU (the widest instructions on independent
 * blocks in registers). floor_kernel() names the kernel, NULL where there is none;
 * floor_measure(a) gives AES's ns/B for algo a, or GHASH's for a = -1, with the clock. */
const char *floor_kernel(void);
struct clocked floor_measure(int algo);
extern struct floors {
  int have;
  struct clocked aes[NALGO], ghash;
} floors;
void print_floor_text(void);
void print_floor_csv(FILE *f);

/* check.c */
uint64_t run_check(const struct impl *p, int *failures, int *messages);

/* worker.c */
struct result {
  int ok; /* the worker finished */
  char version[64];
  unsigned long long fp;
  int fails, msgs;
  double slope[NALGO][NMODE], ghz[NALGO][NMODE], ghzdiff[NALGO][NMODE];
  double rs_ns[MAXROWSETS][NALGO][MAXSIZES], rs_ghz[MAXROWSETS][NALGO];
  int have_slope[NALGO][NMODE], have_rs[MAXROWSETS][NALGO];
};
extern struct result res[MAXIMPL];
void run_worker(int i);
void serve_worker(const char *label, int fd); /* --worker LABEL FD (a preloaded worker) */
extern char **bench_argv;                     /* main's argv, for that exec */
void keep_best(struct result *best, const struct result *r, int first);

/* report.c */
int label_width(void);
void print_slope_text(void);
void print_slope_csv(FILE *f);
void print_rowsets_text(void);
void print_rowsets_csv(FILE *f);
int format_checks(char (*lines)[512]); /* returns whether any implementation failed */

/* chart.c */
void write_svg(const char *path, const char *subtitle, size_t rowset);

/* machine.c */
int detect_emulation(char *why, size_t n);
void describe_machine(char *subtitle, size_t n);

#endif
