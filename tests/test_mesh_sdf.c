/* The approximate signed-distance field of a deformable mesh (mesh_sdf, reference §6.4): 0 on
 * the surface vertices, −(distance to the surface) inside, against the exact distance of a box
 * and the bounds a faceted ball gives; and the compiled model carries the same values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "host/model/model_internal.h"
#include "isobar/isobar.h"
#include "support/fem_meshes.h"
#include "support/support.h"

typedef struct sdfMesh {
  int nv, nt, ntri;
  double *rest;
  int *tet, *tri;
} sdfMesh;

/* Body `id`'s mesh as the model keeps it (rest positions in the world, surface triangles). */
static sdfMesh get_mesh(const isoModel *m, int id) {
  sdfMesh c;
  cr_assert_eq(iso_model_deformable_size(m, id, &c.nv, &c.nt, &c.ntri), ISO_OK);
  c.rest = (double *)malloc(sizeof(double) * 3 * (size_t)c.nv);
  c.tet = (int *)malloc(sizeof(int) * 4 * (size_t)c.nt);
  c.tri = (int *)malloc(sizeof(int) * 3 * (size_t)c.ntri);
  cr_assert(c.rest && c.tet && c.tri);
  cr_assert_eq(iso_model_deformable_mesh(m, id, c.rest, c.tet, c.tri, NULL), ISO_OK);
  return c;
}

static void free_mesh(sdfMesh *c) {
  free(c->rest);
  free(c->tet);
  free(c->tri);
}

/* The compiled model's def_sdf of body `id` equals v bit for bit. */
static void expect_compiled(isoModel *m, int id, const double *v, int nv) {
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  modelView mv;
  model_view_bind(&m->flat, m->flat.arena.base, &mv);
  const int v0 = mv.def_vert0[id];
  cr_assert_eq(mv.def_vert0[id + 1] - v0, nv);
  cr_expect_eq(memcmp(mv.def_sdf + v0, v, sizeof(double) * (size_t)nv), 0, "def_sdf differs from mesh_sdf");
}

/* A 1.0 × 0.8 × 0.6 box of 5 × 4 × 3 cells, placed at (0.3, −0.2, 0.1) (a dyadic offset is not
 * needed: the rest positions are X + p, the same sums the reference below makes). Interior
 * grid vertices get −min over the six faces of the distance, to rounding: the closest point on a
 * face triangle is rebuilt from barycentric weights, so its in-plane coordinates carry a few ulps,
 * which enter the distance squared; 1e-15 m is ~10 ulp of these sizes. */
Test(mesh_sdf, box_interior_is_minus_the_distance_to_the_nearest_face) {
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, 1.0, 0.8, 0.6, 5, 4, 3), 0);
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "box";
  d.vertices = b.X, d.nvert = b.nvert, d.tets = b.tet, d.ntet = b.ntet;
  const double p[3] = {0.3, -0.2, 0.1}, L[3] = {1.0, 0.8, 0.6};
  memcpy(d.position, p, sizeof p);
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  sdfMesh c = get_mesh(m, 0);
  double *s = (double *)malloc(sizeof(double) * (size_t)c.nv);
  cr_assert_eq(mesh_sdf(c.rest, c.nv, c.tri, c.ntri, s, "box"), ISO_OK, "%s", iso_last_error());
  int ninterior = 0;
  for (int v = 0; v < c.nv; ++v) {
    if (fem_mesh_on_boundary(&b, v)) {
      cr_expect_eq(s[v], 0.0, "boundary vertex %d: %g", v, s[v]);
      continue;
    }
    double dmin = INFINITY;
    for (int k = 0; k < 3; ++k) {
      const double x = c.rest[3 * v + k] - p[k];
      dmin = fmin(dmin, fmin(x, L[k] - x));
    }
    cr_expect(fabs(s[v] + dmin) <= 1e-15, "vertex %d: sdf %.17g, −distance %.17g", v, s[v], -dmin);
    ++ninterior;
  }
  cr_expect_eq(ninterior, 4 * 3 * 2);
  expect_compiled(m, 0, s, c.nv);
  free(s);
  free_mesh(&c);
  iso_model_destroy(m);
  fem_mesh_free(&b);
}

/* The example ball (radius R = 0.05, surface vertices on the sphere). Every surface triangle
 * lies inside the ball of radius R (a convex set holding its corners), and every point y of
 * triangle T has |y| >= h_T, its plane's distance from the centre. So an interior vertex x at
 * radius r is at most R − r from the surface (the ray from the centre through x leaves the
 * mesh before the sphere) and at least R_in − r (|x − y| >= |y| − r), R_in = min h_T. The
 * faceting error R − R_in is the whole tolerance (plus 1e-15 m for the file's digits). */
Test(mesh_sdf, ball_is_minus_the_depth_within_the_faceting_error) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "ball";
  d.mesh_file = test_source_path("examples/meshes/soft_ball.vtk");
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  sdfMesh c = get_mesh(m, 0);
  const double R = 0.05;
  double R_in = R;
  unsigned char *on = (unsigned char *)calloc((size_t)c.nv, 1);
  for (int t = 0; t < c.ntri; ++t) {
    const double *a = c.rest + 3 * c.tri[3 * t], *b = c.rest + 3 * c.tri[3 * t + 1], *e = c.rest + 3 * c.tri[3 * t + 2];
    double u[3], w[3], n[3];
    for (int k = 0; k < 3; ++k) u[k] = b[k] - a[k], w[k] = e[k] - a[k];
    n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2], n[2] = u[0] * w[1] - u[1] * w[0];
    const double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double h = (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / nl; /* centre to the plane */
    R_in = fmin(R_in, fabs(h));
    for (int k = 0; k < 3; ++k) on[c.tri[3 * t + k]] = 1;
  }
  cr_assert(R_in > 0.9 * R, "R_in %g", R_in);
  double *s = (double *)malloc(sizeof(double) * (size_t)c.nv);
  cr_assert_eq(mesh_sdf(c.rest, c.nv, c.tri, c.ntri, s, "ball"), ISO_OK, "%s", iso_last_error());
  int ninterior = 0;
  for (int v = 0; v < c.nv; ++v) {
    if (on[v]) {
      cr_expect_eq(s[v], 0.0);
      continue;
    }
    const double *q = c.rest + 3 * v;
    const double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    cr_expect(-s[v] <= R - r + 1e-15 && -s[v] >= R_in - r - 1e-15, "vertex %d at r %g: sdf %.17g not in [%g, %g]", v,
              r, s[v], -(R - r), -(R_in - r));
    ++ninterior;
  }
  cr_expect_eq(ninterior, 216 - 152, "a 5×5×5 grid's 6³ vertices less its 152 on the surface");
  expect_compiled(m, 0, s, c.nv);
  free(s);
  free(on);
  free_mesh(&c);
  iso_model_destroy(m);
}

/* Bad input is refused with words: an index out of range, a non-finite interior vertex. */
Test(mesh_sdf, refusals) {
  const double v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, NAN, 0.1, 0.1};
  const int tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  const int bad[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 7};
  double s[5];
  cr_expect_eq(mesh_sdf(v, 4, tri, 4, s, "t"), ISO_OK);
  cr_expect_eq(mesh_sdf(v, 4, bad, 4, s, "t"), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "names vertex 7") != NULL, "%s", iso_last_error());
  cr_expect_eq(mesh_sdf(v, 5, tri, 4, s, "t"), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "vertex 4 is not finite") != NULL, "%s", iso_last_error());
}
