/* Box tests of the broad and mid phases: oriented box against oriented box (15-axis separating
 * axis test), box against a plane or a half-space, and the world AABB of a posed box.
 *
 * Boxes are axis-aligned in their own frame and given by corners lo[3] <= hi[3] (that is how
 * kernels/collide/bvh.h stores them); a box of frame B seen from frame A is an oriented box.
 * Poses follow kernels/math/transform.h: X_AB is the pose of B in A, R_AB maps B-vectors to A.
 *
 * Robustness. Every test is conservative in the same two ways Drake's are:
 *  - boxes built from geometry are padded outward by max(BOX_PAD_MIN, ε·scale) (box_pad), with
 *    scale the largest of |centre| and half-width, so rounding in the tests never loses a
 *    touching pair (Drake's Obb::PadBoundary);
 *  - the separating-axis test adds BOX_ROT_EPS to every |R| entry (Gottschalk's and Ericson's
 *    remedy, RTCD §4.4.1): for nearly parallel edges the nine cross-product axes degenerate to
 *    near-zero vectors whose projections are pure rounding, and the epsilon turns their
 *    verdict into "not separated" instead of noise. With R entries of order 1 it widens each
 *    projected radius by at most BOX_ROT_EPS·(sum of half-widths).
 * "Overlap" includes touching: a pair is separated only when a projected gap is strictly > 0. */
#ifndef ISO_KERNELS_COLLIDE_BOX_H
#define ISO_KERNELS_COLLIDE_BOX_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"

#define BOX_PAD_MIN ((real)2e-14) /* m: absolute floor of the padding (Drake's kTolerance) */
#define BOX_ROT_EPS ((real)1e-12) /* added to |R_AB| entries in the separating-axis test */

/* The pose of box frame B in box frame A, prepared once for many box pairs. */
typedef struct boxRel {
  mat3 R;    /* R_AB */
  mat3 absR; /* |R_AB| + BOX_ROT_EPS, entry-wise */
  vec3 p;    /* p_AoBo_A */
} boxRel;

/* From a rotation matrix R_AB (as computed, rounding and all) and p_AoBo_A. */
static inline ISO_HD boxRel box_rel_from_m3(mat3 R_AB, vec3 p_AB) {
  boxRel r;
  int i, j;
  r.R = R_AB;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.absR.m[i][j] = fabs(R_AB.m[i][j]) + BOX_ROT_EPS;
  r.p = p_AB;
  return r;
}

static inline ISO_HD boxRel box_rel_make(xform X_AB) {
  return box_rel_from_m3(quat_to_m3(X_AB.q), X_AB.p);
}

/* Padding for a box: max(BOX_PAD_MIN, ε·max(|centre_i|, half-width_i)). */
static inline ISO_HD real box_pad_amount(const real lo[3], const real hi[3]) {
  real scale = (real)0;
  real pad;
  int i;
  for (i = 0; i < 3; ++i) {
    real c = fabs((real)0.5 * (lo[i] + hi[i]));
    real h = (real)0.5 * (hi[i] - lo[i]);
    if (c > scale) scale = c;
    if (h > scale) scale = h;
  }
  pad = scale * (real)ISO_REAL_EPS;
  return pad > BOX_PAD_MIN ? pad : BOX_PAD_MIN;
}

/* out = the box grown by box_pad_amount on every side; out may alias the input. */
static inline ISO_HD void box_pad(const real lo[3], const real hi[3], real out_lo[3],
                                  real out_hi[3]) {
  real pad = box_pad_amount(lo, hi);
  int i;
  for (i = 0; i < 3; ++i) {
    real l = lo[i] - pad;
    real h = hi[i] + pad;
    out_lo[i] = l;
    out_hi[i] = h;
  }
}

/* The six face axes of the separating-axis test (a's three face normals, then b's): 1 when none
 * separates the boxes. Leaves the half-widths ea, eb and the centre offset t (centre of b minus
 * centre of a, in A) for box_sat_edges. On its own it is a conservative test: it never separates
 * boxes the full test keeps, and misses only separations along an edge cross product, which
 * exist only between boxes turned against each other (never when R_AB is near the identity). */
static inline ISO_HD int box_sat_faces(const real lo_a[3], const real hi_a[3], const real lo_b[3],
                                       const real hi_b[3], const boxRel *rel, real ea[3],
                                       real eb[3], real t[3]) {
  real cb[3];
  int i, j;
  for (i = 0; i < 3; ++i) {
    ea[i] = (real)0.5 * (hi_a[i] - lo_a[i]);
    eb[i] = (real)0.5 * (hi_b[i] - lo_b[i]);
    cb[i] = (real)0.5 * (lo_b[i] + hi_b[i]);
  }
  for (i = 0; i < 3; ++i)
    t[i] = rel->R.m[i][0] * cb[0] + rel->R.m[i][1] * cb[1] + rel->R.m[i][2] * cb[2] +
           v3_get(rel->p, i) - (real)0.5 * (lo_a[i] + hi_a[i]);
  for (i = 0; i < 3; ++i) {
    real rb = eb[0] * rel->absR.m[i][0] + eb[1] * rel->absR.m[i][1] + eb[2] * rel->absR.m[i][2];
    if (fabs(t[i]) > ea[i] + rb) return 0;
  }
  for (j = 0; j < 3; ++j) {
    real ra = ea[0] * rel->absR.m[0][j] + ea[1] * rel->absR.m[1][j] + ea[2] * rel->absR.m[2][j];
    real tj = t[0] * rel->R.m[0][j] + t[1] * rel->R.m[1][j] + t[2] * rel->R.m[2][j];
    if (fabs(tj) > ra + eb[j]) return 0;
  }
  return 1;
}

/* The nine edge cross products a_i × b_j, with ea, eb, t from box_sat_faces: 1 when none
 * separates the boxes. */
static inline ISO_HD int box_sat_edges(const real ea[3], const real eb[3], const real t[3],
                                       const boxRel *rel) {
  int i, j;
  for (i = 0; i < 3; ++i) {
    int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (j = 0; j < 3; ++j) {
      int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      real r = ea[i1] * rel->absR.m[i2][j] + ea[i2] * rel->absR.m[i1][j] +
               eb[j1] * rel->absR.m[i][j2] + eb[j2] * rel->absR.m[i][j1];
      if (fabs(t[i2] * rel->R.m[i1][j] - t[i1] * rel->R.m[i2][j]) > r) return 0;
    }
  }
  return 1;
}

/* What the separating-axis test needs of one box alone, under one boxRel: a walk that tests a
 * node against many nodes of the other tree forms it once per node instead of once per pair.
 * The numbers are box_sat_faces's, summed in its order, so box_sat_sides gives its verdicts and
 * its t bit for bit. */
typedef struct boxSide {
  real c[3];  /* box a: its centre in A; box b: R_AB·centre + p (its centre in A, before a's
                 centre is subtracted) */
  real e[3];  /* half-widths in the box's own frame */
  real r[3];  /* box a: its radius on b's face axes j (Σᵢ eᵢ·|R|ᵢⱼ); box b: on a's, i (Σⱼ eⱼ·|R|ᵢⱼ) */
} boxSide;

static inline ISO_HD void box_side_a(const real lo[3], const real hi[3], const boxRel *rel, boxSide *s) {
  int i, j;
  for (i = 0; i < 3; ++i) {
    s->e[i] = (real)0.5 * (hi[i] - lo[i]);
    s->c[i] = (real)0.5 * (lo[i] + hi[i]);
  }
  for (j = 0; j < 3; ++j)
    s->r[j] = s->e[0] * rel->absR.m[0][j] + s->e[1] * rel->absR.m[1][j] + s->e[2] * rel->absR.m[2][j];
}

static inline ISO_HD void box_side_b(const real lo[3], const real hi[3], const boxRel *rel, boxSide *s) {
  real cb[3];
  int i;
  for (i = 0; i < 3; ++i) {
    s->e[i] = (real)0.5 * (hi[i] - lo[i]);
    cb[i] = (real)0.5 * (lo[i] + hi[i]);
  }
  for (i = 0; i < 3; ++i) {
    s->c[i] = rel->R.m[i][0] * cb[0] + rel->R.m[i][1] * cb[1] + rel->R.m[i][2] * cb[2] + v3_get(rel->p, i);
    s->r[i] = s->e[0] * rel->absR.m[i][0] + s->e[1] * rel->absR.m[i][1] + s->e[2] * rel->absR.m[i][2];
  }
}

/* box_sat_faces on two prepared sides (a from box_side_a, b from box_side_b under the same
 * rel); leaves t for box_sat_edges(a->e, b->e, t, rel). */
static inline ISO_HD int box_sat_sides(const boxSide *a, const boxSide *b, const boxRel *rel, real t[3]) {
  int i, j;
  for (i = 0; i < 3; ++i) t[i] = b->c[i] - a->c[i];
  for (i = 0; i < 3; ++i)
    if (fabs(t[i]) > a->e[i] + b->r[i]) return 0;
  for (j = 0; j < 3; ++j) {
    real tj = t[0] * rel->R.m[0][j] + t[1] * rel->R.m[1][j] + t[2] * rel->R.m[2][j];
    if (fabs(tj) > a->r[j] + b->e[j]) return 0;
  }
  return 1;
}

/* A prepared side loosened by `slack` (m): box_sat_sides on it counts gaps up to slack as
 * overlap on all six axes (each axis sums one side's e and the other's r). A walk's parent
 * pair must keep every pair of children that passes: in exact arithmetic containment
 * guarantees it, and a slack above rounding makes the computed verdicts keep it too
 * (kernels/collide/bvh.h). */
static inline ISO_HD void box_side_loosen(boxSide *s, real slack) {
  for (int i = 0; i < 3; ++i) {
    s->e[i] += slack;
    s->r[i] += slack;
  }
}

/* Overlap of box a (corners in frame A) and box b (corners in frame B) with B posed in A by
 * `rel`: the 15-axis separating-axis test (3 face normals of a, 3 of b, 9 edge cross products)
 * in the form of Ericson, RTCD §4.4.1, and Drake's BoxesOverlap. Returns 1 on overlap. */
static inline ISO_HD int box_overlap_rel(const real lo_a[3], const real hi_a[3],
                                         const real lo_b[3], const real hi_b[3],
                                         const boxRel *rel) {
  real ea[3], eb[3], t[3];
  return box_sat_faces(lo_a, hi_a, lo_b, hi_b, rel, ea, eb, t) && box_sat_edges(ea, eb, t, rel);
}

/* The face axes only (box_sat_faces): a cheaper, conservative box_overlap_rel. */
static inline ISO_HD int box_overlap_rel_faces(const real lo_a[3], const real hi_a[3],
                                               const real lo_b[3], const real hi_b[3],
                                               const boxRel *rel) {
  real ea[3], eb[3], t[3];
  return box_sat_faces(lo_a, hi_a, lo_b, hi_b, rel, ea, eb, t);
}

/* box_overlap_rel_faces with gaps up to `slack` counted as overlap (box_side_loosen). */
static inline ISO_HD int box_overlap_rel_faces_slack(const real lo_a[3], const real hi_a[3], const real lo_b[3],
                                                     const real hi_b[3], const boxRel *rel, real slack) {
  boxSide a, b;
  real t[3];
  box_side_a(lo_a, hi_a, rel, &a);
  box_side_b(lo_b, hi_b, rel, &b);
  box_side_loosen(&a, slack);
  return box_sat_sides(&a, &b, rel, t);
}

/* box_overlap_rel for a single pair: box a in frame A, box b in frame B, X_AB the pose of B
 * in A. Callers testing many pairs under one pose should make a boxRel once instead. */
static inline ISO_HD int box_overlap_obb(const real lo_a[3], const real hi_a[3],
                                         const real lo_b[3], const real hi_b[3], xform X_AB) {
  boxRel rel = box_rel_make(X_AB);
  return box_overlap_rel(lo_a, hi_a, lo_b, hi_b, &rel);
}

/* Signed height of the box centre over the plane n·x = d, and the box's projected radius on
 * n, both in units of |n| (n need not be unit; d must then be scaled alike). */
static inline ISO_HD void box_plane_project(const real lo[3], const real hi[3], vec3 n, real d,
                                            real *height, real *radius) {
  real c0 = (real)0.5 * (lo[0] + hi[0]), c1 = (real)0.5 * (lo[1] + hi[1]);
  real c2 = (real)0.5 * (lo[2] + hi[2]);
  *height = n.x * c0 + n.y * c1 + n.z * c2 - d;
  *radius = fabs(n.x) * (real)0.5 * (hi[0] - lo[0]) + fabs(n.y) * (real)0.5 * (hi[1] - lo[1]) +
            fabs(n.z) * (real)0.5 * (hi[2] - lo[2]);
}

/* Box (frame A) against the half-space H = {x : n_A·x <= d_A}, n_A its outward normal in A:
 * 1 when some point of the box is in H (touching counts). This is Drake's OBB-vs-HalfSpace:
 * centre height <= projected radius. Used for rigid triangles against a compliant half-space,
 * whose caller shifts d_A outward by the margin. */
static inline ISO_HD int box_halfspace_overlap(const real lo[3], const real hi[3], vec3 n_A,
                                               real d_A) {
  real h, r;
  box_plane_project(lo, hi, n_A, d_A, &h, &r);
  return h <= r;
}

/* Box (frame A) against the plane n_A·x = d_A: 1 when the box has points on both sides or on
 * the plane (|centre height| <= projected radius), Drake's Plane::BoxOverlaps. Used for
 * compliant tets against a rigid half-space: only tets crossing its boundary can carry a
 * piece of the contact surface. */
static inline ISO_HD int box_plane_straddle(const real lo[3], const real hi[3], vec3 n_A,
                                            real d_A) {
  real h, r;
  box_plane_project(lo, hi, n_A, d_A, &h, &r);
  return fabs(h) <= r;
}

/* AABB in W of a box given in frame A, with A posed in W by X_WA: centre R c + p and
 * half-widths |R| e, then padded (box_pad) so rounding never shrinks it. An empty box
 * (lo > hi on some axis) maps to the empty box lo = +HUGE_VAL, hi = -HUGE_VAL. */
static inline ISO_HD void box_transform_aabb(const real lo[3], const real hi[3], xform X_WA,
                                             real out_lo[3], real out_hi[3]) {
  mat3 R;
  real c[3], e[3];
  int i;
  if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])) {
    for (i = 0; i < 3; ++i) {
      out_lo[i] = (real)HUGE_VAL;
      out_hi[i] = -(real)HUGE_VAL;
    }
    return;
  }
  R = quat_to_m3(X_WA.q);
  for (i = 0; i < 3; ++i) {
    c[i] = (real)0.5 * (lo[i] + hi[i]);
    e[i] = (real)0.5 * (hi[i] - lo[i]);
  }
  for (i = 0; i < 3; ++i) {
    real cw = R.m[i][0] * c[0] + R.m[i][1] * c[1] + R.m[i][2] * c[2] + v3_get(X_WA.p, i);
    real ew = fabs(R.m[i][0]) * e[0] + fabs(R.m[i][1]) * e[1] + fabs(R.m[i][2]) * e[2];
    out_lo[i] = cw - ew;
    out_hi[i] = cw + ew;
  }
  box_pad(out_lo, out_hi, out_lo, out_hi);
}

/* Overlap of two boxes given in one frame (touching counts). */
static inline ISO_HD int box_overlap_aabb(const real lo_a[3], const real hi_a[3],
                                          const real lo_b[3], const real hi_b[3]) {
  return lo_a[0] <= hi_b[0] && lo_b[0] <= hi_a[0] && lo_a[1] <= hi_b[1] && lo_b[1] <= hi_a[1] &&
         lo_a[2] <= hi_b[2] && lo_b[2] <= hi_a[2];
}

#endif
