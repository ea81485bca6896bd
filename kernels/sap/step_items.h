/* The per-item work of a contact step outside the Newton iterations, shared by the CPU loops
 * (host/step/sap_step.c) and the CUDA kernels (kernels/cuda/sap.cu): point-contact queries (item:
 * world × point pair), free motion plus constraints plus solver set-up (item: world), and
 * positions from the solved velocities (item: world). */
#ifndef ISO_KERNELS_SAP_STEP_ITEMS_H
#define ISO_KERNELS_SAP_STEP_ITEMS_H

#include <stdint.h>

#include "kernels/point/pair.h"
#include "kernels/rigid/free_body.h"
#include "kernels/rigid/tree_step.h"
#include "kernels/contact/build.h"
#include "kernels/fem/contact.h"
#include "kernels/sap/tree_build.h"
#include "kernels/hydro/surface.h"
#include "kernels/sap/solve.h"

/* Item i = world·npoint + k: the k-th point-contact pair of a world. */
static inline ISO_HD void sap_point_item(long i, int npoint, int ngeom, const pointShape *shape, const int *pa,
                                         const int *pb, const xform *X, const uint32_t *status, sapPointHit *hits) {
  const int w = (int)(i / npoint), k = (int)(i % npoint);
  sapPointHit *h = hits + i;
  const int a = pa[k], b = pb[k];
  h->geom_a = a;
  h->geom_b = b;
  h->valid = 0;
  if (status[w] & ISO_WORLD_FROZEN) return;
  pointContact pc;
  if (point_pair(shape + a, X[(long)w * ngeom + a], shape + b, X[(long)w * ngeom + b], &pc)) {
    h->valid = 1;
    h->depth = pc.depth;
    h->nhat_BA = pc.nhat_BA;
    h->p_WCa = pc.p_WCa;
    h->p_WCb = pc.p_WCb;
  }
}

/* The fault bits of a state a step starts from (q, v0) and its free motion (v*), before the
 * solver sees them: non-finite first, then past the runaway bounds (include/isobar/
 * world_status.h); 0 when fine. */
static inline ISO_HD uint32_t sap_state_fault(const real *q, int nq, const real *v0, const real *vstar, int nv) {
  int finite = 1, runaway = 0;
  for (int i = 0; i < nq; ++i) {
    finite &= isfinite(q[i]) ? 1 : 0;
    runaway |= fabs(q[i]) > ISO_RUNAWAY_POSITION;
  }
  for (int i = 0; i < nv; ++i) {
    finite &= (isfinite(v0[i]) && isfinite(vstar[i])) ? 1 : 0;
    runaway |= fabs(v0[i]) > ISO_RUNAWAY_SPEED || fabs(vstar[i]) > ISO_RUNAWAY_SPEED;
  }
  if (!finite) return ISO_WORLD_NONFINITE | ISO_WORLD_FROZEN;
  return runaway ? ISO_WORLD_RUNAWAY | ISO_WORLD_FROZEN : 0u;
}

/* World w: v* and A, the point contacts into the contact list (W: NULL when the model has no
 * contact list), the constraints from the list, and the solver's per-step data. X_WB: the body
 * poses of stage 1 (nworld, nbody); q is read by the fault check and the joint constraints. */
static inline ISO_HD void sap_prepare_world(int w, const rigidParams *P, const treeSet *TS,
                                            const sapJointInputs *JI, const real *q, int nq, const sapMaterials *M,
                                            const hydroWork *W, const sapPointHit *hits, int npoint,
                                            const xform *X_WB, const sapBatch *B, const femSapArgs *FS, int *needed,
                                            uint32_t *status) {
  const xform *X_w = X_WB + (long)w * P->nbody;
  const real *v0 = B->v + (long)w * B->nv;
  const real *A_world = B->A + (long)B->max_A * w;
  if (FS && FS->touch) /* the iterate is apart from the state: it starts at the state's v */
    for (int i = 0; i < FS->nv0; ++i) ((real *)v0)[i] = FS->v_state[(long)w * FS->nv0 + i];
  if (!tree_set_free_motion(TS, w, P, X_w, v0, (real *)B->vstar + (long)w * B->nv,
                            B->max_A ? (real *)A_world : (real *)0, (sapClique *)sap_batch_cliques(B, w),
                            B->origin + 3L * B->max_clique * w, (int *)B->nclique + w))
    status[w] |= ISO_WORLD_NOT_SPD | ISO_WORLD_FROZEN;
  if (FS && FS->touch) /* the deformable cliques (their blocks came from fem_schur_item_at) */
    fem_sap_clique_list(FS, w, (sapClique *)sap_batch_cliques(B, w), B->origin + 3L * B->max_clique * w,
                        (int *)B->nclique + w);
  if (!(status[w] & ISO_WORLD_FROZEN))
    status[w] |= sap_state_fault(q + (long)w * nq, nq, v0, B->vstar + (long)w * B->nv, B->nv);
  const contactRec *list = (const contactRec *)0;
  int nrec = 0;
  if (W) {
    contactRec *mine = W->list + (long)w * W->max_list;
    sap_point_list_world(M, hits + (long)w * npoint, npoint, w, mine, W->face_count, W->list_count);
    list = mine;
    nrec = W->list_count[w];
  }
  sapPool pool; /* dense blocks of constraints on jointed trees */
  pool.J = B->jpool ? B->jpool + (long)w * B->max_jpool : (real *)0;
  pool.cap = B->max_jpool;
  pool.used = 0;
  pool.con_jac = B->con_jac ? B->con_jac + (long)w * B->max_con : (int *)0;
  pool.con_body = B->con_body ? B->con_body + 2L * w * B->max_con : (int *)0;
  pool.bjac = B->bjac ? B->bjac + (long)w * B->max_bjac : (real *)0;
  pool.bjac_stride = B->bjac_stride;
  const svec *Sw = TS->S ? TS->S + (long)w * TS->nv : (const svec *)0;
  const int njoint_cap = JI->nlimit + TS->nact + JI->ncoupler, max_contact = B->max_con - njoint_cap;
  sapCon *con = B->con + (long)w * B->max_con;
  int *ncon = (int *)B->ncon + w;
  sap_build_world(M, list, nrec, w, X_w, v0, sap_batch_cliques(B, w), A_world, P->dt, TS, Sw, &pool, con, max_contact,
                  ncon, needed + w, status);
  ((int *)B->ncontact)[w] = *ncon;
  if (njoint_cap > 0 && !(status[w] & ISO_WORLD_FROZEN)) {
    const int n = sap_build_joint_world(w, TS, JI, q + (long)w * nq, v0, B->vstar + (long)w * B->nv,
                                        sap_batch_cliques(B, w), A_world, P->dt, con, *ncon, B->max_con, &pool);
    if (n > B->max_con) { /* the pool of dense blocks is full */
      status[w] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
      *ncon = 0;
      ((int *)B->ncontact)[w] = 0;
    } else {
      *ncon = n;
    }
  }
  if (FS && FS->touch && !(status[w] & ISO_WORLD_FROZEN)) { /* deformable contacts, after the rest */
    const int n = fem_sap_constraints(FS, w, M, sap_batch_cliques(B, w), B->origin + 3L * B->max_clique * w, A_world,
                                      v0, con, *ncon, B->max_con, TS, Sw, X_w, &pool);
    if (n < 0) {
      status[w] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
      *ncon = 0;
      ((int *)B->ncontact)[w] = 0;
    } else {
      *ncon = n;
    }
  }
  sap_setup_world(B, w);
}

/* World w's joint constraints at the solved velocities: their generalized force Jᵀγ/δt
 * (jforce, nv per world; NULL: the model has none) and each PD actuator's effort γ/δt. */
static inline ISO_HD void sap_joint_results(int w, const sapBatch *B, int nv, real dt, int nact, real *jforce,
                                            real *applied) {
  if (!jforce) return;
  real *f = jforce + (long)w * nv;
  for (int i = 0; i < nv; ++i) f[i] = 0;
  const sapCon *con = B->con + (long)w * B->max_con;
  const sapClique *cl = sap_batch_cliques(B, w);
  const real *v = B->v + (long)w * B->nv;
  for (int i = B->ncontact[w]; i < B->ncon[w]; ++i) {
    if (con[i].kind >= SAP_CON_DEF_CONTACT) break; /* the deformables' come last */
    const sapJac j = sap_con_jac(B, w, con + i);
    real g[SAP_MAX_ROWS];
    sap_con_eval(con + i, &j, cl, v, g, (real *)0);
    sap_con_apply_t(&j, cl, g, 1 / dt, f);
    if (con[i].kind == SAP_CON_PD) applied[(long)w * nact + con[i].contact] = g[0] / dt;
  }
}

static inline ISO_HD void sap_finish_world(int w, const rigidParams *P, const treeSet *TS, const sapBatch *B,
                                           const femSapArgs *FS, real *q, int nq, real *time, real *applied,
                                           real *jforce, uint32_t *status) {
  if (status[w] & ISO_WORLD_FROZEN) return;
  if (TS->nact > 0 || jforce) { /* actuators or joint constraints: what they did this step */
    sap_joint_results(w, B, TS->nv, P->dt, TS->nact, jforce, applied);
    for (int a = 0; a < TS->nact; ++a)
      if (!tree_is_pd(TS, w, a)) applied[(long)w * TS->nact + a] = tree_clamped_effort(TS, w, a);
  }
  if (!tree_set_integrate(TS, q + (long)w * nq, B->v + (long)w * B->nv, nq, P->dt)) {
    status[w] |= ISO_WORLD_NONFINITE | ISO_WORLD_FROZEN;
    return;
  }
  if (FS) { /* deformable bodies: the iterate's rigid part back to the state, every vertex */
    if (FS->touch)
      for (int i = 0; i < FS->nv0; ++i) FS->v_state[(long)w * FS->nv0 + i] = B->v[(long)w * B->nv + i];
    const uint32_t bits = fem_finish_world(FS, w);
    if (bits) {
      status[w] |= bits | ISO_WORLD_FROZEN;
      return;
    }
  }
  time[w] += P->dt;
}

#endif
