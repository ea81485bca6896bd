/* isobar run --grow-capacities: a step that grows the contact capacities instead of freezing the
 * worlds that overflow them.
 *
 * Before each step the inputs of the step are kept for every world (q, v, time and the actuator
 * inputs: everything a step reads besides the parameters, which a step never writes). When a
 * world that was running overflows, the capacities grow to what the overflowing worlds needed
 * with a quarter to spare (iso_sim_reserve keeps every array), those worlds are reset (which
 * clears their fault bits), every world's inputs are put back, and the step is taken again: the
 * run is then the run a sim created with the larger capacities would have made, bit for bit.
 * Worlds frozen before the step stay as they were. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli/cli.h"
#include "isobar/isobar.h"

#define GROW_NFIELD 6
static const isoStateField grow_fields[GROW_NFIELD] = {ISO_STATE_Q,      ISO_STATE_V,
                                                       ISO_STATE_TIME,   ISO_STATE_EFFORT,
                                                       ISO_STATE_TARGET_POSITION, ISO_STATE_TARGET_VELOCITY};

struct cliGrow {
  int nworld;
  double *keep[GROW_NFIELD];
  uint32_t *before, *after;
  unsigned char *mask;
  int grown; /* times the capacities grew */
};

cliGrow *cli_grow_create(const isoSim *sim) {
  cliGrow *g = (cliGrow *)calloc(1, sizeof *g);
  if (!g) return NULL;
  g->nworld = iso_sim_world_count(sim);
  const size_t nw = (size_t)g->nworld;
  int ok = 1;
  for (int f = 0; f < GROW_NFIELD; ++f) {
    const size_t width = (size_t)iso_sim_state_width(sim, grow_fields[f]);
    g->keep[f] = (double *)malloc(sizeof(double) * (width * nw + 1));
    ok &= g->keep[f] != NULL;
  }
  g->before = (uint32_t *)malloc(sizeof(uint32_t) * nw);
  g->after = (uint32_t *)malloc(sizeof(uint32_t) * nw);
  g->mask = (unsigned char *)malloc(nw);
  if (!ok || !g->before || !g->after || !g->mask) {
    cli_grow_free(g);
    return NULL;
  }
  return g;
}

void cli_grow_free(cliGrow *g) {
  if (!g) return;
  for (int f = 0; f < GROW_NFIELD; ++f) free(g->keep[f]);
  free(g->before);
  free(g->after);
  free(g->mask);
  free(g);
}

int cli_grow_count(const cliGrow *g) { return g ? g->grown : 0; }

static isoStatus put_back(isoSim *sim, cliGrow *g) {
  isoStatus st = ISO_OK;
  for (int f = 0; f < GROW_NFIELD && st == ISO_OK; ++f)
    if (iso_sim_state_width(sim, grow_fields[f]) > 0) st = iso_sim_set_state(sim, grow_fields[f], iso_worlds_all(), g->keep[f]);
  return st;
}

isoStatus cli_grow_step(isoSim *sim, cliGrow *g, int quiet) {
  isoStatus st = iso_sim_get_status(sim, iso_worlds_all(), g->before);
  for (int f = 0; f < GROW_NFIELD && st == ISO_OK; ++f)
    if (iso_sim_state_width(sim, grow_fields[f]) > 0) st = iso_sim_get_state(sim, grow_fields[f], iso_worlds_all(), g->keep[f]);
  for (int attempt = 0; st == ISO_OK; ++attempt) {
    if ((st = iso_sim_step(sim)) != ISO_OK) return st;
    if ((st = iso_sim_get_status(sim, iso_worlds_all(), g->after)) != ISO_OK) return st;
    isoCapacityDef cap = iso_sim_capacity(sim), want = cap;
    int n = 0;
    for (int w = 0; w < g->nworld; ++w) {
      g->mask[w] = !(g->before[w] & ISO_WORLD_FROZEN) && (g->after[w] & ISO_WORLD_OVERFLOW);
      if (!g->mask[w]) continue;
      int nc = 0, nf = 0, ncon = 0;
      if ((st = iso_sim_get_overflow(sim, w, &nc, &nf, &ncon)) != ISO_OK) return st;
      const int contacts = nf > ncon ? nf : ncon;
      if (nc + nc / 4 > want.max_candidates) want.max_candidates = nc + nc / 4;
      if (contacts + contacts / 4 > want.max_contacts) want.max_contacts = contacts + contacts / 4;
      ++n;
    }
    if (n == 0) return ISO_OK;
    if (attempt >= 8 || (want.max_contacts == cap.max_contacts && want.max_candidates == cap.max_candidates))
      return ISO_OK; /* no growth helps: leave the worlds frozen, as without the option */
    if ((st = iso_sim_reserve(sim, want.max_contacts, want.max_candidates)) != ISO_OK) return st;
    g->grown++;
    if (!quiet)
      fprintf(stderr, "isobar run: %d world(s) overflowed; capacities grown to max_contacts %d, max_candidates %d\n", n,
              want.max_contacts, want.max_candidates);
    if ((st = iso_sim_reset(sim, iso_worlds_mask(g->mask))) != ISO_OK) return st;
    st = put_back(sim, g);
  }
  return st;
}
