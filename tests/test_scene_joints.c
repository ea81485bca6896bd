/* Scene files with moving joints: types, frames (Drake's: at q = 0 each child sits where the
 * file puts it), axes and the frames they are expressed in, limits, damping, actuators (SDFormat
 * effort limits, URDF transmissions), drake: actuator parameters, mimic couplers, the body order
 * parents-first, what is reported (strict: rejected), and errors naming file:line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/joint.h"
#include "isobar/scene.h"
#include "kernels/math/transform.h"
#include "support/support.h"

static const char *scene(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/scenes/%s", name);
  return test_source_path(rel);
}

static isoModel *load(const char *path, int strict, isoLoadReport **report) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, report);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

static void load_fails(const char *path, int strict, isoStatus want, int line, const char *needle) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, NULL);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  char where[1200];
  snprintf(where, sizeof where, "%s:%d:", path, line);
  cr_assert(strstr(iso_last_error(), where) != NULL, "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
}

static isoJointDef joint(const isoModel *m, const char *name) {
  int id = -1;
  cr_assert_eq(iso_model_find_joint(m, name, &id), ISO_OK, "%s: %s", name, iso_last_error());
  isoJointDef j;
  cr_assert_eq(iso_model_get_joint(m, id, &j), ISO_OK);
  return j;
}

static isoActuatorDef actuator(const isoModel *m, const char *name) {
  int id = -1;
  cr_assert_eq(iso_model_find_actuator(m, name, &id), ISO_OK, "%s: %s", name, iso_last_error());
  isoActuatorDef a;
  cr_assert_eq(iso_model_get_actuator(m, id, &a), ISO_OK);
  return a;
}

static int body(const isoModel *m, const char *name) {
  int id = -1;
  cr_assert_eq(iso_scene_find_body(m, name, &id), ISO_OK, "%s: %s", name, iso_last_error());
  return id;
}

static xform pose(const double *p, const double *q) { return xf_make(quat_make(q[0], q[1], q[2], q[3]), v3(p[0], p[1], p[2])); }
static xform X_PF(const isoJointDef *j) { return pose(j->parent_position, j->parent_quaternion); }
static xform X_CM(const isoJointDef *j) { return pose(j->child_position, j->child_quaternion); }
static xform yaw(double a, double x, double y, double z) { return xf_make(quat_from_axis_angle(v3(0, 0, 1), a), v3(x, y, z)); }

/* Equal poses (a quaternion and its negative are one rotation). */
static void same_pose(xform a, xform b, double tol, const char *what) {
  double dq = fabs(a.q.w * b.q.w + a.q.x * b.q.x + a.q.y * b.q.y + a.q.z * b.q.z);
  cr_assert(fabs(dq - 1) <= tol && v3_norm(v3_sub(a.p, b.p)) <= tol,
            "%s: (%g %g %g | %g %g %g %g) != (%g %g %g | %g %g %g %g)", what, a.p.x, a.p.y, a.p.z, a.q.w, a.q.x,
            a.q.y, a.q.z, b.p.x, b.p.y, b.p.z, b.q.w, b.q.x, b.q.y, b.q.z);
}

static void same_vec(const double *a, double x, double y, double z, const char *what) {
  cr_assert(fabs(a[0] - x) < 1e-12 && fabs(a[1] - y) < 1e-12 && fabs(a[2] - z) < 1e-12,
            "%s: (%g %g %g) != (%g %g %g)", what, a[0], a[1], a[2], x, y, z);
}

/* The report holds a line starting "path:line: <start>". */
static void reported(const isoLoadReport *r, const char *path, const char *needle, const char *start) {
  char want[1400];
  snprintf(want, sizeof want, "%s:%d: %s", path, test_line_of(path, needle), start);
  for (int i = 0; i < iso_load_report_count(r); ++i)
    if (strncmp(iso_load_report_line(r, i), want, strlen(want)) == 0) return;
  cr_assert_fail("no report line '%s...'", want);
}

/* ---- SDFormat ------------------------------------------------------------------------------ */

Test(scene_joints, sdf_types_frames_axes_limits) {
  const char *p = scene("joints.sdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  /* Parents first: tip is declared first but hangs from arm, which hangs from root. */
  cr_assert_eq(iso_model_body_count(m), 5, "flange is merged into arm");
  cr_assert_eq(body(m, "m::root"), 0);
  cr_assert_eq(body(m, "m::arm"), 1);
  cr_assert_eq(body(m, "m::tip"), 2);
  cr_assert_eq(body(m, "n::a"), 3);
  cr_assert_eq(iso_model_joint_count(m), 5, "the fixed joint is merged");

  isoJointDef j = joint(m, "m::to_world");
  cr_assert_eq(j.type, ISO_JOINT_REVOLUTE);
  cr_assert_eq(j.parent, -1);
  cr_assert_eq(j.child, 0);
  same_pose(X_PF(&j), yaw(0, 0, 0, 1), 1e-15, "to_world X_PF");
  same_pose(X_CM(&j), xf_identity(), 0, "to_world X_CM");
  cr_assert(isinf(j.position_lower) && isinf(j.position_upper) && isinf(j.velocity_limit));

  /* An offset joint pose: J given in the child; X_CM = X_CJ, X_PF = X_WP⁻¹ X_WC X_CJ. */
  j = joint(m, "m::hinge");
  cr_assert_eq(j.parent, 0);
  cr_assert_eq(j.child, 1);
  xform X_CJ = yaw(0.7, 0.1, 0.2, 0.3), X_WC = yaw(0.5, 0, 0, 1), X_WP = yaw(0, 0, 0, 1);
  same_pose(X_CM(&j), X_CJ, 1e-15, "hinge X_CM");
  same_pose(X_PF(&j), xf_mul(xf_mul(xf_inv(X_WP), X_WC), X_CJ), 1e-14, "hinge X_PF");
  /* The axis is (1, 0, 0) in the model frame (= world here), J is turned by 0.5 + 0.7 about z. */
  same_vec(j.axis, cos(1.2), -sin(1.2), 0, "hinge axis");
  cr_assert_eq(j.position_lower, -1);
  cr_assert_eq(j.position_upper, 2);
  cr_assert_eq(j.velocity_limit, 3);
  cr_assert_eq(j.damping, 0.25);

  /* A joint on a merged link: its frames are taken in the group's body (arm's frame). */
  j = joint(m, "m::slide");
  cr_assert_eq(j.type, ISO_JOINT_PRISMATIC);
  cr_assert_eq(j.parent, 1);
  cr_assert_eq(j.child, 2);
  same_pose(X_PF(&j), xf_mul(xf_inv(X_WC), yaw(0, 1, 0, 0)), 1e-14, "slide X_PF in arm's frame");
  same_pose(X_CM(&j), xf_identity(), 0, "slide X_CM");
  same_vec(j.axis, 1, 0, 0, "slide axis");
  cr_assert_eq(j.position_lower, 0);
  cr_assert_eq(j.position_upper, 0.2);

  j = joint(m, "n::ball");
  cr_assert_eq(j.type, ISO_JOINT_BALL);
  cr_assert_eq(j.damping, 0.3);
  /* continuous: no position limits; the axis in the model frame (use_parent_model_frame), b
   * turned by 0.3 about x in the model. */
  j = joint(m, "n::spin");
  cr_assert_eq(j.type, ISO_JOINT_REVOLUTE);
  cr_assert(isinf(j.position_lower) && isinf(j.position_upper));
  same_vec(j.axis, 0, cos(0.3), -sin(0.3), "spin axis");

  /* Actuators: every 1-dof joint whose effort limit is not 0 (none or negative: unlimited). */
  cr_assert_eq(iso_model_actuator_count(m), 3);
  isoActuatorDef a = actuator(m, "m::to_world");
  cr_assert(isinf(a.effort_limit));
  a = actuator(m, "m::hinge");
  cr_assert_eq(a.effort_limit, 5);
  cr_assert_eq(a.kp, 100);
  cr_assert_eq(a.kd, 10);
  cr_assert_eq(a.rotor_inertia, 0.01);
  cr_assert_eq(a.gear_ratio, 50);
  a = actuator(m, "n::spin");
  cr_assert(isinf(a.effort_limit));
  int id;
  cr_assert_eq(iso_model_find_actuator(m, "m::slide", &id), ISO_ERR_NOT_FOUND, "effort 0: no actuator");

  cr_assert_eq(iso_model_coupler_count(m), 1);
  isoCouplerDef k;
  cr_assert_eq(iso_model_get_coupler(m, 0, &k), ISO_OK);
  int slide, hinge;
  cr_assert_eq(iso_model_find_joint(m, "m::slide", &slide), ISO_OK);
  cr_assert_eq(iso_model_find_joint(m, "m::hinge", &hinge), ISO_OK);
  cr_assert_eq(k.follower, slide);
  cr_assert_eq(k.leader, hinge);
  cr_assert_eq(k.gear_ratio, 0.5);
  cr_assert_eq(k.offset, 0.1);

  reported(r, p, "<friction>", "<friction> ignored (joint friction is not modelled");
  reported(r, p, "drake:controller_gains p=\"1\"", "<drake:controller_gains> ignored (the joint has no actuator");
  reported(r, p, "<lower>-1</lower><upper>1</upper><effort>-1", "<lower> ignored (a continuous joint");
  reported(r, p, "<initial_position>", "<initial_position> ignored (Drake does not read it");
  iso_load_report_free(r);
  iso_model_destroy(m);
  /* Strict: the first thing it would ignore, the friction, is an error. */
  load_fails(p, 1, ISO_ERR_UNSUPPORTED, test_line_of(p, "<friction>"), "<friction> would be ignored");
}

Test(scene_joints, sdf_errors_name_file_line) {
  const char *p = scene("bad_mimic.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "drake:mimic"), "joint 'copy' mimics joint 'nobody', which does not exist");
  p = scene("bad_joint_loop.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "name=\"ba\""), "<joint name='m::ba'>: the joints form a loop");
  p = scene("bad_two_joints.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "name=\"second\""), "link 'm::b' is already the child of joint 'm::glue'");
  p = scene("bad_axis_frame.sdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "nowhere"), "the axis is expressed in 'nowhere', which names no frame");
  p = scene("bad_joint_type.sdf");
  load_fails(p, 0, ISO_ERR_UNSUPPORTED, test_line_of(p, "universal"), "joint 'hinge' of type 'universal' is not supported");
}

/* ---- URDF ---------------------------------------------------------------------------------- */

Test(scene_joints, urdf_types_frames_transmissions_mimic) {
  const char *p = scene("joints.urdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  cr_assert_eq(iso_model_joint_count(m), 5);
  isoJointDef j = joint(m, "r::pivot");
  cr_assert_eq(j.type, ISO_JOINT_REVOLUTE);
  cr_assert_eq(j.parent, -1);
  cr_assert_eq(j.child, body(m, "r::base"));
  same_pose(X_PF(&j), yaw(0.5, 0, 0, 1), 1e-15, "pivot X_PF = <origin>");
  same_pose(X_CM(&j), xf_identity(), 0, "pivot X_CM");
  same_vec(j.axis, 0, 0, 1, "pivot axis, normalised");
  cr_assert_eq(j.position_lower, -1);
  cr_assert_eq(j.position_upper, 1);
  cr_assert_eq(j.velocity_limit, 4);
  cr_assert_eq(j.damping, 0.5);
  j = joint(m, "r::spin");
  same_vec(j.axis, 1, 0, 0, "spin: URDF's default axis");
  cr_assert(isinf(j.position_lower) && isinf(j.position_upper), "continuous: no position limits");
  cr_assert_eq(j.velocity_limit, 10);
  same_pose(X_PF(&j), yaw(0, 0.3, 0, 0), 0, "spin X_PF");
  j = joint(m, "r::float");
  cr_assert_eq(j.type, ISO_JOINT_FLOATING);
  same_pose(X_PF(&j), yaw(0, 1, 2, 3), 0, "float X_PF");

  /* Actuators from transmissions only; an effort limit of 0 skips one. */
  cr_assert_eq(iso_model_actuator_count(m), 2);
  isoActuatorDef a = actuator(m, "r::pivot_motor");
  cr_assert_eq(a.effort_limit, 20);
  cr_assert_eq(a.rotor_inertia, 0.02);
  cr_assert_eq(a.gear_ratio, 10);
  cr_assert_eq(a.kp, 50);
  cr_assert_eq(a.kd, 5);
  a = actuator(m, "r::spin_motor");
  cr_assert_eq(a.effort_limit, 3);

  cr_assert_eq(iso_model_coupler_count(m), 1);
  isoCouplerDef k;
  cr_assert_eq(iso_model_get_coupler(m, 0, &k), ISO_OK);
  int follow, slide;
  cr_assert_eq(iso_model_find_joint(m, "r::follow", &follow), ISO_OK);
  cr_assert_eq(iso_model_find_joint(m, "r::slide", &slide), ISO_OK);
  cr_assert_eq(k.follower, follow);
  cr_assert_eq(k.leader, slide);
  cr_assert_eq(k.gear_ratio, -1);
  cr_assert_eq(k.offset, 0, "URDF's default offset");

  reported(r, p, "friction=", "<dynamics> attribute 'friction' ignored (joint friction is not modelled");
  reported(r, p, "name=\"slide_tx\"", "<transmission> ignored (its joint's effort limit is 0");
  reported(r, p, "<hardwareInterface>", "<hardwareInterface> ignored");
  iso_load_report_free(r);
  iso_model_destroy(m);
  load_fails(p, 1, ISO_ERR_UNSUPPORTED, test_line_of(p, "friction="), "attribute 'friction' would be ignored");
}

Test(scene_joints, urdf_errors_name_file_line) {
  const char *p = scene("bad_mimic.urdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "<mimic"), "joint 'hinge' mimics: joint 'nobody' does not exist");
  p = scene("bad_transmission.urdf");
  load_fails(p, 0, ISO_ERR_PARSE, test_line_of(p, "hinj"), "the transmission: joint 'hinj' does not exist");
  p = scene("bad_joint_type.urdf");
  load_fails(p, 0, ISO_ERR_UNSUPPORTED, test_line_of(p, "planar"), "joint 'elbow' of type 'planar' is not supported");
}

/* ---- both ---------------------------------------------------------------------------------- */

Test(scene_joints, the_arm_in_sdf_and_urdf_gives_the_same_joints) {
  isoModel *s = load(scene("arm.sdf"), 1, NULL), *u = load(scene("arm.urdf"), 1, NULL);
  cr_assert_eq(iso_model_body_count(s), 2);
  cr_assert_eq(iso_model_body_count(u), 2);
  cr_assert_eq(iso_model_joint_count(s), 2);
  cr_assert_eq(iso_model_joint_count(u), 2);
  for (int i = 0; i < 2; ++i) {
    isoJointDef a, b;
    cr_assert_eq(iso_model_get_joint(s, i, &a), ISO_OK);
    cr_assert_eq(iso_model_get_joint(u, i, &b), ISO_OK);
    cr_assert_str_eq(a.name, b.name);
    cr_assert_eq(a.type, b.type);
    cr_assert_eq(a.parent, b.parent);
    cr_assert_eq(a.child, b.child);
    same_pose(X_PF(&a), X_PF(&b), 1e-14, a.name);
    same_pose(X_CM(&a), X_CM(&b), 1e-14, a.name);
    same_vec(a.axis, b.axis[0], b.axis[1], b.axis[2], a.name);
    cr_assert_eq(a.position_lower, b.position_lower);
    cr_assert_eq(a.position_upper, b.position_upper);
    cr_assert_eq(a.velocity_limit, b.velocity_limit);
    cr_assert_eq(a.damping, b.damping);
    isoActuatorDef x, y;
    cr_assert_eq(iso_model_get_actuator(s, i, &x), ISO_OK);
    cr_assert_eq(iso_model_get_actuator(u, i, &y), ISO_OK);
    cr_assert_eq(x.joint, y.joint);
    cr_assert_eq(x.effort_limit, y.effort_limit);
  }
  isoJointDef sh = joint(s, "arm::shoulder");
  same_pose(X_PF(&sh), yaw(0.5, 0, 0, 1.25), 1e-15, "shoulder: F in the world (the base is welded)");
  iso_model_destroy(s);
  iso_model_destroy(u);
}
