/* Contact-surface throughput: faces per second for the hydroelastic stage (poses, broad phase,
 * BVH mid phase, narrow phase, compaction) on the CPU backend, for
 *   sphere–halfspace  compliant sphere tets against a rigid half-space
 *   box–halfspace     compliant medial-axis box against a rigid half-space
 *   sphere–sphere     two compliant spheres (tet–tet)
 *   box–box           two compliant boxes, one tilted (tet–tet, the "mesh–mesh" case)
 * at several resolutions and world counts. Each configuration is timed REPS times (interleaved
 * by repetition) and the median reported. Usage: bench_surfaces [threads] [reps] > out.csv */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isobar/isobar.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct config {
  const char *name;
  double hint;
  int worlds;
  int max_cand; /* per-world candidate capacity: the stage's memory is worlds × this × ~420 B */
  int max_face; /* per-world face (and constraint) capacity */
} config;

static isoGeometryDef geom(const char *name, int body, isoShape shape, double s0, double s1, double s2,
                           double hint) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = name;
  g.body = body;
  g.shape = shape;
  g.size[0] = s0, g.size[1] = s1, g.size[2] = s2;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 1e5;
  g.resolution_hint = hint;
  return g;
}

static int check(isoStatus st, const char *what) {
  if (st != ISO_OK) {
    fprintf(stderr, "bench_surfaces: %s: %s\n", what, iso_last_error());
    exit(1);
  }
  return 0;
}

/* Build the scene and a sim; returns the sim (model destroyed). */
static isoSim *build(const config *c, int threads) {
  isoModel *m = NULL;
  check(iso_model_create(NULL, &m), "model");
  isoBodyDef b = iso_default_body_def();
  b.name = "a";
  check(iso_model_add_body(m, &b, NULL), "body");
  int two = strstr(c->name, "sphere–sphere") || strstr(c->name, "box–box");
  if (two) {
    b.name = "b";
    check(iso_model_add_body(m, &b, NULL), "body");
  }
  isoGeometryDef g;
  if (strncmp(c->name, "sphere", 6) == 0) g = geom("a", 0, ISO_SHAPE_SPHERE, 0.1, 0, 0, c->hint);
  else g = geom("a", 0, ISO_SHAPE_BOX, 0.2, 0.16, 0.1, c->hint);
  check(iso_model_add_geometry(m, &g, NULL), "geometry");
  if (two) {
    g.name = "b";
    g.body = 1;
    check(iso_model_add_geometry(m, &g, NULL), "geometry");
  } else {
    g = iso_default_geometry_def();
    g.name = "ground";
    g.shape = ISO_SHAPE_HALFSPACE;
    g.compliance = ISO_COMPLIANCE_RIGID;
    check(iso_model_add_geometry(m, &g, NULL), "geometry");
  }
  check(iso_model_compile(m), "compile");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = c->worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.capacity.max_candidates = c->max_cand;
  sd.capacity.max_contacts = c->max_face;
  isoSim *s = NULL;
  check(iso_sim_create(m, &sd, &s), "sim");
  iso_model_destroy(m);
  /* poses: slightly different per world so no two worlds are the same problem */
  int nq = iso_sim_state_width(s, ISO_STATE_Q);
  double *q = calloc((size_t)c->worlds * nq, sizeof(double));
  check(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q), "state");
  for (int w = 0; w < c->worlds; ++w) {
    double *x = q + (size_t)w * nq, e = 1e-3 * (w % 7);
    double th = 0.05 + 0.01 * (w % 5);
    x[0] = cos(th), x[1] = sin(th) * 0.6, x[2] = 0, x[3] = sin(th) * 0.8;
    if (two) {
      x[6] = 0;
      x[7] = 1, x[8] = 0, x[9] = 0, x[10] = 0;
      x[11] = strncmp(c->name, "sphere", 6) == 0 ? 0.17 - e : 0.18 - e;
      x[12] = 0.01, x[13] = 0.005;
    } else {
      x[6] = (strncmp(c->name, "sphere", 6) == 0 ? 0.1 : 0.07) - 0.01 - e;
    }
  }
  check(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_all(), q), "state");
  free(q);
  return s;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 5;
  const config cfg[] = {
      {"sphere–halfspace", 0.04, 256, 128, 64},    {"sphere–halfspace", 0.04, 4096, 128, 64},
      {"sphere–halfspace", 0.02, 4096, 512, 128},  {"sphere–halfspace", 0.01, 1024, 2048, 512},
      {"box–halfspace", 1, 256, 64, 32},           {"box–halfspace", 1, 4096, 64, 32},
      {"box–halfspace", 1, 16384, 64, 32},         {"sphere–sphere", 0.04, 256, 4096, 256},
      {"sphere–sphere", 0.02, 64, 32768, 512},     {"box–box", 1, 256, 2048, 256},
      {"box–box", 1, 1024, 2048, 256},
  };
  const int nc = (int)(sizeof cfg / sizeof cfg[0]);
  double *rate = calloc((size_t)nc * reps, sizeof(double));
  long *faces = calloc((size_t)nc, sizeof(long));
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < nc; ++i) {
      isoSim *s = build(&cfg[i], threads);
      check(iso_sim_update_contact(s), "warm-up");
      long nf = 0;
      for (int w = 0; w < cfg[i].worlds; ++w) {
        int n = 0;
        iso_sim_contact_face_count(s, w, &n);
        nf += n;
      }
      faces[i] = nf;
      int iters = 1;
      double t0 = now(), t;
      for (;;) { /* at least 0.3 s */
        for (int k = 0; k < iters; ++k) check(iso_sim_update_contact(s), "update");
        t = now() - t0;
        if (t > 0.3) break;
        iters *= 2;
        t0 = now();
      }
      rate[(size_t)i * reps + r] = (double)nf * iters / t;
      iso_sim_destroy(s);
    }
  printf("scene,hint,worlds,threads,faces_per_world,median_faces_per_s,median_updates_per_s\n");
  for (int i = 0; i < nc; ++i) {
    qsort(rate + (size_t)i * reps, (size_t)reps, sizeof(double), cmp);
    double med = rate[(size_t)i * reps + reps / 2];
    printf("%s,%g,%d,%d,%.1f,%.0f,%.1f\n", cfg[i].name, cfg[i].hint, cfg[i].worlds, threads,
           (double)faces[i] / cfg[i].worlds, med, faces[i] ? med / (double)faces[i] : 0.0);
  }
  free(rate);
  free(faces);
  return 0;
}
