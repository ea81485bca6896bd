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
  a.TS = step_tree_set(c);
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
  a.needed = c->needed, a.status = c->status;
  return launch_sap_prepare(c->be, c->nworld, &a);
}
