/* Helpers shared by the point-contact pair tests (tests/test_point_pair_*.c,
 * tests/test_point_gjk.c): expectations on a contact, random rotations and poses, poses by
 * axis-angle or translation, a rigid motion applied to a whole scene, test convex hulls, and the
 * signed distance of a shape's surface at a point. Shapes are O(1) (sizes 0.2–2 m), so tolerances
 * are absolute. Header-only (static inline). */
#ifndef ISO_TESTS_POINT_PAIR_CASES_H
#define ISO_TESTS_POINT_PAIR_CASES_H

#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/pair.h"
#include "support/rng.h"
#include "support/support.h"

#define PI 3.14159265358979323846
/* Round-off of a few dozen operations on O(1) numbers (posing, normalising). */
#define TOL 1e-13

static inline void expect_v3(vec3 a, vec3 b, double tol, const char *what) {
  cr_expect(fabs(a.x - b.x) <= tol && fabs(a.y - b.y) <= tol && fabs(a.z - b.z) <= tol,
            "%s: (%.17g %.17g %.17g) != (%.17g %.17g %.17g)", what, a.x, a.y, a.z, b.x, b.y, b.z);
}

static inline void expect_contact(const pointContact *c, double depth, vec3 n, vec3 pa, vec3 pb, double tol) {
  cr_expect(fabs(c->depth - depth) <= tol, "depth %.17g != %.17g", c->depth, depth);
  expect_v3(c->nhat_BA, n, tol, "nhat_BA");
  expect_v3(c->p_WCa, pa, tol, "p_WCa");
  expect_v3(c->p_WCb, pb, tol, "p_WCb");
}

static inline quat rand_quat(test_rng *r) {
  for (;;) {
    vec3 v = rand_v3(r, -1, 1);
    double w = test_rng_uniform(r, -1, 1);
    double n = sqrt(w * w + v3_norm2(v));
    if (n > 0.1 && n <= 1) return quat_make(w / n, v.x / n, v.y / n, v.z / n);
  }
}

static inline xform pose(vec3 axis, double angle, vec3 p) { return xf_make(quat_from_axis_angle(axis, angle), p); }

static inline xform at(double x, double y, double z) { return xf_make(quat_identity(), v3(x, y, z)); }

/* The pose X of a frame given in a world W' that is itself posed by M in W: X_W = M·X. */
static inline xform moved(xform M, xform X) { return xf_mul(M, X); }

/* Transforms a contact computed in a world W' to W, W' posed by M in W. */
static inline pointContact contact_moved(xform M, pointContact c) {
  c.nhat_BA = xf_vector(M, c.nhat_BA);
  c.p_WCa = xf_point(M, c.p_WCa);
  c.p_WCb = xf_point(M, c.p_WCb);
  return c;
}

/* ---- test convex hulls ------------------------------------------------------------------------ */

/* Box 0.8 x 0.6 x 0.4 as a hull (8 vertices) plus an interior point, which must not matter. */
static const real kBoxHull[27] = {-0.4, -0.3, -0.2, 0.4, -0.3, -0.2, -0.4, 0.3, -0.2, 0.4, 0.3, -0.2, 0.1, 0.0, 0.05,
                                  -0.4, -0.3, 0.2,  0.4, -0.3, 0.2,  -0.4, 0.3, 0.2,  0.4, 0.3, 0.2};
/* An irregular hull: 10 fixed points. */
static const real kBlob[30] = {0.5,  0.1,  -0.2, -0.4, 0.3,  0.1,  0.1,  -0.5, 0.2,  0.0,  0.2,  0.55, -0.1,
                               -0.1, -0.45, 0.35, 0.35, 0.3,  -0.3, -0.35, -0.25, 0.2, -0.2, -0.3,  -0.2,
                               0.45, -0.1, 0.05, 0.05, 0.0};

/* Signed distance (exact for points whose nearest feature is a face, which is all this test asks:
 * values near 0) to the hull of v, by brute force over vertex triples spanning a supporting plane. */
static inline double hull_phi(const real *v, int n, vec3 p) {
  double best = -INFINITY;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        vec3 a = v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
        vec3 b = v3(v[3 * j], v[3 * j + 1], v[3 * j + 2]);
        vec3 c = v3(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
        vec3 nrm = v3_cross(v3_sub(b, a), v3_sub(c, a));
        double ln = v3_norm(nrm);
        int pos = 0, neg = 0;
        if (ln < 1e-9) continue;
        nrm = v3_scale(nrm, 1 / ln);
        for (int m = 0; m < n; ++m) {
          double s = v3_dot(nrm, v3_sub(v3(v[3 * m], v[3 * m + 1], v[3 * m + 2]), a));
          pos += s > 1e-12;
          neg += s < -1e-12;
        }
        if (pos && neg) continue;
        if (pos) nrm = v3_neg(nrm);
        best = fmax(best, v3_dot(nrm, v3_sub(p, a)));
      }
  return best;
}

/* Signed distance, or for the ellipsoid a first-order proxy of it, at a world point. */
static inline double surface_phi(const pointShape *s, xform X, vec3 p_W) {
  vec3 q = xf_inv_point(X, p_W);
  real phi;
  if (point_distance_world(s, X, p_W, &phi, NULL, NULL)) return phi;
  if (s->type == POINT_ELLIPSOID) {
    double a = s->size[0], b = s->size[1], c = s->size[2];
    double F = sqrt(q.x * q.x / (a * a) + q.y * q.y / (b * b) + q.z * q.z / (c * c)) - 1;
    return F * fmax(a, fmax(b, c)); /* |distance| <= |F|·max semi-axis near the surface */
  }
  return hull_phi(s->vert, s->nvert, q);
}

/* Random pose of A near B (centres within 0.9 of the summed bounding radii). */
static inline xform near_pose(test_rng *r, double reach) {
  return xf_make(rand_quat(r), v3_scale(rand_unit(r), test_rng_uniform(r, 0, reach)));
}

#endif
