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
 *   stitchgcm-probe openssl-conf
 *       the configuration file libcrypto would read (CONF_get1_default_config_file:
 *       $OPENSSL_CONF, else OPENSSLDIR/openssl.cnf), which `stitchgcm-run --openssl`
 *       includes in its own.
 *   stitchgcm-probe openssl
 *       which provider an implicit fetch of AES-128-GCM gets in this process's configuration
 *       (what EVP_aes_128_gcm() users get), the module file it lives in (dladdr of its
 *       dispatch table), its build info (stitchgcm's: the backend), and a known answer
 *       through it. Exit 1 unless the stitchgcm provider serves it and the answer is right.
 *
 * libgcrypt and libcrypto are reached through dlopen/dlsym only, so the probe neither links
 * against them nor needs their headers; the few numbers and the OSSL_PARAM layout used are
 * their ABI constants (gcrypt.h; OpenSSL 3's core.h, evp.h, crypto.h).
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
#define OPENSSL_VERSION_STRING 6
#define OPENSSL_INIT_LOAD_CONFIG 0x40L
#define EVP_CTRL_AEAD_GET_TAG 0x10
#define OSSL_PARAM_UTF8_PTR 6

/* OpenSSL 3's OSSL_PARAM (core.h), a stable ABI. */
typedef struct {
  const char *key;
  unsigned int data_type;
  void *data;
  size_t data_size;
  size_t return_size;
} ossl_param;

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

static void *libcrypto(void) {
  return dlopen("libcrypto.so.3", RTLD_NOW | RTLD_GLOBAL);
}

static int openssl_conf(void) {
  void *h = libcrypto();
  char *(*default_file)(void) = h ? (char *(*)(void))dlsym(h, "CONF_get1_default_config_file") : NULL;
  char *file = default_file ? default_file() : NULL;
  if (!file) return 1;
  printf("%s\n", file);
  return 0;
}

/* McGrew-Viega test case 2: AES-128, zero key and 12-byte IV, one zero block. */
static const unsigned char kat_ct[16] = {0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
                                         0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78};
static const unsigned char kat_tag[16] = {0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
                                          0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};

static int openssl_fetch(void) {
  void *h = libcrypto();
  if (!h) {
    printf("OpenSSL     libcrypto.so.3 is not installed\n");
    return 1;
  }
#define SYM(ret, name, args) ret(*name) args = (ret(*) args)dlsym(h, #name)
  SYM(const char *, OpenSSL_version, (int));
  SYM(int, OPENSSL_init_crypto, (unsigned long long, const void *));
  SYM(unsigned long, ERR_get_error, (void));
  SYM(void, ERR_error_string_n, (unsigned long, char *, size_t));
  SYM(void *, EVP_CIPHER_fetch, (void *, const char *, const char *));
  SYM(const void *, EVP_CIPHER_get0_provider, (const void *));
  SYM(const char *, OSSL_PROVIDER_get0_name, (const void *));
  SYM(const void *, OSSL_PROVIDER_get0_dispatch, (const void *));
  SYM(int, OSSL_PROVIDER_get_params, (const void *, ossl_param *));
  SYM(void *, EVP_CIPHER_CTX_new, (void));
  SYM(void, EVP_CIPHER_CTX_free, (void *));
  SYM(int, EVP_CipherInit_ex,
      (void *, const void *, void *, const unsigned char *, const unsigned char *, int));
  SYM(int, EVP_CipherUpdate, (void *, unsigned char *, int *, const unsigned char *, int));
  SYM(int, EVP_CipherFinal_ex, (void *, unsigned char *, int *));
  SYM(int, EVP_CIPHER_CTX_ctrl, (void *, int, int, void *));
#undef SYM
  if (!OpenSSL_version || !OPENSSL_init_crypto || !ERR_get_error || !ERR_error_string_n ||
      !EVP_CIPHER_fetch || !EVP_CIPHER_get0_provider || !OSSL_PROVIDER_get0_name ||
      !OSSL_PROVIDER_get0_dispatch || !OSSL_PROVIDER_get_params || !EVP_CIPHER_CTX_new ||
      !EVP_CIPHER_CTX_free || !EVP_CipherInit_ex || !EVP_CipherUpdate || !EVP_CipherFinal_ex ||
      !EVP_CIPHER_CTX_ctrl) {
    printf("OpenSSL     libcrypto.so.3 lacks the OpenSSL 3 API\n");
    return 1;
  }
  printf("OpenSSL     %s (OpenSSL %s): ", owner((void *)OpenSSL_version),
         OpenSSL_version(OPENSSL_VERSION_STRING));
  /* The configuration (OPENSSL_CONF) is read here, as a program's first OpenSSL call would;
   * a provider that refuses to load shows up as the first error on the queue. */
  int init = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL);
  char err[256] = "";
  unsigned long e = ERR_get_error();
  if (e) ERR_error_string_n(e, err, sizeof err);
  void *cipher = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
  const void *prov = cipher ? EVP_CIPHER_get0_provider(cipher) : NULL;
  const char *name = prov ? OSSL_PROVIDER_get0_name(prov) : NULL;
  if (!name) {
    printf("AES-128-GCM cannot be fetched%s%s\n", *err ? ": " : "", err);
    return 1;
  }
  printf("AES-128-GCM from provider %s", name);
  int ours = !strcmp(name, "stitchgcm");
  if (ours) {
    const char *info = NULL;
    ossl_param params[2] = {{"buildinfo", OSSL_PARAM_UTF8_PTR, &info, sizeof info, (size_t)-1},
                            {NULL, 0, NULL, 0, 0}};
    const char *file = owner(OSSL_PROVIDER_get0_dispatch(prov));
    printf(" (%s", file ? file : "?");
    if (OSSL_PROVIDER_get_params(prov, params) && info) printf(", backend %s", info);
    printf(")");
  }
  unsigned char zero[16] = {0}, ct[32], tag[16];
  int n = 0, m = 0;
  void *ctx = EVP_CIPHER_CTX_new();
  int right = ctx && EVP_CipherInit_ex(ctx, cipher, NULL, zero, zero, 1) &&
              EVP_CipherUpdate(ctx, ct, &n, zero, 16) && EVP_CipherFinal_ex(ctx, ct + n, &m) &&
              n + m == 16 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) &&
              !memcmp(ct, kat_ct, 16) && !memcmp(tag, kat_tag, 16);
  EVP_CIPHER_CTX_free(ctx);
  printf(", known answer %s", right ? "right" : "WRONG");
  if (!ours) printf("; stitchgcm's is not active%s%s", *err ? ": " : (init ? "" : ": configuration not loaded"), err);
  printf("\n");
  return ours && right ? 0 : 1;
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
  if (argc == 2 && !strcmp(argv[1], "openssl-conf")) return openssl_conf();
  if (argc == 2 && !strcmp(argv[1], "openssl")) return openssl_fetch();
  fprintf(stderr, "usage: %s backends | defines LIBRARY SYMBOL... | openssl-conf | openssl\n", argv[0]);
  return 2;
}
