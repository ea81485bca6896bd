/* Tet-mesh topologies and random SPD tangent matrices on them, for the block Cholesky and Schur
 * complement tests (tests/test_block_chol.c, tests/test_schur.c). Header-only (static inline).
 *
 * The factorization sees only the mesh's connectivity and the values, so the meshes are index
 * lists: a grid of cubes cut into 6 tets each (Kuhn's split along the main diagonal: the
 * connectivity of a structured FEM mesh, interior vertices in 24 tets) and "soups" of random
 * tets over a vertex pool (irregular degrees, vertices in no tet, disconnected parts).
 *
 * Values: T = sum over tets of E_e + sigma I with E_e = M^T M / 12, M 12 x 12 uniform in
 * [-1, 1): each E_e is positive definite, like an element's stiffness plus mass, so T is SPD
 * with lambda_min >= sigma and lambda_max <= ||T||_inf (Gershgorin), which bounds kappa(T). */
#ifndef ISO_TESTS_CHOL_MESHES_H
#define ISO_TESTS_CHOL_MESHES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "support/support.h"

/* A grid of nx x ny x nz unit cubes, 6 tets each: returns tets (ntet, 4), malloc'ed. */
static inline int *fem_grid_mesh(int nx, int ny, int nz, int *nvert, int *ntet) {
  static const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int sx = 1, sy = nx + 1, sz = (nx + 1) * (ny + 1), step[3] = {sx, sy, sz};
  *nvert = (nx + 1) * (ny + 1) * (nz + 1);
  *ntet = 6 * nx * ny * nz;
  int *tet = (int *)malloc(sizeof(int) * 4 * (size_t)(*ntet > 0 ? *ntet : 1));
  int e = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int t = 0; t < 6; ++t) {
          int v = i * sx + j * sy + k * sz;
          tet[4 * e] = v;
          for (int a = 0; a < 3; ++a) tet[4 * e + 1 + a] = v += step[axes[t][a]];
          ++e;
        }
  return tet;
}

/* ntet tets of 4 distinct random vertices out of nvert (>= 4): returns tets (ntet, 4). */
static inline int *fem_soup_mesh(test_rng *r, int nvert, int ntet) {
  int *tet = (int *)malloc(sizeof(int) * 4 * (size_t)(ntet > 0 ? ntet : 1));
  for (int e = 0; e < ntet; ++e)
    for (int a = 0; a < 4; ++a) {
      int v, again;
      do {
        v = (int)(test_rng_u64(r) % (uint64_t)nvert);
        again = 0;
        for (int b = 0; b < a; ++b) again |= tet[4 * e + b] == v;
      } while (again);
      tet[4 * e + a] = v;
    }
  return tet;
}

/* Random SPD values (see the top): assembled both into L's storage Lv (nslot x 9, zeroed here)
 * through the pattern's tet slots, and densely into T (3n x 3n, column-major, the mesh's order)
 * by vertex index, independently of the pattern. */
static inline void fem_random_values(test_rng *r, const femPattern *p, const int *tet, double sigma, double *Lv,
                                     double *T) {
  const int n3 = 3 * p->nvert;
  const int *iperm = p->data + p->off_iperm, *col_ptr = p->data + p->off_col_ptr;
  memset(Lv, 0, sizeof(double) * 9 * (size_t)p->nslot);
  memset(T, 0, sizeof(double) * (size_t)n3 * (size_t)n3);
  double M[144], E[144]; /* E row-major 12 x 12 */
  for (int e = 0; e < p->ntet; ++e) {
    for (int i = 0; i < 144; ++i) M[i] = test_rng_uniform(r, -1, 1);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        double s = 0;
        for (int k = 0; k < 12; ++k) s += M[12 * k + i] * M[12 * k + j];
        E[12 * i + j] = s / 12;
      }
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        int va = tet[4 * e + a], vb = tet[4 * e + b], tr;
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y) T[(3 * va + x) + (size_t)(3 * vb + y) * n3] += E[12 * (3 * a + x) + 3 * b + y];
        int s = fem_pattern_tet_slot(p, e, a, b, &tr);
        if (tr) continue; /* the mirror of a pair added as (b, a) */
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y) Lv[9 * s + 3 * x + y] += E[12 * (3 * a + x) + 3 * b + y];
      }
  }
  for (int v = 0; v < p->nvert; ++v)
    for (int x = 0; x < 3; ++x) {
      T[(3 * v + x) + (size_t)(3 * v + x) * n3] += sigma;
      Lv[9 * col_ptr[iperm[v]] + 4 * x] += sigma;
    }
}

/* ||T||_inf of a dense n x n column-major matrix: a Gershgorin bound on lambda_max. */
static inline double fem_norm_inf(int n, const double *T) {
  double best = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += fabs(T[i + (size_t)j * n]);
    if (s > best) best = s;
  }
  return best;
}

#endif
