/* Pressure fields on the compliant primitive meshes (host/assets/mesh_field.c) and the per-tet
 * gradients of host/assets/mesh_core.c (reference/drake_algorithms.md §1, mesh_recipes.md §1.7, §2–§4):
 * vertex values (E on the medial axis, 0 on the original surface, −E·δ/depth on the inflated
 * boundary), the box field being exactly linear per tet, gradients pointing inward, the
 * origin value reproducing the vertex values, and element validation naming the bad tet. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

#define E_MOD 1e6 /* a typical hydroelastic modulus, Pa */

static void expect_invalid(isoStatus st, const char *needle) {
  cr_assert_eq(st, ISO_ERR_INVALID, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
}

static double dot3(const real *a, const real *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Linear field of tet e at x: ∇p_e·x + p_e(origin). */
static double tet_field(const tetMesh *m, int e, const double x[3]) { return dot3(m->grad + 3 * e, x) + m->p_origin[e]; }

/* p(x) = ∇p·x + p_e(origin) reproduces every vertex value of every tet. Relative to E: the
 * gradient times a coordinate is ~E, each a few ulps off, so 1e-12·E covers it with room. */
static void check_origin_values(const tetMesh *m) {
  for (int e = 0; e < m->ntet; ++e)
    for (int k = 0; k < 4; ++k) {
      int v = m->tet[4 * e + k];
      double got = tet_field(m, e, m->vert + 3 * v);
      cr_assert(fabs(got - m->pressure[v]) < 1e-12 * E_MOD, "tet %d vertex %d: %.17g vs %.17g", e, v, got,
                m->pressure[v]);
    }
}

/* Random point of tet e and its barycentric interpolation of the vertex pressures. */
static void random_point(const tetMesh *m, int e, test_rng *r, double x[3], double *p_interp) {
  double w[4], s = 0;
  for (int k = 0; k < 4; ++k) s += (w[k] = -log(test_rng_uniform(r, 1e-12, 1))); /* uniform on the simplex */
  x[0] = x[1] = x[2] = 0;
  *p_interp = 0;
  for (int k = 0; k < 4; ++k) {
    int v = m->tet[4 * e + k];
    for (int i = 0; i < 3; ++i) x[i] += w[k] / s * m->vert[3 * v + i];
    *p_interp += w[k] / s * m->pressure[v];
  }
}

/* ---- box ----------------------------------------------------------------------------------- */

/* depth below the original box surface (negative outside) */
static double box_depth(const double half[3], const double x[3]) {
  double d = INFINITY;
  for (int i = 0; i < 3; ++i) d = fmin(d, half[i] - fabs(x[i]));
  return d;
}

static void check_box_field(const double half[3], double margin) {
  double hi[3] = {half[0] + margin, half[1] + margin, half[2] + margin};
  double hmin = fmin(half[0], fmin(half[1], half[2]));
  tetMesh m;
  cr_assert_eq(mesh_box_tets(hi, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(field_box(&m, half, E_MOD, margin), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_tet_gradients(&m, "geometry 'box'"), ISO_OK, "%s", iso_last_error());
  /* vertex values: E·depth/h_min — corners and face centres −E·δ/h_min, MA vertices E. The
   * inflate/deflate round trip and MA differences cost a few ulps of the sizes: 1e-13·E. */
  for (int v = 0; v < m.nvert; ++v) {
    double want = E_MOD * box_depth(half, m.vert + 3 * v) / hmin;
    cr_assert(fabs(m.pressure[v] - want) < 1e-13 * E_MOD, "vertex %d: %.17g vs %.17g", v, m.pressure[v], want);
  }
  for (int v = 0; v < 8; ++v)
    cr_assert(fabs(m.pressure[v] + E_MOD * margin / hmin) < 1e-13 * E_MOD, "corner %d: %.17g", v, m.pressure[v]);
  check_origin_values(&m);
  /* exactly linear: inside each tet the interpolant equals E·depth/h_min (§1.7); relative
   * 1e-12 of E — the exact identity leaves only rounding of a few operations */
  test_rng r = {42};
  for (int e = 0; e < m.ntet; ++e)
    for (int s = 0; s < 50; ++s) {
      double x[3], pi;
      random_point(&m, e, &r, x, &pi);
      double want = E_MOD * box_depth(half, x) / hmin;
      cr_assert(fabs(pi - want) < 1e-12 * E_MOD, "tet %d: interpolant %.17g vs %.17g", e, pi, want);
      cr_assert(fabs(tet_field(&m, e, x) - want) < 1e-12 * E_MOD, "tet %d: linear field off", e);
    }
  /* ∇p = −(E/h_min)·n_f, n_f the outward normal of the tet's face centre's face: inward,
   * axis-aligned, magnitude E/h_min (relative 1e-12: a 3×3 solve on O(1) data) */
  for (int e = 0; e < m.ntet; ++e) {
    const real *g = m.grad + 3 * e;
    double gn = sqrt(dot3(g, g));
    cr_assert(fabs(gn - E_MOD / hmin) < 1e-12 * E_MOD / hmin, "tet %d: |grad| %.17g", e, gn);
    int axis = 0;
    for (int i = 1; i < 3; ++i)
      if (fabs(g[i]) > fabs(g[axis])) axis = i;
    double c[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) c[i] += m.vert[3 * m.tet[4 * e + k] + i] / 4;
    cr_assert(g[axis] * c[axis] < 0, "tet %d: gradient points outward", e);
  }
  tet_mesh_free(&m);
}

Test(field_box, exact_linear_no_margin) {
  const double rect[3] = {0.1, 0.08, 0.05}; /* §1.8 */
  check_box_field(rect, 0);
  const double cube[3] = {0.05, 0.05, 0.05};
  check_box_field(cube, 0);
  const double line[3] = {0.05, 0.15, 0.05};
  check_box_field(line, 0);
}

Test(field_box, exact_linear_with_margin) {
  const double rect[3] = {0.1, 0.08, 0.05};
  check_box_field(rect, 0.002);
  const double cube[3] = {0.05, 0.05, 0.05};
  check_box_field(cube, 0.01);
  const double line[3] = {0.15, 0.05, 0.05};
  check_box_field(line, 0.001);
}

Test(field_box, worked_example_gradients) {
  /* §7: MA vertices p = E, every other vertex 0, ∇p = −(E/0.05)·n_f with n_f the outward
   * normal of the face whose centre the tet holds (vertices 12..17 in §1.8's table) */
  const double half[3] = {0.1, 0.08, 0.05};
  static const double nf[6][3] = {{0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {1, 0, 0}, {-1, 0, 0}};
  tetMesh m;
  cr_assert_eq(mesh_box_tets(half, &m), ISO_OK);
  cr_assert_eq(field_box(&m, half, E_MOD, 0), ISO_OK);
  cr_assert_eq(mesh_tet_gradients(&m, "box"), ISO_OK);
  for (int v = 0; v < 18; ++v) {
    double want = (v >= 8 && v <= 11) ? E_MOD : 0;
    cr_assert(fabs(m.pressure[v] - want) < 1e-13 * E_MOD, "vertex %d: %.17g", v, m.pressure[v]);
  }
  for (int e = 0; e < m.ntet; ++e) {
    int c = -1;
    for (int k = 0; k < 4; ++k)
      if (m.tet[4 * e + k] >= 12) c = m.tet[4 * e + k] - 12;
    for (int i = 0; i < 3; ++i)
      cr_assert(fabs(m.grad[3 * e + i] + E_MOD / 0.05 * nf[c][i]) < 1e-12 * E_MOD / 0.05, "tet %d axis %d", e, i);
  }
  tet_mesh_free(&m);
}

/* ---- sphere, ellipsoid ----------------------------------------------------------------------- */

Test(field_sphere, values_gradients_margin) {
  const double R = 0.1, d = 0.005;
  for (int pass = 0; pass < 2; ++pass) {
    double margin = pass ? d : 0;
    tetMesh m;
    cr_assert_eq(mesh_sphere_tets(R + margin, 0.025, &m), ISO_OK);
    cr_assert_eq(field_sphere(&m, R, E_MOD, margin), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(mesh_tet_gradients(&m, "sphere"), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(m.pressure[0], E_MOD, "centre");
    /* surface vertices snap to exactly −E·δ/R (0 without margin), bit for bit */
    double bnd = -E_MOD * margin / ((R + margin) - margin);
    for (int v = 1; v < m.nvert; ++v) cr_assert_eq(m.pressure[v], bnd, "vertex %d: %.17g", v, m.pressure[v]);
    check_origin_values(&m);
    /* inward: the gradient is along −(tet centroid); radial field interpolated over a cone
     * from the centre: ∇p·c < 0 for every tet */
    for (int e = 0; e < m.ntet; ++e) {
      double c[3] = {0, 0, 0};
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i) c[i] += m.vert[3 * m.tet[4 * e + k] + i] / 4;
      cr_assert(dot3(m.grad + 3 * e, c) < 0, "tet %d gradient outward", e);
    }
    if (margin > 0) {
      /* the field's zero set sits near the original surface: along each centre–surface edge
       * p crosses 0 at r = R exactly (linear in r along the edge) */
      double x[3] = {m.vert[3], m.vert[4], m.vert[5]}; /* vertex 1 at radius R + δ */
      double s = R / (R + margin);
      double y[3] = {x[0] * s, x[1] * s, x[2] * s};
      cr_assert(fabs(tet_field(&m, 0, y)) < 1e-9 * E_MOD, "p at the original surface: %g", tet_field(&m, 0, y));
    }
    tet_mesh_free(&m);
  }
}

Test(field_ellipsoid, values) {
  const double abc[3] = {0.1, 0.05, 0.02};
  for (int pass = 0; pass < 2; ++pass) {
    double margin = pass ? 0.002 : 0;
    double ai[3] = {abc[0] + margin, abc[1] + margin, abc[2] + margin};
    tetMesh m;
    cr_assert_eq(mesh_ellipsoid_tets(ai, 0.025, &m), ISO_OK);
    cr_assert_eq(field_ellipsoid(&m, abc, E_MOD, margin), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(mesh_tet_gradients(&m, "ellipsoid"), ISO_OK);
    cr_assert_eq(m.pressure[0], E_MOD);
    for (int v = 1; v < m.nvert; ++v) {
      if (margin == 0) cr_assert_eq(m.pressure[v], 0, "vertex %d: %.17g snaps to 0", v, m.pressure[v]);
      else cr_assert(m.pressure[v] < 0, "vertex %d in the margin layer reads %.17g", v, m.pressure[v]);
    }
    /* the six axis vertices (level 0's ±x, ±y, ±z) of the inflated mesh: −E·δ/(axis) */
    for (int v = 1; v <= 6; ++v) {
      int axis = (v == 1 || v == 3) ? 0 : (v == 2 || v == 4) ? 1 : 2;
      double want = -E_MOD * margin / abc[axis];
      cr_assert(fabs(m.pressure[v] - want) < 1e-9 * E_MOD, "axis vertex %d: %.17g vs %.17g", v, m.pressure[v], want);
    }
    check_origin_values(&m);
    tet_mesh_free(&m);
  }
}

/* ---- cylinder, capsule ------------------------------------------------------------------------ */

enum { LONG, MEDIUM, SHORT };

static void check_cylinder_field(double R, double L, double h, double margin, int cls) {
  tetMesh m;
  cr_assert_eq(mesh_cylinder_tets(R + margin, L + 2 * margin, h, &m), ISO_OK);
  cr_assert_eq(field_cylinder(&m, R, L, E_MOD, margin), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_tet_gradients(&m, "cylinder"), ISO_OK, "%s", iso_last_error());
  double hmin = fmin(R, L / 2);
  /* medial vertices: the MA segment ends; the origin; the origin and the n-vertex circle */
  int nmedial = cls == LONG ? 2 : (cls == MEDIUM ? 1 : (m.nvert - 3) / 3 + 1);
  int nbnd = 0, nE = 0;
  double pmin = -E_MOD * margin / (fmin(R + margin, L / 2 + margin) - margin);
  for (int v = 0; v < m.nvert; ++v) {
    /* every vertex is either boundary (exactly the minimum) or medial (E, to rounding: 1e-12) */
    if (m.pressure[v] == pmin) ++nbnd;
    else if (fabs(m.pressure[v] - E_MOD) < 1e-12 * E_MOD) ++nE;
    else cr_assert_fail("vertex %d reads %.17g", v, m.pressure[v]);
  }
  cr_assert_eq(nE, nmedial);
  cr_assert_eq(nbnd + nE, m.nvert);
  cr_assert(fabs(pmin + E_MOD * margin / hmin) < 1e-12 * E_MOD);
  check_origin_values(&m);
  /* inward: the gradient points from the tet's centroid toward the medial axis, i.e. it has a
   * negative component along the centroid's offset from the nearest medial point */
  for (int e = 0; e < m.ntet; ++e) {
    double c[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) c[i] += m.vert[3 * m.tet[4 * e + k] + i] / 4;
    cr_assert(dot3(m.grad + 3 * e, c) < 0, "tet %d gradient outward", e);
  }
  tet_mesh_free(&m);
}

Test(field_cylinder, long_medium_short) {
  check_cylinder_field(0.1, 0.5, 0.05, 0, LONG);
  check_cylinder_field(0.1, 0.5, 0.05, 0.003, LONG);
  check_cylinder_field(0.1, 0.2, 0.05, 0, MEDIUM);
  check_cylinder_field(0.1, 0.2, 0.05, 0.003, MEDIUM);
  check_cylinder_field(0.01213, 0.00175, 0.0015, 0, SHORT);
  check_cylinder_field(0.01213, 0.00175, 0.0015, 1e-4, SHORT);
}

Test(field_capsule, values) {
  const double R = 0.05, L = 0.2;
  for (int pass = 0; pass < 2; ++pass) {
    double margin = pass ? 0.004 : 0;
    tetMesh m;
    cr_assert_eq(mesh_capsule_tets(R + margin, L, 0.01, &m), ISO_OK);
    cr_assert_eq(field_capsule(&m, R, L, E_MOD, margin), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(mesh_tet_gradients(&m, "capsule"), ISO_OK);
    /* §1.4: vertices 0 and 1 get E, all others exactly −E·δ/R */
    cr_assert_eq(m.pressure[0], E_MOD);
    cr_assert_eq(m.pressure[1], E_MOD);
    double bnd = -E_MOD * margin / ((R + margin) - margin);
    for (int v = 2; v < m.nvert; ++v) cr_assert_eq(m.pressure[v], bnd, "vertex %d: %.17g", v, m.pressure[v]);
    /* |∇p| = E/R radially in the cylindrical wedges and pole-free rings; every gradient has
     * a negative component along the offset of its centroid from the medial segment */
    for (int e = 0; e < m.ntet; ++e) {
      double c[3] = {0, 0, 0};
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 3; ++i) c[i] += m.vert[3 * m.tet[4 * e + k] + i] / 4;
      c[2] -= fmax(-L / 2, fmin(L / 2, c[2]));
      cr_assert(dot3(m.grad + 3 * e, c) < 0, "tet %d gradient outward", e);
    }
    check_origin_values(&m);
    tet_mesh_free(&m);
  }
}

/* ---- gradients and validation ------------------------------------------------------------------ */

Test(mesh_tet_gradients, random_linear_fields_are_exact) {
  /* a linear field sampled at the vertices comes back exactly (to rounding) from every tet */
  test_rng r = {42};
  tetMesh m;
  cr_assert_eq(mesh_sphere_tets(0.3, 0.1, &m), ISO_OK);
  double g[3] = {test_rng_uniform(&r, -1, 1) * E_MOD, test_rng_uniform(&r, -1, 1) * E_MOD,
                 test_rng_uniform(&r, -1, 1) * E_MOD};
  double c = test_rng_uniform(&r, -1, 1) * E_MOD;
  for (int v = 0; v < m.nvert; ++v) m.pressure[v] = dot3(g, m.vert + 3 * v) + c;
  cr_assert_eq(mesh_tet_gradients(&m, "s"), ISO_OK);
  for (int e = 0; e < m.ntet; ++e) {
    /* gradient error ~ ε·|p|/edge ≈ 1e-16·1e6/0.03: 1e-9 relative to |g| ~ 1e6 is generous */
    for (int i = 0; i < 3; ++i) cr_assert(fabs(m.grad[3 * e + i] - g[i]) < 1e-9 * E_MOD, "tet %d", e);
    cr_assert(fabs(m.p_origin[e] - c) < 1e-9 * E_MOD, "tet %d", e);
  }
  tet_mesh_free(&m);
}

Test(mesh_tet_gradients, inverted_and_degenerate_named) {
  tetMesh m;
  const double half[3] = {0.1, 0.08, 0.05};
  cr_assert_eq(mesh_box_tets(half, &m), ISO_OK);
  cr_assert_eq(field_box(&m, half, E_MOD, 0), ISO_OK);
  int s = m.tet[4 * 17];
  m.tet[4 * 17] = m.tet[4 * 17 + 1];
  m.tet[4 * 17 + 1] = s;
  expect_invalid(mesh_tet_gradients(&m, "geometry 'x'"), "geometry 'x': tetrahedron 17 is inverted (6V = -");
  tet_mesh_free(&m);

  /* a flat tet: four coplanar vertices */
  cr_assert_eq(tet_mesh_alloc(&m, 4, 1), ISO_OK);
  const real v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 0};
  memcpy(m.vert, v, sizeof v);
  const int t[4] = {0, 1, 2, 3};
  memcpy(m.tet, t, sizeof t);
  expect_invalid(mesh_tet_gradients(&m, "geometry 'flat'"), "geometry 'flat': tetrahedron 0 is degenerate");
  /* |6V| just above and below 2.2e-16 (absolute, as Drake) */
  m.vert[11] = 3e-16;
  cr_assert_eq(mesh_tet_gradients(&m, "flat"), ISO_OK, "%s", iso_last_error());
  m.vert[11] = 1e-16;
  expect_invalid(mesh_tet_gradients(&m, "flat"), "degenerate");
  m.vert[11] = NAN;
  expect_invalid(mesh_tet_gradients(&m, "flat"), "non-finite");
  m.vert[11] = 1;
  m.tet[3] = 7;
  expect_invalid(mesh_tet_gradients(&m, "flat"), "tetrahedron 0 refers to vertex 7");
  tet_mesh_free(&m);
}

/* ---- bad arguments -------------------------------------------------------------------------- */

Test(fields, bad_arguments) {
  tetMesh m;
  cr_assert_eq(mesh_sphere_tets(0.1, 0.1, &m), ISO_OK);
  expect_invalid(field_sphere(&m, 0.1, 0, 0), "hydroelastic modulus 0");
  expect_invalid(field_sphere(&m, 0.1, -5, 0), "hydroelastic modulus -5");
  expect_invalid(field_sphere(&m, 0.1, NAN, 0), "nan");
  expect_invalid(field_sphere(&m, 0.1, E_MOD, -0.001), "margin -0.001");
  expect_invalid(field_sphere(&m, -0.1, E_MOD, 0), "radius -0.1");
  const double bad[3] = {0.1, 0.1, 0};
  expect_invalid(field_box(&m, bad, E_MOD, 0), "half size 0");
  expect_invalid(field_ellipsoid(&m, bad, E_MOD, 0), "semi-axis c 0");
  expect_invalid(field_cylinder(&m, 0.1, INFINITY, E_MOD, 0), "length inf");
  expect_invalid(field_capsule(&m, 0.1, 0.1, E_MOD, INFINITY), "margin inf");
  cr_assert_eq(field_sphere(NULL, 0.1, E_MOD, 0), ISO_ERR_NULL);
  tet_mesh_free(&m);
}
