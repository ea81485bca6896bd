/* 3-vectors of `real`, passed and returned by value. */
#ifndef ISO_KERNELS_MATH_VEC3_H
#define ISO_KERNELS_MATH_VEC3_H

#include "kernels/core.h"

typedef struct vec3 {
  real x, y, z;
} vec3;

static inline ISO_HD vec3 v3(real x, real y, real z) {
  vec3 r;
  r.x = x;
  r.y = y;
  r.z = z;
  return r;
}

static inline ISO_HD vec3 v3_zero(void) { return v3((real)0, (real)0, (real)0); }

static inline ISO_HD vec3 v3_add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }

static inline ISO_HD vec3 v3_sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }

static inline ISO_HD vec3 v3_scale(vec3 a, real s) { return v3(a.x * s, a.y * s, a.z * s); }

/* a + s*b */
static inline ISO_HD vec3 v3_axpy(vec3 a, real s, vec3 b) {
  return v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline ISO_HD vec3 v3_neg(vec3 a) { return v3(-a.x, -a.y, -a.z); }

/* Component-wise product. */
static inline ISO_HD vec3 v3_mul(vec3 a, vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }

static inline ISO_HD real v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static inline ISO_HD vec3 v3_cross(vec3 a, vec3 b) {
  return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline ISO_HD real v3_norm2(vec3 a) { return v3_dot(a, a); }

static inline ISO_HD real v3_norm(vec3 a) { return sqrt(v3_dot(a, a)); }

/* Unit vector along a; the zero vector (or one whose norm underflows) maps to zero. Always
 * inlined: as a call its vec3 argument and result go through the stack, and where GCC's inliner
 * gave up on it (the narrow phase's face, once the half-space path grew) each face waited on
 * that store. */
static inline ISO_HD ISO_INLINE vec3 v3_normalize(vec3 a) {
  real n = v3_norm(a);
  if (!(n > (real)0)) return v3_zero();
  return v3_scale(a, (real)1 / n);
}

static inline ISO_HD int v3_isfinite(vec3 a) {
  return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/* Component i (0, 1, 2); any other index reads z. */
static inline ISO_HD real v3_get(vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }

static inline ISO_HD vec3 v3_set(vec3 a, int i, real s) {
  if (i == 0)
    a.x = s;
  else if (i == 1)
    a.y = s;
  else
    a.z = s;
  return a;
}

static inline ISO_HD real v3_max_abs(vec3 a) {
  real m = fabs(a.x);
  if (fabs(a.y) > m) m = fabs(a.y);
  if (fabs(a.z) > m) m = fabs(a.z);
  return m;
}

#endif
