/* Internal: batched dense linear algebra per world, on either backend.
 *
 * Batched Cholesky (factor + solve) of one SPD matrix per world, as SAP's Newton step needs it.
 * A plan object owns every buffer, allocated once by linalg_cholesky_create in the backend's
 * memory space; linalg_cholesky_run allocates nothing, so it may run inside a step (and inside
 * a captured CUDA graph).
 *
 *   CPU:  kernels/linalg/cholesky.h over the batch with backend_cpu_for (bitwise identical
 *         results for any thread count), or LAPACK's dpotrf_/dpotrs_ when the library was
 *         built with LAPACK and `use_lapack` says so (see bench/cholesky.md for which is the
 *         default and why).
 *   CUDA: cuSOLVER's cusolverDnDpotrfBatched + cusolverDnDpotrsBatched on b->cusolver.
 *
 * info means what it means in LAPACK: 0 ok, k > 0 the leading minor of order k is not positive
 * definite (a NaN pivot counts as not positive). Where info != 0, A holds a partial factor and
 * B is unspecified: the CPU backend leaves it as it was, cuSOLVER's potrsBatched solves with
 * the partial factor anyway (its own info only reports argument errors) and leaves garbage.
 * Callers must read info or the world status bit, never B alone. */
#ifndef ISO_HOST_LINALG_H
#define ISO_HOST_LINALG_H

#include <stdint.h>

#include "host/backend/backend.h"
#include "kernels/core.h"

typedef struct linalgCholesky {
  int n, nbatch;
  real *A;        /* (nbatch, n, n) column-major per matrix, backend memory; overwritten by L (lower) */
  real *B;        /* (nbatch, n) right-hand sides, backend memory; overwritten by the solution where info == 0 */
  int *info;      /* (nbatch) backend memory: 0 ok, k > 0 leading minor k not positive definite */
  void *dev_ptrs; /* CUDA: device arrays of per-matrix pointers for cuSOLVER batched calls */
  int use_lapack; /* CPU: which implementation runs (decided by the benchmark) */
} linalgCholesky;

#ifdef __cplusplus
extern "C" {
#endif

/* Create a plan for nbatch systems of order n on backend b: allocates A, B and info (zero
 * filled) and, on CUDA, the per-matrix pointer arrays cuSOLVER's batched calls take. Fails
 * with ISO_ERR_NULL for a NULL b or out, ISO_ERR_INVALID for n < 1, nbatch < 1 or a size
 * that overflows, ISO_ERR_NOMEM/ISO_ERR_CUDA/ISO_ERR_BACKEND from the allocation. On failure
 * *out is zeroed and nothing stays allocated. On the CPU, use_lapack is set to the benchmarked
 * default for this n (linalg_cholesky_default_lapack). */
isoStatus linalg_cholesky_create(const isoBackend *b, int n, int nbatch, linalgCholesky *out);

/* Factor every A[w] in place into L and, where info[w] == 0, overwrite B[w] with the solution
 * of A[w] x = B[w]. world_status (nbatch, backend memory) may be NULL; otherwise
 * ISO_WORLD_NOT_SPD is OR-ed into world_status[w] where info[w] > 0 and no other bit changes.
 * Allocates nothing. On CUDA the work is queued on b->stream and the call does not wait.
 * Fails with ISO_ERR_NULL for NULL b or c, ISO_ERR_STATE for a plan that was not created,
 * ISO_ERR_UNSUPPORTED when use_lapack is set but LAPACK is not built in, ISO_ERR_CUDA when a
 * CUDA or cuSOLVER call fails. */
isoStatus linalg_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status);

/* Free the plan's buffers (on the backend that created it) and zero *c. Safe on a zeroed or
 * already destroyed plan and on NULL. */
void linalg_cholesky_destroy(const isoBackend *b, linalgCholesky *c);

/* 1 when this library was built with LAPACK (dpotrf_/dpotrs_ usable), else 0. */
int linalg_have_lapack(void);

/* The CPU implementation linalg_cholesky_create picks for order n: 1 for LAPACK, 0 for the
 * hand-written kernels/linalg/cholesky.h. Always 0 without LAPACK. */
int linalg_cholesky_default_lapack(int n);

/* CUDA layer (kernels/cuda/cholesky.cu; host/backend/cuda_off_linalg.c without nvcc, where each fails
 * with ISO_ERR_BACKEND). Arguments are validated by the linalg_cholesky_* callers.
 * create allocates c->dev_ptrs and fills it once: the nbatch pointers to each A[w], the nbatch
 * pointers to each B[w], then one int for potrsBatched's argument-error info. */
isoStatus cuda_cholesky_create(const isoBackend *b, linalgCholesky *c);
isoStatus cuda_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status);
void cuda_cholesky_destroy(const isoBackend *b, linalgCholesky *c);
#ifdef __cplusplus
}
#endif

#endif
