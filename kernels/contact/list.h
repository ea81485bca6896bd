/* A world's contact list: the one output of the narrow phase (DESIGN.md stage 4) and the only
 * contact data later stages and the queries read.
 *
 * One record per hydroelastic face (a whole polygon, or one triangle of its centroid fan with
 * ISO_SURFACE_TRIANGLE) and per point contact, world-major at a fixed capacity per world:
 * faces first, in candidate order (pair, then BVH traversal order, then fan triangle), then
 * point contacts in point-pair order. The list is written by count → scan → emit (or one serial
 * pass per world on the CPU, which gives the same list), never by atomic arrival, so it is the
 * same for any thread count; the constraints are built from it in this order, which fixes the
 * order of every sum of the solver.
 *
 * A record holds what the constraints and the queries need, not the polygon: its vertices are
 * recomputed from the source elements when someone asks for them (iso_sim_get_contact_faces),
 * by the same narrow-phase function on the same inputs, so they are the ones the step saw. */
#ifndef ISO_KERNELS_CONTACT_LIST_H
#define ISO_KERNELS_CONTACT_LIST_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

/* contactRec.part of a whole polygon and of a point contact; fan triangles count from 0. */
#define CONTACT_PART_POLYGON (-1)
#define CONTACT_PART_POINT (-2)

typedef struct contactRec {
  vec3 point;  /* face: area centroid of the polygon or fan triangle; point contact: the contact
                  point p_WC (the stiffness-weighted mean of the witness points, §4.2) */
  vec3 normal; /* unit n̂_BA of the constraint frame: a face's normal (out of N into M), a point
                  contact's n̂_BA */
  real area;   /* m²; 0 for a point contact */
  real p0;     /* face: pressure at `point`, Pa; point contact: penetration depth, m */
  real gM, gN; /* face: pressure gradients along the normal, Pa/m (INFINITY for a rigid side);
                  0 for a point contact */
  int pair;    /* face: hydroelastic pair index; point contact: point-contact pair index */
  int geom_m, geom_n; /* geometries: M and N of a face, A and B of a point contact */
  int elem_m, elem_n; /* face: source elements (tet or triangle; -1 for a half-space); -1, -1 */
  int part;    /* fan triangle k >= 0, CONTACT_PART_POLYGON or CONTACT_PART_POINT */
} contactRec;

static inline ISO_HD int contact_is_point(const contactRec *r) { return r->part == CONTACT_PART_POINT; }

#endif
