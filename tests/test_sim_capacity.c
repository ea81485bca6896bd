/* Per-world capacities: the automatic ones fit the scenes that froze at the former fixed
 * defaults (the coin, a finely meshed compliant ball pressed into its floor) and keep the
 * five-box stack within its memory target; iso_sim_reserve grows a sim between steps and it
 * steps on bitwise as one created with the larger capacities. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/run_hash.h"
#include "support/support.h"

static isoModel *load(const char *path) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(path, NULL, &m, NULL), ISO_OK, "%s: %s", path, iso_last_error());
  return m;
}

static isoSim *make(const isoModel *m, int worlds, int max_contacts, int max_candidates) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.capacity.max_contacts = max_contacts;
  sd.capacity.max_candidates = max_candidates;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

/* Step n times; every world stays free of fault bits; returns the most faces any world had. */
static int step_clean(isoSim *s, int n) {
  int most = 0, nw = iso_sim_world_count(s);
  uint32_t *st = calloc((size_t)nw, sizeof *st);
  for (int k = 0; k < n; ++k) {
    cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), st), ISO_OK);
    for (int w = 0; w < nw; ++w) {
      cr_assert_eq(st[w], 0u, "step %d world %d: status %#x", k, w, st[w]);
      int f = 0;
      cr_assert_eq(iso_sim_contact_face_count(s, w, &f), ISO_OK);
      if (f > most) most = f;
    }
  }
  free(st);
  return most;
}

Test(sim_capacity, coin_runs_at_automatic_capacities) {
  isoModel *m = load(test_source_path("examples/coin_slide_spin.sdf"));
  isoSim *s = make(m, 2, 0, 0);
  const double v[6] = {0, 0, 40, 0.5, 0, 0}; /* spin 40 rad/s about z, slide 0.5 m/s along x */
  double vv[12];
  memcpy(vv, v, sizeof v);
  memcpy(vv + 6, v, sizeof v);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_all(), vv), ISO_OK);
  /* 378 polygons, half of them slivers of zero area (which the surface drops: 189 faces); the
   * fine ball below is the scene past the floor of 256 */
  cr_assert_gt(step_clean(s, 20), 150);
  /* the bound: every tet of the coin's mesh crossing the floor makes at most one polygon */
  cr_assert_geq(iso_sim_capacity(s).max_contacts, 378);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A ball of 8192 tets pressed 2 cm into a rigid floor: about a thousand polygons. */
Test(sim_capacity, fine_compliant_mesh_runs_at_automatic_capacities) {
  char dir[256], path[512];
  test_tmp_template(dir, sizeof dir, "isobar_capacity_");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/ball.sdf", dir);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\" xmlns:drake=\"http://drake.mit.edu\"><world name=\"w\">\n"
        "<physics name=\"p\" default=\"true\" type=\"ode\"><max_step_size>0.001</max_step_size></physics>\n"
        "<model name=\"floor\"><static>true</static><link name=\"floor\"><collision name=\"plane\">"
        "<geometry><plane><normal>0 0 1</normal><size>4 4</size></plane></geometry>"
        "<drake:proximity_properties><drake:rigid_hydroelastic/></drake:proximity_properties></collision>"
        "</link></model>\n"
        "<model name=\"ball\"><pose>0 0 0.08 0 0 0</pose><link name=\"ball\"><inertial><mass>1</mass><inertia>"
        "<ixx>0.004</ixx><iyy>0.004</iyy><izz>0.004</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>"
        "<collision name=\"ball\"><geometry><sphere><radius>0.1</radius></sphere></geometry>"
        "<drake:proximity_properties><drake:compliant_hydroelastic/>"
        "<drake:hydroelastic_modulus>1e5</drake:hydroelastic_modulus>"
        "<drake:mesh_resolution_hint>0.005</drake:mesh_resolution_hint></drake:proximity_properties>"
        "</collision></link></model>\n</world></sdf>\n",
        f);
  cr_assert_eq(fclose(f), 0);
  isoModel *m = load(path);
  isoSim *s = make(m, 1, 0, 0);
  cr_assert_gt(step_clean(s, 3), 900);
  iso_sim_destroy(s);
  iso_model_destroy(m);
  test_tmpdir_remove(dir);
}

/* Automatic capacities of the stack stay at the floors: its memory target holds. */
Test(sim_capacity, stack_keeps_its_memory_at_automatic_capacities) {
  isoModel *m = load(test_source_path("examples/stack_of_five_boxes.sdf"));
  isoSim *s = make(m, 64, 0, 0);
  size_t bytes = 0;
  cr_assert_eq(iso_sim_memory_per_world(s, &bytes), ISO_OK);
  cr_assert_leq(bytes, 100 * 1024);
  cr_assert_eq(iso_sim_capacity(s).max_contacts, 256);
  cr_assert_eq(iso_sim_capacity(s).max_candidates, 2048);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Small capacities for the first steps, grown, then on: bitwise the run of a sim created with
 * the larger capacities, for the state and for the last step's contact surfaces. */
static void reserve_matches(const char *scene, int worlds, int small_c, int small_k, int before, int after) {
  isoModel *m = load(test_source_path(scene));
  isoSim *a = make(m, worlds, small_c, small_k), *b = make(m, worlds, 600, 4096);
  /* the worlds differ: each body 0 starts with its own small velocity */
  const int nv = iso_sim_state_width(a, ISO_STATE_V);
  double *v = calloc((size_t)(worlds * nv), sizeof *v);
  cr_assert_eq(iso_sim_get_state(a, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  for (int w = 0; w < worlds; ++w) v[(size_t)w * nv + 3] += 0.01 * w;
  cr_assert_eq(iso_sim_set_state(a, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  cr_assert_eq(iso_sim_set_state(b, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  free(v);
  step_clean(a, before);
  step_clean(b, before);
  int fa = -1, fb = -2;
  iso_sim_contact_face_count(a, 0, &fa);
  cr_assert_eq(iso_sim_reserve(a, 600, 4096), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_capacity(a).max_contacts, 600);
  cr_assert_eq(iso_sim_capacity(a).max_candidates, 4096);
  /* what the last step found is still there */
  iso_sim_contact_face_count(a, 0, &fb);
  cr_assert_eq(fa, fb);
  size_t ba = 0, bb = 0;
  iso_sim_memory_per_world(a, &ba);
  iso_sim_memory_per_world(b, &bb);
  cr_assert_eq(ba, bb);
  cr_assert_eq(run_hash_final_state(a), run_hash_final_state(b), "%s: state after %d steps", scene, before);
  cr_assert_gt(step_clean(a, after), small_c, "%s: the grown sim uses its new room", scene);
  step_clean(b, after);
  cr_assert_eq(run_hash_final_state(a), run_hash_final_state(b), "%s: state after the steps past the reserve",
               scene);
  for (int w = 0; w < worlds; ++w) {
    cr_assert_eq(iso_sim_contact_face_count(a, w, &fa), ISO_OK);
    cr_assert_eq(iso_sim_contact_face_count(b, w, &fb), ISO_OK);
    cr_assert_eq(fa, fb);
  }
  iso_sim_destroy(a);
  iso_sim_destroy(b);
  iso_model_destroy(m);
}

Test(sim_capacity, reserve_steps_on_as_a_sim_created_larger) {
  /* the stack makes 16, 82, 145 faces at its first steps, 181 later (box–box pairs) */
  reserve_matches("examples/stack_of_five_boxes.sdf", 3, 100, 1100, 1, 30);
}

Test(sim_capacity, reserve_keeps_jointed_dense_blocks) {
  /* jointed: constraints carry dense Jacobian blocks, whose pool grows with the capacity; it
   * falls onto the table and makes 72 faces by step 200 */
  reserve_matches("examples/dumbbell_on_table.urdf", 2, 40, 300, 2, 200);
}

Test(sim_capacity, reserve_checks_and_never_shrinks) {
  isoModel *m = load(test_source_path("examples/compliant_box_on_plane.sdf"));
  isoSim *s = make(m, 1, 300, 3000);
  cr_assert_eq(iso_sim_reserve(NULL, 1, 1), ISO_ERR_NULL);
  cr_assert_eq(iso_sim_reserve(s, -1, 1), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "max_contacts = -1") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_sim_reserve(s, 10, 0), ISO_OK);
  cr_assert_eq(iso_sim_capacity(s).max_contacts, 300);
  cr_assert_eq(iso_sim_capacity(s).max_candidates, 3000);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A world frozen by an overflow stays frozen through a reserve; reset, it runs at the new room. */
Test(sim_capacity, overflowed_world_runs_again_after_reserve_and_reset) {
  isoModel *m = load(test_source_path("examples/coin_slide_spin.sdf"));
  isoSim *s = make(m, 1, 64, 0);
  for (int k = 0; k < 3; ++k) cr_assert_eq(iso_sim_step(s), ISO_OK);
  uint32_t st = 0;
  iso_sim_get_status(s, iso_worlds_all(), &st);
  cr_assert(st & ISO_WORLD_OVERFLOW);
  int nc = 0, nf = 0;
  cr_assert_eq(iso_sim_get_overflow(s, 0, &nc, &nf, NULL), ISO_OK);
  cr_assert_gt(nf, 64);
  cr_assert_eq(iso_sim_reserve(s, nf, nc), ISO_OK);
  iso_sim_get_status(s, iso_worlds_all(), &st);
  cr_assert(st & ISO_WORLD_FROZEN);
  cr_assert_eq(iso_sim_reset(s, iso_worlds_all()), ISO_OK);
  step_clean(s, 5);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
