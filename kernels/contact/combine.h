/* Contact parameter combination rules and defaults: from two geometries' materials, or one
 * hydroelastic face, to the parameters of one SAP contact constraint (kernels/sap/contact.h).
 * drake_algorithms §3 (hydroelastic faces), §4.2 (point pairs), §4.4 (defaults and the
 * penetration-allowance heuristic); seed 003 ("Modeling Compliant Contact") and seed 000 §IV
 * (k = g·A, φ0 = −p0/g).
 *
 * A rigid side is +INFINITY (point stiffness, hydroelastic modulus, normal pressure gradient).
 * The model builder rejects pairs where both sides are rigid (Drake demands it); the choices
 * below for that case only keep the functions total and symmetric.
 */
#ifndef ISO_KERNELS_SAP_COMBINE_H
#define ISO_KERNELS_SAP_COMBINE_H

#include "kernels/core.h"

/* Per-geometry defaults (§4.4, DefaultProximityProperties; URDF/SDF parsers use μ = 1.0). */
#define SAP_DEFAULT_FRICTION 0.5            /* material/coulomb_friction (dynamic), programmatic */
#define SAP_DEFAULT_PARSER_FRICTION 1.0     /* URDF/SDF parsers always add μs = μd = 1.0 */
#define SAP_DEFAULT_HC_DISSIPATION 50.0     /* material/hunt_crossley_dissipation, s/m */
#define SAP_DEFAULT_RELAXATION_TIME 0.1     /* material/relaxation_time, s */
#define SAP_DEFAULT_POINT_STIFFNESS 1e6     /* material/point_contact_stiffness, N/m */
#define SAP_DEFAULT_HYDRO_MODULUS 1e7       /* hydroelastic/hydroelastic_modulus, Pa */
#define SAP_DEFAULT_PENETRATION_ALLOWANCE 1e-3 /* m, MultibodyPlant penetration_allowance */
#define SAP_DEFAULT_GRAVITY 9.81            /* m/s², used by the heuristic when |g| = 0 */
#define SAP_FACE_MIN_AREA 1e-14             /* skip a face with A <= this, m² (§3, §8) */
#define SAP_FACE_MIN_GRADIENT 1e-14         /* skip a face with g_M or g_N < this, Pa/m (§3, §8) */

/* Combined point stiffness k = k_A·k_B/(k_A + k_B) (§4.2, seed 003): one side ∞ → the other;
 * a zero denominator → 0. Both ∞ gives ∞ (rejected at model build). */
static inline ISO_HD real sap_combine_stiffness(real kA, real kB) {
  real denom;
  if (isinf(kA)) return kB;
  if (isinf(kB)) return kA;
  denom = kA + kB;
  return denom == (real)0 ? (real)0 : kA * kB / denom;
}

/* Combined Hunt–Crossley dissipation, each side's d weighted by the *other* side's weight
 * (§3 GetCombinedHuntCrossleyDissipation; seed 003):
 *   d = (w_B/(w_A + w_B))·d_A + (w_A/(w_A + w_B))·d_B,
 * w_A + w_B = 0 → 0; w_A = ∞ → d_B; w_B = ∞ → d_A. The softer side dominates.
 * Choice for both ∞ (Drake demands against it): ½(d_A + d_B), the symmetric limit. */
static inline ISO_HD real sap_combine_dissipation_weighted(real wA, real wB, real dA, real dB) {
  real denom = wA + wB;
  if (denom == (real)0) return (real)0;
  if (isinf(wA) && isinf(wB)) return (real)0.5 * (dA + dB);
  if (isinf(wA)) return dB;
  if (isinf(wB)) return dA;
  return (wB / denom) * dA + (wA / denom) * dB;
}

/* Point contact (§4.2): weights are the point stiffnesses k_A, k_B. */
static inline ISO_HD real sap_combine_point_dissipation(real kA, real kB, real dA, real dB) {
  return sap_combine_dissipation_weighted(kA, kB, dA, dB);
}

/* Hydroelastic (§3): weights are the hydroelastic moduli E_M, E_N (rigid = ∞). */
static inline ISO_HD real sap_combine_hydro_dissipation(real EM, real EN, real dM, real dN) {
  return sap_combine_dissipation_weighted(EM, EN, dM, dN);
}

/* A deformable body's face against a rigid geometry's field (§6.4, Drake's DeformableDriver):
 * the weights are the two stiffnesses of the face, the deformable's A·C and the rigid side's
 * k = A·g with g the combined gradient 1/(1/C + 1/g_rigid) — not the rigid field's own
 * gradient, which would give the rigid side's d too little weight. A half-space (g_rigid = ∞,
 * which Drake does not take) is rigid, as in §3: the deformable's d alone. */
static inline ISO_HD real sap_combine_deformable_rigid_dissipation(real area, real C, real k, real g_rigid,
                                                                   real d_def, real d_rigid) {
  return sap_combine_dissipation_weighted(area * C, isinf(g_rigid) ? g_rigid : k, d_def, d_rigid);
}

/* Combined dynamic friction μ = 2μ_Aμ_B/(μ_A + μ_B), 0 for a zero denominator (§3,
 * coulomb_friction.h); used for point and hydroelastic contact alike. */
static inline ISO_HD real sap_combine_friction(real muA, real muB) {
  real denom = muA + muB;
  return denom == (real)0 ? (real)0 : (real)2 * muA * muB / denom;
}

/* Relaxation time τ = τ_A + τ_B, a plain sum (§3, §4.2); the defaults make τ = 0.2 s. */
static inline ISO_HD real sap_combine_relaxation_time(real tauA, real tauB) { return tauA + tauB; }

/* Point contact position weights (§4.2): p_WC = w_A·p_WCa + w_B·p_WCb with
 * w_A = k_A/(k_A + k_B), w_B = k_B/(k_A + k_B); both 0 → ½ each.
 * Choice (Drake divides ∞/∞ = NaN here): one side ∞ → weight 1 on that side (the limit: the
 * point lies on the rigid surface); both ∞ → ½ each. w_A + w_B = 1 up to rounding. */
static inline ISO_HD void sap_point_contact_weights(real kA, real kB, real *wA, real *wB) {
  real denom = kA + kB;
  if (denom == (real)0 || (isinf(kA) && isinf(kB))) {
    *wA = (real)0.5;
    *wB = (real)0.5;
  } else if (isinf(kA)) {
    *wA = (real)1;
    *wB = (real)0;
  } else if (isinf(kB)) {
    *wA = (real)0;
    *wB = (real)1;
  } else {
    *wA = kA / denom;
    *wB = kB / denom;
  }
}

/* Point pair configuration (§4.2): φ0 = −depth and fe0 = fn0 = k·depth. */
static inline ISO_HD void sap_point_pair_config(real depth, real k, real *phi0, real *fe0) {
  *phi0 = -depth;
  *fe0 = k * depth;
}

/* Effective normal pressure gradient of a face (§3, seed 000 eq. 23):
 * g = 1/(1/g_M + 1/g_N) = g_M·g_N/(g_M + g_N); a rigid side (∞) gives the other's g. */
static inline ISO_HD real sap_hydro_combined_gradient(real gM, real gN) {
  if (isinf(gM)) return gN;
  if (isinf(gN)) return gM;
  return gM * gN / (gM + gN);
}

/* Discrete hydroelastic face → point constraint (§3, seed 000 eq. 16):
 *   k = g·A, φ0 = −p0/g, fe0 = A·p0,
 * with g from sap_hydro_combined_gradient. Returns 0 (outputs untouched) when the face is
 * skipped: A <= 1e-14 m², or g_M < 1e-14, or g_N < 1e-14 Pa/m (NaN is skipped too).
 * Choice: both sides rigid (g_M = g_N = ∞, which no hydroelastic surface has) is skipped. */
static inline ISO_HD int sap_hydro_face_params(real area, real p0, real gM, real gN, real *k,
                                               real *phi0, real *fe0) {
  real g;
  if (!(area > (real)SAP_FACE_MIN_AREA)) return 0;
  if (!(gM >= (real)SAP_FACE_MIN_GRADIENT) || !(gN >= (real)SAP_FACE_MIN_GRADIENT)) return 0;
  if (isinf(gM) && isinf(gN)) return 0;
  g = sap_hydro_combined_gradient(gM, gN);
  *k = g * area;
  *phi0 = -p0 / g;
  *fe0 = area * p0;
  return 1;
}

/* ---- the legacy point model (seed 004, "Drake Contact Implementation") ----------------------
 * Drake's compliant point contact of 2018 with per-geometry materials. Its default material and
 * characteristic radius, from RobotLocomotion/drake multibody/rigid_body_plant/
 * compliant_material.cc (CompliantMaterial::kDefault*) and compliant_contact_model.cc
 * (CompliantContactModelParameters::kDefaultCharacteristicRadius) at commit 441a95db (2018).
 * One difference: that code computed f = E·R·x, while seed 004 states the cylinder-on-a-plane
 * law f = 2·E·R·x; the seed is followed here. */
#define SAP_LEGACY_YOUNGS_MODULUS 1e8       /* Pa, "a hard rubber" */
#define SAP_LEGACY_DISSIPATION 0.32         /* s/m, Hunt and Crossley's value for ivory */
#define SAP_LEGACY_STATIC_FRICTION 0.9
#define SAP_LEGACY_DYNAMIC_FRICTION 0.5
#define SAP_LEGACY_CHARACTERISTIC_RADIUS 2e-4 /* m (0.2 mm) */

/* Squish factors of M and N: s_M = E_N/(E_M + E_N), s_N = 1 − s_M, the share of the deformation
 * each side takes (the softer side takes more). Moduli are finite and > 0 (checked at the
 * door); a zero sum, which they never make, gives ½ each. */
static inline ISO_HD void sap_legacy_squish(real EM, real EN, real *sM, real *sN) {
  real denom = EM + EN;
  *sM = denom == (real)0 ? (real)0.5 : EN / denom;
  *sN = (real)1 - *sM;
}

/* Effective Young's modulus E = s_M·E_M (= s_N·E_N; E_M/2 for equal moduli). */
static inline ISO_HD real sap_legacy_modulus(real EM, real EN) {
  real sM, sN;
  sap_legacy_squish(EM, EN, &sM, &sN);
  return sM * EM;
}

/* Dissipation d = s_M·d_M + s_N·d_N: each side's own d weighted by its own squish (the same
 * weighting as sap_combine_dissipation_weighted with the moduli as weights). */
static inline ISO_HD real sap_legacy_dissipation(real EM, real EN, real dM, real dN) {
  real sM, sN;
  sap_legacy_squish(EM, EN, &sM, &sN);
  return sM * dM + sN * dN;
}

/* Stiffness of the pair: f_n = 2·E·R·x, so k = 2·E·R with E from sap_legacy_modulus. */
static inline ISO_HD real sap_legacy_stiffness(real EM, real EN, real R) {
  return (real)2 * sap_legacy_modulus(EM, EN) * R;
}

/* Contact point weights: C = M_c·s_N + N_c·s_M, so M's surface point takes N's squish. A foam M
 * (s_M → 1) puts C on N_c, the point of N deepest in M: the rigid body's surface. */
static inline ISO_HD void sap_legacy_point_weights(real EM, real EN, real *wM, real *wN) {
  real sM, sN;
  sap_legacy_squish(EM, EN, &sM, &sN);
  *wM = sN;
  *wN = sM;
}

/* Penetration-allowance heuristic (§4.4, MultibodyPlant::EstimatePointContactParameters), used
 * only for geometries without stiffness or dissipation:
 *   g = |gravity| (9.81 when 0), k_c = m_max·g/allowance, ω = √(k_c/m_max),
 *   per-geometry stiffness 2·k_c (two equal geometries combine to k_c),
 *   dissipation d = (1/ω)/allowance (damping ratio 1), time scale 1/ω.
 * Choice: ω is evaluated as √(g/allowance), equal to √(k_c/m_max) and defined for m_max = 0
 * (then the stiffness is 0). time_scale may be NULL. */
static inline ISO_HD void sap_penetration_allowance_params(real m_max, real gravity_norm,
                                                           real allowance, real *k_geometry,
                                                           real *dissipation, real *time_scale) {
  real g = gravity_norm > (real)0 ? gravity_norm : (real)SAP_DEFAULT_GRAVITY;
  real k_combined = m_max * g / allowance;
  real omega = sqrt(g / allowance);
  real ts = (real)1 / omega;
  const real damping_ratio = (real)1;
  *k_geometry = (real)2 * k_combined;
  *dissipation = damping_ratio * ts / allowance;
  if (time_scale) *time_scale = ts;
}

#endif
