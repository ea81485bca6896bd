/* Checking every CUDA and cuSOLVER call: a failure becomes an isoStatus whose message names the
 * call, the file and the line. Only included by kernels/cuda/ sources. */
#ifndef ISO_CUDA_CHECK_H
#define ISO_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "host/base/error.h"

#define CUDA_TRY(call)                                                                    \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess)                                                                \
      return iso_fail(ISO_ERR_CUDA, "%s failed at %s:%d: %s", #call, __FILE__, __LINE__, \
                      cudaGetErrorString(e_));                                            \
  } while (0)

/* After a kernel launch: report a bad launch configuration at once. */
#define CUDA_LAUNCHED() CUDA_TRY(cudaGetLastError())

/* Grid size for n items at `block` threads, capped for grid-stride loops. */
static inline unsigned cuda_grid(long long n, unsigned block) {
  long long g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;
  return (unsigned)g;
}

#endif
