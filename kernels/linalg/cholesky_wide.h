/* The envelope Cholesky (kernels/linalg/cholesky.h, chol_factor_env) eight lanes wide where the
 * CPU has AVX-512F, and the entry point that picks the widest route: chol_factor_env_fast.
 *
 * SAP's Newton Hessian of a grasped soft body is dense over its participating DoFs (n ~ 60-80)
 * and is factored a dozen times a step. Compiled for AVX2, the column-pair update runs its rows
 * four at a time and the last one to three in a scalar loop; at these sizes a column pair's
 * segment is ~20 rows, so the scalar remainders and loop control took 40 % of the factor's
 * instructions. Here a segment is eight rows per pass and its tail one masked pass.
 *
 * Bits: every entry takes the scalar loop's terms in its order, each product rounded and then
 * subtracted (AVX-512F's fused forms are never asked for, and the build does not contract), so
 * every route gives chol_factor_env's bits, info included (tests/test_cholesky.c). */
#ifndef ISO_KERNELS_LINALG_CHOLESKY_WIDE_H
#define ISO_KERNELS_LINALG_CHOLESKY_WIDE_H

#include "kernels/core.h"
#include "kernels/linalg/cholesky.h"

#if ISO_AVX2
#include <immintrin.h>

/* The lanes of rows i..end−1 when fewer than eight are left (i < end). */
static inline ISO_AVX512_FN __mmask8 chol_wide_tail(int i, int end) {
  return (__mmask8)((1u << (end - i)) - 1u);
}

/* The lowest nonzero row of column k at or below row k (k itself when there is none): the scalar
 * scan's answer (chol_factor_env_inline), eight rows per test. A NaN counts as nonzero in both
 * (it is not == 0, and it is unordered-not-equal to 0); −0 counts as zero in both. */
static inline ISO_AVX512_FN int chol_wide_lowest(int n, const real *ck, int k) {
  int i = n - 1;
  const __m512d z = _mm512_setzero_pd();
  for (; i - 7 > k; i -= 8) {
    const __mmask8 nz = _mm512_cmp_pd_mask(_mm512_loadu_pd(ck + i - 7), z, _CMP_NEQ_UQ);
    if (nz) return i - 7 + (31 - __builtin_clz((unsigned)nz));
  }
  while (i > k && ck[i] == (real)0) --i;
  return i;
}

/* cj[i] *= inv for i in [from, end): chol_column_finish's scale. */
static inline ISO_AVX512_FN void chol_wide_scale(real *ISO_RESTRICT cj, int from, int end, real inv) {
  const __m512d s = _mm512_set1_pd(inv);
  int i = from;
  for (; i + 8 <= end; i += 8) _mm512_storeu_pd(cj + i, _mm512_mul_pd(_mm512_loadu_pd(cj + i), s));
  if (i < end) {
    const __mmask8 m = chol_wide_tail(i, end);
    _mm512_mask_storeu_pd(cj + i, m, _mm512_mul_pd(_mm512_maskz_loadu_pd(m, cj + i), s));
  }
}

/* chol_column_finish (env), its scale eight lanes wide. */
static inline ISO_AVX512_FN int chol_wide_finish(int n, real *ISO_RESTRICT A, int j) {
  real *ISO_RESTRICT cj = A + (long long)j * n;
  real d = cj[j];
  if (!(d > (real)0)) return j + 1;
  d = sqrt(d);
  cj[j] = d;
  chol_wide_scale(cj, j + 1, chol_env_last(n, A, j) + 1, (real)1 / d);
  return 0;
}

/* Rows [i, ...) of a column pair's four-column update, eight of them, under mask m: x −= a0·t0,
 * −= a1·t1, −= a2·t2, −= a3·t3 in turn, for column j (t) and column j + 1 (u). */
static inline ISO_AVX512_FN void chol_wide_sub4(real *ISO_RESTRICT cj, real *ISO_RESTRICT cj1,
                                                const real *const c[4], int i, __mmask8 m, const __m512d t[4],
                                                const __m512d u[4]) {
  const __m512d a0 = _mm512_maskz_loadu_pd(m, c[0] + i), a1 = _mm512_maskz_loadu_pd(m, c[1] + i);
  const __m512d a2 = _mm512_maskz_loadu_pd(m, c[2] + i), a3 = _mm512_maskz_loadu_pd(m, c[3] + i);
  __m512d x = _mm512_maskz_loadu_pd(m, cj + i), y = _mm512_maskz_loadu_pd(m, cj1 + i);
  x = _mm512_sub_pd(x, _mm512_mul_pd(a0, t[0]));
  y = _mm512_sub_pd(y, _mm512_mul_pd(a0, u[0]));
  x = _mm512_sub_pd(x, _mm512_mul_pd(a1, t[1]));
  y = _mm512_sub_pd(y, _mm512_mul_pd(a1, u[1]));
  x = _mm512_sub_pd(x, _mm512_mul_pd(a2, t[2]));
  y = _mm512_sub_pd(y, _mm512_mul_pd(a2, u[2]));
  x = _mm512_sub_pd(x, _mm512_mul_pd(a3, t[3]));
  y = _mm512_sub_pd(y, _mm512_mul_pd(a3, u[3]));
  _mm512_mask_storeu_pd(cj + i, m, x);
  _mm512_mask_storeu_pd(cj1 + i, m, y);
}

/* Rows [i, ...) under mask m of the one-column update of a pair: cj −= a·t, cj1 −= a·u. */
static inline ISO_AVX512_FN void chol_wide_sub1(real *ISO_RESTRICT cj, real *ISO_RESTRICT cj1,
                                                const real *ISO_RESTRICT c0, int i, __mmask8 m, __m512d t,
                                                __m512d u) {
  const __m512d a = _mm512_maskz_loadu_pd(m, c0 + i);
  _mm512_mask_storeu_pd(cj + i, m, _mm512_sub_pd(_mm512_maskz_loadu_pd(m, cj + i), _mm512_mul_pd(a, t)));
  _mm512_mask_storeu_pd(cj1 + i, m, _mm512_sub_pd(_mm512_maskz_loadu_pd(m, cj1 + i), _mm512_mul_pd(a, u)));
}

/* chol_env_column2, eight lanes wide: the same passes over the same rows. */
static inline ISO_AVX512_FN int chol_env_column2_avx512(int n, real *ISO_RESTRICT A, int j, int k0) {
  real *ISO_RESTRICT cj = A + (long long)j * n;
  real *ISO_RESTRICT cj1 = cj + n;
  int k = k0;
  for (; k + 3 < j; k += 4) {
    const int end = chol_env_last(n, A, k + 3) + 1;
    const real *c[4];
    c[0] = A + (long long)k * n, c[1] = c[0] + n, c[2] = c[1] + n, c[3] = c[2] + n;
    const real t0 = c[0][j], t1 = c[1][j], t2 = c[2][j], t3 = c[3][j];
    __m512d t[4], u[4];
    t[0] = _mm512_set1_pd(t0), t[1] = _mm512_set1_pd(t1), t[2] = _mm512_set1_pd(t2), t[3] = _mm512_set1_pd(t3);
    for (int q = 0; q < 4; ++q) u[q] = _mm512_set1_pd(c[q][j + 1]);
    cj[j] = cj[j] - c[0][j] * t0 - c[1][j] * t1 - c[2][j] * t2 - c[3][j] * t3;
    int i = j + 1;
    for (; i + 8 <= end; i += 8) chol_wide_sub4(cj, cj1, c, i, (__mmask8)0xff, t, u);
    if (i < end) chol_wide_sub4(cj, cj1, c, i, chol_wide_tail(i, end), t, u);
  }
  for (; k < j; ++k) {
    const int end = chol_env_last(n, A, k) + 1;
    const real *ISO_RESTRICT c0 = A + (long long)k * n;
    const real t0 = c0[j];
    const __m512d t = _mm512_set1_pd(t0), u = _mm512_set1_pd(c0[j + 1]);
    cj[j] -= c0[j] * t0;
    int i = j + 1;
    for (; i + 8 <= end; i += 8) chol_wide_sub1(cj, cj1, c0, i, (__mmask8)0xff, t, u);
    if (i < end) chol_wide_sub1(cj, cj1, c0, i, chol_wide_tail(i, end), t, u);
  }
  const int info = chol_wide_finish(n, A, j);
  if (info) return info;
  const int end = chol_env_last(n, A, j) + 1;
  const __m512d t = _mm512_set1_pd(cj[j + 1]);
  int i = j + 1;
  for (; i + 8 <= end; i += 8)
    _mm512_storeu_pd(cj1 + i, _mm512_sub_pd(_mm512_loadu_pd(cj1 + i), _mm512_mul_pd(_mm512_loadu_pd(cj + i), t)));
  if (i < end) {
    const __mmask8 m = chol_wide_tail(i, end);
    const __m512d l = _mm512_maskz_loadu_pd(m, cj + i);
    _mm512_mask_storeu_pd(cj1 + i, m, _mm512_sub_pd(_mm512_maskz_loadu_pd(m, cj1 + i), _mm512_mul_pd(l, t)));
  }
  return chol_wide_finish(n, A, j + 1);
}

/* chol_factor_env_inline with the column pairs, the scale and the envelope scan eight lanes wide;
 * an odd n's last column alone as there (chol_column, compiled here). */
static inline ISO_AVX512_FN int chol_factor_env_avx512(int n, real *ISO_RESTRICT A) {
  real run = 0;
  for (int k = 0; k < n - 1; ++k) {
    const int i = chol_wide_lowest(n, A + (long long)k * n, k);
    if ((real)i > run) run = (real)i;
    *chol_env_last_slot(n, A, k) = run;
  }
  int k0 = 0, j = 0;
  for (; j + 1 < n; j += 2) {
    while (k0 < j && chol_env_last(n, A, k0) < j) ++k0;
    const int info = chol_env_column2_avx512(n, A, j, k0);
    if (info) return info;
  }
  for (; j < n; ++j) {
    while (k0 < j && chol_env_last(n, A, k0) < j) ++k0;
    const int info = chol_column(n, A, j, k0, 1);
    if (info) return info;
  }
  return 0;
}
#endif

/* chol_factor_env on the widest route the CPU has: eight lanes (AVX-512F), four (AVX2), or the
 * portable loops; the same bits on each. */
static inline ISO_HD int chol_factor_env_fast(int n, real *ISO_RESTRICT A) {
#if ISO_AVX2
  if (iso_cpu_avx512()) return chol_factor_env_avx512(n, A);
  if (iso_cpu_avx2()) return chol_factor_env_avx2(n, A);
#endif
  return chol_factor_env(n, A);
}

#endif
