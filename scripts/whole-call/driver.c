/*
 * driver.c - the program the whole-call model traces (scripts/model-arm.sh --whole-call).
 * Linked with one implementation's glue (glue-*.c), it seals messages through each of the
 * glue's entries and brackets exactly one warm call per (entry, key size, message size)
 * with the trace plugin's marker instructions (trace-plugin.c). Before each marked call the
 * same call runs a few times on the same context and buffers, so lazy binding, first-use
 * initialisation and cold branch paths are out of the window.
 *
 * usage: driver [--entries A,B] [--keys 128,256] [--sizes 16,64] [--iv 12] [--aad 13]
 *               [--warm 3]
 * stdout, one line per window, in window order:
 *   window <k> <entry> <keybits> <ivlen> <aadlen> <bytes> <tag hex>
 * plus "version <text>" and "unavailable <entry> <keybits>" lines. The tag lets the caller
 * check that every implementation computed the same (right) thing in the traced call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whole-call.h"

/* Markers: HINT #0x6a (start) and #0x6b (stop), NOPs on every ARM core; see trace-plugin.c. */
#if defined(__aarch64__)
#define WC_MARK(h) __asm__ volatile("hint #0x" h ::: "memory")
#elif defined(__thumb__)
#define WC_MARK(h) __asm__ volatile(".inst.w 0xf3af80" h ::: "memory")
#elif defined(__arm__)
#define WC_MARK(h) __asm__ volatile(".inst 0xe320f0" h ::: "memory")
#else
#define WC_MARK(h) ((void)0) /* a host build: runs, records nothing */
#endif

#define MAXLIST 32

void wc_die(const char *what) {
  fprintf(stderr, "whole-call driver: %s failed\n", what);
  exit(1);
}

static size_t parse_list(const char *s, size_t *v) {
  size_t n = 0;
  while (*s && n < MAXLIST) {
    char *end;
    v[n++] = strtoul(s, &end, 10);
    if (end == s) wc_die("parsing a number list");
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  if (!list) return 1;
  while ((p = strstr(p, name))) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    p += n;
  }
  return 0;
}

static void *xalloc(size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (!p) wc_die("allocation");
  return p;
}

int main(int argc, char **argv) {
  const char *entries = NULL;
  size_t keys[MAXLIST] = {128, 256}, nkeys = 2;
  size_t sizes[MAXLIST] = {16, 64, 256, 1420, 8192}, nsizes = 5;
  size_t ivlen = 12, aadlen = 13, warm = 3, maxlen = 0, window = 0;
  size_t i, e, k, s;
  uint8_t key[32], iv[64], aad[256], tag[16], *in, *out;

  for (i = 1; i < (size_t)argc; i++) {
    const char *a = argv[i], *v = i + 1 < (size_t)argc ? argv[i + 1] : NULL;
    if (!v) wc_die("argument list (option without value)");
    if (!strcmp(a, "--entries")) entries = v;
    else if (!strcmp(a, "--keys")) nkeys = parse_list(v, keys);
    else if (!strcmp(a, "--sizes")) nsizes = parse_list(v, sizes);
    else if (!strcmp(a, "--iv")) ivlen = strtoul(v, NULL, 10);
    else if (!strcmp(a, "--aad")) aadlen = strtoul(v, NULL, 10);
    else if (!strcmp(a, "--warm")) warm = strtoul(v, NULL, 10);
    else wc_die("argument list (unknown option)");
    i++;
  }
  if (ivlen > sizeof iv || aadlen > sizeof aad) wc_die("argument list (iv/aad too long)");
  for (s = 0; s < nsizes; s++)
    if (sizes[s] > maxlen) maxlen = sizes[s];
  in = xalloc(maxlen + 1);
  out = xalloc(maxlen + 1);
  /* fixed, unremarkable inputs: every implementation sees the same bytes */
  for (i = 0; i < sizeof key; i++) key[i] = (uint8_t)(i * 7 + 1);
  for (i = 0; i < sizeof iv; i++) iv[i] = (uint8_t)(0xc0 + i);
  for (i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)(i * 3 + 5);
  for (i = 0; i < maxlen; i++) in[i] = (uint8_t)(i * 11 + 2);

  printf("version %s\n", wc_version());
  for (e = 0; e < wc_nentries; e++) {
    const struct wc_entry *en = &wc_entries[e];
    if (!listed(entries, en->name)) continue;
    for (k = 0; k < nkeys; k++) {
      void *ctx = en->setup(key, keys[k] / 8);
      if (!ctx) {
        printf("unavailable %s %zu\n", en->name, keys[k]);
        continue;
      }
      for (s = 0; s < nsizes; s++) {
        struct wc_msg m = {key, iv, aad, in, keys[k] / 8, ivlen, aadlen, sizes[s], out, tag};
        for (i = 0; i < warm; i++) en->seal(ctx, &m);
        WC_MARK("6a");
        en->seal(ctx, &m);
        WC_MARK("6b");
        printf("window %zu %s %zu %zu %zu %zu ", ++window, en->name, keys[k], ivlen, aadlen,
               sizes[s]);
        for (i = 0; i < 16; i++) printf("%02x", tag[i]);
        printf("\n");
      }
    }
  }
  return 0;
}
