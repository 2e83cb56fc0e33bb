/*
 * whole-call.h - the interface between the whole-call driver (driver.c) and one
 * implementation's glue (glue-*.c): a list of entries, each a way of sealing one message.
 * A new entry is one line in a glue file's `wc_entries[]` (plus its seal function when it
 * calls a new API).
 */
#ifndef WHOLE_CALL_H
#define WHOLE_CALL_H

#include <stddef.h>
#include <stdint.h>

/* One message: encrypt `len` bytes of `in` into `out` and write a 16-byte tag. `key` is
 * there for entries that take the raw key on every call (one-shot APIs); keyed entries use
 * the context their setup made. */
struct wc_msg {
  const uint8_t *key, *iv, *aad, *in;
  size_t keylen, ivlen, aadlen, len;
  uint8_t *out, *tag;
};

struct wc_entry {
  const char *name;
  /* once per key, outside the traced window; returns the context or NULL (then the
   * driver reports the entry as unavailable and goes on) */
  void *(*setup)(const uint8_t *key, size_t keylen);
  /* the traced call */
  void (*seal)(void *ctx, const struct wc_msg *m);
};

extern const struct wc_entry wc_entries[];
extern const size_t wc_nentries;
/* the library's version string, for the report */
const char *wc_version(void);
/* abort the run with a message (a failed call is a broken measurement) */
void wc_die(const char *what);

#define WC_ENTRIES(...)                                                           \
  const struct wc_entry wc_entries[] = {__VA_ARGS__};                            \
  const size_t wc_nentries = sizeof wc_entries / sizeof wc_entries[0]

#endif
