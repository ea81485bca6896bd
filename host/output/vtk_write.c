/* Legacy ASCII VTK writers, for looking at contact polygons and compliant meshes in ParaView
 * (DESIGN.md, "output a person can look at").
 *
 * Files follow the legacy format ParaView's reader takes: `# vtk DataFile Version 3.0`, a
 * title line, `ASCII`, a DATASET section, then attributes. Every real is printed with %.17g,
 * which round-trips an IEEE double exactly, so a written file reads back to the same bits and
 * files can be diffed between runs (the CPU backend is bitwise reproducible).
 *
 * Arguments are checked before the file is opened (indices in range, CSR offsets monotone),
 * and the file is written to a temporary beside the target and renamed over it when complete
 * (host/output/out_file.h): a failure returns ISO_ERR_IO naming the path and leaves whatever
 * was there before untouched. */
#include <stdio.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "host/output/out_file.h"

static void write_header(FILE *f, const char *title) {
  fprintf(f, "# vtk DataFile Version 3.0\n%s\nASCII\n", title);
}

static void write_points(FILE *f, const real *vert, int nvert) {
  fprintf(f, "POINTS %d double\n", nvert);
  for (int i = 0; i < nvert; ++i)
    fprintf(f, "%.17g %.17g %.17g\n", vert[3 * i], vert[3 * i + 1], vert[3 * i + 2]);
}

static void write_scalars(FILE *f, const char *where, int n, const real *x) {
  fprintf(f, "%s %d\nSCALARS pressure double 1\nLOOKUP_TABLE default\n", where, n);
  for (int i = 0; i < n; ++i) fprintf(f, "%.17g\n", x[i]);
}

isoStatus vtk_write_polygons(const char *path, const real *vert, int nvert, const int *poly_start,
                             const int *poly_vert, int npoly, const real *cell_pressure) {
  CHECK_NULL(path, "vtk_write_polygons");
  if (nvert < 0 || npoly < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: %d vertices and %d polygons are out of range", path, nvert, npoly);
  if (nvert > 0) CHECK_NULL(vert, "vtk_write_polygons");
  CHECK_NULL(poly_start, "vtk_write_polygons");
  if (poly_start[0] != 0) return iso_fail(ISO_ERR_INVALID, "%s: poly_start[0] is %d, not 0", path, poly_start[0]);
  long size = 0; /* POLYGONS size: one count plus the indices per polygon */
  for (int i = 0; i < npoly; ++i) {
    int k = poly_start[i + 1] - poly_start[i];
    if (k < 3)
      return iso_fail(ISO_ERR_INVALID, "%s: polygon %d has %d vertices (offsets %d..%d), needs at least 3", path, i, k,
                      poly_start[i], poly_start[i + 1]);
    size += 1 + k;
  }
  if (poly_start[npoly] > 0) CHECK_NULL(poly_vert, "vtk_write_polygons");
  for (int j = 0; j < poly_start[npoly]; ++j)
    if (poly_vert[j] < 0 || poly_vert[j] >= nvert)
      return iso_fail(ISO_ERR_INVALID, "%s: polygon vertex index %d (entry %d) out of range (%d vertices)", path,
                      poly_vert[j], j, nvert);

  outFile out;
  isoStatus st = out_open(&out, path);
  if (st != ISO_OK) return st;
  FILE *f = out.f;
  write_header(f, "isobar contact polygons");
  fprintf(f, "DATASET POLYDATA\n");
  write_points(f, vert, nvert);
  fprintf(f, "POLYGONS %d %ld\n", npoly, size);
  for (int i = 0; i < npoly; ++i) {
    fprintf(f, "%d", poly_start[i + 1] - poly_start[i]);
    for (int j = poly_start[i]; j < poly_start[i + 1]; ++j) fprintf(f, " %d", poly_vert[j]);
    fputc('\n', f);
  }
  if (cell_pressure != NULL) write_scalars(f, "CELL_DATA", npoly, cell_pressure);
  return out_commit(&out);
}

isoStatus vtk_write_tets(const char *path, const tetMesh *m) {
  CHECK_NULL(path, "vtk_write_tets");
  CHECK_NULL(m, "vtk_write_tets");
  if (m->nvert < 0 || m->ntet < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: %d vertices and %d tetrahedra are out of range", path, m->nvert, m->ntet);
  if ((m->nvert > 0 && m->vert == NULL) || (m->ntet > 0 && m->tet == NULL))
    return iso_fail(ISO_ERR_STATE, "%s: the tetrahedral mesh has no vertex or element arrays", path);
  for (int i = 0; i < 4 * m->ntet; ++i)
    if (m->tet[i] < 0 || m->tet[i] >= m->nvert)
      return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d refers to vertex %d of %d", path, i / 4, m->tet[i],
                      m->nvert);

  outFile out;
  isoStatus st = out_open(&out, path);
  if (st != ISO_OK) return st;
  FILE *f = out.f;
  write_header(f, "isobar tetrahedral mesh");
  fprintf(f, "DATASET UNSTRUCTURED_GRID\n");
  write_points(f, m->vert, m->nvert);
  fprintf(f, "CELLS %d %ld\n", m->ntet, 5L * m->ntet);
  for (int e = 0; e < m->ntet; ++e)
    fprintf(f, "4 %d %d %d %d\n", m->tet[4 * e], m->tet[4 * e + 1], m->tet[4 * e + 2], m->tet[4 * e + 3]);
  fprintf(f, "CELL_TYPES %d\n", m->ntet);
  for (int e = 0; e < m->ntet; ++e) fputs("10\n", f); /* VTK_TETRA */
  if (m->pressure != NULL) write_scalars(f, "POINT_DATA", m->nvert, m->pressure);
  return out_commit(&out);
}
