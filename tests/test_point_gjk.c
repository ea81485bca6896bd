/* The generic point-contact path (kernels/point/gjk.h, epa.h) through the pair queries of
 * kernels/point/pair.h: GJK/EPA cross-checked against the sphere and half-space closed forms and
 * against the box–box SAT and the same box as a vertex list, ellipsoids, and degenerate hulls.
 * Shapes are O(1) (sizes 0.2–2 m), so tolerances are absolute, each with its reason. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/pair.h"
#include "support/point_pair_cases.h"
#include "support/support.h"

/* ---- 6 and cross-checks: GJK/EPA against the closed forms ----------------------------------- */

Test(point_pair, gjk_epa_matches_sphere_closed_forms) {
  test_rng r = {42};
  int types[4] = {POINT_SPHERE, POINT_BOX, POINT_CAPSULE, POINT_CYLINDER};
  int hits = 0;
  double e_core = 0, e_full_shallow = 0, e_full_deep = 0, n_core = 0, n_full = 0;
  for (int it = 0; it < 2000; ++it) {
    pointShape s = point_shape_make(POINT_SPHERE, test_rng_uniform(&r, 0.2, 1), 0, 0);
    pointShape o = point_shape_make(types[it % 4], test_rng_uniform(&r, 0.2, 1), test_rng_uniform(&r, 0.2, 1),
                                    test_rng_uniform(&r, 0.2, 1));
    xform XB = xf_make(rand_quat(&r), rand_v3(&r, -0.5, 0.5));
    xform XA = near_pose(&r, 0.9 * (point_shape_bound_radius(&s) + point_shape_bound_radius(&o)));
    pointContact c1, c2, c3;
    int r1, r2, r3;
    XA.p = v3_add(XA.p, XB.p);
    r1 = point_pair(&s, XA, &o, XB, &c1);
    r2 = point_convex_pair(&s, XA, &o, XB, 1, &c2); /* cores: the sphere is a point + margin */
    r3 = point_convex_pair(&s, XA, &o, XB, 0, &c3); /* EPA on the full rounded shapes */
    if (r1 && c1.depth <= 1e-9) continue;            /* grazing: the fallback's ε rule may differ */
    cr_assert_eq(r1, r2, "iteration %d", it);
    cr_assert_eq(r1, r3, "iteration %d", it);
    if (!r1) continue;
    ++hits;
    e_core = fmax(e_core, fabs(c1.depth - c2.depth));
    if (c1.depth < 0.5 * s.size[0]) {
      e_full_shallow = fmax(e_full_shallow, fabs(c1.depth - c3.depth));
      /* the normal is unique when the sphere centre is outside the other shape */
      n_core = fmax(n_core, 1 - v3_dot(c1.nhat_BA, c2.nhat_BA));
      n_full = fmax(n_full, 1 - v3_dot(c1.nhat_BA, c3.nhat_BA));
    } else {
      e_full_deep = fmax(e_full_deep, fabs(c1.depth - c3.depth));
    }
  }
  cr_expect(hits > 1000);
  /* cores: GJK between the sphere centre and the other core (exact for the box, 1e-10 relative
   * for curved cores) or EPA from the centre inside (exact for a box, 1e-11·scale curved) */
  cr_expect(e_core <= 1e-9, "core depth error %g", e_core);
  cr_expect(n_core <= 1e-12, "core normal 1 − cos %g", n_core);
  /* EPA on the full rounded shapes, where the difference is curved everywhere: converged faces
   * (1e-11·scale) for shallow contacts, the capped estimate polished (descent then touching
   * points) for deep ones, where the curvature of A − B nearly matches the depth and the
   * direction is barely determined */
  cr_expect(e_full_shallow <= 1e-9, "full EPA shallow depth error %g", e_full_shallow);
  cr_expect(n_full <= 1e-8, "full EPA normal 1 − cos %g", n_full);
  cr_expect(e_full_deep <= 5e-3, "full EPA deep depth error %g", e_full_deep);
  cr_log_info("sphere pairs: core %.3g, full shallow %.3g, full deep %.3g, normals %.3g %.3g", e_core,
              e_full_shallow, e_full_deep, n_core, n_full);
}

Test(point_pair, gjk_epa_matches_halfspace_closed_forms) {
  /* the half-space as a large slab (top face at z = 0) through the generic GJK/EPA path */
  test_rng r = {42};
  int types[5] = {POINT_BOX, POINT_CYLINDER, POINT_CAPSULE, POINT_ELLIPSOID, POINT_CONVEX};
  pointShape hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0), slab = point_shape_make(POINT_BOX, 40, 40, 20);
  xform XS = at(0, 0, -10);
  for (int it = 0; it < 1000; ++it) {
    int t = types[it % 5];
    pointShape s = t == POINT_CONVEX ? point_shape_convex(kBlob, 10)
                                     : point_shape_make(t, test_rng_uniform(&r, 0.2, 1), test_rng_uniform(&r, 0.2, 1),
                                                        test_rng_uniform(&r, 0.2, 1));
    xform X = xf_make(rand_quat(&r), v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1),
                                       test_rng_uniform(&r, -0.5, 0.8)));
    pointContact c1, c2;
    int r1 = point_pair(&s, X, &hs, xf_identity(), &c1);
    int r2 = point_convex_pair(&s, X, &slab, XS, 1, &c2);
    if ((r1 && c1.depth <= 1e-9) || (r2 && c2.depth <= 1e-9)) continue; /* grazing */
    cr_assert_eq(r1, r2, "type %d iteration %d", t, it);
    if (!r1) continue;
    /* polytopes: exact up to round-off; curved shapes: EPA tolerance 1e-11·scale (scale ~ 35
     * with the slab) */
    cr_expect(fabs(c1.depth - c2.depth) <= 1e-9, "type %d: %.17g vs %.17g", t, c1.depth, c2.depth);
    cr_expect(v3_dot(c2.nhat_BA, v3(0, 0, 1)) >= 1 - 1e-12, "type %d", t);
  }
}

Test(point_pair, sat_matches_gjk_epa_and_hulls) {
  test_rng r = {42};
  int hits = 0;
  for (int it = 0; it < 2000; ++it) {
    pointShape a = point_shape_make(POINT_BOX, test_rng_uniform(&r, 0.2, 1), test_rng_uniform(&r, 0.2, 1),
                                    test_rng_uniform(&r, 0.2, 1));
    pointShape b = point_shape_make(POINT_BOX, 0.8, 0.6, 0.4), hull = point_shape_convex(kBoxHull, 9);
    xform XB = xf_make(rand_quat(&r), rand_v3(&r, -0.5, 0.5));
    xform XA = near_pose(&r, 0.9 * (point_shape_bound_radius(&a) + point_shape_bound_radius(&b)));
    pointContact c1, c2, c3;
    int r1, r2, r3;
    XA.p = v3_add(XA.p, XB.p);
    r1 = point_pair(&a, XA, &b, XB, &c1);    /* SAT */
    r2 = point_convex_pair(&a, XA, &b, XB, 1, &c2); /* GJK/EPA */
    r3 = point_pair(&a, XA, &hull, XB, &c3); /* the same box as a vertex list: GJK/EPA */
    if ((r1 && c1.depth <= 1e-9) || (r2 && c2.depth <= 1e-9)) continue;
    cr_assert_eq(r1, r2, "iteration %d", it);
    cr_assert_eq(r1, r3, "iteration %d", it);
    if (!r1) continue;
    ++hits;
    /* both exact for polytopes: round-off of O(1) numbers */
    cr_expect(fabs(c1.depth - c2.depth) <= 1e-12, "%.17g vs %.17g", c1.depth, c2.depth);
    cr_expect(fabs(c1.depth - c3.depth) <= 1e-12, "%.17g vs %.17g", c1.depth, c3.depth);
  }
  cr_expect(hits > 1000);
}

Test(point_pair, ellipsoid_cases) {
  pointShape e = point_shape_make(POINT_ELLIPSOID, 0.5, 0.5, 0.5), s = point_shape_make(POINT_SPHERE, 0.5, 0, 0);
  pointShape b = point_shape_make(POINT_BOX, 1, 2, 1.5);
  pointShape e1 = point_shape_make(POINT_ELLIPSOID, 1, 0.6, 0.3), e2 = point_shape_make(POINT_ELLIPSOID, 0.4, 0.8, 0.5);
  test_rng r = {42};
  pointContact c1, c2;
  /* an ellipsoid with equal semi-axes is a sphere: agree with the sphere's closed forms */
  for (int it = 0; it < 200; ++it) {
    xform XA = xf_make(rand_quat(&r), rand_v3(&r, -1, 1)), XB = xf_make(rand_quat(&r), rand_v3(&r, -0.3, 0.3));
    int r1 = point_pair(&s, XA, &b, XB, &c1), r2 = point_pair(&e, XA, &b, XB, &c2);
    if ((r1 && c1.depth <= 1e-9) || (r2 && c2.depth <= 1e-9)) continue;
    cr_assert_eq(r1, r2);
    if (!r1) continue;
    /* EPA/GJK on a curved core: 1e-11·scale, or the polish's GJK tolerance */
    cr_expect(fabs(c1.depth - c2.depth) <= 1e-9, "%.17g vs %.17g", c1.depth, c2.depth);
    if (c1.depth < 0.45) cr_expect(v3_dot(c1.nhat_BA, c2.nhat_BA) >= 1 - 1e-9);
  }
  /* concentric, aligned ellipsoids: depth min_i(a_i + b_i) = 0.8 along z (the support function
   * sum is concave in u_i², so its minimum over unit u is at an axis). Far deeper than EPA's
   * polytope resolves the surfaces: its vertex cap is hit and the polish gives the answer */
  cr_assert(point_pair(&e1, at(0.2, 0.1, 0), &e2, at(0.2, 0.1, 0), &c1));
  cr_expect(fabs(c1.depth - 0.8) <= 1e-9, "depth %.17g", c1.depth);
  cr_expect(fabs(fabs(c1.nhat_BA.z) - 1) <= 1e-6, "normal along z");
}

Test(point_pair, degenerate_hulls_do_not_crash) {
  static const real pt[3] = {0.1, 0, 0};
  static const real flat[12] = {-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0};
  pointShape p = point_shape_convex(pt, 1), f = point_shape_convex(flat, 4), none = point_shape_convex(NULL, 0);
  pointShape b = point_shape_make(POINT_BOX, 1, 1, 1), s = point_shape_make(POINT_SPHERE, 0.3, 0, 0);
  pointShape hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointContact c;
  /* a single vertex inside a box: its distance to the nearest face */
  cr_assert(point_pair(&p, xf_identity(), &b, xf_identity(), &c));
  cr_expect(fabs(c.depth - 0.4) <= TOL);
  /* a flat square under a sphere's centre: GJK on the cores (square and point) */
  cr_assert(point_pair(&f, xf_identity(), &s, at(0, 0, 0.1), &c));
  cr_expect(fabs(c.depth - 0.2) <= TOL, "depth %.17g", c.depth);
  expect_v3(c.nhat_BA, v3(0, 0, -1), TOL, "normal");
  /* the centre in the square: the cores' difference is flat, EPA runs on the full shapes */
  cr_assert(point_pair(&f, xf_identity(), &s, at(0.1, 0, 0), &c));
  cr_expect(fabs(c.depth - 0.3) <= 1e-9, "depth %.17g", c.depth);
  cr_expect(fabs(fabs(c.nhat_BA.z) - 1) <= 1e-9, "normal along z");
  /* a flat square against a flat square: no seed tetrahedron, no contact */
  cr_expect_not(point_pair(&f, xf_identity(), &f, at(0.1, 0, 0), &c));
  /* an empty hull and half-space pairs */
  cr_expect_not(point_pair(&none, xf_identity(), &b, xf_identity(), &c));
  cr_expect_not(point_pair(&hs, xf_identity(), &hs, xf_identity(), &c));
}
