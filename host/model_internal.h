/* Internal: the model's storage, shared by the builder, the validator and the sim. */
#ifndef ISO_HOST_MODEL_INTERNAL_H
#define ISO_HOST_MODEL_INTERNAL_H

#include "isobar/model.h"

struct isoModel {
  isoModelDef def;
  int nbody;
  int body_cap;
  isoBodyDef *body; /* (nbody) as added; names owned (heap copies) */
  int compiled;
};

/* Check one body's values; `what` names it in messages ("body 'arm'"). */
isoStatus model_check_body(const isoBodyDef *def, const char *what);

/* Check an inertia (Ixx Iyy Izz Ixy Ixz Iyz) of a body of mass `mass`. */
isoStatus model_check_inertia(double mass, const double *inertia6, const char *what);

#endif
