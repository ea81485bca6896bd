/* The SAP Newton solver (kernels/sap/solve.h) alone, on hand-built problems: the sapBatch,
 * contact records and constraint parameters filled directly (no scene, no collision), the Newton loop run exactly as the CPU
 * driver runs it (host/step/sap_step.c: sap_setup_world, then sap_newton_begin → batched
 * Cholesky → sap_newton_end until every world is done).
 *
 * What is checked (drake_algorithms §5.1–5.4):
 *  - no constraints: v = v*, no iteration;
 *  - one free body against the world, three regimes with closed-form optima (separation,
 *    stiction, sliding) for the convex and lagged models, sliding invariants for "similar";
 *  - random multi-body problems (all three models): momentum balance to the stopping
 *    criterion, γ in the friction cone, a true minimum against perturbations, agreement with an
 *    independent minimiser (steepest descent, own Jacobians);
 *  - warm start at the optimum: 0 iterations; exactly quadratic problems: one step, α = 1;
 *    otherwise the line search ends where ℓ stops falling along the Newton direction;
 *  - statistics, the iteration limit, and faults (non-SPD, non-finite) in the status bits.
 *
 * Tolerances. ℓ is strongly convex with modulus λ_min(A) (the constraint costs are convex), so
 * any v satisfies ‖v − v_opt‖ ≤ ‖∇ℓ(v)‖/λ_min(A). Distances to an optimum are therefore
 * bounded by the gradient measured at the returned v (computed here with our own Jacobians),
 * which the stopping criterion bounds in turn; a rounding allowance of RTOL relative covers the
 * closed forms (a few dozen operations, each ≤ eps relative). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/world_status.h"
#include "kernels/sap/solve.h"
#include "support/sap_problem.h"
#include "support/sap_random.h"
#include "support/support.h"

#define RTOL 1e-12

/* ---- problem builders ----------------------------------------------------------------------- */

static mat3 rot_x(double a) {
  return m3_from_rows(v3(1, 0, 0), v3(0, cos(a), -sin(a)), v3(0, sin(a), cos(a)));
}

/* One free body, A = diag(I, m·1₃) with I = (0.1, 0.2, 0.3), touching the world at its origin
 * (J = R_WCᵀ[0 | 1]) in a frame tilted 30° about x. v* = [ω*, R_WC·u*] with u* given in the
 * contact frame; the warm start is zero. Then W = 1₃/m and the Delassus estimate is
 * w = ‖W‖_F/3 = 1/(√3·m) (§5.1). */
#define M1 2.0
#define DT 0.01
static sapContactParams one_body(sapProblem *P, int model, const double us[3]) {
  sapp_init(P, 1, 1, 2, DT);
  const double d[6] = {0.1, 0.2, 0.3, M1, M1, M1};
  for (int k = 0; k < 6; ++k) P->A[7 * k] = d[k];
  P->lam_min[0] = 0.1;
  /* the frame the solver builds for a normal tilted 30° about x (its tangents are its own) */
  mat3 R = sap_frame_from_z(m3_col(rot_x(0.5235987755982988), 2));
  vec3 u = v3_zero();
  for (int i = 0; i < 3; ++i) u = v3_add(u, v3_scale(m3_col(R, i), us[i]));
  const double vs[6] = {0.3, -0.2, 0.1, u.x, u.y, u.z};
  memcpy(P->vstar, vs, sizeof vs);
  sapContactParams p = sap_contact_params_default();
  p.model = model;
  sapp_add_con(P, 0, -1, 0, m3_col(R, 2), v3_zero(), p);
  return p;
}

/* The body's translational velocity at the solution, in the contact frame. */
static void u_contact(const sapProblem *P, double u[3]) { sapp_con_vel(P, P->jac, P->v, u); }

static double w1(void) { return 1 / (sqrt(3.0) * M1); }

static void assert_close(double got, double want, double tol, const char *what) {
  cr_assert(fabs(got - want) <= tol, "%s: %.17g, expected %.17g (tol %.3g)", what, got, want, tol);
}

/* World w: three bodies, six contacts: each body with the world, two body pairs, one more with
 * the world (tests/support/sap_random.h). */
static void random_world(sapProblem *P, int w, int model, test_rng *r) {
  static const int pairs[6][2] = {{-1, 0}, {-1, 1}, {-1, 2}, {0, 1}, {1, 2}, {-1, 0}};
  sapr_world(P, w, model, r, pairs, 6);
}

/* ---- 1. no constraints ----------------------------------------------------------------------- */

/* World 0 has no constraint, world 1 a random contact problem in the same batch: world 0 is
 * done at set-up with v = v* copied (bitwise) and never iterates, while world 1 does. */
Test(sap_solver, no_constraints_gives_free_motion) {
  sapProblem P;
  test_rng r = {11};
  sapp_init(&P, 2, 3, 6, DT);
  random_world(&P, 0, SAP_MODEL_CONVEX, &r);
  random_world(&P, 1, SAP_MODEL_CONVEX, &r);
  P.ncon[0] = 0;
  sapp_solve(&P);
  for (int i = 0; i < P.nv; ++i) cr_assert_eq(P.v[i], P.vstar[i], "v[%d] != v*", i);
  cr_assert_eq(P.stats[0].iterations, 0);
  cr_assert(P.stats[0].converged && P.stats[0].done);
  cr_assert_eq(P.status[0], 0u);
  cr_assert_gt(P.stats[1].iterations, 0);
  cr_assert(P.stats[1].converged);
  sapp_free(&P);
}

/* ---- 2. one body, one contact: closed-form optima -------------------------------------------- */

/* Separation (φ0 = +1 mm gap, fe0 = −k·φ0 < 0, moving apart at 0.3 m/s), every model. Convex:
 * v̂n = −φ0/(δt + τ) < 0 and vn ≥ 0 on the whole Newton line, so y_n < −μ̂·y_r: no impulse (§5.3).
 * Hunt–Crossley: n(z) = 0 for z ≥ fe0/(δt·k) < 0 and n0 = max(0, δt·fe0)·… = 0 (§5.4). So ℓ is
 * ½‖v − v*‖²_A, exactly quadratic: γ = 0, v = v*, one Newton step of α = 1 (α off by rounding of
 * two 6-term dot products: 1e-12). */
Test(sap_solver, separation_gives_no_impulse_and_free_motion) {
  const double us[3] = {0.2, -0.1, 0.3};
  for (int model = 0; model < 3; ++model) {
    sapProblem P;
    sapContactParams p = one_body(&P, model, us);
    p.mu = 0.5, p.k = 1e4, p.d = 2, p.tau = 0.02, p.phi0 = 1e-3, p.fe0 = -10, p.vn0 = 0.3;
    sapp_params(&P, 0)[0] = p;
    sapp_solve(&P);
    cr_assert_eq(P.status[0], 0u);
    cr_assert(P.stats[0].converged);
    for (int k = 0; k < 3; ++k) cr_assert_eq(P.gamma[k], 0.0, "model %d: γ[%d] = %g", model, k, P.gamma[k]);
    double tol = sapp_dist_bound(&P, 0, P.v) + RTOL;
    for (int i = 0; i < 6; ++i) assert_close(P.v[i], P.vstar[i], tol, "v");
    cr_assert_eq(P.stats[0].iterations, 1, "model %d: %d iterations", model, P.stats[0].iterations);
    cr_assert_eq(P.nalpha, 1);
    assert_close(P.alpha[0], 1.0, 1e-12, "α");
    sapp_free(&P);
  }
}

/* Shared convex data (§5.3) with w = 1/(√3·m) in all three equations: w_t = w_n = w_rms = w,
 * Rt = σw, Rn = max(β²/(4π²)·w, 1/(δt·k·(δt + τ))), v̂n = −φ0/(δt + τ). The solver's own data
 * must agree (this checks the Delassus estimate). */
static void convex_setup(sapProblem *P, const double us[3], double *Rt, double *Rn, double *vn_hat) {
  sapContactParams p = one_body(P, SAP_MODEL_CONVEX, us);
  p.mu = 0.5, p.k = 1e4, p.tau = 0.02, p.phi0 = -1e-3;
  sapp_params(P, 0)[0] = p;
  double w = w1();
  *Rt = p.sigma * w;
  *Rn = fmax(p.beta * p.beta / (4 * SAP_PI * SAP_PI) * w, 1 / (DT * p.k * (DT + p.tau)));
  *vn_hat = -p.phi0 / (DT + p.tau);
  sapp_solve(P);
  assert_close(P->con[0].data.Rt, *Rt, RTOL * *Rt, "Rt");
  assert_close(P->con[0].data.Rn, *Rn, RTOL * *Rn, "Rn");
  cr_assert_eq(P->status[0], 0u);
  cr_assert(P->stats[0].converged);
  cr_assert_leq(sapp_crit_ratio(P, 0, P->v, P->B.set.abs_tol, P->B.set.rel_tol), 1 + 1e-6);
}

/* Tolerances on u and γ from the gradient at the returned v: ‖u − u_opt‖ ≤ ‖∇ℓ‖/λ_min = e, and
 * γ = m(u − u*) − (∇ℓ)_u so ‖γ − γ_opt‖ ≤ m·e + ‖∇ℓ‖. */
static void check_u_gamma(const sapProblem *P, const double u_exp[3], const double g_exp[3]) {
  double u[3], e = sapp_dist_bound(P, 0, P->v);
  u_contact(P, u);
  for (int k = 0; k < 3; ++k) {
    assert_close(u[k], u_exp[k], e + RTOL * (1 + fabs(u_exp[k])), "u");
    assert_close(P->gamma[k], g_exp[k], (M1 + P->lam_min[0]) * e + RTOL * (1 + fabs(g_exp[k])), "γ");
  }
}

/* Stiction, convex: γ = y = R⁻¹(v̂ − u) and m(u − u*) = γ give, per equation,
 * u = (m·R·u* + v̂)/(m·R + 1), γ = m(u − u*). The regularised stiction slip is ‖u_t‖ = Rt‖γt‖ ≤
 * Rt·μ·γn. Here ‖u*_t‖ = 0.05 m/s against a cone radius μγn/m ≈ 0.16 m/s. */
Test(sap_solver, convex_stiction_closed_form) {
  const double us[3] = {0.03, -0.04, -0.5};
  sapProblem P;
  double Rt, Rn, vh;
  convex_setup(&P, us, &Rt, &Rn, &vh);
  double R[3] = {Rt, Rt, Rn}, vhat[3] = {0, 0, vh}, u_exp[3], g_exp[3];
  for (int k = 0; k < 3; ++k) {
    u_exp[k] = (M1 * R[k] * us[k] + vhat[k]) / (M1 * R[k] + 1);
    g_exp[k] = M1 * (u_exp[k] - us[k]);
  }
  check_u_gamma(&P, u_exp, g_exp);
  double u[3];
  u_contact(&P, u);
  cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_STICTION);
  cr_assert_leq(hypot(u[0], u[1]), Rt * 0.5 * P.gamma[2]);
  cr_assert_gt(P.gamma[2], 0);
  sapp_free(&P);
}

/* Sliding, convex: with s = ‖u*_t‖, ŝ = u*_t/s, the slip stays along ŝ (friction opposes it and
 * A is isotropic in translation). In the sliding region γn(1 + μ̃²) = y_n + μ̂·y_r with y_n =
 * (v̂n − u_n)/Rn, y_r = ‖u_t‖/Rt (the soft norm's 1e-14 changes y_r ≈ 7e3 by 1e-22 relative),
 * μ̂/Rt = μ/Rn; with u_n = u*_n + γn/m and ‖u_t‖ = s − μγn/m:
 *   γn = (v̂n − u*_n + μs) / (Rn + μ²Rt + (1 + μ²)/m),  γt = −μγn·ŝ. */
Test(sap_solver, convex_sliding_closed_form) {
  const double us[3] = {1.5, -2.0, -0.5};
  sapProblem P;
  double Rt, Rn, vh, mu = 0.5;
  convex_setup(&P, us, &Rt, &Rn, &vh);
  double s = hypot(us[0], us[1]);
  double gn = (vh - us[2] + mu * s) / (Rn + mu * mu * Rt + (1 + mu * mu) / M1);
  double g_exp[3] = {-mu * gn * us[0] / s, -mu * gn * us[1] / s, gn}, u_exp[3];
  for (int k = 0; k < 3; ++k) u_exp[k] = us[k] + g_exp[k] / M1;
  cr_assert_gt(hypot(u_exp[0], u_exp[1]), 0.1, "the closed form assumes sliding");
  check_u_gamma(&P, u_exp, g_exp);
  double u[3];
  u_contact(&P, u);
  cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_SLIDING);
  /* friction = μγn, opposite the final slip: γt + μγn·u_t/‖u_t‖ = 0 up to rounding */
  double ut = hypot(u[0], u[1]);
  for (int k = 0; k < 2; ++k) assert_close(P.gamma[k], -mu * P.gamma[2] * u[k] / ut, RTOL * gn, "γt");
  sapp_free(&P);
}

/* Lagged model (§5.4), k = 1e4, d = 2, fe0 = 10 N (1 mm), vn0 = −0.5, μ = 0.5:
 * n0 = δt·fe0·(1 − d·vn0) = 0.2 N·s, ε_s = max(v_s, μ·Rt·n0) with Rt = σw.
 * Normal: m(u − u*) = n(u) = δt(fe0 − δt·k·u)(1 − d·u) while both factors are positive, i.e.
 * a·u² + b·u + c = 0 with a = δt²·k·d, b = −(m + δt·fe0·d + δt²·k), c = δt·fe0 + m·u*; the
 * root that continues the d = 0 solution is u = 2c/(−b + √(b² − 4ac)).
 * Tangential: u_t = x·ŝ with m(s − x) = μ·n0·x/√(x² + ε_s²), solved by bisection (left side
 * falls, right side rises in x, so the root is unique). */
static void lagged_case(int model, const double us[3], double u_exp[3], double g_exp[3], sapProblem *P) {
  sapContactParams p = one_body(P, model, us);
  p.mu = 0.5, p.k = 1e4, p.d = 2, p.phi0 = -1e-3, p.fe0 = 10, p.vn0 = -0.5;
  sapp_params(P, 0)[0] = p;
  sapp_solve(P);
  cr_assert_eq(P->status[0], 0u);
  cr_assert(P->stats[0].converged);
  cr_assert_leq(sapp_crit_ratio(P, 0, P->v, P->B.set.abs_tol, P->B.set.rel_tol), 1 + 1e-6);
  const double n0 = DT * p.fe0 * (1 - p.d * p.vn0), eps = fmax(p.stiction_tolerance, p.mu * p.sigma * w1() * n0);
  assert_close(P->con[0].data.n0, n0, RTOL * n0, "n0");
  assert_close(P->con[0].data.eps_s, eps, RTOL * eps, "ε_s");
  double a = DT * DT * p.k * p.d, b = -(M1 + DT * p.fe0 * p.d + DT * DT * p.k), c = DT * p.fe0 + M1 * us[2];
  u_exp[2] = 2 * c / (-b + sqrt(b * b - 4 * a * c));
  cr_assert(p.fe0 - DT * p.k * u_exp[2] > 0 && 1 - p.d * u_exp[2] > 0, "both factors positive");
  g_exp[2] = M1 * (u_exp[2] - us[2]);
  double s = hypot(us[0], us[1]), lo = 0, hi = s;
  for (int it = 0; it < 200; ++it) {
    double x = 0.5 * (lo + hi);
    if (M1 * (s - x) > p.mu * n0 * x / sqrt(x * x + eps * eps)) lo = x;
    else hi = x;
  }
  double x = 0.5 * (lo + hi), f = p.mu * n0 * x / sqrt(x * x + eps * eps);
  for (int k = 0; k < 2; ++k) u_exp[k] = x * us[k] / s, g_exp[k] = -f * us[k] / s;
}

/* Stiction: m‖u*_t‖ = 0.04 against μ·n0 = 0.1, so the slip stays inside ε_s (Hunt–Crossley
 * stiction region, ‖vt‖ ≤ ε_s). */
Test(sap_solver, lagged_stiction_closed_form) {
  const double us[3] = {0.012, -0.016, -0.5};
  sapProblem P;
  double u_exp[3], g_exp[3], u[3];
  lagged_case(SAP_MODEL_LAGGED, us, u_exp, g_exp, &P);
  check_u_gamma(&P, u_exp, g_exp);
  u_contact(&P, u);
  cr_assert_leq(hypot(u[0], u[1]), P.con[0].data.eps_s);
  cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_STICTION);
  sapp_free(&P);
}

/* Sliding: the friction is μ·n0 (lagged: the previous step's normal impulse, not γn) times
 * x/√(x² + ε_s²) ≥ 1 − ε_s²/(2x²) ≈ 1 − 1e-9 (asserted with 1e-8), opposite the slip. */
Test(sap_solver, lagged_sliding_closed_form) {
  const double us[3] = {1.5, -2.0, -0.5};
  sapProblem P;
  double u_exp[3], g_exp[3], u[3];
  lagged_case(SAP_MODEL_LAGGED, us, u_exp, g_exp, &P);
  check_u_gamma(&P, u_exp, g_exp);
  u_contact(&P, u);
  cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_SLIDING);
  double ut = hypot(u[0], u[1]), mn0 = 0.5 * P.con[0].data.n0;
  cr_assert_leq(hypot(P.gamma[0], P.gamma[1]), mn0 * (1 + RTOL));
  cr_assert_geq(hypot(P.gamma[0], P.gamma[1]), mn0 * (1 - 1e-8));
  for (int k = 0; k < 2; ++k) assert_close(P.gamma[k], -hypot(P.gamma[0], P.gamma[1]) * u[k] / ut, RTOL, "γt");
  sapp_free(&P);
}

/* Similar model, sliding: normal and friction couple through z = vn − μ‖vt‖_s, so no closed
 * form (lagged_case serves for the set-up and the n0, ε_s checks; its u_exp, g_exp are the
 * lagged ones and unused here). Checked: the law's invariants at the solution (‖γt‖ =
 * μγn·x/√(x² + ε_s²) opposite the slip, γn > 0) and the optimum against the independent
 * minimiser, within the sum of both distance bounds. */
Test(sap_solver, similar_sliding_invariants) {
  const double us[3] = {1.5, -2.0, -0.5};
  sapProblem P;
  double u_exp[3], g_exp[3], u[3], vref[6];
  lagged_case(SAP_MODEL_SIMILAR, us, u_exp, g_exp, &P);
  u_contact(&P, u);
  cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_SLIDING);
  double x = hypot(u[0], u[1]), eps = P.con[0].data.eps_s, gn = P.gamma[2];
  cr_assert_gt(gn, 0);
  for (int k = 0; k < 2; ++k) assert_close(P.gamma[k], -0.5 * gn * u[k] / sqrt(x * x + eps * eps), RTOL * gn, "γt");
  sapp_ref_minimise(&P, 0, vref);
  double e = sapp_dist_bound(&P, 0, P.v) + sapp_dist_bound(&P, 0, vref) + RTOL;
  for (int i = 0; i < 6; ++i) assert_close(P.v[i], vref[i], e, "v vs reference");
  sapp_free(&P);
}

/* ---- 3. random problems: optimality ---------------------------------------------------------- */

/* Four random worlds per model in one batch (seeded), checked by sapr_check_optimal. */
static void random_optimality(int model, uint64_t seed) {
  sapProblem P;
  test_rng r = {seed};
  sapp_init(&P, 4, 3, 6, DT);
  for (int w = 0; w < P.nworld; ++w) random_world(&P, w, model, &r);
  sapp_solve(&P);
  sapr_check_optimal(&P, model, &r);
  sapp_free(&P);
}

Test(sap_solver, random_convex_is_optimal) { random_optimality(SAP_MODEL_CONVEX, 101); }
Test(sap_solver, random_lagged_is_optimal) { random_optimality(SAP_MODEL_LAGGED, 202); }
Test(sap_solver, random_similar_is_optimal) { random_optimality(SAP_MODEL_SIMILAR, 303); }

/* ---- 4. exactly quadratic problems, the line search ----------------------------------------- */

/* A single active linear region: convex stiction with ‖u*_t‖ = 2.2e-5 m/s, warm start v* (the
 * separation test covers the inactive case). G = R⁻¹ is constant in the stiction region and ℓ
 * there is exactly ½(v − v*)ᵀA(v − v*) + ½yᵀRy, quadratic. Stiction holds at v* and at
 * v* + 1.5·(v_opt − v*) (checked), so the region being convex, along the whole line the line
 * search explores: one Newton step, α = 1 (to rounding, 1e-12), then convergence. */
Test(sap_solver, quadratic_region_takes_unit_step) {
  const double us[3] = {2e-5, -1e-5, -0.5};
  sapProblem P;
  double u[3];
  sapContactParams p = one_body(&P, SAP_MODEL_CONVEX, us);
  p.mu = 0.5, p.k = 1e4, p.tau = 0.02, p.phi0 = -1e-3;
  sapp_params(&P, 0)[0] = p;
  memcpy(P.v, P.vstar, sizeof(double) * 6);
  sapp_solve(&P);
  cr_assert_eq(P.status[0], 0u);
  cr_assert_eq(P.stats[0].iterations, 1);
  cr_assert(P.stats[0].converged);
  assert_close(P.alpha[0], 1.0, 1e-12, "α");
  double ends[2][6];
  for (int i = 0; i < 6; ++i) ends[0][i] = P.vstar[i], ends[1][i] = P.vstar[i] + 1.5 * (P.v[i] - P.vstar[i]);
  for (int e = 0; e < 2; ++e) {
    sapp_con_vel(&P, P.jac, ends[e], u);
    cr_assert_eq(sap_contact_region(&P.con[0].data, u), SAP_REGION_STICTION, "end %d leaves stiction", e);
  }
  sapp_free(&P);
}

/* The exact line search (§5.2): after each Newton step of random problems (one per model), the
 * derivative along the direction, ℓ'(α)/ℓ'(0) from our own gradient, vanishes unless α hit
 * α_max = 1.5 with ℓ still falling. The search stops at |f| < 1e-8 (f that same ratio) or at a
 * step below 1e-8·α₀, where f moves by f′·1e-8·α₀ ≈ 1e-8 on a near-quadratic line (f′ ≈ 1/α);
 * 1e-6 leaves room for a hundredfold curvature change and the rounding of our gradient. */
Test(sap_solver, line_search_is_exact) {
  for (int model = 0; model < 3; ++model) {
    sapProblem P;
    test_rng r = {900 + (uint64_t)model};
    sapp_init(&P, 1, 3, 6, DT);
    random_world(&P, 0, model, &r);
    sapp_solve(&P);
    cr_assert(P.stats[0].converged && P.nalpha >= 2);
    for (int k = 0; k < P.nalpha; ++k) {
      if (fabs(P.alpha[k] - P.B.set.ls_alpha_max) < 1e-12) cr_assert_leq(P.slope[k], 1e-6);
      else cr_assert_leq(fabs(P.slope[k]), 1e-6, "model %d step %d: ℓ'(α)/ℓ'(0) = %g at α = %g", model, k,
                         P.slope[k], P.alpha[k]);
    }
    sapp_free(&P);
  }
}

/* The cost criterion (§5.2 step 1), checked where the iteration that follows a step needs ℓ at
 * the new v: with the gradient test out of reach (ε_a = 0, ε_r = 1e-300) a random problem per
 * model still stops, converged, once ℓ stops changing (|Δℓ| < 1e-30 + 1e-15·ℓ after a step with
 * α > 0.5), and its v is the optimum the default test finds: within the two distance bounds
 * (‖∇ℓ‖/λ_min each) and the rounding allowance of the optimality tests (1e-12 relative). A
 * criterion that never held would run into the iteration limit; one that held too early would
 * leave v away from the optimum. */
Test(sap_solver, cost_criterion_stops_at_the_optimum) {
  for (int model = 0; model < 3; ++model) {
    sapProblem P, Q;
    test_rng r = {700 + (uint64_t)model}, s = {700 + (uint64_t)model};
    sapp_init(&P, 1, 3, 6, DT);
    sapp_init(&Q, 1, 3, 6, DT);
    random_world(&P, 0, model, &r);
    random_world(&Q, 0, model, &s);
    P.B.set.abs_tol = 0, P.B.set.rel_tol = 1e-300;
    sapp_solve(&P);
    sapp_solve(&Q);
    cr_assert_eq(P.status[0], 0u, "model %d: status %#x", model, P.status[0]);
    cr_assert(P.stats[0].converged && Q.stats[0].converged);
    cr_assert_gt(P.stats[0].residual, 1, "model %d: the gradient test held, not the cost criterion", model);
    cr_assert_lt(P.stats[0].iterations, P.B.set.max_iterations);
    double e = sapp_dist_bound(&P, 0, P.v) + sapp_dist_bound(&Q, 0, Q.v), dist = 0;
    for (int i = 0; i < P.nv; ++i) dist += (P.v[i] - Q.v[i]) * (P.v[i] - Q.v[i]);
    cr_assert_leq(sqrt(dist), e + 1e-12 * sapp_norm2(Q.v, Q.nv), "model %d: ‖v − v_default‖ = %g > %g", model,
                  sqrt(dist), e);
    sapp_free(&P);
    sapp_free(&Q);
  }
}

/* ---- 5. statistics and faults ---------------------------------------------------------------- */

/* The reported statistics agree with a recomputation: cost = ℓ(v) (rounding: 1e-12 relative),
 * residual = the criterion ratio (the two gradients differ by rounding, ~eps·‖Jᵀγ‖, which moves
 * the ratio by ~eps/ε_r ≈ 1e-10; 1e-6 allowed), converged and done set, one recorded step per
 * counted iteration. */
Test(sap_solver, stats_are_reported) {
  const double us[3] = {1.5, -2.0, -0.5};
  sapProblem P;
  double Rt, Rn, vh;
  convex_setup(&P, us, &Rt, &Rn, &vh);
  const sapStats *st = P.stats;
  cr_assert(st->done && st->converged);
  cr_assert_geq(st->iterations, 2, "sliding from rest should take several Newton steps");
  cr_assert_eq(P.nalpha, st->iterations);
  double l = sapp_cost_grad(&P, 0, P.v, NULL, NULL);
  assert_close(st->cost, l, 1e-12 * fabs(l), "cost");
  double ratio = sapp_crit_ratio(&P, 0, P.v, P.B.set.abs_tol, P.B.set.rel_tol);
  cr_assert_leq(st->residual, 1);
  assert_close(st->residual, ratio, 1e-6 * (1 + ratio), "residual");
  sapp_free(&P);
}

/* The iteration limit: after max_iterations steps the world is done, not converged, and flagged
 * ISO_WORLD_NOT_CONVERGED; frozen as well only under freeze_on_failure. */
Test(sap_solver, iteration_limit_sets_not_converged) {
  const double us[3] = {1.5, -2.0, -0.5};
  for (int freeze = 0; freeze < 2; ++freeze) {
    sapProblem P;
    sapContactParams p = one_body(&P, SAP_MODEL_CONVEX, us);
    p.mu = 0.5, p.k = 1e4, p.tau = 0.02, p.phi0 = -1e-3;
    sapp_params(&P, 0)[0] = p;
    P.B.set.max_iterations = 1;
    P.B.set.freeze_on_failure = freeze;
    sapp_solve(&P);
    cr_assert_eq(P.stats[0].iterations, 1);
    cr_assert(P.stats[0].done && !P.stats[0].converged);
    cr_assert_gt(P.stats[0].residual, 1);
    uint32_t want = ISO_WORLD_NOT_CONVERGED | (freeze ? ISO_WORLD_FROZEN : 0u);
    cr_assert_eq(P.status[0], want, "status %#x, expected %#x", P.status[0], want);
    sapp_free(&P);
  }
}

/* Two worlds: world 0 a good random problem, world 1 broken by `breakit`. World 1 must end with
 * a fault bit and ISO_WORLD_FROZEN, its v left at the warm start (bitwise), not converged;
 * world 0 must come out bitwise as when solved alone. */
typedef void (*breaker)(sapProblem *P);

static void check_fault(breaker breakit, uint32_t expect_bit) {
  sapProblem P, Q;
  test_rng r = {77}, r2 = {77};
  sapp_init(&P, 2, 3, 6, DT);
  sapp_init(&Q, 1, 3, 6, DT);
  random_world(&P, 0, SAP_MODEL_LAGGED, &r);
  random_world(&P, 1, SAP_MODEL_LAGGED, &r);
  random_world(&Q, 0, SAP_MODEL_LAGGED, &r2);
  breakit(&P);
  double v1[18];
  memcpy(v1, sapp_v(&P, P.v, 1), sizeof v1);
  sapp_solve(&P);
  sapp_solve(&Q);
  uint32_t st = P.status[1];
  cr_assert(st & ISO_WORLD_FROZEN, "status %#x", st);
  cr_assert(st & expect_bit, "status %#x lacks %#x", st, expect_bit);
  cr_assert(!P.stats[1].converged && P.stats[1].done);
  cr_assert_eq(memcmp(v1, sapp_v(&P, P.v, 1), sizeof v1), 0, "the faulty world's v changed");
  cr_assert_eq(P.status[0], 0u);
  cr_assert_eq(memcmp(P.v, Q.v, sizeof(double) * 18), 0, "world 0 differs from its solve alone");
  sapp_free(&P);
  sapp_free(&Q);
}

/* A negative translational mass, −1e8 kg: the constraint Hessians here add at most ~1e5 to a
 * diagonal entry of H (1/Rt, μ·n0/ε_s and −n′ for these parameter ranges), so H keeps a
 * negative diagonal entry, is not positive definite, the Cholesky reports it (info > 0) and
 * the world is flagged ISO_WORLD_NOT_SPD. */
static void negative_mass(sapProblem *P) {
  double *A = sapp_A(P, 1);
  for (int i = 0; i < 6; ++i) A[6 * 3 + i] = A[6 * i + 3] = 0;
  A[6 * 3 + 3] = -1e8;
}
Test(sap_solver, non_spd_sets_status) { check_fault(negative_mass, ISO_WORLD_NOT_SPD); }

/* A NaN in v*: the cost and gradient are NaN; the fault is named as non-finite input, not as
 * the failed line search it would otherwise turn into. */
static void nan_vstar(sapProblem *P) { sapp_v(P, P->vstar, 1)[4] = NAN; }
Test(sap_solver, nonfinite_vstar_sets_status) { check_fault(nan_vstar, ISO_WORLD_NONFINITE); }

/* A NaN in the warm start: every constraint sees NaN velocities; named non-finite, not as the
 * failed Cholesky of the NaN Hessian. */
static void nan_v0(sapProblem *P) { sapp_v(P, P->v, 1)[2] = NAN; }
Test(sap_solver, nonfinite_warm_start_sets_status) { check_fault(nan_v0, ISO_WORLD_NONFINITE); }

/* An infinite stiffness in a Hunt–Crossley contact (valid only for the convex model): γ = ∞,
 * so ‖DJᵀγ‖ = ∞ makes the stopping threshold ε_a + ε_r·max(‖Dp‖, ‖Djc‖) infinite and the test
 * ‖D∇ℓ‖ ≤ threshold passes at iteration 0 (residual NaN): the world reports converged with
 * infinite impulses and no status bit — unless sap_newton_begin rejects a non-finite gradient
 * or threshold, which it does: ISO_WORLD_NONFINITE. */
static void inf_stiffness(sapProblem *P) { sapp_params(P, 1)[0].k = INFINITY; }
Test(sap_solver, infinite_stiffness_sets_status) {
  check_fault(inf_stiffness, ISO_WORLD_NONFINITE);
}

/* A world frozen before the step is left alone: no iteration, v unchanged. */
Test(sap_solver, frozen_world_is_skipped) {
  sapProblem P;
  test_rng r = {5};
  sapp_init(&P, 1, 3, 6, DT);
  random_world(&P, 0, SAP_MODEL_SIMILAR, &r);
  P.status[0] = ISO_WORLD_FROZEN;
  double v0[18];
  memcpy(v0, P.v, sizeof v0);
  sapp_solve(&P);
  cr_assert_eq(P.stats[0].iterations, 0);
  cr_assert_eq(memcmp(v0, P.v, sizeof v0), 0);
  cr_assert_eq(P.status[0], ISO_WORLD_FROZEN);
  sapp_free(&P);
}

/* ---- 6. the per-world solve --------------------------------------------------------------- */

/* sap_solve_world runs a world's whole Newton loop as one item (what lets the GPU step without a
 * host round trip per iteration). It must give bitwise what the batched path gives: velocities,
 * iterations, costs and status bits, for every model, with a faulty world in the batch too; with
 * a workspace (blocks formed once, J·v, J·Δv, G and γ kept across passes) as without. */
static void per_world_matches_batched(int model, uint64_t seed, breaker breakit) {
  sapProblem P, Q, R;
  test_rng r = {seed}, r2 = {seed}, r3 = {seed};
  const int NW = 4;
  sapp_init(&P, NW, 3, 6, DT);
  sapp_init(&Q, NW, 3, 6, DT);
  sapp_init(&R, NW, 3, 6, DT);
  for (int w = 0; w < NW; ++w) random_world(&P, w, model, &r), random_world(&Q, w, model, &r2);
  for (int w = 0; w < NW; ++w) random_world(&R, w, model, &r3);
  if (breakit) breakit(&P), breakit(&Q), breakit(&R);
  sapp_solve(&P);
  sapp_prepare(&Q);
  for (int w = 0; w < NW; ++w) sap_solve_world(&Q.B, w);
  /* R: with a workspace (what the CPU backend gives each thread), one for all the worlds */
  sapp_prepare(&R);
  R.B.work = calloc((size_t)R.max_con, sizeof(sapWorkCon));
  for (int w = 0; w < NW; ++w) sap_solve_world(&R.B, w);
  free(R.B.work);
  const sapProblem *S[2] = {&Q, &R};
  for (int k = 0; k < 2; ++k) {
    cr_assert_eq(memcmp(P.v, S[k]->v, sizeof(double) * (size_t)(NW * P.nv)), 0, "velocities differ (model %d, %s)",
                 model, k ? "workspace" : "none");
    for (int w = 0; w < NW; ++w) {
      cr_expect_eq(P.stats[w].iterations, S[k]->stats[w].iterations, "world %d", w);
      cr_expect_eq(P.stats[w].ls_iterations, S[k]->stats[w].ls_iterations, "world %d", w);
      cr_expect_eq(P.stats[w].converged, S[k]->stats[w].converged, "world %d", w);
      cr_expect_eq(memcmp(&P.stats[w].cost, &S[k]->stats[w].cost, sizeof(double)), 0, "world %d", w);
      /* (a NaN residual of a faulted world may carry either sign: C leaves a NaN's sign to the
       * order of the operands, which the compiler may swap) */
      cr_expect(memcmp(&P.stats[w].residual, &S[k]->stats[w].residual, sizeof(double)) == 0 ||
                    (isnan(P.stats[w].residual) && isnan(S[k]->stats[w].residual)),
                "world %d", w);
      cr_expect_eq(P.status[w], S[k]->status[w], "world %d", w);
    }
  }
  sapp_free(&P);
  sapp_free(&Q);
  sapp_free(&R);
}

Test(sap_solver, per_world_solve_is_bitwise_the_batched_one) {
  per_world_matches_batched(SAP_MODEL_CONVEX, 11, NULL);
  per_world_matches_batched(SAP_MODEL_LAGGED, 12, NULL);
  per_world_matches_batched(SAP_MODEL_SIMILAR, 13, NULL);
  per_world_matches_batched(SAP_MODEL_LAGGED, 14, negative_mass);
  per_world_matches_batched(SAP_MODEL_LAGGED, 15, nan_v0);
}

/* The clique product and the Jacobian products take several rows' sums at once (four rows of A;
 * a block's rows with k outside): each row must still be the one sequential sum in k order that
 * the loops written out below take, bit for bit, at every size (the remainder rows of A
 * included). */
Test(sap_solver, row_interleaved_products_keep_the_sequential_sums_bits) {
  test_rng r = {77};
  double A[29 * 29], x[29], y[29], J[3 * 29], vc[3], ref[3];
  int cols[29];
  for (int n = 1; n <= 29; ++n) {
    for (int i = 0; i < n * n; ++i) A[i] = test_rng_uniform(&r, -1, 1);
    for (int i = 0; i < n; ++i) x[i] = test_rng_uniform(&r, -1, 1) * pow(10, (double)(i % 7) - 3);
    sap_mul_A_n(A, n, x, y);
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += A[n * i + k] * x[k];
      cr_assert(test_same_bits(&s, y + i, 1), "A·x, n = %d: row %d differs", n, i);
    }
    for (int m = 1; m <= 3; ++m) {
      for (int i = 0; i < m * n; ++i) J[i] = test_rng_uniform(&r, -1, 1);
      for (int k = 0; k < n; ++k) cols[k] = (int)(test_rng_u64(&r) % (uint64_t)n);
      for (int gather = 0; gather < 2; ++gather) {
        for (int i = 0; i < m; ++i) vc[i] = ref[i] = test_rng_uniform(&r, -1, 1);
        if (gather) sap_gather_apply(J, m, n, cols, x, vc);
        else sap_block_apply_n(J, m, n, x, vc);
        for (int i = 0; i < m; ++i)
          for (int k = 0; k < n; ++k) ref[i] += J[n * i + k] * x[gather ? cols[k] : k];
        cr_assert(test_same_bits(ref, vc, m), "J·x, %d × %d, gather %d: differs", m, n, gather);
      }
    }
  }
}
