/*
 * libgcrypt's cipher handles, driven through gcrypt.h (libgcrypt20-dev) and linked with
 * -lgcrypt. The output is a transcript of every call's return value and output bytes;
 * scripts/test-gcrypt.sh runs it plainly and with LD_PRELOAD=libstitchgcm-gcrypt.so and
 * requires the two transcripts to be identical line by line. libgcrypt's log lines are
 * part of it (a log handler prints them).
 *
 * AES-GCM: every AES id with every key length, IV lengths 1..64, AAD and text lengths
 * around block boundaries, chunkings (whole, byte by byte, seeded random splits, mixed
 * encrypt/decrypt), in place (in = NULL, in = out) and not, unaligned, every tag length
 * for gettag and checktag, the misuse table (reference: abi-facts B3) and the quirks found
 * in libgcrypt's source (tag without IV, re-key mid-message, rejected setkey, setctr, the
 * length limits). Other handles in the same run, interleaved with AES-GCM ones: AES-CBC,
 * AES-CTR, ChaCha20-Poly1305, Camellia-GCM, AES-GCM-SIV, and AES-GCM with
 * GCRY_CIPHER_ENABLE_SYNC or GCRY_CIPHER_SECURE.
 *
 * Its own checks: McGrew–Viega test cases 2, 4, 6, 10 and 16, every chunking equal to the
 * whole-message result, decryption inverting encryption, checktag accepting the tag and
 * refusing a flipped one.
 *
 * The misuse and other-handle parts are in test_gcrypt_misuse.c.
 *
 * usage: test_gcrypt [--quick]
 */
#include <stdarg.h>
#include <stdlib.h>

#include "test_gcrypt.h"

int failures, checks;

void hex(const char *label, const uint8_t *p, size_t n) {
  printf("%s ", label);
  size_t show = n < 40 ? n : 40;
  for (size_t i = 0; i < show; i++) printf("%02x", p[i]);
  if (n > show) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the whole buffer */
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    printf("..(%zu bytes, fnv %016llx)", n, (unsigned long long)h);
  }
  printf("\n");
}

gcry_error_t rc(const char *what, gcry_error_t e) {
  printf("%-44s -> 0x%08x\n", what, (unsigned)e);
  return e;
}

gcry_cipher_hd_t open_gcm(int algo, unsigned flags) {
  gcry_cipher_hd_t h = NULL;
  rc("open", gcry_cipher_open(&h, algo, GCRY_CIPHER_MODE_GCM, flags));
  return h;
}

static void log_to_transcript(void *opaque, int level, const char *fmt, va_list ap) {
  (void)opaque;
  printf("log(level %d): ", level);
  vprintf(fmt, ap);
}

/* ------------------------------------------------------------------ known answers */

/* McGrew–Viega test cases (see tests/kat_mcgrew_viega.rs for their source). */
static const struct {
  int n, algo;
  const char *k, *iv, *a, *p, *c, *t;
} mv[] = {
    {2, GCRY_CIPHER_AES, "00000000000000000000000000000000", "000000000000000000000000", "",
     "00000000000000000000000000000000", "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"},
    {4, GCRY_CIPHER_AES, "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {6, GCRY_CIPHER_AES, "feffe9928665731c6d6a8f9467308308",
     "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
     "619cc5aefffe0bfa462af43c1699d050"},
    {10, GCRY_CIPHER_AES192, "feffe9928665731c6d6a8f9467308308feffe9928665731c",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
     "2519498e80f1478f37ba55bd6d27618c"},
    {16, GCRY_CIPHER_AES256, "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

static void known_answers(void) {
  for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++) {
    uint8_t k[32], iv[64], a[32], p[64], c[64], t[16], out[64], tag[16] = {0};
    size_t kl = strlen(mv[i].k) / 2, ivl = strlen(mv[i].iv) / 2, al = strlen(mv[i].a) / 2,
           pl = strlen(mv[i].p) / 2;
    unhex(mv[i].k, k, kl), unhex(mv[i].iv, iv, ivl), unhex(mv[i].a, a, al);
    unhex(mv[i].p, p, pl), unhex(mv[i].c, c, pl), unhex(mv[i].t, t, 16);
    printf("McGrew-Viega case %d\n", mv[i].n);
    gcry_cipher_hd_t h = open_gcm(mv[i].algo, 0);
    rc("setkey", gcry_cipher_setkey(h, k, kl));
    rc("setiv", gcry_cipher_setiv(h, iv, ivl));
    rc("authenticate", gcry_cipher_authenticate(h, a, al));
    rc("encrypt", gcry_cipher_encrypt(h, out, pl, p, pl));
    rc("gettag", gcry_cipher_gettag(h, tag, 16));
    CHECK(!memcmp(out, c, pl) && !memcmp(tag, t, 16), "McGrew-Viega case %d", mv[i].n);
    hex("tag", tag, 16);
    rc("setiv", gcry_cipher_setiv(h, iv, ivl));
    rc("authenticate", gcry_cipher_authenticate(h, a, al));
    rc("decrypt in place", gcry_cipher_decrypt(h, out, pl, NULL, 0));
    CHECK(gcry_cipher_checktag(h, t, 16) == 0 && !memcmp(out, p, pl), "case %d decrypt", mv[i].n);
    gcry_cipher_close(h);
  }
}

/* ------------------------------------------------------------------ sweep */

enum split { WHOLE, BYTES, RANDOM, MIXED };
static const char *split_name[] = {"whole", "bytes", "random", "mixed"};

/* Feeds `n` bytes in the chunks of `how`; MIXED alternates encrypt and decrypt calls.
 * in_place: 0 from `in` to `out`, 1 in = NULL (in place), 2 in = out. Returns the first
 * error. */
static gcry_error_t feed(gcry_cipher_hd_t h, int aad, int enc, enum split how, uint8_t *out,
                         const uint8_t *in, size_t n, int in_place) {
  size_t off = 0, calls = 0;
  while (off < n || (n == 0 && calls == 0)) {
    size_t step = n - off;
    if (how == BYTES) step = step ? 1 : 0;
    if (how == RANDOM || how == MIXED) step = step ? 1 + rnd() % (step < 40 ? step : 40) : 0;
    gcry_error_t e;
    int dir = how == MIXED ? (int)(calls & 1) ^ enc : enc;
    gcry_error_t (*crypt)(gcry_cipher_hd_t, void *, size_t, const void *, size_t) =
        dir ? gcry_cipher_encrypt : gcry_cipher_decrypt;
    if (aad) e = gcry_cipher_authenticate(h, in + off, step);
    else if (in_place == 1) e = crypt(h, out + off, step, NULL, 0);
    else if (in_place == 2) e = crypt(h, out + off, step, out + off, step);
    else e = crypt(h, out + off, step, in + off, step);
    if (e) return e;
    off += step, calls++;
    if (n == 0) break;
  }
  return 0;
}

static void sweep(int quick) {
  static const int algos[] = {GCRY_CIPHER_AES, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};
  static const size_t keylens[] = {16, 24, 32};
  static const size_t ivlens[] = {12, 1, 8, 13, 16, 17, 60, 64};
  static const size_t lens[][2] = {{0, 0},   {0, 1},   {13, 15}, {16, 16}, {17, 31},
                                   {20, 60}, {1, 100}, {33, 255}, {0, 1000}, {70, 4099}};
  size_t nlens = quick ? 6 : sizeof lens / sizeof lens[0];
  static uint8_t key[32], iv[64], aad[128], pt[4200 + 8], ref[4200], out[4200 + 8], back[4200];
  for (size_t a = 0; a < 3; a++)
    for (size_t kl = 0; kl < 3; kl++)
      for (size_t v = 0; v < (quick ? 3u : 8u); v++)
        for (size_t l = 0; l < nlens; l++) {
          size_t ivl = ivlens[v], al = lens[l][0], pl = lens[l][1];
          fill(key, 32), fill(iv, ivl), fill(aad, al), fill(pt, pl);
          gcry_cipher_hd_t h = open_gcm(algos[a], 0);
          printf("sweep algo %d key %zu iv %zu aad %zu text %zu\n", algos[a], keylens[kl], ivl, al, pl);
          rc("setkey", gcry_cipher_setkey(h, key, keylens[kl]));
          uint8_t tag[16] = {0}, t2[16];
          for (int s = WHOLE; s <= MIXED; s++) {
            for (int unaligned = 0; unaligned < 2; unaligned++) {
              int in_place = (2 * s + unaligned) % 3; /* each way, spread over the splits */
              uint8_t *o = out + unaligned, *src = pt + 8 - unaligned * 3;
              memmove(src, pt, pl);
              if (in_place) memcpy(o, src, pl);
              memset(t2, 0xee, 16); /* defined bytes even when gettag fails (FIPS mode) */
              gcry_error_t e = gcry_cipher_setiv(h, iv, ivl);
              e = e ? e : feed(h, 1, 1, s == MIXED ? RANDOM : s, NULL, aad, al, 0);
              e = e ? e : feed(h, 0, 1, s, o, src, pl, in_place);
              e = e ? e : gcry_cipher_gettag(h, t2, 16);
              if (e) rc("sweep call", e);
              if (s == WHOLE && !unaligned) memcpy(ref, o, pl), memcpy(tag, t2, 16);
              else if (s != MIXED)
                CHECK(!memcmp(ref, o, pl) && !memcmp(tag, t2, 16), "%s split differs", split_name[s]);
              if (s == MIXED) hex("mixed text", o, pl);
              if (s == MIXED || unaligned) hex(split_name[s], t2, 16);
              memmove(pt, src, pl);
            }
          }
          hex("ct", ref, pl);
          hex("tag", tag, 16);
          /* Decrypt in random chunks; check every allowed tag length, and a flipped bit. */
          rc("setiv", gcry_cipher_setiv(h, iv, ivl));
          feed(h, 1, 1, RANDOM, NULL, aad, al, 0);
          feed(h, 0, 0, RANDOM, back, ref, pl, 0);
          CHECK(!memcmp(back, pt, pl), "decrypt inverts");
          static const size_t tls[] = {4, 8, 12, 13, 14, 15, 16};
          for (size_t t = 0; t < 7; t++) CHECK(gcry_cipher_checktag(h, tag, tls[t]) == 0, "checktag %zu", tls[t]);
          tag[5] ^= 0x10;
          CHECK(gcry_err_code(gcry_cipher_checktag(h, tag, 16)) == GPG_ERR_CHECKSUM, "flipped tag");
          gcry_cipher_close(h);
        }
}

/* ------------------------------------------------------------------ tag lengths */

static void tag_lengths(void) {
  uint8_t key[16] = {1}, tag[32], good[16];
  gcry_cipher_hd_t h = open_gcm(GCRY_CIPHER_AES, 0);
  gcry_cipher_setkey(h, key, 16);
  gcry_cipher_setiv(h, key, 12);
  gcry_cipher_authenticate(h, "abc", 3);
  gcry_cipher_gettag(h, good, 16);
  char what[64];
  for (size_t n = 0; n <= 20; n++) {
    memset(tag, 0xee, sizeof tag);
    snprintf(what, sizeof what, "gettag len %zu", n);
    rc(what, gcry_cipher_gettag(h, tag, n));
    hex(" tag", tag, 20);
    memcpy(tag, good, 16);
    snprintf(what, sizeof what, "checktag len %zu (right bytes)", n);
    rc(what, gcry_cipher_checktag(h, tag, n));
    tag[n ? n - 1 : 0] ^= 1;
    snprintf(what, sizeof what, "checktag len %zu (last byte flipped)", n);
    rc(what, gcry_cipher_checktag(h, tag, n));
  }
  gcry_cipher_close(h);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  setvbuf(stdout, NULL, _IONBF, 0);
  gcry_set_log_handler(log_to_transcript, NULL);
  if (!gcry_check_version("1.8.0")) {
    printf("libgcrypt too old\n");
    return 1;
  }
  gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
  gcry_control(GCRYCTL_INIT_SECMEM, 65536, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  known_answers();
  misuse();
  tag_lengths();
  other_handles();
  sweep(quick);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
