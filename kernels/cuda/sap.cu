// Launch layer of the contact-dynamics stages: one thread per item, the work in
// kernels/sap/step_items.h and kernels/sap/solve.h (the code the CPU backend runs).
//
// The Newton iterations run on the device with no host synchronisation: one thread per world
// runs that world's whole loop (sap_solve_world: assembly, the single-source Cholesky of
// kernels/linalg/cholesky.h, exact line search) until it converges or reaches the iteration
// limit, so a finished world simply stops and nothing has to be read back to decide whether to
// launch another iteration. A whole step is therefore a fixed sequence of launches on one
// stream and can be captured in a CUDA graph. The cost: a world's factorisation is serial in
// one thread (n³/3 flops for nv = n), which is fine at the free-body sizes of today (nv ≤ ~60);
// larger problems (joint trees, deformables) will want a warp or block per world.
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

__global__ void sap_solve_kernel(int nworld, sapBatch B) {
  GRID_STRIDE(w, nworld) sap_solve_world(&B, (int)w);
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

extern "C" isoStatus cuda_sap_solve(const isoBackend *b, int nworld, sapBatch B) {
  const unsigned bs = 64;
  ISO_LAUNCH(sap_solve_kernel, cuda_grid(nworld, bs), bs, (cudaStream_t)b->stream, nworld, B);
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
