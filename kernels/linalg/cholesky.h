/* Dense Cholesky of one symmetric positive definite matrix, and the solve with its factor: the
 * per-world work behind stage 7 (SAP's Newton step solves H dv = -g with H dense per world).
 *
 * Layout: column-major, leading dimension n, as LAPACK and cuSOLVER expect, so one buffer
 * serves every backend. Only the lower triangle is read; it is overwritten by L with
 * A = L L^T. The strict upper triangle is neither read nor written.
 *
 * Both loops walk columns, so every inner loop runs over contiguous memory:
 *  - chol_factor is left-looking ("jki"): column j receives the updates of columns 0..j-1
 *    (axpys down the column), then one sqrt and one reciprocal scale it. The column being
 *    built stays in L1 while the finished columns stream past it; the only sqrt and the only
 *    division sit in the outer loop.
 *  - chol_solve does the forward substitution L y = b column by column (axpys) and the back
 *    substitution L^T x = y as dot products down the columns of L (rows of L^T), each in four
 *    partial sums (chol_dot4).
 * Four columns of updates are applied per pass over column j, which quarters the loads and
 * stores of column j (about 30% faster than one or two at n >= 48, same speed for small n);
 * the order of operations is fixed, so results do not depend on the caller.
 *
 * info follows LAPACK's dpotrf: 0 on success, k > 0 when the leading minor of order k is not
 * positive definite (its pivot was <= 0 or NaN; the factorization stops there and columns k..n-1
 * hold partial updates). A NaN anywhere in the lower triangle reaches a pivot, so it always
 * gives info > 0; like LAPACK, a +inf diagonal entry alone passes (its column of L becomes 0).
 */
#ifndef ISO_KERNELS_LINALG_CHOLESKY_H
#define ISO_KERNELS_LINALG_CHOLESKY_H

#include "kernels/core.h"

/* The axpy loops below have independent iterations, so vectorizing them changes no result. GCC
 * at -O2 only vectorizes loops needing no remainder code, so ask for it explicitly when OpenMP
 * is on (the CPU build always has it); nvcc and non-OpenMP builds see nothing. */
#if defined(_OPENMP) && !defined(__CUDACC__)
#define CHOL_SIMD _Pragma("omp simd")
#else
#define CHOL_SIMD
#endif

/* Where chol_factor_env keeps last_k (see the envelope variant below): the strict upper triangle,
 * row 0, column k + 1 (k < n − 1), which the dense pair never reads. */
static inline ISO_HD real *chol_env_last_slot(int n, real *A, int k) { return A + (long long)(k + 1) * n; }

static inline ISO_HD int chol_env_last(int n, const real *A, int k) {
  return k < n - 1 ? (int)A[(long long)(k + 1) * n] : n - 1;
}

/* The pivot and scale of column j, its updates received. With env its rows end at its last_j
 * (chol_factor_env); without, at n. Returns 0, or j + 1 when the pivot is not positive. */
static inline ISO_HD ISO_INLINE int chol_column_finish(int n, real *ISO_RESTRICT A, int j, int env) {
  real *ISO_RESTRICT cj = A + (long long)j * n;
  real d = cj[j];
  /* !(d > 0) is also true for NaN: a NaN pivot is not positive (LAPACK checks DISNAN). */
  if (!(d > (real)0)) return j + 1;
  d = sqrt(d);
  cj[j] = d;
  real inv = (real)1 / d;
  const int end = env ? chol_env_last(n, A, j) + 1 : n;
  CHOL_SIMD
  for (int i = j + 1; i < end; ++i) cj[i] *= inv;
  return 0;
}

/* Column j of the left-looking factor: cj[j..] -= L[j.., k]·L[j, k] for k0 <= k < j, four
 * columns per pass over column j, then its pivot and scale (chol_column_finish). With env, each
 * column's rows end at its last_k (chol_factor_env); without, at n. Returns 0, or j + 1 when the
 * pivot is not positive. */
static inline ISO_HD ISO_INLINE int chol_column(int n, real *ISO_RESTRICT A, int j, int k0, int env) {
  real *ISO_RESTRICT cj = A + (long long)j * n; /* column j */
  int k = k0;
  for (; k + 3 < j; k += 4) {
    const int end = env ? chol_env_last(n, A, k + 3) + 1 : n; /* last_k grows with k */
    const real *ISO_RESTRICT c0 = A + (long long)k * n;
    const real *ISO_RESTRICT c1 = c0 + n;
    const real *ISO_RESTRICT c2 = c1 + n;
    const real *ISO_RESTRICT c3 = c2 + n;
    real t0 = c0[j], t1 = c1[j], t2 = c2[j], t3 = c3[j];
    CHOL_SIMD
    for (int i = j; i < end; ++i) cj[i] = cj[i] - c0[i] * t0 - c1[i] * t1 - c2[i] * t2 - c3[i] * t3;
  }
  for (; k < j; ++k) {
    const int end = env ? chol_env_last(n, A, k) + 1 : n;
    const real *ISO_RESTRICT c0 = A + (long long)k * n;
    real t0 = c0[j];
    CHOL_SIMD
    for (int i = j; i < end; ++i) cj[i] -= c0[i] * t0;
  }
  return chol_column_finish(n, A, j, env);
}

/* Factor A (n x n, column-major, lower) in place into L. Returns LAPACK-style info. */
static inline ISO_HD int chol_factor(int n, real *ISO_RESTRICT A) {
  for (int j = 0; j < n; ++j) {
    const int info = chol_column(n, A, j, 0, 0);
    if (info) return info;
  }
  return 0;
}

/* LAPACK's info read off a finished factor: k when L's k-th diagonal entry (1-based) is the
 * first that is not positive or is NaN, else 0. A library factor that lets a NaN pass (cuSOLVER's
 * potrfBatched reports info 0 for it) gives the same info as chol_factor through this: the NaN
 * reaches the diagonal of the column where chol_factor would have stopped, and no earlier one. */
static inline ISO_HD int chol_info_of_factor(int n, const real *L) {
  for (int j = 0; j < n; ++j)
    if (!(L[j + (long long)j * n] > 0)) return j + 1;
  return 0;
}

/* Σ x[i]·y[i] over from <= i < end for the back substitutions: term i goes into partial sum
 * (i − from) mod 4, and the sums are combined as (s0 + s1) + (s2 + s3). One running sum made
 * each row of Lᵀx = y a chain of dependent subtractions as long as the row, and the rows one
 * chain after another (row j needs x_{j+1}): at n ~ 80 (a grasped soft body's SAP Hessian) that
 * chain was half of a solve's time. Every solve below uses it, so they keep each other's bits
 * (the envelope's skipped rows add exact zeros to their sums). */
static inline ISO_HD ISO_INLINE real chol_dot4(const real *ISO_RESTRICT x, const real *ISO_RESTRICT y, int from,
                                               int end) {
  real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = from;
  for (; i + 3 < end; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  if (i < end) s0 += x[i] * y[i];
  if (i + 1 < end) s1 += x[i + 1] * y[i + 1];
  if (i + 2 < end) s2 += x[i + 2] * y[i + 2];
  return (s0 + s1) + (s2 + s3);
}

/* Solve L L^T x = b in place (b becomes x), L from chol_factor with info == 0. */
static inline ISO_HD void chol_solve(int n, const real *ISO_RESTRICT L, real *ISO_RESTRICT b) {
  /* forward: L y = b, column j eliminates y_j from the rows below it */
  for (int j = 0; j < n; ++j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    real y = b[j] / cj[j];
    b[j] = y;
    CHOL_SIMD
    for (int i = j + 1; i < n; ++i) b[i] -= cj[i] * y;
  }
  /* back: L^T x = y, row j of L^T is column j of L */
  for (int j = n - 1; j >= 0; --j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    b[j] = (b[j] - chol_dot4(cj, b, j + 1, n)) / cj[j];
  }
}

/* Rows c..n-1 of column c of (L Lᵀ)⁻¹ into b[c..n-1] (b[0..c) is left alone), with chol_solve's
 * bits on e_c there: the forward solve's rows above c are exact zeros, and the back solve's row
 * j reads only the rows below it. A whole inverse's lower triangle this way costs a third of n
 * full solves. */
static inline ISO_HD void chol_solve_unit_tail(int n, const real *ISO_RESTRICT L, int c, real *ISO_RESTRICT b) {
  for (int i = c; i < n; ++i) b[i] = i == c ? (real)1 : (real)0;
  for (int j = c; j < n; ++j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    real y = b[j] / cj[j];
    b[j] = y;
    CHOL_SIMD
    for (int i = j + 1; i < n; ++i) b[i] -= cj[i] * y;
  }
  for (int j = n - 1; j >= c; --j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    b[j] = (b[j] - chol_dot4(cj, b, j + 1, n)) / cj[j];
  }
}

/* chol_solve_unit_tail for columns c..c+3 at once (c + 3 < n), into B (4 columns of n reals,
 * column q in B + q·n, rows c + q.. written): each column gets chol_solve_unit_tail's bits, as
 * each takes the same terms in the same order; a column of L is read once for the four in the
 * forward solve. */
static inline ISO_HD ISO_INLINE void chol_solve_unit_tail4_inline(int n, const real *ISO_RESTRICT L, int c,
                                                             real *ISO_RESTRICT B) {
  real *b0 = B, *b1 = B + n, *b2 = B + 2L * n, *b3 = B + 3L * n;
  for (int i = c; i < n; ++i) b0[i] = i == c ? (real)1 : (real)0;
  for (int i = c + 1; i < n; ++i) b1[i] = i == c + 1 ? (real)1 : (real)0;
  for (int i = c + 2; i < n; ++i) b2[i] = i == c + 2 ? (real)1 : (real)0;
  for (int i = c + 3; i < n; ++i) b3[i] = i == c + 3 ? (real)1 : (real)0;
  /* forward: the first three columns of L below c alone, as columns c+1.. start later */
  for (int j = c; j < c + 3; ++j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    real *bq[3] = {b0, b1, b2};
    for (int q = 0; q <= j - c; ++q) {
      real *b = bq[q];
      const real y = b[j] / cj[j];
      b[j] = y;
      CHOL_SIMD
      for (int i = j + 1; i < n; ++i) b[i] -= cj[i] * y;
    }
  }
  for (int j = c + 3; j < n; ++j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    const real y0 = b0[j] / cj[j], y1 = b1[j] / cj[j], y2 = b2[j] / cj[j], y3 = b3[j] / cj[j];
    b0[j] = y0, b1[j] = y1, b2[j] = y2, b3[j] = y3;
    CHOL_SIMD
    for (int i = j + 1; i < n; ++i) {
      const real l = cj[i];
      b0[i] -= l * y0;
      b1[i] -= l * y1;
      b2[i] -= l * y2;
      b3[i] -= l * y3;
    }
  }
  /* back: rows down to c + 3 for all four, then the first three alone */
  for (int j = n - 1; j >= c + 3; --j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    const real s0 = chol_dot4(cj, b0, j + 1, n), s1 = chol_dot4(cj, b1, j + 1, n);
    const real s2 = chol_dot4(cj, b2, j + 1, n), s3 = chol_dot4(cj, b3, j + 1, n);
    b0[j] = (b0[j] - s0) / cj[j], b1[j] = (b1[j] - s1) / cj[j];
    b2[j] = (b2[j] - s2) / cj[j], b3[j] = (b3[j] - s3) / cj[j];
  }
  for (int j = c + 2; j >= c; --j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    real *bq[3] = {b0, b1, b2};
    for (int q = 0; q <= j - c; ++q) {
      real *b = bq[q];
      b[j] = (b[j] - chol_dot4(cj, b, j + 1, n)) / cj[j];
    }
  }
}

static inline ISO_HD void chol_solve_unit_tail4(int n, const real *ISO_RESTRICT L, int c, real *ISO_RESTRICT B) {
  chol_solve_unit_tail4_inline(n, L, c, B);
}

/* chol_solve_unit_tail4 four lanes wide where the CPU has AVX2: the same source compiled for it
 * (its vectorized loops are axpys down a column and chol_dot4's four separate sums, no FMA), so
 * the bits are the same (tests/test_cholesky.c). A soft body's Schur complement inverts its W
 * (3 × its participating vertices) this way every step. */
#if ISO_AVX2
static inline ISO_AVX2_FN void chol_solve_unit_tail4_avx2(int n, const real *ISO_RESTRICT L, int c,
                                                          real *ISO_RESTRICT B) {
  chol_solve_unit_tail4_inline(n, L, c, B);
}
#endif

static inline ISO_HD void chol_solve_unit_tail4_fast(int n, const real *ISO_RESTRICT L, int c, real *ISO_RESTRICT B) {
#if ISO_AVX2
  if (iso_cpu_avx2()) {
    chol_solve_unit_tail4_avx2(n, L, c, B);
    return;
  }
#endif
  chol_solve_unit_tail4_inline(n, L, c, B);
}

/* ---- envelope (profile) variant -------------------------------------------------------------
 * A world's SAP Hessian couples cliques only where constraints do: a stack, a chain of bodies,
 * an arch of deformable blocks give block-banded matrices, where most of the dense factor's work
 * multiplies zeros. Row i of L has its nonzeros from f_i on, f_i being the first nonzero column
 * of row i of A (fill-in never leaves this envelope), so column k of L has them in rows
 * k..last_k, last_k = max(k, max{i : f_i <= k}). chol_factor_env skips, for each column j, the
 * columns k whose last_k < j (so k < f_j: L(j, k) = 0 exactly) and the rows below last_k;
 * chol_solve_env the rows below last_j. Every term skipped is an exact zero that the dense loops would subtract in the
 * same sequential chain, so both give chol_factor's and chol_solve's bits (up to the sign of an
 * exact zero) at any sparsity, and cost the dense ones' on a full matrix plus an O(n²) scan.
 *
 * last_k is kept in the strict upper triangle, row 0, column k + 1 (k < n − 1), which the dense
 * pair never reads: callers of the _env pair must not need that row (the SAP Hessian rebuilds
 * all of H every iteration). Storing it there needs no workspace, on the GPU either. */

/* Columns j and j + 1 of the envelope factor together: each column of updates k < j is read once
 * for both, and column j + 1's chains of subtractions run beside column j's instead of after
 * them (a row's chain is as long as its column's index, and one column's rows did not fill the
 * CPU's pipelines at n ~ 80: a factor at n = 84 takes 6 % less time, -O3). Then j is finished, its own
 * update goes to j + 1, and j + 1 is finished. Each entry takes its terms in ascending k, each
 * product rounded and subtracted in turn, as chol_column does, so the bits are its, up to the
 * sign of an exact zero: from k0(j) on, where column j + 1's own start k0(j + 1) may lie later,
 * the terms it takes in between are products with its exact zeros L(j + 1, k). Returns 0, or the
 * failing column + 1. */
static inline ISO_HD ISO_INLINE int chol_env_column2(int n, real *ISO_RESTRICT A, int j, int k0) {
  real *ISO_RESTRICT cj = A + (long long)j * n;
  real *ISO_RESTRICT cj1 = cj + n;
  int k = k0;
  for (; k + 3 < j; k += 4) {
    const int end = chol_env_last(n, A, k + 3) + 1; /* >= j + 1: k0 has last_k >= j, and it grows */
    const real *ISO_RESTRICT c0 = A + (long long)k * n;
    const real *ISO_RESTRICT c1 = c0 + n;
    const real *ISO_RESTRICT c2 = c1 + n;
    const real *ISO_RESTRICT c3 = c2 + n;
    const real t0 = c0[j], t1 = c1[j], t2 = c2[j], t3 = c3[j];
    const real u0 = c0[j + 1], u1 = c1[j + 1], u2 = c2[j + 1], u3 = c3[j + 1];
    cj[j] = cj[j] - c0[j] * t0 - c1[j] * t1 - c2[j] * t2 - c3[j] * t3;
    CHOL_SIMD
    for (int i = j + 1; i < end; ++i) {
      const real a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i];
      cj[i] = cj[i] - a0 * t0 - a1 * t1 - a2 * t2 - a3 * t3;
      cj1[i] = cj1[i] - a0 * u0 - a1 * u1 - a2 * u2 - a3 * u3;
    }
  }
  for (; k < j; ++k) {
    const int end = chol_env_last(n, A, k) + 1;
    const real *ISO_RESTRICT c0 = A + (long long)k * n;
    const real t0 = c0[j], u0 = c0[j + 1];
    cj[j] -= c0[j] * t0;
    CHOL_SIMD
    for (int i = j + 1; i < end; ++i) {
      cj[i] -= c0[i] * t0;
      cj1[i] -= c0[i] * u0;
    }
  }
  const int info = chol_column_finish(n, A, j, 1);
  if (info) return info;
  const int end = chol_env_last(n, A, j) + 1;
  const real t = cj[j + 1];
  CHOL_SIMD
  for (int i = j + 1; i < end; ++i) cj1[i] -= cj[i] * t;
  return chol_column_finish(n, A, j + 1, 1);
}

/* chol_factor over the envelope; the same info. last_k = max(k, the lowest nonzero row of
 * columns 0..k) (a row whose first nonzero is at or left of k has one in some column <= k), found
 * by scanning each column up from the bottom: contiguous reads. Column j then takes updates from
 * k0(j) = the first k with last_k >= j on: every column left of it has L(j, k) = 0, and since last_k
 * grows with k, k0 only moves forward, so finding it costs O(n) in all. Columns go two at a time
 * (chol_env_column2), the last of an odd n alone. This body is inlined into both entry points
 * below, so the AVX2 one compiles all of it for AVX2. */
static inline ISO_HD ISO_INLINE int chol_factor_env_inline(int n, real *ISO_RESTRICT A) {
  real run = 0;
  for (int k = 0; k < n - 1; ++k) {
    const real *ck = A + (long long)k * n;
    int i = n - 1;
    while (i > k && ck[i] == (real)0) --i;
    if ((real)i > run) run = (real)i;
    *chol_env_last_slot(n, A, k) = run;
  }
  int k0 = 0, j = 0;
  for (; j + 1 < n; j += 2) {
    while (k0 < j && chol_env_last(n, A, k0) < j) ++k0;
    const int info = chol_env_column2(n, A, j, k0);
    if (info) return info;
  }
  for (; j < n; ++j) {
    while (k0 < j && chol_env_last(n, A, k0) < j) ++k0;
    const int info = chol_column(n, A, j, k0, 1);
    if (info) return info;
  }
  return 0;
}

static inline ISO_HD int chol_factor_env(int n, real *ISO_RESTRICT A) { return chol_factor_env_inline(n, A); }

/* chol_factor_env four lanes wide where the CPU has AVX2: the same source compiled for it. Its
 * vectorized loops are axpys down a column, each row's chain of subtractions the scalar one in
 * the same order (no reduction, no FMA), so the bits are chol_factor_env's (tests/test_cholesky.c). */
#if ISO_AVX2
static inline ISO_AVX2_FN int chol_factor_env_avx2(int n, real *ISO_RESTRICT A) { return chol_factor_env_inline(n, A); }
#endif

/* chol_solve with L from chol_factor_env (info == 0). */
static inline ISO_HD void chol_solve_env(int n, const real *ISO_RESTRICT L, real *ISO_RESTRICT b) {
  for (int j = 0; j < n; ++j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    const int end = chol_env_last(n, L, j) + 1;
    real y = b[j] / cj[j];
    b[j] = y;
    CHOL_SIMD
    for (int i = j + 1; i < end; ++i) b[i] -= cj[i] * y;
  }
  for (int j = n - 1; j >= 0; --j) {
    const real *ISO_RESTRICT cj = L + (long long)j * n;
    b[j] = (b[j] - chol_dot4(cj, b, j + 1, chol_env_last(n, L, j) + 1)) / cj[j];
  }
}

#endif
