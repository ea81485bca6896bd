/* The block-sparse Cholesky of a deformable body's tangent matrix (kernels/linalg/block_chol.h,
 * on the pattern of host/assets/fem_pattern.c) against the dense Cholesky of the same matrix
 * (kernels/linalg/cholesky.h), factor + solve, one thread, for grid meshes of ~100, ~500 and
 * ~2000 vertices; and the Schur complement on a few participating vertices
 * (kernels/linalg/schur.h, without Z) with the expansion by one solve. Results:
 * bench/fem_cholesky.md.
 *
 * Meshes: nx x ny x nz unit cubes cut into 6 tets each (interior vertices in 24 tets, as a
 * structured FEM mesh). Values: T = sum over tets of a random SPD 12 x 12 element matrix + I,
 * the same construction as tests/support/chol_meshes.h; the timings depend on the pattern only.
 *
 * Method, as bench/bench_cholesky.c: every call first restores the matrix from a pristine copy;
 * one timing = `calls` x (restore + run), `calls` chosen so a timing lasts ~0.2 s; the same loop
 * with the restore alone is timed and subtracted; the figure is the median of 5 timings. The
 * dense factorization of the largest matrix (6084 x 6084) takes tens of seconds, so a dense case
 * longer than 2 s is timed once (calls = 1, 1 timing).
 *
 * usage: bench_block_chol [seconds per timing, default 0.2] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isobar/status.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/linalg/schur.h"

/* The library's pattern builder (host/assets/fem_pattern.h), declared here as bench_cholesky.c
 * declares LAPACK, so the bench includes only public and kernel headers. Keep in step. */
enum { FEM_ORDER_MIN_DEGREE = 0 };
isoStatus fem_pattern_build(int nvert, int ntet, const int *tet, int ordering, bcholPattern *out);
void fem_pattern_free(bcholPattern *p);
int fem_pattern_tet_slot(const bcholPattern *p, int e, int a, int b, int *transposed);

enum { REPS = 5 };

static unsigned long long rng_state = 88172645463325252ull; /* xorshift64: deterministic inputs */

static double uniform(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
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

static int *grid_mesh(int nx, int ny, int nz, int *nvert, int *ntet) {
  static const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int step[3] = {1, nx + 1, (nx + 1) * (ny + 1)};
  *nvert = (nx + 1) * (ny + 1) * (nz + 1);
  *ntet = 6 * nx * ny * nz;
  int *tet = malloc(sizeof(int) * 4 * (size_t)*ntet), e = 0;
  if (!tet) exit(1);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int t = 0; t < 6; ++t, ++e) {
          int v = i * step[0] + j * step[1] + k * step[2];
          tet[4 * e] = v;
          for (int a = 0; a < 3; ++a) tet[4 * e + 1 + a] = v += step[axes[t][a]];
        }
  return tet;
}

/* T's lower blocks into Lv (nslot x 9) through the tet slots, and densely into A (3n x 3n). */
static void assemble(const bcholPattern *p, const int *tet, real *Lv, real *A) {
  const int n3 = 3 * p->nvert;
  memset(Lv, 0, sizeof(real) * 9 * (size_t)p->nslot);
  memset(A, 0, sizeof(real) * (size_t)n3 * n3);
  double M[144], E[144];
  for (int e = 0; e < p->ntet; ++e) {
    for (int i = 0; i < 144; ++i) M[i] = uniform();
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        double s = 0;
        for (int k = 0; k < 12; ++k) s += M[12 * k + i] * M[12 * k + j];
        E[12 * i + j] = s / 12;
      }
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        int va = tet[4 * e + a], vb = tet[4 * e + b], tr, s = fem_pattern_tet_slot(p, e, a, b, &tr);
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y) {
            A[(3 * va + x) + (size_t)(3 * vb + y) * n3] += E[12 * (3 * a + x) + 3 * b + y];
            if (!tr) Lv[9 * s + 3 * x + y] += E[12 * (3 * a + x) + 3 * b + y];
          }
      }
  }
  const int *iperm = p->data + p->off_iperm, *col_ptr = p->data + p->off_col_ptr;
  for (int v = 0; v < p->nvert; ++v)
    for (int x = 0; x < 3; ++x) {
      A[(3 * v + x) + (size_t)(3 * v + x) * n3] += 1;
      Lv[9 * col_ptr[iperm[v]] + 4 * x] += 1;
    }
}

/* One case: what run() overwrites and the pristine copies it is restored from. */
typedef struct {
  int kind; /* 0 sparse factor + solve, 1 dense factor + solve, 2 sparse factor + Schur + expansion */
  const bcholView *v;
  int n3, m, *pvert;
  real *mat, *mat0, *b, *b0, *work, *Z, *S, *dvp;
  size_t bytes_mat;
} benchCase;

static void run(benchCase *c) {
  if (c->kind == 1) {
    if (chol_factor(c->n3, c->mat) != 0) exit(2);
    chol_solve(c->n3, c->mat, c->b);
    return;
  }
  if (bchol_factor(c->v, c->mat) != 0) exit(2);
  if (c->kind == 0) {
    bchol_solve(c->v, c->mat, c->b, c->work);
    return;
  }
  if (bchol_schur(c->v, c->mat, c->m, c->pvert, 0, c->Z, c->S, c->work) != 0) exit(2);
  bchol_schur_expand_solve(c->v, c->mat, c->m, c->pvert, c->S, c->dvp, c->b, c->work);
}

static double timed(benchCase *c, int calls, int with_run) {
  double t0 = now();
  for (int r = 0; r < calls; ++r) {
    memcpy(c->mat, c->mat0, c->bytes_mat);
    memcpy(c->b, c->b0, sizeof(real) * (size_t)c->n3);
    if (with_run) run(c);
  }
  return now() - t0;
}

/* microseconds per factor + solve: the median of REPS net timings (1 for a run over 2 s) */
static double measure(benchCase *c, double seconds) {
  int calls = 1;
  double t = timed(c, calls, 1);
  if (t > 2.0) return 1e6 * (t - timed(c, 1, 0));
  while (t < 1e-2) {
    calls *= 2;
    t = timed(c, calls, 1);
  }
  calls = (int)(seconds / (t / calls)) + 1;
  double with_run[REPS], restore[REPS];
  for (int r = 0; r < REPS; ++r) {
    with_run[r] = timed(c, calls, 1);
    restore[r] = timed(c, calls, 0);
  }
  qsort(with_run, REPS, sizeof(double), cmp_double);
  qsort(restore, REPS, sizeof(double), cmp_double);
  return 1e6 * (with_run[REPS / 2] - restore[REPS / 2]) / calls;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.2;
  if (!(seconds > 0)) seconds = 0.2;
  static const int dims[3][3] = {{4, 4, 3}, {7, 7, 7}, {12, 12, 11}};
  enum { NP = 16 }; /* participating vertices for the Schur timing */
  printf("bench_block_chol: us per factor + solve, 1 thread, median of %d timings of ~%.2f s\n\n", REPS, seconds);
  printf("| grid | vertices | T blocks | L blocks | height | analysis ms | sparse MFlop | sparse us | dense us | "
         "dense/sparse | sparse + Schur (m=%d) us |\n",
         NP);
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int g = 0; g < 3; ++g) {
    int nv, nt;
    int *tet = grid_mesh(dims[g][0], dims[g][1], dims[g][2], &nv, &nt);
    bcholPattern p;
    double t0 = now();
    if (fem_pattern_build(nv, nt, tet, FEM_ORDER_MIN_DEGREE, &p) != ISO_OK) return 1;
    double t_analysis = now() - t0;
    bcholView v = bchol_pattern_view(&p, p.data);
    const int n3 = 3 * nv, M = 3 * NP;
    size_t bytes_l = sizeof(real) * 9 * (size_t)p.nslot, bytes_d = sizeof(real) * (size_t)n3 * n3;
    real *L0 = malloc(bytes_l), *L = malloc(bytes_l), *A0 = malloc(bytes_d), *A = malloc(bytes_d);
    real *b0 = malloc(sizeof(real) * n3), *b = malloc(sizeof(real) * n3);
    real *work = malloc(sizeof(real) * (size_t)bchol_schur_work_size(nv, NP));
    real *Z = malloc(sizeof(real) * (size_t)n3 * M), *S = malloc(sizeof(real) * M * M), dvp[3 * NP];
    int pvert[NP];
    if (!L0 || !L || !A0 || !A || !b0 || !b || !work || !Z || !S) return 1;
    assemble(&p, tet, L0, A0);
    for (int i = 0; i < n3; ++i) b0[i] = uniform();
    for (int a = 0; a < NP; ++a) pvert[a] = (int)((long long)a * nv / NP); /* spread over the mesh */
    for (int q = 0; q < M; ++q) dvp[q] = uniform();
    benchCase sp = {0, &v, n3, NP, pvert, L, L0, b, b0, work, Z, S, dvp, bytes_l};
    benchCase de = {1, &v, n3, NP, pvert, A, A0, b, b0, work, Z, S, dvp, bytes_d};
    benchCase sc = {2, &v, n3, NP, pvert, L, L0, b, b0, work, Z, S, dvp, bytes_l};
    double us_sparse = measure(&sp, seconds), us_schur = measure(&sc, seconds), us_dense = measure(&de, seconds);
    printf("| %dx%dx%d | %d | %d | %d | %d | %.1f | %.2f | %.1f | %.0f | %.0f | %.1f |\n", dims[g][0], dims[g][1],
           dims[g][2], nv, p.nblock_T, p.nslot, p.height, 1e3 * t_analysis, 1e-6 * (p.flops_factor + p.flops_solve),
           us_sparse, us_dense, us_dense / us_sparse, us_schur);
    fflush(stdout);
    free(L0), free(L), free(A0), free(A), free(b0), free(b), free(work), free(Z), free(S), free(tet);
    fem_pattern_free(&p);
  }
  return 0;
}
