// The CUDA kernels and launchers of the kernel table (kernels/kernel_table.h): one grid-stride
// kernel per line, the argument struct by value, queued on the backend's stream; nothing waits.
#include "host/backend/launch.h"
#include "kernels/cuda/cuda_check.h"

// Threads per block of the one-item-per-world kernels (ISO_WORLD_BLOCK in the table): 32, or
// ISO_CUDA_WORLD_BLOCK from the environment (a multiple of 32 up to 1024, read at the first
// launch; anything else is ignored) for comparing block sizes on a device without a rebuild.
static unsigned cuda_world_block(void) {
  static unsigned bk = 0;
  if (!bk) {
    const char *e = getenv("ISO_CUDA_WORLD_BLOCK");
    const long v = e ? strtol(e, NULL, 10) : 0;
    bk = v >= 32 && v <= 1024 && v % 32 == 0 ? (unsigned)v : 32u;
  }
  return bk;
}

#define ISO_LAUNCH_CUDA(name, args, block)                                                        \
  __global__ void name##_kernel(args a, long n) {                                                 \
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) \
      name##_item_at(&a, i);                                                                      \
  }                                                                                               \
  extern "C" isoStatus cuda_launch_##name(const isoBackend *b, long n, const args *a) {          \
    const unsigned bk = (block) ? (unsigned)(block) : cuda_world_block();                         \
    ISO_LAUNCH(name##_kernel, cuda_grid(n, bk), bk, (cudaStream_t)b->stream, *a, n);              \
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
