/* SAP contact constraint (kernels/sap/contact.h), known values of the Hunt–Crossley "lagged"
 * and "similar" models of drake_algorithms §5.4: the impulse n(v), N′ = n and n′ by central
 * differences, n = 0 beyond v̂, the MakeData values n0 and ε_s, the lagged friction μ·n0 and the
 * similar model's friction following the normal impulse. Tolerances are stated next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/sap/contact.h"
#include "support/sap_contact_sample.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16

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
