/*
 * bench-gcm: AES-GCM speed of stitchgcm (every backend this CPU runs) next to nettle,
 * libgcrypt and OpenSSL, in one run.
 *
 * The first tables reproduce libgcrypt's tests/bench-slope method and format (timing.c,
 * clock.c, report.c) so that their numbers can be put next to a real `bench-slope --cpu-mhz
 * auto cipher aes` run. The operations per message are bench-slope's: "GCM enc" = setiv +
 * in-place encrypt + gettag, "GCM dec" = setiv + in-place decrypt + tag check (fails,
 * ignored), "GCM auth" = setiv + AAD of the buffer + 1 byte of data + gettag. Then come the
 * tcrypt-style tables, in the spirit of Linux's tcrypt AEAD speed test: cycles per message at
 * fixed sizes, one table per row set (rowsets.c: tcrypt's own, TLS records, ...).
 *
 * Every implementation (registry.c; one impl-<library>.c each) runs in a forked worker
 * (worker.c; "nettle->stitchgcm" in this program re-executed with libstitchgcm preloaded,
 * the nettle drop-in as deployed) that checks it (check.c) and times it; the parent prints the tables, a check
 * line per implementation (the same ciphertexts and tags across all of them, and three
 * McGrew-Viega known answers), the CSV and the SVG chart (chart.c).
 *
 * Under emulation (qemu-user; machine.c) the harness still runs -- it is part of the tests
 * there -- but says loudly that the timings are meaningless.
 *
 * This file: the options, and the order of a run.
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const algo_name[NALGO] = {"AES", "AES192", "AES256"}; /* bench-slope's */
const size_t algo_keylen[NALGO] = {16, 24, 32};
const char *const mode_name[NMODE] = {"GCM enc", "GCM dec", "GCM auth"};

struct options opt = {.repetitions = 32, .max_tries = 40, .outdir = ".", .algos = 7,
                      .sequential = 1, .cold_mb = 4};

static void usage(void) {
  puts("usage: bench-gcm [--csv] [--quick] [--repetitions N] [--cpu-mhz auto|N] [--only STR]\n"
       "                 [--out DIR] [--max-tries N] [--algo aes,aes192,aes256] [--no-tcrypt]\n"
       "                 [--interleaved] [--tcrypt-lines] [--no-slope] [--rowsets LIST]\n"
       "                 [--cold-mb N] [--rounds N]\n"
       "  Prints bench-slope tables (GCM enc/dec/auth) and tcrypt-style tables (tcrypt's\n"
       "  sizes; TLS records with 13-byte AAD, also through nettle's API as GnuTLS makes\n"
       "  them, encrypted and decrypted; ESP packets, as plain GCM and as RFC 4106, with\n"
       "  8-byte AAD) for stitchgcm (each backend) and the peers it was built with;\n"
       "  writes DIR/bench-gcm.csv and DIR/bench-gcm.svg (default DIR: .).\n"
       "  --csv prints the CSV on stdout instead of tables.\n"
       "  --interleaved: time the repetitions in passes over all sizes instead of each size's\n"
       "  back to back (bench-slope's order, the default); steadier on a loaded machine, but\n"
       "  reads about 10% slower than bench-slope here.\n"
       "  --tcrypt-lines: also print the tcrypt-style tables as Linux tcrypt's log lines.\n"
       "  --no-slope: no bench-slope tables. --rowsets LIST: only the tcrypt-style tables\n"
       "  whose CSV modes are in the comma-separated LIST (e.g. 'GCM enc aad13 cold').\n"
       "  --cold-mb N: the data walk before each message of the caches-disturbed tables\n"
       "  (default 4 MiB: L1 and L2 evicted; more than the L3 makes them DRAM-cold).\n"
       "  --rounds N: run every implementation's worker N times, the implementations in\n"
       "  turn each round, and report each figure's best round (in cycles): a slow period\n"
       "  of a shared machine then has to cover every round of one implementation to show.\n"
       "  --only STR: the implementations whose label contains STR (=STR: exactly STR).\n"
       "  STITCHGCM_IMPL=<name> narrows stitchgcm to that backend.\n"
       "  nettle->stitchgcm: nettle's calls in a process of this program started with\n"
       "  LD_PRELOAD=libstitchgcm (--worker LABEL FD is that process's internal option).\n"
       "  STITCHGCM_BENCH_EMULATED=1|0 overrides the emulation check.");
}

/* Comma-separated bench-slope names (aes,aes192,aes256) to a set of algorithms; 0 = bad. */
static unsigned parse_algos(const char *arg) {
  char *list = strdup(arg), *save = NULL;
  unsigned set = 0;
  for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = !strcasecmp(t, "aes") || !strcasecmp(t, "aes128") ? 0
            : !strcasecmp(t, "aes192")                       ? 1
            : !strcasecmp(t, "aes256")                       ? 2
                                                             : -1;
    if (k < 0) { set = 0; break; }
    set |= 1u << k;
  }
  free(list);
  return set;
}

char **bench_argv;
/* --worker LABEL FD: this process is a preloaded implementation's worker (worker.c). */
static const char *worker_label;
static int worker_fd = -1;

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--worker") && i + 2 < argc) {
      worker_label = argv[++i];
      worker_fd = atoi(argv[++i]);
    } else if (!strcmp(a, "--csv")) opt.csv = 1;
    else if (!strcmp(a, "--quick")) opt.quick = 1;
    else if (!strcmp(a, "--repetitions") && i + 1 < argc) opt.repetitions = atoi(argv[++i]);
    else if (!strcmp(a, "--max-tries") && i + 1 < argc) opt.max_tries = atoi(argv[++i]);
    else if (!strcmp(a, "--cpu-mhz") && i + 1 < argc) {
      const char *v = argv[++i];
      opt.fixed_mhz = strcmp(v, "auto") ? atof(v) : 0;
    } else if (!strcmp(a, "--only") && i + 1 < argc) opt.only = argv[++i];
    else if (!strcmp(a, "--out") && i + 1 < argc) opt.outdir = argv[++i];
    else if (!strcmp(a, "--no-tcrypt")) opt.no_tcrypt = 1;
    else if (!strcmp(a, "--sequential")) opt.sequential = 1;
    else if (!strcmp(a, "--interleaved")) opt.sequential = 0;
    else if (!strcmp(a, "--tcrypt-lines")) opt.tcrypt_lines = 1;
    else if (!strcmp(a, "--no-slope")) opt.no_slope = 1;
    else if (!strcmp(a, "--rowsets") && i + 1 < argc) opt.rowsets_only = argv[++i];
    else if (!strcmp(a, "--cold-mb") && i + 1 < argc) opt.cold_mb = atof(argv[++i]);
    else if (!strcmp(a, "--rounds") && i + 1 < argc) opt.rounds = atoi(argv[++i]);
    else if (!strcmp(a, "--algo") && i + 1 < argc) {
      if (!(opt.algos = parse_algos(argv[++i]))) { usage(); return 2; }
    }
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); return 0; }
    else { usage(); return 2; }
  }
  if (opt.repetitions < 1) opt.repetitions = 1;
  if (opt.max_tries < 1) opt.max_tries = 1;
  if (opt.rounds < 1) opt.rounds = 1;
  return -1;
}

/* The floors (floor.c), before the implementations; not under emulation. With --rounds,
 * again before every round, each kept at its best round in cycles as the implementations'
 * figures are, so that a ratio to a floor compares two best rounds. */
static void keep_lower(struct clocked *best, struct clocked c, int first) {
  if (first || (c.value > 0 && c.value * c.ghz < best->value * best->ghz)) *best = c;
}
static void measure_floors(int first) {
  if (opt.emulated || !floor_kernel()) return;
  if (!opt.csv) fprintf(stderr, "  measuring the floors (%s) ...\n", floor_kernel());
  for (int a = 0; a < NALGO; a++)
    if (opt.algos >> a & 1) keep_lower(&floors.aes[a], floor_measure(a), first);
  keep_lower(&floors.ghash, floor_measure(-1), first);
  floors.have = 1;
}

int main(int argc, char **argv) {
  bench_argv = argv;
  int status = parse_options(argc, argv);
  if (status >= 0) return status;

  char why[160] = "";
  opt.emulated = detect_emulation(why, sizeof why);
  if (opt.quick && opt.repetitions > 4) opt.repetitions = 4;
  /* Emulated timings mean nothing: spend as little as libgcrypt's regression-test mode. */
  if (opt.emulated) {
    opt.quick = 1;
    if (opt.repetitions > 2) opt.repetitions = 2;
  }

  /* Rows with libstitchgcm preloaded re-exec this program, which qemu-user cannot do
   * without binfmt_misc; emulated timings mean nothing anyway. */
  impl_preload_rows = !opt.emulated;
  impl_discover();
  if (worker_label) {
    serve_worker(worker_label, worker_fd);
    return 0;
  }
  if (nimpl == 0) die("nothing to benchmark");

  char subtitle[512], clockline[256];
  describe_machine(subtitle, sizeof subtitle);
  clock_describe(clockline, sizeof clockline);
  const char *banner =
      "*** EMULATED (qemu-user): every timing in this run is the emulator's, meaningless for "
      "the hardware; the run only checks that the harness works and the implementations "
      "agree. ***\n";
  if (!opt.csv) {
    printf("bench-gcm: %s\n", subtitle);
    if (opt.emulated) printf("%s(%s)\n", banner, why);
    printf("%s\n", clockline);
    printf("implementations:");
    for (int i = 0; i < nimpl; i++) printf(" %s", impls[i].label);
    printf("\nrepetitions %d, %s", opt.repetitions,
           opt.fixed_mhz > 0 ? "fixed Mhz" : "auto Mhz (dependent-chain clock estimate)");
    if (opt.rounds > 1 && !opt.emulated)
      printf("; %d rounds, implementations in turn, each figure its best round", opt.rounds);
    printf("\n\n");
  }

  /* bench-slope warms the CPU up for a second before anything is timed. */
  {
    double t0 = now_ns();
    while (now_ns() - t0 < (opt.quick ? 0.1e9 : 1e9)) {
    }
  }

  if (opt.emulated) opt.rounds = 1;
  static struct result best[MAXIMPL];
  for (int round = 0; round < opt.rounds; round++) {
    measure_floors(round == 0);
    for (int i = 0; i < nimpl; i++) {
      fflush(stdout);
      if (!opt.csv) {
        if (opt.rounds > 1)
          fprintf(stderr, "  measuring %s (round %d of %d) ...\n", impls[i].label, round + 1,
                  opt.rounds);
        else
          fprintf(stderr, "  measuring %s ...\n", impls[i].label);
      }
      run_worker(i);
      if (opt.rounds > 1) keep_best(&best[i], &res[i], round == 0);
    }
  }
  if (opt.rounds > 1) memcpy(res, best, sizeof res);

  char checks[MAXIMPL][512];
  int bad = format_checks(checks);

  char csvpath[1024], svgpath[1024];
  snprintf(csvpath, sizeof csvpath, "%s/bench-gcm.csv", opt.outdir);
  snprintf(svgpath, sizeof svgpath, "%s/bench-gcm.svg", opt.outdir);
  FILE *cf = fopen(csvpath, "w");
  if (cf) {
    fprintf(cf, "# bench-gcm %s%s\n# %s\n", subtitle, opt.emulated ? " (EMULATED)" : "",
            clockline);
    print_floor_csv(cf);
    print_slope_csv(cf);
    print_rowsets_csv(cf);
    fclose(cf);
  } else {
    fprintf(stderr, "bench-gcm: %s: %s\n", csvpath, strerror(errno));
  }
  int chart = !opt.no_tcrypt && rowset_selected(&rowsets[0]);
  if (chart) write_svg(svgpath, subtitle, 0);

  if (opt.csv) {
    if (opt.emulated) printf("# EMULATED: timings meaningless\n");
    printf("# %s\n", clockline);
    print_floor_csv(stdout);
    print_slope_csv(stdout);
    print_rowsets_csv(stdout);
    for (int i = 0; i < nimpl; i++) printf("# %s\n", checks[i]);
  } else {
    if (!opt.no_slope) print_slope_text();
    print_floor_text();
    if (!opt.no_tcrypt) print_rowsets_text();
    printf("\n");
    for (int i = 0; i < nimpl; i++) printf("%s\n", checks[i]);
    if (!chart) printf("\nwrote %s\n", csvpath);
    else printf("\nwrote %s and %s\n", csvpath, svgpath);
    if (opt.emulated) printf("%s", banner);
  }
  return bad ? 1 : 0;
}
