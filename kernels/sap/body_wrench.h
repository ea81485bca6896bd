/* Net contact wrench on every body, per world, from the step's solved contact constraints: the
 * array behind the "body_contact_wrench" view (include/isobar/view.h), so a policy can read
 * contact forces without a query per body.
 *
 * One item per world. Each contact constraint's impulse is its law's value at the solved
 * velocities (kernels/sap/solve.h keeps no impulse; the queries of host/sim/sap_results.c
 * recompute it the same way). The record's normal points out of geometry N into M: body N
 * receives +f and body M −f, each with the moment of f at the contact point about the body's
 * origin at the step's start (where the constraint was built). Sums run over the constraints in
 * the world's order, so the bits do not depend on threads or backend. Contacts with deformable
 * bodies are not included (nor in iso_sim_get_body_contact_wrench). */
#ifndef ISO_KERNELS_SAP_BODY_WRENCH_H
#define ISO_KERNELS_SAP_BODY_WRENCH_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/math/transform.h"
#include "kernels/sap/solve.h"

typedef struct wrenchArgs {
  sapBatch B;              /* constraints, their records and the solved velocities */
  int nbody, ngeom;
  const int *geom_body;    /* (ngeom) body of each geometry, -1 for the world */
  const xform *X_WB;       /* (nworld, nbody) body poses of the step's start */
  real dt;                 /* s */
  const uint32_t *status;  /* (nworld) */
  real *wrench;            /* (nworld, nbody, 6) out: torque about the origin, then force, W */
} wrenchArgs;

/* Add force f at point p to body b's wrench (torque about its origin o, then force). */
static inline ISO_HD void wrench_add(real *ISO_RESTRICT W, vec3 o, vec3 p, vec3 f) {
  const vec3 t = v3_cross(v3_sub(p, o), f);
  W[0] += t.x, W[1] += t.y, W[2] += t.z;
  W[3] += f.x, W[4] += f.y, W[5] += f.z;
}

/* World w's wrenches. A frozen world reports zeros: its constraints are not the state's. */
static inline ISO_HD void body_wrench_world(const wrenchArgs *a, int w) {
  real *W = a->wrench + 6L * a->nbody * w;
  for (int k = 0; k < 6 * a->nbody; ++k) W[k] = 0;
  if (a->status[w] & ISO_WORLD_FROZEN) return;
  const sapBatch *B = &a->B;
  const sapCon *con = B->con + (long)w * B->max_con;
  const contactRec *list = B->list + (long)w * B->max_list;
  const sapClique *cl = sap_batch_cliques(B, w);
  const real *v = B->v + (long)w * B->nv;
  const xform *X = a->X_WB + (long)w * a->nbody;
  for (int k = 0; k < B->ncontact[w]; ++k) {
    const sapCon *c = con + k;
    if (c->kind != SAP_CON_CONTACT) continue;
    const contactRec *r = list + c->contact;
    const int bn = a->geom_body[r->geom_n], bm = a->geom_body[r->geom_m];
    if (bn == bm) continue;
    const sapJac j = sap_con_jac(B, w, c);
    real g[SAP_MAX_ROWS];
    for (int q = 0; q < SAP_MAX_ROWS; ++q) g[q] = 0;
    sap_con_eval(c, &j, cl, v, g, (real *)0);
    vec3 f = v3_zero();
    for (int q = 0; q < 3; ++q) f = v3_axpy(f, g[q] / a->dt, m3_col(j.R_WC, q));
    if (bn >= 0) wrench_add(W + 6 * bn, X[bn].p, r->point, f);
    if (bm >= 0) wrench_add(W + 6 * bm, X[bm].p, r->point, v3_neg(f));
  }
}

#endif
