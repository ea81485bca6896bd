/* SAP contact constraint (kernels/sap/contact.h): the friction-cone ("sap"/convex) model of
 * drake_algorithms §5.3 and the Hunt–Crossley "lagged" and "similar" models of §5.4.
 *
 * For every model, over random parameters and velocities placed in every region:
 *  - γ = −∇ℓ by central differences of ℓ; G = −∂γ/∂vc by central differences of γ (stencils
 *    that stay in one region only); G bitwise symmetric; G positive semi-definite;
 *  - ℓ convex along random lines crossing the regions; ℓ and γ continuous across the region
 *    boundaries;
 *  - known values: stiction γ = y, sliding |γt| = μγn, no impulse when separating fast; the
 *    Hunt–Crossley n(v), N′ = n, n = 0 beyond v̂, n0, ε_s and the lagged friction μ·n0; the
 *    near-rigid clamp of Rn.
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
#include <string.h>

#include "kernels/sap/contact.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16
#define NSAMPLE 3000

/* ---- helpers -------------------------------------------------------------------------------- */

static double logu(test_rng *r, double lo, double hi) {
  return exp(test_rng_uniform(r, log(lo), log(hi)));
}

static double amax3(const double a[3]) {
  double m = fabs(a[0]);
  if (fabs(a[1]) > m) m = fabs(a[1]);
  if (fabs(a[2]) > m) m = fabs(a[2]);
  return m;
}

static double amax9(const double a[9]) {
  double m = 0;
  for (int i = 0; i < 9; ++i)
    if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

/* Random pair parameters for `model`, a random Delassus estimate and time step. Ranges cover
 * soft to stiff contacts (k 1e3..1e7 N/m), δt 1e-4..1e-2 s, previous-step penetration up to
 * 2 mm and a margin layer (fe0 < 0, φ0 > 0 speculative), and μ up to 1.2 (also 0). */
static sapContactParams rand_params(test_rng *r, int model, double *dt, double w[3]) {
  sapContactParams p = sap_contact_params_default();
  p.model = model;
  p.mu = test_rng_uniform(r, 0, 1) < 0.05 ? 0.0 : test_rng_uniform(r, 0.05, 1.2);
  p.k = logu(r, 1e3, 1e7);
  p.d = test_rng_uniform(r, 0, 1) < 0.1 ? 0.0 : test_rng_uniform(r, 0.5, 100);
  p.tau = test_rng_uniform(r, 0, 0.3);
  double depth = test_rng_uniform(r, -2e-4, 2e-3);
  p.phi0 = -depth;
  p.fe0 = p.k * depth;
  p.vn0 = test_rng_uniform(r, -0.5, 0.5);
  p.stiction_tolerance = logu(r, 1e-5, 1e-3);
  p.beta = test_rng_uniform(r, 0.1, 2.0);
  p.sigma = logu(r, 1e-4, 1e-2);
  *dt = logu(r, 1e-4, 1e-2);
  for (int i = 0; i < 3; ++i) w[i] = logu(r, 0.05, 20);
  return p;
}

static void make(const sapContactParams *p, const double w[3], double dt, sapContactData *d) {
  sap_contact_make_data(p, w, dt, d);
}

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

/* y = R⁻¹(v̂ − vc) of the convex model, recomputed here from the data's R. */
static void cone_y(const sapContactData *d, const double vc[3], double y[3]) {
  y[0] = -vc[0] / d->Rt;
  y[1] = -vc[1] / d->Rt;
  y[2] = (d->vn_hat - vc[2]) / d->Rn;
}

static double cone_yr(const double y[3]) { return sqrt(y[0] * y[0] + y[1] * y[1] + 1e-14); }

/* A contact velocity of the convex model in region `region`, from y placed in that region with
 * a relative margin of at least 5% from its boundaries. The velocity scale V (1e-3..1 m/s)
 * sets |Rt·y_t| and |Rn·y_n|. Also returns a feature length per axis for the difference
 * steps: γ is linear in stiction and zero without contact, and linear in vn within sliding, so
 * the only curvature is that of the friction direction in sliding, over the tangential speed
 * |vt| = Rt·|y_t| (≥ 0.1·V there); otherwise the length is the region's width, ~V. */
static void cone_sample(test_rng *r, const sapContactData *d, int region, double vc[3],
                        double feature[3]) {
  double V = logu(r, 1e-3, 1);
  double th = test_rng_uniform(r, 0, 2 * SAP_PI);
  double mu = d->mu, yt, yn;
  feature[0] = feature[1] = feature[2] = 0.05 * V;
  if (region == SAP_REGION_STICTION && mu == 0) region = SAP_REGION_SLIDING; /* empty cone */
  if (region == SAP_REGION_STICTION) {
    yn = test_rng_uniform(r, 0.1, 1) * V / d->Rn;
    /* keep μ·y_n well above the soft-norm ε = 1e-7 N·s, or the cone is empty */
    if (mu * yn < 1e-5) yn = test_rng_uniform(r, 1, 10) * 1e-5 / mu;
    yt = test_rng_uniform(r, 0.0, 0.95) * mu * yn;
  } else if (region == SAP_REGION_SLIDING) {
    yt = test_rng_uniform(r, 0.1, 1) * V / d->Rt;
    double lo = -d->mu_hat * yt, hi = mu > 0 ? yt / mu : 1e3 * yt;
    yn = test_rng_uniform(r, lo + 0.05 * (hi - lo), hi - 0.05 * (hi - lo));
    if (d->Rt * yt < feature[0]) feature[0] = feature[1] = d->Rt * yt;
  } else {
    yt = test_rng_uniform(r, 0.0, 1) * V / d->Rt;
    yn = -d->mu_hat * yt - test_rng_uniform(r, 0.05, 1) * V / d->Rn;
  }
  vc[0] = -d->Rt * yt * cos(th);
  vc[1] = -d->Rt * yt * sin(th);
  vc[2] = d->vn_hat - d->Rn * yn;
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

/* ---- known values: convex model --------------------------------------------------------- */

Test(sap_contact, convex_known_values) {
  test_rng r = {11};
  for (int i = 0; i < 300; ++i) {
    double dt, w[3];
    sapContactParams p = rand_params(&r, SAP_MODEL_CONVEX, &dt, w);
    if (p.mu == 0) p.mu = 0.5;
    sapContactData d;
    make(&p, w, dt, &d);
    double vc[3], feature[3], y[3], g[3], G[9];

    /* Stiction: γ = y exactly (same operations), G = R⁻¹, ℓ = ½yᵀRy. */
    cone_sample(&r, &d, SAP_REGION_STICTION, vc, feature);
    double l = sap_contact_eval(&d, vc, g, G);
    cone_y(&d, vc, y);
    cr_assert_eq(sap_contact_region(&d, vc), SAP_REGION_STICTION);
    for (int k = 0; k < 3; ++k) /* y here divides by R where the kernel multiplies by R⁻¹: 2 ulp */
      cr_assert(fabs(g[k] - y[k]) <= 4 * EPS * fabs(y[k]));
    cr_assert(G[0] == d.Rt_inv && G[4] == d.Rt_inv && G[8] == d.Rn_inv && G[1] == 0 && G[2] == 0 &&
              G[5] == 0);
    double lref = 0.5 * (d.Rt * (y[0] * y[0] + y[1] * y[1]) + d.Rn * y[2] * y[2]);
    cr_assert(fabs(l - lref) <= 16 * EPS * lref);

    /* Sliding with |y_t| ≥ 1: the soft norm changes |t̂| by ε²/(2y_r²) ≤ 5e-15, so
     * |γt| = μγn to 1e-12 relative; γn = (y_n + μ̂y_r)/(1 + μ̃²); γn > 0. */
    double th = test_rng_uniform(&r, 0, 6.283185307179586);
    double yt = logu(&r, 1, 1e3) + 1.0;
    double yn = test_rng_uniform(&r, -0.9 * d.mu_hat * yt, 0.9 * yt / d.mu);
    vc[0] = -d.Rt * yt * cos(th);
    vc[1] = -d.Rt * yt * sin(th);
    vc[2] = d.vn_hat - d.Rn * yn;
    sap_contact_eval(&d, vc, g, NULL);
    cr_assert_eq(sap_contact_region(&d, vc), SAP_REGION_SLIDING);
    cone_y(&d, vc, y);
    double yr = cone_yr(y);
    double gn_ref = (y[2] + d.mu_hat * yr) / (1 + d.mu_tilde * d.mu_tilde);
    cr_assert(g[2] > 0);
    cr_assert(fabs(g[2] - gn_ref) <= 1e-12 * (fabs(y[2]) + d.mu_hat * yr) / (1 + d.mu_tilde * d.mu_tilde));
    cr_assert(fabs(hypot(g[0], g[1]) - d.mu * g[2]) <= 1e-12 * d.mu * g[2]);
    /* friction opposes the slip: γt·vt < 0 */
    cr_assert(g[0] * vc[0] + g[1] * vc[1] < 0);

    /* Separating fast: no impulse, no cost, no Hessian. */
    vc[2] = d.vn_hat + 10 + 1e3 * d.Rn * d.mu_hat * yr;
    l = sap_contact_eval(&d, vc, g, G);
    cr_assert(l == 0 && g[0] == 0 && g[1] == 0 && g[2] == 0 && amax9(G) == 0);
    cr_assert_eq(sap_contact_region(&d, vc), SAP_REGION_NONE);
  }
}

/* §5.3 MakeData values, recomputed independently. */
Test(sap_contact, convex_make_data_and_near_rigid_clamp) {
  sapContactParams p = sap_contact_params_default();
  p.model = SAP_MODEL_CONVEX;
  p.mu = 0.5;
  p.tau = 0.2;
  p.phi0 = -1e-3;
  double w[3] = {2.0, 4.0, 3.0}, dt = 1e-3;
  double wrms = sqrt((4.0 + 16.0 + 9.0) / 3.0); /* 3.109: larger than ½(w0+w1) = 3 and w2 = 3 */
  double beta_factor = 1.0 / (4 * SAP_PI * SAP_PI);
  sapContactData d;

  p.k = 1e4; /* compliant: 1/(δt·k·(δt+τ)) = 1/(1e-3·1e4·0.201) = 0.4975 > β²/(4π²)·w_n = 0.0788 */
  make(&p, w, dt, &d);
  cr_assert(fabs(d.Rt - 1e-3 * wrms) <= 4 * EPS * d.Rt);
  cr_assert(fabs(d.Rn - 1.0 / (dt * p.k * (dt + p.tau))) <= 4 * EPS * d.Rn);
  cr_assert(fabs(d.vn_hat - 1e-3 / 0.201) <= 4 * EPS * d.vn_hat);
  cr_assert(fabs(d.mu_tilde - 0.5 * sqrt(d.Rt / d.Rn)) <= 4 * EPS * d.mu_tilde);
  cr_assert(fabs(d.mu_hat - 0.5 * d.Rt / d.Rn) <= 4 * EPS * d.mu_hat);

  /* Near-rigid: huge k (and k = ∞) put Rn on the clamp β²/(4π²)·max(w2, w_rms). */
  p.k = 1e15;
  make(&p, w, dt, &d);
  cr_assert(fabs(d.Rn - beta_factor * wrms) <= 4 * EPS * d.Rn, "Rn %g", d.Rn);
  p.k = INFINITY;
  make(&p, w, dt, &d);
  cr_assert(fabs(d.Rn - beta_factor * wrms) <= 4 * EPS * d.Rn);
  double vc[3] = {0.01, 0, -0.1}, g[3];
  sap_contact_eval(&d, vc, g, NULL);
  cr_assert(isfinite(g[0]) && isfinite(g[2]) && g[2] > 0);
  /* β scales the clamp quadratically; with a large w2 it uses w2. */
  p.beta = 2.0;
  w[2] = 100;
  make(&p, w, dt, &d);
  cr_assert(fabs(d.Rn - 4 * beta_factor * 100) <= 4 * EPS * d.Rn);

  /* k = 0: inactive (choice documented in contact.h). */
  p.k = 0;
  make(&p, w, dt, &d);
  double G[9];
  cr_assert(sap_contact_eval(&d, vc, g, G) == 0 && g[2] == 0 && amax9(G) == 0);
}

/* ---- known values: Hunt–Crossley models ------------------------------------------------- */

Test(sap_contact, hunt_crossley_impulse_and_antiderivative) {
  test_rng r = {21};
  for (int i = 0; i < 500; ++i) {
    double dt, w[3];
    int model = 1 + i % 2;
    sapContactParams p = rand_params(&r, model, &dt, w);
    sapContactData d;
    make(&p, w, dt, &d);
    /* v̂ = min(v_x, v_d), v_x = fe0/δt/(k + 1e-20), v_d = 1/(d + 1e-20). */
    double vx = p.fe0 / dt / (p.k + 1e-20), vd = 1 / (p.d + 1e-20);
    cr_assert_eq(d.v_hat, vx < vd ? vx : vd);
    double S = fmin(fmax(fabs(d.v_hat), 1e-3), 10);
    for (int j = 0; j < 20; ++j) {
      double v = d.v_hat + test_rng_uniform(&r, -2, 2) * S;
      /* n(v) = δt·(fe0 − δt·k·v)₊·(1 − d·v)₊, written independently. */
      double nref = dt * fmax(0, p.fe0 - dt * p.k * v) * fmax(0, 1 - p.d * v);
      double n = sap_hc_impulse(&d, v);
      /* two products of O(1) rounding each; the (·)₊ factors may cancel to a relative
       * 1e-13 near their roots, hence the absolute part on the scale of δt·fe0-sized terms */
      double scale = dt * (fabs(p.fe0) + dt * p.k * fabs(v)) * (1 + p.d * fabs(v));
      cr_assert(fabs(n - nref) <= 1e-13 * scale, "n %g ref %g", n, nref);
      if (v > d.v_hat) {
        cr_assert(n == 0);
        cr_assert(sap_hc_impulse_derivative(&d, v) == 0);
        /* N is constant beyond v̂ */
        cr_assert(sap_hc_antiderivative(&d, v) == sap_hc_antiderivative(&d, d.v_hat));
      }
      /* N′ = n and n′ by central differences, away from the kink at v̂ (h = 1e-6·|v − v̂|):
       * N is a cubic and n a quadratic on each side, so truncation is h²·|N‴|/6 ≤ 1e-12·scale
       * for N and zero for n. Rounding: N and n are sums of terms of size |v|·scale and
       * scale (the (·)₊ factors cancel near their roots), so each value errs by a few
       * eps·(|v|·scale) and eps·scale, divided by 2h in the quotient (64 for the few terms). */
      double h = 1e-6 * fabs(v - d.v_hat);
      if (h == 0) continue;
      volatile double vph = v + h, vmh = v - h;
      h = 0.5 * (vph - vmh); /* the step actually taken */
      double Np = sap_hc_antiderivative(&d, vph), Nm = sap_hc_antiderivative(&d, vmh);
      double dN = (Np - Nm) / (2 * h);
      cr_assert(fabs(dN - n) <= 1e-10 * scale + 64 * EPS * (fabs(v) + h) * scale / h,
                "N' %.17g n %.17g", dN, n);
      double np = sap_hc_impulse(&d, vph), nm = sap_hc_impulse(&d, vmh);
      double dn = (np - nm) / (2 * h), nd = sap_hc_impulse_derivative(&d, v);
      cr_assert(fabs(dn - nd) <= 1e-12 * fabs(nd) + 64 * EPS * scale / h, "n' %.17g fd %.17g", nd,
                dn);
      cr_assert(nd <= 0);
    }
  }
}

Test(sap_contact, hunt_crossley_make_data) {
  sapContactParams p = sap_contact_params_default();
  double w[3] = {1.0, 3.0, 0.5}, dt = 2e-3;
  double wrms = sqrt((1.0 + 9.0 + 0.25) / 3.0);  /* 1.848 < ½(w0+w1) = 2 */
  double Rt = 1e-3 * 2.0;
  sapContactData d;
  p.model = SAP_MODEL_LAGGED;
  p.mu = 0.8;
  p.k = 1e5;
  p.d = 20;
  p.fe0 = 50;
  p.vn0 = -0.01;
  make(&p, w, dt, &d);
  cr_assert(wrms < 2.0);
  cr_assert(fabs(d.Rt - Rt) <= 4 * EPS * Rt);
  /* n0 = max(0, δt·fe0)·max(0, 1 − d·vn0) = 0.1·1.2 */
  cr_assert(fabs(d.n0 - 0.1 * 1.2) <= 4 * EPS * 0.12);
  /* ε_s = max(v_s, μ·Rt·n0) = max(1e-4, 0.8·2e-3·0.12 = 1.92e-4) */
  cr_assert(fabs(d.eps_s - 0.8 * Rt * 0.12) <= 4 * EPS * d.eps_s);
  p.fe0 = 1; /* μ·Rt·n0 = 1.92e-6 < v_s */
  make(&p, w, dt, &d);
  cr_assert(d.eps_s == 1e-4);
  /* separating at the previous step faster than 1/d: no previous impulse */
  p.fe0 = 50;
  p.vn0 = 0.06;
  make(&p, w, dt, &d);
  cr_assert(d.n0 == 0 && d.eps_s == 1e-4);
  /* negative elastic force (margin layer): no previous impulse */
  p.vn0 = 0;
  p.fe0 = -5;
  make(&p, w, dt, &d);
  cr_assert(d.n0 == 0);
  /* similar model computes the same n0 and ε_s */
  p.model = SAP_MODEL_SIMILAR;
  p.fe0 = 50;
  p.vn0 = -0.01;
  make(&p, w, dt, &d);
  cr_assert(fabs(d.n0 - 0.12) <= 4 * EPS * 0.12);
  cr_assert(fabs(d.eps_s - 0.8 * Rt * 0.12) <= 4 * EPS * d.eps_s);
}

Test(sap_contact, lagged_friction_at_large_slip) {
  test_rng r = {31};
  for (int i = 0; i < 300; ++i) {
    double dt, w[3];
    sapContactParams p = rand_params(&r, SAP_MODEL_LAGGED, &dt, w);
    p.fe0 = fabs(p.fe0) + 1;
    p.vn0 = -fabs(p.vn0);
    sapContactData d;
    make(&p, w, dt, &d);
    cr_assert(d.n0 > 0);
    double th = test_rng_uniform(&r, 0, 6.283185307179586);
    double vt = 1e7 * d.eps_s;
    /* |γt| = μ·n0·|vt|/√(|vt|² + ε²) = μ·n0·(1 − 5e-15); the normal velocity does not matter,
     * even separating (γn = 0 there, friction still uses n0). */
    double vns[2] = {d.v_hat - 1e-3, d.v_hat + 1.0};
    for (int j = 0; j < 2; ++j) {
      double vc[3] = {vt * cos(th), vt * sin(th), vns[j]}, g[3];
      sap_contact_eval(&d, vc, g, NULL);
      cr_assert(fabs(hypot(g[0], g[1]) - p.mu * d.n0) <= 1e-13 * p.mu * d.n0 + 1e-300);
      cr_assert(g[0] * vc[0] + g[1] * vc[1] <= 0);
      if (j == 1) cr_assert(g[2] == 0);
    }
  }
}

Test(sap_contact, similar_friction_follows_normal_impulse) {
  test_rng r = {41};
  for (int i = 0; i < 300; ++i) {
    double dt, w[3];
    sapContactParams p = rand_params(&r, SAP_MODEL_SIMILAR, &dt, w);
    sapContactData d;
    make(&p, w, dt, &d);
    double th = test_rng_uniform(&r, 0, 6.283185307179586), vt = 1e7 * d.eps_s;
    double vc[3] = {vt * cos(th), vt * sin(th), 0}, g[3];
    double S = fmin(fmax(fabs(d.v_hat), 1e-3), 10);
    vc[2] = d.v_hat - 0.5 * S + d.mu * (sqrt(vt * vt + d.eps_s * d.eps_s) - d.eps_s);
    sap_contact_eval(&d, vc, g, NULL);
    /* At large slip |γt| = μ·n(z), n(z) = γn (relative 1e-13: soft norm 5e-15, rounding). */
    cr_assert(fabs(hypot(g[0], g[1]) - p.mu * g[2]) <= 1e-13 * p.mu * g[2] + 1e-300);
    /* Separating fast: everything vanishes. */
    vc[2] += S + 10;
    double G[9];
    double l = sap_contact_eval(&d, vc, g, G);
    cr_assert(g[0] == 0 && g[1] == 0 && g[2] == 0 && amax9(G) == 0);
    cr_assert(l == -sap_hc_antiderivative(&d, d.v_hat));
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
