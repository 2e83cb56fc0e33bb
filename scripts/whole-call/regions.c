/*
 * regions.c - the driver's --regions PATH output, for the footprint report
 * (scripts/footprint/): after each traced call, where the memory that call may touch lies, so
 * that the addresses the footprint tracer records can be sorted into the caller's buffers,
 * the implementation's context, the stack and the rest (scripts/footprint/footprint.py).
 *
 * PATH gets text lines, per window:
 *   window <k>
 *   buf <name> <addr> <len>          the caller's buffers of the call (iv, aad, in, out, tag)
 *                                    and "ctx", the context pointer the call gets (length 0:
 *                                    its heap block; the library's own object or, for some
 *                                    implementations, the harness's struct around it)
 *   range <name> <addr> <len>        context parts whose layout the driver knows (key, state)
 *   dump <name> <addr> <len> <file>  bytes saved right after the call: "stack", the dead
 *                                    stack below the driver's frame (a key expanded on the
 *                                    stack is found there), and "heap", malloc's mapping (its
 *                                    chunks give the context's allocations)
 * and once, at the end, "probe <addr>" (a malloc()ed block: it tells the heap mapping),
 * "tls <addr>" (a thread-local variable: it tells the thread's TLS block), "maps" and the
 * lines of /proc/self/maps (emulated by qemu-user for the guest).
 */
#include "regions.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl.h" /* die() */

#define DEAD_STACK 65536 /* deep enough for every call traced (sgcm_seal: a ~4 KiB key) */

static FILE *out;
static const char *base;
static uint8_t *snap;
static void *probe;
static __thread int tls_probe;

void regions_open(const char *path) {
  base = path;
  out = fopen(path, "w");
  snap = malloc(DEAD_STACK);
  probe = malloc(1);
  if (!out || !snap || !probe) die("--regions %s: cannot write", path);
}

int regions_on(void) { return out != NULL; }

/* The dead stack, copied first thing after the call with as little stack as possible: the
 * frames of the traced call lie below the caller's, and only this function's own frame and
 * memcpy's have been written over since. */
__attribute__((noinline)) static uintptr_t snapshot_stack(void) {
  uintptr_t top = (uintptr_t)__builtin_frame_address(0);
  memcpy(snap, (const void *)(top - DEAD_STACK), DEAD_STACK);
  return top - DEAD_STACK;
}

static void save(size_t window, const char *name, uintptr_t addr, const void *bytes, size_t len) {
  char file[4096];
  snprintf(file, sizeof file, "%s.%zu.%s", base, window, name);
  FILE *f = fopen(file, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) die("%s: cannot write", file);
  fprintf(out, "dump %s %" PRIxPTR " %zu %s\n", name, addr, len, file);
}

/* The mapping of /proc/self/maps that holds `p`. */
static int mapping_of(const void *p, uintptr_t *lo, uintptr_t *hi) {
  FILE *m = fopen("/proc/self/maps", "r");
  char line[1024];
  int found = 0;
  while (m && !found && fgets(line, sizeof line, m)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx", &a, &b) == 2 && (uintptr_t)p >= a && (uintptr_t)p < b)
      *lo = a, *hi = b, found = 1;
  }
  if (m) fclose(m);
  return found;
}

void regions_window(size_t window, const struct region *bufs, size_t nbufs,
                    const struct region *ranges, size_t nranges) {
  uintptr_t stack = snapshot_stack(), lo, hi;
  fprintf(out, "window %zu\n", window);
  for (size_t i = 0; i < nbufs; i++)
    fprintf(out, "buf %s %" PRIxPTR " %zu\n", bufs[i].name, (uintptr_t)bufs[i].addr, bufs[i].len);
  for (size_t i = 0; i < nranges; i++)
    fprintf(out, "range %s %" PRIxPTR " %zu\n", ranges[i].name, (uintptr_t)ranges[i].addr,
            ranges[i].len);
  save(window, "stack", stack, snap, DEAD_STACK);
  if (!mapping_of(probe, &lo, &hi)) die("--regions: no mapping holds the heap");
  save(window, "heap", lo, (const void *)lo, hi - lo);
}

void regions_close(void) {
  if (!out) return;
  FILE *m = fopen("/proc/self/maps", "r");
  char line[1024];
  fprintf(out, "probe %" PRIxPTR "\ntls %" PRIxPTR "\nmaps\n", (uintptr_t)probe,
          (uintptr_t)&tls_probe);
  while (m && fgets(line, sizeof line, m)) fputs(line, out);
  if (m) fclose(m);
  if (fclose(out)) die("--regions: write error");
  out = NULL;
}
