/* A step of a model in which nothing can touch (no geometry pair): the free-motion velocities
 * are the next velocities, and positions follow — stages 6 and 8 of DESIGN.md's step, fused
 * into one item per world. Models with contact go through host/step/sap_step.c. */
#include "host/step/rigid_step.h"

#include "host/backend/launch.h"
#include "host/sim/sim_internal.h"

rigidParams rigid_params_of(const isoSim *s) {
  rigidParams P;
  P.nbody = s->nbody;
  P.dt = s->dt;
  P.gravity = s->param[ISO_PARAM_GRAVITY].f;
  P.mass = s->param[ISO_PARAM_BODY_MASS].f;
  P.com = s->param[ISO_PARAM_BODY_COM].f;
  P.inertia = s->param[ISO_PARAM_BODY_INERTIA].f;
  return P;
}

isoStatus rigid_step(isoSim *s) {
  freeArgs a;
  a.P = rigid_params_of(s);
  a.nq = s->nq, a.nv = s->nv;
  a.q = s->q, a.v = s->v, a.time = s->time, a.status = s->status;
  return launch_rigid_free_step(&s->be, s->nworld, &a);
}
