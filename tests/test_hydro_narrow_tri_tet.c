/* The hydroelastic narrow phase (kernels/hydro/narrow.h), rigid triangle–tet (drake_algorithms
 * §2.2): random pairs against brute force, a triangle coplanar with a tet face and the normal
 * filter at its 5π/8 threshold, with coordinates, gradients and field values of O(1) (|x| <= 2,
 * |g| <= 4), so absolute tolerances are used with the reason next to each (the brute-force
 * reference is tests/support/hydro_reference.h); then triangles skipped before the clip, byte
 * for byte against the clip. */
#include <criterion/criterion.h>
#include <math.h>

#include <string.h>

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

/* The triangle–tet pair without the skip of a triangle beyond a tet face: the filter, then the
 * clip by the tet's four faces as it was. */
static int tri_tet_full(const vec3 tri[3], vec3 tri_normal, const vec3 tet[4], vec3 g, real c, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  const vec3 nt = v3_normalize(tri_normal);
  if (!hydro_normal_along(nt, g)) return 0;
  poly[0] = tri[0], poly[1] = tri[1], poly[2] = tri[2];
  int n = hydro_clip_by_tet(poly, 3, tet);
  if (n <= 0) return 0;
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  hydro_emit_face(out, poly, (real *)0, n, nt, g, c, g, v3_zero(), 1);
  return 1;
}

/* Triangles skipped for lying beyond a tet face (hydro_beyond_faces) give what the clip gives,
 * byte for byte: a triangle in the plane of one of the tet's faces, moved off it by gaps from
 * 1e-6 down to 0 and into the tet, in random poses and at coordinates up to 1e3 from the
 * origin. In the plane (gap 0) the clip keeps the triangle's part on the face, which a margin
 * below zero skips (−1e-6 fails here); the skip must also fire on the separated ones. */
Test(tri_tet, skipped_triangles_give_the_clips_bytes) {
  test_rng r = {515};
  const double gaps[] = {1e-6, 1e-9, 1e-12, 1e-15, 0, 0, -1e-15, -1e-9, -1e-3};
  int faces = 0, touching = 0, skipped = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    const double far = rep % 3 == 0 ? 1e3 : 1;
    const quat q = rand_rotation(&r);
    const vec3 at = rand_v3(&r, -far, far);
    const double gap = gaps[rep % 9];
    /* the tet's face z = 0 (face 3), the triangle below it by the gap, covering part of it */
    vec3 t0[4], tet[4], tri[3];
    std_tet(t0, 1);
    const vec3 tr0[3] = {{-0.2, -0.2, 0}, {0.9, -0.1, 0}, {-0.1, 0.9, 0}};
    for (int i = 0; i < 4; ++i) tet[i] = v3_add(quat_rotate(q, t0[i]), at);
    for (int i = 0; i < 3; ++i) tri[i] = v3_add(quat_rotate(q, v3_sub(tr0[i], v3(0, 0, gap))), at);
    const vec3 up = quat_rotate(q, v3(0, 0, 1));
    const vec3 g = v3_add(up, rand_v3(&r, -0.3, 0.3));
    const real c = -v3_dot(g, at);
    hydroTet T;
    hydro_tet_make(&T, tet, g, c);
    skipped += hydro_tet_solid(&T) && hydro_beyond_faces(tri, 3, &T, hydro_apart_margin(T.asum, hydro_abs_sum(tri, 3)));
    hydroFace fp, fu;
    memset(&fp, 0, sizeof fp), memset(&fu, 0, sizeof fu);
    hydro_tet_make(&T, tet, g, c);
    const int gp = hydro_tri_tet_prepared(tri, up, &T, &fp), gu = tri_tet_full(tri, up, tet, g, c, &fu);
    cr_assert_eq(gp, gu, "rep %d, gap %g: with the skip %d, without %d", rep, gap, gp, gu);
    if (!gu) continue;
    ++faces;
    touching += gap == 0;
    cr_assert(memcmp(&fp, &fu, sizeof fp) == 0, "rep %d: the faces differ", rep);
  }
  cr_assert_gt(skipped, 400, "the skip must fire on the separated triangles (%d)", skipped);
  cr_assert_gt(faces, 400, "faces %d", faces);
  cr_assert_gt(touching, 100, "triangles in the face's plane must make faces (%d)", touching);
}
