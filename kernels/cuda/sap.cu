// Launch layer of the contact-dynamics stages: one thread per item, the work in
// kernels/sap/step_items.h and kernels/sap/solve.h (the code the CPU backend runs). The batched Cholesky between begin and end is cuSOLVER's.
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "kernels/cuda/cuda_check.h"

#define GRID_STRIDE(i, n) \
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < (n); i += (long)gridDim.x * blockDim.x)

__global__ void sap_points_kernel(int nworld, int npoint, int ngeom, const pointShape *shape, const int *pa,
                                  const int *pb, const xform *X, const uint32_t *status, sapPointHit *hits) {
  GRID_STRIDE(i, (long)nworld * npoint) sap_point_item(i, npoint, ngeom, shape, pa, pb, X, status, hits);
}

__global__ void sap_prepare_kernel(int nworld, rigidParams P, sapMaterials M, hydroDev H, hydroWork W,
                                   int has_faces, const sapPointHit *hits, int npoint, const real *q, int nq,
                                   sapBatch B, int *needed, uint32_t *status) {
  (void)H; /* the contact list in W is what the constraints read */
  GRID_STRIDE(w, nworld)
  sap_prepare_world((int)w, &P, &M, has_faces ? &W : (const hydroWork *)0, hits, npoint, q, nq, &B, needed, status);
}

__global__ void sap_begin_kernel(int nworld, sapBatch B, int *active) {
  GRID_STRIDE(w, nworld) {
    sap_newton_begin(&B, (int)w);
    if (!B.stats[w].done) atomicAdd(active, 1); /* a count: the order of additions does not matter */
  }
}

__global__ void sap_end_kernel(int nworld, sapBatch B) {
  GRID_STRIDE(w, nworld) sap_newton_end(&B, (int)w);
}

__global__ void sap_finish_kernel(int nworld, rigidParams P, sapBatch B, real *q, int nq, real *time, uint32_t *status) {
  GRID_STRIDE(w, nworld) sap_finish_world((int)w, &P, &B, q, nq, time, status);
}

extern "C" isoStatus cuda_sap_points(const isoBackend *b, int nworld, int npoint, int ngeom, const pointShape *shape,
                                     const int *pa, const int *pb, const xform *X, const uint32_t *status,
                                     sapPointHit *hits) {
  const unsigned bs = 128;
  ISO_LAUNCH(sap_points_kernel, cuda_grid((long long)nworld * npoint, bs), bs, (cudaStream_t)b->stream,
             nworld, npoint, ngeom, shape, pa, pb, X, status, hits);
  CUDA_LAUNCHED();
  return ISO_OK;
}

extern "C" isoStatus cuda_sap_prepare(const isoBackend *b, int nworld, rigidParams P, sapMaterials M, hydroDev H,
                                      hydroWork W, int has_faces, const sapPointHit *hits, int npoint,
                                      const real *q, int nq, sapBatch B, int *needed, uint32_t *status) {
  const unsigned bs = 64;
  ISO_LAUNCH(sap_prepare_kernel, cuda_grid(nworld, bs), bs, (cudaStream_t)b->stream,
             nworld, P, M, H, W, has_faces, hits, npoint, q, nq, B, needed, status);
  CUDA_LAUNCHED();
  return ISO_OK;
}

extern "C" isoStatus cuda_sap_begin(const isoBackend *b, int nworld, sapBatch B, int *active_dev, int *active) {
  const unsigned bs = 64;
  cudaStream_t s = (cudaStream_t)b->stream;
  CUDA_TRY(cudaMemsetAsync(active_dev, 0, sizeof(int), s));
  ISO_LAUNCH(sap_begin_kernel, cuda_grid(nworld, bs), bs, s, nworld, B, active_dev);
  CUDA_LAUNCHED();
  CUDA_TRY(cudaMemcpyAsync(active, active_dev, sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_TRY(cudaStreamSynchronize(s)); /* the host loop needs to know whether any world is left */
  return ISO_OK;
}

extern "C" isoStatus cuda_sap_end(const isoBackend *b, int nworld, sapBatch B) {
  const unsigned bs = 64;
  ISO_LAUNCH(sap_end_kernel, cuda_grid(nworld, bs), bs, (cudaStream_t)b->stream, nworld, B);
  CUDA_LAUNCHED();
  return ISO_OK;
}

extern "C" isoStatus cuda_sap_finish(const isoBackend *b, int nworld, rigidParams P, sapBatch B, real *q, int nq,
                                     real *time, uint32_t *status) {
  const unsigned bs = 64;
  ISO_LAUNCH(sap_finish_kernel, cuda_grid(nworld, bs), bs, (cudaStream_t)b->stream,
             nworld, P, B, q, nq, time, status);
  CUDA_LAUNCHED();
  return ISO_OK;
}
