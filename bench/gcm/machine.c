/*
 * What the run says about the machine: the one-line description on top of the tables, the
 * CSV and the chart (date, CPU model, architecture, CPU count, load), and whether it runs
 * under emulation.
 *
 * qemu-user runs a foreign binary on the host's kernel and hides that from it where it can:
 * uname(2) names the guest's machine, and since qemu 8.2 (Debian 13's qemu-user is 10.0)
 * /proc/cpuinfo describes the guest CPU too, for ARM guests among others. Files the kernel
 * writes that qemu does not rewrite still name the host's architecture: /proc/sys/kernel/arch
 * (the kernel's machine name) and /sys/devices/system/cpu/modalias ("cpu:type:x86,..." or
 * "cpu:type:aarch64:..."), and, from qemu before 8.2, /proc/cpuinfo itself. Any of them naming
 * another architecture family than the one this binary was built for means emulated. An armhf
 * binary on an arm64 kernel is native (the same family). No verdict from a file that is
 * missing (a chroot without /sys) or names something else. STITCHGCM_BENCH_EMULATED=1|0 (the
 * test script sets it) forces the verdict either way.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum family { FAMILY_UNKNOWN, FAMILY_X86, FAMILY_ARM };

#if defined(__x86_64__) || defined(__i386__)
static const enum family built_for = FAMILY_X86;
#elif defined(__aarch64__) || defined(__arm__)
static const enum family built_for = FAMILY_ARM;
#else
static const enum family built_for = FAMILY_UNKNOWN;
#endif

static const char *family_name(enum family f) {
  return f == FAMILY_X86 ? "x86" : f == FAMILY_ARM ? "ARM" : "?";
}

/* The family of a kernel machine name (uname -m style) at the start of S. */
static enum family machine_family(const char *s) {
  if (!strncmp(s, "x86", 3) || !strncmp(s, "amd64", 5) ||
      (s[0] == 'i' && s[1] >= '3' && s[1] <= '6' && !strncmp(s + 2, "86", 2)))
    return FAMILY_X86;
  if (!strncmp(s, "aarch64", 7) || !strncmp(s, "arm", 3)) return FAMILY_ARM;
  return FAMILY_UNKNOWN;
}

/* The first line of PATH into BUF (without its newline); 0 if unreadable. */
static int first_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int ok = fgets(buf, (int)n, f) != NULL;
  fclose(f);
  if (ok) buf[strcspn(buf, "\n")] = 0;
  return ok;
}

/* The family /proc/cpuinfo's field names describe (x86's vendor_id/flags, ARM's CPU
   implementer/Features). */
static enum family cpuinfo_family(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return FAMILY_UNKNOWN;
  char line[512];
  int x86 = 0, arm = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "flags", 5)) x86 = 1;
    if (!strncmp(line, "CPU implementer", 15) || !strncmp(line, "Features", 8)) arm = 1;
  }
  fclose(f);
  return x86 && !arm ? FAMILY_X86 : arm && !x86 ? FAMILY_ARM : FAMILY_UNKNOWN;
}

int detect_emulation(char *why, size_t n) {
  const char *e = getenv("STITCHGCM_BENCH_EMULATED");
  if (e && *e) {
    snprintf(why, n, "STITCHGCM_BENCH_EMULATED=%s", e);
    return strcmp(e, "0") != 0;
  }
  if (built_for == FAMILY_UNKNOWN) return 0;
  char buf[512];
  enum family f;
  if (first_line("/proc/sys/kernel/arch", buf, sizeof buf) &&
      (f = machine_family(buf)) != FAMILY_UNKNOWN && f != built_for) {
    snprintf(why, n, "the kernel is %s (/proc/sys/kernel/arch), this binary %s", buf,
             family_name(built_for));
    return 1;
  }
  if (first_line("/sys/devices/system/cpu/modalias", buf, sizeof buf) &&
      !strncmp(buf, "cpu:type:", 9) && (f = machine_family(buf + 9)) != FAMILY_UNKNOWN &&
      f != built_for) {
    snprintf(why, n, "the kernel's CPU is %s (/sys/devices/system/cpu/modalias), this binary %s",
             family_name(f), family_name(built_for));
    return 1;
  }
  if ((f = cpuinfo_family()) != FAMILY_UNKNOWN && f != built_for) {
    snprintf(why, n, "/proc/cpuinfo describes an %s CPU, this binary is %s", family_name(f),
             family_name(built_for));
    return 1;
  }
  return 0;
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
