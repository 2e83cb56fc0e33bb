/*
 * The interface every implementation under test fills in.
 *
 * An implementation is a set of calls on one keyed handle, made by setup(): the three
 * bench-slope operations (op[]) each make one whole message in place with the fixed 12-byte
 * nonce; seal() and open_() take any IV and AAD, out of place or in place (the check uses
 * them, and so do the tcrypt-style row sets that carry AAD, see rowsets.c). Calls that no
 * library here has yet are slots left NULL; a row set that needs one shows "-" in that
 * implementation's column, or a "not measured" note when nobody has it.
 *
 * A family file (impl-<library>.c) wraps one library and registers its implementations from
 * its register function (stitchgcm registers one per backend, the peers one each).
 * registry.c lists the families; sources.txt lists the files and the peers' build
 * dependencies. Adding a peer: its family file, its line in each of those two lists (and a
 * bench_<peer> option in meson_options.txt).
 */
#ifndef BENCH_GCM_IMPL_H
#define BENCH_GCM_IMPL_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* bench-slope's three operations, in its order. */
enum { MODE_ENC, MODE_DEC, MODE_AUTH, NMODE };

/* One message of a timed operation on a keyed handle, in place. */
typedef void (*run_fn)(void *ctx, uint8_t *buf, size_t len);
/* One message: IV, AAD, data (in == out allowed), the 16-byte tag out. */
typedef void (*seal_fn)(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                        size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                        uint8_t tag[16]);
/* The reverse; returns whether the tag verified. */
typedef int (*open_fn)(void *ctx, const uint8_t *iv, size_t ivlen, const uint8_t *aad,
                       size_t alen, const uint8_t *in, uint8_t *out, size_t len,
                       const uint8_t tag[16]);

/* A range of a handle's memory, for the footprint report (layout, below). */
struct impl_range {
  const char *kind; /* "key": what the key fixes; "state": the message's */
  const void *addr;
  size_t len;
};

struct impl {
  char label[64];      /* the column and row name, e.g. "stitchgcm/soft", "nettle" */
  const char *backend; /* stitchgcm only: the STITCHGCM_IMPL value its worker sets */
  /* Once in the implementation's worker process before anything else (may be NULL). */
  void (*init)(const struct impl *self);
  /* The library's version for the tables; NULL prints "?". */
  void (*version)(char *out, size_t n);
  /* A handle keyed with a 16/24/32-byte AES key (plus a 4-byte salt for the RFC 4106 row
   * set, only in implementations that fill seal_rfc4106). */
  void *(*setup)(const uint8_t *key, size_t keylen);
  void (*teardown)(void *ctx);
  run_fn op[NMODE]; /* GCM enc: setiv + encrypt + gettag; dec: setiv + decrypt + a tag
                     * check that fails; auth: setiv + the buffer as AAD + 1 byte + gettag */
  seal_fn seal;     /* the handle API's message: setiv + AAD + encrypt + gettag */
  open_fn open_;
  /* Slots, NULL until a library has the call (check.c checks seal_keyed against seal, and
   * seal_rfc4106 against draft-mcgrew-gcm-test-01 and against seal with nonce salt || IV): */
  seal_fn seal_keyed;   /* a whole message in one call on a keyed handle (sgcm_aead_seal) */
  seal_fn seal_rfc4106; /* RFC 4106: 8-byte explicit IV, the salt kept by setup() */
  /* nettle's API as GnuTLS drives it per TLS record (nettle family only; check.c checks
   * them against seal and open_): gcm_aesNNN_set_iv, gcm_aesNNN_update, the generic
   * gcm_encrypt/gcm_decrypt(&ctx->gcm, &ctx->key, &ctx->cipher, nettle_aesNNN_encrypt, ...),
   * gcm_aesNNN_digest; open_gnutls then compares the tag in constant time, as GnuTLS does
   * itself. One sequence for bench-gcm's GnuTLS row sets and the whole-call driver. */
  seal_fn seal_gnutls;
  open_fn open_gnutls;
  /* The handle's known ranges (at most 4) for the whole-call driver's --regions (the
   * footprint report); NULL where the layout is the library's secret. */
  size_t (*layout)(const void *ctx, struct impl_range *r);
  /* bench-gcm only: the path of a library the worker must run with LD_PRELOADed (the
   * implementation is then the same calls in a fresh process of this program with that
   * library preloaded; worker.c). NULL: the worker runs in a plain fork. */
  const char *preload;
};

/* The 12-byte nonce of every timed message (McGrew-Viega's). */
extern const uint8_t bench_nonce[12];
/* Keeps results the compiler must not drop (failed tag checks). */
extern volatile unsigned long bench_sink;

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* For the family register functions. */
struct impl *impl_add(const char *label);
/* Whether the function's code lives in libstitchgcm (an interposer won the symbol lookup). */
int impl_lands_in_stitchgcm(void *fn);
/* Whether a loaded object's path (dladdr's dli_fname) is libstitchgcm's: its file name, not
 * the directories, which may hold "stitchgcm" (a clone's .deps, a build root). */
static inline int impl_is_stitchgcm_file(const char *path) {
  const char *name = path ? strrchr(path, '/') : NULL;
  return path && !strncmp(name ? name + 1 : path, "libstitchgcm", 12);
}
/* Set by bench-gcm (main.c) before the families register: they may add implementations
 * that run with libstitchgcm preloaded (struct impl's preload). The whole-call driver leaves
 * it 0: its traced process is preloaded by qemu's environment instead. */
extern int impl_preload_rows;
/* The path of the libstitchgcm this program loaded (what such a row preloads), or NULL. */
const char *impl_stitchgcm_so(void);

#endif
