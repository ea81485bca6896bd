/* Point contact: the shape descriptor a pair query reads and the contact it writes.
 *
 * Place in the pipeline: the point-contact narrow phase (drake_algorithms §4.1). One call of
 * point_pair (kernels/point/pair.h) is the work of one candidate geometry pair; the CPU backend
 * runs it in a loop and the CUDA backend from a one-line __global__ wrapper.
 *
 * Conventions (drake_algorithms, top): φ = −depth is negative in overlap; nhat_BA is a unit
 * vector pointing out of B and into A; p_WCa ∈ ∂A and p_WCb ∈ ∂B are witness points with
 * p_WCa − p_WCb = −depth·nhat_BA up to round-off (Drake's relation: the FCL-style pairs set
 * p_WCa = pos − ½·depth·nhat_BA and p_WCb = pos + ½·depth·nhat_BA; the sphere closed forms
 * set p_WCa = Ao − r·∇φ_B and p_WCb = N, which satisfy it because Ao − N = φ_B·∇φ_B).
 *
 * Shape sizes follow isoGeometryDef.size: box = full lengths; cylinder and capsule = (radius,
 * length) along z, the capsule's length being that of its cylindrical part; ellipsoid =
 * semi-axes; half-space = the solid z <= 0 of its frame. The type values equal isoShape's, so a
 * caller may pass isoShape values directly (ISO_SHAPE_MESH is treated as its convex hull, as
 * Drake treats a Mesh in point contact: pass POINT_CONVEX with the hull's vertices). */
#ifndef ISO_KERNELS_POINT_SHAPE_H
#define ISO_KERNELS_POINT_SHAPE_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

#define POINT_SPHERE 0
#define POINT_BOX 1
#define POINT_CYLINDER 2
#define POINT_CAPSULE 3
#define POINT_ELLIPSOID 4
#define POINT_HALFSPACE 5
#define POINT_CONVEX 7

typedef struct pointShape {
  int type;         /* POINT_SPHERE ... POINT_CONVEX */
  real size[3];     /* as isoGeometryDef.size (box: full lengths; cylinder/capsule: radius,
                       length; ellipsoid: semi-axes; sphere: radius in size[0]) */
  const real *vert; /* POINT_CONVEX: hull vertices in the geometry frame (nvert, 3); else NULL */
  int nvert;        /* POINT_CONVEX: number of vertices (>= 1); else 0 */
} pointShape;

typedef struct pointContact {
  real depth;        /* penetration >= 0 (φ = −depth), m */
  vec3 nhat_BA;      /* unit, out of B into A, world frame */
  vec3 p_WCa, p_WCb; /* witness points on A's and B's surfaces, world frame, m */
} pointContact;

/* A shape with no vertex list (every type but POINT_CONVEX). */
static inline ISO_HD pointShape point_shape_make(int type, real s0, real s1, real s2) {
  pointShape s;
  s.type = type;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  s.vert = (const real *)0;
  s.nvert = 0;
  return s;
}

/* A convex hull given by its vertices (nvert, 3) in the geometry frame; the array is aliased. */
static inline ISO_HD pointShape point_shape_convex(const real *vert, int nvert) {
  pointShape s = point_shape_make(POINT_CONVEX, (real)0, (real)0, (real)0);
  s.vert = vert;
  s.nvert = nvert;
  return s;
}

/* Radius of a ball about the geometry origin holding the shape: the length scale of the
 * relative tolerances of the iterative queries (gjk.h). 0 for a half-space (unbounded). */
static inline ISO_HD real point_shape_bound_radius(const pointShape *s) {
  real r = (real)0;
  int i;
  switch (s->type) {
  case POINT_SPHERE:
    r = s->size[0];
    break;
  case POINT_BOX:
    r = (real)0.5 * sqrt(s->size[0] * s->size[0] + s->size[1] * s->size[1] + s->size[2] * s->size[2]);
    break;
  case POINT_CYLINDER:
    r = sqrt(s->size[0] * s->size[0] + (real)0.25 * s->size[1] * s->size[1]);
    break;
  case POINT_CAPSULE:
    r = s->size[0] + (real)0.5 * s->size[1];
    break;
  case POINT_ELLIPSOID:
    r = fmax(s->size[0], fmax(s->size[1], s->size[2]));
    break;
  case POINT_CONVEX:
    for (i = 0; i < s->nvert; ++i) {
      const real *v = s->vert + 3 * i;
      r = fmax(r, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    break;
  default:
    break;
  }
  return r;
}

/* Re-expresses a result computed for (B, A) as one for (A, B): the normal flips, the witnesses
 * trade places, the depth stays. */
static inline ISO_HD void point_contact_swap(pointContact *c) {
  vec3 t = c->p_WCa;
  c->p_WCa = c->p_WCb;
  c->p_WCb = t;
  c->nhat_BA = v3_neg(c->nhat_BA);
}

/* The FCL-style ending of every pair Drake sends to FCL (§4.1): given a point m between the
 * two surfaces, p_WCa = m − ½·depth·n and p_WCb = m + ½·depth·n, so that
 * p_WCa − p_WCb = −depth·nhat_BA holds to round-off whatever m is. */
static inline ISO_HD void point_contact_set_mid(pointContact *c, real depth, vec3 nhat_BA, vec3 m) {
  c->depth = depth;
  c->nhat_BA = nhat_BA;
  c->p_WCa = v3_axpy(m, (real)-0.5 * depth, nhat_BA);
  c->p_WCb = v3_axpy(m, (real)0.5 * depth, nhat_BA);
}

#endif
