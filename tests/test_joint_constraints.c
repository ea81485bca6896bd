/* Joint constraints in the SAP problem: limits, PD actuation with effort limits, couplers, and
 * contact through a tree, each against the statics or the motion it must produce. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/joint_builders.h"
#include "support/scene_builders.h"

static const double G = 9.81;
static const double PI = 3.14159265358979323846;

static isoModel *new_model(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  return m;
}

static void steps(isoSim *s, int n) {
  for (int i = 0; i < n; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
}

Test(joint_constraints, gravity_holds_a_pendulum_on_its_limit_within_the_window) {
  const jbLink L = {1.0, 0.05, 0.5};
  int joint;
  /* a lower limit at 0.8 rad: gravity pulls the arm down toward 0, onto the limit */
  isoModel *m = new_model();
  isoBodyDef b = iso_default_body_def();
  b.mass = L.mass, b.com[2] = -L.length;
  b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.4 * L.mass * L.radius * L.radius;
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  isoJointDef j = iso_default_joint_def();
  j.child = 0, j.axis[0] = 0, j.axis[1] = 1, j.axis[2] = 0;
  const double lower = 0.8;
  j.position_lower = lower;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK);
  const double q0 = 1.2;
  cr_assert_eq(iso_model_set_joint_state(m, joint, &q0, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 1, 1);
  const double dt = iso_sim_time_step(s);
  steps(s, 3000); /* falls onto the limit, bounces off its dissipation, rests */
  double q, v;
  jb_joint_state(s, m, 0, joint, &q, &v);
  /* At rest the limit's impulse balances gravity over a step, γ = dt·m g l sin q, and
   * γ = (v̂ − 0)/R with v̂ = −(q − lower)/(2 dt) (τ_d = dt) and R the near-rigid
   * β²/(4π²)·w, w = 1/I_p (Drake's regularisation dominates a stiffness of 1e12 here). So the
   * arm sinks below the limit by 2 dt² R m g l sin q: a few nanoradians. 10% around that value
   * covers the residual motion after 3 s; a missing or one-sided-wrong limit is off by
   * radians. */
  const double Ip = jb_link_pivot_inertia(&L), R = 0.01 / (4 * PI * PI) / Ip;
  const double sink = 2 * dt * dt * R * L.mass * G * L.length * sin(lower);
  cr_assert_float_eq(lower - q, sink, 0.1 * sink, "below the limit by %.4g, expected %.4g", lower - q, sink);
  cr_assert_lt(fabs(v), 1e-6, "at rest, v = %g", v);
  /* the limit's force balances the gravity torque at the joint */
  double f[1];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_JOINT_FORCE, iso_worlds_one(0), f), ISO_OK);
  cr_assert_float_eq(f[0], L.mass * G * L.length * sin(q), 1e-6 * L.mass * G * L.length, "joint force %g", f[0]);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A pendulum with a PD actuator (gains kp, kd, effort limit e) on its joint. */
static isoModel *pd_pendulum(const jbLink *L, double kp, double kd, double e, int *joint) {
  isoModel *m = new_model();
  *joint = jb_add_link(m, "arm", -1, 0, 0, 0, L, 0);
  isoActuatorDef a = iso_default_actuator_def();
  a.joint = *joint, a.kp = kp, a.kd = kd, a.effort_limit = e;
  cr_assert_eq(iso_model_add_actuator(m, &a, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

Test(joint_constraints, pd_holds_with_the_steady_state_error_gravity_implies) {
  const jbLink L = {1.0, 0.05, 0.5};
  const double kp = 60, kd = 6, target = 0.6;
  int joint;
  isoModel *m = pd_pendulum(&L, kp, kd, INFINITY, &joint);
  isoSim *s = jb_sim(m, 1, 1);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), &target), ISO_OK);
  steps(s, 6000);
  double q, v;
  jb_joint_state(s, m, 0, joint, &q, &v);
  /* statics: kp (target − q) = m g l sin q; solve by fixed-point iteration */
  double qs = target;
  for (int i = 0; i < 100; ++i) qs = target - L.mass * G * L.length * sin(qs) / kp;
  /* The discrete PD acts at q0 + dt·v, which at rest is q: the same statics. The motion has
   * decayed as exp(−kd t/(2 I_p)) = e^−72 by 6 s; what is left is the solver's stopping rule,
   * a gradient within ε_r = 1e-6 of the impulses' scale, i.e. a torque error up to about
   * ε_r·m g l, which the PD turns into ε_r·m g l/kp of angle: 10× that is the bound (8e-7 rad,
   * against a steady-state error of 0.04 rad that a wrong sign or a missing gravity term would
   * change entirely). */
  const double tol = 10 * 1e-6 * L.mass * G * L.length / kp;
  cr_assert_float_eq(q, qs, tol, "q = %.12f, statics %.12f (error %.4g)", q, qs, target - qs);
  double u;
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_ACTUATION, iso_worlds_one(0), &u), ISO_OK);
  /* the PD's effort balances gravity, to the same stopping rule (10·ε_r·m g l) */
  cr_assert_float_eq(u, L.mass * G * L.length * sin(q), 10 * 1e-6 * L.mass * G * L.length, "applied %.9g vs %.9g", u,
                     L.mass * G * L.length * sin(q));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(joint_constraints, effort_limits_clamp) {
  const jbLink L = {1.0, 0.05, 0.5};
  const double e = 1.0; /* below the 4.9 N m gravity torque at horizontal */
  int joint;
  isoModel *m = pd_pendulum(&L, 200, 20, e, &joint);
  isoSim *s = jb_sim(m, 2, 1);
  /* world 0: PD toward horizontal, which it cannot hold; world 1: no gains, an effort of 5 N m
   * asked, 1 N m given */
  const double target[2] = {PI / 2, 0}, gains0[2] = {0, 0}, u[2] = {0, 5};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), target), ISO_OK);
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_ACTUATOR_GAINS, 0, iso_worlds_one(1), gains0), ISO_OK);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_EFFORT, iso_worlds_all(), u), ISO_OK);
  for (int w = 0; w < 2; ++w) jb_set_joint(s, m, w, joint, PI / 2, 0);
  double worst = 0;
  for (int i = 0; i < 400; ++i) {
    steps(s, 1);
    double a[2];
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_ACTUATION, iso_worlds_all(), a), ISO_OK);
    worst = fmax(worst, fmax(fabs(a[0]), fabs(a[1])));
    /* the effort actuator is clamped exactly */
    cr_assert_eq(a[1], e, "world 1 applied %g", a[1]);
  }
  /* the PD's impulse is clamped to dt·e, so its effort to e (to rounding of γ/dt) */
  cr_assert_leq(worst, e * (1 + 1e-12), "an actuator applied %g > %g", worst, e);
  cr_assert_geq(worst, e * (1 - 1e-12), "the PD must saturate against gravity");
  /* both fall: 1 N m cannot hold 4.9 N m; started at rest at π/2, the arm swings down */
  double q0, v0, q1, v1;
  jb_joint_state(s, m, 0, joint, &q0, &v0);
  jb_joint_state(s, m, 1, joint, &q1, &v1);
  cr_assert_lt(q0, PI / 2 - 0.1);
  cr_assert_lt(q1, PI / 2 - 0.1);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(joint_constraints, a_mimic_joint_follows_its_leader) {
  const jbLink L = {1.0, 0.05, 0.5}, F = {0.5, 0.03, 0.3};
  isoModel *m = new_model();
  const int leader = jb_add_link(m, "leader", -1, 0, 0, 0, &L, 0);
  const int follower = jb_add_link(m, "follower", -1, 1, 0, 0, &F, 0); /* another tree */
  isoCouplerDef c = iso_default_coupler_def();
  c.follower = follower, c.leader = leader, c.gear_ratio = -0.5, c.offset = 0.1;
  cr_assert_eq(iso_model_add_coupler(m, &c, NULL), ISO_OK, "%s", iso_last_error());
  const double ql = 0.7, qf = -0.5 * ql + 0.1;
  cr_assert_eq(iso_model_set_joint_state(m, leader, &ql, NULL), ISO_OK);
  cr_assert_eq(iso_model_set_joint_state(m, follower, &qf, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 1, 1);
  double worst = 0, qmax = 0;
  for (int i = 0; i < 2000; ++i) {
    steps(s, 1);
    double a, va, b, vb;
    jb_joint_state(s, m, 0, leader, &a, &va);
    jb_joint_state(s, m, 0, follower, &b, &vb);
    worst = fmax(worst, fabs(b - (-0.5 * a + 0.1)));
    qmax = fmax(qmax, fabs(a));
  }
  /* A near-rigid coupler (R = β²/(4π²)·w) yields by about 2 dt² R times the torque it carries:
   * here ~1e-7 rad; 1e-5 leaves room for the swing's dynamics and is 1e-4 of the motion. */
  cr_assert_gt(qmax, 0.5, "the pair must swing");
  cr_assert_lt(worst, 1e-5, "the follower strayed %g rad from ρ·q_leader + offset", worst);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A box on an explicit floating joint whose frame F is offset, falling onto the ground with
 * point contact: its contacts go through the tree's dense blocks; the same box free goes
 * through the free-body blocks. */
Test(joint_constraints, contact_through_a_tree_matches_the_free_body) {
  isoModel *m = new_model();
  tbBlock blk = {{0.2, 0.1, 0.1}, 1.0, 1e6, 1e5, 10, 0.5};
  const int free_b = tb_add_block(m, "free", &blk, TB_POINT);
  const int tree_b = tb_add_block(m, "jointed", &blk, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT);
  isoJointDef j = iso_default_joint_def();
  j.type = ISO_JOINT_FLOATING, j.child = tree_b;
  j.parent_position[0] = 3, j.parent_position[1] = 0, j.parent_position[2] = 0;
  int joint;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK);
  /* both start 2 cm above the ground, tilted and sliding; the jointed one 3 m away in x (F's
   * offset), far from the other */
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[2] = 0.07, x.quaternion[0] = cos(0.1), x.quaternion[2] = sin(0.1);
  x.linear_velocity[0] = 0.3, x.angular_velocity[2] = 1.0;
  cr_assert_eq(iso_model_set_initial_state(m, free_b, &x), ISO_OK);
  const double qj[7] = {cos(0.1), 0, sin(0.1), 0, 0, 0, 0.07}, vj[6] = {0, 0, 1.0, 0.3, 0, 0};
  cr_assert_eq(iso_model_set_joint_state(m, joint, qj, vj), ISO_OK);
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  double worst = 0;
  int touched = 0;
  for (int i = 0; i < 600; ++i) {
    steps(s, 1);
    double q[14];
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
    for (int k = 0; k < 7; ++k) worst = fmax(worst, fabs(q[k] - q[7 + k])); /* F is only shifted */
    int n = 0;
    cr_assert_eq(iso_sim_contact_count(s, 0, &n), ISO_OK);
    touched |= n > 0;
  }
  cr_assert(touched, "the boxes must land");
  /* The two worlds of the pair solve the same contact problems through different arithmetic
   * (the tree's point Jacobian and CRBA/RNEA against the free body's blocks and Euler's
   * equations), so they agree to rounding amplified by 600 steps of a Newton solve that stops at
   * a relative tolerance of 1e-6; 1e-6 m and 1e-6 in the quaternion bound that, while a wrong
   * Jacobian or inertia sends the boxes apart by centimetres. */
  cr_assert_lt(worst, 1e-6, "the jointed box strayed %g from the free one", worst);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Statics of a PD pendulum: kp (target − q) = m g l sin q, by fixed-point iteration. */
static double pd_statics(double m, double l, double kp, double target) {
  double q = target;
  for (int i = 0; i < 200; ++i) q = target - m * G * l * sin(q) / kp;
  return q;
}

Test(joint_constraints, masses_gains_and_limits_randomised_per_world) {
  const jbLink L = {1.0, 0.05, 0.5};
  const double kp = 60, kd = 6, target = 0.6;
  int joint;
  isoModel *m = pd_pendulum(&L, kp, kd, INFINITY, &joint);
  isoSlice vs;
  cr_assert_eq(iso_model_joint_slice(m, joint, NULL, &vs), ISO_OK);
  isoSim *s = jb_sim(m, 4, 2);
  const double t4[4] = {target, target, target, target};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), t4), ISO_OK);
  /* world 1: twice the mass; world 2: twice the gains; world 3: the model's values */
  const double mass2 = 2, gains2[2] = {2 * kp, 2 * kd};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_MASS, 0, iso_worlds_one(1), &mass2), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_ACTUATOR_GAINS, 0, iso_worlds_one(2), gains2), ISO_OK, "%s", iso_last_error());
  steps(s, 6000);
  double q[4], v;
  for (int w = 0; w < 4; ++w) jb_joint_state(s, m, w, joint, &q[w], &v);
  const double tol = 10 * 1e-6 * 2 * L.mass * G * L.length / kp; /* the PD test's bound, for the heaviest */
  cr_assert_float_eq(q[0], pd_statics(L.mass, L.length, kp, target), tol);
  cr_assert_float_eq(q[1], pd_statics(2 * L.mass, L.length, kp, target), tol, "world 1 (mass 2): %.9f", q[1]);
  cr_assert_float_eq(q[2], pd_statics(L.mass, L.length, 2 * kp, target), tol, "world 2 (gains x2): %.9f", q[2]);
  cr_assert_float_eq(q[3], q[0], 0, "world 3 is world 0");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(joint_constraints, limits_randomised_per_world) {
  const jbLink L = {1.0, 0.05, 0.5};
  isoModel *m = new_model();
  isoBodyDef b = iso_default_body_def();
  b.mass = L.mass, b.com[2] = -L.length;
  b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.4 * L.mass * L.radius * L.radius;
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  isoJointDef j = iso_default_joint_def();
  j.child = 0, j.axis[0] = 0, j.axis[1] = 1, j.axis[2] = 0;
  j.position_lower = 0.8;
  int joint;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK);
  const double q0 = 1.2;
  cr_assert_eq(iso_model_set_joint_state(m, joint, &q0, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  isoSim *s = jb_sim(m, 2, 1);
  const double lim1[2] = {1.0, INFINITY};
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_DOF_LIMITS, 0, iso_worlds_one(1), lim1), ISO_OK, "%s", iso_last_error());
  steps(s, 3000);
  double qa, qb, v;
  jb_joint_state(s, m, 0, joint, &qa, &v);
  jb_joint_state(s, m, 1, joint, &qb, &v);
  /* each rests on its own limit, a few nanoradians below it (the limit test's sink) */
  cr_assert_float_eq(qa, 0.8, 1e-6, "world 0 rests at %.9f", qa);
  cr_assert_float_eq(qb, 1.0, 1e-6, "world 1 rests at %.9f", qb);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(joint_constraints, rotor_inertia_lengthens_the_period) {
  const jbLink L = {1.0, 0.05, 0.5};
  isoModel *m = new_model();
  const int joint = jb_add_link(m, "arm", -1, 0, 0, 0, &L, 0);
  isoActuatorDef a = iso_default_actuator_def();
  a.joint = joint, a.rotor_inertia = 0.01, a.gear_ratio = 3; /* reflected: 0.09 kg m² */
  cr_assert_eq(iso_model_add_actuator(m, &a, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  isoSim *s = jb_sim(m, 1, 1);
  jb_set_joint(s, m, 0, joint, 0.02, 0);
  double qp, v, t[8];
  int n = 0;
  jb_joint_state(s, m, 0, joint, &qp, &v);
  for (int i = 1; i <= 8000 && n < 8; ++i) {
    steps(s, 1);
    double q;
    jb_joint_state(s, m, 0, joint, &q, &v);
    if (qp < 0 && q >= 0) t[n++] = 1e-3 * (i - 1 + qp / (qp - q));
    qp = q;
  }
  cr_assert_geq(n, 3);
  const double T = (t[n - 1] - t[0]) / (n - 1);
  const double T0 = 2 * PI * sqrt((jb_link_pivot_inertia(&L) + 0.09) / (L.mass * G * L.length));
  /* the period with I_p + ρ² I_r, to the small-angle test's 1e-4 */
  cr_assert_float_eq(T, T0, 1e-4 * T0, "period %.6f, expected %.6f", T, T0);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Bodies a joint connects do not collide (Drake filters adjacent bodies, joints to the world
 * excepted): two overlapping links of one chain make no contact; the first link still touches
 * the ground it is jointed to the world above. */
Test(joint_constraints, adjacent_bodies_do_not_collide) {
  isoModel *m = new_model();
  tbBlock blk = {{0.2, 0.2, 0.2}, 1.0, 1e6, 1e5, 10, 0.5};
  const int upper = tb_add_block(m, "upper", &blk, TB_POINT);
  const int lower = tb_add_block(m, "lower", &blk, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT);
  isoJointDef j = iso_default_joint_def();
  j.type = ISO_JOINT_PRISMATIC, j.child = upper, j.parent_position[2] = 0.09; /* the block dips 1 cm into the ground */
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  j.parent = upper, j.child = lower, j.parent_position[2] = 0.1, j.type = ISO_JOINT_REVOLUTE; /* overlapping halves */
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  steps(s, 1);
  int n = 0;
  cr_assert_eq(iso_sim_contact_count(s, 0, &n), ISO_OK);
  isoContactResult r[16];
  cr_assert_eq(iso_sim_get_contact_results(s, 0, r, 16, &n), ISO_OK);
  cr_assert_gt(n, 0, "the upper block rests on the ground");
  for (int i = 0; i < n; ++i)
    cr_assert(!(r[i].body_a >= 0 && r[i].body_b >= 0), "contact between the joined blocks %d and %d", r[i].body_a,
              r[i].body_b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
