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
#include "kernels/linalg/block_chol3.h"
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

/* Y's blocks zeroed before a forward solve from position k: all of them (whole), or only those
 * on k's tree path, the only ones the solve writes or reads (a caller that reads Y on that path
 * alone, schur_gram, skips the rest). */
static inline ISO_HD ISO_INLINE void schur_unit3_clear(const bcholView *v, int k, int whole, real *ISO_RESTRICT Y) {
  if (whole)
    for (int i = 0; i < 9 * v->n; ++i) Y[i] = 0;
  else
    for (int j = k; j >= 0; j = v->parent[j])
      for (int i = 0; i < 9; ++i) Y[9 * j + i] = 0;
  for (int c = 0; c < 3; ++c) Y[9 * k + 3 * c + c] = 1;
}

/* schur_forward_unit for the three axes of the vertex at position k at once, into Y (3n × 3
 * row-major, side c = axis c; bchol_lower_column3): each side with the single solve's bits on
 * k's path, exact zeros elsewhere where whole (schur_unit3_clear). */
static inline ISO_HD void schur_forward_unit3_portable(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                                       int whole, real *ISO_RESTRICT Y) {
  schur_unit3_clear(v, k, whole, Y);
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column3(v, Lv, j, Y);
}
#if ISO_AVX2
/* The same, the three sides in four lanes (bchol_lower_column3_avx2): the same bits. */
static inline ISO_AVX2_FN void schur_forward_unit3_avx2(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                                        int whole, real *ISO_RESTRICT Y) {
  schur_unit3_clear(v, k, whole, Y);
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column3_avx2(v, Lv, j, Y);
}
/* Eight lanes (bchol_lower_column3_avx512): the same bits. */
static inline ISO_AVX512_FN void schur_forward_unit3_avx512(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                                          int whole, real *ISO_RESTRICT Y) {
  schur_unit3_clear(v, k, whole, Y);
  for (int j = k; j >= 0; j = v->parent[j]) bchol_lower_column3_avx512(v, Lv, j, Y);
}
#endif
static inline ISO_HD void schur_forward_unit3_on(const bcholView *v, const real *ISO_RESTRICT Lv, int k, int whole,
                                                 real *ISO_RESTRICT Y) {
#if ISO_AVX2
  if (iso_cpu_avx512()) {
    schur_forward_unit3_avx512(v, Lv, k, whole, Y);
    return;
  }
  if (iso_cpu_avx2()) {
    schur_forward_unit3_avx2(v, Lv, k, whole, Y);
    return;
  }
#endif
  schur_forward_unit3_portable(v, Lv, k, whole, Y);
}
static inline ISO_HD void schur_forward_unit3(const bcholView *v, const real *ISO_RESTRICT Lv, int k,
                                              real *ISO_RESTRICT Y) {
  schur_forward_unit3_on(v, Lv, k, 1, Y);
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

/* acc (3x3 row-major) += Ya^T Yb over the tree path from position j to its root, Ya and Yb the
 * blocks of two vertices' three forward solves kept in panels (9 reals per position of U, at
 * uidx's index; rows = DoFs of the position, columns = sides): entry (c1, c2) adds
 * (a_0c1 b_0c2 + a_1c1 b_1c2) + a_2c1 b_2c2 per position, in path order. */
static inline ISO_HD void schur_gram_path_portable(const bcholView *v, int j, const int *ISO_RESTRICT uidx,
                                                   const real *ISO_RESTRICT pa, const real *ISO_RESTRICT pb,
                                                   real acc[9]) {
  for (; j >= 0; j = v->parent[j]) {
    const real *a = pa + 9L * uidx[j], *b = pb + 9L * uidx[j];
    for (int c1 = 0; c1 < 3; ++c1)
      for (int c2 = 0; c2 < 3; ++c2)
        acc[3 * c1 + c2] += a[c1] * b[c2] + a[3 + c1] * b[3 + c2] + a[6 + c1] * b[6 + c2];
  }
}
#if ISO_AVX2
/* The same, row c1 of acc in the lanes of one register (lane 3 unused): the same bits. */
static inline ISO_AVX2_FN void schur_gram_path_avx2(const bcholView *v, int j, const int *ISO_RESTRICT uidx,
                                                    const real *ISO_RESTRICT pa, const real *ISO_RESTRICT pb,
                                                    real acc[9]) {
  __m256d x0 = bchol_row4(acc), x1 = bchol_row4(acc + 3), x2 = bchol_row4(acc + 6);
  for (; j >= 0; j = v->parent[j]) {
    const real *a = pa + 9L * uidx[j], *b = pb + 9L * uidx[j];
    const __m256d b0 = bchol_row4(b), b1 = bchol_row4(b + 3), b2 = bchol_row4(b + 6);
    x0 = _mm256_add_pd(x0, bchol_bt_row4(a, 0, b0, b1, b2));
    x1 = _mm256_add_pd(x1, bchol_bt_row4(a, 1, b0, b1, b2));
    x2 = _mm256_add_pd(x2, bchol_bt_row4(a, 2, b0, b1, b2));
  }
  real t[12];
  _mm256_storeu_pd(t, x0);
  _mm256_storeu_pd(t + 4, x1);
  _mm256_storeu_pd(t + 8, x2);
  for (int c = 0; c < 3; ++c) acc[c] = t[c], acc[3 + c] = t[4 + c], acc[6 + c] = t[8 + c];
}
#endif
static inline ISO_HD void schur_gram_path(const bcholView *v, int j, const int *ISO_RESTRICT uidx,
                                          const real *ISO_RESTRICT pa, const real *ISO_RESTRICT pb, real acc[9]) {
#if ISO_AVX2
  if (iso_cpu_avx2()) {
    schur_gram_path_avx2(v, j, uidx, pa, pb, acc);
    return;
  }
#endif
  schur_gram_path_portable(v, j, uidx, pa, pb, acc);
}

/* Reals of storage schur_gram needs past W: Y3 (9n) and the panels (9 per vertex and position
 * of U). */
static inline ISO_HD long long schur_gram_room(int n, int np, int npath) {
  return 9LL * n + 9LL * np * npath;
}

/* W = (T⁻¹)_pp = YᵀY (Y = L⁻¹PE) for the np vertices pv (mesh order; W's row and column 3s + axis
 * for pv[s]), W m×m column-major with m = 3·np: its lower triangle and its diagonal blocks whole.
 * path[0..npath) is the union U of their tree paths, descending (schur_path_union); uidx (n ints)
 * is scratch, overwritten with each position's index in U. Each vertex's three forward solves
 * at once (schur_forward_unit3 into store, 9n reals: the single solve's bits), their blocks on
 * its path kept in its panel (store + 9n + 9·npath·s); then block (s, t) of W, one sum over the
 * path above the two vertices' lowest common ancestor, where both are nonzero (no block where
 * either is an exact zero; two trees of the forest share none, and their block is 0).
 * Against reading W from back solves (one solve on U per vertex, as many blocks of L as U's
 * columns hold), a sum over a shared path per pair of vertices. store: schur_gram_room reals. */
static inline ISO_HD void schur_gram(const bcholView *v, const real *ISO_RESTRICT Lv, int np,
                                     const int *ISO_RESTRICT pv, const int *ISO_RESTRICT path, int npath,
                                     int *ISO_RESTRICT uidx, real *ISO_RESTRICT store, real *ISO_RESTRICT W) {
  const int m = 3 * np;
  real *Y3 = store, *panel = store + 9L * v->n;
  for (int q = 0; q < npath; ++q) uidx[path[q]] = q;
  for (int s = 0; s < np; ++s) {
    const int k = v->iperm[pv[s]];
    schur_forward_unit3_on(v, Lv, k, 0, Y3); /* its path alone is read */
    real *ps = panel + 9L * npath * s;
    for (int j = k; j >= 0; j = v->parent[j])
      for (int i = 0; i < 9; ++i) ps[9L * uidx[j] + i] = Y3[9 * j + i];
  }
  for (int t = 0; t < np; ++t)
    for (int s = t; s < np; ++s) {
      int a = v->iperm[pv[s]], b = v->iperm[pv[t]];
      while (a != b && a >= 0 && b >= 0) { /* parents come later: the lower one climbs */
        if (a < b) a = v->parent[a];
        else b = v->parent[b];
      }
      real acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      if (a == b && a >= 0) schur_gram_path(v, a, uidx, panel + 9L * npath * s, panel + 9L * npath * t, acc);
      for (int c1 = 0; c1 < 3; ++c1)
        for (int c2 = 0; c2 < 3; ++c2) W[(long long)(3 * t + c2) * m + 3 * s + c1] = acc[3 * c1 + c2];
    }
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
