/* The hydroelastic narrow phase (kernels/hydro/narrow.h), rigid triangle–tet (drake_algorithms
 * §2.2): random pairs against brute force, a triangle coplanar with a tet face, and the normal
 * filter at its 5π/8 threshold. Each random test compares against the brute-force reference of
 * tests/support/hydro_reference.h. Coordinates, gradients and field values are O(1) (|x| <= 2,
 * |g| <= 4), so absolute tolerances are used with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/hydro/narrow.h"
#include "support/hydro_reference.h"
#include "support/rng.h"
#include "support/support.h"

/* ---- triangle–tet --------------------------------------------------------------------------- */

Test(tri_tet, random_pairs_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0, filtered = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tet[4], tri[3];
    rand_tet(&r, v3_zero(), 1, tet);
    for (int i = 0; i < 3; ++i) tri[i] = rand_v3(&r, -1.5, 1.5);
    vec3 wn = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
    if (v3_norm(wn) < 0.05) continue;
    vec3 nt = v3_normalize(wn);
    /* one in four: the caller's normal disagrees with the winding; the normal wins */
    if (trial % 4 == 3) nt = v3_neg(nt);
    vec3 g = v3_add(v3_scale(nt, test_rng_uniform(&r, 0, 2)), rand_v3(&r, -1.5, 1.5));
    double c = test_rng_uniform(&r, -1, 1);
    hydroFace f;
    int got = hydro_tri_tet(tri, nt, tet, g, c, &f);
    if (!aligned(nt, g)) {
      cr_assert_eq(got, 0, "trial %d: normal filter", trial);
      ++filtered;
      continue;
    }
    hs h[7];
    tri_halfspaces(tri, h);
    tet_halfspaces(tet, h + 3);
    vec3 cen;
    double area_ref = plane_region(tri[0], nt, h, 7, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a face of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, nt, area_ref, cen, "tri_tet", trial);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      /* on the triangle's plane and inside the triangle and the tet (O(1) distances) */
      cr_assert(fabs(v3_dot(nt, v3_sub(x, tri[0]))) <= 1e-12, "trial %d: off the triangle plane", trial);
      cr_assert(hs_violation(h, 7, x) <= 1e-12, "trial %d: vertex %d outside", trial, i);
      cr_assert(fabs(f.vert_p[i] - hydro_field_eval(g, c, x)) <= 1e-13); /* same expression */
    }
    cr_assert(fabs(f.p0 - hydro_field_eval(g, c, f.centroid)) <= 1e-12);
    cr_assert(f.gN == INFINITY && f.grad_N.x == 0 && f.grad_N.y == 0 && f.grad_N.z == 0);
    cr_assert(f.grad_M.x == g.x && f.grad_M.y == g.y && f.grad_M.z == g.z);
    cr_assert(fabs(f.gM - v3_dot(g, f.normal)) <= 1e-14); /* O(4) values */
    cr_assert(f.nvert <= 7, "a triangle clipped by a tet has at most 7 vertices");
  }
  cr_assert(faces > 300 && big > 100 && filtered > 50, "faces %d, big %d, filtered %d", faces, big, filtered);
}

/* The triangle lies in the plane of a tet face (touching from outside): the face is kept
 * (signed distance 0 is inside) and the polygon is that tet face. */
Test(tri_tet, coplanar_with_tet_face) {
  vec3 tet[4], tri[3] = {{-1, -1, 0}, {3, -1, 0}, {-1, 3, 0}};
  std_tet(tet, 1);
  hydroFace f;
  cr_assert(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(0.1, 0.2, 1), 0, &f));
  /* exact inputs: a few roundings of O(1) */
  cr_assert(fabs(f.area - 0.5) <= 1e-15 && fabs(f.normal.z - 1) <= 4e-16 && f.nvert == 3);
  /* a shared vertex only: the triangle touches the tet at the origin */
  vec3 tri2[3] = {{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}};
  cr_assert_eq(hydro_tri_tet(tri2, v3(0, 0, -1), tet, v3(0, 0, -1), 0, &f), 0);
}

/* The normal filter: n̂_tri·ĝ > cos(5π/8), strictly, on both sides of the threshold. */
Test(tri_tet, normal_filter) {
  vec3 tet[4], tri[3] = {{-1, -1, 0.2}, {3, -1, 0.2}, {-1, 3, 0.2}};
  std_tet(tet, 1);
  hydroFace f;
  cr_assert_eq(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(0, 0, -1), 0, &f), 0, "opposed");
  double lo = 5 * PI / 8 - 1e-9, hi = 5 * PI / 8 + 1e-9;
  cr_assert(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(sin(lo), 0, cos(lo)), 0, &f));
  cr_assert_eq(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(sin(hi), 0, cos(hi)), 0, &f), 0);
  cr_assert_eq((double)HYDRO_COS_MAX_ANGLE, cos(5 * PI / 8), "the literal is the double cos(5π/8)");
}
