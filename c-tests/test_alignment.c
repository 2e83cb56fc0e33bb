/*
 * Strict alignment: every caller buffer and every nettle context at every offset 0..15
 * from a 16-byte boundary, results compared with the same message at aligned addresses
 * (sgcm_seal; itself checked against McGrew-Viega test case 4 first). The nettle
 * contexts are struct gcm_aes128_ctx & co. reached through our exported nettle_gcm_*
 * functions (c-tests/nettle_abi.h; no libnettle); a context keyed at one offset and then
 * memcpy'd to another must keep working. nettle's ABI promises 8-byte alignment, but the
 * library must not rely on it (no reference to a caller struct at an unchecked address):
 * on ARMv7 a misaligned doubleword or multiple load faults, which qemu-arm reproduces.
 * Each (front-end, offset) group runs in a forked child, so a fault names its offset.
 *
 * usage: test_alignment        prints "N passed, M failed"
 */
#define _GNU_SOURCE
#include "nettle_abi.h"
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stitchgcm.h>

#define MAXLEN 1000
static const size_t lens[] = {0, 1, 15, 16, 17, 64, 129, 1000};
#define NLENS (sizeof lens / sizeof lens[0])

static int failures;
static void fail(const char *what, size_t off, size_t off2, size_t key_len, size_t len) {
  failures++;
  printf("FAIL %s: offsets %zu/%zu, AES-%zu, %zu bytes\n", what, off, off2, 8 * key_len, len);
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131 + i * 29 + (i >> 3));
}

/* The reference: one message at aligned addresses. */
typedef struct {
  _Alignas(16) uint8_t key[32];
  _Alignas(16) uint8_t iv[16];
  _Alignas(16) uint8_t aad[40];
  _Alignas(16) uint8_t pt[MAXLEN];
  _Alignas(16) uint8_t ct[MAXLEN];
  _Alignas(16) uint8_t tag[16];
  size_t key_len, iv_len, aad_len, len;
} message;

static void make(message *m, size_t key_len, size_t iv_len, size_t len, unsigned seed) {
  m->key_len = key_len, m->iv_len = iv_len, m->len = len, m->aad_len = 13 + seed % 27;
  fill(m->key, 32, seed);
  fill(m->iv, 16, seed + 1);
  fill(m->aad, 40, seed + 2);
  fill(m->pt, len, seed + 3);
  if (sgcm_seal(m->key, key_len, m->iv, iv_len, m->aad, m->aad_len, m->pt, len, m->ct, m->tag,
                16))
    failures++, printf("FAIL reference seal\n");
}

/* A 16-byte aligned arena; `at(o)` is `o` bytes past an alignment boundary. */
static _Alignas(64) uint8_t arena[8][NETTLE_CTX_MAX + 64 + MAXLEN];
static uint8_t *at(int slot, size_t off) { return arena[slot] + 16 + off; }

/* The handle API and the one-shot functions with every buffer at `off`. */
static void native_at(size_t off) {
  for (size_t k = 16; k <= 32; k += 8)
    for (size_t li = 0; li < NLENS; li++) {
      message m;
      make(&m, k, li % 2 ? 12 : 16, lens[li], (unsigned)(off + li));
      uint8_t *key = at(0, off), *iv = at(1, (off + 3) % 16), *aad = at(2, (off + 5) % 16),
              *src = at(3, off), *dst = at(4, (off + 9) % 16), *tag = at(5, (off + 11) % 16);
      memcpy(key, m.key, k);
      memcpy(iv, m.iv, m.iv_len);
      memcpy(aad, m.aad, m.aad_len);
      memcpy(src, m.pt, m.len);
      sgcm_cipher_hd_t h;
      sgcm_error_t e = sgcm_cipher_open(&h, k == 16 ? SGCM_CIPHER_AES128 : k == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256, SGCM_MODE_GCM, 0);
      e |= sgcm_cipher_setkey(h, key, k);
      e |= sgcm_cipher_setiv(h, iv, m.iv_len);
      e |= sgcm_cipher_authenticate(h, aad, m.aad_len);
      size_t half = m.len / 2;
      e |= sgcm_cipher_encrypt(h, dst, half, src, half);
      e |= sgcm_cipher_encrypt(h, dst + half, m.len - half, src + half, m.len - half);
      e |= sgcm_cipher_gettag(h, tag, 16);
      if (e || memcmp(dst, m.ct, m.len) || memcmp(tag, m.tag, 16)) fail("handle", off, off, k, m.len);
      /* In place, decrypting, with checktag from the odd address. */
      e = sgcm_cipher_setiv(h, iv, m.iv_len);
      e |= sgcm_cipher_authenticate(h, aad, m.aad_len);
      e |= sgcm_cipher_decrypt(h, dst, m.len, NULL, 0);
      e |= sgcm_cipher_checktag(h, tag, 16);
      if (e || memcmp(dst, m.pt, m.len)) fail("handle decrypt in place", off, off, k, m.len);
      sgcm_cipher_close(h);
      memset(dst, 0, m.len);
      e = sgcm_seal(key, k, iv, m.iv_len, aad, m.aad_len, src, m.len, dst, tag, 16);
      if (e || memcmp(dst, m.ct, m.len) || memcmp(tag, m.tag, 16)) fail("seal", off, off, k, m.len);
      e = sgcm_open(key, k, iv, m.iv_len, aad, m.aad_len, dst, m.len, src, tag, 16);
      if (e || memcmp(src, m.pt, m.len)) fail("open", off, off, k, m.len);
    }
}

/* One nettle variant with its context at `ctx_off` (and, if `moved` differs, keyed there
 * and then memcpy'd to `moved`), data buffers at offsets derived from it. */
static void nettle_at(const nettle_abi_variant *v, size_t ctx_off, size_t moved) {
  for (size_t li = 0; li < NLENS; li++) {
    message m;
    make(&m, v->key_len, li % 2 ? 12 : 16, lens[li], (unsigned)(ctx_off * 8 + li));
    uint8_t *ctx = at(6, ctx_off), *src = at(3, (ctx_off + 1) % 16),
            *dst = at(4, (ctx_off + 7) % 16), *aad = at(2, (ctx_off + 13) % 16),
            *tag = at(5, (ctx_off + 2) % 16);
    memcpy(src, m.pt, m.len);
    memcpy(aad, m.aad, m.aad_len);
    v->set_key(ctx, m.key_len, m.key);
    if (moved != ctx_off) {
      uint8_t *to = at(7, moved);
      memcpy(to, ctx, v->ctx_size);
      memset(ctx, 0xee, v->ctx_size);
      ctx = to;
    }
    /* nettle: AAD and data in multiples of 16 except the last call. */
    size_t a1 = m.aad_len / 32 * 16, d1 = m.len / 32 * 16;
    v->set_iv(ctx, m.iv_len, m.iv);
    v->update(ctx, a1, aad);
    v->update(ctx, m.aad_len - a1, aad + a1);
    v->encrypt(ctx, d1, dst, src);
    v->encrypt(ctx, m.len - d1, dst + d1, src + d1);
    v->digest(ctx, 16, tag);
    if (memcmp(dst, m.ct, m.len) || memcmp(tag, m.tag, 16))
      fail(v->name, ctx_off, moved, v->key_len, m.len);
    v->set_iv(ctx, m.iv_len, m.iv);
    v->update(ctx, m.aad_len, aad);
    v->decrypt(ctx, m.len, dst, dst); /* in place */
    v->digest(ctx, 12, tag);
    if (memcmp(dst, m.pt, m.len) || memcmp(tag, m.tag, 12))
      fail(v->name, ctx_off, moved, v->key_len, m.len);
  }
}

/* The generic gcm_* functions with gcm_key and gcm_ctx at independent offsets over a
 * caller's block function: a keyed, branch-free byte permutation is enough here, since the
 * result is compared with the same calls at aligned addresses (AES through these
 * functions is covered by scripts/test-nettle.sh against libnettle). */
static const uint8_t *generic_key;
static void one_block(const void *ctx, size_t n, uint8_t *dst, const uint8_t *src) {
  (void)ctx;
  for (size_t i = 0; i < n; i++) dst[i] = (uint8_t)(src[i] * 5 + generic_key[i % 16] + i % 16);
}

static void generic_at(size_t key_off, size_t ctx_off, uint8_t *want_ct, uint8_t *want_tag,
                       const message *m) {
  uint8_t *key = at(6, key_off), *gcm = at(7, ctx_off), *dst = at(4, (key_off + 5) % 16);
  nettle_gcm_set_key(key, NULL, one_block);
  nettle_gcm_set_iv(gcm, key, m->iv_len, m->iv);
  nettle_gcm_update(gcm, key, m->aad_len, m->aad);
  nettle_gcm_encrypt(gcm, key, NULL, one_block, m->len, dst, m->pt);
  uint8_t tag[16];
  nettle_gcm_digest(gcm, key, NULL, one_block, 16, tag);
  if (want_ct) {
    memcpy(want_ct, dst, m->len);
    memcpy(want_tag, tag, 16);
  } else if (memcmp(dst, m->ct, m->len) || memcmp(tag, m->tag, 16)) {
    fail("generic gcm_* (key/ctx)", key_off, ctx_off, 16, m->len);
  }
}

static void generic_all(size_t off) {
  message m;
  make(&m, 16, 16, 129, 77);
  generic_key = m.key;
  /* The reference for the toy cipher: the same calls at aligned addresses. */
  generic_at(0, 0, m.ct, m.tag, &m);
  for (size_t c = 0; c < 16; c++) generic_at(off, c, NULL, NULL, &m);
}

/* McGrew-Viega test case 4 through sgcm_seal: the reference itself is right. */
static int reference_ok(void) {
  static const uint8_t k[16] = {0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c,
                                0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08};
  static const uint8_t iv[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
  static const uint8_t aad[20] = {0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed,
                                  0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xab, 0xad, 0xda, 0xd2};
  static const uint8_t want[16] = {0x5b, 0xc9, 0x4f, 0xbc, 0x32, 0x21, 0xa5, 0xdb,
                                   0x94, 0xfa, 0xe9, 0x5a, 0xe7, 0x12, 0x1a, 0x47};
  uint8_t pt[60], ct[60], tag[16];
  static const char *hex = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                           "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
  for (int i = 0; i < 60; i++) sscanf(hex + 2 * i, "%2hhx", &pt[i]);
  return sgcm_seal(k, 16, iv, 12, aad, 20, pt, 60, ct, tag, 16) == 0 && !memcmp(tag, want, 16);
}

int main(void) {
  int passed = 0, failed = 0;
  if (!reference_ok()) {
    printf("FAIL the reference (McGrew-Viega test case 4)\n0 passed, 1 failed\n");
    return 1;
  }
  /* group g: 0 native, 1..6 the nettle variants, 7 nettle moved, 8 generic; x 16 offsets */
  for (int g = 0; g < 9; g++)
    for (size_t off = 0; off < 16; off++) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) {
        failures = 0;
        if (g == 0) native_at(off);
        else if (g <= NETTLE_ABI_VARIANTS) nettle_at(&nettle_abi_variants[g - 1], off, off);
        else if (g == 7) for (int v = 0; v < NETTLE_ABI_VARIANTS; v++) nettle_at(&nettle_abi_variants[v], 0, off), nettle_at(&nettle_abi_variants[v], off, (off * 5 + 3) % 16);
        else generic_all(off);
        fflush(stdout);
        _exit(failures ? 1 : 0);
      }
      int status;
      waitpid(pid, &status, 0);
      static const char *names[] = {"native", "gcm_aes128", "gcm_aes192", "gcm_aes256", "gcm_aes/128", "gcm_aes/192", "gcm_aes/256", "memcpy'd contexts", "generic gcm_*"};
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        passed++;
      } else {
        failed++;
        if (WIFSIGNALED(status))
          printf("FAIL %s at offset %zu: killed by signal %d (%s)\n", names[g], off, WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
          printf("FAIL %s at offset %zu\n", names[g], off);
      }
    }
  printf("alignment: 9 front-end groups x 16 offsets (%zu message lengths, 3 key sizes each)\n", NLENS);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
