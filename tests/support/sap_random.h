/* Random SAP problems for the solver tests (tests/test_sap_solver.c, tests/test_sap_cliques.c)
 * on the harness of tests/support/sap_problem.h, and the optimality checks they share: each
 * world's returned v against its own gradient, the friction cones, perturbations and an
 * independent minimiser. Header-only, like the harness. */
#ifndef ISO_TESTS_SAP_RANDOM_H
#define ISO_TESTS_SAP_RANDOM_H

#include "support/sap_problem.h"
#include "support/support.h"

/* A uniformly random rotation (normalised random quaternion). */
static inline mat3 sapr_rot(test_rng *r) {
  double q[4], n = 0;
  for (int i = 0; i < 4; ++i) q[i] = test_rng_uniform(r, -1, 1), n += q[i] * q[i];
  n = sqrt(n);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  return m3_from_rows(v3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                      v3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                      v3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)));
}

/* Per-model random parameters: μ 0.1–1, k 1e3–1e5 N/m, τ ≤ 0.05 s, d ≤ 5 s/m, φ0 from 2 mm
 * penetration to 0.5 mm gap, fe0 = −k·φ0, |vn0| ≤ 0.5 m/s. */
static inline sapContactParams sapr_params(test_rng *r, int model) {
  sapContactParams p = sap_contact_params_default();
  p.model = model;
  p.mu = test_rng_uniform(r, 0.1, 1.0);
  p.k = exp(test_rng_uniform(r, log(1e3), log(1e5)));
  p.tau = test_rng_uniform(r, 0, 0.05);
  p.d = test_rng_uniform(r, 0, 5);
  p.phi0 = test_rng_uniform(r, -2e-3, 5e-4);
  p.fe0 = -p.k * p.phi0;
  p.vn0 = test_rng_uniform(r, -0.5, 0.5);
  return p;
}

/* World w: random SPD clique blocks A = MᵀM + diag(λ), λ ∈ [0.5, 2] (so λ_min(A) ≥ 0.5),
 * random v* and warm start, and one contact per entry of pairs (cliques A, B; −1 the world),
 * with random frames and offsets up to 0.2 m. */
static inline void sapr_world(sapProblem *P, int w, int model, test_rng *r, const int (*pairs)[2], int npair) {
  P->lam_min[w] = 0.5;
  for (int b = 0; b < P->ncl; ++b) {
    const int n = P->cl[b].nv;
    double M[36], *A = sapp_Ak(P, w, b);
    for (int i = 0; i < n * n; ++i) M[i] = test_rng_uniform(r, -0.5, 0.5);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        double s = i == j ? test_rng_uniform(r, 0.5, 2.0) : 0;
        for (int k = 0; k < n; ++k) s += M[n * k + i] * M[n * k + j];
        A[n * i + j] = A[n * j + i] = s;
      }
  }
  for (int i = 0; i < P->nv; ++i) {
    sapp_v(P, P->vstar, w)[i] = test_rng_uniform(r, -1, 1);
    sapp_v(P, P->v, w)[i] = test_rng_uniform(r, -1, 1);
  }
  /* origins a few cm apart; each contact point is an offset from one of its cliques, so the
   * offsets from the two differ as the origins do */
  for (int b = 0; b < P->ncl; ++b) {
    double *o = sapp_origin(P, w, b);
    o[0] = 0.1 * b, o[1] = -0.05 * b, o[2] = 0.02 * b;
  }
  for (int c = 0; c < npair; ++c) {
    vec3 ra = v3(test_rng_uniform(r, -.2, .2), test_rng_uniform(r, -.2, .2), test_rng_uniform(r, -.2, .2));
    vec3 rb = v3(test_rng_uniform(r, -.2, .2), test_rng_uniform(r, -.2, .2), test_rng_uniform(r, -.2, .2));
    int ba = pairs[c][0], bb = pairs[c][1];
    const double *o = ba >= 0 ? sapp_origin(P, w, ba) : sapp_origin(P, w, bb);
    vec3 p = v3_add(v3(o[0], o[1], o[2]), ba >= 0 ? ra : rb);
    mat3 R = sapr_rot(r);
    sapp_add_con(P, w, ba, bb, m3_col(R, 2), p, sapr_params(r, model));
  }
}

/* After sapp_solve of random worlds of one model, at the returned v of each world:
 *  - momentum balance: the stopping criterion's ratio, recomputed with our own Jacobians, is
 *    ≤ 1 (+1e-6: the two evaluations round differently, ~1e-16 of terms of order 1 against a
 *    threshold of 1e-6 of them);
 *  - γ in the cone: γn ≥ 0, ‖γt‖ ≤ μγn (convex: γt = μγn·t̂ with ‖t̂‖ ≤ 1; similar: ‖t_s‖ < 1),
 *    lagged ‖γt‖ ≤ μ·n0; a few ulps of slack (1e-14 relative) for the products;
 *  - a minimum: ℓ(v + δ) − ℓ(v) ≥ ‖δ‖(½λ_min‖δ‖ − ‖∇ℓ‖) (strong convexity) minus a rounding
 *    allowance of 1e-13·|ℓ| for ‖δ‖ = 1e-4 … 1e-2 in random directions;
 *  - the independent minimiser lands within the sum of both distance bounds (plus 1e-12 of ‖v‖
 *    for the rounding of the difference);
 *  - warm-started at the optimum, the solver stops at the first check (0 iterations). */
static inline void sapr_check_optimal(sapProblem *P, int model, test_rng *r) {
  for (int w = 0; w < P->nworld; ++w) {
    const double *v = sapp_v(P, P->v, w);
    cr_assert_eq(P->status[w], 0u, "model %d world %d: status %#x", model, w, P->status[w]);
    cr_assert(P->stats[w].converged && P->stats[w].iterations > 0);
    double ratio = sapp_crit_ratio(P, w, v, P->B.set.abs_tol, P->B.set.rel_tol);
    cr_assert_leq(ratio, 1 + 1e-6, "model %d world %d: criterion ratio %g", model, w, ratio);
    int nactive = 0;
    for (int c = 0; c < P->ncon[w]; ++c) {
      const double *g = P->gamma + 3L * (P->max_con * w + c);
      const sapContactData *d = &sapp_con(P, w)[c].data;
      double gt = hypot(g[0], g[1]), bound = model == SAP_MODEL_LAGGED ? d->mu * d->n0 : d->mu * g[2];
      cr_assert_geq(g[2], 0);
      cr_assert_leq(gt, bound * (1 + 1e-14), "model %d: ‖γt‖ %g > %g", model, gt, bound);
      nactive += g[2] > 0;
    }
    cr_assert_gt(nactive, 0, "model %d world %d: no active contact, nothing tested", model, w);
    double grad[64], vp[64], gnorm, l0 = sapp_cost_grad(P, w, v, grad, NULL);
    gnorm = sapp_norm2(grad, P->nv);
    for (int k = 0; k < 30; ++k) {
      double dir[64], len = pow(10, test_rng_uniform(r, -4, -2));
      for (int i = 0; i < P->nv; ++i) dir[i] = test_rng_uniform(r, -1, 1);
      double n = sapp_norm2(dir, P->nv);
      for (int i = 0; i < P->nv; ++i) vp[i] = v[i] + len * dir[i] / n;
      double dl = sapp_cost_grad(P, w, vp, NULL, NULL) - l0;
      cr_assert_geq(dl, len * (0.5 * P->lam_min[w] * len - gnorm) - 1e-13 * fabs(l0),
                    "model %d world %d: ℓ(v + δ) − ℓ(v) = %g at ‖δ‖ = %g", model, w, dl, len);
    }
    double vref[64];
    sapp_ref_minimise(P, w, vref);
    cr_assert_lt(sapp_crit_ratio(P, w, vref, 1e-300, 1e-12), 1, "the reference minimiser did not converge");
    double e = sapp_dist_bound(P, w, v) + sapp_dist_bound(P, w, vref), dist = 0;
    for (int i = 0; i < P->nv; ++i) dist += (v[i] - vref[i]) * (v[i] - vref[i]);
    cr_assert_leq(sqrt(dist), e + 1e-12 * sapp_norm2(v, P->nv), "model %d world %d: ‖v − v_ref‖ = %g > %g", model,
                  w, sqrt(dist), e);
  }
  sapp_solve(P); /* warm start: v holds the optimum */
  for (int w = 0; w < P->nworld; ++w) {
    cr_assert_eq(P->stats[w].iterations, 0, "model %d world %d: %d iterations from the optimum", model, w,
                 P->stats[w].iterations);
    cr_assert(P->stats[w].converged);
  }
}

#endif
