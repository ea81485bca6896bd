/* y = A·x for a clique's dense block that is exactly symmetric, four rows to a register.
 *
 * SAP multiplies each clique's block of A by a vector three times per Newton iteration
 * (kernels/sap/solve.h, sap_mul_A). Row by row, four rows at a time, those sums are scalar
 * chains: a deformable body's block (δt·S over its participating vertices, tens to hundreds of
 * rows) spent a few percent of a soft grasp's step there. Where the block is symmetric to the
 * bit, row i is column i, so the four rows i..i+3 are contiguous in each row k: lane r of
 * Σ_k A[k][i..i+3]·x[k] forms row i+r's sum with the same products added in the same k order,
 * one multiply and one add per term (no fused product: ISO_AVX2_FN compiles without FMA), so y
 * has the row loops' bits. The blocks that reach it are mirrored from one triangle where they
 * are built: a deformable clique's (kernels/fem/contact.h) and a tree's mass matrix
 * (kernels/rigid/tree.h). tests/test_symv.c holds the bits against the row loops. */
#ifndef ISO_KERNELS_LINALG_SYMV_H
#define ISO_KERNELS_LINALG_SYMV_H

#include "kernels/core.h"

/* The smallest block worth the columns (a free body's 6 × 6 keeps its unrolled rows); from this
 * size on SAP also copies a block into H by rows. */
#define SYMV_MIN_N 16

#if ISO_AVX2
#include <immintrin.h>

/* y = A·x, A (n × n, row-major, rows lda apart) symmetric to the bit; rows in blocks of sixteen,
 * then four, then one, each sum in k order. */
static inline ISO_AVX2_FN void symv_avx2_ld(const real *A, int n, int lda, const real *x, real *y) {
  int i = 0;
  for (; i + 15 < n; i += 16) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (int k = 0; k < n; ++k) {
      const real *a = A + (long)lda * k + i;
      const __m256d xk = _mm256_broadcast_sd(x + k);
      s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_loadu_pd(a), xk));
      s1 = _mm256_add_pd(s1, _mm256_mul_pd(_mm256_loadu_pd(a + 4), xk));
      s2 = _mm256_add_pd(s2, _mm256_mul_pd(_mm256_loadu_pd(a + 8), xk));
      s3 = _mm256_add_pd(s3, _mm256_mul_pd(_mm256_loadu_pd(a + 12), xk));
    }
    _mm256_storeu_pd(y + i, s0);
    _mm256_storeu_pd(y + i + 4, s1);
    _mm256_storeu_pd(y + i + 8, s2);
    _mm256_storeu_pd(y + i + 12, s3);
  }
  for (; i + 3 < n; i += 4) {
    __m256d s = _mm256_setzero_pd();
    for (int k = 0; k < n; ++k)
      s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(A + (long)lda * k + i), _mm256_broadcast_sd(x + k)));
    _mm256_storeu_pd(y + i, s);
  }
  for (; i < n; ++i) {
    real s = 0;
    for (int k = 0; k < n; ++k) s += A[(long)lda * i + k] * x[k];
    y[i] = s;
  }
}

/* symv_avx2_ld on a whole n × n block. */
static inline ISO_AVX2_FN void symv_avx2(const real *A, int n, const real *x, real *y) {
  symv_avx2_ld(A, n, n, x, y);
}
#endif

#endif
