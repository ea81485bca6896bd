/* A contact on a deformable body's surface: one polygon of one surface triangle against a rigid
 * geometry, as the deformable stage finds it and the solver's constraint reads it
 * (kernels/fem/contact.h). Its Jacobian is a gather block on the body's clique — the three
 * vertices' velocities weighted by the centroid's barycentric coordinates — kept with the
 * record so the solver reads it in place. */
#ifndef ISO_KERNELS_FEM_CONTACT_REC_H
#define ISO_KERNELS_FEM_CONTACT_REC_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

#define FEM_REC_CONTACT 0 /* a contact polygon */
#define FEM_REC_WELD 1    /* a vertex welded to a rigid body: tri is the weld's index, point the
                             body's point Q, gap[] = R_WCᵀ(p_Q − p_P) at the step's start */

typedef struct femContact {
  int kind;     /* FEM_REC_* */
  real gap[3];
  vec3 point;   /* the polygon's area centroid, world, at the step's start */
  vec3 normal;  /* n̂_BA: out of the rigid geometry B into the deformable A */
  real area;    /* m² */
  real p0;      /* the rigid side's pressure at the centroid, Pa (a half-space: C·depth) */
  real g;       /* the rigid side's pressure gradient along n̂_AB, Pa/m (INFINITY: a half-space) */
  real bary[3]; /* the centroid's barycentric coordinates in the triangle */
  int body;     /* deformable body */
  int tri;      /* its surface triangle (index within the body) */
  int geom;     /* the rigid geometry */
  int clique;   /* the rigid side's clique, −1 for a geometry fixed to the world */
  int rbody;    /* the rigid side's body, −1 for the world */
  int cols[9];  /* the clique's columns of the block: 3·slot + axis of each vertex */
  real J[27];   /* the block, 3 rows [t_x, t_y, n] × 9, row-major: −b_k·R_WCᵀ per vertex */
  real coef[3]; /* −b_k (0 for a held vertex): J's vertex k block is coef[k]·R_WCᵀ */
} femContact;

/* The Jacobian blocks of a deformable–deformable contact (kernels/fem/dd_contact.h's
 * femDDContact, the record at the same index): on body A's clique and body B's, each the four
 * vertices of its tet weighted by the centroid's barycentric coordinates; 3 rows × 12. */
typedef struct femDDJac {
  int cols[2][12];
  real J[2][36];
  real coef[2][4]; /* ∓b_k (0 for a held vertex): block q's vertex k block is coef[q][k]·R_WCᵀ */
  real R[9];       /* R_WC, row-major */
} femDDJac;

#endif
