// The CUDA kernels and launchers of the kernel table (kernels/kernel_table.h): one grid-stride
// kernel per line, the argument struct by value, queued on the backend's stream; nothing waits.
#include "host/backend/launch.h"
#include "kernels/cuda/cuda_check.h"

#define ISO_LAUNCH_CUDA(name, args, block)                                                        \
  __global__ void name##_kernel(args a, long n) {                                                 \
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) \
      name##_item_at(&a, i);                                                                      \
  }                                                                                               \
  extern "C" isoStatus cuda_launch_##name(const isoBackend *b, long n, const args *a) {          \
    ISO_LAUNCH(name##_kernel, cuda_grid(n, block), block, (cudaStream_t)b->stream, *a, n);        \
    CUDA_LAUNCHED();                                                                              \
    return ISO_OK;                                                                                \
  }
ISO_KERNELS(ISO_LAUNCH_CUDA)
#undef ISO_LAUNCH_CUDA

// The largest per-thread stack any table kernel needs: the backend sets the device's stack limit
// to it when it is created, so the driver reserves that local memory then (where running out is
// a clear error at iso_sim_create) rather than growing it, with a device-wide synchronisation,
// at the first launch inside a step.
extern "C" isoStatus cuda_launch_stack_bytes(size_t *bytes) {
  size_t most = 0;
  cudaFuncAttributes attr;
#define ISO_LAUNCH_STACK(name, args, block)                   \
  CUDA_TRY(cudaFuncGetAttributes(&attr, name##_kernel));      \
  if (attr.localSizeBytes > most) most = attr.localSizeBytes;
  ISO_KERNELS(ISO_LAUNCH_STACK)
#undef ISO_LAUNCH_STACK
  *bytes = most;
  return ISO_OK;
}
