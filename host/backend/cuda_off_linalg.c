/* The CUDA half of host/backend/linalg.h when this library was built without nvcc: every entry point
 * fails with ISO_ERR_BACKEND and says so. (A CUDA backend cannot be initialised in such a
 * build, so these are reached only through a hand-made isoBackend.) */
#include "host/base/error.h"
#include "host/backend/linalg.h"

#define OFF_MSG "isobar was built without the CUDA backend (nvcc not found at configure time)"

isoStatus cuda_cholesky_create(const isoBackend *b, linalgCholesky *c) {
  (void)b, (void)c;
  return iso_fail(ISO_ERR_BACKEND, "cuda_cholesky_create: %s", OFF_MSG);
}

isoStatus cuda_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status) {
  (void)b, (void)c, (void)world_status;
  return iso_fail(ISO_ERR_BACKEND, "cuda_cholesky_run: %s", OFF_MSG);
}

void cuda_cholesky_destroy(const isoBackend *b, linalgCholesky *c) {
  (void)b;
  if (c) c->dev_ptrs = NULL;
}
