/* The envelope (profile) variant of the dense Cholesky, chol_factor_env and chol_solve_env
 * (kernels/linalg/cholesky.h): the dense factor's and solve's bits on the sparsity of SAP
 * Hessians, its wide entry points' bits, and where it stops on a pivot that is not positive. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/linalg/cholesky_wide.h"
#include "support/spd.h"
#include "support/support.h"

/* A random SPD matrix with the sparsity of a world's SAP Hessian: nb diagonal blocks of size bs
 * (cliques), coupled where `couple` says (constraints between two cliques), diagonally
 * dominant so it is SPD whatever the pattern. Column-major, the full square filled. */
static void spd_blocks(test_rng *r, int nb, int bs, int (*couple)(int, int, test_rng *), double *A) {
  const int n = nb * bs;
  for (int i = 0; i < n * n; ++i) A[i] = 0;
  for (int p = 0; p < nb; ++p)
    for (int q = 0; q <= p; ++q) {
      if (p != q && !couple(p, q, r)) continue;
      for (int a = 0; a < bs; ++a)
        for (int b = 0; b < bs; ++b) {
          const int i = p * bs + a, j = q * bs + b;
          if (j > i) continue;
          const double x = test_rng_uniform(r, -1, 1);
          A[i + (long)j * n] = A[j + (long)i * n] = x;
        }
    }
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += fabs(A[i + (long)j * n]);
    A[i + (long)i * n] = s + 1;
  }
}

static int couple_chain(int p, int q, test_rng *r) { (void)r; return p - q == 1; }
static int couple_all(int p, int q, test_rng *r) { (void)p, (void)q, (void)r; return 1; }
static int couple_some(int p, int q, test_rng *r) { (void)p, (void)q; return test_rng_uniform(r, 0, 1) < 0.3; }
static int couple_none(int p, int q, test_rng *r) { (void)p, (void)q, (void)r; return 0; }

/* The envelope factor and solve give the dense ones' bits on chains (a stack, an arch), random
 * couplings, full and block-diagonal matrices, and the same info on a matrix that is not SPD:
 * every term they skip is an exact zero (kernels/linalg/cholesky.h). */
Test(cholesky, envelope_variant_gives_the_dense_bits) {
  int (*patterns[])(int, int, test_rng *) = {couple_chain, couple_all, couple_some, couple_none};
  const int sizes[][2] = {{9, 27}, {5, 6}, {7, 5}, {1, 13}, {12, 3}, {3, 1}};
  test_rng r = {2024};
  for (int pi = 0; pi < 4; ++pi)
    for (int si = 0; si < 6; ++si) {
      const int nb = sizes[si][0], bs = sizes[si][1], n = nb * bs;
      double *A = malloc(sizeof(double) * (size_t)n * n), *Ld = malloc(sizeof(double) * (size_t)n * n);
      double *Le = malloc(sizeof(double) * (size_t)n * n), *bd = malloc(sizeof(double) * (size_t)n);
      double *be = malloc(sizeof(double) * (size_t)n);
      spd_blocks(&r, nb, bs, patterns[pi], A);
      memcpy(Ld, A, sizeof(double) * (size_t)n * n);
      memcpy(Le, A, sizeof(double) * (size_t)n * n);
      for (int i = 0; i < n; ++i) bd[i] = be[i] = test_rng_uniform(&r, -1, 1);
      cr_assert_eq(chol_factor(n, Ld), 0);
      cr_assert_eq(chol_factor_env(n, Le), 0);
      for (int j = 0; j < n; ++j)
        cr_assert(test_same_bits(Ld + (long)j * n + j, Le + (long)j * n + j, n - j),
                  "pattern %d, %d blocks of %d: column %d of L differs", pi, nb, bs, j);
      chol_solve(n, Ld, bd);
      chol_solve_env(n, Le, be);
      cr_assert(test_same_bits(bd, be, n), "pattern %d, %d blocks of %d: solutions differ", pi, nb, bs);
      /* not SPD: a negative pivot in the middle stops both at the same minor */
      memcpy(Ld, A, sizeof(double) * (size_t)n * n);
      Ld[(long)(n / 2) * n + n / 2] = -1;
      memcpy(Le, Ld, sizeof(double) * (size_t)n * n);
      cr_assert_eq(chol_factor_env(n, Le), chol_factor(n, Ld), "pattern %d, %d blocks of %d", pi, nb, bs);
      free(A), free(Ld), free(Le), free(bd), free(be);
    }
}

/* The wide envelope factors (kernels/linalg/cholesky_wide.h: four lanes where the CPU has AVX2,
 * eight where it has AVX-512F) give the scalar loops' bits, on sizes around both lane counts:
 * dense, block-banded (an envelope to skip), a failing pivot (info and the partial factor), a
 * dense block with identity padding below it (a soft body's unused participating slots), zeros
 * of either sign at a column's foot (the envelope scan must treat −0 as zero), and a NaN below a band
 * (the scan must count it, and both must stop at the same minor). */
#if ISO_AVX2
static int wide_route(int route, int n, double *A) {
  return route ? chol_factor_env_avx512(n, A) : chol_factor_env_avx2(n, A);
}
#endif

Test(cholesky, wide_envelope_factors_give_the_same_bits) {
#if ISO_AVX2
  test_rng r = {31};
  const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 30, 61, 66, 81, 96};
  for (int route = 0; route < 2; ++route) {
    if (route == 0 && !iso_cpu_avx2()) {
      cr_log_warn("this CPU has no AVX2: the four-lane route is not tested");
      continue;
    }
    if (route == 1 && !iso_cpu_avx512()) {
      cr_log_warn("this CPU has no AVX-512F: the eight-lane route is not tested");
      continue;
    }
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t)
      for (int kind = 0; kind < 6; ++kind) {
        const int n = sizes[t], pad = n / 4;
        double *A = malloc(sizeof(double) * n * n), *X = malloc(sizeof(double) * n * n);
        double *Y = malloc(sizeof(double) * n * n);
        spd_random(&r, n, A);
        for (int j = 0; j < n; ++j)
          for (int i = j; i < n; ++i) {
            if ((kind == 1 || kind == 5) && i - j > 5) A[i + j * n] = 0;
            if (kind == 3 && i >= n - pad) A[i + j * n] = i == j ? 1.0 : 0.0;
            if (kind == 4 && i > j && i >= n - 3) A[i + j * n] = (i + j) % 2 ? -0.0 : 0.0;
          }
        if (kind == 2) A[(n / 2) + (n / 2) * n] = -1.0;
        if (kind == 5) A[n - 1] = NAN; /* below column 0's band: its scan alone finds it */
        memcpy(X, A, sizeof(double) * n * n);
        memcpy(Y, A, sizeof(double) * n * n);
        const int ia = chol_factor_env(n, X), ib = wide_route(route, n, Y);
        cr_assert_eq(ia, ib, "route %d, n=%d kind %d: info %d against %d", route, n, kind, ia, ib);
        for (int j = 0; j < n; ++j) /* the lower triangle and the envelope row the factor keeps */
          for (int i = 0; i < n; ++i)
            if (i >= j || i == 0)
              cr_assert(test_same_bits(X + i + j * n, Y + i + j * n, 1),
                        "route %d, n=%d kind %d: L[%d,%d] %.17g against %.17g", route, n, kind, i, j, X[i + j * n],
                        Y[i + j * n]);
        free(A), free(X), free(Y);
      }
  }
#else
  cr_skip_test("built without the wide loops (ISO_AVX2 0)");
#endif
}

/* The envelope factor takes its columns two at a time (chol_env_column2): a pivot that fails in
 * either column of a pair, or in the last column of an odd size, stops it at the minor the dense
 * factor stops at, with the columns before it the dense factor's bits; a NaN entry likewise. */
Test(cholesky, column_pairs_stop_where_the_dense_factor_stops) {
  test_rng r = {77};
  for (int n = 1; n <= 9; ++n)
    for (int bad = 0; bad < n; ++bad)
      for (int kind = 0; kind < 2; ++kind) {
        double A[81], Ld[81], Le[81];
        spd_random(&r, n, A);
        if (kind == 0) A[bad + bad * n] = -1.0;
        else A[n - 1 + bad * n] = NAN; /* row n − 1 of column bad */
        memcpy(Ld, A, sizeof A), memcpy(Le, A, sizeof A);
        const int id = chol_factor(n, Ld), ie = chol_factor_env(n, Le);
        cr_assert_eq(ie, id, "n=%d, bad %d, kind %d: info %d against %d", n, bad, kind, ie, id);
        cr_assert_gt(id, 0);
        for (int j = 0; j + 1 < id; ++j) /* the finished columns */
          cr_assert(test_same_bits(Ld + j * n + j, Le + j * n + j, n - j), "n=%d, bad %d: column %d", n, bad, j);
      }
}
