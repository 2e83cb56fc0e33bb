/*
 * test_gcrypt's misuse table and its other handles (see test_gcrypt.c). Every sequence
 * prints each call's return value, and the output bytes where there are any, so that the
 * transcript pins libgcrypt's behaviour down: the misuse table of the reference notes
 * (abi-facts B3: call order, lengths, 0x42 fill, error sources), and what libgcrypt's
 * source adds (a rejected setkey clears only the key mark; a re-key keeps the message's
 * tag mask; a tag without IV is E(K, J0) of an unfinished message, else zero; setctr
 * between blocks; ctl and info commands; the length limits).
 *
 * Left out because libgcrypt's answer is a crash or a bug (test_gcrypt_preload.c checks
 * ours): setiv of 12 bytes before any key, setctr inside a block, a setiv while a block
 * of AAD or text is unfinished.
 */
#include "test_gcrypt.h"

static uint8_t K1[32] = {1, 2, 3}, K2[32] = {9, 8, 7}, IV[64] = {5, 5, 5}, D[256];

static void title(const char *t) { printf("== %s\n", t); }

/* A keyed AES-128 handle. */
static gcry_cipher_hd_t keyed(void) {
  gcry_cipher_hd_t h = open_gcm(GCRY_CIPHER_AES, 0);
  rc("setkey", gcry_cipher_setkey(h, K1, 16));
  return h;
}

static void show_tag(gcry_cipher_hd_t h) {
  uint8_t t[16];
  memset(t, 0xee, 16);
  rc("gettag", gcry_cipher_gettag(h, t, 16));
  hex(" tag", t, 16);
}

static void show_encrypt(gcry_cipher_hd_t h, size_t n) {
  uint8_t o[64];
  memset(o, 0xee, sizeof o);
  rc("encrypt", gcry_cipher_encrypt(h, o, n, D, n));
  hex(" out", o, n);
}

static void opens(void) {
  gcry_cipher_hd_t h = (gcry_cipher_hd_t)&h; /* not NULL: a failed open must clear it */
  title("open");
  static const struct {
    const char *what;
    int algo, mode;
    unsigned flags;
  } o[] = {
      {"AES GCM flags 64", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 64},
      {"AES GCM CBC_CTS|CBC_MAC", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 12},
      {"AES mode 99", GCRY_CIPHER_AES, 99, 0},
      {"AES mode 0x10000 (internal)", GCRY_CIPHER_AES, 0x10000, 0},
      {"algo 12345 GCM", 12345, GCRY_CIPHER_MODE_GCM, 0},
      {"BLOWFISH GCM (64-bit block)", GCRY_CIPHER_BLOWFISH, GCRY_CIPHER_MODE_GCM, 0},
      {"AES GCM SECURE", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_SECURE},
      {"AES256 GCM CBC_CTS|EXTENDED", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM, 20},
      {"AES192 GCM ENABLE_SYNC", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_ENABLE_SYNC},
  };
  for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
    rc(o[i].what, gcry_cipher_open(&h, o[i].algo, o[i].mode, o[i].flags));
    printf("   handle %s\n", h ? "set" : "NULL");
    gcry_cipher_close(h);
    h = (gcry_cipher_hd_t)&h;
  }
  gcry_cipher_close(NULL);
}

static void before_key(void) {
  uint8_t o[32], t[16];
  title("before setkey");
  gcry_cipher_hd_t h = open_gcm(GCRY_CIPHER_AES, 0);
  memset(o, 0xee, sizeof o);
  rc("encrypt", gcry_cipher_encrypt(h, o, 16, D, 16));
  hex(" out (no 0x42 fill for a missing key)", o, 16);
  rc("decrypt", gcry_cipher_decrypt(h, o, 16, D, 16));
  rc("encrypt in place", gcry_cipher_encrypt(h, o, 16, NULL, 0));
  rc("authenticate", gcry_cipher_authenticate(h, D, 16));
  rc("setiv 16", gcry_cipher_setiv(h, IV, 16));
  rc("setiv 0", gcry_cipher_setiv(h, IV, 0));
  rc("gettag", gcry_cipher_gettag(h, t, 16));
  rc("checktag", gcry_cipher_checktag(h, t, 16));
  rc("setctr", gcry_cipher_setctr(h, IV, 16));
  rc("reset", gcry_cipher_reset(h));
  gcry_cipher_close(h);
}

static void setkeys(void) {
  static const struct {
    int algo;
    size_t len;
  } k[] = {{GCRY_CIPHER_AES, 15}, {GCRY_CIPHER_AES, 0}, {GCRY_CIPHER_AES, 33},
           {GCRY_CIPHER_AES, 32}, {GCRY_CIPHER_AES256, 16}, {GCRY_CIPHER_AES192, 32},
           {GCRY_CIPHER_AES256, 24}};
  title("setkey lengths (any AES id takes 16, 24 or 32 bytes)");
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    gcry_cipher_hd_t h = open_gcm(k[i].algo, 0);
    printf("algo %d key %zu\n", k[i].algo, k[i].len);
    if (!rc("setkey", gcry_cipher_setkey(h, K1, k[i].len))) {
      rc("setiv", gcry_cipher_setiv(h, IV, 12));
      show_encrypt(h, 20);
      show_tag(h);
    }
    gcry_cipher_close(h);
  }
  title("rejected setkey after a good one: only encrypt/decrypt lose the key");
  gcry_cipher_hd_t h = keyed();
  rc("setkey 15", gcry_cipher_setkey(h, K2, 15));
  rc("setiv 12", gcry_cipher_setiv(h, IV, 12));
  rc("authenticate", gcry_cipher_authenticate(h, D, 20));
  show_encrypt(h, 16);
  rc("decrypt", gcry_cipher_decrypt(h, D + 64, 16, D, 16));
  show_tag(h);
  rc("setiv 16", gcry_cipher_setiv(h, IV, 16));
  rc("reset", gcry_cipher_reset(h));
  show_encrypt(h, 16);
  rc("setkey 24", gcry_cipher_setkey(h, K2, 24));
  show_encrypt(h, 16);
  show_tag(h);
  gcry_cipher_close(h);
}

static void ivs_and_order(void) {
  uint8_t o[64], t[32];
  title("IV lengths, implicit IV, call order (the probe's sequence)");
  gcry_cipher_hd_t h = keyed();
  rc("setiv 0", gcry_cipher_setiv(h, IV, 0));
  rc("setiv NULL 0", gcry_cipher_setiv(h, NULL, 0));
  show_encrypt(h, 16); /* implicit 16 zero bytes IV */
  show_tag(h);
  static const size_t lens[] = {1, 16, 60, 12};
  for (size_t i = 0; i < 4; i++) {
    char w[32];
    snprintf(w, sizeof w, "setiv %zu", lens[i]);
    rc(w, gcry_cipher_setiv(h, IV, lens[i]));
  }
  rc("authenticate 5", gcry_cipher_authenticate(h, D, 5));
  rc("authenticate 7", gcry_cipher_authenticate(h, D + 5, 7));
  show_encrypt(h, 5);
  show_encrypt(h, 7);
  rc("authenticate after encrypt", gcry_cipher_authenticate(h, D, 16));
  memset(o, 0, sizeof o);
  rc("encrypt outsize 4 < inlen 16", gcry_cipher_encrypt(h, o, 4, D, 16));
  hex(" out (0x42 fill over outsize)", o, 8);
  memset(o, 0, sizeof o);
  rc("decrypt outsize 4 < inlen 16", gcry_cipher_decrypt(h, o, 4, D, 16));
  hex(" out (no fill)", o, 8);
  rc("decrypt after encrypt", gcry_cipher_decrypt(h, o, 16, D, 16));
  hex(" out", o, 16);
  rc("encrypt 0 bytes", gcry_cipher_encrypt(h, o, 0, D, 0));
  static const size_t tl[] = {5, 3, 0, 16, 17, 4};
  for (size_t i = 0; i < 6; i++) {
    char w[32];
    snprintf(w, sizeof w, "gettag %zu", tl[i]);
    memset(t, 0xee, sizeof t);
    rc(w, gcry_cipher_gettag(h, t, tl[i]));
    hex(" tag", t, 18);
  }
  memset(o, 0, sizeof o);
  rc("encrypt after gettag", gcry_cipher_encrypt(h, o, 16, D, 16));
  hex(" out", o, 4);
  rc("decrypt after gettag", gcry_cipher_decrypt(h, o, 16, D, 16));
  rc("authenticate after gettag", gcry_cipher_authenticate(h, D, 16));
  gcry_cipher_gettag(h, t, 16);
  rc("checktag 16", gcry_cipher_checktag(h, t, 16));
  rc("checktag 12", gcry_cipher_checktag(h, t, 12));
  rc("checktag 17", gcry_cipher_checktag(h, t, 17));
  rc("checktag 5", gcry_cipher_checktag(h, t, 5));
  t[0] ^= 1;
  rc("checktag mismatch", gcry_cipher_checktag(h, t, 16));
  rc("encrypt 0 bytes after checktag", gcry_cipher_encrypt(h, o, 0, D, 0));
  rc("final", gcry_cipher_final(h));
  rc("FINALIZE with buffer", gcry_cipher_ctl(h, GCRYCTL_FINALIZE, o, 0));
  rc("FINALIZE with length", gcry_cipher_ctl(h, GCRYCTL_FINALIZE, NULL, 1));
  rc("reset", gcry_cipher_reset(h));
  show_encrypt(h, 16); /* after reset: implicit zero IV again */
  rc("decrypt (mixing directions)", gcry_cipher_decrypt(h, o, 9, D, 9));
  show_tag(h);
  rc("implicit IV by authenticate: reset", gcry_cipher_reset(h));
  rc("authenticate", gcry_cipher_authenticate(h, D, 3));
  show_tag(h);

  title("in place");
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  memcpy(o, D, 40);
  rc("encrypt in = NULL", gcry_cipher_encrypt(h, o, 25, NULL, 0));
  rc("encrypt in = out", gcry_cipher_encrypt(h, o + 25, 15, o + 25, 15));
  hex(" out", o, 40);
  rc("gettag", gcry_cipher_gettag(h, t, 16));
  hex(" tag", t, 16);
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  rc("decrypt in = NULL", gcry_cipher_decrypt(h, o, 40, NULL, 0));
  CHECK(!memcmp(o, D, 40) && !gcry_cipher_checktag(h, t, 16), "in-place decrypt inverts");
  gcry_cipher_close(h);
}

static void tag_without_iv(void) {
  uint8_t t[16];
  title("tag without IV: zero, or E(K, J0) of an unfinished message");
  gcry_cipher_hd_t h = keyed();
  show_tag(h); /* zero: no IV was ever set */
  show_tag(h);
  rc("checktag zero", gcry_cipher_checktag(h, (uint8_t[16]){0}, 16));
  show_encrypt(h, 4);
  rc("authenticate", gcry_cipher_authenticate(h, D, 4));
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  rc("authenticate 16", gcry_cipher_authenticate(h, D, 16));
  rc("setiv 0 (rejected)", gcry_cipher_setiv(h, IV, 0));
  show_tag(h); /* tagiv of the abandoned message */
  rc("setiv 0 again", gcry_cipher_setiv(h, IV, 0));
  show_tag(h); /* zero: computing the tag wiped tagiv */
  rc("setiv 16", gcry_cipher_setiv(h, IV, 16));
  show_encrypt(h, 32);
  rc("setiv 0", gcry_cipher_setiv(h, NULL, 0));
  memset(t, 0, 16);
  rc("checktag zero", gcry_cipher_checktag(h, t, 16));
  show_tag(h);
  rc("checktag of that tag", gcry_cipher_gettag(h, t, 16) | gcry_cipher_checktag(h, t, 16));
  rc("reset", gcry_cipher_reset(h));
  show_tag(h);
  rc("setiv 12", gcry_cipher_setiv(h, IV, 12));
  rc("reset", gcry_cipher_reset(h));
  rc("setiv 0", gcry_cipher_setiv(h, IV, 0));
  show_tag(h); /* reset wiped it */
  gcry_cipher_close(h);
}

static void rekeys(void) {
  title("re-key in a message: the tag mask stays under the old key");
  static const size_t ivl[] = {12, 16};
  for (int i = 0; i < 2; i++) {
    gcry_cipher_hd_t h = keyed();
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    rc("authenticate 7", gcry_cipher_authenticate(h, D, 7));
    rc("setkey K2", gcry_cipher_setkey(h, K2, 32));
    show_encrypt(h, 21);
    show_tag(h);
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    show_encrypt(h, 5); /* keystream of the last block from K2 ... */
    rc("setkey K1", gcry_cipher_setkey(h, K1, 16));
    show_encrypt(h, 20); /* ... then K1 */
    show_tag(h);
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    rc("setkey K2", gcry_cipher_setkey(h, K2, 24));
    rc("setiv 0", gcry_cipher_setiv(h, IV, 0));
    show_tag(h); /* tagiv under K1 */
    /* Whole blocks of AAD and of data before each key change, a block left open. */
    rc("setkey K1", gcry_cipher_setkey(h, K1, 16));
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    rc("authenticate 36", gcry_cipher_authenticate(h, D, 36));
    rc("setkey K2", gcry_cipher_setkey(h, K2, 32));
    rc("authenticate 5", gcry_cipher_authenticate(h, D + 36, 5));
    show_encrypt(h, 40);
    rc("setkey K1", gcry_cipher_setkey(h, K1, 16));
    show_encrypt(h, 30);
    show_tag(h);
    /* A short first data call (one pass in stitchgcm), then a key change and more data. */
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    rc("authenticate 13", gcry_cipher_authenticate(h, D, 13));
    show_encrypt(h, 16);
    rc("setkey K2", gcry_cipher_setkey(h, K2, 24));
    show_encrypt(h, 20);
    show_tag(h);
    rc("setiv", gcry_cipher_setiv(h, IV, ivl[i]));
    show_encrypt(h, 7);
    rc("setkey K1", gcry_cipher_setkey(h, K1, 16));
    show_tag(h);
    gcry_cipher_close(h);
  }
}

static void setctrs(void) {
  title("setctr");
  uint8_t c[16] = {0xc0, 0xff, 0xee};
  gcry_cipher_hd_t h = keyed();
  rc("setctr before any IV", gcry_cipher_setctr(h, c, 16));
  show_encrypt(h, 20); /* the implicit IV replaces the counter */
  show_tag(h);
  rc("setctr after the tag", gcry_cipher_setctr(h, c, 16));
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  rc("authenticate 3", gcry_cipher_authenticate(h, D, 3));
  rc("setctr in the AAD", gcry_cipher_setctr(h, c, 16));
  show_encrypt(h, 32);
  rc("setctr between blocks", gcry_cipher_setctr(h, c, 16));
  show_encrypt(h, 20);
  show_tag(h);
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  show_encrypt(h, 16);
  rc("setctr NULL 0 (zero counter)", gcry_cipher_setctr(h, NULL, 0));
  show_encrypt(h, 16);
  rc("setctr c 0 (zero counter)", gcry_cipher_setctr(h, c, 0));
  show_encrypt(h, 3);
  rc("setctr 15", gcry_cipher_setctr(h, c, 15));
  rc("setctr 17", gcry_cipher_setctr(h, c, 17));
  show_tag(h);
  gcry_cipher_close(h);
}

static void controls(void) {
  title("ctl and info");
  int i12 = 12, algo = GCRY_CIPHER_TWOFISH;
  uint64_t ccm[3] = {16, 0, 16};
  uint8_t b[32];
  size_t n;
  gcry_cipher_hd_t h = keyed();
  rc("SET_TAGLEN 12", gcry_cipher_ctl(h, GCRYCTL_SET_TAGLEN, &i12, sizeof i12));
  rc("SET_TAGLEN short buffer", gcry_cipher_ctl(h, GCRYCTL_SET_TAGLEN, &i12, 2));
  rc("SET_TAGLEN NULL", gcry_cipher_ctl(h, GCRYCTL_SET_TAGLEN, NULL, sizeof i12));
  rc("SET_DECRYPTION_TAG", gcry_cipher_ctl(h, GCRYCTL_SET_DECRYPTION_TAG, b, 16));
  rc("SET_DECRYPTION_TAG NULL", gcry_cipher_ctl(h, GCRYCTL_SET_DECRYPTION_TAG, NULL, 16));
  rc("SET_CCM_LENGTHS", gcry_cipher_ctl(h, GCRYCTL_SET_CCM_LENGTHS, ccm, sizeof ccm));
  rc("SET_SBOX", gcry_cipher_ctl(h, GCRYCTL_SET_SBOX, "x", 1));
  rc("SET_ALLOW_WEAK_KEY 1", gcry_cipher_ctl(h, GCRYCTL_SET_ALLOW_WEAK_KEY, NULL, 1));
  rc("SET_ALLOW_WEAK_KEY 2", gcry_cipher_ctl(h, GCRYCTL_SET_ALLOW_WEAK_KEY, NULL, 2));
  rc("SET_ALLOW_WEAK_KEY buffer", gcry_cipher_ctl(h, GCRYCTL_SET_ALLOW_WEAK_KEY, b, 0));
  rc("CFB_SYNC", gcry_cipher_ctl(h, GCRYCTL_CFB_SYNC, NULL, 0));
  rc("SET_CBC_CTS on", gcry_cipher_ctl(h, GCRYCTL_SET_CBC_CTS, NULL, 1));
  rc("SET_CBC_MAC on (CTS is on)", gcry_cipher_ctl(h, GCRYCTL_SET_CBC_MAC, NULL, 1));
  rc("SET_CBC_CTS off", gcry_cipher_ctl(h, GCRYCTL_SET_CBC_CTS, NULL, 0));
  rc("SET_CBC_MAC on", gcry_cipher_ctl(h, GCRYCTL_SET_CBC_MAC, NULL, 1));
  rc("DISABLE_ALGO with a handle", gcry_cipher_ctl(h, GCRYCTL_DISABLE_ALGO, &algo, sizeof algo));
  rc("61 (private: disable weak key)", gcry_cipher_ctl(h, 61, NULL, 0));
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  for (size_t len = 0; len <= 17; len += 5) {
    char w[48];
    if (len) show_encrypt(h, 5);
    memset(b, 0xee, sizeof b);
    snprintf(w, sizeof w, "62 (private: input vector) after %zu bytes", len);
    rc(w, gcry_cipher_ctl(h, 62, b, sizeof b));
    hex(" out", b, 20);
  }
  rc("62 buffer 16", gcry_cipher_ctl(h, 62, b, 16));
  rc("unknown command 12345", gcry_cipher_ctl(h, 12345, NULL, 0));
  n = 99;
  rc("info GET_TAGLEN", gcry_cipher_info(h, GCRYCTL_GET_TAGLEN, NULL, &n));
  printf("   taglen %zu\n", n);
  rc("info GET_TAGLEN buffer", gcry_cipher_info(h, GCRYCTL_GET_TAGLEN, b, &n));
  rc("info GET_TAGLEN no nbytes", gcry_cipher_info(h, GCRYCTL_GET_TAGLEN, NULL, NULL));
  rc("info GET_KEYLEN", gcry_cipher_info(h, GCRYCTL_GET_KEYLEN, b, &n));
  rc("info GET_KEYLEN NULL", gcry_cipher_info(h, GCRYCTL_GET_KEYLEN, NULL, &n));
  rc("info 999", gcry_cipher_info(h, 999, NULL, &n));
  show_tag(h);
  gcry_cipher_close(h);

  title("ctl and info without a handle (libgcrypt answers these itself)");
  rc("FINALIZE", gcry_cipher_ctl(NULL, GCRYCTL_FINALIZE, NULL, 0));
  rc("SET_TAGLEN", gcry_cipher_ctl(NULL, GCRYCTL_SET_TAGLEN, &i12, sizeof i12));
  rc("SET_ALLOW_WEAK_KEY", gcry_cipher_ctl(NULL, GCRYCTL_SET_ALLOW_WEAK_KEY, NULL, 1));
  rc("unknown command", gcry_cipher_ctl(NULL, 12345, NULL, 0));
  rc("DISABLE_ALGO TWOFISH", gcry_cipher_ctl(NULL, GCRYCTL_DISABLE_ALGO, &algo, sizeof algo));
  gcry_cipher_hd_t tf = (gcry_cipher_hd_t)&tf;
  rc("open TWOFISH CBC (disabled)", gcry_cipher_open(&tf, algo, GCRY_CIPHER_MODE_CBC, 0));
  rc("info GET_TAGLEN", gcry_cipher_info(NULL, GCRYCTL_GET_TAGLEN, NULL, &n));
  rc("info unknown", gcry_cipher_info(NULL, 999, NULL, &n));
}

/* 2^n as a size_t (only called where size_t has 64 bits). */
static size_t pow2(int n) { return (size_t)((uint64_t)1 << n); }

static void limits(void) {
  title("length limits");
  if (sizeof(size_t) < 8) {
    printf("(needs a 64-bit size_t)\n");
    return;
  }
  uint8_t o[16];
  gcry_cipher_hd_t h = keyed();
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  rc("authenticate 2^61 (over 2^61-1)", gcry_cipher_authenticate(h, D, pow2(61)));
  memset(o, 0, 16);
  rc("encrypt after", gcry_cipher_encrypt(h, o, 16, D, 16));
  hex(" out", o, 4);
  rc("authenticate after", gcry_cipher_authenticate(h, D, 1));
  rc("gettag after", gcry_cipher_gettag(h, o, 16));
  rc("checktag after", gcry_cipher_checktag(h, o, 16));
  rc("setiv", gcry_cipher_setiv(h, IV, 12));
  show_encrypt(h, 16);
  rc("encrypt in place 2^37 - 16 more (over 2^36-32)", gcry_cipher_encrypt(h, NULL, pow2(37) - 16, NULL, 0));
  rc("decrypt after", gcry_cipher_decrypt(h, o, 16, D, 16));
  rc("setiv 2^61 bytes (over 2^61-1)", gcry_cipher_setiv(h, IV, pow2(61)));
  rc("encrypt after", gcry_cipher_encrypt(h, o, 16, D, 16));
  rc("gettag after", gcry_cipher_gettag(h, o, 16));
  rc("reset", gcry_cipher_reset(h));
  show_encrypt(h, 16);
  gcry_cipher_close(h);
}

void misuse(void) {
  for (size_t i = 0; i < sizeof D; i++) D[i] = (uint8_t)(i * 7 + 1);
  opens();
  before_key();
  setkeys();
  ivs_and_order();
  tag_without_iv();
  rekeys();
  setctrs();
  controls();
  limits();
}

/* ------------------------------------------------------------------ other handles */

void other_handles(void) {
  title("other handles, interleaved with AES-GCM ones");
  static const struct {
    const char *name;
    int algo, mode;
    unsigned flags;
    size_t keylen, ivlen, chunk;
    int aead;
  } spec[] = {
      {"AES GCM", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, 0, 16, 12, 7, 1},
      {"AES CBC", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CBC, 0, 16, 16, 16, 0},
      {"AES256 GCM SECURE", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_SECURE, 32, 12, 9, 1},
      {"AES CTR", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_CTR, 0, 16, 16, 7, 0},
      {"CHACHA20 POLY1305", GCRY_CIPHER_CHACHA20, GCRY_CIPHER_MODE_POLY1305, 0, 32, 12, 7, 1},
      {"CAMELLIA128 GCM", GCRY_CIPHER_CAMELLIA128, GCRY_CIPHER_MODE_GCM, 0, 16, 12, 7, 1},
      {"AES192 GCM", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_GCM, 0, 24, 12, 13, 1},
      {"AES GCM_SIV", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM_SIV, 0, 16, 12, 48, 1},
      {"AES GCM ENABLE_SYNC", GCRY_CIPHER_AES, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_ENABLE_SYNC, 16, 12, 7, 1},
  };
  enum { N = sizeof spec / sizeof spec[0] };
  gcry_cipher_hd_t h[N];
  uint8_t out[N][48], tag[16];
  for (int i = 0; i < N; i++) {
    printf("%s\n", spec[i].name);
    if (rc("open", gcry_cipher_open(&h[i], spec[i].algo, spec[i].mode, spec[i].flags))) continue;
    rc("setkey", gcry_cipher_setkey(h[i], K1, spec[i].keylen));
    rc("setiv", gcry_cipher_setiv(h[i], IV, spec[i].ivlen));
    if (spec[i].aead) rc("authenticate", gcry_cipher_authenticate(h[i], D, 11));
  }
  memset(out, 0, sizeof out);
  for (size_t off = 0; off < 48; off++) /* round robin, chunk by chunk */
    for (int i = 0; i < N; i++) {
      size_t step = spec[i].chunk < 48 - off ? spec[i].chunk : 48 - off;
      if (h[i] && off % spec[i].chunk == 0)
        rc(spec[i].name, gcry_cipher_encrypt(h[i], out[i] + off, step, D + off, step));
    }
  for (int i = 0; i < N; i++) {
    if (!h[i]) continue; /* (not every algorithm opens in FIPS mode) */
    printf("%s\n", spec[i].name);
    hex(" out", out[i], 48);
    if (spec[i].aead) {
      memset(tag, 0xee, 16);
      rc("gettag", gcry_cipher_gettag(h[i], tag, 16));
      hex(" tag", tag, 16);
    }
    rc("CFB_SYNC", gcry_cipher_ctl(h[i], GCRYCTL_CFB_SYNC, NULL, 0));
    size_t n = 0;
    rc("info GET_TAGLEN", gcry_cipher_info(h[i], GCRYCTL_GET_TAGLEN, NULL, &n));
    printf("   taglen %zu\n", n);
    rc("reset", gcry_cipher_reset(h[i]));
    rc("setiv", gcry_cipher_setiv(h[i], IV, spec[i].ivlen));
    rc("decrypt in place", gcry_cipher_decrypt(h[i], out[i], 48, NULL, 0));
    CHECK(!memcmp(out[i], D, 48) || spec[i].mode == GCRY_CIPHER_MODE_GCM_SIV, "%s decrypts", spec[i].name);
  }
  for (int i = N - 1; i >= 0; i -= 2) gcry_cipher_close(h[i]); /* another order */
  for (int i = N - 2; i >= 0; i -= 2) gcry_cipher_close(h[i]);
}
