/* Batched Cholesky on the CPU: the hand-written kernels/linalg/cholesky.h against LAPACK's
 * dpotrf_ + dpotrs_, factor + solve per matrix, for n = 6 .. 120 and 1 and 2 threads. The
 * result decides linalg_cholesky_default_lapack (bench/cholesky.md).
 *
 * Method. A batch of SPD matrices (A = M^T M + nI, 16 distinct ones repeated) sized like a
 * step's worth of worlds: at most 16384 worlds and at most 16 MiB of matrices (so it lives in
 * L3 here, as a Hessian just assembled would). run() overwrites A and B, so every call first
 * restores them from a pristine copy; one timing = `calls` x (restore + run), with `calls`
 * chosen so a timing lasts ~0.2 s. The same loop with the restore alone is timed too and
 * subtracted. Each figure is the median of 5 timings, in microseconds per matrix.
 *
 * usage: bench_cholesky [seconds per timing, default 0.2] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/backend/backend.h"
#include "host/backend/linalg.h"

enum { REPS = 5, DISTINCT = 16 };

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
  const isoBackend *b;
  linalgCholesky *c;
  const double *A0, *B0;
  size_t bytesA, bytesB;
} bench_case;

/* seconds for `calls` x (restore [+ run]) */
static double timed(const bench_case *bc, int calls, int with_run) {
  double t0 = now();
  for (int r = 0; r < calls; ++r) {
    memcpy(bc->c->A, bc->A0, bc->bytesA);
    memcpy(bc->c->B, bc->B0, bc->bytesB);
    if (with_run && linalg_cholesky_run(bc->b, bc->c, NULL) != ISO_OK) {
      fprintf(stderr, "run failed: %s\n", iso_last_error());
      exit(1);
    }
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

static void make_inputs(int n, int nbatch, double *A0, double *B0) {
  unsigned long long s = 88172645463325252ull; /* xorshift64: deterministic inputs */
  double *M = malloc(sizeof(double) * (size_t)n * (size_t)n);
  for (int w = 0; w < nbatch; ++w) {
    double *A = A0 + (size_t)w * n * n;
    if (w >= DISTINCT) {
      memcpy(A, A0 + (size_t)(w % DISTINCT) * n * n, sizeof(double) * (size_t)n * n);
    } else {
      for (int i = 0; i < n * n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        M[i] = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      }
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          double acc = i == j ? n : 0;
          for (int k = 0; k < n; ++k) acc += M[k + i * n] * M[k + j * n];
          A[i + j * n] = acc;
        }
    }
    for (int i = 0; i < n; ++i) B0[(size_t)w * n + i] = (double)((w + i) % 7) - 3.0;
  }
  free(M);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.2;
  if (!(seconds > 0)) seconds = 0.2;
  static const int ns[] = {6, 12, 24, 48, 72, 96, 120};
  int nimpl = 1 + linalg_have_lapack();
  printf("bench_cholesky: us per matrix (factor + solve), median of %d timings of ~%.2f s\n", REPS, seconds);
  printf("LAPACK built in: %s\n\n", linalg_have_lapack() ? "yes" : "no (hand-written only)");
  printf("| n | nbatch | hand 1T | hand 2T | LAPACK 1T | LAPACK 2T | LAPACK/hand 1T | LAPACK/hand 2T |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; ++in) {
    int n = ns[in];
    long long fit = (16ll << 20) / ((long long)n * n * (long long)sizeof(double));
    int nbatch = (int)(fit < 16384 ? fit : 16384);
    size_t bytesA = sizeof(double) * (size_t)nbatch * n * n, bytesB = sizeof(double) * (size_t)nbatch * n;
    double *A0 = malloc(bytesA), *B0 = malloc(bytesB);
    make_inputs(n, nbatch, A0, B0);
    double us[2][2] = {{0, 0}, {0, 0}}; /* [impl][threads - 1] */
    for (int t = 1; t <= 2; ++t) {
      isoBackend b;
      if (backend_init(&b, ISO_BACKEND_CPU, t, NULL) != ISO_OK) return 1;
      linalgCholesky c;
      if (linalg_cholesky_create(&b, n, nbatch, &c) != ISO_OK) {
        fprintf(stderr, "%s\n", iso_last_error());
        return 1;
      }
      bench_case bc = {&b, &c, A0, B0, bytesA, bytesB};
      for (int impl = 0; impl < nimpl; ++impl) {
        c.use_lapack = impl;
        us[impl][t - 1] = measure(&bc, seconds);
      }
      linalg_cholesky_destroy(&b, &c);
      backend_release(&b);
    }
    if (nimpl == 2)
      printf("| %d | %d | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", n, nbatch, us[0][0], us[0][1], us[1][0],
             us[1][1], us[1][0] / us[0][0], us[1][1] / us[0][1]);
    else
      printf("| %d | %d | %.3f | %.3f | - | - | - | - |\n", n, nbatch, us[0][0], us[0][1]);
    fflush(stdout);
    free(A0);
    free(B0);
  }
  printf("\ndefault per n (linalg_cholesky_default_lapack):");
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; ++in)
    printf(" n=%d:%s", ns[in], linalg_cholesky_default_lapack(ns[in]) ? "lapack" : "hand");
  printf("\n");
  return 0;
}
