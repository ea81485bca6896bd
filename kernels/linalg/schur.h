/* The Schur complement of a deformable body's tangent matrix on its participating vertices
 * (those in contact or fixed constraints; they differ per world and step), computed from the
 * one factor T = P^T L L^T P of kernels/linalg/block_chol.h, whose ordering is the mesh's and
 * never the world's (seed 001 §IV; reference §6.3).
 *
 * With p the participating DoFs (3 per participating vertex, m vertices, M = 3m) and T permuted
 * to [D B; B^T C], D the non-participating block, the Schur complement is
 *     S = C - B^T D^-1 B = ((T^-1)_pp)^-1,
 * the inverse of the pp block of T^-1 (block inversion of T). Writing E = the columns of the
 * identity at p (3n x M):
 *     Y = L^-1 P E            (M forward solves; each nonzero only on its elimination-tree path)
 *     W = Y^T Y = E^T T^-1 E  (exactly symmetric, positive definite when T is)
 *     S = W^-1 = G^T G, G = L_W^-1 with W = L_W L_W^T (dense; S exactly symmetric)
 *     Z = T^-1 E = P^T L^-T Y (M back solves), so that E^T Z S = W S = I.
 * After SAP gives dv_p, dv = Z S dv_p: its p rows are dv_p and the others are
 * dv_n = -D^-1 B dv_p, since T (Z S dv_p) = E S dv_p has zero rows outside p. The same dv is
 * one full solve T dv = E (S dv_p) (bchol_schur_expand_solve), which needs no Z at all.
 *
 * Cost, against factoring [D B; B^T C] with p ordered last (S then falls out of the factor's
 * trailing block, seed 001 eq. 18, but the ordering would depend on the world's contacts):
 * the forward solves touch only the tree paths above the participating vertices, W's dot
 * products only the shared part of two paths, and the dense part is O(M^3). Z's back solves
 * are full; a caller that only needs S and dv skips them (want_z = 0) and expands with one
 * solve. Every loop runs in a fixed order, so the bits do not depend on the caller.
 *
 * Layouts: dense matrices column-major; Z (3n x M) has rows in the mesh's DoF order
 * (3 vertex + axis) and columns 3a + axis for participating vertex pvert[a]; S (M x M) likewise.
 */
#ifndef ISO_KERNELS_LINALG_SCHUR_H
#define ISO_KERNELS_LINALG_SCHUR_H

#include "kernels/core.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/cholesky.h"

/* Reals of workspace bchol_schur needs for n vertices, m participating. */
static inline ISO_HD long long bchol_schur_work_size(int n, int m) {
  long long M = 3LL * m, a = M * M, b = 3LL * n;
  return a > b ? a : b;
}

/* Y's column for DoF axis c of the vertex at position k: zero, one at (k, c), then the forward
 * solve along the tree path from k (the only blocks it can make nonzero). */
static inline ISO_HD void schur_forward_unit(const bcholView *v, const real *ISO_RESTRICT Lv, int k, int c,
                                             real *ISO_RESTRICT y) {
  for (int i = 0; i < 3 * v->n; ++i) y[i] = 0;
  y[3 * k + c] = 1;
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column(v, Lv, j, y);
}

/* The union U of the elimination-tree paths from the positions of vertices pv[0..np) (mesh order)
 * to their roots, descending, into path (at most n); mark: n ints of scratch. Returns |U|. A back
 * solve on U (bchol_upper_solve_on) gives the whole solve's bits at those positions. */
static inline ISO_HD int schur_path_union(const bcholView *v, const int *pv, int np, int *ISO_RESTRICT mark,
                                          int *ISO_RESTRICT path) {
  for (int k = 0; k < v->n; ++k) mark[k] = 0;
  for (int s = 0; s < np; ++s)
    for (int j = v->iperm[pv[s]]; j >= 0 && !mark[j]; j = v->parent[j]) mark[j] = 1;
  int npath = 0;
  for (int j = v->n - 1; j >= 0; --j)
    if (mark[j]) path[npath++] = j;
  return npath;
}

/* schur_forward_unit for the three axes of the vertex at position k at once, into Y (3n × 3
 * row-major, side c = axis c; bchol_lower_column3): each side with the single solve's bits. */
static inline ISO_HD void schur_forward_unit3_portable(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                                       real *ISO_RESTRICT Y) {
  for (int i = 0; i < 9 * v->n; ++i) Y[i] = 0;
  for (int c = 0; c < 3; ++c) Y[9 * k + 3 * c + c] = 1;
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column3(v, Lv, j, Y);
}
#if ISO_AVX2
/* The same, the three sides in four lanes (bchol_lower_column3_avx2): the same bits. */
static inline ISO_AVX2_FN void schur_forward_unit3_avx2(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                                        real *ISO_RESTRICT Y) {
  for (int i = 0; i < 9 * v->n; ++i) Y[i] = 0;
  for (int c = 0; c < 3; ++c) Y[9 * k + 3 * c + c] = 1;
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column3_avx2(v, Lv, j, Y);
}
#endif
static inline ISO_HD void schur_forward_unit3(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                              real *ISO_RESTRICT Y) {
#if ISO_AVX2
  if (iso_cpu_avx2()) {
    schur_forward_unit3_avx2(v, Lv, k, Y);
    return;
  }
#endif
  schur_forward_unit3_portable(v, Lv, k, Y);
}

/* y_a . y_b over the blocks where both can be nonzero: the path from position k (either's
 * start; the two paths share their part above the common ancestor, which both contain). */
static inline ISO_HD real schur_path_dot(const bcholView *v, int k, const real *ISO_RESTRICT ya,
                                         const real *ISO_RESTRICT yb) {
  real s = 0;
  for (int j = k; j >= 0; j = v->parent[j])
    s += ya[3 * j] * yb[3 * j] + ya[3 * j + 1] * yb[3 * j + 1] + ya[3 * j + 2] * yb[3 * j + 2];
  return s;
}

/* The Schur complement S (M x M) of T's factor Lv on the m distinct vertices pvert (any order).
 * Z (3n x M): with want_z, Z = T^-1 E on return (rows in the mesh's order); without, Z is
 * workspace and holds Y = L^-1 P E in permuted rows. work: bchol_schur_work_size(n, m) reals.
 * Returns 0, or i + 1 when W's pivot i is not positive (T was not positive definite), or
 * 3b + 1 when pvert[b] repeats an earlier vertex (W would be singular; checked up front, since
 * rounding could leave its pivot a tiny positive number). m == 0 returns 0, touching nothing. */
static inline ISO_HD int bchol_schur(const bcholView *v, const real *ISO_RESTRICT Lv, int m,
                                     const int *ISO_RESTRICT pvert, int want_z, real *ISO_RESTRICT Z,
                                     real *ISO_RESTRICT S, real *ISO_RESTRICT work) {
  const int n3 = 3 * v->n, M = 3 * m;
  for (int b = 1; b < m; ++b)
    for (int a = 0; a < b; ++a)
      if (pvert[a] == pvert[b]) return 3 * b + 1;
  for (int q = 0; q < M; ++q) schur_forward_unit(v, Lv, v->iperm[pvert[q / 3]], q % 3, Z + (long long)q * n3);
  /* W = Y^T Y into S's lower triangle (all chol_factor reads) */
  for (int b = 0; b < M; ++b)
    for (int a = b; a < M; ++a) {
      int ka = v->iperm[pvert[a / 3]], kb = v->iperm[pvert[b / 3]];
      S[a + (long long)b * M] =
          schur_path_dot(v, ka > kb ? ka : kb, Z + (long long)a * n3, Z + (long long)b * n3);
    }
  int info = chol_factor(M, S);
  if (info) return info;
  /* G = L_W^-1 into work, column by column (lower triangular: rows >= the column) */
  for (int c = 0; c < M; ++c) {
    real *g = work + (long long)c * M;
    for (int i = 0; i < M; ++i) g[i] = 0;
    g[c] = 1;
    for (int j = c; j < M; ++j) {
      const real *lj = S + (long long)j * M;
      real y = g[j] / lj[j];
      g[j] = y;
      for (int i = j + 1; i < M; ++i) g[i] -= lj[i] * y;
    }
  }
  /* S = G^T G: S_ab = sum over k >= max(a, b) of G_ka G_kb, one sum per pair, mirrored */
  for (int b = 0; b < M; ++b)
    for (int a = b; a < M; ++a) {
      const real *ga = work + (long long)a * M, *gb = work + (long long)b * M;
      real s = 0;
      for (int k = a; k < M; ++k) s += ga[k] * gb[k];
      S[a + (long long)b * M] = s;
    }
  for (int b = 0; b < M; ++b)
    for (int a = b + 1; a < M; ++a) S[b + (long long)a * M] = S[a + (long long)b * M];
  if (want_z)
    for (int q = 0; q < M; ++q) {
      real *z = Z + (long long)q * n3;
      bchol_upper_solve(v, Lv, z);
      for (int i = 0; i < n3; ++i) work[i] = z[i];
      for (int k = 0; k < v->n; ++k) {
        const int a = v->perm[k];
        z[3 * a] = work[3 * k], z[3 * a + 1] = work[3 * k + 1], z[3 * a + 2] = work[3 * k + 2];
      }
    }
  return 0;
}

/* dv (3n, the mesh's DoF order) = Z (S dv_p) from bchol_schur's Z (want_z) and S; dvp (M).
 * tmp: M reals. */
static inline ISO_HD void bchol_schur_expand(int n, int m, const real *ISO_RESTRICT Z, const real *ISO_RESTRICT S,
                                             const real *ISO_RESTRICT dvp, real *ISO_RESTRICT dv,
                                             real *ISO_RESTRICT tmp) {
  const int n3 = 3 * n, M = 3 * m;
  for (int a = 0; a < M; ++a) tmp[a] = 0;
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < M; ++a) tmp[a] += S[a + (long long)b * M] * dvp[b];
  for (int i = 0; i < n3; ++i) dv[i] = 0;
  for (int q = 0; q < M; ++q) {
    const real *z = Z + (long long)q * n3;
    for (int i = 0; i < n3; ++i) dv[i] += z[i] * tmp[q];
  }
}

/* The same dv as one solve, no Z: dv = T^-1 E (S dv_p), with Lv the factor bchol_schur used,
 * pvert its vertices, S its result. work: 3n reals. */
static inline ISO_HD void bchol_schur_expand_solve(const bcholView *v, const real *ISO_RESTRICT Lv, int m,
                                                   const int *ISO_RESTRICT pvert, const real *ISO_RESTRICT S,
                                                   const real *ISO_RESTRICT dvp, real *ISO_RESTRICT dv,
                                                   real *ISO_RESTRICT work) {
  const int M = 3 * m;
  for (int i = 0; i < 3 * v->n; ++i) dv[i] = 0;
  for (int a = 0; a < M; ++a) {
    real s = 0;
    for (int b = 0; b < M; ++b) s += S[a + (long long)b * M] * dvp[b];
    dv[3 * pvert[a / 3] + a % 3] = s;
  }
  bchol_solve(v, Lv, dv, work);
}

#endif
