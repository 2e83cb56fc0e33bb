/*
 * What only the interposer does, run with LD_PRELOAD=libstitchgcm-gcrypt.so (the program
 * checks that the gcry_cipher_* functions it calls are the interposer's):
 *
 * - handles: ours carry their own magic word, libgcrypt's (every other cipher or mode,
 *   and AES-GCM with ENABLE_SYNC) keep libgcrypt's;
 * - bad input never crashes: NULL handles, foreign pointers and closed secure handles get
 *   an error from every function, NULL buffers with a length too; closing a closed or
 *   foreign handle is libgcrypt's own fatal error (run in a child process);
 * - the deliberate differences, each next to what the real libgcrypt does (its functions
 *   taken from the loaded libgcrypt.so.20): setiv of 12 bytes before any key is an error
 *   (libgcrypt crashes); setctr inside a partial block is NOT_SUPPORTED (libgcrypt moves
 *   the keystream off the GHASH blocks); a message abandoned inside a block leaves nothing
 *   behind (libgcrypt feeds the stale bytes into the next message's GHASH);
 * - in and out overlapping other than in place: as if the input had been copied first;
 * - libgcrypt 1.11's gcry_cipher_setup_geniv/gcry_cipher_geniv on our handles (looked up
 *   at run time: the 1.10 headers and library do not have them), and on forwarded ones
 *   libgcrypt's own answers where the loaded libgcrypt (1.11 or later, by its version) has
 *   them;
 * - GCRY_CIPHER_SECURE handles live in locked memory (VmLck grows) that is wiped on close.
 *
 * usage: test_gcrypt_preload
 */
#define _GNU_SOURCE
#include "test_gcrypt.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int failures, checks;

#define EXPECT(call, want)                                                               \
  do {                                                                                   \
    gcry_error_t got_ = (call);                                                          \
    CHECK(got_ == (gcry_error_t)(want), "%s = 0x%08x, want 0x%08x", #call, got_, (unsigned)(want)); \
  } while (0)

static uint32_t first_word(gcry_cipher_hd_t h) {
  uint32_t w;
  memcpy(&w, (void *)h, 4);
  return w;
}

/* Runs f in a child; returns its wait status. */
static int in_child(void (*f)(void *), void *arg) {
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    f(arg);
    _exit(0);
  }
  int st = 0;
  waitpid(p, &st, 0);
  return st;
}

static void close_it(void *h) { gcry_cipher_close((gcry_cipher_hd_t)h); }

/* The real libgcrypt's functions, for the deliberate differences. */
static void *real_lib;
static void *real(const char *name) { return dlvsym(real_lib, name, "GCRYPT_1.6"); }

typedef gcry_error_t (*setiv_fn)(gcry_cipher_hd_t, const void *, size_t);
static void real_setiv12(void *h) {
  uint8_t iv[12] = {0};
  ((setiv_fn)real("gcry_cipher_setiv"))((gcry_cipher_hd_t)h, iv, 12);
}

static void handles(void) {
  gcry_cipher_hd_t g, s, cbc, sync;
  EXPECT(gcry_cipher_open(&g, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  EXPECT(gcry_cipher_open(&s, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_SECURE), 0);
  EXPECT(gcry_cipher_open(&cbc, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CBC, 0), 0);
  EXPECT(gcry_cipher_open(&sync, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_ENABLE_SYNC), 0);
  CHECK(first_word(g) == 0x53474347 && first_word(s) == 0x53474347, "our magic");
  CHECK(first_word(cbc) == 0x24091964 && first_word(sync) == 0x24091964, "libgcrypt's magic");
  gcry_cipher_close(g), gcry_cipher_close(s), gcry_cipher_close(cbc), gcry_cipher_close(sync);
}

/* Every handle function on a handle that is not one: `bad_src1` / `bad_src32` are the
 * expected answers with error source 1 and 32. */
static void refused(gcry_cipher_hd_t h, gcry_error_t bad_src1, gcry_error_t bad_src32) {
  uint8_t b[32] = {0}, o[32];
  memset(o, 0x77, sizeof o);
  EXPECT(gcry_cipher_setkey(h, b, 16), bad_src32);
  EXPECT(gcry_cipher_setiv(h, b, 12), bad_src32);
  EXPECT(gcry_cipher_setctr(h, b, 16), bad_src32);
  EXPECT(gcry_cipher_authenticate(h, b, 16), bad_src1);
  EXPECT(gcry_cipher_encrypt(h, o, 16, b, 16), bad_src1);
  EXPECT(gcry_cipher_decrypt(h, o, 16, NULL, 0), bad_src1);
  CHECK(o[0] == 0x77 && o[15] == 0x77, "output untouched");
  EXPECT(gcry_cipher_gettag(h, o, 16), bad_src1);
  EXPECT(gcry_cipher_checktag(h, o, 16), bad_src1);
  EXPECT(gcry_cipher_ctl(h, GCRYCTL_RESET, NULL, 0), bad_src1);
  EXPECT(gcry_cipher_ctl(h, GCRYCTL_CFB_SYNC, NULL, 0), bad_src1);
  typedef gcry_error_t (*geniv_fn)(gcry_cipher_hd_t, void *, size_t);
  EXPECT(((geniv_fn)dlsym(RTLD_DEFAULT, "gcry_cipher_geniv"))(h, o, 12), bad_src32);
}

static void bad_input(void) {
  uint8_t foreign[64];
  memset(foreign, 0x5a, sizeof foreign);
  refused(NULL, 0x0100002d, 0x2000002d);
  refused((gcry_cipher_hd_t)foreign, 0x01000049, 0x20000049);
  CHECK(foreign[0] == 0x5a && foreign[63] == 0x5a, "foreign memory untouched");
  EXPECT(gcry_cipher_open(NULL, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0x0100002d);
  gcry_cipher_close(NULL);
  size_t n;
  EXPECT(gcry_cipher_info(NULL, GCRYCTL_GET_TAGLEN, NULL, &n), 0x0100002d);
  EXPECT(gcry_cipher_info((gcry_cipher_hd_t)foreign, GCRYCTL_GET_TAGLEN, NULL, &n), 0x01000049);

  /* A closed secure handle stays mapped (wiped) and is refused. */
  gcry_cipher_hd_t s;
  uint8_t key[32] = {1};
  EXPECT(gcry_cipher_open(&s, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_SECURE), 0);
  EXPECT(gcry_cipher_setkey(s, key, 32), 0);
  gcry_cipher_close(s);
  int zero = 1;
  for (size_t i = 0; i < 4096; i++) zero &= ((volatile uint8_t *)s)[i] == 0;
  CHECK(zero, "a closed secure handle is wiped");
  refused(s, 0x01000049, 0x20000049);
  /* Closing it again, or a foreign pointer: libgcrypt's fatal error, as for its own. */
  int st = in_child(close_it, s);
  CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0), "double close is libgcrypt's fatal error");
  st = in_child(close_it, foreign);
  CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 0), "closing a foreign pointer too");

  /* NULL buffers with a length, on a live handle. */
  gcry_cipher_hd_t h;
  uint8_t o[16];
  memset(o, 0, 16);
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  EXPECT(gcry_cipher_setkey(h, NULL, 16), 0x2000002d);
  EXPECT(gcry_cipher_setkey(h, key, 16), 0);
  EXPECT(gcry_cipher_setiv(h, NULL, 12), 0x2000002d);
  EXPECT(gcry_cipher_setctr(h, NULL, 16), 0); /* NULL counter = zero block, as libgcrypt */
  EXPECT(gcry_cipher_authenticate(h, NULL, 5), 0x0100002d);
  EXPECT(gcry_cipher_encrypt(h, NULL, 16, key, 16), 0x0100002d);
  EXPECT(gcry_cipher_encrypt(h, o, 16, NULL, 0), 0);
  EXPECT(gcry_cipher_gettag(h, NULL, 16), 0x0100002d);
  EXPECT(gcry_cipher_checktag(h, NULL, 16), 0x0100002d);
  EXPECT(gcry_cipher_gettag(h, o, 16), 0); /* the tag was computed by the first gettag */
  gcry_cipher_close(h);
}

static void differences(void) {
  typedef gcry_error_t (*open_fn)(gcry_cipher_hd_t *, int, int, unsigned);
  typedef gcry_error_t (*data_fn)(gcry_cipher_hd_t, const void *, size_t);
  typedef gcry_error_t (*crypt_fn)(gcry_cipher_hd_t, void *, size_t, const void *, size_t);
  typedef gcry_error_t (*tag_fn)(gcry_cipher_hd_t, void *, size_t);
  open_fn r_open = (open_fn)real("gcry_cipher_open");
  data_fn r_setkey = (data_fn)real("gcry_cipher_setkey"), r_setiv = (data_fn)real("gcry_cipher_setiv"),
          r_setctr = (data_fn)real("gcry_cipher_setctr"), r_auth = (data_fn)real("gcry_cipher_authenticate");
  crypt_fn r_encrypt = (crypt_fn)real("gcry_cipher_encrypt");
  tag_fn r_gettag = (tag_fn)real("gcry_cipher_gettag");
  void (*r_close)(gcry_cipher_hd_t) = (void (*)(gcry_cipher_hd_t))real("gcry_cipher_close");
  CHECK(r_open && r_setkey && r_setiv && r_setctr && r_auth && r_encrypt && r_gettag && r_close,
        "the real libgcrypt's functions");
  if (!r_close) return;
  /* iv: 12 bytes for setiv, 16 for setctr (libgcrypt reads all 16). */
  uint8_t key[16] = {3}, iv[16] = {4}, d[32] = {5}, o[32], t_ours[16], t_real[16], t_fresh[16];
  gcry_cipher_hd_t h, r;

  /* setiv(12) before any key: an error here, a crash in libgcrypt. */
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  EXPECT(gcry_cipher_setiv(h, iv, 12), 0x2000009c);
  r_open(&r, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0);
  int st = in_child(real_setiv12, r);
  CHECK(WIFSIGNALED(st), "libgcrypt's setiv(12) before setkey crashes (status 0x%x)", st);

  /* setctr inside a block of text. */
  gcry_cipher_setkey(h, key, 16), r_setkey(r, key, 16);
  gcry_cipher_setiv(h, iv, 12), r_setiv(r, iv, 12);
  gcry_cipher_encrypt(h, o, 5, d, 5), r_encrypt(r, o, 5, d, 5);
  EXPECT(gcry_cipher_setctr(h, iv, 16), 0x2000003c);
  EXPECT(r_setctr(r, iv, 16), 0);

  /* A message abandoned inside a block of AAD, then a new IV: the next tag here is the
   * standard one; libgcrypt's GHASH still holds the 5 stale bytes. */
  gcry_cipher_setiv(h, iv, 12), r_setiv(r, iv, 12);
  gcry_cipher_authenticate(h, d, 5), r_auth(r, d, 5);
  gcry_cipher_setiv(h, iv, 12), r_setiv(r, iv, 12);
  gcry_cipher_authenticate(h, d, 16), r_auth(r, d, 16);
  gcry_cipher_gettag(h, t_ours, 16), r_gettag(r, t_real, 16);
  gcry_cipher_setiv(h, iv, 12), r_setiv(r, iv, 12);
  gcry_cipher_authenticate(h, d, 16);
  gcry_cipher_gettag(h, t_fresh, 16);
  CHECK(!memcmp(t_ours, t_fresh, 16), "an abandoned block leaves nothing behind here");
  CHECK(memcmp(t_real, t_fresh, 16), "libgcrypt carries the abandoned block over (else update docs/libgcrypt.md)");
  gcry_cipher_close(h), r_close(r);

  /* encrypt with out == NULL (an error here, a crash in libgcrypt) ends the AAD as
   * libgcrypt does before it writes, here as after an encrypt of 0 bytes there: a re-key
   * in mid-message then leaves the same tag (found by fuzz/fuzz_targets/gcrypt_abi.rs). */
  uint8_t key2[16] = {6};
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  r_open(&r, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0);
  gcry_cipher_setkey(h, key, 16), r_setkey(r, key, 16);
  gcry_cipher_setiv(h, iv, 12), r_setiv(r, iv, 12);
  gcry_cipher_authenticate(h, d, 5), r_auth(r, d, 5);
  EXPECT(gcry_cipher_encrypt(h, NULL, 27, d, 27), 0x0100002d);
  EXPECT(r_encrypt(r, o, 0, d, 0), 0);
  gcry_cipher_setkey(h, key2, 16), r_setkey(r, key2, 16);
  EXPECT(gcry_cipher_authenticate(h, d, 1), 0x0100009c);
  gcry_cipher_gettag(h, t_ours, 16), r_gettag(r, t_real, 16);
  CHECK(!memcmp(t_ours, t_real, 16), "out == NULL ends the AAD as libgcrypt's data does");
  gcry_cipher_close(h), r_close(r);
}

static void geniv(void) {
  typedef gcry_error_t (*setup_fn)(gcry_cipher_hd_t, int, const void *, size_t, const void *, size_t);
  typedef gcry_error_t (*geniv_fn)(gcry_cipher_hd_t, void *, size_t);
  setup_fn setup = (setup_fn)dlsym(RTLD_DEFAULT, "gcry_cipher_setup_geniv");
  geniv_fn gen = (geniv_fn)dlsym(RTLD_DEFAULT, "gcry_cipher_geniv");
  CHECK(setup && gen, "geniv exported");
  if (!setup || !gen) return;
  uint8_t key[16] = {7}, fixed[4] = {0xa, 0xb, 0xc, 0xd}, dyn[8] = {0, 0, 0, 0, 0, 0, 0xff, 0xfe};
  uint8_t iv[12], want[12], o1[20], o2[20], t1[16], t2[16], d[20] = {1};
  gcry_cipher_hd_t h;
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  EXPECT(gen(h, iv, 12), 0x2000002d); /* not set up */
  EXPECT(setup(h, 2, fixed, 4, dyn, 8), 0x2000002d);
  EXPECT(setup(h, 1, fixed, 9, dyn, 8), 0x2000002d);
  EXPECT(setup(h, 1, NULL, 4, dyn, 8), 0x2000002d);
  EXPECT(setup(h, 1, fixed, 4, dyn, 8), 0);
  EXPECT(gen(h, iv, 11), 0x2000002d);
  EXPECT(gen(h, iv, 12), 0x2000009c); /* no key yet: setiv's error; the counter moves on */
  EXPECT(gcry_cipher_setkey(h, key, 16), 0);
  static const uint8_t tails[][2] = {{0xff, 0xff}, {0x00, 0x00}};
  for (int i = 0; i < 2; i++) {
    memcpy(want, fixed, 4), memcpy(want + 4, dyn, 6), want[10] = tails[i][0], want[11] = tails[i][1];
    if (i) want[9] = 1; /* the carry */
    EXPECT(gen(h, iv, 12), 0);
    CHECK(!memcmp(iv, want, 12), "geniv %d: fixed || counter", i);
    gcry_cipher_encrypt(h, o1, 20, d, 20), gcry_cipher_gettag(h, t1, 16);
    gcry_cipher_setiv(h, want, 12);
    gcry_cipher_encrypt(h, o2, 20, d, 20), gcry_cipher_gettag(h, t2, 16);
    CHECK(!memcmp(o1, o2, 20) && !memcmp(t1, t2, 16), "geniv %d sets that IV", i);
  }
  gcry_cipher_close(h);
  /* The loaded libgcrypt has the pair from 1.11 on (its version read at run time, not the
     headers'), and only then; a forwarded handle gets libgcrypt's answers (each next to the
     same call on a real handle), or NOT_IMPLEMENTED before 1.11. */
  const char *version = gcry_check_version(NULL);
  int since_1_11 = gcry_check_version("1.11.0") != NULL;
  setup_fn r_setup = (setup_fn)real("gcry_cipher_setup_geniv");
  geniv_fn r_gen = (geniv_fn)real("gcry_cipher_geniv");
  printf("libgcrypt %s: setup_geniv/geniv %s\n", version, r_setup && r_gen ? "exported" : "absent");
  CHECK(!!r_setup == since_1_11 && !!r_gen == since_1_11,
        "libgcrypt %s exports setup_geniv and geniv if and only if it is 1.11 or later", version);
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CBC, 0), 0);
  if (r_setup && r_gen) {
    typedef gcry_error_t (*open_fn)(gcry_cipher_hd_t *, int, int, unsigned);
    typedef void (*close_fn)(gcry_cipher_hd_t);
    gcry_cipher_hd_t r;
    uint8_t iv_real[12] = {0};
    memset(iv, 0, sizeof iv);
    CHECK(((open_fn)real("gcry_cipher_open"))(&r, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CBC, 0) == 0,
          "real CBC handle");
    gcry_error_t a = setup(h, 1, fixed, 4, dyn, 8), b = r_setup(r, 1, fixed, 4, dyn, 8);
    CHECK(a == b, "forwarded setup_geniv = 0x%08x, libgcrypt's 0x%08x", a, b);
    a = gen(h, iv, 12), b = r_gen(r, iv_real, 12);
    CHECK(a == b && !memcmp(iv, iv_real, 12), "forwarded geniv = 0x%08x, libgcrypt's 0x%08x", a, b);
    ((close_fn)real("gcry_cipher_close"))(r);
  } else {
    EXPECT(setup(h, 1, fixed, 4, dyn, 8), 0x20000045);
    EXPECT(gen(h, iv, 12), 0x20000045);
  }
  gcry_cipher_close(h);
}

/* In and out overlapping other than in place: as if the input had been copied first. */
static void overlap(void) {
  uint8_t key[16] = {8}, iv[12] = {9}, buf[64], want[64], t1[16], t2[16];
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)i;
  memcpy(want, buf + 8, 40); /* the input below */
  gcry_cipher_hd_t h;
  EXPECT(gcry_cipher_open(&h, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0), 0);
  gcry_cipher_setkey(h, key, 16);
  gcry_cipher_setiv(h, iv, 12);
  EXPECT(gcry_cipher_encrypt(h, want, 40, NULL, 0), 0); /* in place on a copy */
  gcry_cipher_gettag(h, t1, 16);
  for (int shift = -3; shift <= 3; shift += 6) {
    for (int i = 0; i < 64; i++) buf[i] = (uint8_t)i;
    uint8_t *in = buf + 8, *out = buf + 8 + shift;
    gcry_cipher_setiv(h, iv, 12);
    EXPECT(gcry_cipher_encrypt(h, out, 40, in, 40), 0);
    gcry_cipher_gettag(h, t2, 16);
    CHECK(!memcmp(out, want, 40) && !memcmp(t1, t2, 16), "overlap by %d", shift);
  }
  gcry_cipher_close(h);
}

static long vm_locked_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[128];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmLck: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

static void secure_memory(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (1 << 20)) {
    printf("(RLIMIT_MEMLOCK %lu: lock check skipped)\n", (unsigned long)rl.rlim_cur);
    return;
  }
#ifdef __SANITIZE_ADDRESS__
  printf("(AddressSanitizer makes mlock a no-op: lock check skipped)\n");
  return;
#endif
  long before = vm_locked_kb();
  gcry_cipher_hd_t s;
  EXPECT(gcry_cipher_open(&s, GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_SECURE), 0);
  long after = vm_locked_kb();
  CHECK(after >= before + 4, "a secure handle is locked in memory (VmLck %ld -> %ld kB)", before, after);
  gcry_cipher_close(s);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  Dl_info info;
  if (!dladdr((void *)&gcry_cipher_open, &info) || !info.dli_fname || !strstr(info.dli_fname, "libstitchgcm-gcrypt")) {
    printf("FAIL: gcry_cipher_open is not the interposer's (run with LD_PRELOAD=libstitchgcm-gcrypt.so)\n0 passed, 1 failed\n");
    return 1;
  }
  real_lib = dlopen("libgcrypt.so.20", RTLD_LAZY | RTLD_NOLOAD);
  gcry_check_version(NULL);
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0); /* so that only our secure pages are locked */
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  secure_memory(); /* first: later secure handles reuse its locked block */
  handles();
  bad_input();
  differences();
  overlap();
  geniv();
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
