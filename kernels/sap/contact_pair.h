/* The Hunt–Crossley law of the lagged model (kernels/sap/contact.h, sap_hc_eval) for two contacts
 * at once, one in each of a pair of SIMD lanes (isoPair, kernels/core.h), on the CPU only.
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
typedef long long isoPairMask __attribute__((vector_size(16)));

/* m ? a : b, lane by lane (m: all ones or all zeros, as a comparison gives). */
static inline isoPair sap_pair_select(isoPairMask m, isoPair a, isoPair b) {
  return (isoPair)(((isoPairMask)a & m) | ((isoPairMask)b & ~m));
}

static inline isoPair sap_pair_sqrt(isoPair x) {
  const isoPair r = {sqrt(x[0]), sqrt(x[1])}; /* the compiler makes one sqrtpd of it */
  return r;
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
  const isoPair s = sap_pair_sqrt(vt2 + eps * eps);
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

/* Contacts i and i + 1 of con[0..n) both take the lagged law (sap_hc_lagged_eval2 applies). */
static inline int sap_con_lagged_pair(const sapCon *con, int i, int n) {
  return i + 1 < n && con[i].kind == SAP_CON_CONTACT && con[i + 1].kind == SAP_CON_CONTACT &&
         con[i].data.model == SAP_MODEL_LAGGED && con[i + 1].data.model == SAP_MODEL_LAGGED;
}
#endif

#endif
