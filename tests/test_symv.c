/* y = A·x by columns for a block symmetric to the bit (kernels/linalg/symv.h) against SAP's row
 * loops (sap_mul_A_n, kernels/sap/solve.h), which a GPU thread runs: the same bits for every size
 * around the blocks of sixteen and four, so the CPU and the GPU solve the same Newton steps.
 * Tolerance: none; the two must agree exactly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/sap/solve.h"
#include "support/support.h"

#if ISO_AVX2
/* A random symmetric n × n block mirrored from its lower triangle, as the builders mirror, and a
 * random x; entries of mixed signs and magnitudes so that sums in another order would round
 * otherwise. */
static void fill(test_rng *r, int n, real *A, real *x) {
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k <= i; ++k) A[n * i + k] = A[n * k + i] = test_rng_uniform(r, -1, 1) * (k == i ? 50 : 1);
    x[i] = test_rng_uniform(r, -3, 3) * (i % 3 ? 1e-3 : 1);
  }
}

Test(symv, columns_have_the_row_loops_bits) {
  if (!iso_cpu_avx2()) cr_skip_test("this CPU has no AVX2: the row loops run everywhere");
  test_rng r = {91};
  const int sizes[] = {16, 17, 18, 19, 20, 23, 31, 32, 33, 48, 81, 100, 243};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
    const int n = sizes[s];
    real *A = malloc(sizeof(real) * n * n), *x = malloc(sizeof(real) * n);
    real *y0 = malloc(sizeof(real) * n), *y1 = malloc(sizeof(real) * n);
    for (int trial = 0; trial < 20; ++trial) {
      fill(&r, n, A, x);
      sap_mul_A_n(A, n, x, y0);
      symv_avx2(A, n, x, y1);
      cr_assert(memcmp(y0, y1, sizeof(real) * n) == 0, "n = %d, trial %d: other bits", n, trial);
    }
    free(A), free(x), free(y0), free(y1);
  }
}

/* The equality above is not one any summation order would pass: the same products summed from
 * the other end differ in some bit on these blocks. */
Test(symv, another_order_rounds_otherwise) {
  test_rng r = {92};
  const int n = 81;
  real A[81 * 81], x[81], y0[81];
  int differ = 0;
  for (int trial = 0; trial < 20; ++trial) {
    fill(&r, n, A, x);
    sap_mul_A_n(A, n, x, y0);
    for (int i = 0; i < n; ++i) {
      real s = 0;
      for (int k = n - 1; k >= 0; --k) s += A[n * i + k] * x[k];
      differ += s != y0[i];
    }
  }
  cr_assert_gt(differ, 0);
}
#else
Test(symv, columns_have_the_row_loops_bits) { cr_skip_test("built without the AVX2 path (ISO_AVX2 0)"); }
#endif

/* A deformable clique's padding (sapClique.npad: identity rows and columns at its end, x there
 * the padding's 0 or any value): sap_mul_A on the active block alone gives the whole block's
 * product bit for bit, on the rows and the columns-over-sixteen routes alike, for every split of
 * a block into active DoFs and padding, zeros of either sign in x included. */
Test(symv, padding_left_out_gives_the_whole_products_bits) {
  test_rng r = {93};
  const int n = 48;
  real A[48 * 48], x[48], y0[48], y1[48];
  for (int act = 0; act <= n; act += 3) {
    for (int trial = 0; trial < 5; ++trial) {
      for (int i = 0; i < n; ++i)
        for (int k = 0; k <= i; ++k) {
          const real a = i < act && k < act ? test_rng_uniform(&r, -1, 1) * (k == i ? 50 : 1) : (real)(k == i);
          A[n * i + k] = A[n * k + i] = a;
        }
      for (int i = 0; i < n; ++i) x[i] = i >= act ? (trial % 2 ? -0.0 : 0.0) : test_rng_uniform(&r, -3, 3);
      if (act > 0) x[act / 2] = -0.0;
      const sapClique whole = {n, 0, 0, 0}, padded = {n, 0, 0, n - act};
      sap_mul_A(&whole, 1, A, x, y0);
      sap_mul_A(&padded, 1, A, x, y1);
      cr_assert(memcmp(y0, y1, sizeof y0) == 0, "%d active of %d, trial %d: other bits", act, n, trial);
    }
  }
}
