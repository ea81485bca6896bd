/* Batched dense Cholesky per world: plan creation, dispatch on the backend, and the CPU driver.
 *
 * The CPU driver runs one world per item over the batch with backend_cpu_for: each matrix is
 * factored and solved by exactly one thread with no cross-world reduction, so the outputs are
 * bitwise identical for any thread count. Two per-matrix implementations exist:
 *   - the hand-written kernels/linalg/cholesky.h (the code the GPU build could also run);
 *   - LAPACK's dpotrf_ + dpotrs_ when the library is built with LAPACK (ISO_HAVE_LAPACK).
 * Which one runs is the plan's `use_lapack`, set at creation from the measurement in
 * bench/cholesky.md (linalg_cholesky_default_lapack). The CUDA path lives in
 * kernels/cuda/cholesky.cu. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "host/base/error.h"
#include "host/backend/linalg.h"
#include "isobar/world_status.h"
#include "kernels/linalg/cholesky.h"

#if defined(ISO_HAVE_LAPACK) && ISO_HAVE_LAPACK
/* Fortran LAPACK, declared here so no LAPACKE/C header is needed. gfortran (>= 8) appends one
 * hidden size_t length per CHARACTER argument. */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len);
#define HAVE_LAPACK 1
#else
#define HAVE_LAPACK 0
#endif

/* Orders at or above this use LAPACK by default. bench/cholesky.md: the hand-written kernel is
 * faster than Debian's reference LAPACK (over reference BLAS) at every n from 6 to 120, so
 * LAPACK is never the default; the path stays for comparison and for linking an optimised
 * LAPACK later (re-run bench_cholesky first). bench/bench_cholesky.c prints a copy of this value
 * (LIB_LAPACK_MIN_N): change both together. */
#define LAPACK_MIN_N 0x7fffffff

int linalg_have_lapack(void) { return HAVE_LAPACK; }

int linalg_cholesky_default_lapack(int n) { return HAVE_LAPACK && n >= LAPACK_MIN_N; }

isoStatus linalg_cholesky_create(const isoBackend *b, int n, int nbatch, linalgCholesky *out) {
  CHECK_NULL(out, "linalg_cholesky_create");
  memset(out, 0, sizeof *out);
  CHECK_NULL(b, "linalg_cholesky_create");
  if (n < 1) return iso_fail(ISO_ERR_INVALID, "linalg_cholesky_create: matrix order n = %d must be >= 1", n);
  if (nbatch < 1)
    return iso_fail(ISO_ERR_INVALID, "linalg_cholesky_create: batch size nbatch = %d must be >= 1", nbatch);
  size_t nn = (size_t)n * (size_t)n; /* n <= INT_MAX, so n*n fits in 64 bits */
  if (nn > SIZE_MAX / sizeof(real) / (size_t)nbatch)
    return iso_fail(ISO_ERR_INVALID, "linalg_cholesky_create: %d matrices of order %d overflow the address space",
                    nbatch, n);
  if (b->kind != ISO_BACKEND_CPU && b->kind != ISO_BACKEND_CUDA)
    return iso_fail(ISO_ERR_INVALID, "linalg_cholesky_create: backend kind %d is not cpu or cuda", (int)b->kind);

  isoStatus st = ISO_OK;
  linalgCholesky c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.nbatch = nbatch;
  TRY(backend_alloc(b, (void **)&c.A, nn * (size_t)nbatch * sizeof(real)));
  TRY(backend_alloc(b, (void **)&c.B, (size_t)n * (size_t)nbatch * sizeof(real)));
  TRY(backend_alloc(b, (void **)&c.info, (size_t)nbatch * sizeof(int)));
  if (b->kind == ISO_BACKEND_CUDA) TRY(cuda_cholesky_create(b, &c));
  else c.use_lapack = linalg_cholesky_default_lapack(n);
  *out = c;
  return ISO_OK;
fail:
  linalg_cholesky_destroy(b, &c);
  return st;
}

void linalg_cholesky_destroy(const isoBackend *b, linalgCholesky *c) {
  if (!b || !c) return;
  if (b->kind == ISO_BACKEND_CUDA) cuda_cholesky_destroy(b, c);
  backend_free(b, c->A);
  backend_free(b, c->B);
  backend_free(b, c->info);
  memset(c, 0, sizeof *c);
}

/* ---- CPU driver -------------------------------------------------------------------------- */

typedef struct {
  linalgCholesky *c;
  uint32_t *world_status;
} cpu_job;

static void mark_not_spd(const cpu_job *job, int w, int info) {
  if (info > 0 && job->world_status) job->world_status[w] |= (uint32_t)ISO_WORLD_NOT_SPD;
}

static void run_hand(int start, int end, void *ctx) {
  const cpu_job *job = (const cpu_job *)ctx;
  const int n = job->c->n;
  for (int w = start; w < end; ++w) {
    real *A = job->c->A + (size_t)w * (size_t)n * (size_t)n;
    real *B = job->c->B + (size_t)w * (size_t)n;
    int info = chol_factor(n, A);
    if (info == 0) chol_solve(n, A, B);
    job->c->info[w] = info;
    mark_not_spd(job, w, info);
  }
}

#if HAVE_LAPACK
static void run_lapack(int start, int end, void *ctx) {
  const cpu_job *job = (const cpu_job *)ctx;
  const int n = job->c->n, one = 1;
  for (int w = start; w < end; ++w) {
    real *A = job->c->A + (size_t)w * (size_t)n * (size_t)n;
    real *B = job->c->B + (size_t)w * (size_t)n;
    int info = 0;
    dpotrf_("L", &n, A, &n, &info, 1);
    if (info == 0) {
      int sinfo = 0; /* only argument errors, impossible here: n, nrhs, lda, ldb are valid */
      dpotrs_("L", &n, &one, A, &n, B, &n, &sinfo, 1);
    }
    /* dpotrf reports argument errors as info < 0; create validated n, so info >= 0 here. */
    job->c->info[w] = info;
    mark_not_spd(job, w, info);
  }
}
#endif

isoStatus linalg_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status) {
  CHECK_NULL(b, "linalg_cholesky_run");
  CHECK_NULL(c, "linalg_cholesky_run");
  if (!c->A || !c->B || !c->info || c->n < 1 || c->nbatch < 1)
    return iso_fail(ISO_ERR_STATE, "linalg_cholesky_run: the plan was not created (or was destroyed)");
  if (b->kind == ISO_BACKEND_CUDA) return cuda_cholesky_run(b, c, world_status);
  if (b->kind != ISO_BACKEND_CPU)
    return iso_fail(ISO_ERR_INVALID, "linalg_cholesky_run: backend kind %d is not cpu or cuda", (int)b->kind);
  cpu_job job;
  job.c = c;
  job.world_status = world_status;
  if (c->use_lapack) {
#if HAVE_LAPACK
    backend_cpu_for(b, c->nbatch, run_lapack, &job);
    return ISO_OK;
#else
    return iso_fail(ISO_ERR_UNSUPPORTED,
                    "linalg_cholesky_run: use_lapack = %d but isobar was built without LAPACK", c->use_lapack);
#endif
  }
  backend_cpu_for(b, c->nbatch, run_hand, &job);
  return ISO_OK;
}
