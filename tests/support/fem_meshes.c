/* Tetrahedral meshes of boxes for the FEM tests (fem_meshes.h). */
#include "support/fem_meshes.h"

#include <math.h>
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

/* The cube [-1, 1]³ onto the ball of radius 1 (a map that keeps the cube's symmetries). */
static void cube_to_ball(const double c[3], double out[3]) {
  const double x2 = c[0] * c[0], y2 = c[1] * c[1], z2 = c[2] * c[2];
  out[0] = c[0] * sqrt(1 - y2 / 2 - z2 / 2 + y2 * z2 / 3);
  out[1] = c[1] * sqrt(1 - z2 / 2 - x2 / 2 + z2 * x2 / 3);
  out[2] = c[2] * sqrt(1 - x2 / 2 - y2 / 2 + x2 * y2 / 3);
}

int fem_mesh_ball_symmetric(femMesh *m, double R, int n) {
  m->X = NULL;
  m->tet = NULL;
  if (n < 1 || !(R > 0)) return 1;
  const int s = 2 * n + 1; /* half-step lattice: corners even, cell centres odd, face centres mixed */
  int *id = (int *)malloc(sizeof(int) * (size_t)(s * s * s));
  m->nx = m->ny = m->nz = n;
  m->ntet = 24 * n * n * n;
  m->X = (double *)malloc(sizeof(double) * 3 * (size_t)(s * s * s));
  m->tet = (int *)malloc(sizeof(int) * 4 * (size_t)m->ntet);
  if (!id || !m->X || !m->tet) {
    free(id);
    fem_mesh_free(m);
    return 1;
  }
  m->nvert = 0;
  for (int k = 0; k < s; ++k)
    for (int j = 0; j < s; ++j)
      for (int i = 0; i < s; ++i) {
        const int odd = (i & 1) + (j & 1) + (k & 1);
        int *v = id + (k * s + j) * s + i;
        *v = -1;
        if (odd == 1) continue; /* edge midpoints are not vertices */
        const double c[3] = {(double)i / n - 1, (double)j / n - 1, (double)k / n - 1};
        double b[3];
        cube_to_ball(c, b);
        for (int a = 0; a < 3; ++a) m->X[3 * m->nvert + a] = R * b[a];
        *v = m->nvert++;
      }
  /* each cell: its centre, each face's centre and the face's four corners in turn */
  static const int axis_u[3] = {1, 2, 0}, axis_w[3] = {2, 0, 1};
  int t = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int C[3] = {2 * i + 1, 2 * j + 1, 2 * k + 1};
        for (int ax = 0; ax < 3; ++ax)
          for (int side = -1; side <= 1; side += 2) {
            int F[3] = {C[0], C[1], C[2]};
            F[ax] += side;
            static const int du[4] = {-1, 1, 1, -1}, dw[4] = {-1, -1, 1, 1};
            for (int q = 0; q < 4; ++q) {
              int P0[3] = {F[0], F[1], F[2]}, P1[3] = {F[0], F[1], F[2]};
              P0[axis_u[ax]] += du[q], P0[axis_w[ax]] += dw[q];
              P1[axis_u[ax]] += du[(q + 1) % 4], P1[axis_w[ax]] += dw[(q + 1) % 4];
              int *tt = m->tet + 4 * t++;
              tt[0] = id[(C[2] * s + C[1]) * s + C[0]];
              tt[1] = id[(F[2] * s + F[1]) * s + F[0]];
              tt[2] = id[(P0[2] * s + P0[1]) * s + P0[0]];
              tt[3] = id[(P1[2] * s + P1[1]) * s + P1[0]];
              if (tet_vol6(m, tt) < 0) {
                const int tmp = tt[2];
                tt[2] = tt[3], tt[3] = tmp;
              }
            }
          }
      }
  free(id);
  return 0;
}

void fem_rand_tet(test_rng *r, real X[12], femTetRest *rest) {
  for (;;) {
    for (int i = 0; i < 12; ++i) X[i] = test_rng_uniform(r, -1, 1);
    vec3 x0 = v3(X[0], X[1], X[2]);
    vec3 e1 = v3_sub(v3(X[3], X[4], X[5]), x0), e2 = v3_sub(v3(X[6], X[7], X[8]), x0);
    vec3 e3 = v3_sub(v3(X[9], X[10], X[11]), x0);
    double d = v3_dot(v3_cross(e1, e2), e3);
    if (d < 0) { /* swap nodes 2 and 3 */
      for (int i = 0; i < 3; ++i) {
        real t = X[6 + i];
        X[6 + i] = X[9 + i];
        X[9 + i] = t;
      }
      d = -d;
    }
    double l = fmax(fmax(v3_norm(e1), v3_norm(e2)), fmax(v3_norm(e3), v3_norm(v3_sub(e2, e1))));
    l = fmax(l, fmax(v3_norm(v3_sub(e3, e1)), v3_norm(v3_sub(e3, e2))));
    if (d >= 0.1 * l * l * l && fem_tet_rest(X, rest) == 0) return;
  }
}
