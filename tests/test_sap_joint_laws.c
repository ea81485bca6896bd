/* SAP joint laws (kernels/sap/joint_laws.h): the generic holonomic row (drake_algorithms §5.5),
 * joint limits (§5.6), PD actuation with an effort limit (§5.7) and the coupler (§5.5).
 *
 * For every law, over random parameters and velocities placed around its bound switches:
 * γ = −∂ℓ/∂vc and G = −∂γ/∂vc by central differences; ℓ convex (midpoint inequality and the
 * supporting-line inequality on random pairs that straddle the switches); ℓ and γ continuous
 * across each switch; G ⪰ 0. Then the known values of each law.
 *
 * Tolerances. Every cost here is piecewise quadratic in vc and γ piecewise linear, so a central
 * difference whose stencil stays in one piece has no truncation error; what remains is rounding.
 * Evaluating f at vc ± h rounds f to eps·|f| and, through the differences v̂ − vc (or y0 − c·v)
 * formed first, moves the input by eps·sc (sc: the input scale of the sample below), hence f by
 * |f′|·eps·sc; the central difference divides both by 2h. The allowance is that bound times 64
 * for the handful of operations each evaluation chains. Steps are at most a quarter of the
 * distance to the nearest switch, so stencils never cross one. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/sap/joint_laws.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16
#define NSAMPLE 4000
#define BETA_FACTOR (0.01 / (4 * SAP_PI * SAP_PI)) /* β²/(4π²) for β = 0.1 */

enum { HOLO, LIMIT, PD, COUPLER, NLAW };
static const char *law_name[NLAW] = {"holonomic", "limit", "pd", "coupler"};

/* One constraint of any kind, its rows, and per row the switches in vc (≤ 2) and a scale. */
typedef struct {
  int kind, rows;
  sapHolonomicData holo;
  sapJointLawData d;
  int nk[2];
  double kink[2][2];
  double scale[2];
} law;

static double logu(test_rng *r, double lo, double hi) {
  return exp(test_rng_uniform(r, log(lo), log(hi)));
}

static double law_eval(const law *L, const double *vc, double *g, double *G) {
  switch (L->kind) {
  case HOLO: return sap_holonomic_eval(&L->holo, vc, g, G);
  case LIMIT: return sap_limit_eval(&L->d.limit, vc, g, G);
  case PD: return sap_pd_eval(&L->d.pd, vc, g, G);
  default: return sap_coupler_eval(&L->d.coupler, vc, g, G);
  }
}

/* Σ over rows of |vc| plus the magnitude of what vc is subtracted from (see the header). */
static double input_scale(const law *L, const double *vc) {
  switch (L->kind) {
  case HOLO: return fabs(vc[0]) + fabs(L->holo.vhat);
  case LIMIT: {
    double s = 0;
    for (int i = 0; i < L->rows; ++i) s += fabs(vc[i]) + fabs(L->d.limit.vhat[i]);
    return s;
  }
  case PD: return fabs(vc[0]) + fabs(L->d.pd.y0) / L->d.pd.c;
  default: return fabs(vc[0]) + fabs(L->d.coupler.vhat);
  }
}

/* Switches of a holonomic row in vc: y = lo and y = hi, i.e. vc = v̂ − R·lo, v̂ − R·hi. */
static void row_kinks(law *L, int i, double R, double vhat, double lo, double hi) {
  L->nk[i] = 0;
  if (isfinite(lo)) L->kink[i][L->nk[i]++] = vhat - R * lo;
  if (isfinite(hi)) L->kink[i][L->nk[i]++] = vhat - R * hi;
}

/* Random constraints. δt ∈ [1e-4, 1e-2] s, w ∈ [1e-3, 1e3] (1/kg), so R spans 2.5e-7..1e6. */
static law rand_law(test_rng *r, int kind) {
  law L;
  double dt = logu(r, 1e-4, 1e-2);
  L.kind = kind;
  L.rows = 1;
  if (kind == HOLO) {
    /* Bounds of every shape: two-sided around 0, one-sided, or both of one sign (lo > 0), so
     * that the switch constants of the cost are exercised at non-zero bounds. */
    sapHolonomicParams p;
    double u = test_rng_uniform(r, 0, 1), a = logu(r, 1e-3, 1e2), b = logu(r, 1e-3, 1e2);
    p.g = test_rng_uniform(r, -1e-2, 1e-2);
    p.b = test_rng_uniform(r, -0.1, 0.1);
    p.lo = u < 0.25 ? -a : (u < 0.5 ? -INFINITY : (u < 0.75 ? a : 0.0));
    p.hi = u < 0.5 ? b : (u < 0.75 ? a + b : INFINITY);
    p.k = test_rng_uniform(r, 0, 1) < 0.3 ? INFINITY : logu(r, 1e2, 1e10);
    p.tau = test_rng_uniform(r, 0, 0.05);
    p.beta = test_rng_uniform(r, 0, 1) < 0.5 ? SAP_JOINT_BETA : test_rng_uniform(r, 0.05, 1.0);
    sap_holonomic_make(&p, dt, logu(r, 1e-3, 1e3), &L.holo);
    row_kinks(&L, 0, L.holo.R, L.holo.vhat, L.holo.lo, L.holo.hi);
    double bmag = fmax(isfinite(p.lo) ? fabs(p.lo) : 0, isfinite(p.hi) ? fabs(p.hi) : 0);
    L.scale[0] = L.holo.R * (bmag > 0 ? bmag : a);
  } else if (kind == LIMIT) {
    /* Limits around q0 inside the window (the window rule is tested below), some already
     * crossed; a compliant k half of the time so that both branches of R are met. */
    sapLimitParams p = sap_limit_params_default(dt);
    double w[2] = {logu(r, 1e-3, 1e3), 0};
    for (;;) {
      p.q0 = test_rng_uniform(r, -1, 1);
      p.v0 = test_rng_uniform(r, -5, 5);
      p.vstar = test_rng_uniform(r, -5, 5);
      double dq = dt * fmax(fabs(p.v0), fabs(p.vstar));
      double ul = test_rng_uniform(r, 0, 1), uu = test_rng_uniform(r, 0, 1);
      p.lower = ul < 0.2 ? -INFINITY : p.q0 + test_rng_uniform(r, -2, 0.5) * dq;
      p.upper = uu < 0.2 ? INFINITY : p.q0 + test_rng_uniform(r, -0.5, 2) * dq;
      if (p.lower <= p.upper && sap_limit_rows(&p, dt) > 0) break;
    }
    w[1] = w[0];
    if (test_rng_uniform(r, 0, 1) < 0.5) p.stiffness = logu(r, 1e2, 1e8);
    if (test_rng_uniform(r, 0, 1) < 0.3) p.dissipation_time = test_rng_uniform(r, 0.5, 3) * dt;
    sap_limit_make(&p, dt, w, &L.d.limit);
    L.rows = L.d.limit.rows;
    for (int i = 0; i < L.rows; ++i) {
      row_kinks(&L, i, L.d.limit.R[i], L.d.limit.vhat[i], 0.0, INFINITY);
      L.scale[i] = L.d.limit.R[i] * logu(r, 1e-3, 1e3);
    }
  } else if (kind == PD) {
    sapPdParams p = sap_pd_params_default();
    double u = test_rng_uniform(r, 0, 1);
    p.kp = u < 0.1 ? 0.0 : logu(r, 1e-1, 1e6);
    p.kd = u > 0.9 ? 0.0 : logu(r, 1e-2, 1e4);
    p.q0 = test_rng_uniform(r, -1, 1);
    p.qd = test_rng_uniform(r, -1, 1);
    p.vd = test_rng_uniform(r, -2, 2);
    p.u0 = test_rng_uniform(r, -50, 50);
    p.effort_limit = test_rng_uniform(r, 0, 1) < 0.3 ? INFINITY : logu(r, 1e-1, 1e3);
    sap_pd_make(&p, dt, logu(r, 1e-3, 1e3), &L.d.pd);
    const sapPdData *d = &L.d.pd;
    if (isfinite(d->e)) {
      L.nk[0] = 2;
      L.kink[0][0] = (d->y0 - d->e) / d->c;
      L.kink[0][1] = (d->y0 + d->e) / d->c;
      L.scale[0] = d->e / d->c;
    } else {
      L.nk[0] = 0;
      L.kink[0][0] = d->y0 / d->c; /* y = 0: only a sampling centre */
      L.scale[0] = fmax(fabs(d->y0), 1.0) / d->c * logu(r, 1e-2, 1e2);
    }
  } else {
    sapCouplerParams p;
    p.qa = test_rng_uniform(r, -1, 1);
    p.qb = test_rng_uniform(r, -1, 1);
    p.ratio = test_rng_uniform(r, -3, 3);
    p.offset = test_rng_uniform(r, -0.1, 0.1);
    p.beta = SAP_JOINT_BETA;
    sap_coupler_make(&p, dt, logu(r, 1e-3, 1e3), &L.d.coupler);
    L.nk[0] = 0;
    L.kink[0][0] = L.d.coupler.vhat;
    L.scale[0] = L.d.coupler.R * logu(r, 1e-3, 1e3);
  }
  /* Not below 1e-4 of the velocities vc is compared with, so that a difference step of 1e-2
   * scale still resolves them (the input rounding eps·sc/h stays ~1e-8 of the slope). */
  for (int i = 0; i < L.rows; ++i) {
    double m = fabs(L.kink[i][0]);
    if (L.nk[i] == 2) m = fmax(m, fabs(L.kink[i][1]));
    if (kind == PD) m += fabs(L.d.pd.y0) / L.d.pd.c;
    L.scale[i] = fmax(L.scale[i], 1e-4 * m);
  }
  return L;
}

/* A velocity near one switch of each row: a switch ± up to 3 scales. */
static void rand_vc(test_rng *r, const law *L, double *vc) {
  for (int i = 0; i < L->rows; ++i) {
    double c = L->nk[i] ? L->kink[i][(int)test_rng_uniform(r, 0, L->nk[i])] : L->kink[i][0];
    vc[i] = c + L->scale[i] * test_rng_uniform(r, -3, 3);
  }
}

static double dist_to_kink(const law *L, int i, double v) {
  double m = INFINITY;
  for (int k = 0; k < L->nk[i]; ++k) m = fmin(m, fabs(v - L->kink[i][k]));
  return m;
}

static double amax(const double *a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

/* ---- γ = −∇ℓ, G = −∂γ/∂vc, G ⪰ 0 ------------------------------------------------------- */

static void check_derivatives(int kind) {
  test_rng r = {1000 + (uint64_t)kind};
  int tested = 0, strong = 0;
  for (int s = 0; s < NSAMPLE; ++s) {
    law L = rand_law(&r, kind);
    int n = L.rows, ok = 1, sharp = 1;
    double vc[2], h[2], g[2], G[4];
    rand_vc(&r, &L, vc);
    for (int i = 0; i < n; ++i) {
      double dk = dist_to_kink(&L, i, vc[i]);
      h[i] = fmin(1e-2 * L.scale[i], 0.25 * dk);
      if (!(h[i] > 1e-6 * L.scale[i])) ok = 0; /* too close to a switch for a clean stencil */
    }
    if (!ok) continue;
    ++tested;
    double l = law_eval(&L, vc, g, G);
    cr_assert(isfinite(l));
    double sc = input_scale(&L, vc), gs = amax(g, n), Gs = amax(G, n * n);
    for (int j = 0; j < n; ++j) {
      double vp[2] = {vc[0], vc[1]}, vm[2] = {vc[0], vc[1]}, gp[2], gm[2], Gp[4], Gm[4];
      vp[j] += h[j];
      vm[j] -= h[j];
      double lp = law_eval(&L, vp, gp, Gp), lm = law_eval(&L, vm, gm, Gm);
      double h2 = vp[j] - vm[j]; /* the step actually taken (exact by Sterbenz) */
      double gfd = -(lp - lm) / h2;
      double tol = 64 * EPS * (fabs(lp) + fabs(lm) + 2 * fmax(amax(gp, n), amax(gm, n)) * sc) / h2;
      if (tol > 1e-6 * (gs + Gs * L.scale[j])) sharp = 0;
      cr_assert(fabs(gfd - g[j]) <= tol, "%s sample %d: gamma[%d] %.17g vs fd %.17g (tol %.3g)",
                law_name[kind], s, j, g[j], gfd, tol);
      for (int i = 0; i < n; ++i) {
        double Gfd = -(gp[i] - gm[i]) / h2;
        double Gpm = fmax(amax(Gp, n * n), amax(Gm, n * n));
        double tG = 64 * EPS * (fabs(gp[i]) + fabs(gm[i]) + 2 * Gpm * sc) / h2;
        if (tG > 1e-6 * (Gs + gs / L.scale[j])) sharp = 0;
        cr_assert(fabs(Gfd - G[i * n + j]) <= tG, "%s sample %d: G[%d,%d] %.17g vs fd %.17g",
                  law_name[kind], s, i, j, G[i * n + j], Gfd);
      }
    }
    /* G ⪰ 0: every law is separable per row, so G is diagonal with entries ≥ 0. */
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        cr_assert(i == j ? G[i * n + j] >= 0 : G[i * n + j] == 0, "%s: G[%d,%d] = %g",
                  law_name[kind], i, j, G[i * n + j]);
    strong += sharp;
  }
  /* Most samples must be sharp checks: every allowance ≤ 1e-6 of the impulse scale
   * |γ| + G·scale (for γ), or of G + |γ|/scale (for G). */
  cr_assert(tested > NSAMPLE / 2, "%s: only %d samples tested", law_name[kind], tested);
  cr_assert(strong > 9 * tested / 10, "%s: only %d of %d samples sharp", law_name[kind], strong,
            tested);
}

Test(sap_joint_laws, derivatives_holonomic) { check_derivatives(HOLO); }
Test(sap_joint_laws, derivatives_limit) { check_derivatives(LIMIT); }
Test(sap_joint_laws, derivatives_pd) { check_derivatives(PD); }
Test(sap_joint_laws, derivatives_coupler) { check_derivatives(COUPLER); }

/* ---- convexity and continuity ----------------------------------------------------------- */

/* Midpoint: ℓ(m) ≤ ½(ℓ(a) + ℓ(b)); supporting line: ℓ(b) ≥ ℓ(a) − γ(a)·(b − a). Both hold
 * exactly for a convex C¹ ℓ; the allowance is 64 eps of the values involved plus the input
 * rounding |γ|·eps·sc of each evaluation. Continuity: across each switch vk, ℓ and γ at
 * vk ± δ (δ = 1e-9 scale) differ by at most max|γ|·2δ and max G·2δ, plus rounding; a
 * missing switch constant (Drake's form of the holonomic cost at a bound ≠ 0) would show a
 * jump of ~R·bound², far above that. */
static void check_convex_continuous(int kind) {
  test_rng r = {2000 + (uint64_t)kind};
  for (int s = 0; s < NSAMPLE; ++s) {
    law L = rand_law(&r, kind);
    int n = L.rows;
    double a[2], b[2], m[2], ga[2], gb[2], gm[2];
    rand_vc(&r, &L, a);
    rand_vc(&r, &L, b);
    for (int i = 0; i < n; ++i) m[i] = 0.5 * (a[i] + b[i]);
    double la = law_eval(&L, a, ga, NULL), lb = law_eval(&L, b, gb, NULL);
    double lm = law_eval(&L, m, gm, NULL);
    double gs = fmax(amax(ga, n), fmax(amax(gb, n), amax(gm, n)));
    double sc = fmax(input_scale(&L, a), input_scale(&L, b));
    double tol = 64 * EPS * (fabs(la) + fabs(lb) + fabs(lm) + gs * sc);
    cr_assert(lm <= 0.5 * (la + lb) + tol, "%s sample %d: midpoint %.17g > %.17g", law_name[kind],
              s, lm, 0.5 * (la + lb));
    double lin = la;
    for (int i = 0; i < n; ++i) lin -= ga[i] * (b[i] - a[i]);
    /* γ(a)·(b − a) adds its own rounding, ≤ eps·gs·(|a| + |b|) ≤ 2·eps·gs·sc per row. */
    cr_assert(lb >= lin - tol - 128 * EPS * gs * sc, "%s sample %d: below its tangent",
              law_name[kind], s);

    for (int i = 0; i < n; ++i)
      for (int k = 0; k < L.nk[i]; ++k) {
        double vl[2] = {a[0], a[1]}, vr[2] = {a[0], a[1]}, gl[2], gr[2], Gl[4], Gr[4];
        double dlt = 1e-9 * L.scale[i];
        vl[i] = L.kink[i][k] - dlt;
        vr[i] = L.kink[i][k] + dlt;
        double ll = law_eval(&L, vl, gl, Gl), lr = law_eval(&L, vr, gr, Gr);
        double gsw = fmax(amax(gl, n), amax(gr, n)), Gmax = fmax(amax(Gl, n * n), amax(Gr, n * n));
        double sw = vr[i] - vl[i], scw = input_scale(&L, vr);
        /* γ is monotone along the row, so |γ| ≤ gsw on the segment and |Δℓ| ≤ gsw·sw. */
        cr_assert(fabs(ll - lr) <= gsw * sw + 64 * EPS * (fabs(ll) + fabs(lr) + gsw * scw),
                  "%s sample %d: cost jumps %.17g -> %.17g at switch %d", law_name[kind], s, ll,
                  lr, k);
        cr_assert(fabs(gl[i] - gr[i]) <= Gmax * sw + 64 * EPS * (gsw + Gmax * scw),
                  "%s sample %d: impulse jumps %.17g -> %.17g", law_name[kind], s, gl[i], gr[i]);
      }
  }
}

Test(sap_joint_laws, convex_continuous_holonomic) { check_convex_continuous(HOLO); }
Test(sap_joint_laws, convex_continuous_limit) { check_convex_continuous(LIMIT); }
Test(sap_joint_laws, convex_continuous_pd) { check_convex_continuous(PD); }
Test(sap_joint_laws, convex_continuous_coupler) { check_convex_continuous(COUPLER); }

/* ---- generic holonomic row -------------------------------------------------------------- */

/* MakeData of §5.5: R = max(R_c, R_nr), τ := δt only when near-rigid, v̂ = −g/(δt + τ) − b. */
Test(sap_joint_laws, holonomic_make) {
  sapHolonomicParams p = {2e-3, 0.01, -1.0, 2.0, 1e4, 0.05, SAP_JOINT_BETA};
  sapHolonomicData d;
  double dt = 1e-2, w = 1.0;
  /* compliant: R_c = 1/(1e-2·0.06·1e4) = 1/6 > R_nr = 2.53e-4, τ kept */
  sap_holonomic_make(&p, dt, w, &d);
  cr_assert(fabs(d.R - 1.0 / 6.0) <= 4 * EPS * d.R);
  cr_assert(fabs(d.vhat - (-2e-3 / 0.06 - 0.01)) <= 4 * EPS * 0.05);
  cr_assert(d.lo == -1.0 && d.hi == 2.0);
  /* near-rigid: k = 1e12 gives R_c = 1.7e-9 < R_nr: R = R_nr and τ := δt */
  p.k = 1e12;
  sap_holonomic_make(&p, dt, w, &d);
  cr_assert(fabs(d.R - BETA_FACTOR * w) <= 4 * EPS * d.R);
  cr_assert(fabs(d.vhat - (-2e-3 / 0.02 - 0.01)) <= 4 * EPS * 0.11);
  /* Between the bounds γ = y, G = 1/R, ℓ = ½Ry²; beyond, γ is the bound, G = 0, and the cost
   * is the tangent line continued from the switch, γ_u·d − ½Rγ_u² (see the header). */
  double vc = d.vhat - 0.5 * d.R, g, G; /* y = 0.5 up to the rounding of the subtraction */
  double l = sap_holonomic_eval(&d, &vc, &g, &G);
  cr_assert(fabs(g - 0.5) <= 1e-12 && G == 1 / d.R && fabs(l - 0.5 * d.R * g * g) <= 4 * EPS * l);
  vc = d.vhat - 3 * d.R; /* y = 3 > γ_u = 2 */
  l = sap_holonomic_eval(&d, &vc, &g, &G);
  cr_assert(g == 2.0 && G == 0);
  cr_assert(fabs(l - (2.0 * 3 * d.R - 0.5 * d.R * 4)) <= 1e-12 * l);
}

/* ---- joint limit ------------------------------------------------------------------------ */

/* δq = δt·max(|v0|, |v*|) = 1e-3·max(1, 0.5) = 1e-3, window [q0 − 2e-3, q0 + 2e-3] (q0 = 0 so
 * the edges are exactly ±2e-3). */
Test(sap_joint_laws, limit_window_rule) {
  double dt = 1e-3;
  sapLimitParams p = sap_limit_params_default(dt);
  cr_assert(p.stiffness == 1e12 && p.dissipation_time == dt && p.beta == 0.1);
  p.v0 = 1.0;
  p.vstar = -0.5;
  cr_assert_eq(sap_limit_rows(&p, dt), 0); /* no limits */
  p.lower = -2.5e-3;
  p.upper = 2.5e-3;
  cr_assert_eq(sap_limit_rows(&p, dt), 0); /* both outside */
  p.lower = -1.5e-3;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);
  p.upper = 2e-3; /* on the edge: kept */
  cr_assert_eq(sap_limit_rows(&p, dt), 2);
  p.vstar = -3.0; /* v* widens the window to ±6e-3 */
  p.lower = -5e-3;
  p.upper = 7e-3;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);

  /* Only the upper limit: one row with sign −1 and g = upper − q0. */
  double w[2] = {2.0, 2.0};
  sapLimitData d;
  p.lower = -INFINITY;
  p.upper = 5e-3;
  sap_limit_make(&p, dt, w, &d);
  cr_assert(d.rows == 1 && d.sign[0] == -1);
  cr_assert(fabs(d.vhat[0] - (-5e-3 / (2 * dt))) <= 4 * EPS * 2.5);
  /* Both: lower row first. */
  p.lower = -1e-3;
  sap_limit_make(&p, dt, w, &d);
  cr_assert(d.rows == 2 && d.sign[0] == 1 && d.sign[1] == -1);
  cr_assert(fabs(d.vhat[0] - (-1e-3 / (2 * dt))) <= 4 * EPS * 0.5);
  /* At rest (v0 = v* = 0) the window is the point q0: a limit exactly at q0 is kept. */
  p.v0 = p.vstar = 0;
  p.lower = 0;
  p.upper = 1e-9;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);
  p.upper = INFINITY;
  sap_limit_make(&p, dt, w, &d);
  cr_assert(d.rows == 1 && d.sign[0] == 1 && d.vhat[0] == 0);
  /* A crossed limit (lower > q0) lies above q0 − 2δq, so the window always keeps it. */
  p.lower = 1e-2;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);
}

/* A hand-made compliant case: q0 = 0.1 crosses the lower limit 0.1001 by 1e-4, δt = τ_d = 1e-2,
 * k = 1e4, w = 1: R_c = 1/(1e-2·1e4·2e-2) = 0.5 > R_nr = 2.5e-4, so R = 0.5;
 * v̂ = 1e-4/2e-2 = 5e-3. At v = −0.01: y = (5e-3 + 0.01)/0.5 = 0.03, ℓ = ½·0.5·0.03² = 2.25e-4. */
Test(sap_joint_laws, limit_known_values) {
  double dt = 1e-2, w[2] = {1.0, 1.0};
  sapLimitParams p = sap_limit_params_default(dt);
  p.q0 = 0.1;
  p.lower = 0.1001;
  p.stiffness = 1e4;
  sapLimitData d;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);
  sap_limit_make(&p, dt, w, &d);
  /* g = q0 − lower carries the rounding of q0 and lower, ~eps·0.1 = 2e-17 on 1e-4: 1e-12. */
  cr_assert(fabs(d.R[0] - 0.5) <= 4 * EPS);
  cr_assert(fabs(d.vhat[0] - 5e-3) <= 1e-12 * 5e-3);
  double vc = -0.01, g, G;
  double l = sap_limit_eval(&d, &vc, &g, &G);
  cr_assert(fabs(g - 0.03) <= 1e-12 * 0.03, "y %.17g", g);
  cr_assert(fabs(G - 2.0) <= 4 * EPS * 2);
  cr_assert(fabs(l - 2.25e-4) <= 1e-12 * 2.25e-4);
}

/* A joint at rest exactly on its lower limit, pushed into it by gravity (v* = −g·δt < 0):
 * the window keeps the row, v̂ = 0, R = R_nr (k = 1e12 is near-rigid), and at vc = v* the
 * impulse is y = −v* / R > 0. The 1-DoF problem min ½A(v − v*)² + ℓ(v) with A = 1/w then has the
 * closed-form solution v = v* / (1 + 1/(A·R)) = v* / (1 + 4π²/β²): the limit stops the joint to
 * 2.5e-4 of its free-motion speed, and the balance A(v − v*) = γ(v) ≥ 0 holds. Moving away
 * from the limit (vc > v̂) gives no impulse, no cost and G = 0. */
Test(sap_joint_laws, limit_at_rest_under_push) {
  double dt = 1e-3, A = 2.0, w[2] = {1 / A, 1 / A};
  sapLimitParams p = sap_limit_params_default(dt);
  p.q0 = p.lower = 0.3;
  p.vstar = -9.81 * dt;
  sapLimitData d;
  cr_assert_eq(sap_limit_rows(&p, dt), 1);
  sap_limit_make(&p, dt, w, &d);
  cr_assert(d.vhat[0] == 0 && d.sign[0] == 1);
  cr_assert(fabs(d.R[0] - BETA_FACTOR / A) <= 4 * EPS * d.R[0]);
  double vc = p.vstar, g, G;
  sap_limit_eval(&d, &vc, &g, &G);
  cr_assert(g > 0 && g == -p.vstar / d.R[0] && G == 1 / d.R[0]);
  double v = p.vstar / (1 + 1 / (A * d.R[0]));
  sap_limit_eval(&d, &v, &g, NULL);
  cr_assert(g >= 0 && fabs(A * (v - p.vstar) - g) <= 8 * EPS * g);
  cr_assert(fabs(v / p.vstar - 1 / (1 + 4 * SAP_PI * SAP_PI / 0.01)) <= 1e-12);
  /* Away from the limit: γ = 0, ℓ = 0, G = 0, for both rows of a two-sided limit. */
  p.upper = 0.3 + 1e-3;
  p.v0 = 1.0;
  sap_limit_make(&p, dt, w, &d);
  cr_assert_eq(d.rows, 2);
  double vv[2] = {0.5, -0.5}, gg[2], GG[4]; /* v = 0.5 leaves the lower limit */
  double l = sap_limit_eval(&d, vv, gg, GG);
  cr_assert(gg[0] == 0 && GG[0] == 0 && GG[1] == 0 && GG[2] == 0);
  /* the upper row (vc = −0.5, v̂ = −0.5) sits on its switch: γ = max(0, y) with y ≈ 0 */
  cr_assert(gg[1] >= 0 && gg[1] <= 1e-12 / d.R[1] && l >= 0);
  vv[0] = 2.0;
  vv[1] = -2.0; /* too fast towards the upper limit: only that row pushes */
  l = sap_limit_eval(&d, vv, gg, GG);
  cr_assert(gg[0] == 0 && gg[1] > 0 && GG[0] == 0 && GG[3] == 1 / d.R[1]);
  cr_assert(fabs(l - 0.5 * d.R[1] * gg[1] * gg[1]) <= 4 * EPS * l);
  vv[0] = -2.0;
  vv[1] = 2.0; /* away from the upper limit, into the lower one */
  l = sap_limit_eval(&d, vv, gg, GG);
  cr_assert(gg[1] == 0 && GG[3] == 0 && gg[0] > 0);
}

/* ---- PD controller ---------------------------------------------------------------------- */

/* Without an effort limit and outside the near-rigid regime (w chosen so R_nr ≤ R), γ is
 * δt·(−Kp(q0 + δt·v − qd) − Kd(v − vd) + u0). The kernel forms the same sum as y0 − c·v with
 * y0 = −Kp(q0 − qd) + Kd·vd + u0 and c = δt·Kp + Kd; either order rounds each of its ≤ 6
 * products and sums to at most eps of the sum of the magnitudes T, so they agree to 8·eps·δt·T. */
Test(sap_joint_laws, pd_exact_without_limit) {
  test_rng r = {31};
  for (int s = 0; s < 2000; ++s) {
    double dt = logu(&r, 1e-4, 1e-2);
    sapPdParams p = sap_pd_params_default();
    p.kp = s % 10 == 0 ? 0.0 : logu(&r, 1e-1, 1e6);
    p.kd = s % 10 == 5 ? 0.0 : logu(&r, 1e-2, 1e4);
    p.q0 = test_rng_uniform(&r, -1, 1);
    p.qd = test_rng_uniform(&r, -1, 1);
    p.vd = test_rng_uniform(&r, -2, 2);
    p.u0 = test_rng_uniform(&r, -50, 50);
    double R = 1 / (dt * (dt * p.kp + p.kd));
    double w = test_rng_uniform(&r, 0.01, 1) * R / BETA_FACTOR, kp, kd;
    sap_pd_effective_gains(&p, dt, w, &kp, &kd);
    cr_assert(kp == p.kp && kd == p.kd); /* not near-rigid: the user's gains */
    sapPdData d;
    sap_pd_make(&p, dt, w, &d);
    double v = test_rng_uniform(&r, -10, 10), g, G;
    sap_pd_eval(&d, &v, &g, &G);
    double ref = dt * (-p.kp * (p.q0 + dt * v - p.qd) - p.kd * (v - p.vd) + p.u0);
    double T = p.kp * (fabs(p.q0) + fabs(p.qd) + dt * fabs(v)) + p.kd * (fabs(v) + fabs(p.vd)) +
               fabs(p.u0);
    cr_assert(fabs(g - ref) <= 8 * EPS * dt * T, "sample %d: %.17g vs %.17g", s, g, ref);
    cr_assert(fabs(G - dt * (dt * p.kp + p.kd)) <= 4 * EPS * G);
  }
}

/* With an effort limit: |γ| ≤ δt·e (exactly: the clamp returns ±e), G = 0 when saturated and
 * δt·c inside; the saturated cost is δt·(e|y| − ½e²)/c; continuity at |y| = e is part of the
 * random checks above. */
Test(sap_joint_laws, pd_effort_limit) {
  test_rng r = {32};
  int saturated = 0;
  for (int s = 0; s < 2000; ++s) {
    double dt = logu(&r, 1e-4, 1e-2);
    sapPdParams p = sap_pd_params_default();
    p.kp = logu(&r, 1e-1, 1e6);
    p.kd = logu(&r, 1e-2, 1e4);
    p.q0 = test_rng_uniform(&r, -1, 1);
    p.qd = test_rng_uniform(&r, -1, 1);
    p.u0 = test_rng_uniform(&r, -50, 50);
    p.effort_limit = logu(&r, 1e-1, 1e3);
    sapPdData d;
    sap_pd_make(&p, dt, logu(&r, 1e-3, 1e3), &d);
    double v = (d.y0 + test_rng_uniform(&r, -3, 3) * d.e) / d.c, g, G;
    double l = sap_pd_eval(&d, &v, &g, &G);
    double y = d.y0 - d.c * v;
    cr_assert(fabs(g) <= dt * p.effort_limit);
    if (fabs(y) > d.e) {
      ++saturated;
      cr_assert(G == 0 && fabs(g) == dt * d.e && (g > 0) == (y > 0));
      double lref = dt * (d.e * fabs(y) - 0.5 * d.e * d.e) / d.c;
      cr_assert(fabs(l - lref) <= 8 * EPS * lref);
    } else {
      cr_assert(G == dt * d.c && g == dt * y);
    }
  }
  cr_assert(saturated > 500);
}

/* Near-rigid gains (§5.7): when R = 1/(δt(δt·Kp + Kd)) < R_nr the gains are scaled by one
 * factor so that R = R_nr: the ratio Kd/Kp is kept (4 eps: one product each side), the
 * effective R is R_nr and G = δt·c = 1/R_nr (a few roundings: 16 eps). Both branches (δt·Kp > Kd
 * through Kp, else through Kd) and the pure-P and pure-D controllers. δt = 1e-3, w = 10:
 * R_nr = 2.5e-3, and every case below has R ≈ 1e-4. */
Test(sap_joint_laws, pd_near_rigid_gains) {
  const double gains[4][2] = {{1e10, 1e6}, {1e8, 1e7}, {1e10, 0}, {0, 1e7}};
  double dt = 1e-3, w = 10, Rnr = BETA_FACTOR * w;
  for (int c = 0; c < 4; ++c) {
    sapPdParams p = sap_pd_params_default();
    p.kp = gains[c][0];
    p.kd = gains[c][1];
    double kp, kd;
    sap_pd_effective_gains(&p, dt, w, &kp, &kd);
    cr_assert(1 / (dt * (dt * p.kp + p.kd)) < Rnr);
    cr_assert(kp <= p.kp && kd <= p.kd && (kp > 0 || kd > 0));
    cr_assert((p.kp == 0) == (kp == 0) && (p.kd == 0) == (kd == 0));
    cr_assert(fabs(kd * p.kp - kp * p.kd) <= 4 * EPS * kd * p.kp, "case %d", c);
    double Reff = 1 / (dt * (dt * kp + kd));
    cr_assert(fabs(Reff - Rnr) <= 16 * EPS * Rnr, "case %d: R %.17g vs %.17g", c, Reff, Rnr);
    sapPdData d;
    p.qd = 0.01;
    sap_pd_make(&p, dt, w, &d);
    double v = 0, g, G;
    sap_pd_eval(&d, &v, &g, &G);
    cr_assert(fabs(G - 1 / Rnr) <= 16 * EPS * G);
  }
}

/* Choice for no gains (outside Drake's domain): the feed-forward effort, clamped, as a constant
 * impulse with a linear cost. */
Test(sap_joint_laws, pd_without_gains) {
  sapPdParams p = sap_pd_params_default();
  p.u0 = 7.0;
  p.effort_limit = 5.0;
  sapPdData d;
  sap_pd_make(&p, 1e-3, 1.0, &d);
  double v = 0.3, g, G;
  double l = sap_pd_eval(&d, &v, &g, &G);
  cr_assert(g == 1e-3 * 5.0 && G == 0 && l == -1e-3 * 5.0 * 0.3);
}

/* ---- coupler ---------------------------------------------------------------------------- */

/* Always near-rigid (k = ∞ gives R_c = 0): R = β²/(4π²)·w, τ := δt so v̂ = −g/(2δt) with
 * g = q_a − ρ·q_b − Δq (same operations: bitwise), γ = (v̂ − vc)/R with no bound. */
Test(sap_joint_laws, coupler_values) {
  test_rng r = {41};
  for (int s = 0; s < 500; ++s) {
    double dt = logu(&r, 1e-4, 1e-2), w = logu(&r, 1e-3, 1e3);
    sapCouplerParams p;
    p.qa = test_rng_uniform(&r, -1, 1);
    p.qb = test_rng_uniform(&r, -1, 1);
    p.ratio = test_rng_uniform(&r, -3, 3);
    p.offset = test_rng_uniform(&r, -0.1, 0.1);
    p.beta = s % 2 ? SAP_JOINT_BETA : test_rng_uniform(&r, 0.05, 1);
    sapCouplerData d;
    sap_coupler_make(&p, dt, w, &d);
    double bf = p.beta * p.beta / (4 * SAP_PI * SAP_PI);
    cr_assert(fabs(d.R - bf * w) <= 4 * EPS * d.R);
    double gq = p.qa - p.ratio * p.qb - p.offset;
    cr_assert(d.vhat == -gq / (2 * dt));
    double vc = d.vhat + test_rng_uniform(&r, -1e3, 1e3) * d.R, g, G;
    double l = sap_coupler_eval(&d, &vc, &g, &G);
    cr_assert(g == (d.vhat - vc) / d.R && G == 1 / d.R);
    cr_assert(fabs(l - 0.5 * d.R * g * g) <= 4 * EPS * l);
    vc = d.vhat + 1e12 * d.R * (s % 2 ? 1 : -1); /* far out: still γ = y, G = 1/R */
    sap_coupler_eval(&d, &vc, &g, &G);
    /* vc and v̂ − vc round to eps of |vc| ≤ |v̂| + 1e12·R: 4 eps of that over R */
    cr_assert(fabs(fabs(g) - 1e12) <= 4 * EPS * (1e12 + fabs(d.vhat) / d.R) && G == 1 / d.R);
  }
}

/* The solver stores one sapJointLawData per joint constraint: keep the three small. */
Test(sap_joint_laws, data_sizes) {
  cr_assert(sizeof(sapLimitData) <= 48 && sizeof(sapPdData) <= 48 &&
            sizeof(sapCouplerData) <= 48 && sizeof(sapJointLawData) <= 48);
}
