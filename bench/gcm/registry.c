/*
 * The registry of implementations: the list of families, each registering its
 * implementations in the order they are run and printed (stitchgcm's backends first, then
 * the peers this harness was built with), and the --only filter over the result.
 *
 * A family is one impl-<library>.c file with a register function; a peer's family is built
 * only when its library was found (sources.txt), which defines HAVE_<PEER>.
 */
#include "harness.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <stitchgcm.h>

void stitchgcm_register(void);
void nettle_register(void);
void gcrypt_register(void);
void openssl_register(void);

static void (*const families[])(void) = {
    stitchgcm_register,
#ifdef HAVE_NETTLE
    nettle_register,
#endif
#ifdef HAVE_GCRYPT
    gcrypt_register,
#endif
#ifdef HAVE_OPENSSL
    openssl_register,
#endif
};

const uint8_t bench_nonce[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
volatile unsigned long bench_sink;

struct impl impls[MAXIMPL];
int nimpl;

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench-gcm: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

struct impl *impl_add(const char *label) {
  if (nimpl == MAXIMPL) die("too many implementations");
  struct impl *p = &impls[nimpl++];
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  return p;
}

int impl_preload_rows;

const char *impl_stitchgcm_so(void) {
  Dl_info info;
  return dladdr((void *)&sgcm_strerror, &info) && impl_is_stitchgcm_file(info.dli_fname)
             ? info.dli_fname
             : NULL;
}

int impl_lands_in_stitchgcm(void *fn) {
  Dl_info info;
  return dladdr(fn, &info) && impl_is_stitchgcm_file(info.dli_fname);
}

void impl_discover(void) {
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) families[f]();
  if (opt.only) {
    int k = 0;
    int exact = opt.only[0] == '='; /* "=label": that one only */
    for (int i = 0; i < nimpl; i++)
      if (exact ? !strcmp(impls[i].label, opt.only + 1) : !!strstr(impls[i].label, opt.only))
        impls[k++] = impls[i];
    nimpl = k;
  }
}
