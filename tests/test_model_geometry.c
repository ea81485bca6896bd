/* Geometries in the model builder: Drake's defaults, checks naming the geometry, filters. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"

static isoModel *with_body(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.name = "box";
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  return m;
}

static void rejects(isoGeometryDef g, isoStatus want, const char *needle) {
  isoModel *m = with_body();
  isoStatus st = iso_model_add_geometry(m, &g, NULL);
  cr_assert_eq(st, want, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
  cr_assert_eq(iso_model_geometry_count(m), 0);
  iso_model_destroy(m);
}

Test(model_geometry, defaults_are_drakes) {
  isoGeometryDef g = iso_default_geometry_def();
  cr_assert_eq(g.body, ISO_WORLD_BODY);
  cr_assert_eq(g.compliance, ISO_COMPLIANCE_UNDEFINED, "Drake's default compliance is undefined");
  cr_assert_eq(g.hydroelastic_modulus, 1e7);
  cr_assert_eq(g.resolution_hint, 0.02);
  cr_assert_eq(g.hunt_crossley_dissipation, 50.0);
  cr_assert_eq(g.relaxation_time, 0.1);
  cr_assert_eq(g.mu_static, 0.5);
  cr_assert_eq(g.mu_dynamic, 0.5);
  cr_assert_eq(g.point_stiffness, 1e6);
  cr_assert_eq(g.margin, 0.0);
}

Test(model_geometry, bad_geometries_are_named) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ball";
  g.size[0] = -0.1;
  rejects(g, ISO_ERR_INVALID, "geometry 'ball': sphere radius -0.1");
  g = iso_default_geometry_def();
  g.name = "pad";
  g.shape = ISO_SHAPE_BOX;
  g.size[2] = 0;
  rejects(g, ISO_ERR_INVALID, "box size z 0");
  g = iso_default_geometry_def();
  g.body = 3;
  rejects(g, ISO_ERR_INVALID, "body index 3");
  g = iso_default_geometry_def();
  g.hydroelastic_modulus = 0;
  rejects(g, ISO_ERR_INVALID, "hydroelastic_modulus");
  g = iso_default_geometry_def();
  g.resolution_hint = -1;
  rejects(g, ISO_ERR_INVALID, "resolution_hint");
  g = iso_default_geometry_def();
  g.mu_dynamic = NAN;
  rejects(g, ISO_ERR_INVALID, "mu_dynamic");
  g = iso_default_geometry_def();
  g.name = "floor";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  rejects(g, ISO_ERR_INVALID, "slab_thickness");
  g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_MESH;
  rejects(g, ISO_ERR_INVALID, "needs a mesh file");
  g.mesh_file = "/nonexistent/thing.obj";
  rejects(g, ISO_ERR_IO, "/nonexistent/thing.obj");
  g = iso_default_geometry_def();
  g.quaternion[0] = 0;
  rejects(g, ISO_ERR_INVALID, "quaternion");
}

Test(model_geometry, add_find_exclude) {
  isoModel *m = with_body();
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ball";
  g.body = 0;
  int a = -1, b = -1;
  cr_assert_eq(iso_model_add_geometry(m, &g, &a), ISO_OK, "%s", iso_last_error());
  g.name = NULL;
  g.shape = ISO_SHAPE_HALFSPACE;
  g.body = ISO_WORLD_BODY;
  cr_assert_eq(iso_model_add_geometry(m, &g, &b), ISO_OK);
  cr_assert_eq(b, 1);
  int id;
  cr_assert_eq(iso_model_find_geometry(m, "geometry1", &id), ISO_OK);
  cr_assert_eq(id, 1);
  g.name = "ball";
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_ERR_INVALID, "duplicate names are rejected");
  cr_assert_eq(iso_model_exclude_pair(m, a, b), ISO_OK);
  cr_assert_eq(iso_model_exclude_pair(m, a, a), ISO_ERR_INVALID);
  cr_assert_eq(iso_model_exclude_pair(m, a, 9), ISO_ERR_INVALID);
  isoGeometryDef got;
  cr_assert_eq(iso_model_get_geometry(m, 0, &got), ISO_OK);
  cr_assert_str_eq(got.name, "ball");
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_ERR_STATE);
  iso_model_destroy(m);
}

/* Values no real scene has are refused at the door, the value and the range named (a modulus of
 * 1e308 used to pass and drop a box through the floor unflagged); the same ranges hold for the
 * per-world parameters. */
Test(model_geometry, absurd_values_are_refused_by_range) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "slab";
  g.body = 0;
  g.shape = ISO_SHAPE_BOX;
  g.hydroelastic_modulus = 1e308;
  rejects(g, ISO_ERR_INVALID, "hydroelastic_modulus 1e+308 is outside the range");
  g.hydroelastic_modulus = 1e7;
  g.point_stiffness = 1e50;
  rejects(g, ISO_ERR_INVALID, "point_stiffness 1e+50");
  g.point_stiffness = INFINITY; /* rigid stays allowed */
  g.size[0] = 1e9;
  rejects(g, ISO_ERR_INVALID, "size 1e+09");
  g.size[0] = 0.1;
  g.mu_static = g.mu_dynamic = 1e6;
  rejects(g, ISO_ERR_INVALID, "mu_static 1e+06");
  isoModel *m = with_body();
  isoBodyDef b = iso_default_body_def();
  b.mass = 1e12;
  b.name = "planet";
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "mass 1e+12 is beyond") != NULL, "%s", iso_last_error());
  g = iso_default_geometry_def();
  g.body = 0;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 2;
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  const double E = 1e50;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_MODULUS, 0, iso_worlds_one(1), &E), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "1e+50") != NULL, "%s", iso_last_error());
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
