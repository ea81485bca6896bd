/* Internal: the set-up of the contact-dynamics stages (point contacts, constraints, free motion,
 * SAP, integration): shapes, materials and the solver batch, made at sim creation
 * (host/sim/sim_setup_sap.c) and read by the stages through their context (host/step/step.h). */
#ifndef ISO_HOST_SAP_INTERNAL_H
#define ISO_HOST_SAP_INTERNAL_H

#include "host/backend/backend.h"
#include "kernels/sap/step_items.h"

#define SAP_MAX_OWNED 32

/* The deformable bodies' place in a sim's solver, fixed at creation from the model and the
 * capacities (host/sim/sim_fem.c); kernels/fem/contact.h says what each value means. */
typedef struct simFem {
  int ndef;
  int touch;       /* 1: some half-space can touch them, and the solver holds their cliques */
  int ntouch;      /* geometries they can touch: half-spaces fixed to the world, and the
                      compliant representations of the others */
  int per_tri;     /* contact polygons a surface triangle may make against them, all together
                      (the automatic capacity, host/sim/sim_fem.c) */
  int max_con;     /* deformable contacts per world */
  long dofs;       /* Σ 3·pcap: the solver's DoFs after the rigid ones */
  long a_reals;    /* Σ (3·pcap)²: their blocks of A */
  long npart;      /* Σ pcap */
  int has_dd;      /* two or more bodies: their contacts with each other */
  int dd_max;      /* deformable–deformable contacts per world */
  int tet_cap;     /* the most tets of one body */
  int dd_pairs;    /* candidate tet pairs per body pair and world */
  int *host;       /* touch_geom (ntouch) | pcap (ndef) | pslot0 (ndef + 1) | aoff (ndef + 1) */
  int nhost;
  void *dev;       /* the same ints in backend memory (CUDA); NULL on the CPU */
  const int *touch_geom, *pcap, *pslot0, *aoff; /* into the backend's copy */
} simFem;

typedef struct simSap {
  int enabled;        /* the model has at least one geometry pair that can touch */
  int solve;          /* something can be constrained: contact, limits, actuators, couplers */
  int npoint;         /* point-contact pairs (the model's fallback pairs) */
  const int *point_a, *point_b;   /* (npoint) geometry pairs, backend memory */
  pointShape *shape;  /* (ngeom) point-contact shape of each geometry, backend memory */
  sapMaterials mat;
  sapBatch batch;     /* its per-world arrays point into the sim's data table; its work is NULL
                         but for the GPU's workspace per world */
  sapWorkCon *work;   /* the solver's workspace (kernels/sap/solve.h): (threads, batch.max_con)
                         on the CPU, handed to each thread by the step; (nworld, batch.max_con)
                         on the GPU with ISO_CUDA_SOLVE_WORKSPACE=1 (sap_bind: batch.work too);
                         else NULL */
  void *owned[SAP_MAX_OWNED];
  int nowned;
} simSap;



#endif
