/* Sims of many worlds: independence, determinism, selections, per-world parameters, faults. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

static isoModel *tumbling(int nbody) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(nbody, 1e-3, &m), ISO_OK, "%s", iso_last_error());
  return m;
}

/* Give worlds 3, 5 and 11 their own gravity, mass, COM and inertia. */
static void randomise(isoSim *s) {
  int ws[3] = {3, 5, 11};
  double g[9] = {0, 0, -1.62, 0.5, 0, -9.81, 0, 0, -24.8};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_list(ws, 3), g), ISO_OK, "%s", iso_last_error());
  double mass[3] = {0.5, 2.0, 3.0}, com[9] = {0, 0, 0, 0.01, 0.02, 0.03, -0.05, 0, 0.01};
  double I[18] = {0.01, 0.02, 0.025, 0, 0, 0, 0.02, 0.02, 0.02, 0, 0, 0, 0.03, 0.01, 0.035, 0.001, 0, 0};
  for (int b = 0; b < iso_sim_body_count(s); ++b) {
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_MASS, b, iso_worlds_list(ws, 3), mass), ISO_OK);
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_COM, b, iso_worlds_list(ws, 3), com), ISO_OK);
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_INERTIA, b, iso_worlds_list(ws, 3), I), ISO_OK,
                 "%s", iso_last_error());
  }
}

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
}

/* All of q, v and time of world `w`. */
static void snapshot(const isoSim *s, int w, double *out) {
  int nq = iso_sim_state_width(s, ISO_STATE_Q), nv = iso_sim_state_width(s, ISO_STATE_V);
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), out);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), out + nq);
  iso_sim_get_state(s, ISO_STATE_TIME, iso_worlds_one(w), out + nq + nv);
}

Test(sim, world_in_batch_equals_world_alone_bit_for_bit) {
  isoModel *m = tumbling(3);
  const int N = 17, steps = 400;
  isoSim *batch = test_sim(m, N, ISO_BACKEND_CPU, 2);
  cr_assert_eq(iso_scene_tumbling_init(batch), ISO_OK);
  randomise(batch);
  int nq = iso_sim_state_width(batch, ISO_STATE_Q), nv = iso_sim_state_width(batch, ISO_STATE_V);
  double *q0 = calloc((size_t)N * nq, sizeof(double)), *v0 = calloc((size_t)N * nv, sizeof(double));
  iso_sim_get_state(batch, ISO_STATE_Q, iso_worlds_all(), q0);
  iso_sim_get_state(batch, ISO_STATE_V, iso_worlds_all(), v0);
  run(batch, steps);
  const int probe[4] = {0, 3, 5, 11};
  for (int i = 0; i < 4; ++i) {
    int k = probe[i];
    isoSim *alone = test_sim(m, 1, ISO_BACKEND_CPU, 1);
    iso_sim_set_state(alone, ISO_STATE_Q, iso_worlds_one(0), q0 + (size_t)k * nq);
    iso_sim_set_state(alone, ISO_STATE_V, iso_worlds_one(0), v0 + (size_t)k * nv);
    for (int p = 0; p < 4; ++p)
      for (int b = 0; b < (p == ISO_PARAM_GRAVITY ? 1 : 3); ++b) {
        double val[6];
        iso_sim_get_param(batch, (isoParam)p, b, iso_worlds_one(k), val);
        cr_assert_eq(iso_sim_set_param(alone, (isoParam)p, b, iso_worlds_one(0), val), ISO_OK);
      }
    run(alone, steps);
    double a[64], b[64];
    snapshot(batch, k, a);
    snapshot(alone, 0, b);
    cr_assert(memcmp(a, b, sizeof(double) * (size_t)(nq + nv + 1)) == 0, "world %d differs from itself alone", k);
    iso_sim_destroy(alone);
  }
  /* and the randomised worlds really did something different */
  double a[64], b[64];
  snapshot(batch, 0, a);
  snapshot(batch, 3, b);
  cr_assert(fabs(a[6] - b[6]) > 1e-3, "world 3 (moon gravity) should not fall like world 0");
  free(q0), free(v0);
  iso_sim_destroy(batch);
  iso_model_destroy(m);
}

static uint64_t hash_state(const isoSim *s) {
  int n = iso_sim_world_count(s);
  int w = iso_sim_state_width(s, ISO_STATE_Q) + iso_sim_state_width(s, ISO_STATE_V) + 1;
  double *x = calloc((size_t)n * w, sizeof(double));
  for (int k = 0; k < n; ++k) snapshot(s, k, x + (size_t)k * w);
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the raw bytes */
  const unsigned char *p = (const unsigned char *)x;
  for (size_t i = 0; i < sizeof(double) * (size_t)n * w; ++i) h = (h ^ p[i]) * 1099511628211ull;
  free(x);
  return h;
}

Test(sim, one_and_two_threads_are_bitwise_identical) {
  isoModel *m = tumbling(2);
  uint64_t h[3];
  for (int t = 1; t <= 3; ++t) {
    isoSim *s = test_sim(m, 257, ISO_BACKEND_CPU, t);
    cr_assert_eq(iso_sim_threads(s), t);
    iso_scene_tumbling_init(s);
    randomise(s);
    run(s, 300);
    h[t - 1] = hash_state(s);
    iso_sim_destroy(s);
  }
  cr_assert_eq(h[0], h[1], "1 and 2 threads differ");
  cr_assert_eq(h[0], h[2], "1 and 3 threads differ");
  iso_model_destroy(m);
}

Test(sim, selections_get_set_and_reset) {
  isoModel *m = tumbling(1);
  isoSim *s = test_sim(m, 6, ISO_BACKEND_CPU, 2);
  double q[6 * 7];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q);
  double v[6] = {1, 2, 3, 4, 5, 6}, vv[6 * 6];
  int list[2] = {4, 1};
  double two[12] = {1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(2), v), ISO_OK);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_list(list, 2), two), ISO_OK);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), vv);
  cr_assert_eq(vv[2 * 6 + 5], 6.0);
  cr_assert_eq(vv[4 * 6 + 0], 1.0, "list entry 0 goes to world 4");
  cr_assert_eq(vv[1 * 6 + 1], 2.0, "list entry 1 goes to world 1");
  cr_assert_eq(vv[0 * 6 + 0], 0.0, "unselected worlds keep their state");
  unsigned char mask[6] = {0, 1, 0, 0, 1, 0};
  double got[12];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_mask(mask), got), ISO_OK);
  cr_assert_eq(got[0], 0.0);
  cr_assert_eq(got[1], 2.0, "mask order is ascending: world 1 first");
  cr_assert_eq(got[6], 1.0);
  run(s, 10);
  unsigned char reset_mask[6] = {0, 0, 1, 0, 0, 0};
  cr_assert_eq(iso_sim_reset(s, iso_worlds_mask(reset_mask)), ISO_OK);
  double t[6];
  iso_sim_get_state(s, ISO_STATE_TIME, iso_worlds_all(), t);
  cr_assert_eq(t[2], 0.0, "reset world is back at time 0");
  cr_assert_float_eq(t[1], 0.01, 1e-15, "other worlds keep their time");
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(2), v);
  for (int i = 0; i < 6; ++i) cr_assert_eq(v[i], 0.0, "reset world is back at rest");
  /* quaternions are normalised on the way in */
  double qs[7] = {2, 0, 0, 0, 1, 2, 3};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(0), qs), ISO_OK);
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), qs);
  cr_assert_eq(qs[0], 1.0);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim, bad_state_and_selections_change_nothing) {
  isoModel *m = tumbling(1);
  isoSim *s = test_sim(m, 4, ISO_BACKEND_CPU, 1);
  iso_scene_tumbling_init(s);
  uint64_t before = hash_state(s);
  double bad[14] = {1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, NAN};
  int list[2] = {0, 3};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_list(list, 2), bad), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "world 3") != NULL, "%s", iso_last_error());
  double zq[7] = {0, 0, 0, 0, 0, 0, 0};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(1), zq), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "zero quaternion") != NULL, "%s", iso_last_error());
  double negt = -1;
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TIME, iso_worlds_one(1), &negt), ISO_ERR_INVALID);
  int dup[2] = {2, 2};
  double v12[12] = {0};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_list(dup, 2), v12), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "twice") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(4), v12), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "out of range") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_mask(NULL), v12), ISO_ERR_NULL);
  cr_assert_eq(iso_sim_set_state(s, (isoStateField)99, iso_worlds_one(0), v12), ISO_ERR_INVALID);
  cr_assert_eq(iso_sim_set_state(NULL, ISO_STATE_V, iso_worlds_one(0), v12), ISO_ERR_NULL);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(0), NULL), ISO_ERR_NULL);
  cr_assert_eq(hash_state(s), before, "rejected calls must not change the state");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim, per_world_parameters) {
  isoModel *m = tumbling(2);
  isoSim *s = test_sim(m, 5, ISO_BACKEND_CPU, 2);
  cr_assert_eq(iso_param_width(ISO_PARAM_BODY_INERTIA), 6);
  cr_assert_not(iso_sim_param_is_per_world(s, ISO_PARAM_BODY_MASS), "starts shared");
  double mass = 4.5;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_MASS, 1, iso_worlds_one(2), &mass), ISO_OK);
  cr_assert(iso_sim_param_is_per_world(s, ISO_PARAM_BODY_MASS));
  double all[5];
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_BODY_MASS, 1, iso_worlds_all(), all), ISO_OK);
  for (int w = 0; w < 5; ++w) cr_assert_eq(all[w], w == 2 ? 4.5 : 1.0, "world %d", w);
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_BODY_MASS, 0, iso_worlds_one(2), all), ISO_OK);
  cr_assert_eq(all[0], 1.0, "other bodies keep their mass");
  /* bad values: rejected, naming the world, nothing changed */
  int ws[2] = {0, 4};
  double masses[2] = {2.0, -1.0};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_MASS, 1, iso_worlds_list(ws, 2), masses), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "world 4") != NULL, "%s", iso_last_error());
  iso_sim_get_param(s, ISO_PARAM_BODY_MASS, 1, iso_worlds_one(0), all);
  cr_assert_eq(all[0], 1.0, "a rejected call must not write the valid entries either");
  double I[6] = {1, 1, 5, 0, 0, 0};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_INERTIA, 0, iso_worlds_one(1), I), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "triangle") != NULL, "%s", iso_last_error());
  cr_assert_not(iso_sim_param_is_per_world(s, ISO_PARAM_BODY_INERTIA), "a rejected call does not expand");
  double g[3] = {0, 0, INFINITY};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_one(1), g), ISO_ERR_INVALID);
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 1, iso_worlds_one(1), g), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "out of range") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_COM, 2, iso_worlds_one(1), g), ISO_ERR_INVALID);
  cr_assert_eq(iso_sim_set_param(s, (isoParam)17, 0, iso_worlds_one(1), g), ISO_ERR_INVALID);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim, nonfinite_world_is_frozen_and_others_unaffected) {
  isoModel *m = tumbling(1);
  isoSim *a = test_sim(m, 8, ISO_BACKEND_CPU, 2), *b = test_sim(m, 8, ISO_BACKEND_CPU, 2);
  iso_scene_tumbling_init(a);
  iso_scene_tumbling_init(b);
  /* A finite but absurd spin overflows to infinity within a step. */
  double v[6] = {1e300, 1e300, 1e300, 0, 0, 0};
  cr_assert_eq(iso_sim_set_state(a, ISO_STATE_V, iso_worlds_one(5), v), ISO_OK);
  run(a, 50);
  run(b, 50);
  uint32_t st[8];
  cr_assert_eq(iso_sim_get_status(a, iso_worlds_all(), st), ISO_OK);
  for (int w = 0; w < 8; ++w) {
    if (w == 5) {
      cr_assert(st[w] & ISO_WORLD_NONFINITE, "world 5 flagged");
      cr_assert(st[w] & ISO_WORLD_FROZEN, "world 5 frozen");
      continue;
    }
    cr_assert_eq(st[w], 0u, "world %d clean", w);
    double x[14], y[14];
    snapshot(a, w, x);
    snapshot(b, w, y);
    cr_assert(memcmp(x, y, sizeof x) == 0, "world %d must match the run without the faulty world", w);
  }
  double t;
  iso_sim_get_state(a, ISO_STATE_TIME, iso_worlds_one(5), &t);
  cr_assert_lt(t, 0.0015, "a frozen world's time stops (t = %g)", t);
  cr_assert_eq(iso_sim_reset(a, iso_worlds_one(5)), ISO_OK);
  iso_sim_get_status(a, iso_worlds_one(5), st);
  cr_assert_eq(st[0], 0u, "reset clears the status bits");
  run(a, 1);
  iso_sim_get_state(a, ISO_STATE_TIME, iso_worlds_one(5), &t);
  cr_assert_float_eq(t, 1e-3, 1e-15, "a reset world steps again");
  iso_sim_destroy(a);
  iso_sim_destroy(b);
  iso_model_destroy(m);
}

/* Every world starts where iso_model_set_initial_state put each body (a body never set starts at
 * rest at the origin), and a reset brings it back there exactly. */
Test(sim, worlds_start_and_reset_to_the_model_initial_state) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef bd = iso_default_body_def();
  int a = -1, b = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &a), ISO_OK);
  cr_assert_eq(iso_model_add_body(m, &bd, &b), ISO_OK);
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[0] = 0.5, x.position[2] = 2.0;
  x.quaternion[0] = 3.0, x.quaternion[1] = 4.0; /* stored as (0.6, 0.8, 0, 0) */
  x.angular_velocity[2] = 1.5;
  x.linear_velocity[1] = -0.25;
  cr_assert_eq(iso_model_set_initial_state(m, b, &x), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  const double q0[14] = {1, 0, 0, 0, 0, 0, 0, 0.6, 0.8, 0, 0, 0.5, 0, 2.0};
  const double v0[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1.5, 0, -0.25, 0};
  for (int pass = 0; pass < 2; ++pass) {
    for (int w = 0; w < 2; ++w) {
      double q[14], v[12];
      cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
      cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), v), ISO_OK);
      for (int i = 0; i < 14; ++i) cr_assert_eq(q[i], q0[i], "pass %d world %d q[%d] = %g", pass, w, i, q[i]);
      for (int i = 0; i < 12; ++i) cr_assert_eq(v[i], v0[i], "pass %d world %d v[%d] = %g", pass, w, i, v[i]);
    }
    for (int i = 0; i < 10; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
    cr_assert_eq(iso_sim_reset(s, iso_worlds_all()), ISO_OK);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim, creation_errors) {
  isoModel *m = tumbling(1);
  isoSimDef sd = iso_default_sim_def();
  isoSim *s = NULL;
  sd.worlds = 0;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "worlds = 0") != NULL, "%s", iso_last_error());
  sd = iso_default_sim_def();
  sd.backend = (isoBackendKind)7;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  cr_assert_eq(iso_sim_create(NULL, NULL, &s), ISO_ERR_NULL);
  cr_assert_eq(iso_sim_create(m, NULL, NULL), ISO_ERR_NULL);
  cr_assert_null(s, "failed creations leave the output alone");
  isoModel *raw = NULL;
  iso_model_create(NULL, &raw);
  cr_assert_eq(iso_sim_create(raw, NULL, &s), ISO_ERR_STATE);
  cr_assert(strstr(iso_last_error(), "not compiled") != NULL, "%s", iso_last_error());
  iso_model_destroy(raw);
  iso_sim_destroy(NULL);
  cr_assert_eq(iso_sim_step(NULL), ISO_ERR_NULL);
  iso_model_destroy(m);
}

/* Each grouped field out of range is refused, and the message names it by the path a caller
 * writes, so a user (or a binding) can tell which of the groups to fix. */
Test(sim, def_errors_name_the_field_path) {
  isoModel *m = tumbling(1);
  enum { NCASE = 8 };
  static const char *const path[NCASE] = {
      "capacity.max_contacts = -1",      "capacity.max_candidates = -3", "contact.surface_representation 5",
      "contact.approximation -1",        "solver.max_iterations = 0",   "solver.relative_tolerance 0",
      "solver.relative_tolerance inf",   "solver.on_failure 2"};
  for (int c = 0; c < NCASE; ++c) {
    isoSimDef sd = iso_default_sim_def();
    switch (c) {
    case 0: sd.capacity.max_contacts = -1; break;
    case 1: sd.capacity.max_candidates = -3; break;
    case 2: sd.contact.surface_representation = (isoSurfaceRepresentation)5; break;
    case 3: sd.contact.approximation = (isoContactApproximation)-1; break;
    case 4: sd.solver.max_iterations = 0; break;
    case 5: sd.solver.relative_tolerance = 0; break;
    case 6: sd.solver.relative_tolerance = INFINITY; break;
    default: sd.solver.on_failure = (isoSapOnFailure)2; break;
    }
    isoSim *s = NULL;
    cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID, "case %d (%s)", c, path[c]);
    cr_assert(strstr(iso_last_error(), path[c]) != NULL, "case %d: %s", c, iso_last_error());
    cr_assert_null(s);
  }
  iso_model_destroy(m);
}

/* The defaults are the documented ones (Drake's where the field says so). */
Test(sim, default_def_fills_every_group) {
  isoSimDef sd = iso_default_sim_def();
  cr_assert_eq(sd.worlds, 1);
  cr_assert_eq(sd.backend, ISO_BACKEND_AUTO);
  cr_assert_eq(sd.capacity.max_contacts, 0); /* automatic */
  cr_assert_eq(sd.capacity.max_candidates, 0);
  cr_assert_eq(sd.contact.surface_representation, ISO_SURFACE_POLYGON);
  cr_assert_eq(sd.contact.approximation, ISO_CONTACT_LAGGED);
  cr_assert_eq(sd.solver.max_iterations, 100);
  cr_assert_eq(sd.solver.relative_tolerance, 1e-6);
  cr_assert_eq(sd.solver.on_failure, ISO_SAP_ACCEPT);
}

Test(sim, cuda_backend_without_device_is_a_clear_error) {
  char why[256];
  if (test_cuda_device(why, sizeof why)) cr_skip_test("a CUDA device is present (%s)", why);
  isoModel *m = tumbling(1);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CUDA;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_ERR_BACKEND);
  cr_assert(strstr(iso_last_error(), "cuda") != NULL, "%s", iso_last_error());
  cr_assert_null(s);
  sd.backend = ISO_BACKEND_AUTO;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK);
  cr_assert_eq(iso_sim_backend(s), ISO_BACKEND_CPU);
  cr_assert(strstr(iso_sim_backend_reason(s), "auto chose cpu") != NULL, "%s", iso_sim_backend_reason(s));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* AUTO stays on the CPU below ISO_AUTO_CUDA_MIN_WORLDS worlds, whatever the machine has, and
 * says why; at that many worlds it asks the device (here, without one, the probe's reason). */
Test(sim, auto_keeps_small_batches_on_the_cpu) {
  isoModel *m = tumbling(1);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_AUTO;
  sd.worlds = 4;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_backend(s), ISO_BACKEND_CPU);
  const char *why = iso_sim_backend_reason(s);
  cr_assert(strstr(why, "auto chose cpu") && strstr(why, "4 worlds"), "%s", why);
  iso_sim_destroy(s);
  sd.worlds = ISO_AUTO_CUDA_MIN_WORLDS;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  why = iso_sim_backend_reason(s);
  cr_assert(strstr(why, "worlds, under") == NULL, "%d worlds are not a small batch: %s", sd.worlds, why);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim, cuda_matches_cpu) {
  test_require_cuda_device();
  isoModel *m = tumbling(2);
  isoSim *c = test_sim(m, 64, ISO_BACKEND_CPU, 2);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 64;
  sd.backend = ISO_BACKEND_CUDA;
  isoSim *g = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &g), ISO_OK, "%s", iso_last_error());
  iso_scene_tumbling_init(c), iso_scene_tumbling_init(g);
  randomise(c), randomise(g);
  run(c, 200), run(g, 200);
  for (int w = 0; w < 64; ++w) {
    double x[32], y[32];
    snapshot(c, w, x);
    snapshot(g, w, y);
    /* Without contraction (the emulation, or ISO_PARITY) the same bits. A module built with FMA
     * contraction differs by a few ulps per step over 200 steps. */
    if (test_cuda_exact()) cr_assert(test_same_bits(x, y, 27), "world %d: the CUDA backend differs", w);
    else
      for (int i = 0; i < 27; ++i) cr_assert_float_eq(x[i], y[i], 1e-9, "world %d value %d", w, i);
  }
  iso_sim_destroy(c), iso_sim_destroy(g);
  iso_model_destroy(m);
}

Test(sim, permuted_full_lists_go_to_the_right_worlds) {
  isoModel *m = tumbling(1);
  isoSim *s = test_sim(m, 4, ISO_BACKEND_CPU, 1);
  int order[4] = {0, 2, 1, 3};
  double t[4] = {10, 20, 30, 40}, got[4];
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TIME, iso_worlds_list(order, 4), t), ISO_OK);
  iso_sim_get_state(s, ISO_STATE_TIME, iso_worlds_all(), got);
  cr_assert_eq(got[0], 10);
  cr_assert_eq(got[1], 30, "list entry 1 goes to world 2");
  cr_assert_eq(got[2], 20);
  cr_assert_eq(got[3], 40);
  int rep[4] = {0, 0, 3, 3};
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_TIME, iso_worlds_list(rep, 4), got), ISO_OK);
  cr_assert_eq(got[0], 10);
  cr_assert_eq(got[1], 10, "a repeated world is read twice");
  cr_assert_eq(got[2], 40);
  cr_assert_eq(got[3], 40);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Getters take a const sim and keep no scratch in it, so two threads may read one sim at once.
 * Each thread reads its own list of worlds (reversed evens, odds) many times and must always get
 * exactly the rows of those worlds; a selection kept in the sim would be overwritten by the
 * other thread's between its resolution and its copy. */
typedef struct readerArg {
  const isoSim *s;
  int parity;
  const double *expect; /* (nworld, nq) */
  int bad;
} readerArg;

static void *reader(void *p) {
  readerArg *a = (readerArg *)p;
  int nw = iso_sim_world_count(a->s), nq = iso_sim_state_width(a->s, ISO_STATE_Q);
  int list[64], n = 0;
  for (int w = nw - 1; w >= 0; --w)
    if (w % 2 == a->parity) list[n++] = w;
  double *out = (double *)malloc(sizeof(double) * (size_t)(n * nq));
  double g[64];
  for (int rep = 0; rep < 2000 && !a->bad; ++rep) {
    if (iso_sim_get_state(a->s, ISO_STATE_Q, iso_worlds_list(list, n), out) != ISO_OK) a->bad = 1;
    for (int k = 0; k < n && !a->bad; ++k)
      if (memcmp(out + k * nq, a->expect + list[k] * nq, sizeof(double) * (size_t)nq) != 0) a->bad = 2;
    if (iso_sim_get_param(a->s, ISO_PARAM_GRAVITY, 0, iso_worlds_list(list, n < 21 ? n : 21), g) != ISO_OK) a->bad = 3;
  }
  free(out);
  return NULL;
}

Test(sim, const_getters_are_safe_from_two_threads) {
  isoModel *m = tumbling(2);
  isoSim *s = test_sim(m, 64, ISO_BACKEND_CPU, 1);
  randomise(s);
  run(s, 3); /* every world in a different state */
  int nq = iso_sim_state_width(s, ISO_STATE_Q);
  double *all = (double *)malloc(sizeof(double) * (size_t)(64 * nq));
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), all), ISO_OK);
  readerArg a[2] = {{s, 0, all, 0}, {s, 1, all, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) cr_assert_eq(pthread_create(&t[i], NULL, reader, &a[i]), 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  cr_expect_eq(a[0].bad, 0, "thread reading even worlds got wrong rows (%d)", a[0].bad);
  cr_expect_eq(a[1].bad, 0, "thread reading odd worlds got wrong rows (%d)", a[1].bad);
  free(all);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A shared (never written) parameter read for a mask returns the model's value for each world;
 * after writing two worlds, a mask read returns theirs in ascending order and the others'
 * shared value. */
Test(sim, parameter_reads_through_masks) {
  isoModel *m = tumbling(1);
  isoSim *s = test_sim(m, 8, ISO_BACKEND_CPU, 1);
  unsigned char mask[8] = {1, 0, 1, 0, 0, 0, 0, 1};
  double g[9];
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_mask(mask), g), ISO_OK);
  for (int k = 0; k < 3; ++k) cr_expect_eq(g[3 * k + 2], g[2]);
  int ws[2] = {7, 2};
  double set[6] = {0, 0, -1, 0, 0, -2};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_list(ws, 2), set), ISO_OK);
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_mask(mask), g), ISO_OK);
  cr_expect_eq(g[2], -9.81); /* world 0 kept the model's gravity */
  cr_expect_eq(g[5], -2);    /* world 2 */
  cr_expect_eq(g[8], -1);    /* world 7 */
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A parameter set between steps acts from the next step: the step's context, kept across steps,
 * is made again when a parameter gets per-world storage (and the shared one is freed). World 1
 * of a batch given its own gravity after 5 steps equals a lone world given it at the same
 * point, bit for bit, and parts from world 0, which kept the model's. */
Test(sim, parameters_set_between_steps_act_from_the_next) {
  isoModel *m = tumbling(2);
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1), *alone = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  const double g[3] = {0.5, 0, -3.7};
  run(s, 5);
  run(alone, 5);
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_one(1), g), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_param(alone, ISO_PARAM_GRAVITY, 0, iso_worlds_one(0), g), ISO_OK);
  run(s, 5);
  run(alone, 5);
  double a[64], b[64], c[64];
  snapshot(s, 1, a);
  snapshot(alone, 0, b);
  snapshot(s, 0, c);
  const int n = iso_sim_state_width(s, ISO_STATE_Q) + iso_sim_state_width(s, ISO_STATE_V) + 1;
  cr_assert(n <= 64);
  cr_expect_eq(memcmp(a, b, sizeof(double) * (size_t)n), 0, "world 1 does not step under its new gravity");
  cr_expect_neq(memcmp(a, c, sizeof(double) * (size_t)n), 0, "world 1 steps as world 0 does");
  iso_sim_destroy(s);
  iso_sim_destroy(alone);
  iso_model_destroy(m);
}

/* Stage timers: off at creation, and then the times are refused rather than read as zeros; on,
 * every stage of a contact step is named, the names are distinct, the times are non-negative
 * and add up to something after steps, and a reset zeroes them; off again, the times stay. */
Test(sim, stage_times) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_contact_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSim *s = test_sim(m, 4, ISO_BACKEND_CPU, 1);
  int n = iso_sim_stage_count();
  cr_assert(n > 0 && n <= 16);
  for (int k = 0; k < n; ++k) {
    cr_expect(strlen(iso_sim_stage_name(k)) > 0);
    for (int j = 0; j < k; ++j) cr_expect_str_neq(iso_sim_stage_name(k), iso_sim_stage_name(j));
  }
  cr_expect_str_eq(iso_sim_stage_name(n), "");
  double t[16], total = 0;
  int count = 0;
  run(s, 2);
  cr_expect_eq(iso_sim_get_stage_times(s, t, 16, &count), ISO_ERR_STATE);
  cr_expect(strstr(iso_last_error(), "iso_sim_set_stage_timing") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_stage_timing(s, 1), ISO_OK);
  run(s, 5);
  cr_assert_eq(iso_sim_get_stage_times(s, t, 16, &count), ISO_OK);
  cr_assert_eq(count, n);
  for (int k = 0; k < n; ++k) {
    cr_expect(t[k] >= 0);
    total += t[k];
  }
  cr_expect(total > 0);
  /* stages without work in this model (no deformable body, no pad) are not timed: exactly 0 */
  for (int k = 0; k < n; ++k) {
    const char *name = iso_sim_stage_name(k);
    if (!strncmp(name, "fem ", 4) || !strcmp(name, "tactile")) cr_expect_eq(t[k], 0.0, "stage %s", name);
    if (!strcmp(name, "solve") || !strcmp(name, "kinematics")) cr_expect_gt(t[k], 0.0, "stage %s", name);
  }
  cr_assert_eq(iso_sim_set_stage_timing(s, 0), ISO_OK);
  double kept[16];
  cr_assert_eq(iso_sim_get_stage_times(s, kept, 16, &count), ISO_OK);
  run(s, 3);
  cr_assert_eq(iso_sim_get_stage_times(s, t, 16, &count), ISO_OK);
  for (int k = 0; k < n; ++k) cr_expect_eq(t[k], kept[k], "stage %s timed while off", iso_sim_stage_name(k));
  cr_assert_eq(iso_sim_reset_stage_times(s), ISO_OK);
  cr_assert_eq(iso_sim_get_stage_times(s, t, 16, &count), ISO_OK);
  for (int k = 0; k < n; ++k) cr_expect_eq(t[k], 0.0);
  cr_expect_eq(iso_sim_get_stage_times(s, NULL, 4, &count), ISO_ERR_NULL);
  cr_expect_eq(iso_sim_set_stage_timing(NULL, 1), ISO_ERR_NULL);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
