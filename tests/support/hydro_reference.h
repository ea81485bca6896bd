/* The brute-force reference shared by the hydroelastic narrow-phase tests
 * (tests/test_hydro_narrow_*.c): random tets, the half-spaces of a tet and of a triangle's
 * edges, the region of a plane inside half-spaces computed in 2D by enumerating the pairwise
 * intersections of the constraint lines that satisfy all constraints and sorting them by angle
 * (no clipping), giving its area and centroid; the independent gradient filter, and the checks
 * every contact face shares. Header-only (static inline). */
#ifndef ISO_TESTS_HYDRO_REFERENCE_H
#define ISO_TESTS_HYDRO_REFERENCE_H

#include <criterion/criterion.h>
#include <math.h>

#include "kernels/hydro/narrow.h"
#include "kernels/math/quat.h"
#include "support/rng.h"
#include "support/support.h"

#define PI 3.14159265358979323846

static inline double vol6(const vec3 t[4]) {
  return v3_dot(v3_cross(v3_sub(t[1], t[0]), v3_sub(t[2], t[0])), v3_sub(t[3], t[0]));
}

/* A random positively oriented tet with vertices in centre ± half, |6V| > 0.05·(2·half)³/8. */
static inline void rand_tet(test_rng *r, vec3 centre, double half, vec3 t[4]) {
  for (;;) {
    for (int k = 0; k < 4; ++k) t[k] = v3_add(centre, rand_v3(r, -half, half));
    double v = vol6(t);
    if (fabs(v) < 0.05 * half * half * half) continue;
    if (v < 0) {
      vec3 s = t[0];
      t[0] = t[1];
      t[1] = s;
    }
    return;
  }
}

/* A half-space a·x + b <= 0 with unit a. */
typedef struct {
  vec3 a;
  double b;
} hs;

/* The 4 half-spaces of tet t, built without the kernel's face table: face k is the plane
 * through the three vertices other than k, oriented so that vertex k is inside. */
static inline void tet_halfspaces(const vec3 t[4], hs out[4]) {
  for (int k = 0; k < 4; ++k) {
    vec3 p[3];
    int m = 0;
    for (int j = 0; j < 4; ++j)
      if (j != k) p[m++] = t[j];
    vec3 a = v3_normalize(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])));
    if (v3_dot(a, v3_sub(t[k], p[0])) > 0) a = v3_neg(a);
    out[k].a = a;
    out[k].b = -v3_dot(a, p[0]);
  }
}

/* The 3 edge half-spaces of triangle tri within its plane (the side containing the triangle). */
static inline void tri_halfspaces(const vec3 tri[3], hs out[3]) {
  vec3 nt = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
  for (int k = 0; k < 3; ++k) {
    vec3 p = tri[k], q = tri[(k + 1) % 3], o = tri[(k + 2) % 3];
    vec3 a = v3_normalize(v3_cross(v3_sub(q, p), nt));
    if (v3_dot(a, v3_sub(o, p)) > 0) a = v3_neg(a);
    out[k].a = a;
    out[k].b = -v3_dot(a, p);
  }
}

/* Largest violation of the half-spaces at x (<= 0 inside). */
static inline double hs_violation(const hs *h, int k, vec3 x) {
  double m = -INFINITY;
  for (int i = 0; i < k; ++i) {
    double s = v3_dot(h[i].a, x) + h[i].b;
    if (s > m) m = s;
  }
  return m;
}

/* Brute-force region on the plane {x : nrm·(x − o) = 0} (nrm unit) inside all half-spaces:
 * returns its area and writes its centroid (o when the area is 0). */
static inline double plane_region(vec3 o, vec3 nrm, const hs *h, int k, vec3 *centroid) {
  vec3 e1 = v3_normalize(v3_cross(nrm, fabs(nrm.x) < 0.6 ? v3(1, 0, 0) : v3(0, 1, 0)));
  vec3 e2 = v3_cross(nrm, e1);
  double A[16], B[16], C[16];
  int m = 0;
  *centroid = o;
  for (int i = 0; i < k; ++i) {
    double a = v3_dot(h[i].a, e1), b = v3_dot(h[i].a, e2), c = v3_dot(h[i].a, o) + h[i].b;
    double l = sqrt(a * a + b * b);
    if (l < 1e-12) { /* the constraint is parallel to the plane: all or nothing */
      if (c > 1e-12) return 0;
      continue;
    }
    A[m] = a / l, B[m] = b / l, C[m] = c / l;
    ++m;
  }
  double px[256], py[256];
  int np = 0;
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j) {
      double det = A[i] * B[j] - A[j] * B[i];
      if (fabs(det) < 1e-14) continue;
      double x = (-C[i] * B[j] + C[j] * B[i]) / det, y = (-A[i] * C[j] + A[j] * C[i]) / det;
      int ok = 1;
      for (int l = 0; l < m && ok; ++l) ok = A[l] * x + B[l] * y + C[l] <= 1e-12;
      if (ok && np < 256) px[np] = x, py[np] = y, ++np;
    }
  if (np < 3) return 0;
  double mx = 0, my = 0;
  for (int i = 0; i < np; ++i) mx += px[i] / np, my += py[i] / np;
  double ang[256];
  for (int i = 0; i < np; ++i) ang[i] = atan2(py[i] - my, px[i] - mx);
  for (int i = 1; i < np; ++i)
    for (int j = i; j > 0 && ang[j - 1] > ang[j]; --j) {
      double t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t;
      t = px[j]; px[j] = px[j - 1]; px[j - 1] = t;
      t = py[j]; py[j] = py[j - 1]; py[j - 1] = t;
    }
  double a2 = 0, cx = 0, cy = 0;
  for (int i = 0; i < np; ++i) {
    int j = (i + 1) % np;
    double w = px[i] * py[j] - px[j] * py[i];
    a2 += w;
    cx += (px[i] + px[j]) * w;
    cy += (py[i] + py[j]) * w;
  }
  if (fabs(a2) > 0) *centroid = v3_add(o, v3_add(v3_scale(e1, cx / (3 * a2)), v3_scale(e2, cy / (3 * a2))));
  return 0.5 * fabs(a2);
}

/* Independent filter: the angle between u and v is below 5π/8. */
static inline int aligned(vec3 u, vec3 v) {
  double nu = v3_norm(u), nv = v3_norm(v);
  if (nu == 0 || nv == 0) return 1; /* a zero vector normalises to zero: 0 > cos(5π/8) */
  return v3_dot(u, v) / (nu * nv) > cos(5 * PI / 8);
}

/* Checks every face shares: count, counter-clockwise convex winding about the normal, the
 * normal against the expected one, area and centroid against the reference. */
static inline void check_face_shape(const hydroFace *f, vec3 nhat, double area_ref, vec3 cen_ref, const char *what,
                             int trial) {
  cr_assert(f->nvert >= 3 && f->nvert <= HYDRO_MAX_POLY, "%s %d: %d vertices", what, trial, f->nvert);
  /* |normal| = 1 to rounding of one normalisation */
  cr_assert(fabs(v3_norm(f->normal) - 1) <= 1e-15, "%s %d: normal not unit", what, trial);
  /* the normal comes from the vertices: its error is ~ (vertex rounding ~1e-15)·perimeter/area,
   * so it is only checked tightly where the polygon is not a sliver */
  if (f->area > 1e-4)
    cr_assert(v3_max_abs(v3_sub(f->normal, nhat)) <= 1e-9, "%s %d: normal off by %g", what, trial,
              v3_max_abs(v3_sub(f->normal, nhat)));
  else
    cr_assert(v3_dot(f->normal, nhat) > 0, "%s %d: sliver normal flipped", what, trial);
  for (int i = 0; i < f->nvert; ++i) {
    vec3 p = f->vert[(i + f->nvert - 1) % f->nvert], c = f->vert[i], q = f->vert[(i + 1) % f->nvert];
    /* convex and counter-clockwise: each turn is non-negative about the normal; collinear
     * clipping vertices give turns of rounding size (~1e-16 for O(1) edges) */
    cr_assert(v3_dot(v3_cross(v3_sub(c, p), v3_sub(q, c)), nhat) >= -1e-13, "%s %d: turn %d negative", what,
              trial, i);
  }
  /* reference vertices accepted within 1e-12 of the constraints, perimeter < 10: area error
   * < 1e-11; the kernel's own rounding is ~1e-15; 1e-9 leaves margin */
  cr_assert(fabs(f->area - area_ref) <= 1e-9, "%s %d: area %.17g vs reference %.17g", what, trial, f->area,
            area_ref);
  /* centroid error ~ area error·perimeter/area: < 1e-10/1e-2 where checked */
  if (area_ref > 1e-2)
    cr_assert(v3_max_abs(v3_sub(f->centroid, cen_ref)) <= 1e-8, "%s %d: centroid off by %g", what, trial,
              v3_max_abs(v3_sub(f->centroid, cen_ref)));
}

/* A random rotation: a normalised quaternion of uniform components (not uniform over
 * rotations, which the tests that pose pairs with it do not need). */
static inline quat rand_rotation(test_rng *r) {
  return quat_normalize(quat_make(test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1),
                                  test_rng_uniform(r, -1, 1)));
}

/* The tet with vertices 0, s·x, s·y, s·z (positively oriented for s > 0). */
static inline void std_tet(vec3 t[4], double s) {
  t[0] = v3(0, 0, 0), t[1] = v3(s, 0, 0), t[2] = v3(0, s, 0), t[3] = v3(0, 0, s);
}

#endif
