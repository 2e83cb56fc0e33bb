/*
 * The tcrypt-style row sets: each is one table of cycles per message at fixed sizes, with
 * the shape of its messages (key sizes, IV, AAD) and the call that makes one. Adding a table
 * is one entry here; the worker times every entry for every implementation that has its
 * call, and the report prints it as a table, CSV rows and (--tcrypt-lines) tcrypt log lines.
 *
 * A row set whose message is bench-slope's "GCM enc" calls the implementation's op[] directly,
 * as the first table always has; the others go through one small adapter that fills in the
 * row set's IV and AAD (one indirect call more per message, the same for everyone).
 */
#include "harness.h"

#include <string.h>

/* tcrypt's AEAD speed sizes (crypto/tcrypt.h aead_sizes) up to 8 KiB; 1420 is an IPsec MTU. */
static const size_t tcrypt_sizes[] = {16, 64, 256, 512, 1024, 1420, 2048, 4096, 8192};
/* Packet sizes, for the caches-disturbed row sets. */
static const size_t packet_sizes[] = {16, 64, 256, 512, 1024, 1420};
#define SIZES(list) .sizes = list, .nsizes = sizeof list / sizeof list[0]

#define AES128 1u
#define AES192 2u
#define AES256 4u

/* The first entry is what the chart draws. */
const struct rowset rowsets[] = {
    {.heading = "tcrypt-style: gcm(aes) encryption, one setiv + encrypt + gettag per message",
     .tcrypt = "gcm(aes)", .lines_tag = "", .csv_mode = "GCM enc",
     .algos = AES128 | AES192 | AES256, .ivlen = 12, .call = CALL_ENC, SIZES(tcrypt_sizes)},
    /* What a TLS 1.2/1.3 stack asks for per record (issue 15): the 13-byte AAD. */
    {.heading = "TLS record: gcm(aes) encryption, 12-byte IV, 13-byte AAD, one setiv + AAD + "
                "encrypt + gettag per message",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD)",
     .csv_mode = "GCM enc aad13", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_SEAL, SIZES(tcrypt_sizes)},
    /* The same records decrypted (the tag check fails, as bench-slope's GCM dec: the same
     * work as one that succeeds), next to the GnuTLS-style decryption below. */
    {.heading = "TLS record: gcm(aes) decryption, 12-byte IV, 13-byte AAD, one setiv + AAD + "
                "decrypt + tag check per message",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), decryption",
     .csv_mode = "GCM dec aad13", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_OPEN, SIZES(tcrypt_sizes)},
    /* The same records through a keyed one-shot call, next to the handle API above. */
    {.heading = "TLS record, keyed one-shot: gcm(aes) encryption, 12-byte IV, 13-byte AAD, "
                "one seal call per message on a keyed handle",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), keyed one-shot",
     .csv_mode = "GCM seal aad13", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_SEAL_KEYED, SIZES(tcrypt_sizes),
     .absent = "TLS record, keyed one-shot: not measured -- no implementation here has a "
               "keyed one-shot call yet (slot: seal_keyed in bench/gcm/impl.h)"},
    /* The next table's packets as plain GCM (12-byte nonce = salt || IV, the same 8-byte
     * AAD) through the same keyed one-shot call: what the RFC 4106 framing costs is the
     * difference between the two, measured in one run. */
    {.heading = "ESP packet as plain GCM, keyed one-shot: gcm(aes) encryption, 12-byte IV, "
                "8-byte AAD, one seal call per message on a keyed handle",
     .tcrypt = "gcm(aes)", .lines_tag = ", 8-byte AAD, keyed one-shot",
     .csv_mode = "GCM seal aad8", .algos = AES128 | AES192 | AES256, .ivlen = 12, .aadlen = 8,
     .call = CALL_SEAL_KEYED, SIZES(tcrypt_sizes)},
    /* IPsec ESP (RFC 4106): AES key + 4-byte salt, 8-byte explicit IV, 8-byte AAD (SPI and
     * sequence number), the per-packet call (sgcm_aead_seal on an RFC 4106 handle). */
    {.heading = "rfc4106(gcm(aes)) encryption, 20/28/36-byte keys, 8-byte IV, 8-byte AAD, one "
                "seal per message on a keyed handle",
     .tcrypt = "rfc4106(gcm(aes))", .lines_tag = "", .csv_mode = "RFC4106 enc aad8",
     .algos = AES128 | AES192 | AES256, .salt = 4, .ivlen = 8, .aadlen = 8,
     .call = CALL_SEAL_RFC4106, SIZES(tcrypt_sizes),
     .absent = "rfc4106(gcm(aes)), 20/28/36-byte keys, 16 ... 8192 bytes: not measured -- no "
               "implementation here has an RFC 4106 mode yet (slot: seal_rfc4106 in "
               "bench/gcm/impl.h)"},
    /* The TLS records again, each message with its key, state and code pushed out of the
     * caches first (issue 15: the per-message cost after a noisy neighbour; cold.c). */
    {.heading = "TLS record, caches disturbed: gcm(aes) encryption, 12-byte IV, 13-byte AAD, "
                "one setiv + AAD + encrypt + gettag per message, L1 and L2 evicted before each",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), caches disturbed",
     .csv_mode = "GCM enc aad13 cold", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_SEAL, .cold = 1, SIZES(packet_sizes)},
    {.heading = "TLS record, keyed one-shot, caches disturbed: gcm(aes) encryption, 12-byte IV, "
                "13-byte AAD, one seal call per message on a keyed handle, L1 and L2 evicted "
                "before each",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), keyed one-shot, caches disturbed",
     .csv_mode = "GCM seal aad13 cold", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_SEAL_KEYED, .cold = 1, SIZES(packet_sizes)},
    /* The records the way GnuTLS makes them through nettle's API (impl.h, seal_gnutls):
     * "nettle" is the real libnettle, "nettle->stitchgcm" the same calls with libstitchgcm
     * preloaded -- the drop-in's speed-up where it is deployed. */
    {.heading = "TLS record through nettle's API as GnuTLS calls it: gcm(aes) encryption, "
                "12-byte IV, 13-byte AAD, gcm_aesNNN_set_iv + gcm_aesNNN_update + the generic "
                "gcm_encrypt + gcm_aesNNN_digest per message",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), GnuTLS via nettle",
     .csv_mode = "GCM enc aad13 gnutls", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_SEAL_GNUTLS, SIZES(tcrypt_sizes),
     .absent = "TLS record through nettle's API as GnuTLS calls it: not measured -- built "
               "without nettle"},
    {.heading = "TLS record through nettle's API as GnuTLS calls it: gcm(aes) decryption, "
                "12-byte IV, 13-byte AAD, gcm_aesNNN_set_iv + gcm_aesNNN_update + the generic "
                "gcm_decrypt + gcm_aesNNN_digest + a constant-time tag compare per message",
     .tcrypt = "gcm(aes)", .lines_tag = ", TLS record (13-byte AAD), GnuTLS via nettle, decryption",
     .csv_mode = "GCM dec aad13 gnutls", .algos = AES128 | AES256, .ivlen = 12, .aadlen = 13,
     .call = CALL_OPEN_GNUTLS, SIZES(tcrypt_sizes),
     .absent = "TLS record decryption through nettle's API as GnuTLS calls it: not measured "
               "-- built without nettle"},
};
const size_t nrowsets = sizeof rowsets / sizeof rowsets[0];
_Static_assert(sizeof rowsets / sizeof rowsets[0] <= MAXROWSETS, "raise MAXROWSETS");

/* The AAD of every message: a TLS 1.2 record header's shape (sequence number, type,
 * version, length) for the first 13 bytes. */
const uint8_t rowset_aad[16] = {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 0x03, 0x03, 0x01, 0x00};

static seal_fn call_of(const struct rowset *rs, const struct impl *p) {
  switch (rs->call) {
  case CALL_SEAL: return p->seal;
  case CALL_SEAL_KEYED: return p->seal_keyed;
  case CALL_SEAL_RFC4106: return p->seal_rfc4106;
  case CALL_SEAL_GNUTLS: return p->seal_gnutls;
  case CALL_ENC:
  case CALL_OPEN_GNUTLS:
  case CALL_OPEN: return NULL;
  }
  return NULL;
}

int rowset_supported(const struct rowset *rs, const struct impl *p) {
  if (rs->call == CALL_OPEN_GNUTLS) return p->open_gnutls != NULL;
  if (rs->call == CALL_OPEN) return p->open_ != NULL;
  return rs->call == CALL_ENC ? p->op[MODE_ENC] != NULL : call_of(rs, p) != NULL;
}

int rowset_measured_anywhere(const struct rowset *rs) {
  if (!rowset_selected(rs)) return 0;
  for (int i = 0; i < nimpl; i++)
    if (rowset_supported(rs, &impls[i])) return 1;
  return 0;
}

/* --rowsets "GCM enc aad13,GCM enc aad13 cold": the row sets with those CSV modes. */
int rowset_selected(const struct rowset *rs) {
  if (!opt.rowsets_only) return 1;
  size_t n = strlen(rs->csv_mode);
  for (const char *p = opt.rowsets_only; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !strncmp(p, rs->csv_mode, n)) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

static void seal_message(void *v, uint8_t *buf, size_t len) {
  struct rowset_runner *r = v;
  uint8_t tag[16];
  r->bound.seal(r->bound.handle, bench_nonce, r->bound.rs->ivlen, rowset_aad,
                r->bound.rs->aadlen, buf, buf, len, tag);
}

/* A decryption whose tag check fails, as bench-slope's "GCM dec" times it: the same work
 * as one that succeeds (the compare is constant-time), with no valid tag to keep per size. */
static void open_message(void *v, uint8_t *buf, size_t len) {
  struct rowset_runner *r = v;
  static const uint8_t zero[16];
  bench_sink += (unsigned long)r->bound.open(r->bound.handle, bench_nonce, r->bound.rs->ivlen,
                                             rowset_aad, r->bound.rs->aadlen, buf, buf, len,
                                             zero);
}

void rowset_runner(const struct rowset *rs, const struct impl *p, void *handle,
                   struct rowset_runner *r) {
  if (rs->call == CALL_ENC) {
    r->run = p->op[MODE_ENC];
    r->ctx = handle;
    return;
  }
  if (rs->call == CALL_OPEN_GNUTLS || rs->call == CALL_OPEN) {
    r->bound.open = rs->call == CALL_OPEN ? p->open_ : p->open_gnutls;
    r->bound.handle = handle;
    r->bound.rs = rs;
    r->run = open_message;
    r->ctx = r;
    return;
  }
  r->bound.seal = call_of(rs, p);
  r->bound.handle = handle;
  r->bound.rs = rs;
  r->run = seal_message;
  r->ctx = r;
}
