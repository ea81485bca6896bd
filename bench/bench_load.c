/* Scene load time: iso_scene_load (parse, frame resolution, model build and compile) of one
 * scene file, repeated REPS times, the median and every time printed. With the scenes of
 * bench/gen_many_bodies.py it shows how loading scales with the number of bodies; before name
 * lookups were hashed it grew with the square of it. Usage: bench_load SCENE [reps] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_load SCENE [reps]\n");
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (reps < 1 || reps > 100) reps = 3;
  double t[100];
  int bodies = 0;
  for (int r = 0; r < reps; ++r) {
    isoModel *m = NULL;
    isoLoadReport *rep = NULL;
    double t0 = now();
    isoStatus st = iso_scene_load(argv[1], NULL, &m, &rep);
    t[r] = now() - t0;
    if (st != ISO_OK) {
      fprintf(stderr, "bench_load: %s (%s)\n", iso_last_error(), iso_status_string(st));
      return 1;
    }
    bodies = iso_model_body_count(m);
    iso_model_destroy(m);
    iso_load_report_free(rep);
  }
  double sorted[100];
  for (int r = 0; r < reps; ++r) sorted[r] = t[r];
  qsort(sorted, (size_t)reps, sizeof *sorted, cmp);
  printf("scene,bodies,reps,median_s");
  for (int r = 0; r < reps; ++r) printf(",run%d_s", r + 1);
  printf("\n%s,%d,%d,%.4f", argv[1], bodies, reps, sorted[reps / 2]);
  for (int r = 0; r < reps; ++r) printf(",%.4f", t[r]);
  printf("\n");
  return 0;
}
