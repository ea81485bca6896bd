/* Quaternions, Hamilton convention (ij = k), scalar first. A unit q rotates body-frame vectors
 * into the world: v_W = q ⊗ v_B ⊗ q*, so quat_to_m3(q) is R_WB. Functions that rotate assume
 * a unit q; callers renormalise after integrating. */
#ifndef ISO_KERNELS_MATH_QUAT_H
#define ISO_KERNELS_MATH_QUAT_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

typedef struct quat {
  real w, x, y, z;
} quat;

static inline ISO_HD quat quat_make(real w, real x, real y, real z) {
  quat q;
  q.w = w;
  q.x = x;
  q.y = y;
  q.z = z;
  return q;
}

static inline ISO_HD quat quat_identity(void) {
  return quat_make((real)1, (real)0, (real)0, (real)0);
}

static inline ISO_HD vec3 quat_vec(quat q) { return v3(q.x, q.y, q.z); }

/* Hamilton product a ⊗ b: (aw bw − av·bv, aw bv + bw av + av × bv). */
static inline ISO_HD quat quat_mul(quat a, quat b) {
  return quat_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

static inline ISO_HD quat quat_conj(quat q) { return quat_make(q.w, -q.x, -q.y, -q.z); }

static inline ISO_HD real quat_norm(quat q) {
  return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}

/* q / |q|; the zero quaternion (or one whose norm underflows) maps to the identity. */
static inline ISO_HD quat quat_normalize(quat q) {
  real n = quat_norm(q);
  real s;
  if (!(n > (real)0)) return quat_identity();
  s = (real)1 / n;
  return quat_make(q.w * s, q.x * s, q.y * s, q.z * s);
}

/* q ⊗ (0, v) ⊗ q*, as v + 2w (u × v) + 2 u × (u × v) with u the vector part. Inlined wherever
 * it is used (as are quat_inv_rotate and quat_to_m3): a call passes q and v through the stack
 * (over 16 bytes each), written in halves and read back whole, a store-forwarding stall that
 * cost more than the rotation on the contact paths. */
static inline ISO_HD ISO_INLINE vec3 quat_rotate(quat q, vec3 v) {
  vec3 u = quat_vec(q);
  vec3 t = v3_scale(v3_cross(u, v), (real)2);
  return v3_add(v3_axpy(v, q.w, t), v3_cross(u, t));
}

/* q* ⊗ (0, v) ⊗ q: world to body. */
static inline ISO_HD ISO_INLINE vec3 quat_inv_rotate(quat q, vec3 v) { return quat_rotate(quat_conj(q), v); }

/* R with R v == quat_rotate(q, v), for a unit q. */
static inline ISO_HD ISO_INLINE mat3 quat_to_m3(quat q) {
  mat3 R;
  real xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  real xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  real wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  R.m[0][0] = (real)1 - (real)2 * (yy + zz);
  R.m[0][1] = (real)2 * (xy - wz);
  R.m[0][2] = (real)2 * (xz + wy);
  R.m[1][0] = (real)2 * (xy + wz);
  R.m[1][1] = (real)1 - (real)2 * (xx + zz);
  R.m[1][2] = (real)2 * (yz - wx);
  R.m[2][0] = (real)2 * (xz - wy);
  R.m[2][1] = (real)2 * (yz + wx);
  R.m[2][2] = (real)1 - (real)2 * (xx + yy);
  return R;
}

/* Unit quaternion of a rotation matrix by Shepperd's method: of 4w², 4x², 4y², 4z² (from the
 * trace and the diagonal) take the square root of the largest, so the divisor is >= 1/2 for every
 * rotation, 180° turns included. Returns w >= 0 and |q| = 1. */
static inline ISO_HD quat quat_from_m3(mat3 R) {
  real r00 = R.m[0][0], r11 = R.m[1][1], r22 = R.m[2][2];
  real tr = r00 + r11 + r22;
  real h, s;
  quat q;
  if (tr >= r00 && tr >= r11 && tr >= r22) {
    h = (real)0.5 * sqrt((real)1 + tr);
    s = (real)0.25 / h;
    q = quat_make(h, (R.m[2][1] - R.m[1][2]) * s, (R.m[0][2] - R.m[2][0]) * s,
                  (R.m[1][0] - R.m[0][1]) * s);
  } else if (r00 >= r11 && r00 >= r22) {
    h = (real)0.5 * sqrt((real)1 + r00 - r11 - r22);
    s = (real)0.25 / h;
    q = quat_make((R.m[2][1] - R.m[1][2]) * s, h, (R.m[0][1] + R.m[1][0]) * s,
                  (R.m[0][2] + R.m[2][0]) * s);
  } else if (r11 >= r22) {
    h = (real)0.5 * sqrt((real)1 - r00 + r11 - r22);
    s = (real)0.25 / h;
    q = quat_make((R.m[0][2] - R.m[2][0]) * s, (R.m[0][1] + R.m[1][0]) * s, h,
                  (R.m[1][2] + R.m[2][1]) * s);
  } else {
    h = (real)0.5 * sqrt((real)1 - r00 - r11 + r22);
    s = (real)0.25 / h;
    q = quat_make((R.m[1][0] - R.m[0][1]) * s, (R.m[0][2] + R.m[2][0]) * s,
                  (R.m[1][2] + R.m[2][1]) * s, h);
  }
  if (q.w < (real)0) q = quat_make(-q.w, -q.x, -q.y, -q.z);
  return quat_normalize(q);
}

/* Rotation by `angle` (radians, right-hand rule) about `axis`, which need not be unit; a zero
 * axis gives the identity. */
static inline ISO_HD quat quat_from_axis_angle(vec3 axis, real angle) {
  vec3 u = v3_normalize(axis);
  real s = sin((real)0.5 * angle);
  if (v3_norm2(u) == (real)0) return quat_identity();
  return quat_make(cos((real)0.5 * angle), u.x * s, u.y * s, u.z * s);
}

static inline ISO_HD int quat_isfinite(quat q) {
  return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* One explicit step q + dt·q̇ with q̇ = ½ (0, w_W) ⊗ q for an angular velocity w_W in the world
 * frame (q̇ = N(q) w, as in Drake's QuaternionFloatingMobilizer). Not normalised: the caller
 * decides when to project back onto |q| = 1. */
static inline ISO_HD quat quat_integrate_world(quat q, vec3 w_W, real dt) {
  quat dq = quat_mul(quat_make((real)0, w_W.x, w_W.y, w_W.z), q);
  real h = (real)0.5 * dt;
  return quat_make(q.w + h * dq.w, q.x + h * dq.x, q.y + h * dq.y, q.z + h * dq.z);
}

/* Angle in [0, π] of the relative rotation a* ⊗ b; q and −q are the same rotation, hence |w|.
 * atan2 keeps full accuracy for small angles, where acos(|w|) would not. */
static inline ISO_HD real quat_angle(quat a, quat b) {
  quat d = quat_mul(quat_conj(a), b);
  return (real)2 * atan2(v3_norm(quat_vec(d)), fabs(d.w));
}

#endif
