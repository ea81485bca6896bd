/* OBJ surfaces (host/assets/mesh_obj.c) read right, and every malformed file fails with its
 * status and a message naming file and line (data in tests/data/). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

/* Path of a test data file (tests/data/); skipped outside ctest, which sets ISO_SOURCE_DIR. */
static const char *data(const char *name) {
  char rel[512];
  snprintf(rel, sizeof rel, "tests/data/%s", name);
  return test_source_path(rel);
}

static void vat(const real *v, int i, double out[3]) {
  out[0] = v[3 * i];
  out[1] = v[3 * i + 1];
  out[2] = v[3 * i + 2];
}

/* Enclosed volume by the divergence theorem: Σ a·(b×c) / 6 over outward triangles. */
static double surface_volume(const triMesh *m) {
  double vol = 0;
  for (int t = 0; t < m->ntri; ++t) {
    double a[3], b[3], c[3];
    vat(m->vert, m->tri[3 * t], a);
    vat(m->vert, m->tri[3 * t + 1], b);
    vat(m->vert, m->tri[3 * t + 2], c);
    vol += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return vol / 6;
}

/* Every directed edge appears once and its reverse once: closed and consistently wound. */
static void assert_closed_oriented(const triMesh *m) {
  for (int t = 0; t < m->ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
      int same = 0, rev = 0;
      for (int u = 0; u < m->ntri; ++u)
        for (int j = 0; j < 3; ++j) {
          int c = m->tri[3 * u + j], d = m->tri[3 * u + (j + 1) % 3];
          same += c == a && d == b;
          rev += c == b && d == a;
        }
      cr_assert(same == 1 && rev == 1, "edge %d->%d: %d same, %d reversed", a, b, same, rev);
    }
}

/* Each unit normal points away from `centre` (true for a convex solid). */
static void assert_outward(const triMesh *m, const double centre[3]) {
  for (int t = 0; t < m->ntri; ++t) {
    double s = 0, len = 0;
    for (int k = 0; k < 3; ++k) {
      double c = (m->vert[3 * m->tri[3 * t] + k] + m->vert[3 * m->tri[3 * t + 1] + k] + m->vert[3 * m->tri[3 * t + 2] + k]) / 3;
      s += m->normal[3 * t + k] * (c - centre[k]);
      len += m->normal[3 * t + k] * m->normal[3 * t + k];
    }
    cr_assert(s > 0, "triangle %d normal points inward", t);
    cr_assert(fabs(len - 1) < 1e-15, "triangle %d normal is not unit", t); /* a few ulps of sqrt */
  }
}

Test(mesh_obj, cube_quads_fan_triangulated_closed_outward_unit_volume) {
  triMesh m;
  cr_assert_eq(mesh_read_obj(data("cube.obj"), NULL, 1, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.nvert, 8);
  cr_assert_eq(m.ntri, 12);
  /* a quad (a, b, c, d) becomes (a, b, c), (a, c, d): first face is 1 4 3 2 */
  cr_assert(m.tri[0] == 0 && m.tri[1] == 3 && m.tri[2] == 2);
  cr_assert(m.tri[3] == 0 && m.tri[4] == 2 && m.tri[5] == 1);
  assert_closed_oriented(&m);
  double c[3] = {0.5, 0.5, 0.5};
  assert_outward(&m, c);
  /* integer coordinates: every product is exact, so the sum is exactly 6 */
  cr_assert_eq(surface_volume(&m), 1.0);
  tri_mesh_free(&m);
}

Test(mesh_obj, every_index_form_and_negative_indices_give_the_same_mesh) {
  triMesh ref, forms, neg;
  cr_assert_eq(mesh_read_obj(data("cube.obj"), NULL, 1, &ref), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_read_obj(data("cube_forms.obj"), NULL, 1, &forms), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_read_obj(data("cube_negative.obj"), NULL, 1, &neg), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(forms.ntri, 12);
  cr_assert_eq(neg.ntri, 12);
  cr_assert_eq(neg.nvert, 8);
  cr_assert_arr_eq(forms.tri, ref.tri, 36 * sizeof(int));
  cr_assert_arr_eq(neg.tri, ref.tri, 36 * sizeof(int));
  cr_assert_arr_eq(neg.vert, ref.vert, 24 * sizeof(real));
  tri_mesh_free(&ref);
  tri_mesh_free(&forms);
  tri_mesh_free(&neg);
}

Test(mesh_obj, mirroring_scale_keeps_normals_outward) {
  const double scales[3][3] = {{2, -1, 0.5}, {-1, -1, 1}, {-3, -2, -0.25}};
  for (int s = 0; s < 3; ++s) {
    triMesh m;
    cr_assert_eq(mesh_read_obj(data("cube.obj"), scales[s], 1, &m), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(m.vert[3 * 6], scales[s][0]); /* vertex 7 is (1, 1, 1) */
    cr_assert_eq(m.vert[3 * 6 + 1], scales[s][1]);
    cr_assert_eq(m.vert[3 * 6 + 2], scales[s][2]);
    double c[3] = {0.5 * scales[s][0], 0.5 * scales[s][1], 0.5 * scales[s][2]};
    assert_outward(&m, c);
    assert_closed_oriented(&m);
    double want = fabs(scales[s][0] * scales[s][1] * scales[s][2]);
    /* dyadic scales: exact arithmetic again */
    cr_assert_eq(surface_volume(&m), want, "scale %d: volume %.17g", s, surface_volume(&m));
    tri_mesh_free(&m);
  }
}

Test(mesh_obj, open_surface_is_read_unless_closed_is_required) {
  triMesh m;
  cr_assert_eq(mesh_read_obj(data("open_box.obj"), NULL, 0, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.ntri, 10);
  tri_mesh_free(&m);
  cr_assert_eq(mesh_read_obj(data("open_box.obj"), NULL, 1, &m), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "open_box.obj:") != NULL, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "not closed: the edge between vertices") != NULL, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "used by 1 triangle") != NULL, "%s", iso_last_error());
}
typedef struct badFile {
  const char *file;
  isoStatus status;
  const char *needle;
} badFile;

static void expect_obj_error(badFile b) {
  triMesh m;
  memset(&m, 0x5a, sizeof m);
  triMesh before = m;
  isoStatus st = mesh_read_obj(data(b.file), NULL, 1, &m);
  cr_assert_eq(st, b.status, "%s: got %s: %s", b.file, iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), b.needle) != NULL, "%s: message '%s' lacks '%s'", b.file, iso_last_error(),
            b.needle);
  cr_assert(memcmp(&m, &before, sizeof m) == 0, "%s: a failed read must leave the output alone", b.file);
}

Test(mesh_obj, bad_files_name_file_and_line) {
  const badFile bad[] = {
      {"bad_index.obj", ISO_ERR_PARSE, "bad_index.obj:7: face index 9 out of range (8 vertices)"},
      {"bad_number.obj", ISO_ERR_PARSE, "bad_number.obj:3: malformed number 'abc'"},
      {"bad_nan.obj", ISO_ERR_PARSE, "bad_nan.obj:4: coordinate 'nan' is not finite"},
      {"bad_face.obj", ISO_ERR_PARSE, "bad_face.obj:5: face has 2 vertices"},
      {"bad_corner.obj", ISO_ERR_PARSE, "bad_corner.obj:4: malformed face vertex '2x'"},
      {"no_faces.obj", ISO_ERR_PARSE, "no_faces.obj: no faces"},
      {"zero_area.obj", ISO_ERR_INVALID, "zero_area.obj:6: face has zero area"},
      {"does_not_exist.obj", ISO_ERR_IO, "does_not_exist.obj: cannot open: No such file"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) expect_obj_error(bad[i]);
}

Test(mesh_obj, relative_index_before_enough_vertices) {
  char path[512];
  test_tmp_template(path, sizeof path, "iso_obj");
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", f);
  fclose(f);
  triMesh m;
  cr_assert_eq(mesh_read_obj(path, NULL, 0, &m), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), ":4: face index -4 out of range (3 vertices so far)") != NULL, "%s",
            iso_last_error());
  remove(path);
}

Test(mesh_obj, bad_scale) {
  triMesh m;
  const double zero[3] = {1, 0, 1}, inf[3] = {1, 1, INFINITY};
  cr_assert_eq(mesh_read_obj(data("cube.obj"), zero, 1, &m), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "scale") != NULL, "%s", iso_last_error());
  cr_assert_eq(mesh_read_obj(data("cube.obj"), inf, 1, &m), ISO_ERR_INVALID);
  cr_assert_eq(mesh_read_obj(NULL, NULL, 1, &m), ISO_ERR_NULL);
}
