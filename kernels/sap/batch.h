/* The batch of worlds the SAP solver works on (kernels/sap/solve.h): per-world statistics and
 * settings, the per-constraint workspace of the CPU's one-world solve, the batch's arrays
 * (sapBatch, world-strided), and a constraint's Jacobian data by kind (sap_con_jac). Split from
 * solve.h, which holds the Newton iteration on them. */
#ifndef ISO_KERNELS_SAP_BATCH_H
#define ISO_KERNELS_SAP_BATCH_H

#include <stdint.h>

#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/fem/contact_rec.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"
#include "kernels/sap/problem.h"

/* The largest finite real: x <= SAP_REAL_MAX is false for NaN and +∞ alike. */
#define SAP_REAL_MAX 1.7976931348623157e308

typedef struct sapStats {
  int iterations;      /* Newton iterations taken */
  int ls_iterations;   /* line-search iterations, all Newton iterations together */
  int done;            /* 1 once the world stopped iterating this step */
  int converged;       /* 1 when a stopping criterion was met */
  int cost_converged;  /* the cost criterion of the last iteration held (with α > 0.5) */
  int long_step;       /* the last line search took α > 0.5 (half of the cost criterion) */
  real cost;           /* the SAP cost at the last check */
  real cost_A;         /* ½(v − v*)ᵀA(v − v*) at the last check (sap_cost_A_known) */
  real residual;       /* ‖D∇ℓ‖ / (ε_a + ε_r·max(‖Dp‖, ‖Djc‖)) at the last check: < 1 converged */
} sapStats;

typedef struct sapSettings {
  int max_iterations; /* 100 */
  real abs_tol;       /* ε_a = 1e-14 */
  real rel_tol;       /* ε_r = 1e-6 */
  real cost_abs_tol;  /* 1e-30 */
  real cost_rel_tol;  /* 1e-15 */
  real ls_alpha_max;  /* 1.5 */
  real ls_f_tol;      /* 1e-8 */
  int ls_max_iterations; /* 100 */
  int freeze_on_failure; /* also freeze a world that hits max_iterations */
} sapSettings;

static inline ISO_HD sapSettings sap_default_settings(void) {
  sapSettings s;
  s.max_iterations = 100;
  s.abs_tol = (real)1e-14;
  s.rel_tol = (real)1e-6;
  s.cost_abs_tol = (real)1e-30;
  s.cost_rel_tol = (real)1e-15;
  s.ls_alpha_max = (real)1.5;
  s.ls_f_tol = (real)1e-8;
  s.ls_max_iterations = 100;
  s.freeze_on_failure = 0;
  return s;
}

/* The solver's workspace for one constraint of the world being solved: its Jacobian blocks,
 * formed once per step, and what a Newton iteration reuses across its passes. */
typedef struct sapWorkCon {
  sapConJ j;                            /* its blocks: into J below, or a dense kind's pool */
  real J[2][SAP_BLOCK_MAX];             /* compact blocks, formed once per step */
  real vc[SAP_MAX_ROWS];                /* J·v at the current iterate */
  real dvc[SAP_MAX_ROWS];               /* J·Δv along the current Newton direction */
  real G[SAP_MAX_ROWS * SAP_MAX_ROWS];  /* G at the current iterate (the gradient pass's) */
  real gam[SAP_MAX_ROWS];               /* γ at the current iterate (the gradient pass's) */
  vec3 r[2];                            /* sapJac's offsets (free-body blocks: hessian_rigid.h) */
} sapWorkCon;

typedef struct sapBatch {
  int nv;              /* unknowns per world (the cliques' DoFs together) */
  int max_clique;      /* cliques per world, at most */
  int max_A;           /* reals of A per world, at most (Σ nv_k² over its cliques) */
  int max_con;
  sapSettings set;
  real *v;             /* (nworld, nv) the iterate; holds v0 on entry (warm start) */
  const real *vstar;   /* (nworld, nv) free-motion velocities */
  const int *nclique;  /* (nworld) */
  const sapClique *clique; /* (nworld, max_clique) in v order */
  const real *A;       /* (nworld, max_A) each clique's row-major block at its a0 */
  real *origin;        /* (nworld, max_clique, 3) each clique's origin at the start of the step:
                          the point the offsets of its RIGID_POINT blocks are measured from */
  sapCon *con;         /* (nworld, max_con) */
  const int *ncon;     /* (nworld) */
  const int *ncontact; /* (nworld) of them contacts: the first ones */
  const contactRec *list; /* (nworld, max_list) the contact list the constraints point into */
  real *jpool;         /* (nworld, max_jpool) dense Jacobian blocks of constraints on jointed trees */
  int max_jpool;
  int *con_jac;        /* (nworld, max_con) where each constraint's dense blocks start in the
                          world's pool; NULL when no model tree has joints */
  int *con_body;       /* (nworld, max_con, 2) a contact's body on side q where that side is a
                          jointed tree's dense block with a spatial Jacobian in bjac (the pair's
                          Hessian terms are then summed per run, kernels/sap/hessian_rigid.h);
                          −1 otherwise; NULL when no model tree has joints or nothing touches */
  real *bjac;          /* (nworld, nbody · bjac_stride) body b's spatial Jacobian (6 × its tree's
                          nt, tree_body_jacobian) at b · bjac_stride, written with the contacts */
  int bjac_stride, max_bjac; /* reals a body, a world */
  int max_list;
  real *H;             /* (nworld, nv, nv) column-major: the Cholesky batch's A */
  real *rhs;           /* (nworld, nv) the Cholesky batch's B: −∇ℓ in, Δv out */
  real *dv;            /* (nworld, nv) scratch: A·Δv */
  const int *info;     /* (nworld) Cholesky info */
  sapStats *stats;     /* (nworld) */
  uint32_t *status;    /* (nworld) */
  const femContact *fem_con; /* (nworld, max_fem_con) deformable contacts (kernels/fem/contact.h):
                                the records SAP_CON_DEF_CONTACT constraints hold their blocks in */
  int max_fem_con;
  const femDDJac *fem_ddj;   /* (nworld, max_fem_dd) the blocks of SAP_CON_DEF_DD constraints */
  int max_fem_dd;
  sapWorkCon *work;    /* NULL, or the solver's workspace: (max_con) for the one world
                          sap_solve_world is solving (the CPU backend gives each thread its own),
                          or (nworld, max_con) when work_per_world (the GPU's, one thread per
                          world, when asked for); with NULL every pass forms what it needs (the
                          batched path, the GPU by default). Same bits. */
  int work_per_world;
} sapBatch;

/* World w's workspace in B (sapBatch.work), or NULL. */
static inline ISO_HD sapWorkCon *sap_batch_work(const sapBatch *B, int w) {
  if (!B->work) return (sapWorkCon *)0;
  return B->work_per_world ? B->work + (long)w * B->max_con : B->work;
}

/* Clique k of world w's origin at the start of the step (zero for the world, k = −1). */
static inline ISO_HD vec3 sap_batch_origin(const sapBatch *B, int w, int k) {
  if (k < 0) return v3_zero();
  const real *o = B->origin + 3L * ((long)B->max_clique * w + k);
  return v3(o[0], o[1], o[2]);
}

/* World w's cliques. */
static inline ISO_HD const sapClique *sap_batch_cliques(const sapBatch *B, int w) {
  return B->clique + (long)B->max_clique * w;
}

/* Constraint c of world w's Jacobian data, by kind, into *j: a contact's from its record and the
 * step's clique origins. In place for the reason sap_jac_make_to gives. */
static inline ISO_HD void sap_con_jac_to(const sapBatch *B, int w, const sapCon *c, sapJac *j) {
  if (c->kind == SAP_CON_DEF_DD) { /* two gather blocks beside its record */
    const femDDJac *r = B->fem_ddj + (long)w * B->max_fem_dd + c->contact;
    j->rows = 3;
    j->R_WC = m3_from_rows(v3(r->R[0], r->R[1], r->R[2]), v3(r->R[3], r->R[4], r->R[5]), v3(r->R[6], r->R[7], r->R[8]));
    j->r[0] = j->r[1] = v3_zero(); /* unread by gather blocks */
    for (int q = 0; q < 2; ++q) {
      j->block[q] = SAP_BLOCK_GATHER, j->clique[q] = c->clique[q];
      j->Jd[q] = r->J[q], j->cols[q] = r->cols[q], j->ncols[q] = 12, j->coef[q] = r->coef[q];
    }
    return;
  }
  if (c->kind == SAP_CON_DEF_CONTACT || c->kind == SAP_CON_DEF_FIXED) { /* a gather block held by its record */
    const femContact *r = B->fem_con + (long)w * B->max_fem_con + c->contact;
    const vec3 o[2] = {v3_zero(), sap_batch_origin(B, w, c->clique[1])};
    sap_jac_make_to(c, r->point, r->normal, o, j);
    j->Jd[0] = r->J, j->cols[0] = r->cols, j->ncols[0] = 9, j->coef[0] = r->coef;
    if (c->block[1] == SAP_BLOCK_DENSE) /* a jointed body: its tree's block in the pool */
      j->Jd[1] = B->jpool + (long)w * B->max_jpool + B->con_jac[(long)w * B->max_con + (c - (B->con + (long)w * B->max_con))];
    return;
  }
  if (c->kind == SAP_CON_CONTACT) {
    const contactRec *r = B->list + (long)w * B->max_list + c->contact;
    vec3 o[2] = {sap_batch_origin(B, w, c->clique[0]), sap_batch_origin(B, w, c->clique[1])};
    sap_jac_make_to(c, r->point, r->normal, o, j);
  } else { /* a joint kind: dense blocks only */
    j->rows = c->rows;
    for (int q = 0; q < 2; ++q) j->block[q] = c->block[q], j->clique[q] = c->clique[q];
    j->Jd[0] = j->Jd[1] = (const real *)0;
    j->cols[0] = j->cols[1] = (const int *)0;
    j->ncols[0] = j->ncols[1] = 0;
    j->coef[0] = j->coef[1] = (const real *)0;
    j->R_WC = m3_identity(); /* unread by dense blocks */
  }
  if (c->block[0] == SAP_BLOCK_DENSE || c->block[1] == SAP_BLOCK_DENSE) {
    const long i = (long)(c - (B->con + (long)w * B->max_con));
    const real *J = B->jpool + (long)w * B->max_jpool + B->con_jac[(long)w * B->max_con + i];
    const sapClique *cl = sap_batch_cliques(B, w);
    for (int q = 0; q < 2; ++q) {
      if (c->clique[q] < 0 || c->block[q] != SAP_BLOCK_DENSE) continue;
      j->Jd[q] = J;
      J += c->rows * cl[c->clique[q]].nv;
    }
  }
}

/* sap_con_jac_to as a value. */
static inline ISO_HD sapJac sap_con_jac(const sapBatch *B, int w, const sapCon *c) {
  sapJac j;
  sap_con_jac_to(B, w, c, &j);
  return j;
}

#endif
