/* Stage 5 on jointed trees: where a constraint's Jacobian blocks come from when a body moves on
 * joints, and the joint constraints themselves (reference §5.5–5.8).
 *
 * A body's clique is its tree's (kernels/rigid/tree_step.h). On a free body a contact's block is
 * the compact RIGID_POINT kind, formed where it is used; on a jointed tree it is DENSE: the
 * velocity Jacobian of the contact point through the tree (tree_point_jacobian), rows × nt reals
 * written once per step into the world's pool, at an offset kept per constraint (con_jac). A
 * contact between two bodies of one tree is one block, J_B − J_A, on that tree's clique.
 *
 * After the contacts, in Drake's order: a limit per limited 1-DoF joint whose limit lies within
 * the window of §5.6, a PD constraint per actuator with gains (§5.7), a coupler per mimic joint
 * (§5.5). Their blocks are unit rows of DoFs, stored dense like the rest. They read the
 * positions of their 1-DoF joints at the step's start from q: the one read of q after stage 1,
 * since those scalars are not poses. */
#ifndef ISO_KERNELS_SAP_TREE_BUILD_H
#define ISO_KERNELS_SAP_TREE_BUILD_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/rigid/tree_step.h"
#include "kernels/sap/solve.h"

/* Body b's origin from the world's body poses (stage 1); the world's (b = −1) is zero. */
static inline ISO_HD vec3 sap_body_origin(const xform *X_WB, int b) { return b >= 0 ? X_WB[b].p : v3_zero(); }

/* One world's pool of dense blocks while its constraints are built. */
typedef struct sapPool {
  real *J;      /* the world's pool (max_jpool reals) */
  int cap, used;
  int *con_jac; /* (max_con) the world's offsets */
  int *con_body; /* (max_con, 2) the world's contacts' jointed bodies (sapBatch.con_body), or NULL */
  real *bjac;    /* the world's body Jacobians (sapBatch.bjac) */
  int bjac_stride;
} sapPool;

/* Room for n reals at the end of the pool; NULL when it is full. */
static inline ISO_HD real *sap_pool_take(sapPool *p, int n) {
  if (p->used + n > p->cap) return (real *)0;
  real *J = p->J + p->used;
  p->used += n;
  return J;
}

/* The clique and block kind of body b's side of a constraint (b = −1: the world). */
static inline ISO_HD int sap_body_clique(const treeSet *TS, int b, unsigned char *block) {
  *block = SAP_BLOCK_RIGID_POINT;
  if (b < 0) return -1;
  const int k = TS->body_tree[b];
  if (!TS->tree_free[k]) *block = SAP_BLOCK_DENSE;
  return TS->tree_clique[k]; /* −1: a tree without DoFs (welded to the world) */
}

/* The point Jacobian block of body b (its tree's DoFs) for frame R, sign s, into J. */
static inline ISO_HD void sap_tree_block(const treeSet *TS, const svec *Sw, const xform *X_WB, int b, vec3 p, mat3 R,
                                         real s, real *J) {
  int b0, b1, v0, nt;
  tree_range(TS, TS->body_tree[b], &b0, &b1, &v0, &nt);
  tree_point_jacobian(&TS->T, b0, b1, v0, X_WB, Sw + v0, b, p, R, s, J);
}

/* A contact constraint (index ci) between bodies ba and bb at p_WC with normal n̂_BA: kind,
 * cliques, block kinds, and its Jacobian data, its dense blocks written into the pool. Returns 0
 * when the pool is full. For free bodies this is exactly the free-body constraint (clique: the
 * body's, RIGID_POINT blocks from the body origins). */
static inline ISO_HD int sap_con_geometry_tree(sapCon *c, int ci, int ba, int bb, vec3 p_WC, vec3 nhat_BA,
                                               const xform *X_WB, const treeSet *TS, const svec *Sw, sapPool *pool,
                                               sapJac *out) {
  c->kind = SAP_CON_CONTACT;
  c->rows = 3;
  if (!TS->jointed) { /* free bodies alone: body b is clique b */
    c->clique[0] = ba, c->clique[1] = bb;
    c->block[0] = c->block[1] = SAP_BLOCK_RIGID_POINT;
    vec3 o[2] = {sap_body_origin(X_WB, ba), sap_body_origin(X_WB, bb)};
    sap_jac_make_to(c, p_WC, nhat_BA, o, out);
    return 1;
  }
  c->clique[0] = sap_body_clique(TS, ba, &c->block[0]);
  c->clique[1] = sap_body_clique(TS, bb, &c->block[1]);
  const int body[2] = {ba, bb};
  if (pool->con_body) pool->con_body[2 * ci] = pool->con_body[2 * ci + 1] = -1;
  vec3 o[2] = {sap_body_origin(X_WB, ba), sap_body_origin(X_WB, bb)};
  for (int q = 0; q < 2; ++q)
    if (c->clique[q] < 0) c->block[q] = SAP_BLOCK_RIGID_POINT; /* no block: the world, or welded */
  const int same = c->clique[0] >= 0 && c->clique[0] == c->clique[1];
  if (c->block[0] != SAP_BLOCK_DENSE && c->block[1] != SAP_BLOCK_DENSE) {
    sap_jac_make_to(c, p_WC, nhat_BA, o, out);
    return 1;
  }
  sapJac j = sap_jac_make(c, p_WC, nhat_BA, o);
  pool->con_jac[ci] = pool->used;
  if (same) { /* one block on the shared clique: J_B − J_A */
    int b0, b1, v0, n;
    tree_range(TS, TS->body_tree[bb], &b0, &b1, &v0, &n);
    real *JB = sap_pool_take(pool, 3 * n), *JA = sap_pool_take(pool, 3 * n);
    if (!JB || !JA) return 0;
    sap_tree_block(TS, Sw, X_WB, bb, p_WC, j.R_WC, (real)1, JB);
    sap_tree_block(TS, Sw, X_WB, ba, p_WC, j.R_WC, (real)-1, JA);
    for (int i = 0; i < 3 * n; ++i) JB[i] += JA[i];
    pool->used -= 3 * n; /* JA was scratch */
    c->clique[0] = -1;
    c->block[0] = SAP_BLOCK_RIGID_POINT;
    c->block[1] = SAP_BLOCK_DENSE;
    j = sap_jac_make(c, p_WC, nhat_BA, o);
    j.Jd[1] = JB;
    *out = j;
    return 1;
  }
  for (int q = 0; q < 2; ++q) { /* block 0 first in the pool, as sap_con_jac reads them */
    if (c->clique[q] < 0 || c->block[q] != SAP_BLOCK_DENSE) continue;
    int b0, b1, v0, n;
    tree_range(TS, TS->body_tree[body[q]], &b0, &b1, &v0, &n);
    real *J = sap_pool_take(pool, 3 * n);
    if (!J) return 0;
    sap_tree_block(TS, Sw, X_WB, body[q], p_WC, j.R_WC, q ? (real)1 : (real)-1, J);
    j.Jd[q] = J;
    if (pool->con_body) { /* the body's spatial Jacobian, for the Hessian's per-run sums */
      pool->con_body[2 * ci + q] = body[q];
      /* formed once per run: the contact before on this side (contacts come first, so it is one)
       * already wrote this body's this step */
      if (ci == 0 || pool->con_body[2 * (ci - 1) + q] != body[q])
        tree_body_jacobian(&TS->T, b0, b1, v0, X_WB, Sw + v0, body[q], pool->bjac + (long)body[q] * pool->bjac_stride);
    }
  }
  *out = j;
  return 1;
}

/* The tree, clique and DoF count of DoF d (found by the trees' DoF ranges). */
static inline ISO_HD int sap_dof_tree(const treeSet *TS, int d) {
  int lo = 0, hi = TS->ntree; /* tree_v0 ascending: the last tree with tree_v0 <= d */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (TS->tree_v0[mid] <= d) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* A joint constraint of `rows` unit rows on DoFs: row i has coefficient a[i] on DoF da[i] and
 * b[i] on DoF db[i] (db[i] < 0: none). Fills kind, cliques, dense blocks; 0 when the pool is
 * full. The two DoFs may lie in two trees (a coupler across trees: block 0 on b's tree). */
static inline ISO_HD int sap_con_dofs(sapCon *c, int ci, int kind, int rows, const int *da, const real *a,
                                      const int *db, const real *b, const treeSet *TS, sapPool *pool, sapJac *out) {
  c->kind = (unsigned char)kind;
  c->rows = (unsigned char)rows;
  const int ta = sap_dof_tree(TS, da[0]);
  const int tb = db[0] >= 0 ? sap_dof_tree(TS, db[0]) : ta;
  c->clique[1] = TS->tree_clique[ta];
  c->clique[0] = tb != ta ? TS->tree_clique[tb] : -1;
  c->block[0] = c->clique[0] >= 0 ? SAP_BLOCK_DENSE : SAP_BLOCK_RIGID_POINT;
  c->block[1] = SAP_BLOCK_DENSE;
  c->contact = da[0];
  pool->con_jac[ci] = pool->used;
  sapJac j;
  j.rows = rows;
  j.Jd[0] = j.Jd[1] = (const real *)0;
  j.cols[0] = j.cols[1] = (const int *)0;
  j.ncols[0] = j.ncols[1] = 0;
  j.coef[0] = j.coef[1] = (const real *)0;
  j.R_WC = m3_identity(); /* unread by dense blocks */
  for (int q = 0; q < 2; ++q) j.block[q] = c->block[q], j.clique[q] = c->clique[q];
  const int trees[2] = {tb, ta};
  for (int q = 0; q < 2; ++q) {
    if (c->clique[q] < 0) continue;
    const int v0 = TS->tree_v0[trees[q]], n = TS->tree_v0[trees[q] + 1] - v0;
    real *J = sap_pool_take(pool, rows * n);
    if (!J) return 0;
    for (int i = 0; i < rows * n; ++i) J[i] = 0;
    for (int r = 0; r < rows; ++r) {
      if (da[r] >= v0 && da[r] < v0 + n) J[r * n + da[r] - v0] += a[r];
      if (db[r] >= v0 && db[r] < v0 + n) J[r * n + db[r] - v0] += b[r];
    }
    j.Jd[q] = J;
  }
  *out = j;
  return 1;
}

/* What the joint constraints read of a world (model arrays and this step's values). */
typedef struct sapJointInputs {
  int nlimit;
  const int *limit_dof;   /* (nlimit) */
  const int *dof_q;       /* (nv) the q index of a 1-DoF joint's DoF, −1 otherwise */
  wfield limits;          /* (nv, 2) lower, upper */
  int ncoupler;
  const int *coupler_dof; /* (ncoupler, 2) follower, leader */
  const real *coupler_ratio; /* (ncoupler, 2) gear ratio, offset */
  const real *target_q, *target_v; /* (nworld, nact) */
} sapJointInputs;

/* Append world w's joint constraints after its n contact constraints (con, max_con, the pool);
 * q, v0, vs: the world's positions, velocities and free-motion velocities; A_world, cl: its A
 * and cliques. Returns the new constraint count; max_con + 1 on overflow. */
static inline ISO_HD int sap_build_joint_world(int w, const treeSet *TS, const sapJointInputs *J, const real *q,
                                               const real *v0, const real *vs, const sapClique *cl,
                                               const real *A_world, real dt, sapCon *con, int n, int max_con,
                                               sapPool *pool) {
  const real one = 1, minus = -1, zero = 0;
  for (int i = 0; i < J->nlimit; ++i) { /* limits (§5.6) */
    const int d = J->limit_dof[i];
    const real *lu = wf_at(J->limits, w, d, 2);
    sapLimitParams p = sap_limit_params_default(dt);
    p.q0 = q[J->dof_q[d]], p.lower = lu[0], p.upper = lu[1], p.v0 = v0[d], p.vstar = vs[d];
    real ql, qu;
    sap_limit_window(&p, dt, &ql, &qu);
    const int rows = sap_limit_rows(&p, dt);
    if (rows == 0) continue;
    if (n >= max_con) return max_con + 1;
    const int da[2] = {d, d}, none[2] = {-1, -1};
    const real a[2] = {ql > -(real)INFINITY ? one : minus, minus}, b[2] = {zero, zero};
    sapJac j;
    if (!sap_con_dofs(con + n, n, SAP_CON_LIMIT, rows, da, a, none, b, TS, pool, &j)) return max_con + 1;
    const real wd = sap_con_delassus(con + n, &j, cl, A_world), wr[2] = {wd, wd};
    sap_limit_make(&p, dt, wr, &con[n].jdata.limit);
    n++;
  }
  for (int k = 0; k < TS->nact; ++k) { /* PD actuators (§5.7) */
    if (!tree_is_pd(TS, w, k)) continue;
    if (n >= max_con) return max_con + 1;
    const int d = TS->act_dof[k], da[1] = {d}, none[1] = {-1};
    const real a[1] = {one}, b[1] = {zero};
    sapJac j;
    if (!sap_con_dofs(con + n, n, SAP_CON_PD, 1, da, a, none, b, TS, pool, &j)) return max_con + 1;
    con[n].contact = k;
    const real *g = wf_at(TS->gains, w, k, 2);
    sapPdParams p = sap_pd_params_default();
    p.kp = g[0], p.kd = g[1], p.q0 = q[J->dof_q[d]];
    p.qd = J->target_q ? J->target_q[(long)w * TS->nact + k] : 0;
    p.vd = J->target_v ? J->target_v[(long)w * TS->nact + k] : 0;
    p.u0 = TS->effort ? TS->effort[(long)w * TS->nact + k] : 0;
    p.effort_limit = *wf_at(TS->effort_limit, w, k, 1);
    sap_pd_make(&p, dt, sap_con_delassus(con + n, &j, cl, A_world), &con[n].jdata.pd);
    n++;
  }
  for (int k = 0; k < J->ncoupler; ++k) { /* couplers (§5.5) */
    if (n >= max_con) return max_con + 1;
    const int f = J->coupler_dof[2 * k], l = J->coupler_dof[2 * k + 1];
    const real rho = J->coupler_ratio[2 * k];
    const int da[1] = {f}, db[1] = {l};
    const real a[1] = {one}, b[1] = {-rho};
    sapJac j;
    if (!sap_con_dofs(con + n, n, SAP_CON_COUPLER, 1, da, a, db, b, TS, pool, &j)) return max_con + 1;
    sapCouplerParams p;
    p.qa = q[J->dof_q[f]], p.qb = q[J->dof_q[l]], p.ratio = rho, p.offset = J->coupler_ratio[2 * k + 1];
    p.beta = (real)SAP_JOINT_BETA;
    sap_coupler_make(&p, dt, sap_con_delassus(con + n, &j, cl, A_world), &con[n].jdata.coupler);
    n++;
  }
  return n;
}

#endif
