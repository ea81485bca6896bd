/* Faults named by their cause: a world whose state runs away (finite, but past the documented
 * bounds of ISO_WORLD_RUNAWAY) is frozen with that bit before the solver sees it, not reported
 * as a failed factorisation or left to turn into garbage, and the other worlds step on bitwise
 * as without it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "isobar/scenes.h"
#include "support/support.h"

static isoSim *make(const isoModel *m, int worlds) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

/* Two sims of `worlds` worlds; in the first, world `bad` gets `value` in coordinate `index` of
 * `field`. After `steps` steps the bad world has exactly ISO_WORLD_RUNAWAY | ISO_WORLD_FROZEN and
 * the state it was given; every other world matches the second sim bit for bit. */
static void runaway_is_isolated(const isoModel *m, int worlds, int bad, isoStateField field, int index,
                                double value, int steps, void (*init)(isoSim *)) {
  isoSim *a = make(m, worlds), *b = make(m, worlds);
  if (init) {
    init(a);
    init(b);
  }
  const int nq = iso_sim_state_width(a, ISO_STATE_Q), nv = iso_sim_state_width(a, ISO_STATE_V);
  const int width = field == ISO_STATE_Q ? nq : nv;
  double *x = calloc((size_t)(worlds * width), sizeof *x);
  cr_assert_eq(iso_sim_get_state(a, field, iso_worlds_all(), x), ISO_OK);
  x[(size_t)bad * width + index] = value;
  cr_assert_eq(iso_sim_set_state(a, field, iso_worlds_all(), x), ISO_OK);
  double *given = calloc((size_t)width, sizeof *given);
  cr_assert_eq(iso_sim_get_state(a, field, iso_worlds_one(bad), given), ISO_OK);
  for (int k = 0; k < steps; ++k) {
    cr_assert_eq(iso_sim_step(a), ISO_OK);
    cr_assert_eq(iso_sim_step(b), ISO_OK);
  }
  uint32_t *st = calloc((size_t)worlds, sizeof *st);
  cr_assert_eq(iso_sim_get_status(a, iso_worlds_all(), st), ISO_OK);
  for (int w = 0; w < worlds; ++w)
    cr_assert_eq(st[w], w == bad ? (ISO_WORLD_RUNAWAY | ISO_WORLD_FROZEN) : 0u, "world %d: %#x", w, st[w]);
  /* frozen at the state it was given: the step that found it changed nothing */
  double *now = calloc((size_t)width, sizeof *now);
  cr_assert_eq(iso_sim_get_state(a, field, iso_worlds_one(bad), now), ISO_OK);
  cr_assert_eq(memcmp(now, given, sizeof(double) * (size_t)width), 0);
  for (int f = 0; f < 2; ++f) {
    const isoStateField fld = f ? ISO_STATE_V : ISO_STATE_Q;
    const int n = f ? nv : nq;
    double *xa = calloc((size_t)(worlds * n), sizeof *xa), *xb = calloc((size_t)(worlds * n), sizeof *xb);
    cr_assert_eq(iso_sim_get_state(a, fld, iso_worlds_all(), xa), ISO_OK);
    cr_assert_eq(iso_sim_get_state(b, fld, iso_worlds_all(), xb), ISO_OK);
    for (int w = 0; w < worlds; ++w)
      if (w != bad)
        cr_assert_eq(memcmp(xa + (size_t)w * n, xb + (size_t)w * n, sizeof(double) * (size_t)n), 0,
                     "world %d field %d differs", w, f);
    free(xa);
    free(xb);
  }
  free(now);
  free(st);
  free(given);
  free(x);
  iso_sim_destroy(a);
  iso_sim_destroy(b);
}

/* A box of the stack spun at 2e4 rad/s while in contact (formerly "not SPD" or nothing). */
Test(world_faults, runaway_spin_in_contact_is_flagged_and_isolated) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path("examples/stack_of_five_boxes.sdf"), NULL, &m, NULL), ISO_OK);
  runaway_is_isolated(m, 3, 1, ISO_STATE_V, 2, 2e4, 10, NULL);
  iso_model_destroy(m);
}

/* A free body 2,000 km away. */
Test(world_faults, runaway_position_is_flagged_and_isolated) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path("examples/stack_of_five_boxes.sdf"), NULL, &m, NULL), ISO_OK);
  runaway_is_isolated(m, 3, 2, ISO_STATE_Q, 4, 2e6, 5, NULL);
  iso_model_destroy(m);
}

static void tumbling_init(isoSim *s) { cr_assert_eq(iso_scene_tumbling_init(s), ISO_OK); }

/* Free bodies with nothing to touch: the same check runs. */
Test(world_faults, runaway_speed_of_a_free_body_is_flagged) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(2, 1e-3, &m), ISO_OK);
  runaway_is_isolated(m, 4, 0, ISO_STATE_V, 9, -3e4, 5, tumbling_init);
  iso_model_destroy(m);
}

/* Speeds below the bound are left alone: a world at 9,000 m/s is no fault. */
Test(world_faults, fast_but_bounded_is_no_fault) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(1, 1e-3, &m), ISO_OK);
  isoSim *s = make(m, 1);
  double v[6] = {0, 0, 0, 9000, 0, 0};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  for (int k = 0; k < 3; ++k) cr_assert_eq(iso_sim_step(s), ISO_OK);
  uint32_t st = 1;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_assert_eq(st, 0u);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
