/* Solves with a deformable body's block Cholesky factor (kernels/linalg/block_chol.h) for three
 * right-hand sides at once: the three axes of one vertex, each a column of the Schur
 * complement's Y = L⁻¹PE (kernels/linalg/schur.h). A block Y_j holds the three sides as
 * Y_j[3·r + k] (component r, side k), so each block of L is read once for the three. Every
 * route (the portable pair loops, four lanes on AVX2, eight on AVX-512F) gives each side the
 * single-side solve's bits (tests/test_block_chol.c). */
#ifndef ISO_KERNELS_LINALG_BLOCK_CHOL3_H
#define ISO_KERNELS_LINALG_BLOCK_CHOL3_H

#include "kernels/core.h"
#include "kernels/linalg/block_chol.h"

/* Y_j = L_jj^-1 Y_j and L_jj^-T Y_j for a block yj of three sides (yj[3·r + k]: component r,
 * side k): bchol_diag_lower's and bchol_diag_upper's operations on each side. */
static inline ISO_HD ISO_INLINE void bchol_diag_lower3(const real *ISO_RESTRICT D, real *ISO_RESTRICT yj) {
  for (int k = 0; k < 3; ++k) {
    const real y0 = yj[k] / D[0];
    const real y1 = (yj[3 + k] - D[3] * y0) / D[4];
    const real y2 = (yj[6 + k] - D[6] * y0 - D[7] * y1) / D[8];
    yj[k] = y0, yj[3 + k] = y1, yj[6 + k] = y2;
  }
}
static inline ISO_HD ISO_INLINE void bchol_diag_upper3(const real *ISO_RESTRICT D, real *ISO_RESTRICT yj) {
  for (int k = 0; k < 3; ++k) {
    const real y2 = yj[6 + k] / D[8];
    const real y1 = (yj[3 + k] - D[7] * y2) / D[4];
    const real y0 = (yj[k] - D[3] * y1 - D[6] * y2) / D[0];
    yj[k] = y0, yj[3 + k] = y1, yj[6 + k] = y2;
  }
}

/* The forward and back steps of block column j on three right-hand sides at once: Y is 3n × 3
 * row-major (Y[3·dof + k] is right-hand side k's entry), each side getting bchol_lower_column's
 * and bchol_upper_column's operations in their order (the same bits as three single solves),
 * while each block of L is read once for the three. */
static inline ISO_HD ISO_INLINE void bchol_lower_column3(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                         real *ISO_RESTRICT Y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = Y + 9 * j; /* yj[3·r + k]: component r, side k */
  bchol_diag_lower3(Lv + 9 * (long long)d, yj);
#if ISO_PAIRS /* sides 0 and 1 in the two lanes, side 2 alone */
  const isoPair j0 = {yj[0], yj[1]}, j1 = {yj[3], yj[4]}, j2 = {yj[6], yj[7]};
#endif
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    real *yi = Y + 9 * v->row[s];
    for (int r = 0; r < 3; ++r) {
#if ISO_PAIRS
      isoPair x = {yi[3 * r], yi[3 * r + 1]};
      x -= B[3 * r] * j0 + B[3 * r + 1] * j1 + B[3 * r + 2] * j2;
      yi[3 * r] = x[0], yi[3 * r + 1] = x[1];
      yi[3 * r + 2] -= B[3 * r] * yj[2] + B[3 * r + 1] * yj[5] + B[3 * r + 2] * yj[8];
#else
      for (int k = 0; k < 3; ++k) yi[3 * r + k] -= B[3 * r] * yj[k] + B[3 * r + 1] * yj[3 + k] + B[3 * r + 2] * yj[6 + k];
#endif
    }
  }
}

static inline ISO_HD ISO_INLINE void bchol_upper_column3(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                         real *ISO_RESTRICT Y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = Y + 9 * j;
#if ISO_PAIRS /* sides 0 and 1 in the two lanes, side 2 alone */
  isoPair x0 = {yj[0], yj[1]}, x1 = {yj[3], yj[4]}, x2 = {yj[6], yj[7]};
  real z0 = yj[2], z1 = yj[5], z2 = yj[8];
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    const real *xi = Y + 9 * v->row[s];
    const isoPair i0 = {xi[0], xi[1]}, i1 = {xi[3], xi[4]}, i2 = {xi[6], xi[7]};
    x0 -= B[0] * i0 + B[3] * i1 + B[6] * i2;
    x1 -= B[1] * i0 + B[4] * i1 + B[7] * i2;
    x2 -= B[2] * i0 + B[5] * i1 + B[8] * i2;
    z0 -= B[0] * xi[2] + B[3] * xi[5] + B[6] * xi[8];
    z1 -= B[1] * xi[2] + B[4] * xi[5] + B[7] * xi[8];
    z2 -= B[2] * xi[2] + B[5] * xi[5] + B[8] * xi[8];
  }
  yj[0] = x0[0], yj[1] = x0[1], yj[2] = z0;
  yj[3] = x1[0], yj[4] = x1[1], yj[5] = z1;
  yj[6] = x2[0], yj[7] = x2[1], yj[8] = z2;
#else
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    const real *xi = Y + 9 * v->row[s];
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) yj[3 * c + k] -= B[c] * xi[k] + B[3 + c] * xi[3 + k] + B[6 + c] * xi[6 + k];
  }
#endif
  bchol_diag_upper3(Lv + 9 * (long long)d, yj);
}

#if ISO_AVX2
/* (x[0], x[1], x[2], 0), reading nothing past x[2]. */
static inline ISO_AVX2_FN __m256d bchol_row4(const real *x) {
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(x)), _mm_load_sd(x + 2), 1);
}

/* bchol_lower_column3 with the three sides in the lanes of one register (bchol_sub_abt_avx2
 * with bt_m = row m of Y_j): each side the scalar loop's operations in its order. */
static inline ISO_AVX2_FN void bchol_lower_column3_avx2(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                        real *ISO_RESTRICT Y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = Y + 9 * j;
  bchol_diag_lower3(Lv + 9 * (long long)d, yj);
  const __m256d j0 = bchol_row4(yj), j1 = bchol_row4(yj + 3), j2 = bchol_row4(yj + 6);
  for (int s = d + 1; s < e; ++s)
    bchol_sub_abt_avx2(Y + 9 * v->row[s], Lv + 9 * (long long)s, yj[2], yj[5], yj[8], j0, j1, j2);
}

/* bchol_lower_column3 eight lanes wide: Y_i -= L_ij Y_j is bchol_sub_abt9_avx512 with B = Y_jᵀ,
 * each entry the scalar loop's operations in its order. */
static inline ISO_AVX512_FN void bchol_lower_column3_avx512(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                          real *ISO_RESTRICT Y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = Y + 9 * j;
  bchol_diag_lower3(Lv + 9 * (long long)d, yj);
  const __m512i i0 = _mm512_set_epi64(6, 6, 3, 3, 3, 0, 0, 0), i1 = _mm512_set_epi64(7, 7, 4, 4, 4, 1, 1, 1);
  __m512d b[3]; /* lane (r, c) holds B_cm = Y_j[m][c] */
  for (int m = 0; m < 3; ++m) {
    const real *y = yj + 3 * m;
    b[m] = _mm512_set_pd(y[1], y[0], y[2], y[1], y[0], y[2], y[1], y[0]);
  }
  for (int s = d + 1; s < e; ++s)
    bchol_sub_abt9_avx512(Y + 9 * v->row[s], Lv + 9 * (long long)s, b, i0, i1, yj[2], yj[5], yj[8]);
}

/* Row c of Bᵀ·X, X's rows r0, r1, r2 in lanes: (B_0c·r0 + B_1c·r1) + B_2c·r2, B a 3 × 3 block
 * (row-major), in the scalar loops' order. */
static inline ISO_AVX2_FN __m256d bchol_bt_row4(const real *B, int c, __m256d r0, __m256d r1, __m256d r2) {
  const __m256d p0 = _mm256_mul_pd(_mm256_set1_pd(B[c]), r0), p1 = _mm256_mul_pd(_mm256_set1_pd(B[3 + c]), r1);
  return _mm256_add_pd(_mm256_add_pd(p0, p1), _mm256_mul_pd(_mm256_set1_pd(B[6 + c]), r2));
}

/* bchol_upper_column3 four lanes wide: row c of Y_j (lanes = sides) gathers
 * (B_0c·X_0 + B_1c·X_1) + B_2c·X_2 of every block below, X_m row m of the block's row of Y, in
 * slot order as the scalar loop does. Rows 0 and 1 are kept four wide (their fourth lane is
 * the next row's first entry plus rounding noise, overwritten by the next row's store); row 2
 * is stored as three entries. */
static inline ISO_AVX2_FN void bchol_upper_column3_avx2(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                        real *ISO_RESTRICT Y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = Y + 9 * j;
  __m256d x0 = _mm256_loadu_pd(yj), x1 = _mm256_loadu_pd(yj + 3), x2 = bchol_row4(yj + 6);
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    const real *xi = Y + 9 * v->row[s];
    const __m256d r0 = _mm256_loadu_pd(xi), r1 = _mm256_loadu_pd(xi + 3), r2 = bchol_row4(xi + 6);
    x0 = _mm256_sub_pd(x0, bchol_bt_row4(B, 0, r0, r1, r2));
    x1 = _mm256_sub_pd(x1, bchol_bt_row4(B, 1, r0, r1, r2));
    x2 = _mm256_sub_pd(x2, bchol_bt_row4(B, 2, r0, r1, r2));
  }
  _mm256_storeu_pd(yj, x0);
  _mm256_storeu_pd(yj + 3, x1);
  _mm_storeu_pd(yj + 6, _mm256_castpd256_pd128(x2));
  _mm_store_sd(yj + 8, _mm256_extractf128_pd(x2, 1));
  bchol_diag_upper3(Lv + 9 * (long long)d, yj);
}

static inline ISO_AVX2_FN void bchol_upper_solve_on3_avx2(const bcholView *v, const real *ISO_RESTRICT Lv,
                                                          const int *cols, int ncol, real *ISO_RESTRICT Y) {
  for (int k = 0; k < ncol; ++k) bchol_upper_column3_avx2(v, Lv, cols[k], Y);
}
#endif

/* bchol_upper_solve_on on three right-hand sides (Y as in bchol_lower_column3); four lanes wide
 * where the CPU has AVX2, the same bits. */
static inline ISO_HD void bchol_upper_solve_on3_portable(const bcholView *v, const real *ISO_RESTRICT Lv,
                                                         const int *cols, int ncol, real *ISO_RESTRICT Y) {
  for (int k = 0; k < ncol; ++k) bchol_upper_column3(v, Lv, cols[k], Y);
}
static inline ISO_HD void bchol_upper_solve_on3(const bcholView *v, const real *ISO_RESTRICT Lv, const int *cols,
                                                int ncol, real *ISO_RESTRICT Y) {
#if ISO_AVX2
  if (iso_cpu_avx2()) {
    bchol_upper_solve_on3_avx2(v, Lv, cols, ncol, Y);
    return;
  }
#endif
  bchol_upper_solve_on3_portable(v, Lv, cols, ncol, Y);
}

#endif
