/* Checking every CUDA and cuSOLVER call, and launching kernels: a failure becomes an isoStatus
 * whose message names the call, the file and the line. Only included by kernels/cuda/ sources.
 *
 * Under ISO_CUDA_EMULATED these sources are compiled as C++ against the host shim in
 * kernels/cuda/emu/ (first on the include path, so <cuda_runtime.h> is the shim's). */
#ifndef ISO_CUDA_CHECK_H
#define ISO_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"

/* A failed call leaves the runtime's per-thread last error set; it is cleared here, once the
 * failure has become an isoStatus, or the next launch check would report this failure as its
 * own. (A sticky error, such as an illegal address, cannot be cleared and fails later calls
 * too, as it should.) Out of device memory is ISO_ERR_NOMEM like out of host memory, so callers
 * can tell "too big for this device" from a broken device. */
#define CUDA_TRY(call)                                                                              \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      (void)cudaGetLastError();                                                                     \
      return iso_fail(e_ == cudaErrorMemoryAllocation ? ISO_ERR_NOMEM : ISO_ERR_CUDA,               \
                      "%s failed at %s:%d: %s", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    }                                                                                               \
  } while (0)

/* ISO_CUDA_SYNC=1 in the environment (read at the first launch): every launch is waited for and
 * checked, so a fault while a kernel runs (an illegal address, say) is reported with the file
 * and line of the launch that caused it, not of the next copy. For debugging: it serialises the
 * host and the device. */
static inline int cuda_sync_each(void) {
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("ISO_CUDA_SYNC");
    on = e && strcmp(e, "1") == 0;
  }
  return on;
}

/* After a kernel launch: report a bad launch configuration at once (and, under ISO_CUDA_SYNC=1,
 * a fault while it ran). */
#define CUDA_LAUNCHED()                                        \
  do {                                                         \
    CUDA_TRY(cudaGetLastError());                              \
    if (cuda_sync_each()) CUDA_TRY(cudaDeviceSynchronize());   \
  } while (0)

/* kernel<<<grid, block, 0, stream>>>(args...), the one launch syntax of kernels/cuda/. The
 * emulation runs every block and thread of the grid in turn on the calling host thread, with
 * blockIdx/threadIdx/blockDim/gridDim set for each, so grid-stride loops cover the items as on
 * a device; a bad configuration sets the last error, which CUDA_LAUNCHED then reports. */
#if defined(ISO_CUDA_EMULATED) && ISO_CUDA_EMULATED
#define ISO_LAUNCH(kernel, grid, block, stream, ...) ::iso_emu::launch((grid), (block), (stream), kernel, __VA_ARGS__)
#else
#define ISO_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#endif

/* Grid size for n items at `block` threads, capped for grid-stride loops. */
static inline unsigned cuda_grid(long long n, unsigned block) {
  long long g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65535LL * 32) g = 65535LL * 32;
  return (unsigned)g;
}

#endif
