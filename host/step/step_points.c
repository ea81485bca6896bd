/* Stage 4 for point contact: one query per (world, point-contact pair) from the geometry poses
 * (kernels/point/pair.h); the hits become contact records in stage 5. */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"

isoStatus step_points(const stepCtx *c) {
  const simSap *p = c->sap;
  if (p->npoint == 0 || !c->X_WG) return ISO_OK;
  pointArgs a;
  a.npoint = p->npoint, a.ngeom = c->contact->dev.ngeom, a.shape = p->shape, a.pa = p->point_a, a.pb = p->point_b;
  a.X_WG = c->X_WG, a.status = c->status, a.hits = c->hits;
  return launch_sap_points(c->be, (long)c->nworld * p->npoint, &a);
}
