/* Hashed name lookup (host/model/name_map.h) and the lookups built on it: every one of many
 * names is found at its own index, keys that share a hash or a prefix stay apart, the same
 * name in two namespaces is two keys, and duplicates are still rejected by the model and by the
 * scene loaders with the same messages as before. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/model/name_map.h"
#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

enum { MANY = 50000 };

static char *names_block(int n, const char *fmt) {
  char *s = (char *)malloc((size_t)n * 24);
  cr_assert_not_null(s);
  for (int i = 0; i < n; ++i) snprintf(s + 24 * (size_t)i, 24, fmt, i);
  return s;
}

Test(name_map, many_names_each_found_at_its_index) {
  char *keys = names_block(MANY, "body%d");
  nameMap m = {0};
  for (int i = 0; i < MANY; ++i) {
    const char *k = keys + 24 * (size_t)i;
    cr_assert_eq(name_map_put(&m, 0, k, strlen(k), i), 1, "%s", k);
  }
  cr_assert_eq(m.count, MANY);
  cr_assert(2 * m.count <= m.cap, "the map is more than half full: %d of %d", m.count, m.cap);
  for (int i = 0; i < MANY; ++i) {
    const char *k = keys + 24 * (size_t)i;
    cr_assert_eq(name_map_get(&m, 0, k, strlen(k)), i, "%s", k);
  }
  cr_assert_eq(name_map_get(&m, 0, "body50000", 9), -1);
  cr_assert_eq(name_map_get(&m, 0, "", 0), -1);
  /* A duplicate keeps the first value. */
  cr_assert_eq(name_map_put(&m, 0, "body7", 5, 99), 0);
  cr_assert_eq(name_map_get(&m, 0, "body7", 5), 7);
  name_map_free(&m);
  cr_assert_eq(name_map_get(&m, 0, "body7", 5), -1, "a freed map is empty");
  free(keys);
}

Test(name_map, namespaces_and_prefixes_are_distinct_keys) {
  nameMap m = {0};
  const char *scoped = "arm::hand";
  cr_assert_eq(name_map_put(&m, 1, "hand", 4, 10), 1);
  cr_assert_eq(name_map_put(&m, 2, "hand", 4, 20), 1, "the same name in another namespace is a new key");
  cr_assert_eq(name_map_put(&m, 1, scoped, 3, 30), 1, "a prefix of a longer string is a key of its own");
  cr_assert_eq(name_map_get(&m, 1, "hand", 4), 10);
  cr_assert_eq(name_map_get(&m, 2, "hand", 4), 20);
  cr_assert_eq(name_map_get(&m, 3, "hand", 4), -1);
  cr_assert_eq(name_map_get(&m, 1, "arm", 3), 30);
  cr_assert_eq(name_map_get(&m, 1, scoped, strlen(scoped)), -1);
  cr_assert_eq(name_map_get(&m, 1, "han", 3), -1);
  name_map_free(&m);
}

/* ---- the model --------------------------------------------------------------------------- */

Test(name_map, model_finds_many_bodies_and_geometries_and_rejects_duplicates) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  char name[32];
  for (int i = 0; i < 20000; ++i) {
    isoBodyDef b = iso_default_body_def();
    snprintf(name, sizeof name, "b%d", i);
    b.name = name;
    int id = -1;
    cr_assert_eq(iso_model_add_body(m, &b, &id), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(id, i);
    isoGeometryDef g = iso_default_geometry_def();
    snprintf(name, sizeof name, "g%d", i);
    g.name = name;
    g.body = i;
    g.shape = ISO_SHAPE_SPHERE;
    g.size[0] = 0.1;
    cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  }
  for (int i = 0; i < 20000; i += 7) {
    int id = -1;
    snprintf(name, sizeof name, "b%d", i);
    cr_assert_eq(iso_model_find_body(m, name, &id), ISO_OK);
    cr_assert_eq(id, i);
    snprintf(name, sizeof name, "g%d", i);
    cr_assert_eq(iso_model_find_geometry(m, name, &id), ISO_OK);
    cr_assert_eq(id, i);
  }
  int id;
  cr_assert_eq(iso_model_find_body(m, "g5", &id), ISO_ERR_NOT_FOUND, "bodies and geometries are apart");
  cr_assert_eq(iso_model_find_geometry(m, "b5", &id), ISO_ERR_NOT_FOUND);
  isoBodyDef b = iso_default_body_def();
  b.name = "b12345";
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "already exists"), "%s", iso_last_error());
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "g19999";
  g.shape = ISO_SHAPE_SPHERE;
  g.size[0] = 0.1;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "already exists"), "%s", iso_last_error());
  cr_assert_eq(iso_model_body_count(m), 20000);
  iso_model_destroy(m);
}

/* ---- the scene loaders -------------------------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void) {
  test_tmp_template(tmpdir, sizeof tmpdir, "isobar_names_");
  cr_assert(mkdtemp(tmpdir) != NULL);
}

static void remove_tmpdir(void) {
  char p[512];
  const char *files[] = {"s.sdf", "r.urdf", NULL};
  for (int i = 0; files[i]; ++i) {
    snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
    unlink(p);
  }
  rmdir(tmpdir);
}

static const char *write_scene(const char *name, const char *text) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

/* Many links across two models with the same local names; relative_to reaches into a nested
 * model with "::"; a repeated name in one model is rejected at its line. */
Test(name_map, sdf_scopes_keep_their_names_apart, .init = make_tmpdir, .fini = remove_tmpdir) {
  char *text = (char *)malloc(1 << 20);
  size_t n = 0;
  n += (size_t)sprintf(text + n, "<sdf version=\"1.9\">\n<world name=\"w\">\n");
  for (int mdl = 0; mdl < 2; ++mdl) {
    n += (size_t)sprintf(text + n, "<model name=\"m%d\"><pose>%d 0 0 0 0 0</pose>\n", mdl, 10 * mdl);
    for (int i = 0; i < 2000; ++i)
      n += (size_t)sprintf(text + n, "<link name=\"l%d\"><pose relative_to=\"inner::x\">%d 0 0 0 0 0</pose></link>\n",
                           i, i);
    n += (size_t)sprintf(text + n, "<model name=\"inner\"><pose>0 0 5 0 0 0</pose><link name=\"x\"/></model>\n");
    n += (size_t)sprintf(text + n, "</model>\n");
  }
  sprintf(text + n, "</world>\n</sdf>\n");
  const char *path = write_scene("s.sdf", text);
  isoModel *m = NULL;
  isoLoadReport *r = NULL;
  cr_assert_eq(iso_scene_load(path, NULL, &m, &r), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_body_count(m), 2 * 2001);
  int id;
  cr_assert_eq(iso_scene_find_body(m, "m1::l1999", &id), ISO_OK, "%s", iso_last_error());
  isoFreeBodyState b;
  cr_assert_eq(iso_model_get_initial_state(m, id, &b), ISO_OK);
  cr_assert_float_eq(b.position[0], 10.0 + 1999.0, 1e-9, "placed relative to m1::inner::x");
  cr_assert_float_eq(b.position[2], 5.0, 1e-9);
  iso_model_destroy(m);
  iso_load_report_free(r);

  char *dup = strstr(text, "<link name=\"l1500\">");
  memcpy(dup, "<link name=\"l0000\">", 19); /* l0000 is new: still fine */
  path = write_scene("s.sdf", text);
  cr_assert_eq(iso_scene_load(path, NULL, &m, &r), ISO_OK, "%s", iso_last_error());
  iso_model_destroy(m);
  iso_load_report_free(r);
  memcpy(dup, "<link name=\"l1499\">", 19);
  path = write_scene("s.sdf", text);
  cr_assert_eq(iso_scene_load(path, NULL, &m, &r), ISO_ERR_PARSE);
  char where[600];
  snprintf(where, sizeof where, "%s:1504:", path); /* 3 lines of header, then l0 on line 4 */
  cr_assert(strstr(iso_last_error(), where) && strstr(iso_last_error(), "'l1499' is already used in model 'm0'"), "%s",
            iso_last_error());
  free(text);
}

Test(name_map, urdf_duplicate_link_and_unnamed_geometries, .init = make_tmpdir, .fini = remove_tmpdir) {
  const char *ok = "<robot name=\"r\">\n"
                   "<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" "
                   "ixz=\"0\" iyz=\"0\"/></inertial>\n"
                   "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>\n"
                   "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>\n"
                   "<collision name=\"sphere2\"><geometry><sphere radius=\"0.1\"/></geometry></collision>\n"
                   "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link>\n"
                   "<link name=\"b\"/>\n"
                   "<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n"
                   "</robot>\n";
  const char *path = write_scene("r.urdf", ok);
  isoModel *m = NULL;
  isoLoadReport *r = NULL;
  cr_assert_eq(iso_scene_load(path, NULL, &m, &r), ISO_OK, "%s", iso_last_error());
  const char *want[] = {"r::a::sphere", "r::a::sphere1", "r::a::sphere2", "r::a::sphere3"};
  cr_assert_eq(iso_model_geometry_count(m), 4);
  for (int i = 0; i < 4; ++i) {
    int id;
    cr_assert_eq(iso_model_find_geometry(m, want[i], &id), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(id, i, "%s", want[i]);
  }
  iso_model_destroy(m);
  iso_load_report_free(r);
  path = write_scene("r.urdf", "<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"a\"/>\n</robot>\n");
  cr_assert_eq(iso_scene_load(path, NULL, &m, &r), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), ":4:") && strstr(iso_last_error(), "a link of that name already exists"), "%s",
            iso_last_error());
}
