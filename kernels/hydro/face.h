/* One hydroelastic contact face: a convex polygon of a contact surface, with the data the
 * discrete approximation needs (reference §2.5 and §3). Everything is in the world frame.
 *
 * Labels follow Drake's ContactSurface: the face lies between geometry M and geometry N, and
 * its normal points out of N and into M. For a pair stored as (A, B) in isobar, M = A, N = B.
 *  gM = ∇e_M·n̂ (compliant M) and gN = −∇e_N·n̂ (compliant N); a rigid side reports INFINITY.
 *  Faces whose gM or gN is below 1e-14 are later skipped by the discrete approximation.
 *
 * A polygon of area at most HYDRO_FACE_MIN_AREA is no face of a rigid or compliant geometry's
 * surface (hs_face_compute_cached drops it): the discrete approximation would skip it (§3, the
 * same 1e-14 m² as SAP_FACE_MIN_AREA), and whether such slivers appear at all is decided by
 * round-off where mesh faces coincide (a resting stack of boxes kept 76 of its 180 polygons below
 * it; the GPU's FMA contraction made 268 of them, past the list's 256). */
#ifndef ISO_KERNELS_HYDRO_FACE_H
#define ISO_KERNELS_HYDRO_FACE_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

/* Tet–tet polygons have at most 8 vertices (4 from the slice plus 4 from clipping),
 * triangle–tet ones at most 7. */
#define HYDRO_MAX_POLY 8

#define HYDRO_FACE_MIN_AREA 1e-14 /* m²; polygons of at most this area are dropped */

typedef struct hydroFace {
  int nvert;                  /* 3..HYDRO_MAX_POLY */
  vec3 vert[HYDRO_MAX_POLY];  /* counter-clockwise about `normal` */
  real vert_p[HYDRO_MAX_POLY]; /* pressure at each vertex, Pa */
  vec3 normal;                /* unit, out of N into M */
  real area;                  /* m² */
  vec3 centroid;              /* area centroid */
  real p0;                    /* pressure at the centroid, Pa */
  vec3 grad_M, grad_N;        /* pressure gradients of each side's element, Pa/m (0 when rigid) */
  real gM, gN;                /* gradients along the normal as above, Pa/m (INFINITY when rigid) */
  int elem_M, elem_N;         /* element indices (tet, triangle; -1 for a half-space) */
} hydroFace;

#endif
