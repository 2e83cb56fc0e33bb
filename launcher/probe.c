/*
 * stitchgcm-run's probe (installed as libexecdir/stitchgcm/stitchgcm-probe), run by
 * `stitchgcm-run --check` under the same LD_PRELOAD as the program it checks. It asks the
 * loaded libraries themselves instead of guessing from the CPU:
 *
 *   stitchgcm-probe backends
 *       which backend each drop-in in this process selected: the nettle ABI library
 *       (libstitchgcm.so.0) through its sgcm_impl_name(); the libgcrypt interposer
 *       (libstitchgcm-gcrypt.so) through an AES-GCM handle opened with gcry_cipher_open,
 *       asked with stitchgcm's own ctl command STITCHGCM_CTL_BACKEND, which libgcrypt's
 *       own handles refuse (so the answer also says whether the handle is the
 *       interposer's). Exit 1 if a loaded drop-in cannot serve (STITCHGCM_IMPL names no
 *       backend of this CPU, libgcrypt in FIPS mode, ...).
 *   stitchgcm-probe defines LIBRARY SYMBOL...
 *       prints the SYMBOLs that LIBRARY itself defines (dlsym, then dladdr says where the
 *       definition lives), so that a binding to another library can be told apart.
 *
 * libgcrypt is reached through dlopen/dlsym only, so the probe neither links against it nor
 * needs its headers; the few numbers used are libgcrypt's ABI constants from gcrypt.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCRY_CIPHER_AES128 7
#define GCRY_CIPHER_MODE_GCM 9
#define GCRYCTL_DISABLE_SECMEM 37
#define GCRYCTL_INITIALIZATION_FINISHED 38
#define STITCHGCM_CTL_BACKEND 0x53474301 /* preload/src/lib.rs */

typedef const char *(*str_fn)(void);
typedef const char *(*avail_fn)(size_t);

/* The file that defines the code or data at `p`, or NULL. */
static const char *owner(const void *p) {
  Dl_info info;
  return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : NULL;
}

static int nettle_abi(void) {
  str_fn impl = (str_fn)dlsym(RTLD_DEFAULT, "sgcm_impl_name");
  str_fn version = (str_fn)dlsym(RTLD_DEFAULT, "sgcm_version");
  avail_fn avail = (avail_fn)dlsym(RTLD_DEFAULT, "sgcm_impl_available");
  if (!impl || !version || !avail) {
    printf("nettle ABI  libstitchgcm.so.0 is not loaded\n");
    return 0;
  }
  printf("nettle ABI  %s (stitchgcm %s): ", owner((void *)impl), version());
  const char *name = impl();
  if (name)
    printf("backend %s;", name);
  else
    printf("NO backend (STITCHGCM_IMPL=%s names none this CPU runs);", getenv("STITCHGCM_IMPL"));
  printf(" this CPU runs");
  for (size_t i = 0; avail(i); i++) printf(" %s", avail(i));
  printf("\n");
  return name ? 0 : 1;
}

static int gcrypt_interposer(void) {
  if (!dlopen("libgcrypt.so.20", RTLD_NOW | RTLD_GLOBAL)) {
    printf("libgcrypt   libgcrypt.so.20 is not installed: nothing to interpose\n");
    return 0;
  }
  const char *(*check_version)(const char *) =
      (const char *(*)(const char *))dlsym(RTLD_DEFAULT, "gcry_check_version");
  unsigned (*control)(int, ...) = (unsigned (*)(int, ...))dlsym(RTLD_DEFAULT, "gcry_control");
  unsigned (*cipher_open)(void **, int, int, unsigned) =
      (unsigned (*)(void **, int, int, unsigned))dlsym(RTLD_DEFAULT, "gcry_cipher_open");
  unsigned (*cipher_ctl)(void *, int, void *, size_t) =
      (unsigned (*)(void *, int, void *, size_t))dlsym(RTLD_DEFAULT, "gcry_cipher_ctl");
  void (*cipher_close)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "gcry_cipher_close");
  const char *(*gcry_strerror)(unsigned) = (const char *(*)(unsigned))dlsym(RTLD_DEFAULT, "gcry_strerror");
  if (!check_version || !control || !cipher_open || !cipher_ctl || !cipher_close || !gcry_strerror) {
    printf("libgcrypt   libgcrypt.so.20 lacks the cipher API\n");
    return 1;
  }
  const char *lib_version = check_version(NULL);
  control(GCRYCTL_DISABLE_SECMEM, 0);
  control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  const char *where = owner((void *)cipher_open);
  if (!where || !strstr(where, "libstitchgcm-gcrypt")) {
    printf("libgcrypt   libstitchgcm-gcrypt.so is not loaded (libgcrypt %s serves everything)\n",
           lib_version);
    return 0;
  }
  printf("libgcrypt   %s (libgcrypt %s): ", where, lib_version);
  void *h = NULL;
  unsigned rc = cipher_open(&h, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM, 0);
  if (rc) {
    printf("AES-GCM open refused: %s\n", gcry_strerror(rc));
    return 1;
  }
  char name[64];
  rc = cipher_ctl(h, STITCHGCM_CTL_BACKEND, name, sizeof name);
  cipher_close(h);
  if (rc) {
    printf("AES-GCM handles stay libgcrypt's (%s; FIPS mode?)\n", gcry_strerror(rc));
    return 1;
  }
  printf("AES-GCM handles served, backend %s\n", name);
  return 0;
}

static int defines(const char *lib, char **syms, int n) {
  char want[PATH_MAX], got[PATH_MAX];
  void *h = dlopen(lib, RTLD_LAZY);
  if (!h || !realpath(lib, want)) {
    fprintf(stderr, "stitchgcm-probe: %s: %s\n", lib, h ? "no such file" : dlerror());
    return 1;
  }
  for (int i = 0; i < n; i++) {
    const char *file = owner(dlsym(h, syms[i]));
    if (file && realpath(file, got) && !strcmp(got, want)) printf("%s\n", syms[i]);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "backends")) {
    int bad = nettle_abi();
    bad |= gcrypt_interposer();
    return bad;
  }
  if (argc >= 3 && !strcmp(argv[1], "defines")) return defines(argv[2], argv + 3, argc - 3);
  fprintf(stderr, "usage: %s backends | defines LIBRARY SYMBOL...\n", argv[0]);
  return 2;
}
