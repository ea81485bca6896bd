/* Internal: the free-body stage's CUDA entry point (kernels/cuda/rigid.cu; a failing stub in
 * host/backend/cuda_off.c when CUDA is not built). */
#ifndef ISO_HOST_RIGID_STEP_H
#define ISO_HOST_RIGID_STEP_H

#include "host/backend/backend.h"
#include "kernels/rigid/free_body.h"

#ifdef __cplusplus
extern "C" {
#endif

struct isoSim;
/* The free-body parameters of a sim (its world-stride fields), as the kernels take them. */
rigidParams rigid_params_of(const struct isoSim *s);

isoStatus cuda_rigid_free_step(const isoBackend *b, int nworld, rigidParams P, int nq, int nv,
                               real *q, real *v, real *time, uint32_t *status);

#ifdef __cplusplus
}
#endif
#endif
