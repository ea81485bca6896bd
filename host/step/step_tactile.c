/* Stage 8, last: the tactile pads' taxels from the step's solved contact forces, one item per
 * (world, pad) (kernels/tactile/taxels.h). It runs after integration because it reads only what
 * the solve left (constraints, records, solved velocities) and the poses of the step's start,
 * which integration does not touch; a model without pads, or in which nothing can touch, runs
 * nothing and its taxels stay zero. Until somebody reads the taxels the step only keeps the
 * solved velocities, and the sampling runs when they are first read (host/sim/sim_tactile.c):
 * the rigid pick spent a sixth of its step here for samples nobody asked for. */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

int step_tactile_runs(const stepCtx *c) {
  return c->md->z.npad > 0 && c->contact && c->X_WG && c->sap && c->sap->enabled;
}

/* The sampling, from the solved velocities v (the solver's iterate, or the copy kept of it). */
static isoStatus sample(const stepCtx *c, real *v) {
  const modelView *m = c->md;
  tactileArgs a;
  a.npad = m->z.npad, a.ntaxel = m->z.ntaxel;
  a.pad_geom = m->pad_geom, a.pad_rows = m->pad_rows, a.pad_cols = m->pad_cols;
  a.pad_spacing = m->pad_spacing, a.pad_X_GP = m->pad_X_GP, a.pad_taxel0 = m->pad_taxel0;
  a.H = c->contact->dev;
  a.H.geom_E = c->param[ISO_PARAM_GEOM_MODULUS]; /* may be per world: as the narrow phase read it */
  a.X_WG = c->X_WG;
  a.B = c->sap->batch;
  a.B.v = v;
  a.dt = c->dt;
  a.status = c->status;
  a.force = c->taxel_f, a.pressure = c->taxel_p;
  return launch_tactile(c->be, (long)c->nworld * a.npad, &a);
}

isoStatus step_tactile(const stepCtx *c) {
  if (!step_tactile_runs(c)) return ISO_OK;
  if (c->tactile_now) return sample(c, c->sap->batch.v);
  /* nobody has read the taxels: keep the solved velocities, which the caller may overwrite
   * through the state's arrays before the taxels are asked for, and sample then */
  return backend_copy(c->be, c->tactile_v, c->sap->batch.v,
                      sizeof(real) * (size_t)c->sap->batch.nv * (size_t)c->nworld);
}

isoStatus step_tactile_later(const stepCtx *c) {
  if (!step_tactile_runs(c)) return ISO_OK;
  return sample(c, c->tactile_v);
}
