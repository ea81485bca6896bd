/* The pick scene: a jointed gripper closes on a compliant cube with PD actuators under effort
 * limits and lifts it against gravity — hydroelastic contact through the tree's Jacobians. */
#include <criterion/criterion.h>
#include <math.h>

#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

/* Cube z (q[6]) and lift (q[7]) of world w. */
static void heights(const isoSim *s, int w, double *cube, double *lift) {
  double q[16];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
  *cube = q[6], *lift = q[7];
}

static void run_to(isoSim *s, int *step, double t_end) {
  for (; *step * 1e-3 < t_end - 1e-9; ++*step) {
    cr_assert_eq(iso_scene_pick_targets(s, *step * 1e-3), ISO_OK);
    cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  }
}

Test(scene_pick, the_gripper_lifts_the_cube_without_slip) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_pick_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSim *s = test_sim(m, 1, ISO_BACKEND_CPU, 2);
  int step = 0;
  double cube0, lift0, cube1, lift1;
  heights(s, 0, &cube0, &lift0);
  run_to(s, &step, 0.6); /* descended, closed, the cube just off the ground */
  heights(s, 0, &cube1, &lift1);
  run_to(s, &step, 1.5);
  double cube2, lift2;
  heights(s, 0, &cube2, &lift2);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_one(0), &st), ISO_OK);
  cr_assert_eq(st, 0u, "status bits %#x", st);
  /* lifted with the carriage: the lift target rises 10 cm after the grasp */
  cr_assert_gt(cube2 - cube0, 0.09, "the cube rose %.4f m", cube2 - cube0);
  /* Slip: how far the cube moved relative to the carriage while carried. SAP's regularised
   * friction lets a held contact creep at most at the stiction tolerance (1e-4 m/s) times the
   * ratio of tangential to limiting force (< 1 here: 8 N of grip and friction 1 against 1 N
   * of weight), so over 0.9 s at most 0.09 mm; the compliant cube also settles elastically by
   * a fraction of its 1 mm squeeze as the load moves from ground to fingers. 0.3 mm bounds
   * both; a grasp that fails slides centimetres. */
  const double slip = fabs((cube2 - lift2) - (cube1 - lift1));
  cr_assert_lt(slip, 3e-4, "the cube slipped %.3g m in the grip", slip);
  /* the fingers hold within their effort limit (8 N) */
  double a[3];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_ACTUATION, iso_worlds_one(0), a), ISO_OK);
  cr_assert_leq(fabs(a[1]), 8 * (1 + 1e-12));
  cr_assert_leq(fabs(a[2]), 8 * (1 + 1e-12));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(scene_pick, cuda_matches_cpu) {
  test_require_cuda_device();
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_pick_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSim *c = test_sim(m, 3, ISO_BACKEND_CPU, 2), *g = test_sim(m, 3, ISO_BACKEND_CUDA, 2);
  int sc = 0, sg = 0;
  run_to(c, &sc, 0.7);
  run_to(g, &sg, 0.7);
  double qc[3 * 10], qg[3 * 10];
  cr_assert_eq(iso_sim_get_state(c, ISO_STATE_Q, iso_worlds_all(), qc), ISO_OK);
  cr_assert_eq(iso_sim_get_state(g, ISO_STATE_Q, iso_worlds_all(), qg), ISO_OK);
  if (test_cuda_exact()) {
    /* the same item code in the same order, nothing contracted: the same bits */
    cr_assert(test_same_bits(qc, qg, 30), "the CUDA backend differs from the CPU");
  } else {
    /* FMA contraction (ISO_PARITY=OFF); 700 contact steps keep it below 1e-6 m */
    for (int i = 0; i < 30; ++i) cr_assert_float_eq(qc[i], qg[i], 1e-6, "q[%d]", i);
  }
  iso_sim_destroy(c);
  iso_sim_destroy(g);
  iso_model_destroy(m);
}
