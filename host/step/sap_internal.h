/* Internal: the set-up of the contact-dynamics stages (point contacts, constraints, free motion,
 * SAP, integration): shapes, materials and the solver batch, made at sim creation
 * (host/sim/sim_setup_sap.c) and read by the stages through their context (host/step/step.h). */
#ifndef ISO_HOST_SAP_INTERNAL_H
#define ISO_HOST_SAP_INTERNAL_H

#include "host/backend/backend.h"
#include "kernels/sap/step_items.h"

#define SAP_MAX_OWNED 32

typedef struct simSap {
  int enabled;        /* the model has at least one geometry pair that can touch */
  int solve;          /* something can be constrained: contact, limits, actuators, couplers */
  int npoint;         /* point-contact pairs (the model's fallback pairs) */
  const int *point_a, *point_b;   /* (npoint) geometry pairs, backend memory */
  pointShape *shape;  /* (ngeom) point-contact shape of each geometry, backend memory */
  sapMaterials mat;
  sapBatch batch;     /* its per-world arrays point into the sim's data table; work is NULL */
  sapWorkCon *work;   /* CPU backend: (threads, batch.max_con) the solver's per-thread workspace
                         (kernels/sap/solve.h); NULL on the GPU and when nothing can touch */
  void *owned[SAP_MAX_OWNED];
  int nowned;
} simSap;



#endif
