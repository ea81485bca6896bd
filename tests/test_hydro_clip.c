/* Narrow-phase building blocks (kernels/hydro/slice.h, clip.h, polygon.h): the marching-tets
 * slicing table (mesh_recipes §5), Sutherland–Hodgman clipping and duplicate removal
 * (drake_algorithms §2.1), and the polygon area/normal/centroid and centroid fan (§2.5).
 * References are written independently here (Newell normals, barycentric solves, the shoelace
 * centroid, half-plane vertex enumeration). Coordinates are O(1), so "a few hundred ulps of 1"
 * tolerances are stated as absolute numbers with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hydro/clip.h"
#include "kernels/hydro/polygon.h"
#include "kernels/hydro/slice.h"
#include "support/support.h"

#define PI 3.14159265358979323846

/* ---- helpers -------------------------------------------------------------------------------- */

static vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

static double vol6(const vec3 t[4]) {
  return v3_dot(v3_cross(v3_sub(t[1], t[0]), v3_sub(t[2], t[0])), v3_sub(t[3], t[0]));
}

/* A random positively oriented tet in [-1, 1]³, not too flat (|6V| > 0.05). */
static void rand_tet(test_rng *r, vec3 t[4]) {
  for (;;) {
    for (int k = 0; k < 4; ++k) t[k] = rand_v3(r, -1, 1);
    double v = vol6(t);
    if (fabs(v) < 0.05) continue;
    if (v < 0) {
      vec3 s = t[0];
      t[0] = t[1];
      t[1] = s;
    }
    return;
  }
}

/* Solve x.x·a + x.y·b + x.z·c = rhs (columns a, b, c; Cramer). */
static vec3 solve3(vec3 a, vec3 b, vec3 c, vec3 rhs) {
  double det = v3_dot(a, v3_cross(b, c));
  vec3 x;
  x.x = v3_dot(rhs, v3_cross(b, c)) / det;
  x.y = v3_dot(a, v3_cross(rhs, c)) / det;
  x.z = v3_dot(a, v3_cross(b, rhs)) / det;
  return x;
}

/* Barycentric coordinates of p in tet t. */
static void bary(const vec3 t[4], vec3 p, double l[4]) {
  /* p − t0 = l1 e1 + l2 e2 + l3 e3 */
  vec3 s = solve3(v3_sub(t[1], t[0]), v3_sub(t[2], t[0]), v3_sub(t[3], t[0]), v3_sub(p, t[0]));
  l[1] = s.x;
  l[2] = s.y;
  l[3] = s.z;
  l[0] = 1 - s.x - s.y - s.z;
}

/* Gradient G of the affine function h with h(t_k) = s_k. */
static vec3 affine_grad(const vec3 t[4], const double s[4]) {
  /* G·e_k = s_k − s_0 for the edges e_k = t_k − t_0: the e_k are the rows, so solve with the
   * transposed matrix, whose columns are (e1.x, e2.x, e3.x), ... */
  vec3 e1 = v3_sub(t[1], t[0]), e2 = v3_sub(t[2], t[0]), e3 = v3_sub(t[3], t[0]);
  return solve3(v3(e1.x, e2.x, e3.x), v3(e1.y, e2.y, e3.y), v3(e1.z, e2.z, e3.z),
                v3(s[1] - s[0], s[2] - s[0], s[3] - s[0]));
}

/* Newell normal (twice the vector area), independent of the fan rule. */
static vec3 newell(const vec3 *v, int n) {
  vec3 s = v3_zero();
  for (int i = 0; i < n; ++i) s = v3_add(s, v3_cross(v[i], v[(i + 1) % n]));
  return s;
}

/* Area and centroid of a planar polygon in the z = 0 plane by the shoelace formulas. */
static double shoelace(const vec3 *v, int n, double *cx, double *cy) {
  double a = 0, x = 0, y = 0;
  for (int i = 0; i < n; ++i) {
    vec3 p = v[i], q = v[(i + 1) % n];
    double w = p.x * q.y - q.x * p.y;
    a += w;
    x += (p.x + q.x) * w;
    y += (p.y + q.y) * w;
  }
  a *= 0.5;
  if (cx) *cx = x / (6 * a);
  if (cy) *cy = y / (6 * a);
  return a;
}

/* Area of {p in the plane z = 0 : A_k p.x + B_k p.y + C_k <= 0 for all k} by enumerating the
 * pairwise line intersections that satisfy every constraint (to 1e-12) and sorting them by
 * angle: a different algorithm from Sutherland–Hodgman. Constraints have unit (A, B). */
static double halfplane_area(const double *A, const double *B, const double *C, int k) {
  double px[256], py[256];
  int m = 0;
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j) {
      double det = A[i] * B[j] - A[j] * B[i];
      if (fabs(det) < 1e-14) continue;
      double x = (-C[i] * B[j] + C[j] * B[i]) / det, y = (-A[i] * C[j] + A[j] * C[i]) / det;
      int ok = 1;
      for (int l = 0; l < k && ok; ++l) ok = A[l] * x + B[l] * y + C[l] <= 1e-12;
      if (ok && m < 256) {
        px[m] = x;
        py[m] = y;
        ++m;
      }
    }
  if (m < 3) return 0;
  double mx = 0, my = 0;
  for (int i = 0; i < m; ++i) mx += px[i] / m, my += py[i] / m;
  double ang[256];
  for (int i = 0; i < m; ++i) ang[i] = atan2(py[i] - my, px[i] - mx);
  for (int i = 1; i < m; ++i) /* insertion sort by angle */
    for (int j = i; j > 0 && ang[j - 1] > ang[j]; --j) {
      double t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t;
      t = px[j]; px[j] = px[j - 1]; px[j - 1] = t;
      t = py[j]; py[j] = py[j - 1]; py[j - 1] = t;
    }
  double a = 0;
  for (int i = 0; i < m; ++i) a += px[i] * py[(i + 1) % m] - px[(i + 1) % m] * py[i];
  return 0.5 * fabs(a);
}

/* ---- slicing table -------------------------------------------------------------------------- */

/* All 16 sign codes, on the reference tet and on random positive tets: the count of cut points,
 * the points on the plane and on their tet edges, the face of each polygon edge, the
 * interpolated scalar, and the orientation (right-hand normal along the plane normal). */
Test(slice, all_sign_codes) {
  test_rng r = {42};
  for (int trial = 0; trial < 200; ++trial) {
    vec3 t[4];
    if (trial == 0) {
      t[0] = v3(0, 0, 0), t[1] = v3(1, 0, 0), t[2] = v3(0, 1, 0), t[3] = v3(0, 0, 1);
    } else {
      rand_tet(&r, t);
    }
    for (int code = 0; code < 16; ++code) {
      double s[4], q[4];
      for (int k = 0; k < 4; ++k) {
        double mag = test_rng_uniform(&r, 0.1, 1);
        s[k] = (code >> k) & 1 ? mag : -mag;
        q[k] = test_rng_uniform(&r, -5, 5);
      }
      vec3 out[4];
      double out_q[4];
      int face[4];
      int n = hydro_slice_tet(t, s, q, out, out_q, face);
      int bits = __builtin_popcount((unsigned)code);
      int expect = (bits == 0 || bits == 4) ? 0 : (bits == 2 ? 4 : 3);
      cr_assert_eq(n, expect, "code %d: %d points, expected %d", code, n, expect);
      cr_assert_eq(hydro_slice_code(s), code);
      if (n == 0) continue;
      vec3 G = affine_grad(t, s);
      for (int i = 0; i < n; ++i) {
        double l[4], h = 0, qi = 0;
        bary(t, out[i], l);
        for (int k = 0; k < 4; ++k) h += l[k] * s[k], qi += l[k] * q[k];
        /* O(1) quantities through an interpolation and a 3x3 solve of a tet with |6V| > 0.05:
         * 1e-12 is ~5000 ulps, ample for the conditioning of such tets */
        cr_assert(fabs(h) <= 1e-12, "code %d point %d off the plane by %g", code, i, h);
        cr_assert(fabs(out_q[i] - qi) <= 1e-11, "code %d: q interpolation %g vs %g", code, out_q[i], qi);
        int zeros = 0;
        for (int k = 0; k < 4; ++k) {
          cr_assert(l[k] >= -1e-12, "code %d: point outside the tet", code);
          zeros += fabs(l[k]) <= 1e-12;
        }
        cr_assert(zeros >= 2, "code %d: a cut point lies on a tet edge (two zero coordinates)", code);
        /* polygon edge i lies on face[i]: both endpoints have zero coordinate face[i] */
        double l2[4];
        bary(t, out[(i + 1) % n], l2);
        cr_assert(face[i] >= 0 && face[i] < 4);
        cr_assert(fabs(l[face[i]]) <= 1e-12 && fabs(l2[face[i]]) <= 1e-12,
                  "code %d: polygon edge %d not on face %d", code, i, face[i]);
      }
      vec3 nw = newell(out, n);
      cr_assert(v3_dot(nw, G) > 0, "code %d: polygon normal against the plane normal", code);
      /* the slice of a tet by a generic plane is a proper polygon: the Newell normal is parallel
       * to G (cross product tiny relative to the product of the norms) */
      cr_assert(v3_norm(v3_cross(nw, G)) <= 1e-9 * v3_norm(nw) * v3_norm(G), "code %d: not planar", code);
    }
  }
}

/* A negatively oriented tet reverses the winding (documented in slice.h). */
Test(slice, negative_tet_reverses_winding) {
  vec3 t[4] = {{1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0, 0, 1}}; /* vertices 0 and 1 swapped */
  double s[4] = {-0.5, -0.5, 0.5, 0.5};
  vec3 out[4];
  int n = hydro_slice_tet(t, s, NULL, out, NULL, NULL);
  cr_assert_eq(n, 4);
  cr_assert(v3_dot(newell(out, n), affine_grad(t, s)) < 0);
}

/* Heights exactly zero count as "below": a vertex on the plane gives coincident cut points. */
Test(slice, vertex_on_plane) {
  vec3 t[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double s[4] = {0, 1, 1, 1};
  vec3 out[4];
  int n = hydro_slice_tet(t, s, NULL, out, NULL, NULL);
  cr_assert_eq(n, 3);
  for (int i = 0; i < 3; ++i) cr_assert(out[i].x == 0 && out[i].y == 0 && out[i].z == 0, "t = 0 exactly");
  cr_assert_eq(hydro_remove_near_duplicates(out, NULL, n), 1);
  double below[4] = {0, -1, -1, -1};
  cr_assert_eq(hydro_slice_tet(t, below, NULL, out, NULL, NULL), 0, "code 0000");
}

/* ---- clipping ------------------------------------------------------------------------------- */

static void unit_square(vec3 *v) {
  v[0] = v3(0, 0, 0), v[1] = v3(1, 0, 0), v[2] = v3(1, 1, 0), v[3] = v3(0, 1, 0);
}

Test(clip, square_by_halfplane) {
  vec3 sq[4], out[HYDRO_CLIP_CAP];
  unit_square(sq);
  int n = hydro_clip_halfspace(sq, 4, v3(1, 0, 0), v3(0.5, 0, 0), out, HYDRO_CLIP_CAP);
  cr_assert_eq(n, 4);
  /* dyadic coordinates: the crossing points and the shoelace area are exact */
  cr_assert_eq(shoelace(out, n, NULL, NULL), 0.5, "winding kept (positive area) and area 1/2");
  for (int i = 0; i < n; ++i) cr_assert(out[i].x <= 0.5);
  /* all inside: unchanged, same order */
  n = hydro_clip_halfspace(sq, 4, v3(1, 0, 0), v3(2, 0, 0), out, HYDRO_CLIP_CAP);
  cr_assert_eq(n, 4);
  for (int i = 0; i < 4; ++i) cr_assert(out[i].x == sq[i].x && out[i].y == sq[i].y);
  /* all outside */
  cr_assert_eq(hydro_clip_halfspace(sq, 4, v3(1, 0, 0), v3(-1, 0, 0), out, HYDRO_CLIP_CAP), 0);
  /* a diagonal cut keeps a triangle of area 1/2 */
  n = hydro_clip_halfspace(sq, 4, v3(1, 1, 0), v3(0.5, 0.5, 0), out, HYDRO_CLIP_CAP);
  cr_assert(fabs(shoelace(out, n, NULL, NULL) - 0.5) <= 1e-15); /* a few roundings of O(1) */
  /* capacity exceeded is reported, not overrun */
  cr_assert_eq(hydro_clip_halfspace(sq, 4, v3(1, 0, 0), v3(0.5, 0, 0), out, 3), -1);
}

/* The crossing point wa·A + (1 − wa)·B with wa = s_B/(s_B − s_A) lies on the boundary. */
Test(clip, crossing_point_on_boundary) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    vec3 tri[3] = {rand_v3(&r, -1, 1), rand_v3(&r, -1, 1), rand_v3(&r, -1, 1)};
    vec3 nrm = v3_normalize(rand_v3(&r, -1, 1)), pt = rand_v3(&r, -0.3, 0.3), out[HYDRO_CLIP_CAP];
    int n = hydro_clip_halfspace(tri, 3, nrm, pt, out, HYDRO_CLIP_CAP);
    cr_assert(n >= 0 && n <= 4, "a triangle clipped by one half-space has at most 4 vertices");
    for (int i = 0; i < n; ++i) {
      double dist = v3_dot(nrm, v3_sub(out[i], pt));
      /* kept vertices are inside exactly; crossings are on the boundary to a few ulps of O(1) */
      cr_assert(dist <= 1e-15, "vertex outside by %g", dist);
    }
  }
}

/* Random convex polygons (regular n-gons, random centre/radius/phase in z = 0) clipped by random
 * half-planes: the area agrees with the half-plane vertex enumeration. */
Test(clip, random_polygons_match_halfplane_reference) {
  test_rng r = {42};
  int nonempty = 0;
  for (int trial = 0; trial < 500; ++trial) {
    int nv = 3 + (int)test_rng_uniform(&r, 0, 6);
    double R = test_rng_uniform(&r, 0.2, 1), ph = test_rng_uniform(&r, 0, 2 * PI);
    vec3 c = v3(test_rng_uniform(&r, -0.5, 0.5), test_rng_uniform(&r, -0.5, 0.5), 0);
    vec3 poly[HYDRO_CLIP_CAP], out[HYDRO_CLIP_CAP];
    double A[16], B[16], C[16];
    for (int i = 0; i < nv; ++i) {
      double a = ph + 2 * PI * i / nv;
      poly[i] = v3(c.x + R * cos(a), c.y + R * sin(a), 0);
    }
    for (int i = 0; i < nv; ++i) { /* edge i: outward normal (dy, −dx)/len for a CCW polygon */
      vec3 p = poly[i], q = poly[(i + 1) % nv];
      double dx = q.x - p.x, dy = q.y - p.y, l = sqrt(dx * dx + dy * dy);
      A[i] = dy / l, B[i] = -dx / l, C[i] = -(A[i] * p.x + B[i] * p.y);
    }
    double th = test_rng_uniform(&r, 0, 2 * PI), off = test_rng_uniform(&r, -1, 1);
    vec3 nrm = v3(cos(th), sin(th), 0);
    A[nv] = nrm.x, B[nv] = nrm.y, C[nv] = -off;
    int n = hydro_clip_halfspace(poly, nv, nrm, v3_scale(nrm, off), out, HYDRO_CLIP_CAP);
    cr_assert(n >= 0 && n <= nv + 1);
    double got = n >= 3 ? shoelace(out, n, NULL, NULL) : 0;
    double ref = halfplane_area(A, B, C, nv + 1);
    /* reference vertices accepted within 1e-12 of the constraints, perimeter <= 2π: the area
     * error is below 1e-11; 1e-10 leaves margin */
    cr_assert(fabs(got - ref) <= 1e-10, "trial %d: area %.17g vs reference %.17g", trial, got, ref);
    cr_assert(got >= -1e-15, "winding preserved (non-negative shoelace area)");
    nonempty += ref > 1e-3;
  }
  cr_assert(nonempty > 100, "the test exercised real clips (%d)", nonempty);
}

/* ---- tet clipping --------------------------------------------------------------------------- */

/* Inverted tets clip to their geometric interior (documented deviation); flat tets to nothing. */
Test(clip, by_tet_orientation_independent) {
  vec3 t[4] = {{0, 0, -1}, {2, 0, 1}, {0, 2, 1}, {0, 0, 1}};
  if (vol6(t) < 0) { vec3 s = t[0]; t[0] = t[1]; t[1] = s; }
  vec3 inv[4] = {t[1], t[0], t[2], t[3]};
  vec3 p1[HYDRO_CLIP_CAP], p2[HYDRO_CLIP_CAP];
  for (int i = 0; i < 4; ++i) p1[i] = p2[i] = v3((i == 1 || i == 2) ? 3 : -1, i >= 2 ? 3 : -1, 0);
  int n1 = hydro_clip_by_tet(p1, 4, t), n2 = hydro_clip_by_tet(p2, 4, inv);
  cr_assert(n1 >= 3 && n1 == n2);
  /* the z = 0 section of this tet is the triangle (0,0),(1,0),(0,1): area 1/2, to rounding */
  cr_assert(fabs(fabs(shoelace(p1, n1, NULL, NULL)) - 0.5) <= 1e-15);
  cr_assert(fabs(fabs(shoelace(p2, n2, NULL, NULL)) - 0.5) <= 1e-15);
  vec3 flat[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  vec3 p3[HYDRO_CLIP_CAP];
  unit_square(p3);
  cr_assert_eq(hydro_clip_by_tet(p3, 4, flat), 0, "a flat tet has no interior");
}

/* ---- duplicate removal ---------------------------------------------------------------------- */

Test(clip, remove_near_duplicates_semantics) {
  vec3 v[8];
  double q[8];
  /* threshold: squared distance < 1e-28, i.e. distance < 1e-14 (absolute) */
  v[0] = v3(0, 0, 0);
  v[1] = v3(0.9e-14, 0, 0); /* near v0: dropped */
  v[2] = v3(1.8e-14, 0, 0); /* compared with the last KEPT (v0): 1.8e-14 apart, kept */
  v[3] = v3(1, 0, 0);
  v[4] = v3(1, 1.1e-14, 0); /* 1.1e-14 from v3: kept */
  v[5] = v3(0, 1, 0);
  v[6] = v3(0.5e-14, 0, 0); /* near the first: popped at the end */
  for (int i = 0; i < 7; ++i) q[i] = i;
  int n = hydro_remove_near_duplicates(v, q, 7);
  cr_assert_eq(n, 5);
  double expect_q[5] = {0, 2, 3, 4, 5};
  for (int i = 0; i < n; ++i) cr_assert_eq(q[i], expect_q[i], "scalar %d carried", i);
  cr_assert_eq(v[1].x, 1.8e-14);

  /* only one wrap-around pop, and only with >= 3 vertices left */
  vec3 w[4] = {{0, 0, 0}, {1, 0, 0}, {0.9e-14, 0, 0}, {-0.9e-14, 0, 0}};
  /* w2 and w3 are 1.8e-14 apart (both kept), w3 is near w0 (popped), then w2, also near w0,
   * stays: a single pop */
  cr_assert_eq(hydro_remove_near_duplicates(w, NULL, 4), 3);
  vec3 u[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1e-15, 0}, {0, 2e-15, 0}};
  /* u3 merges into u2 (std::unique), then u2 is near u0 and popped: a segment remains */
  cr_assert_eq(hydro_remove_near_duplicates(u, NULL, 4), 2);
  vec3 two[2] = {{0, 0, 0}, {1e-15, 0, 0}};
  cr_assert_eq(hydro_remove_near_duplicates(two, NULL, 2), 1);
  vec3 pair[2] = {{0, 0, 0}, {1, 0, 0}};
  cr_assert_eq(hydro_remove_near_duplicates(pair, NULL, 2), 2);
  cr_assert_eq(hydro_remove_near_duplicates(pair, NULL, 0), 0);
}

/* Drake's loop as written, each vertex compared with the last kept one: the reference for the
 * kernel's early answer where no consecutive pair is near. */
static int dedup_loop(vec3 *v, double *q, int n) {
  int m = 0;
  for (int i = 0; i < n; ++i)
    if (m == 0 || !(v3_norm2(v3_sub(v[i], v[m - 1])) < HYDRO_DUP_DIST2)) {
      v[m] = v[i];
      if (q) q[m] = q[i];
      ++m;
    }
  if (m >= 3 && v3_norm2(v3_sub(v[0], v[m - 1])) < HYDRO_DUP_DIST2) --m;
  return m;
}

/* Random polygons of 0 to 9 vertices, some vertices moved to within 0.5e-14 … 2e-14 of the one
 * before them or of the first (either side of the threshold), some NaN: the kernel keeps the
 * same vertices and scalars as the loop, in the same order. Both paths must occur. */
Test(clip, remove_near_duplicates_is_the_loop) {
  test_rng r = {404};
  int early = 0, dropped = 0;
  for (int rep = 0; rep < 20000; ++rep) {
    vec3 a[HYDRO_CLIP_CAP] = {{0, 0, 0}}, b[HYDRO_CLIP_CAP];
    double qa[HYDRO_CLIP_CAP] = {0}, qb[HYDRO_CLIP_CAP];
    const int n = rep % 10;
    for (int i = 0; i < n; ++i) {
      a[i] = v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1));
      const double d = test_rng_uniform(&r, 0.5e-14, 2e-14);
      if (i > 0 && test_rng_uniform(&r, 0, 1) < 0.15) a[i] = v3_add(a[i - 1], v3(d, 0, 0));
      if (i > 1 && i == n - 1 && test_rng_uniform(&r, 0, 1) < 0.2) a[i] = v3_add(a[0], v3(0, d, 0));
      if (test_rng_uniform(&r, 0, 1) < 0.01) a[i].y = NAN;
      qa[i] = i;
    }
    memcpy(b, a, sizeof a), memcpy(qb, qa, sizeof qa);
    const int want = dedup_loop(b, qb, n), got = hydro_remove_near_duplicates(a, qa, n);
    cr_assert_eq(got, want, "rep %d (n %d): %d kept, the loop keeps %d", rep, n, got, want);
    for (int i = 0; i < got; ++i)
      cr_assert(memcmp(&a[i], &b[i], sizeof a[i]) == 0 && qa[i] == qb[i], "rep %d: vertex %d differs", rep, i);
    early += n >= 2 && got == n;
    dropped += got < n;
  }
  cr_assert(early > 1000 && dropped > 1000, "both paths: kept all %d, dropped some %d", early, dropped);
}

/* ---- polygon area, normal, centroid; the fan ------------------------------------------------ */

static hydroFace face_from(const vec3 *v, int n, vec3 g, double c) {
  hydroFace f;
  f.nvert = n;
  for (int i = 0; i < n; ++i) {
    f.vert[i] = v[i];
    f.vert_p[i] = hydro_field_eval(g, c, v[i]);
  }
  f.grad_M = g;
  f.normal = v3(0, 0, 0);
  hydro_polygon_finish(&f);
  return f;
}

Test(polygon, unit_square) {
  vec3 sq[4];
  unit_square(sq);
  hydroFace f = face_from(sq, 4, v3(1, 2, 3), 4);
  /* dyadic inputs: every operation is exact */
  cr_assert_eq(f.area, 1.0);
  cr_assert(f.normal.x == 0 && f.normal.y == 0 && f.normal.z == 1);
  cr_assert(f.centroid.x == 0.5 && f.centroid.y == 0.5 && f.centroid.z == 0);
  cr_assert_eq(f.p0, 1 * 0.5 + 2 * 0.5 + 4);
  /* reversed: same area and centroid, normal −z */
  vec3 rev[4] = {sq[0], sq[3], sq[2], sq[1]};
  hydroFace g = face_from(rev, 4, v3(1, 2, 3), 4);
  cr_assert(g.area == 1.0 && g.normal.z == -1 && g.centroid.x == 0.5 && g.centroid.y == 0.5);
}

/* A regular hexagon of radius R centred at C in a random plane: area 3√3/2 R², centroid C,
 * normal along the plane's normal; a random convex polygon in z = 0 against the shoelace
 * centroid. */
Test(polygon, hexagon_and_random_convex) {
  test_rng r = {42};
  for (int trial = 0; trial < 200; ++trial) {
    vec3 nrm = v3_normalize(rand_v3(&r, -1, 1));
    vec3 e1 = v3_normalize(v3_cross(nrm, fabs(nrm.x) < 0.6 ? v3(1, 0, 0) : v3(0, 1, 0)));
    vec3 e2 = v3_cross(nrm, e1);
    vec3 C = rand_v3(&r, -2, 2);
    double R = test_rng_uniform(&r, 0.1, 1), ph = test_rng_uniform(&r, 0, 2 * PI);
    vec3 hex[6];
    for (int i = 0; i < 6; ++i) {
      double a = ph + PI * i / 3;
      hex[i] = v3_add(C, v3_add(v3_scale(e1, R * cos(a)), v3_scale(e2, R * sin(a))));
    }
    hydroFace f = face_from(hex, 6, v3(0.3, -1, 2), 0.5);
    /* O(1) values through trig, a basis and a few dozen flops: 1e-14 is ~50 ulps */
    cr_assert(fabs(f.area - 1.5 * sqrt(3.0) * R * R) <= 1e-14, "hexagon area %.17g", f.area);
    cr_assert(v3_max_abs(v3_sub(f.centroid, C)) <= 1e-14);
    cr_assert(v3_max_abs(v3_sub(f.normal, nrm)) <= 1e-14);
    cr_assert(fabs(f.p0 - hydro_field_eval(v3(0.3, -1, 2), 0.5, C)) <= 1e-13); /* |g||C| ~ 10 */

    /* random convex polygon: sorted random angles on an ellipse */
    int n = 3 + (int)test_rng_uniform(&r, 0, 6);
    double ang[8];
    for (int i = 0; i < n; ++i) ang[i] = test_rng_uniform(&r, 0, 2 * PI);
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && ang[j - 1] > ang[j]; --j) { double t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t; }
    vec3 poly[8];
    for (int i = 0; i < n; ++i) poly[i] = v3(0.3 + cos(ang[i]), -0.2 + 0.5 * sin(ang[i]), 0);
    hydroFace g = face_from(poly, n, v3(1, 1, 1), 0);
    double cx, cy, a = shoelace(poly, n, &cx, &cy);
    if (a < 1e-3) continue; /* nearly degenerate draw: centroid ill-conditioned, skip */
    cr_assert(fabs(g.area - a) <= 1e-14);
    /* centroid error ~ ulps·perimeter/area, perimeter < 7 and area > 1e-3 */
    cr_assert(fabs(g.centroid.x - cx) <= 1e-11 && fabs(g.centroid.y - cy) <= 1e-11,
              "centroid (%g, %g) vs (%g, %g)", g.centroid.x, g.centroid.y, cx, cy);
    cr_assert(g.normal.z >= 1 - 2 * ISO_REAL_EPS); /* (0, 0, s)/|s|: one ulp at most */
  }
}

/* Collinear polygon: zero area, vertex-average centroid, the preset normal kept. */
Test(polygon, degenerate_collinear) {
  vec3 v[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  hydroFace f;
  f.nvert = 3;
  for (int i = 0; i < 3; ++i) f.vert[i] = v[i], f.vert_p[i] = 0;
  f.grad_M = v3_zero();
  f.normal = v3(0, 1, 0);
  hydro_polygon_finish(&f);
  cr_assert(f.area == 0 && f.normal.y == 1 && f.centroid.x == 1 && f.centroid.y == 0);
}

/* The centroid fan: N triangles (v_k, v_k+1, c) whose areas sum to the polygon's, counter-
 * clockwise about the normal, with the linear field at their corners. */
Test(polygon, fan_matches_polygon) {
  test_rng r = {42};
  for (int trial = 0; trial < 200; ++trial) {
    int n = 3 + (int)test_rng_uniform(&r, 0, 6);
    vec3 nrm = v3_normalize(rand_v3(&r, -1, 1));
    vec3 e1 = v3_normalize(v3_cross(nrm, fabs(nrm.x) < 0.6 ? v3(1, 0, 0) : v3(0, 1, 0)));
    vec3 e2 = v3_cross(nrm, e1), C = rand_v3(&r, -1, 1);
    vec3 poly[8];
    for (int i = 0; i < n; ++i) {
      double a = 2 * PI * (i + test_rng_uniform(&r, 0.1, 0.9)) / n;
      poly[i] = v3_add(C, v3_add(v3_scale(e1, cos(a)), v3_scale(e2, 0.7 * sin(a))));
    }
    vec3 g = rand_v3(&r, -3, 3);
    double c = test_rng_uniform(&r, -1, 1);
    hydroFace f = face_from(poly, n, g, c);
    vec3 tri[HYDRO_MAX_POLY][3];
    double tp[HYDRO_MAX_POLY][3];
    int m = hydro_face_fan(&f, tri, tp);
    cr_assert_eq(m, n);
    double sum = 0;
    for (int k = 0; k < m; ++k) {
      vec3 cr = v3_cross(v3_sub(tri[k][1], tri[k][0]), v3_sub(tri[k][2], tri[k][0]));
      cr_assert(v3_dot(cr, f.normal) > 0, "fan triangle %d counter-clockwise about the normal", k);
      sum += 0.5 * v3_norm(cr);
      cr_assert(tri[k][2].x == f.centroid.x && tri[k][2].y == f.centroid.y && tri[k][2].z == f.centroid.z);
      for (int j = 0; j < 3; ++j) /* |g||x| ~ 10: 1e-13 is ~50 ulps of that */
        cr_assert(fabs(tp[k][j] - hydro_field_eval(g, c, tri[k][j])) <= 1e-13, "fan pressure (%d,%d)", k, j);
    }
    cr_assert(fabs(sum - f.area) <= 1e-14 * (1 + f.area), "fan area %.17g vs %.17g", sum, f.area);
    cr_assert(tri[0][0].x == poly[0].x && tri[n - 1][1].x == poly[0].x, "fan closes on v0");
  }
}

/* Orientation helpers: orient reverses against the expected normal and keeps v0; reduce drops
 * the vertex with the smallest triangle. */
Test(polygon, orient_and_reduce) {
  vec3 v[5] = {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}, {0.5, -1e-9, 0}};
  double q[5] = {0, 1, 2, 3, 4};
  hydro_polygon_orient(v, q, 5, v3(0, 0, 1));
  cr_assert(v[0].x == 0 && v[1].x == 0.5 && v[2].x == 1 && v[2].y == 0 && q[1] == 4 && q[4] == 1);
  cr_assert(newell(v, 5).z > 0);
  int n = hydro_polygon_reduce(v, q, 5, 4);
  cr_assert_eq(n, 4);
  for (int i = 0; i < 4; ++i) cr_assert(q[i] != 4, "the near-collinear vertex went");
}

/* A face's fan formed once for its orientation and its moments (hydro_polygon_orient_fan, then
 * hydro_polygon_finish_fan, as the narrow phase emits a face) gives the bytes of orienting and
 * finishing separately: convex polygons of 3 to 8 vertices, wound either way about the
 * expected normal (so half are reversed and their fan formed again), collinear ones included.
 * Passing the fan of the polygon before its reversal fails it. */
Test(polygon, fan_formed_once_gives_the_same_bytes) {
  test_rng r = {8080};
  int reversed = 0;
  for (int rep = 0; rep < 3000; ++rep) {
    const int n = 3 + rep % 6;
    const vec3 u = v3_normalize(rand_v3(&r, -1, 1));
    const vec3 e1 = v3_normalize(v3_cross(u, v3(0.3, -0.7, 0.64))), e2 = v3_cross(u, e1);
    const vec3 o = rand_v3(&r, -2, 2);
    const double rad = test_rng_uniform(&r, 1e-4, 1), turn = rep % 2 ? 1 : -1;
    hydroFace a, b;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    vec3 pa[8], pb[8];
    double qa[8], qb[8];
    for (int i = 0; i < n; ++i) {
      const double t = turn * (6.283185307179586 * i / n + 0.3 * test_rng_uniform(&r, 0, 1) / n);
      const double s = rep % 37 == 0 ? 0 : sin(t); /* collinear: every vertex on one line */
      pa[i] = pb[i] = v3_add(o, v3_add(v3_scale(e1, rad * cos(t)), v3_scale(e2, rad * s)));
      qa[i] = qb[i] = i;
    }
    vec3 fan[HYDRO_MAX_POLY];
    const vec3 sum_c = hydro_polygon_orient_fan(pa, qa, n, u, fan);
    hydro_polygon_orient(pb, qb, n, u);
    reversed += qa[1] != 1; /* reversed: 0, n − 1, ..., 1 */
    a.nvert = b.nvert = n;
    for (int i = 0; i < n; ++i) a.vert[i] = pa[i], b.vert[i] = pb[i], a.vert_p[i] = qa[i], b.vert_p[i] = qb[i];
    a.grad_M = b.grad_M = v3(1, 2, 3);
    a.normal = b.normal = u;
    hydro_polygon_finish_fan(&a, fan, sum_c);
    hydro_polygon_finish(&b);
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "rep %d (n %d): the faces differ", rep, n);
  }
  cr_assert_gt(reversed, 1000, "half the polygons must be reversed (%d)", reversed);
}
