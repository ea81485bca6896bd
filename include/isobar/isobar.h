/* isobar: a batched simulator of rigid and deformable bodies for CPU and CUDA.
 * Include this one header for the whole public C API. */
#ifndef ISOBAR_ISOBAR_H
#define ISOBAR_ISOBAR_H

#include "isobar/backend.h"
#include "isobar/deformable.h"
#include "isobar/geometry.h"
#include "isobar/joint.h"
#include "isobar/model.h"
#include "isobar/scene.h"
#include "isobar/contact.h"
#include "isobar/sim.h"
#include "isobar/tactile.h"
#include "isobar/status.h"
#include "isobar/view.h"
#include "isobar/world_status.h"

#endif
