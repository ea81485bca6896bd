/* Drake's convex tet mesh made from a hull (host/assets/mesh_convex.c): positive tets, the
 * volume of the hull, the centroid where it belongs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

static double vol6(const double a[3], const double b[3], const double c[3], const double d[3]) {
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
    w[k] = d[k] - a[k];
  }
  return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2];
}

static double hull_volume(const triMesh *m) {
  const double o[3] = {0, 0, 0};
  double v = 0;
  for (int t = 0; t < m->ntri; ++t)
    v += vol6(o, m->vert + 3 * m->tri[3 * t], m->vert + 3 * m->tri[3 * t + 1], m->vert + 3 * m->tri[3 * t + 2]);
  return v / 6;
}

static const double kCorners[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                       {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};

static double tet_v6(const tetMesh *m, int e) {
  const int *t = m->tet + 4 * e;
  return vol6(m->vert + 3 * t[0], m->vert + 3 * t[1], m->vert + 3 * t[2], m->vert + 3 * t[3]);
}

Test(mesh_convex_tets, volume_of_the_hull_and_positive_tets) {
  test_rng r = {11};
  enum { N = 200 };
  double pts[3 * N];
  for (int i = 0; i < 3 * N; ++i) pts[i] = test_rng_uniform(&r, -1, 1) * (i % 3 + 1);
  triMesh h;
  tetMesh m;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "rock"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_convex_tets(&h, &m, "rock"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.ntet, h.ntri);
  cr_assert_eq(m.nvert, h.nvert + 1);
  cr_assert_null(m.pressure);
  double v = 0;
  for (int e = 0; e < m.ntet; ++e) {
    double v6 = tet_v6(&m, e);
    cr_assert(v6 > 0, "tet %d: 6V = %g", e, v6);
    cr_assert_eq(m.tet[4 * e], h.nvert, "the centroid is every tet's first vertex");
    v += v6 / 6;
  }
  cr_assert_float_eq(v, hull_volume(&h), 1e-12 * v); /* the same volume summed about two points */
  cr_assert_eq(mesh_tet_gradients(&m, "rock"), ISO_OK, "%s", iso_last_error());
  triMesh s;
  cr_assert_eq(mesh_tet_boundary(&m, &s, "rock"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(s.ntri, h.ntri);
  tri_mesh_free(&s);
  tet_mesh_free(&m);
  tri_mesh_free(&h);
}

Test(mesh_convex_tets, cube_centroid) {
  triMesh h;
  tetMesh m;
  const double side[3] = {2, 3, 4};
  double pts[24];
  for (int i = 0; i < 24; ++i) pts[i] = kCorners[i / 3][i % 3] * side[i % 3] - 1;
  cr_assert_eq(mesh_convex_hull(pts, 8, &h, "box"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_convex_tets(&h, &m, "box"), ISO_OK, "%s", iso_last_error());
  const real *c = m.vert + 3 * (m.nvert - 1);
  /* exact inputs, a handful of roundings */
  cr_assert_float_eq(c[0], 0.0, 1e-15);
  cr_assert_float_eq(c[1], 0.5, 1e-15);
  cr_assert_float_eq(c[2], 1.0, 1e-15);
  tet_mesh_free(&m);
  tri_mesh_free(&h);
}

Test(mesh_convex_tets, inward_hull_fails) {
  triMesh h;
  tetMesh m;
  cr_assert_eq(mesh_convex_hull(&kCorners[0][0], 8, &h, "box"), ISO_OK);
  for (int t = 0; t < h.ntri; ++t) { /* wind every triangle inward */
    int s = h.tri[3 * t + 1];
    h.tri[3 * t + 1] = h.tri[3 * t + 2];
    h.tri[3 * t + 2] = s;
  }
  cr_assert_eq(mesh_convex_tets(&h, &m, "geometry 'inside-out'"), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "geometry 'inside-out'") != NULL, "%s", iso_last_error());
  tri_mesh_free(&h);
}
