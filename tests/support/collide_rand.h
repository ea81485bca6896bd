/* Random rotations and poses shared by the box and BVH tests (tests/test_box.c,
 * tests/test_bvh.c). Header-only (static inline). */
#ifndef ISO_TESTS_COLLIDE_RAND_H
#define ISO_TESTS_COLLIDE_RAND_H

#include "kernels/math/transform.h"
#include "support/support.h"

static inline quat rand_quat(test_rng *r) {
  quat q = quat_make(test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1),
                     test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1));
  return quat_normalize(q);
}

static inline xform rand_pose(test_rng *r, double reach) {
  return xf_make(rand_quat(r), v3(test_rng_uniform(r, -reach, reach),
                                  test_rng_uniform(r, -reach, reach),
                                  test_rng_uniform(r, -reach, reach)));
}

#endif
