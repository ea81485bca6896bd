/* Batched Cholesky on the CPU: the hand-written kernels/linalg/cholesky.h against LAPACK's
 * dpotrf_ + dpotrs_, factor + solve per matrix, for n = 6 .. 120 and 1 and 2 threads. The
 * result decides linalg_cholesky_default_lapack (bench/cholesky.md).
 *
 * The bench uses no library internals: the hand-written path is the kernel header itself and
 * the LAPACK path is declared here, as host/backend/linalg_cholesky.c declares it. Both run one
 * matrix per item over the batch, split across OpenMP threads the way the CPU backend splits a
 * for-loop (backend_cpu_for: one contiguous equal chunk per thread, schedule(static, 1), no
 * parallel region for one thread), so the figures compare with the library's.
 *
 * Method. A batch of SPD matrices (A = M^T M + nI, 16 distinct ones repeated) sized like a
 * step's worth of worlds: at most 16384 worlds and at most 16 MiB of matrices (so it lives in
 * L3 here, as a Hessian just assembled would). run() overwrites A and B, so every call first
 * restores them from a pristine copy; one timing = `calls` x (restore + run), with `calls`
 * chosen so a timing lasts ~0.2 s. The same loop with the restore alone is timed too and
 * subtracted. Each figure is the median of 5 timings, in microseconds per matrix.
 *
 * Built with ISO_HAVE_LAPACK=1 (CMake does so when it finds LAPACK) it times both; without, the
 * hand-written kernel only.
 *
 * usage: bench_cholesky [seconds per timing, default 0.2] */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/linalg/cholesky.h"

#if defined(ISO_HAVE_LAPACK) && ISO_HAVE_LAPACK
/* Fortran LAPACK, as host/backend/linalg_cholesky.c declares it: gfortran (>= 8) appends one
 * hidden size_t length per CHARACTER argument. */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len);
#define HAVE_LAPACK 1
#else
#define HAVE_LAPACK 0
#endif

/* The library's threshold, compared against here: orders at or above it use LAPACK by default.
 * A copy of LAPACK_MIN_N in host/backend/linalg_cholesky.c (linalg_cholesky_default_lapack);
 * change both together. */
#define LIB_LAPACK_MIN_N 0x7fffffff

_Static_assert(sizeof(real) == sizeof(double), "LAPACK's dpotrf_/dpotrs_ take double");

enum { REPS = 5, DISTINCT = 16 };

typedef struct {
  int n, nbatch, threads, use_lapack;
  real *A, *B; /* nbatch column-major n x n matrices, nbatch right-hand sides of n */
  int *info;
} chol_batch;

typedef void (*range_fn)(const chol_batch *c, int start, int end);

static void run_hand(const chol_batch *c, int start, int end) {
  const int n = c->n;
  for (int w = start; w < end; ++w) {
    real *A = c->A + (size_t)w * (size_t)n * (size_t)n;
    real *B = c->B + (size_t)w * (size_t)n;
    int info = chol_factor(n, A);
    if (info == 0) chol_solve(n, A, B);
    c->info[w] = info;
  }
}

#if HAVE_LAPACK
static void run_lapack(const chol_batch *c, int start, int end) {
  const int n = c->n, one = 1;
  for (int w = start; w < end; ++w) {
    real *A = c->A + (size_t)w * (size_t)n * (size_t)n;
    real *B = c->B + (size_t)w * (size_t)n;
    int info = 0;
    dpotrf_("L", &n, A, &n, &info, 1);
    if (info == 0) {
      int sinfo = 0;
      dpotrs_("L", &n, &one, A, &n, B, &n, &sinfo, 1);
    }
    c->info[w] = info;
  }
}
#endif

/* The whole batch, split as backend_cpu_for splits it. */
static void run(const chol_batch *c) {
#if HAVE_LAPACK
  range_fn fn = c->use_lapack ? run_lapack : run_hand;
#else
  range_fn fn = run_hand;
#endif
  const int n = c->nbatch;
  const int nt = c->threads < n ? c->threads : n;
  if (nt <= 1) {
    fn(c, 0, n);
    return;
  }
#pragma omp parallel for schedule(static, 1) num_threads(nt)
  for (int t = 0; t < nt; ++t) {
    int start = (int)((long long)n * t / nt);
    int end = (int)((long long)n * (t + 1) / nt);
    if (end > start) fn(c, start, end);
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return v[k / 2];
}

typedef struct {
  chol_batch *c;
  const real *A0, *B0;
  size_t bytesA, bytesB;
} bench_case;

/* seconds for `calls` x (restore [+ run]) */
static double timed(const bench_case *bc, int calls, int with_run) {
  double t0 = now();
  for (int r = 0; r < calls; ++r) {
    memcpy(bc->c->A, bc->A0, bc->bytesA);
    memcpy(bc->c->B, bc->B0, bc->bytesB);
    if (with_run) run(bc->c);
  }
  return now() - t0;
}

/* microseconds per matrix factor + solve, median of REPS timings */
static double measure(const bench_case *bc, double seconds) {
  int calls = 1;
  double t = timed(bc, calls, 1); /* warm-up and calibration: grow until a timing is >= 10 ms */
  while (t < 1e-2) {
    calls *= 2;
    t = timed(bc, calls, 1);
  }
  calls = (int)(seconds / (t / calls)) + 1;
  double with_run[REPS], restore[REPS];
  for (int r = 0; r < REPS; ++r) {
    with_run[r] = timed(bc, calls, 1);
    restore[r] = timed(bc, calls, 0);
  }
  double net = median(with_run, REPS) - median(restore, REPS);
  for (int w = 0; w < bc->c->nbatch; ++w)
    if (bc->c->info[w] != 0) {
      fprintf(stderr, "world %d: info %d on an SPD matrix\n", w, bc->c->info[w]);
      exit(1);
    }
  return 1e6 * net / ((double)calls * bc->c->nbatch);
}

static void make_inputs(int n, int nbatch, real *A0, real *B0) {
  unsigned long long s = 88172645463325252ull; /* xorshift64: deterministic inputs */
  real *M = malloc(sizeof(real) * (size_t)n * (size_t)n);
  if (!M) exit(1);
  for (int w = 0; w < nbatch; ++w) {
    real *A = A0 + (size_t)w * n * n;
    if (w >= DISTINCT) {
      memcpy(A, A0 + (size_t)(w % DISTINCT) * n * n, sizeof(real) * (size_t)n * n);
    } else {
      for (int i = 0; i < n * n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        M[i] = (real)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      }
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          real acc = i == j ? n : 0;
          for (int k = 0; k < n; ++k) acc += M[k + i * n] * M[k + j * n];
          A[i + j * n] = acc;
        }
    }
    for (int i = 0; i < n; ++i) B0[(size_t)w * n + i] = (real)((w + i) % 7) - 3.0;
  }
  free(M);
}

static int default_lapack(int n) { return HAVE_LAPACK && n >= LIB_LAPACK_MIN_N; }

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.2;
  if (!(seconds > 0)) seconds = 0.2;
  static const int ns[] = {6, 12, 24, 48, 72, 96, 120};
  int nimpl = 1 + HAVE_LAPACK;
  printf("bench_cholesky: us per matrix (factor + solve), median of %d timings of ~%.2f s\n", REPS, seconds);
  printf("LAPACK built in: %s\n\n", HAVE_LAPACK ? "yes" : "no (hand-written only)");
  printf("| n | nbatch | hand 1T | hand 2T | LAPACK 1T | LAPACK 2T | LAPACK/hand 1T | LAPACK/hand 2T |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; ++in) {
    int n = ns[in];
    long long fit = (16ll << 20) / ((long long)n * n * (long long)sizeof(real));
    int nbatch = (int)(fit < 16384 ? fit : 16384);
    size_t bytesA = sizeof(real) * (size_t)nbatch * n * n, bytesB = sizeof(real) * (size_t)nbatch * n;
    real *A0 = malloc(bytesA), *B0 = malloc(bytesB);
    chol_batch c = {n, nbatch, 1, 0, calloc(1, bytesA), calloc(1, bytesB), calloc((size_t)nbatch, sizeof(int))};
    if (!A0 || !B0 || !c.A || !c.B || !c.info) {
      fprintf(stderr, "out of memory at n = %d\n", n);
      return 1;
    }
    make_inputs(n, nbatch, A0, B0);
    bench_case bc = {&c, A0, B0, bytesA, bytesB};
    double us[2][2] = {{0, 0}, {0, 0}}; /* [impl][threads - 1] */
    for (int t = 1; t <= 2; ++t)
      for (int impl = 0; impl < nimpl; ++impl) {
        c.threads = t;
        c.use_lapack = impl;
        us[impl][t - 1] = measure(&bc, seconds);
      }
    if (nimpl == 2)
      printf("| %d | %d | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", n, nbatch, us[0][0], us[0][1], us[1][0],
             us[1][1], us[1][0] / us[0][0], us[1][1] / us[0][1]);
    else
      printf("| %d | %d | %.3f | %.3f | - | - | - | - |\n", n, nbatch, us[0][0], us[0][1]);
    fflush(stdout);
    free(c.A);
    free(c.B);
    free(c.info);
    free(A0);
    free(B0);
  }
  printf("\ndefault per n (library threshold LAPACK_MIN_N = %d, host/backend/linalg_cholesky.c):",
         LIB_LAPACK_MIN_N);
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; ++in)
    printf(" n=%d:%s", ns[in], default_lapack(ns[in]) ? "lapack" : "hand");
  printf("\n");
  return 0;
}
