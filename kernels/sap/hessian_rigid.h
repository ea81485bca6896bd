/* The Newton Hessian's terms JᵀGJ of contacts between free bodies, summed per pair of cliques
 * before they are added to H (kernels/sap/solve.h, the Hessian assembly of a Newton iteration).
 *
 * A free body's block of a contact is J_q = s_q·Rᵀ[−[r_q]× | I] (kernels/rigid/free_body.h: R the
 * contact frame, r_q the contact point from clique q's origin, s_0 = −1, s_1 = +1), so with
 * Γ = R·G·Rᵀ (the law's Hessian in the world frame) block (p, q) of JᵀGJ is
 *
 *     s_p·s_q · [ −[r_p]×·Γ·[r_q]×   [r_p]×·Γ ]        rows [ω_p; v_p], columns [ω_q, v_q],
 *               [ −Γ·[r_q]×          Γ        ]
 *
 * and [r_p]×·Γ = −(Γ·[r_p]×)ᵀ since Γ is symmetric. Every entry is one of ΣΓ, ΣΓ·[r_q]× and
 * Σ[r_p]×·Γ·[r_q]× over the contacts, so the contacts of one pair of cliques — a stack's two
 * boxes touch through tens to hundreds of polygons, listed one after the other — are summed into
 * those nine 3 × 3 sums (sapRigidSum) and H is written once per pair instead of once per
 * contact: per contact Γ and four 3 × 3 products by a cross-product matrix (~140 products, where
 * forming G·J_q and J_pᵀ·(G·J_q) took ~340), and one pass over H's 6 × 6 blocks per run. On the
 * GPU the one thread of a world writes H in global memory once per run instead of per contact.
 * The sums are regrouped, so H differs from the per-constraint assembly at round-off
 * (tests/test_sap_cliques.c compares them). */
#ifndef ISO_KERNELS_SAP_HESSIAN_RIGID_H
#define ISO_KERNELS_SAP_HESSIAN_RIGID_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"
#include "kernels/sap/problem.h"

/* The sums of one run of contacts on the same cliques. Side q is clique[q] (−1: the world, no
 * block); lo is the side whose clique lies first in v (the columns of the block below H's
 * diagonal), hi the other. */
typedef struct sapRigidSum {
  int clique[2];
  real S[9];    /* ΣΓ, row-major, symmetric */
  real P[2][9]; /* ΣΓ·[r_q]×, row-major */
  real Q[3][9]; /* Σ[r_0]×Γ[r_0]×, Σ[r_1]×Γ[r_1]×, Σ[r_hi]×Γ[r_lo]× (row-major) */
} sapRigidSum;

/* Whether constraint c's Hessian terms may be summed here: 3 rows, each block a free body's point
 * (or the world), two different cliques. */
static inline ISO_HD int sap_con_rigid_pair(const sapCon *c, const sapClique *cl) {
  if (c->rows != 3 || c->clique[0] == c->clique[1]) return 0;
  for (int q = 0; q < 2; ++q)
    if (c->clique[q] >= 0 && (c->block[q] != SAP_BLOCK_RIGID_POINT || cl[c->clique[q]].nv != 6)) return 0;
  return 1;
}

static inline ISO_HD void sap_rigid_sum_begin(sapRigidSum *s, const sapCon *c) {
  s->clique[0] = c->clique[0], s->clique[1] = c->clique[1];
  for (int k = 0; k < 9; ++k) {
    s->S[k] = 0;
    s->P[0][k] = s->P[1][k] = 0;
    s->Q[0][k] = s->Q[1][k] = s->Q[2][k] = 0;
  }
}

/* out += rows of M times [r]× (row-major 3 × 3): row i of M·[r]× is (row i of M) × r. */
static inline ISO_HD void sap_add_mul_cross(const real *M, vec3 r, real *out) {
  for (int i = 0; i < 3; ++i) {
    const real *m = M + 3 * i;
    out[3 * i + 0] += m[1] * r.z - m[2] * r.y;
    out[3 * i + 1] += m[2] * r.x - m[0] * r.z;
    out[3 * i + 2] += m[0] * r.y - m[1] * r.x;
  }
}

/* out += [r]× times M: column j of [r]×·M is r × (column j of M). */
static inline ISO_HD void sap_add_cross_mul(vec3 r, const real *M, real *out) {
  for (int j = 0; j < 3; ++j) {
    const real x = M[j], y = M[3 + j], z = M[6 + j];
    out[j] += r.y * z - r.z * y;
    out[3 + j] += r.z * x - r.x * z;
    out[6 + j] += r.x * y - r.y * x;
  }
}

/* One contact of the run: frame R (R_WC), the law's Hessian G (3 × 3 row-major, symmetric) and
 * the offsets r[q] from each side's origin (read only where clique[q] >= 0). */
static inline ISO_HD void sap_rigid_sum_add(sapRigidSum *s, const sapClique *cl, const mat3 *R, const real *G,
                                            const vec3 r[2]) {
  real RG[9], Gam[9], P[2][9];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) RG[3 * i + k] = R->m[i][0] * G[k] + R->m[i][1] * G[3 + k] + R->m[i][2] * G[6 + k];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k <= i; ++k) {
      const real g = RG[3 * i] * R->m[k][0] + RG[3 * i + 1] * R->m[k][1] + RG[3 * i + 2] * R->m[k][2];
      Gam[3 * i + k] = Gam[3 * k + i] = g; /* mirrored: bitwise symmetric */
    }
  for (int k = 0; k < 9; ++k) s->S[k] += Gam[k];
  for (int q = 0; q < 2; ++q) {
    if (s->clique[q] < 0) continue;
    for (int k = 0; k < 9; ++k) P[q][k] = 0;
    sap_add_mul_cross(Gam, r[q], P[q]);
    for (int k = 0; k < 9; ++k) s->P[q][k] += P[q][k];
    sap_add_cross_mul(r[q], P[q], s->Q[q]);
  }
  if (s->clique[0] >= 0 && s->clique[1] >= 0) {
    const int hi = cl[s->clique[0]].v0 > cl[s->clique[1]].v0 ? 0 : 1;
    sap_add_cross_mul(r[hi], P[1 - hi], s->Q[2]);
  }
}

/* H += the run's sums (lower triangle of the column-major nv × nv H, as sap_cj_add_hessian). */
static inline ISO_HD void sap_rigid_sum_flush(const sapRigidSum *s, const sapClique *cl, int nv, real *H) {
  for (int q = 0; q < 2; ++q) { /* the diagonal blocks: s_q² = 1 */
    if (s->clique[q] < 0) continue;
    const int o = cl[s->clique[q]].v0;
    for (int b = 0; b < 3; ++b) {
      real *Hw = H + (long)(o + b) * nv + o; /* column ω_b */
      for (int a = b; a < 3; ++a) Hw[a] -= s->Q[q][3 * a + b];
      for (int a = 0; a < 3; ++a) Hw[3 + a] -= s->P[q][3 * a + b];
      real *Hv = H + (long)(o + 3 + b) * nv + o + 3; /* column v_b */
      for (int a = b; a < 3; ++a) Hv[a] += s->S[3 * a + b];
    }
  }
  if (s->clique[0] < 0 || s->clique[1] < 0) return;
  /* the block below the diagonal, rows hi, columns lo: s_hi·s_lo = −1 */
  const int hi = cl[s->clique[0]].v0 > cl[s->clique[1]].v0 ? 0 : 1, lo = 1 - hi;
  const int oh = cl[s->clique[hi]].v0, ol = cl[s->clique[lo]].v0;
  for (int b = 0; b < 3; ++b) {
    real *Hw = H + (long)(ol + b) * nv + oh; /* column ω_b of lo */
    for (int a = 0; a < 3; ++a) Hw[a] += s->Q[2][3 * a + b];
    for (int a = 0; a < 3; ++a) Hw[3 + a] += s->P[lo][3 * a + b];
    real *Hv = H + (long)(ol + 3 + b) * nv + oh; /* column v_b of lo */
    for (int a = 0; a < 3; ++a) Hv[a] += s->P[hi][3 * b + a];
    for (int a = 0; a < 3; ++a) Hv[3 + a] -= s->S[3 * a + b];
  }
}

#endif
