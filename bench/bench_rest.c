/* A box at rest on a plane, one world on one thread: time per step, SAP Newton iterations per
 * step, contact constraints per step, the cost per constraint, and where the step's time goes
 * (iso_sim_get_stage_times, from as many steps again with the timers on, so their clock reads
 * are not in the time per step), for each SDFormat scene given. The defaults compare
 * examples/compliant_box_on_plane.sdf (hydroelastic) with bench/rest_point_box.sdf (the same
 * box with point contact). Each scene settles for SETTLE steps, then REPS runs of STEPS steps
 * each are timed; medians are reported (of the time per step, and of each stage's seconds).
 * Usage: bench_rest [reps] [steps] [scene.sdf ...] > out.csv (run from the repository root) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "isobar/isobar.h"

#define MAX_STAGES 16
#define MAX_REPS 64
#define SETTLE 500

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(isoStatus st, const char *what) {
  if (st != ISO_OK) {
    fprintf(stderr, "bench_rest: %s: %s\n", what, iso_last_error());
    exit(1);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of n values (sorts them). */
static double median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Time one scene; prints one CSV row. */
static void run(const char *path, int reps, int steps) {
  isoModel *m = NULL;
  check(iso_scene_load(path, NULL, &m, NULL), path);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  for (int i = 0; i < SETTLE; ++i) check(iso_sim_step(s), "settle");
  int nstage = iso_sim_stage_count() < MAX_STAGES ? iso_sim_stage_count() : MAX_STAGES;
  static double us[MAX_REPS], stage[MAX_STAGES][MAX_REPS];
  long long iters = 0, ncon = 0, zero = 0;
  for (int r = 0; r < reps; ++r) {
    /* the step's time with the stage timers off (their clock reads are a tenth of a one-world
     * point-contact step), then the stages' times over as many steps with them on */
    check(iso_sim_set_stage_timing(s, 0), "timers");
    double t0 = now();
    for (int i = 0; i < steps; ++i) check(iso_sim_step(s), "step");
    us[r] = 1e6 * (now() - t0) / steps;
    check(iso_sim_set_stage_timing(s, 1), "timers");
    check(iso_sim_reset_stage_times(s), "timers");
    for (int i = 0; i < steps; ++i) check(iso_sim_step(s), "step");
    double sec[MAX_STAGES];
    int n = 0;
    check(iso_sim_get_stage_times(s, sec, MAX_STAGES, &n), "stage times");
    for (int k = 0; k < nstage; ++k) stage[k][r] = 1e6 * sec[k] / steps;
  }
  /* counts from separate, untimed steps: reading them back is not part of a step */
  for (int i = 0; i < steps; ++i) {
    isoSolverStats st;
    int c = 0;
    check(iso_sim_step(s), "step");
    check(iso_sim_get_solver_stats(s, 0, &st), "stats");
    check(iso_sim_contact_count(s, 0, &c), "contacts");
    iters += st.iterations, ncon += c, zero += st.iterations == 0;
  }
  const double t = median(us, reps), con = (double)ncon / steps;
  printf("%s,%.3f,%.3f,%.3f,%.3f,%.3f", path, t, (double)iters / steps, (double)zero / steps, con,
         con > 0 ? t / con : 0.0);
  for (int k = 0; k < nstage; ++k) printf(",%.3f", median(stage[k], reps));
  printf("\n");
  iso_sim_destroy(s);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5, steps = argc > 2 ? atoi(argv[2]) : 2000;
  if (reps < 1 || reps > MAX_REPS || steps < 1) {
    fprintf(stderr, "bench_rest: reps in [1, %d], steps >= 1\n", MAX_REPS);
    return 2;
  }
  printf("scene,us_per_step,newton_iterations_per_step,zero_iteration_share,constraints,us_per_constraint");
  for (int k = 0; k < iso_sim_stage_count() && k < MAX_STAGES; ++k) printf(",%s_us", iso_sim_stage_name(k));
  printf("\n");
  if (argc > 3)
    for (int i = 3; i < argc; ++i) run(argv[i], reps, steps);
  else {
    run("examples/compliant_box_on_plane.sdf", reps, steps);
    run("bench/rest_point_box.sdf", reps, steps);
  }
  return 0;
}
