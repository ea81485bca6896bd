/* Stage 8: positions from the solved velocities (quaternions renormalised), the fault checks,
 * and time; kernels/rigid/free_body.h. */
#include "host/backend/launch.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"

isoStatus step_integrate(const stepCtx *c) {
  finishArgs a;
  a.P = step_rigid_params(c);
  a.TS = c->TS;
  a.B = c->sap->batch;
  a.q = c->q, a.time = c->time, a.nq = c->nq, a.applied = c->applied, a.jforce = c->jforce, a.status = c->status;
  a.has_fem = c->md->z.ndef > 0;
  if (a.has_fem) a.FS = step_fem_args(c);
  return launch_sap_finish(c->be, c->nworld, &a);
}
