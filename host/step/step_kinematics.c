/* Stage 1, kinematics: body poses from q (the only read of q before integration), then every
 * geometry's pose in the world from its body's. Items: (world, tree), then (world, geometry). */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

isoStatus step_kinematics(const stepCtx *c) {
  kinArgs k;
  k.TS = c->TS;
  k.q = c->q, k.nq = c->nq, k.nbody = c->nbody, k.X_WB = c->X_WB;
  isoStatus st = launch_body_pose(c->be, (long)c->nworld * k.TS.ntree, &k);
  if (st != ISO_OK || !c->contact || !c->X_WG) return st; /* nothing can touch: no geometry poses */
  collideArgs a;
  a.H = c->contact->dev;
  a.H.geom_E = c->param[ISO_PARAM_GEOM_MODULUS]; /* may be per world: as it is now */
  a.W = c->contact->work;
  a.X_WB = c->X_WB, a.nbody = c->nbody, a.status = c->status;
  return launch_hs_pose(c->be, (long)c->nworld * a.H.ngeom, &a);
}
