/* The deformable stage: each world's deformable bodies through one step (element work, the
 * factorisation on each mesh's fixed pattern, one solve, the Newmark update), one item per
 * world (kernels/fem/world.h). A model without deformable bodies launches nothing. */
#include "host/backend/launch.h"
#include "host/step/step.h"
#include "isobar/sim.h"

isoStatus step_deformable(const stepCtx *c) {
  const modelView *m = c->md;
  if (m->z.ndef == 0) return ISO_OK;
  femArgs a;
  a.ndef = m->z.ndef;
  a.dt = c->dt;
  a.gravity = c->param[ISO_PARAM_GRAVITY];
  a.material = c->param[ISO_PARAM_DEFORMABLE_MATERIAL];
  a.vert0 = m->def_vert0, a.tet0 = m->def_tet0, a.tet = m->def_tet, a.held = m->def_held;
  a.rest = m->def_tet_rest;
  a.pat_head = m->def_pat_head, a.pat0 = m->def_pat0, a.pat = m->def_pat, a.slot0 = m->def_slot0;
  a.ndv3 = 3L * m->z.ndvert, a.nL = 9L * m->z.ndslot;
  a.xd = c->xd, a.vd = c->vd, a.L = c->fem_L, a.rhs = c->fem_b, a.work = c->fem_w;
  a.status = c->status;
  return launch_fem_step(c->be, c->nworld, &a);
}
