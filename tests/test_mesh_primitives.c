/* Compliant primitive meshes (host/mesh_<shape>.c) and the tet-mesh basics of host/assets/mesh_core.c:
 * the numbers of reference/mesh_recipes.md §7 and the worked example §1.8, and for every mesh
 * the generic checks: every tet positive, every vertex used, conformity (every interior face
 * shared by exactly two tets, seen from opposite sides), a closed boundary with Euler
 * characteristic 2 and outward normals, total volume (exact for polyhedral shapes, below the
 * analytic volume and converging for curved ones). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

#define PI 3.14159265358979323846

/* ---- generic checks ------------------------------------------------------------------------ */

static double tet_vol6(const tetMesh *m, int e) {
  const int *t = m->tet + 4 * e;
  const real *a = m->vert + 3 * t[0], *b = m->vert + 3 * t[1], *c = m->vert + 3 * t[2], *d = m->vert + 3 * t[3];
  double u[3], v[3], w[3];
  for (int i = 0; i < 3; ++i) {
    u[i] = b[i] - a[i];
    v[i] = c[i] - a[i];
    w[i] = d[i] - a[i];
  }
  return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2];
}

static double mesh_volume(const tetMesh *m) {
  double s = 0;
  for (int e = 0; e < m->ntet; ++e) s += tet_vol6(m, e) / 6;
  return s;
}

typedef struct face {
  int k[3], parity, tet;
} face;

static int face_cmp(const void *pa, const void *pb) {
  const face *a = (const face *)pa, *b = (const face *)pb;
  for (int i = 0; i < 3; ++i)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return a->tet - b->tet;
}

/* Every tet positive, every vertex used, every face used once (boundary) or twice from
 * opposite sides (interior). Returns the number of boundary faces. */
static int check_tets(const tetMesh *m) {
  static const int out[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  char *used = calloc((size_t)m->nvert, 1);
  face *f = malloc(sizeof(face) * 4 * (size_t)m->ntet);
  cr_assert(used && f);
  for (int e = 0; e < m->ntet; ++e) {
    cr_assert(tet_vol6(m, e) > 0, "tet %d has 6V = %g", e, tet_vol6(m, e));
    for (int q = 0; q < 4; ++q) {
      face *r = f + 4 * e + q;
      int v[3];
      for (int i = 0; i < 3; ++i) v[i] = m->tet[4 * e + out[q][i]];
      int par = 0;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2 - a; ++b)
          if (v[b] > v[b + 1]) {
            int s = v[b];
            v[b] = v[b + 1];
            v[b + 1] = s;
            par ^= 1;
          }
      memcpy(r->k, v, sizeof v);
      r->parity = par;
      r->tet = e;
      used[m->tet[4 * e + q]] = 1;
    }
  }
  for (int v = 0; v < m->nvert; ++v) cr_assert(used[v], "vertex %d is unused", v);
  qsort(f, 4 * (size_t)m->ntet, sizeof(face), face_cmp);
  int nb = 0;
  for (int i = 0; i < 4 * m->ntet;) {
    int j = i + 1;
    while (j < 4 * m->ntet && memcmp(f[j].k, f[i].k, sizeof f[i].k) == 0) ++j;
    cr_assert(j - i <= 2, "face (%d,%d,%d) used %d times", f[i].k[0], f[i].k[1], f[i].k[2], j - i);
    if (j - i == 1) ++nb;
    else
      cr_assert_neq(f[i].parity, f[i + 1].parity, "tets %d and %d see face (%d,%d,%d) from the same side", f[i].tet,
                    f[i + 1].tet, f[i].k[0], f[i].k[1], f[i].k[2]);
    i = j;
  }
  free(used);
  free(f);
  return nb;
}

/* Boundary surface: expected triangle count, closed with Euler characteristic 2 (each edge in
 * two triangles, so E = 3F/2), unit normals pointing away from the origin (all shapes here are
 * convex and contain the origin: the normal's dot with the triangle centroid is positive). */
static void check_boundary(const tetMesh *m, int ntri_expected) {
  triMesh s;
  cr_assert_eq(mesh_tet_boundary(m, &s, "test"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(s.ntri, ntri_expected);
  cr_assert_eq(s.ntri % 2, 0);
  cr_assert_eq(s.nvert - 3 * s.ntri / 2 + s.ntri, 2, "Euler characteristic V - E + F of %d, %d, %d", s.nvert,
               3 * s.ntri / 2, s.ntri);
  for (int t = 0; t < s.ntri; ++t) {
    double c[3] = {0, 0, 0}, d = 0, n2 = 0;
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) c[i] += s.vert[3 * s.tri[3 * t + k] + i] / 3;
    for (int i = 0; i < 3; ++i) {
      d += c[i] * s.normal[3 * t + i];
      n2 += s.normal[3 * t + i] * s.normal[3 * t + i];
    }
    cr_assert(d > 0, "triangle %d's normal points inward", t);
    cr_assert(fabs(n2 - 1) < 1e-14, "normal %d not unit (rounding of one sqrt and division)", t);
  }
  tri_mesh_free(&s);
}

static void check_mesh(const tetMesh *m, int nvert, int ntet, int nbnd) {
  cr_assert_eq(m->nvert, nvert, "vertices %d, expected %d", m->nvert, nvert);
  cr_assert_eq(m->ntet, ntet, "tets %d, expected %d", m->ntet, ntet);
  cr_assert_eq(check_tets(m), nbnd);
  check_boundary(m, nbnd);
}

static void expect_invalid(isoStatus st, const char *needle) {
  cr_assert_eq(st, ISO_ERR_INVALID, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
}

/* ---- box ----------------------------------------------------------------------------------- */

Test(mesh_box, worked_example_rectangle_ma) {
  /* §1.8: box 0.2 × 0.16 × 0.1 */
  const double half[3] = {0.1, 0.08, 0.05};
  static const double want[18][3] = {
      {0.1, -0.08, -0.05}, {-0.1, -0.08, -0.05}, {0.1, 0.08, -0.05}, {-0.1, 0.08, -0.05}, {0.1, -0.08, 0.05},
      {-0.1, -0.08, 0.05}, {0.1, 0.08, 0.05},    {-0.1, 0.08, 0.05}, {-0.05, -0.03, 0},   {-0.05, 0.03, 0},
      {0.05, -0.03, 0},    {0.05, 0.03, 0},      {0, 0, -0.05},      {0, 0, 0.05},        {0, -0.08, 0},
      {0, 0.08, 0},        {0.1, 0, 0},          {-0.1, 0, 0}};
  tetMesh m;
  cr_assert_eq(mesh_box_tets(half, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, 18, 44, 24);
  for (int v = 0; v < 18; ++v)
    for (int i = 0; i < 3; ++i)
      /* MA coordinates are differences like 0.08 − 0.05: a few ulps of 0.1 */
      cr_assert(fabs(m.vert[3 * v + i] - want[v][i]) < 1e-16 * 4,
                "vertex %d axis %d: %.17g, expected %g", v, i, m.vert[3 * v + i], want[v][i]);
  /* a sum of 44 tet volumes of 1e-4 each: a few ulps */
  cr_assert(fabs(mesh_volume(&m) - 0.0032) < 1e-15, "volume %.17g", mesh_volume(&m));
  /* every tet holds exactly one face centre (12..17) and the roof triangle around it */
  for (int e = 0; e < m.ntet; ++e) {
    int nc = 0;
    for (int k = 0; k < 4; ++k) nc += m.tet[4 * e + k] >= 12;
    cr_assert_eq(nc, 1, "tet %d has %d face centres", e, nc);
  }
  tet_mesh_free(&m);
}

static void check_box(double hx, double hy, double hz, int nvert, int ntet) {
  const double half[3] = {hx, hy, hz};
  tetMesh m;
  cr_assert_eq(mesh_box_tets(half, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, nvert, ntet, 24);
  double vol = 8 * hx * hy * hz;
  /* sum of a few dozen positive tet volumes: 1e-14 relative is ~50 ulps */
  cr_assert(fabs(mesh_volume(&m) - vol) < 1e-14 * vol, "volume %.17g vs %.17g", mesh_volume(&m), vol);
  /* vertices lie in the box (exactly: corners and face centres are the half sizes) */
  for (int v = 0; v < m.nvert; ++v)
    for (int i = 0; i < 3; ++i) cr_assert(fabs(m.vert[3 * v + i]) <= half[i]);
  tet_mesh_free(&m);
}

Test(mesh_box, point_line_rectangle_counts_every_orientation) {
  check_box(0.05, 0.05, 0.05, 15, 24); /* cube 0.1 (§7) */
  check_box(0.15, 0.05, 0.05, 17, 40); /* 0.3 × 0.1 × 0.1, line MA along x */
  check_box(0.05, 0.15, 0.05, 17, 40);
  check_box(0.05, 0.05, 0.15, 17, 40);
  check_box(0.05, 0.08, 0.1, 18, 44); /* rectangle MA, smallest along x, y, z */
  check_box(0.08, 0.05, 0.1, 18, 44);
  check_box(0.1, 0.08, 0.05, 18, 44);
  check_box(0.1, 0.05, 0.08, 18, 44);
  check_box(2.0, 3.0, 2.0, 17, 40); /* sizes above 1: tol scales with h_min */
}

Test(mesh_box, classification_tolerance) {
  /* §1.1: differences within 1e-14·max(1, h_min) count as equal */
  check_box(0.05, 0.05 + 1e-16, 0.05, 15, 24);
  check_box(0.05, 0.05 + 1e-12, 0.05, 17, 40);        /* beyond tol: a (tiny) line MA */
  check_box(0.05 + 1e-12, 0.05 + 1e-12, 0.05, 18, 44); /* one strictly smallest: rectangle */
}

Test(mesh_box, point_ma_tets_share_the_centre) {
  const double half[3] = {0.05, 0.05, 0.05};
  tetMesh m;
  cr_assert_eq(mesh_box_tets(half, &m), ISO_OK);
  /* §1.3: every tet is (corner, corner, MA point 8, face centre 9..14) */
  for (int e = 0; e < 24; ++e) {
    int corners = 0, centre = 0, faces = 0;
    for (int k = 0; k < 4; ++k) {
      int v = m.tet[4 * e + k];
      corners += v < 8;
      centre += v == 8;
      faces += v >= 9;
    }
    cr_assert(corners == 2 && centre == 1 && faces == 1, "tet %d", e);
  }
  tet_mesh_free(&m);
}

Test(mesh_box, bad_sizes) {
  tetMesh m;
  double h[3] = {0.1, -0.2, 0.1};
  expect_invalid(mesh_box_tets(h, &m), "-0.2");
  h[1] = 0;
  expect_invalid(mesh_box_tets(h, &m), "half size 0");
  h[1] = NAN;
  expect_invalid(mesh_box_tets(h, &m), "nan");
  h[1] = INFINITY;
  expect_invalid(mesh_box_tets(h, &m), "inf");
  cr_assert_eq(mesh_box_tets(NULL, &m), ISO_ERR_NULL);
}

/* ---- sphere and ellipsoid ------------------------------------------------------------------ */

static void check_sphere(double R, double h, int level) {
  int nv = 4 * (1 << (2 * level)) + 3, nt = 8 * (1 << (2 * level));
  tetMesh m;
  cr_assert_eq(mesh_sphere_tets(R, h, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, nv, nt, nt);
  /* vertex 0 is the centre, all others on the sphere (normalised, then scaled: ~2 ulps) */
  cr_assert_eq(m.vert[0], 0);
  for (int v = 1; v < m.nvert; ++v) {
    double r = sqrt(m.vert[3 * v] * m.vert[3 * v] + m.vert[3 * v + 1] * m.vert[3 * v + 1] +
                    m.vert[3 * v + 2] * m.vert[3 * v + 2]);
    cr_assert(fabs(r - R) < 4e-16 * R, "vertex %d at radius %.17g", v, r);
  }
  for (int e = 0; e < m.ntet; ++e) cr_assert_eq(m.tet[4 * e + 3], 0, "the centre is every tet's 4th vertex");
  tet_mesh_free(&m);
}

Test(mesh_sphere, levels_and_counts) {
  check_sphere(0.1, 0.025, 3); /* §4.1 / §7: 259 V, 512 T */
  check_sphere(0.1, 0.01, 4);  /* 1027 V, 2048 T */
  check_sphere(0.1, 0.05, 2);  /* 67 / 128 */
  check_sphere(0.1, 0.2, 0);   /* h = diameter: log2 lands on 1 exactly → L = 0 */
  check_sphere(0.1, 5.0, 0);   /* h beyond the diameter clamps to it */
  check_sphere(1.0, 1.0, 1);   /* 19 / 32 */
}

Test(mesh_sphere, volume_below_and_converging) {
  /* hints for levels 2..5; the inscribed polyhedron's deficit 1 − V/V_exact is O(chord²), so
   * it shrinks by about 4 per level */
  static const double hints[4] = {0.05, 0.025, 0.01, 0.005};
  double exact = 4.0 / 3 * PI * 1e-3, prev_deficit = 1;
  for (int i = 0; i < 4; ++i) {
    tetMesh m;
    cr_assert_eq(mesh_sphere_tets(0.1, hints[i], &m), ISO_OK);
    double v = mesh_volume(&m), deficit = 1 - v / exact;
    cr_assert(deficit > 0, "hint %g: volume %.10g above the sphere's", hints[i], v);
    if (i > 0)
      cr_assert(prev_deficit / deficit > 3.5 && prev_deficit / deficit < 4.5, "hint %g: deficit %g after %g", hints[i],
                deficit, prev_deficit);
    /* §4.3 volumes, to the 8 digits given there */
    if (i == 1) cr_assert(fabs(v - 4.0916006e-3) < 1e-10, "%.10g", v);
    if (i == 2) cr_assert(fabs(v - 4.1642036e-3) < 1e-10, "%.10g", v);
    prev_deficit = deficit;
    tet_mesh_free(&m);
  }
}

Test(mesh_sphere, level_cap) {
  /* §4.1: level capped at 8 however fine the hint */
  tetMesh m;
  cr_assert_eq(mesh_sphere_tets(1.0, 1e-9, &m), ISO_OK);
  cr_assert_eq(m.ntet, 8 * 65536);
  cr_assert_eq(m.nvert, 4 * 65536 + 3);
  tet_mesh_free(&m);
}

Test(mesh_sphere, bad_sizes) {
  tetMesh m;
  expect_invalid(mesh_sphere_tets(-1, 0.1, &m), "radius -1");
  expect_invalid(mesh_sphere_tets(0, 0.1, &m), "radius 0");
  expect_invalid(mesh_sphere_tets(NAN, 0.1, &m), "nan");
  expect_invalid(mesh_sphere_tets(0.1, 0, &m), "hint 0");
  expect_invalid(mesh_sphere_tets(0.1, -0.5, &m), "-0.5");
  expect_invalid(mesh_sphere_tets(0.1, INFINITY, &m), "inf");
  double abc[3] = {0.1, 0, 0.1};
  expect_invalid(mesh_ellipsoid_tets(abc, 0.1, &m), "semi-axis b 0");
  abc[1] = 0.1;
  expect_invalid(mesh_ellipsoid_tets(abc, NAN, &m), "nan");
}

Test(mesh_ellipsoid, scaled_unit_sphere) {
  /* §4.5: (0.1, 0.05, 0.02), h 0.025 → unit hint 0.25 → L = 3 → 259 V / 512 T */
  const double abc[3] = {0.1, 0.05, 0.02};
  tetMesh m;
  cr_assert_eq(mesh_ellipsoid_tets(abc, 0.025, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, 259, 512, 512);
  for (int v = 1; v < m.nvert; ++v) {
    double q = 0;
    for (int i = 0; i < 3; ++i) q += (m.vert[3 * v + i] / abc[i]) * (m.vert[3 * v + i] / abc[i]);
    cr_assert(fabs(q - 1) < 1e-15, "vertex %d off the ellipsoid by %g (a few ulps)", v, q - 1);
  }
  double v = mesh_volume(&m), exact = 4.0 / 3 * PI * abc[0] * abc[1] * abc[2];
  /* the same inscribed polyhedron as the unit sphere at L = 3, scaled per axis */
  cr_assert(fabs(v / exact - 4.0916006e-3 / (4.0 / 3 * PI * 1e-3)) < 1e-7, "%.10g", v / exact);
  tet_mesh_free(&m);
}

/* ---- cylinder ------------------------------------------------------------------------------ */

static void check_cylinder(double R, double L, double h, int n, int nv, int nt) {
  tetMesh m;
  cr_assert_eq(mesh_cylinder_tets(R, L, h, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, nv, nt, 4 * n);
  /* the mesh is the prism over the inscribed n-gon: volume (n/2) R² sin(2π/n) L; tens to
   * hundreds of tets summed: 1e-13 relative */
  double want = n / 2.0 * R * R * sin(2 * PI / n) * L;
  cr_assert(fabs(mesh_volume(&m) - want) < 1e-13 * want, "volume %.17g vs %.17g", mesh_volume(&m), want);
  tet_mesh_free(&m);
}

Test(mesh_cylinder, classes_and_counts) {
  check_cylinder(0.01213, 0.00175, 0.0015, 51, 156, 459); /* short (§2 check) */
  check_cylinder(0.1, 0.5, 0.05, 13, 30, 65);            /* long */
  check_cylinder(0.1, 0.2, 0.05, 13, 29, 52);            /* medium */
  check_cylinder(0.05, 0.1, 1.0, 3, 9, 12);              /* medium, n floored at 3 */
  check_cylinder(0.1, 0.2 + 1e-16, 0.05, 13, 29, 52);    /* within tol: still medium */
}

Test(mesh_cylinder, short_volume_and_medial_circle) {
  const double R = 0.01213, L = 0.00175;
  tetMesh m;
  cr_assert_eq(mesh_cylinder_tets(R, L, 0.0015, &m), ISO_OK);
  /* §2: volume 8.0688257e-07 to the 8 digits given */
  cr_assert(fabs(mesh_volume(&m) - 8.0688257e-07) < 1e-14, "%.10g", mesh_volume(&m));
  /* medial circle radius R − L/2 = 0.011255 at z = 0 (vertices 2n+3 ..) */
  for (int i = 0; i < 51; ++i) {
    const real *x = m.vert + 3 * (2 * 51 + 3 + i);
    cr_assert(fabs(hypot(x[0], x[1]) - 0.011255) < 1e-17 * 10, "medial vertex %d", i);
    cr_assert_eq(x[2], 0);
  }
  tet_mesh_free(&m);
}

Test(mesh_cylinder, bad_sizes) {
  tetMesh m;
  expect_invalid(mesh_cylinder_tets(0, 0.1, 0.1, &m), "radius 0");
  expect_invalid(mesh_cylinder_tets(0.1, -2, 0.1, &m), "length -2");
  expect_invalid(mesh_cylinder_tets(0.1, 0.1, NAN, &m), "nan");
  expect_invalid(mesh_cylinder_tets(0.1, 0.1, 1e-300, &m), "too fine");
}

/* ---- capsule ------------------------------------------------------------------------------- */

Test(mesh_capsule, counts) {
  tetMesh m;
  /* §3: 2πR/h = 31.4159 truncates to n = 31, k = 15 */
  cr_assert_eq(mesh_capsule_tets(0.05, 0.2, 0.01, &m), ISO_OK, "%s", iso_last_error());
  check_mesh(&m, 934, 1891, 1860);
  tet_mesh_free(&m);
  cr_assert_eq(mesh_capsule_tets(0.05, 0.2, 1.0, &m), ISO_OK); /* n = 3, k = 1 */
  check_mesh(&m, 10, 15, 12);
  tet_mesh_free(&m);
  cr_assert_eq(mesh_capsule_tets(0.05, 0.1, 0.005, &m), ISO_OK); /* n = 62, k = 31 */
  check_mesh(&m, 3848, 7750, 4 * 62 * 31);
  tet_mesh_free(&m);
  cr_assert_eq(mesh_capsule_tets(1.0, 1.0, 1e-6, &m), ISO_OK); /* n clamped at 706 */
  cr_assert_eq(m.nvert, 2 * 706 * 353 + 4);
  tet_mesh_free(&m);
}

Test(mesh_capsule, medial_vertices_and_volume) {
  const double R = 0.05, L = 0.2, exact = PI * R * R * L + 4.0 / 3 * PI * R * R * R;
  static const double hints[3] = {0.04, 0.01, 0.002};
  double prev = 0;
  for (int i = 0; i < 3; ++i) {
    tetMesh m;
    cr_assert_eq(mesh_capsule_tets(R, L, hints[i], &m), ISO_OK);
    cr_assert_eq(m.vert[2], L / 2);
    cr_assert_eq(m.vert[5], -L / 2);
    /* all other vertices on the surface: distance R to the medial segment (a few ulps) */
    for (int v = 2; v < m.nvert; ++v) {
      const real *x = m.vert + 3 * v;
      double zc = fmax(-L / 2, fmin(L / 2, x[2]));
      double r = sqrt(x[0] * x[0] + x[1] * x[1] + (x[2] - zc) * (x[2] - zc));
      cr_assert(fabs(r - R) < 1e-15, "vertex %d at %.17g", v, r);
    }
    double vol = mesh_volume(&m);
    cr_assert(vol < exact && vol > prev, "hint %g: %.10g", hints[i], vol);
    prev = vol;
    tet_mesh_free(&m);
  }
  cr_assert(prev > 0.999 * exact, "converges: %.10g vs %.10g", prev, exact);
}

Test(mesh_capsule, bad_sizes) {
  tetMesh m;
  expect_invalid(mesh_capsule_tets(-0.1, 0.1, 0.1, &m), "radius -0.1");
  expect_invalid(mesh_capsule_tets(0.1, 0, 0.1, &m), "length 0");
  expect_invalid(mesh_capsule_tets(0.1, 0.1, 0, &m), "hint 0");
}

/* ---- mesh_core ----------------------------------------------------------------------------- */

Test(mesh_core, alloc_and_free) {
  tetMesh m;
  cr_assert_eq(tet_mesh_alloc(&m, 5, 2), ISO_OK);
  cr_assert(m.vert && m.tet && m.pressure && m.grad && m.p_origin);
  cr_assert_eq(m.vert[14], 0);
  tet_mesh_free(&m);
  cr_assert_null(m.vert);
  tet_mesh_free(&m); /* freeing twice is harmless */
  cr_assert_eq(tet_mesh_alloc(&m, -1, 2), ISO_ERR_INVALID);
  triMesh s;
  cr_assert_eq(tri_mesh_alloc(&s, 0, 0), ISO_OK);
  tri_mesh_free(&s);
}

Test(mesh_core, triangle_normals) {
  triMesh s;
  cr_assert_eq(tri_mesh_alloc(&s, 4, 2), ISO_OK);
  const real v[12] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0};
  memcpy(s.vert, v, sizeof v);
  const int t[6] = {0, 1, 2, 0, 1, 3};
  memcpy(s.tri, t, sizeof t);
  s.ntri = 1;
  cr_assert_eq(tri_mesh_normals(&s, "geometry 'pad'"), ISO_OK);
  cr_assert_eq(s.normal[2], 1.0);
  s.ntri = 2; /* triangle 1 is collinear */
  expect_invalid(tri_mesh_normals(&s, "geometry 'pad'"), "geometry 'pad': triangle 1 has zero area");
  tri_mesh_free(&s);
}

Test(mesh_core, boundary_of_two_tets_and_nonmanifold) {
  /* two tets sharing face (0,1,2): boundary = 6 triangles, 5 vertices, closed */
  tetMesh m;
  cr_assert_eq(tet_mesh_alloc(&m, 6, 2), ISO_OK);
  const real v[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1, 0.2, 0.2, -1, 9, 9, 9};
  memcpy(m.vert, v, sizeof v);
  const int t[8] = {0, 1, 2, 3, 1, 0, 2, 4};
  memcpy(m.tet, t, sizeof t);
  m.nvert = 5; /* vertex 5 unused: compact renumbering drops it */
  triMesh s;
  cr_assert_eq(mesh_tet_boundary(&m, &s, "test"), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(s.ntri, 6);
  cr_assert_eq(s.nvert, 5);
  tri_mesh_free(&s);
  /* the same tet twice overlaps */
  m.tet[4] = 0, m.tet[5] = 1, m.tet[6] = 2, m.tet[7] = 3;
  expect_invalid(mesh_tet_boundary(&m, &s, "geometry 'x'"), "overlap");
  tet_mesh_free(&m);
}

Test(mesh_core, boundary_deterministic) {
  /* same input, same output, bit for bit */
  triMesh a, b;
  tetMesh m;
  cr_assert_eq(mesh_capsule_tets(0.05, 0.2, 0.02, &m), ISO_OK);
  cr_assert_eq(mesh_tet_boundary(&m, &a, "t"), ISO_OK);
  cr_assert_eq(mesh_tet_boundary(&m, &b, "t"), ISO_OK);
  cr_assert_eq(a.ntri, b.ntri);
  cr_assert_eq(memcmp(a.tri, b.tri, sizeof(int) * 3 * (size_t)a.ntri), 0);
  cr_assert_eq(memcmp(a.vert, b.vert, sizeof(real) * 3 * (size_t)a.nvert), 0);
  tri_mesh_free(&a);
  tri_mesh_free(&b);
  tet_mesh_free(&m);
}
