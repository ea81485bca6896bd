// Launch layer of the contact-surface stage: one thread per item of each stage, the work in
// kernels/hydro/surface.h (the code the CPU backend runs).
#include "host/step/contact_internal.h"
#include "kernels/cuda/cuda_check.h"

__global__ void hs_pose_kernel(int nworld, hydroDev H, hydroWork W, const real *q, int nq) {
  long n = (long)nworld * H.ngeom;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    int w = (int)(i / H.ngeom), g = (int)(i % H.ngeom);
    hs_pose_item(&H, &W, w, g, q + (long)w * nq);
  }
}

__global__ void hs_count_kernel(int nworld, hydroDev H, hydroWork W, const uint32_t *status) {
  long n = (long)nworld * H.npair;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    hs_count_item(&H, &W, (int)(i / H.npair), (int)(i % H.npair), status);
}

__global__ void hs_scan_kernel(int nworld, hydroDev H, hydroWork W, uint32_t *status) {
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < nworld; w += gridDim.x * blockDim.x)
    hs_scan_item(&H, &W, w, status);
}

__global__ void hs_emit_kernel(int nworld, hydroDev H, hydroWork W) {
  long n = (long)nworld * H.npair;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    hs_emit_item(&H, &W, (int)(i / H.npair), (int)(i % H.npair));
}

// One thread per candidate: the tet-pair clipping is the work the GPU is for. Pass 1 counts
// the records each candidate makes; after the per-world scan, pass 2 computes the polygon again
// and writes its records at its offset.
__global__ void hs_narrow_count_kernel(int nworld, hydroDev H, hydroWork W) {
  long n = (long)nworld * W.max_cand;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    hs_narrow_count_item(&H, &W, (int)(i / W.max_cand), (int)(i % W.max_cand));
}

__global__ void hs_list_scan_kernel(int nworld, hydroWork W, uint32_t *status) {
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < nworld; w += gridDim.x * blockDim.x)
    hs_list_scan_item(&W, w, status);
}

__global__ void hs_narrow_emit_kernel(int nworld, hydroDev H, hydroWork W) {
  long n = (long)nworld * W.max_cand;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    hs_narrow_emit_item(&H, &W, (int)(i / W.max_cand), (int)(i % W.max_cand));
}

extern "C" isoStatus cuda_contact_run(const isoBackend *b, int nworld, hydroDev H, hydroWork W,
                                      const real *q, int nq, uint32_t *status) {
  cudaStream_t s = (cudaStream_t)b->stream;
  const unsigned bs = 128;
  ISO_LAUNCH(hs_pose_kernel, cuda_grid((long long)nworld * H.ngeom, bs), bs, s, nworld, H, W, q, nq);
  CUDA_LAUNCHED();
  if (H.npair == 0) return ISO_OK; /* poses only: point contact uses them */
  ISO_LAUNCH(hs_count_kernel, cuda_grid((long long)nworld * H.npair, bs), bs, s, nworld, H, W, status);
  CUDA_LAUNCHED();
  ISO_LAUNCH(hs_scan_kernel, cuda_grid(nworld, bs), bs, s, nworld, H, W, status);
  CUDA_LAUNCHED();
  ISO_LAUNCH(hs_emit_kernel, cuda_grid((long long)nworld * H.npair, bs), bs, s, nworld, H, W);
  CUDA_LAUNCHED();
  ISO_LAUNCH(hs_narrow_count_kernel, cuda_grid((long long)nworld * W.max_cand, bs), bs, s, nworld, H, W);
  CUDA_LAUNCHED();
  ISO_LAUNCH(hs_list_scan_kernel, cuda_grid(nworld, bs), bs, s, nworld, W, status);
  CUDA_LAUNCHED();
  ISO_LAUNCH(hs_narrow_emit_kernel, cuda_grid((long long)nworld * W.max_cand, bs), bs, s, nworld, H, W);
  CUDA_LAUNCHED();
  return ISO_OK;
}
