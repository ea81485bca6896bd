/* Drake's extensions and conventions in scene files: package:// and model:// uris (a package
 * found from the folders above the file, through isoLoadOptions.package_path, name=dir and
 * crawled folders, and through ISOBAR_PACKAGE_PATH; an unknown package fails naming it and
 * file:line), and collision filter groups (pairs excluded as Drake's resolver excludes them,
 * unknown names rejected with file:line). */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

static const char *pkg(const char *rel) {
  char buf[256];
  snprintf(buf, sizeof buf, "tests/data/packages/%s", rel);
  return test_source_path(buf);
}

static isoStatus try_load(const char *path, const char *package_path, isoModel **m) {
  isoLoadOptions o = iso_default_load_options();
  o.package_path = package_path;
  return iso_scene_load(path, &o, m, NULL);
}

static void fails(const char *path, const char *package_path, isoStatus want, const char *line_needle,
                  const char *needle) {
  isoModel *m = NULL;
  isoStatus st = try_load(path, package_path, &m);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  char where[1200];
  snprintf(where, sizeof where, "%s:%d:", path, test_line_of(path, line_needle));
  cr_assert(strstr(iso_last_error(), where) != NULL, "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
}

Test(scene_ext, found_above_the_file) {
  unsetenv("ISOBAR_PACKAGE_PATH");
  isoModel *m = NULL;
  const char *p = pkg("arm_pkg/urdf/arm.urdf");
  cr_assert_eq(try_load(p, NULL, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_geometry_count(m), 2);
  isoGeometryDef g;
  cr_assert_eq(iso_model_get_geometry(m, 1, &g), ISO_OK);
  cr_assert(strstr(g.mesh_file, "arm_pkg/urdf/../meshes/tet.obj") || strstr(g.mesh_file, "arm_pkg/meshes/tet.obj"),
            "%s", g.mesh_file);
  cr_assert_float_eq(g.mesh_scale[0], 2.0, 1e-15);
  iso_model_destroy(m);
}

Test(scene_ext, unknown_package_names_it) {
  unsetenv("ISOBAR_PACKAGE_PATH");
  const char *p = pkg("arm_pkg/sdf/scene.sdf");
  fails(p, NULL, ISO_ERR_IO, "iso_test_parts", "package 'iso_test_parts' not found");
  /* The crawl skips hidden folders. */
  fails(pkg("arm_pkg/sdf/bad_hidden.sdf"), pkg("tree"), ISO_ERR_IO, "iso_test_hidden",
        "package 'iso_test_hidden' not found");
  /* A known package, a missing file in it. */
  fails(pkg("arm_pkg/sdf/bad_missing_file.sdf"), NULL, ISO_ERR_IO, "nothing.obj", "meshes/nothing.obj");
  const char *b = test_source_path("tests/data/scenes/bad_package_uri.sdf");
  fails(b, NULL, ISO_ERR_IO, "package://", "package 'my_robot' not found");
}

Test(scene_ext, option_and_environment) {
  unsetenv("ISOBAR_PACKAGE_PATH");
  const char *p = pkg("arm_pkg/sdf/scene.sdf");
  isoModel *m = NULL;
  /* A folder to crawl (the nonexistent entry is skipped). */
  char list[2048];
  snprintf(list, sizeof list, "/nonexistent/folder:%s", pkg("tree"));
  cr_assert_eq(try_load(p, list, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_body_count(m), 2);
  iso_model_destroy(m);
  /* name=dir. */
  snprintf(list, sizeof list, "iso_test_parts=%s", pkg("tree/group/parts_pkg"));
  m = NULL;
  cr_assert_eq(try_load(p, list, &m), ISO_OK, "%s", iso_last_error());
  int id;
  cr_assert_eq(iso_scene_find_body(m, "block::body", &id), ISO_OK, "%s", iso_last_error());
  iso_model_destroy(m);
  /* The environment variable. */
  setenv("ISOBAR_PACKAGE_PATH", pkg("tree"), 1);
  m = NULL;
  cr_assert_eq(try_load(p, NULL, &m), ISO_OK, "%s", iso_last_error());
  iso_model_destroy(m);
  unsetenv("ISOBAR_PACKAGE_PATH");
}

/* ---- collision filter groups ------------------------------------------------------------- */

static const char *scene(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/scenes/%s", name);
  return test_source_path(rel);
}

static isoSim *sim_of(isoModel *m) {
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

static int filtered(isoSim *s, int a, int b) {
  isoPairKind k;
  cr_assert_eq(iso_sim_pair_kind(s, a, b, &k), ISO_OK, "%s", iso_last_error());
  return k == ISO_PAIR_FILTERED;
}

Test(scene_ext, collision_filter_groups_sdf) {
  isoModel *m = NULL;
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  const char *p = scene("filter_groups.sdf");
  cr_assert_eq(iso_scene_load(p, &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  int a, b, c, d;
  cr_assert_eq(iso_model_find_geometry(m, "m::a::c", &a), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_find_geometry(m, "m::b::c", &b), ISO_OK);
  cr_assert_eq(iso_model_find_geometry(m, "m::c::c", &c), ISO_OK);
  cr_assert_eq(iso_model_find_geometry(m, "m::inner::d::c", &d), ISO_OK);
  isoSim *s = sim_of(m);
  cr_assert(filtered(s, a, b), "a group ignoring itself excludes the pairs within it");
  cr_assert(filtered(s, c, d), "two groups, one ignoring the other (in a nested model)");
  cr_assert(!filtered(s, a, c), "a member group alone excludes nothing; a dropped group nothing");
  cr_assert(!filtered(s, a, d));
  cr_assert(!filtered(s, b, c));
  cr_assert(!filtered(s, b, d));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(scene_ext, collision_filter_groups_urdf) {
  isoModel *m = NULL;
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  cr_assert_eq(iso_scene_load(scene("filter_groups.urdf"), &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_geometry_count(m), 3);
  isoSim *s = sim_of(m);
  cr_assert(filtered(s, 0, 2), "group_x ignores group_y");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(scene_ext, collision_filter_groups_bad_names) {
  const char *p = scene("bad_filter_member.sdf");
  fails(p, NULL, ISO_ERR_PARSE, "nope", "<drake:member>: 'm::nope' names no link");
  p = scene("bad_filter_group.urdf");
  fails(p, NULL, ISO_ERR_PARSE, "missing", "'r::missing' names no collision filter group");
}

/* ---- URDF <frame>, an undeclared world link, zero-radius spheres -------------------------- */

Test(scene_ext, urdf_frame_and_undeclared_world) {
  isoModel *m = NULL;
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1; /* <frame> is read, not reported */
  cr_assert_eq(iso_scene_load(scene("frames.urdf"), &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  /* The base is welded to the world: one body, the arm, on the hinge. */
  cr_assert_eq(iso_model_body_count(m), 1);
  cr_assert_eq(iso_model_geometry_count(m), 3);
  isoGeometryDef g;
  cr_assert_eq(iso_model_get_geometry(m, 2, &g), ISO_OK);
  cr_assert_eq(g.shape, ISO_SHAPE_SPHERE);
  cr_assert_eq(g.size[0], 0.0);
  iso_model_destroy(m);
  const char *p = scene("bad_frame.urdf");
  fails(p, NULL, ISO_ERR_PARSE, "nowhere", "frame 'tool': no link named 'nowhere'");
}

Test(scene_ext, zero_radius_spheres_are_contact_points) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(scene("point_feet.sdf"), NULL, &m, NULL), ISO_OK, "%s", iso_last_error());
  isoSim *s = sim_of(m);
  for (int i = 0; i < 500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  double q[7];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
  /* Standing on its points: the centre stays 0.1 above the plane, less a small penetration. */
  cr_assert(q[6] > 0.09 && q[6] < 0.1001, "z = %g", q[6]);
  iso_sim_destroy(s);
  iso_model_destroy(m);
  /* A point has no hydroelastic representation. */
  isoModel *api = NULL;
  cr_assert_eq(iso_model_create(NULL, &api), ISO_OK);
  isoGeometryDef gd = iso_default_geometry_def();
  gd.body = ISO_WORLD_BODY;
  gd.size[0] = 0;
  cr_assert_eq(iso_model_add_geometry(api, &gd, NULL), ISO_OK, "%s", iso_last_error());
  gd.compliance = ISO_COMPLIANCE_RIGID;
  gd.name = "rigid_point";
  cr_assert_eq(iso_model_add_geometry(api, &gd, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "radius 0") != NULL, "%s", iso_last_error());
  iso_model_destroy(api);
}

Test(scene_ext, sdf_drake_ellipsoid_and_urdf_convex_beside_mesh) {
  isoModel *m = NULL;
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  cr_assert_eq(iso_scene_load(scene("drake_ellipsoid.sdf"), &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  isoGeometryDef g;
  cr_assert_eq(iso_model_get_geometry(m, 0, &g), ISO_OK);
  cr_assert_eq(g.shape, ISO_SHAPE_ELLIPSOID);
  cr_assert_float_eq(g.size[0], 0.1, 1e-15);
  cr_assert_float_eq(g.size[1], 0.2, 1e-15);
  cr_assert_float_eq(g.size[2], 0.3, 1e-15);
  iso_model_destroy(m);
  isoLoadReport *r = NULL;
  m = NULL;
  cr_assert_eq(iso_scene_load(scene("convex_beside_mesh.urdf"), NULL, &m, &r), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_get_geometry(m, 0, &g), ISO_OK);
  cr_assert_eq(g.shape, ISO_SHAPE_MESH);
  cr_assert(iso_load_report_count(r) >= 1 && strstr(iso_load_report_line(r, 0), "drake:declare_convex") != NULL);
  iso_load_report_free(r);
  iso_model_destroy(m);
  o.strict = 1;
  m = NULL;
  cr_assert_eq(iso_scene_load(scene("convex_beside_mesh.urdf"), &o, &m, NULL), ISO_ERR_UNSUPPORTED);
}
