/* SAP contact constraint (kernels/sap/contact.h), known values of the friction-cone
 * ("sap"/convex) model of drake_algorithms §5.3: stiction γ = y, sliding |γt| = μγn, no impulse
 * when separating fast; the MakeData values and the near-rigid clamp of Rn. Tolerances: a few
 * eps where the test repeats the kernel's operations, with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/sap/contact.h"
#include "support/sap_contact_sample.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16

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
