/* Tetrahedral meshes of boxes for the FEM tests (fem_meshes.h). */
#include "support/fem_meshes.h"

#include <stdlib.h>

int fem_mesh_vertex(const femMesh *m, int i, int j, int k) {
  return i + (m->nx + 1) * (j + (m->ny + 1) * k);
}

int fem_mesh_on_boundary(const femMesh *m, int v) {
  int i = v % (m->nx + 1);
  int j = (v / (m->nx + 1)) % (m->ny + 1);
  int k = v / ((m->nx + 1) * (m->ny + 1));
  return i == 0 || i == m->nx || j == 0 || j == m->ny || k == 0 || k == m->nz;
}

/* Signed six-fold volume of tet t of m. */
static double tet_vol6(const femMesh *m, const int t[4]) {
  const double *a = m->X + 3 * t[0], *b = m->X + 3 * t[1];
  const double *c = m->X + 3 * t[2], *d = m->X + 3 * t[3];
  double e1[3], e2[3], e3[3];
  for (int i = 0; i < 3; ++i) {
    e1[i] = b[i] - a[i];
    e2[i] = c[i] - a[i];
    e3[i] = d[i] - a[i];
  }
  return e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
         e1[2] * (e2[0] * e3[1] - e2[1] * e3[0]);
}

int fem_mesh_box(femMesh *m, double Lx, double Ly, double Lz, int nx, int ny, int nz) {
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  m->X = NULL;
  m->tet = NULL;
  if (nx < 1 || ny < 1 || nz < 1 || !(Lx > 0) || !(Ly > 0) || !(Lz > 0)) return 1;
  m->nx = nx;
  m->ny = ny;
  m->nz = nz;
  m->nvert = (nx + 1) * (ny + 1) * (nz + 1);
  m->ntet = 6 * nx * ny * nz;
  m->X = malloc(sizeof(double) * 3 * (size_t)m->nvert);
  m->tet = malloc(sizeof(int) * 4 * (size_t)m->ntet);
  if (!m->X || !m->tet) {
    fem_mesh_free(m);
    return 1;
  }
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        double *x = m->X + 3 * fem_mesh_vertex(m, i, j, k);
        x[0] = Lx * i / nx;
        x[1] = Ly * j / ny;
        x[2] = Lz * k / nz;
      }
  int t = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int p = 0; p < 6; ++p) {
          int c[3] = {i, j, k};
          int *tt = m->tet + 4 * t++;
          /* walk from the low corner to the high one, one axis at a time in the order perm[p] */
          tt[0] = fem_mesh_vertex(m, c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[perm[p][s]];
            tt[s + 1] = fem_mesh_vertex(m, c[0], c[1], c[2]);
          }
          if (tet_vol6(m, tt) < 0) {
            int sw = tt[2];
            tt[2] = tt[3];
            tt[3] = sw;
          }
        }
  return 0;
}

void fem_mesh_free(femMesh *m) {
  free(m->X);
  free(m->tet);
  m->X = NULL;
  m->tet = NULL;
}

int fem_mesh_rest(const femMesh *m, femTetRest *rest) {
  int bad = 0;
  for (int e = 0; e < m->ntet; ++e) {
    real X[12];
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) X[3 * a + i] = m->X[3 * m->tet[4 * e + a] + i];
    bad += fem_tet_rest(X, &rest[e]) != 0;
  }
  return bad;
}
