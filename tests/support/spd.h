/* Random symmetric positive definite test matrices (column-major, the full square filled). */
#ifndef ISO_TESTS_SUPPORT_SPD_H
#define ISO_TESTS_SUPPORT_SPD_H

#include <stdlib.h>

#include "support/support.h" /* test_rng */

/* A = M^T M + n I with M uniform in [-1, 1): eigenvalues in [n, n + ~4n/3], condition ~2. */
static inline void spd_random(test_rng *r, int n, double *A) {
  double *M = malloc(sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n * n; ++i) M[i] = test_rng_uniform(r, -1, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; ++k) s += M[k + i * n] * M[k + j * n];
      A[i + j * n] = s;
    }
  free(M);
}

#endif
