/* SDFormat scene files: every example loads (strictly), a file equals the same scene built through
 * the C API field by field, errors name file:line and element, unsupported things are reported or
 * (strict) rejected, include + relative_to + static + fixed-joint merges place everything where
 * SDFormat says, and body lookups by plain or scoped name. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

/* A path under the source tree; skips the test when the tree is unknown. */
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
  cr_assert(iso_model_is_compiled(m));
  return m;
}

/* The load fails with `want` and a message holding "path:line:" and `needle`. */
static void load_fails(const char *path, int strict, isoStatus want, int line, const char *needle) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = (isoModel *)&o; /* must be reset to NULL */
  isoLoadReport *r = (isoLoadReport *)&o;
  isoStatus st = iso_scene_load(path, &o, &m, &r);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  cr_assert_null(r);
  char where[1200];
  if (line > 0) snprintf(where, sizeof where, "%s:%d:", path, line);
  else snprintf(where, sizeof where, "%s", path);
  cr_assert(strstr(iso_last_error(), where) != NULL, "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
}

/* ---- every example ------------------------------------------------------------------------- */

static int load_dir(const char *dir, const char *ext) {
  DIR *d = opendir(dir);
  cr_assert(d != NULL, "cannot list %s", dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name), el = strlen(ext);
    if (len <= el || strcmp(e->d_name + len - el, ext) != 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    /* Strict: the examples use nothing isobar ignores (visuals aside). */
    isoLoadReport *r = NULL;
    isoModel *m = load(path, 1, &r);
    cr_assert(iso_model_geometry_count(m) > 0 || iso_model_joint_count(m) > 0 || iso_model_deformable_count(m) > 0,
              "%s has no geometry, no joints and no deformable body", path);
    for (int i = 0; i < iso_load_report_count(r); ++i)
      cr_assert(strstr(iso_load_report_line(r, i), "<visual> ignored") != NULL, "%s: %s", path, iso_load_report_line(r, i));
    iso_load_report_free(r);
    iso_model_destroy(m);
    ++n;
  }
  closedir(d);
  return n;
}

Test(scene_sdf, every_example_loads_strictly) {
  int n = load_dir(src_path("examples"), ".sdf") + load_dir(src_path("examples/models"), ".sdf");
  cr_assert(n >= 8, "only %d SDFormat examples found", n);
}

Test(scene_sdf, examples_hold_the_scenes_they_promise) {
  isoModel *m = load(src_path("examples/stack_of_five_boxes.sdf"), 0, NULL);
  cr_assert_eq(iso_model_body_count(m), 5);
  for (int i = 0; i < 5; ++i) {
    isoBodyDef b;
    isoFreeBodyState x;
    cr_assert_eq(iso_model_get_body(m, i, &b), ISO_OK);
    cr_assert_eq(iso_model_get_initial_state(m, i, &x), ISO_OK);
    char name[32];
    snprintf(name, sizeof name, "box%d::box", i + 1);
    cr_assert_str_eq(b.name, name);
    cr_assert_float_eq(x.position[2], 0.05 + 0.1 * i, 1e-15, "box %d starts resting on the one below", i + 1);
  }
  iso_model_destroy(m);
  /* The incline's block sits on the slope: rotated by the slope's angle, half its height above. */
  m = load(src_path("examples/incline_above_friction.sdf"), 0, NULL);
  isoFreeBodyState b;
  cr_assert_eq(iso_model_get_initial_state(m, 0, &b), ISO_OK);
  double th = 35 * 3.14159265358979323846 / 180;
  cr_assert_float_eq(b.position[0], 0.025 * sin(th), 1e-15);
  cr_assert_float_eq(b.position[2], 0.025 * cos(th), 1e-15);
  cr_assert_float_eq(b.quaternion[0], cos(th / 2), 1e-15);
  cr_assert_float_eq(b.quaternion[2], sin(th / 2), 1e-15);
  isoGeometryDef g;
  cr_assert_eq(iso_model_get_geometry(m, 0, &g), ISO_OK);
  cr_assert_eq(g.body, ISO_WORLD_BODY, "the static incline is welded to the world");
  cr_assert_eq(g.shape, ISO_SHAPE_HALFSPACE);
  iso_model_destroy(m);
}

/* ---- the same scene through the API --------------------------------------------------------- */

static void qmul(const double *a, const double *b, double *out) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(out, r, sizeof r);
}

/* R = Rz(y) Ry(p) Rx(r): SDFormat's roll-pitch-yaw, as a product of axis rotations. */
static void set_rpy(double *q, double r, double p, double y) {
  double qx[4] = {cos(r / 2), sin(r / 2), 0, 0}, qy[4] = {cos(p / 2), 0, sin(p / 2), 0}, qz[4] = {cos(y / 2), 0, 0, sin(y / 2)};
  double t[4];
  qmul(qy, qx, t);
  qmul(qz, t, q);
}

static void add_geom(isoModel *m, isoGeometryDef g) {
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
}

/* tests/data/scenes/api_equal.sdf, call for call. */
static isoModel *api_scene(void) {
  isoModelDef md = iso_default_model_def();
  md.gravity[2] = -9.8;
  md.time_step = 0.002;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.name = "robot::base";
  b.mass = 2;
  b.com[0] = 0.01, b.com[1] = -0.02, b.com[2] = 0.03;
  double I[6] = {0.1, 0.2, 0.25, 0.01, -0.02, 0.005};
  memcpy(b.inertia, I, sizeof I);
  int id = -1;
  cr_assert_eq(iso_model_add_body(m, &b, &id), ISO_OK, "%s", iso_last_error());
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[0] = 1, x.position[1] = 2, x.position[2] = 3.5;
  cr_assert_eq(iso_model_set_initial_state(m, id, &x), ISO_OK, "%s", iso_last_error());
  b = iso_default_body_def();
  b.name = "ball::ball";
  b.mass = 1; /* SDFormat's default inertial */
  b.inertia[0] = b.inertia[1] = b.inertia[2] = 1;
  cr_assert_eq(iso_model_add_body(m, &b, &id), ISO_OK, "%s", iso_last_error());
  x = iso_default_free_body_state();
  x.position[2] = 1;
  cr_assert_eq(iso_model_set_initial_state(m, id, &x), ISO_OK, "%s", iso_last_error());

  /* Drake's parsers default friction to 1.0, not the API's 0.5. */
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ground::ground::floor";
  g.body = ISO_WORLD_BODY;
  g.position[2] = -0.5;
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.slab_thickness = 0.5;
  g.hydroelastic_modulus = 3e7;
  g.mu_static = 0.7, g.mu_dynamic = 0.6;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::box";
  g.body = 0;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = 0.3, g.size[1] = 0.2, g.size[2] = 0.1;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 2e6;
  g.resolution_hint = 0.01;
  g.margin = 1e-4;
  g.hunt_crossley_dissipation = 3;
  g.relaxation_time = 0.2;
  g.point_stiffness = 2e5;
  g.mu_static = 0.8, g.mu_dynamic = 0.6;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::ball";
  g.body = 0;
  g.position[0] = 0.1, g.position[2] = 0.2;
  set_rpy(g.quaternion, 0.5, -0.25, 1.0);
  g.shape = ISO_SHAPE_SPHERE;
  g.size[0] = 0.05;
  g.compliance = ISO_COMPLIANCE_RIGID;
  g.resolution_hint = 0.005;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::can";
  g.body = 0;
  g.shape = ISO_SHAPE_CYLINDER;
  g.size[0] = 0.04, g.size[1] = 0.12;
  g.mu_static = 0.9, g.mu_dynamic = 0.4; /* <surface><friction><ode> mu, mu2 */
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::pill";
  g.body = 0;
  g.shape = ISO_SHAPE_CAPSULE;
  g.size[0] = 0.02, g.size[1] = 0.1;
  g.mu_static = g.mu_dynamic = 0.3; /* one of the two serves both */
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::egg";
  g.body = 0;
  g.shape = ISO_SHAPE_ELLIPSOID;
  g.size[0] = 0.03, g.size[1] = 0.04, g.size[2] = 0.05;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::hull";
  g.body = 0;
  g.shape = ISO_SHAPE_CONVEX;
  g.mesh_file = scene("tet.obj");
  g.mesh_scale[0] = 0.1, g.mesh_scale[1] = 0.2, g.mesh_scale[2] = 0.3;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "robot::base::jelly";
  g.body = 0;
  g.shape = ISO_SHAPE_MESH;
  g.mesh_file = scene("tet.vtk");
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.mu_static = g.mu_dynamic = 0.4;
  add_geom(m, g);

  g = iso_default_geometry_def();
  g.name = "ball::ball::sphere";
  g.body = 1;
  g.shape = ISO_SHAPE_SPHERE;
  g.size[0] = 0.1;
  g.mu_static = g.mu_dynamic = 1.0;
  add_geom(m, g);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

/* Poses pass through roll-pitch-yaw and transform products: 1e-14 is a few ulps of values of
 * order one. Everything else must match exactly. */
#define POSE_TOL 1e-14

static void same_models(const isoModel *a, const isoModel *b) {
  isoModelDef da, db;
  iso_model_get_def(a, &da);
  iso_model_get_def(b, &db);
  for (int k = 0; k < 3; ++k) cr_assert_eq(da.gravity[k], db.gravity[k]);
  cr_assert_eq(da.time_step, db.time_step);
  cr_assert_eq(iso_model_body_count(a), iso_model_body_count(b));
  for (int i = 0; i < iso_model_body_count(a); ++i) {
    isoBodyDef x, y;
    iso_model_get_body(a, i, &x);
    iso_model_get_body(b, i, &y);
    cr_assert_str_eq(x.name, y.name);
    cr_assert_eq(x.mass, y.mass, "%s", x.name);
    for (int k = 0; k < 3; ++k) cr_assert_eq(x.com[k], y.com[k], "%s com %d", x.name, k);
    for (int k = 0; k < 6; ++k) cr_assert_eq(x.inertia[k], y.inertia[k], "%s inertia %d", x.name, k);
    isoFreeBodyState xs, ys;
    iso_model_get_initial_state(a, i, &xs);
    iso_model_get_initial_state(b, i, &ys);
    for (int k = 0; k < 3; ++k) cr_assert_float_eq(xs.position[k], ys.position[k], POSE_TOL, "%s", x.name);
    for (int k = 0; k < 4; ++k) cr_assert_float_eq(xs.quaternion[k], ys.quaternion[k], POSE_TOL, "%s", x.name);
    for (int k = 0; k < 3; ++k) cr_assert_eq(xs.linear_velocity[k], ys.linear_velocity[k]);
    for (int k = 0; k < 3; ++k) cr_assert_eq(xs.angular_velocity[k], ys.angular_velocity[k]);
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
}

Test(scene_sdf, file_equals_the_api_built_model) {
  isoLoadReport *r = NULL;
  isoModel *file = load(scene("api_equal.sdf"), 1, &r);
  cr_assert_eq(iso_load_report_count(r), 0, "nothing to report: %s", iso_load_report_line(r, 0));
  isoModel *api = api_scene();
  same_models(file, api);
  iso_model_destroy(file);
  iso_model_destroy(api);
  iso_load_report_free(r);
}

Test(scene_sdf, time_step_option_overrides_the_scene) {
  isoLoadOptions o = iso_default_load_options();
  cr_assert_eq(o.strict, 0);
  cr_assert_eq(o.time_step, 0);
  o.time_step = 5e-4;
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(scene("api_equal.sdf"), &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  isoModelDef d;
  iso_model_get_def(m, &d);
  cr_assert_eq(d.time_step, 5e-4);
  iso_model_destroy(m);
  /* A scene without a step gets Drake's 1 ms. */
  m = load(scene("assembly.sdf"), 0, NULL);
  iso_model_get_def(m, &d);
  cr_assert_eq(d.time_step, 1e-3);
  cr_assert_eq(d.gravity[2], -9.81, "Drake's gravity when the world gives none");
  iso_model_destroy(m);
  o.time_step = -1;
  cr_assert_eq(iso_scene_load(scene("api_equal.sdf"), &o, &m, NULL), ISO_ERR_INVALID);
  cr_assert_eq(iso_scene_load(NULL, NULL, &m, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_scene_load(scene("api_equal.sdf"), NULL, NULL, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_scene_load(scene("tet.obj"), NULL, &m, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "unknown scene format") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_scene_load(scene("nothing_here.sdf"), NULL, &m, NULL), ISO_ERR_IO);
  cr_assert(strstr(iso_last_error(), "nothing_here.sdf") != NULL, "%s", iso_last_error());
}

Test(scene_sdf, plane_normal_is_the_half_space_outward_normal) {
  isoModel *m = load(scene("tilted_plane.sdf"), 1, NULL);
  cr_assert_eq(iso_model_body_count(m), 0, "a static model adds no body");
  double want[2][3] = {{0, 0.6, 0.8}, {0, 0, -1}};
  for (int i = 0; i < 2; ++i) {
    isoGeometryDef g;
    iso_model_get_geometry(m, i, &g);
    cr_assert_eq(g.shape, ISO_SHAPE_HALFSPACE);
    cr_assert_eq(g.body, ISO_WORLD_BODY);
    /* The geometry frame's +z, R e_z, is the third column of R(q). */
    const double *q = g.quaternion;
    double z[3] = {2 * (q[1] * q[3] + q[0] * q[2]), 2 * (q[2] * q[3] - q[0] * q[1]), 1 - 2 * (q[1] * q[1] + q[2] * q[2])};
    for (int k = 0; k < 3; ++k) cr_assert_float_eq(z[k], want[i][k], 1e-15, "%s: normal %d", g.name, k);
  }
  isoGeometryDef g;
  iso_model_get_geometry(m, 0, &g);
  cr_assert_eq(g.position[2], 1.0, "the plane passes through its pose's origin");
  iso_model_destroy(m);
}

/* ---- errors --------------------------------------------------------------------------------- */

Test(scene_sdf, errors_name_file_line_and_element) {
  const char *p;
  p = scene("bad_malformed.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "</collisoin>"), "malformed XML");
  p = scene("bad_missing_mesh.sdf");
  load_fails(p, 0, ISO_ERR_IO, line_of(p, "no_such_mesh.obj"), "no_such_mesh.obj");
  p = scene("bad_negative_mass.sdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "<mass>"), "<mass>: mass -2 must be >= 0");
  p = scene("bad_inertia.sdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "<inertial>"), "body 'm::wobbly': principal moments");
  p = scene("bad_unknown_geometry.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<blob>"), "unknown geometry <blob>");
  p = scene("bad_not_a_number.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "soft</drake"), "<drake:hydroelastic_modulus>: drake:hydroelastic_modulus: 'soft' is not a finite number");
  p = scene("bad_joint_type.sdf");
  load_fails(p, 0, ISO_ERR_UNSUPPORTED, line_of(p, "universal"), "<joint name='hinge'>: joint 'hinge' of type 'universal' is not supported");
  p = scene("bad_soft.sdf");
  load_fails(p, 0, ISO_ERR_UNSUPPORTED, line_of(p, "soft_hydroelastic"), "drake:compliant_hydroelastic");
  p = scene("bad_rigid_and_compliant.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<drake:proximity_properties>"), "exclude each other");
  p = scene("bad_relative_to.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<link"), "relative_to 'nowhere' names no frame of model 'm'");
  p = scene("bad_include.sdf");
  load_fails(p, 0, ISO_ERR_IO, line_of(p, "<uri>"), "parts/not_there.sdf");
  p = scene("bad_package_uri.sdf");
  load_fails(p, 0, ISO_ERR_IO, line_of(p, "package://"), "package 'my_robot' not found");
  p = scene("bad_friction.sdf");
  load_fails(p, 0, ISO_ERR_INVALID, line_of(p, "mu_dynamic"), "dynamic friction 0.9 exceeds static friction 0.5");
}

/* ---- the report and strict mode ------------------------------------------------------------ */

Test(scene_sdf, unsupported_is_reported_or_rejected_with_strict) {
  const char *p = scene("unsupported.sdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  struct {
    const char *needle, *line;
  } want[] = {
      {"<plugin", "<plugin> ignored (unsupported)"},
      {"canonical_link", "<model> attribute 'canonical_link' ignored (unsupported)"},
      {"<self_collide>", "<self_collide> ignored (unsupported)"},
      {"<gravity>", "<gravity> ignored (unsupported)"},
      {"<laser_retro>", "<laser_retro> ignored (unsupported)"},
      {"<drake:hydroelastic_modulus>", "<drake:hydroelastic_modulus> ignored (a rigid geometry has no modulus"},
      {"<visual name=\"v\">", "<visual> ignored (2 visual elements in all"},
  };
  int n = (int)(sizeof want / sizeof want[0]);
  cr_assert_eq(iso_load_report_count(r), n);
  for (int i = 0; i < n; ++i) {
    char expect[1400];
    snprintf(expect, sizeof expect, "%s:%d: %s", p, line_of(p, want[i].needle), want[i].line);
    const char *got = iso_load_report_line(r, i);
    cr_assert(strncmp(got, expect, strlen(expect)) == 0, "line %d: '%s', expected '%s...'", i, got, expect);
  }
  cr_assert_null(iso_load_report_line(r, n));
  cr_assert_null(iso_load_report_line(r, -1));
  cr_assert_eq(iso_load_report_count(NULL), 0);
  iso_load_report_free(r);
  iso_load_report_free(NULL);
  iso_model_destroy(m);
  load_fails(p, 1, ISO_ERR_UNSUPPORTED, line_of(p, "<plugin"), "<plugin> is not supported by isobar");
}

/* ---- include, relative_to, static, fixed joints --------------------------------------------- */

static const isoGeometryDef *geom(const isoModel *m, const char *name, isoGeometryDef *g) {
  int id;
  cr_assert_eq(iso_model_find_geometry(m, name, &id), ISO_OK, "%s", iso_last_error());
  iso_model_get_geometry(m, id, g);
  return g;
}

static void near3(const double *x, double a, double b, double c, const char *what) {
  /* Poses compose a few products: 1e-14 is a few ulps. */
  cr_assert_float_eq(x[0], a, 1e-14, "%s x", what);
  cr_assert_float_eq(x[1], b, 1e-14, "%s y", what);
  cr_assert_float_eq(x[2], c, 1e-14, "%s z", what);
}

Test(scene_sdf, assembly_include_relative_to_static_and_fixed_joints) {
  isoModel *m = load(scene("assembly.sdf"), 1, NULL);
  /* Bodies: the merged pair::a (+ b), pair::c, the merged URDF peg; the table, the welded plate
   * and the statically included copy add none. */
  cr_assert_eq(iso_model_body_count(m), 3);
  isoBodyDef a, c, peg;
  isoFreeBodyState ax, cx, pegx;
  iso_model_get_body(m, 0, &a);
  iso_model_get_body(m, 1, &c);
  iso_model_get_body(m, 2, &peg);
  iso_model_get_initial_state(m, 0, &ax);
  iso_model_get_initial_state(m, 1, &cx);
  iso_model_get_initial_state(m, 2, &pegx);
  cr_assert_str_eq(a.name, "pair::a");
  cr_assert_str_eq(c.name, "pair::c");
  cr_assert_str_eq(peg.name, "peg::base");
  /* pair is placed relative_to the table (spot (1,0,0) + (0,0,0.5)), 0.1 above, yawed 90°. */
  near3(ax.position, 1, 0, 0.6, "pair::a");
  cr_assert_float_eq(ax.quaternion[0], sqrt(0.5), 1e-15);
  cr_assert_float_eq(ax.quaternion[3], sqrt(0.5), 1e-15);
  /* a (1 kg) + b (3 kg, 0.2 along a's x): COM at 0.15; parallel axis about y and z. */
  cr_assert_float_eq(a.mass, 4.0, 1e-15);
  near3(a.com, 0.15, 0, 0, "pair::a com");
  cr_assert_float_eq(a.inertia[0], 0.04, 1e-15);
  cr_assert_float_eq(a.inertia[1], 0.01 + 1 * 0.15 * 0.15 + 0.03 + 3 * 0.05 * 0.05, 1e-15);
  cr_assert_float_eq(a.inertia[2], 0.01 + 1 * 0.15 * 0.15 + 0.03 + 3 * 0.05 * 0.05, 1e-15);
  for (int k = 3; k < 6; ++k) cr_assert_float_eq(a.inertia[k], 0, 1e-15);
  /* c: relative_to frame mid (0.1 along a), 0.3 up; a yaw of 90° turns a's x into world y. */
  near3(cx.position, 1, 0.1, 0.9, "pair::c");
  cr_assert_eq(c.mass, 1.0, "SDFormat's default inertial");
  cr_assert_eq(c.inertia[0], 1.0);
  /* The URDF peg: base and tip (0.1 up) merged, 0.5 kg each. */
  near3(pegx.position, -1, 0, 0, "peg");
  cr_assert_float_eq(peg.mass, 1.0, 1e-15);
  near3(peg.com, 0, 0, 0.05, "peg com");

  isoGeometryDef g;
  geom(m, "pair::b::box", &g);
  cr_assert_eq(g.body, 0, "b's collision moves to a's body");
  near3(g.position, 0.2, 0, 0, "pair::b::box in a");
  geom(m, "pair::c::ball", &g);
  cr_assert_eq(g.body, 1);
  near3(g.position, 0.1, 0, 0, "pair::c::ball relative_to b, in c");
  geom(m, "peg::tip::knob", &g);
  cr_assert_eq(g.body, 2);
  near3(g.position, 0, 0, 0.1, "peg::tip::knob in base");
  geom(m, "table::top::slab", &g);
  cr_assert_eq(g.body, ISO_WORLD_BODY, "a static model is welded to the world");
  near3(g.position, 1, 0, 0.475, "table slab");
  geom(m, "welded::plate::plate", &g);
  cr_assert_eq(g.body, ISO_WORLD_BODY, "a link fixed to world is welded");
  near3(g.position, 0, 2, 0, "welded plate");
  geom(m, "frozen::c::ball", &g);
  cr_assert_eq(g.body, ISO_WORLD_BODY, "<static> on an include welds the whole model");
  near3(g.position, 0.2, -2, 0.3, "frozen ball");
  iso_model_destroy(m);
}

/* ---- body lookup --------------------------------------------------------------------------- */

Test(scene_sdf, find_body_by_plain_or_scoped_name) {
  isoModel *m = load(src_path("examples/stack_of_five_boxes.sdf"), 0, NULL);
  int id = -1;
  cr_assert_eq(iso_scene_find_body(m, "box3::box", &id), ISO_OK);
  cr_assert_eq(id, 2);
  cr_assert_eq(iso_scene_find_body(m, "box", &id), ISO_ERR_INVALID, "five bodies end in ::box");
  cr_assert(strstr(iso_last_error(), "'box1::box'") && strstr(iso_last_error(), "'box5::box'"), "%s", iso_last_error());
  cr_assert_eq(iso_scene_find_body(m, "crate", &id), ISO_ERR_NOT_FOUND);
  cr_assert(strstr(iso_last_error(), "'box2::box'") != NULL, "the message lists the bodies: %s", iso_last_error());
  cr_assert_eq(iso_scene_find_body(m, "ox", &id), ISO_ERR_NOT_FOUND, "a tail matches only after ::");
  cr_assert_eq(iso_scene_find_body(m, "", &id), ISO_ERR_NOT_FOUND);
  iso_model_destroy(m);
  m = load(scene("assembly.sdf"), 0, NULL);
  cr_assert_eq(iso_scene_find_body(m, "c", &id), ISO_OK);
  cr_assert_eq(id, 1);
  cr_assert_eq(iso_scene_find_body(m, "base", &id), ISO_OK);
  cr_assert_eq(id, 2);
  cr_assert_eq(iso_scene_find_body(NULL, "c", &id), ISO_ERR_NULL);
  iso_model_destroy(m);
}

Test(scene_sdf, pose_forms_nested_models_and_joint_frames) {
  isoModel *m = load(scene("poses.sdf"), 1, NULL);
  /* outer: (1,0,0) turned 90° about z (quat_xyzw); inner: (0,1,0) turned 180° (degrees) in
   * outer, so at the world origin turned 270°. The fixed joint merges hub into inner::l. */
  cr_assert_eq(iso_model_body_count(m), 2);
  isoBodyDef l, spoke;
  isoFreeBodyState lx, spokex;
  iso_model_get_body(m, 0, &l);
  iso_model_get_body(m, 1, &spoke);
  iso_model_get_initial_state(m, 0, &lx);
  iso_model_get_initial_state(m, 1, &spokex);
  cr_assert_str_eq(l.name, "outer::inner::l");
  near3(lx.position, 0, 0, 0, "inner::l");
  cr_assert_float_eq(fabs(lx.quaternion[0]), sqrt(0.5), 1e-15);
  cr_assert_float_eq(fabs(lx.quaternion[3]), sqrt(0.5), 1e-15);
  cr_assert(lx.quaternion[0] * lx.quaternion[3] < 0, "a turn of 270° (−90°) about z");
  cr_assert_float_eq(l.mass, 2.0, 1e-15, "hub (SDFormat's default mass 1) merged in");
  /* hub sits at outer's origin, (1,0,0) from inner::l, which is turned −90°: (0,1,0) in l. */
  near3(l.com, 0, 0.5, 0, "merged com");
  /* spoke is placed relative_to the joint, 0.5 along the child hub's x (world y). */
  cr_assert_str_eq(spoke.name, "outer::spoke");
  near3(spokex.position, 1, 0.5, 0, "spoke");
  iso_model_destroy(m);
}

Test(scene_sdf, cycles_and_self_includes_are_errors) {
  const char *p = scene("bad_cycle.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<link name=\"a\""), "form a cycle");
  p = scene("bad_self_include.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, line_of(p, "<include>"), "includes nest deeper than");
}

/* defer_compile hands the model back before compile, so the API can add to a loaded scene (a
 * tactile pad here, which must come before compile), and the caller's compile makes it whole. */
Test(scene_sdf, deferred_compile_lets_the_api_add) {
  isoLoadOptions o = iso_default_load_options();
  o.defer_compile = 1;
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path("examples/pick.sdf"), &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_is_compiled(m), 0);
  const int in_file = iso_model_tactile_pad_count(m); /* the fingers' own pads */
  isoTactilePadDef p = iso_default_tactile_pad_def();
  cr_assert_eq(iso_model_find_geometry(m, "gripper::left_finger::left_finger", &p.geometry), ISO_OK);
  cr_assert_eq(iso_model_add_tactile_pad(m, &p, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef d = iso_default_sim_def();
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &d, &s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_tactile_count(s), in_file + 1);
  iso_sim_destroy(s);
  iso_model_destroy(m);
  /* without it the model is compiled, and a pad comes too late */
  cr_assert_eq(iso_scene_load(test_source_path("examples/pick.sdf"), NULL, &m, NULL), ISO_OK);
  cr_assert_eq(iso_model_is_compiled(m), 1);
  cr_assert_eq(iso_model_add_tactile_pad(m, &p, NULL), ISO_ERR_STATE);
  iso_model_destroy(m);
}
