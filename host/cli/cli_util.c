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

/* FNV-1a 64 of the final q, then v, then the deformable vertices' positions and velocities, of
 * every world (tests/support/run_hash.c computes the same for models without deformable
 * bodies, and tests/test_cli_run.c holds the two together). Raw bytes, nothing canonicalised:
 * the hash is for seeing whether two runs ended bitwise alike, e.g. on two machines. */
isoStatus cli_state_hash(const isoSim *sim, uint64_t *out) {
  /* q and v, then the deformable vertices (none in a rigid model: its hash is what it was) */
  static const isoStateField fields[4] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_VERTEX_POSITION,
                                          ISO_STATE_VERTEX_VELOCITY};
  int wide = iso_sim_state_width(sim, ISO_STATE_Q);
  if (iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION) > wide) wide = iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION);
  size_t n = (size_t)iso_sim_world_count(sim) * (size_t)wide;
  double *buf = (double *)malloc(sizeof(double) * (n + 1));
  if (!buf) return ISO_ERR_NOMEM;
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a's offset basis */
  isoStatus st = ISO_OK;
  for (int f = 0; f < 4 && st == ISO_OK; ++f) {
    isoStateField field = fields[f];
    st = iso_sim_get_state(sim, field, iso_worlds_all(), buf);
    size_t nb = sizeof(double) * (size_t)iso_sim_world_count(sim) * (size_t)iso_sim_state_width(sim, field);
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < nb && st == ISO_OK; ++i) h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a 64's prime */
  }
  free(buf);
  *out = h;
  return st;
}
