/* The Hunt–Crossley law of the lagged model (kernels/sap/contact.h, sap_hc_eval) and the convex
 * model's cone projection (sap_cone_eval) for two contacts at once, one in each of a pair of SIMD
 * lanes (isoPair, kernels/core.h), on the CPU only.
 *
 * Why: a law is one dependent chain (a square root, then two divisions, then the impulse), about
 * as long in latency as the rest of a contact's work in a Newton pass; evaluated one contact
 * after another, the chains wait on each other. Two in lanes run side by side. Each lane does
 * the scalar function's operations in its order (IEEE square root and division are exactly
 * rounded, and no product is fused: -ffp-contract=off), and the branches of the impulse and its
 * derivative become selections of the value the scalar code returns, so both contacts get the
 * scalar law's bits (tests/test_sap_contact_pair.c). GPU threads keep the scalar law. */
#ifndef ISO_KERNELS_SAP_CONTACT_PAIR_H
#define ISO_KERNELS_SAP_CONTACT_PAIR_H

#include "kernels/core.h"
#include "kernels/sap/contact.h"
#include "kernels/sap/problem.h"

#if ISO_PAIRS

/* m ? a : b, lane by lane (m: all ones or all zeros, as a comparison gives). */
static inline isoPair sap_pair_select(isoPairMask m, isoPair a, isoPair b) {
  return (isoPair)(((isoPairMask)a & m) | ((isoPairMask)b & ~m));
}

/* Field f of the two contacts' data as a pair. */
#define SAP_PAIR_OF(a, b, f) ((isoPair){(a)->f, (b)->f})

/* sap_hc_impulse and sap_hc_impulse_derivative of both lanes at z: the value where the scalar
 * function returns it, 0 where it returns 0. */
static inline void sap_pair_hc_impulse(isoPair dt, isoPair k, isoPair d, isoPair fe0, isoPair z, isoPair *n,
                                       isoPair *np) {
  const isoPair zero = {0, 0}, one = {1, 1};
  const isoPair xdot = -z;
  const isoPair fe = fe0 + dt * k * xdot;
  const isoPair damping = one + d * xdot;
  const isoPairMask off = (fe <= zero) | (damping <= zero);
  *n = sap_pair_select(off, zero, dt * fe * damping);
  *np = sap_pair_select(off, zero, -dt * (k * dt * damping + d * fe));
}

/* sap_hc_eval of the lagged model for contacts a and b (both SAP_MODEL_LAGGED) at their
 * constraint velocities va and vb: costs to *la, *lb; γ and G always written. */
static inline void sap_hc_lagged_eval2(const sapContactData *a, const sapContactData *b, const real va[3],
                                       const real vb[3], real ga[3], real gb[3], real Ga[9], real Gb[9], real *la,
                                       real *lb) {
  const isoPair zero = {0, 0}, one = {1, 1}, half = {(real)0.5, (real)0.5};
  const isoPair two_thirds = {(real)2 / (real)3, (real)2 / (real)3};
  const isoPair mu = SAP_PAIR_OF(a, b, mu), eps = SAP_PAIR_OF(a, b, eps_s), n0 = SAP_PAIR_OF(a, b, n0);
  const isoPair dt = SAP_PAIR_OF(a, b, dt), k = SAP_PAIR_OF(a, b, k), d = SAP_PAIR_OF(a, b, d);
  const isoPair fe0 = SAP_PAIR_OF(a, b, fe0), v_hat = SAP_PAIR_OF(a, b, v_hat);
  const isoPair v0 = {va[0], vb[0]}, v1 = {va[1], vb[1]}, z = {va[2], vb[2]};
  const isoPair vt2 = v0 * v0 + v1 * v1;
  const isoPair s = iso_pair_sqrt(vt2 + eps * eps);
  const isoPair vt_soft = vt2 / (s + eps);
  const isoPair t0 = v0 / s, t1 = v1 / s;
  isoPair n, np;
  sap_pair_hc_impulse(dt, k, d, fe0, z, &n, &np);
  /* sap_hc_antiderivative: N⁺(min(z, v̂)) */
  const isoPair vv = sap_pair_select(v_hat < z, v_hat, z);
  const isoPair df = -dt * k * vv;
  const isoPair anti = dt * (vv * (fe0 + half * df) - d * vv * vv * half * (fe0 + two_thirds * df));
  const isoPair cost = -anti + mu * n0 * vt_soft;
  const isoPair g0 = -mu * n0 * t0, g1 = -mu * n0 * t1;
  const isoPair aa = mu * n0 / s, bb = zero; /* coefficients of P⊥ and P (0 for lagged) */
  const isoPair p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
  const isoPair G0 = aa * (one - p00) + bb * p00, G1 = -aa * p01 + bb * p01, G4 = aa * (one - p11) + bb * p11;
  const isoPair G8 = -np;
  real *gam[2] = {ga, gb}, *G[2] = {Ga, Gb};
  for (int l = 0; l < 2; ++l) {
    gam[l][0] = g0[l], gam[l][1] = g1[l], gam[l][2] = n[l];
    G[l][0] = G0[l], G[l][1] = G1[l], G[l][2] = 0;
    G[l][3] = G1[l], G[l][4] = G4[l], G[l][5] = 0;
    G[l][6] = 0, G[l][7] = 0, G[l][8] = G8[l];
  }
  *la = cost[0];
  *lb = cost[1];
}

/* sap_cone_eval (the convex model, Drake's "sap", which deformable contact takes) for contacts a
 * and b (both SAP_MODEL_CONVEX) at va and vb: the three regions (stiction, sliding, none) and an
 * inactive contact become selections of what the scalar function returns in each; costs to *la,
 * *lb; γ and G always written. */
static inline void sap_cone_eval2(const sapContactData *a, const sapContactData *b, const real va[3], const real vb[3],
                                  real ga[3], real gb[3], real Ga[9], real Gb[9], real *la, real *lb) {
  const isoPair zero = {0, 0}, one = {1, 1}, half = {(real)0.5, (real)0.5};
  const isoPair tol2 = {(real)SAP_CONE_SOFT_TOLERANCE * (real)SAP_CONE_SOFT_TOLERANCE,
                        (real)SAP_CONE_SOFT_TOLERANCE * (real)SAP_CONE_SOFT_TOLERANCE};
  const isoPair mu = SAP_PAIR_OF(a, b, mu), mu_hat = SAP_PAIR_OF(a, b, mu_hat), f = SAP_PAIR_OF(a, b, factor);
  const isoPair Rt = SAP_PAIR_OF(a, b, Rt), Rn = SAP_PAIR_OF(a, b, Rn);
  const isoPair Rt_inv = SAP_PAIR_OF(a, b, Rt_inv), Rn_inv = SAP_PAIR_OF(a, b, Rn_inv);
  const isoPair vn_hat = SAP_PAIR_OF(a, b, vn_hat);
  const isoPair v0 = {va[0], vb[0]}, v1 = {va[1], vb[1]}, v2 = {va[2], vb[2]};
  const isoPair y0 = -v0 * Rt_inv, y1 = -v1 * Rt_inv, yn = (vn_hat - v2) * Rn_inv;
  const isoPair yr = iso_pair_sqrt(y0 * y0 + y1 * y1 + tol2);
  const isoPair t0 = y0 / yr, t1 = y1 / yr;
  const isoPairMask active = {a->active ? -1LL : 0, b->active ? -1LL : 0};
  const isoPairMask stick = active & (yr <= mu * yn);
  const isoPairMask slide = active & (yn > -mu_hat * yr); /* stiction wins in the selections below */
  /* sliding */
  const isoPair gn = (yn + mu_hat * yr) * f;
  const isoPair gt0 = mu * gn * t0, gt1 = mu * gn * t1;
  const isoPair aa = mu * gn / yr, bb = mu * mu_hat * f;
  const isoPair p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
  const isoPair g02 = mu * f * t0 * Rn_inv, g12 = mu * f * t1 * Rn_inv;
  const isoPair S0 = (aa * (one - p00) + bb * p00) * Rt_inv, S1 = (-aa * p01 + bb * p01) * Rt_inv;
  const isoPair S4 = (aa * (one - p11) + bb * p11) * Rt_inv, S8 = f * Rn_inv;
  const isoPair cs = half * (Rt * (gt0 * gt0 + gt1 * gt1) + Rn * gn * gn);
  /* stiction: γ = y, G = R⁻¹ */
  const isoPair cy = half * (Rt * (y0 * y0 + y1 * y1) + Rn * yn * yn);
#define SAP_CONE_PICK(st, sl) sap_pair_select(stick, (st), sap_pair_select(slide, (sl), zero))
  const isoPair c0 = SAP_CONE_PICK(y0, gt0), c1 = SAP_CONE_PICK(y1, gt1), c2 = SAP_CONE_PICK(yn, gn);
  const isoPair G0 = SAP_CONE_PICK(Rt_inv, S0), G1 = SAP_CONE_PICK(zero, S1), G2 = SAP_CONE_PICK(zero, g02);
  const isoPair G4 = SAP_CONE_PICK(Rt_inv, S4), G5 = SAP_CONE_PICK(zero, g12), G8 = SAP_CONE_PICK(Rn_inv, S8);
  const isoPair cost = SAP_CONE_PICK(cy, cs);
#undef SAP_CONE_PICK
  real *gam[2] = {ga, gb}, *G[2] = {Ga, Gb};
  for (int l = 0; l < 2; ++l) {
    gam[l][0] = c0[l], gam[l][1] = c1[l], gam[l][2] = c2[l];
    G[l][0] = G0[l], G[l][1] = G1[l], G[l][2] = G2[l];
    G[l][3] = G1[l], G[l][4] = G4[l], G[l][5] = G5[l];
    G[l][6] = G2[l], G[l][7] = G5[l], G[l][8] = G8[l];
  }
  *la = cost[0];
  *lb = cost[1];
}

/* Whether constraint kind k's law is a contact's (sapContactData: sap_con_law's default). */
static inline int sap_kind_contact_law(int k) {
  return k == SAP_CON_CONTACT || k == SAP_CON_DEF_CONTACT || k == SAP_CON_DEF_DD;
}

/* Constraints i and i + 1 of con[0..n) are contacts (rigid or deformable) whose laws have a
 * two-lane form: both lagged (sap_hc_lagged_eval2) or both convex (sap_cone_eval2). */
static inline int sap_con_law_pair(const sapCon *con, int i, int n) {
  if (!(i + 1 < n && sap_kind_contact_law(con[i].kind) && sap_kind_contact_law(con[i + 1].kind))) return 0;
  const int m = con[i].data.model;
  return m == con[i + 1].data.model && (m == SAP_MODEL_LAGGED || m == SAP_MODEL_CONVEX);
}

/* The laws of contacts c[0] and c[1] (sap_con_law_pair holds) at va and vb, side by side. */
static inline void sap_con_law2(const sapCon *c, const real va[3], const real vb[3], real ga[3], real gb[3], real Ga[9],
                                real Gb[9], real *la, real *lb) {
  if (c[0].data.model == SAP_MODEL_CONVEX) sap_cone_eval2(&c[0].data, &c[1].data, va, vb, ga, gb, Ga, Gb, la, lb);
  else sap_hc_lagged_eval2(&c[0].data, &c[1].data, va, vb, ga, gb, Ga, Gb, la, lb);
}
#endif

#endif
