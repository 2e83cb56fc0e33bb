/*
 * markers.h - the two marker instructions that bracket one measured call, for the driver
 * that executes them (WC_MARK_START / WC_MARK_STOP) and the qemu plugins that look for them
 * (wc_mark_of): the whole-call tracer (trace-plugin.c) and the footprint tracer
 * (scripts/footprint/mem-plugin.c).
 *
 * They are NOPs no compiler emits, recognised by their encoding, so nothing has to know an
 * address:
 *   ARM: HINT #0x6a (start) and #0x6b (stop), numbers no architecture version allocates,
 *        in A64, A32 and T32 form;
 *   x86_64: an 8-byte NOP, nopl disp32(%rax,%rax,1), with the displacement 0x5343576a
 *        ("jWCS") or 0x5343576b.
 */
#ifndef WC_MARKERS_H
#define WC_MARKERS_H
#include <stddef.h>
#include <stdint.h>

#if defined(__aarch64__)
#define WC_MARK_(h, x86) __asm__ volatile("hint #0x" h ::: "memory")
#elif defined(__thumb__)
#define WC_MARK_(h, x86) __asm__ volatile(".inst.w 0xf3af80" h ::: "memory")
#elif defined(__arm__)
#define WC_MARK_(h, x86) __asm__ volatile(".inst 0xe320f0" h ::: "memory")
#elif defined(__x86_64__)
#define WC_MARK_(h, x86) __asm__ volatile(".byte 0x0f,0x1f,0x84,0x00," x86 ",0x57,0x43,0x53" ::: "memory")
#else
#define WC_MARK_(h, x86) ((void)0) /* elsewhere the driver runs and records nothing */
#endif
#define WC_MARK_START() WC_MARK_("6a", "0x6a")
#define WC_MARK_STOP() WC_MARK_("6b", "0x6b")

enum { WC_MARK_NONE, WC_MARK_IS_START, WC_MARK_IS_STOP };

/* Which marker, if any, the instruction of `size` bytes at `b` is. */
static inline int wc_mark_of(const uint8_t *b, size_t size) {
  static const uint8_t x86[8] = {0x0f, 0x1f, 0x84, 0x00, 0, 0x57, 0x43, 0x53};
  if (size == 8) {
    for (size_t i = 0; i < 8; i++)
      if (i != 4 && b[i] != x86[i]) return WC_MARK_NONE;
    return b[4] == 0x6a ? WC_MARK_IS_START : b[4] == 0x6b ? WC_MARK_IS_STOP : WC_MARK_NONE;
  }
  if (size != 4) return WC_MARK_NONE;
  uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  switch (w) {
  case 0xd5032d5f: /* A64 hint #0x6a */
  case 0xe320f06a: /* A32 hint #0x6a */
  case 0x806af3af: /* T32 hint.w #0x6a (halfwords f3af 806a) */
    return WC_MARK_IS_START;
  case 0xd5032d7f:
  case 0xe320f06b:
  case 0x806bf3af:
    return WC_MARK_IS_STOP;
  }
  return WC_MARK_NONE;
}

#endif
