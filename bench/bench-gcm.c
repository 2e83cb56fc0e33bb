/*
 * bench-gcm: AES-GCM speed of stitchgcm (every backend this CPU runs) next to nettle,
 * libgcrypt and OpenSSL, in one run.
 *
 * Method. The first table reproduces libgcrypt's tests/bench-slope method so that its numbers
 * can be put next to a real `bench-slope --cpu-mhz auto cipher aes` run: for buffer sizes 16,
 * 80, ..., 4112 bytes the time of one operation is the median of R repeated timings of a few
 * back-to-back operations (the count calibrated once, as bench-slope does, so that a timing
 * at the smallest size lasts about three single operations), and the result is the
 * least-squares slope of time against size, so fixed costs (setiv, tag, call overhead) fall
 * into the intercept and the slope is the per-byte cost of the bulk loop. By default the
 * repetitions are timed size after size, as bench-slope does; --interleaved takes them in
 * passes over all sizes instead, so a burst of load from other processes lands on all sizes
 * alike instead of tilting the slope (see slope_sweep) -- steadier on a busy machine, but on
 * this VM it reads about 10% slower than bench-slope's order for every implementation
 * (scripts/bench-gcrypt-crosscheck.sh), so it is not the default. The clock ("auto Mhz") is
 * measured the same way on a chain of
 * dependent one-cycle integer operations, before and after each benchmark; the benchmark is
 * repeated until the two agree (turbo/frequency changes otherwise skew cycles/byte). The
 * operations per message are bench-slope's: "GCM enc" = setiv + in-place encrypt + gettag,
 * "GCM dec" = setiv + in-place decrypt + tag check (fails, ignored), "GCM auth" = setiv + AAD
 * of the buffer + 1 byte of data + gettag.
 *
 * The second table is in the spirit of Linux's tcrypt AEAD speed test: fixed message sizes,
 * one setiv + encrypt + gettag per message, cycles per operation (median of repeated
 * timings, cycles from the auto-Mhz clock). Small messages are where per-call costs show.
 *
 * Every implementation runs in a forked child: stitchgcm chooses its backend once per
 * process from STITCHGCM_IMPL, so each backend gets a fresh process with the variable set,
 * and the peers get the same treatment so that no run inherits another's cache/heap state.
 * Children report raw figures on a pipe; the parent prints the tables, a check line per
 * implementation (the same ciphertexts and tags across all of them, and three McGrew-Viega
 * known answers), the CSV and the SVG chart.
 *
 * Under emulation (qemu-user) the harness still runs -- it is part of the tests there -- but
 * says loudly that the timings are meaningless.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stitchgcm.h>

#ifdef HAVE_NETTLE
#include <dlfcn.h>
#include <nettle/gcm.h>
#include <nettle/memops.h>
#include <nettle/version.h>
#endif
#ifdef HAVE_GCRYPT
#include <gcrypt.h>
#endif
#ifdef HAVE_OPENSSL
#include <openssl/crypto.h>
#include <openssl/evp.h>
#endif

/* ------------------------------------------------------------------ options, constants */

#define NALGO 3
#define NMODE 3
static const char *const algo_name[NALGO] = {"AES", "AES192", "AES256"}; /* bench-slope's */
static const size_t algo_keylen[NALGO] = {16, 24, 32};
static const char *const mode_name[NMODE] = {"GCM enc", "GCM dec", "GCM auth"};

/* bench-slope's buffer sweep (16 ... 4112 step 64). */
#define SLOPE_MIN 16
#define SLOPE_MAX (4096 + 16)
#define SLOPE_STEP 64

/* tcrypt's AEAD speed sizes (crypto/tcrypt.h aead_sizes) up to 8 KiB; 1420 is an IPsec MTU. */
static const size_t tc_sizes[] = {16, 64, 256, 512, 1024, 1420, 2048, 4096, 8192};
#define NTC (sizeof tc_sizes / sizeof tc_sizes[0])

static const uint8_t nonce[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                                  0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};

static struct {
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
  int tcrypt_lines;  /* also print the tcrypt table as tcrypt's own log lines */
} opt = {0, 32, 0, 0, 0, 40, ".", NULL, 7, 0, 1, 0};

/* ------------------------------------------------------------------ timing */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ordinary least squares: slope of y over x. */
static double ls_slope(const double *x, const double *y, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  double d = n * sxx - sx * sx;
  return d != 0 ? (n * sxy - sx * sy) / d : 0;
}

/* A benchmarked operation: run(ctx, buf, len). */
typedef void (*run_fn)(void *ctx, uint8_t *buf, size_t len);

/* Median over `reps` timings of `iters` back-to-back runs, per run, in ns. */
static double time_point(run_fn run, void *ctx, uint8_t *buf, size_t len, unsigned iters,
                         int reps, double *scratch) {
  for (int r = 0; r < reps; r++) {
    double t0 = now_ns();
    for (unsigned i = 0; i < iters; i++) run(ctx, buf, len);
    scratch[r] = now_ns() - t0;
  }
  return median(scratch, reps) / iters;
}

/* Calibration as bench-slope does it: grow the loop count until a timing at the smallest
 * size is at least three times the one-iteration time (so the timer's granularity and the
 * clock_gettime cost are small against it). */
static unsigned calibrate(run_fn run, void *ctx, uint8_t *buf, size_t len, int reps,
                          double *scratch) {
  unsigned iters = 1;
  double first = time_point(run, ctx, buf, len, 1, reps, scratch);
  if (first < 1.0) first = 1.0;
  while (iters < (1u << 20) && time_point(run, ctx, buf, len, iters + 1, reps, scratch) *
                                       (iters + 1) < first * 2.9)
    iters++;
  return iters + 1;
}

/* ns per unit of `x` over a sweep of sizes: the bench-slope measurement. */
static double slope_sweep(run_fn run, void *ctx, uint8_t *buf, size_t lo, size_t hi,
                          size_t step, int reps) {
  int n = (int)((hi - lo) / step) + 1;
  double *xs = calloc((size_t)n, sizeof *xs), *ys = calloc((size_t)n, sizeof *ys);
  double *scratch = calloc((size_t)reps, sizeof *scratch);
  if (!xs || !ys || !scratch) abort();
  unsigned iters = calibrate(run, ctx, buf, lo, reps, scratch);
  for (int i = 0; i < n; i++) xs[i] = (double)(lo + (size_t)i * step);
  if (opt.sequential) {
    /* bench-slope's order: all repetitions of one size, then the next size. */
    for (int i = 0; i < n; i++)
      ys[i] = time_point(run, ctx, buf, (size_t)xs[i], iters, reps, scratch);
  } else {
    /* Interleaved: each pass times every size once, alternately upwards and downwards.
     * On a quiet machine this gives what bench-slope's order gives; on a shared one a
     * burst of load lands on all sizes alike and shifts the intercept, where bench-slope's
     * order lets it land on a run of neighbouring sizes and tilt the slope. */
    double *t = calloc((size_t)n * (size_t)reps, sizeof *t);
    if (!t) abort();
    for (int r = 0; r < reps; r++)
      for (int k = 0; k < n; k++) {
        int i = r % 2 ? n - 1 - k : k;
        t[(size_t)i * (size_t)reps + (size_t)r] =
            time_point(run, ctx, buf, (size_t)xs[i], iters, 1, scratch);
      }
    for (int i = 0; i < n; i++) ys[i] = median(t + (size_t)i * (size_t)reps, reps);
    free(t);
  }
  double s = ls_slope(xs, ys, n);
  free(xs);
  free(ys);
  free(scratch);
  return s;
}

/* ------------------------------------------------------------------ clock estimate */

/* One unit of the clock chain: 1024 dependent single-cycle integer operations (xor, sub
 * alternating, as in libgcrypt's auto-Mhz). The empty asm makes the value opaque to the
 * compiler after every operation, so nothing folds, and costs no instruction. The loop
 * counter is independent of the chain, so on any core that issues two instructions a cycle
 * the loop overhead hides beside it; the slope over the unit count removes the rest. */
#define CHAIN1 \
  v ^= 1;      \
  __asm__ __volatile__("" : "+r"(v));  \
  v -= 2;      \
  __asm__ __volatile__("" : "+r"(v))
#define CHAIN4 CHAIN1; CHAIN1; CHAIN1; CHAIN1
#define CHAIN16 CHAIN4; CHAIN4; CHAIN4; CHAIN4
#define CHAIN64 CHAIN16; CHAIN16; CHAIN16; CHAIN16
#define CHAIN512 CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64; CHAIN64

static volatile unsigned long chain_sink;
static void chain_run(void *ctx, uint8_t *buf, size_t units) {
  (void)ctx;
  (void)buf;
  unsigned long v = units;
  for (size_t u = 0; u < units; u++) {
    CHAIN512; /* 1024 operations */
  }
  chain_sink = v;
}

/* GHz = cycles per ns, taking one chain operation as one cycle. */
static double auto_ghz(void) {
  double ns_per_unit = slope_sweep(chain_run, NULL, NULL, 16, 80, 8, 16);
  return ns_per_unit > 0 ? 1024.0 / ns_per_unit : 0;
}

/* Runs `bench` with the clock measured before and after, until both agree (libgcrypt's
 * target 5e-5, relaxed x2 every 4th try), at most opt.max_tries times. */
struct clocked {
  double value, ghz, ghz_diff;
};
typedef double (*bench_fn)(void *arg);
static struct clocked clocked_run(bench_fn bench, void *arg) {
  struct clocked c = {0, 0, 0};
  if (opt.fixed_mhz > 0) {
    c.value = bench(arg);
    c.ghz = opt.fixed_mhz / 1000;
    return c;
  }
  double target = 5e-5;
  for (int t = 1;; t++) {
    if (t % 4 == 0) target *= 2;
    double before = auto_ghz();
    c.value = bench(arg);
    double after = auto_ghz();
    c.ghz = (before + after) / 2;
    c.ghz_diff = after > 0 ? fabs(1 - before / after) : 1;
    if ((c.value > 0 && c.ghz_diff <= target) || t >= opt.max_tries || opt.quick) break;
  }
  return c;
}

/* ------------------------------------------------------------------ implementations */

/* An implementation under test. setup() makes a keyed context; enc/dec/auth are the three
 * bench-slope operations on it (in place, 12-byte nonce). seal() and open_() are for the
 * check: out-of-place, any AAD, returning the tag / whether it verified. */
struct impl {
  char label[64];
  void *(*setup)(const uint8_t *key, size_t keylen);
  void (*teardown)(void *ctx);
  run_fn op[NMODE];
  void (*seal)(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
               const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]);
  int (*open_)(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
               const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]);
  const char *backend; /* stitchgcm only: STITCHGCM_IMPL value */
};

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench-gcm: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

/* --- stitchgcm */
static void *sg_setup(const uint8_t *key, size_t keylen) {
  static const int algo[] = {SGCM_CIPHER_AES128, SGCM_CIPHER_AES192, SGCM_CIPHER_AES256};
  sgcm_cipher_hd_t h;
  sgcm_error_t e = sgcm_cipher_open(&h, algo[(keylen - 16) / 8], SGCM_MODE_GCM, 0);
  if (!e) e = sgcm_cipher_setkey(h, key, keylen);
  if (e) die("stitchgcm setkey: %s", sgcm_strerror(e));
  return h;
}
static void sg_teardown(void *c) { sgcm_cipher_close(c); }
static void sg_check(sgcm_error_t e, const char *what) {
  if (e) die("stitchgcm %s: %s", what, sgcm_strerror(e));
}
static void sg_enc(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16];
  sg_check(sgcm_cipher_setiv(c, nonce, 12), "setiv");
  sg_check(sgcm_cipher_encrypt(c, buf, len, buf, len), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static void sg_dec(void *c, uint8_t *buf, size_t len) {
  static const uint8_t zero[16];
  sg_check(sgcm_cipher_setiv(c, nonce, 12), "setiv");
  sg_check(sgcm_cipher_decrypt(c, buf, len, buf, len), "decrypt");
  sgcm_error_t e = sgcm_cipher_checktag(c, zero, 16);
  if (e != SGCM_ERR_CHECKSUM) sg_check(e, "checktag");
}
static void sg_auth(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16], one = 0xff;
  sg_check(sgcm_cipher_setiv(c, nonce, 12), "setiv");
  sg_check(sgcm_cipher_authenticate(c, buf, len), "authenticate");
  sg_check(sgcm_cipher_encrypt(c, &one, 1, &one, 1), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static void sg_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  sg_check(sgcm_cipher_setiv(c, iv, ivlen), "setiv");
  sg_check(sgcm_cipher_authenticate(c, aad, alen), "authenticate");
  sg_check(sgcm_cipher_encrypt(c, out, len, in, len), "encrypt");
  sg_check(sgcm_cipher_gettag(c, tag, 16), "gettag");
}
static int sg_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  sg_check(sgcm_cipher_setiv(c, iv, ivlen), "setiv");
  sg_check(sgcm_cipher_authenticate(c, aad, alen), "authenticate");
  sg_check(sgcm_cipher_decrypt(c, out, len, in, len), "decrypt");
  return sgcm_cipher_checktag(c, tag, 16) == 0;
}

#ifdef HAVE_NETTLE
/* --- nettle: the per-key-size gcm_aesNNN_* functions (what GnuTLS uses). */
union nt_ctx {
  struct gcm_aes128_ctx a128;
  struct gcm_aes192_ctx a192;
  struct gcm_aes256_ctx a256;
};
struct nt {
  size_t keylen;
  union nt_ctx u;
};
static void *nt_setup(const uint8_t *key, size_t keylen) {
  struct nt *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
  if (!n) abort();
  n->keylen = keylen;
  if (keylen == 16) gcm_aes128_set_key(&n->u.a128, key);
  else if (keylen == 24) gcm_aes192_set_key(&n->u.a192, key);
  else gcm_aes256_set_key(&n->u.a256, key);
  return n;
}
static void nt_teardown(void *c) { free(c); }
#define NT_DISPATCH(n, fn, ...)                                     \
  do {                                                              \
    if ((n)->keylen == 16) gcm_aes128_##fn(&(n)->u.a128, __VA_ARGS__); \
    else if ((n)->keylen == 24) gcm_aes192_##fn(&(n)->u.a192, __VA_ARGS__); \
    else gcm_aes256_##fn(&(n)->u.a256, __VA_ARGS__);                \
  } while (0)
static void nt_enc(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  uint8_t tag[16];
  NT_DISPATCH(n, set_iv, 12, nonce);
  NT_DISPATCH(n, encrypt, len, buf, buf);
  NT_DISPATCH(n, digest, 16, tag);
}
static void nt_dec(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  static const uint8_t zero[16];
  uint8_t tag[16];
  NT_DISPATCH(n, set_iv, 12, nonce);
  NT_DISPATCH(n, decrypt, len, buf, buf);
  NT_DISPATCH(n, digest, 16, tag);
  chain_sink += memeql_sec(tag, zero, 16);
}
static void nt_auth(void *c, uint8_t *buf, size_t len) {
  struct nt *n = c;
  uint8_t tag[16], one = 0xff;
  NT_DISPATCH(n, set_iv, 12, nonce);
  NT_DISPATCH(n, update, len, buf);
  NT_DISPATCH(n, encrypt, 1, &one, &one);
  NT_DISPATCH(n, digest, 16, tag);
}
static void nt_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  struct nt *n = c;
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  NT_DISPATCH(n, encrypt, len, out, in);
  NT_DISPATCH(n, digest, 16, tag);
}
static int nt_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  struct nt *n = c;
  uint8_t t[16];
  NT_DISPATCH(n, set_iv, ivlen, iv);
  NT_DISPATCH(n, update, alen, aad);
  NT_DISPATCH(n, decrypt, len, out, in);
  NT_DISPATCH(n, digest, 16, t);
  return memeql_sec(t, tag, 16);
}
#endif

#ifdef HAVE_GCRYPT
/* --- libgcrypt: exactly bench-slope's calls (reset, setiv, final, ...). */
static void gc_check(gcry_error_t e, const char *what) {
  if (e) die("libgcrypt %s: %s", what, gcry_strerror(e));
}
static void *gc_setup(const uint8_t *key, size_t keylen) {
  static const int algo[] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};
  gcry_cipher_hd_t h;
  gc_check(gcry_cipher_open(&h, algo[(keylen - 16) / 8], GCRY_CIPHER_MODE_GCM, 0), "open");
  gc_check(gcry_cipher_setkey(h, key, keylen), "setkey");
  return h;
}
static void gc_teardown(void *c) { gcry_cipher_close(c); }
static void gc_enc(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16];
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, nonce, 12);
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, buf, len, buf, len), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static void gc_dec(void *c, uint8_t *buf, size_t len) {
  static const uint8_t zero[16];
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, nonce, 12);
  gcry_cipher_final(c);
  gc_check(gcry_cipher_decrypt(c, buf, len, buf, len), "decrypt");
  gcry_error_t e = gcry_cipher_checktag(c, zero, 16);
  if (gcry_err_code(e) != GPG_ERR_CHECKSUM) gc_check(e, "checktag");
}
static void gc_auth(void *c, uint8_t *buf, size_t len) {
  uint8_t tag[16], one = 0xff;
  gcry_cipher_reset(c);
  gcry_cipher_setiv(c, nonce, 12);
  gc_check(gcry_cipher_authenticate(c, buf, len), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, &one, 1, &one, 1), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static void gc_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  gcry_cipher_reset(c);
  gc_check(gcry_cipher_setiv(c, iv, ivlen), "setiv");
  gc_check(gcry_cipher_authenticate(c, aad, alen), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_encrypt(c, out, len, in, len), "encrypt");
  gc_check(gcry_cipher_gettag(c, tag, 16), "gettag");
}
static int gc_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  gcry_cipher_reset(c);
  gc_check(gcry_cipher_setiv(c, iv, ivlen), "setiv");
  gc_check(gcry_cipher_authenticate(c, aad, alen), "authenticate");
  gcry_cipher_final(c);
  gc_check(gcry_cipher_decrypt(c, out, len, in, len), "decrypt");
  return gcry_cipher_checktag(c, tag, 16) == 0;
}
#endif

#ifdef HAVE_OPENSSL
/* --- OpenSSL EVP: one context keyed for encryption, one for decryption; a message is
 * Init(iv) + Update + Final + tag ctrl, the usual EVP AEAD sequence. */
struct os {
  EVP_CIPHER_CTX *e, *d;
  size_t eiv, div; /* IV length each context is set to */
};
static void os_fail(const char *what) { die("OpenSSL %s failed", what); }
static void *os_setup(const uint8_t *key, size_t keylen) {
  const EVP_CIPHER *ci = keylen == 16 ? EVP_aes_128_gcm()
                         : keylen == 24 ? EVP_aes_192_gcm()
                                        : EVP_aes_256_gcm();
  struct os *o = malloc(sizeof *o);
  if (!o) abort();
  o->e = EVP_CIPHER_CTX_new();
  o->d = EVP_CIPHER_CTX_new();
  if (!o->e || !o->d || !EVP_EncryptInit_ex(o->e, ci, NULL, key, NULL) ||
      !EVP_DecryptInit_ex(o->d, ci, NULL, key, NULL))
    os_fail("setup");
  o->eiv = o->div = 12;
  return o;
}
static void os_teardown(void *c) {
  struct os *o = c;
  EVP_CIPHER_CTX_free(o->e);
  EVP_CIPHER_CTX_free(o->d);
  free(o);
}
static void os_setiv(struct os *o, int enc, const uint8_t *iv, size_t ivlen) {
  EVP_CIPHER_CTX *x = enc ? o->e : o->d;
  size_t *cur = enc ? &o->eiv : &o->div;
  if (ivlen != *cur) {
    if (!EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)ivlen, NULL)) os_fail("set ivlen");
    *cur = ivlen;
  }
  if (!(enc ? EVP_EncryptInit_ex(x, NULL, NULL, NULL, iv)
            : EVP_DecryptInit_ex(x, NULL, NULL, NULL, iv)))
    os_fail("setiv");
}
static void os_enc(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t tag[16];
  int n, m;
  os_setiv(o, 1, nonce, 12);
  if (!EVP_EncryptUpdate(o->e, buf, &n, buf, (int)len) || !EVP_EncryptFinal_ex(o->e, buf + n, &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("encrypt");
}
static void os_dec(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t zero[16] = {0};
  int n, m;
  os_setiv(o, 0, nonce, 12);
  if (!EVP_DecryptUpdate(o->d, buf, &n, buf, (int)len) ||
      !EVP_CIPHER_CTX_ctrl(o->d, EVP_CTRL_GCM_SET_TAG, 16, zero))
    os_fail("decrypt");
  chain_sink += (unsigned)EVP_DecryptFinal_ex(o->d, buf + n, &m); /* fails: wrong tag */
}
static void os_auth(void *c, uint8_t *buf, size_t len) {
  struct os *o = c;
  uint8_t tag[16], one = 0xff;
  int n, m;
  os_setiv(o, 1, nonce, 12);
  if (!EVP_EncryptUpdate(o->e, NULL, &n, buf, (int)len) ||
      !EVP_EncryptUpdate(o->e, &one, &n, &one, 1) || !EVP_EncryptFinal_ex(o->e, &one, &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("authenticate");
}
static void os_seal(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                    const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]) {
  struct os *o = c;
  int n = 0, m;
  os_setiv(o, 1, iv, ivlen);
  if ((alen && !EVP_EncryptUpdate(o->e, NULL, &n, aad, (int)alen)) ||
      (len && !EVP_EncryptUpdate(o->e, out, &n, in, (int)len)) ||
      !EVP_EncryptFinal_ex(o->e, out + (len ? n : 0), &m) ||
      !EVP_CIPHER_CTX_ctrl(o->e, EVP_CTRL_GCM_GET_TAG, 16, tag))
    os_fail("seal");
}
static int os_open(void *c, const uint8_t *iv, size_t ivlen, const uint8_t *aad, size_t alen,
                   const uint8_t *in, uint8_t *out, size_t len, const uint8_t tag[16]) {
  struct os *o = c;
  int n = 0, m;
  uint8_t t[16];
  memcpy(t, tag, 16);
  os_setiv(o, 0, iv, ivlen);
  if ((alen && !EVP_DecryptUpdate(o->d, NULL, &n, aad, (int)alen)) ||
      (len && !EVP_DecryptUpdate(o->d, out, &n, in, (int)len)) ||
      !EVP_CIPHER_CTX_ctrl(o->d, EVP_CTRL_GCM_SET_TAG, 16, t))
    os_fail("open");
  return EVP_DecryptFinal_ex(o->d, out + (len ? n : 0), &m) == 1;
}
#endif

#define MAXIMPL 16
static struct impl impls[MAXIMPL];
static int nimpl;

static struct impl *add_impl(const char *label) {
  if (nimpl == MAXIMPL) die("too many implementations");
  struct impl *p = &impls[nimpl++];
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  return p;
}

/* stitchgcm's backends are discovered at run time (sgcm_impl_available does not fix the
 * process's choice, so the parent may ask); STITCHGCM_IMPL, if set, narrows to that one. */
static void discover(void) {
  const char *forced = getenv("STITCHGCM_IMPL");
  for (size_t i = 0;; i++) {
    const char *b = sgcm_impl_available(i);
    if (!b) break;
    if (forced && *forced && strcmp(forced, b) != 0) continue;
    char label[64];
    snprintf(label, sizeof label, "stitchgcm/%s", b);
    struct impl *p = add_impl(label);
    p->backend = b;
    p->setup = sg_setup, p->teardown = sg_teardown, p->seal = sg_seal, p->open_ = sg_open;
    p->op[0] = sg_enc, p->op[1] = sg_dec, p->op[2] = sg_auth;
  }
  /* Never quietly drop stitchgcm from the comparison. */
  if (forced && *forced && nimpl == 0)
    die("STITCHGCM_IMPL=%s is not a backend this CPU runs", forced);
#ifdef HAVE_NETTLE
  {
    /* libstitchgcm exports nettle's gcm_* names too: if they won the symbol lookup (link
     * order, or LD_PRELOAD=libstitchgcm.so), this row measures stitchgcm through nettle's
     * API, and its label says so. */
    Dl_info info;
    int ours = dladdr((void *)&nettle_gcm_aes128_encrypt, &info) && info.dli_fname &&
               strstr(info.dli_fname, "stitchgcm");
    struct impl *p = add_impl(ours ? "nettle->stitchgcm" : "nettle");
    p->setup = nt_setup, p->teardown = nt_teardown, p->seal = nt_seal, p->open_ = nt_open;
    p->op[0] = nt_enc, p->op[1] = nt_dec, p->op[2] = nt_auth;
  }
#endif
#ifdef HAVE_GCRYPT
  {
    struct impl *p = add_impl("libgcrypt");
    p->setup = gc_setup, p->teardown = gc_teardown, p->seal = gc_seal, p->open_ = gc_open;
    p->op[0] = gc_enc, p->op[1] = gc_dec, p->op[2] = gc_auth;
  }
#endif
#ifdef HAVE_OPENSSL
  {
    struct impl *p = add_impl("openssl");
    p->setup = os_setup, p->teardown = os_teardown, p->seal = os_seal, p->open_ = os_open;
    p->op[0] = os_enc, p->op[1] = os_dec, p->op[2] = os_auth;
  }
#endif
  if (opt.only) {
    int k = 0;
    for (int i = 0; i < nimpl; i++)
      if (strstr(impls[i].label, opt.only)) impls[k++] = impls[i];
    nimpl = k;
  }
}

static void version_of(const struct impl *p, char *out, size_t n) {
  if (p->backend) { snprintf(out, n, "%s", sgcm_version()); return; }
#ifdef HAVE_NETTLE
  if (!strcmp(p->label, "nettle")) { snprintf(out, n, "%d.%d", nettle_version_major(), nettle_version_minor()); return; }
#endif
#ifdef HAVE_GCRYPT
  if (!strcmp(p->label, "libgcrypt")) { snprintf(out, n, "%s", gcry_check_version(NULL)); return; }
#endif
#ifdef HAVE_OPENSSL
  if (!strcmp(p->label, "openssl")) { snprintf(out, n, "%s", OpenSSL_version(OPENSSL_VERSION_STRING)); return; }
#endif
  snprintf(out, n, "?");
}

/* ------------------------------------------------------------------ check */

static const char *const kat_key[NALGO] = {
    "feffe9928665731c6d6a8f9467308308",
    "feffe9928665731c6d6a8f9467308308feffe9928665731c",
    "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"};
static const char kat_p[] =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char kat_a[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char kat_iv[] = "cafebabefacedbaddecaf888";
/* McGrew-Viega test cases 4, 10, 16: ciphertext and tag. */
static const char *const kat_c[NALGO] = {
    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
    "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
    "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"};
static const char *const kat_t[NALGO] = {"5bc94fbc3221a5db94fae95ae7121a47",
                                         "2519498e80f1478f37ba55bd6d27618c",
                                         "76fc6ece0f4e1768cddf8853bb2d551b"};

static size_t unhex(const char *h, uint8_t *out) {
  size_t n = strlen(h) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(h + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
  return n;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Runs the known answers and a sweep of lengths (all tcrypt sizes and the awkward ones
 * around block boundaries, with and without AAD, 12- and 8-byte IVs) for all key sizes.
 * Returns a fingerprint of every ciphertext and tag (equal across implementations iff they
 * agree) and the number of known-answer or round-trip failures. */
static uint64_t run_check(const struct impl *p, int *failures, int *messages) {
  static const size_t lens[] = {0, 1, 15, 16, 17, 31, 63, 64, 65, 255, 256, 257, 511, 512,
                                1023, 1024, 1420, 2047, 2048, 4095, 4096, 8191, 8192};
  static const size_t alens[] = {0, 13, 20, 64};
  uint64_t h = 0xcbf29ce484222325ull;
  uint8_t *in = malloc(8192), *ct = malloc(8192 + 1), *pt = malloc(8192 + 1), aad[64];
  uint8_t key[32], iv[12], tag[16], want[64], wtag[16], p60[60], a20[20];
  if (!in || !ct || !pt) abort();
  *failures = 0;
  *messages = 0;
  for (int a = 0; a < NALGO; a++) {
    /* Known answer. */
    unhex(kat_key[a], key);
    unhex(kat_iv, iv);
    unhex(kat_p, p60);
    unhex(kat_a, a20);
    unhex(kat_c[a], want);
    unhex(kat_t[a], wtag);
    void *c = p->setup(key, algo_keylen[a]);
    p->seal(c, iv, 12, a20, 20, p60, ct, 60, tag);
    if (memcmp(ct, want, 60) || memcmp(tag, wtag, 16)) ++*failures;
    if (!p->open_(c, iv, 12, a20, 20, want, pt, 60, wtag) || memcmp(pt, p60, 60)) ++*failures;
    p->teardown(c);
    ++*messages;
    /* Sweep. */
    for (size_t i = 0; i < algo_keylen[a]; i++) key[i] = (uint8_t)(0x33 ^ (11 - i));
    c = p->setup(key, algo_keylen[a]);
    for (size_t i = 0; i < 8192; i++) in[i] = (uint8_t)(0x55 ^ (0 - i));
    for (size_t i = 0; i < sizeof aad; i++) aad[i] = (uint8_t)(i * 7 + 1);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
      for (size_t ai = 0; ai < sizeof alens / sizeof alens[0]; ai++) {
        size_t len = lens[li], ivlen = (li + ai) % 3 == 2 ? 8 : 12;
        memcpy(iv, nonce, 12);
        iv[11] ^= (uint8_t)li;
        iv[0] ^= (uint8_t)ai;
        p->seal(c, iv, ivlen, aad, alens[ai], in, ct, len, tag);
        h = fnv(h, ct, len);
        h = fnv(h, tag, 16);
        if (!p->open_(c, iv, ivlen, aad, alens[ai], ct, pt, len, tag) || memcmp(pt, in, len))
          ++*failures;
        tag[li % 16] ^= 0x40; /* a wrong tag must be refused */
        if (p->open_(c, iv, ivlen, aad, alens[ai], ct, pt, len, tag)) ++*failures;
        ++*messages;
      }
    p->teardown(c);
  }
  free(in);
  free(ct);
  free(pt);
  return h;
}

/* ------------------------------------------------------------------ child: measure */

struct slope_arg {
  const struct impl *p;
  void *ctx;
  int mode;
  uint8_t *buf;
};
static double slope_bench(void *v) {
  struct slope_arg *s = v;
  return slope_sweep(s->p->op[s->mode], s->ctx, s->buf, SLOPE_MIN, SLOPE_MAX, SLOPE_STEP,
                     opt.repetitions);
}

struct tc_arg {
  const struct impl *p;
  void *ctx;
  uint8_t *buf;
  double ns[NTC];
};
/* Each size: loop count so that one timing is >= ~20 us (well above clock_gettime's cost
 * and resolution), then the median of the repetitions. */
static double tc_bench(void *v) {
  struct tc_arg *t = v;
  double *scratch = calloc((size_t)opt.repetitions, sizeof *scratch);
  if (!scratch) abort();
  unsigned iters[NTC];
  double *tm = calloc(NTC * (size_t)opt.repetitions, sizeof *tm);
  if (!tm) abort();
  for (size_t s = 0; s < NTC; s++) {
    iters[s] = 1;
    for (;;) {
      double t0 = now_ns();
      for (unsigned i = 0; i < iters[s]; i++) t->p->op[0](t->ctx, t->buf, tc_sizes[s]);
      if (now_ns() - t0 >= 20000 || iters[s] >= (1u << 24)) break;
      iters[s] *= 2;
    }
  }
  /* Repetitions in passes over all sizes, as in slope_sweep. */
  for (int r = 0; r < opt.repetitions; r++)
    for (size_t s = 0; s < NTC; s++)
      tm[s * (size_t)opt.repetitions + (size_t)r] =
          time_point(t->p->op[0], t->ctx, t->buf, tc_sizes[s], iters[s], 1, scratch);
  for (size_t s = 0; s < NTC; s++)
    t->ns[s] = median(tm + s * (size_t)opt.repetitions, opt.repetitions);
  free(tm);
  free(scratch);
  return t->ns[NTC - 1] > 0 ? 1 : 0;
}

/* The RFC 4106 hook (issue 6): IPsec ESP's GCM -- 20/28/36-byte keys (AES key + 4-byte
 * salt), 8-byte explicit IV, measured at 1420 bytes. stitchgcm has no RFC 4106 mode yet, so
 * nothing is measured and no row is printed; when the mode exists, give `struct impl` an
 * rfc4106 operation and time it here like tc_bench does for one size. */
static int rfc4106_available(const struct impl *p) {
  (void)p;
  return 0;
}

static void child(const struct impl *p, FILE *out) {
  if (p->backend) {
    setenv("STITCHGCM_IMPL", p->backend, 1);
    const char *got = sgcm_impl_name();
    if (!got || strcmp(got, p->backend)) die("backend %s could not be forced", p->backend);
  }
#ifdef HAVE_GCRYPT
  if (!strcmp(p->label, "libgcrypt")) {
    if (!gcry_check_version(GCRYPT_VERSION)) die("libgcrypt version mismatch");
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  }
#endif
  int fails, msgs;
  uint64_t fp = run_check(p, &fails, &msgs);
  char ver[64];
  version_of(p, ver, sizeof ver);
  fprintf(out, "C %016llx %d %d %s\n", (unsigned long long)fp, fails, msgs, ver);
  fflush(out);

  uint8_t *raw = malloc(8192 + 256), *buf = raw + 128 - ((uintptr_t)raw & 127);
  if (!raw) abort();
  for (size_t i = 0; i < 8192; i++) buf[i] = (uint8_t)(0x55 ^ (0 - i));
  uint8_t key[32];
  for (int a = 0; a < NALGO; a++) {
    for (size_t i = 0; i < algo_keylen[a]; i++) key[i] = (uint8_t)(0x33 ^ (11 - i));
    if (!(opt.algos >> a & 1)) continue;
    void *ctx = p->setup(key, algo_keylen[a]);
    for (int m = 0; m < NMODE; m++) {
      struct slope_arg s = {p, ctx, m, buf};
      struct clocked c = clocked_run(slope_bench, &s);
      fprintf(out, "S %d %d %.6g %.6g %.6g\n", a, m, c.value, c.ghz, c.ghz_diff);
      fflush(out);
    }
    if (!opt.no_tcrypt) {
      struct tc_arg t = {p, ctx, buf, {0}};
      struct clocked c = clocked_run(tc_bench, &t);
      for (size_t s = 0; s < NTC; s++)
        fprintf(out, "T %d %zu %.6g %.6g\n", a, s, t.ns[s], c.ghz);
      fflush(out);
    }
    p->teardown(ctx);
  }
  if (rfc4106_available(p)) fprintf(out, "R\n"); /* hook: see rfc4106_available() */
  free(raw);
}

/* ------------------------------------------------------------------ parent: collect, print */

struct result {
  int ok;                 /* the child finished */
  char version[64];
  unsigned long long fp;
  int fails, msgs;
  double slope[NALGO][NMODE], ghz[NALGO][NMODE], ghzdiff[NALGO][NMODE];
  double tc_ns[NALGO][NTC], tc_ghz[NALGO];
  int have_slope[NALGO][NMODE], have_tc[NALGO];
};
static struct result res[MAXIMPL];

static void run_child(int i) {
  int fd[2];
  fflush(stdout);
  if (pipe(fd)) die("pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    FILE *out = fdopen(fd[1], "w");
    if (!out) _exit(2);
    child(&impls[i], out);
    fclose(out);
    _exit(0);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  char line[512];
  struct result *r = &res[i];
  while (in && fgets(line, sizeof line, in)) {
    int a, m;
    size_t s;
    double x, g, d;
    if (line[0] == 'C')
      sscanf(line, "C %llx %d %d %63s", &r->fp, &r->fails, &r->msgs, r->version);
    else if (sscanf(line, "S %d %d %lf %lf %lf", &a, &m, &x, &g, &d) == 5 && a >= 0 &&
             a < NALGO && m >= 0 && m < NMODE) {
      r->slope[a][m] = x, r->ghz[a][m] = g, r->ghzdiff[a][m] = d, r->have_slope[a][m] = 1;
    } else if (sscanf(line, "T %d %zu %lf %lf", &a, &s, &x, &g) == 4 && a >= 0 && a < NALGO &&
               s < NTC) {
      r->tc_ns[a][s] = x, r->tc_ghz[a] = g, r->have_tc[a] = 1;
    }
  }
  if (in) fclose(in);
  int st;
  waitpid(pid, &st, 0);
  r->ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (!r->ok) fprintf(stderr, "bench-gcm: %s: worker failed (status %d)\n", impls[i].label, st);
}

/* bench-slope's number formatting. */
static void fmt_num(char *out, size_t n, double v) {
  snprintf(out, n, v < 1 ? "%.3f" : v < 100 ? "%.2f" : v < 1000 ? "%.1f" : "%.0f", v);
}

static void print_slope_text(void) {
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
        double ns = res[i].slope[a][m], g = res[i].ghz[a][m];
        char b1[32], b2[32], b3[32], b4[32], diff[32] = "";
        fmt_num(b1, sizeof b1, ns);
        fmt_num(b2, sizeof b2, ns > 0 ? 1e9 / (ns * 1024 * 1024) : 0);
        fmt_num(b3, sizeof b3, ns * g);
        fmt_num(b4, sizeof b4, g * 1000);
        if (autom && res[i].ghzdiff[a][m] * 1000 >= 0.5)
          snprintf(diff, sizeof diff, "\xc2\xb1%.0f", res[i].ghzdiff[a][m] * 1000);
        printf(" %*s | ", 14, mode_name[m]);
        if (autom)
          printf("%9s ns/B %9s MiB/s %9s c/B %9s%s\n", b1, b2, b3, b4, diff);
        else
          printf("%9s ns/B %9s MiB/s %9s c/B\n", b1, b2, b3);
      }
      printf(" %-*s =\n", 14, "");
    }
  }
}

/* bench-slope's CSV, with the implementation in the first of its two spare fields. */
static void print_slope_csv(FILE *f) {
  int autom = opt.fixed_mhz <= 0;
  for (int i = 0; i < nimpl; i++)
    for (int a = 0; a < NALGO; a++)
      for (int m = 0; m < NMODE; m++) {
        if (!res[i].ok || !res[i].have_slope[a][m]) continue;
        double ns = res[i].slope[a][m], g = res[i].ghz[a][m];
        char b1[32], b2[32], b3[32], b4[32], diff[48] = "";
        fmt_num(b1, sizeof b1, ns);
        fmt_num(b2, sizeof b2, ns > 0 ? 1e9 / (ns * 1024 * 1024) : 0);
        fmt_num(b3, sizeof b3, ns * g);
        fmt_num(b4, sizeof b4, g * 1000);
        if (autom && res[i].ghzdiff[a][m] * 1000 >= 1)
          snprintf(diff, sizeof diff, ",%.0f,Mhz-diff", res[i].ghzdiff[a][m] * 1000);
        if (autom)
          fprintf(f, "cipher,%s,%s,%s,,%s,ns/B,%s,MiB/s,%s,c/B,%s,Mhz%s\n", algo_name[a],
                  mode_name[m], impls[i].label, b1, b2, b3, b4, diff);
        else
          fprintf(f, "cipher,%s,%s,%s,,%s,ns/B,%s,MiB/s,%s,c/B\n", algo_name[a], mode_name[m],
                  impls[i].label, b1, b2, b3);
      }
}

static int label_width(void) {
  int w = 18;
  for (int i = 0; i < nimpl; i++)
    if ((int)strlen(impls[i].label) > w) w = (int)strlen(impls[i].label);
  return w;
}

static void print_tc_text(void) {
  int w = label_width() + 1;
  printf("\ntcrypt-style: gcm(aes) encryption, one setiv + encrypt + gettag per message;\n"
         "cycles per operation (cycles per byte in brackets), median of %d timings\n",
         opt.repetitions);
  for (int a = 0; a < NALGO; a++) {
    if (!(opt.algos >> a & 1)) continue;
    printf("\n%3zu bit key  |", algo_keylen[a] * 8);
    for (int i = 0; i < nimpl; i++)
      if (res[i].ok) printf(" %*s", w, impls[i].label);
    printf("\n");
    for (size_t s = 0; s < NTC; s++) {
      printf("%5zu bytes  |", tc_sizes[s]);
      for (int i = 0; i < nimpl; i++) {
        if (!res[i].ok) continue;
        if (!res[i].have_tc[a]) { printf(" %*s", w, "-"); continue; }
        double cyc = res[i].tc_ns[a][s] * res[i].tc_ghz[a];
        char cell[48];
        snprintf(cell, sizeof cell, "%.0f (%.2f)", cyc, cyc / (double)tc_sizes[s]);
        printf(" %*s", w, cell);
      }
      printf("\n");
    }
  }
  /* The same figures in the form of tcrypt's AEAD speed log (mode 211-style lines). */
  for (int i = 0; opt.tcrypt_lines && i < nimpl; i++) {
    if (!res[i].ok) continue;
    printf("\ntesting speed of gcm(aes) (%s) encryption\n", impls[i].label);
    unsigned n = 0;
    for (int a = 0; a < NALGO; a++) {
      if (!res[i].have_tc[a]) continue;
      for (size_t s = 0; s < NTC; s++)
        printf("test %u (%zu bit key, %zu byte blocks): 1 operation in %.0f cycles (%zu bytes)\n",
               n++, algo_keylen[a] * 8, tc_sizes[s], res[i].tc_ns[a][s] * res[i].tc_ghz[a],
               tc_sizes[s]);
    }
  }
  int any = 0;
  for (int i = 0; i < nimpl; i++) any |= rfc4106_available(&impls[i]);
  if (!any)
    printf("\nrfc4106(gcm(aes)), 20/28/36-byte keys at 1420 bytes: not measured -- no "
           "implementation here has an RFC 4106 mode yet (hook: rfc4106_available() in "
           "bench/bench-gcm.c)\n");
}

static void print_tc_csv(FILE *f) {
  for (int i = 0; i < nimpl; i++)
    for (int a = 0; a < NALGO; a++) {
      if (!res[i].ok || !res[i].have_tc[a]) continue;
      for (size_t s = 0; s < NTC; s++) {
        double ns = res[i].tc_ns[a][s], cyc = ns * res[i].tc_ghz[a];
        fprintf(f, "tcrypt,%s,GCM enc,%s,%zu,%.1f,ns/op,%.0f,c/op,%.3f,c/B,%.0f,Mhz\n",
                algo_name[a], impls[i].label, tc_sizes[s], ns, cyc, cyc / (double)tc_sizes[s],
                res[i].tc_ghz[a] * 1000);
      }
    }
}

/* The chart: cycles/byte against message size (log2 x), one line per implementation, one
 * panel per key size; plain SVG so that nothing needs installing. */
static void write_svg(const char *path, const char *subtitle) {
  FILE *f = fopen(path, "w");
  if (!f) { fprintf(stderr, "bench-gcm: %s: %s\n", path, strerror(errno)); return; }
  static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  const int pw = 360, ph = 300, ml = 56, mt = 56, gap = 40, W = ml + NALGO * (pw + gap) + 170,
            H = mt + ph + 70;
  /* Log2 y axis: the portable fallback and the fastest kernels differ by 100x or more. */
  double ymin = 1e300, ymax = 0;
  for (int i = 0; i < nimpl; i++)
    for (int a = 0; a < NALGO; a++)
      for (size_t s = 0; s < NTC; s++)
        if (res[i].ok && res[i].have_tc[a]) {
          double y = res[i].tc_ns[a][s] * res[i].tc_ghz[a] / (double)tc_sizes[s];
          if (y > ymax) ymax = y;
          if (y > 0 && y < ymin) ymin = y;
        }
  if (ymax <= 0) ymin = 0.5, ymax = 1;
  double ly0 = floor(log2(ymin)), ly1 = ceil(log2(ymax));
  if (ly1 <= ly0) ly1 = ly0 + 1;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
  fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">AES-GCM encrypt (setiv + encrypt + "
             "tag per message): cycles/byte vs message size</text>\n", ml);
  fprintf(f, "<text x=\"%d\" y=\"40\" fill=\"#555\">%s</text>\n", ml, subtitle);
  double lx0 = log2(16), lx1 = log2(8192);
  for (int a = 0; a < NALGO; a++) {
    int x0 = ml + a * (pw + gap), y0 = mt;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">AES-%zu</text>\n", x0 + pw / 2 - 25,
            y0 - 4, algo_keylen[a] * 8);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            x0, y0, pw, ph);
    for (double ly = ly0; ly <= ly1 + 1e-9; ly += 1) {
      double y = exp2(ly), py = y0 + ph - (ly - ly0) / (ly1 - ly0) * ph;
      fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                 "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
              x0, x0 + pw, py, py, x0 - 4, py + 4, y);
    }
    for (size_t s = 0; s < NTC; s++) {
      double px = x0 + (log2((double)tc_sizes[s]) - lx0) / (lx1 - lx0) * pw;
      fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                 "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%zu</text>\n",
              px, px, y0, y0 + ph, px, y0 + ph + 14 + (tc_sizes[s] == 1420 ? 10 : 0), tc_sizes[s]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message bytes (log scale)</text>\n",
            x0 + pw / 2, y0 + ph + 40);
    if (a == 0)
      fprintf(f, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">cycles/byte (log scale)</text>\n",
              y0 + ph / 2);
    for (int i = 0, k = 0; i < nimpl; i++) {
      if (!res[i].ok || !res[i].have_tc[a]) continue;
      const char *col = colour[k++ % 10];
      fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
      for (size_t s = 0; s < NTC; s++) {
        double y = res[i].tc_ns[a][s] * res[i].tc_ghz[a] / (double)tc_sizes[s];
        double px = x0 + (log2((double)tc_sizes[s]) - lx0) / (lx1 - lx0) * pw;
        double py = y0 + ph - (log2(y > 0 ? y : exp2(ly0)) - ly0) / (ly1 - ly0) * ph;
        fprintf(f, "%.1f,%.1f ", px, py);
      }
      fprintf(f, "\"/>\n");
    }
  }
  int lx = ml + NALGO * (pw + gap) - 10;
  for (int i = 0, k = 0; i < nimpl; i++) {
    if (!res[i].ok) continue;
    int ly = mt + 10 + k * 20;
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
               "<text x=\"%d\" y=\"%d\">%s</text>\n",
            lx, lx + 24, ly, ly, colour[k % 10], lx + 30, ly + 4, impls[i].label);
    k++;
  }
  fprintf(f, "</svg>\n");
  fclose(f);
}

/* ------------------------------------------------------------------ emulation */

/* qemu-user runs a foreign binary on the host's kernel, so /proc/cpuinfo describes the
 * host, not the architecture this binary was built for (qemu-user fakes it only for a few
 * guests, none of ours). So: built for X but /proc/cpuinfo looks like Y means emulated.
 * STITCHGCM_BENCH_EMULATED=1 (the test script sets it) forces the verdict either way. */
static int detect_emulation(char *why, size_t n) {
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

/* ------------------------------------------------------------------ main */

static void usage(void) {
  puts("usage: bench-gcm [--csv] [--quick] [--repetitions N] [--cpu-mhz auto|N] [--only STR]\n"
       "                 [--out DIR] [--max-tries N] [--algo aes,aes192,aes256] [--no-tcrypt]\n"
       "                 [--interleaved] [--tcrypt-lines]\n"
       "  Prints bench-slope tables (GCM enc/dec/auth) and a tcrypt-style table for stitchgcm\n"
       "  (each backend) and the peers it was built with; writes DIR/bench-gcm.csv and\n"
       "  DIR/bench-gcm.svg (default DIR: .). --csv prints the CSV on stdout instead of tables.\n"
       "  --interleaved: time the repetitions in passes over all sizes instead of each size's\n"
       "  back to back (bench-slope's order, the default); steadier on a loaded machine, but\n"
       "  reads about 10% slower than bench-slope here.\n"
       "  --tcrypt-lines: also print the tcrypt table as Linux tcrypt's log lines.\n"
       "  STITCHGCM_IMPL=<name> narrows stitchgcm to that backend.\n"
       "  STITCHGCM_BENCH_EMULATED=1|0 overrides the emulation check.");
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--csv")) opt.csv = 1;
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
    else if (!strcmp(a, "--algo") && i + 1 < argc) {
      /* comma-separated bench-slope names: aes,aes192,aes256 */
      char *list = strdup(argv[++i]), *save = NULL;
      opt.algos = 0;
      for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = !strcasecmp(t, "aes") || !strcasecmp(t, "aes128") ? 0
                : !strcasecmp(t, "aes192")                       ? 1
                : !strcasecmp(t, "aes256")                       ? 2
                                                                 : -1;
        if (k < 0) { usage(); return 2; }
        opt.algos |= 1u << k;
      }
      free(list);
    }
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); return 0; }
    else { usage(); return 2; }
  }
  if (opt.repetitions < 1) opt.repetitions = 1;
  if (opt.max_tries < 1) opt.max_tries = 1;

  char why[160] = "";
  opt.emulated = detect_emulation(why, sizeof why);
  if (opt.quick && opt.repetitions > 4) opt.repetitions = 4;
  /* Emulated timings mean nothing: spend as little as libgcrypt's regression-test mode. */
  if (opt.emulated) {
    opt.quick = 1;
    if (opt.repetitions > 2) opt.repetitions = 2;
  }

  discover();
  if (nimpl == 0) die("nothing to benchmark");

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
  char subtitle[512];
  snprintf(subtitle, sizeof subtitle, "%s, %s (%s), %ld cpus, load %.2f%s", date, cpu,
           u.machine, sysconf(_SC_NPROCESSORS_ONLN), load,
           opt.emulated ? " -- EMULATED, timings meaningless" : "");

  const char *banner =
      "*** EMULATED (qemu-user): every timing in this run is the emulator's, meaningless for "
      "the hardware; the run only checks that the harness works and the implementations "
      "agree. ***\n";
  if (!opt.csv) {
    printf("bench-gcm: %s\n", subtitle);
    if (opt.emulated) printf("%s(%s)\n", banner, why);
    printf("implementations:");
    for (int i = 0; i < nimpl; i++) printf(" %s", impls[i].label);
    printf("\nrepetitions %d, %s\n\n", opt.repetitions,
           opt.fixed_mhz > 0 ? "fixed Mhz" : "auto Mhz (dependent-chain clock estimate)");
  }

  /* bench-slope warms the CPU up for a second before anything is timed. */
  {
    double t0 = now_ns();
    while (now_ns() - t0 < (opt.quick ? 0.1e9 : 1e9)) {
    }
  }

  for (int i = 0; i < nimpl; i++) {
    fflush(stdout);
    if (!opt.csv) fprintf(stderr, "  measuring %s ...\n", impls[i].label);
    run_child(i);
  }

  /* The check lines: every implementation must give the same fingerprint and pass its
   * known answers and round trips. */
  int bad = 0, ref = -1;
  for (int i = 0; i < nimpl; i++)
    if (res[i].ok && ref < 0) ref = i;
  char checks[MAXIMPL][512];
  for (int i = 0; i < nimpl; i++) {
    int same = ref >= 0 && res[i].ok && res[i].fp == res[ref].fp;
    int good = res[i].ok && same && res[i].fails == 0;
    bad |= !good;
    snprintf(checks[i], sizeof checks[i],
             "check %-*.60s %s: %d messages (McGrew-Viega 4/10/16 + sweep), fingerprint %016llx %s, %d failures",
             label_width(), impls[i].label, good ? "OK  " : "FAIL", res[i].msgs, res[i].fp,
             same ? (i == ref ? "(reference)" : "= reference") : "DIFFERS", res[i].fails);
  }

  char csvpath[1024], svgpath[1024];
  snprintf(csvpath, sizeof csvpath, "%s/bench-gcm.csv", opt.outdir);
  snprintf(svgpath, sizeof svgpath, "%s/bench-gcm.svg", opt.outdir);
  FILE *cf = fopen(csvpath, "w");
  if (cf) {
    fprintf(cf, "# bench-gcm %s%s\n", subtitle, opt.emulated ? " (EMULATED)" : "");
    print_slope_csv(cf);
    print_tc_csv(cf);
    fclose(cf);
  } else {
    fprintf(stderr, "bench-gcm: %s: %s\n", csvpath, strerror(errno));
  }
  if (!opt.no_tcrypt) write_svg(svgpath, subtitle);

  if (opt.csv) {
    if (opt.emulated) printf("# EMULATED: timings meaningless\n");
    print_slope_csv(stdout);
    print_tc_csv(stdout);
    for (int i = 0; i < nimpl; i++) printf("# %s\n", checks[i]);
  } else {
    print_slope_text();
    if (!opt.no_tcrypt) print_tc_text();
    printf("\n");
    for (int i = 0; i < nimpl; i++) printf("%s\n", checks[i]);
    if (opt.no_tcrypt) printf("\nwrote %s\n", csvpath);
    else printf("\nwrote %s and %s\n", csvpath, svgpath);
    if (opt.emulated) printf("%s", banner);
  }
  return bad ? 1 : 0;
}
