/* The hydroelastic narrow phase (kernels/hydro/narrow.h) against half-spaces: tet–rigid
 * half-space (drake_algorithms §2.3) and rigid triangle–compliant half-space (§2.4), random
 * slices and triangles against brute force, and touching and known cases. Each random test
 * compares against the brute-force reference of tests/support/hydro_reference.h. Coordinates,
 * gradients and field values are O(1) (|x| <= 2, |g| <= 4), so absolute tolerances are used with
 * the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/hydro/narrow.h"
#include "support/hydro_reference.h"
#include "support/rng.h"
#include "support/support.h"

/* ---- tet–rigid half-space ------------------------------------------------------------------- */

Test(tet_halfspace, random_slices_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tet[4];
    rand_tet(&r, rand_v3(&r, -1, 1), 1, tet);
    vec3 n = rand_unit(&r);
    double d = -v3_dot(n, rand_v3(&r, -1.5, 1.5));
    vec3 g = rand_v3(&r, -3, 3);
    double c = test_rng_uniform(&r, -1, 1), p[4];
    for (int k = 0; k < 4; ++k) p[k] = hydro_field_eval(g, c, tet[k]);
    hydroFace f;
    int got = hydro_tet_halfspace(tet, p, g, n, d, &f);
    hs h[4];
    tet_halfspaces(tet, h);
    vec3 cen;
    double area_ref = plane_region(v3_scale(n, -d), n, h, 4, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a slice of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, n, area_ref, cen, "tet_halfspace", trial);
    cr_assert(f.nvert <= 4);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      cr_assert(fabs(v3_dot(n, x) + d) <= 1e-12, "trial %d: off the boundary", trial);
      cr_assert(hs_violation(h, 4, x) <= 1e-12, "trial %d: outside the tet", trial);
      /* interpolated vertex pressures equal the linear field (values O(10), 1e-12 margin) */
      cr_assert(fabs(f.vert_p[i] - hydro_field_eval(g, c, x)) <= 1e-12, "trial %d: pressure", trial);
    }
    cr_assert(fabs(f.p0 - hydro_field_eval(g, c, f.centroid)) <= 1e-12);
    cr_assert(f.gN == INFINITY && f.grad_M.x == g.x && fabs(f.gM - v3_dot(g, f.normal)) <= 1e-14);
  }
  cr_assert(faces > 500 && big > 300, "faces %d, big %d", faces, big);
}

/* Touching the boundary at a vertex, along an edge, with a face; no gradient filter. */
Test(tet_halfspace, touching_cases) {
  vec3 tet[4];
  std_tet(tet, 1);
  double p[4] = {1, 0, 0, 0};
  hydroFace f;
  vec3 g = v3(-1, -1, -1);
  /* vertex 0 on the plane x + y + z = 0, the tet outside (above) or the plane normal reversed */
  vec3 n = v3_normalize(v3(1, 1, 1));
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, n, 0, &f), 0, "vertex touch, tet outside the solid");
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3_neg(n), 0, &f), 0, "vertex touch, tet inside the solid");
  /* edge 0–1 (the x axis) on the plane y + z = 0 */
  vec3 m = v3_normalize(v3(0, 1, 1));
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, m, 0, &f), 0, "edge touch, outside");
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3_neg(m), 0, &f), 0, "edge touch, inside");
  /* face z = 0 on the plane with the tet outside the solid: the face itself (Drake slices it);
   * with the tet inside the solid the code is 0000 */
  cr_assert(hydro_tet_halfspace(tet, p, g, v3(0, 0, 1), 0, &f));
  cr_assert(fabs(f.area - 0.5) <= 1e-15 && fabs(f.normal.z - 1) <= 4e-16);
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3(0, 0, -1), 0, &f), 0);
  /* gradient pointing away from the plane normal: still a face (no filter, §2.3) */
  cr_assert(hydro_tet_halfspace(tet, p, v3(0, 0, -5), v3(0, 0, 1), -0.5, &f));
  cr_assert(fabs(f.gM + 5) <= 1e-14); /* normal from vertices on z = 0.5: ulps */
}

/* ---- rigid triangle–compliant half-space ---------------------------------------------------- */

Test(tri_halfspace, random_triangles_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0, filtered = 0;
  const double Eh = 1e4; /* E/h, Pa/m: pressure tolerances scale with it */
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tri[3];
    for (int i = 0; i < 3; ++i) tri[i] = rand_v3(&r, -1, 1);
    vec3 wn = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
    if (v3_norm(wn) < 0.05) continue;
    vec3 nt = v3_normalize(wn);
    /* the half-space normal mostly against the triangle normal */
    vec3 n = v3_normalize(v3_add(v3_neg(nt), rand_v3(&r, -1.2, 1.2)));
    double d = test_rng_uniform(&r, -0.8, 0.8), margin = trial % 3 ? test_rng_uniform(&r, 0, 0.1) : 0;
    hydroFace f;
    int got = hydro_tri_compliant_halfspace(tri, nt, n, d, Eh, margin, &f);
    if (!aligned(nt, v3_neg(n))) {
      cr_assert_eq(got, 0, "trial %d: normal filter", trial);
      ++filtered;
      continue;
    }
    hs h[4];
    tri_halfspaces(tri, h);
    h[3].a = n;
    h[3].b = d - margin; /* the shifted boundary */
    vec3 cen;
    double area_ref = plane_region(tri[0], nt, h, 4, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a face of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, nt, area_ref, cen, "tri_halfspace", trial);
    cr_assert(f.nvert <= 4);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      double phi = v3_dot(n, x) + d;
      cr_assert(phi <= margin + 1e-12, "trial %d: vertex beyond the shifted boundary", trial);
      cr_assert(hs_violation(h, 3, x) <= 1e-12, "trial %d: outside the triangle", trial);
      /* p = −φ·E/h with the original φ; the same expression up to the product order */
      cr_assert(fabs(f.vert_p[i] + phi * Eh) <= 1e-12 * Eh, "trial %d: pressure", trial);
    }
    cr_assert(fabs(f.p0 + (v3_dot(n, f.centroid) + d) * Eh) <= 1e-12 * Eh, "trial %d: p0", trial);
    cr_assert(f.grad_M.x == -Eh * n.x && f.grad_M.y == -Eh * n.y && f.grad_M.z == -Eh * n.z);
    cr_assert(f.gN == INFINITY && fabs(f.gM - v3_dot(f.grad_M, f.normal)) <= 1e-12 * Eh);
  }
  cr_assert(faces > 300 && big > 200 && filtered > 50, "faces %d, big %d, filtered %d", faces, big, filtered);
}

/* Known geometry: a unit right triangle half below z = 0 (half-space below, normal +z), triangle
 * facing down into it; the margin lets the layer above the boundary in with negative pressure. */
Test(tri_halfspace, known_cases) {
  /* a vertical triangle in the plane y = 0 (normal −y), z in [−0.5, 0.5]; a tilted half-space
   * whose boundary meets that plane along z = 0 */
  vec3 tri[3] = {{0, 0, -0.5}, {1, 0, -0.5}, {0, 0, 0.5}};
  vec3 nt = v3_normalize(v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]))); /* −y */
  vec3 n = v3_normalize(v3(0, 1, 1)); /* angle to −nt = 45°: passes the filter */
  hydroFace f;
  /* boundary y + z = 0 within the triangle's plane y = 0 is z = 0 */
  cr_assert(hydro_tri_compliant_halfspace(tri, nt, n, 0, 100, 0, &f));
  /* the part z <= 0 of the triangle: trapezoid between z = −0.5 (width 1) and z = 0 (width 0.5) */
  cr_assert(fabs(f.area - 0.375) <= 1e-15, "area %.17g", f.area);
  cr_assert(f.nvert == 4 && fabs(f.normal.y + 1) <= 4e-16);
  double p_min = INFINITY;
  for (int i = 0; i < f.nvert; ++i) p_min = fmin(p_min, f.vert_p[i]);
  cr_assert(fabs(p_min) <= 1e-13, "zero pressure on the boundary");
  /* margin 0.25·√2 along n shifts the boundary to z = 0.5 in the plane y = 0: the whole
   * triangle (area 0.5) with negative pressure above z = 0 */
  cr_assert(hydro_tri_compliant_halfspace(tri, nt, n, 0, 100, 0.5 / sqrt(2.0), &f));
  cr_assert(fabs(f.area - 0.5) <= 1e-15);
  cr_assert_eq(f.nvert, 3);
  /* the top vertex (0, 0, 0.5) has φ = 0.5/√2 */
  for (int i = 0; i < 3; ++i)
    if (f.vert[i].z > 0.4) cr_assert(fabs(f.vert_p[i] + 100 * 0.5 / sqrt(2.0)) <= 1e-12);
  /* the filter: triangle facing along +n (away from the half-space) */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, v3_neg(nt), n, 0, 100, 0, &f), 0);
  /* touching at the top vertex only: solid {z >= 0.5} */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, nt, v3(0, 0, -1), 0.5, 100, 0, &f), 0);
  /* the bottom edge on the boundary and the rest outside: solid {z <= −0.5} */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, nt, v3(0, 0, 1), 0.5, 100, 0, &f), 0);
}
