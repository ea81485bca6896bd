/* Internal: the sim's hydroelastic contact-surface stage (host/step/contact_build.c builds and
 * frees it, host/step/contact_surface.c runs it and answers queries). */
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

struct isoSim;
struct isoModel;
isoStatus contact_create(struct isoSim *s, const struct isoModel *m);
void contact_destroy(struct isoSim *s);
/* Run stages 1–4 for every world of the current state. */
isoStatus contact_update(struct isoSim *s);
/* The state changed outside a step: surfaces and results no longer describe it. */
void contact_invalidate(struct isoSim *s);

#endif
