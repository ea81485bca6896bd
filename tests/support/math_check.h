/* Helpers shared by the math-layer tests (tests/test_math_*.c): a random rotation and the
 * largest entrywise difference of two vectors or matrices. Header-only (static inline). */
#ifndef ISO_TESTS_MATH_CHECK_H
#define ISO_TESTS_MATH_CHECK_H

#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/vec3.h"
#include "support/rng.h"
#include "support/support.h"

/* Uniform-ish random rotation: a normalised 4-vector drawn in the unit ball (rejection). */
static inline quat rand_quat(test_rng *r) {
  for (;;) {
    double w = test_rng_uniform(r, -1, 1), x = test_rng_uniform(r, -1, 1);
    double y = test_rng_uniform(r, -1, 1), z = test_rng_uniform(r, -1, 1);
    double n2 = w * w + x * x + y * y + z * z;
    if (n2 > 0.01 && n2 <= 1) return quat_normalize(quat_make(w, x, y, z));
  }
}

static inline double m3_maxdiff(mat3 A, mat3 B) { return m3_max_abs(m3_sub(A, B)); }

static inline double v3_maxdiff(vec3 a, vec3 b) { return v3_max_abs(v3_sub(a, b)); }

#endif
