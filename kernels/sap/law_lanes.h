/* The contact laws of the exact line search eight contacts at a time, in the lanes of AVX-512F,
 * on the CPU only: the lagged Hunt–Crossley law (kernels/sap/contact.h, sap_hc_eval, Drake's
 * default, which rigid and soft contacts take unless a file asks otherwise) and the convex
 * model's cone (sap_cone_eval).
 *
 * Why: the line search evaluates every contact's law six to eight times per Newton iteration
 * (f_tol 1e-8, Drake's), and each evaluation needs only a contact's three terms, ℓᵢ, dᵀγ and
 * dᵀG·d at vc + α·d. In pairs of lanes (kernels/sap/contact_pair.h) the law's selections, the
 * stores of γ and G and their reloads took a fifth of a soft grasp's step. Here eight laws run
 * in the lanes, their terms are formed there, and only the terms leave.
 *
 * Bits: each lane does the scalar law's operations in its order (as the pair forms do, whose
 * expressions these copy), the branches become selections of the value the scalar code returns,
 * the terms take sap_line_terms's order, and the build never fuses a product (-ffp-contract=off;
 * no fused form is asked for). The three totals then take the lanes' terms in constraint order,
 * as the scalar loop adds them (tests/test_sap_law_lanes.c). */
#ifndef ISO_KERNELS_SAP_LAW_LANES_H
#define ISO_KERNELS_SAP_LAW_LANES_H

#include "kernels/core.h"
#include "kernels/sap/batch.h"
#include "kernels/sap/contact.h"
#include "kernels/sap/contact_pair.h"

#if ISO_AVX2
#include <immintrin.h>

typedef double sapLane8 __attribute__((vector_size(64)));
typedef long long sapMask8 __attribute__((vector_size(64)));

_Static_assert(sizeof(sapCon) % sizeof(real) == 0 && sizeof(sapWorkCon) % sizeof(real) == 0,
               "the gathers below step through sapCon and sapWorkCon in reals");

/* The model of contacts i..i+7 of con[0..n) when all eight are contacts of one model with an
 * eight-lane law (SAP_MODEL_CONVEX or SAP_MODEL_LAGGED), else −1. */
static inline int sap_con_law_run8(const sapCon *con, int i, int n) {
  if (i + 8 > n || !sap_kind_contact_law(con[i].kind)) return -1;
  const int m = con[i].data.model;
  if (m != SAP_MODEL_CONVEX && m != SAP_MODEL_LAGGED) return -1;
  for (int l = 1; l < 8; ++l)
    if (!sap_kind_contact_law(con[i + l].kind) || con[i + l].data.model != m) return -1;
  return m;
}

/* Lane l: *(first + l·stride) (stride: a lane's step in reals). */
static inline ISO_AVX512_FN sapLane8 sap_lane8_gather(const real *first, __m512i stride) {
  return (sapLane8)_mm512_i64gather_pd(stride, first, 8);
}

static inline ISO_AVX512_FN sapLane8 sap_lane8_select(sapMask8 m, sapLane8 a, sapLane8 b) {
  return (sapLane8)(((sapMask8)a & m) | ((sapMask8)b & ~m));
}

/* Field f of the eight contacts' data, lane by lane. */
#define SAP_LANE8_OF(f) sap_lane8_gather(&c[0].data.f, ic)

/* γ, G (symmetric: G3 = G1, G6 = G2, G7 = G5) and ℓᵢ of eight laws, each lane's. */
typedef struct sapLaw8 {
  sapLane8 c0, c1, c2, G0, G1, G2, G4, G5, G8, cost;
} sapLaw8;

/* sap_cone_eval in the lanes at v (sap_cone_eval2's expressions). */
static inline ISO_AVX512_FN sapLaw8 sap_cone8(const sapCon *c, __m512i ic, const sapLane8 v[3]) {
  const sapLane8 zero = {0, 0, 0, 0, 0, 0, 0, 0}, one = zero + 1, half = zero + (real)0.5;
  const sapLane8 tol2 = zero + (real)SAP_CONE_SOFT_TOLERANCE * (real)SAP_CONE_SOFT_TOLERANCE;
  const sapLane8 mu = SAP_LANE8_OF(mu), mu_hat = SAP_LANE8_OF(mu_hat), f = SAP_LANE8_OF(factor);
  const sapLane8 Rt = SAP_LANE8_OF(Rt), Rn = SAP_LANE8_OF(Rn), Rt_inv = SAP_LANE8_OF(Rt_inv);
  const sapLane8 Rn_inv = SAP_LANE8_OF(Rn_inv), vn_hat = SAP_LANE8_OF(vn_hat);
  sapMask8 active;
  for (int l = 0; l < 8; ++l) active[l] = c[l].data.active ? -1LL : 0;
  const sapLane8 y0 = -v[0] * Rt_inv, y1 = -v[1] * Rt_inv, yn = (vn_hat - v[2]) * Rn_inv;
  const sapLane8 yr = (sapLane8)_mm512_sqrt_pd((__m512d)(y0 * y0 + y1 * y1 + tol2));
  const sapLane8 t0 = y0 / yr, t1 = y1 / yr;
  const sapMask8 stick = active & (yr <= mu * yn);
  const sapMask8 slide = active & (yn > -mu_hat * yr); /* stiction wins in the selections below */
  const sapLane8 gn = (yn + mu_hat * yr) * f;
  const sapLane8 gt0 = mu * gn * t0, gt1 = mu * gn * t1;
  const sapLane8 aa = mu * gn / yr, bb = mu * mu_hat * f;
  const sapLane8 p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
  const sapLane8 g02 = mu * f * t0 * Rn_inv, g12 = mu * f * t1 * Rn_inv;
  const sapLane8 S0 = (aa * (one - p00) + bb * p00) * Rt_inv, S1 = (-aa * p01 + bb * p01) * Rt_inv;
  const sapLane8 S4 = (aa * (one - p11) + bb * p11) * Rt_inv, S8 = f * Rn_inv;
  const sapLane8 cs = half * (Rt * (gt0 * gt0 + gt1 * gt1) + Rn * gn * gn);
  const sapLane8 cy = half * (Rt * (y0 * y0 + y1 * y1) + Rn * yn * yn);
#define SAP_CONE8_PICK(st, sl) sap_lane8_select(stick, (st), sap_lane8_select(slide, (sl), zero))
  const sapLaw8 L = {SAP_CONE8_PICK(y0, gt0),     SAP_CONE8_PICK(y1, gt1),   SAP_CONE8_PICK(yn, gn),
                     SAP_CONE8_PICK(Rt_inv, S0),  SAP_CONE8_PICK(zero, S1),  SAP_CONE8_PICK(zero, g02),
                     SAP_CONE8_PICK(Rt_inv, S4),  SAP_CONE8_PICK(zero, g12), SAP_CONE8_PICK(Rn_inv, S8),
                     SAP_CONE8_PICK(cy, cs)};
#undef SAP_CONE8_PICK
  return L;
}

/* sap_hc_eval of the lagged model in the lanes at v (sap_hc_lagged_eval2's expressions). */
static inline ISO_AVX512_FN sapLaw8 sap_lagged8(const sapCon *c, __m512i ic, const sapLane8 v[3]) {
  const sapLane8 zero = {0, 0, 0, 0, 0, 0, 0, 0}, one = zero + 1, half = zero + (real)0.5;
  const sapLane8 two_thirds = zero + (real)2 / (real)3;
  const sapLane8 mu = SAP_LANE8_OF(mu), eps = SAP_LANE8_OF(eps_s), n0 = SAP_LANE8_OF(n0);
  const sapLane8 dt = SAP_LANE8_OF(dt), k = SAP_LANE8_OF(k), d = SAP_LANE8_OF(d);
  const sapLane8 fe0 = SAP_LANE8_OF(fe0), v_hat = SAP_LANE8_OF(v_hat);
  const sapLane8 v0 = v[0], v1 = v[1], z = v[2];
  const sapLane8 vt2 = v0 * v0 + v1 * v1;
  const sapLane8 s = (sapLane8)_mm512_sqrt_pd((__m512d)(vt2 + eps * eps));
  const sapLane8 vt_soft = vt2 / (s + eps);
  const sapLane8 t0 = v0 / s, t1 = v1 / s;
  /* sap_hc_impulse and its derivative: 0 where the scalar function returns 0 */
  const sapLane8 xdot = -z;
  const sapLane8 fe = fe0 + dt * k * xdot;
  const sapLane8 damping = one + d * xdot;
  const sapMask8 off = (fe <= zero) | (damping <= zero);
  const sapLane8 n = sap_lane8_select(off, zero, dt * fe * damping);
  const sapLane8 np = sap_lane8_select(off, zero, -dt * (k * dt * damping + d * fe));
  /* sap_hc_antiderivative: N⁺(min(z, v̂)) */
  const sapLane8 vv = sap_lane8_select(v_hat < z, v_hat, z);
  const sapLane8 df = -dt * k * vv;
  const sapLane8 anti = dt * (vv * (fe0 + half * df) - d * vv * vv * half * (fe0 + two_thirds * df));
  const sapLane8 aa = mu * n0 / s, bb = zero; /* coefficients of P⊥ and P (0 for lagged) */
  const sapLane8 p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
  const sapLaw8 L = {-mu * n0 * t0, -mu * n0 * t1, n, aa * (one - p00) + bb * p00, -aa * p01 + bb * p01, zero,
                     aa * (one - p11) + bb * p11, zero, -np, -anti + mu * n0 * vt_soft};
  return L;
}
#undef SAP_LANE8_OF

/* sap_line_con for the eight contacts c[0..8) of model `model` (sap_con_law_run8) with their
 * workspace entries k[0..8) at α: each lane's ℓᵢ into *cost, −dᵀγ into *g1 and dᵀG·d into *g2,
 * in constraint order. */
static inline ISO_AVX512_FN void sap_line_law8(int model, const sapCon *c, const sapWorkCon *k, real alpha,
                                               real *cost, real *g1, real *g2) {
  const long long sc = (long long)(sizeof(sapCon) / sizeof(real)), sk = (long long)(sizeof(sapWorkCon) / sizeof(real));
  const __m512i ic = _mm512_set_epi64(7 * sc, 6 * sc, 5 * sc, 4 * sc, 3 * sc, 2 * sc, sc, 0);
  const __m512i ik = _mm512_set_epi64(7 * sk, 6 * sk, 5 * sk, 4 * sk, 3 * sk, 2 * sk, sk, 0);
  sapLane8 d[3], v[3];
  for (int r = 0; r < 3; ++r) {
    d[r] = sap_lane8_gather(&k[0].dvc[r], ik);
    v[r] = sap_lane8_gather(&k[0].vc[r], ik) + alpha * d[r];
  }
  const sapLaw8 L = model == SAP_MODEL_CONVEX ? sap_cone8(c, ic, v) : sap_lagged8(c, ic, v);
  /* sap_line_terms: dᵀγ, and dᵀ(G·d) row by row */
  const sapLane8 dg = d[0] * L.c0 + d[1] * L.c1 + d[2] * L.c2;
  const sapLane8 ga0 = L.G0 * d[0] + L.G1 * d[1] + L.G2 * d[2];
  const sapLane8 ga1 = L.G1 * d[0] + L.G4 * d[1] + L.G5 * d[2];
  const sapLane8 ga2 = L.G2 * d[0] + L.G5 * d[1] + L.G8 * d[2];
  sapLane8 h = {0, 0, 0, 0, 0, 0, 0, 0};
  h += d[0] * ga0;
  h += d[1] * ga1;
  h += d[2] * ga2;
  real s = *cost, a = *g1, b = *g2;
  for (int l = 0; l < 8; ++l) {
    a -= dg[l];
    b += h[l];
    s += L.cost[l];
  }
  *cost = s, *g1 = a, *g2 = b;
}
#endif

#endif
