/* URDF scene files: the example loads (strictly), a file equals the same scene built through the C
 * API field by field, fixed joints merge (and weld to the world link), inertial frames rotate the
 * inertia, errors name file:line and element, unsupported things are reported or rejected. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

static const char *src_path(const char *rel) { return test_source_path(rel); }

static const char *scene(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/scenes/%s", name);
  return test_source_path(rel);
}

static int line_of(const char *path, const char *needle) { return test_line_of(path, needle); }

static isoModel *load(const char *path, int strict, isoLoadReport **report) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, report);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

static void load_fails(const char *path, int strict, isoStatus want, int line, const char *needle) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, NULL);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  char where[1200];
  snprintf(where, sizeof where, "%s:%d:", path, line);
  cr_assert(strstr(iso_last_error(), where) != NULL, "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
}

/* Poses go through roll-pitch-yaw and products of transforms: a few ulps of order-one values. */
#define POSE_TOL 1e-14

static void qmul(const double *a, const double *b, double *out) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof r);
}

static void set_rpy(double *q, double r, double p, double y) {
  double qx[4] = {cos(r / 2), sin(r / 2), 0, 0}, qy[4] = {cos(p / 2), 0, sin(p / 2), 0}, qz[4] = {cos(y / 2), 0, 0, sin(y / 2)};
  double t[4];
  qmul(qy, qx, t);
  qmul(qz, t, q);
}

static void add_geom(isoModel *m, isoGeometryDef g) {
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
}

/* tests/data/scenes/urdf_equal.urdf, call for call. Parsed geometries default to friction 1.0. */
static isoModel *api_scene(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.name = "bot::base";
  b.mass = 3;
  b.com[0] = 0.1, b.com[2] = -0.05;
  double I[6] = {0.03, 0.04, 0.05, 0.001, 0, -0.002};
  memcpy(b.inertia, I, sizeof I);
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK, "%s", iso_last_error());

  isoGeometryDef g = iso_default_geometry_def();
  g.name = "bot::world::floor";
  g.body = ISO_WORLD_BODY;
  g.position[2] = -0.05;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = 2, g.size[1] = 2, g.size[2] = 0.1;
  g.compliance = ISO_COMPLIANCE_RIGID;
  g.mu_static = 0.9, g.mu_dynamic = 0.7;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "bot::base::ball";
  g.body = 0;
  g.position[0] = 0.2;
  set_rpy(g.quaternion, 0.1, 0.2, 0.3);
  g.size[0] = 0.05;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 4e5;
  g.resolution_hint = 0.008;
  g.margin = 0.0002;
  g.hunt_crossley_dissipation = 2.5;
  g.relaxation_time = 0.05;
  g.point_stiffness = 3e4;
  g.mu_static = g.mu_dynamic = 0.6;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "bot::base::pill";
  g.body = 0;
  g.shape = ISO_SHAPE_CAPSULE;
  g.size[0] = 0.02, g.size[1] = 0.2;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g.name = "bot::base::capsule"; /* unnamed: named after its shape, as Drake does */
  g.size[0] = 0.01, g.size[1] = 0.05;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "bot::base::egg";
  g.body = 0;
  g.shape = ISO_SHAPE_ELLIPSOID;
  g.size[0] = 0.01, g.size[1] = 0.02, g.size[2] = 0.03;
  g.compliance = ISO_COMPLIANCE_RIGID;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "bot::base::hull";
  g.body = 0;
  g.shape = ISO_SHAPE_CONVEX;
  g.mesh_file = scene("tet.obj");
  g.mesh_scale[0] = g.mesh_scale[1] = g.mesh_scale[2] = 0.5;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "bot::base::can";
  g.body = 0;
  g.shape = ISO_SHAPE_CYLINDER;
  g.size[0] = 0.03, g.size[1] = 0.1;
  g.mu_static = 0.8, g.mu_dynamic = 0.3; /* <drake_compliance> */
  add_geom(m, g);

  /* post is fixed to the world at (1, 0, 0), turned 90° about z: its pole is anchored. */
  g = iso_default_geometry_def();
  g.name = "bot::post::pole";
  g.body = ISO_WORLD_BODY;
  g.position[0] = 1, g.position[1] = 0.1, g.position[2] = 0.5;
  g.quaternion[0] = sqrt(0.5), g.quaternion[3] = sqrt(0.5);
  g.shape = ISO_SHAPE_CYLINDER;
  g.size[0] = 0.02, g.size[1] = 1;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

Test(scene_urdf, file_equals_the_api_built_model) {
  isoLoadReport *r = NULL;
  isoModel *a = load(scene("urdf_equal.urdf"), 1, &r), *b = api_scene();
  cr_assert_eq(iso_load_report_count(r), 0, "nothing to report: %s", iso_load_report_line(r, 0));
  isoModelDef da, db;
  iso_model_get_def(a, &da);
  iso_model_get_def(b, &db);
  cr_assert_eq(da.time_step, db.time_step);
  for (int k = 0; k < 3; ++k) cr_assert_eq(da.gravity[k], db.gravity[k]);
  cr_assert_eq(iso_model_body_count(a), iso_model_body_count(b));
  for (int i = 0; i < iso_model_body_count(a); ++i) {
    isoBodyDef x, y;
    iso_model_get_body(a, i, &x);
    iso_model_get_body(b, i, &y);
    cr_assert_str_eq(x.name, y.name);
    cr_assert_eq(x.mass, y.mass);
    for (int k = 0; k < 3; ++k) cr_assert_eq(x.com[k], y.com[k], "%s com %d", x.name, k);
    for (int k = 0; k < 6; ++k) cr_assert_eq(x.inertia[k], y.inertia[k], "%s inertia %d", x.name, k);
    isoFreeBodyState xs, ys;
    iso_model_get_initial_state(a, i, &xs);
    iso_model_get_initial_state(b, i, &ys);
    for (int k = 0; k < 3; ++k) cr_assert_float_eq(xs.position[k], ys.position[k], POSE_TOL, "%s", x.name);
    for (int k = 0; k < 4; ++k) cr_assert_float_eq(xs.quaternion[k], ys.quaternion[k], POSE_TOL, "%s", x.name);
  }
  cr_assert_eq(iso_model_geometry_count(a), iso_model_geometry_count(b));
  for (int i = 0; i < iso_model_geometry_count(a); ++i) {
    isoGeometryDef x, y;
    iso_model_get_geometry(a, i, &x);
    iso_model_get_geometry(b, i, &y);
    cr_assert_str_eq(x.name, y.name);
    cr_assert_eq(x.body, y.body, "%s", x.name);
    for (int k = 0; k < 3; ++k) cr_assert_float_eq(x.position[k], y.position[k], POSE_TOL, "%s", x.name);
    for (int k = 0; k < 4; ++k) cr_assert_float_eq(x.quaternion[k], y.quaternion[k], POSE_TOL, "%s", x.name);
    cr_assert_eq(x.shape, y.shape, "%s", x.name);
    for (int k = 0; k < 3; ++k) cr_assert_eq(x.size[k], y.size[k], "%s size %d", x.name, k);
    cr_assert_eq(x.mesh_file == NULL, y.mesh_file == NULL, "%s", x.name);
    if (x.mesh_file) cr_assert_str_eq(x.mesh_file, y.mesh_file);
    for (int k = 0; k < 3; ++k) cr_assert_eq(x.mesh_scale[k], y.mesh_scale[k], "%s", x.name);
    cr_assert_eq(x.compliance, y.compliance, "%s", x.name);
    cr_assert_eq(x.hydroelastic_modulus, y.hydroelastic_modulus, "%s", x.name);
    cr_assert_eq(x.resolution_hint, y.resolution_hint, "%s", x.name);
    cr_assert_eq(x.margin, y.margin, "%s", x.name);
    cr_assert_eq(x.slab_thickness, y.slab_thickness, "%s", x.name);
    cr_assert_eq(x.hunt_crossley_dissipation, y.hunt_crossley_dissipation, "%s", x.name);
    cr_assert_eq(x.relaxation_time, y.relaxation_time, "%s", x.name);
    cr_assert_eq(x.mu_static, y.mu_static, "%s", x.name);
    cr_assert_eq(x.mu_dynamic, y.mu_dynamic, "%s", x.name);
    cr_assert_eq(x.point_stiffness, y.point_stiffness, "%s", x.name);
  }
  iso_model_destroy(a);
  iso_model_destroy(b);
  iso_load_report_free(r);
}

Test(scene_urdf, example_merges_fixed_joints_and_welds_to_world) {
  isoLoadReport *r = NULL;
  isoModel *m = load(src_path("examples/dumbbell_on_table.urdf"), 1, &r);
  cr_assert_eq(iso_load_report_count(r), 1, "only the visual summary");
  cr_assert(strstr(iso_load_report_line(r, 0), "<visual> ignored") != NULL);
  cr_assert_eq(iso_model_body_count(m), 1, "bar + two weights are one body; the table is welded");
  isoBodyDef b;
  iso_model_get_body(m, 0, &b);
  cr_assert_str_eq(b.name, "dumbbell_on_table::bar");
  /* 0.2 kg bar + two 0.5 kg spheres at x = ±0.15: symmetric, so the COM stays at the bar's
   * origin; the spheres add 2/5 m r² each plus m d² about y and z. Sums of a few terms: 1e-15. */
  cr_assert_float_eq(b.mass, 1.2, 1e-15);
  for (int k = 0; k < 3; ++k) cr_assert_float_eq(b.com[k], 0, 1e-15);
  cr_assert_float_eq(b.inertia[0], 1e-5 + 2 * 0.00032, 1e-15);
  cr_assert_float_eq(b.inertia[1], 0.0015 + 2 * (0.00032 + 0.5 * 0.15 * 0.15), 1e-15);
  cr_assert_float_eq(b.inertia[2], 0.0015 + 2 * (0.00032 + 0.5 * 0.15 * 0.15), 1e-15);
  isoGeometryDef g;
  int id;
  cr_assert_eq(iso_model_find_geometry(m, "dumbbell_on_table::table::top", &id), ISO_OK);
  iso_model_get_geometry(m, id, &g);
  cr_assert_eq(g.body, ISO_WORLD_BODY);
  cr_assert_float_eq(g.position[2], -0.225, 1e-15);
  cr_assert_eq(g.mu_static, 0.6);
  cr_assert_eq(g.mu_dynamic, 0.5);
  cr_assert_eq(iso_model_find_geometry(m, "dumbbell_on_table::right_weight::sphere", &id), ISO_OK);
  iso_model_get_geometry(m, id, &g);
  cr_assert_eq(g.body, 0);
  cr_assert_float_eq(g.position[0], 0.15, 1e-15);
  cr_assert_eq(iso_model_find_geometry(m, "dumbbell_on_table::bar::bar", &id), ISO_OK);
  iso_model_get_geometry(m, id, &g);
  cr_assert_eq(g.shape, ISO_SHAPE_CAPSULE, "drake:capsule");
  cr_assert_eq(iso_scene_find_body(m, "bar", &id), ISO_OK);
  cr_assert_eq(id, 0);
  iso_load_report_free(r);
  iso_model_destroy(m);
}

Test(scene_urdf, inertial_origin_rotates_the_inertia) {
  isoLoadReport *r = NULL;
  isoModel *m = load(scene("urdf_rotated_inertia.urdf"), 0, &r);
  /* The world link's <inertial> is reported, as Drake warns about it. */
  cr_assert_eq(iso_load_report_count(r), 1);
  cr_assert(strstr(iso_load_report_line(r, 0), "<inertial> ignored (the world link has no mass") != NULL, "%s",
            iso_load_report_line(r, 0));
  isoBodyDef b;
  iso_model_get_body(m, 0, &b);
  cr_assert_str_eq(b.name, "turned::body");
  cr_assert_eq(b.com[2], 0.1);
  /* R = Rz(90°): x' = y, y' = -x, so Ixx' = Iyy, Iyy' = Ixx, Ixy' = -Ixy, Ixz' = -Iyz, Iyz' =
   * Ixz. cos(π/2) is 6e-17, not 0: allow 1e-17 on values of 1e-2. */
  double want[6] = {0.02, 0.01, 0.025, -0.001, -0.003, 0.002};
  for (int k = 0; k < 6; ++k) cr_assert_float_eq(b.inertia[k], want[k], 1e-17, "inertia %d: %g", k, b.inertia[k]);
  iso_load_report_free(r);
  iso_model_destroy(m);
}

Test(scene_urdf, errors_name_file_line_and_element) {
  const char *p;
  p = scene("bad_malformed.urdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "</robot>"), "malformed XML");
  p = scene("bad_missing_mesh.urdf");
  load_fails(p, 0, ISO_ERR_IO, line_of(p, "gone.obj"), "meshes/gone.obj");
  p = scene("bad_negative_mass.urdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "<mass"), "mass -1 must be >= 0");
  p = scene("bad_inertia.urdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "<inertial>"), "body 'r::flat': inertia about the centre of mass is not positive definite");
  p = scene("bad_unknown_geometry.urdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<torus"), "unknown geometry <torus>");
  p = scene("bad_not_a_number.urdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "lots"), "'lots' is not a finite number");
  p = scene("bad_joint_type.urdf");
  load_fails(p, 0, ISO_ERR_UNSUPPORTED, line_of(p, "planar"), "<joint name='elbow'>: joint 'elbow' of type 'planar' is not supported");
  p = scene("bad_massless.urdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "<link"), "a free body needs a mass > 0");
}

Test(scene_urdf, unsupported_is_reported_or_rejected_with_strict) {
  const char *p = scene("unsupported.urdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  cr_assert_eq(iso_model_body_count(m), 1, "a and b merged");
  struct {
    const char *needle, *line;
  } want[] = {
      {"type=\"rigid\"", "<link> attribute 'type' ignored (unsupported)"},
      {"group=", "<collision> attribute 'group' ignored (unsupported)"},
      {"<axis", "<axis> ignored (unsupported)"},
      {"<transmission", "<transmission> ignored (only SimpleTransmission makes an actuator, as in Drake)"},
      {"<gazebo", "<gazebo> ignored (unsupported)"},
      {"<material", "<visual> ignored (2 visual elements in all, 1 of them <material>"},
  };
  int n = (int)(sizeof want / sizeof want[0]);
  cr_assert_eq(iso_load_report_count(r), n);
  for (int i = 0; i < n; ++i) {
    char expect[1400];
    snprintf(expect, sizeof expect, "%s:%d: %s", p, line_of(p, want[i].needle), want[i].line);
    const char *got = iso_load_report_line(r, i);
    cr_assert(strncmp(got, expect, strlen(expect)) == 0, "line %d: '%s', expected '%s...'", i, got, expect);
  }
  iso_load_report_free(r);
  iso_model_destroy(m);
  /* Strict: the first thing it would ignore is an error (robot-level elements are checked
   * before the links are read). */
  load_fails(p, 1, ISO_ERR_UNSUPPORTED, line_of(p, "<gazebo"), "<gazebo> is not supported by isobar");
}
