/* Deformable–deformable contact detection (kernels/fem/dd_contact.h), one world on one core:
 * two blocks of 5 × 5 × 7 Kuhn cells (1050 tets each), B set on A's top, both 1 × 1 × 1.4 m,
 * cell 0.2 m. Cases: B pressed in by a third of a cell, shifted 0.1 m sideways (face to face);
 * the same with B tilted 0.2 rad about y; B pressed in by two cells. Per case: the candidates'
 * count, the candidate tet pairs after the sweep, the contacts, the median time of one
 * fem_dd_detect_world over REPS runs, and once the plain loop over all 1050² tet pairs for
 * comparison. Usage: bench_fem_dd_contact [reps] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/model/model_internal.h"
#include "isobar/isobar.h"
#include "kernels/fem/dd_contact.h"

#define NX 5
#define NY 5
#define NZ 7
#define H 0.2
#define MAX_CON 100000
#define MAX_PAIR 1000000

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int vid(int i, int j, int k) { return i + (NX + 1) * (j + (NY + 1) * k); }

/* The block's grid and its Kuhn tets (the tests' fem_mesh_box, tests/support/fem_meshes.c). */
static void block(double *X, int *tet) {
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k <= NZ; ++k)
    for (int j = 0; j <= NY; ++j)
      for (int i = 0; i <= NX; ++i) {
        double *x = X + 3 * vid(i, j, k);
        x[0] = H * i, x[1] = H * j, x[2] = H * k;
      }
  int t = 0;
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i)
        for (int p = 0; p < 6; ++p) {
          int c[3] = {i, j, k}, *o = tet + 4 * t++;
          o[0] = vid(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[perm[p][s]];
            o[s + 1] = vid(c[0], c[1], c[2]);
          }
          /* Kuhn's tet along axes (a, b, c) is positive for even permutations; swap the last two
           * vertices of the odd ones */
          if (p == 1 || p == 2 || p == 5) {
            const int sw = o[2];
            o[2] = o[3], o[3] = sw;
          }
        }
}

typedef struct benchCase {
  const char *name;
  double depth, tilt;
} benchCase;

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 21;
  static const benchCase cases[3] = {{"face-to-face", H / 3, 0}, {"tilted", H / 3, 0.2}, {"deep", 2 * H, 0}};
  const int nv = (NX + 1) * (NY + 1) * (NZ + 1), nt = 6 * NX * NY * NZ;
  double *X = (double *)malloc(sizeof(double) * 3 * nv);
  int *tet = (int *)malloc(sizeof(int) * 4 * nt);
  block(X, tet);
  printf("case,tets_per_body,candidate_pairs,contacts,detect_us_median,all_pairs_us\n");
  for (int c = 0; c < 3; ++c) {
    isoModel *m = NULL;
    if (iso_model_create(NULL, &m) != ISO_OK) return 1;
    isoDeformableDef d = iso_default_deformable_def();
    d.vertices = X, d.nvert = nv, d.tets = tet, d.ntet = nt;
    d.name = "A";
    if (iso_model_add_deformable(m, &d, NULL) != ISO_OK) return fprintf(stderr, "%s\n", iso_last_error()), 1;
    d.name = "B";
    d.position[0] = d.position[1] = 0.1;
    d.position[2] = H * NZ - cases[c].depth;
    /* tilted about y through the block's low edge: B's bottom face dips towards +x */
    d.quaternion[0] = cos(cases[c].tilt / 2), d.quaternion[2] = sin(cases[c].tilt / 2);
    if (iso_model_add_deformable(m, &d, NULL) != ISO_OK) return fprintf(stderr, "%s\n", iso_last_error()), 1;
    if (iso_model_compile(m) != ISO_OK) return fprintf(stderr, "%s\n", iso_last_error()), 1;
    modelView v;
    model_view_bind(&m->flat, m->flat.arena.base, &v);
    femDDArgs a;
    memset(&a, 0, sizeof a);
    int ncon = 0, need = 0, pair_need = 0;
    a.ndef = 2, a.vert0 = v.def_vert0, a.tet0 = v.def_tet0, a.tet = v.def_tet, a.sdf = v.def_sdf;
    a.ndv3 = 3 * v.z.ndvert, a.xd = v.def_rest;
    a.max_con = MAX_CON, a.con = (femDDContact *)malloc(sizeof(femDDContact) * MAX_CON);
    a.ncon = &ncon, a.need = &need, a.pair_need = &pair_need;
    a.tet_cap = nt, a.max_pair = MAX_PAIR;
    a.box = (real *)malloc(sizeof(real) * (size_t)fem_dd_box_stride(2, nt));
    a.cand = (int *)malloc(sizeof(int) * (size_t)fem_dd_cand_stride(nt));
    a.pair = (long *)malloc(sizeof(long) * (size_t)fem_dd_pair_stride(MAX_PAIR));
    double *t = (double *)malloc(sizeof(double) * (size_t)reps);
    uint32_t bits = 0;
    for (int r = 0; r < reps; ++r) {
      const double t0 = now();
      bits |= fem_dd_detect_world(&a, 0);
      t[r] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    /* the plain loop over every tet pair, for scale */
    const double t0 = now();
    int nall = 0;
    for (int ta = 0; ta < nt; ++ta) {
      femDDTet A, B;
      femDDContact r;
      if (!fem_dd_tet_load(v.def_rest, v.def_sdf, v.def_tet + 4 * ta, &A)) continue;
      for (int tb = 0; tb < nt; ++tb) {
        const long o = v.def_vert0[1];
        if (!fem_dd_tet_load(v.def_rest + 3 * o, v.def_sdf + o, v.def_tet + 4 * (nt + tb), &B)) continue;
        nall += fem_dd_tet_pair(&A, &B, &r);
      }
    }
    const double tall = now() - t0;
    printf("%s,%d,%d,%d,%.1f,%.0f\n", cases[c].name, nt, pair_need, ncon, 1e6 * t[reps / 2], 1e6 * tall);
    if (bits) fprintf(stderr, "%s: overflow\n", cases[c].name);
    if (nall < ncon) fprintf(stderr, "%s: the plain loop found %d < %d\n", cases[c].name, nall, ncon);
    free(t), free(a.con), free(a.box), free(a.cand), free(a.pair);
    iso_model_destroy(m);
  }
  free(X), free(tet);
  return 0;
}
