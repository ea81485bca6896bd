/* The SAP solver for a batch of worlds (Castro, Permenter, Han 2022; reference §5.1–5.2):
 *   minimise ℓ(v) = ½(v − v*)ᵀA(v − v*) + Σᵢ ℓᵢ(Jᵢv)
 * by Newton's method with an exact line search, warm-started from the previous velocities.
 *
 * Layout: one world is one problem (kernels/sap/problem.h): its unknowns in cliques, each with
 * a dense block of A; constraints of a kind with Jacobian blocks on one or two cliques. A·x,
 * the costs, the D-norms and Jᵀγ go clique by clique; the Newton Hessian H = A + Σ JᵢᵀGᵢJᵢ is
 * assembled from the clique blocks into a dense matrix per world (nv × nv, column-major, its
 * lower triangle: all the Cholesky reads; the strict upper one is left zero) and
 * factored by the batched Cholesky (host/backend/linalg.h: the hand-written single-source kernel
 * on the CPU, cuSOLVER potrfBatched on the GPU), so an iteration is
 *   sap_newton_begin (world)  → batched Cholesky (all worlds) → sap_newton_end (world).
 * Worlds converge independently: a per-world done flag makes both items skip finished worlds;
 * the host loop stops when every world is done or the iteration limit is reached.
 *
 * Nothing per iteration is stored per world: a constraint stores its kind, its cliques, its
 * block kinds, its record's index and its law's data (the batch's arrays: kernels/sap/batch.h).
 * A world solved by sap_solve_world with a workspace (sapBatch.work: per thread on the CPU, per
 * world on the GPU when asked for) forms each constraint's blocks once per step and keeps J·v,
 * J·Δv and G there across the passes of an iteration; without one (the batched path, the GPU by
 * default: re-forming was cheaper there than the workspace's memory traffic) every pass forms
 * the Jacobian data (sapJac) from the compact data and recomputes what it needs. Both do the same
 * arithmetic on the same values in the same order, so their results are bitwise the same. */
#ifndef ISO_KERNELS_SAP_SOLVE_H
#define ISO_KERNELS_SAP_SOLVE_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/fem/contact_rec.h"
#include "kernels/linalg/cholesky_wide.h"
#include "kernels/linalg/symv.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"
#include "kernels/sap/batch.h"
#include "kernels/sap/contact_pair.h"
#include "kernels/sap/contact.h"
#include "kernels/sap/delassus.h"
#include "kernels/sap/hessian.h"
#include "kernels/sap/hessian_rigid.h"
#include "kernels/sap/law_lanes.h"
#include "kernels/sap/problem.h"

/* ---- per-world items ------------------------------------------------------------------------ */

/* The clique loops below with the size as an argument: called with a literal 6 for a free
 * body's clique, so the compiler unrolls them; the same sums in the same order either way. */
static inline ISO_HD void sap_mul_A_ld(const real *Ab, int n, int lda, const real *x, real *y) {
  int i = 0;
  /* Four rows at a time: each row's sum is still its own chain in k order (the same bits as the
   * loop below), but four independent chains hide the add latency that a single chain waits
   * on, which is what a deformable clique's dense block (n in the tens to hundreds) spent most
   * of its time on. */
  for (; i + 3 < n; i += 4) {
    const real *a0 = Ab + (long)lda * i, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int k = 0; k < n; ++k) {
      const real xk = x[k];
      s0 += a0[k] * xk;
      s1 += a1[k] * xk;
      s2 += a2[k] * xk;
      s3 += a3[k] * xk;
    }
    y[i] = s0, y[i + 1] = s1, y[i + 2] = s2, y[i + 3] = s3;
  }
  for (; i < n; ++i) {
    real s = 0;
    for (int k = 0; k < n; ++k) s += Ab[lda * i + k] * x[k];
    y[i] = s;
  }
}

/* y = A·x for a clique's n × n block, rows n apart (sap_mul_A_ld with lda = n). */
static inline ISO_HD void sap_mul_A_n(const real *Ab, int n, const real *x, real *y) {
  sap_mul_A_ld(Ab, n, n, x, y);
}

static inline ISO_HD real sap_norm_D_n(const real *Ab, int n, const real *x, real s) {
  for (int k = 0; k < n; ++k) {
    real y = x[k];
    s += y * y / Ab[(n + 1) * k];
  }
  return s;
}

/* y = A·x for the world's cliques cl (ncl of them) and its A storage. A clique's padding (its
 * last npad DoFs: identity rows and columns) gives y = x + 0 there, and its active block's rows
 * leave out the padding's columns, exact zeros that the whole product adds to sums begun at +0
 * (which never become −0), so the bits are the whole block's. */
static inline ISO_HD void sap_mul_A(const sapClique *cl, int ncl, const real *A_world, const real *x, real *y) {
  for (int c = 0; c < ncl; ++c) {
    const int n = cl[c].nv, o = cl[c].v0, m = n - cl[c].npad;
    const real *Ab = A_world + cl[c].a0;
    if (n == 6) {
      sap_mul_A_n(Ab, 6, x + o, y + o);
      continue;
    }
    for (int i = m; i < n; ++i) y[o + i] = x[o + i] + (real)0;
#if ISO_AVX2
    if (m >= SYMV_MIN_N && iso_cpu_avx2()) { /* a block symmetric to the bit (symv.h) */
      symv_avx2_ld(Ab, m, n, x + o, y + o);
      continue;
    }
#endif
    sap_mul_A_ld(Ab, m, n, x + o, y + o);
  }
}

/* ½(v − v*)ᵀA(v − v*) clique by clique, from p = A(v − v*) (sap_mul_A's) already known. */
static inline ISO_HD real sap_cost_A_known(const sapClique *cl, int ncl, const real *v, const real *vs,
                                           const real *p) {
  real c = 0;
  for (int q = 0; q < ncl; ++q)
    for (int i = cl[q].v0; i < cl[q].v0 + cl[q].nv; ++i) c += 0.5 * (v[i] - vs[i]) * p[i];
  return c;
}

/* A finished world's slot in the batched factorisation: the identity, with a zero right-hand
 * side, which factors trivially and leaves nothing to undo. */
static inline ISO_HD void sap_identity_system(int nv, real *H, real *rhs) {
  for (long i = 0; i < (long)nv * nv; ++i) H[i] = 0;
  for (int i = 0; i < nv; ++i) H[(long)i * nv + i] = 1, rhs[i] = 0;
}

/* Once per step: the world's statistics; worlds without constraints are done at once with
 * v = v*. */
static inline ISO_HD void sap_setup_world(const sapBatch *B, int w) {
  sapStats *st = B->stats + w;
  real *v = B->v + (long)w * B->nv;
  const real *vs = B->vstar + (long)w * B->nv;
  st->iterations = st->ls_iterations = 0;
  st->converged = 0;
  st->cost_converged = 0;
  st->long_step = 0;
  st->cost = st->cost_A = 0;
  st->residual = 0;
  st->done = 0;
  if (B->status[w] & ISO_WORLD_FROZEN) {
    st->done = 1;
    return;
  }
  const int n = B->ncon[w];
  if (n == 0) {
    for (int i = 0; i < B->nv; ++i) v[i] = vs[i];
    st->done = st->converged = 1;
    return;
  }
}

/* ‖x‖_D with D = diag(A)^(−1/2), clique by clique. */
static inline ISO_HD real sap_norm_D(const real *x, const sapClique *cl, int ncl, const real *A_world) {
  real s = 0;
  for (int c = 0; c < ncl; ++c) {
    const int n = cl[c].nv;
    const real *Ab = A_world + cl[c].a0;
    if (n == 6) s = sap_norm_D_n(Ab, 6, x + cl[c].v0, s);
    else s = sap_norm_D_n(Ab, n, x + cl[c].v0, s);
  }
  return sqrt(s);
}

/* Once per step, when the world has a workspace: each constraint's blocks, and J·v at the warm
 * start. */
static inline ISO_HD void sap_work_begin(const sapBatch *B, int w, sapWorkCon *ws) {
  const real *v = B->v + (long)w * B->nv;
  const sapClique *cl = sap_batch_cliques(B, w);
  const sapCon *con = B->con + (long)w * B->max_con;
  for (int i = 0; i < B->ncon[w]; ++i) {
    sapWorkCon *k = ws + i;
    sapJac j;
    sap_con_jac_to(B, w, con + i, &j);
    sap_jac_blocks(&j, k->J, &k->j);
    k->r[0] = j.r[0], k->r[1] = j.r[1];
    sap_cj_apply(&k->j, cl, v, k->vc);
  }
}

/* Iteration, part 1: evaluate, test convergence, assemble H and −∇ℓ for the batched solve.
 * ws: NULL, or the world's workspace (sap_work_begin), whose J·v is at v; the gradient pass keeps
 * G there for the Hessian. */
static inline ISO_HD void sap_newton_begin_at(const sapBatch *B, int w, sapWorkCon *ws, int identity_when_done);

static inline ISO_HD void sap_newton_begin_ws(const sapBatch *B, int w, sapWorkCon *ws) {
  sap_newton_begin_at(B, w, ws, 1);
}

/* Constraint i's Hessian terms into a run's sums (kernels/sap/hessian_rigid.h): its frame, G and
 * offsets from the workspace, or formed here at v. */
static inline ISO_HD void sap_run_add(const sapBatch *B, int w, const sapWorkCon *ws, const sapCon *con, int i,
                                      const sapClique *cl, const real *v, sapRigidSum *sum) {
  if (ws) {
    sap_rigid_sum_add(sum, cl, &ws[i].j.R, ws[i].G, ws[i].r);
    return;
  }
  sapJac j = sap_con_jac(B, w, con + i);
  real G[SAP_MAX_ROWS * SAP_MAX_ROWS];
  sap_con_eval(con + i, &j, cl, v, (real *)0, G);
  sap_rigid_sum_add(sum, cl, &j.R_WC, G, j.r);
}

/* sap_newton_begin_ws; identity_when_done = 0 leaves H and rhs as they are when the world is
 * done, for a caller that stops there instead of factoring every world (sap_solve_world): an
 * identity of nv² reals written for nothing is a world's largest memory traffic. */
static inline ISO_HD void sap_newton_begin_at(const sapBatch *B, int w, sapWorkCon *ws, int identity_when_done) {
  sapStats *st = B->stats + w;
  const int nv = B->nv;
  real *H = B->H + (long)w * nv * nv, *rhs = B->rhs + (long)w * nv;
  if (st->done) {
    if (identity_when_done) sap_identity_system(nv, H, rhs);
    return;
  }
  const real *v = B->v + (long)w * nv, *vs = B->vstar + (long)w * nv;
  const real *A = B->A + (long)B->max_A * w;
  const sapClique *cl = sap_batch_cliques(B, w);
  const int ncl = B->nclique[w];
  real *p = B->dv + (long)w * nv; /* scratch: A·v, then reused in part 2 */
  const int n = B->ncon[w];
  const sapCon *con = B->con + (long)w * B->max_con;
  /* gradient = A(v − v*) − Jᵀγ, assembled into rhs as −gradient; Σℓᵢ on the way */
  real lc = 0, jc_norm;
  for (int i = 0; i < nv; ++i) rhs[i] = 0;
  for (int i = 0; i < n; ++i) {
    real gam[SAP_MAX_ROWS];
    if (ws) { /* J·v is the workspace's; G is kept for the Hessian */
      sapWorkCon *k = ws + i;
#if ISO_PAIRS
      if (sap_con_law_pair(con, i, n)) { /* two laws side by side; sums in constraint order */
        real la, lb;
        sap_con_law2(con + i, k[0].vc, k[1].vc, k[0].gam, k[1].gam, k[0].G, k[1].G, &la, &lb);
        lc += la;
        sap_cj_apply_t(&k[0].j, cl, k[0].gam, 1, rhs);
        lc += lb;
        sap_cj_apply_t(&k[1].j, cl, k[1].gam, 1, rhs);
        ++i;
        continue;
      }
#endif
      lc += sap_con_law(con + i, k->vc, k->gam, k->G);
      sap_cj_apply_t(&k->j, cl, k->gam, 1, rhs); /* rhs = Jᵀγ */
      continue;
    }
    sapJac j = sap_con_jac(B, w, con + i);
    lc += sap_con_eval(con + i, &j, cl, v, gam, (real *)0);
    sap_con_apply_t(&j, cl, gam, 1, rhs); /* rhs = Jᵀγ */
  }
  jc_norm = sap_norm_D(rhs, cl, ncl, A);
  for (int i = 0; i < nv; ++i) H[i] = v[i] - vs[i]; /* scratch */
  sap_mul_A(cl, ncl, A, H, p);                       /* p = A(v − v*) */
  real cost = lc;
  for (int i = 0; i < nv; ++i) cost += 0.5 * H[i] * p[i];
  /* ½(v − v*)ᵀA(v − v*) clique by clique, for the criterion below and part 2's line search */
  st->cost_A = sap_cost_A_known(cl, ncl, v, vs, p);
  if (st->iterations > 0) {
    /* the cost criterion of the last iteration (§5.2 step 1): ℓ at the new v is the laws just
     * evaluated there (summed in constraint order, as a line-search evaluation at α = 0 would)
     * plus ½(v − v*)ᵀA(v − v*) clique by clique; the laws are not evaluated a second time */
    const real lnew = lc + st->cost_A, lprev = st->cost;
    st->cost_converged =
        fabs(lnew - lprev) < B->set.cost_abs_tol + B->set.cost_rel_tol * 0.5 * (fabs(lnew) + fabs(lprev)) && st->long_step;
  }
  for (int i = 0; i < nv; ++i) rhs[i] -= p[i]; /* −∇ℓ = Jᵀγ − A(v − v*) */
  sap_mul_A(cl, ncl, A, v, p);                 /* p = A·v for the scale */
  real pn = sap_norm_D(p, cl, ncl, A), gn = sap_norm_D(rhs, cl, ncl, A);
  real scale = B->set.abs_tol + B->set.rel_tol * (pn > jc_norm ? pn : jc_norm);
  st->cost = cost;
  st->residual = gn / scale;
  if (!(cost <= SAP_REAL_MAX && cost >= -SAP_REAL_MAX) || scale > SAP_REAL_MAX || gn > SAP_REAL_MAX) {
    /* NaN or ∞ in v*, the warm start or a constraint (an infinite stiffness makes the threshold
     * infinite, so the test below would pass): name the cause before the solver turns it into a
     * failed Cholesky or line search. (A NaN norm alone comes from the D scaling of an A with a
     * negative diagonal; the Cholesky names that one: not positive definite.) */
    st->done = 1;
    B->status[w] |= ISO_WORLD_NONFINITE | ISO_WORLD_FROZEN;
  } else if (gn <= scale || st->cost_converged) {
    st->done = st->converged = 1;
  } else if (st->iterations >= B->set.max_iterations) {
    st->done = 1;
    B->status[w] |= ISO_WORLD_NOT_CONVERGED | (B->set.freeze_on_failure ? ISO_WORLD_FROZEN : 0u);
  }
  if (st->done) {
    if (identity_when_done) sap_identity_system(nv, H, rhs);
    return;
  }
  /* H = A + Σ JᵀGJ, its lower triangle (what the Cholesky reads). The strict upper triangle is
   * zero from the allocation and the identity system on; only its row 0 is ever written (the
   * envelope factor's scratch, chol_factor_env), so that row and the lower triangle are cleared,
   * half the bytes of the whole square. */
  for (int j = 0; j < nv; ++j) {
    real *cj = H + (long)j * nv;
    cj[0] = 0;
    for (int i = j; i < nv; ++i) cj[i] = 0;
  }
  for (int c = 0; c < ncl; ++c) {
    const int m = cl[c].nv, o = cl[c].v0, act = m - cl[c].npad;
    const real *Ab = A + cl[c].a0;
    /* down H's columns: a deformable clique's stride-nv stores were slow; its block, like a
     * tree's mass matrix, is symmetric to the bit (symv.h), so a column is read as a row. Its
     * padding (sapClique) is the identity: the zeros below are H's already, the ones go in. */
    for (int k = 0; k < act; ++k) {
      real *ck = H + (long)(o + k) * nv + o;
      if (m >= SYMV_MIN_N)
        for (int i = k; i < act; ++i) ck[i] = Ab[m * k + i];
      else
        for (int i = k; i < act; ++i) ck[i] = Ab[m * i + k];
    }
    for (int k = act; k < m; ++k) H[(long)(o + k) * nv + o + k] = Ab[(m + 1) * k];
  }
  const int *cbody = B->con_body ? B->con_body + 2L * w * B->max_con : (const int *)0;
  const real *bjac = B->bjac ? B->bjac + (long)w * B->max_bjac : (const real *)0;
  for (int i = 0; i < n;) {
    if (sap_con_rigid_pair(con + i, cl)) { /* a run of free-body contacts on the same cliques */
      sapRigidSum sum;
      sap_rigid_sum_begin(&sum, con + i);
      do {
        sap_run_add(B, w, ws, con, i++, cl, v, &sum);
      } while (i < n && con[i].clique[0] == sum.clique[0] && con[i].clique[1] == sum.clique[1] &&
               sap_con_rigid_pair(con + i, cl));
      sap_rigid_sum_flush(&sum, cl, nv, H);
      continue;
    }
    if (sap_con_body_pair(con + i, cl, cbody ? cbody + 2 * i : (const int *)0)) {
      /* a run of contacts on the same bodies, a jointed one among them */
      sapRigidSum sum;
      sap_rigid_sum_begin(&sum, con + i);
      const int b0 = cbody[2 * i], b1 = cbody[2 * i + 1];
      do {
        sap_run_add(B, w, ws, con, i++, cl, v, &sum);
      } while (i < n && con[i].clique[0] == sum.clique[0] && con[i].clique[1] == sum.clique[1] &&
               sap_con_body_pair(con + i, cl, cbody + 2 * i) && cbody[2 * i] == b0 && cbody[2 * i + 1] == b1);
      const real *J[2] = {b0 >= 0 ? bjac + (long)b0 * B->bjac_stride : (const real *)0,
                          b1 >= 0 ? bjac + (long)b1 * B->bjac_stride : (const real *)0};
      sap_body_sum_flush(&sum, cl, J, nv, H);
      continue;
    }
    if (ws) {
      sap_cj_add_hessian(&ws[i].j, cl, ws[i].G, nv, H);
    } else {
      sapJac j = sap_con_jac(B, w, con + i);
      real G[SAP_MAX_ROWS * SAP_MAX_ROWS];
      sap_con_eval(con + i, &j, cl, v, (real *)0, G);
      sap_con_add_hessian(&j, cl, G, nv, H);
    }
    ++i;
  }
}

/* One constraint's terms of ℓ'(α) and ℓ''(α) (m rows) from its γ and G at the line's point and
 * J·Δv = d, added in constraint order. Each is the constraint's own sum, dᵀγ and dᵀ(G·d), added
 * to the running total once: the constraints' sums are then independent, and one addition per
 * constraint waits on the one before. (ℓ'' used to take the m² products of dᵀGd into the total
 * one by one, a chain of nine dependent additions per contact through every constraint of the
 * world, most of the line search's time where contacts are many.) */
static inline ISO_HD void sap_line_terms(int m, const real *d, const real *gam, const real *G, real *g1, real *g2) {
  real dg = d[0] * gam[0];
  for (int k = 1; k < m; ++k) dg += d[k] * gam[k];
  *g1 -= dg;
  real h = (real)0;
  for (int a = 0; a < m; ++a) {
    real ga = G[m * a] * d[0];
    for (int b = 1; b < m; ++b) ga += G[m * a + b] * d[b];
    h += d[a] * ga;
  }
  *g2 += h;
}

/* One constraint's part of the line search at α (m rows): J·v + αJ·Δv, the law there, its
 * terms of ℓ'(α) and ℓ''(α) (sap_line_terms). Returns ℓᵢ. */
static inline ISO_HD real sap_line_con(const sapCon *c, int m, const real *vc0, const real *d, real alpha, real *g1,
                                       real *g2) {
  real vc[SAP_MAX_ROWS], gam[SAP_MAX_ROWS], G[SAP_MAX_ROWS * SAP_MAX_ROWS];
  for (int k = 0; k < m; ++k) vc[k] = vc0[k] + alpha * d[k];
  const real cost = sap_con_law(c, vc, gam, G);
  sap_line_terms(m, d, gam, G, g1, g2);
  return cost;
}

#if ISO_PAIRS
/* sap_line_con of two contacts whose laws pair (sap_con_law_pair), side by side; their
 * terms go into ℓ', ℓ'' and ℓ in constraint order, as two calls would add them. */
static inline void sap_line_con2(const sapCon *c, const sapWorkCon *k, real alpha, real *cost, real *g1,
                                 real *g2) {
  real vc[2][3], gam[2][3], G[2][9], l[2];
  for (int q = 0; q < 2; ++q)
    for (int r = 0; r < 3; ++r) vc[q][r] = k[q].vc[r] + alpha * k[q].dvc[r];
  sap_con_law2(c, vc[0], vc[1], gam[0], gam[1], G[0], G[1], l, l + 1);
  for (int q = 0; q < 2; ++q) {
    sap_line_terms(3, k[q].dvc, gam[q], G[q], g1, g2);
    *cost += l[q];
  }
}
#endif

/* ℓ along the line v + αΔv: value and first two derivatives (§5.2 step 4). a0 = Δpᵀ(v − v*),
 * a2 = ΔvᵀAΔv, cA = ½(v − v*)ᵀA(v − v*); dv = Δv. With a workspace, J·v and J·Δv are its own
 * (α only scales J·Δv), so an evaluation costs the laws alone. */
static inline ISO_HD real sap_line_eval(const sapBatch *B, int w, const sapWorkCon *ws, const real *v,
                                        const real *dv, real alpha, real cA, real a0, real a2, real *d1, real *d2) {
  const int n = B->ncon[w];
  const sapCon *con = B->con + (long)w * B->max_con;
  const sapClique *cl = sap_batch_cliques(B, w);
  real cost = cA + alpha * a0 + 0.5 * alpha * alpha * a2;
  real g1 = a0 + alpha * a2, g2 = a2;
#if ISO_AVX2
  const int wide = ws && iso_cpu_avx512(); /* eight laws at a time (law_lanes.h) */
#endif
  for (int i = 0; i < n; ++i) {
    if (ws) { /* J·v and J·Δv from the workspace: they do not depend on α */
      const sapWorkCon *k = ws + i;
#if ISO_AVX2
      const int model8 = wide ? sap_con_law_run8(con, i, n) : -1;
      if (model8 >= 0) {
        sap_line_law8(model8, con + i, k, alpha, &cost, &g1, &g2);
        i += 7;
        continue;
      }
#endif
#if ISO_PAIRS
      if (sap_con_law_pair(con, i, n)) {
        sap_line_con2(con + i, k, alpha, &cost, &g1, &g2);
        ++i;
        continue;
      }
#endif
      if (k->j.rows == 3) cost += sap_line_con(con + i, 3, k->vc, k->dvc, alpha, &g1, &g2);
      else cost += sap_line_con(con + i, k->j.rows, k->vc, k->dvc, alpha, &g1, &g2);
      continue;
    }
    real storage[2][SAP_BLOCK_MAX], vc[SAP_MAX_ROWS], d[SAP_MAX_ROWS];
    const sapJac j = sap_con_jac(B, w, con + i);
    sapConJ b;
    sap_jac_blocks(&j, storage, &b);
    sap_cj_apply(&b, cl, v, vc); /* J·v and J·Δv */
    sap_cj_apply(&b, cl, dv, d);
    cost += sap_line_con(con + i, b.rows, vc, d, alpha, &g1, &g2);
  }
  *d1 = g1;
  *d2 = g2;
  return cost;
}

/* Iteration, part 2: the Newton direction is in rhs; exact line search, update. ws as in part 1:
 * J·Δv is formed once for the line search, and J·v again at the updated v. */
static inline ISO_HD void sap_newton_end_ws(const sapBatch *B, int w, sapWorkCon *ws) {
  sapStats *st = B->stats + w;
  if (st->done) return;
  const int nv = B->nv;
  if (B->info[w] != 0) {
    B->status[w] |= ISO_WORLD_NOT_SPD | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  real *v = B->v + (long)w * nv;
  const real *vs = B->vstar + (long)w * nv, *dv = B->rhs + (long)w * nv;
  const real *A = B->A + (long)B->max_A * w;
  const sapClique *cl = sap_batch_cliques(B, w);
  const int ncl = B->nclique[w];
  real *Adv = B->dv + (long)w * nv;
  if (ws) /* J·Δv, once for the whole line search */
    for (int i = 0; i < B->ncon[w]; ++i) sap_cj_apply(&ws[i].j, cl, dv, ws[i].dvc);
  sap_mul_A(cl, ncl, A, dv, Adv);
  real a0 = 0, a2 = 0, cA = st->cost_A; /* part 1's, at this same v */
  for (int i = 0; i < nv; ++i) {
    a0 += Adv[i] * (v[i] - vs[i]);
    a2 += dv[i] * Adv[i];
  }
  if (!(a2 > 0)) { /* d²ℓ_A/dα² must be positive (A is positive definite) */
    B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  real d1_0, d2_0, d1_m, d2_m;
  if (ws) {
    /* ℓ'(0) from the γ the gradient pass kept at this v: the law at J·v + 0·J·Δv is the law at
     * J·v, so these are the terms sap_line_eval at α = 0 would take, in its order (the same
     * bits), without evaluating every law again */
    d1_0 = a0 + (real)0 * a2;
    for (int i = 0; i < B->ncon[w]; ++i) {
      const sapWorkCon *k = ws + i;
      real dg = k->dvc[0] * k->gam[0];
      for (int r = 1; r < k->j.rows; ++r) dg += k->dvc[r] * k->gam[r];
      d1_0 -= dg;
    }
  } else {
    (void)sap_line_eval(B, w, ws, v, dv, 0, cA, a0, a2, &d1_0, &d2_0); /* the slopes at α = 0 */
  }
  if (!(d1_0 < 0)) { /* not a descent direction: Drake throws; isobar flags the world */
    B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  const real amax = B->set.ls_alpha_max;
  real lmax = sap_line_eval(B, w, ws, v, dv, amax, cA, a0, a2, &d1_m, &d2_m);
  real alpha;
  int ls = 0;
  if (d1_m <= 0) {
    alpha = amax;
  } else if (-d1_0 < B->set.cost_abs_tol + B->set.cost_rel_tol * lmax) {
    alpha = 1;
  } else {
    /* Newton with bisection fallback on f(α) = ℓ'(α)/(−ℓ'(0)), f(0) = −1 < 0 < f(α_max). */
    real lo = 0, hi = amax, x = -d1_0 / d2_m;
    if (!(x < amax)) x = amax;
    if (!(x > 0)) x = 0.5 * amax;
    const real xtol = (real)1e-8 * x, scale = -d1_0;
    real dx_prev = hi - lo, d1, d2;
    alpha = x;
    for (ls = 1; ls <= B->set.ls_max_iterations; ++ls) {
      sap_line_eval(B, w, ws, v, dv, x, cA, a0, a2, &d1, &d2);
      real f = d1 / scale, fp = d2 / scale;
      alpha = x;
      if (fabs(f) < B->set.ls_f_tol) break;
      if (f < 0) lo = x;
      else hi = x;
      real dx = fp > 0 ? -f / fp : (real)0;
      real xn = x + dx;
      if (!(fp > 0) || 2 * fabs(f) > fabs(dx_prev * fp) || xn <= lo || xn >= hi) {
        xn = 0.5 * (lo + hi); /* slow or out of the bracket: bisect */
        dx = xn - x;
      }
      dx_prev = dx;
      x = xn;
      alpha = x;
      if (fabs(dx) < xtol) break;
    }
    if (ls > B->set.ls_max_iterations) { /* Drake throws here; isobar freezes the world */
      B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
      st->ls_iterations += B->set.ls_max_iterations;
      st->done = 1;
      return;
    }
  }
  for (int i = 0; i < nv; ++i) v[i] += alpha * dv[i];
  if (ws) /* J·v at the new iterate: the check below and the next iteration's gradient */
    for (int i = 0; i < B->ncon[w]; ++i) sap_cj_apply(&ws[i].j, cl, v, ws[i].vc);
  st->ls_iterations += ls;
  st->iterations++;
  st->long_step = alpha > (real)0.5; /* the next check completes the cost criterion with ℓ at v */
}

static inline ISO_HD void sap_newton_begin(const sapBatch *B, int w) { sap_newton_begin_ws(B, w, (sapWorkCon *)0); }
static inline ISO_HD void sap_newton_end(const sapBatch *B, int w) { sap_newton_end_ws(B, w, (sapWorkCon *)0); }

/* World w's whole Newton solve as one item: begin → factor → solve → end until the world is done.
 * It does per world exactly what the batched path (all worlds' begin, the batched Cholesky with
 * the hand-written kernel, all worlds' end) does, in the same order, so the results are bitwise
 * the same. On the GPU it needs no host synchronisation (no count of active worlds to read
 * back), which is what lets a whole step be captured in a CUDA graph. With a workspace
 * (sap_batch_work: max_con entries, this world's alone while it runs) the blocks are formed once for
 * the step and the passes share J·v, J·Δv, G and γ (the line search takes ℓ'(0) from the kept
 * γ); the results are the same bits. */
static inline ISO_HD void sap_solve_world(const sapBatch *B, int w) {
  const int nv = B->nv;
  real *H = B->H + (long)w * nv * nv, *rhs = B->rhs + (long)w * nv;
  sapWorkCon *ws = sap_batch_work(B, w);
  if (ws && !B->stats[w].done) sap_work_begin(B, w, ws);
  for (int it = 0; it <= B->set.max_iterations && !B->stats[w].done; ++it) {
    sap_newton_begin_at(B, w, ws, 0);
    if (B->stats[w].done) break;
    /* the envelope factor: the dense one's bits, without the zeros of cliques no constraint
     * couples (a stack, a chain, an arch of deformable blocks are block-banded) */
    int info = chol_factor_env_fast(nv, H);
    if (info == 0) chol_solve_env(nv, H, rhs);
    ((int *)B->info)[w] = info; /* the batched path writes it through the Cholesky plan */
    sap_newton_end_ws(B, w, ws);
  }
}

#endif
