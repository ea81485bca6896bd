#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/backend.h"
#include "host/backend/linalg.h"
#include "kernels/linalg/cholesky.h"
#include "isobar/world_status.h"
#include "support/spd.h"
#include "support/support.h"

/* ---- building test matrices ----------------------------------------------------------------- */

/* A = Q diag(lambda) Q^T, Q = I - 2 v v^T / v^T v (a random Householder reflector), lambda
 * log-spaced from 1 to kappa: a controlled condition number kappa. */
static void spd_conditioned(test_rng *r, int n, double kappa, double *A) {
  double *v = malloc(sizeof(double) * (size_t)n), *lam = malloc(sizeof(double) * (size_t)n);
  double vv = 0;
  for (int i = 0; i < n; ++i) {
    v[i] = test_rng_uniform(r, -1, 1);
    vv += v[i] * v[i];
    lam[i] = n == 1 ? 1 : pow(kappa, (double)i / (n - 1));
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) {
        double qik = (i == k) - 2 * v[i] * v[k] / vv, qjk = (j == k) - 2 * v[j] * v[k] / vv;
        s += qik * lam[k] * qjk;
      }
      A[i + j * n] = s;
    }
  /* exact symmetry, so only rounding in the factorization matters */
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) A[j + i * n] = A[i + j * n];
  free(v);
  free(lam);
}

/* ||A x - b||_inf / (||A||_inf ||x||_inf), residual accumulated in long double. */
static double rel_residual(int n, const double *A, const double *x, const double *b) {
  double rmax = 0, anorm = 0, xmax = 0;
  for (int i = 0; i < n; ++i) {
    long double s = -(long double)b[i];
    double row = 0;
    for (int j = 0; j < n; ++j) {
      s += (long double)A[i + j * n] * x[j];
      row += fabs(A[i + j * n]);
    }
    if (fabs((double)s) > rmax) rmax = fabs((double)s);
    if (row > anorm) anorm = row;
    if (fabs(x[i]) > xmax) xmax = fabs(x[i]);
  }
  return rmax / (anorm * xmax);
}

/* Bound on the relative residual. Higham, Accuracy and Stability of Numerical Algorithms (2nd
 * ed.), Thm 10.4: the computed x solves (A + dA) x = b with |dA| <= gamma_{3n+1} |L||L^T|,
 * gamma_k = k eps / (1 - k eps). For SPD A, (|L||L^T|)_ij <= sqrt(a_ii a_jj), and for the
 * matrices here ||L||L^T|||_inf stays close to ||A||_inf (the worst-case extra factor n is for
 * contrived matrices), so ||Ax - b||_inf / (||A||_inf ||x||_inf) <= gamma_{3n+1} ~ (3n+1) eps.
 * The residual itself is summed in long double, so its own rounding does not count. Observed:
 * at most ~0.11 of this bound over n = 1..120 and condition numbers 2, 1e6 and 1e12; a wrong
 * entry, missed update or transposed solve gives a residual of order 1. */
static double residual_bound(int n) {
  double k = (3.0 * n + 1.0) * 2.220446049250313e-16;
  return k / (1.0 - k);
}

static isoBackend cpu(int threads) {
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CPU, threads, NULL), ISO_OK, "%s", iso_last_error());
  return b;
}

/* Fill the plan (CPU memory) with world w's matrix: kind 0 random, 1 kappa = 1e6, 2 kappa = 1e12. */
static void fill_world(test_rng *r, linalgCholesky *c, int w, int kind) {
  int n = c->n;
  double *A = c->A + (size_t)w * n * n, *B = c->B + (size_t)w * n;
  if (kind == 0) spd_random(r, n, A);
  else spd_conditioned(r, n, kind == 1 ? 1e6 : 1e12, A);
  for (int i = 0; i < n; ++i) B[i] = test_rng_uniform(r, -1, 1);
}

/* ---- tests ---------------------------------------------------------------------------------- */

Test(cholesky, random_spd_solves_to_residual_bound) {
  enum { NW = 3 };
  isoBackend b = cpu(2);
  test_rng r = {42};
  double worst = 0;
  int worst_n = 0;
  for (int n = 1; n <= 120; ++n) {
    linalgCholesky c;
    cr_assert_eq(linalg_cholesky_create(&b, n, NW, &c), ISO_OK, "%s", iso_last_error());
    for (int w = 0; w < NW; ++w) fill_world(&r, &c, w, w);
    size_t nA = (size_t)NW * n * n, nB = (size_t)NW * n;
    double *A0 = malloc(nA * sizeof(double)), *B0 = malloc(nB * sizeof(double));
    memcpy(A0, c.A, nA * sizeof(double));
    memcpy(B0, c.B, nB * sizeof(double));
    uint32_t status[NW] = {0};
    cr_assert_eq(linalg_cholesky_run(&b, &c, status), ISO_OK, "%s", iso_last_error());
    for (int w = 0; w < NW; ++w) {
      cr_assert_eq(c.info[w], 0, "n=%d world %d: info %d", n, w, c.info[w]);
      cr_assert_eq(status[w], 0u, "n=%d world %d: status %#x", n, w, status[w]);
      double res = rel_residual(n, A0 + (size_t)w * n * n, c.B + (size_t)w * n, B0 + (size_t)w * n);
      if (res / residual_bound(n) > worst) worst = res / residual_bound(n), worst_n = n;
      cr_assert(res <= residual_bound(n), "n=%d world %d: relative residual %.3g > bound %.3g", n, w, res,
                residual_bound(n));
      /* L is lower with a positive diagonal and L L^T reproduces A's lower triangle */
      const double *L = c.A + (size_t)w * n * n;
      for (int j = 0; j < n; ++j) cr_assert(L[j + j * n] > 0, "n=%d: L[%d,%d] = %g", n, j, j, L[j + j * n]);
    }
    free(A0);
    free(B0);
    linalg_cholesky_destroy(&b, &c);
    cr_assert_null(c.A);
  }
  cr_log_info("worst residual / bound = %.3f at n = %d", worst, worst_n);
  backend_release(&b);
}

Test(cholesky, factor_is_L_with_A_equal_L_LT) {
  isoBackend b = cpu(1);
  test_rng r = {7};
  int n = 17;
  linalgCholesky c;
  cr_assert_eq(linalg_cholesky_create(&b, n, 1, &c), ISO_OK);
  fill_world(&r, &c, 0, 0);
  double A0[17 * 17];
  memcpy(A0, c.A, sizeof A0);
  /* a marker in the strict upper triangle: it must be neither read nor written */
  c.A[0 + 5 * n] = 12345.0;
  cr_assert_eq(linalg_cholesky_run(&b, &c, NULL), ISO_OK);
  cr_assert_eq(c.A[0 + 5 * n], 12345.0);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      double s = 0;
      for (int k = 0; k <= j; ++k) s += c.A[i + k * n] * c.A[j + k * n];
      /* backward error of the factor: |A - L L^T| <= gamma_{n+1} |L||L^T|; ||A|| ~ 2n here */
      cr_assert(fabs(s - A0[i + j * n]) <= 4.0 * (n + 1) * 2.220446049250313e-16 * 2 * n, "(%d,%d): %g vs %g",
                i, j, s, A0[i + j * n]);
    }
  linalg_cholesky_destroy(&b, &c);
  backend_release(&b);
}

/* n = 8, world 1's matrix has its k-th leading minor indefinite (k = 5): A[k-1,k-1] = -1 makes
 * the k-th pivot a_kk - ||l_k||^2 < 0 while minors 1..k-1 are untouched, so info must be k. */
static void build_not_spd_batch(linalgCholesky *c, test_rng *r, int k) {
  for (int w = 0; w < c->nbatch; ++w) fill_world(r, c, w, 0);
  int n = c->n;
  c->A[(size_t)1 * n * n + (k - 1) + (k - 1) * n] = -1.0;
}

static void check_not_spd(const linalgCholesky *c, const uint32_t *status, const double *A0, const double *B0,
                          int k) {
  int n = c->n;
  for (int w = 0; w < c->nbatch; ++w) {
    cr_assert_eq(c->info[w], w == 1 ? k : 0, "world %d: info %d", w, c->info[w]);
    cr_assert_eq(status[w] & ISO_WORLD_NOT_SPD, w == 1 ? (uint32_t)ISO_WORLD_NOT_SPD : 0u, "world %d: %#x", w,
                 status[w]);
    cr_assert_eq(status[w] & ISO_WORLD_NONFINITE, (uint32_t)ISO_WORLD_NONFINITE, "other bits kept");
    if (w == 1) continue; /* B unspecified where info != 0 */
    double res = rel_residual(n, A0 + (size_t)w * n * n, c->B + (size_t)w * n, B0 + (size_t)w * n);
    cr_assert(res <= residual_bound(n), "world %d: residual %.3g", w, res);
  }
}

Test(cholesky, not_spd_sets_bit_and_info_of_failing_minor) {
  enum { N = 8, NW = 4, K = 5 };
  for (int lapack = 0; lapack <= linalg_have_lapack(); ++lapack) {
    isoBackend b = cpu(2);
    test_rng r = {42};
    linalgCholesky c;
    cr_assert_eq(linalg_cholesky_create(&b, N, NW, &c), ISO_OK);
    c.use_lapack = lapack;
    build_not_spd_batch(&c, &r, K);
    double A0[NW * N * N], B0[NW * N];
    memcpy(A0, c.A, sizeof A0);
    memcpy(B0, c.B, sizeof B0);
    uint32_t status[NW];
    for (int w = 0; w < NW; ++w) status[w] = ISO_WORLD_NONFINITE; /* must survive the OR */
    cr_assert_eq(linalg_cholesky_run(&b, &c, status), ISO_OK);
    check_not_spd(&c, status, A0, B0, K);
    linalg_cholesky_destroy(&b, &c);
    backend_release(&b);
  }
}

Test(cholesky, leading_minor_one_and_last) {
  /* the boundary cases k = 1 (first pivot) and k = n (last pivot) */
  enum { N = 6 };
  isoBackend b = cpu(1);
  test_rng r = {3};
  for (int k = 1; k <= N; k += N - 1) {
    linalgCholesky c;
    cr_assert_eq(linalg_cholesky_create(&b, N, 2, &c), ISO_OK);
    build_not_spd_batch(&c, &r, k);
    cr_assert_eq(linalg_cholesky_run(&b, &c, NULL), ISO_OK);
    cr_assert_eq(c.info[0], 0);
    cr_assert_eq(c.info[1], k, "k=%d: info %d", k, c.info[1]);
    linalg_cholesky_destroy(&b, &c);
  }
  backend_release(&b);
}

Test(cholesky, nan_entry_is_not_positive_definite) {
  enum { N = 6 };
  for (int lapack = 0; lapack <= linalg_have_lapack(); ++lapack) {
    isoBackend b = cpu(1);
    test_rng r = {11};
    linalgCholesky c;
    cr_assert_eq(linalg_cholesky_create(&b, N, 3, &c), ISO_OK);
    c.use_lapack = lapack;
    for (int w = 0; w < 3; ++w) fill_world(&r, &c, w, 0);
    c.A[0] = NAN;                              /* world 0: NaN first pivot */
    c.A[(size_t)N * N + 3 + 2 * N] = NAN;      /* world 1: NaN below the diagonal, row 3 col 2 */
    uint32_t status[3] = {0, 0, 0};
    cr_assert_eq(linalg_cholesky_run(&b, &c, status), ISO_OK);
    cr_assert_eq(c.info[0], 1, "lapack=%d: info %d", lapack, c.info[0]);
    /* L[3,2] becomes NaN and reaches pivot 4 (1-based): that minor is reported */
    cr_assert_eq(c.info[1], 4, "lapack=%d: info %d", lapack, c.info[1]);
    cr_assert_eq(c.info[2], 0);
    cr_assert_eq(status[0], (uint32_t)ISO_WORLD_NOT_SPD);
    cr_assert_eq(status[1], (uint32_t)ISO_WORLD_NOT_SPD);
    cr_assert_eq(status[2], 0u);
    linalg_cholesky_destroy(&b, &c);
    backend_release(&b);
  }
}

/* A factor that never stops, as a library that lets NaN pivots through computes it: every
 * column's sqrt and scale whatever its pivot (NaN and sqrt of a negative then spread down). */
static void factor_through(int n, double *A) {
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < j; ++k)
      for (int i = j; i < n; ++i) A[i + j * n] -= A[i + k * n] * A[j + k * n];
    const double d = sqrt(A[j + j * n]);
    for (int i = j; i < n; ++i) A[i + j * n] = i == j ? d : A[i + j * n] / d;
  }
}

/* chol_info_of_factor reads LAPACK's info off a finished factor: the CUDA backend applies it to
 * cuSOLVER's, which reports info 0 for a NaN pivot. On a factor that ran through, it gives what
 * chol_factor (which stops) gives, for a NaN in each position of the lower triangle and for a
 * negative pivot; 0 on an SPD matrix. */
Test(cholesky, info_read_off_a_factor_that_ran_through) {
  enum { N = 7 };
  test_rng r = {23};
  double A0[N * N], A[N * N], F[N * N];
  spd_random(&r, N, A0);
  memcpy(F, A0, sizeof F);
  factor_through(N, F);
  cr_assert_eq(chol_info_of_factor(N, F), 0, "an SPD matrix");
  int cases = 0;
  for (int j = 0; j < N; ++j)
    for (int i = j; i < N; ++i) {
      memcpy(A, A0, sizeof A);
      A[i + j * N] = NAN;
      memcpy(F, A, sizeof F);
      factor_through(N, F);
      const int want = chol_factor(N, A);
      cr_assert_gt(want, 0);
      cr_assert_eq(chol_info_of_factor(N, F), want, "NaN at (%d, %d): info %d, read %d", i, j, want,
                   chol_info_of_factor(N, F));
      ++cases;
    }
  memcpy(A, A0, sizeof A);
  A[4 + 4 * N] = -A[4 + 4 * N]; /* the fifth leading minor fails */
  memcpy(F, A, sizeof F);
  factor_through(N, F);
  cr_assert_eq(chol_info_of_factor(N, F), chol_factor(N, A));
  cr_assert_eq(cases, N * (N + 1) / 2);
}

/* Run the same batch with 1 and 2 threads; A, B and info must match bit for bit. */
Test(cholesky, thread_count_gives_bitwise_identical_results) {
  enum { N = 23, NW = 37 };
  linalgCholesky c[2];
  for (int t = 0; t < 2; ++t) {
    isoBackend b = cpu(t + 1);
    test_rng r = {99};
    cr_assert_eq(linalg_cholesky_create(&b, N, NW, &c[t]), ISO_OK);
    for (int w = 0; w < NW; ++w) fill_world(&r, &c[t], w, w % 3);
    c[t].A[(size_t)5 * N * N + 7 + 7 * N] = -3; /* one failing world too */
    cr_assert_eq(linalg_cholesky_run(&b, &c[t], NULL), ISO_OK);
    backend_release(&b);
  }
  cr_assert_eq(memcmp(c[0].A, c[1].A, sizeof(double) * NW * N * N), 0);
  cr_assert_eq(memcmp(c[0].B, c[1].B, sizeof(double) * NW * N), 0);
  cr_assert_eq(memcmp(c[0].info, c[1].info, sizeof(int) * NW), 0);
  cr_assert_eq(c[0].info[5], 8);
  isoBackend b = cpu(1);
  linalg_cholesky_destroy(&b, &c[0]);
  linalg_cholesky_destroy(&b, &c[1]);
  backend_release(&b);
}

Test(cholesky, bad_arguments_are_rejected_with_a_message) {
  isoBackend b = cpu(1);
  linalgCholesky c;
  memset(&c, 0xff, sizeof c);
  cr_assert_eq(linalg_cholesky_create(&b, 0, 4, &c), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "n = 0") != NULL, "%s", iso_last_error());
  cr_assert_null(c.A, "a failed create leaves a zeroed plan");
  cr_assert_eq(linalg_cholesky_create(&b, -3, 4, &c), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "n = -3") != NULL, "%s", iso_last_error());
  cr_assert_eq(linalg_cholesky_create(&b, 4, 0, &c), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "nbatch = 0") != NULL, "%s", iso_last_error());
  cr_assert_eq(linalg_cholesky_create(&b, 100000, 0x7fffffff, &c), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "overflow") != NULL, "%s", iso_last_error());
  cr_assert_eq(linalg_cholesky_create(&b, 4, 4, NULL), ISO_ERR_NULL);
  cr_assert(strstr(iso_last_error(), "'out'") != NULL, "%s", iso_last_error());
  cr_assert_eq(linalg_cholesky_create(NULL, 4, 4, &c), ISO_ERR_NULL);
  cr_assert(strstr(iso_last_error(), "'b'") != NULL, "%s", iso_last_error());
  cr_assert_eq(linalg_cholesky_run(&b, NULL, NULL), ISO_ERR_NULL);
  cr_assert(strstr(iso_last_error(), "'c'") != NULL, "%s", iso_last_error());
  memset(&c, 0, sizeof c);
  cr_assert_eq(linalg_cholesky_run(&b, &c, NULL), ISO_ERR_STATE);
  cr_assert(strstr(iso_last_error(), "not created") != NULL, "%s", iso_last_error());
  linalg_cholesky_destroy(&b, &c); /* harmless on a zeroed plan */
  linalg_cholesky_destroy(&b, NULL);
  if (!linalg_have_lapack()) {
    cr_assert_eq(linalg_cholesky_create(&b, 4, 1, &c), ISO_OK);
    c.use_lapack = 1;
    cr_assert_eq(linalg_cholesky_run(&b, &c, NULL), ISO_ERR_UNSUPPORTED);
    cr_assert(strstr(iso_last_error(), "without LAPACK") != NULL, "%s", iso_last_error());
    linalg_cholesky_destroy(&b, &c);
  }
  backend_release(&b);
}

Test(cholesky, default_implementation_follows_the_benchmark) {
  isoBackend b = cpu(1);
  for (int n = 1; n <= 120; n += 7) {
    linalgCholesky c;
    cr_assert_eq(linalg_cholesky_create(&b, n, 1, &c), ISO_OK);
    cr_assert_eq(c.use_lapack, linalg_cholesky_default_lapack(n));
    if (!linalg_have_lapack()) cr_assert_eq(c.use_lapack, 0);
    linalg_cholesky_destroy(&b, &c);
  }
  backend_release(&b);
}

/* The hand-written kernel and LAPACK must agree. Both are backward stable, so L and x differ by
 * rounding only: for A = M^T M + nI (condition ~2) the forward difference is a small multiple of
 * n eps; 1e3 n eps is loose enough for any summation order and tight enough to catch a wrong
 * triangle, a missed update or a transposed solve. */
Test(cholesky, hand_written_and_lapack_agree) {
  if (!linalg_have_lapack()) cr_skip_test("isobar was built without LAPACK");
  isoBackend b = cpu(2);
  for (int n = 1; n <= 120; n += (n < 10 ? 1 : 11)) {
    linalgCholesky c[2];
    for (int l = 0; l < 2; ++l) {
      test_rng r = {1234};
      cr_assert_eq(linalg_cholesky_create(&b, n, 3, &c[l]), ISO_OK);
      c[l].use_lapack = l;
      for (int w = 0; w < 3; ++w) fill_world(&r, &c[l], w, 0);
      cr_assert_eq(linalg_cholesky_run(&b, &c[l], NULL), ISO_OK);
    }
    double tol = 1e3 * n * 2.220446049250313e-16;
    for (int w = 0; w < 3; ++w) {
      cr_assert_eq(c[0].info[w], c[1].info[w]);
      for (int j = 0; j < n; ++j) {
        double x0 = c[0].B[w * n + j], x1 = c[1].B[w * n + j];
        cr_assert(fabs(x0 - x1) <= tol * fabs(x1) + tol / n, "n=%d x[%d]: %.17g vs %.17g", n, j, x0, x1);
        for (int i = j; i < n; ++i) {
          size_t at = (size_t)w * n * n + i + (size_t)j * n;
          double l0 = c[0].A[at], l1 = c[1].A[at], scale = sqrt(2.0 * n);
          cr_assert(fabs(l0 - l1) <= tol * scale, "n=%d L[%d,%d]: %.17g vs %.17g", n, i, j, l0, l1);
        }
      }
    }
    linalg_cholesky_destroy(&b, &c[0]);
    linalg_cholesky_destroy(&b, &c[1]);
  }
  backend_release(&b);
}

/* CUDA (cuSOLVER) against the CPU on the same batch: SPD worlds agree to the same tolerance as
 * above (different summation orders, both backward stable), failing worlds report the same info
 * and the same status bit: world 1 a negative pivot, world 5 a NaN (cuSOLVER does not document
 * NaN pivots; the CPU's is not positive, LAPACK's DISNAN rule). The emulated device factors
 * with the CPU's own code, so there the factors and solutions of SPD worlds are bitwise equal. */
Test(cholesky, cuda_matches_cpu) {
  test_require_cuda_device();
  const int emulated = test_cuda_emulated();
  enum { NW = 6 };
  int ns[] = {1, 6, 24, 57, 120};
  isoBackend bc = cpu(1), bg;
  cr_assert_eq(backend_init(&bg, ISO_BACKEND_CUDA, 1, NULL), ISO_OK, "%s", iso_last_error());
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
    int n = ns[t];
    linalgCholesky h, g;
    test_rng r = {5};
    cr_assert_eq(linalg_cholesky_create(&bc, n, NW, &h), ISO_OK);
    for (int w = 0; w < NW; ++w) fill_world(&r, &h, w, w == 3 ? 1 : 0);
    int k = n > 1 ? n / 2 + 1 : 1;
    h.A[(size_t)1 * n * n + (k - 1) + (size_t)(k - 1) * n] = -1.0; /* world 1 fails at minor k */
    h.A[(size_t)5 * n * n + (n - 1)] = NAN;                          /* world 5: L[n-1,0] */
    cr_assert_eq(linalg_cholesky_create(&bg, n, NW, &g), ISO_OK, "%s", iso_last_error());
    size_t nA = (size_t)NW * n * n * sizeof(double), nB = (size_t)NW * n * sizeof(double);
    cr_assert_eq(backend_upload(&bg, g.A, h.A, nA), ISO_OK);
    cr_assert_eq(backend_upload(&bg, g.B, h.B, nB), ISO_OK);
    uint32_t st_h[NW] = {0}, st_g[NW] = {0};
    uint32_t *st_dev;
    cr_assert_eq(backend_alloc(&bg, (void **)&st_dev, sizeof st_g), ISO_OK);
    cr_assert_eq(linalg_cholesky_run(&bc, &h, st_h), ISO_OK);
    cr_assert_eq(linalg_cholesky_run(&bg, &g, st_dev), ISO_OK, "%s", iso_last_error());
    double *A = malloc(nA), *B = malloc(nB);
    int info[NW];
    cr_assert_eq(backend_download(&bg, A, g.A, nA), ISO_OK);
    cr_assert_eq(backend_download(&bg, B, g.B, nB), ISO_OK);
    cr_assert_eq(backend_download(&bg, info, g.info, sizeof info), ISO_OK);
    cr_assert_eq(backend_download(&bg, st_g, st_dev, sizeof st_g), ISO_OK);
    cr_assert_eq(h.info[5], n, "n=%d: the NaN reaches the last pivot on the CPU", n);
    double tol = 1e3 * n * 2.220446049250313e-16 * 1e6; /* world 3 has condition 1e6 */
    for (int w = 0; w < NW; ++w) {
      cr_assert_eq(info[w], h.info[w], "n=%d world %d: cuda info %d, cpu %d", n, w, info[w], h.info[w]);
      cr_assert_eq(st_g[w], st_h[w], "n=%d world %d", n, w);
      if (h.info[w] != 0) continue;
      if (emulated) {
        cr_assert(test_same_bits(B + w * n, h.B + w * n, n), "n=%d world %d: solutions differ in bits", n, w);
        for (int j = 0; j < n; ++j) {
          size_t at = (size_t)w * n * n + (size_t)j * n + j; /* column j of L, from the diagonal */
          cr_assert(test_same_bits(A + at, h.A + at, n - j), "n=%d world %d: column %d of L differs", n, w, j);
        }
        continue;
      }
      double xmax = 0;
      for (int i = 0; i < n; ++i) xmax = fmax(xmax, fabs(h.B[w * n + i]));
      for (int i = 0; i < n; ++i)
        cr_assert(fabs(B[w * n + i] - h.B[w * n + i]) <= tol * xmax, "n=%d world %d x[%d]: %.17g vs %.17g", n,
                  w, i, B[w * n + i], h.B[w * n + i]);
    }
    free(A);
    free(B);
    backend_free(&bg, st_dev);
    linalg_cholesky_destroy(&bg, &g);
    linalg_cholesky_destroy(&bc, &h);
  }
  backend_release(&bg);
  backend_release(&bc);
}

/* chol_solve_unit_tail gives rows c.. of (L Lᵀ)⁻¹ e_c with chol_solve's bits, for every c of a
 * random SPD matrix (its rows above c are exact zeros in the forward solve, and the back solve's
 * rows at and below c read only rows below them), and leaves the rows above c alone. */
Test(cholesky, unit_tail_solve_gives_the_full_solve_bits) {
  test_rng r = {404};
  const int n = 23;
  double A[23 * 23], x[23], y[23];
  spd_random(&r, n, A);
  cr_assert_eq(chol_factor(n, A), 0);
  for (int c = 0; c < n; ++c) {
    for (int i = 0; i < n; ++i) x[i] = i == c, y[i] = -7;
    chol_solve(n, A, x);
    chol_solve_unit_tail(n, A, c, y);
    cr_assert(test_same_bits(x + c, y + c, n - c), "column %d: rows from %d differ", c, c);
    for (int i = 0; i < c; ++i) cr_assert_eq(y[i], -7, "column %d: row %d above the tail written", c, i);
  }
}

/* chol_solve_unit_tail4, and its AVX2 compile (chol_solve_unit_tail4_fast, where the CPU has
 * it), give the four columns c..c+3 each with chol_solve_unit_tail's bits, for every c that
 * leaves four columns (so the first-three-alone and the all-four parts of both sweeps run at
 * every offset), and leave each column's rows above its own start alone. */
Test(cholesky, four_unit_tails_at_once_give_the_single_tail_bits) {
  test_rng r = {405};
  const int n = 23;
  double A[23 * 23], y[23], B[4 * 23];
  spd_random(&r, n, A);
  cr_assert_eq(chol_factor(n, A), 0);
  for (int route = 0; route < 2; ++route) {
    for (int c = 0; c + 3 < n; ++c) {
      for (int i = 0; i < 4 * n; ++i) B[i] = -7;
      if (route) chol_solve_unit_tail4_fast(n, A, c, B);
      else chol_solve_unit_tail4(n, A, c, B);
      for (int q = 0; q < 4; ++q) {
        chol_solve_unit_tail(n, A, c + q, y);
        cr_assert(test_same_bits(y + c + q, B + q * n + c + q, n - c - q), "columns from %d: column %d differs", c, q);
        for (int i = 0; i < c + q; ++i)
          cr_assert_eq(B[q * n + i], -7, "column %d: row %d above its tail written", c + q, i);
      }
    }
  }
}
