// Launch layer of the free-body stage: one thread per world, the work in
// kernels/rigid/free_body.h (the code the CPU backend runs).
#include "host/step/rigid_step.h"
#include "kernels/cuda/cuda_check.h"

__global__ void rigid_free_step_kernel(int nworld, rigidParams P, int nq, int nv, real *q, real *v,
                                       real *time, uint32_t *status) {
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < nworld; w += gridDim.x * blockDim.x)
    rigid_free_step_world(w, &P, q + (long)w * nq, v + (long)w * nv, time + w, status + w);
}

extern "C" isoStatus cuda_rigid_free_step(const isoBackend *b, int nworld, rigidParams P, int nq,
                                          int nv, real *q, real *v, real *time, uint32_t *status) {
  const unsigned block = 128;
  ISO_LAUNCH(rigid_free_step_kernel, cuda_grid(nworld, block), block, (cudaStream_t)b->stream,
             nworld, P, nq, nv, q, v, time, status);
  CUDA_LAUNCHED();
  return ISO_OK;
}
