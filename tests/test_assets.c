/* Model compile builds every hydroelastic asset: meshes from files, margins, shared assets, and
 * errors that name the geometry and the element. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"

static const char *data(const char *name) {
  static char path[4][512];
  static int k = 0;
  const char *root = getenv("ISO_SOURCE_DIR");
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/tests/data/%s", root ? root : ".", name);
  return path[k];
}

/* One body carrying `g` above a rigid ground; returns the compile status. */
static isoStatus build(isoGeometryDef g, isoModel **out) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  isoBodyDef b = iso_default_body_def();
  b.name = "body";
  iso_model_add_body(m, &b, NULL);
  g.body = 0;
  isoStatus st = iso_model_add_geometry(m, &g, NULL);
  if (st == ISO_OK) {
    isoGeometryDef h = iso_default_geometry_def();
    h.name = "ground";
    h.shape = ISO_SHAPE_HALFSPACE;
    h.compliance = ISO_COMPLIANCE_RIGID;
    iso_model_add_geometry(m, &h, NULL);
    st = iso_model_compile(m);
  }
  *out = m;
  return st;
}

/* Net upward force on geometry 0 with the body origin at height z. */
static double lift(isoModel *m, double z, int *nface) {
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.capacity.max_candidates = 1 << 14;
  sd.capacity.max_contacts = 1 << 12;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  double q[7] = {1, 0, 0, 0, 0, 0, z};
  iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(0), q);
  cr_assert_eq(iso_sim_update_contact(s), ISO_OK);
  double F[3], T[3];
  iso_sim_contact_wrench(s, 0, 0, 1, F, T);
  iso_sim_contact_face_count(s, 0, nface);
  iso_sim_destroy(s);
  return F[2];
}

Test(assets, compliant_convex_and_vtk_meshes_from_files) {
  /* cube.obj is the unit cube [0, 1]³ */
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "hull";
  g.shape = ISO_SHAPE_CONVEX;
  g.mesh_file = data("cube.obj");
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 1e5;
  isoModel *m;
  cr_assert_eq(build(g, &m), ISO_OK, "%s", iso_last_error());
  int n;
  double F = lift(m, -0.05, &n);
  /* The convex mesh's field is E at the centroid and 0 on the boundary, linear in each
   * (centroid, face triangle) tet. The plane 0.05 above the bottom cuts the bottom pyramid in
   * the square [0.05, 0.95]² at p = E·0.05/0.5, and the four side pyramids in strips where
   * p = E·x/0.5: F = E·(0.1·0.81 + 4·2·(0.05²/2 − 2·0.05³/3)) = 0.0903333…·E. The field is
   * linear on each polygon, so the result is exact to rounding. */
  const double exact = 1e5 * (0.1 * 0.81 + 8 * (0.05 * 0.05 / 2 - 2 * 0.05 * 0.05 * 0.05 / 3));
  cr_assert_gt(n, 0);
  cr_assert_float_eq(F, exact, 1e-10 * exact, "force %.12g vs %.12g", F, exact);
  iso_model_destroy(m);

  /* A tet mesh whose vertices all lie on its surface has no interior to put E at: Drake's
   * MakeVolumeMeshPressureField refuses it, and so does isobar, naming the geometry. */
  g.name = "tets";
  g.shape = ISO_SHAPE_MESH;
  g.mesh_file = data("cube_tets.vtk");
  cr_assert_eq(build(g, &m), ISO_ERR_INVALID, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "tets") != NULL, "%s", iso_last_error());
  iso_model_destroy(m);

  g.name = "rigid_obj";
  g.mesh_file = data("cube.obj");
  g.compliance = ISO_COMPLIANCE_RIGID;
  cr_assert_eq(build(g, &m), ISO_OK, "%s", iso_last_error());
  iso_model_destroy(m);
}

Test(assets, bad_mesh_files_name_the_geometry) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "finger";
  g.shape = ISO_SHAPE_MESH;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  const char *bad[3] = {"bad_celltype.vtk", "inverted.vtk", "truncated.vtk"};
  for (int i = 0; i < 3; ++i) {
    g.mesh_file = data(bad[i]);
    isoModel *m;
    isoStatus st = build(g, &m);
    cr_assert_neq(st, ISO_OK, "%s must be rejected", bad[i]);
    cr_assert(strstr(iso_last_error(), "finger") != NULL, "'%s' must name the geometry", iso_last_error());
    cr_assert(strstr(iso_last_error(), bad[i]) != NULL, "'%s' must name the file", iso_last_error());
    cr_assert_not(iso_model_is_compiled(m));
    iso_model_destroy(m);
  }
  g.shape = ISO_SHAPE_CONVEX;
  g.mesh_file = data("no_faces.obj");
  isoModel *m;
  cr_assert_neq(build(g, &m), ISO_OK);
  cr_assert(strstr(iso_last_error(), "finger") != NULL, "%s", iso_last_error());
  iso_model_destroy(m);
}

Test(assets, margin_makes_a_speculative_negative_pressure_layer) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ball";
  g.size[0] = 0.1;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 1e5;
  g.resolution_hint = 0.02;
  g.margin = 0.002;
  isoModel *m;
  cr_assert_eq(build(g, &m), ISO_OK, "%s", iso_last_error());
  int n;
  /* 1 mm above the ground, inside the 2 mm margin: faces exist and push *down* (negative
   * pressure), which the discrete approximation turns into a speculative constraint. */
  double F = lift(m, 0.101, &n);
  cr_assert_gt(n, 0, "the margin layer reaches the ground");
  cr_assert_lt(F, 0, "pressure is negative inside the margin (%g)", F);
  /* without the margin: no contact at all */
  iso_model_destroy(m);
  g.margin = 0;
  cr_assert_eq(build(g, &m), ISO_OK);
  F = lift(m, 0.101, &n);
  cr_assert_eq(n, 0);
  iso_model_destroy(m);
}
