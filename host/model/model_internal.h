/* Internal: the model's storage, shared by the builder, the validator and the sim. */
#ifndef ISO_HOST_MODEL_INTERNAL_H
#define ISO_HOST_MODEL_INTERNAL_H

#include "host/assets/assets.h"
#include "host/model/model_deformable.h"
#include "host/model/model_flat.h"
#include "host/model/name_map.h"
#include "isobar/geometry.h"
#include "isobar/joint.h"
#include "isobar/model.h"
#include "isobar/tactile.h"

/* The trees of a compiled model and where every joint's coordinates lie (model_tree.c).
 * A body without an inboard joint is a free body: a tree of its own on an implicit floating
 * joint (joint −1) with identity frames. Trees are ordered by their root body; within a tree
 * bodies keep their index order, which puts parents first (parent < child is required). */
typedef struct modelTrees {
  int nbody, ntree, nq, nv;
  int *body_joint;  /* (nbody) inboard joint, −1 for a free body */
  int *body_tree;   /* (nbody) */
  int *body_q0, *body_v0; /* (nbody) where its inboard joint's q and v start in a world's */
  int *order;       /* (nbody) bodies tree by tree */
  int *tree_body0;  /* (ntree + 1) tree t's bodies: order[tree_body0[t] .. tree_body0[t + 1]) */
  int *tree_q0, *tree_v0; /* (ntree + 1) tree t's q and v ranges */
  int *tree_free;   /* (ntree) 1: a single free body (stepped as a free body) */
  int *tree_clique; /* (ntree) its clique in the SAP problem, −1 without DoFs */
  int *tree_a0;     /* (ntree) where its nt × nt block of A starts in a world's A */
  int nclique;      /* trees with DoFs */
  int a_size;       /* Σ nt² over them */
  int max_nt;       /* DoFs of the largest tree */
  int max_tree_bodies; /* bodies of the largest tree */
  int jointed;      /* 1 when some tree is not a plain free body */
  int *joint_q0, *joint_v0; /* (njoint) */
} modelTrees;

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
  int njoint, joint_cap;
  isoJointDef *joint;      /* (njoint) as added, quaternions and axes normalised; names owned */
  double (*joint_q)[7];    /* (njoint) initial positions (nq of the joint's type used) */
  double (*joint_v)[6];    /* (njoint) initial velocities */
  nameMap joint_names;
  int nact, act_cap;
  isoActuatorDef *act;     /* (nact) names owned */
  nameMap act_names;
  int ncoupler, coupler_cap;
  isoCouplerDef *coupler;  /* (ncoupler) */
  int npad, pad_cap;
  isoTactilePadDef *pad;   /* (npad) as added, quaternions normalised (model_tactile.c) */
  long ntaxel;             /* their taxels, summed */
  modelDeformables deformables; /* deformable bodies as added, meshes in the world at rest
                                   (model_deformable.c); read as they are by a compiled model */
  modelTrees trees;        /* built at compile: trees and the q, v layout (model_joint_layout) */
  modelHydro hydro; /* built at compile: assets, per-geometry kinds, pair table */
  modelFlat flat;   /* built at compile: the flat arrays every sim shares (model_flat.h) */
  int compiled;
};

/* 1 when all n values of x are finite (host/model/model.c). */
int model_all_finite(const double *x, int n);
/* A heap copy of s (NULL for NULL, or when out of memory). */
char *model_strdup(const char *s);

/* Free the geometry part of a model (host/model/model_geometry.c). */
void model_geometry_free(isoModel *m);

/* Check one geometry against the model (body index, sizes, properties, files). */
isoStatus model_check_geometry(const isoModel *m, const isoGeometryDef *g, const char *what);

/* Check one body's values; `what` names it in messages ("body 'arm'"). free_body: 1 when no
 * joint moves it (it then needs a positive mass and a positive definite inertia; a body a joint
 * moves may be a point mass or massless, as in Drake). */
isoStatus model_check_body(const isoBodyDef *def, const char *what, int free_body);

/* Check a free body's initial state; `what` names the body in messages. */
isoStatus model_check_free_body_state(const isoFreeBodyState *state, const char *what);

/* Build m->trees from the bodies and joints (compile), and free it. */
isoStatus model_tree_build(isoModel *m);
void model_tree_free(modelTrees *t);
/* Free the joints, actuators and couplers of a model (host/model/model_joint.c). */
void model_joint_free(isoModel *m);
/* Check every joint, actuator and coupler again (validate). */
isoStatus model_joint_validate(const isoModel *m);

/* Free the tactile pads of a model; fill their flat arrays at compile (host/model/model_tactile.c). */
void model_tactile_free(isoModel *m);
void model_tactile_fill(const isoModel *m, int *pad_geom, int *pad_rows, int *pad_cols, real *pad_spacing,
                        xform *pad_X_GP, int *pad_taxel0);

/* Check an inertia (Ixx Iyy Izz Ixy Ixz Iyz) of a body of mass `mass`. */
isoStatus model_check_inertia(double mass, const double *inertia6, const char *what);

#endif
