/* Point-to-shape signed distance primitives (kernels/point/distance.h): Drake's
 * distance_to_point rules (drake_algorithms §4.1). Analytic cases for each shape, including the
 * tie-breaking and tolerance rules, then random points checked against closed-form distances and
 * the identity Q = N + φ·∇φ. Sizes and coordinates are O(1) and exact in binary where the test
 * asserts exact equality; otherwise the tolerance is stated with its reason. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/distance.h"
#include "support/support.h"

/* Round-off of a few operations on O(1) numbers. */
#define TOL 1e-14

static void expect_v3(vec3 a, vec3 b, double tol) {
  cr_expect(fabs(a.x - b.x) <= tol && fabs(a.y - b.y) <= tol && fabs(a.z - b.z) <= tol,
            "(%.17g %.17g %.17g) != (%.17g %.17g %.17g)", a.x, a.y, a.z, b.x, b.y, b.z);
}

static vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

static quat rand_quat(test_rng *r) {
  for (;;) {
    vec3 v = rand_v3(r, -1, 1);
    double w = test_rng_uniform(r, -1, 1);
    double n = sqrt(w * w + v3_norm2(v));
    if (n > 0.1 && n <= 1) return quat_make(w / n, v.x / n, v.y / n, v.z / n);
  }
}

/* ---- sphere --------------------------------------------------------------------------------- */

Test(point_distance, sphere) {
  pointDistance d = point_distance_sphere(0.5, v3(0, 2, 0));
  cr_expect_eq(d.phi, 1.5);
  expect_v3(d.p_GN, v3(0, 0.5, 0), 0);
  expect_v3(d.grad_G, v3(0, 1, 0), 0);
  d = point_distance_sphere(0.5, v3(0.25, 0, 0));
  cr_expect_eq(d.phi, -0.25);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  /* at the centre, and within 1e-14·max(1, r) of it: gradient +x */
  d = point_distance_sphere(0.5, v3(0, 0, 0));
  cr_expect_eq(d.phi, -0.5);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  expect_v3(d.p_GN, v3(0.5, 0, 0), 0);
  d = point_distance_sphere(0.5, v3(0, 5e-15, 0));
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  cr_expect(fabs(d.phi + 0.5) <= TOL);
  /* just beyond the tolerance the true direction is used */
  d = point_distance_sphere(0.5, v3(0, 2e-14, 0));
  expect_v3(d.grad_G, v3(0, 1, 0), 0);
  /* the tolerance scales with a radius above 1 */
  d = point_distance_sphere(4.0, v3(0, 3e-14, 0));
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
}

/* ---- box ------------------------------------------------------------------------------------ */

Test(point_distance, box_outside) {
  vec3 h = v3(1, 2, 3);
  pointDistance d = point_distance_box(h, v3(3, 0.5, -1)); /* face region */
  cr_expect_eq(d.phi, 2);
  expect_v3(d.p_GN, v3(1, 0.5, -1), 0);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  d = point_distance_box(h, v3(4, -6, 0)); /* edge region */
  cr_expect(fabs(d.phi - 5) <= TOL);
  expect_v3(d.p_GN, v3(1, -2, 0), 0);
  expect_v3(d.grad_G, v3(0.6, -0.8, 0), TOL);
  d = point_distance_box(h, v3(-2, 4, 5)); /* vertex region */
  cr_expect(fabs(d.phi - sqrt(1 + 4 + 4)) <= TOL);
  expect_v3(d.p_GN, v3(-1, 2, 3), 0);
}

Test(point_distance, box_boundary) {
  vec3 h = v3(1, 2, 3);
  pointDistance d = point_distance_box(h, v3(1, 0.5, 0)); /* on a face */
  cr_expect_eq(d.phi, 0);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  d = point_distance_box(h, v3(1 + 5e-15, 0.5, 0)); /* within tolerance: still boundary */
  expect_v3(d.p_GN, v3(1, 0.5, 0), 0);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  d = point_distance_box(h, v3(-1, 2, 0)); /* on an edge: normalised sum of the face normals */
  expect_v3(d.grad_G, v3(-1 / sqrt(2.0), 1 / sqrt(2.0), 0), TOL);
  cr_expect_eq(d.phi, 0);
  d = point_distance_box(h, v3(1, -2, 3)); /* on a vertex */
  expect_v3(d.grad_G, v3(1 / sqrt(3.0), -1 / sqrt(3.0), 1 / sqrt(3.0)), TOL);
  /* the tolerance of a coordinate scales with its half size: 1e-14·3 on z */
  d = point_distance_box(h, v3(0, 0, 3 + 2e-14));
  expect_v3(d.p_GN, v3(0, 0, 3), 0);
  expect_v3(d.grad_G, v3(0, 0, 1), 0);
}

Test(point_distance, box_inside) {
  vec3 h = v3(1, 2, 3);
  pointDistance d = point_distance_box(h, v3(0.25, 1.5, 0)); /* nearest face +y */
  cr_expect_eq(d.phi, -0.5);
  expect_v3(d.p_GN, v3(0.25, 2, 0), 0);
  expect_v3(d.grad_G, v3(0, 1, 0), 0);
  d = point_distance_box(h, v3(0, 0, -2.5)); /* nearest face −z */
  cr_expect_eq(d.phi, -0.5);
  expect_v3(d.p_GN, v3(0, 0, -3), 0);
  expect_v3(d.grad_G, v3(0, 0, -1), 0);
  /* ties: order +x, −x, +y, −y, +z, −z, first wins; the sign is Sign(p_i) with Sign(0) = +1 */
  d = point_distance_box(v3(1, 1, 1), v3(0, 0, 0));
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  expect_v3(d.p_GN, v3(1, 0, 0), 0);
  cr_expect_eq(d.phi, -1);
  d = point_distance_box(v3(1, 1, 1), v3(-0.5, 0.5, 0)); /* −x and +y tie: −x first */
  expect_v3(d.grad_G, v3(-1, 0, 0), 0);
  d = point_distance_box(v3(2, 1, 1), v3(0, 0, -0.5)); /* −z nearest */
  expect_v3(d.grad_G, v3(0, 0, -1), 0);
}

/* ---- cylinder ------------------------------------------------------------------------------- */

Test(point_distance, cylinder) {
  double R = 1, L = 4; /* half length 2 */
  pointDistance d = point_distance_cylinder(R, L, v3(0, 3, 1)); /* barrel, outside */
  cr_expect_eq(d.phi, 2);
  expect_v3(d.p_GN, v3(0, 1, 1), 0);
  expect_v3(d.grad_G, v3(0, 1, 0), 0);
  d = point_distance_cylinder(R, L, v3(0.3, 0.4, 5)); /* above the cap */
  cr_expect(fabs(d.phi - 3) <= TOL);
  expect_v3(d.p_GN, v3(0.3, 0.4, 2), TOL);
  expect_v3(d.grad_G, v3(0, 0, 1), 0);
  d = point_distance_cylinder(R, L, v3(4, 0, -6)); /* beyond the rim: distance to the circle */
  cr_expect(fabs(d.phi - 5) <= TOL);
  expect_v3(d.p_GN, v3(1, 0, -2), TOL);
  expect_v3(d.grad_G, v3(0.6, 0, -0.8), TOL);
  d = point_distance_cylinder(R, L, v3(0, -0.75, 0.5)); /* inside, nearest the barrel */
  cr_expect(fabs(d.phi + 0.25) <= TOL);
  expect_v3(d.p_GN, v3(0, -1, 0.5), TOL);
  expect_v3(d.grad_G, v3(0, -1, 0), TOL);
  d = point_distance_cylinder(R, L, v3(0.5, 0, -1.75)); /* inside, nearest the lower cap */
  cr_expect(fabs(d.phi + 0.25) <= TOL);
  expect_v3(d.grad_G, v3(0, 0, -1), 0);
  /* on the axis (within 1e-14·max(1, R)): the radial direction is +x */
  d = point_distance_cylinder(R, L, v3(0, 0, 0.5));
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  expect_v3(d.p_GN, v3(1, 0, 0.5), 0);
  cr_expect_eq(d.phi, -1);
  d = point_distance_cylinder(R, L, v3(0, 0, 3)); /* above, on the axis */
  expect_v3(d.grad_G, v3(0, 0, 1), 0);
  expect_v3(d.p_GN, v3(0, 0, 2), 0);
  /* on the rim: normalised sum of the radial and axial normals */
  d = point_distance_cylinder(R, L, v3(0, 1, 2));
  expect_v3(d.grad_G, v3(0, 1 / sqrt(2.0), 1 / sqrt(2.0)), TOL);
  cr_expect(fabs(d.phi) <= TOL);
}

/* ---- capsule -------------------------------------------------------------------------------- */

Test(point_distance, capsule) {
  double R = 0.5, L = 2; /* half length 1 */
  pointDistance d = point_distance_capsule(R, L, v3(0, 0, 3)); /* above the top cap */
  cr_expect_eq(d.phi, 1.5);
  expect_v3(d.p_GN, v3(0, 0, 1.5), 0);
  expect_v3(d.grad_G, v3(0, 0, 1), 0);
  d = point_distance_capsule(R, L, v3(3, 0, -5)); /* beyond the lower cap, diagonally */
  cr_expect(fabs(d.phi - 4.5) <= TOL);
  expect_v3(d.grad_G, v3(0.6, 0, -0.8), TOL);
  expect_v3(d.p_GN, v3(0.3, 0, -1.4), TOL);
  d = point_distance_capsule(R, L, v3(0, 2, 0.25)); /* beside the spine: N keeps z */
  cr_expect_eq(d.phi, 1.5);
  expect_v3(d.p_GN, v3(0, 0.5, 0.25), 0);
  expect_v3(d.grad_G, v3(0, 1, 0), 0);
  d = point_distance_capsule(R, L, v3(0, 0, 0.25)); /* on the spine: +x */
  cr_expect_eq(d.phi, -0.5);
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  expect_v3(d.p_GN, v3(0.5, 0, 0.25), 0);
  d = point_distance_capsule(R, L, v3(0, 0, 1)); /* |z| = ℓ: the cap sphere, at its centre: +x */
  expect_v3(d.grad_G, v3(1, 0, 0), 0);
  expect_v3(d.p_GN, v3(0.5, 0, 1), 0);
}

/* ---- half-space and dispatch ---------------------------------------------------------------- */

Test(point_distance, halfspace_and_dispatch) {
  pointDistance d = point_distance_halfspace(v3(1, 2, -0.5));
  pointShape s;
  cr_expect_eq(d.phi, -0.5);
  expect_v3(d.p_GN, v3(1, 2, 0), 0);
  expect_v3(d.grad_G, v3(0, 0, 1), 0);
  s = point_shape_make(POINT_BOX, 2, 4, 6);
  cr_expect(point_distance_local(&s, v3(3, 0, 0), &d));
  cr_expect_eq(d.phi, 2);
  s = point_shape_make(POINT_ELLIPSOID, 1, 2, 3); /* no primitive: left to GJK */
  cr_expect_not(point_distance_local(&s, v3(3, 0, 0), &d));
  s = point_shape_make(POINT_CONVEX, 0, 0, 0);
  cr_expect_not(point_distance_local(&s, v3(3, 0, 0), &d));
}

/* ---- random points against closed-form distances --------------------------------------------- */

static double ref_distance(const pointShape *s, vec3 p) {
  switch (s->type) {
  case POINT_SPHERE:
    return v3_norm(p) - s->size[0];
  case POINT_BOX: {
    double q[3] = {fabs(p.x) - 0.5 * s->size[0], fabs(p.y) - 0.5 * s->size[1], fabs(p.z) - 0.5 * s->size[2]};
    double out = 0, in = fmax(q[0], fmax(q[1], q[2]));
    for (int i = 0; i < 3; ++i) out += fmax(q[i], 0) * fmax(q[i], 0);
    return in > 0 ? sqrt(out) : in;
  }
  case POINT_CYLINDER: {
    double qr = sqrt(p.x * p.x + p.y * p.y) - s->size[0], qz = fabs(p.z) - 0.5 * s->size[1];
    double in = fmax(qr, qz);
    return in > 0 ? sqrt(fmax(qr, 0) * fmax(qr, 0) + fmax(qz, 0) * fmax(qz, 0)) : in;
  }
  case POINT_CAPSULE: {
    double hl = 0.5 * s->size[1];
    double z = fmax(-hl, fmin(hl, p.z));
    return v3_norm(v3(p.x, p.y, p.z - z)) - s->size[0];
  }
  default:
    return p.z;
  }
}

Test(point_distance, random_points_match_closed_forms) {
  test_rng r = {42};
  for (int it = 0; it < 4000; ++it) {
    int type = (int)(test_rng_u64(&r) % 5);
    pointShape s;
    if (type == 4) type = POINT_HALFSPACE;
    s = point_shape_make(type, test_rng_uniform(&r, 0.2, 2), test_rng_uniform(&r, 0.2, 2),
                         test_rng_uniform(&r, 0.2, 2));
    vec3 p = rand_v3(&r, -2.5, 2.5);
    pointDistance d;
    cr_assert(point_distance_local(&s, p, &d));
    /* O(1) quantities: a few ulps of round-off per operation */
    cr_expect(fabs(d.phi - ref_distance(&s, p)) <= 1e-13, "type %d: %.17g vs %.17g", type, d.phi,
              ref_distance(&s, p));
    cr_expect(fabs(v3_norm(d.grad_G) - 1) <= 1e-14);
    /* Q = N + φ·∇φ (random points are never on an edge, where Drake's gradient is a blend) */
    expect_v3(p, v3_axpy(d.p_GN, d.phi, d.grad_G), 1e-13);
    /* N is on the boundary */
    cr_expect(fabs(ref_distance(&s, d.p_GN)) <= 1e-13);
  }
}

Test(point_distance, world_frame) {
  test_rng r = {42};
  for (int it = 0; it < 200; ++it) {
    pointShape s = point_shape_make(POINT_CYLINDER, 0.7, 1.3, 0);
    xform X = xf_make(rand_quat(&r), rand_v3(&r, -3, 3));
    vec3 pG = rand_v3(&r, -1.5, 1.5);
    vec3 pW = xf_point(X, pG);
    real phi;
    vec3 N, g;
    pointDistance d = point_distance_cylinder(0.7, 1.3, pG);
    cr_assert(point_distance_world(&s, X, pW, &phi, &N, &g));
    /* posing a point costs a few ulps of |p| <= 6 */
    cr_expect(fabs(phi - d.phi) <= 1e-13);
    expect_v3(N, xf_point(X, d.p_GN), 1e-13);
    expect_v3(g, xf_vector(X, d.grad_G), 1e-13);
  }
}
