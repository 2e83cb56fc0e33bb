/* regions.h - the driver's --regions output (regions.c). */
#ifndef WC_REGIONS_H
#define WC_REGIONS_H
#include <stddef.h>

struct region {
  const char *name;
  const void *addr;
  size_t len;
};

void regions_open(const char *path);
int regions_on(void);
/* Right after window `window`'s call: the caller's buffers and the known context ranges. */
void regions_window(size_t window, const struct region *bufs, size_t nbufs,
                    const struct region *ranges, size_t nranges);
void regions_close(void);

#endif
