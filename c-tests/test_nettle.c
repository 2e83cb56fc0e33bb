/*
 * The nettle ABI, exercised through nettle's own headers (nettle-dev) and linked with
 * -lnettle. Its output is a transcript of ciphertexts and digests; scripts/test-nettle.sh
 * runs it with plain libnettle, with LD_PRELOAD=libstitchgcm.so and relinked with
 * -lstitchgcm ahead of -lnettle, and requires the transcripts to be identical (and the
 * nettle_gcm_* symbols to be bound to stitchgcm in the last two runs).
 *
 * Besides the transcript the program checks what it can on its own: published vectors,
 * decrypt(encrypt(x)) = x with the same digest, and that memcpy'd contexts, GnuTLS-style
 * mixed calls and the deprecated gcm_aes_* interface agree with the plain AES-GCM calls.
 * Misuse that nettle answers with an assertion failure (abort) is run in child processes
 * and reported as "abort".
 *
 * usage: test_nettle [--quick]
 */
#define _GNU_SOURCE
#include <nettle/aes.h>
#include <nettle/camellia.h>
#include <nettle/gcm.h>
#include <nettle/nettle-meta.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transcript.h"

static int failures, checks;

/* A running hash of the transcript (FNV-1a) plus printed lines for the first cases. */
static uint64_t transcript = 0xcbf29ce484222325ull;
static void emit(const char *label, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) transcript = (transcript ^ p[i]) * 0x100000001b3ull;
  printf("%s:", label);
  size_t show = n < 48 ? n : 48;
  for (size_t i = 0; i < show; i++) printf("%02x", p[i]);
  if (n > show) printf("..(%zu)", n);
  printf("\n");
}

/* ------------------------------------------------------------------ per-size dispatch */

typedef struct {
  const char *name;
  size_t key_len;
  size_t ctx_size;
  void (*set_key)(void *, const uint8_t *);
  void (*set_iv)(void *, size_t, const uint8_t *);
  void (*update)(void *, size_t, const uint8_t *);
  void (*encrypt)(void *, size_t, uint8_t *, const uint8_t *);
  void (*decrypt)(void *, size_t, uint8_t *, const uint8_t *);
  void (*digest)(void *, size_t, uint8_t *);
  nettle_cipher_func *aes_encrypt;
  nettle_set_key_func *aes_set_encrypt_key;
} variant;

#define VARIANT(n)                                                                         \
  {"gcm_aes" #n, n / 8, sizeof(struct gcm_aes##n##_ctx),                                  \
   (void (*)(void *, const uint8_t *))gcm_aes##n##_set_key,                                \
   (void (*)(void *, size_t, const uint8_t *))gcm_aes##n##_set_iv,                         \
   (void (*)(void *, size_t, const uint8_t *))gcm_aes##n##_update,                         \
   (void (*)(void *, size_t, uint8_t *, const uint8_t *))gcm_aes##n##_encrypt,             \
   (void (*)(void *, size_t, uint8_t *, const uint8_t *))gcm_aes##n##_decrypt,             \
   (void (*)(void *, size_t, uint8_t *))gcm_aes##n##_digest,                               \
   (nettle_cipher_func *)aes##n##_encrypt, (nettle_set_key_func *)aes##n##_set_encrypt_key}

static const variant variants[3] = {VARIANT(128), VARIANT(192), VARIANT(256)};

/* The gcm_key / gcm_ctx / cipher parts of any struct gcm_aes*_ctx (same offsets). */
#define KEY(c) ((struct gcm_key *)(c))
#define GCM(c) ((struct gcm_ctx *)((uint8_t *)(c) + offsetof(struct gcm_aes128_ctx, gcm)))
#define CIPHER(c) ((void *)((uint8_t *)(c) + offsetof(struct gcm_aes128_ctx, cipher)))

/* Feeds `n` bytes in chunks: whole blocks (random count) and one partial last chunk. */
static void chunked(void (*fn)(void *, size_t, const uint8_t *), void *ctx, const uint8_t *p,
                    size_t n) {
  while (n > 0) {
    size_t take = 16 * (rnd() % 6);
    if (take == 0 || take > n) take = n;
    fn(ctx, take, p);
    p += take;
    n -= take;
  }
}

typedef void crypt_fn(void *, size_t, uint8_t *, const uint8_t *);
static void chunked_crypt(crypt_fn *fn, void *ctx, uint8_t *dst, const uint8_t *src, size_t n) {
  while (n > 0) {
    size_t take = 16 * (rnd() % 9);
    if (take == 0 || take > n) take = n;
    fn(ctx, take, dst, src);
    dst += take;
    src += take;
    n -= take;
  }
}

/* One message through the AES-specific functions; returns the digest in `tag`. */
static void one_message(const variant *v, void *ctx, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                        size_t len, int decrypt, size_t tag_len, uint8_t *tag) {
  v->set_iv(ctx, iv_len, iv);
  chunked(v->update, ctx, aad, aad_len);
  chunked_crypt(decrypt ? v->decrypt : v->encrypt, ctx, dst, src, len);
  v->digest(ctx, tag_len, tag);
}

/* ------------------------------------------------------------------ cases */

/* Published vectors: McGrew–Viega test cases 1 and 2 (zero key, 96-bit zero IV), and
 * test case 16 (AES-256, 60-byte text, 20-byte AAD). */
static void known_answers(void) {
  struct gcm_aes128_ctx c;
  uint8_t key[32] = {0}, iv[12] = {0}, tag[16], exp[16], block[16] = {0}, ct[64];
  gcm_aes128_set_key(&c, key);
  gcm_aes128_set_iv(&c, 12, iv);
  gcm_aes128_digest(&c, 16, tag);
  unhex("58e2fccefa7e3061367f1d57a4e7455a", exp, 16);
  CHECK(!memcmp(tag, exp, 16), "McGrew-Viega case 1 tag");
  gcm_aes128_set_iv(&c, 12, iv);
  gcm_aes128_encrypt(&c, 16, ct, block);
  gcm_aes128_digest(&c, 16, tag);
  unhex("0388dace60b6a392f328c2b971b2fe78", exp, 16);
  CHECK(!memcmp(ct, exp, 16), "McGrew-Viega case 2 ciphertext");
  unhex("ab6e47d42cec13bdf53a67b21257bddf", exp, 16);
  CHECK(!memcmp(tag, exp, 16), "McGrew-Viega case 2 tag");

  struct gcm_aes256_ctx d;
  uint8_t k16[32], iv16[12], aad16[20], pt16[60], exp_ct[60];
  unhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", k16, 32);
  unhex("cafebabefacedbaddecaf888", iv16, 12);
  unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2", aad16, 20);
  unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e"
        "2449a6b525b16aedf5aa0de657ba637b39",
        pt16, 60);
  unhex("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b"
        "1056828838c5f61e6393ba7a0abcc9f662",
        exp_ct, 60);
  gcm_aes256_set_key(&d, k16);
  gcm_aes256_set_iv(&d, 12, iv16);
  gcm_aes256_update(&d, 20, aad16);
  gcm_aes256_encrypt(&d, 60, ct, pt16);
  gcm_aes256_digest(&d, 16, tag);
  unhex("76fc6ece0f4e1768cddf8853bb2d551b", exp, 16);
  CHECK(!memcmp(ct, exp_ct, 60), "McGrew-Viega case 16 ciphertext");
  CHECK(!memcmp(tag, exp, 16), "McGrew-Viega case 16 tag");
  emit("kat16", tag, 16);
}

/* Every key size, IV lengths 0/1/12/13/64, chunked AAD and data, in place and not,
 * unaligned buffers, truncated digests; decryption must invert with the same digest. */
static void sweep(int quick) {
  static const size_t iv_lens[] = {0, 1, 12, 13, 64};
  static const size_t lens[] = {0, 1, 15, 16, 17, 31, 64, 100, 128, 255, 256, 1000, 4099};
  static const size_t tag_lens[] = {16, 12, 8, 4, 1, 0};
  size_t nlens = quick ? 7 : sizeof lens / sizeof lens[0];
  for (int vi = 0; vi < 3; vi++) {
    const variant *v = &variants[vi];
    void *ctx = aligned_alloc(16, (v->ctx_size + 15) / 16 * 16);
    uint8_t key[32];
    fill(key, v->key_len);
    v->set_key(ctx, key);
    for (size_t ii = 0; ii < 5; ii++)
      for (size_t li = 0; li < nlens; li++) {
        size_t len = lens[li], aad_len = lens[(li + ii) % nlens], iv_len = iv_lens[ii];
        size_t tag_len = tag_lens[(li + ii) % 6];
        uint8_t iv[64], tag[16] = {0}, tag2[16] = {0};
        uint8_t *aad = malloc(aad_len + 1), *pt = malloc(len + 3), *ct = malloc(len + 3),
                *back = malloc(len + 3);
        fill(iv, iv_len);
        fill(aad, aad_len);
        size_t off = rnd() % 3; /* unaligned src/dst */
        fill(pt + off, len);
        int in_place = (li + ii) % 2;
        if (in_place) {
          memcpy(ct + off, pt + off, len);
          one_message(v, ctx, iv, iv_len, aad, aad_len, ct + off, ct + off, len, 0, tag_len, tag);
        } else {
          one_message(v, ctx, iv, iv_len, aad, aad_len, ct + off, pt + off, len, 0, tag_len, tag);
        }
        char label[96];
        snprintf(label, sizeof label, "%s iv%zu aad%zu len%zu tag%zu%s ct", v->name, iv_len,
                 aad_len, len, tag_len, in_place ? " inplace" : "");
        emit(label, ct + off, len);
        emit("  tag", tag, tag_len);
        one_message(v, ctx, iv, iv_len, aad, aad_len, back + off, ct + off, len, 1, tag_len, tag2);
        CHECK(!memcmp(back + off, pt + off, len), "%s: decrypt(encrypt(x)) != x", label);
        CHECK(!memcmp(tag, tag2, tag_len), "%s: decrypt digest differs", label);
        free(aad);
        free(pt);
        free(ct);
        free(back);
      }
    free(ctx);
  }
}

/* nettle's digest does not reset: a second digest without set_iv hashes the lengths
 * again. The transcript must show the same (meaningless) value nettle gives. */
static void second_digest(void) {
  for (int vi = 0; vi < 3; vi++) {
    const variant *v = &variants[vi];
    void *ctx = aligned_alloc(16, (v->ctx_size + 15) / 16 * 16);
    uint8_t key[32], iv[12], data[48], out[48], t1[16], t2[16], t3[16];
    fill(key, 32);
    fill(iv, 12);
    fill(data, 48);
    v->set_key(ctx, key);
    v->set_iv(ctx, 12, iv);
    v->update(ctx, 7, data);
    v->encrypt(ctx, 48, out, data);
    v->digest(ctx, 16, t1);
    v->digest(ctx, 16, t2);
    v->encrypt(ctx, 16, out, data); /* nettle allows it: data_size is still a multiple of 16 */
    v->digest(ctx, 16, t3);
    emit("second-digest t1", t1, 16);
    emit("second-digest t2", t2, 16);
    emit("second-digest after-encrypt", t3, 16);
    emit("second-digest ct", out, 16);
    CHECK(memcmp(t1, t2, 16) != 0, "second digest equal to the first");
    /* A 0-byte encrypt keeps data_size at 0, so update is still allowed after it. */
    v->set_iv(ctx, 12, iv);
    v->encrypt(ctx, 0, out, data);
    v->update(ctx, 16, data);
    v->digest(ctx, 16, t1);
    emit("zero-encrypt-then-update", t1, 16);
    free(ctx);
  }
}

/* Contexts are plain data: a keyed context memcpy'd anywhere (also mid-message, also to
 * an address of another 16-byte alignment) must keep producing the same output. */
static void memcpy_contexts(void) {
  for (int vi = 0; vi < 3; vi++) {
    const variant *v = &variants[vi];
    uint8_t *a = aligned_alloc(16, v->ctx_size + 64), *b = aligned_alloc(16, v->ctx_size + 64);
    uint8_t key[32], iv[12], aad[33], pt[200], ct1[200], ct2[200], t1[16], t2[16];
    fill(key, 32);
    fill(iv, 12);
    fill(aad, 33);
    fill(pt, 200);
    for (int shift = 0; shift <= 8; shift += 8) {
      void *ca = a, *cb = b + shift;
      v->set_key(ca, key);
      memcpy(cb, ca, v->ctx_size);
      memset(ca, 0xa5, v->ctx_size); /* the copy must not depend on the original */
      v->set_key(ca, key);
      v->set_iv(ca, 12, iv);
      v->set_iv(cb, 12, iv);
      v->update(ca, 32, aad);
      v->update(cb, 32, aad);
      v->update(ca, 1, aad + 32);
      v->update(cb, 1, aad + 32);
      v->encrypt(ca, 64, ct1, pt);
      v->encrypt(cb, 64, ct2, pt);
      /* move the context in the middle of the message */
      uint8_t *tmp = malloc(v->ctx_size + 8);
      memcpy(tmp + 8, cb, v->ctx_size);
      memset(cb, 0, v->ctx_size);
      memcpy(cb, tmp + 8, v->ctx_size);
      free(tmp);
      v->encrypt(ca, 136, ct1 + 64, pt + 64);
      v->encrypt(cb, 136, ct2 + 64, pt + 64);
      v->digest(ca, 16, t1);
      v->digest(cb, 16, t2);
      CHECK(!memcmp(ct1, ct2, 200) && !memcmp(t1, t2, 16), "%s: memcpy'd context (shift %d)",
            v->name, shift);
      emit("memcpy ct", ct2, 200);
      emit("memcpy tag", t2, 16);
    }
    free(a);
    free(b);
  }
}

/* GnuTLS: gcm_aesNNN_set_key/set_iv/update/digest, but data through the generic
 * gcm_encrypt/gcm_decrypt with nettle's aesNNN_encrypt as the cipher function. Also the
 * GCM_SET_KEY style (aes set key + generic gcm_set_key) and all-generic calls. */
static void mixed_calls(void) {
  for (int vi = 0; vi < 3; vi++) {
    const variant *v = &variants[vi];
    void *x = aligned_alloc(16, (v->ctx_size + 15) / 16 * 16);
    void *y = aligned_alloc(16, (v->ctx_size + 15) / 16 * 16);
    uint8_t key[32], iv[12], aad[21], pt[300], c1[300], c2[300], c3[300], t1[16], t2[16], t3[16];
    fill(key, 32);
    fill(iv, 12);
    fill(aad, 21);
    fill(pt, 300);
    /* reference: AES-specific functions only */
    v->set_key(x, key);
    one_message(v, x, iv, 12, aad, 21, c1, pt, 300, 0, 16, t1);
    /* GnuTLS style */
    v->set_iv(x, 12, iv);
    v->update(x, 21, aad);
    gcm_encrypt(GCM(x), KEY(x), CIPHER(x), v->aes_encrypt, 160, c2, pt);
    gcm_encrypt(GCM(x), KEY(x), CIPHER(x), v->aes_encrypt, 140, c2 + 160, pt + 160);
    v->digest(x, 16, t2);
    CHECK(!memcmp(c1, c2, 300) && !memcmp(t1, t2, 16), "%s: GnuTLS-style mix", v->name);
    v->set_iv(x, 12, iv);
    v->update(x, 21, aad);
    gcm_decrypt(GCM(x), KEY(x), CIPHER(x), v->aes_encrypt, 300, c3, c2);
    v->digest(x, 16, t3);
    CHECK(!memcmp(c3, pt, 300) && !memcmp(t1, t3, 16), "%s: GnuTLS-style decrypt", v->name);
    /* GCM_SET_KEY style: the cipher keyed by nettle's own aes set-key function */
    v->aes_set_encrypt_key(CIPHER(y), key);
    gcm_set_key(KEY(y), CIPHER(y), v->aes_encrypt);
    gcm_set_iv(GCM(y), KEY(y), 12, iv);
    gcm_update(GCM(y), KEY(y), 21, aad);
    gcm_encrypt(GCM(y), KEY(y), CIPHER(y), v->aes_encrypt, 300, c3, pt);
    gcm_digest(GCM(y), KEY(y), CIPHER(y), v->aes_encrypt, 16, t3);
    CHECK(!memcmp(c1, c3, 300) && !memcmp(t1, t3, 16), "%s: GCM_SET_KEY style", v->name);
    /* ... and then the AES-specific functions on that context */
    one_message(v, y, iv, 12, aad, 21, c3, pt, 300, 0, 16, t3);
    CHECK(!memcmp(c1, c3, 300) && !memcmp(t1, t3, 16), "%s: generic key, specific calls",
          v->name);
    emit("mixed ct", c1, 300);
    emit("mixed tag", t1, 16);

    /* The cipher re-keyed behind GCM's back: nettle keeps H from set_key time and takes
     * the keystream from the new schedule. */
    uint8_t key2[32];
    fill(key2, 32);
    v->set_key(x, key);
    v->aes_set_encrypt_key(CIPHER(x), key2);
    one_message(v, x, iv, 12, aad, 21, c2, pt, 300, 0, 16, t2);
    emit("rekeyed-cipher ct", c2, 300);
    emit("rekeyed-cipher tag", t2, 16);
    gcm_set_iv(GCM(x), KEY(x), 12, iv);
    gcm_update(GCM(x), KEY(x), 21, aad);
    gcm_encrypt(GCM(x), KEY(x), CIPHER(x), v->aes_encrypt, 300, c3, pt);
    gcm_digest(GCM(x), KEY(x), CIPHER(x), v->aes_encrypt, 16, t3);
    CHECK(!memcmp(c2, c3, 300) && !memcmp(t2, t3, 16), "%s: re-keyed cipher, generic",
          v->name);
    free(x);
    free(y);
  }
}

/* The deprecated gcm_aes_* interface (struct aes_ctx, key length as an argument) must
 * agree with the per-size functions, also through the generic calls with aes_encrypt. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void deprecated_interface(void) {
  for (int vi = 0; vi < 3; vi++) {
    const variant *v = &variants[vi];
    struct gcm_aes_ctx d;
    void *x = aligned_alloc(16, (v->ctx_size + 15) / 16 * 16);
    uint8_t key[32], iv[13], aad[40], pt[77], c1[77], c2[77], t1[16], t2[16];
    fill(key, 32);
    fill(iv, 13);
    fill(aad, 40);
    fill(pt, 77);
    v->set_key(x, key);
    one_message(v, x, iv, 13, aad, 40, c1, pt, 77, 0, 16, t1);
    gcm_aes_set_key(&d, v->key_len, key);
    gcm_aes_set_iv(&d, 13, iv);
    gcm_aes_update(&d, 32, aad);
    gcm_aes_update(&d, 8, aad + 32);
    gcm_aes_encrypt(&d, 48, c2, pt);
    gcm_aes_encrypt(&d, 29, c2 + 48, pt + 48);
    gcm_aes_digest(&d, 16, t2);
    CHECK(!memcmp(c1, c2, 77) && !memcmp(t1, t2, 16), "gcm_aes_* key length %zu", v->key_len);
    gcm_aes_set_iv(&d, 13, iv);
    gcm_aes_update(&d, 40, aad);
    gcm_aes_decrypt(&d, 77, c2, c1);
    gcm_aes_digest(&d, 12, t2);
    CHECK(!memcmp(c2, pt, 77) && !memcmp(t1, t2, 12), "gcm_aes_decrypt key length %zu",
          v->key_len);
    gcm_set_iv(&d.gcm, &d.key, 13, iv);
    gcm_update(&d.gcm, &d.key, 40, aad);
    gcm_encrypt(&d.gcm, &d.key, &d.cipher, (nettle_cipher_func *)aes_encrypt, 77, c2, pt);
    gcm_digest(&d.gcm, &d.key, &d.cipher, (nettle_cipher_func *)aes_encrypt, 16, t2);
    CHECK(!memcmp(c1, c2, 77) && !memcmp(t1, t2, 16), "gcm_aes generic key length %zu",
          v->key_len);
    emit("deprecated ct", c2, 77);
    emit("deprecated tag", t2, 16);
    free(x);
  }
}

/* Other block ciphers through the generic functions: nettle's gcm_camellia* (whose calls
 * to gcm_* land in the replacement when it is preloaded), Camellia directly, and a
 * "cipher" of the caller's own (AES decryption used as a block cipher). */
static void caller_decrypt(const void *ctx, size_t n, uint8_t *dst, const uint8_t *src) {
  aes128_decrypt((const struct aes128_ctx *)ctx, n, dst, src);
}
static void other_ciphers(void) {
  uint8_t key[32], iv[13], aad[19], pt[150], ct[150], back[150], tag[16], tag2[16];
  fill(key, 32);
  fill(iv, 13); /* the generic Camellia case below uses a 13-byte IV */
  fill(aad, 19);
  fill(pt, 150);
  struct gcm_camellia128_ctx c128;
  gcm_camellia128_set_key(&c128, key);
  gcm_camellia128_set_iv(&c128, 12, iv);
  gcm_camellia128_update(&c128, 19, aad);
  gcm_camellia128_encrypt(&c128, 150, ct, pt);
  gcm_camellia128_digest(&c128, 16, tag);
  emit("camellia128 ct", ct, 150);
  emit("camellia128 tag", tag, 16);
  gcm_camellia128_set_iv(&c128, 12, iv);
  gcm_camellia128_update(&c128, 19, aad);
  gcm_camellia128_decrypt(&c128, 150, back, ct);
  gcm_camellia128_digest(&c128, 16, tag2);
  CHECK(!memcmp(back, pt, 150) && !memcmp(tag, tag2, 16), "camellia128 round trip");

  struct gcm_camellia256_ctx c256;
  camellia256_set_encrypt_key(&c256.cipher, key);
  gcm_set_key(&c256.key, &c256.cipher, (nettle_cipher_func *)camellia256_crypt);
  gcm_set_iv(&c256.gcm, &c256.key, 13, iv);
  gcm_update(&c256.gcm, &c256.key, 19, aad);
  gcm_encrypt(&c256.gcm, &c256.key, &c256.cipher, (nettle_cipher_func *)camellia256_crypt, 150,
              ct, pt);
  gcm_digest(&c256.gcm, &c256.key, &c256.cipher, (nettle_cipher_func *)camellia256_crypt, 14,
             tag);
  emit("camellia256 generic ct", ct, 150);
  emit("camellia256 generic tag", tag, 14);

  struct {
    struct gcm_key key;
    struct gcm_ctx gcm;
    struct aes128_ctx cipher;
  } own;
  aes128_set_decrypt_key(&own.cipher, key);
  gcm_set_key(&own.key, &own.cipher, caller_decrypt);
  gcm_set_iv(&own.gcm, &own.key, 12, iv);
  gcm_update(&own.gcm, &own.key, 19, aad);
  gcm_encrypt(&own.gcm, &own.key, &own.cipher, caller_decrypt, 150, ct, pt);
  gcm_digest(&own.gcm, &own.key, &own.cipher, caller_decrypt, 16, tag);
  emit("own-cipher ct", ct, 150);
  emit("own-cipher tag", tag, 16);

  /* the AEAD descriptor objects of libnettle point at the gcm_aes* functions */
  const struct nettle_aead *aeads[3] = {&nettle_gcm_aes128, &nettle_gcm_aes192,
                                        &nettle_gcm_aes256};
  for (int i = 0; i < 3; i++) {
    void *ctx = aligned_alloc(16, (aeads[i]->context_size + 15) / 16 * 16);
    aeads[i]->set_encrypt_key(ctx, key);
    aeads[i]->set_nonce(ctx, iv);
    aeads[i]->update(ctx, 19, aad);
    aeads[i]->encrypt(ctx, 150, ct, pt);
    aeads[i]->digest(ctx, 16, tag);
    emit(aeads[i]->name, ct, 150);
    emit("  aead tag", tag, 16);
    free(ctx);
  }
}

/* Misuse: nettle aborts (assertions, bad key length). Each case runs in a child. */
static void misuse_case(const char *name, int which) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    /* keep the expected diagnostics out of the transcript */
    if (!freopen("/dev/null", "w", stderr)) _exit(3);
    struct gcm_aes128_ctx c;
    struct gcm_aes_ctx d;
    uint8_t key[32] = {1}, iv[12] = {2}, buf[64] = {3}, tag[32];
    gcm_aes128_set_key(&c, key);
    gcm_aes128_set_iv(&c, 12, iv);
    switch (which) {
    case 0: /* update after data */
      gcm_aes128_encrypt(&c, 16, buf, buf);
      gcm_aes128_update(&c, 16, buf);
      break;
    case 1: /* two partial updates */
      gcm_aes128_update(&c, 5, buf);
      gcm_aes128_update(&c, 5, buf);
      break;
    case 2: /* two partial encrypts */
      gcm_aes128_encrypt(&c, 5, buf, buf);
      gcm_aes128_encrypt(&c, 5, buf, buf);
      break;
    case 3: /* digest longer than a block */
      gcm_aes128_digest(&c, 17, tag);
      break;
    case 4: /* bad key length for the deprecated interface */
      gcm_aes_set_key(&d, 20, key);
      break;
    case 5: /* partial decrypt then decrypt */
      gcm_aes128_decrypt(&c, 15, buf, buf);
      gcm_aes128_decrypt(&c, 16, buf, buf);
      break;
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const char *what = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? "abort"
                     : WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "returned"
                                                                      : "other";
  printf("misuse %s: %s\n", name, what);
  CHECK(!strcmp(what, "abort"), "misuse %s did not abort", name);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  known_answers();
  sweep(quick);
  second_digest();
  memcpy_contexts();
  mixed_calls();
  deprecated_interface();
  other_ciphers();
  misuse_case("update-after-encrypt", 0);
  misuse_case("two-partial-updates", 1);
  misuse_case("two-partial-encrypts", 2);
  misuse_case("digest-17", 3);
  misuse_case("gcm_aes_set_key-20", 4);
  misuse_case("partial-decrypt-then-decrypt", 5);
  printf("transcript %016llx\n", (unsigned long long)transcript);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
