/* The Delassus estimate of a constraint (§5.1 of the SAP reference): W = J·diag(A)⁻¹·Jᵀ with
 * the clique blocks of A replaced by their diagonals, read by every kind's regularisation. Split
 * from problem.h, whose Jacobian blocks it reads: the general loop per block, and the vertex
 * route of deformable contacts. */
#ifndef ISO_KERNELS_SAP_DELASSUS_H
#define ISO_KERNELS_SAP_DELASSUS_H

#include <math.h>

#include "kernels/core.h"
#include "kernels/sap/problem.h"

/* The reciprocals of the diagonal of A that the estimates divide by, for each side's clique, kept
 * by a loop over a world's constraints for the ones after it on the same cliques: a world's faces
 * come pair by pair (the coin's 378 all on one body), and these divisions, one per column of
 * each side, were the most of a face's estimate. The same divisions of the same entries, so the
 * same bits. Cliques wider than SAP_KEPT_NV (a deformable body's) are not kept. clique[q] = −2:
 * side q holds none yet. */
#define SAP_KEPT_NV 16
typedef struct sapDiagInv {
  int clique[2];
  real inv[2][SAP_KEPT_NV];
} sapDiagInv;

static inline ISO_HD void sap_diag_inv_reset(sapDiagInv *k) { k->clique[0] = k->clique[1] = -2; }

/* 1/A_kk for k < c->nv of clique ci (c = cl + ci) on side q: kept's, formed into it where it
 * holds another clique, or, with nothing kept, formed into own; NULL only for a clique wider
 * than SAP_KEPT_NV. */
static inline ISO_HD const real *sap_diag_inv(sapDiagInv *kept, int q, int ci, const sapClique *c,
                                              const real *A_world, real own[SAP_KEPT_NV]) {
  if (c->nv > SAP_KEPT_NV) return (const real *)0;
  real *d = own;
  if (kept) {
    d = kept->inv[q];
    if (kept->clique[q] == ci) return d;
    kept->clique[q] = ci;
  }
  const real *Ab = A_world + c->a0;
  for (int k = 0; k < c->nv; ++k) d[k] = (real)1 / Ab[(c->nv + 1) * k];
  return d;
}

/* W += J diag(A)⁻¹ Jᵀ for one block (m × nc) on its clique's A (Ab, n × n row-major): column k
 * of J is the clique's column cols[k] (a gather block), or k where cols is NULL. One reciprocal
 * per column (a deformable–deformable contact's 24 columns cost 24 divisions instead of 216,
 * which were most of its constraint's build), each entry summed over the columns in order, the
 * lower triangle mirrored so that W is exactly symmetric. kept_inv: NULL, or those reciprocals
 * already formed (sap_diag_inv), read at the column's index in the clique. */
static inline ISO_HD void sap_delassus_block(const real *J, int m, int nc, const int *cols, const real *Ab, int n,
                                             const real *kept_inv, real *W) {
  real Wq[SAP_MAX_ROWS * SAP_MAX_ROWS];
  for (int i = 0; i < m * m; ++i) Wq[i] = 0;
  for (int k = 0; k < nc; ++k) {
    const int col = cols ? cols[k] : k;
    const real inv = kept_inv ? kept_inv[col] : (real)1 / Ab[(n + 1) * col];
    for (int i = 0; i < m; ++i) {
      const real ji = J[nc * i + k] * inv;
      for (int k2 = 0; k2 <= i; ++k2) Wq[m * i + k2] += ji * J[nc * k2 + k];
    }
  }
  for (int i = 0; i < m; ++i)
    for (int k2 = 0; k2 <= i; ++k2) {
      W[m * i + k2] += Wq[m * i + k2];
      if (k2 < i) W[m * k2 + i] += Wq[m * i + k2];
    }
}

/* W += J diag(A)⁻¹ Jᵀ for a block of vertex columns (3 rows; vertex u's columns cols[3u..3u+2]
 * are coef[u]·R_WCᵀ): entry (a, b) is Σ_i R[i][a]·R[i][b]·d_i with d_i = Σ_u coef_u² / A_ii(u),
 * so the columns cost a division and two products each and W six 3-term sums, where the general
 * loop sums 6 products per column (the 24 columns of a deformable–deformable contact were a
 * tenth of the arch's step). W's lower triangle is mirrored. */
static inline ISO_HD void sap_delassus_vertex(const real *coef, int nvert, const int *cols, const mat3 *R,
                                              const real *Ab, int n, real *W) {
  real d[3] = {0, 0, 0};
  for (int u = 0; u < nvert; ++u) {
    const real c2 = coef[u] * coef[u];
    for (int i = 0; i < 3; ++i) d[i] += c2 / Ab[(n + 1) * cols[3 * u + i]];
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b <= a; ++b) {
      const real w = R->m[0][a] * R->m[0][b] * d[0] + R->m[1][a] * R->m[1][b] * d[1] + R->m[2][a] * R->m[2][b] * d[2];
      W[3 * a + b] += w;
      if (b < a) W[3 * b + a] += w;
    }
}

/* W = Σ_q J_q diag(A_q)⁻¹ J_qᵀ (rows × rows, row-major), the Delassus operator with A replaced
 * by its diagonal (§5.1); A_world: the world's A storage; kept: NULL, or the reciprocals kept
 * (sapDiagInv), which a side whose block spans its clique's columns reads. */
static inline ISO_HD void sap_con_delassus_W_kept(const sapJac *j, const sapClique *cl, const real *A_world,
                                                  sapDiagInv *kept, real *W) {
  real scratch[SAP_BLOCK_MAX];
  const int m = j->rows;
  for (int i = 0; i < m * m; ++i) W[i] = 0;
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *c = cl + j->clique[q];
    if (j->coef[q] && m == 3) {
      sap_delassus_vertex(j->coef[q], j->ncols[q] / 3, j->cols[q], &j->R_WC, A_world + c->a0, c->nv, W);
      continue;
    }
    const real *J = sap_block_get(j, q, scratch);
    if (j->cols[q]) {
      sap_delassus_block(J, m, j->ncols[q], j->cols[q], A_world + c->a0, c->nv, (const real *)0, W);
      continue;
    }
    real own[SAP_KEPT_NV];
    const real *inv = sap_diag_inv(kept, q, j->clique[q], c, A_world, own);
    if (m == 3 && c->nv == 6) sap_delassus_block(J, 3, 6, (const int *)0, A_world + c->a0, 6, inv, W);
    else sap_delassus_block(J, m, c->nv, (const int *)0, A_world + c->a0, c->nv, inv, W);
  }
}

/* sap_con_delassus_W_kept with nothing kept. */
static inline ISO_HD void sap_con_delassus_W(const sapJac *j, const sapClique *cl, const real *A_world, real *W) {
  sap_con_delassus_W_kept(j, cl, A_world, (sapDiagInv *)0, W);
}

/* ‖W‖_F of a contact whose blocks are free bodies' points (or the world): with
 * J_q = s_q·Rᵀ[−[r_q]× | I], W = Rᵀ·M·R for M = Σ_q diag(1/A_v) + [r_q]×·diag(1/A_ω)·[r_q]×ᵀ (the
 * clique's diagonal, [ω, v] order), and the Frobenius norm does not see the rotation: ‖W‖_F =
 * ‖M‖_F, six entries from the offsets where J·D·Jᵀ forms both 3 × 6 blocks (a third of the
 * resting box's constraint set-up). Equal to the general loop to round-off
 * (tests/test_sap_hessian_rigid.c). kept: NULL, or the reciprocals kept (sapDiagInv). */
static inline ISO_HD real sap_delassus_rigid_norm(const sapJac *j, const sapClique *cl, const real *A_world,
                                                  sapDiagInv *kept) {
  real m00 = 0, m11 = 0, m22 = 0, m01 = 0, m02 = 0, m12 = 0;
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *c = cl + j->clique[q];
    real own[SAP_KEPT_NV];
    const real *d = sap_diag_inv(kept, q, j->clique[q], c, A_world, own); /* 6 DoFs: never NULL */
    const real x = j->r[q].x, y = j->r[q].y, z = j->r[q].z;
    m00 += d[3] + z * z * d[1] + y * y * d[2];
    m11 += d[4] + z * z * d[0] + x * x * d[2];
    m22 += d[5] + y * y * d[0] + x * x * d[1];
    m01 -= x * y * d[2];
    m02 -= x * z * d[1];
    m12 -= y * z * d[0];
  }
  return sqrt(m00 * m00 + m11 * m11 + m22 * m22 + (real)2 * (m01 * m01 + m02 * m02 + m12 * m12));
}

/* Whether sap_delassus_rigid_norm serves constraint j: 3 rows, every block a free body's point. */
static inline ISO_HD int sap_jac_rigid_points(const sapJac *j, const sapClique *cl) {
  return sap_free_point_blocks(j->rows, j->clique, j->block[0], j->block[1], cl);
}

/* The Delassus estimate of constraint c, by kind. A contact uses one w for its three equations,
 * w = ‖W‖_F/3 (§5.1). */
static inline ISO_HD real sap_con_delassus_kept(const sapCon *c, const sapJac *j, const sapClique *cl,
                                                const real *A_world, sapDiagInv *kept) {
  if (c->kind == SAP_CON_CONTACT && sap_jac_rigid_points(j, cl))
    return sap_delassus_rigid_norm(j, cl, A_world, kept) / 3;
  real W[SAP_MAX_ROWS * SAP_MAX_ROWS];
  sap_con_delassus_W_kept(j, cl, A_world, kept, W);
  /* every kind: one w for all its rows, ‖W‖_F / rows (a contact's /3; a two-row limit's W is
   * [[a, −a], [−a, a]], so w = a = 1/A_dd for both rows, as Drake's) */
  real f = 0;
  for (int i = 0; i < j->rows * j->rows; ++i) f += W[i] * W[i];
  return c->kind == SAP_CON_CONTACT ? sqrt(f) / 3 : sqrt(f) / j->rows;
}

/* sap_con_delassus_kept with nothing kept. */
static inline ISO_HD real sap_con_delassus(const sapCon *c, const sapJac *j, const sapClique *cl, const real *A_world) {
  return sap_con_delassus_kept(c, j, cl, A_world, (sapDiagInv *)0);
}

#endif
