/* Deformable-body throughput on the CPU backend: box beams of linear corotational tetrahedra
 * (seed 001), generated in memory, held at their x = 0 end by a wall and sagging under gravity
 * from rest, with no contact.
 *
 *   size sweep:  one world on one thread, beams of 54, 144, 500, 1536 and 4000 vertices;
 *   world sweep: the 144-vertex beam at 1, 16, 256, 1024 and 4096 worlds on 1 and 2 threads.
 *
 * Reports world-steps per second, the share of each pipeline stage (iso_sim_get_stage_times;
 * element assembly, factorisation and solve of a body all fall in the stage "deformables") and
 * the bytes per world (iso_sim_memory_per_world). Each configuration runs REPS times, the
 * configurations interleaved within a repetition so that a passing load spreads over all of
 * them, and the repetition with the median rate is reported.
 * Usage: bench_deformable [reps] [max_worlds] > out.csv */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isobar/isobar.h"

#define MAX_STAGES 16
#define SPACING 0.02 /* m between grid vertices: a beam grows in every direction with its size */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(isoStatus st, const char *what) {
  if (st != ISO_OK) {
    fprintf(stderr, "bench_deformable: %s: %s\n", what, iso_last_error());
    exit(1);
  }
}

/* Signed volume ×6 of tet (a, b, c, d). */
static double vol6(const double *v, const int *t) {
  const double *a = v + 3 * t[0], *b = v + 3 * t[1], *c = v + 3 * t[2], *d = v + 3 * t[3];
  double e1[3], e2[3], e3[3];
  for (int i = 0; i < 3; ++i) e1[i] = b[i] - a[i], e2[i] = c[i] - a[i], e3[i] = d[i] - a[i];
  return (e1[1] * e2[2] - e1[2] * e2[1]) * e3[0] + (e1[2] * e2[0] - e1[0] * e2[2]) * e3[1] +
         (e1[0] * e2[1] - e1[1] * e2[0]) * e3[2];
}

/* A grid of nx × ny × nz vertices, SPACING apart, each cube split into the six tetrahedra
 * around its main diagonal (a conforming mesh: neighbouring cubes split shared faces alike),
 * each made positively oriented. The caller frees *verts and *tets. */
static void box_mesh(int nx, int ny, int nz, double **verts, int **tets, int *nvert, int *ntet) {
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int n = nx * ny * nz, nc = (nx - 1) * (ny - 1) * (nz - 1);
  double *v = (double *)malloc(sizeof(double) * 3 * (size_t)n);
  int *t = (int *)malloc(sizeof(int) * 24 * (size_t)nc);
  if (!v || !t) exit(1);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k) {
        double *p = v + 3 * ((i * ny + j) * nz + k);
        p[0] = SPACING * i, p[1] = SPACING * (j - 0.5 * (ny - 1)), p[2] = SPACING * (k - 0.5 * (nz - 1));
      }
  int m = 0;
  for (int i = 0; i + 1 < nx; ++i)
    for (int j = 0; j + 1 < ny; ++j)
      for (int k = 0; k + 1 < nz; ++k)
        for (int p = 0; p < 6; ++p) {
          int c[3] = {i, j, k}, *q = t + 4 * m++;
          q[0] = (c[0] * ny + c[1]) * nz + c[2];
          for (int s = 0; s < 3; ++s) {
            c[perm[p][s]] += 1;
            q[s + 1] = (c[0] * ny + c[1]) * nz + c[2];
          }
          if (vol6(v, q) < 0) {
            int x = q[2];
            q[2] = q[3], q[3] = x;
          }
        }
  *verts = v, *tets = t, *nvert = n, *ntet = nc * 6;
}

/* A sim of `worlds` copies of one beam (soft_beam.sdf's material) held at x = 0, at rest. */
static isoSim *beam_scene(int nx, int ny, int nz, int worlds, int threads) {
  isoModel *m = NULL;
  check(iso_model_create(NULL, &m), "model");
  double *v;
  int *t, nv, nt;
  box_mesh(nx, ny, nz, &v, &t, &nv, &nt);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "beam";
  d.nvert = nv, d.ntet = nt, d.vertices = v, d.tets = t;
  d.position[2] = 0.5;
  d.youngs_modulus = 1e6, d.poissons_ratio = 0.4, d.mass_density = 1000, d.stiffness_damping = 0.01;
  check(iso_model_add_deformable(m, &d, NULL), "deformable");
  free(v);
  free(t);
  const double point[3] = {0.001, 0, 0}, normal[3] = {1, 0, 0};
  check(iso_model_deformable_wall(m, 0, point, normal, NULL), "wall");
  check(iso_model_compile(m), "compile");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  return s;
}

typedef struct result {
  double wsps, stage[MAX_STAGES];
  size_t bytes;
} result;

/* Two untimed steps (first-touch page faults of the sim's buffers), then steps until 0.3 s and
 * at least three have passed. */
static result measure(const int dims[3], int worlds, int threads) {
  isoSim *s = beam_scene(dims[0], dims[1], dims[2], worlds, threads);
  for (int i = 0; i < 2; ++i) check(iso_sim_step(s), "warm-up");
  check(iso_sim_set_stage_timing(s, 1), "timers");
  check(iso_sim_reset_stage_times(s), "timers");
  long long steps = 0;
  double t0 = now(), t;
  do {
    check(iso_sim_step(s), "step");
    steps++;
    t = now() - t0;
  } while (t < 0.3 || steps < 3);
  result r;
  memset(&r, 0, sizeof r);
  r.wsps = (double)worlds * (double)steps / t;
  double sec[MAX_STAGES], total = 0;
  int n = 0;
  check(iso_sim_get_stage_times(s, sec, MAX_STAGES, &n), "stage times");
  if (n > MAX_STAGES) n = MAX_STAGES;
  for (int k = 0; k < n; ++k) total += sec[k];
  for (int k = 0; k < n; ++k) r.stage[k] = total > 0 ? sec[k] / total : 0;
  check(iso_sim_memory_per_world(s, &r.bytes), "memory");
  uint32_t bits = 1;
  check(iso_sim_get_status(s, iso_worlds_one(0), &bits), "status");
  if (bits) {
    fprintf(stderr, "bench_deformable: world 0 faulted (status %u)\n", bits);
    exit(1);
  }
  iso_sim_destroy(s);
  return r;
}

static int cmp(const void *a, const void *b) {
  double x = ((const result *)a)->wsps, y = ((const result *)b)->wsps;
  return x < y ? -1 : x > y;
}

typedef struct config {
  const char *sweep;
  int dims[3], worlds, threads;
} config;

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5, max_worlds = argc > 2 ? atoi(argv[2]) : 4096;
  static const int sizes[5][3] = {{6, 3, 3}, {16, 3, 3}, {20, 5, 5}, {24, 8, 8}, {40, 10, 10}};
  static const int counts[5] = {1, 16, 256, 1024, 4096};
  config cf[20];
  int nc = 0;
  for (int i = 0; i < 5; ++i) {
    config c = {"size", {sizes[i][0], sizes[i][1], sizes[i][2]}, 1, 1};
    cf[nc++] = c;
  }
  for (int th = 1; th <= 2; ++th)
    for (int i = 0; i < 5 && counts[i] <= max_worlds; ++i) {
      config c = {"worlds", {16, 3, 3}, counts[i], th};
      cf[nc++] = c;
    }
  if (reps < 1) return 2;
  result *res = (result *)calloc((size_t)nc * (size_t)reps, sizeof(result));
  if (!res) return 1;
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < nc; ++i) {
      res[(size_t)i * reps + r] = measure(cf[i].dims, cf[i].worlds, cf[i].threads);
      fprintf(stderr, "rep %d/%d: %s %dx%dx%d, %d worlds, %d threads: %.0f world-steps/s\n", r + 1, reps,
              cf[i].sweep, cf[i].dims[0], cf[i].dims[1], cf[i].dims[2], cf[i].worlds, cf[i].threads,
              res[(size_t)i * reps + r].wsps);
    }
  int nstage = iso_sim_stage_count() < MAX_STAGES ? iso_sim_stage_count() : MAX_STAGES;
  printf("sweep,vertices,tets,worlds,threads,median_world_steps_per_s,us_per_world_step,bytes_per_world");
  for (int k = 0; k < nstage; ++k) printf(",%s", iso_sim_stage_name(k));
  printf("\n");
  for (int i = 0; i < nc; ++i) {
    result *x = res + (size_t)i * reps;
    qsort(x, (size_t)reps, sizeof *x, cmp);
    result m = x[reps / 2];
    const int *d = cf[i].dims;
    printf("%s,%d,%d,%d,%d,%.1f,%.2f,%zu", cf[i].sweep, d[0] * d[1] * d[2], 6 * (d[0] - 1) * (d[1] - 1) * (d[2] - 1),
           cf[i].worlds, cf[i].threads, m.wsps, 1e6 / m.wsps, m.bytes);
    for (int k = 0; k < nstage; ++k) printf(",%.3f", m.stage[k]);
    printf("\n");
  }
  free(res);
  return 0;
}
