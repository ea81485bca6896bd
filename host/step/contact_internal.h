/* Internal: the set-up of the collision stages: the model's hydroelastic arrays on the backend and
 * on the host, the per-world lists (pointers into the data table), and what the queries need,
 * made at sim creation (host/sim/sim_setup_contact.c); the stages are host/step/step_*.c, the
 * queries host/sim/sim_contact.c. */
#ifndef ISO_HOST_CONTACT_INTERNAL_H
#define ISO_HOST_CONTACT_INTERNAL_H

#include "host/backend/backend.h"
#include "kernels/hydro/surface.h"

#define CONTACT_MAX_OWNED 64

typedef struct simContact {
  hydroDev dev;       /* arrays in backend memory, read by the stage kernels */
  hydroDev host;      /* the same arrays in host memory (queries, VTK export) */
  hydroWork work;     /* per-world arrays: pointers into the sim's data table, backend memory */
  int nasset;
  int host_nvert, host_nelem; /* totals of the concatenated asset arrays */
  int nfallback;
  int *fallback;      /* (nfallback, 2) geometry pairs handled by point contact (host) */
  char **geom_name;   /* (ngeom) names, for file output (host) */
  int updated;        /* 1 once surfaces were computed for the current state */
  void *owned_host[CONTACT_MAX_OWNED];
  int nowned_host;
} simContact;

#endif
