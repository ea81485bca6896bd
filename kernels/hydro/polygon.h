/* Area, normal, centroid and pressure of a contact polygon, and its centroid triangle fan.
 *
 * Place in the pipeline: narrow phase (stage 4), after clipping; the discrete approximation
 * (stage 5, drake_algorithms §3) reads area, normal, centroid and p0.
 *
 * Rules (drake_algorithms §2.5):
 *  - kPolygon (PolygonSurfaceMesh, the default): fan around vertex 0; for each fan triangle
 *    (v0, vi, vi+1), c_i = (vi − v0)×(vi+1 − v0); normal = normalize(Σc_i); area = ½Σ‖c_i‖
 *    (assumes convexity); centroid = Σ‖c_i‖(v0 + vi + vi+1)/(6·area), the vertex average
 *    when area = 0. The centroid is accumulated relative to v0 (same formula, less rounding far
 *    from the origin).
 *  - The face field is p(x) = p(v0) + ∇·(x − v0) with the per-face gradient, which is grad_M for
 *    every face isobar makes (field M of tet–tet §2.1 step 5, the compliant side otherwise).
 *    p0 = p(centroid).
 *  - kTriangle (TriMeshBuilder): the N-gon becomes N triangles (v_{i−1}, v_i, c) around the
 *    centroid c, with the vertex pressures and p(c) at c. For a convex polygon Drake's
 *    CalcPolygonCentroid (weights ((vi − v0)×(vi+1 − v0))·n̂) equals the centroid above, so the
 *    fan reuses f->centroid and f->p0.
 */
#ifndef ISO_KERNELS_HYDRO_POLYGON_H
#define ISO_KERNELS_HYDRO_POLYGON_H

#include "kernels/core.h"
#include "kernels/hydro/face.h"
#include "kernels/math/vec3.h"

/* A linear field f(x) = g·x + c, c being its value at the world origin. */
static inline ISO_HD real hydro_field_eval(vec3 g, real c, vec3 x) { return v3_dot(g, x) + c; }

/* The fan around v0: c_i = (v_i − v0)×(v_{i+1} − v0) for i = 1..n−2, kept in c[i − 1] when c is
 * not NULL, and their sum Σc_i (twice the vector area), summed from zero in i order. */
static inline ISO_HD ISO_INLINE vec3 hydro_polygon_fan(const vec3 *v, int n, vec3 *c) {
  vec3 s = v3_zero();
  for (int i = 1; i + 1 < n; ++i) {
    const vec3 ci = v3_cross(v3_sub(v[i], v[0]), v3_sub(v[i + 1], v[0]));
    if (c) c[i - 1] = ci;
    s = v3_add(s, ci);
  }
  return s;
}

/* The end of hydro_polygon_props from the fan's sums: Σc_i, Σw_i (w_i = ‖c_i‖) and
 * Σw_i((v_i − v0) + (v_{i+1} − v0)). */
static inline ISO_HD ISO_INLINE void hydro_polygon_props_end(const vec3 *v, int n, vec3 sum_c, real sum_w, vec3 acc,
                                                             real *area, vec3 *normal, vec3 *centroid) {
  *area = (real)0.5 * sum_w;
  if (v3_norm2(sum_c) > (real)0) *normal = v3_normalize(sum_c);
  if (sum_w > (real)0) {
    /* Σw(v0 + vi + vi+1)/(3Σw) = v0 + Σw((vi − v0) + (vi+1 − v0))/(3Σw). */
    *centroid = v3_axpy(v[0], (real)1 / ((real)3 * sum_w), acc);
  } else {
    vec3 m = v3_zero();
    for (int i = 0; i < n; ++i) m = v3_add(m, v[i]);
    *centroid = n > 0 ? v3_scale(m, (real)1 / (real)n) : m;
  }
}

/* hydro_polygon_props from the fan already formed (hydro_polygon_fan's c and sum_c of the same
 * v): a face's fan is formed once for its orientation and its moments. */
static inline ISO_HD ISO_INLINE void hydro_polygon_props_fan(const vec3 *v, int n, const vec3 *c, vec3 sum_c,
                                                             real *area, vec3 *normal, vec3 *centroid) {
  vec3 acc = v3_zero();
  real sum_w = (real)0;
  int i;
  for (i = 1; i + 1 < n; ++i) {
    const vec3 a = v3_sub(v[i], v[0]), b = v3_sub(v[i + 1], v[0]);
    const real w = v3_norm(c[i - 1]);
    sum_w += w;
    acc = v3_add(acc, v3_scale(v3_add(a, b), w));
  }
  hydro_polygon_props_end(v, n, sum_c, sum_w, acc, area, normal, centroid);
}

/* Area, unit normal and centroid of polygon v[0..n) by the fan rule of §2.5, in one pass (each
 * sum the one hydro_polygon_fan and hydro_polygon_props_fan form, in the same order). The
 * normal is left untouched when Σc is exactly zero (a collinear or empty polygon). */
static inline ISO_HD ISO_INLINE void hydro_polygon_props(const vec3 *v, int n, real *area, vec3 *normal, vec3 *centroid) {
  vec3 sum_c = v3_zero(), acc = v3_zero();
  real sum_w = (real)0;
  int i;
  for (i = 1; i + 1 < n; ++i) {
    const vec3 a = v3_sub(v[i], v[0]), b = v3_sub(v[i + 1], v[0]);
    const vec3 c = v3_cross(a, b);
    const real w = v3_norm(c);
    sum_c = v3_add(sum_c, c);
    sum_w += w;
    acc = v3_add(acc, v3_scale(v3_add(a, b), w));
  }
  hydro_polygon_props_end(v, n, sum_c, sum_w, acc, area, normal, centroid);
}

/* Reverse the order of v[0..n) (and q, when not NULL), keeping v0 first: v0, v_{n−1}, ..., v1. */
static inline ISO_HD void hydro_polygon_reverse(vec3 *v, real *q, int n) {
  int i, j;
  for (i = 1, j = n - 1; i < j; ++i, --j) {
    const vec3 tv = v[i];
    v[i] = v[j];
    v[j] = tv;
    if (q) {
      const real tq = q[i];
      q[i] = q[j];
      q[j] = tq;
    }
  }
}

/* Make the winding counter-clockwise about nhat: reverse when the fan's vector area points
 * against it. Slicing a positive tet and clipping already give this order (mesh_recipes §5); the
 * check makes inverted elements and inconsistent triangle normals harmless. c (n − 2 entries, or
 * NULL) and the return value: the fan of the polygon as it then is (hydro_polygon_fan; formed
 * again after a reversal). */
static inline ISO_HD ISO_INLINE vec3 hydro_polygon_orient_fan(vec3 *v, real *q, int n, vec3 nhat, vec3 *c) {
  const vec3 s = hydro_polygon_fan(v, n, c);
  if (!(v3_dot(s, nhat) < (real)0)) return s;
  hydro_polygon_reverse(v, q, n);
  return hydro_polygon_fan(v, n, c);
}

static inline ISO_HD ISO_INLINE void hydro_polygon_orient(vec3 *v, real *q, int n, vec3 nhat) {
  (void)hydro_polygon_orient_fan(v, q, n, nhat, (vec3 *)0);
}

/* Drop vertices until n <= max, each time the one whose triangle with its two neighbours has the
 * smallest area. A guard only: exact arithmetic never yields more than HYDRO_MAX_POLY vertices
 * (clip.h), so this can only remove rounding slivers. Returns the new count. */
static inline ISO_HD ISO_INLINE int hydro_polygon_reduce(vec3 *v, real *q, int n, int max) {
  while (n > max) {
    int i, best = 0;
    real best_a = (real)-1;
    for (i = 0; i < n; ++i) {
      const vec3 p = v[(i + n - 1) % n], r = v[(i + 1) % n];
      const real a = v3_norm2(v3_cross(v3_sub(v[i], p), v3_sub(r, p)));
      if (best_a < (real)0 || a < best_a) {
        best_a = a;
        best = i;
      }
    }
    for (i = best; i + 1 < n; ++i) {
      v[i] = v[i + 1];
      if (q) q[i] = q[i + 1];
    }
    --n;
  }
  return n;
}

/* Pressure of face f at x by its face field (§2.5): p(v0) + grad_M·(x − v0). */
static inline ISO_HD real hydro_face_pressure(const hydroFace *f, vec3 x) {
  return f->vert_p[0] + v3_dot(f->grad_M, v3_sub(x, f->vert[0]));
}

/* Fill area, normal, centroid and p0 of f from nvert, vert, vert_p and grad_M (§2.5). The
 * normal follows the winding; f->normal is kept when the polygon has no vector area, so callers
 * preset it to the expected normal. */
static inline ISO_HD ISO_INLINE void hydro_polygon_finish(hydroFace *f) {
  hydro_polygon_props(f->vert, f->nvert, &f->area, &f->normal, &f->centroid);
  f->p0 = f->nvert > 0 ? hydro_face_pressure(f, f->centroid) : (real)0;
}

/* hydro_polygon_finish with f's fan already formed (hydro_polygon_orient_fan's c and sum_c of
 * the same vertices). */
static inline ISO_HD ISO_INLINE void hydro_polygon_finish_fan(hydroFace *f, const vec3 *c, vec3 sum_c) {
  hydro_polygon_props_fan(f->vert, f->nvert, c, sum_c, &f->area, &f->normal, &f->centroid);
  f->p0 = f->nvert > 0 ? hydro_face_pressure(f, f->centroid) : (real)0;
}

/* The centroid triangle fan of f (§2.5 kTriangle): triangle k = (v_k, v_{k+1}, c) for
 * k = 0..nvert−1 (indices mod nvert; Drake's (v_{i−1}, v_i, c) with i = k + 1), c = f->centroid,
 * counter-clockwise about f->normal like the polygon; tri_p holds the pressures at its three
 * corners (vertex pressures, then p0). Returns the number of triangles, nvert. */
static inline ISO_HD int hydro_face_fan(const hydroFace *f, vec3 tri[HYDRO_MAX_POLY][3],
                                        real tri_p[HYDRO_MAX_POLY][3]) {
  int k;
  for (k = 0; k < f->nvert; ++k) {
    const int k1 = (k + 1) % f->nvert;
    tri[k][0] = f->vert[k];
    tri[k][1] = f->vert[k1];
    tri[k][2] = f->centroid;
    tri_p[k][0] = f->vert_p[k];
    tri_p[k][1] = f->vert_p[k1];
    tri_p[k][2] = f->p0;
  }
  return f->nvert;
}

#endif
