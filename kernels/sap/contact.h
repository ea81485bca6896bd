/* One SAP contact constraint: cost ℓ(vc), impulse γ = −∂ℓ/∂vc and Hessian G = ∂²ℓ/∂vc² for the
 * three discrete contact approximations of Drake (drake_algorithms §5.3, §5.4; seed 000 §II, §IV).
 *
 * Place in the step (DESIGN "One step"): stage 5 fills one sapContactParams per contact (point
 * pair §4.2 or hydroelastic face §3, see kernels/contact/combine.h); stage 7 calls
 * sap_contact_make_data once per step with the constraint's Delassus estimate w (§5.1), then
 * sap_contact_eval at every Newton iterate and line-search point. Both are pure functions of
 * their arguments, so both backends give the same bits.
 *
 * Contact frame and signs (reference "Conventions", §3):
 *  - C has Cz = n̂_AB = −n̂_BA (out of A, into B); Cx, Cy are any tangent pair.
 *  - vc = [vt_x, vt_y, vn] = R_WCᵀ(v_Bc − v_Ac); vn > 0 means the bodies separate.
 *  - γ = [γt_x, γt_y, γn] is the impulse (N·s over the step, not a force) on B at C,
 *    expressed in C; A receives −γ. γn ≥ 0 always (repulsive); γt opposes vt.
 *  - φ0 < 0 in penetration; fe0 is the elastic force at the previous step (k·depth for a point
 *    pair, A·p0 for a hydroelastic face, negative inside a margin layer).
 *  - The optional surface-velocity bias v_b of Drake is not a parameter: a caller that uses it
 *    adds it to vc before sap_contact_eval and its z component to vn0.
 *
 * Models:
 *  SAP_MODEL_CONVEX  (Drake "sap"): the friction-cone constraint; uses k, τ, φ0, β, σ; d, fe0,
 *                    vn0 and v_s are ignored. ℓ = ½γᵀRγ with γ the R-norm projection of
 *                    y = R⁻¹(v̂ − vc) onto the friction cone.
 *  SAP_MODEL_LAGGED  (Drake "lagged", Drake's default): Hunt–Crossley normal impulse n(vn), and
 *                    friction with the normal impulse lagged at n0 (previous step).
 *  SAP_MODEL_SIMILAR (Drake "similar"): Hunt–Crossley with z = vn − μ‖vt‖_s, so friction uses
 *                    the same n(z).
 *  The Hunt–Crossley models use k, d, fe0, vn0, v_s, σ; φ0, τ and β are ignored (there is no
 *  near-rigid clamp in the normal direction there, §5.4). Any model value other than CONVEX
 *  or SIMILAR is treated as LAGGED.
 *
 * G is symmetric for all three models (convex: (∂P/∂y)R⁻¹ is symmetric because μ̂/Rt = μ/Rn;
 * similar: G = −n′·uuᵀ + μn·P⊥/s with u = [μt_s, −1]; lagged: block diagonal), and positive
 * semi-definite. The off-diagonal block is computed once and mirrored, so G is bitwise
 * symmetric, which the Cholesky of the Newton Hessian may rely on.
 *
 * Choices where the reference leaves room (each repeated at its place below):
 *  - convex, k <= 0 (Drake demands k > 0): the constraint is inactive, ℓ = 0, γ = 0, G = 0.
 *  - convex sliding test: Drake's "−μ̂·y_r < y_n < y_r/μ" is evaluated as "not stiction and
 *    y_n > −μ̂·y_r", identical for μ > 0 and free of the division for μ = 0.
 *  - soft norm ‖vt‖_s = √(‖vt‖² + ε_s²) − ε_s is computed as ‖vt‖²/(√(‖vt‖² + ε_s²) + ε_s), the
 *    same number without cancellation for ‖vt‖ ≪ ε_s; t_s = vt/√(‖vt‖² + ε_s²).
 *  - w (Delassus estimate) must be positive; the convex model divides by Rt = σ·w_t. v_s must
 *    be positive (Drake demands it): t_s = vt/√(‖vt‖² + ε_s²) with ε_s ≥ v_s.
 *  - k = +∞ is valid for the convex model (Rn falls on the near-rigid clamp) but not for the
 *    Hunt–Crossley models, whose impulse is proportional to k.
 */
#ifndef ISO_KERNELS_SAP_CONTACT_H
#define ISO_KERNELS_SAP_CONTACT_H

#include "kernels/core.h"

#define SAP_MODEL_CONVEX 0  /* Drake "sap": friction-cone constraint, relaxation time τ (§5.3) */
#define SAP_MODEL_LAGGED 1  /* Drake "lagged" (Drake's default): Hunt–Crossley (§5.4) */
#define SAP_MODEL_SIMILAR 2 /* Drake "similar": Hunt–Crossley (§5.4) */

/* Regions reported by sap_contact_region (diagnostics and tests). */
#define SAP_REGION_NONE 0     /* no impulse (convex), no normal impulse n(z) = 0 (Hunt–Crossley) */
#define SAP_REGION_STICTION 1 /* convex: y inside the cone; Hunt–Crossley: ‖vt‖ <= ε_s */
#define SAP_REGION_SLIDING 2  /* convex: projection on the cone surface; HC: ‖vt‖ > ε_s */

#define SAP_DEFAULT_STICTION_TOLERANCE 1e-4  /* v_s, m/s (MultibodyPlantConfig, §4.4) */
#define SAP_DEFAULT_NEAR_RIGID_THRESHOLD 1.0 /* β for contacts (sap_near_rigid_threshold, §4.4) */
#define SAP_DEFAULT_SIGMA 1e-3               /* σ, hard-coded in Drake's sap_driver (§8) */
#define SAP_CONE_SOFT_TOLERANCE 1e-7 /* friction-cone soft norm ε, N·s: y_r = √(‖y_t‖² + ε²) (§5.3) */
#define SAP_HC_VEL_EPS 1e-20         /* v_d = 1/(d + 1e-20), v_x = fe0/δt/(k + 1e-20) (§5.4) */
#define SAP_PI 3.14159265358979323846

typedef struct sapContactParams {
  int model;                /* SAP_MODEL_* */
  real mu;                  /* combined dynamic friction, ≥ 0 */
  real k;                   /* combined stiffness, N/m, ≥ 0 (k = g·A for a hydroelastic face) */
  real d;                   /* Hunt–Crossley dissipation, s/m, ≥ 0 (HC models) */
  real tau;                 /* relaxation time τ_d, s, ≥ 0 (convex model; τ = τ_A + τ_B) */
  real phi0;                /* signed distance at the previous step, m (< 0 in penetration) */
  real fe0;                 /* elastic force at the previous step, N (k·depth, or A·p0) */
  real vn0;                 /* normal velocity at the previous step, m/s (+ v_b,z if any) */
  real stiction_tolerance;  /* v_s, m/s, default 1e-4 (HC models) */
  real beta;                /* near-rigid threshold β, default 1.0 (convex model) */
  real sigma;               /* tangential regularisation σ, default 1e-3 */
} sapContactParams;

/* Everything the evaluation needs, computed once per step by sap_contact_make_data. */
typedef struct sapContactData {
  int model;   /* SAP_MODEL_* */
  int active;  /* convex: 0 when k <= 0 (γ ≡ 0); always 1 for HC */
  real mu;
  real Rt;     /* σ·w_t (both models; HC uses it only for ε_s) */
  /* convex model (§5.3) */
  real Rn;        /* max(β²/(4π²)·w_n, 1/(δt·k·(δt + τ))) */
  real Rt_inv, Rn_inv;
  real mu_tilde;  /* μ·√(Rt/Rn) */
  real mu_hat;    /* μ·Rt/Rn */
  real factor;    /* 1/(1 + μ̃²) */
  real vn_hat;    /* −φ0/(δt + τ) */
  /* Hunt–Crossley models (§5.4) */
  real dt, k, d, fe0;
  real n0;     /* max(0, δt·fe0)·max(0, 1 − d·vn0), previous-step impulse */
  real eps_s;  /* max(v_s, μ·Rt·n0) */
  real v_hat;  /* min(v_x, v_d): n(v) = 0 for v >= v_hat */
} sapContactData;

/* Drake's defaults for the fields that are not pair data; the pair fields (μ, k, d, τ, φ0, fe0,
 * vn0) are zero and the model is SAP_MODEL_LAGGED. */
static inline ISO_HD sapContactParams sap_contact_params_default(void) {
  sapContactParams p;
  p.model = SAP_MODEL_LAGGED;
  p.mu = (real)0;
  p.k = (real)0;
  p.d = (real)0;
  p.tau = (real)0;
  p.phi0 = (real)0;
  p.fe0 = (real)0;
  p.vn0 = (real)0;
  p.stiction_tolerance = (real)SAP_DEFAULT_STICTION_TOLERANCE;
  p.beta = (real)SAP_DEFAULT_NEAR_RIGID_THRESHOLD;
  p.sigma = (real)SAP_DEFAULT_SIGMA;
  return p;
}

static inline ISO_HD real sap_maxr(real a, real b) { return a < b ? b : a; } /* std::max */
static inline ISO_HD real sap_minr(real a, real b) { return b < a ? b : a; } /* std::min */

/* ---- once per step ------------------------------------------------------------------------ */

/* w: the Delassus diagonal estimate of this constraint (3 values, §5.1; positive), dt: δt. */
static inline ISO_HD void sap_contact_make_data(const sapContactParams *p, const real w[3], real dt,
                                                sapContactData *out) {
  real w_rms = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) / sqrt((real)3);
  real wt = sap_maxr((real)0.5 * (w[0] + w[1]), w_rms);
  real Rt = p->sigma * wt;
  out->model = (p->model == SAP_MODEL_CONVEX || p->model == SAP_MODEL_SIMILAR) ? p->model
                                                                              : SAP_MODEL_LAGGED;
  out->active = 1;
  out->mu = p->mu;
  out->Rt = Rt;
  out->Rn = (real)0;
  out->Rt_inv = (real)0;
  out->Rn_inv = (real)0;
  out->mu_tilde = (real)0;
  out->mu_hat = (real)0;
  out->factor = (real)1;
  out->vn_hat = (real)0;
  out->dt = dt;
  out->k = p->k;
  out->d = p->d;
  out->fe0 = p->fe0;
  out->n0 = (real)0;
  out->eps_s = p->stiction_tolerance;
  out->v_hat = (real)0;

  if (out->model == SAP_MODEL_CONVEX) {
    /* §5.3 MakeData. Near-rigid clamp: the contact period is not allowed below β·δt. */
    real wn = sap_maxr(w[2], w_rms);
    real beta_factor = p->beta * p->beta / ((real)4 * (real)SAP_PI * (real)SAP_PI);
    real Rn;
    if (!(p->k > (real)0)) {
      /* Choice: Drake demands k > 0; a zero combined stiffness makes no force. */
      out->active = 0;
      return;
    }
    Rn = sap_maxr(beta_factor * wn, (real)1 / (dt * p->k * (dt + p->tau)));
    out->Rn = Rn;
    out->Rt_inv = (real)1 / Rt;
    out->Rn_inv = (real)1 / Rn;
    out->mu_tilde = p->mu * sqrt(Rt / Rn);
    out->mu_hat = p->mu * Rt / Rn;
    out->factor = (real)1 / ((real)1 + out->mu_tilde * out->mu_tilde);
    out->vn_hat = -p->phi0 / (dt + p->tau);
  } else {
    /* §5.4 MakeData. */
    real damping = sap_maxr((real)0, (real)1 - p->d * p->vn0);
    real ne0 = sap_maxr((real)0, dt * p->fe0);
    real vd = (real)1 / (p->d + (real)SAP_HC_VEL_EPS);
    real vx = p->fe0 / dt / (p->k + (real)SAP_HC_VEL_EPS);
    out->n0 = ne0 * damping;
    out->eps_s = sap_maxr(p->stiction_tolerance, p->mu * Rt * out->n0);
    out->v_hat = sap_minr(vx, vd);
  }
}

/* ---- Hunt–Crossley pieces (§5.4) ---------------------------------------------------------- */

/* n(v) = δt·(fe0 − δt·k·v)₊·(1 − d·v)₊, with ẋ = −v. */
static inline ISO_HD real sap_hc_impulse(const sapContactData *c, real v) {
  real xdot = -v;
  real fe = c->fe0 + c->dt * c->k * xdot;
  real damping;
  if (fe <= (real)0) return (real)0;
  damping = (real)1 + c->d * xdot;
  if (damping <= (real)0) return (real)0;
  return c->dt * fe * damping;
}

/* n′(v) = −δt·[k·δt·(1 − d·v) + d·(fe0 − δt·k·v)] where both factors are positive, else 0. */
static inline ISO_HD real sap_hc_impulse_derivative(const sapContactData *c, real v) {
  real xdot = -v;
  real fe = c->fe0 + c->dt * c->k * xdot;
  real damping;
  if (fe <= (real)0) return (real)0;
  damping = (real)1 + c->d * xdot;
  if (damping <= (real)0) return (real)0;
  return -c->dt * (c->k * c->dt * damping + c->d * fe);
}

/* N(v) = N⁺(min(v, v̂)), N⁺(v) = δt·[v·(fe0 + ½Δf) − d·v²/2·(fe0 + ⅔Δf)], Δf = −δt·k·v; N′ = n. */
static inline ISO_HD real sap_hc_antiderivative(const sapContactData *c, real v) {
  real vv = sap_minr(v, c->v_hat);
  real df = -c->dt * c->k * vv;
  return c->dt * (vv * (c->fe0 + (real)0.5 * df) -
                  c->d * vv * vv * (real)0.5 * (c->fe0 + ((real)2 / (real)3) * df));
}

/* ---- evaluation --------------------------------------------------------------------------- */

static inline ISO_HD void sap_contact_zero(real gamma[3], real G[9]) {
  int i;
  if (gamma) gamma[0] = gamma[1] = gamma[2] = (real)0;
  if (G)
    for (i = 0; i < 9; ++i) G[i] = (real)0;
}

/* Convex model (§5.3): y = R⁻¹(v̂ − vc), γ = P(y), ℓ = ½γᵀRγ, G = (∂P/∂y)·R⁻¹. */
static inline ISO_HD real sap_cone_eval(const sapContactData *c, const real vc[3], real gamma[3],
                                        real G[9]) {
  real y0, y1, yn, yr, t0, t1, mu = c->mu;
  if (!c->active) {
    sap_contact_zero(gamma, G);
    return (real)0;
  }
  y0 = -vc[0] * c->Rt_inv;
  y1 = -vc[1] * c->Rt_inv;
  yn = (c->vn_hat - vc[2]) * c->Rn_inv;
  /* Soft norm, no subtraction (§5.3): y_r > 0 always, so t̂ is defined. */
  yr = sqrt(y0 * y0 + y1 * y1 + (real)SAP_CONE_SOFT_TOLERANCE * (real)SAP_CONE_SOFT_TOLERANCE);
  t0 = y0 / yr;
  t1 = y1 / yr;
  if (yr <= mu * yn) {
    /* Stiction: γ = y, G = R⁻¹. */
    if (gamma) {
      gamma[0] = y0;
      gamma[1] = y1;
      gamma[2] = yn;
    }
    if (G) {
      sap_contact_zero((real *)0, G);
      G[0] = c->Rt_inv;
      G[4] = c->Rt_inv;
      G[8] = c->Rn_inv;
    }
    return (real)0.5 * (c->Rt * (y0 * y0 + y1 * y1) + c->Rn * yn * yn);
  }
  /* Choice: Drake's sliding test −μ̂y_r < y_n < y_r/μ; the upper bound is "not stiction". */
  if (yn > -c->mu_hat * yr) {
    real f = c->factor;
    real gn = (yn + c->mu_hat * yr) * f;
    real gt0 = mu * gn * t0, gt1 = mu * gn * t1;
    if (gamma) {
      gamma[0] = gt0;
      gamma[1] = gt1;
      gamma[2] = gn;
    }
    if (G) {
      /* ∂γt/∂yt = μ(γn/y_r·P⊥ + μ̂f·P), ∂γt/∂yn = μf·t̂, ∂γn/∂yt = μ̂f·t̂ᵀ, ∂γn/∂yn = f; then
       * ·R⁻¹ from the right. The tn block μf·t̂/Rn equals the nt block μ̂f·t̂/Rt (μ̂/Rt = μ/Rn);
       * it is computed once and mirrored. */
      real a = mu * gn / yr;        /* coefficient of P⊥ */
      real b = mu * c->mu_hat * f;  /* coefficient of P */
      real p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
      real g02 = mu * f * t0 * c->Rn_inv, g12 = mu * f * t1 * c->Rn_inv;
      G[0] = (a * ((real)1 - p00) + b * p00) * c->Rt_inv;
      G[1] = (-a * p01 + b * p01) * c->Rt_inv;
      G[2] = g02;
      G[3] = G[1];
      G[4] = (a * ((real)1 - p11) + b * p11) * c->Rt_inv;
      G[5] = g12;
      G[6] = g02;
      G[7] = g12;
      G[8] = f * c->Rn_inv;
    }
    return (real)0.5 * (c->Rt * (gt0 * gt0 + gt1 * gt1) + c->Rn * gn * gn);
  }
  /* No contact. */
  sap_contact_zero(gamma, G);
  return (real)0;
}

/* Hunt–Crossley models (§5.4). */
static inline ISO_HD real sap_hc_eval(const sapContactData *c, const real vc[3], real gamma[3],
                                      real G[9]) {
  real mu = c->mu, eps = c->eps_s;
  real vt2 = vc[0] * vc[0] + vc[1] * vc[1];
  real s = sqrt(vt2 + eps * eps); /* ‖vt‖_s + ε_s */
  real vt_soft = vt2 / (s + eps); /* ‖vt‖_s = s − ε_s without cancellation (choice) */
  real t0 = vc[0] / s, t1 = vc[1] / s;
  int similar = c->model == SAP_MODEL_SIMILAR;
  real z = similar ? vc[2] - mu * vt_soft : vc[2];
  real n = sap_hc_impulse(c, z);
  real nf = similar ? n : c->n0; /* normal impulse used by friction */
  real cost = -sap_hc_antiderivative(c, z);
  if (!similar) cost += mu * c->n0 * vt_soft;
  if (gamma) {
    gamma[0] = -mu * nf * t0;
    gamma[1] = -mu * nf * t1;
    gamma[2] = n;
  }
  if (G) {
    real np = sap_hc_impulse_derivative(c, z);
    real a = mu * nf / s; /* coefficient of P⊥ */
    real b = similar ? -mu * mu * np : (real)0; /* coefficient of P */
    real p00 = t0 * t0, p01 = t0 * t1, p11 = t1 * t1;
    real g02 = similar ? mu * np * t0 : (real)0;
    real g12 = similar ? mu * np * t1 : (real)0;
    G[0] = a * ((real)1 - p00) + b * p00;
    G[1] = -a * p01 + b * p01;
    G[2] = g02;
    G[3] = G[1];
    G[4] = a * ((real)1 - p11) + b * p11;
    G[5] = g12;
    G[6] = g02;
    G[7] = g12;
    G[8] = -np;
  }
  return cost;
}

/* Cost ℓ(vc); γ = −∂ℓ/∂vc (3) and G = ∂²ℓ/∂vc² (3×3 row-major) when not NULL.
 * vc = [vt_x, vt_y, vn] in the contact frame (see the top of this file). */
static inline ISO_HD real sap_contact_eval(const sapContactData *c, const real vc[3], real gamma[3],
                                           real G[9]) {
  if (c->model == SAP_MODEL_CONVEX) return sap_cone_eval(c, vc, gamma, G);
  return sap_hc_eval(c, vc, gamma, G);
}

/* The region of vc (SAP_REGION_*), for statistics and tests. Convex: the projection's three
 * regions exactly as sap_cone_eval decides them. Hunt–Crossley: NONE when n(z) = 0 (the lagged
 * model may still apply friction μ·n0 there), else STICTION when ‖vt‖ <= ε_s, else SLIDING. */
static inline ISO_HD int sap_contact_region(const sapContactData *c, const real vc[3]) {
  real vt2 = vc[0] * vc[0] + vc[1] * vc[1];
  if (c->model == SAP_MODEL_CONVEX) {
    real y0, y1, yn, yr;
    if (!c->active) return SAP_REGION_NONE;
    y0 = -vc[0] * c->Rt_inv;
    y1 = -vc[1] * c->Rt_inv;
    yn = (c->vn_hat - vc[2]) * c->Rn_inv;
    yr = sqrt(y0 * y0 + y1 * y1 + (real)SAP_CONE_SOFT_TOLERANCE * (real)SAP_CONE_SOFT_TOLERANCE);
    if (yr <= c->mu * yn) return SAP_REGION_STICTION;
    if (yn > -c->mu_hat * yr) return SAP_REGION_SLIDING;
    return SAP_REGION_NONE;
  } else {
    real eps = c->eps_s;
    real s = sqrt(vt2 + eps * eps);
    real z = c->model == SAP_MODEL_SIMILAR ? vc[2] - c->mu * (vt2 / (s + eps)) : vc[2];
    if (sap_hc_impulse(c, z) <= (real)0) return SAP_REGION_NONE;
    return vt2 <= eps * eps ? SAP_REGION_STICTION : SAP_REGION_SLIDING;
  }
}

#endif
