/* Stage 1, kinematics: the poses of the bodies from the generalized positions. This is the only
 * place the step reads q; every later stage reads these poses (and the velocities). For free
 * bodies a pose is q itself in another form (X_WB = (R_WB, p_WBo) from [qw qx qy qz px py pz]);
 * jointed trees compute it by forward kinematics (kernels/rigid/tree.h). */
#ifndef ISO_KERNELS_RIGID_KINEMATICS_H
#define ISO_KERNELS_RIGID_KINEMATICS_H

#include "kernels/core.h"
#include "kernels/rigid/tree_step.h"

typedef struct kinArgs {
  treeSet TS;    /* the model's trees */
  const real *q; /* (nworld, nq) */
  int nq, nbody;
  xform *X_WB;   /* (nworld, nbody) out */
} kinArgs;

/* i = world·ntree + tree: a free body's pose is its q in another form; a jointed tree's comes
 * from forward kinematics, root to leaves. */
static inline ISO_HD void body_pose_item_at(const kinArgs *a, long i) {
  const long w = i / a->TS.ntree;
  const int k = (int)(i % a->TS.ntree);
  tree_set_pose(&a->TS, k, a->q + w * a->nq, a->X_WB + w * a->nbody);
}

#endif
