/* Contact-dynamics throughput on the CPU backend: world-steps per second for a compliant box
 * resting on a rigid plane, with hydroelastic contact and with point contact (the same box,
 * body and materials), at 1 to 4096 worlds; SAP iterations per world-step; time per pipeline
 * stage; and the hydroelastic/point cost ratio. Each configuration runs REPS times, the
 * configurations interleaved within a repetition, and medians are reported.
 * Usage: bench_contact [threads] [reps] [max_worlds] > out.csv */
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
    fprintf(stderr, "bench_contact: %s: %s\n", what, iso_last_error());
    exit(1);
  }
}

/* A 20 × 16 × 10 cm, 2 kg box on a rigid plane, resting (settled for 200 steps first). */
static isoSim *box_scene(int hydro, int worlds, int threads) {
  isoModel *m = NULL;
  check(iso_model_create(NULL, &m), "model");
  isoBodyDef b = iso_default_body_def();
  b.name = "box";
  b.mass = 2.0;
  b.inertia[0] = 2.0 / 12 * (0.0256 + 0.01), b.inertia[1] = 2.0 / 12 * (0.04 + 0.01), b.inertia[2] = 2.0 / 12 * (0.04 + 0.0256);
  check(iso_model_add_body(m, &b, NULL), "body");
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[2] = 0.05;
  check(iso_model_set_initial_state(m, 0, &x), "initial state");
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "box";
  g.body = 0;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = 0.2, g.size[1] = 0.16, g.size[2] = 0.1;
  g.compliance = hydro ? ISO_COMPLIANCE_COMPLIANT : ISO_COMPLIANCE_UNDEFINED;
  g.hydroelastic_modulus = 1e6;
  g.point_stiffness = 2e5;
  g.hunt_crossley_dissipation = 20;
  check(iso_model_add_geometry(m, &g, NULL), "geometry");
  g = iso_default_geometry_def();
  g.name = "ground";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = hydro ? ISO_COMPLIANCE_RIGID : ISO_COMPLIANCE_UNDEFINED;
  g.point_stiffness = 1e15; /* effectively rigid: the largest isobar accepts */
  check(iso_model_add_geometry(m, &g, NULL), "geometry");
  check(iso_model_compile(m), "compile");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.capacity.max_candidates = 64;
  sd.capacity.max_contacts = 64;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  for (int i = 0; i < 200; ++i) check(iso_sim_step(s), "settle");
  return s;
}

typedef struct result {
  double wsps, iters, stage[MAX_STAGES];
} result;

static result measure(int hydro, int worlds, int threads) {
  isoSim *s = box_scene(hydro, worlds, threads);
  check(iso_sim_set_stage_timing(s, 1), "timers");
  check(iso_sim_reset_stage_times(s), "timers");
  long long steps = 0, iters = 0;
  isoSolverStats st;
  double t0 = now(), t;
  do {
    check(iso_sim_step(s), "step");
    steps++;
    for (int w = 0; w < worlds; ++w) {
      check(iso_sim_get_solver_stats(s, w, &st), "stats");
      iters += st.iterations;
    }
    t = now() - t0;
  } while (t < 0.4 || steps < 5);
  result r;
  r.wsps = (double)worlds * steps / t;
  r.iters = (double)iters / ((double)worlds * steps);
  double sec[MAX_STAGES], total = 0;
  int n = 0;
  check(iso_sim_get_stage_times(s, sec, MAX_STAGES, &n), "stage times");
  if (n > MAX_STAGES) n = MAX_STAGES;
  for (int k = 0; k < n; ++k) total += sec[k];
  for (int k = 0; k < n; ++k) r.stage[k] = total > 0 ? sec[k] / total : 0;
  iso_sim_destroy(s);
  return r;
}

static int cmp(const void *a, const void *b) {
  double x = ((const result *)a)->wsps, y = ((const result *)b)->wsps;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 5;
  int max_worlds = argc > 3 ? atoi(argv[3]) : 4096;
  int counts[8], nc = 0;
  for (int w = 1; w <= max_worlds && nc < 8; w *= 4) counts[nc++] = w;
  if (counts[nc - 1] != max_worlds && nc < 8) counts[nc++] = max_worlds;
  result *res = (result *)calloc((size_t)2 * nc * reps, sizeof(result));
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < nc; ++i)
      for (int h = 1; h >= 0; --h) res[((size_t)h * nc + i) * reps + r] = measure(h, counts[i], threads);
  int nstage = iso_sim_stage_count() < MAX_STAGES ? iso_sim_stage_count() : MAX_STAGES;
  printf("contact,worlds,threads,median_world_steps_per_s,ns_per_world_step,sap_iterations");
  for (int k = 0; k < nstage; ++k) printf(",%s", iso_sim_stage_name(k));
  printf("\n");
  for (int h = 1; h >= 0; --h)
    for (int i = 0; i < nc; ++i) {
      result *x = res + ((size_t)h * nc + i) * reps;
      qsort(x, (size_t)reps, sizeof *x, cmp);
      result m = x[reps / 2];
      printf("%s,%d,%d,%.0f,%.1f,%.2f", h ? "hydroelastic" : "point", counts[i], threads, m.wsps, 1e9 / m.wsps, m.iters);
      for (int k = 0; k < nstage; ++k) printf(",%.3f", m.stage[k]);
      printf("\n");
    }
  free(res);
  return 0;
}
