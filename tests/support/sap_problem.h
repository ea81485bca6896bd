/* A hand-built SAP problem for the solver tests (tests/test_sap_*.c): a batch of worlds of
 * cliques of 6 DoFs (free bodies) and 3 DoFs (point masses, a size no scene has yet), whose
 * sapBatch arrays, contact records and constraint parameters the test fills directly,
 * the constraint data made as stage 5 makes it (sap_con_finish), the CPU driver's Newton loop
 * (host/step/sap_step.c) over them, and an independent evaluation of the cost with its own
 * contact velocities and forces plus an independent minimiser to compare against.
 *
 * Header-only (static inline) so that it needs no build rule of its own. Sizes: nv <= 64,
 * nworld <= SAPP_MAXW, at most SAPP_MAXC cliques. */
#ifndef ISO_TESTS_SAP_PROBLEM_H
#define ISO_TESTS_SAP_PROBLEM_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/backend.h"
#include "host/backend/linalg.h"
#include "kernels/contact/build.h"
#include "kernels/sap/solve.h"

#define SAPP_MAXW 8
#define SAPP_MAXC 10 /* cliques per world */

/* Every world has the same cliques: sizes 6 (a free body, SAP_BLOCK_RIGID_POINT blocks) and 3
 * (a point mass, SAP_BLOCK_POINT_MASS blocks), in v order, their A blocks packed. */
typedef struct sapProblem {
  int nworld, ncl, nv, nA, max_con;
  sapClique cl[SAPP_MAXC];
  double dt;
  isoBackend be;
  linalgCholesky chol;
  double *v, *vstar, *A, *dv; /* shapes as in sapBatch */
  double *gamma;              /* (nworld, max_con, 3) γ at the returned v (filled by sapp_solve) */
  double *origin;             /* (nworld, ncl, 3) clique origins (set before sapp_solve) */
  int *nclique;               /* (nworld) */
  sapClique *clique;          /* (nworld, ncl) */
  sapCon *con;
  contactRec *list;           /* (nworld, max_con) record i of constraint i: point and normal */
  sapContactParams *params;   /* (nworld, max_con) each constraint's law parameters */
  sapJac *jac;                /* (nworld, max_con) the frames and offsets the solver uses */
  int *ncon;
  sapStats *stats;
  uint32_t *status;
  sapBatch B;
  double lam_min[SAPP_MAXW]; /* a lower bound on the eigenvalues of each world's A */
  double alpha[256];         /* world 0: the step length of each Newton iteration */
  double slope[256];         /* world 0: ℓ'(α)/ℓ'(0) along each Newton direction (own gradient) */
  int nalpha;
} sapProblem;

/* A batch of nworld worlds of ncl cliques of the given sizes (6 or 3 each). */
static inline void sapp_init_cliques(sapProblem *P, int nworld, int ncl, const int *sizes, int max_con, double dt) {
  memset(P, 0, sizeof *P);
  cr_assert(ncl > 0 && ncl <= SAPP_MAXC && nworld > 0 && nworld <= SAPP_MAXW);
  for (int k = 0; k < ncl; ++k) {
    cr_assert(sizes[k] == 6 || sizes[k] == 3);
    P->cl[k].nv = sizes[k], P->cl[k].v0 = P->nv, P->cl[k].a0 = P->nA;
    P->nv += sizes[k], P->nA += sizes[k] * sizes[k];
  }
  cr_assert(P->nv <= 64);
  P->nworld = nworld, P->ncl = ncl, P->max_con = max_con, P->dt = dt;
  cr_assert_eq(backend_init(&P->be, ISO_BACKEND_CPU, 1, NULL), ISO_OK);
  cr_assert_eq(linalg_cholesky_create(&P->be, P->nv, nworld, &P->chol), ISO_OK);
  const size_t W = (size_t)nworld, nv = (size_t)P->nv, mc = (size_t)max_con;
  P->v = calloc(W * nv, sizeof(double));
  P->vstar = calloc(W * nv, sizeof(double));
  P->A = calloc(W * (size_t)P->nA, sizeof(double));
  P->gamma = calloc(W * mc * 3, sizeof(double));
  P->origin = calloc(W * 3 * (size_t)ncl, sizeof(double));
  P->nclique = calloc(W, sizeof(int));
  P->clique = calloc(W * (size_t)ncl, sizeof(sapClique));
  P->dv = calloc(W * nv, sizeof(double));
  P->con = calloc(W * mc, sizeof(sapCon));
  P->list = calloc(W * mc, sizeof(contactRec));
  P->params = calloc(W * mc, sizeof(sapContactParams));
  P->jac = calloc(W * mc, sizeof(sapJac));
  P->ncon = calloc(W, sizeof(int));
  P->stats = calloc(W, sizeof(sapStats));
  P->status = calloc(W, sizeof(uint32_t));
  for (int w = 0; w < nworld; ++w) {
    P->nclique[w] = ncl;
    memcpy(P->clique + (long)w * ncl, P->cl, sizeof(sapClique) * (size_t)ncl);
  }
  sapBatch *B = &P->B;
  B->nv = P->nv, B->max_clique = ncl, B->max_A = P->nA, B->max_con = max_con;
  B->set = sap_default_settings();
  B->v = P->v, B->vstar = P->vstar, B->A = P->A, B->con = P->con, B->ncon = P->ncon;
  B->nclique = P->nclique, B->clique = P->clique;
  B->dv = P->dv, B->list = P->list, B->max_list = max_con, B->origin = P->origin;
  B->H = P->chol.A, B->rhs = P->chol.B, B->info = P->chol.info;
  B->stats = P->stats, B->status = P->status;
}

/* nbody free bodies per world. */
static inline void sapp_init(sapProblem *P, int nworld, int nbody, int max_con, double dt) {
  int sizes[SAPP_MAXC];
  cr_assert(nbody <= SAPP_MAXC);
  for (int k = 0; k < nbody; ++k) sizes[k] = 6;
  sapp_init_cliques(P, nworld, nbody, sizes, max_con, dt);
}

static inline void sapp_free(sapProblem *P) {
  linalg_cholesky_destroy(&P->be, &P->chol);
  backend_release(&P->be);
  free(P->v), free(P->vstar), free(P->A), free(P->gamma), free(P->origin), free(P->dv);
  free(P->nclique), free(P->clique);
  free(P->con), free(P->list), free(P->params), free(P->jac), free(P->ncon), free(P->stats), free(P->status);
}

static inline double *sapp_v(const sapProblem *P, double *x, int w) { return x + (long)w * P->nv; }
static inline double *sapp_A(const sapProblem *P, int w) { return P->A + (long)P->nA * w; }
/* Clique k's block of world w's A (row-major, P->cl[k].nv square). */
static inline double *sapp_Ak(const sapProblem *P, int w, int k) { return sapp_A(P, w) + P->cl[k].a0; }
static inline sapCon *sapp_con(const sapProblem *P, int w) { return P->con + (long)w * P->max_con; }
static inline sapContactParams *sapp_params(const sapProblem *P, int w) { return P->params + (long)w * P->max_con; }
static inline sapJac *sapp_jac(const sapProblem *P, int w) { return P->jac + (long)w * P->max_con; }
static inline double *sapp_origin(const sapProblem *P, int w, int k) { return P->origin + 3L * (P->ncl * w + k); }
static inline const sapClique *sapp_cliques(const sapProblem *P, int w) { return P->clique + (long)P->ncl * w; }

/* diag(A)ᵢ of world w. */
static inline double sapp_diag(const sapProblem *P, int w, int i) {
  for (int k = 0; k < P->ncl; ++k) {
    const sapClique *c = P->cl + k;
    if (i < c->v0 + c->nv) return sapp_Ak(P, w, k)[(c->nv + 1) * (i - c->v0)];
  }
  return NAN;
}

/* Add a contact between cliques ka and kb (−1: the world) of world w at point p with normal
 * n_AB (Cz, out of A into B) and law parameters prm. The solver builds the frame's tangents
 * from the normal itself (sap_frame_from_z); sapp_prepare records them in P->jac. */
static inline int sapp_add_con(sapProblem *P, int w, int ka, int kb, vec3 n_AB, vec3 p, sapContactParams prm) {
  cr_assert_lt(P->ncon[w], P->max_con);
  int i = P->ncon[w]++;
  sapCon *c = sapp_con(P, w) + i;
  memset(c, 0, sizeof *c);
  c->kind = SAP_CON_CONTACT, c->rows = 3, c->contact = i;
  c->clique[0] = ka, c->clique[1] = kb;
  for (int q = 0; q < 2; ++q) {
    int k = q ? kb : ka;
    c->block[q] = k >= 0 && P->cl[k].nv == 3 ? SAP_BLOCK_POINT_MASS : SAP_BLOCK_RIGID_POINT;
  }
  contactRec *r = P->list + (long)w * P->max_con + i;
  memset(r, 0, sizeof *r);
  r->point = p;
  r->normal = v3_neg(n_AB);
  r->part = CONTACT_PART_POINT;
  sapp_params(P, w)[i] = prm;
  return i;
}

/* What stage 5 does once constraints and parameters are known: each constraint's Jacobian data
 * from its record and the origins, its law's data from its parameters and the Delassus
 * estimate (sap_con_finish); then the solver's per-step set-up. Also the jacs for the test's
 * own evaluations. */
static inline void sapp_prepare(sapProblem *P) {
  for (int w = 0; w < P->nworld; ++w) {
    for (int i = 0; i < P->ncon[w]; ++i) {
      sapCon *c = sapp_con(P, w) + i;
      sapJac j = sap_con_jac(&P->B, w, c);
      /* the solver's frame and offsets, checked against the definitions: Cz = n_AB, a
       * right-handed orthonormal frame, r_X = p − o_X */
      const contactRec *r = P->list + (long)w * P->max_con + i;
      vec3 cz = m3_col(j.R_WC, 2), cx = m3_col(j.R_WC, 0), cy = m3_col(j.R_WC, 1);
      cr_assert_leq(v3_norm(v3_add(cz, r->normal)), 1e-15, "Cz is not n_AB");
      cr_assert_leq(v3_norm(v3_sub(v3_cross(cx, cy), cz)) + fabs(v3_dot(cx, cy)) + fabs(v3_norm(cx) - 1), 1e-14);
      for (int q = 0; q < 2; ++q) {
        int k = c->clique[q];
        vec3 o = k >= 0 ? v3(sapp_origin(P, w, k)[0], sapp_origin(P, w, k)[1], sapp_origin(P, w, k)[2]) : v3_zero();
        cr_assert_leq(v3_norm(v3_sub(j.r[q], v3_sub(r->point, o))), 0.0, "offset from clique %d", k);
      }
      sapp_jac(P, w)[i] = j;
      sap_con_finish(c, &j, i, sapp_params(P, w) + i, sapp_cliques(P, w), sapp_A(P, w), P->dt,
                     (sapDiagInv *)0);
    }
    sap_setup_world(&P->B, w);
  }
}

/* γ of every constraint at the returned velocities (what the results API reports). */
static inline void sapp_impulses(sapProblem *P) {
  for (int w = 0; w < P->nworld; ++w)
    for (int i = 0; i < P->ncon[w]; ++i)
      sap_con_eval(sapp_con(P, w) + i, sapp_jac(P, w) + i, sapp_cliques(P, w), sapp_v(P, P->v, w),
                   P->gamma + 3L * (P->max_con * w + i), NULL);
}

static inline int sapp_all_done(const sapProblem *P) {
  for (int w = 0; w < P->nworld; ++w)
    if (!P->stats[w].done) return 0;
  return 1;
}

/* The CPU driver's loop (host/step/sap_step.c), with world 0's step lengths recorded: α is read
 * off the update as (v₁ − v₀)·Δv / ‖Δv‖², and the line search's result as ∇ℓ(v₁)·Δv / ∇ℓ(v₀)·Δv
 * (0 for an exact line search that stopped inside the bracket). */
static inline double sapp_cost_grad(const struct sapProblem *P, int w, const double *v, double *grad, double *jg);
static inline void sapp_solve(sapProblem *P) {
  sapBatch *B = &P->B;
  double v0[64];
  P->nalpha = 0;
  sapp_prepare(P);
  for (int it = 0; it <= B->set.max_iterations && !sapp_all_done(P); ++it) {
    for (int w = 0; w < P->nworld; ++w) sap_newton_begin(B, w);
    if (sapp_all_done(P)) break;
    cr_assert_eq(linalg_cholesky_run(&P->be, &P->chol, NULL), ISO_OK);
    int track = !P->stats[0].done && P->chol.info[0] == 0;
    memcpy(v0, P->v, sizeof(double) * (size_t)P->nv);
    for (int w = 0; w < P->nworld; ++w) sap_newton_end(B, w);
    if (track && P->nalpha < 256) {
      double num = 0, den = 0, g0[64], g1[64], s0 = 0, s1 = 0;
      const double *dv = P->chol.B;
      for (int i = 0; i < P->nv; ++i) num += (P->v[i] - v0[i]) * dv[i], den += dv[i] * dv[i];
      sapp_cost_grad(P, 0, v0, g0, NULL);
      sapp_cost_grad(P, 0, P->v, g1, NULL);
      for (int i = 0; i < P->nv; ++i) s0 += g0[i] * dv[i], s1 += g1[i] * dv[i];
      P->slope[P->nalpha] = s1 / s0;
      P->alpha[P->nalpha++] = den > 0 ? num / den : 0;
    }
  }
  sapp_impulses(P);
}

/* ---- independent cost, gradient and Jacobians ------------------------------------------------ */

static inline vec3 sapp_vat(const double *x, int k) { return v3(x[k], x[k + 1], x[k + 2]); }

/* Velocity of the material point of clique k at offset r: for a free body v_Bo + ω × r, for a
 * point mass its velocity (zero for the world). */
static inline vec3 sapp_point_vel(const sapProblem *P, const double *v, int k, vec3 r) {
  if (k < 0) return v3_zero();
  const int o = P->cl[k].v0;
  if (P->cl[k].nv == 3) return sapp_vat(v, o);
  return v3_add(sapp_vat(v, o + 3), v3_cross(sapp_vat(v, o), r));
}

/* vc = R_WCᵀ(v_Bc − v_Ac). */
static inline void sapp_con_vel(const sapProblem *P, const sapJac *c, const double *v, double vc[3]) {
  vec3 d = v3_sub(sapp_point_vel(P, v, c->clique[1], c->r[1]), sapp_point_vel(P, v, c->clique[0], c->r[0]));
  for (int i = 0; i < 3; ++i) vc[i] = v3_dot(m3_col(c->R_WC, i), d);
}

/* Constraint c's Jacobian (3 × nv, row-major) from the harness's own contact velocity, which is
 * linear in v: column k is the velocity of unit vector e_k. */
static inline void sapp_dense_jacobian(const sapProblem *P, const sapJac *j, double *J) {
  double e[64] = {0}, vc[3];
  for (int k = 0; k < P->nv; ++k) {
    e[k] = 1;
    sapp_con_vel(P, j, e, vc);
    for (int i = 0; i < 3; ++i) J[P->nv * i + k] = vc[i];
    e[k] = 0;
  }
}

/* H = A + Σ JᵀGJ (row-major nv × nv) at world 0's v, from dense Jacobians and the law's G at
 * the harness's contact velocities. */
static inline void sapp_dense_hessian(const sapProblem *P, double *H) {
  const int nv = P->nv;
  const double *v = P->v;
  memset(H, 0, sizeof(double) * (size_t)(nv * nv));
  for (int k = 0; k < P->ncl; ++k) {
    const sapClique *c = P->cl + k;
    for (int a = 0; a < c->nv; ++a)
      for (int b = 0; b < c->nv; ++b) H[nv * (c->v0 + a) + c->v0 + b] = sapp_Ak(P, 0, k)[c->nv * a + b];
  }
  for (int i = 0; i < P->ncon[0]; ++i) {
    double J[3 * 64], vc[3], g[3], G[9];
    sapp_dense_jacobian(P, P->jac + i, J);
    sapp_con_vel(P, P->jac + i, v, vc);
    sap_contact_eval(&P->con[i].data, vc, g, G);
    for (int a = 0; a < nv; ++a)
      for (int b = 0; b < nv; ++b) {
        double s = 0;
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t) s += J[nv * r + a] * G[3 * r + t] * J[nv * t + b];
        H[nv * a + b] += s;
      }
  }
}

/* f += generalized impulse of γ (on B at C, in C) and −γ on A: [r × γ_W, γ_W] on a free body,
 * γ_W on a point mass. */
static inline void sapp_con_force(const sapProblem *P, const sapJac *c, const double g[3], double *f) {
  vec3 gw = v3_zero();
  for (int i = 0; i < 3; ++i) gw = v3_add(gw, v3_scale(m3_col(c->R_WC, i), g[i]));
  for (int q = 0; q < 2; ++q) {
    const int k = c->clique[q];
    if (k < 0) continue;
    const double s = q ? 1.0 : -1.0;
    const int o = P->cl[k].v0;
    if (P->cl[k].nv == 3) {
      f[o] += s * gw.x, f[o + 1] += s * gw.y, f[o + 2] += s * gw.z;
      continue;
    }
    vec3 t = v3_cross(c->r[q], gw);
    double e[6] = {t.x, t.y, t.z, gw.x, gw.y, gw.z};
    for (int i = 0; i < 6; ++i) f[o + i] += s * e[i];
  }
}

/* ℓ(v), ∇ℓ = A(v − v*) − Jᵀγ (grad may be NULL) and Jᵀγ (jg may be NULL) for world w. */
static inline double sapp_cost_grad(const sapProblem *P, int w, const double *v, double *grad, double *jg) {
  const double *vs = sapp_v(P, P->vstar, w);
  double g[64], f[64];
  double cost = 0;
  for (int i = 0; i < P->nv; ++i) f[i] = 0;
  for (int k = 0; k < P->ncl; ++k) {
    const int n = P->cl[k].nv, o = P->cl[k].v0;
    const double *A = sapp_Ak(P, w, k);
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int m = 0; m < n; ++m) s += A[n * i + m] * (v[o + m] - vs[o + m]);
      g[o + i] = s;
      cost += 0.5 * s * (v[o + i] - vs[o + i]);
    }
  }
  const sapCon *con = sapp_con(P, w);
  const sapJac *jac = sapp_jac(P, w);
  for (int c = 0; c < P->ncon[w]; ++c) {
    double vc[3], gam[3];
    sapp_con_vel(P, jac + c, v, vc);
    cost += sap_contact_eval(&con[c].data, vc, gam, NULL);
    sapp_con_force(P, jac + c, gam, f);
  }
  for (int i = 0; i < P->nv; ++i) {
    if (grad) grad[i] = g[i] - f[i];
    if (jg) jg[i] = f[i];
  }
  return cost;
}

static inline double sapp_norm2(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return sqrt(s);
}

/* ‖x‖_D with D = diag(A)^(−1/2), as in the stopping criterion. */
static inline double sapp_norm_D(const sapProblem *P, int w, const double *x) {
  double s = 0;
  for (int i = 0; i < P->nv; ++i) s += x[i] * x[i] / sapp_diag(P, w, i);
  return sqrt(s);
}

/* The stopping criterion's ratio ‖D∇ℓ‖ / (ε_a + ε_r·max(‖DAv‖, ‖DJᵀγ‖)) at v, recomputed. */
static inline double sapp_crit_ratio(const sapProblem *P, int w, const double *v, double abs_tol, double rel_tol) {
  double g[64], jg[64], p[64];
  sapp_cost_grad(P, w, v, g, jg);
  sap_mul_A(sapp_cliques(P, w), P->ncl, sapp_A(P, w), v, p);
  double pn = sapp_norm_D(P, w, p), jn = sapp_norm_D(P, w, jg);
  return sapp_norm_D(P, w, g) / (abs_tol + rel_tol * (pn > jn ? pn : jn));
}

/* Bound on ‖v − v_opt‖ from the gradient at v: ℓ is strongly convex with modulus λ_min(A) (the
 * constraint costs are convex), so ‖v − v_opt‖ ≤ ‖∇ℓ(v)‖/λ_min(A). lam_min must be set. */
static inline double sapp_dist_bound(const sapProblem *P, int w, const double *v) {
  double g[64];
  sapp_cost_grad(P, w, v, g, NULL);
  return sapp_norm2(g, P->nv) / P->lam_min[w];
}

/* An independent minimiser: steepest descent in the metric diag(A) from v*, each step length
 * found from the sign of the directional derivative (start at twice the last step, halve while
 * ℓ still rises at the trial point, so a convex ℓ decreased over the whole step). Slopes, not
 * cost differences, decide, so rounding of ℓ does not stall it near the optimum. Runs until the
 * criterion ratio at ε_r = 1e-12 is below 1; uses only sapp_cost_grad. Returns the iterations. */
static inline int sapp_ref_minimise(const sapProblem *P, int w, double *v) {
  double g[64], d[64], trial[64], gt[64];
  double t = 1e-3;
  memcpy(v, sapp_v(P, P->vstar, w), sizeof(double) * (size_t)P->nv);
  sapp_cost_grad(P, w, v, g, NULL);
  int it;
  for (it = 0; it < 2000000; ++it) {
    if (sapp_crit_ratio(P, w, v, 1e-300, 1e-12) < 1) break;
    for (int i = 0; i < P->nv; ++i) d[i] = -g[i] / sapp_diag(P, w, i);
    t *= 2;
    for (;;) {
      for (int i = 0; i < P->nv; ++i) trial[i] = v[i] + t * d[i];
      sapp_cost_grad(P, w, trial, gt, NULL);
      double slope = 0;
      for (int i = 0; i < P->nv; ++i) slope += gt[i] * d[i];
      if (slope <= 0 || t < 1e-30) break;
      t *= 0.5;
    }
    if (t < 1e-30) break;
    memcpy(v, trial, sizeof(double) * (size_t)P->nv);
    memcpy(g, gt, sizeof(double) * (size_t)P->nv);
  }
  return it;
}

#endif
