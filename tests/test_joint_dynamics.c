/* Jointed trees stepped by the sim: pendulums against their analytic period, energy and decay;
 * a floating joint against the free body it generalises; batch and thread independence. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/joint_builders.h"
#include "support/run_hash.h"

static const double G = 9.81;

static isoModel *pendulum(const jbLink *L, double damping, int *joint) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  *joint = jb_add_link(m, "arm", -1, 0, 0, 0, L, damping);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

/* Times at which θ crosses zero going up, by linear interpolation between steps. */
static int upward_crossings(isoSim *s, const isoModel *m, int joint, int steps, double *t, int cap) {
  const double dt = iso_sim_time_step(s);
  double q_prev, v;
  jb_joint_state(s, m, 0, joint, &q_prev, &v);
  int n = 0;
  for (int i = 1; i <= steps && n < cap; ++i) {
    cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
    double q;
    jb_joint_state(s, m, 0, joint, &q, &v);
    if (q_prev < 0 && q >= 0) t[n++] = dt * (i - 1 + q_prev / (q_prev - q));
    q_prev = q;
  }
  return n;
}

Test(joint_dynamics, small_angle_period) {
  const jbLink L = {2.0, 0.05, 0.8};
  int joint;
  isoModel *m = pendulum(&L, 0, &joint);
  isoSim *s = jb_sim(m, 1, 1);
  const double th0 = 0.02;
  jb_set_joint(s, m, 0, joint, th0, 0);
  double t[16];
  int n = upward_crossings(s, m, joint, 12000, t, 16);
  cr_assert_geq(n, 4, "the pendulum must swing (crossings: %d)", n);
  const double T = (t[n - 1] - t[0]) / (n - 1);
  const double T0 = 2 * 3.14159265358979323846 * sqrt(jb_link_pivot_inertia(&L) / (L.mass * G * L.length));
  /* The amplitude lengthens the period by θ0²/16 = 2.5e-5; the symplectic Euler step shifts
   * the frequency by (ω dt)²/24 ≈ 5e-7 and the interpolated crossings carry O((ω dt)²) error
   * that averages over the cycles: 1e-4 relative holds them with margin, and a wrong inertia
   * (say the COM term alone) or a gravity torque off by a factor is far outside it. */
  cr_assert_float_eq(T, T0 * (1 + th0 * th0 / 16), 1e-4 * T0, "period %.9f, expected %.9f", T, T0);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

static double pendulum_energy(const jbLink *L, double q, double v) {
  return 0.5 * jb_link_pivot_inertia(L) * v * v - L->mass * G * L->length * cos(q);
}

Test(joint_dynamics, energy_is_bounded_without_damping) {
  const jbLink L = {1.0, 0.05, 0.5};
  int joint;
  isoModel *m = pendulum(&L, 0, &joint);
  isoSim *s = jb_sim(m, 1, 1);
  const double th0 = 0.6, dt = iso_sim_time_step(s);
  jb_set_joint(s, m, 0, joint, th0, 0);
  const double E0 = pendulum_energy(&L, th0, 0);
  /* Symplectic Euler (the velocity from the forces at q0, then q from the new velocity) conserves
   * a modified energy H − (dt/2)·θ̇·τ_g(θ) + O(dt²), so H itself stays within
   * dt·max|θ̇|·max|τ_g| of its start for all time, with no drift. max|τ_g| = m g l sin θ0 and
   * max|θ̇| = sqrt(2 (E_max − E_min)/I_p); 1.5× covers the O(dt²) terms. */
  const double Ip = jb_link_pivot_inertia(&L);
  const double vmax = sqrt(2 * L.mass * G * L.length * (1 - cos(th0)) / Ip);
  const double bound = 1.5 * dt * vmax * L.mass * G * L.length * sin(th0);
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    cr_assert_eq(iso_sim_step(s), ISO_OK);
    double q, v;
    jb_joint_state(s, m, 0, joint, &q, &v);
    worst = fmax(worst, fabs(pendulum_energy(&L, q, v) - E0));
  }
  cr_assert_leq(worst, bound, "energy strayed %.3g from its start (bound %.3g)", worst, bound);
  cr_assert_gt(worst, 0.0, "a discrete pendulum cannot keep its energy exactly");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(joint_dynamics, damping_decays_at_the_implied_rate) {
  const jbLink L = {1.0, 0.05, 0.5};
  const double Ip = jb_link_pivot_inertia(&L), c = 0.4 * Ip; /* decay rate c/(2 I_p) = 0.2 /s */
  int joint;
  isoModel *m = pendulum(&L, c, &joint);
  isoSim *s = jb_sim(m, 1, 1);
  jb_set_joint(s, m, 0, joint, 0.02, 0);
  const double dt = iso_sim_time_step(s);
  /* the peaks of θ: every local maximum */
  double peak_t[32], peak_q[32], qm2 = 0.02, qm1 = 0.02;
  int np = 0;
  for (int i = 1; i <= 12000 && np < 32; ++i) {
    cr_assert_eq(iso_sim_step(s), ISO_OK);
    double q, v;
    jb_joint_state(s, m, 0, joint, &q, &v);
    if (i > 2 && qm1 > qm2 && qm1 >= q) peak_t[np] = dt * (i - 1), peak_q[np++] = qm1;
    qm2 = qm1, qm1 = q;
  }
  cr_assert_geq(np, 5);
  const double rate = log(peak_q[0] / peak_q[np - 1]) / (peak_t[np - 1] - peak_t[0]);
  /* Small oscillations of I θ̈ + c θ̇ + m g l θ = 0 decay as exp(−c t/(2 I)). The implicit
   * damping factor 1/(1 + dt c/I) per step differs from exp(−dt c/I) by (dt c/I)²/2, a 2e-4
   * relative change of the rate; sampling a peak at the step grid errs by (ω dt)²/8 ≈ 2e-6 of
   * the amplitude: 1e-3 relative covers both, and the explicit-damping or missing-damping
   * errors are orders larger. */
  cr_assert_float_eq(rate, c / (2 * Ip), 1e-3 * c / (2 * Ip), "decay rate %.6f, expected %.6f", rate, c / (2 * Ip));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A planar double pendulum: link 1 from the world, link 2 hanging from link 1's centre. */
static isoModel *double_pendulum(const jbLink *L1, const jbLink *L2, int *j1, int *j2) {
  isoModel *m = NULL;
  isoModelDef md = iso_default_model_def();
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  *j1 = jb_add_link(m, "upper", -1, 0, 0, 0, L1, 0);
  *j2 = jb_add_link(m, "lower", 0, 0, 0, -L1->length, L2, 0);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

/* Energy of the double pendulum from its joint angles and rates (angles about y: a point at
 * (0, 0, −l) turns to (−l sin θ, 0, −l cos θ)). */
static double double_energy(const jbLink *L1, const jbLink *L2, double a, double b, double da, double db) {
  const double Ic1 = 0.4 * L1->mass * L1->radius * L1->radius, Ic2 = 0.4 * L2->mass * L2->radius * L2->radius;
  const double x1 = -L1->length * sin(a), z1 = -L1->length * cos(a);
  const double vx1 = -L1->length * cos(a) * da, vz1 = L1->length * sin(a) * da;
  const double x2 = x1 - L2->length * sin(a + b), z2 = z1 - L2->length * cos(a + b);
  const double vx2 = vx1 - L2->length * cos(a + b) * (da + db), vz2 = vz1 + L2->length * sin(a + b) * (da + db);
  (void)x2;
  (void)x1;
  const double T = 0.5 * L1->mass * (vx1 * vx1 + vz1 * vz1) + 0.5 * Ic1 * da * da +
                   0.5 * L2->mass * (vx2 * vx2 + vz2 * vz2) + 0.5 * Ic2 * (da + db) * (da + db);
  return T + G * (L1->mass * z1 + L2->mass * z2);
}

/* The largest energy deviation over `seconds` of a double pendulum at time step dt. */
static double double_energy_error(double dt, double seconds) {
  const jbLink L1 = {1.5, 0.05, 0.4}, L2 = {1.0, 0.04, 0.3};
  int j1, j2;
  isoModel *m = NULL;
  isoModelDef md = iso_default_model_def();
  md.time_step = dt;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  j1 = jb_add_link(m, "upper", -1, 0, 0, 0, &L1, 0);
  j2 = jb_add_link(m, "lower", 0, 0, 0, -L1.length, &L2, 0);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 1, 1);
  jb_set_joint(s, m, 0, j1, 0.7, 0);
  jb_set_joint(s, m, 0, j2, -0.4, 0);
  const double E0 = double_energy(&L1, &L2, 0.7, -0.4, 0, 0);
  double worst = 0;
  const int n = (int)(seconds / dt + 0.5);
  for (int i = 0; i < n; ++i) {
    cr_assert_eq(iso_sim_step(s), ISO_OK);
    double a, b, da, db;
    jb_joint_state(s, m, 0, j1, &a, &da);
    jb_joint_state(s, m, 0, j2, &b, &db);
    worst = fmax(worst, fabs(double_energy(&L1, &L2, a, b, da, db) - E0));
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
  return worst / fabs(E0);
}

Test(joint_dynamics, double_pendulum_energy_is_first_order_in_dt) {
  /* The scheme is symplectic Euler on a mechanical system: its energy error is bounded and
   * proportional to dt (the modified energy differs from H by O(dt)). So the error at dt must be
   * small, and halving dt must about halve it (a ratio near 2; a wrong Coriolis term would leave
   * an error that does not shrink, or drifts). Over 3 s the motion stays regular from these
   * angles, so the bound is not a matter of chaos. */
  const double e1 = double_energy_error(1e-3, 3.0), e2 = double_energy_error(5e-4, 3.0);
  cr_assert_lt(e1, 5e-3, "relative energy error %.3g at dt = 1 ms", e1);
  const double ratio = e1 / e2;
  cr_assert(ratio > 1.6 && ratio < 2.5, "halving dt changed the energy error by %.3f (expected about 2)", ratio);
}

/* A body on a floating joint whose frame F is offset and turned from the world moves as the same
 * body free: the tree algorithms (CRBA, RNEA, F-frame quaternions) against Euler's equations. */
Test(joint_dynamics, offset_floating_joint_moves_as_a_free_body) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.mass = 2;
  b.com[0] = 0.05, b.com[2] = -0.02;
  b.inertia[0] = 0.01, b.inertia[1] = 0.02, b.inertia[2] = 0.025, b.inertia[3] = 0.001;
  b.name = "free";
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  b.name = "jointed";
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  const double ang = 0.5, ch = cos(ang / 2), sh = sin(ang / 2); /* F turned about z */
  const double d[3] = {1, 2, 3};
  isoJointDef j = iso_default_joint_def();
  j.type = ISO_JOINT_FLOATING;
  j.child = 1;
  j.parent_quaternion[0] = ch, j.parent_quaternion[3] = sh;
  for (int k = 0; k < 3; ++k) j.parent_position[k] = d[k];
  int joint;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK, "%s", iso_last_error());
  /* the free body: at p, turned by 0.3 about x, spinning about a skew axis, moving */
  isoFreeBodyState x = iso_default_free_body_state();
  const double p[3] = {0.2, -0.1, 0.5}, w[3] = {3, -1, 2}, v[3] = {0.5, 0.1, 2};
  x.quaternion[0] = cos(0.15), x.quaternion[1] = sin(0.15);
  for (int k = 0; k < 3; ++k) x.position[k] = p[k], x.angular_velocity[k] = w[k], x.linear_velocity[k] = v[k];
  cr_assert_eq(iso_model_set_initial_state(m, 0, &x), ISO_OK);
  /* the same state in F's coordinates: R_WF is the turn about z; R_FM = R_WFᵀ R_WB */
  const double c = cos(ang), s = sin(ang);
  double qF[7], vF[6];
  qF[0] = ch * x.quaternion[0], qF[1] = ch * x.quaternion[1], qF[2] = -sh * x.quaternion[1], qF[3] = -sh * x.quaternion[0];
  const double r[3] = {p[0] - d[0], p[1] - d[1], p[2] - d[2]};
  qF[4] = c * r[0] + s * r[1], qF[5] = -s * r[0] + c * r[1], qF[6] = r[2];
  vF[0] = c * w[0] + s * w[1], vF[1] = -s * w[0] + c * w[1], vF[2] = w[2];
  vF[3] = c * v[0] + s * v[1], vF[4] = -s * v[0] + c * v[1], vF[5] = v[2];
  cr_assert_eq(iso_model_set_joint_state(m, joint, qF, vF), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *sim = jb_sim(m, 1, 1);
  for (int i = 0; i < 1000; ++i) cr_assert_eq(iso_sim_step(sim), ISO_OK);
  double q[14];
  cr_assert_eq(iso_sim_get_state(sim, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
  /* back to the world: p = d + R_WF p_FM, q_WB = q_WF ⊗ q_FM */
  const double *f = q + 7;
  const double pw[3] = {d[0] + c * f[4] - s * f[5], d[1] + s * f[4] + c * f[5], d[2] + f[6]};
  const double qw[4] = {ch * f[0] - sh * f[3], ch * f[1] - sh * f[2], ch * f[2] + sh * f[1], ch * f[3] + sh * f[0]};
  /* The two integrate the same equations by the same scheme along different arithmetic (a 6×6
   * solve of CRBA and RNEA in F against Euler's equations about the COM in W): they agree to
   * rounding, which 1000 steps of a tumbling body amplify to ~1e-12; 1e-10 m and 1e-10 in the
   * quaternion leave room and catch any modelling difference (one step of a wrong term moves
   * the body by ~1e-6). */
  for (int k = 0; k < 3; ++k) cr_assert_float_eq(pw[k], q[4 + k], 1e-10, "p[%d]: %.15g vs %.15g", k, pw[k], q[4 + k]);
  for (int k = 0; k < 4; ++k) cr_assert_float_eq(qw[k], q[k], 1e-10, "q[%d]: %.15g vs %.15g", k, qw[k], q[k]);
  iso_sim_destroy(sim);
  iso_model_destroy(m);
}

/* The hash of the final state of a batch whose world k starts at (0.3 + 0.1 k, −0.2 k). */
static uint64_t run_worlds(const isoModel *m, int worlds, int threads, int j1, int j2) {
  isoSim *s = jb_sim(m, worlds, threads);
  for (int w = 0; w < worlds; ++w) {
    jb_set_joint(s, m, w, j1, 0.3 + 0.1 * w, 0.2 * w);
    jb_set_joint(s, m, w, j2, -0.2 * w, 0);
  }
  for (int i = 0; i < 500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  uint64_t h = run_hash_final_state(s);
  iso_sim_destroy(s);
  return h;
}

Test(joint_dynamics, world_alone_equals_world_in_batch_and_threads_agree) {
  const jbLink L1 = {1.5, 0.05, 0.4}, L2 = {1.0, 0.04, 0.3};
  int j1, j2;
  isoModel *m = double_pendulum(&L1, &L2, &j1, &j2);
  /* world 3 of a batch of 5, and the same world alone: the same bits */
  uint64_t batch = run_worlds(m, 5, 1, j1, j2);
  uint64_t batch2 = run_worlds(m, 5, 2, j1, j2);
  cr_assert_eq(batch, batch2, "1 and 2 threads must give the same bits");
  isoSim *s = jb_sim(m, 5, 2);
  for (int w = 0; w < 5; ++w) jb_set_joint(s, m, w, j1, 0.3 + 0.1 * w, 0.2 * w), jb_set_joint(s, m, w, j2, -0.2 * w, 0);
  for (int i = 0; i < 500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  double qb[2], vb[2];
  jb_joint_state(s, m, 3, j1, &qb[0], &vb[0]);
  jb_joint_state(s, m, 3, j2, &qb[1], &vb[1]);
  iso_sim_destroy(s);
  isoSim *one = jb_sim(m, 1, 1);
  const int k = 3; /* world 3's start, by the same expressions */
  jb_set_joint(one, m, 0, j1, 0.3 + 0.1 * k, 0.2 * k);
  jb_set_joint(one, m, 0, j2, -0.2 * k, 0);
  for (int i = 0; i < 500; ++i) cr_assert_eq(iso_sim_step(one), ISO_OK);
  double qa[2], va[2];
  jb_joint_state(one, m, 0, j1, &qa[0], &va[0]);
  jb_joint_state(one, m, 0, j2, &qa[1], &va[1]);
  iso_sim_destroy(one);
  cr_assert(memcmp(qa, qb, sizeof qa) == 0 && memcmp(va, vb, sizeof va) == 0, "world 3 alone differs from world 3 in a batch");
  iso_model_destroy(m);
}

Test(joint_dynamics, damping_randomised_per_world) {
  const jbLink L = {1.0, 0.05, 0.5};
  int joint;
  isoModel *m = pendulum(&L, 0, &joint);
  isoSim *s = jb_sim(m, 2, 1);
  isoSlice vs;
  cr_assert_eq(iso_model_joint_slice(m, joint, NULL, &vs), ISO_OK);
  const double c = 0.5;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_DOF_DAMPING, vs.start, iso_worlds_one(1), &c), ISO_OK, "%s", iso_last_error());
  for (int w = 0; w < 2; ++w) jb_set_joint(s, m, w, joint, 0.3, 0);
  for (int i = 0; i < 5000; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  double q0, v0, q1, v1;
  jb_joint_state(s, m, 0, joint, &q0, &v0);
  jb_joint_state(s, m, 1, joint, &q1, &v1);
  const double E_start = pendulum_energy(&L, 0.3, 0);
  /* world 0 keeps its energy to the symplectic bound (well under 1%); world 1 loses most of it:
   * its amplitude decays as exp(−c t/(2 I_p)) = exp(−0.5·5/(2·0.251)) ≈ 0.007 in energy terms
   * of the swing (E − E_bottom ∝ amplitude²) */
  const double E_bottom = pendulum_energy(&L, 0, 0);
  const double swing0 = pendulum_energy(&L, q0, v0) - E_bottom, swing1 = pendulum_energy(&L, q1, v1) - E_bottom;
  cr_assert_gt(swing0, 0.98 * (E_start - E_bottom));
  cr_assert_lt(swing1, 0.02 * (E_start - E_bottom), "the damped world kept %.3g of its swing", swing1 / (E_start - E_bottom));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A body on an explicit floating joint to the world with identity frames is today's free body:
 * the same coordinates, the same code, the same bits. */
Test(joint_dynamics, identity_floating_joint_is_the_free_body_bitwise) {
  uint64_t h[2];
  for (int explicit_joint = 0; explicit_joint < 2; ++explicit_joint) {
    isoModel *m = NULL;
    cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
    isoBodyDef b = iso_default_body_def();
    b.mass = 1.5, b.com[1] = 0.02;
    b.inertia[0] = 0.01, b.inertia[1] = 0.02, b.inertia[2] = 0.03;
    int id;
    cr_assert_eq(iso_model_add_body(m, &b, &id), ISO_OK);
    const double q0[7] = {cos(0.2), 0, sin(0.2), 0, 0.1, 0.2, 1.0}, v0[6] = {2, -3, 5, 0.1, 0, 0.5};
    if (explicit_joint) {
      isoJointDef j = iso_default_joint_def();
      j.type = ISO_JOINT_FLOATING, j.child = id;
      int joint;
      cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK);
      cr_assert_eq(iso_model_set_joint_state(m, joint, q0, v0), ISO_OK);
    } else {
      isoFreeBodyState x = iso_default_free_body_state();
      for (int k = 0; k < 4; ++k) x.quaternion[k] = q0[k];
      for (int k = 0; k < 3; ++k) x.position[k] = q0[4 + k], x.angular_velocity[k] = v0[k], x.linear_velocity[k] = v0[3 + k];
      cr_assert_eq(iso_model_set_initial_state(m, id, &x), ISO_OK);
    }
    cr_assert_eq(iso_model_compile(m), ISO_OK);
    isoSim *s = jb_sim(m, 2, 1);
    for (int i = 0; i < 500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
    h[explicit_joint] = run_hash_final_state(s);
    iso_sim_destroy(s);
    iso_model_destroy(m);
  }
  cr_assert_eq(h[0], h[1], "the explicit floating joint differs from the free body");
}

/* Two double pendulums whose bodies are added interleaved (A1, B1, A2, B2) step exactly as when
 * added tree by tree (A1, A2, B1, B2): the trees' order, not the body indices, drives the
 * algorithms, and q and v are laid out tree by tree either way. */
Test(joint_dynamics, interleaved_trees_step_as_contiguous_ones) {
  const jbLink L1 = {1.5, 0.05, 0.4}, L2 = {1.0, 0.04, 0.3};
  double q[2][4];
  for (int inter = 0; inter < 2; ++inter) {
    isoModel *m = NULL;
    cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
    int a1, a2, b1, b2;
    if (inter) {
      a1 = jb_add_link(m, "a1", -1, 0, 0, 0, &L1, 0.1);
      b1 = jb_add_link(m, "b1", -1, 2, 0, 0, &L1, 0.1);
      a2 = jb_add_link(m, "a2", 0, 0, 0, -L1.length, &L2, 0.2);
      b2 = jb_add_link(m, "b2", 1, 0, 0, -L1.length, &L2, 0.2);
    } else {
      a1 = jb_add_link(m, "a1", -1, 0, 0, 0, &L1, 0.1);
      a2 = jb_add_link(m, "a2", 0, 0, 0, -L1.length, &L2, 0.2);
      b1 = jb_add_link(m, "b1", -1, 2, 0, 0, &L1, 0.1);
      b2 = jb_add_link(m, "b2", 2, 0, 0, -L1.length, &L2, 0.2);
    }
    cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
    isoSim *s = jb_sim(m, 1, 1);
    jb_set_joint(s, m, 0, a1, 0.7, 0), jb_set_joint(s, m, 0, a2, -0.4, 0.3);
    jb_set_joint(s, m, 0, b1, -0.2, 1.0), jb_set_joint(s, m, 0, b2, 0.9, 0);
    for (int i = 0; i < 800; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
    double v;
    jb_joint_state(s, m, 0, a1, &q[inter][0], &v);
    jb_joint_state(s, m, 0, a2, &q[inter][1], &v);
    jb_joint_state(s, m, 0, b1, &q[inter][2], &v);
    jb_joint_state(s, m, 0, b2, &q[inter][3], &v);
    iso_sim_destroy(s);
    iso_model_destroy(m);
  }
  cr_assert(memcmp(q[0], q[1], sizeof q[0]) == 0, "interleaved bodies changed the motion: %.17g vs %.17g", q[0][1], q[1][1]);
}

/* Drake's Pendulum.urdf kind of link: a point mass on a massless rod. The mass matrix m l² is
 * positive though the body's rotational inertia is zero; its period is the ideal pendulum's. */
Test(joint_dynamics, a_point_mass_pendulum_swings_with_the_ideal_period) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.mass = 2, b.com[2] = -0.6;
  memset(b.inertia, 0, sizeof b.inertia);
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK, "%s", iso_last_error());
  isoJointDef j = iso_default_joint_def();
  j.child = 0, j.axis[0] = 0, j.axis[1] = 1, j.axis[2] = 0;
  int joint;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 1, 1);
  jb_set_joint(s, m, 0, joint, 0.02, 0);
  double t[16];
  int n = upward_crossings(s, m, joint, 8000, t, 16);
  cr_assert_geq(n, 4);
  const double T = (t[n - 1] - t[0]) / (n - 1), T0 = 2 * 3.14159265358979323846 * sqrt(0.6 / G);
  /* the small-angle test's 1e-4 (amplitude correction 2.5e-5 included) */
  cr_assert_float_eq(T, T0 * (1 + 0.02 * 0.02 / 16), 1e-4 * T0, "period %.7f, ideal %.7f", T, T0);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A massless link at the end of a chain leaves its joint without inertia: the world is flagged
 * (not positive definite) and frozen, never stepped into NaN, and other worlds are untouched. */
Test(joint_dynamics, a_massless_leaf_is_flagged_not_spd) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  const jbLink L = {1.0, 0.05, 0.5};
  jb_add_link(m, "arm", -1, 0, 0, 0, &L, 0);
  isoBodyDef b = iso_default_body_def();
  b.mass = 0;
  memset(b.inertia, 0, sizeof b.inertia);
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  isoJointDef j = iso_default_joint_def();
  j.parent = 0, j.child = 1;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 1, 1);
  cr_assert_eq(iso_sim_step(s), ISO_OK);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_one(0), &st), ISO_OK);
  cr_assert(st & ISO_WORLD_NOT_SPD, "status %#x", st);
  cr_assert(st & ISO_WORLD_FROZEN);
  double q[2];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
  cr_assert(isfinite(q[0]) && isfinite(q[1]));
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
