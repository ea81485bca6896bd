/* Stage 8: every body's net contact wrench from the step's solved contact constraints, one item
 * per world (kernels/sap/body_wrench.h), into the data table's body_wrench (the view
 * "body_contact_wrench"). It reads what the solve left and the poses of the step's start, which
 * integration does not touch; a model in which nothing can touch runs nothing. */
#include "host/backend/launch.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"

isoStatus step_wrench(const stepCtx *c) {
  if (!c->body_wrench || !c->sap->enabled) return ISO_OK;
  wrenchArgs a;
  a.B = c->sap->batch;
  a.nbody = c->nbody;
  a.ngeom = c->md->z.ngeom;
  a.geom_body = c->md->geom_body;
  a.X_WB = c->X_WB;
  a.dt = c->dt;
  a.status = c->status;
  a.wrench = c->body_wrench;
  return launch_body_wrench(c->be, (long)c->nworld, &a);
}
