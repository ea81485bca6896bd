/* Convex hulls (host/assets/mesh_hull.c): closed, outward, containing every point, Euler
 * characteristic 2, vertices bit for bit from the input, deterministic. */
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

/* Closed and consistently wound (each directed edge once, its reverse once), every vertex
 * used, Euler characteristic V − E + F = 2. */
static void assert_closed_sphere(const triMesh *m) {
  int nedge = 0;
  for (int t = 0; t < m->ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
      int same = 0, rev = 0;
      for (int u = 0; u < m->ntri; ++u)
        for (int j = 0; j < 3; ++j) {
          int c = m->tri[3 * u + j], d = m->tri[3 * u + (j + 1) % 3];
          same += c == a && d == b;
          rev += c == b && d == a;
        }
      cr_assert(same == 1 && rev == 1, "edge %d->%d: %d same, %d reversed", a, b, same, rev);
      nedge += a < b;
    }
  char *used = calloc((size_t)m->nvert, 1);
  for (int i = 0; i < 3 * m->ntri; ++i) used[m->tri[i]] = 1;
  for (int v = 0; v < m->nvert; ++v) cr_assert(used[v], "vertex %d unused", v);
  free(used);
  cr_assert_eq(m->nvert - nedge + m->ntri, 2, "Euler characteristic: V %d E %d F %d", m->nvert, nedge, m->ntri);
}

/* Every point on the inner side of every face's plane, within tol. */
static void assert_contains(const triMesh *m, const double *pts, int n, double tol) {
  for (int t = 0; t < m->ntri; ++t) {
    const double *a = m->vert + 3 * m->tri[3 * t], *nrm = m->normal + 3 * t;
    for (int i = 0; i < n; ++i) {
      const double *p = pts + 3 * i;
      double d = nrm[0] * (p[0] - a[0]) + nrm[1] * (p[1] - a[1]) + nrm[2] * (p[2] - a[2]);
      cr_assert(d <= tol, "point %d is %.3g outside triangle %d", i, d, t);
    }
  }
}

/* Every hull vertex is one of the input points, bit for bit. */
static void assert_vertices_are_inputs(const triMesh *m, const double *pts, int n) {
  for (int v = 0; v < m->nvert; ++v) {
    int found = 0;
    for (int i = 0; i < n && !found; ++i) found = memcmp(m->vert + 3 * v, pts + 3 * i, 3 * sizeof(double)) == 0;
    cr_assert(found, "hull vertex %d is not an input point", v);
  }
}

static const double kCorners[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                       {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};

Test(mesh_hull, random_points_are_contained) {
  test_rng r = {42};
  enum { N = 500 };
  double pts[3 * N];
  for (int i = 0; i < 3 * N; ++i) pts[i] = test_rng_uniform(&r, -1, 1);
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "geometry 'rocks'"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  /* the hull's tolerance is 1e-10 of the 3.5 diagonal; rounding in the test's own plane test
   * adds ~1e-16, so 1e-9 is a comfortable bound */
  assert_contains(&h, pts, N, 1e-9);
  assert_vertices_are_inputs(&h, pts, N);
  /* closed, convex (every point, its own vertices included, inside every face) and built
   * from input points: that is the hull; the volume only has to be plausible (~88% of the
   * cube for 500 uniform points) */
  double v = hull_volume(&h);
  cr_assert(v > 6.5 && v < 8, "volume %g of 500 points in a cube of volume 8", v);
  tri_mesh_free(&h);
}

Test(mesh_hull, cube_corners_with_interior_points_give_the_cube) {
  test_rng r = {42};
  enum { N = 300 };
  double pts[3 * N];
  for (int i = 0; i < 3 * N; ++i) pts[i] = test_rng_uniform(&r, 0.001, 0.999);
  for (int c = 0; c < 8; ++c) memcpy(pts + 3 * (37 * c + 5), kCorners[c], sizeof kCorners[c]); /* scattered */
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "box"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  cr_assert_eq(h.nvert, 8);
  cr_assert_eq(h.ntri, 12);
  /* coordinates 0 and 1: the signed volumes are exact */
  cr_assert_eq(hull_volume(&h), 1.0);
  assert_contains(&h, pts, N, 0);
  tri_mesh_free(&h);
}

Test(mesh_hull, coplanar_points_on_a_lattice) {
  /* 5x5x5 lattice: every face holds 25 coplanar points and every edge 5 collinear ones */
  enum { K = 5, N = K * K * K };
  double pts[3 * N];
  for (int i = 0; i < N; ++i) {
    pts[3 * i] = i % K;
    pts[3 * i + 1] = (i / K) % K;
    pts[3 * i + 2] = i / (K * K);
  }
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "lattice"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  cr_assert_eq(h.nvert, 8, "points on faces and edges are not vertices");
  cr_assert_eq(hull_volume(&h), 64.0);
  assert_contains(&h, pts, N, 0);
  tri_mesh_free(&h);
}

Test(mesh_hull, points_on_cube_faces_with_tiny_noise) {
  /* nearly coplanar: 2000 points on the faces of the unit cube, pushed in or out by up to
   * 1e-13 (far below the 1.7e-10 tolerance), plus the corners */
  test_rng r = {7};
  enum { N = 2008 };
  double *pts = malloc(3 * N * sizeof(double));
  for (int i = 0; i < 2000; ++i) {
    int axis = i % 3, side = (i / 3) % 2;
    for (int k = 0; k < 3; ++k) pts[3 * i + k] = test_rng_uniform(&r, 0, 1);
    pts[3 * i + axis] = side + test_rng_uniform(&r, -1e-13, 1e-13);
  }
  for (int c = 0; c < 8; ++c) memcpy(pts + 3 * (2000 + c), kCorners[c], sizeof kCorners[c]);
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "noisy box"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  assert_contains(&h, pts, N, 1e-9);
  cr_assert_float_eq(hull_volume(&h), 1.0, 1e-9); /* faces lean by at most the tolerance */
  tri_mesh_free(&h);
  free(pts);
}

Test(mesh_hull, sphere_points_duplicates_and_far_origin) {
  /* Fibonacci sphere: every point is a hull vertex; each point given twice; centred at 1e4 */
  enum { M = 300, N = 2 * M };
  double pts[3 * N];
  const double golden = 2.399963229728653; /* π(3 − √5) */
  for (int i = 0; i < M; ++i) {
    double z = 1 - (2 * i + 1) / (double)M, rho = sqrt(1 - z * z), phi = golden * i;
    pts[3 * i] = 1e4 + rho * cos(phi);
    pts[3 * i + 1] = -2e4 + rho * sin(phi);
    pts[3 * i + 2] = 3e4 + z;
    memcpy(pts + 3 * (M + i), pts + 3 * i, 3 * sizeof(double));
  }
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "ball"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  cr_assert_eq(h.nvert, M);
  /* the test's plane test rounds at ~3e4·1e-16 = 3e-12; the hull's tolerance is ~4e-10 */
  assert_contains(&h, pts, N, 1e-9);
  double v = hull_volume(&h);
  /* the volume of an inscribed polytope with 300 vertices is ~1.5% below 4π/3; computed
   * about a far origin it loses ~1e-8 to cancellation */
  cr_assert(v > 0.98 * 4.18879 && v < 4.18879, "volume %.9g", v);
  tri_mesh_free(&h);
}

Test(mesh_hull, thin_slab_far_from_the_origin) {
  /* a 2e-5-thick plate: sliver faces round the rim, far from the origin */
  test_rng r = {9};
  enum { N = 400 };
  double pts[3 * N];
  for (int i = 0; i < N; ++i) {
    pts[3 * i] = 50 + test_rng_uniform(&r, -1, 1);
    pts[3 * i + 1] = test_rng_uniform(&r, -1, 1);
    pts[3 * i + 2] = -7 + test_rng_uniform(&r, -1e-5, 1e-5);
  }
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, N, &h, "plate"), ISO_OK, "%s", iso_last_error());
  assert_closed_sphere(&h);
  assert_contains(&h, pts, N, 1e-9); /* tol ≈ 2.8e-10 + 64·ε·50 ≈ 3e-10 */
  tri_mesh_free(&h);
}

Test(mesh_hull, deterministic) {
  test_rng r = {3};
  enum { N = 400 };
  double pts[3 * N];
  for (int i = 0; i < 3 * N; ++i) pts[i] = test_rng_uniform(&r, -2, 2);
  triMesh a, b;
  cr_assert_eq(mesh_convex_hull(pts, N, &a, "x"), ISO_OK);
  cr_assert_eq(mesh_convex_hull(pts, N, &b, "x"), ISO_OK);
  cr_assert_eq(a.ntri, b.ntri);
  cr_assert_arr_eq(a.tri, b.tri, (size_t)a.ntri * 3 * sizeof(int));
  cr_assert_arr_eq(a.vert, b.vert, (size_t)a.nvert * 3 * sizeof(double));
  tri_mesh_free(&a);
  tri_mesh_free(&b);
}

static void expect_hull_error(const double *pts, int n, const char *needle) {
  triMesh h;
  isoStatus st = mesh_convex_hull(pts, n, &h, "geometry 'flat'");
  cr_assert_eq(st, ISO_ERR_INVALID, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "geometry 'flat'") != NULL, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
}

Test(mesh_hull, degenerate_inputs_fail) {
  test_rng r = {42};
  enum { N = 50 };
  double pts[3 * N];
  expect_hull_error(&kCorners[0][0], 3, "at least 4 points, got 3");
  for (int i = 0; i < N; ++i) { /* coplanar: the tilted plane x + y + z = 1 */
    pts[3 * i] = test_rng_uniform(&r, -1, 1);
    pts[3 * i + 1] = test_rng_uniform(&r, -1, 1);
    pts[3 * i + 2] = 1 - pts[3 * i] - pts[3 * i + 1];
  }
  expect_hull_error(pts, N, "coplanar");
  for (int i = 0; i < N; ++i) { /* collinear */
    double t = test_rng_uniform(&r, -1, 1);
    pts[3 * i] = t;
    pts[3 * i + 1] = 2 * t;
    pts[3 * i + 2] = -t;
  }
  expect_hull_error(pts, N, "collinear");
  for (int i = 0; i < N; ++i) { /* not flat, but thinner than 1e-7 of its extent: refused */
    pts[3 * i] = test_rng_uniform(&r, -1, 1);
    pts[3 * i + 1] = test_rng_uniform(&r, -1, 1);
    pts[3 * i + 2] = test_rng_uniform(&r, -1e-9, 1e-9);
  }
  expect_hull_error(pts, N, "coplanar (thickness");
  for (int i = 0; i < 3 * N; ++i) pts[i] = 0.25; /* coincident */
  expect_hull_error(pts, N, "coincide");
  memcpy(pts, kCorners, sizeof kCorners);
  pts[13] = NAN;
  expect_hull_error(pts, 8, "point 4 is not finite");
}
