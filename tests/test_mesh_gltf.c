/* glTF collision meshes: a unit cube as .gltf with an external buffer, with a base64 data: uri
 * and as .glb reads as the same 12 outward triangles, raised by its node's translation (glTF's
 * y-up turned into z-up) and scaled; malformed files fail with a message naming the fault. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

static const char *mesh(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/meshes/%s", name);
  return test_source_path(rel);
}

static void check_cube(const char *name, const double scale[3]) {
  triMesh m;
  memset(&m, 0, sizeof m);
  isoStatus st = mesh_read_gltf(mesh(name), scale, &m);
  cr_assert_eq(st, ISO_OK, "%s: %s", name, iso_last_error());
  cr_assert_eq(m.ntri, 12, "%s", name);
  double s[3] = {1, 1, 1};
  if (scale) memcpy(s, scale, sizeof s);
  /* The cube spans [-0.5, 0.5]² in x and y and [0, 1] in z (the node's +0.5 along glTF's y). */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < m.nvert; ++v)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], m.vert[3 * v + k]);
      hi[k] = fmax(hi[k], m.vert[3 * v + k]);
    }
  for (int k = 0; k < 2; ++k) {
    cr_assert_float_eq(lo[k], -0.5 * fabs(s[k]), 1e-6, "%s axis %d", name, k);
    cr_assert_float_eq(hi[k], 0.5 * fabs(s[k]), 1e-6, "%s axis %d", name, k);
  }
  cr_assert_float_eq(lo[2], fmin(0.0, s[2]), 1e-6, "%s z low", name);
  cr_assert_float_eq(hi[2], fmax(0.0, s[2]), 1e-6, "%s z high", name);
  /* Outward: each normal points away from the cube's centre. */
  double c[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
  for (int t = 0; t < m.ntri; ++t) {
    const real *a = m.vert + 3 * m.tri[3 * t];
    double d = 0;
    for (int k = 0; k < 3; ++k) d += (a[k] - c[k]) * m.normal[3 * t + k];
    cr_assert(d > 0, "%s: triangle %d faces inward", name, t);
  }
  tri_mesh_free(&m);
}

Test(mesh_gltf, cube_three_ways) {
  check_cube("cube_external.gltf", NULL);
  check_cube("cube_embedded.gltf", NULL);
  check_cube("cube.glb", NULL);
  double s[3] = {2, 3, 1};
  check_cube("cube.glb", s);
  double mirror[3] = {-1, 1, 1};
  check_cube("cube_embedded.gltf", mirror);
}

static void rejects(const char *name, isoStatus want, const char *needle) {
  triMesh m;
  memset(&m, 0, sizeof m);
  isoStatus st = mesh_read_gltf(mesh(name), NULL, &m);
  cr_assert_eq(st, want, "%s: got %s: %s", name, iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), name) != NULL, "'%s' does not name the file", iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
  cr_assert_null(m.vert);
}

Test(mesh_gltf, malformed_files_are_rejected) {
  rejects("bad_accessor.gltf", ISO_ERR_PARSE, "accessor 7 does not exist");
  rejects("bad_index.gltf", ISO_ERR_PARSE, "index 9 is out of range (8 vertices)");
  rejects("bad_missing_buffer.gltf", ISO_ERR_IO, "buffer 0");
  rejects("bad_past_end.gltf", ISO_ERR_PARSE, "run past the end of bufferView 1");
  rejects("bad_truncated.glb", ISO_ERR_PARSE, ".glb");
  rejects("bad_json.gltf", ISO_ERR_PARSE, "does not parse");
}

Test(mesh_gltf, scene_with_gltf_meshes) {
  /* A cube of each kind resting on the ground, one as a convex hull. */
  isoModel *m = NULL;
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  const char *p = test_source_path("tests/data/scenes/gltf_cubes.sdf");
  cr_assert_eq(iso_scene_load(p, &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_geometry_count(m), 4);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  for (int i = 0; i < 200; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  int nq = iso_sim_state_width(s, ISO_STATE_Q);
  double q[32];
  cr_assert(nq == 21);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
  /* Each cube's frame is its bottom face's centre (the mesh spans z in [0, 1]): it stays near 0. */
  for (int b = 0; b < 3; ++b) cr_assert(fabs(q[7 * b + 6]) < 2e-3, "cube %d at z = %g", b, q[7 * b + 6]);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
