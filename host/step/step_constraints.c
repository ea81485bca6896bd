/* Stages 5-6, one item per world today, reading the body poses of stage 1 (not q): the SAP
 * constraints from the contact list (faces, then
 * point contacts; kernels/contact/build.h), the free motion v* and the cliques' blocks of A
 * (kernels/rigid/free_body.h), and the solver's per-step set-up. */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

isoStatus step_constraints(const stepCtx *c) {
  const simSap *p = c->sap;
  prepareArgs a;
  a.P = step_rigid_params(c);
  a.TS = c->TS;
  const modelView *m = c->md;
  a.J.nlimit = m->z.nlimit, a.J.limit_dof = m->limit_dof, a.J.dof_q = m->dof_q;
  a.J.limits = c->param[ISO_PARAM_DOF_LIMITS];
  a.J.ncoupler = m->z.ncoupler, a.J.coupler_dof = m->coupler_dof, a.J.coupler_ratio = m->coupler_ratio;
  a.J.target_q = c->target_q, a.J.target_v = c->target_v;
  a.q = c->q, a.nq = c->nq;
  a.M = p->mat;
  a.M.E = c->param[ISO_PARAM_GEOM_MODULUS];
  a.M.d = c->param[ISO_PARAM_GEOM_DISSIPATION];
  a.M.mu = c->param[ISO_PARAM_GEOM_FRICTION];
  a.M.k = c->param[ISO_PARAM_GEOM_STIFFNESS];
  a.M.tau = c->param[ISO_PARAM_GEOM_RELAXATION];
  a.W = c->contact->work;
  a.has_list = c->list != NULL;
  a.hits = c->hits, a.npoint = p->npoint;
  a.X_WB = c->X_WB;
  a.B = p->batch;
  a.has_fem = c->md->z.ndef > 0;
  if (a.has_fem) a.FS = step_fem_args(c);
  a.needed = c->needed, a.status = c->status;
  return launch_sap_prepare(c->be, c->nworld, &a);
}
