/* The Newton Hessian's constraint terms: H += JᵀGJ of one constraint into the lower triangle of
 * the column-major nv × nv H (kernels/sap/solve.h, the assembly of a Newton iteration), one path
 * per block structure: compact 3 × 6 free-body blocks, small dense blocks (a robot tree beside a
 * free body), gather blocks, blocks of points on vertices (deformable contact), and the general
 * loop. Every path forms each entry as the general loop does, so the choice changes no bit
 * (tests/test_sap_cliques.c). Runs of free-body contacts are summed per pair of cliques instead
 * (kernels/sap/hessian_rigid.h). */
#ifndef ISO_KERNELS_SAP_HESSIAN_H
#define ISO_KERNELS_SAP_HESSIAN_H

#include "kernels/core.h"
#include "kernels/sap/problem.h"

/* H += JᵀGJ for constraint j into the lower triangle of the column-major nv × nv matrix H (all
 * the Cholesky reads; the strict upper triangle is not written): block (p, q) of cliques
 * clique[p], clique[q] gets J_pᵀ·(G·J_q) where it lies below the diagonal (cliques lie in v
 * order, so a block is wholly below, wholly above, or on it), its lower triangle where it lies on
 * it. G: rows × rows, row-major. Each entry is the same sum either way: column b of G·J_q,
 * gj[i] = Σ_l G[i][l]·J_q[l][b], then H[a][b] += Σ_i J_p[i][a]·gj[i]. */

/* The most DoFs of a clique whose G·J_q sap_cj_add_hessian_3small forms whole (3 × 12 reals of
 * scratch): a jointed tree of a robot arm and its hand, or a free body. */
#define SAP_HESS_SMALL 12

/* gj = column b of G·J_q (G: m × m row-major, J_q: m × nq). */
static inline ISO_HD void sap_gj_n(const real *G, int m, const real *Jq, int nq, int b, real *gj) {
  for (int i = 0; i < m; ++i) {
    real t = G[m * i] * Jq[b];
    for (int l = 1; l < m; ++l) t += G[m * i + l] * Jq[nq * l + b];
    gj[i] = t;
  }
}

/* GJ = G·J_q whole, 3 × nq row-major (G 3 × 3, J_q 3 × nq): each column as sap_gj_n forms it. */
static inline ISO_HD void sap_gj_3(const real *G, const real *Jq, int nq, real *GJ) {
  for (int b = 0; b < nq; ++b) {
    real gj[3];
    sap_gj_n(G, 3, Jq, nq, b, gj);
    GJ[b] = gj[0], GJ[nq + b] = gj[1], GJ[2 * nq + b] = gj[2];
  }
}

/* Block (p, q) into H at Hpq (its row 0, column 0; leading dimension nv) from J_p (m × np) and
 * GJ = G·J_q (m × nq, row-major): the whole block, or (diag, np = nq) its lower triangle. */
static inline ISO_HD void sap_hessian_block_n(const real *Jp, const real *GJ, int m, int np, int nq, int diag, int nv,
                                              real *Hpq) {
  for (int b = 0; b < nq; ++b) {
    real *Hb = Hpq + (long)b * nv;
    for (int a = diag ? b : 0; a < np; ++a) {
      real t = Jp[a] * GJ[b];
      for (int i = 1; i < m; ++i) t += Jp[np * i + a] * GJ[nq * i + b];
      Hb[a] += t;
    }
  }
}

/* sap_hessian_block_n for m = 3, the same sums in the same order; H does not overlap J_p or GJ,
 * which lets the compiler keep the column's three G·J values in registers without overlap checks. */
static inline ISO_HD void sap_hessian_block_3(const real *ISO_RESTRICT Jp, const real *ISO_RESTRICT GJ, int np, int nq,
                                              int diag, int nv, real *ISO_RESTRICT Hpq) {
  for (int b = 0; b < nq; ++b) {
    real *ISO_RESTRICT Hb = Hpq + (long)b * nv;
    const real g0 = GJ[b], g1 = GJ[nq + b], g2 = GJ[2 * nq + b];
    for (int a = diag ? b : 0; a < np; ++a) Hb[a] += Jp[a] * g0 + Jp[np + a] * g1 + Jp[2 * np + a] * g2;
  }
}

/* The common case, a 3-row constraint on 6-DoF cliques, with literal sizes and G·J_q formed
 * whole (3 × 6). */
static inline ISO_HD void sap_cj_add_hessian_36(const sapConJ *j, const sapClique *cl, const real *G, int nv, real *H) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    real GJ[18];
    sap_gj_3(G, j->J[q], 6, GJ);
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      real *Hpq = H + (long)cq->v0 * nv + cp->v0;
      if (cp->v0 > cq->v0) sap_hessian_block_n(j->J[p], GJ, 3, 6, 6, 0, nv, Hpq);
      else if (cp->v0 == cq->v0) sap_hessian_block_n(j->J[p], GJ, 3, 6, 6, 1, nv, Hpq);
    }
  }
}

/* H += JᵀGJ for a constraint with a gather block: each block's columns are its own (ncols at
 * cols) or its clique's, and an entry is added where it lies on or below H's diagonal. */
static inline ISO_HD void sap_cj_add_hessian_gather(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                    real *H) {
  const int m = j->rows;
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = j->cols[q] ? j->ncols[q] : cq->nv;
    for (int b = 0; b < nq; ++b) {
      real gj[SAP_MAX_ROWS];
      sap_gj_n(G, m, j->J[q], nq, b, gj);
      const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
      for (int p = 0; p < 2; ++p) {
        if (j->clique[p] < 0) continue;
        const sapClique *cp = cl + j->clique[p];
        const int np = j->cols[p] ? j->ncols[p] : cp->nv;
        for (int a = 0; a < np; ++a) {
          const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
          if (row < col) continue;
          real t = j->J[p][a] * gj[0];
          for (int i = 1; i < m; ++i) t += j->J[p][np * i + a] * gj[i];
          H[(long)col * nv + row] += t;
        }
      }
    }
  }
}

/* H += JᵀGJ for a 3-row constraint with at least one block of a point on vertices (coef[q] set:
 * its vertex k's three columns are coef[q][k]·R_WCᵀ, a deformable contact's barycentric
 * point). With Γ = R·G·Rᵀ, the block of vertices u (of p) and v (of q) is coef_p[u]·coef_q[v]·Γ
 * (3 × 3); against a general block of q, column b of JᵀGJ is coef_p[u]·R·(G·J_q[:, b]). A
 * deformable–deformable contact's 24 columns then cost Γ and one product per entry, where
 * the general loop forms each entry as a 3-term dot product. Entries where row >= col only. */
static inline ISO_HD void sap_cj_add_hessian_vertex(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                   real *H) {
  real RG[9], Gam[9];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) RG[3 * i + k] = j->R.m[i][0] * G[k] + j->R.m[i][1] * G[3 + k] + j->R.m[i][2] * G[6 + k];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      Gam[3 * i + k] = RG[3 * i] * j->R.m[k][0] + RG[3 * i + 1] * j->R.m[k][1] + RG[3 * i + 2] * j->R.m[k][2];
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = j->cols[q] ? j->ncols[q] : cq->nv;
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      const int np = j->cols[p] ? j->ncols[p] : cp->nv;
      /* a block of two cliques lies wholly above the diagonal (nothing to add), or wholly on or
       * below it (no entry to test) */
      if (p != q && cp->v0 + cp->nv <= cq->v0) continue;
      const int below = p != q && cp->v0 >= cq->v0 + cq->nv;
      if (j->coef[p] && j->coef[q]) { /* vertex blocks both sides: coef·coef·Γ */
        for (int v = 0; v < nq / 3; ++v)
          for (int u = 0; u < np / 3; ++u) {
            const int r0 = cp->v0 + j->cols[p][3 * u], c0 = cq->v0 + j->cols[q][3 * v];
            if (r0 + 2 < c0) continue; /* above the diagonal */
            const real cc = j->coef[p][u] * j->coef[q][v];
            real *Hb = H + (long)c0 * nv + r0;
            if (r0 >= c0 + 2) { /* wholly on or below the diagonal: no entry to test */
              for (int k = 0; k < 3; ++k)
                for (int i = 0; i < 3; ++i) Hb[(long)k * nv + i] += cc * Gam[3 * i + k];
              continue;
            }
            /* vertex columns come in threes, so this is r0 == c0: the block's lower triangle */
            for (int k = 0; k < 3; ++k)
              for (int i = k; i < 3; ++i) Hb[(long)k * nv + i] += cc * Gam[3 * i + k];
          }
      } else if (j->coef[p]) { /* rows of vertices, a general column: coef_p[u]·R·(G·J_q[:, b]) */
        for (int b = 0; b < nq; ++b) {
          real gj[3], rg[3];
          sap_gj_n(G, 3, j->J[q], nq, b, gj);
          for (int i = 0; i < 3; ++i) rg[i] = j->R.m[i][0] * gj[0] + j->R.m[i][1] * gj[1] + j->R.m[i][2] * gj[2];
          const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
          real *ISO_RESTRICT Hc = H + (long)col * nv + cp->v0;
          if (below) { /* a vertex's three rows are consecutive (sapJac's coef) */
            for (int u = 0; u < np / 3; ++u) {
              real *ISO_RESTRICT h = Hc + j->cols[p][3 * u];
              const real cu = j->coef[p][u];
              h[0] += cu * rg[0];
              h[1] += cu * rg[1];
              h[2] += cu * rg[2];
            }
            continue;
          }
          for (int u = 0; u < np / 3; ++u)
            for (int i = 0; i < 3; ++i) {
              const int r = j->cols[p][3 * u + i];
              if (cp->v0 + r >= col) Hc[r] += j->coef[p][u] * rg[i];
            }
        }
      } else if (j->coef[q]) { /* general rows, a column of vertex v: coef_q[v]·J_p[:, a]ᵀ·(G·Rᵀ)[:, k] */
        real GRt[9];
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            GRt[3 * i + k] = G[3 * i] * j->R.m[k][0] + G[3 * i + 1] * j->R.m[k][1] + G[3 * i + 2] * j->R.m[k][2];
        for (int v = 0; v < nq / 3; ++v)
          for (int k = 0; k < 3; ++k) {
            const int col = cq->v0 + j->cols[q][3 * v + k];
            for (int a = 0; a < np; ++a) {
              const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
              if (row < col) continue;
              const real t = j->J[p][a] * GRt[k] + j->J[p][np + a] * GRt[3 + k] + j->J[p][2 * np + a] * GRt[6 + k];
              H[(long)col * nv + row] += j->coef[q][v] * t;
            }
          }
      } else if (!j->cols[p] && !j->cols[q] && np <= SAP_HESS_SMALL && nq <= SAP_HESS_SMALL) {
        /* dense blocks both sides (a gripper's joints): G·J_q whole, then the block in one tight
         * loop, each entry the general loop's sum (sap_hessian_block_3) */
        real GJ[3 * SAP_HESS_SMALL];
        sap_gj_3(G, j->J[q], nq, GJ);
        real *Hpq = H + (long)cq->v0 * nv + cp->v0;
        sap_hessian_block_3(j->J[p], GJ, np, nq, cp->v0 == cq->v0, nv, Hpq);
      } else { /* general both sides */
        for (int b = 0; b < nq; ++b) {
          real gj[3];
          sap_gj_n(G, 3, j->J[q], nq, b, gj);
          const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
          for (int a = 0; a < np; ++a) {
            const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
            if (row < col) continue;
            H[(long)col * nv + row] += j->J[p][a] * gj[0] + j->J[p][np + a] * gj[1] + j->J[p][2 * np + a] * gj[2];
          }
        }
      }
    }
  }
}

/* A 3-row constraint on dense blocks of at most SAP_HESS_SMALL columns (a tree's contact beside
 * a free body's, as in a grasp): G·J_q formed whole, then each block of H as in
 * sap_cj_add_hessian_36, the same sums in the same order as sap_cj_add_hessian_m. The general
 * loop re-derives its pointers and tests its bounds per entry (vectorised in pairs with overlap
 * checks that cost more than they save at 3 to 12 rows); here each block is one tight loop.
 * n[q] is clique q's size (cl[j->clique[q]].nv; unread where there is no clique): the callers
 * below pass the common pairs of sizes as literals, so each gets loops of fixed length. */
static inline ISO_HD ISO_INLINE void sap_cj_add_hessian_3small_n(const sapConJ *j, const sapClique *cl,
                                                                 const real *G, int nv, real *H, int n0, int n1) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = q ? n1 : n0;
    real GJ[3 * SAP_HESS_SMALL];
    sap_gj_3(G, j->J[q], nq, GJ);
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      const int np = p ? n1 : n0;
      real *Hpq = H + (long)cq->v0 * nv + cp->v0;
      if (cp->v0 > cq->v0) sap_hessian_block_3(j->J[p], GJ, np, nq, 0, nv, Hpq);
      else if (cp->v0 == cq->v0) sap_hessian_block_3(j->J[p], GJ, np, nq, 1, nv, Hpq);
    }
  }
}

static inline ISO_HD void sap_cj_add_hessian_3small(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                    real *H) {
  const int n0 = j->clique[0] < 0 ? 0 : cl[j->clique[0]].nv, n1 = j->clique[1] < 0 ? 0 : cl[j->clique[1]].nv;
  if (n0 == 3 && n1 == 6) sap_cj_add_hessian_3small_n(j, cl, G, nv, H, 3, 6); /* a gripper's finger on a cube */
  else if (n0 == 6 && n1 == 3) sap_cj_add_hessian_3small_n(j, cl, G, nv, H, 6, 3);
  else sap_cj_add_hessian_3small_n(j, cl, G, nv, H, n0, n1);
}

/* H += JᵀGJ for blocks of any sizes (m rows: called with a literal 3 for a contact, so the row
 * loops unroll; the same sums in the same order either way): one column of G·J_q at a time, so
 * no scratch grows with a clique. */
static inline ISO_HD void sap_cj_add_hessian_m(const sapConJ *j, int m, const sapClique *cl, const real *G, int nv,
                                               real *H) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = cq->nv;
    for (int b = 0; b < nq; ++b) {
      real gj[SAP_MAX_ROWS];
      sap_gj_n(G, m, j->J[q], nq, b, gj);
      for (int p = 0; p < 2; ++p) {
        if (j->clique[p] < 0) continue;
        const sapClique *cp = cl + j->clique[p];
        if (cp->v0 < cq->v0) continue; /* above the diagonal */
        /* column b of block (p, q), from its diagonal row down where the block is on it */
        real *Hb = H + (long)(cq->v0 + b) * nv + cp->v0;
        for (int a = cp->v0 == cq->v0 ? b : 0; a < cp->nv; ++a) {
          real t = j->J[p][a] * gj[0];
          for (int i = 1; i < m; ++i) t += j->J[p][cp->nv * i + a] * gj[i];
          Hb[a] += t;
        }
      }
    }
  }
}

static inline ISO_HD void sap_cj_add_hessian(const sapConJ *j, const sapClique *cl, const real *G, int nv, real *H) {
  const int m = j->rows;
  if (m == 3 && (j->coef[0] || j->coef[1])) {
    sap_cj_add_hessian_vertex(j, cl, G, nv, H);
    return;
  }
  if (j->cols[0] || j->cols[1]) {
    sap_cj_add_hessian_gather(j, cl, G, nv, H);
    return;
  }
  if (m == 3 && (j->clique[0] < 0 || cl[j->clique[0]].nv == 6) && (j->clique[1] < 0 || cl[j->clique[1]].nv == 6)) {
    sap_cj_add_hessian_36(j, cl, G, nv, H);
    return;
  }
  if (m == 3 && (j->clique[0] < 0 || cl[j->clique[0]].nv <= SAP_HESS_SMALL) &&
      (j->clique[1] < 0 || cl[j->clique[1]].nv <= SAP_HESS_SMALL)) {
    sap_cj_add_hessian_3small(j, cl, G, nv, H);
    return;
  }
  if (m == 3) sap_cj_add_hessian_m(j, 3, cl, G, nv, H);
  else sap_cj_add_hessian_m(j, m, cl, G, nv, H);
}

/* H += JᵀGJ for constraint j. */
static inline ISO_HD void sap_con_add_hessian(const sapJac *j, const sapClique *cl, const real *G, int nv, real *H) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_add_hessian(&b, cl, G, nv, H);
}

#endif
