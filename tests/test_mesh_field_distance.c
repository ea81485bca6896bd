/* The distance pressure field (host/assets/mesh_field_distance.c): deepest vertex E,
 * boundary 0 or −E·δ/d_max, distances exact against a box's analytic distance. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

static const double kCorners[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                       {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};

/* A cube of the given side as Drake's convex mesh: 8 corners plus the centroid. */
static void cube_convex_mesh(double side, tetMesh *m) {
  double pts[24];
  for (int i = 0; i < 24; ++i) pts[i] = kCorners[i / 3][i % 3] * side;
  triMesh h;
  cr_assert_eq(mesh_convex_hull(pts, 8, &h, "cube"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_convex_tets(&h, m, "cube"), ISO_OK, "%s", iso_last_error());
  tri_mesh_free(&h);
}

Test(field_distance, convex_centre_gets_E_boundary_zero) {
  tetMesh m;
  cube_convex_mesh(2.0, &m);
  const double E = 2.5e5;
  cr_assert_eq(field_distance(&m, E, 0, "cube"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.pressure[m.nvert - 1], E, "value/max is exactly 1 at the deepest vertex");
  for (int v = 0; v < m.nvert - 1; ++v) cr_assert_eq(m.pressure[v], 0.0);
  cr_assert_eq(mesh_tet_gradients(&m, "cube"), ISO_OK, "%s", iso_last_error());
  tet_mesh_free(&m);
}

Test(field_distance, margin_moves_the_zero_level_inward) {
  /* boundary: E·(0 − δ)/(d_c + δ − δ) = −E·δ/d_c, so d_c = −E·δ/p_boundary: half the side */
  tetMesh m;
  const double side = 3.0, E = 1e6, margin = 0.1;
  cube_convex_mesh(side, &m);
  cr_assert_eq(field_distance(&m, E, margin, "cube"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.pressure[m.nvert - 1], E);
  for (int v = 0; v < m.nvert - 1; ++v) {
    double dc = -E * margin / m.pressure[v];
    cr_assert_float_eq(dc, side / 2, 1e-14, "vertex %d: centre depth %.17g", v, dc); /* a few roundings */
  }
  tet_mesh_free(&m);
}

/* A box of nx·ny·nz cells of size h, each split into 6 Kuhn tets along its main diagonal
 * (the split is the same in every cell, so the mesh is conforming). */
static void grid_mesh(int nx, int ny, int nz, const double h[3], tetMesh *m) {
  static const int kuhn[6][4] = {{0, 1, 3, 7}, {1, 0, 5, 7}, {2, 0, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {4, 0, 6, 7}};
  int nv = (nx + 1) * (ny + 1) * (nz + 1);
  cr_assert_eq(tet_mesh_alloc(m, nv, 6 * nx * ny * nz), ISO_OK);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        int v = i + (nx + 1) * (j + (ny + 1) * k);
        m->vert[3 * v] = i * h[0];
        m->vert[3 * v + 1] = j * h[1];
        m->vert[3 * v + 2] = k * h[2];
      }
  int e = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        int corner[8];
        for (int c = 0; c < 8; ++c)
          corner[c] = (i + (c & 1)) + (nx + 1) * ((j + ((c >> 1) & 1)) + (ny + 1) * (k + ((c >> 2) & 1)));
        for (int t = 0; t < 6; ++t, ++e)
          for (int q = 0; q < 4; ++q) m->tet[4 * e + q] = corner[kuhn[t][q]];
      }
}

Test(field_distance, box_grid_matches_the_analytic_distance) {
  /* a 3 x 1.6 x 1.2 box: the distance of an interior point to its surface is the smallest of
   * its six face distances; the AABB tree must find exactly that triangle's distance */
  const double h[3] = {0.5, 0.4, 0.3}, E = 1e5;
  const int n[3] = {6, 4, 4};
  tetMesh m;
  grid_mesh(n[0], n[1], n[2], h, &m);
  cr_assert_eq(field_distance(&m, E, 0, "grid"), ISO_OK, "%s", iso_last_error());
  double dmax = 0, *d = malloc((size_t)m.nvert * sizeof(double));
  for (int v = 0; v < m.nvert; ++v) {
    d[v] = INFINITY;
    for (int k = 0; k < 3; ++k) {
      double x = m.vert[3 * v + k];
      d[v] = fmin(d[v], fmin(x, n[k] * h[k] - x));
    }
    dmax = fmax(dmax, d[v]);
  }
  cr_assert_float_eq(dmax, 0.6, 1e-15);
  int interior = 0;
  for (int v = 0; v < m.nvert; ++v) {
    interior += d[v] > 0;
    /* grid coordinates carry one rounding each; the distance adds a few more */
    cr_assert_float_eq(m.pressure[v], E * d[v] / dmax, 1e-14 * E, "vertex %d: %.17g vs %.17g", v, m.pressure[v],
                       E * d[v] / dmax);
  }
  cr_assert_eq(interior, 5 * 3 * 3);
  free(d);
  tet_mesh_free(&m);
}

Test(field_distance, no_interior_vertex_fails) {
  tetMesh m;
  const double h[3] = {1, 1, 1};
  grid_mesh(2, 1, 1, h, &m);
  cr_assert_eq(field_distance(&m, 1e5, 0, "geometry 'slab'"), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "geometry 'slab'") != NULL, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "no interior vertex") != NULL, "%s", iso_last_error());
  cr_assert_eq(field_distance(&m, -1, 0, "slab"), ISO_ERR_INVALID);
  cr_assert_eq(field_distance(&m, 1e5, -0.1, "slab"), ISO_ERR_INVALID);
  tet_mesh_free(&m);
}
