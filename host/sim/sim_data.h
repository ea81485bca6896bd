/* Internal: the sim's side of the data table (host/step/step_data.h): the descriptors of its
 * entries, for the loops that allocate, reset and account for them (host/sim/sim_data.c). */
#ifndef ISO_HOST_SIM_DATA_H
#define ISO_HOST_SIM_DATA_H

#include <stddef.h>

#include "host/step/step_data.h"

/* What the table says of entry k, for loops over it. */
typedef struct simDataInfo {
  const char *name;
  const char *writer;
  size_t elem;  /* bytes per element */
  int reset;    /* SIM_RESET_* */
} simDataInfo;

extern const simDataInfo sim_data_info[SIMD_COUNT];

/* The sizes of a sim: its model's and its capacities (host/sim/sim_data.c). */
struct isoSim;
simSizes sim_data_sizes(const struct isoSim *s);

/* Elements per world of every entry for sizes z. */
void sim_data_counts(const simSizes *z, size_t count[SIMD_COUNT]);

#endif
