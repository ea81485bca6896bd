/* Joints, actuators and couplers in the model builder: checks at the door (each naming the
 * item, leaving the model unchanged), the trees and the q/v layout decided at compile. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"

static isoModel *model_with_bodies(int n) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  for (int i = 0; i < n; ++i) {
    isoBodyDef bd = iso_default_body_def();
    cr_assert_eq(iso_model_add_body(m, &bd, NULL), ISO_OK);
  }
  return m;
}

static void expect_fail(isoStatus st, isoStatus want, const char *needle) {
  cr_assert_eq(st, want, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
}

Test(model_joint, type_sizes) {
  cr_assert_eq(iso_joint_type_nq(ISO_JOINT_REVOLUTE), 1);
  cr_assert_eq(iso_joint_type_nv(ISO_JOINT_BALL), 3);
  cr_assert_eq(iso_joint_type_nq(ISO_JOINT_BALL), 4);
  cr_assert_eq(iso_joint_type_nq(ISO_JOINT_FLOATING), 7);
  cr_assert_eq(iso_joint_type_nv(ISO_JOINT_FIXED), 0);
  cr_assert_eq(iso_joint_type_nq((isoJointType)17), 0);
  cr_assert_str_eq(iso_joint_type_name(ISO_JOINT_PRISMATIC), "prismatic");
}

Test(model_joint, bad_joints_are_rejected_by_name_and_change_nothing) {
  isoModel *m = model_with_bodies(3);
  isoJointDef j = iso_default_joint_def();
  j.name = "elbow";
  j.parent = 1, j.child = 0;
  int id = -7;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "must be added before the child");
  j.parent = 0, j.child = 5;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "joint 'elbow': child body 5");
  j.child = 1;
  j.axis[0] = j.axis[1] = j.axis[2] = 0;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "axis");
  j.axis[2] = 1;
  j.position_lower = 1, j.position_upper = -1;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "limits");
  j.position_lower = -1;
  j.damping = -0.5;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "damping");
  j.damping = 0;
  j.parent_quaternion[0] = 0;
  expect_fail(iso_model_add_joint(m, &j, &id), ISO_ERR_INVALID, "quaternion");
  cr_assert_eq(iso_model_joint_count(m), 0, "rejected joints must not be added");
  cr_assert_eq(id, -7);
  j.parent_quaternion[0] = 2; /* normalised when added */
  cr_assert_eq(iso_model_add_joint(m, &j, &id), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(id, 0);
  isoJointDef back;
  cr_assert_eq(iso_model_get_joint(m, 0, &back), ISO_OK);
  cr_assert_eq(back.parent_quaternion[0], 1.0);
  j.name = "elbow2";
  expect_fail(iso_model_add_joint(m, &j, NULL), ISO_ERR_INVALID, "already the child of joint 'elbow'");
  j.name = "elbow", j.child = 2;
  expect_fail(iso_model_add_joint(m, &j, NULL), ISO_ERR_INVALID, "already exists");
  iso_model_destroy(m);
}

Test(model_joint, actuators_and_couplers_are_checked) {
  isoModel *m = model_with_bodies(3);
  isoJointDef j = iso_default_joint_def();
  j.name = "hinge", j.child = 0;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  j.name = "ball", j.type = ISO_JOINT_BALL, j.parent = 0, j.child = 1;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  isoActuatorDef a = iso_default_actuator_def();
  a.joint = 1;
  expect_fail(iso_model_add_actuator(m, &a, NULL), ISO_ERR_INVALID, "is ball");
  a.joint = 0, a.effort_limit = 0;
  expect_fail(iso_model_add_actuator(m, &a, NULL), ISO_ERR_INVALID, "effort_limit");
  a.effort_limit = 2, a.kp = -1;
  expect_fail(iso_model_add_actuator(m, &a, NULL), ISO_ERR_INVALID, "gains");
  a.kp = 10;
  int id = -1;
  cr_assert_eq(iso_model_add_actuator(m, &a, &id), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(id, 0);
  cr_assert_eq(iso_model_find_actuator(m, "hinge", &id), ISO_OK, "an unnamed actuator takes its joint's name");
  expect_fail(iso_model_add_actuator(m, &a, NULL), ISO_ERR_INVALID, "already has actuator");
  isoCouplerDef c = iso_default_coupler_def();
  expect_fail(iso_model_add_coupler(m, &c, NULL), ISO_ERR_INVALID, "cannot follow itself");
  c.leader = 1;
  expect_fail(iso_model_add_coupler(m, &c, NULL), ISO_ERR_INVALID, "revolute or prismatic");
  cr_assert_eq(iso_model_coupler_count(m), 0);
  iso_model_destroy(m);
}

/* Bodies 0 (free), 1 -> 2 -> 3 (a revolute chain off the world, then a ball), 4 (free),
 * 5 (prismatic off body 1's tree? no: off the world). Trees by root: {0}, {1, 2, 3}, {4}, {5}. */
Test(model_joint, trees_lay_out_q_and_v_tree_by_tree) {
  isoModel *m = model_with_bodies(6);
  isoJointDef j = iso_default_joint_def();
  j.name = "shoulder", j.parent = -1, j.child = 1;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  j.name = "wrist", j.type = ISO_JOINT_BALL, j.parent = 2, j.child = 3;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  j.name = "elbow", j.type = ISO_JOINT_REVOLUTE, j.parent = 1, j.child = 2;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  j.name = "slider", j.type = ISO_JOINT_PRISMATIC, j.parent = -1, j.child = 5;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  cr_assert_eq(iso_model_nq(m), 0, "no layout before compile");
  isoSlice q, v;
  cr_assert_eq(iso_model_joint_slice(m, 0, &q, &v), ISO_ERR_STATE);
  const double q_wrist[4] = {0, 0, 0, 3}; /* normalised to (0, 0, 0, 1) */
  cr_assert_eq(iso_model_set_joint_state(m, 1, q_wrist, NULL), ISO_OK);
  isoFreeBodyState x = iso_default_free_body_state();
  expect_fail(iso_model_set_initial_state(m, 2, &x), ISO_ERR_INVALID, "moves on joint 'elbow'");
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  /* 7 + (1 + 1 + 4) + 7 + 1 positions, 6 + (1 + 1 + 3) + 6 + 1 velocities */
  cr_assert_eq(iso_model_nq(m), 21);
  cr_assert_eq(iso_model_nv(m), 18);
  const int want_q[6] = {0, 7, 8, 9, 13, 20}, want_v[6] = {0, 6, 7, 8, 11, 17};
  const int want_nq[6] = {7, 1, 1, 4, 7, 1};
  for (int b = 0; b < 6; ++b) {
    cr_assert_eq(iso_model_body_slice(m, b, &q, &v), ISO_OK);
    cr_assert_eq(q.start, want_q[b], "body %d q at %d", b, q.start);
    cr_assert_eq(v.start, want_v[b], "body %d v at %d", b, v.start);
    cr_assert_eq(q.count, want_nq[b]);
  }
  cr_assert_eq(iso_model_joint_slice(m, 1, &q, &v), ISO_OK);
  cr_assert_eq(q.start, 9);
  cr_assert_eq(v.count, 3);
  iso_model_destroy(m);
}

Test(model_joint, free_bodies_keep_their_layout) {
  isoModel *m = model_with_bodies(4);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  cr_assert_eq(iso_model_nq(m), 28);
  cr_assert_eq(iso_model_nv(m), 24);
  for (int b = 0; b < 4; ++b) {
    isoSlice q, v;
    cr_assert_eq(iso_model_body_slice(m, b, &q, &v), ISO_OK);
    cr_assert_eq(q.start, 7 * b);
    cr_assert_eq(v.start, 6 * b);
  }
  iso_model_destroy(m);
}
