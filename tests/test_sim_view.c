/* Views (include/isobar/view.h): the sim's own arrays, no copy. A write through a view must be
 * what the next step reads, a view must describe the same values the copying getters return,
 * and its address must not move across steps and resets. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/support.h"

static isoModel *load(const char *rel) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path(rel), NULL, &m, NULL), ISO_OK, "%s", iso_last_error());
  return m;
}

Test(sim_view, names_are_listed_and_unknown_ones_refused) {
  cr_assert_gt(iso_view_count(), 0);
  cr_assert_null(iso_view_name(iso_view_count()));
  cr_assert_null(iso_view_name(-1));
  isoModel *m = load("examples/arm_pd.urdf");
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  isoView v;
  for (int k = 0; k < iso_view_count(); ++k)
    cr_assert_eq(iso_sim_view(s, iso_view_name(k), &v), ISO_OK, "%s: %s", iso_view_name(k), iso_last_error());
  cr_assert_eq(iso_sim_view(s, "qq", &v), ISO_ERR_NOT_FOUND);
  cr_assert_not_null(strstr(iso_last_error(), "'qq'"));
  cr_assert_eq(iso_sim_view(NULL, "q", &v), ISO_ERR_NULL);
  cr_assert_eq(iso_sim_view(s, NULL, &v), ISO_ERR_NULL);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Every state view holds, world by world, what iso_sim_get_state copies out. */
Test(sim_view, state_views_are_the_getters_values) {
  isoModel *m = load("examples/arm_pd.urdf");
  isoSim *s = test_sim(m, 3, ISO_BACKEND_CPU, 1);
  for (int i = 0; i < 20; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  static const char *names[] = {"q", "v", "time", "effort", "actuation", "joint_force"};
  static const isoStateField fields[] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_TIME, ISO_STATE_EFFORT,
                                         ISO_STATE_ACTUATION, ISO_STATE_JOINT_FORCE};
  for (int k = 0; k < 6; ++k) {
    isoView v;
    cr_assert_eq(iso_sim_view(s, names[k], &v), ISO_OK);
    cr_assert_eq(v.dtype, ISO_DTYPE_FLOAT64);
    cr_assert_eq(v.device, ISO_DEVICE_CPU);
    cr_assert_eq(v.shape[0], 3);
    int width = iso_sim_state_width(s, fields[k]);
    double got[3 * 16];
    cr_assert_leq(width, 16);
    cr_assert_eq(iso_sim_get_state(s, fields[k], iso_worlds_all(), got), ISO_OK);
    if (v.shape[1] == 0) { /* only a field the model keeps nothing for may be empty */
      cr_assert_eq(k, 5, "%s is empty", names[k]);
      continue;
    }
    cr_assert_eq(v.shape[1], width, "%s", names[k]);
    for (int w = 0; w < 3; ++w)
      for (int i = 0; i < width; ++i)
        cr_assert_eq(((double *)v.data)[w * v.strides[0] + i * v.strides[1]], got[w * width + i], "%s", names[k]);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* An effort written through the view is applied by the next step (the arm's actuators report
 * it as their actuation), in that world only, and the address survives steps and resets. */
Test(sim_view, writes_reach_the_step_and_addresses_stay) {
  isoModel *m = load("examples/arm_pd.urdf");
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  isoView e, a, q;
  cr_assert_eq(iso_sim_view(s, "effort", &e), ISO_OK);
  cr_assert_eq(iso_sim_view(s, "actuation", &a), ISO_OK);
  cr_assert_eq(iso_sim_view(s, "q", &q), ISO_OK);
  cr_assert(e.writable && !a.writable);
  cr_assert_eq(e.shape[1], 2);
  double *ed = (double *)e.data, *ad = (double *)a.data;
  /* without gains an actuator applies its effort as given (within its limit): the actuation
   * it reports is then the value written */
  const double no_gains[4] = {0, 0, 0, 0}; /* kp, kd of each of the two worlds */
  for (int k = 0; k < 2; ++k)
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_ACTUATOR_GAINS, k, iso_worlds_all(), no_gains), ISO_OK, "%s", iso_last_error());
  ed[1 * e.strides[0] + 0] = 0.75; /* world 1, shoulder */
  cr_assert_eq(iso_sim_step(s), ISO_OK);
  cr_assert_eq(ad[1 * a.strides[0] + 0], 0.75);
  cr_assert_eq(ad[0 * a.strides[0] + 0], 0.0);
  cr_assert_eq(ad[1 * a.strides[0] + 1], 0.0);
  for (int i = 0; i < 10; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  cr_assert_eq(iso_sim_reset(s, iso_worlds_all()), ISO_OK);
  isoView again;
  cr_assert_eq(iso_sim_view(s, "q", &again), ISO_OK);
  cr_assert_eq(again.data, q.data);
  cr_assert_eq(iso_sim_view(s, "effort", &again), ISO_OK);
  cr_assert_eq(again.data, e.data);
  cr_assert_eq(ed[e.strides[0]], 0.0, "a reset zeroes the inputs");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The solver's views are fields of one record per world: their strides must land on each
 * world's values as iso_sim_get_solver_stats reports them. */
Test(sim_view, solver_views_match_the_stats) {
  isoModel *m = load("examples/sphere_on_box.sdf");
  isoSim *s = test_sim(m, 3, ISO_BACKEND_CPU, 1);
  for (int i = 0; i < 400; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  isoView it, cv, rs, st;
  cr_assert_eq(iso_sim_view(s, "solver_iterations", &it), ISO_OK);
  cr_assert_eq(iso_sim_view(s, "solver_converged", &cv), ISO_OK);
  cr_assert_eq(iso_sim_view(s, "solver_residual", &rs), ISO_OK);
  cr_assert_eq(iso_sim_view(s, "status", &st), ISO_OK);
  cr_assert_eq(it.dtype, ISO_DTYPE_INT32);
  cr_assert_eq(st.dtype, ISO_DTYPE_UINT32);
  cr_assert_eq(it.shape[1], 1);
  int any = 0;
  for (int w = 0; w < 3; ++w) {
    isoSolverStats t;
    cr_assert_eq(iso_sim_get_solver_stats(s, w, &t), ISO_OK);
    cr_assert_eq(((int *)it.data)[w * it.strides[0]], t.iterations);
    cr_assert_eq(((int *)cv.data)[w * cv.strides[0]], t.converged);
    cr_assert_eq(((double *)rs.data)[w * rs.strides[0]], t.residual);
    uint32_t bits;
    cr_assert_eq(iso_sim_get_status(s, iso_worlds_one(w), &bits), ISO_OK);
    cr_assert_eq(((uint32_t *)st.data)[w * st.strides[0]], bits);
    any |= t.iterations > 0;
  }
  cr_assert(any, "the sphere rests on the box: the solver iterates");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A model with nothing for a view has width 0 and no data; names of items read back. */
Test(sim_view, empty_views_and_item_names) {
  isoModel *m = load("examples/sphere_on_box.sdf");
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  isoView v;
  cr_assert_eq(iso_sim_view(s, "effort", &v), ISO_OK);
  cr_assert_eq(v.shape[1], 0);
  cr_assert_null(v.data);
  cr_assert_eq(iso_sim_view(s, "vertex_position", &v), ISO_OK);
  cr_assert_eq(v.shape[1], 0);
  cr_assert_not_null(iso_model_item_name(m, ISO_ITEM_BODY, 0));
  cr_assert_null(iso_model_item_name(m, ISO_ITEM_BODY, iso_model_body_count(m)));
  cr_assert_null(iso_model_item_name(m, ISO_ITEM_JOINT, -1));
  cr_assert_null(iso_model_item_name(m, (isoItemKind)99, 0));
  cr_assert_null(iso_model_item_name(NULL, ISO_ITEM_BODY, 0));
  iso_sim_destroy(s);
  iso_model_destroy(m);
  m = load("examples/arm_pd.urdf");
  int j = -1;
  cr_assert_eq(iso_scene_find_joint(m, "shoulder", &j), ISO_OK);
  cr_assert_not_null(strstr(iso_model_item_name(m, ISO_ITEM_JOINT, j), "shoulder"));
  cr_assert_not_null(iso_model_item_name(m, ISO_ITEM_ACTUATOR, 0));
  iso_model_destroy(m);
}

/* On the CUDA backend a view names device memory; on the emulated device that is host memory
 * the emulation treats as the device's, and the values are the CPU backend's. */
Test(sim_view, cuda_views_name_the_device) {
  test_require_cuda_device();
  isoModel *m = load("examples/arm_pd.urdf");
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CUDA, 1);
  isoView v;
  cr_assert_eq(iso_sim_view(s, "q", &v), ISO_OK);
  cr_assert_eq(v.device, ISO_DEVICE_CUDA);
  cr_assert_eq(v.device_id, 0);
  cr_assert_eq(iso_sim_synchronize(s), ISO_OK);
  if (test_cuda_emulated()) { /* the emulated device's memory is the host's: compare values */
    isoSim *c = test_sim(m, 2, ISO_BACKEND_CPU, 1);
    for (int i = 0; i < 20; ++i) {
      cr_assert_eq(iso_sim_step(s), ISO_OK);
      cr_assert_eq(iso_sim_step(c), ISO_OK);
    }
    isoView vc;
    cr_assert_eq(iso_sim_view(s, "q", &v), ISO_OK);
    cr_assert_eq(iso_sim_view(c, "q", &vc), ISO_OK);
    cr_assert(test_same_bits((const double *)v.data, (const double *)vc.data, (int)(2 * v.shape[1])));
    iso_sim_destroy(c);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The per-body wrenches the step writes are the query's, for free bodies (the query sums Jᵀγ,
 * the stage f and r × f: the same terms in another order, so equal to rounding — 1e-12 of the
 * largest value) and for bodies on a jointed tree (the pick's fingers and its cube). */
static void wrenches_match_query(const char *rel, int steps) {
  isoModel *m = load(rel);
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  isoView v; /* viewed first: the stage runs from the first view on */
  cr_assert_eq(iso_sim_view(s, "body_contact_wrench", &v), ISO_OK);
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  const int nb = iso_sim_body_count(s);
  cr_assert_eq(v.shape[1], 6 * nb);
  double scale = 0;
  for (long i = 0; i < 2 * v.shape[1]; ++i) scale = fmax(scale, fabs(((double *)v.data)[i]));
  cr_assert_gt(scale, 0.1, "%s: the bodies are in contact", rel);
  for (int w = 0; w < 2; ++w)
    for (int b = 0; b < nb; ++b) {
      double q[6];
      cr_assert_eq(iso_sim_get_body_contact_wrench(s, w, b, q), ISO_OK);
      for (int k = 0; k < 6; ++k)
        cr_assert_float_eq(((double *)v.data)[w * v.strides[0] + 6 * b + k], q[k], 1e-12 * scale,
                           "%s world %d body %d component %d", rel, w, b, k);
    }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim_view, body_wrenches_are_the_querys) {
  wrenches_match_query("examples/stack_of_five_boxes.sdf", 200);
  wrenches_match_query("examples/pick.sdf", 400);
}

/* Newton's third law and statics: in a stack at rest on an anchored floor, the wrenches' forces
 * sum to the weight the floor carries (every box-box pair cancels exactly: both sides get ±f of
 * one evaluation). */
Test(sim_view, body_wrenches_balance_the_weight_at_rest) {
  isoModel *m = load("examples/stack_of_five_boxes.sdf");
  isoSim *s = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  isoView v;
  cr_assert_eq(iso_sim_view(s, "body_contact_wrench", &v), ISO_OK);
  for (int i = 0; i < 1500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  const int nb = iso_sim_body_count(s);
  double fz = 0, weight = 0, g[3];
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_one(0), g), ISO_OK);
  for (int b = 0; b < nb; ++b) {
    double mass;
    cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_BODY_MASS, b, iso_worlds_one(0), &mass), ISO_OK);
    weight += -mass * g[2];
    fz += ((double *)v.data)[6 * b + 5];
  }
  /* at rest the contact forces carry the weight; the stack still settles by ~1e-4 of it per
   * step after 1.5 s (its SAP velocities are not exactly zero), so 1e-3 relative */
  cr_assert_float_eq(fz, weight, 1e-3 * weight, "Σ f_z %g vs weight %g", fz, weight);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A sim that never views the wrenches does not compute them (the stage is skipped: the array
 * stays zero); viewing switches the stage on for the following steps. */
Test(sim_view, wrenches_are_computed_once_asked_for) {
  isoModel *m = load("examples/stack_of_five_boxes.sdf");
  isoSim *s = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  for (int i = 0; i < 100; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  isoView v;
  cr_assert_eq(iso_sim_view(s, "body_contact_wrench", &v), ISO_OK);
  for (long i = 0; i < v.shape[1]; ++i) cr_assert_eq(((double *)v.data)[i], 0.0);
  cr_assert_eq(iso_sim_step(s), ISO_OK);
  double q[6];
  cr_assert_eq(iso_sim_get_body_contact_wrench(s, 0, 0, q), ISO_OK);
  cr_assert_float_eq(((double *)v.data)[5], q[5], 1e-12 * fabs(q[5]));
  cr_assert_gt(fabs(q[5]), 1.0, "the bottom box carries the stack");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
