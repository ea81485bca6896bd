/* Stage 8, last: the tactile pads' taxels from the step's solved contact forces, one item per
 * (world, pad) (kernels/tactile/taxels.h). It runs after integration because it reads only what
 * the solve left (constraints, records, solved velocities) and the poses of the step's start,
 * which integration does not touch; a model without pads, or in which nothing can touch, runs
 * nothing and its taxels stay zero. */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

isoStatus step_tactile(const stepCtx *c) {
  const modelView *m = c->md;
  if (m->z.npad == 0 || !c->contact || !c->X_WG || !c->sap->enabled) return ISO_OK;
  tactileArgs a;
  a.npad = m->z.npad, a.ntaxel = m->z.ntaxel;
  a.pad_geom = m->pad_geom, a.pad_rows = m->pad_rows, a.pad_cols = m->pad_cols;
  a.pad_spacing = m->pad_spacing, a.pad_X_GP = m->pad_X_GP, a.pad_taxel0 = m->pad_taxel0;
  a.H = c->contact->dev;
  a.H.geom_E = c->param[ISO_PARAM_GEOM_MODULUS]; /* may be per world: as the narrow phase read it */
  a.X_WG = c->X_WG;
  a.B = c->sap->batch;
  a.dt = c->dt;
  a.status = c->status;
  a.force = c->taxel_f, a.pressure = c->taxel_p;
  return launch_tactile(c->be, (long)c->nworld * a.npad, &a);
}
