/*
 * trace-plugin.c - qemu TCG plugin (plugin API version 1, qemu-user 7.2 on Debian 12; API 4,
 * qemu-user 10.0 on Debian 13, whose header includes glib.h) for the whole-call
 * model: records, in order, the guest instructions executed between a start and a stop
 * marker instruction, once per marked window.
 *
 * The markers are NOPs no compiler emits (markers.h: HINT #0x6a = start, #0x6b = stop on
 * ARM, in A64, A32 and T32 form; an 8-byte NOP on x86_64).  The driver (driver.c) puts them
 * right around the call it measures, so nothing has to know an address: the plugin
 * recognises them by their encoding.
 *
 * Recording works per translation block: at translation the plugin keeps each block's
 * instructions (address, size, bytes, and qemu's disassembly, which tells ARM from Thumb
 * for AArch32) and registers one execution callback per block; inside a window every
 * execution appends the block's id (a marker in the middle of a block cuts it).  A block
 * runs to its end unless an exception is taken in it, which the measured calls do not do.
 *
 * Output (file given by out=PATH), text:
 *   B <id> <n>                 a block, first executed inside a window; then n lines
 *   <vaddr> <size> <hex bytes> <qemu disassembly>
 *   W <k>                      window k starts; then lines of block ids, "id" or
 *                              "id:first:count" for part of a block
 *   E <k> <instructions>       window k ends
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "markers.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct insn_rec {
  uint64_t vaddr;
  uint32_t size;
  uint8_t bytes[4];
  char *disas;
  int mark;
};

struct tb_rec {
  uint64_t id;
  size_t n;
  int has_mark, dumped;
  struct insn_rec insn[];
};

static FILE *out;
static uint64_t next_id;
static int recording;
static uint64_t window, window_insns;
static unsigned line_items;

static void dump_tb(struct tb_rec *tb) {
  size_t i, j;
  tb->dumped = 1;
  fprintf(out, "B %" PRIu64 " %zu\n", tb->id, tb->n);
  for (i = 0; i < tb->n; i++) {
    struct insn_rec *r = &tb->insn[i];
    fprintf(out, "%" PRIx64 " %u ", r->vaddr, r->size);
    for (j = 0; j < r->size && j < 4; j++) fprintf(out, "%02x", r->bytes[j]);
    fprintf(out, " %s\n", r->disas ? r->disas : "?");
  }
}

static void end_line(void) {
  if (line_items % 16) fputc('\n', out);
  line_items = 0;
}

static void emit(struct tb_rec *tb, size_t first, size_t count) {
  if (!count) return;
  if (!tb->dumped) { /* its B record goes on lines of its own, before its first id */
    end_line();
    dump_tb(tb);
  }
  if (first == 0 && count == tb->n) fprintf(out, "%" PRIu64, tb->id);
  else fprintf(out, "%" PRIu64 ":%zu:%zu", tb->id, first, count);
  fputc(++line_items % 16 ? ' ' : '\n', out);
  window_insns += count;
}

static void tb_exec(unsigned int vcpu, void *udata) {
  struct tb_rec *tb = udata;
  size_t i, from = 0;
  (void)vcpu;
  if (!tb->has_mark) {
    if (recording) emit(tb, 0, tb->n);
    return;
  }
  for (i = 0; i < tb->n; i++) {
    int m = tb->insn[i].mark;
    if (m == WC_MARK_IS_START) {
      if (recording) { /* a start without a stop: close the open window as it is */
        emit(tb, from, i - from);
        end_line();
        fprintf(out, "E %" PRIu64 " %" PRIu64 " unterminated\n", window, window_insns);
      }
      recording = 1;
      window++;
      window_insns = 0;
      line_items = 0;
      fprintf(out, "W %" PRIu64 "\n", window);
      from = i + 1;
    } else if (m == WC_MARK_IS_STOP && recording) {
      emit(tb, from, i - from);
      end_line();
      fprintf(out, "E %" PRIu64 " %" PRIu64 "\n", window, window_insns);
      recording = 0;
    }
  }
  if (recording) emit(tb, from, tb->n - from);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  size_t n = qemu_plugin_tb_n_insns(tb), i;
  struct tb_rec *r = calloc(1, sizeof *r + n * sizeof r->insn[0]);
  (void)id;
  if (!r) abort();
  r->id = next_id++;
  r->n = n;
  for (i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    struct insn_rec *x = &r->insn[i];
    size_t size = qemu_plugin_insn_size(insn);
    x->vaddr = qemu_plugin_insn_vaddr(insn);
    x->size = (uint32_t)size;
#if QEMU_PLUGIN_VERSION >= 2
    /* API 2 and later (qemu 9+: Debian 13's qemu 10 has API 4) copy the bytes out. */
    uint8_t data[16];
    size_t got = qemu_plugin_insn_data(insn, data, sizeof data);
    if (got < size) size = got;
#else
    const uint8_t *data = qemu_plugin_insn_data(insn);
#endif
    memcpy(x->bytes, data, size < 4 ? size : 4);
    x->mark = wc_mark_of(data, size);
    x->disas = qemu_plugin_insn_disas(insn);
    r->has_mark |= x->mark != WC_MARK_NONE;
  }
  /* blocks stay allocated: their records are printed when first executed in a window */
  qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, r);
}

static void at_exit(qemu_plugin_id_t id, void *p) {
  (void)id;
  (void)p;
  if (recording) {
    end_line();
    fprintf(out, "E %" PRIu64 " %" PRIu64 " unterminated\n", window, window_insns);
  }
  fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv) {
  const char *path = NULL;
  int i;
  (void)info;
  for (i = 0; i < argc; i++)
    if (!strncmp(argv[i], "out=", 4)) path = argv[i] + 4;
  if (!path) {
    fprintf(stderr, "trace-plugin: want out=PATH\n");
    return 1;
  }
  out = fopen(path, "w");
  if (!out) {
    perror(path);
    return 1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
