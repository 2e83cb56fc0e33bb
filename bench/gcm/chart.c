/*
 * The chart: cycles/byte against message size of one row set (the first, tcrypt's own),
 * log2 on both axes (the portable fallback and the fastest kernels differ by 100x or more),
 * one line per implementation, one panel per key size; plain SVG so that nothing needs
 * installing.
 */
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void write_svg(const char *path, const char *subtitle, size_t set) {
  const struct rowset *rs = &rowsets[set];
  const size_t *sizes = rs->sizes;
  size_t nsizes = rs->nsizes;
  FILE *f = fopen(path, "w");
  if (!f) { fprintf(stderr, "bench-gcm: %s: %s\n", path, strerror(errno)); return; }
  static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  const int pw = 360, ph = 300, ml = 56, mt = 56, gap = 40, W = ml + NALGO * (pw + gap) + 170,
            H = mt + ph + 70;
  double ymin = 1e300, ymax = 0;
  for (int i = 0; i < nimpl; i++)
    for (int a = 0; a < NALGO; a++)
      for (size_t s = 0; s < nsizes; s++)
        if (res[i].ok && res[i].have_rs[set][a]) {
          double y = res[i].rs_ns[set][a][s] * res[i].rs_ghz[set][a] / (double)sizes[s];
          if (y > ymax) ymax = y;
          if (y > 0 && y < ymin) ymin = y;
        }
  if (ymax <= 0) ymin = 0.5, ymax = 1;
  double ly0 = floor(log2(ymin)), ly1 = ceil(log2(ymax));
  if (ly1 <= ly0) ly1 = ly0 + 1;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
  fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">AES-GCM encrypt (setiv + encrypt + "
             "tag per message): cycles/byte vs message size</text>\n", ml);
  fprintf(f, "<text x=\"%d\" y=\"40\" fill=\"#555\">%s</text>\n", ml, subtitle);
  double lx0 = log2((double)sizes[0]), lx1 = log2((double)sizes[nsizes - 1]);
  for (int a = 0; a < NALGO; a++) {
    int x0 = ml + a * (pw + gap), y0 = mt;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">AES-%zu</text>\n", x0 + pw / 2 - 25,
            y0 - 4, algo_keylen[a] * 8);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            x0, y0, pw, ph);
    for (double ly = ly0; ly <= ly1 + 1e-9; ly += 1) {
      double y = exp2(ly), py = y0 + ph - (ly - ly0) / (ly1 - ly0) * ph;
      fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                 "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
              x0, x0 + pw, py, py, x0 - 4, py + 4, y);
    }
    for (size_t s = 0; s < nsizes; s++) {
      double px = x0 + (log2((double)sizes[s]) - lx0) / (lx1 - lx0) * pw;
      fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                 "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%zu</text>\n",
              px, px, y0, y0 + ph, px, y0 + ph + 14 + (sizes[s] == 1420 ? 10 : 0), sizes[s]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message bytes (log scale)</text>\n",
            x0 + pw / 2, y0 + ph + 40);
    if (a == 0)
      fprintf(f, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">cycles/byte (log scale)</text>\n",
              y0 + ph / 2);
    for (int i = 0, k = 0; i < nimpl; i++) {
      if (!res[i].ok || !res[i].have_rs[set][a]) continue;
      const char *col = colour[k++ % 10];
      fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
      for (size_t s = 0; s < nsizes; s++) {
        double y = res[i].rs_ns[set][a][s] * res[i].rs_ghz[set][a] / (double)sizes[s];
        double px = x0 + (log2((double)sizes[s]) - lx0) / (lx1 - lx0) * pw;
        double py = y0 + ph - (log2(y > 0 ? y : exp2(ly0)) - ly0) / (ly1 - ly0) * ph;
        fprintf(f, "%.1f,%.1f ", px, py);
      }
      fprintf(f, "\"/>\n");
    }
  }
  int lx = ml + NALGO * (pw + gap) - 10;
  for (int i = 0, k = 0; i < nimpl; i++) {
    if (!res[i].ok) continue;
    int ly = mt + 10 + k * 20;
    fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
               "<text x=\"%d\" y=\"%d\">%s</text>\n",
            lx, lx + 24, ly, ly, colour[k % 10], lx + 30, ly + 4, impls[i].label);
    k++;
  }
  fprintf(f, "</svg>\n");
  fclose(f);
}
