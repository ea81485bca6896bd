/* Tactile sampling cost on the CPU backend: the "tactile" stage's time per taxel and per
 * world-step, against the whole step, for a rigid 0.1 m cube resting on a compliant pad
 * (0.2 × 0.2 × 0.05 m, anchored) with one n × n grid on the pad's top face, spaced so the grid
 * spans 0.16 m (the cube's patch covers 39 % of it), at several grid sizes and world counts.
 * Each configuration settles for 100 steps, then steps for ≥ 0.3 s with the stage timers reset;
 * REPS repetitions, configurations interleaved within each, medians reported.
 * Usage: bench_tactile [threads] [reps] [max_worlds] > out.csv */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isobar/isobar.h"

#define MAX_STAGES 16

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(isoStatus st, const char *what) {
  if (st != ISO_OK) {
    fprintf(stderr, "bench_tactile: %s: %s\n", what, iso_last_error());
    exit(1);
  }
}

static isoSim *pad_scene(int n, int worlds, int threads) {
  isoModel *m = NULL;
  check(iso_model_create(NULL, &m), "model");
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "pad";
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = 0.2, g.size[2] = 0.05;
  g.position[2] = -0.025;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  int pad = -1;
  check(iso_model_add_geometry(m, &g, &pad), "pad geometry");
  isoBodyDef b = iso_default_body_def();
  b.mass = 1;
  b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.01 / 6;
  int body = -1;
  check(iso_model_add_body(m, &b, &body), "body");
  g = iso_default_geometry_def();
  g.name = "cube";
  g.body = body;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = g.size[2] = 0.1;
  g.compliance = ISO_COMPLIANCE_RIGID;
  check(iso_model_add_geometry(m, &g, NULL), "cube geometry");
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[2] = 0.05;
  check(iso_model_set_initial_state(m, body, &x), "initial state");
  isoTactilePadDef p = iso_default_tactile_pad_def();
  p.geometry = pad;
  p.rows = p.cols = n;
  p.spacing = 0.16 / n;
  check(iso_model_add_tactile_pad(m, &p, NULL), "pad");
  check(iso_model_compile(m), "compile");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  for (int i = 0; i < 100; ++i) check(iso_sim_step(s), "settle");
  return s;
}

typedef struct result {
  double step_s;    /* wall seconds per step, all worlds */
  double tactile_s; /* the tactile stage's seconds per step */
} result;

static result measure(int n, int worlds, int threads) {
  isoSim *s = pad_scene(n, worlds, threads);
  check(iso_sim_taxel_buffers(s, NULL, NULL), "taxels"); /* read in place: every step samples them */
  check(iso_sim_set_stage_timing(s, 1), "timers");
  check(iso_sim_reset_stage_times(s), "timers");
  long long steps = 0;
  double t0 = now(), t;
  do {
    check(iso_sim_step(s), "step");
    steps++;
    t = now() - t0;
  } while (t < 0.3 || steps < 5);
  double sec[MAX_STAGES];
  int count = 0, k_tactile = -1;
  check(iso_sim_get_stage_times(s, sec, MAX_STAGES, &count), "stage times");
  for (int k = 0; k < count && k < MAX_STAGES; ++k)
    if (strcmp(iso_sim_stage_name(k), "tactile") == 0) k_tactile = k;
  result r;
  r.step_s = t / (double)steps;
  r.tactile_s = k_tactile >= 0 ? sec[k_tactile] / (double)steps : 0;
  iso_sim_destroy(s);
  return r;
}

static int cmp(const void *a, const void *b) {
  double x = ((const result *)a)->tactile_s, y = ((const result *)b)->tactile_s;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 2 ? atoi(argv[2]) : 5;
  const int max_worlds = argc > 3 ? atoi(argv[3]) : 1024;
  const int grids[4] = {16, 32, 64, 128};
  int worlds[4], nw = 0;
  for (int w = 1; w <= max_worlds && nw < 4; w *= 32) worlds[nw++] = w;
  result *res = (result *)calloc((size_t)4 * nw * reps, sizeof(result));
  for (int r = 0; r < reps; ++r)
    for (int g = 0; g < 4; ++g)
      for (int i = 0; i < nw; ++i) res[((size_t)g * nw + i) * reps + r] = measure(grids[g], worlds[i], threads);
  printf("taxels,worlds,threads,step_us,tactile_us,tactile_share,ns_per_taxel\n");
  for (int g = 0; g < 4; ++g)
    for (int i = 0; i < nw; ++i) {
      result *x = res + ((size_t)g * nw + i) * reps;
      qsort(x, (size_t)reps, sizeof *x, cmp);
      const result m = x[reps / 2];
      const double taxels = (double)grids[g] * grids[g];
      printf("%d,%d,%d,%.1f,%.2f,%.4f,%.2f\n", grids[g] * grids[g], worlds[i], threads, 1e6 * m.step_s,
             1e6 * m.tactile_s, m.tactile_s / m.step_s, 1e9 * m.tactile_s / (worlds[i] * taxels));
    }
  free(res);
  return 0;
}
