/* Point-contact pair queries (kernels/point/pair.h), the half-space family: a box, capsule,
 * cylinder, ellipsoid and convex hull against a half-space (the deepest point, FCL's rules for
 * level edges and faces, no contact when touching). Shapes are O(1) (sizes 0.2–2 m), so
 * tolerances are absolute, each with its reason. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/pair.h"
#include "support/point_pair_cases.h"
#include "support/support.h"

/* ---- 3. convex shape vs half-space ------------------------------------------------------------ */

Test(point_pair, box_halfspace) {
  pointShape b = point_shape_make(POINT_BOX, 2, 4, 6), hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointContact c;
  /* resting flat, also turned about the normal: ONE point, the centre of the bottom face (FCL) */
  for (int k = 0; k < 2; ++k) {
    xform XB = pose(v3(0, 0, 1), 0.7 * k, v3(0.5, -0.25, 2.9));
    cr_assert(point_pair(&b, XB, &hs, xf_identity(), &c));
    expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.5, -0.25, -0.1), v3(0.5, -0.25, 0), TOL);
  }
  /* half-space first */
  cr_assert(point_pair(&hs, xf_identity(), &b, at(0.5, -0.25, 2.9), &c));
  expect_contact(&c, 0.1, v3(0, 0, -1), v3(0.5, -0.25, 0), v3(0.5, -0.25, -0.1), TOL);
  /* resting on an edge (turned 30° about x, the x edges stay level): the vertex at +h_x (FCL's
   * rule for n·a_x = 0) */
  {
    xform XB = pose(v3(1, 0, 0), PI / 6, v3(0, 0, 2.5));
    vec3 v = xf_point(XB, v3(1, -2, -3));
    cr_assert(point_pair(&b, XB, &hs, xf_identity(), &c));
    expect_contact(&c, -v.z, v3(0, 0, 1), v, v3(v.x, v.y, 0), TOL);
  }
  /* generic: the unique deepest vertex, against a tilted, offset half-space */
  {
    xform XB = pose(v3(1, 2, 3), 1.0, v3(0.2, 0.3, 2.2));
    xform XH = pose(v3(1, -1, 0), 0.3, v3(0.1, 0.2, 0.4));
    vec3 n = xf_vector(XH, v3(0, 0, 1)), best = v3_zero();
    double dmin = INFINITY;
    for (int i = 0; i < 8; ++i) {
      vec3 v = xf_point(XB, v3(i & 1 ? 1 : -1, i & 2 ? 2 : -2, i & 4 ? 3 : -3));
      double d = v3_dot(n, v3_sub(v, XH.p));
      if (d < dmin) {
        dmin = d;
        best = v;
      }
    }
    cr_assert(dmin < 0);
    cr_assert(point_pair(&b, XB, &hs, XH, &c));
    expect_contact(&c, -dmin, n, best, v3_axpy(best, -dmin, n), TOL);
  }
  /* above the plane, and touching: no contact (FCL fallback: depth <= ε) */
  cr_expect_not(point_pair(&b, at(0, 0, 3.01), &hs, xf_identity(), &c));
  cr_expect_not(point_pair(&b, at(0, 0, 3), &hs, xf_identity(), &c));
}

Test(point_pair, capsule_halfspace) {
  pointShape cap = point_shape_make(POINT_CAPSULE, 0.5, 2, 0), hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointContact c;
  /* upright: the lower end sphere */
  cr_assert(point_pair(&cap, at(0.3, 0.2, 1.4), &hs, xf_identity(), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.3, 0.2, -0.1), v3(0.3, 0.2, 0), TOL);
  /* lying: the middle of its lowest line */
  cr_assert(point_pair(&cap, pose(v3(0, 1, 0), PI / 2, v3(0.3, 0.2, 0.45)), &hs, xf_identity(), &c));
  expect_contact(&c, 0.05, v3(0, 0, 1), v3(0.3, 0.2, -0.05), v3(0.3, 0.2, 0), TOL);
  /* tilted 45°: the lower end sphere */
  {
    xform X = pose(v3(1, 0, 0), PI / 4, v3(0, 0, 1));
    vec3 e = xf_point(X, v3(0, 0, -1));
    double depth = 0.5 - e.z;
    cr_assert(point_pair(&cap, X, &hs, xf_identity(), &c));
    expect_contact(&c, depth, v3(0, 0, 1), v3(e.x, e.y, -depth), v3(e.x, e.y, 0), TOL);
  }
}

Test(point_pair, cylinder_halfspace) {
  pointShape cyl = point_shape_make(POINT_CYLINDER, 1, 2, 0), hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointContact c;
  /* upright: the centre of the lower cap */
  cr_assert(point_pair(&cyl, at(0.3, 0.2, 0.9), &hs, xf_identity(), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.3, 0.2, -0.1), v3(0.3, 0.2, 0), TOL);
  /* upside down: the same */
  cr_assert(point_pair(&cyl, pose(v3(1, 0, 0), PI, v3(0.3, 0.2, 0.9)), &hs, xf_identity(), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.3, 0.2, -0.1), v3(0.3, 0.2, 0), TOL);
  /* on its side: the middle of its lowest line */
  cr_assert(point_pair(&cyl, pose(v3(0, 1, 0), PI / 2, v3(0.3, 0.2, 0.95)), &hs, xf_identity(), &c));
  expect_contact(&c, 0.05, v3(0, 0, 1), v3(0.3, 0.2, -0.05), v3(0.3, 0.2, 0), TOL);
  /* tilted 30° about x: the lowest rim point */
  {
    xform X = pose(v3(1, 0, 0), PI / 6, v3(0.1, 0, 1.2));
    vec3 z = xf_vector(X, v3(0, 0, 1));
    vec3 p = v3_add(v3_axpy(X.p, -1, z), v3_normalize(v3_sub(v3_scale(z, z.z), v3(0, 0, 1))));
    cr_assert(p.z < 0);
    cr_assert(point_pair(&cyl, X, &hs, xf_identity(), &c));
    expect_contact(&c, -p.z, v3(0, 0, 1), p, v3(p.x, p.y, 0), TOL);
  }
}

Test(point_pair, ellipsoid_and_convex_halfspace) {
  pointShape e = point_shape_make(POINT_ELLIPSOID, 1, 0.5, 0.25), hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointShape hull = point_shape_convex(kBoxHull, 9), box = point_shape_make(POINT_BOX, 0.8, 0.6, 0.4);
  pointContact c, cb;
  test_rng r = {42};
  for (int it = 0; it < 20; ++it) {
    xform X = xf_make(rand_quat(&r), v3(0.1, -0.2, test_rng_uniform(&r, 0, 0.2)));
    vec3 q = xf_inv_vector(X, v3(0, 0, 1));
    double depth = sqrt(q.x * q.x + 0.25 * q.y * q.y + 0.0625 * q.z * q.z) - X.p.z;
    cr_assert(point_pair(&e, X, &hs, xf_identity(), &c));
    cr_expect(fabs(c.depth - depth) <= TOL);
    expect_v3(c.nhat_BA, v3(0, 0, 1), TOL, "normal");
    cr_expect(fabs(c.p_WCa.z + depth) <= TOL);
    cr_expect(fabs(surface_phi(&e, X, c.p_WCa)) <= TOL, "witness on the ellipsoid");
    /* a convex hull of a box against a half-space: the box's closed form (same deepest vertex
     * for a generic pose; the interior point never wins) */
    X.p.z = test_rng_uniform(&r, 0, 0.3);
    cr_assert(point_pair(&hull, X, &hs, xf_identity(), &c));
    cr_assert(point_pair(&box, X, &hs, xf_identity(), &cb));
    expect_contact(&c, cb.depth, cb.nhat_BA, cb.p_WCa, cb.p_WCb, TOL);
  }
}
