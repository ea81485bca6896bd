/* SAP contact constraint (kernels/sap/contact.h): the friction-cone ("sap"/convex) model of
 * drake_algorithms §5.3 and the Hunt–Crossley "lagged" and "similar" models of §5.4: the
 * properties every model shares. The known values of each model are in
 * tests/test_sap_contact_convex.c and tests/test_sap_contact_hunt_crossley.c.
 *
 * For every model, over random parameters and velocities placed in every region:
 *  - γ = −∇ℓ by central differences of ℓ; G = −∂γ/∂vc by central differences of γ (stencils
 *    that stay in one region only); G bitwise symmetric; G positive semi-definite;
 *  - ℓ convex along random lines crossing the regions; ℓ and γ continuous across the region
 *    boundaries; and the default parameters.
 *
 * Tolerances. A central difference of a function f with step h errs by at most
 * h²/6·max|f‴| (truncation) plus about eps·(|f(x+h)| + |f(x−h)|)/(2h) (rounding of f, which
 * carries the rounding of its inputs, |∂f/∂v|·eps·|v|). Steps are chosen 1e-5 of the smallest
 * feature length of the sample (distance to a region boundary, |vt| for the direction of the
 * friction, ε_s for the soft norm), so truncation is ~1e-10 relative; the rounding part is
 * computed per sample from the values themselves (fd_roundoff below), times a safety factor
 * 64 for the few operations each evaluation chains. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "kernels/sap/contact.h"
#include "support/sap_contact_sample.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16
#define NSAMPLE 3000

/* ---- helpers -------------------------------------------------------------------------------- */

/* 1 when the center and its 6 axis neighbours at ±h[i] share one region. */
static int stencil_in_one_region(const sapContactData *d, const double vc[3], const double h[3]) {
  int r0 = sap_contact_region(d, vc);
  for (int i = 0; i < 3; ++i)
    for (int s = -1; s <= 1; s += 2) {
      double v[3] = {vc[0], vc[1], vc[2]};
      v[i] += s * h[i];
      if (sap_contact_region(d, v) != r0) return 0;
    }
  return 1;
}

/* Rounding of the inputs: every evaluation first forms differences like v̂ − vc or
 * vn − μ‖vt‖_s, which carry an absolute error of about eps·(|vc|₁ + |v̂|); through the slope
 * that moves f by |f′|·eps·(|vc|₁ + |v̂|), and the central difference divides by 2h. */
static double input_scale(const sapContactData *d, const double vc[3]) {
  double vhat = d->model == SAP_MODEL_CONVEX ? d->vn_hat : d->v_hat;
  if (!isfinite(vhat) || fabs(vhat) > 1e3) vhat = 0; /* v̂ ~ 1e20 for d = 0 is only a clamp */
  return fabs(vc[0]) + fabs(vc[1]) + (1 + d->mu) * fabs(vc[2]) + fabs(vhat);
}

/* Central differences along each axis i with step h[i] (the step actually taken, exact by
 * Sterbenz, is used): γ_fd = −∇ℓ, G_fd = −∂γ/∂vc (column j from axis j), and the rounding
 * allowance of each entry: eps·(|f(v+h)| + |f(v−h)| + 2|f′|·input_scale)/(2h). */
static void fd_derivatives(const sapContactData *d, const double vc[3], const double h[3],
                           double g[3], double rog[3], double G[9], double roG[9]) {
  double sc = input_scale(d, vc);
  for (int j = 0; j < 3; ++j) {
    double vp[3] = {vc[0], vc[1], vc[2]}, vm[3] = {vc[0], vc[1], vc[2]};
    double gp[3], gm[3], Gp[9], Gm[9];
    vp[j] += h[j];
    vm[j] -= h[j];
    double lp = sap_contact_eval(d, vp, gp, Gp), lm = sap_contact_eval(d, vm, gm, Gm);
    double h2 = vp[j] - vm[j];
    g[j] = -(lp - lm) / h2;
    rog[j] = EPS * (fabs(lp) + fabs(lm) + 2 * fmax(amax3(gp), amax3(gm)) * sc) / h2;
    for (int i = 0; i < 3; ++i) {
      G[3 * i + j] = -(gp[i] - gm[i]) / h2;
      roG[3 * i + j] = EPS * (fabs(gp[i]) + fabs(gm[i]) + 2 * fmax(amax9(Gp), amax9(Gm)) * sc) / h2;
    }
  }
}

/* Eigenvalues of a symmetric 3×3 by cyclic Jacobi rotations (independent of the code under
 * test; converges to full precision in a handful of sweeps). */
static void sym_eig3(const double Gin[9], double lam[3]) {
  double a[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a[i][j] = Gin[3 * i + j];
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (off == 0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0) continue;
        double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) { /* A ← A·J */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) { /* A ← Jᵀ·A */
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < 3; ++i) lam[i] = a[i][i];
}

/* A contact velocity of a Hunt–Crossley model: z = v̂ ∓ (5%..100%)·S with S = max(|v̂|, 1e-3)
 * (contact or not), and |vt| log-uniform in [1e-2, 1e3]·ε_s (stiction to large slip). Feature
 * lengths: n(z) is a quadratic on each side of v̂, so along vn the length is |z − v̂|; along
 * vt the soft norm bends over s = √(|vt|² + ε_s²), and (similar) z moves by μ per unit vt. */
static void hc_sample(test_rng *r, const sapContactData *d, int contact, double vc[3],
                      double feature[3]) {
  double S = fabs(d->v_hat) > 1e-3 ? fabs(d->v_hat) : 1e-3;
  if (S > 10) S = 10; /* v̂ ~ 1/d is huge for d → 0; stay at physical speeds */
  double dz = test_rng_uniform(r, 0.05, 1) * S;
  double z = contact ? d->v_hat - dz : d->v_hat + dz;
  if (!contact && d->v_hat > 10) z = d->v_hat * 1.5;
  double vt = logu(r, 1e-2, 1e3) * d->eps_s;
  if (vt > 30) vt = logu(r, 1, 30); /* physical slip speeds even where ε_s is huge */
  double th = test_rng_uniform(r, 0, 2 * SAP_PI);
  vc[0] = vt * cos(th);
  vc[1] = vt * sin(th);
  double eps = d->eps_s, s = sqrt(vt * vt + eps * eps);
  vc[2] = d->model == SAP_MODEL_SIMILAR ? z + d->mu * (s - eps) : z;
  double fz = fabs(z - d->v_hat);
  feature[2] = fz;
  feature[0] = feature[1] = d->model == SAP_MODEL_SIMILAR && d->mu * s > fz ? fz / d->mu : s;
}

static void sample(test_rng *r, int model, int i, sapContactData *d, double vc[3],
                   double feature[3]) {
  double dt, w[3];
  sapContactParams p = rand_params(r, model, &dt, w);
  make(&p, w, dt, d);
  if (model == SAP_MODEL_CONVEX)
    cone_sample(r, d, i % 3, vc, feature);
  else
    hc_sample(r, d, i % 2, vc, feature);
}

/* The convex model's cost ½γᵀRγ is, in sliding, the potential of γ minus
 * e = ½Rt·μ²γn²·ε²/y_r² (the soft norm makes |t̂|² = 1 − ε²/y_r²; see soft_gap below). The
 * gradient of e is at most 2μ·ε²/y_r²·|γ| (its y_r⁻² factor varies over Rt·y_r and
 * γn ≤ y_r/μ), which the γ check allows for. ε² = 1e-14 N²s². */
static double soft_grad_gap(const sapContactData *d, const double vc[3], double gs) {
  if (d->model != SAP_MODEL_CONVEX || sap_contact_region(d, vc) != SAP_REGION_SLIDING) return 0;
  double y[3];
  cone_y(d, vc, y);
  double yr = cone_yr(y);
  return 2 * (d->mu + 1) * 1e-14 / (yr * yr) * gs;
}

/* ---- γ = −∇ℓ, G = −∂γ/∂vc, symmetry, PSD ------------------------------------------------ */

static void check_derivatives(int model) {
  test_rng r = {42 + (uint64_t)model};
  int tested = 0, strong = 0, regions[3] = {0, 0, 0};
  for (int i = 0; i < NSAMPLE; ++i) {
    sapContactData d;
    double vc[3], feature[3], h[3];
    sample(&r, model, i, &d, vc, feature);
    for (int k = 0; k < 3; ++k) h[k] = 1e-5 * feature[k];
    if (!stencil_in_one_region(&d, vc, h)) continue;
    ++tested;
    ++regions[sap_contact_region(&d, vc)];

    double g[3], G[9], gfd[3], Gfd[9], rog[3], roG[9];
    double l = sap_contact_eval(&d, vc, g, G);
    cr_assert(isfinite(l));
    fd_derivatives(&d, vc, h, gfd, rog, Gfd, roG);

    /* γ: truncation ≤ 1e-7·max|γ| (h = 1e-5·feature: relative error ~(h/feature)² = 1e-10,
     * with three orders of margin for the constants) plus 64× the rounding allowance, plus
     * the convex model's soft-norm gap. */
    double gs = amax3(g), rel_g = 0, rel_G = 0;
    for (int k = 0; k < 3; ++k) {
      double err = fabs(gfd[k] - g[k]);
      double tol = 1e-7 * gs + 64 * rog[k] + soft_grad_gap(&d, vc, gs);
      if (gs > 0 && tol / gs > rel_g) rel_g = tol / gs;
      cr_assert(err <= tol, "model %d sample %d: gamma[%d] %.17g vs fd %.17g (tol %.3g)", model,
                i, k, g[k], gfd[k], tol);
    }
    /* G: the same argument one derivative higher (1e-6: G's own derivative is one power of
     * 1/feature steeper). */
    double Gs = amax9(G);
    for (int k = 0; k < 9; ++k) {
      double err = fabs(Gfd[k] - G[k]);
      double tol = 1e-6 * Gs + 64 * roG[k];
      if (Gs > 0 && tol / Gs > rel_G) rel_G = tol / Gs;
      cr_assert(err <= tol, "model %d sample %d: G[%d] %.17g vs fd %.17g (tol %.3g)", model, i,
                k, G[k], Gfd[k], tol);
    }
    /* A sample is a strong check when all its tolerances are ≤ 1e-5 relative. */
    if (rel_g <= 1e-5 && rel_G <= 1e-5) ++strong;
    /* Bitwise symmetric: the off-diagonal blocks are computed once and mirrored. */
    cr_assert(G[1] == G[3] && G[2] == G[6] && G[5] == G[7], "model %d: G not symmetric", model);
    /* PSD: eigenvalues ≥ −1e-12·max|G| (Jacobi on a symmetric 3×3 is backward stable to a
     * few eps·‖G‖; the P⊥ eigenvalue can be legitimately tiny, ~ε²/|y|², but not negative). */
    double lam[3];
    sym_eig3(G, lam);
    for (int k = 0; k < 3; ++k)
      cr_assert(lam[k] >= -1e-12 * Gs, "model %d sample %d: eigenvalue %g of G (max %g)", model,
                i, lam[k], Gs);
  }
  /* Most samples must have been usable, most of them strong checks, every region visited. */
  cr_assert(tested > NSAMPLE * 9 / 10, "model %d: only %d of %d samples usable", model, tested,
            NSAMPLE);
  cr_assert(strong > tested * 8 / 10, "model %d: only %d of %d samples strong", model, strong,
            tested);
  if (model == SAP_MODEL_CONVEX)
    cr_assert(regions[0] > 100 && regions[1] > 100 && regions[2] > 100);
  else
    cr_assert(regions[0] > 100 && regions[1] > 10 && regions[2] > 10);
  fprintf(stderr, "model %d: %d samples (none %d, stiction %d, sliding %d), %d strong\n", model,
          tested, regions[0], regions[1], regions[2], strong);
}

Test(sap_contact, convex_gradient_hessian) { check_derivatives(SAP_MODEL_CONVEX); }
Test(sap_contact, lagged_gradient_hessian) { check_derivatives(SAP_MODEL_LAGGED); }
Test(sap_contact, similar_gradient_hessian) { check_derivatives(SAP_MODEL_SIMILAR); }

/* ---- convexity along random lines ------------------------------------------------------- */

/* How far the convex model's written cost ½γᵀRγ lies below the cost whose gradient is exactly
 * −γ: with the soft norm y_r = √(‖y_t‖² + ε²), |t̂|² = 1 − ε²/y_r², so in sliding
 * ½γᵀRγ = ½Rn(1 + μ̃²)γn² − ½Rt·μ²γn²·ε²/y_r². A function within e ≥ 0 below a convex one has
 * second differences ≥ −(e(t−Δ) + e(t+Δ)). Zero for the Hunt–Crossley models and in the other
 * convex regions. */
static double soft_gap(const sapContactData *d, const double vc[3]) {
  if (d->model != SAP_MODEL_CONVEX || sap_contact_region(d, vc) != SAP_REGION_SLIDING) return 0;
  double y[3], g[3];
  cone_y(d, vc, y);
  double yr = cone_yr(y);
  sap_contact_eval(d, vc, g, NULL);
  return 0.5 * d->Rt * d->mu * d->mu * g[2] * g[2] * 1e-14 / (yr * yr);
}

static void check_convex_lines(int model) {
  test_rng r = {1000 + (uint64_t)model};
  int crossings = 0;
  for (int line = 0; line < 300; ++line) {
    sapContactData d;
    double v0[3], feature[3];
    sample(&r, model, line, &d, v0, feature);
    double dir[3];
    for (int k = 0; k < 3; ++k) dir[k] = test_rng_uniform(&r, -1, 1);
    double dn = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    /* Line half-length: a few times the sample's velocity scale, so it crosses regions. */
    double L = 4 * (fabs(v0[0]) + fabs(v0[1]) + fabs(v0[2] - (model == SAP_MODEL_CONVEX
                                                                  ? d.vn_hat
                                                                  : d.v_hat))) + 1e-3;
    int n = 400;
    double step = 2 * L / n;
    double lprev = 0, lcur = 0, eprev = 0, ecur = 0;
    int rprev = -1;
    for (int j = 0; j <= n; ++j) {
      double t = -L + j * step, v[3];
      for (int k = 0; k < 3; ++k) v[k] = v0[k] + t * dir[k] / dn;
      double l = sap_contact_eval(&d, v, NULL, NULL), e = soft_gap(&d, v);
      int rg = sap_contact_region(&d, v);
      if (rprev >= 0 && rg != rprev) ++crossings;
      rprev = rg;
      if (j >= 2) {
        double d2 = lprev - 2 * lcur + l;
        /* Rounding of the three costs (16 eps each, generous for the ~10 operations) plus the
         * soft-norm gap e above. */
        double tol = 16 * EPS * (fabs(lprev) + 2 * fabs(lcur) + fabs(l)) + eprev + e;
        cr_assert(d2 >= -tol, "model %d line %d point %d: second difference %g < -%g", model,
                  line, j, d2, tol);
      }
      lprev = lcur;
      eprev = ecur;
      lcur = l;
      ecur = e;
    }
  }
  cr_assert(crossings > 100, "model %d: lines crossed regions only %d times", model, crossings);
}

Test(sap_contact, convex_cost_is_convex) { check_convex_lines(SAP_MODEL_CONVEX); }
Test(sap_contact, lagged_cost_is_convex) { check_convex_lines(SAP_MODEL_LAGGED); }
Test(sap_contact, similar_cost_is_convex) { check_convex_lines(SAP_MODEL_SIMILAR); }

/* ---- continuity across region boundaries ------------------------------------------------ */

/* ℓ and γ at vb ± δ·e_n must differ by no more than a Lipschitz bound: |Δγ| ≤ 2δ·max|G|·4
 * (4: G is evaluated at the two sides only, and may vary by that much between them for
 * δ ≪ feature), |Δℓ| ≤ 2δ·max|γ|·2; plus rounding 64 eps of the values. A jump would be
 * O(|γ|) and fail by many orders of magnitude, since δ = 1e-9 of the velocity scale. */
static void check_jump(const sapContactData *d, const double vb[3], double delta, int rlo,
                       int rhi, const char *what) {
  double vm[3] = {vb[0], vb[1], vb[2] - delta}, vp[3] = {vb[0], vb[1], vb[2] + delta};
  double gm[3], gp[3], Gm[9], Gp[9];
  double lm = sap_contact_eval(d, vm, gm, Gm), lp = sap_contact_eval(d, vp, gp, Gp);
  cr_assert_eq(sap_contact_region(d, vm), rlo, "%s: region below is %d", what,
               sap_contact_region(d, vm));
  cr_assert_eq(sap_contact_region(d, vp), rhi, "%s: region above is %d", what,
               sap_contact_region(d, vp));
  double Gs = fmax(amax9(Gm), amax9(Gp)), gs = fmax(amax3(gm), amax3(gp));
  for (int k = 0; k < 3; ++k)
    cr_assert(fabs(gp[k] - gm[k]) <= 8 * delta * Gs + 64 * EPS * gs, "%s: gamma[%d] jumps %g", what,
              k, gp[k] - gm[k]);
  cr_assert(fabs(lp - lm) <= 4 * delta * gs + 64 * EPS * fmax(fabs(lp), fabs(lm)),
            "%s: cost jumps %g", what, lp - lm);
}

Test(sap_contact, convex_continuity) {
  test_rng r = {7};
  for (int i = 0; i < 500; ++i) {
    double dt, w[3];
    sapContactParams p = rand_params(&r, SAP_MODEL_CONVEX, &dt, w);
    if (p.mu == 0) p.mu = 0.3;
    sapContactData d;
    make(&p, w, dt, &d);
    double V = logu(&r, 1e-3, 1), th = test_rng_uniform(&r, 0, 6.283185307179586);
    double yt = test_rng_uniform(&r, 0.1, 1) * V / d.Rt, yr = sqrt(yt * yt + 1e-14);
    double delta = 1e-9 * V;
    /* Stiction/sliding: y_r = μ·y_n. Lower vn (larger y_n) is stiction. */
    double vb[3] = {-d.Rt * yt * cos(th), -d.Rt * yt * sin(th), d.vn_hat - d.Rn * yr / d.mu};
    check_jump(&d, vb, delta, SAP_REGION_STICTION, SAP_REGION_SLIDING, "stiction/sliding");
    /* Sliding/no contact: y_n = −μ̂·y_r. */
    vb[2] = d.vn_hat + d.Rn * d.mu_hat * yr;
    check_jump(&d, vb, delta, SAP_REGION_SLIDING, SAP_REGION_NONE, "sliding/none");
  }
}

Test(sap_contact, hunt_crossley_continuity) {
  test_rng r = {8};
  for (int m = 1; m <= 2; ++m)
    for (int i = 0; i < 500; ++i) {
      double dt, w[3];
      sapContactParams p = rand_params(&r, m, &dt, w);
      sapContactData d;
      make(&p, w, dt, &d);
      if (!(d.v_hat < 10)) continue; /* d = 0 and huge v_x: no boundary at physical speeds */
      double vt = logu(&r, 1e-2, 1e3) * d.eps_s, th = test_rng_uniform(&r, 0, 6.283185307179586);
      double s = sqrt(vt * vt + d.eps_s * d.eps_s);
      double vb[3] = {vt * cos(th), vt * sin(th), 0};
      vb[2] = d.v_hat + (m == SAP_MODEL_SIMILAR ? d.mu * (s - d.eps_s) : 0);
      double delta = 1e-9 * fmax(fabs(d.v_hat), 1e-3);
      /* z = v̂: contact below, none above (the stiction/sliding label follows |vt|). */
      int rlo = vt * vt <= d.eps_s * d.eps_s ? SAP_REGION_STICTION : SAP_REGION_SLIDING;
      check_jump(&d, vb, delta, rlo, SAP_REGION_NONE, "hc contact/none");
      /* γt through vt = 0 (stiction side of the soft norm): continuous and small. */
      double vx[3] = {-1e-3 * d.eps_s, 0, d.v_hat - 1e-3}, vy[3] = {1e-3 * d.eps_s, 0, d.v_hat - 1e-3};
      double gx[3], gy[3];
      sap_contact_eval(&d, vx, gx, NULL);
      sap_contact_eval(&d, vy, gy, NULL);
      /* |γt| ≤ μ·n_f·|vt|/ε_s = 1e-3·μ·n_f; n_f ≤ max(n0, n) ≤ |γn| + n0. */
      double nf = m == SAP_MODEL_SIMILAR ? gx[2] : d.n0;
      cr_assert(fabs(gx[0]) <= 1.0000001e-3 * d.mu * nf + 1e-300);
      cr_assert(fabs(gx[0] + gy[0]) <= 64 * EPS * fabs(gx[0]) + 1e-300); /* odd in vt */
    }
}

Test(sap_contact, defaults) {
  sapContactParams p = sap_contact_params_default();
  cr_assert_eq(p.model, SAP_MODEL_LAGGED);
  cr_assert(p.stiction_tolerance == 1e-4 && p.beta == 1.0 && p.sigma == 1e-3);
  cr_assert(p.mu == 0 && p.k == 0 && p.d == 0 && p.tau == 0 && p.phi0 == 0 && p.fe0 == 0 &&
            p.vn0 == 0);
  /* unknown model values act as the lagged model */
  p.model = 7;
  double w[3] = {1, 1, 1};
  sapContactData d;
  make(&p, w, 1e-3, &d);
  cr_assert_eq(d.model, SAP_MODEL_LAGGED);
}
