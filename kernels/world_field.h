/* Per-world model parameters with a world stride.
 *
 * A field randomised per world (gravity, body mass, COM, inertia; contact friction, modulus,
 * dissipation, stiffness, relaxation time) stores either one value shared by all worlds (wstride = 0) or one value per
 * world (wstride = values per world). Kernels read both the same way, so a shared value and a
 * randomised one take one code path (the MuJoCo Warp pattern). */
#ifndef ISO_KERNELS_WORLD_FIELD_H
#define ISO_KERNELS_WORLD_FIELD_H

#include "kernels/core.h"

typedef struct wfield {
  real *data;   /* (1 or nworld, nitem, width) */
  long wstride; /* 0 when shared, else nitem * width */
} wfield;

/* The values of item `item` (width `width`) in world `world`. */
static inline ISO_HD const real *wf_at(wfield f, int world, int item, int width) {
  return f.data + (long)world * f.wstride + (long)item * width;
}

#endif
