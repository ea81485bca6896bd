/* The step of a model in which nothing can touch: free motion is the motion (v = v*), and
 * positions follow — stages 6-8 fused into one item per world (kernels/rigid/free_body.h),
 * which gives bitwise what the staged pipeline gives with no constraint, at a fraction of its
 * memory traffic. */
#include "host/backend/launch.h"
#include "host/step/step.h"

isoStatus step_free_bodies(const stepCtx *c) {
  freeArgs a;
  a.P = step_rigid_params(c);
  a.nq = c->nq, a.nv = c->nv;
  a.q = c->q, a.v = c->v, a.time = c->time, a.status = c->status;
  return launch_rigid_free_step(c->be, c->nworld, &a);
}
