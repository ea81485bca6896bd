/* Rigid transforms. X_AB is the pose of frame B in frame A: q is the rotation R_AB (it maps
 * vectors expressed in B to A) and p = p_AoBo_A, the position of B's origin from A's origin,
 * expressed in A. Then xf_point(X_AB, p_BoQ_B) = p_AoQ_A. */
#ifndef ISO_KERNELS_MATH_TRANSFORM_H
#define ISO_KERNELS_MATH_TRANSFORM_H

#include "kernels/core.h"
#include "kernels/math/quat.h"
#include "kernels/math/vec3.h"

typedef struct xform {
  quat q;
  vec3 p;
} xform;

static inline ISO_HD xform xf_make(quat q, vec3 p) {
  xform X;
  X.q = q;
  X.p = p;
  return X;
}

static inline ISO_HD xform xf_identity(void) { return xf_make(quat_identity(), v3_zero()); }

/* X_AB · X_BC = X_AC */
static inline ISO_HD ISO_INLINE xform xf_mul(xform X_AB, xform X_BC) {
  return xf_make(quat_mul(X_AB.q, X_BC.q), v3_add(X_AB.p, quat_rotate(X_AB.q, X_BC.p)));
}

/* X_AB → X_BA */
static inline ISO_HD xform xf_inv(xform X) {
  quat qi = quat_conj(X.q);
  return xf_make(qi, v3_neg(quat_rotate(qi, X.p)));
}

/* R p + t: a point given in B, returned in A. */
static inline ISO_HD ISO_INLINE vec3 xf_point(xform X, vec3 p) { return v3_add(quat_rotate(X.q, p), X.p); }

/* R v: a free vector given in B, returned in A. */
static inline ISO_HD ISO_INLINE vec3 xf_vector(xform X, vec3 v) { return quat_rotate(X.q, v); }

/* Rᵀ (p − t): a point given in A, returned in B. */
static inline ISO_HD ISO_INLINE vec3 xf_inv_point(xform X, vec3 p) {
  return quat_inv_rotate(X.q, v3_sub(p, X.p));
}

/* Rᵀ v: a free vector given in A, returned in B. */
static inline ISO_HD ISO_INLINE vec3 xf_inv_vector(xform X, vec3 v) { return quat_inv_rotate(X.q, v); }

static inline ISO_HD int xf_isfinite(xform X) { return quat_isfinite(X.q) && v3_isfinite(X.p); }

#endif
