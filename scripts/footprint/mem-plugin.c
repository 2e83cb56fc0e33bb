/*
 * mem-plugin.c - qemu TCG plugin (plugin API version 1, qemu-user 7.2) for the footprint
 * report (footprint.py): between a start and a stop marker instruction (markers.h, the
 * whole-call tracer's markers) it records every distinct instruction executed and every
 * distinct data access made, through qemu's per-instruction and memory callbacks.
 *
 * An access is what qemu's memory callback reports: a guest virtual address and a size of
 * 1, 2, 4 or 8 bytes (qemu splits a 16- or 32-byte vector access into 8-byte pieces), load
 * or store. Accesses made by qemu helpers on the host's side without a callback are not
 * seen (AArch64 DC ZVA, which glibc's memset uses for large blocks, is one); the calls
 * measured here do not use them.
 *
 * Output (file given by out=PATH), text, per window k:
 *   W <k>
 *   I <vaddr> <size> <executions>        one line per distinct instruction
 *   D <vaddr> <size> <r|w> <accesses> <pc>  one line per distinct access (address, size,
 *                                        kind) and instruction that made it
 *   E <k> <instructions> <accesses>      totals of the window
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "../whole-call/markers.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* A set of keys (two 64-bit words; a is never 0) with a count each (open addressing,
 * linear probing). */
struct entry {
  uint64_t a, b, count;
};
struct set {
  struct entry *e;
  size_t cap, n;
};

static void set_init(struct set *s, size_t cap) {
  s->e = calloc(cap, sizeof *s->e);
  if (!s->e) abort();
  s->cap = cap, s->n = 0;
}

static size_t slot(const struct set *s, uint64_t a, uint64_t b) {
  size_t j = (size_t)(((a ^ b * 0xff51afd7ed558ccdull) * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
  while (s->e[j].a && (s->e[j].a != a || s->e[j].b != b)) j = (j + 1) & (s->cap - 1);
  return j;
}

static void set_add(struct set *s, uint64_t a, uint64_t b) {
  if (2 * (s->n + 1) > s->cap) { /* keep it at most half full */
    struct set t;
    set_init(&t, 2 * s->cap);
    for (size_t i = 0; i < s->cap; i++)
      if (s->e[i].a) t.e[slot(&t, s->e[i].a, s->e[i].b)] = s->e[i], t.n++;
    free(s->e);
    *s = t;
  }
  struct entry *x = &s->e[slot(s, a, b)];
  if (!x->a) x->a = a, x->b = b, s->n++;
  x->count++;
}

static void set_clear(struct set *s) {
  memset(s->e, 0, s->cap * sizeof *s->e);
  s->n = 0;
}

struct insn_rec {
  uint64_t vaddr;
  uint32_t size;
};

static FILE *out;
static int recording;
static uint64_t window, insns, accesses;
/* code: (vaddr << 4 | size, 0), instructions being at most 15 bytes; data: (vaddr << 8 |
 * log2(size) << 1 | store, the instruction's vaddr), user-space addresses fit in 56 bits. */
static struct set code, data;

static void end_window(const char *why) {
  for (size_t i = 0; i < code.cap; i++)
    if (code.e[i].a)
      fprintf(out, "I %" PRIx64 " %u %" PRIu64 "\n", code.e[i].a >> 4, (unsigned)(code.e[i].a & 15),
              code.e[i].count);
  for (size_t i = 0; i < data.cap; i++)
    if (data.e[i].a)
      fprintf(out, "D %" PRIx64 " %u %c %" PRIu64 " %" PRIx64 "\n", data.e[i].a >> 8,
              1u << ((data.e[i].a >> 1) & 7), data.e[i].a & 1 ? 'w' : 'r', data.e[i].count,
              data.e[i].b);
  fprintf(out, "E %" PRIu64 " %" PRIu64 " %" PRIu64 "%s\n", window, insns, accesses, why);
  set_clear(&code);
  set_clear(&data);
  recording = 0;
}

static void mark_exec(unsigned int vcpu, void *udata) {
  (void)vcpu;
  if ((uintptr_t)udata == WC_MARK_IS_START) {
    if (recording) end_window(" unterminated");
    recording = 1;
    insns = accesses = 0;
    fprintf(out, "W %" PRIu64 "\n", ++window);
  } else if (recording) {
    end_window("");
  }
}

static void insn_exec(unsigned int vcpu, void *udata) {
  const struct insn_rec *r = udata;
  (void)vcpu;
  if (!recording) return;
  insns++;
  set_add(&code, r->vaddr << 4 | r->size, 0);
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
                       void *udata) {
  const struct insn_rec *r = udata;
  (void)vcpu;
  if (!recording) return;
  accesses++;
  set_add(&data,
          vaddr << 8 | (uint64_t)qemu_plugin_mem_size_shift(info) << 1 |
              (qemu_plugin_mem_is_store(info) ? 1 : 0),
          r->vaddr);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  size_t n = qemu_plugin_tb_n_insns(tb);
  (void)id;
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    size_t size = qemu_plugin_insn_size(insn);
#if QEMU_PLUGIN_VERSION >= 2
    /* API 2 and later (qemu 9+: Debian 13's qemu 10 has API 4) copy the bytes out. */
    uint8_t bytes[16];
    size_t got = qemu_plugin_insn_data(insn, bytes, sizeof bytes);
    int mark = wc_mark_of(bytes, got < size ? got : size);
#else
    int mark = wc_mark_of(qemu_plugin_insn_data(insn), size);
#endif
    if (mark != WC_MARK_NONE) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec, QEMU_PLUGIN_CB_NO_REGS,
                                             (void *)(uintptr_t)mark);
      continue;
    }
    struct insn_rec *r = malloc(sizeof *r); /* lives as long as the translation */
    if (!r) abort();
    r->vaddr = qemu_plugin_insn_vaddr(insn);
    r->size = (uint32_t)size;
    qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec, QEMU_PLUGIN_CB_NO_REGS, r);
    qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                     QEMU_PLUGIN_MEM_RW, r);
  }
}

static void at_exit(qemu_plugin_id_t id, void *p) {
  (void)id, (void)p;
  if (recording) end_window(" unterminated");
  fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv) {
  const char *path = NULL;
  (void)info;
  for (int i = 0; i < argc; i++)
    if (!strncmp(argv[i], "out=", 4)) path = argv[i] + 4;
  if (!path) {
    fprintf(stderr, "mem-plugin: want out=PATH\n");
    return 1;
  }
  out = fopen(path, "w");
  if (!out) {
    perror(path);
    return 1;
  }
  set_init(&code, 1 << 12);
  set_init(&data, 1 << 12);
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
