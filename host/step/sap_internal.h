/* Internal: the sim's contact-dynamics stages (free motion, point contacts, constraints, SAP,
 * integration) and their buffers, all allocated at sim creation (host/step/sap_step.c). */
#ifndef ISO_HOST_SAP_INTERNAL_H
#define ISO_HOST_SAP_INTERNAL_H

#include "host/backend/backend.h"
#include "host/backend/linalg.h"
#include "kernels/sap/step_items.h"

#define SAP_MAX_OWNED 32

/* Pipeline stages timed by sap_step (DESIGN.md numbering in brackets). */
enum {
  SAP_STAGE_SURFACES = 0, /* [1-4] poses, broad, mid and narrow phase of hydroelastic contact */
  SAP_STAGE_POINTS,       /* [4] point-contact queries */
  SAP_STAGE_PREPARE,      /* [5-6] free motion, constraints, per-constraint data */
  SAP_STAGE_SOLVE,        /* [7] Newton iterations: assembly, Cholesky, exact line search */
  SAP_STAGE_FINISH,       /* [8] final impulses and integration */
  SAP_NSTAGE
};
extern const char *const sap_stage_names[SAP_NSTAGE];

typedef struct simSap {
  int enabled;        /* the model has at least one geometry pair that can touch */
  int npoint;         /* point-contact pairs (the model's fallback pairs) */
  const int *point_a, *point_b;   /* (npoint) geometry pairs, backend memory */
  pointShape *shape;  /* (ngeom) point-contact shape of each geometry, backend memory */
  sapPointHit *hits;  /* (nworld, npoint) */
  sapMaterials mat;
  sapBatch batch;
  int *ncon;          /* (nworld) */
  int *needed;        /* (nworld) constraints found (capacity needed on overflow) */
  real *vstar, *A;
  sapCon *con;
  linalgCholesky chol;
  int have_chol;
  double stage_s[SAP_NSTAGE]; /* wall seconds spent per stage since creation (CPU backend) */
  void *owned[SAP_MAX_OWNED];
  int nowned;
} simSap;


struct isoSim;
struct isoModel;
isoStatus sap_create(struct isoSim *s, const struct isoModel *m);
void sap_destroy(struct isoSim *s);
/* One step of every world with contact dynamics. */
isoStatus sap_step(struct isoSim *s);

#endif
