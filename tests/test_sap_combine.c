/* Contact parameter combination rules and defaults (kernels/contact/combine.h): drake_algorithms
 * §3 (hydroelastic faces), §4.2 (point pairs), §4.4 (defaults, penetration allowance); seed 003
 * ("Modeling Compliant Contact") and seed 000 §IV.
 *
 * Exact rules are checked exactly where the arithmetic is exact, and otherwise to a few ulps
 * of the result (each formula is one or two roundings: 4·eps relative is the bound used). */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/contact/combine.h"
#include "support/support.h"

#define EPS 2.220446049250313e-16

static int close_rel(double a, double b, double ulps) {
  return fabs(a - b) <= ulps * EPS * fmax(fabs(a), fabs(b));
}

static double logu(test_rng *r, double lo, double hi) {
  return exp(test_rng_uniform(r, log(lo), log(hi)));
}

/* ---- stiffness ---------------------------------------------------------------------------- */

Test(sap_combine, point_stiffness) {
  /* seed 003: k = k1·k2/(k1 + k2); two equal geometries give half. */
  cr_assert(sap_combine_stiffness(1e6, 1e6) == 5e5);
  cr_assert(close_rel(sap_combine_stiffness(1e6, 3e6), 7.5e5, 4));
  /* §4.2: one side ∞ gives the other; a zero denominator gives 0; one zero gives 0. */
  cr_assert(sap_combine_stiffness(INFINITY, 3e5) == 3e5);
  cr_assert(sap_combine_stiffness(2e5, INFINITY) == 2e5);
  cr_assert(sap_combine_stiffness(0, 0) == 0);
  cr_assert(sap_combine_stiffness(0, 5e5) == 0);
  cr_assert(sap_combine_stiffness(INFINITY, 0) == 0);
  /* symmetric in the arguments (bitwise: the same products and sum) and below both */
  test_rng r = {42};
  for (int i = 0; i < 1000; ++i) {
    double a = logu(&r, 1, 1e9), b = logu(&r, 1, 1e9);
    double k = sap_combine_stiffness(a, b);
    cr_assert(k == sap_combine_stiffness(b, a));
    cr_assert(k <= fmin(a, b) * (1 + 4 * EPS) && k >= 0.5 * fmin(a, b) * (1 - 4 * EPS));
    /* series springs: 1/k = 1/a + 1/b */
    cr_assert(close_rel(1 / k, 1 / a + 1 / b, 8));
  }
}

/* ---- dissipation -------------------------------------------------------------------------- */

Test(sap_combine, point_dissipation) {
  /* seed 003: d = k2/(k1+k2)·d1 + k1/(k1+k2)·d2 — the softer geometry's d dominates. */
  double d = sap_combine_point_dissipation(1e6, 3e6, 10, 50);
  cr_assert(close_rel(d, 0.75 * 10 + 0.25 * 50, 4), "d = %g", d);
  cr_assert(sap_combine_point_dissipation(1e6, 1e6, 10, 50) == 30); /* equal k: the mean */
  cr_assert(sap_combine_point_dissipation(INFINITY, 1e6, 10, 50) == 50);
  cr_assert(sap_combine_point_dissipation(1e6, INFINITY, 10, 50) == 10);
  cr_assert(sap_combine_point_dissipation(0, 0, 10, 50) == 0);
  /* one side of zero stiffness: all its compliance, so its d */
  cr_assert(sap_combine_point_dissipation(0, 1e6, 10, 50) == 10);
  /* both rigid (rejected at model build): the symmetric mean */
  cr_assert(sap_combine_point_dissipation(INFINITY, INFINITY, 10, 50) == 30);
}

Test(sap_combine, deformable_rigid_dissipation) {
  /* §6.4 (DeformableDriver): the weights are the face's stiffnesses A·C and k = A·g, g the
   * combined gradient. C = 1e8, g_rigid = 2e8 Pa/m: g = 2e8/3, so d = (g·d_def + C·d_rigid) /
   * (C + g) = (2/3·5 + 50)/(5/3) = 32 for d_def = 5, d_rigid = 50. Weighting by g_rigid itself
   * gives (2·5 + 50)/3 = 20 instead. A few roundings: 16 ulps. */
  const double A = 3e-4, C = 1e8, gr = 2e8;
  double k, phi0, fe0;
  cr_assert(sap_hydro_face_params(A, 1e3, C, gr, &k, &phi0, &fe0));
  double d = sap_combine_deformable_rigid_dissipation(A, C, k, gr, 5, 50);
  cr_assert(close_rel(d, 32, 16), "d = %.17g", d);
  /* equal d on both sides: that d whatever the weights */
  cr_assert(close_rel(sap_combine_deformable_rigid_dissipation(A, C, k, gr, 7, 7), 7, 4));
  /* a stiffer rigid field moves g toward C and d toward the mean: g_rigid = 1e12 gives ~27.5 */
  cr_assert(sap_hydro_face_params(A, 1e3, C, 1e12, &k, &phi0, &fe0));
  d = sap_combine_deformable_rigid_dissipation(A, C, k, 1e12, 5, 50);
  cr_assert(fabs(d - 27.5) < 1e-2 && d > 27.5, "d = %.17g", d);
  /* a half-space (g_rigid = ∞) is rigid: the deformable's d */
  cr_assert(sap_hydro_face_params(A, 1e3, C, INFINITY, &k, &phi0, &fe0));
  cr_assert(sap_combine_deformable_rigid_dissipation(A, C, k, INFINITY, 5, 50) == 5);
}

Test(sap_combine, hydro_dissipation) {
  /* seed 003: E = Ea·Eb/(Ea+Eb), d = E/Ea·da + E/Eb·db = Eb/(Ea+Eb)·da + Ea/(Ea+Eb)·db */
  double Ea = 1e7, Eb = 1e5, da = 20, db = 60;
  double E = Ea * Eb / (Ea + Eb);
  double d = sap_combine_hydro_dissipation(Ea, Eb, da, db);
  cr_assert(close_rel(d, E / Ea * da + E / Eb * db, 8), "d = %g", d);
  cr_assert(d > 59 && d < 60); /* the softer B (Eb ≪ Ea) dominates */
  /* §3: a rigid side (∞) gives the compliant side's d; E_M + E_N = 0 gives 0 */
  cr_assert(sap_combine_hydro_dissipation(INFINITY, 1e6, da, db) == db);
  cr_assert(sap_combine_hydro_dissipation(1e6, INFINITY, da, db) == da);
  cr_assert(sap_combine_hydro_dissipation(0, 0, da, db) == 0);
}

Test(sap_combine, dissipation_symmetry_and_bounds) {
  test_rng r = {7};
  for (int i = 0; i < 1000; ++i) {
    double a = logu(&r, 1e3, 1e9), b = logu(&r, 1e3, 1e9);
    double da = test_rng_uniform(&r, 0, 100), db = test_rng_uniform(&r, 0, 100);
    double d = sap_combine_point_dissipation(a, b, da, db);
    /* swapping both geometries: the same two products, summed in the other order */
    cr_assert(close_rel(d, sap_combine_point_dissipation(b, a, db, da), 2));
    /* a convex combination: between the two */
    cr_assert(d >= fmin(da, db) * (1 - 4 * EPS) && d <= fmax(da, db) * (1 + 4 * EPS));
    cr_assert(sap_combine_hydro_dissipation(a, b, da, db) == d); /* same rule, other weights */
  }
}

/* ---- friction, relaxation time ------------------------------------------------------------ */

Test(sap_combine, friction) {
  cr_assert(sap_combine_friction(0.5, 0.5) == 0.5);
  cr_assert(close_rel(sap_combine_friction(1.0, 0.5), 2.0 / 3.0, 4));
  cr_assert(sap_combine_friction(0, 0) == 0); /* zero denominator */
  cr_assert(sap_combine_friction(0, 1) == 0);
  test_rng r = {9};
  for (int i = 0; i < 1000; ++i) {
    double a = test_rng_uniform(&r, 0, 2), b = test_rng_uniform(&r, 0, 2);
    double mu = sap_combine_friction(a, b);
    cr_assert(close_rel(mu, sap_combine_friction(b, a), 2));
    /* the harmonic mean lies between min and the arithmetic mean */
    cr_assert(mu >= fmin(a, b) * (1 - 4 * EPS) && mu <= 0.5 * (a + b) * (1 + 4 * EPS));
  }
}

Test(sap_combine, relaxation_time) {
  /* a plain sum; the defaults give 0.2 s */
  cr_assert(sap_combine_relaxation_time(SAP_DEFAULT_RELAXATION_TIME,
                                        SAP_DEFAULT_RELAXATION_TIME) == 0.2);
  cr_assert(sap_combine_relaxation_time(0.0, 0.3) == 0.3);
  cr_assert(sap_combine_relaxation_time(0.05, 0.3) == sap_combine_relaxation_time(0.3, 0.05));
}

/* ---- point contact weights and configuration ---------------------------------------------- */

Test(sap_combine, point_weights) {
  double wa, wb;
  sap_point_contact_weights(1e6, 3e6, &wa, &wb);
  cr_assert(wa == 0.25 && wb == 0.75);
  sap_point_contact_weights(0, 0, &wa, &wb);
  cr_assert(wa == 0.5 && wb == 0.5);
  sap_point_contact_weights(INFINITY, 1e6, &wa, &wb); /* the point on the rigid A's surface */
  cr_assert(wa == 1 && wb == 0);
  sap_point_contact_weights(1e6, INFINITY, &wa, &wb);
  cr_assert(wa == 0 && wb == 1);
  sap_point_contact_weights(INFINITY, INFINITY, &wa, &wb);
  cr_assert(wa == 0.5 && wb == 0.5);
  test_rng r = {11};
  for (int i = 0; i < 1000; ++i) {
    double a = logu(&r, 1, 1e9), b = logu(&r, 1, 1e9);
    sap_point_contact_weights(a, b, &wa, &wb);
    /* two divisions by the same denominator: the sum is 1 to 2 ulps */
    cr_assert(fabs(wa + wb - 1) <= 2 * EPS);
    double wa2, wb2;
    sap_point_contact_weights(b, a, &wa2, &wb2);
    cr_assert(wa == wb2 && wb == wa2); /* symmetric */
  }
}

Test(sap_combine, point_pair_config) {
  double phi0, fe0;
  sap_point_pair_config(2e-3, 5e5, &phi0, &fe0);
  cr_assert(phi0 == -2e-3 && fe0 == 1e3);
}

/* ---- hydroelastic faces ------------------------------------------------------------------- */

Test(sap_combine, hydro_face) {
  double k = -1, phi0 = -1, fe0 = -1;
  /* compliant M against rigid N: g = g_M */
  cr_assert(sap_hydro_face_params(1e-4, 1e5, 1e9, INFINITY, &k, &phi0, &fe0) == 1);
  cr_assert(close_rel(k, 1e5, 2) && close_rel(phi0, -1e-4, 2) && close_rel(fe0, 10, 2));
  cr_assert(sap_hydro_face_params(1e-4, 1e5, INFINITY, 1e9, &k, &phi0, &fe0) == 1);
  cr_assert(close_rel(k, 1e5, 2));
  /* both compliant: g = gM·gN/(gM + gN), 1/g = 1/gM + 1/gN */
  cr_assert(sap_hydro_combined_gradient(2e9, 2e9) == 1e9);
  cr_assert(close_rel(sap_hydro_combined_gradient(1e9, 3e9), 7.5e8, 4));
  cr_assert(sap_hydro_face_params(2e-4, 3e4, 2e9, 2e9, &k, &phi0, &fe0) == 1);
  cr_assert(close_rel(k, 2e5, 2) && close_rel(phi0, -3e-5, 2) && close_rel(fe0, 6, 2));
  /* p0 < 0 (margin layer): φ0 > 0, a speculative constraint, and fe0 < 0 */
  cr_assert(sap_hydro_face_params(1e-4, -2e3, 1e9, INFINITY, &k, &phi0, &fe0) == 1);
  cr_assert(phi0 > 0 && fe0 < 0 && close_rel(phi0, 2e-6, 2));

  /* skip rules: A ≤ 1e-14, g_M < 1e-14 or g_N < 1e-14 (including negative and NaN), both ∞;
   * a skipped face leaves the outputs untouched */
  k = phi0 = fe0 = 123;
  cr_assert(sap_hydro_face_params(1e-14, 1e5, 1e9, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(0, 1e5, 1e9, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(-1, 1e5, 1e9, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, 0.99e-14, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, 1e9, 0.99e-14, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, -1e9, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, NAN, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, INFINITY, INFINITY, &k, &phi0, &fe0) == 0);
  cr_assert(sap_hydro_face_params(NAN, 1e5, 1e9, 1e9, &k, &phi0, &fe0) == 0);
  cr_assert(k == 123 && phi0 == 123 && fe0 == 123);
  /* the thresholds themselves: A just above 1e-14 and g exactly 1e-14 are kept */
  cr_assert(sap_hydro_face_params(1.01e-14, 1e5, 1e9, 1e9, &k, &phi0, &fe0) == 1);
  cr_assert(sap_hydro_face_params(1e-4, 1e5, 1e-14, INFINITY, &k, &phi0, &fe0) == 1);

  /* symmetric in (gM, gN) */
  test_rng r = {13};
  for (int i = 0; i < 1000; ++i) {
    double a = logu(&r, 1e3, 1e12), b = logu(&r, 1e3, 1e12);
    cr_assert(sap_hydro_combined_gradient(a, b) == sap_hydro_combined_gradient(b, a));
    cr_assert(close_rel(1 / sap_hydro_combined_gradient(a, b), 1 / a + 1 / b, 8));
  }
}

/* ---- defaults and the penetration-allowance heuristic ------------------------------------- */

Test(sap_combine, defaults) {
  cr_assert(SAP_DEFAULT_FRICTION == 0.5 && SAP_DEFAULT_PARSER_FRICTION == 1.0);
  cr_assert(SAP_DEFAULT_HC_DISSIPATION == 50.0 && SAP_DEFAULT_RELAXATION_TIME == 0.1);
  cr_assert(SAP_DEFAULT_POINT_STIFFNESS == 1e6 && SAP_DEFAULT_HYDRO_MODULUS == 1e7);
  cr_assert(SAP_DEFAULT_PENETRATION_ALLOWANCE == 1e-3);
  cr_assert(SAP_FACE_MIN_AREA == 1e-14 && SAP_FACE_MIN_GRADIENT == 1e-14);
}

Test(sap_combine, penetration_allowance) {
  /* §4.4: m = 2 kg, g = 9.81, allowance 1 mm: k_c = 19620 N/m, per geometry 39240;
   * ω = √(k_c/m) = √9810; d = (1/ω)/allowance; time scale 1/ω. */
  double kg, d, ts;
  sap_penetration_allowance_params(2.0, 9.81, 1e-3, &kg, &d, &ts);
  double kc = 2.0 * 9.81 / 1e-3, omega = sqrt(kc / 2.0);
  cr_assert(close_rel(kg, 2 * kc, 4), "k %g", kg);
  cr_assert(close_rel(d, (1 / omega) / 1e-3, 8), "d %g", d);
  cr_assert(close_rel(ts, 1 / omega, 8));
  /* two default geometries combine back to k_c */
  cr_assert(close_rel(sap_combine_stiffness(kg, kg), kc, 4));
  /* and their dissipation is d itself */
  cr_assert(sap_combine_point_dissipation(kg, kg, d, d) == d);
  /* zero gravity: 9.81 is used */
  double kg0, d0;
  sap_penetration_allowance_params(2.0, 0.0, 1e-3, &kg0, &d0, NULL);
  cr_assert(kg0 == kg && d0 == d);
  /* d does not depend on the mass; the stiffness is proportional to it */
  double kg5, d5;
  sap_penetration_allowance_params(5.0, 9.81, 1e-3, &kg5, &d5, NULL);
  cr_assert(d5 == d && close_rel(kg5, 2.5 * kg, 4));
  /* halving the allowance doubles the stiffness (seed 003) */
  double kgh, dh;
  sap_penetration_allowance_params(2.0, 9.81, 0.5e-3, &kgh, &dh, NULL);
  cr_assert(close_rel(kgh, 2 * kg, 4));
  /* no bodies with mass: zero stiffness, still a finite dissipation */
  sap_penetration_allowance_params(0.0, 9.81, 1e-3, &kg0, &d0, NULL);
  cr_assert(kg0 == 0 && d0 == d);
}
