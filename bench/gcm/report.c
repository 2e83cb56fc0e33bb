/*
 * The printed forms of the results: bench-slope's text tables and CSV rows (its own format,
 * byte for byte, so that scripts/bench-gcrypt-crosscheck.sh can read both tools alike), the
 * tcrypt-style tables of every row set with their CSV rows and, with --tcrypt-lines, the
 * same figures as Linux tcrypt's AEAD speed log lines, and the check lines.
 *
 * CSV: bench-slope's "cipher,<algo>,<mode>,<implementation>,,<ns>,ns/B,<MiB/s>,MiB/s,<c/B>,
 * c/B[,<Mhz>,Mhz[,<diff>,Mhz-diff]]" rows with the implementation in its first spare field,
 * then "tcrypt,<algo>,<row set's mode>,<implementation>,<bytes>,<ns>,ns/op,<cycles>,c/op,
 * <c/B>,c/B,<Mhz>,Mhz[,<ticks>,tsc]" rows; the last pair (x86_64) is the message's time in
 * TSC ticks (its ns times the TSC rate measured in this process): a clock that needs no
 * estimate, for comparing runs on machines of one kind.
 */
#include "harness.h"

#include <string.h>

/* bench-slope's number formatting. */
static void fmt_num(char *out, size_t n, double v) {
  snprintf(out, n, v < 1 ? "%.3f" : v < 100 ? "%.2f" : v < 1000 ? "%.1f" : "%.0f", v);
}

/* ns/B, MiB/s, c/B and Mhz of one bench-slope row, formatted. */
static void slope_cells(const struct result *r, int a, int m, char cell[4][32]) {
  double ns = r->slope[a][m], g = r->ghz[a][m];
  fmt_num(cell[0], 32, ns);
  fmt_num(cell[1], 32, ns > 0 ? 1e9 / (ns * 1024 * 1024) : 0);
  fmt_num(cell[2], 32, ns * g);
  fmt_num(cell[3], 32, g * 1000);
}

void print_slope_text(void) {
  for (int i = 0; i < nimpl; i++) {
    if (!res[i].ok) continue;
    printf("Cipher (%s %s):\n", impls[i].label, res[i].version);
    int autom = opt.fixed_mhz <= 0;
    for (int a = 0; a < NALGO; a++) {
      if (!(opt.algos >> a & 1)) continue;
      printf(" %-*s | ", 14, algo_name[a]);
      if (autom)
        printf("%14s %15s %13s %9s\n", "nanosecs/byte", "mebibytes/sec", "cycles/byte", "auto Mhz");
      else
        printf("%14s %15s %13s\n", "nanosecs/byte", "mebibytes/sec", "cycles/byte");
      for (int m = 0; m < NMODE; m++) {
        if (!res[i].have_slope[a][m]) continue;
        char b[4][32], diff[32] = "";
        slope_cells(&res[i], a, m, b);
        if (autom && res[i].ghzdiff[a][m] * 1000 >= 0.5)
          snprintf(diff, sizeof diff, "\xc2\xb1%.0f", res[i].ghzdiff[a][m] * 1000);
        printf(" %*s | ", 14, mode_name[m]);
        if (autom)
          printf("%9s ns/B %9s MiB/s %9s c/B %9s%s\n", b[0], b[1], b[2], b[3], diff);
        else
          printf("%9s ns/B %9s MiB/s %9s c/B\n", b[0], b[1], b[2]);
      }
      printf(" %-*s =\n", 14, "");
    }
  }
}

void print_slope_csv(FILE *f) {
  int autom = opt.fixed_mhz <= 0;
  for (int i = 0; i < nimpl; i++)
    for (int a = 0; a < NALGO; a++)
      for (int m = 0; m < NMODE; m++) {
        if (!res[i].ok || !res[i].have_slope[a][m]) continue;
        char b[4][32], diff[48] = "";
        slope_cells(&res[i], a, m, b);
        if (autom && res[i].ghzdiff[a][m] * 1000 >= 1)
          snprintf(diff, sizeof diff, ",%.0f,Mhz-diff", res[i].ghzdiff[a][m] * 1000);
        if (autom)
          fprintf(f, "cipher,%s,%s,%s,,%s,ns/B,%s,MiB/s,%s,c/B,%s,Mhz%s\n", algo_name[a],
                  mode_name[m], impls[i].label, b[0], b[1], b[2], b[3], diff);
        else
          fprintf(f, "cipher,%s,%s,%s,,%s,ns/B,%s,MiB/s,%s,c/B\n", algo_name[a], mode_name[m],
                  impls[i].label, b[0], b[1], b[2]);
      }
}

struct floors floors;

/* Whole messages of FLOOR_MESSAGE bytes (the tcrypt-style tables' largest) over the AES
 * floor, in cycles: a message's time with its per-call costs (setiv, AAD, tag) against the
 * floor's for as many bytes -- the ratio the x86_64 targets are stated in. Warm row sets
 * only (a cold message measures the caches). */
#define FLOOR_MESSAGE 8192
static void print_message_floor_text(void) {
  int any = 0;
  for (int a = 0; a < NALGO; a++) {
    double floor_cycles = floors.aes[a].value * floors.aes[a].ghz * FLOOR_MESSAGE;
    if (!(opt.algos >> a & 1) || floor_cycles <= 0) continue;
    for (int i = 0; i < nimpl; i++) {
      int shown = 0;
      for (size_t set = 0; set < nrowsets; set++) {
        const struct rowset *rs = &rowsets[set];
        if (rs->cold || !res[i].ok || !res[i].have_rs[set][a]) continue;
        for (size_t z = 0; z < rs->nsizes; z++) {
          double ns = res[i].rs_ns[set][a][z];
          if (rs->sizes[z] != FLOOR_MESSAGE || ns <= 0) continue;
          if (!any++)
            printf("%d-byte messages over the AES floor (tcrypt-style tables: cycles per "
                   "message / the floor's cycles for %d bytes):\n",
                   FLOOR_MESSAGE, FLOOR_MESSAGE);
          if (!shown++) printf(" %-7s %-*s", algo_name[a], label_width(), impls[i].label);
          printf("  %s %.2fx", rs->csv_mode, ns * res[i].rs_ghz[set][a] / floor_cycles);
        }
      }
      if (shown) printf("\n");
    }
  }
  if (any) printf("\n");
}

/* The floors in bench-slope's format, then each implementation's bench-slope rows as
 * multiples of them: GCM enc and dec over the AES floor, GCM auth over the GHASH floor. */
void print_floor_text(void) {
  if (!floors.have) return;
  printf("Floors (bench/gcm/floor.c: %s on independent blocks in registers):\n",
         floor_kernel());
  int autom = opt.fixed_mhz <= 0;
  for (int a = 0; a < NALGO; a++) {
    if (!(opt.algos >> a & 1)) continue;
    printf(" %-*s | %14s %15s %13s%s\n", 14, algo_name[a], "nanosecs/byte", "mebibytes/sec",
           "cycles/byte", autom ? "  auto Mhz" : "");
    const struct clocked *row[2] = {&floors.aes[a], &floors.ghash};
    const char *name[2] = {"AES floor", "GHASH floor"};
    for (int k = 0; k < 2; k++) {
      char b[4][32];
      double ns = row[k]->value, g = row[k]->ghz;
      snprintf(b[0], 32, "%.4f", ns);
      snprintf(b[1], 32, "%.0f", ns > 0 ? 1e9 / (ns * 1024 * 1024) : 0);
      snprintf(b[2], 32, "%.4f", ns * g);
      snprintf(b[3], 32, "%.0f", g * 1000);
      printf(" %*s | %9s ns/B %9s MiB/s %9s c/B", 14, name[k], b[0], b[1], b[2]);
      if (autom) printf(" %9s", b[3]);
      printf("\n");
    }
    printf(" %-*s =\n", 14, "");
  }
  if (!opt.no_slope) {
    printf("bench-slope rows over the floors (GCM enc, dec: ns/B / AES floor; auth: / GHASH "
           "floor):\n");
    for (int a = 0; a < NALGO; a++) {
      if (!(opt.algos >> a & 1) || floors.aes[a].value <= 0 || floors.ghash.value <= 0)
        continue;
      for (int i = 0; i < nimpl; i++) {
        if (!res[i].ok) continue;
        printf(" %-7s %-*s", algo_name[a], label_width(), impls[i].label);
        for (int m = 0; m < NMODE; m++) {
          if (!res[i].have_slope[a][m]) continue;
          double f = m == 2 ? floors.ghash.value : floors.aes[a].value;
          printf("  %s %5.2fx", mode_name[m] + 4, res[i].slope[a][m] / f);
        }
        printf("\n");
      }
    }
    printf("\n");
  }
  print_message_floor_text();
}

/* "floor,<algo>,AES floor|GHASH floor,<kernel>,,<ns>,ns/B,<MiB/s>,MiB/s,<c/B>,c/B,<Mhz>,Mhz" */
void print_floor_csv(FILE *f) {
  if (!floors.have) return;
  for (int a = 0; a < NALGO; a++) {
    if (!(opt.algos >> a & 1)) continue;
    const struct clocked *row[2] = {&floors.aes[a], &floors.ghash};
    const char *name[2] = {"AES floor", "GHASH floor"};
    for (int k = 0; k < 2; k++) {
      double ns = row[k]->value, g = row[k]->ghz;
      fprintf(f, "floor,%s,%s,%s,,%.4f,ns/B,%.0f,MiB/s,%.4f,c/B,%.0f,Mhz\n", algo_name[a],
              name[k], floor_kernel(), ns, ns > 0 ? 1e9 / (ns * 1024 * 1024) : 0, ns * g,
              g * 1000);
    }
  }
}

int label_width(void) {
  int w = 18;
  for (int i = 0; i < nimpl; i++)
    if ((int)strlen(impls[i].label) > w) w = (int)strlen(impls[i].label);
  return w;
}

static size_t key_bits(const struct rowset *rs, int a) { return (algo_keylen[a] + rs->salt) * 8; }
static double cycles(const struct result *r, size_t set, int a, size_t s) {
  return r->rs_ns[set][a][s] * r->rs_ghz[set][a];
}
/* Whether row set `set` gets a table: someone has its call and it shares a key size with
 * --algo. */
static int rowset_printed(size_t set) {
  return (rowsets[set].algos & opt.algos) && rowset_measured_anywhere(&rowsets[set]);
}

static void print_rowset_table(size_t set) {
  const struct rowset *rs = &rowsets[set];
  int w = label_width() + 1;
  if (rs->cold)
    printf("\n%s;\ncycles per operation (cycles per byte in brackets), interquartile mean of %d "
           "timings\n%s\n",
           rs->heading, cold_repetitions(), cold_description());
  else
    printf("\n%s;\ncycles per operation (cycles per byte in brackets), median of %d timings\n",
           rs->heading, opt.repetitions);
  for (int a = 0; a < NALGO; a++) {
    if (!((rs->algos & opt.algos) >> a & 1)) continue;
    printf("\n%3zu bit key  |", key_bits(rs, a));
    for (int i = 0; i < nimpl; i++)
      if (res[i].ok) printf(" %*s", w, impls[i].label);
    printf("\n");
    for (size_t s = 0; s < rs->nsizes; s++) {
      printf("%5zu bytes  |", rs->sizes[s]);
      for (int i = 0; i < nimpl; i++) {
        if (!res[i].ok) continue;
        if (!res[i].have_rs[set][a]) { printf(" %*s", w, "-"); continue; }
        double cyc = cycles(&res[i], set, a, s);
        char cell[48];
        snprintf(cell, sizeof cell, "%.0f (%.2f)", cyc, cyc / (double)rs->sizes[s]);
        printf(" %*s", w, cell);
      }
      printf("\n");
    }
  }
}

/* The same figures in the form of tcrypt's AEAD speed log (mode 211-style lines). */
static void print_rowset_lines(size_t set) {
  const struct rowset *rs = &rowsets[set];
  for (int i = 0; i < nimpl; i++) {
    if (!res[i].ok || !rowset_supported(rs, &impls[i])) continue;
    printf("\ntesting speed of %s (%s) encryption%s\n", rs->tcrypt, impls[i].label,
           rs->lines_tag);
    unsigned n = 0;
    for (int a = 0; a < NALGO; a++) {
      if (!res[i].have_rs[set][a]) continue;
      for (size_t s = 0; s < rs->nsizes; s++)
        printf("test %u (%zu bit key, %zu byte blocks): 1 operation in %.0f cycles (%zu bytes)\n",
               n++, key_bits(rs, a), rs->sizes[s], cycles(&res[i], set, a, s), rs->sizes[s]);
    }
  }
}

/* Every row set's table, then (--tcrypt-lines) their log lines, then a note for each row
 * set that no implementation here can run. */
void print_rowsets_text(void) {
  for (size_t set = 0; set < nrowsets; set++)
    if (rowset_printed(set)) print_rowset_table(set);
  for (size_t set = 0; opt.tcrypt_lines && set < nrowsets; set++)
    if (rowset_printed(set)) print_rowset_lines(set);
  for (size_t set = 0; set < nrowsets; set++)
    if (rowsets[set].absent && rowset_selected(&rowsets[set]) &&
        !rowset_measured_anywhere(&rowsets[set]))
      printf("\n%s\n", rowsets[set].absent);
}

void print_rowsets_csv(FILE *f) {
  for (size_t set = 0; set < nrowsets; set++)
    for (int i = 0; i < nimpl; i++)
      for (int a = 0; a < NALGO; a++) {
        if (!res[i].ok || !res[i].have_rs[set][a]) continue;
        const struct rowset *rs = &rowsets[set];
        for (size_t s = 0; s < rs->nsizes; s++) {
          double ns = res[i].rs_ns[set][a][s], cyc = cycles(&res[i], set, a, s);
          fprintf(f, "tcrypt,%s,%s,%s,%zu,%.1f,ns/op,%.0f,c/op,%.3f,c/B,%.0f,Mhz",
                  algo_name[a], rs->csv_mode, impls[i].label, rs->sizes[s], ns, cyc,
                  cyc / (double)rs->sizes[s], res[i].rs_ghz[set][a] * 1000);
          if (tsc_ghz() > 0) fprintf(f, ",%.0f,tsc", ns * tsc_ghz());
          fprintf(f, "\n");
        }
      }
}

/* Every implementation must give the reference's fingerprint (the first that finished) and
 * pass its known answers and round trips. */
int format_checks(char (*lines)[512]) {
  int bad = 0, ref = -1;
  for (int i = 0; i < nimpl; i++)
    if (res[i].ok && ref < 0) ref = i;
  for (int i = 0; i < nimpl; i++) {
    int same = ref >= 0 && res[i].ok && res[i].fp == res[ref].fp;
    int good = res[i].ok && same && res[i].fails == 0;
    bad |= !good;
    snprintf(lines[i], 512,
             "check %-*.60s %s: %d messages (McGrew-Viega 4/10/16 + sweep%s), fingerprint %016llx %s, %d failures",
             label_width(), impls[i].label, good ? "OK  " : "FAIL", res[i].msgs,
             impls[i].seal_rfc4106 ? " + RFC 4106" : "", res[i].fp,
             same ? (i == ref ? "(reference)" : "= reference") : "DIFFERS", res[i].fails);
  }
  return bad;
}
