#include "support/run_hash.h"

#include <criterion/criterion.h>
#include <stdlib.h>

uint64_t run_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull; /* FNV-1a 64's prime */
  }
  return h;
}

uint64_t run_hash_doubles(uint64_t h, const double *x, size_t n) { return run_hash_bytes(h, x, n * sizeof *x); }

isoStatus run_hash_state(uint64_t *h, const isoSim *sim, isoStateField field, double *scratch) {
  isoStatus st = iso_sim_get_state(sim, field, iso_worlds_all(), scratch);
  if (st == ISO_OK)
    *h = run_hash_doubles(*h, scratch, (size_t)iso_sim_world_count(sim) * (size_t)iso_sim_state_width(sim, field));
  return st;
}

uint64_t run_hash_final_state(const isoSim *sim) {
  size_t nw = (size_t)iso_sim_world_count(sim);
  double *buf = (double *)malloc(sizeof(double) * (nw * (size_t)iso_sim_state_width(sim, ISO_STATE_Q) + 1));
  cr_assert_not_null(buf);
  uint64_t h = RUN_HASH_SEED;
  isoStatus st = run_hash_state(&h, sim, ISO_STATE_Q, buf);
  if (st == ISO_OK) st = run_hash_state(&h, sim, ISO_STATE_V, buf); /* v is narrower than q */
  free(buf);
  cr_assert_eq(st, ISO_OK, "reading the state: %s", iso_last_error());
  return h;
}
