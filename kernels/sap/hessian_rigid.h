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
  return c->clique[0] != c->clique[1] && sap_free_point_blocks(c->rows, c->clique, c->block[0], c->block[1], cl);
}

static inline ISO_HD void sap_rigid_sum_begin(sapRigidSum *s, const sapCon *c) {
  s->clique[0] = c->clique[0], s->clique[1] = c->clique[1];
  for (int k = 0; k < 9; ++k) {
    s->S[k] = 0;
    s->P[0][k] = s->P[1][k] = 0;
    s->Q[0][k] = s->Q[1][k] = s->Q[2][k] = 0;
  }
}

/* M·[r]× (row-major 3 × 3): row i is (row i of M) × r. */
static inline ISO_HD mat3 sap_mul_cross(mat3 M, vec3 r) {
  mat3 P;
  for (int i = 0; i < 3; ++i) {
    P.m[i][0] = M.m[i][1] * r.z - M.m[i][2] * r.y;
    P.m[i][1] = M.m[i][2] * r.x - M.m[i][0] * r.z;
    P.m[i][2] = M.m[i][0] * r.y - M.m[i][1] * r.x;
  }
  return P;
}

/* [r]×·M: column j is r × (column j of M). */
static inline ISO_HD mat3 sap_cross_mul(vec3 r, mat3 M) {
  mat3 Q;
  for (int j = 0; j < 3; ++j) {
    const real x = M.m[0][j], y = M.m[1][j], z = M.m[2][j];
    Q.m[0][j] = r.y * z - r.z * y;
    Q.m[1][j] = r.z * x - r.x * z;
    Q.m[2][j] = r.x * y - r.y * x;
  }
  return Q;
}

static inline ISO_HD void sap_sum_add(real *sum, mat3 M) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) sum[3 * i + j] += M.m[i][j];
}

/* One contact of the run: frame R (R_WC), the law's Hessian G (3 × 3 row-major, symmetric) and
 * the offsets r[q] from each side's origin (read only where clique[q] >= 0). The per-contact
 * products live in values (mat3), not in arrays written and read back: stored lane by lane and
 * reloaded two lanes wide, those stalled on store forwarding (the resting box's step was 12 %
 * slower on fewer instructions). */
static inline ISO_HD void sap_rigid_sum_add(sapRigidSum *s, const sapClique *cl, const mat3 *R, const real *G,
                                            const vec3 r[2]) {
  mat3 RG, Gam, P[2];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) RG.m[i][k] = R->m[i][0] * G[k] + R->m[i][1] * G[3 + k] + R->m[i][2] * G[6 + k];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k <= i; ++k) /* mirrored: bitwise symmetric */
      Gam.m[i][k] = Gam.m[k][i] = RG.m[i][0] * R->m[k][0] + RG.m[i][1] * R->m[k][1] + RG.m[i][2] * R->m[k][2];
  sap_sum_add(s->S, Gam);
  for (int q = 0; q < 2; ++q) {
    if (s->clique[q] < 0) continue;
    P[q] = sap_mul_cross(Gam, r[q]);
    sap_sum_add(s->P[q], P[q]);
    sap_sum_add(s->Q[q], sap_cross_mul(r[q], P[q]));
  }
  if (s->clique[0] >= 0 && s->clique[1] >= 0) {
    const int hi = cl[s->clique[0]].v0 > cl[s->clique[1]].v0 ? 0 : 1;
    sap_sum_add(s->Q[2], sap_cross_mul(r[hi], P[1 - hi]));
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

/* ---- a jointed body's side ---------------------------------------------------------------------
 * A contact on a jointed tree's body b has the block s·Rᵀ[−[r]× | I]·J_b, J_b the body's spatial
 * Jacobian (tree_body_jacobian: 6 × nt, angular rows then the velocity of b's point at the world
 * origin, which is the tree clique's origin, so r is the point itself). The run's sums are then
 * the same nine, and the 6 × 6 blocks sap_rigid_sum_flush writes for a free body are the K of
 * H_pq += J_pᵀ·K·J_q. The pick's finger contacts took ~1,230 instructions each through the
 * general 3 × 9 block (sap_cj_add_hessian_3small); the sums take ~500, and J_b enters once per
 * run. H differs from the per-constraint assembly at round-off (tests/test_sap_hessian_rigid.c). */

/* Whether constraint i of a world (con_body: its sides' bodies, NULL when none are kept) is a
 * contact whose sides are each a free body's point, the world, or a jointed body with a kept
 * spatial Jacobian, on two different cliques, and not sap_con_rigid_pair's (a jointed side at
 * least). */
static inline ISO_HD int sap_con_body_pair(const sapCon *c, const sapClique *cl, const int *con_body) {
  if (!con_body || c->kind != SAP_CON_CONTACT || c->rows != 3 || c->clique[0] == c->clique[1]) return 0;
  int dense = 0;
  for (int q = 0; q < 2; ++q) {
    if (c->clique[q] < 0) continue;
    if (c->block[q] == SAP_BLOCK_DENSE && con_body[q] >= 0) dense = 1;
    else if (c->block[q] != SAP_BLOCK_RIGID_POINT || cl[c->clique[q]].nv != 6) return 0;
  }
  return dense;
}

/* Hpq (rows of clique p, columns of clique q; leading dimension nv) += J_pᵀ·K·J_q with K 6 × 6
 * row-major and J_p, J_q 6 × np, 6 × nq row-major (NULL: the identity, a free body's own six
 * DoFs); diag: the lower triangle only (p = q). One column of K·J_q at a time. */
static inline ISO_HD void sap_body_block(const real *K, const real *Jp, int np, const real *Jq, int nq, int diag,
                                         int nv, real *Hpq) {
  for (int b = 0; b < nq; ++b) {
    real t[6];
    for (int i = 0; i < 6; ++i) {
      if (!Jq) {
        t[i] = K[6 * i + b];
        continue;
      }
      real x = K[6 * i] * Jq[b];
      for (int k = 1; k < 6; ++k) x += K[6 * i + k] * Jq[nq * k + b];
      t[i] = x;
    }
    real *Hb = Hpq + (long)b * nv;
    for (int a = diag ? b : 0; a < np; ++a) {
      if (!Jp) {
        Hb[a] += t[a];
        continue;
      }
      real x = Jp[a] * t[0];
      for (int i = 1; i < 6; ++i) x += Jp[np * i + a] * t[i];
      Hb[a] += x;
    }
  }
}

/* H += the run's sums through the sides' spatial Jacobians J[q] (NULL for a free body): the K of
 * each block is what sap_rigid_sum_flush adds for free bodies. */
static inline ISO_HD void sap_body_sum_flush(const sapRigidSum *s, const sapClique *cl, const real *const J[2], int nv,
                                             real *H) {
  real K[36];
  for (int q = 0; q < 2; ++q) { /* the diagonal blocks (s_q² = 1), symmetric: lower entries mirrored */
    if (s->clique[q] < 0) continue;
    const sapClique *c = cl + s->clique[q];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const int lo = a >= b ? 3 * a + b : 3 * b + a;
        K[6 * a + b] = -s->Q[q][lo];
        K[6 * (3 + a) + 3 + b] = s->S[lo];
        K[6 * (3 + a) + b] = -s->P[q][3 * a + b];
        K[6 * b + 3 + a] = -s->P[q][3 * a + b];
      }
    sap_body_block(K, J[q], c->nv, J[q], c->nv, 1, nv, H + (long)c->v0 * nv + c->v0);
  }
  if (s->clique[0] < 0 || s->clique[1] < 0) return;
  /* the block below the diagonal, rows hi, columns lo: s_hi·s_lo = −1 */
  const int hi = cl[s->clique[0]].v0 > cl[s->clique[1]].v0 ? 0 : 1, lo = 1 - hi;
  const sapClique *ch = cl + s->clique[hi], *cw = cl + s->clique[lo];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      K[6 * a + b] = s->Q[2][3 * a + b];
      K[6 * (3 + a) + b] = s->P[lo][3 * a + b];
      K[6 * a + 3 + b] = s->P[hi][3 * b + a];
      K[6 * (3 + a) + 3 + b] = -s->S[3 * a + b];
    }
  sap_body_block(K, J[hi], ch->nv, J[lo], cw->nv, 0, nv, H + (long)cw->v0 * nv + ch->v0);
}

#endif
