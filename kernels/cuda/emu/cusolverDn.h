// The emulated device's cuSOLVER (ISO_CUDA_EMULATE): the handle, its stream and the batched
// Cholesky calls kernels/cuda/cholesky.cu makes, computed by the CPU backend's own per-matrix
// code (kernels/linalg/cholesky.h), so the two backends do the same arithmetic in the same
// order. Semantics kept from cuSOLVER: info[w] follows LAPACK (k > 0 when the leading minor of
// order k is not positive definite; a NaN pivot is not positive), and potrsBatched supports
// nrhs = 1 only, reports argument errors only, and solves every matrix whether or not it was
// factored (a failed one gets garbage, as on the device). Only lda = ldb = n, the layout the
// layer uses, is supported.
#ifndef ISO_CUDA_EMU_CUSOLVER_H
#define ISO_CUDA_EMU_CUSOLVER_H

#include "cuda_runtime.h"
#include "kernels/linalg/cholesky.h"

enum cusolverStatus_t {
  CUSOLVER_STATUS_SUCCESS = 0,
  CUSOLVER_STATUS_NOT_INITIALIZED = 1,
  CUSOLVER_STATUS_ALLOC_FAILED = 2,
  CUSOLVER_STATUS_INVALID_VALUE = 3,
  CUSOLVER_STATUS_ARCH_MISMATCH = 4,
  CUSOLVER_STATUS_EXECUTION_FAILED = 6,
  CUSOLVER_STATUS_INTERNAL_ERROR = 7,
  CUSOLVER_STATUS_NOT_SUPPORTED = 15,
};

enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 };

struct cusolverDnContext {
  cudaStream_t stream;
};
typedef cusolverDnContext *cusolverDnHandle_t;

inline cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *h) {
  *h = new cusolverDnContext{NULL};
  return CUSOLVER_STATUS_SUCCESS;
}

inline cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t h) {
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  delete h;
  return CUSOLVER_STATUS_SUCCESS;
}

inline cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t h, cudaStream_t s) {
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUSOLVER_STATUS_SUCCESS;
}

inline cusolverStatus_t cusolverDnDpotrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,
                                                double *Aarray[], int lda, int *info, int batch) {
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0 || !Aarray || !info) return CUSOLVER_STATUS_INVALID_VALUE;
  if (uplo != CUBLAS_FILL_MODE_LOWER || lda != n) return CUSOLVER_STATUS_NOT_SUPPORTED;
  for (int w = 0; w < batch; ++w) info[w] = chol_factor(n, Aarray[w]);
  return CUSOLVER_STATUS_SUCCESS;
}

inline cusolverStatus_t cusolverDnDpotrsBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs,
                                                double *Aarray[], int lda, double *Barray[], int ldb, int *info,
                                                int batch) {
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (n < 0 || nrhs != 1 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || batch < 0 || !Aarray || !Barray ||
      !info)
    return CUSOLVER_STATUS_INVALID_VALUE;
  if (uplo != CUBLAS_FILL_MODE_LOWER || lda != n || ldb != n) return CUSOLVER_STATUS_NOT_SUPPORTED;
  for (int w = 0; w < batch; ++w) chol_solve(n, Aarray[w], Barray[w]);
  *info = 0;
  return CUSOLVER_STATUS_SUCCESS;
}

#endif
