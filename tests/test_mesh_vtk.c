/* Legacy VTK tetrahedra (host/assets/mesh_vtk.c) read right, and every malformed file fails
 * with its status and a message naming file and line (data in tests/data/). */
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

typedef struct badFile {
  const char *file;
  isoStatus status;
  const char *needle;
} badFile;

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
