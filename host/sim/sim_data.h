/* Internal: the data table. Every per-world array of a sim is declared once here, and
 * allocation, reset and accounting iterate over this list, so adding an array is one line.
 *
 *   X(type, name, count per world, the stage that writes it, what iso_sim_reset does to it)
 *
 * `count` is an expression of `z`, the sim's sizes (simSizes). Arrays are world-major:
 * name[world * count + i]. All of them live in the sim's one arena (host/base/arena.h), in the
 * backend's memory space, planned at creation; nothing is allocated after that. Reset actions:
 * SIM_RESET_INIT copies the model's initial row (q, v), SIM_RESET_ZERO zeroes the world's row,
 * SIM_RESET_KEEP leaves it (a stage rewrites it before anything reads it). */
#ifndef ISO_HOST_SIM_DATA_H
#define ISO_HOST_SIM_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/core.h"

#define SIM_RESET_KEEP 0
#define SIM_RESET_ZERO 1
#define SIM_RESET_INIT 2

/* The sizes the counts are written in. */
typedef struct simSizes {
  int nq, nv; /* generalized positions and velocities per world */
} simSizes;

#define SIM_DATA(X)                                                                        \
  X(real, q, z->nq, "integrate", SIM_RESET_INIT)          /* generalized positions */      \
  X(real, v, z->nv, "sap", SIM_RESET_INIT)                /* generalized velocities */     \
  X(real, time, 1, "integrate", SIM_RESET_ZERO)           /* simulated time, s */          \
  X(uint32_t, status, 1, "every stage", SIM_RESET_ZERO)   /* ISO_WORLD_* fault bits */

enum {
#define SIM_DATA_ENUM(type, name, count, writer, reset) SIMD_##name,
  SIM_DATA(SIM_DATA_ENUM)
#undef SIM_DATA_ENUM
  SIMD_COUNT
};

/* What the table says of entry k, for loops over it. */
typedef struct simDataInfo {
  const char *name;
  const char *writer;
  size_t elem;  /* bytes per element */
  int reset;    /* SIM_RESET_* */
} simDataInfo;

extern const simDataInfo sim_data_info[SIMD_COUNT];

/* Elements per world of every entry for sizes z. */
void sim_data_counts(const simSizes *z, size_t count[SIMD_COUNT]);

#endif
