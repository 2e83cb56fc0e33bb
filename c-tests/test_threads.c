/*
 * Threads from C (pthreads): many threads, each with its own handle and its own nettle
 * contexts, on random key sizes, IVs, AAD and message sizes split at random. Every thread
 * is started and has drawn its work before a barrier; the process's first library call
 * happens after it, in all threads at once, so the one-time backend selection is raced on
 * first use. Then all threads seal and open on the same three keyed handles at once
 * (sgcm_aead_seal/open allow that). Afterwards the main thread recomputes every message
 * alone (sgcm_seal) and the results must be identical. Also built with -fsanitize=thread
 * (scripts/sanitize.sh).
 *
 * usage: test_threads [THREADS [MESSAGES]]     prints "N passed, M failed"
 */
#define _GNU_SOURCE
#include "nettle_abi.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stitchgcm.h>

#define MAXLEN 4500
#define MAXTHREADS 64

typedef struct {
  uint8_t key[32], iv[64], aad[300], pt[MAXLEN], ct[MAXLEN], tag[16];
  size_t key_len, iv_len, aad_len, len, split;
  int api; /* 0: handle, in place, split; 1: one-shot; 2: nettle ABI */
} job;

typedef struct {
  pthread_t thread;
  job *jobs;
  size_t count;
  uint64_t seed;
  const char *backend;
  int failures;
} worker;

static pthread_barrier_t start;
static size_t messages = 40;

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

static void draw(job *j, uint64_t *s) {
  static const size_t keys[] = {16, 24, 32}, ivs[] = {12, 12, 16, 1, 60};
  j->key_len = keys[next(s) % 3];
  j->iv_len = ivs[next(s) % 5];
  j->aad_len = next(s) % 300;
  j->len = next(s) % 4 == 0 ? next(s) % 40 : next(s) % MAXLEN;
  j->split = j->len ? next(s) % (j->len + 1) : 0;
  j->api = (int)(next(s) % 3);
  for (size_t i = 0; i < sizeof j->key; i++) j->key[i] = (uint8_t)next(s);
  for (size_t i = 0; i < sizeof j->iv; i++) j->iv[i] = (uint8_t)next(s);
  for (size_t i = 0; i < j->aad_len; i++) j->aad[i] = (uint8_t)next(s);
  for (size_t i = 0; i < j->len; i++) j->pt[i] = (uint8_t)next(s);
}

static int algo(size_t key_len) {
  return key_len == 16 ? SGCM_CIPHER_AES128 : key_len == 24 ? SGCM_CIPHER_AES192 : SGCM_CIPHER_AES256;
}

/* One message through the job's API; returns nonzero on an error code. */
static int run(job *j) {
  sgcm_error_t e = 0;
  if (j->api == 0) {
    sgcm_cipher_hd_t h;
    if (sgcm_cipher_open(&h, algo(j->key_len), SGCM_MODE_GCM, 0)) return 1;
    memcpy(j->ct, j->pt, j->len);
    e |= sgcm_cipher_setkey(h, j->key, j->key_len);
    e |= sgcm_cipher_setiv(h, j->iv, j->iv_len);
    e |= sgcm_cipher_authenticate(h, j->aad, j->aad_len);
    e |= sgcm_cipher_encrypt(h, j->ct, j->split, NULL, 0);
    e |= sgcm_cipher_encrypt(h, j->ct + j->split, j->len - j->split, NULL, 0);
    e |= sgcm_cipher_gettag(h, j->tag, 16);
    sgcm_cipher_close(h);
  } else if (j->api == 1) {
    e = sgcm_seal(j->key, j->key_len, j->iv, j->iv_len, j->aad, j->aad_len, j->pt, j->len, j->ct,
                  j->tag, 16);
  } else {
    static const int row[33] = {[16] = 0, [24] = 1, [32] = 2};
    const nettle_abi_variant *v = &nettle_abi_variants[row[j->key_len]];
    uint64_t ctx[NETTLE_CTX_MAX / 8];
    size_t first = j->split / 16 * 16;
    v->set_key(ctx, j->key_len, j->key);
    v->set_iv(ctx, j->iv_len, j->iv);
    v->update(ctx, j->aad_len, j->aad);
    v->encrypt(ctx, first, j->ct, j->pt);
    v->encrypt(ctx, j->len - first, j->ct + first, j->pt + first);
    v->digest(ctx, 16, j->tag);
  }
  return e != 0;
}

static void *work(void *arg) {
  worker *w = arg;
  for (size_t i = 0; i < w->count; i++) draw(&w->jobs[i], &w->seed);
  pthread_barrier_wait(&start);
  w->backend = sgcm_impl_name(); /* first library call of the process, in every thread */
  for (size_t i = 0; i < w->count; i++) w->failures += run(&w->jobs[i]);
  return NULL;
}

/* Phase two: every thread seals and opens on the same three keyed handles at once
 * (sgcm_aead_seal/open are documented to allow that). */
static sgcm_cipher_hd_t shared[3];
static const uint8_t shared_key[32] = {7, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
                                       2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5};
static void *work_shared(void *arg) {
  worker *w = arg;
  for (size_t i = 0; i < w->count; i++) draw(&w->jobs[i], &w->seed);
  pthread_barrier_wait(&start);
  uint8_t back[MAXLEN];
  for (size_t i = 0; i < w->count; i++) {
    job *j = &w->jobs[i];
    sgcm_cipher_hd_t h = shared[j->key_len / 8 - 2];
    sgcm_error_t e = sgcm_aead_seal(h, j->iv, j->iv_len, j->aad, j->aad_len, j->pt, j->len,
                                    j->ct, j->tag, 16);
    e |= sgcm_aead_open(h, j->iv, j->iv_len, j->aad, j->aad_len, j->ct, j->len, back, j->tag, 16);
    w->failures += e != 0 || memcmp(back, j->pt, j->len) != 0;
    memcpy(j->key, shared_key, j->key_len); /* what the main thread recomputes with */
  }
  return NULL;
}

/* Runs `fn` on `threads` workers and checks every message against sgcm_seal alone. */
static void run_phase(void *(*fn)(void *), size_t threads, worker *workers, int *passed,
                      int *failed) {
  for (size_t t = 0; t < threads; t++) {
    workers[t].jobs = calloc(messages, sizeof(job));
    workers[t].count = messages;
    workers[t].failures = 0;
    pthread_create(&workers[t].thread, NULL, fn, &workers[t]);
  }
  job *again = malloc(sizeof *again);
  for (size_t t = 0; t < threads; t++) {
    pthread_join(workers[t].thread, NULL);
    worker *w = &workers[t];
    if (w->failures || (fn == work && (!w->backend || strcmp(w->backend, workers[0].backend)))) {
      (*failed)++;
      printf("FAIL thread %zu: %d error codes, backend %s\n", t, w->failures,
             w->backend ? w->backend : "(none)");
    }
    for (size_t i = 0; i < w->count; i++) {
      job *j = &w->jobs[i];
      memcpy(again, j, sizeof *again);
      again->api = 1;
      int ok = run(again) == 0 && memcmp(again->ct, j->ct, j->len) == 0 &&
               memcmp(again->tag, j->tag, 16) == 0;
      ok ? (*passed)++ : (*failed)++;
      if (!ok)
        printf("FAIL thread %zu message %zu (api %d, key %zu, iv %zu, aad %zu, len %zu)\n", t, i,
               j->api, j->key_len, j->iv_len, j->aad_len, j->len);
    }
    free(w->jobs);
  }
  free(again);
}

int main(int argc, char **argv) {
  size_t threads = argc > 1 ? (size_t)atoi(argv[1]) : 12;
  if (argc > 2) messages = (size_t)atoi(argv[2]);
  if (threads < 1 || threads > MAXTHREADS) return 2;
  static worker workers[MAXTHREADS];
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (size_t t = 0; t < threads; t++) workers[t].seed = 0x9e3779b97f4a7c15ull * (t + 1);
  int passed = 0, failed = 0;
  run_phase(work, threads, workers, &passed, &failed);
  for (int k = 0; k < 3; k++) {
    sgcm_cipher_open(&shared[k], SGCM_CIPHER_AES128 + k, SGCM_MODE_GCM, 0);
    if (sgcm_cipher_setkey(shared[k], shared_key, 16 + 8 * (size_t)k)) failed++;
  }
  run_phase(work_shared, threads, workers, &passed, &failed);
  for (int k = 0; k < 3; k++) sgcm_cipher_close(shared[k]);
  printf("threads: %zu threads x %zu messages on %s (own handles and contexts), then the same\n"
         "  on three shared handles at once (sgcm_aead_seal/open), each recomputed on one thread\n",
         threads, messages, workers[0].backend ? workers[0].backend : "(none)");
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
