#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_progress_start(cliProgress *p) {
  p->start = p->last = cli_now();
  p->shown = 0;
  p->tty = isatty(fileno(stderr));
}

void cli_progress_update(cliProgress *p, long long done, long long total) {
  if (!p->tty || total <= 0) return;
  double now = cli_now();
  if (now - p->start < 1.0 || (now - p->last < 0.1 && done < total)) return;
  p->last = now;
  p->shown = 1;
  int width = 40, fill = (int)(width * done / total);
  double eta = done > 0 ? (now - p->start) * (double)(total - done) / (double)done : 0;
  fprintf(stderr, "\r[");
  for (int i = 0; i < width; ++i) fputc(i < fill ? '#' : '.', stderr);
  fprintf(stderr, "] %3d%%  %lld/%lld steps  eta %.1fs ", (int)(100 * done / total), done, total, eta);
  fflush(stderr);
}

void cli_progress_end(cliProgress *p) {
  if (p->shown) fprintf(stderr, "\n");
}

int cli_parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out) {
  if (!s) {
    fprintf(stderr, "isobar: %s needs a value\n", opt);
    return 0;
  }
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "isobar: %s expects an integer in [%lld, %lld], got '%s'\n", opt, lo, hi, s);
    return 0;
  }
  *out = v;
  return 1;
}
