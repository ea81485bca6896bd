/* Internal: the model's storage, shared by the builder, the validator and the sim. */
#ifndef ISO_HOST_MODEL_INTERNAL_H
#define ISO_HOST_MODEL_INTERNAL_H

#include "host/assets/assets.h"
#include "host/model/model_flat.h"
#include "host/model/name_map.h"
#include "isobar/geometry.h"
#include "isobar/model.h"

struct isoModel {
  isoModelDef def;
  int nbody;
  int body_cap;
  isoBodyDef *body; /* (nbody) as added; names owned (heap copies) */
  isoFreeBodyState *body_state; /* (nbody) initial states, quaternions normalised; the default
                                   until iso_model_set_initial_state */
  nameMap body_names; /* body name -> index, keys are the body names above */
  int ngeom;
  int geom_cap;
  isoGeometryDef *geom; /* (ngeom) as added; name and mesh_file owned (heap copies) */
  nameMap geom_names; /* geometry name -> index, keys are the geometry names above */
  int nexclude;
  int exclude_cap;
  int *exclude; /* (nexclude, 2) user-excluded geometry pairs, smaller index first */
  modelHydro hydro; /* built at compile: assets, per-geometry kinds, pair table */
  modelFlat flat;   /* built at compile: the flat arrays every sim shares (model_flat.h) */
  int compiled;
};

/* Free the geometry part of a model (host/model/model_geometry.c). */
void model_geometry_free(isoModel *m);

/* Check one geometry against the model (body index, sizes, properties, files). */
isoStatus model_check_geometry(const isoModel *m, const isoGeometryDef *g, const char *what);

/* Check one body's values; `what` names it in messages ("body 'arm'"). */
isoStatus model_check_body(const isoBodyDef *def, const char *what);

/* Check a free body's initial state; `what` names the body in messages. */
isoStatus model_check_free_body_state(const isoFreeBodyState *state, const char *what);

/* Check an inertia (Ixx Iyy Izz Ixy Ixz Iyz) of a body of mass `mass`. */
isoStatus model_check_inertia(double mass, const double *inertia6, const char *what);

#endif
