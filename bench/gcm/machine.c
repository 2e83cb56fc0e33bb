/*
 * What the run says about the machine: the one-line description on top of the tables, the
 * CSV and the chart (date, CPU model, architecture, CPU count, load), and whether it runs
 * under emulation.
 *
 * qemu-user runs a foreign binary on the host's kernel, so /proc/cpuinfo describes the host,
 * not the architecture this binary was built for (qemu-user fakes it only for a few guests,
 * none of ours). So: built for X but /proc/cpuinfo looks like Y means emulated.
 * STITCHGCM_BENCH_EMULATED=1 (the test script sets it) forces the verdict either way.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int detect_emulation(char *why, size_t n) {
  const char *e = getenv("STITCHGCM_BENCH_EMULATED");
  if (e && *e) {
    snprintf(why, n, "STITCHGCM_BENCH_EMULATED=%s", e);
    return strcmp(e, "0") != 0;
  }
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[512];
  int x86 = 0, arm = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "flags", 5)) x86 = 1;
    if (!strncmp(line, "CPU implementer", 15) || !strncmp(line, "Features", 8)) arm = 1;
  }
  fclose(f);
#if defined(__x86_64__) || defined(__i386__)
  int native = x86 || !arm;
#elif defined(__aarch64__) || defined(__arm__)
  int native = arm || !x86;
#else
  int native = 1;
#endif
  if (!native) snprintf(why, n, "/proc/cpuinfo describes another architecture than this binary's");
  return !native;
}

void describe_machine(char *subtitle, size_t n) {
  struct utsname u;
  uname(&u);
  char cpu[256] = "?";
  {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5)) {
        char *c = strchr(line, ':');
        if (c) {
          snprintf(cpu, sizeof cpu, "%s", c + 2);
          cpu[strcspn(cpu, "\n")] = 0;
        }
        break;
      }
    if (f) fclose(f);
  }
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  double load = 0;
  {
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
      if (fscanf(f, "%lf", &load) != 1) load = 0;
      fclose(f);
    }
  }
  snprintf(subtitle, n, "%s, %s (%s), %ld cpus, load %.2f%s", date, cpu, u.machine,
           sysconf(_SC_NPROCESSORS_ONLN), load,
           opt.emulated ? " -- EMULATED, timings meaningless" : "");
}
