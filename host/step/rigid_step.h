/* Internal: the free-body stage's parameters (its launches come from the kernel table). */
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


#ifdef __cplusplus
}
#endif
#endif
