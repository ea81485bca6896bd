/* Stage 1, kinematics: the poses of the bodies from the generalized positions. This is the only
 * place the step reads q; every later stage reads these poses (and the velocities). For free
 * bodies a pose is q itself in another form (X_WB = (R_WB, p_WBo) from [qw qx qy qz px py pz]);
 * joint trees will compute it here by forward kinematics. */
#ifndef ISO_KERNELS_RIGID_KINEMATICS_H
#define ISO_KERNELS_RIGID_KINEMATICS_H

#include "kernels/core.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/rigid/free_body.h"

typedef struct kinArgs {
  const real *q; /* (nworld, nq) */
  int nq, nbody;
  xform *X_WB;   /* (nworld, nbody) out */
} kinArgs;

/* i = world·nbody + body */
static inline ISO_HD void body_pose_item_at(const kinArgs *a, long i) {
  const long w = i / a->nbody;
  const int b = (int)(i % a->nbody);
  const real *qb = a->q + w * a->nq + RIGID_NQ * b;
  a->X_WB[i] = xf_make(quat_make(qb[0], qb[1], qb[2], qb[3]), v3(qb[4], qb[5], qb[6]));
}

#endif
