/* Helpers shared by the SAP contact-constraint tests (tests/test_sap_contact*.c): log-uniform
 * draws, max-abs norms, random contact parameters and their constraint data, and the convex
 * model's y = R⁻¹(v̂ − vc) and velocities placed in one of its regions. Header-only (static
 * inline). */
#ifndef ISO_TESTS_SAP_CONTACT_SAMPLE_H
#define ISO_TESTS_SAP_CONTACT_SAMPLE_H

#include <math.h>

#include "kernels/sap/contact.h"
#include "support/support.h"

static inline double logu(test_rng *r, double lo, double hi) {
  return exp(test_rng_uniform(r, log(lo), log(hi)));
}

static inline double amax3(const double a[3]) {
  double m = fabs(a[0]);
  if (fabs(a[1]) > m) m = fabs(a[1]);
  if (fabs(a[2]) > m) m = fabs(a[2]);
  return m;
}

static inline double amax9(const double a[9]) {
  double m = 0;
  for (int i = 0; i < 9; ++i)
    if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

/* Random pair parameters for `model`, a random Delassus estimate and time step. Ranges cover
 * soft to stiff contacts (k 1e3..1e7 N/m), δt 1e-4..1e-2 s, previous-step penetration up to
 * 2 mm and a margin layer (fe0 < 0, φ0 > 0 speculative), and μ up to 1.2 (also 0). */
static inline sapContactParams rand_params(test_rng *r, int model, double *dt, double w[3]) {
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

static inline void make(const sapContactParams *p, const double w[3], double dt, sapContactData *d) {
  sap_contact_make_data(p, w, dt, d);
}

/* A normal velocity in one of the lagged Hunt–Crossley impulse's regions, by the data's own
 * scales: 0 beyond v̂ (n = 0), 1 compressing, 2 on the kink, else anywhere. */
static inline double hc_normal_velocity(test_rng *r, const sapContactData *d, int region) {
  const double S = fmin(fmax(fabs(d->v_hat), 1e-4), 10);
  switch (region) {
    case 0: return d->v_hat + test_rng_uniform(r, 0, 2) * S;
    case 1: return d->v_hat - test_rng_uniform(r, 0, 1) * S;
    case 2: return d->v_hat;
    default: return test_rng_uniform(r, -3, 3) * S;
  }
}

/* y = R⁻¹(v̂ − vc) of the convex model, recomputed here from the data's R. */
static inline void cone_y(const sapContactData *d, const double vc[3], double y[3]) {
  y[0] = -vc[0] / d->Rt;
  y[1] = -vc[1] / d->Rt;
  y[2] = (d->vn_hat - vc[2]) / d->Rn;
}

static inline double cone_yr(const double y[3]) { return sqrt(y[0] * y[0] + y[1] * y[1] + 1e-14); }

/* A contact velocity of the convex model in region `region`, from y placed in that region with
 * a relative margin of at least 5% from its boundaries. The velocity scale V (1e-3..1 m/s)
 * sets |Rt·y_t| and |Rn·y_n|. Also returns a feature length per axis for the difference
 * steps: γ is linear in stiction and zero without contact, and linear in vn within sliding, so
 * the only curvature is that of the friction direction in sliding, over the tangential speed
 * |vt| = Rt·|y_t| (≥ 0.1·V there); otherwise the length is the region's width, ~V. */
static inline void cone_sample(test_rng *r, const sapContactData *d, int region, double vc[3],
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

#endif
