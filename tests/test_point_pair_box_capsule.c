/* Point-contact pair queries (kernels/point/pair.h), capsule against capsule (parallel, crossed,
 * collinear) and box against box (resting face on face, edge on edge, a vertex into a face, under
 * random rigid motions of the whole scene). Shapes are O(1) (sizes 0.2–2 m), so tolerances are
 * absolute, each with its reason. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/pair.h"
#include "support/point_pair_cases.h"
#include "support/support.h"

/* ---- 4. capsule vs capsule --------------------------------------------------------------------- */

Test(point_pair, capsule_capsule) {
  pointShape a = point_shape_make(POINT_CAPSULE, 0.3, 2, 0), b = point_shape_make(POINT_CAPSULE, 0.3, 2, 0);
  vec3 y = v3(0, 1, 0);
  pointContact c;
  /* parallel (both along x), offset: the mid-point of the overlap [−0.5, 1] of their spans */
  cr_assert(point_pair(&a, pose(y, PI / 2, v3(0.5, 0, 0.5)), &b, pose(y, PI / 2, v3(0, 0, 0)), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.25, 0, 0.2), v3(0.25, 0, 0.3), TOL);
  /* the same under a common rigid motion, and with A and B swapped */
  {
    xform M = pose(v3(3, -1, 2), 2.1, v3(1, 2, -3));
    pointContact e;
    e.depth = 0.1;
    e.nhat_BA = v3(0, 0, 1);
    e.p_WCa = v3(0.25, 0, 0.2);
    e.p_WCb = v3(0.25, 0, 0.3);
    e = contact_moved(M, e);
    cr_assert(point_pair(&a, moved(M, pose(y, PI / 2, v3(0.5, 0, 0.5))), &b, moved(M, pose(y, PI / 2, v3(0, 0, 0))),
                         &c));
    /* the parallel branch after a rotation: a few ulps of the posed coordinates (|p| ~ 4) */
    expect_contact(&c, e.depth, e.nhat_BA, e.p_WCa, e.p_WCb, 1e-12);
    cr_assert(point_pair(&b, moved(M, pose(y, PI / 2, v3(0, 0, 0))), &a, moved(M, pose(y, PI / 2, v3(0.5, 0, 0.5))),
                         &c));
    expect_contact(&c, e.depth, v3_neg(e.nhat_BA), e.p_WCb, e.p_WCa, 1e-12);
  }
  /* crossed (x over y) */
  cr_assert(point_pair(&a, pose(y, PI / 2, v3(0, 0, 0.5)), &b, pose(v3(1, 0, 0), PI / 2, v3(0, 0, 0)), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0, 0, 0.2), v3(0, 0, 0.3), TOL);
  /* crossed and intersecting: the normal is A×B = x × (−y)... oriented by the centres; here
   * the centres coincide, so the cross product's own sign stays */
  cr_assert(point_pair(&a, pose(y, PI / 2, v3(0, 0, 0)), &b, pose(v3(1, 0, 0), PI / 2, v3(0, 0, 0)), &c));
  {
    vec3 n = v3_normalize(v3_cross(xf_vector(pose(y, PI / 2, v3(0, 0, 0)), v3(0, 0, 1)),
                                   xf_vector(pose(v3(1, 0, 0), PI / 2, v3(0, 0, 0)), v3(0, 0, 1))));
    expect_contact(&c, 0.6, n, v3_scale(n, -0.3), v3_scale(n, 0.3), TOL);
  }
  /* end to end, collinear along z, no overlap of the spans: the nearer ends */
  cr_assert(point_pair(&a, at(0, 0, 2.5), &b, at(0, 0, 0), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0, 0, 1.2), v3(0, 0, 1.3), TOL);
  /* collinear and overlapping: a fixed perpendicular of A, oriented from B's centre to A's */
  cr_assert(point_pair(&a, at(0, 0, 0.5), &b, at(0, 0, 0), &c));
  cr_expect(fabs(c.depth - 0.6) <= TOL);
  cr_expect(fabs(v3_dot(c.nhat_BA, v3(0, 0, 1))) <= TOL);
  /* apart */
  cr_expect_not(point_pair(&a, at(0.61, 0, 0), &b, at(0, 0, 0), &c));
}

/* ---- 5. box vs box ------------------------------------------------------------------------------ */

Test(point_pair, box_box_resting) {
  pointShape a = point_shape_make(POINT_BOX, 1, 1, 1), b = point_shape_make(POINT_BOX, 2, 2, 1);
  pointContact c;
  /* A rests on B, 0.01 deep, fully inside B's top face: the centre of the overlap */
  cr_assert(point_pair(&a, at(0.2, 0.1, 0.99), &b, xf_identity(), &c));
  /* depth: 0.5 + 0.5 − 0.99 in double, a few ulps */
  expect_contact(&c, 0.01, v3(0, 0, 1), v3(0.2, 0.1, 0.49), v3(0.2, 0.1, 0.5), 1e-15);
  /* hanging over B's edge: the overlap is x ∈ [0.3, 1] */
  cr_assert(point_pair(&a, at(0.8, 0, 0.99), &b, xf_identity(), &c));
  expect_contact(&c, 0.01, v3(0, 0, 1), v3(0.65, 0, 0.49), v3(0.65, 0, 0.5), 1e-15);
  /* B first */
  cr_assert(point_pair(&b, xf_identity(), &a, at(0.8, 0, 0.99), &c));
  expect_contact(&c, 0.01, v3(0, 0, -1), v3(0.65, 0, 0.5), v3(0.65, 0, 0.49), 1e-15);
  /* A turned about the normal: still face–face; the overlap of a turned square centred on B */
  cr_assert(point_pair(&a, pose(v3(0, 0, 1), 0.3, v3(0, 0, 0.99)), &b, xf_identity(), &c));
  expect_contact(&c, 0.01, v3(0, 0, 1), v3(0, 0, 0.49), v3(0, 0, 0.5), 1e-15);
  /* the whole scene under random rigid motions: the same contact, moved */
  {
    test_rng r = {42};
    for (int it = 0; it < 50; ++it) {
      xform M = xf_make(rand_quat(&r), rand_v3(&r, -2, 2));
      pointContact e;
      e.depth = 0.01;
      e.nhat_BA = v3(0, 0, 1);
      e.p_WCa = v3(0.65, 0, 0.49);
      e.p_WCb = v3(0.65, 0, 0.5);
      e = contact_moved(M, e);
      cr_assert(point_pair(&a, moved(M, at(0.8, 0, 0.99)), &b, M, &c));
      /* rotations cost a few ulps of |p| <= 4 */
      expect_contact(&c, e.depth, e.nhat_BA, e.p_WCa, e.p_WCb, 1e-13);
    }
  }
  /* touching exactly, and apart: no contact (FCL fallback: depth <= ε) */
  cr_expect_not(point_pair(&a, at(0.2, 0.1, 1.0), &b, xf_identity(), &c));
  cr_expect_not(point_pair(&a, at(0.2, 0.1, 1.001), &b, xf_identity(), &c));
  cr_expect_not(point_pair(&a, at(1.6, 0, 0.5), &b, xf_identity(), &c));
}

Test(point_pair, box_box_edge_and_vertex) {
  pointShape a = point_shape_make(POINT_BOX, 1, 1, 1), b = point_shape_make(POINT_BOX, 1, 1, 1);
  pointShape big = point_shape_make(POINT_BOX, 2, 2, 1);
  double h = sqrt(2.0) / 2;
  pointContact c;
  /* edge on edge: A turned 45° about x (lowest edge along x at zA − √2/2), B turned 45° about
   * y (highest edge along y at √2/2); 0.05 deep */
  cr_assert(point_pair(&a, pose(v3(1, 0, 0), PI / 4, v3(0, 0, 2 * h - 0.05)), &b, pose(v3(0, 1, 0), PI / 4, v3(0, 0, 0)),
                       &c));
  expect_contact(&c, 0.05, v3(0, 0, 1), v3(0, 0, h - 0.05), v3(0, 0, h), TOL);
  /* a vertex into a face: A in a generic pose, its lowest vertex 0.03 below B's top face */
  {
    xform X = pose(v3(1, 1, 0.3), 0.8, v3(0.1, 0, 0));
    vec3 low = v3(0, 0, INFINITY);
    for (int i = 0; i < 8; ++i) {
      vec3 v = xf_point(X, v3(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5));
      if (v.z < low.z) low = v;
    }
    X.p.z += 0.47 - low.z;
    low.z = 0.47;
    cr_assert(point_pair(&a, X, &big, xf_identity(), &c));
    expect_contact(&c, 0.03, v3(0, 0, 1), low, v3(low.x, low.y, 0.5), TOL);
  }
}
