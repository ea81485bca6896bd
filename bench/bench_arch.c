/* The masonry arch of seed 001 (examples/arch.sdf, arch_slippery.sdf; seed Table I: 225 DoFs,
 * dt = 40 ms, 7.26x real time at friction 0.2 and 6.29x at 1.0, one thread, so 5.5 and 6.4 ms
 * per step) timed on one world and one thread of the CPU backend, from rest, through the files'
 * own steps:
 *
 *   stand   arch.sdf under the default (lagged) approximation: settling, then standing;
 *   convex  arch.sdf under the convex approximation (Drake's "sap", the seed's solver);
 *   fall    arch_slippery.sdf (lagged): the collapse, the blocks landing and lying.
 *
 * Each configuration runs REPS times, the configurations interleaved within a repetition so that
 * a passing load spreads over all of them; the repetition with the median time is reported, with
 * each pipeline stage's share of it (iso_sim_get_stage_times) and the SAP Newton iterations per
 * step (iso_sim_get_solver_stats after every step, outside the timed region's stages but inside
 * its wall clock: a copy of five numbers). Public API only.
 * Usage, from the repository root: bench_arch [reps] [steps] > out.csv */
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
    fprintf(stderr, "bench_arch: %s: %s\n", what, iso_last_error());
    exit(1);
  }
}

typedef struct config {
  const char *name, *file;
  isoContactApproximation approx;
} config;

typedef struct result {
  double s_per_step, iters, stage[MAX_STAGES];
  uint32_t status;
} result;

/* One run of `steps` steps from the file's initial state. */
static result measure(const config *c, int steps) {
  isoModel *m = NULL;
  isoLoadOptions lo = iso_default_load_options();
  check(iso_scene_load(c->file, &lo, &m, NULL), c->file);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  sd.contact.approximation = c->approx;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  check(iso_sim_set_stage_timing(s, 1), "timers");
  check(iso_sim_reset_stage_times(s), "timers");
  long iters = 0;
  const double t0 = now();
  for (int i = 0; i < steps; ++i) {
    check(iso_sim_step(s), "step");
    isoSolverStats st;
    check(iso_sim_get_solver_stats(s, 0, &st), "solver stats");
    iters += st.iterations;
  }
  const double t = now() - t0;
  result r;
  memset(&r, 0, sizeof r);
  r.s_per_step = t / steps;
  r.iters = (double)iters / steps;
  double sec[MAX_STAGES], total = 0;
  int n = 0;
  check(iso_sim_get_stage_times(s, sec, MAX_STAGES, &n), "stage times");
  if (n > MAX_STAGES) n = MAX_STAGES;
  for (int k = 0; k < n; ++k) total += sec[k];
  for (int k = 0; k < n; ++k) r.stage[k] = total > 0 ? sec[k] / total : 0;
  check(iso_sim_get_status(s, iso_worlds_one(0), &r.status), "status");
  iso_sim_destroy(s);
  return r;
}

static int cmp(const void *a, const void *b) {
  double x = ((const result *)a)->s_per_step, y = ((const result *)b)->s_per_step;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 5, steps = argc > 2 ? atoi(argv[2]) : 250;
  if (reps < 1 || steps < 1) return 2;
  static const config cf[3] = {{"stand", "examples/arch.sdf", ISO_CONTACT_LAGGED},
                               {"convex", "examples/arch.sdf", ISO_CONTACT_CONVEX},
                               {"fall", "examples/arch_slippery.sdf", ISO_CONTACT_LAGGED}};
  const char *only = argc > 3 ? argv[3] : NULL; /* one configuration by name (for a profiler) */
  const int nc = 3;
  result *res = (result *)calloc((size_t)nc * (size_t)reps, sizeof(result));
  if (!res) return 1;
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < nc; ++i) {
      if (only && strcmp(only, cf[i].name) != 0) continue;
      result *x = &res[(size_t)i * reps + r];
      *x = measure(&cf[i], steps);
      fprintf(stderr, "rep %d/%d: %s: %.1f us/step, %.2f Newton iterations/step, status %u\n", r + 1, reps, cf[i].name,
              1e6 * x->s_per_step, x->iters, x->status);
    }
  const double dt = 0.04; /* the files' <max_step_size> */
  int nstage = iso_sim_stage_count() < MAX_STAGES ? iso_sim_stage_count() : MAX_STAGES;
  printf("config,file,steps,median_us_per_step,realtime_factor,newton_iterations_per_step,status");
  for (int k = 0; k < nstage; ++k) printf(",%s", iso_sim_stage_name(k));
  printf("\n");
  for (int i = 0; i < nc; ++i) {
    if (only && strcmp(only, cf[i].name) != 0) continue;
    result *x = res + (size_t)i * reps;
    qsort(x, (size_t)reps, sizeof *x, cmp);
    const result m = x[reps / 2];
    printf("%s,%s,%d,%.1f,%.2f,%.2f,%u", cf[i].name, cf[i].file, steps, 1e6 * m.s_per_step, dt / m.s_per_step, m.iters,
           m.status);
    for (int k = 0; k < nstage; ++k) printf(",%.3f", m.stage[k]);
    printf("\n");
  }
  free(res);
  return 0;
}
