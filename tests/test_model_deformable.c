/* Deformable bodies in the model builder: Drake's defaults, the mesh placed in the world, its
 * surface, held vertices, and every refusal naming the body and the element. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isobar/isobar.h"
#include "support/support.h"

/* The unit tet, positively oriented: ((v1−v0)×(v2−v0))·(v3−v0) = 1. */
static const double kTetV[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const int kTetT[4] = {0, 1, 2, 3};

/* The unit cube's corners, vertex i at (i & 1, (i >> 1) & 1, (i >> 2) & 1). */
static const double kCubeV[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
/* The cube cut into 5 tets: four corner tets and the central one, each positively oriented. */
static const int kCube5[20] = {0, 1, 2, 4, 1, 3, 2, 7, 1, 5, 7, 4, 2, 7, 6, 4, 2, 1, 7, 4};
/* The cube cut into 6 tets around the diagonal 0–7 (the Kuhn split), positively oriented. */
static const int kCube6[24] = {0, 1, 3, 7, 0, 3, 2, 7, 0, 2, 6, 7, 0, 6, 4, 7, 0, 4, 5, 7, 0, 5, 1, 7};

static isoModel *new_model(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  return m;
}

static isoDeformableDef from_arrays(const char *name, const double *v, int nv, const int *t, int nt) {
  isoDeformableDef d = iso_default_deformable_def();
  d.name = name;
  d.vertices = v;
  d.nvert = nv;
  d.tets = t;
  d.ntet = nt;
  return d;
}

static void add_ok(isoModel *m, const isoDeformableDef *d, int *id) {
  isoStatus st = iso_model_add_deformable(m, d, id);
  cr_assert_eq(st, ISO_OK, "%s: %s", iso_status_string(st), iso_last_error());
}

typedef struct meshCopy {
  int nv, nt, ntri;
  double *rest;
  int *tet, *tri;
  unsigned char *held;
} meshCopy;

static meshCopy get_mesh(const isoModel *m, int id) {
  meshCopy c;
  cr_assert_eq(iso_model_deformable_size(m, id, &c.nv, &c.nt, &c.ntri), ISO_OK);
  c.rest = (double *)malloc(sizeof(double) * 3 * (size_t)c.nv);
  c.tet = (int *)malloc(sizeof(int) * 4 * (size_t)c.nt);
  c.tri = (int *)malloc(sizeof(int) * 3 * (size_t)c.ntri);
  c.held = (unsigned char *)malloc((size_t)c.nv);
  cr_assert_eq(iso_model_deformable_mesh(m, id, c.rest, c.tet, c.tri, c.held), ISO_OK);
  return c;
}

static void free_mesh(meshCopy *c) {
  free(c->rest);
  free(c->tet);
  free(c->tri);
  free(c->held);
}

static void sub(const double *a, const double *b, double *o) {
  for (int k = 0; k < 3; ++k) o[k] = a[k] - b[k];
}
static void cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}
static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* 6 × the signed volume of tet t of c. */
static double six_vol(const meshCopy *c, const int *t) {
  double u[3], v[3], w[3], n[3];
  sub(c->rest + 3 * t[1], c->rest + 3 * t[0], u);
  sub(c->rest + 3 * t[2], c->rest + 3 * t[0], v);
  sub(c->rest + 3 * t[3], c->rest + 3 * t[0], w);
  cross(u, v, n);
  return dot(n, w);
}

/* The surface is closed and outward: each edge in exactly two triangles, traversed once each
 * way; V − E + F = 2 (a sphere); and the divergence theorem's volume (1/6)Σ a·(b×c) over the
 * triangles equals the tets' total volume — it would be its negative for an inward surface.
 * Both volumes sum the same products of coordinates of magnitude ≤ L in different groupings,
 * so they agree to a few ulps of L³ per term: 1e-12 relative is far above that and far below
 * the volume of any one tet. */
static void check_closed_outward(const meshCopy *c) {
  int ne = 3 * c->ntri;
  int *edges = (int *)malloc(sizeof(int) * 2 * (size_t)ne);
  for (int t = 0; t < c->ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      edges[2 * (3 * t + k)] = c->tri[3 * t + k];
      edges[2 * (3 * t + k) + 1] = c->tri[3 * t + (k + 1) % 3];
    }
  int undirected = 0;
  for (int i = 0; i < ne; ++i) {
    int a = edges[2 * i], b = edges[2 * i + 1], same = 0, reverse = 0;
    for (int j = 0; j < ne; ++j) {
      same += edges[2 * j] == a && edges[2 * j + 1] == b;
      reverse += edges[2 * j] == b && edges[2 * j + 1] == a;
    }
    cr_assert_eq(same, 1, "directed edge (%d, %d) appears %d times", a, b, same);
    cr_assert_eq(reverse, 1, "edge (%d, %d) is in %d triangles the other way", a, b, reverse);
    undirected += a < b;
  }
  unsigned char *on = (unsigned char *)calloc((size_t)c->nv, 1);
  int nsv = 0;
  for (int i = 0; i < 3 * c->ntri; ++i) {
    nsv += !on[c->tri[i]];
    on[c->tri[i]] = 1;
  }
  cr_assert_eq(nsv - undirected + c->ntri, 2, "Euler characteristic V − E + F = %d", nsv - undirected + c->ntri);
  double vs = 0, vt = 0, n[3];
  for (int t = 0; t < c->ntri; ++t) {
    const int *f = c->tri + 3 * t;
    cross(c->rest + 3 * f[1], c->rest + 3 * f[2], n);
    vs += dot(c->rest + 3 * f[0], n) / 6;
  }
  for (int e = 0; e < c->nt; ++e) vt += six_vol(c, c->tet + 4 * e) / 6;
  cr_assert(vt > 0);
  cr_assert(fabs(vs - vt) <= 1e-12 * vt, "surface volume %.17g, tets %.17g", vs, vt);
  free(on);
  free(edges);
}

Test(model_deformable, defaults_are_drakes) {
  isoDeformableDef d = iso_default_deformable_def();
  cr_assert_null(d.name);
  cr_assert_null(d.mesh_file);
  cr_assert_eq(d.material, ISO_MATERIAL_LINEAR_COROTATED);
  cr_assert_eq(d.youngs_modulus, 1e8);
  cr_assert_eq(d.poissons_ratio, 0.49);
  cr_assert_eq(d.mass_density, 1500.0);
  cr_assert_eq(d.mass_damping, 0.0);
  cr_assert_eq(d.stiffness_damping, 0.0);
  cr_assert_eq(d.hunt_crossley_dissipation, 50.0);
  cr_assert_eq(d.relaxation_time, 0.1);
  cr_assert_eq(d.mu_static, 0.5);
  cr_assert_eq(d.mu_dynamic, 0.5);
  for (int k = 0; k < 3; ++k) cr_assert_eq(d.mesh_scale[k], 1.0);
  cr_assert_eq(d.quaternion[0], 1.0);
  cr_assert_eq(d.position[0] + d.position[1] + d.position[2], 0.0);
}

/* x_W = R·(s∘X) + p for a rotation of 90° about z, a per-axis scale and an offset; the
 * expected values are exact but for the quaternion's rounding, hence 1e-15 m. */
Test(model_deformable, rest_is_pose_times_scale) {
  isoModel *m = new_model();
  isoDeformableDef d = from_arrays("tet", kTetV, 4, kTetT, 1);
  d.mesh_scale[0] = 2;
  d.mesh_scale[1] = 3;
  d.mesh_scale[2] = 4;
  d.position[0] = 1;
  d.position[1] = -2;
  d.position[2] = 0.5;
  d.quaternion[0] = 2 * sqrt(0.5); /* not unit: normalised */
  d.quaternion[3] = 2 * sqrt(0.5);
  int id = -1;
  add_ok(m, &d, &id);
  cr_assert_eq(id, 0);
  meshCopy c = get_mesh(m, 0);
  cr_assert_eq(c.nv, 4);
  cr_assert_eq(c.nt, 1);
  /* R_z(90°): (x, y, z) -> (−y, x, z) */
  const double want[12] = {1, -2, 0.5, 1, 0, 0.5, -2, -2, 0.5, 1, -2, 4.5};
  for (int i = 0; i < 12; ++i) cr_assert(fabs(c.rest[i] - want[i]) <= 1e-15, "rest[%d] = %.17g", i, c.rest[i]);
  for (int k = 0; k < 4; ++k) cr_assert_eq(c.tet[k], k);
  for (int v = 0; v < 4; ++v) cr_assert_eq(c.held[v], 0);
  isoDeformableDef g;
  cr_assert_eq(iso_model_get_deformable(m, 0, &g), ISO_OK);
  cr_assert_str_eq(g.name, "tet");
  cr_assert_null(g.vertices);
  cr_assert_null(g.tets);
  cr_assert_eq(g.nvert, 4);
  cr_assert_eq(g.ntet, 1);
  cr_assert(fabs(g.quaternion[0] - sqrt(0.5)) < 1e-15, "quaternion stored normalised");
  free_mesh(&c);
  iso_model_destroy(m);
}

/* One tet: its four faces, in face order (face f opposite vertex f), each normal pointing
 * away from the opposite vertex. */
Test(model_deformable, surface_of_one_tet) {
  isoModel *m = new_model();
  isoDeformableDef d = from_arrays(NULL, kTetV, 4, kTetT, 1);
  add_ok(m, &d, NULL);
  meshCopy c = get_mesh(m, 0);
  cr_assert_eq(c.ntri, 4);
  for (int f = 0; f < 4; ++f) {
    const int *t = c.tri + 3 * f;
    for (int k = 0; k < 3; ++k) cr_assert_neq(t[k], f, "face %d must be the one opposite vertex %d", f, f);
    double u[3], v[3], n[3], w[3];
    sub(c.rest + 3 * t[1], c.rest + 3 * t[0], u);
    sub(c.rest + 3 * t[2], c.rest + 3 * t[0], v);
    cross(u, v, n);
    sub(c.rest + 3 * f, c.rest + 3 * t[0], w);
    cr_assert(dot(n, w) < 0, "face %d's normal points toward the opposite vertex", f);
  }
  check_closed_outward(&c);
  isoDeformableDef g;
  cr_assert_eq(iso_model_get_deformable(m, 0, &g), ISO_OK);
  cr_assert_str_eq(g.name, "deformable0");
  free_mesh(&c);
  iso_model_destroy(m);
}

/* A cube of 5 or 6 tets: 12 surface triangles, two per side, closed and outward. */
Test(model_deformable, surface_of_cubes) {
  isoModel *m = new_model();
  isoDeformableDef d5 = from_arrays("five", kCubeV, 8, kCube5, 5);
  isoDeformableDef d6 = from_arrays("six", kCubeV, 8, kCube6, 6);
  add_ok(m, &d5, NULL);
  add_ok(m, &d6, NULL);
  cr_assert_eq(iso_model_deformable_count(m), 2);
  for (int id = 0; id < 2; ++id) {
    meshCopy c = get_mesh(m, id);
    cr_assert_eq(c.ntri, 12, "body %d has %d surface triangles", id, c.ntri);
    check_closed_outward(&c);
    /* every triangle lies in a side of the cube: one coordinate shared by its vertices */
    for (int t = 0; t < c.ntri; ++t) {
      int flat = 0;
      for (int k = 0; k < 3; ++k) {
        double a = c.rest[3 * c.tri[3 * t] + k];
        flat |= a == c.rest[3 * c.tri[3 * t + 1] + k] && a == c.rest[3 * c.tri[3 * t + 2] + k];
      }
      cr_assert(flat, "triangle %d is not on a side", t);
    }
    free_mesh(&c);
  }
  int id = -1;
  cr_assert_eq(iso_model_find_deformable(m, "six", &id), ISO_OK);
  cr_assert_eq(id, 1);
  cr_assert_eq(iso_model_find_deformable(m, "seven", &id), ISO_ERR_NOT_FOUND);
  cr_assert(strstr(iso_last_error(), "'seven'"));
  iso_model_destroy(m);
}

/* A .vtk of the 5-tet cube gives the same mesh as the arrays, with a mirroring scale too (the
 * reader swaps two vertices per tet; the arrays path does the same). */
Test(model_deformable, from_vtk_file_and_mirror) {
  char dir[512], path[600];
  test_tmp_template(dir, sizeof dir, "deformable");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/cube.vtk", dir);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "# vtk DataFile Version 3.0\ncube\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 8 double\n");
  for (int v = 0; v < 8; ++v) fprintf(f, "%g %g %g\n", kCubeV[3 * v], kCubeV[3 * v + 1], kCubeV[3 * v + 2]);
  fprintf(f, "CELLS 5 25\n");
  for (int e = 0; e < 5; ++e) fprintf(f, "4 %d %d %d %d\n", kCube5[4 * e], kCube5[4 * e + 1], kCube5[4 * e + 2], kCube5[4 * e + 3]);
  fprintf(f, "CELL_TYPES 5\n10\n10\n10\n10\n10\n");
  fclose(f);
  isoModel *m = new_model();
  const double scale[2][3] = {{0.1, 0.2, 0.3}, {-0.1, 0.2, 0.3}};
  for (int s = 0; s < 2; ++s) {
    isoDeformableDef a = iso_default_deformable_def();
    a.name = s ? "file_mirrored" : "file";
    a.mesh_file = path;
    memcpy(a.mesh_scale, scale[s], sizeof a.mesh_scale);
    a.position[2] = 1;
    isoDeformableDef b = from_arrays(s ? "arrays_mirrored" : "arrays", kCubeV, 8, kCube5, 5);
    memcpy(b.mesh_scale, scale[s], sizeof b.mesh_scale);
    b.position[2] = 1;
    int ia, ib;
    add_ok(m, &a, &ia);
    add_ok(m, &b, &ib);
    meshCopy ca = get_mesh(m, ia), cb = get_mesh(m, ib);
    cr_assert_eq(ca.nv, 8);
    cr_assert_eq(ca.nt, 5);
    cr_assert_eq(memcmp(ca.tet, cb.tet, sizeof(int) * 20), 0);
    for (int i = 0; i < 24; ++i) {
      /* the file holds the values exactly ("%g" of 0 and 1): scale and offset only */
      double want = kCubeV[i] * scale[s][i % 3] + (i % 3 == 2 ? 1.0 : 0.0);
      cr_assert_eq(ca.rest[i], want, "rest[%d] = %.17g, want %.17g", i, ca.rest[i], want);
      cr_assert_eq(cb.rest[i], want);
    }
    for (int e = 0; e < 5; ++e) cr_assert(six_vol(&ca, ca.tet + 4 * e) > 0);
    check_closed_outward(&ca);
    isoDeformableDef g;
    cr_assert_eq(iso_model_get_deformable(m, ia, &g), ISO_OK);
    cr_assert_str_eq(g.mesh_file, path);
    cr_assert_neq(g.mesh_file, path, "the file name is copied");
    free_mesh(&ca);
    free_mesh(&cb);
  }
  iso_model_destroy(m);
  test_tmpdir_remove(dir);
}

/* The example ball (examples/meshes/soft_ball.vtk): a closed 2-manifold sphere, outward. */
Test(model_deformable, example_ball_surface) {
  const char *path = test_source_path("examples/meshes/soft_ball.vtk");
  isoModel *m = new_model();
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "ball";
  d.mesh_file = path;
  add_ok(m, &d, NULL);
  meshCopy c = get_mesh(m, 0);
  cr_assert_eq(c.nv, 216);
  cr_assert_eq(c.nt, 750);
  cr_assert_eq(c.ntri, 300, "a 5×5×5 grid's boundary: 6 sides × 25 squares × 2");
  check_closed_outward(&c);
  /* every surface vertex on the sphere of radius 0.05 (the file's 17 digits: 1e-15 m) */
  for (int i = 0; i < 3 * c.ntri; ++i) {
    const double *p = c.rest + 3 * c.tri[i];
    cr_assert(fabs(sqrt(dot(p, p)) - 0.05) < 1e-15, "surface vertex %d at radius %.17g", c.tri[i], sqrt(dot(p, p)));
  }
  free_mesh(&c);
  iso_model_destroy(m);
}

/* Fixed vertices and Drake's wall: n̂·(p − Q) < 0 holds p, with n̂ = n / |n|. */
Test(model_deformable, fix_and_wall) {
  isoModel *m = new_model();
  isoDeformableDef d = from_arrays("cube", kCubeV, 8, kCube6, 6);
  d.position[2] = 1; /* the cube spans z in [1, 2] */
  add_ok(m, &d, NULL);
  const int fix[2] = {3, 5};
  cr_assert_eq(iso_model_fix_deformable_vertices(m, 0, 2, fix), ISO_OK);
  int n = -1;
  const double Q[3] = {0, 0, 1.5}, up[3] = {0, 0, 7}; /* the normal need not be unit */
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q, up, &n), ISO_OK);
  cr_assert_eq(n, 4, "the bottom four corners are below z = 1.5");
  meshCopy c = get_mesh(m, 0);
  for (int v = 0; v < 8; ++v) {
    int want = (v >> 2) == 0 || v == 3 || v == 5;
    cr_assert_eq(c.held[v], want, "vertex %d held %d", v, c.held[v]);
  }
  free_mesh(&c);
  /* a point exactly on the wall is not behind it: n̂·(p − Q) = 0 */
  const double Q2[3] = {0, 0, 1};
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q2, up, &n), ISO_OK);
  cr_assert_eq(n, 0);
  /* a slanted wall through the cube's centre with normal (1, 1, 0): x + y < 1 holds 0, 4 */
  const double Q3[3] = {0.5, 0.5, 1.5}, diag[3] = {1, 1, 0};
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q3, diag, &n), ISO_OK);
  cr_assert_eq(n, 2);
  iso_model_destroy(m);
}

/* The ball: the wall z < 0 holds exactly the vertices below the equator. */
Test(model_deformable, ball_wall_counts) {
  isoModel *m = new_model();
  isoDeformableDef d = iso_default_deformable_def();
  d.mesh_file = test_source_path("examples/meshes/soft_ball.vtk");
  d.position[2] = 0.2;
  add_ok(m, &d, NULL);
  meshCopy c = get_mesh(m, 0);
  int below = 0;
  for (int v = 0; v < c.nv; ++v) below += c.rest[3 * v + 2] < 0.2;
  cr_assert_eq(below, 108, "3 of the grid's 6 layers of 36 vertices are below (the map keeps z's sign)");
  const double Q[3] = {0, 0, 0.2}, up[3] = {0, 0, 1};
  int n = -1;
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q, up, &n), ISO_OK);
  cr_assert_eq(n, below);
  free_mesh(&c);
  iso_model_destroy(m);
}

/* Each refusal names the body and the element, and leaves the model as it was. */
static void refuses(isoModel *m, const isoDeformableDef *d, isoStatus want, const char *needle) {
  int before = iso_model_deformable_count(m);
  isoStatus st = iso_model_add_deformable(m, d, NULL);
  cr_assert_eq(st, want, "got %s: %s (want '%s')", iso_status_string(st), iso_last_error(), needle);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
  cr_assert_eq(iso_model_deformable_count(m), before);
}

Test(model_deformable, bad_inputs_are_named) {
  isoModel *m = new_model();
  isoDeformableDef ok = from_arrays("ball", kCubeV, 8, kCube5, 5);
  add_ok(m, &ok, NULL);
  isoDeformableDef d = from_arrays("ball", kCubeV, 8, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "deformable 'ball': a deformable body of that name already exists");
  int flipped[20];
  memcpy(flipped, kCube5, sizeof flipped);
  flipped[4 * 3] = kCube5[4 * 3 + 1]; /* tet 3 with two vertices swapped */
  flipped[4 * 3 + 1] = kCube5[4 * 3];
  d = from_arrays("soft", kCubeV, 8, flipped, 5);
  refuses(m, &d, ISO_ERR_INVALID, "deformable 'soft': tetrahedron 3 is inverted (signed volume -0.167 m³)");
  double flat[24];
  memcpy(flat, kCubeV, sizeof flat);
  /* vertex 7 to 1e-14 above the bottom: tet 1 (1, 3, 2, 7) keeps a positive volume, 1.7e-15
   * m³, below 1e-12 of its longest edge (√2 m) cubed */
  flat[3 * 7 + 2] = 1e-14;
  d = from_arrays("soft", flat, 8, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "tetrahedron 1 is degenerate");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.poissons_ratio = 0.5;
  refuses(m, &d, ISO_ERR_INVALID, "deformable 'soft': Poisson's ratio 0.5");
  d.poissons_ratio = -1;
  refuses(m, &d, ISO_ERR_INVALID, "Poisson's ratio -1");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.youngs_modulus = 0;
  refuses(m, &d, ISO_ERR_INVALID, "deformable 'soft': Young's modulus 0");
  d.youngs_modulus = NAN;
  refuses(m, &d, ISO_ERR_INVALID, "Young's modulus nan");
  d.youngs_modulus = 1e14;
  refuses(m, &d, ISO_ERR_INVALID, "Young's modulus 1e+14");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.mass_density = 0;
  refuses(m, &d, ISO_ERR_INVALID, "mass density 0");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.mass_damping = -1;
  refuses(m, &d, ISO_ERR_INVALID, "mass damping -1");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.stiffness_damping = -0.01;
  refuses(m, &d, ISO_ERR_INVALID, "stiffness damping -0.01");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.mu_dynamic = -0.1;
  refuses(m, &d, ISO_ERR_INVALID, "mu_dynamic -0.1");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.material = (isoMaterialModel)3;
  refuses(m, &d, ISO_ERR_UNSUPPORTED, "material model 3");
  double nanv[24];
  memcpy(nanv, kCubeV, sizeof nanv);
  nanv[3 * 6 + 1] = NAN;
  d = from_arrays("soft", nanv, 8, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "deformable 'soft': vertex 6 is not finite");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.position[1] = INFINITY;
  refuses(m, &d, ISO_ERR_INVALID, "pose is not finite");
  d = from_arrays("soft", kCubeV, 8, kCube5, 5);
  d.mesh_scale[2] = 0;
  refuses(m, &d, ISO_ERR_INVALID, "mesh scale 0");
  int out_of_range[20];
  memcpy(out_of_range, kCube5, sizeof out_of_range);
  out_of_range[4 * 2 + 3] = 8;
  d = from_arrays("soft", kCubeV, 8, out_of_range, 5);
  refuses(m, &d, ISO_ERR_INVALID, "tetrahedron 2 refers to vertex 8, outside [0, 8)");
  double extra[27];
  memcpy(extra, kCubeV, sizeof kCubeV);
  extra[24] = extra[25] = extra[26] = 3;
  d = from_arrays("soft", extra, 9, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "vertex 8 belongs to no tetrahedron");
  d = from_arrays("soft", kCubeV, ISO_MAX_DEFORMABLE_VERTICES + 1, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "ISO_MAX_DEFORMABLE_VERTICES");
  d = from_arrays("soft", kCubeV, 8, NULL, 0);
  refuses(m, &d, ISO_ERR_INVALID, "needs a mesh_file");
  d = iso_default_deformable_def();
  d.name = "soft";
  d.mesh_file = "/nonexistent/soft.vtk";
  refuses(m, &d, ISO_ERR_IO, "deformable 'soft': ");
  cr_assert(strstr(iso_last_error(), "/nonexistent/soft.vtk"));
  d.mesh_file = test_source_path("examples/sphere_on_box.sdf");
  refuses(m, &d, ISO_ERR_UNSUPPORTED, "is not a .vtk tetrahedral mesh");
  d = from_arrays("", kCubeV, 8, kCube5, 5);
  refuses(m, &d, ISO_ERR_INVALID, "name is empty");
  /* the first body is untouched by all of it */
  meshCopy c = get_mesh(m, 0);
  cr_assert_eq(c.nv, 8);
  for (int i = 0; i < 24; ++i) cr_assert_eq(c.rest[i], kCubeV[i]);
  free_mesh(&c);
  cr_assert_eq(iso_model_validate(m), ISO_OK);
  iso_model_destroy(m);
}

Test(model_deformable, bad_fixes_and_walls_change_nothing) {
  isoModel *m = new_model();
  isoDeformableDef d = from_arrays("cube", kCubeV, 8, kCube6, 6);
  add_ok(m, &d, NULL);
  const int fix[3] = {1, 8, 2};
  cr_assert_eq(iso_model_fix_deformable_vertices(m, 0, 3, fix), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "deformable 'cube': vertex 8 (entry 1) is outside [0, 8)"), "%s", iso_last_error());
  cr_assert_eq(iso_model_fix_deformable_vertices(m, 1, 1, fix), ISO_ERR_NOT_FOUND);
  const double Q[3] = {0, 0, 0.5}, zero[3] = {0, 0, 0}, nan3[3] = {0, NAN, 1};
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q, zero, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "wall normal (0, 0, 0) is zero"), "%s", iso_last_error());
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q, nan3, NULL), ISO_ERR_INVALID);
  meshCopy c = get_mesh(m, 0);
  for (int v = 0; v < 8; ++v) cr_assert_eq(c.held[v], 0, "vertex %d held after refusals", v);
  free_mesh(&c);
  iso_model_destroy(m);
}

/* A model of deformable bodies only compiles; it is read-only afterwards; a sim refuses it
 * (and a model mixing rigid and deformable bodies) until the step moves deformables. */
Test(model_deformable, compile_and_sim) {
  isoModel *m = new_model();
  isoDeformableDef d = from_arrays("cube", kCubeV, 8, kCube6, 6);
  add_ok(m, &d, NULL);
  isoStatus st = iso_model_compile(m);
  cr_assert_eq(st, ISO_OK, "%s", iso_last_error());
  cr_assert(iso_model_is_compiled(m));
  cr_assert_eq(iso_model_deformable_count(m), 1);
  d.name = "late";
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_ERR_STATE);
  cr_assert_eq(iso_model_deformable_count(m), 1);
  const int fix[1] = {0};
  cr_assert_eq(iso_model_fix_deformable_vertices(m, 0, 1, fix), ISO_ERR_STATE);
  const double Q[3] = {0, 0, 0}, n[3] = {0, 0, 1};
  cr_assert_eq(iso_model_deformable_wall(m, 0, Q, n, NULL), ISO_ERR_STATE);
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, NULL, &s), ISO_OK, "a model of deformables alone steps: %s", iso_last_error());
  iso_sim_destroy(s);
  s = NULL;
  iso_model_destroy(m);

  m = new_model();
  isoBodyDef b = iso_default_body_def();
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  isoGeometryDef g = iso_default_geometry_def();
  g.body = 0;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK);
  d.name = "cube";
  add_ok(m, &d, NULL);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  /* with a free body's sphere: the deformable touches its compliant field */
  cr_assert_eq(iso_sim_create(m, NULL, &s), ISO_OK, "%s", iso_last_error());
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Validation at compile sees a body the builder holds (the checks run again). */
Test(model_deformable, validate_checks_again) {
  isoModel *m = new_model();
  cr_assert_eq(iso_model_deformable_count(NULL), 0);
  isoDeformableDef d = from_arrays("cube", kCubeV, 8, kCube6, 6);
  add_ok(m, &d, NULL);
  cr_assert_eq(iso_model_validate(m), ISO_OK);
  cr_assert_eq(iso_model_get_deformable(m, 1, &d), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_deformable_size(m, -1, NULL, NULL, NULL), ISO_ERR_NOT_FOUND);
  iso_model_destroy(m);
}
