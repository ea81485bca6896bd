/* Contact dynamics of whole scenes against equilibria, friction laws, energy bounds and the
 * solver's optimality conditions, for hydroelastic and point contact. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/sap_internal.h"
#include "host/sim/sim_internal.h"
#include "isobar/isobar.h"
#include "support/scene_builders.h"
#include "support/support.h"

static const double G = 9.81;

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "step %d: %s", i, iso_last_error());
}

static void body_state(isoSim *s, int w, int b, double q[7], double v[6]) {
  double Q[7 * 16], V[6 * 16];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), Q);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), V);
  memcpy(q, Q + 7 * b, 7 * sizeof(double));
  memcpy(v, V + 6 * b, 6 * sizeof(double));
}

static void assert_clean(isoSim *s) {
  for (int w = 0; w < iso_sim_world_count(s); ++w) {
    uint32_t st;
    iso_sim_get_status(s, iso_worlds_one(w), &st);
    cr_assert_eq(st, 0u, "world %d status %#x", w, st);
  }
}

/* ---- resting box ------------------------------------------------------------------------------ */

/* Sinking of a compliant box (half sizes hx, hy; h_min) pressed flat: F(d) = mg, with
 * F(d) = 4E/h_min·(hx·hy·d − (hx+hy)d²/2 + d³/3) (the exact integral of E·depth/h_min). */
static double box_sink(double hx, double hy, double hmin, double E, double W) {
  double d = W * hmin / (4 * E * hx * hy);
  for (int i = 0; i < 50; ++i) {
    double F = 4 * E / hmin * (hx * hy * d - (hx + hy) * d * d / 2 + d * d * d / 3) - W;
    double dF = 4 * E / hmin * (hx * hy - (hx + hy) * d + d * d);
    d -= F / dF;
  }
  return d;
}

Test(contact_dynamics, box_rests_on_plane_hydroelastic) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.2, 0.16, 0.1}, 2.0, 1e6, 1e6, 20, 0.5};
  tb_add_block(m, "box", &b, TB_HYDRO);
  int ground = tb_add_ground(m, 0.5, TB_HYDRO);
  (void)ground;
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  tb_place(s, 0, 0, 0, 0, 0.05 + 0.0005); /* dropped from 0.5 mm */
  run(s, 3000);
  assert_clean(s);
  double q[7], v[6], w[6];
  body_state(s, 0, 0, q, v);
  iso_sim_get_body_contact_wrench(s, 0, 0, w);
  const double W = b.mass * G;
  /* At rest the lagged model's normal impulse is dt·fe0 exactly, so the contact force balances
   * the weight to the solver's relative tolerance (1e-6) — allow 1e-5 for the settling residue. */
  cr_assert_float_eq(w[5], W, 1e-5 * W, "net contact force %.9g vs weight %.9g", w[5], W);
  /* Stiction is regularised (γt = −vt/Rt with Rt = σ·w, σ = 1e-3): a velocity residual at the
   * solver's tolerance ε_r = 1e-6 shows up amplified by 1/σ in the tangential force, so the
   * net tangential force at rest is bounded by ~ε_r/σ·W = 1e-3·W (it measures ~5e-5·W). */
  cr_assert_lt(fabs(w[3]) + fabs(w[4]), 1e-3 * W, "no tangential force at rest (%g, %g)", w[3], w[4]);
  /* The sinking follows the pressure field. Under the box the field is E·d/h_min; the thin
   * strips along the sides lie in tets whose gradient is horizontal, so their normal gradient
   * is zero in exact arithmetic and, after rounding, either just positive (kept, with a
   * vanishing stiffness) or not (skipped: Drake's g < 1e-14 rule, reference §3). The
   * equilibrium depth therefore lies between the depth where the whole section carries the
   * weight (F(d) = 4E/h_min·(hx·hy·d − (hx+hy)d²/2 + d³/3)) and the depth where only the
   * section under the bottom face does (E·d/h_min·(2hx − 2d)(2hy − 2d)); they differ by 2e-4. */
  double d_full = box_sink(0.1, 0.08, 0.05, b.E, W), d_bottom = d_full;
  for (int i = 0; i < 50; ++i) {
    double F = b.E * d_bottom / 0.05 * (0.2 - 2 * d_bottom) * (0.16 - 2 * d_bottom) - W;
    double dF = b.E / 0.05 * ((0.2 - 2 * d_bottom) * (0.16 - 2 * d_bottom) - 2 * d_bottom * (0.36 - 4 * d_bottom));
    d_bottom -= F / dF;
  }
  double sink = 0.05 - q[6];
  cr_assert_geq(sink, d_full * (1 - 1e-6), "sinking %.9g below the full-section bound %.9g", sink, d_full);
  cr_assert_leq(sink, d_bottom * (1 + 1e-6), "sinking %.9g above the bottom-section bound %.9g", sink, d_bottom);
  cr_assert_lt(fabs(v[5]), 1e-6, "at rest");
  isoSolverStats st;
  iso_sim_get_solver_stats(s, 0, &st);
  cr_assert(st.converged);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(contact_dynamics, box_rests_on_plane_point_contact) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.2, 0.16, 0.1}, 2.0, 1e6, 2e5, 20, 0.5};
  tb_add_block(m, "box", &b, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT); /* rigid (k = ∞): the box's stiffness is the pair's */
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  tb_place(s, 0, 0, 0, 0, 0.05);
  run(s, 3000);
  assert_clean(s);
  double q[7], v[6], w[6];
  body_state(s, 0, 0, q, v);
  iso_sim_get_body_contact_wrench(s, 0, 0, w);
  const double W = b.mass * G;
  int n;
  iso_sim_contact_count(s, 0, &n);
  cr_assert_eq(n, 1, "a flat box on a plane is one point contact, as in Drake (FCL's face centre)");
  cr_assert_float_eq(w[5], W, 1e-5 * W, "net contact force %.9g vs weight %.9g", w[5], W);
  /* f = k·x at rest (no velocity, so no dissipation): the penetration is W/k, to the solver's
   * tolerance. */
  cr_assert_float_eq(0.05 - q[6], W / b.k, 1e-5 * W / b.k, "penetration %.9g vs W/k = %.9g", 0.05 - q[6], W / b.k);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* ---- ball drop -------------------------------------------------------------------------------- */

Test(contact_dynamics, ball_drop_energy_never_grows_and_rebound_respects_hunt_crossley) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  const double R = 0.05, mass = 0.5, d = 1.0; /* bound on the rebound speed: 1/d = 1 m/s */
  tb_add_ball(m, "ball", R, mass, 1e6, 1e5, d, 0.5, 0.02, TB_HYDRO);
  tb_add_ground(m, 0.5, TB_HYDRO);
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  tb_place(s, 0, 0, 0, 0, R + 0.01);
  double v0[6] = {0, 0, 0, 0, 0, -3.0}; /* 3 m/s into the ground */
  iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(0), v0);
  double q[7], v[6], E_free = INFINITY, max_up = 0;
  int touched = 0;
  for (int i = 0; i < 600; ++i) {
    run(s, 1);
    body_state(s, 0, 0, q, v);
    int n;
    iso_sim_contact_count(s, 0, &n);
    double E = 0.5 * mass * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) +
               0.5 * 0.4 * mass * R * R * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + mass * G * q[6];
    if (n > 0) touched = 1;
    if (n == 0) {
      /* Out of contact there is no elastic energy: mechanical energy must never grow (free
       * flight under symplectic Euler loses ½mg²dt² per step; allow 1e-12 J of rounding). */
      cr_assert_leq(E, E_free + 1e-12, "energy grew from %.12g to %.12g at step %d", E_free, E, i);
      E_free = E;
    }
    if (touched) max_up = fmax(max_up, v[5]);
  }
  cr_assert(touched, "the ball must hit the ground");
  /* Hunt–Crossley: the force (1 + d·ẋ)₊ vanishes once the separation speed reaches 1/d, so
   * the rebound cannot exceed it (a hair over for the last step's discretisation: 2%). */
  cr_assert_gt(max_up, 0, "the ball rebounds");
  cr_assert_leq(max_up, 1.02 / d, "rebound %.6g m/s exceeds the Hunt–Crossley bound %.6g", max_up, 1 / d);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* ---- incline (gravity tilted about x by θ is an incline of angle θ) ---------------------------- */

static void incline(int model, int approximation, double theta, double mu, double *speed, double *accel) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.1, 0.1, 0.05}, 1.0, 1e6, 1e6, 20, mu};
  if (model == TB_HYDRO) {
    tb_add_block(m, "block", &b, model);
  } else {
    /* With point contact a box face touches at one point (Drake's FCL box–half-space), which
     * cannot hold the tipping moment on a slope; point-contact blocks stand on small spheres
     * at their corners, as Drake users model them. The body is the same 10 x 10 x 5 cm block. */
    isoBodyDef bd = iso_default_body_def();
    bd.name = "block";
    bd.mass = 1.0;
    bd.inertia[0] = bd.inertia[1] = 1.0 / 12 * (0.01 + 0.0025), bd.inertia[2] = 1.0 / 12 * 0.02;
    iso_model_add_body(m, &bd, NULL);
    for (int c = 0; c < 4; ++c) {
      isoGeometryDef g = iso_default_geometry_def();
      g.body = 0;
      g.size[0] = 0.005;
      g.position[0] = (c & 1) ? 0.045 : -0.045, g.position[1] = (c & 2) ? 0.045 : -0.045, g.position[2] = -0.02;
      g.point_stiffness = b.k;
      g.hunt_crossley_dissipation = b.d;
      g.mu_static = g.mu_dynamic = mu;
      cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
    }
  }
  tb_add_ground(m, mu, model);
  isoSim *s = tb_sim(m, 1, 1, approximation);
  double g[3] = {0, G * sin(theta), -G * cos(theta)}; /* downhill is +y */
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GRAVITY, 0, iso_worlds_all(), g), ISO_OK);
  tb_place(s, 0, 0, 0, 0, 0.025 - 0.0002);
  run(s, 500);
  double q[7], v1[6], v2[6];
  body_state(s, 0, 0, q, v1);
  run(s, 500);
  body_state(s, 0, 0, q, v2);
  assert_clean(s);
  *speed = hypot(v2[3], v2[4]);
  *accel = (v2[4] - v1[4]) / 0.5;
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

static void incline_both(int model, int approximation) {
  const double mu = 0.5;
  double speed, accel;
  incline(model, approximation, 20 * 3.14159265358979323846 / 180, mu, &speed, &accel); /* tan 20° = 0.36 < μ */
  cr_assert_lt(speed, 1e-3, "below the friction angle the block sticks (speed %g m/s)", speed);
  const double th = 35 * 3.14159265358979323846 / 180; /* tan 35° = 0.70 > μ */
  incline(model, approximation, th, mu, &speed, &accel);
  double a = G * (sin(th) - mu * cos(th));
  /* Sliding friction is μ·n with n the normal impulse (lagged: of the previous step, the same
   * at steady sliding) smoothed over ε_s ≈ 1e-4 m/s against speeds ~1 m/s: 1e-3 relative. */
  cr_assert_float_eq(accel, a, 1e-3 * a, "acceleration %.6g vs g(sinθ − μcosθ) = %.6g", accel, a);
}

Test(contact_dynamics, incline_hydroelastic) { incline_both(TB_HYDRO, ISO_CONTACT_LAGGED); }
Test(contact_dynamics, incline_point_contact) { incline_both(TB_POINT, ISO_CONTACT_LAGGED); }

/* ---- stack ------------------------------------------------------------------------------------- */

Test(contact_dynamics, stack_of_five_boxes_stands_ten_seconds) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.1, 0.1, 0.1}, 1.0, 1e6, 1e6, 20, 0.5};
  const char *names[5] = {"b0", "b1", "b2", "b3", "b4"};
  for (int i = 0; i < 5; ++i) tb_add_block(m, names[i], &b, TB_HYDRO);
  tb_add_ground(m, 0.5, TB_HYDRO);
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  for (int i = 0; i < 5; ++i) tb_place(s, 0, i, 0, 0, 0.05 + 0.1 * i);
  run(s, 10000);
  assert_clean(s);
  for (int i = 0; i < 5; ++i) {
    double q[7], v[6];
    body_state(s, 0, i, q, v);
    /* standing: each box within 1 mm of its column and at most a few mm lower (the pads
     * compress by ~0.1 mm each), upright, and at rest */
    cr_assert_lt(hypot(q[4], q[5]), 1e-3, "box %d drifted %g m", i, hypot(q[4], q[5]));
    cr_assert_float_eq(q[6], 0.05 + 0.1 * i, 3e-3, "box %d height %g", i, q[6]);
    cr_assert_gt(q[0], 0.9999, "box %d tipped", i);
    cr_assert_lt(fabs(v[5]), 1e-3, "box %d moving", i);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* ---- optimality ------------------------------------------------------------------------------- */

Test(contact_dynamics, solution_satisfies_momentum_balance_and_cones) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.1, 0.08, 0.06}, 1.5, 5e5, 1e6, 20, 0.4};
  tb_add_block(m, "box", &b, TB_HYDRO);
  tb_add_ball(m, "ball", 0.04, 0.3, 2e5, 1e5, 10, 0.6, 0.02, TB_HYDRO);
  tb_add_ground(m, 0.7, TB_HYDRO);
  const isoContactApproximation approx[3] = {ISO_CONTACT_LAGGED, ISO_CONTACT_SIMILAR, ISO_CONTACT_CONVEX};
  for (int a = 0; a < 3; ++a) {
    isoSim *s = tb_sim(m, 1, 1, approx[a]);
    tb_place(s, 0, 0, 0, 0, 0.029);
    tb_place(s, 0, 1, 0.02, 0.01, 0.06 + 0.035);
    double v[12] = {0.3, -0.2, 0.5, 0.4, 0.2, -0.1, 1, 0, 0, -0.3, 0.1, -0.5};
    iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(0), v);
    run(s, 30);
    simSap *p = s->sap;
    const sapBatch *B = &p->batch;
    int n = s->ncon[0];
    cr_assert_gt(n, 3, "the scene must be in contact (%d constraints)", n);
    /* Momentum balance A(v − v*) = Jᵀγ, recomputed here from the solver's outputs: the residual
     * in the D-norm is below the stopping tolerance ε_r·max(‖Dp‖, ‖Djc‖). */
    const int nv = s->nv;
    double Av[12], jc[12] = {0}, e[12];
    for (int i = 0; i < nv; ++i) e[i] = s->v[i] - s->vstar[i];
    const sapClique *cl = B->clique; /* world 0's */
    sap_mul_A(cl, B->nclique[0], s->A, e, Av);
    /* γ as the results report it: the constraints' impulses at the solved velocities */
    isoContactResult *res = (isoContactResult *)calloc((size_t)n, sizeof *res);
    int nres = 0;
    cr_assert_eq(iso_sim_get_contact_results(s, 0, res, n, &nres), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(nres, n);
    for (int i = 0; i < n; ++i) {
      sapJac j = sap_con_jac(B, 0, s->con + i);
      sap_con_apply_t(&j, cl, res[i].impulse, 1, jc);
    }
    double r = 0, jn = 0;
    for (int i = 0; i < nv; ++i) {
      const sapClique *k = cl + i / 6; /* free body b is clique b, of 6 DoFs */
      double dA = s->A[k->a0 + (k->nv + 1) * (i - k->v0)];
      r += (Av[i] - jc[i]) * (Av[i] - jc[i]) / dA;
      jn += jc[i] * jc[i] / dA;
    }
    cr_assert_leq(sqrt(r), 1e-6 * sqrt(jn) + 1e-14, "approximation %d: momentum residual %g vs %g", approx[a],
                  sqrt(r), sqrt(jn));
    /* Each impulse is what its constraint gives at the final contact velocity, and it lies in
     * its friction cone: ‖γt‖ ≤ μ·γn (convex, similar) or ≤ μ·n0 (lagged). */
    for (int i = 0; i < n; ++i) {
      const sapCon *c = s->con + i;
      sapJac j = sap_con_jac(B, 0, c);
      double vc[3], g[3];
      sap_con_apply(&j, cl, s->v, vc);
      sap_contact_eval(&c->data, vc, g, NULL);
      for (int k = 0; k < 3; ++k) cr_assert_float_eq(g[k], res[i].impulse[k], 1e-12 + 1e-12 * fabs(g[k]));
      double gt = hypot(g[0], g[1]);
      cr_assert_geq(g[2], 0, "normal impulses push");
      double limit = approx[a] == ISO_CONTACT_LAGGED ? c->data.mu * c->data.n0 : c->data.mu * g[2];
      cr_assert_leq(gt, limit * (1 + 1e-9) + 1e-15, "constraint %d outside its friction cone: %g > %g", i, gt, limit);
    }
    free(res);
    iso_sim_destroy(s);
  }
  iso_model_destroy(m);
}

/* ---- faults and determinism ---------------------------------------------------------------- */

static isoModel *pile(void) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.1, 0.08, 0.06}, 1.0, 5e5, 1e6, 20, 0.5};
  tb_add_block(m, "box", &b, TB_HYDRO);
  tb_add_ball(m, "ball", 0.04, 0.3, 2e5, 1e5, 10, 0.6, 0.02, TB_HYDRO);
  tb_add_ground(m, 0.7, TB_HYDRO);
  return m;
}

static void pile_init(isoSim *s) {
  for (int w = 0; w < iso_sim_world_count(s); ++w) {
    tb_place(s, w, 0, 0.001 * w, 0, 0.031);
    tb_place(s, w, 1, 0.02 - 0.002 * w, 0.01, 0.11 + 0.003 * (w % 3));
  }
}

static uint64_t hash_world(isoSim *s, int w) {
  double x[7 * 2 + 6 * 2];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), x);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), x + 14);
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)x;
  for (size_t i = 0; i < sizeof x; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

Test(contact_dynamics, threads_identical_and_faulty_world_isolated) {
  isoModel *m = pile();
  const int N = 9;
  isoSim *one = tb_sim(m, N, 1, ISO_CONTACT_LAGGED), *two = tb_sim(m, N, 2, ISO_CONTACT_LAGGED);
  isoSim *bad = tb_sim(m, N, 2, ISO_CONTACT_LAGGED), *alone = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  pile_init(one), pile_init(two), pile_init(bad);
  tb_place(alone, 0, 0, 0.001 * 7, 0, 0.031);
  tb_place(alone, 0, 1, 0.02 - 0.002 * 7, 0.01, 0.11 + 0.003 * (7 % 3));
  double inf[12] = {0, 0, 0, 0, 0, 0, 1e300, 1e300, 1e300, 0, 0, 0}; /* a spin that overflows */
  iso_sim_set_state(bad, ISO_STATE_V, iso_worlds_one(4), inf);
  run(one, 300), run(two, 300), run(bad, 300), run(alone, 300);
  for (int w = 0; w < N; ++w) {
    cr_assert_eq(hash_world(one, w), hash_world(two, w), "world %d differs between 1 and 2 threads", w);
    uint32_t st;
    iso_sim_get_status(bad, iso_worlds_one(w), &st);
    if (w == 4) {
      cr_assert(st & ISO_WORLD_FROZEN, "the faulty world is frozen (status %#x)", st);
    } else {
      cr_assert_eq(st, 0u);
      cr_assert_eq(hash_world(bad, w), hash_world(one, w), "world %d changed by the faulty world", w);
    }
  }
  cr_assert_eq(hash_world(alone, 0), hash_world(one, 7), "world 7 alone equals world 7 in the batch");
  iso_sim_destroy(one), iso_sim_destroy(two), iso_sim_destroy(bad), iso_sim_destroy(alone);
  iso_model_destroy(m);
}

/* ---- defaults from the penetration allowance, constraint overflow ------------------------- */

Test(contact_dynamics, penetration_allowance_sets_the_default_stiffness) {
  isoModelDef md = iso_default_model_def();
  md.penetration_allowance = 2e-3;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  /* stiffness 0 and dissipation NaN: both estimated (reference §4.4) */
  tbBlock b = {{0.1, 0.1, 0.1}, 3.0, 1e6, 0.0, NAN, 0.5};
  tb_add_block(m, "box", &b, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT);
  isoSim *s = tb_sim(m, 1, 1, ISO_CONTACT_LAGGED);
  double k;
  iso_sim_get_param(s, ISO_PARAM_GEOM_STIFFNESS, 0, iso_worlds_one(0), &k);
  /* per geometry 2·m_max·g/allowance; against the rigid ground the pair's k is that */
  cr_assert_float_eq(k, 2 * 3.0 * G / 2e-3, 1e-9 * k);
  tb_place(s, 0, 0, 0, 0, 0.05);
  run(s, 3000);
  assert_clean(s);
  double q[7], v[6];
  body_state(s, 0, 0, q, v);
  /* the box settles at W/k: half the allowance, since each geometry gets twice k_c */
  cr_assert_float_eq(0.05 - q[6], 1e-3, 1e-8, "penetration %g", 0.05 - q[6]);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(contact_dynamics, constraint_overflow_freezes_only_that_world) {
  /* four point contacts (corner spheres of one body) against a capacity of three */
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  isoBodyDef bd = iso_default_body_def();
  bd.name = "table";
  iso_model_add_body(m, &bd, NULL);
  for (int c = 0; c < 4; ++c) {
    isoGeometryDef g = iso_default_geometry_def();
    g.body = 0;
    g.size[0] = 0.01;
    g.position[0] = (c & 1) ? 0.05 : -0.05, g.position[1] = (c & 2) ? 0.05 : -0.05;
    iso_model_add_geometry(m, &g, NULL);
  }
  tb_add_ground(m, 0.5, TB_POINT);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 2;
  sd.backend = ISO_BACKEND_CPU;
  sd.capacity.max_contacts = 3;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  tb_place(s, 0, 0, 0, 0, 0.0099); /* world 0: all four spheres touch */
  tb_place(s, 1, 0, 0, 0, 0.5);    /* world 1: in the air */
  run(s, 1);
  uint32_t st[2];
  iso_sim_get_status(s, iso_worlds_all(), st);
  cr_assert(st[0] & ISO_WORLD_OVERFLOW, "world 0 outgrows 3 constraints (status %#x)", st[0]);
  cr_assert(st[0] & ISO_WORLD_FROZEN);
  int nc, nf, ncon;
  cr_assert_eq(iso_sim_get_overflow(s, 0, &nc, &nf, &ncon), ISO_OK);
  cr_assert_eq(ncon, 4, "the capacity that was needed is reported (%d)", ncon);
  cr_assert_eq(st[1], 0u, "world 1 keeps stepping");
  double z;
  run(s, 10);
  double q[7];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(1), q);
  z = q[6];
  cr_assert_lt(z, 0.5, "world 1 falls on");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(contact_dynamics, cuda_matches_cpu) {
  test_require_cuda_device();
  isoModel *m = pile();
  const int N = 9;
  isoSim *c = tb_sim(m, N, 2, ISO_CONTACT_LAGGED);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = N;
  sd.backend = ISO_BACKEND_CUDA;
  sd.capacity.max_candidates = 4096;
  isoSim *g = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &g), ISO_OK, "%s", iso_last_error());
  pile_init(c), pile_init(g);
  run(c, 200), run(g, 200);
  for (int w = 0; w < N; ++w) {
    double qc[14], qg[14], vc[12], vg[12];
    iso_sim_get_state(c, ISO_STATE_Q, iso_worlds_one(w), qc);
    iso_sim_get_state(g, ISO_STATE_Q, iso_worlds_one(w), qg);
    iso_sim_get_state(c, ISO_STATE_V, iso_worlds_one(w), vc);
    iso_sim_get_state(g, ISO_STATE_V, iso_worlds_one(w), vg);
    if (test_cuda_exact()) {
      /* the CPU's item code and Cholesky without contraction (the emulated device, or nvcc with
       * --fmad=false, ISO_PARITY: every example scene kept the CPU's bits on an H200): the same
       * bits after 200 steps */
      cr_assert(test_same_bits(qc, qg, 14), "world %d: q differs from the CPU's", w);
      cr_assert(test_same_bits(vc, vg, 12), "world %d: v differs from the CPU's", w);
    } else {
      /* FMA and libm differences grow through 200 contact steps. The emulated launch layer
       * compiled with -mfma -ffp-contract=fast drifted by up to 2.3e-7 m and 4e-6 m/s here, with
       * the same status bits: positions agree to 1e-6 m. */
      for (int i = 0; i < 14; ++i) cr_assert_float_eq(qc[i], qg[i], 1e-6, "world %d q[%d]", w, i);
      for (int i = 0; i < 12; ++i) cr_assert_float_eq(vc[i], vg[i], 1e-4, "world %d v[%d]", w, i);
    }
    uint32_t sc, sg;
    iso_sim_get_status(c, iso_worlds_one(w), &sc);
    iso_sim_get_status(g, iso_worlds_one(w), &sg);
    cr_assert_eq(sc, sg, "world %d status", w);
  }
  iso_sim_destroy(c), iso_sim_destroy(g);
  iso_model_destroy(m);
}
