/* Point-contact pair queries (kernels/point/pair.h), the sphere family: the closed forms of a
 * sphere against a sphere, box, cylinder, capsule and half-space (depth, normal, witness points,
 * in several orientations and with A and B swapped). Shapes are O(1) (sizes 0.2–2 m), so
 * tolerances are absolute, each with its reason. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/point/pair.h"
#include "support/point_pair_cases.h"
#include "support/support.h"

/* ---- 2. sphere closed forms ------------------------------------------------------------------ */

Test(point_pair, sphere_sphere) {
  pointShape a = point_shape_make(POINT_SPHERE, 0.5, 0, 0), b = point_shape_make(POINT_SPHERE, 0.4, 0, 0);
  pointContact c;
  cr_assert(point_pair(&a, at(0, 0, 0.8), &b, at(0, 0, 0), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0, 0, 0.3), v3(0, 0, 0.4), TOL);
  /* touching: Drake reports depth 0 for the sphere closed forms (depth >= 0) */
  cr_assert(point_pair(&a, at(0.9, 0, 0), &b, at(0, 0, 0), &c));
  cr_expect_eq(c.depth, 0);
  cr_expect_not(point_pair(&a, at(0.9 + 1e-12, 0, 0), &b, at(0, 0, 0), &c));
  /* coincident centres: the gradient is B's +x axis (here rotated onto world +y) */
  cr_assert(point_pair(&a, at(1, 2, 3), &b, pose(v3(0, 0, 1), PI / 2, v3(1, 2, 3)), &c));
  cr_expect(fabs(c.depth - 0.9) <= TOL);
  expect_v3(c.nhat_BA, v3(0, 1, 0), TOL, "centre rule");
}

Test(point_pair, sphere_box) {
  pointShape s = point_shape_make(POINT_SPHERE, 0.5, 0, 0), b = point_shape_make(POINT_BOX, 2, 2, 2);
  pointContact c;
  double k = 0.2 * sqrt(3.0);
  /* the same three cases in two box poses: axis-aligned and turned 30° about (1, 2, 3) */
  for (int rot = 0; rot < 2; ++rot) {
    xform M = rot ? pose(v3(1, 2, 3), PI / 6, v3(0.3, -0.2, 1)) : xf_identity();
    xform XB = moved(M, xf_identity());
    pointContact e;
    /* face region */
    cr_assert(point_pair(&s, moved(M, at(0, 0, 1.25)), &b, XB, &c));
    e.depth = 0.25;
    e.nhat_BA = v3(0, 0, 1);
    e.p_WCa = v3(0, 0, 0.75);
    e.p_WCb = v3(0, 0, 1);
    e = contact_moved(M, e);
    expect_contact(&c, e.depth, e.nhat_BA, e.p_WCa, e.p_WCb, TOL);
    /* corner region */
    cr_assert(point_pair(&s, moved(M, at(1.2, 1.2, 1.2)), &b, XB, &c));
    e.depth = 0.5 - k;
    e.nhat_BA = v3_scale(v3(1, 1, 1), 1 / sqrt(3.0));
    e.p_WCb = v3(1, 1, 1);
    e.p_WCa = v3_axpy(v3(1.2, 1.2, 1.2), -0.5, e.nhat_BA);
    e = contact_moved(M, e);
    expect_contact(&c, e.depth, e.nhat_BA, e.p_WCa, e.p_WCb, TOL);
    /* centre inside the box: Drake's inside rule, the nearest face (+x) */
    cr_assert(point_pair(&s, moved(M, at(0.9, 0, 0.2)), &b, XB, &c));
    e.depth = 0.6;
    e.nhat_BA = v3(1, 0, 0);
    e.p_WCb = v3(1, 0, 0.2);
    e.p_WCa = v3(0.4, 0, 0.2);
    e = contact_moved(M, e);
    expect_contact(&c, e.depth, e.nhat_BA, e.p_WCa, e.p_WCb, TOL);
    /* box first: the same contact seen from the other side */
    cr_assert(point_pair(&b, XB, &s, moved(M, at(0.9, 0, 0.2)), &c));
    expect_contact(&c, e.depth, v3_neg(e.nhat_BA), e.p_WCb, e.p_WCa, TOL);
  }
}

Test(point_pair, sphere_cylinder) {
  pointShape s = point_shape_make(POINT_SPHERE, 0.5, 0, 0);
  pointShape cyl = point_shape_make(POINT_CYLINDER, 1, 2, 0);
  pointShape cap = point_shape_make(POINT_CAPSULE, 0.3, 2, 0);
  pointContact c;
  /* cylinder upright: barrel, then cap */
  cr_assert(point_pair(&s, at(0, 1.3, 0.2), &cyl, xf_identity(), &c));
  expect_contact(&c, 0.2, v3(0, 1, 0), v3(0, 0.8, 0.2), v3(0, 1, 0.2), TOL);
  cr_assert(point_pair(&s, at(0.2, 0.1, 1.4), &cyl, xf_identity(), &c));
  expect_contact(&c, 0.1, v3(0, 0, 1), v3(0.2, 0.1, 0.9), v3(0.2, 0.1, 1), TOL);
  /* cylinder on its side (axis along world y): the barrel faces +z */
  {
    xform XC = pose(v3(1, 0, 0), PI / 2, v3(0, 0, 0));
    cr_assert(point_pair(&s, at(0, 0.5, 1.4), &cyl, XC, &c));
    expect_contact(&c, 0.1, v3(0, 0, 1), v3(0, 0.5, 0.9), v3(0, 0.5, 1), TOL);
  }
  /* capsule beside the spine */
  cr_assert(point_pair(&s, at(0.7, 0, 0.4), &cap, xf_identity(), &c));
  expect_contact(&c, 0.1, v3(1, 0, 0), v3(0.2, 0, 0.4), v3(0.3, 0, 0.4), TOL);
}

Test(point_pair, sphere_capsule_and_halfspace) {
  pointShape s = point_shape_make(POINT_SPHERE, 0.5, 0, 0);
  pointShape cap = point_shape_make(POINT_CAPSULE, 0.3, 2, 0);
  pointShape hs = point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  pointContact c;
  /* beyond the top cap, diagonally: Ao − (0, 0, 1) = 0.6·(0, 0.6, 0.8) */
  cr_assert(point_pair(&s, at(0, 0.36, 1.48), &cap, xf_identity(), &c));
  expect_contact(&c, 0.2, v3(0, 0.6, 0.8), v3(0, 0.06, 1.08), v3(0, 0.18, 1.24), TOL);
  /* half-space tilted 30° about x, through (0, 0, 1) */
  {
    xform XH = pose(v3(1, 0, 0), PI / 6, v3(0, 0, 1));
    vec3 n = v3(0, -0.5, sqrt(3.0) / 2);
    vec3 Ao = v3_axpy(v3(2, 0, 1), 0.4, n);
    cr_assert(point_pair(&s, at(Ao.x, Ao.y, Ao.z), &hs, XH, &c));
    expect_contact(&c, 0.1, n, v3_axpy(Ao, -0.5, n), v3(2, 0, 1), TOL);
    cr_assert(point_pair(&hs, XH, &s, at(Ao.x, Ao.y, Ao.z), &c));
    expect_contact(&c, 0.1, v3_neg(n), v3(2, 0, 1), v3_axpy(Ao, -0.5, n), TOL);
  }
}
