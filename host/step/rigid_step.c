/* A step of a model in which nothing can touch (no geometry pair): the free-motion velocities
 * are the next velocities, and positions follow — stages 6 and 8 of DESIGN.md's step, fused
 * into one item per world. Models with contact go through host/step/sap_step.c. */
#include "host/step/rigid_step.h"

#include "host/sim/sim_internal.h"

typedef struct stepCtx {
  isoSim *sim;
  rigidParams P;
} stepCtx;

static void step_range(int start, int end, void *ctx) {
  stepCtx *c = (stepCtx *)ctx;
  isoSim *s = c->sim;
  for (int w = start; w < end; ++w)
    rigid_free_step_world(w, &c->P, s->q + (long)w * s->nq, s->v + (long)w * s->nv, s->time + w,
                          s->status + w);
}

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
  rigidParams P = rigid_params_of(s);
  if (s->be.kind == ISO_BACKEND_CUDA)
    return cuda_rigid_free_step(&s->be, s->nworld, P, s->nq, s->nv, s->q, s->v, s->time, s->status);
  stepCtx c;
  c.sim = s;
  c.P = P;
  backend_cpu_for(&s->be, s->nworld, step_range, &c);
  return ISO_OK;
}
