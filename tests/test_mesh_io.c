/* Mesh files: OBJ surfaces and legacy VTK tetrahedra read right, and every malformed file
 * fails with its status and a message naming file and line (data in tests/data/). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

/* Path of a test data file; ctest sets ISO_SOURCE_DIR to the repository root. */
static const char *data(const char *name) {
  static char buf[4096];
  const char *root = getenv("ISO_SOURCE_DIR");
  if (root == NULL || root[0] == '\0') root = ".";
  snprintf(buf, sizeof buf, "%s/tests/data/%s", root, name);
  return buf;
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

static double tet_v6(const tetMesh *m, int e) {
  double p[4][3];
  for (int k = 0; k < 4; ++k) vat(m->vert, m->tet[4 * e + k], p[k]);
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = p[1][k] - p[0][k];
    v[k] = p[2][k] - p[0][k];
    w[k] = p[3][k] - p[0][k];
  }
  return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2];
}

/* ---- OBJ ------------------------------------------------------------------------------------ */

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

/* ---- VTK ------------------------------------------------------------------------------------ */

Test(mesh_vtk, cube_of_six_tets) {
  tetMesh m;
  cr_assert_eq(mesh_read_vtk(data("cube_tets.vtk"), NULL, &m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(m.nvert, 8);
  cr_assert_eq(m.ntet, 6);
  cr_assert_null(m.pressure, "no field until one is made; POINT_DATA is ignored");
  double vol = 0;
  for (int e = 0; e < m.ntet; ++e) {
    double v6 = tet_v6(&m, e);
    cr_assert(v6 > 0, "tet %d: 6V = %g", e, v6);
    vol += v6 / 6;
  }
  cr_assert_float_eq(vol, 1.0, 1e-15); /* sixths of integers: rounding of 1/6 only */
  cr_assert_eq(mesh_tet_gradients(&m, "cube"), ISO_OK, "%s", iso_last_error());
  tet_mesh_free(&m);
}

Test(mesh_vtk, format_5_1_offsets_and_connectivity) {
  tetMesh a, b;
  cr_assert_eq(mesh_read_vtk(data("cube_tets.vtk"), NULL, &a), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(mesh_read_vtk(data("cube_tets_51.vtk"), NULL, &b), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(b.ntet, a.ntet);
  cr_assert_eq(b.nvert, a.nvert);
  cr_assert_arr_eq(b.tet, a.tet, (size_t)a.ntet * 4 * sizeof(int));
  cr_assert_arr_eq(b.vert, a.vert, (size_t)a.nvert * 3 * sizeof(real));
  tet_mesh_free(&a);
  tet_mesh_free(&b);
}

Test(mesh_vtk, mirroring_scale_keeps_tets_positive) {
  const double scales[2][3] = {{-1, 2, 3}, {-1, -2, -0.5}};
  for (int s = 0; s < 2; ++s) {
    tetMesh m;
    cr_assert_eq(mesh_read_vtk(data("cube_tets.vtk"), scales[s], &m), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(m.vert[3 * 7], scales[s][0]); /* point 7 is (1, 1, 1) */
    cr_assert_eq(m.vert[3 * 7 + 1], scales[s][1]);
    cr_assert_eq(m.vert[3 * 7 + 2], scales[s][2]);
    double vol = 0;
    for (int e = 0; e < m.ntet; ++e) {
      cr_assert(tet_v6(&m, e) > 0, "scale %d tet %d inverted", s, e);
      vol += tet_v6(&m, e) / 6;
    }
    double want = fabs(scales[s][0] * scales[s][1] * scales[s][2]);
    cr_assert_float_eq(vol, want, 1e-14 * want);
    tet_mesh_free(&m);
  }
}

static void expect_vtk_error(badFile b) {
  tetMesh m;
  memset(&m, 0x5a, sizeof m);
  tetMesh before = m;
  isoStatus st = mesh_read_vtk(data(b.file), NULL, &m);
  cr_assert_eq(st, b.status, "%s: got %s: %s", b.file, iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), b.needle) != NULL, "%s: message '%s' lacks '%s'", b.file, iso_last_error(),
            b.needle);
  cr_assert(memcmp(&m, &before, sizeof m) == 0, "%s: a failed read must leave the output alone", b.file);
}

Test(mesh_vtk, bad_files_name_file_and_line) {
  const badFile bad[] = {
      {"bad_celltype.vtk", ISO_ERR_UNSUPPORTED,
       "bad_celltype.vtk:23: cell 3 has type 5, only tetrahedra (10) are supported"},
      {"bad_header.vtk", ISO_ERR_PARSE, "bad_header.vtk:1: not a legacy VTK file"},
      {"binary.vtk", ISO_ERR_UNSUPPORTED, "binary.vtk:3: BINARY"},
      {"polydata.vtk", ISO_ERR_UNSUPPORTED, "polydata.vtk:4: DATASET POLYDATA is not supported"},
      {"truncated.vtk", ISO_ERR_PARSE, "truncated.vtk:5: POINTS declares 8 entries but the file ends"},
      {"bad_index.vtk", ISO_ERR_PARSE, "bad_index.vtk:19: cell 4 has vertex index 8 out of range (8 points)"},
      {"bad_count.vtk", ISO_ERR_PARSE, "bad_count.vtk:21: CELL_TYPES has 5 entries but CELLS has 6 cells"},
      {"inverted.vtk", ISO_ERR_INVALID, "inverted.vtk:17: tetrahedron 2 has non-positive volume"},
      {"cube.obj", ISO_ERR_PARSE, "cube.obj:1: not a legacy VTK file"},
      {"does_not_exist.vtk", ISO_ERR_IO, "does_not_exist.vtk: cannot open"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) expect_vtk_error(bad[i]);
}

/* Files written on the fly for the cases a fixed file cannot pin down cheaply. */
static isoStatus read_text(const char *text, tetMesh *m) {
  char path[512];
  test_tmp_template(path, sizeof path, "iso_vtk");
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  isoStatus st = mesh_read_vtk(path, NULL, m);
  remove(path);
  return st;
}

#define HEAD "# vtk DataFile Version 2.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"
#define PTS "POINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n"

Test(mesh_vtk, truncated_and_mismatched_sections) {
  tetMesh m;
  cr_assert_eq(read_text(HEAD PTS "CELLS 1 5\n4 0 1 2\n", &m), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), "unexpected end of file in CELLS") != NULL, "%s", iso_last_error());
  cr_assert_eq(read_text(HEAD PTS "CELLS 1 6\n4 0 1 2 3\nCELL_TYPES 1\n10\n", &m), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), "does not fit CELLS size") != NULL ||
                strstr(iso_last_error(), "declares size 6") != NULL || strstr(iso_last_error(), "truncated") != NULL,
            "%s", iso_last_error());
  cr_assert_eq(read_text(HEAD PTS "CELLS 1 5\n4 0 1 2 3\n", &m), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), "no CELL_TYPES") != NULL, "%s", iso_last_error());
  cr_assert_eq(read_text(HEAD PTS "CELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n", &m), ISO_ERR_PARSE);
  cr_assert_eq(read_text(HEAD "POINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 x\n", &m), ISO_ERR_PARSE);
  cr_assert(strstr(iso_last_error(), ":6: expected a number in POINTS, found 'x'") != NULL, "%s", iso_last_error());
  cr_assert_eq(read_text(HEAD PTS "CELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n10\n", &m), ISO_OK, "%s", iso_last_error());
  tet_mesh_free(&m);
  /* a degenerate (flat) tet is rejected like an inverted one */
  cr_assert_eq(read_text(HEAD "POINTS 4 float\n0 0 0 1 0 0 0 1 0 1 1 0\nCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n10\n", &m),
               ISO_ERR_INVALID);
}
