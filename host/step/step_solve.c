/* Stage 7: each world's SAP problem solved by Newton's method with an exact line search, the
 * world's whole loop as one item (kernels/sap/solve.h: sap_solve_world), so a world that is
 * done stops and nothing is read back between iterations. */
#include "host/backend/launch.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"

isoStatus step_solve(const stepCtx *c) {
  solveArgs a;
  a.B = c->sap->batch;
  return launch_sap_solve(c->be, c->nworld, &a);
}
