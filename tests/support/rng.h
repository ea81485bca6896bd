/* Random vectors over the tests' deterministic generator (support.h): the draws several split
 * test files share, so that each keeps its exact random sequence. Header-only (static inline),
 * like the other helpers here. */
#ifndef ISO_TESTS_RNG_H
#define ISO_TESTS_RNG_H

#include "kernels/math/vec3.h"
#include "support/support.h"

/* Each coordinate uniform in [lo, hi), drawn x, y, z in that order. */
static inline vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

/* A random unit vector: a point of the unit ball (rejection, |v| > 0.1), normalised. */
static inline vec3 rand_unit(test_rng *r) {
  for (;;) {
    vec3 v = rand_v3(r, -1, 1);
    double n = v3_norm(v);
    if (n > 0.1 && n <= 1) return v3_scale(v, 1 / n);
  }
}

#endif
