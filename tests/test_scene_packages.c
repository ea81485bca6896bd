/* package:// and model:// uris: a package found from the folders above the file, through
 * isoLoadOptions.package_path (name=dir and crawled folders) and through ISOBAR_PACKAGE_PATH;
 * an unknown package fails naming it and file:line. */
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

Test(scene_packages, found_above_the_file) {
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

Test(scene_packages, unknown_package_names_it) {
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

Test(scene_packages, option_and_environment) {
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
