/* Internal: the deformable bodies of a model (include/isobar/deformable.h), as the builder keeps
 * them and as compile lays them out for the step.
 *
 * Each body keeps its mesh in world coordinates at rest (the pose and scale applied when it is
 * added), with body-local vertex indices; compile concatenates the bodies (vertices, tets,
 * surface triangles one body after another) and computes every tet's rest data once. */
#ifndef ISO_HOST_MODEL_DEFORMABLE_H
#define ISO_HOST_MODEL_DEFORMABLE_H

#include "host/assets/bvh.h"
#include "host/assets/fem_pattern.h"
#include "host/model/name_map.h"
#include "isobar/deformable.h"
#include "isobar/status.h"
#include "kernels/core.h"
#include "kernels/math/transform.h"

/* A weld shape posed on a rigid body, kept as asked: which vertices it catches depends on the
 * body's initial pose, which joints added later still change, so compile decides. */
typedef struct modelWeldShape {
  int rigid;             /* the rigid body (not ISO_WORLD_BODY: those hold vertices at the call) */
  int shape;             /* isoShape: box, sphere, cylinder, capsule or ellipsoid */
  double size[3];        /* as isoGeometryDef.size, m */
  xform X_BG;            /* the shape in the body's frame */
} modelWeldShape;

/* One deformable body as added. */
typedef struct modelDeformable {
  isoDeformableDef def;  /* name and mesh_file owned (heap copies); vertices, tets NULL */
  int nvert, ntet, ntri;
  real *rest;            /* (nvert, 3) rest positions in the world, m */
  int *tet;              /* (ntet, 4) local vertex indices, positively oriented */
  int *tri;              /* (ntri, 3) surface triangles, outward right-handed normals: the
                            faces that belong to exactly one tet, ordered by (tet, face) */
  int *tri_tet;          /* (ntri) the tet each surface triangle is a face of */
  unsigned char *held;   /* (nvert) 1: a Dirichlet vertex (fixed or behind a wall) */
  int nshape, shape_cap; /* weld shapes on rigid bodies as asked (iso_model_weld_deformable) */
  modelWeldShape *shape; /* (nshape) */
  int nweld, weld_cap;   /* vertices welded to rigid bodies: the shapes' catch, chosen at compile
                            (model_deformable_weld_resolve) */
  int *weld_vert;        /* (nweld) the vertex */
  int *weld_body;        /* (nweld) the rigid body (free or moved by a joint) */
  real *weld_p;          /* (nweld, 3) the point of the body it is held at, body frame */
  real *sdf;             /* (nvert) the approximate signed distance at rest (mesh_sdf), m: 0 on
                            the surface, negative inside; built at compile */
  bvhHost sbvh;          /* its surface triangles' BVH at rest (compile): the topology every
                            world refits to its own positions each step */
  femPattern pattern;    /* its tangent matrix's factor pattern, built at compile
                            (model_deformable_compile) and shared by every world */
} modelDeformable;

/* Every deformable body of a model. */
typedef struct modelDeformables {
  int n, cap;
  modelDeformable *body; /* (n) */
  nameMap names;         /* body name -> index; keys are the bodies' def.name */
} modelDeformables;

struct isoModel;

/* Free every body (and the array). */
void model_deformable_free(modelDeformables *d);

/* The boundary of a tet mesh: the faces that belong to exactly one tet, each wound so that its
 * right-handed normal points out of that tet, ordered by (tet, face), face f being the one
 * opposite the tet's local vertex f. tri (4·ntet, 3) and tri_tet (4·ntet) are the caller's,
 * sized for the worst case; *ntri receives the count. Fails (naming `what`) on a face shared by
 * more than two tets or by two tets on the same side of it (overlapping tets). Indices are
 * assumed in range. */
isoStatus model_deformable_surface(const int *tet, int ntet, int *tri, int *tri_tet, int *ntri, const char *what);

/* Build every body's factor pattern (compile): one fill-reducing ordering per mesh; and its
 * signed-distance field at rest (deformable–deformable contact, kernels/fem/dd_contact.h). */
isoStatus model_deformable_compile(struct isoModel *m);

/* Choose every weld shape's vertices (compile, after the trees): those inside the shape with its
 * body at the model's initial pose, each held at the body point it coincides with there. A shape
 * that catches none fails, naming the deformable, the body and the shape. Idempotent: a compile
 * that failed later chooses again. */
isoStatus model_deformable_weld_resolve(struct isoModel *m);

/* Check every deformable body again (iso_model_validate). */
isoStatus model_deformable_validate(const struct isoModel *m);

#endif
