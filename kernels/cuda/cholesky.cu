// Batched dense Cholesky on the CUDA backend: cuSOLVER's potrfBatched + potrsBatched over the
// plan's buffers (host/backend/linalg.h), queued on the backend's stream through b->cusolver.
//
// cuSOLVER's batched calls take device arrays of per-matrix pointers. They never change for a
// plan, so create builds them once with a kernel (no host staging) and run only queues work:
// nothing is allocated and nothing waits. (The SAP loop around it still reads back, once per
// Newton iteration, whether any world is left: a step is not yet capturable in a CUDA graph.)
//
// potrsBatched supports nrhs = 1 only and its info reports argument errors only (one int for
// the whole batch); a matrix that failed to factor is solved with its partial factor and its
// B is garbage. That int is not read back: the arguments were validated at create, and
// reading it would cost a synchronisation per step. Callers read info / ISO_WORLD_NOT_SPD.
#include <cusolverDn.h>
#include <stdint.h>

#include "host/backend/linalg.h"
#include "isobar/world_status.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/linalg/cholesky.h"

static const char *cusolver_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "unknown cusolverStatus_t";
  }
}

// Like CUDA_TRY for cusolverStatus_t: the failure names the call, file, line and status.
#define CUSOLVER_TRY(call)                                                                      \
  do {                                                                                          \
    cusolverStatus_t s_ = (call);                                                               \
    if (s_ != CUSOLVER_STATUS_SUCCESS)                                                          \
      return iso_fail(ISO_ERR_CUDA, "%s failed at %s:%d: %s (%d)", #call, __FILE__, __LINE__, \
                      cusolver_name(s_), (int)s_);                                              \
  } while (0)

// ptrs[w] = A + w n^2 and ptrs[nbatch + w] = B + w n, for w < nbatch.
__global__ void chol_fill_ptrs(double **ptrs, double *A, double *B, int n, int nbatch) {
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nbatch;
       w += (long long)gridDim.x * blockDim.x) {
    ptrs[w] = A + w * (long long)n * n;
    ptrs[nbatch + w] = B + w * (long long)n;
  }
}

// info[w] as LAPACK (and the CPU) has it where potrfBatched said 0: cuSOLVER lets a NaN pivot
// through (seen on an H200: a NaN in L[n-1,0] factors with info 0), and a factor with a NaN or
// non-positive diagonal entry must not pass as SPD. Then world_status[w] |= ISO_WORLD_NOT_SPD
// where info[w] > 0 (when world_status is given); other bits untouched.
__global__ void chol_check_pivots(double *const *Aptrs, int *info, uint32_t *world_status, int n, int nbatch) {
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nbatch;
       w += (long long)gridDim.x * blockDim.x) {
    if (info[w] == 0) info[w] = chol_info_of_factor(n, Aptrs[w]);
    if (world_status && info[w] > 0) world_status[w] |= (uint32_t)ISO_WORLD_NOT_SPD;
  }
}

static const unsigned BLOCK = 256;

// Layout of dev_ptrs: nbatch A pointers, nbatch B pointers, one int (potrsBatched's info).
static size_t ptrs_bytes(int nbatch) { return 2 * (size_t)nbatch * sizeof(double *) + sizeof(int); }
static int *potrs_info(const linalgCholesky *c) {
  return (int *)((double **)c->dev_ptrs + 2 * (size_t)c->nbatch);
}

extern "C" isoStatus cuda_cholesky_create(const isoBackend *b, linalgCholesky *c) {
  static_assert(sizeof(real) == sizeof(double), "cuSOLVER path is written for real == double");
  cudaStream_t s = (cudaStream_t)b->stream;
  c->dev_ptrs = NULL;
  CUDA_TRY(cudaMalloc(&c->dev_ptrs, ptrs_bytes(c->nbatch)));
  CUDA_TRY(cudaMemsetAsync(c->dev_ptrs, 0, ptrs_bytes(c->nbatch), s));
  ISO_LAUNCH(chol_fill_ptrs, cuda_grid(c->nbatch, BLOCK), BLOCK, s,
             (double **)c->dev_ptrs, c->A, c->B, c->n, c->nbatch);
  CUDA_LAUNCHED();
  return ISO_OK;
}

extern "C" isoStatus cuda_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status) {
  if (!c->dev_ptrs)
    return iso_fail(ISO_ERR_STATE, "cuda_cholesky_run: the plan has no pointer arrays (not created on CUDA)");
  if (!b->cusolver) return iso_fail(ISO_ERR_STATE, "cuda_cholesky_run: the backend has no cuSOLVER handle");
  cusolverDnHandle_t h = (cusolverDnHandle_t)b->cusolver;
  cudaStream_t s = (cudaStream_t)b->stream;
  double **Aptrs = (double **)c->dev_ptrs;
  double **Bptrs = Aptrs + c->nbatch;
  CUSOLVER_TRY(cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, c->n, Aptrs, c->n, c->info, c->nbatch));
  CUSOLVER_TRY(cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, c->n, 1, Aptrs, c->n, Bptrs, c->n,
                                       potrs_info(c), c->nbatch));
  ISO_LAUNCH(chol_check_pivots, cuda_grid(c->nbatch, BLOCK), BLOCK, s, (double *const *)Aptrs, c->info,
             world_status, c->n, c->nbatch);
  CUDA_LAUNCHED();
  return ISO_OK;
}

extern "C" void cuda_cholesky_destroy(const isoBackend *b, linalgCholesky *c) {
  // The stream may still be using the arrays: cudaFree synchronises the device first.
  (void)b;
  if (c->dev_ptrs) cudaFree(c->dev_ptrs);
  c->dev_ptrs = NULL;
}
