/* VTK writers: files read back (by a small reader here, and by mesh_read_vtk) to the same
 * counts, indices and bit-identical reals, and bad input or an unwritable path fails cleanly. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

static void temp_path(char *path) {
  test_tmp_template(path, 512, "iso_vtkw");
  int fd = mkstemp(path);
  cr_assert(fd >= 0, "mkstemp failed");
  close(fd);
}

/* ---- a small legacy-VTK reader: header lines, then whitespace-separated tokens ---------- */

typedef struct reader {
  FILE *f;
  char tok[256];
} reader;

static void open_reader(reader *r, const char *path, const char *title, const char *dataset) {
  r->f = fopen(path, "r");
  cr_assert_not_null(r->f);
  char line[256];
  cr_assert_not_null(fgets(line, sizeof line, r->f));
  cr_assert_str_eq(line, "# vtk DataFile Version 3.0\n");
  cr_assert_not_null(fgets(line, sizeof line, r->f));
  cr_assert_str_eq(line, title);
  cr_assert_not_null(fgets(line, sizeof line, r->f));
  cr_assert_str_eq(line, "ASCII\n");
  cr_assert_not_null(fgets(line, sizeof line, r->f));
  cr_assert_str_eq(line, dataset);
}

static const char *word(reader *r) {
  cr_assert_eq(fscanf(r->f, "%255s", r->tok), 1, "unexpected end of file");
  return r->tok;
}

static void expect(reader *r, const char *w) { cr_assert_str_eq(word(r), w); }

static long integer(reader *r) {
  char *end;
  long v = strtol(word(r), &end, 10);
  cr_assert_eq(*end, '\0', "'%s' is not an integer", r->tok);
  return v;
}

static double number(reader *r) {
  char *end;
  double v = strtod(word(r), &end);
  cr_assert_eq(*end, '\0', "'%s' is not a number", r->tok);
  return v;
}

static void expect_end(reader *r) {
  cr_assert_eq(fscanf(r->f, "%255s", r->tok), EOF, "trailing '%s'", r->tok);
  fclose(r->f);
}

/* Bitwise equality (so −0 and 0 differ, and NaN would have to match its payload). */
static void same_bits(double got, double want, const char *what, int i) {
  cr_assert(memcmp(&got, &want, sizeof got) == 0, "%s %d: read %.17g, wrote %.17g", what, i, got, want);
}

/* Reals that are hard to print: tiny, huge, negative zero, thirds, subnormal. */
static double awkward(test_rng *r, int i) {
  static const double special[] = {1.0 / 3, -0.0, 1e-300, 4.9406564584124654e-324, 1.7976931348623157e308,
                                   -2.5e-17, 0.1, 123456789.123456789};
  if (i < 8) return special[i];
  return test_rng_uniform(r, -1, 1) * pow(10, test_rng_uniform(r, -20, 20));
}

Test(vtk_write, polygons_round_trip_exactly) {
  test_rng r = {42};
  enum { NV = 12, NP = 3 };
  double vert[3 * NV], pres[NP];
  for (int i = 0; i < 3 * NV; ++i) vert[i] = awkward(&r, i);
  for (int i = 0; i < NP; ++i) pres[i] = awkward(&r, 2 * i + 1);
  const int start[NP + 1] = {0, 3, 7, 12};
  const int pv[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  char path[512];
  temp_path(path);
  cr_assert_eq(vtk_write_polygons(path, vert, NV, start, pv, NP, pres), ISO_OK, "%s", iso_last_error());

  reader rd;
  open_reader(&rd, path, "isobar contact polygons\n", "DATASET POLYDATA\n");
  expect(&rd, "POINTS");
  cr_assert_eq(integer(&rd), NV);
  expect(&rd, "double");
  for (int i = 0; i < 3 * NV; ++i) same_bits(number(&rd), vert[i], "coordinate", i);
  expect(&rd, "POLYGONS");
  cr_assert_eq(integer(&rd), NP);
  cr_assert_eq(integer(&rd), NP + 12); /* one count per polygon plus the indices */
  for (int p = 0; p < NP; ++p) {
    cr_assert_eq(integer(&rd), start[p + 1] - start[p]);
    for (int j = start[p]; j < start[p + 1]; ++j) cr_assert_eq(integer(&rd), pv[j]);
  }
  expect(&rd, "CELL_DATA");
  cr_assert_eq(integer(&rd), NP);
  expect(&rd, "SCALARS");
  expect(&rd, "pressure");
  expect(&rd, "double");
  expect(&rd, "1");
  expect(&rd, "LOOKUP_TABLE");
  expect(&rd, "default");
  for (int p = 0; p < NP; ++p) same_bits(number(&rd), pres[p], "pressure", p);
  expect_end(&rd);
  remove(path);
}

Test(vtk_write, polygons_without_pressure_and_empty) {
  char path[512];
  temp_path(path);
  const double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const int start[2] = {0, 3}, pv[3] = {0, 1, 2};
  cr_assert_eq(vtk_write_polygons(path, vert, 3, start, pv, 1, NULL), ISO_OK, "%s", iso_last_error());
  reader rd;
  open_reader(&rd, path, "isobar contact polygons\n", "DATASET POLYDATA\n");
  expect(&rd, "POINTS");
  cr_assert_eq(integer(&rd), 3);
  expect(&rd, "double");
  for (int i = 0; i < 9; ++i) same_bits(number(&rd), vert[i], "coordinate", i);
  expect(&rd, "POLYGONS");
  cr_assert_eq(integer(&rd), 1);
  cr_assert_eq(integer(&rd), 4);
  for (int i = 0; i < 4; ++i) cr_assert_eq(integer(&rd), i == 0 ? 3 : i - 1);
  expect_end(&rd);

  const int none[1] = {0};
  cr_assert_eq(vtk_write_polygons(path, NULL, 0, none, NULL, 0, NULL), ISO_OK, "%s", iso_last_error());
  open_reader(&rd, path, "isobar contact polygons\n", "DATASET POLYDATA\n");
  expect(&rd, "POINTS");
  cr_assert_eq(integer(&rd), 0);
  expect(&rd, "double");
  expect(&rd, "POLYGONS");
  cr_assert_eq(integer(&rd), 0);
  cr_assert_eq(integer(&rd), 0);
  expect_end(&rd);
  remove(path);
}

/* A tet mesh: the unit cube as 6 Kuhn tets plus awkward coordinates on a copy. */
static void small_mesh(tetMesh *m, int with_pressure) {
  static const int kuhn[6][4] = {{0, 1, 3, 7}, {1, 0, 5, 7}, {2, 0, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {4, 0, 6, 7}};
  test_rng r = {7};
  cr_assert_eq(tet_mesh_alloc(m, 8, 6), ISO_OK);
  for (int v = 0; v < 8; ++v)
    for (int k = 0; k < 3; ++k) /* corners of a slightly perturbed cube: still positive */
      m->vert[3 * v + k] = ((v >> k) & 1) + test_rng_uniform(&r, -0.1, 0.1);
  memcpy(m->tet, kuhn, sizeof kuhn);
  if (with_pressure)
    for (int v = 0; v < 8; ++v) m->pressure[v] = awkward(&r, v);
  else {
    free(m->pressure);
    m->pressure = NULL;
  }
}

Test(vtk_write, tets_round_trip_through_both_readers) {
  tetMesh m, back;
  small_mesh(&m, 1);
  char path[512];
  temp_path(path);
  cr_assert_eq(vtk_write_tets(path, &m), ISO_OK, "%s", iso_last_error());

  reader rd;
  open_reader(&rd, path, "isobar tetrahedral mesh\n", "DATASET UNSTRUCTURED_GRID\n");
  expect(&rd, "POINTS");
  cr_assert_eq(integer(&rd), 8);
  expect(&rd, "double");
  for (int i = 0; i < 24; ++i) same_bits(number(&rd), m.vert[i], "coordinate", i);
  expect(&rd, "CELLS");
  cr_assert_eq(integer(&rd), 6);
  cr_assert_eq(integer(&rd), 30);
  for (int e = 0; e < 6; ++e) {
    cr_assert_eq(integer(&rd), 4);
    for (int k = 0; k < 4; ++k) cr_assert_eq(integer(&rd), m.tet[4 * e + k]);
  }
  expect(&rd, "CELL_TYPES");
  cr_assert_eq(integer(&rd), 6);
  for (int e = 0; e < 6; ++e) cr_assert_eq(integer(&rd), 10);
  expect(&rd, "POINT_DATA");
  cr_assert_eq(integer(&rd), 8);
  expect(&rd, "SCALARS");
  expect(&rd, "pressure");
  expect(&rd, "double");
  expect(&rd, "1");
  expect(&rd, "LOOKUP_TABLE");
  expect(&rd, "default");
  for (int v = 0; v < 8; ++v) same_bits(number(&rd), m.pressure[v], "pressure", v);
  expect_end(&rd);

  /* the library's own reader takes the file back to identical arrays */
  cr_assert_eq(mesh_read_vtk(path, NULL, &back), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(back.nvert, m.nvert);
  cr_assert_eq(back.ntet, m.ntet);
  cr_assert_arr_eq(back.vert, m.vert, 24 * sizeof(real));
  cr_assert_arr_eq(back.tet, m.tet, 24 * sizeof(int));
  tet_mesh_free(&back);
  tet_mesh_free(&m);
  remove(path);
}

Test(vtk_write, tets_without_pressure_have_no_point_data) {
  tetMesh m;
  small_mesh(&m, 0);
  char path[512];
  temp_path(path);
  cr_assert_eq(vtk_write_tets(path, &m), ISO_OK, "%s", iso_last_error());
  FILE *f = fopen(path, "r");
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  cr_assert_null(strstr(buf, "POINT_DATA"));
  cr_assert_not_null(strstr(buf, "CELL_TYPES 6\n10\n"));
  tet_mesh_free(&m);
  remove(path);
}

Test(vtk_write, errors) {
  const double vert[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const int start[2] = {0, 3}, bad_pv[3] = {0, 1, 3}, short_start[2] = {0, 2}, pv[3] = {0, 1, 2};
  const char *nowhere = "/nonexistent-dir/out.vtk";
  cr_assert_eq(vtk_write_polygons(nowhere, vert, 3, start, pv, 1, NULL), ISO_ERR_IO);
  cr_assert_not_null(strstr(iso_last_error(), nowhere), "%s", iso_last_error());
  cr_assert_not_null(strstr(iso_last_error(), "No such file"), "%s", iso_last_error());
  char path[512];
  temp_path(path);
  cr_assert_eq(vtk_write_polygons(path, vert, 3, start, bad_pv, 1, NULL), ISO_ERR_INVALID);
  cr_assert_not_null(strstr(iso_last_error(), "index 3"), "%s", iso_last_error());
  cr_assert_eq(vtk_write_polygons(path, vert, 3, short_start, pv, 1, NULL), ISO_ERR_INVALID);
  cr_assert_not_null(strstr(iso_last_error(), "polygon 0 has 2 vertices"), "%s", iso_last_error());
  cr_assert_eq(vtk_write_polygons(NULL, vert, 3, start, pv, 1, NULL), ISO_ERR_NULL);

  tetMesh m;
  small_mesh(&m, 1);
  cr_assert_eq(vtk_write_tets(nowhere, &m), ISO_ERR_IO);
  cr_assert_not_null(strstr(iso_last_error(), nowhere), "%s", iso_last_error());
  m.tet[5] = 8;
  cr_assert_eq(vtk_write_tets(path, &m), ISO_ERR_INVALID);
  cr_assert_not_null(strstr(iso_last_error(), "tetrahedron 1 refers to vertex 8"), "%s", iso_last_error());
  tet_mesh_free(&m);
  remove(path);
}
