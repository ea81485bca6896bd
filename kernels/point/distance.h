/* Signed distance from a point to a primitive shape: Drake's distance_to_point rules
 * (drake_algorithms §4.1, geometry/proximity/distance_to_point_callback.{h,cc}).
 *
 * Each primitive works in the geometry frame G: given the query point Q (p_GQ) it returns
 *   phi    — the signed distance, negative inside;
 *   p_GN   — a nearest point N on the boundary;
 *   grad_G — the unit gradient of phi at Q (for points inside, the direction to push Q out).
 * Where the gradient is not unique, Drake's arbitrary but fixed choices are kept: +x at a
 * sphere's centre (and on a capsule's or cylinder's axis), the normalised sum of the boundary
 * axes on a box's edges and corners, and, for a point strictly inside a box, the face with the
 * smallest |±h_i − p_i| in the order +x, −x, +y, −y, +z, −z (first found wins), the sign being
 * that of p_i with Sign(0) = +1.
 *
 * Tolerance: Drake's DistanceToPointRelativeTolerance(size) = 1e-14·max(1, size) (§8), the
 * round-off of posing a point on the boundary. It decides "at the centre" for a sphere (strict
 * >: the centre case is dist <= tol), "on the axis" for a cylinder (strict <), and the
 * inside/boundary/outside class of each box coordinate (outside: |p_i| > h_i + tol; boundary:
 * |p_i| >= h_i − tol; else inside).
 *
 * phi is computed as grad·(p − N) in G (Drake computes the box and cylinder ones in the world
 * frame, which differs only by round-off). Ellipsoid and convex shapes have no primitive here:
 * Drake answers those through FCL, and so do we through gjk.h. */
#ifndef ISO_KERNELS_POINT_DISTANCE_H
#define ISO_KERNELS_POINT_DISTANCE_H

#include "kernels/core.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "kernels/point/shape.h"

typedef struct pointDistance {
  real phi;    /* signed distance, m; negative inside */
  vec3 p_GN;   /* nearest boundary point, geometry frame */
  vec3 grad_G; /* unit gradient of phi at Q, geometry frame */
} pointDistance;

/* DistanceToPointRelativeTolerance (§8). */
static inline ISO_HD real point_distance_tolerance(real size) {
  return (real)1e-14 * fmax((real)1, size);
}

/* Drake's Sign: −1 for x < 0, else +1 (so Sign(0) = +1). */
static inline ISO_HD real point_sign(real x) { return x < (real)0 ? (real)-1 : (real)1; }

/* Sphere of the given radius centred at G's origin (SphereDistanceInSphereFrame). */
static inline ISO_HD pointDistance point_distance_sphere(real radius, vec3 p) {
  pointDistance d;
  real dist = v3_norm(p);
  if (dist > point_distance_tolerance(radius))
    d.grad_G = v3(p.x / dist, p.y / dist, p.z / dist);
  else
    d.grad_G = v3((real)1, (real)0, (real)0);
  d.p_GN = v3_scale(d.grad_G, radius);
  d.phi = v3_dot(v3_sub(p, d.p_GN), d.grad_G);
  return d;
}

/* ComputeDistanceToBox in dim = 2 or 3 dimensions: h the half sizes, p the query point. Writes
 * the nearest point N and the unit gradient g. */
static inline ISO_HD void point_box_nd(int dim, const real *h, const real *p, real *N, real *g) {
  int loc[3]; /* 0 inside, 1 boundary, 2 outside */
  int i, any_out = 0, any_bd = 0;
  for (i = 0; i < dim; ++i) {
    real tol = point_distance_tolerance(h[i]);
    real a = fabs(p[i]);
    g[i] = (real)0;
    if (a > h[i] + tol) {
      loc[i] = 2;
      N[i] = point_sign(p[i]) * h[i];
      any_out = 1;
    } else if (a >= h[i] - tol) {
      loc[i] = 1;
      N[i] = point_sign(p[i]) * h[i];
      any_bd = 1;
    } else {
      loc[i] = 0;
      N[i] = p[i];
    }
  }
  if (any_out) {
    real s = (real)0;
    for (i = 0; i < dim; ++i) s += (p[i] - N[i]) * (p[i] - N[i]);
    s = sqrt(s);
    for (i = 0; i < dim; ++i) g[i] = (p[i] - N[i]) / s;
  } else if (any_bd) {
    real s = (real)0;
    for (i = 0; i < dim; ++i)
      if (loc[i] == 1) g[i] = point_sign(N[i]);
    for (i = 0; i < dim; ++i) s += g[i] * g[i];
    s = sqrt(s);
    for (i = 0; i < dim; ++i) g[i] = g[i] / s;
  } else {
    /* ExtremalAxis: closest of +h_i, −h_i in the order +x, −x, +y, −y, +z, −z; strict <. */
    real best = (real)INFINITY;
    int axis = 0;
    real s;
    for (i = 0; i < dim; ++i) {
      real dp = fabs(h[i] - p[i]);
      real dm = fabs(-h[i] - p[i]);
      if (dp < best) {
        best = dp;
        axis = i;
      }
      if (dm < best) {
        best = dm;
        axis = i;
      }
    }
    s = point_sign(p[axis]);
    N[axis] = s * h[axis];
    g[axis] = s;
  }
}

/* Box of half sizes h centred at G's origin. */
static inline ISO_HD pointDistance point_distance_box(vec3 h, vec3 p) {
  pointDistance d;
  real hh[3], pp[3], N[3], g[3];
  hh[0] = h.x;
  hh[1] = h.y;
  hh[2] = h.z;
  pp[0] = p.x;
  pp[1] = p.y;
  pp[2] = p.z;
  point_box_nd(3, hh, pp, N, g);
  d.p_GN = v3(N[0], N[1], N[2]);
  d.grad_G = v3(g[0], g[1], g[2]);
  d.phi = v3_dot(d.grad_G, v3_sub(p, d.p_GN));
  return d;
}

/* Cylinder of the given radius and length along z: the 2D box routine in (r, z), the radial
 * direction fixed to +x when Q is within tolerance of the axis (then r keeps its value). */
static inline ISO_HD pointDistance point_distance_cylinder(real radius, real length, vec3 p) {
  pointDistance d;
  real h[2], q[2], N[2], g[2];
  real rq = sqrt(p.x * p.x + p.y * p.y);
  real bx = (real)1, by = (real)0;
  if (!(rq < point_distance_tolerance(radius))) {
    bx = p.x / rq;
    by = p.y / rq;
  }
  h[0] = radius;
  h[1] = length / (real)2;
  q[0] = rq;
  q[1] = p.z;
  point_box_nd(2, h, q, N, g);
  d.p_GN = v3(N[0] * bx, N[0] * by, N[1]);
  d.grad_G = v3(g[0] * bx, g[0] * by, g[1]);
  d.phi = v3_dot(d.grad_G, v3_sub(p, d.p_GN));
  return d;
}

/* Capsule of the given radius and cylindrical length along z: the sphere rule about the end-cap
 * centre (0, 0, ±ℓ) when |z| >= ℓ, else the sphere rule in the xy-plane, N keeping Q's z. */
static inline ISO_HD pointDistance point_distance_capsule(real radius, real length, vec3 p) {
  pointDistance d;
  real hl = length / (real)2;
  if (p.z >= hl || p.z <= -hl) {
    vec3 c = v3((real)0, (real)0, p.z >= hl ? hl : -hl);
    d = point_distance_sphere(radius, v3_sub(p, c));
    d.p_GN = v3_add(c, d.p_GN);
  } else {
    d = point_distance_sphere(radius, v3(p.x, p.y, (real)0));
    d.p_GN.z = p.z;
  }
  return d;
}

/* Half-space z <= 0: phi = z, N = (x, y, 0), grad = +z. */
static inline ISO_HD pointDistance point_distance_halfspace(vec3 p) {
  pointDistance d;
  d.phi = p.z;
  d.p_GN = v3(p.x, p.y, (real)0);
  d.grad_G = v3((real)0, (real)0, (real)1);
  return d;
}

/* Dispatch on the shape type, in G. Returns 1, or 0 for a type with no primitive (ellipsoid,
 * convex; *out untouched). */
static inline ISO_HD int point_distance_local(const pointShape *s, vec3 p_GQ, pointDistance *out) {
  switch (s->type) {
  case POINT_SPHERE:
    *out = point_distance_sphere(s->size[0], p_GQ);
    return 1;
  case POINT_BOX:
    *out = point_distance_box(v3_scale(v3(s->size[0], s->size[1], s->size[2]), (real)0.5), p_GQ);
    return 1;
  case POINT_CYLINDER:
    *out = point_distance_cylinder(s->size[0], s->size[1], p_GQ);
    return 1;
  case POINT_CAPSULE:
    *out = point_distance_capsule(s->size[0], s->size[1], p_GQ);
    return 1;
  case POINT_HALFSPACE:
    *out = point_distance_halfspace(p_GQ);
    return 1;
  default:
    return 0;
  }
}

/* The same in the world: Q given in W; *p_WN and *grad_W (may be NULL) in W. Returns as
 * point_distance_local. */
static inline ISO_HD int point_distance_world(const pointShape *s, xform X_WG, vec3 p_WQ, real *phi,
                                              vec3 *p_WN, vec3 *grad_W) {
  pointDistance d;
  if (!point_distance_local(s, xf_inv_point(X_WG, p_WQ), &d)) return 0;
  if (phi) *phi = d.phi;
  if (p_WN) *p_WN = xf_point(X_WG, d.p_GN);
  if (grad_W) *grad_W = xf_vector(X_WG, d.grad_G);
  return 1;
}

#endif
