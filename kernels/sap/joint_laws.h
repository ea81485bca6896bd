/* The SAP laws of the joint constraints: joint limits (drake_algorithms §5.6), PD actuation with
 * an effort limit (§5.7) and the holonomic coupler of two DoFs (§5.5), on top of one generic
 * holonomic row (§5.5) that the limit and the coupler share.
 *
 * Each law is written like the contact laws of kernels/sap/contact.h: a params struct the step
 * fills from the model and the state at the step start; a data struct made once per step by a
 * make function from params, the time step δt and the Delassus estimate w of the constraint
 * (§5.1); and an eval function
 *     real sap_<law>_eval(const sap<Law>Data *d, const real *vc, real *gamma, real *G)
 * that returns the cost ℓ(vc) and writes γ = −∂ℓ/∂vc (rows values) and G = ∂²ℓ/∂vc² (rows×rows,
 * row-major) when the pointers are not NULL. All are pure functions of their arguments.
 *
 * Units. q is a generalized position (m for a prismatic DoF, rad for a revolute one), v its
 * velocity (m/s or rad/s), an effort is N or N·m, an impulse γ is an effort times seconds, over
 * the step. R and w are velocity per impulse: 1/kg (prismatic) or 1/(kg·m²) (revolute).
 *
 * Cost of a bounded holonomic row (the derivation behind sap_holonomic_row_eval). With
 * d = v̂ − vc, y = d/R and γ = clamp(y, γ_l, γ_u), the cost is the convex function
 *     ℓ = ½·R·y²                   when γ_l ≤ y ≤ γ_u,
 *     ℓ = γ_l·d − ½·R·γ_l²         when y < γ_l,
 *     ℓ = γ_u·d − ½·R·γ_u²         when y > γ_u,
 * i.e. ℓ = R·(γ·y − ½γ²) in every region. Checks: inside, ∂ℓ/∂vc = R·y·(−1/R) = −y = −γ; below,
 * ∂ℓ/∂vc = −γ_l; above, −γ_u; so γ = −∂ℓ/∂vc everywhere, and γ is continuous and non-increasing
 * in vc, hence ℓ is C¹ and convex. Continuity at y = γ_l (d = R·γ_l): ½·R·γ_l² on the inside,
 * γ_l·R·γ_l − ½·R·γ_l² = ½·R·γ_l² on the outside. The affine pieces are Drake's −γ_l·vc and
 * −γ_u·vc (sap_holonomic_constraint.cc) plus the constants γ_l·v̂ − ½·R·γ_l² and
 * γ_u·v̂ − ½·R·γ_u², which make ℓ continuous; Drake omits them, which changes neither γ nor G
 * but leaves its cost discontinuous at a finite non-zero bound. None of the laws here has one:
 * a limit row has [0, ∞) (both forms give ℓ = 0 below, ½·R·γ² = Drake's limit cost above) and
 * the coupler (−∞, ∞). G = 1/R strictly inside the bounds, 0 outside and on them (Drake).
 *
 * Choices where Drake leaves room (each repeated at its place):
 *  - the inside cost is evaluated as ½·d·y (= ½·R·y²), which stays 0 rather than NaN when R = ∞
 *    (k = 0, outside Drake's domain k > 0): with bounds around 0 such a row has no impulse.
 *  - the limit keeps its own τ_d in the near-rigid regime (Drake's SapLimitConstraint does not
 *    switch τ to δt as SapHolonomicConstraint does); with the default τ_d = δt both agree.
 *  - PD with δt·Kp + Kd = 0 (Drake demands Kp > 0 or Kd > 0): the limit of the law as the gains
 *    go to 0, less its diverging constant: ℓ = −δt·clamp(u0, −e, e)·v, a constant impulse, G = 0.
 */
#ifndef ISO_KERNELS_SAP_JOINT_LAWS_H
#define ISO_KERNELS_SAP_JOINT_LAWS_H

#include "kernels/core.h"
#include "kernels/sap/contact.h" /* SAP_PI, sap_maxr */

#define SAP_JOINT_BETA 0.1         /* β of limits, PD controllers and couplers (§5.5–§5.7) */
#define SAP_LIMIT_STIFFNESS 1e12   /* joint-limit stiffness, N/m or N·m/rad (sap_driver) */
#define SAP_LIMIT_WINDOW_FACTOR 2.0 /* limits farther than 2·δq from q0 are dropped (§5.6) */

/* ---- regularisation ---------------------------------------------------------------------- */

/* Near-rigid regularisation R_nr = β²/(4π²)·w: the constraint period is not resolved below
 * β·δt (§5.1, §5.5). */
static inline ISO_HD real sap_near_rigid_R(real beta, real w) {
  return beta * beta / ((real)4 * (real)SAP_PI * (real)SAP_PI) * w;
}

/* Compliant regularisation R_c = 1/(δt·(δt + τ)·k); 0 for k = +∞. */
static inline ISO_HD real sap_compliant_R(real k, real tau, real dt) {
  return (real)1 / (dt * (dt + tau) * k);
}

/* ---- one holonomic row (§5.5) ------------------------------------------------------------ */

typedef struct sapHolonomicParams {
  real g;    /* constraint value at the step start, position unit */
  real b;    /* bias velocity, velocity unit (v̂ = −g/(δt + τ) − b) */
  real lo;   /* impulse lower bound γ_l, impulse unit, may be −∞ */
  real hi;   /* impulse upper bound γ_u ≥ γ_l, impulse unit, may be +∞ */
  real k;    /* stiffness, effort per position unit, > 0, may be +∞ */
  real tau;  /* relaxation time, s, ≥ 0 */
  real beta; /* near-rigid threshold, dimensionless (SAP_JOINT_BETA) */
} sapHolonomicParams;

typedef struct sapHolonomicData {
  real R;    /* max(R_c, R_nr), velocity per impulse */
  real vhat; /* v̂ = −g/(δt + τ) − b, velocity unit (τ := δt when near-rigid) */
  real lo;   /* γ_l, impulse unit */
  real hi;   /* γ_u, impulse unit */
} sapHolonomicData;

/* R = max(R_c, R_nr); when R_c < R_nr (near-rigid) the relaxation time becomes δt, which makes
 * the constraint critically damped; v̂ = −g/(δt + τ) − b. w: the row's Delassus estimate, > 0. */
static inline ISO_HD void sap_holonomic_make(const sapHolonomicParams *p, real dt, real w,
                                             sapHolonomicData *d) {
  real Rnr = sap_near_rigid_R(p->beta, w);
  real Rc = sap_compliant_R(p->k, p->tau, dt);
  real tau = Rc < Rnr ? dt : p->tau;
  d->R = sap_maxr(Rc, Rnr);
  d->vhat = -p->g / (dt + tau) - p->b;
  d->lo = p->lo;
  d->hi = p->hi;
}

/* One row: y = (v̂ − vc)/R, γ = clamp(y, lo, hi), the cost of the derivation at the top of this
 * file, G = 1/R for lo < y < hi, else 0. gamma and G: one value each, or NULL. */
static inline ISO_HD real sap_holonomic_row_eval(real R, real vhat, real lo, real hi, real vc,
                                                 real *gamma, real *G) {
  real dv = vhat - vc;
  real y = dv / R;
  real g, cost, h;
  if (y < lo) {
    g = lo;
    cost = lo * dv - (real)0.5 * R * lo * lo;
    h = (real)0;
  } else if (y > hi) {
    g = hi;
    cost = hi * dv - (real)0.5 * R * hi * hi;
    h = (real)0;
  } else {
    g = y;
    /* Choice: ½·d·y equals ½·R·y² and stays 0 for R = ∞ (y = 0). */
    cost = (real)0.5 * dv * y;
    h = (y > lo && y < hi) ? (real)1 / R : (real)0;
  }
  if (gamma) gamma[0] = g;
  if (G) G[0] = h;
  return cost;
}

static inline ISO_HD real sap_holonomic_eval(const sapHolonomicData *d, const real *vc,
                                             real *gamma, real *G) {
  return sap_holonomic_row_eval(d->R, d->vhat, d->lo, d->hi, vc[0], gamma, G);
}

/* ---- joint limit (§5.6) ------------------------------------------------------------------ */

/* A 1-DoF joint with q̇ = v. Rows, in this order: the lower limit (vc = +v, g = q0 − lower)
 * when it is finite and inside the window, then the upper limit (vc = −v, g = upper − q0)
 * likewise. vc > 0 moves the joint away from that limit; γ ≥ 0 pushes it away. The generalized
 * impulse on the DoF is Σ sign[i]·γ[i]. */
typedef struct sapLimitParams {
  real q0;               /* joint position at the step start, m or rad */
  real lower;            /* lower position limit, m or rad, may be −∞ */
  real upper;            /* upper position limit ≥ lower, m or rad, may be +∞ */
  real v0;               /* joint velocity at the step start, m/s or rad/s (window rule) */
  real vstar;            /* free-motion velocity v* of the DoF, m/s or rad/s (window rule) */
  real stiffness;        /* k, N/m or N·m/rad, > 0 (SAP_LIMIT_STIFFNESS) */
  real dissipation_time; /* τ_d, s, > 0 (Drake: δt) */
  real beta;             /* near-rigid threshold, dimensionless (SAP_JOINT_BETA) */
} sapLimitParams;

typedef struct sapLimitData {
  int rows;    /* 0, 1 or 2 */
  int sign[2]; /* Jacobian of each row on the DoF: +1 lower limit, −1 upper limit */
  real R[2];   /* max(β²/(4π²)·w, 1/(δt·k·(δt + τ_d))), velocity per impulse */
  real vhat[2]; /* −g/(δt + τ_d), velocity unit */
} sapLimitData;

/* Drake's parameters of a limit (k = 1e12, τ_d = δt, β = 0.1); no limit (±∞), q0 = v0 = v* = 0. */
static inline ISO_HD sapLimitParams sap_limit_params_default(real dt) {
  sapLimitParams p;
  p.q0 = (real)0;
  p.lower = -(real)INFINITY;
  p.upper = (real)INFINITY;
  p.v0 = (real)0;
  p.vstar = (real)0;
  p.stiffness = (real)SAP_LIMIT_STIFFNESS;
  p.dissipation_time = dt;
  p.beta = (real)SAP_JOINT_BETA;
  return p;
}

/* The window rule: δq = δt·max(|v0|, |v*|); a limit outside [q0 − 2δq, q0 + 2δq] counts as
 * infinite (a limit on the window's edge is kept). Writes the effective limits (±∞ when
 * dropped) when the pointers are not NULL. */
static inline ISO_HD void sap_limit_window(const sapLimitParams *p, real dt, real *lower,
                                           real *upper) {
  real dq = dt * sap_maxr(fabs(p->v0), fabs(p->vstar));
  real wl = p->q0 - (real)SAP_LIMIT_WINDOW_FACTOR * dq;
  real wu = p->q0 + (real)SAP_LIMIT_WINDOW_FACTOR * dq;
  if (lower) *lower = p->lower < wl ? -(real)INFINITY : p->lower;
  if (upper) *upper = p->upper > wu ? (real)INFINITY : p->upper;
}

/* The number of rows after the window rule; 0: no constraint this step. */
static inline ISO_HD int sap_limit_rows(const sapLimitParams *p, real dt) {
  real ql, qu;
  sap_limit_window(p, dt, &ql, &qu);
  return (ql > -(real)INFINITY) + (qu < (real)INFINITY);
}

/* w: the Delassus estimate of each row (sap_limit_rows(p, dt) values, > 0). Choice: τ_d is kept
 * in the near-rigid regime, as Drake's limit constraint does (no switch to δt). */
static inline ISO_HD void sap_limit_make(const sapLimitParams *p, real dt, const real *w,
                                         sapLimitData *d) {
  real ql, qu, Rc = sap_compliant_R(p->stiffness, p->dissipation_time, dt);
  real den = dt + p->dissipation_time;
  int n = 0;
  sap_limit_window(p, dt, &ql, &qu);
  d->sign[0] = d->sign[1] = 0;
  d->R[0] = d->R[1] = (real)0;
  d->vhat[0] = d->vhat[1] = (real)0;
  if (ql > -(real)INFINITY) {
    d->sign[n] = 1;
    d->R[n] = sap_maxr(sap_near_rigid_R(p->beta, w[n]), Rc);
    d->vhat[n] = -(p->q0 - ql) / den;
    ++n;
  }
  if (qu < (real)INFINITY) {
    d->sign[n] = -1;
    d->R[n] = sap_maxr(sap_near_rigid_R(p->beta, w[n]), Rc);
    d->vhat[n] = -(qu - p->q0) / den;
    ++n;
  }
  d->rows = n;
}

/* vc[i] = sign[i]·v; γ[i] = max(0, y_i); G diagonal (rows×rows). */
static inline ISO_HD real sap_limit_eval(const sapLimitData *d, const real *vc, real *gamma,
                                         real *G) {
  real cost = (real)0;
  int i;
  if (G)
    for (i = 0; i < d->rows * d->rows; ++i) G[i] = (real)0;
  for (i = 0; i < d->rows; ++i)
    cost += sap_holonomic_row_eval(d->R[i], d->vhat[i], (real)0, (real)INFINITY, vc[i],
                                   gamma ? gamma + i : (real *)0,
                                   G ? G + i * d->rows + i : (real *)0);
  return cost;
}

/* ---- PD controller (§5.7) ---------------------------------------------------------------- */

/* One row, vc = v of the actuated DoF. The effort y = −Kp·(q − qd) − Kd·(v − vd) + u0 with
 * q = q0 + δt·v; γ = δt·clamp(y, −e, e). */
typedef struct sapPdParams {
  real kp;           /* Kp, N/m or N·m/rad, ≥ 0 */
  real kd;           /* Kd, N·s/m or N·m·s/rad, ≥ 0 */
  real q0;           /* the DoF's position at the step start, m or rad */
  real qd;           /* desired position, m or rad */
  real vd;           /* desired velocity, m/s or rad/s */
  real u0;           /* feed-forward effort, N or N·m (before the effort limit) */
  real effort_limit; /* e, N or N·m, > 0, may be +∞ */
} sapPdParams;

typedef struct sapPdData {
  real dt; /* δt, s */
  real c;  /* δt·Kp + Kd with the effective gains, effort per velocity; y = y0 − c·v */
  real y0; /* −Kp·(q0 − qd) + Kd·vd + u0 with the effective gains: the effort at v = 0 */
  real e;  /* effort limit, N or N·m */
} sapPdData;

/* No gains, no feed-forward, no effort limit (+∞). */
static inline ISO_HD sapPdParams sap_pd_params_default(void) {
  sapPdParams p;
  p.kp = p.kd = p.q0 = p.qd = p.vd = p.u0 = (real)0;
  p.effort_limit = (real)INFINITY;
  return p;
}

/* The effective gains (§5.7): the user's, unless R = 1/(δt(δt·Kp + Kd)) < R_nr = β²/(4π²)·w
 * with β = 0.1; then both are scaled by one factor so that R = R_nr (the ratio Kd/Kp is kept),
 * through Kp when δt·Kp > Kd and through Kd otherwise (the better-conditioned expression). */
static inline ISO_HD void sap_pd_effective_gains(const sapPdParams *p, real dt, real w, real *kp,
                                                 real *kd) {
  real Rnr = sap_near_rigid_R((real)SAP_JOINT_BETA, w);
  real R = (real)1 / (dt * (dt * p->kp + p->kd));
  *kp = p->kp;
  *kd = p->kd;
  if (R < Rnr) {
    if (dt * p->kp > p->kd) {
      real tau = p->kd / p->kp;
      *kp = (real)1 / (dt * (dt + tau) * Rnr);
      *kd = tau * *kp;
    } else {
      real tau_inv = p->kp / p->kd;
      *kd = (real)1 / (dt * ((real)1 + dt * tau_inv) * Rnr);
      *kp = tau_inv * *kd;
    }
  }
}

/* w: the Delassus estimate of the DoF's row, > 0. */
static inline ISO_HD void sap_pd_make(const sapPdParams *p, real dt, real w, sapPdData *d) {
  real kp, kd;
  sap_pd_effective_gains(p, dt, w, &kp, &kd);
  d->dt = dt;
  d->c = dt * kp + kd;
  d->y0 = -kp * (p->q0 - p->qd) + kd * p->vd + p->u0;
  d->e = p->effort_limit;
}

/* ℓ = δt·Φ(y)/c with Φ(y) = ½y² for |y| ≤ e and e·|y| − ½e² beyond (continuous at |y| = e:
 * ½e² both sides); γ = δt·clamp(y, −e, e) = −∂ℓ/∂v since ∂y/∂v = −c; G = δt·c for |y| ≤ e,
 * else 0. Choice for c = 0 (no gains, outside Drake's domain): ℓ = −δt·clamp(y0, −e, e)·v, the
 * gains-to-zero limit of the law without its diverging constant; γ constant, G = 0. */
static inline ISO_HD real sap_pd_eval(const sapPdData *d, const real *vc, real *gamma, real *G) {
  real v = vc[0], e = d->e;
  real y = d->y0 - d->c * v;
  real yc = y < -e ? -e : (y > e ? e : y);
  real phi;
  if (gamma) gamma[0] = d->dt * yc;
  if (!(d->c > (real)0)) {
    if (G) G[0] = (real)0;
    return -d->dt * yc * v;
  }
  if (G) G[0] = (fabs(y) <= e) ? d->dt * d->c : (real)0;
  phi = fabs(y) <= e ? (real)0.5 * y * y : e * fabs(y) - (real)0.5 * e * e;
  return d->dt * phi / d->c;
}

/* ---- coupler (§5.5) ---------------------------------------------------------------------- */

/* One row: g = q_a − ρ·q_b − Δq, J = e_a − ρ·e_b, so vc = v_a − ρ·v_b; the DoF a receives γ and
 * the DoF b receives −ρ·γ. Always near-rigid (k = ∞, τ = 0, so R = β²/(4π²)·w and τ := δt);
 * unbounded impulse. */
typedef struct sapCouplerParams {
  real qa;     /* position of DoF a at the step start, its unit */
  real qb;     /* position of DoF b at the step start, its unit */
  real ratio;  /* ρ (gear ratio), a's unit per b's unit */
  real offset; /* Δq, a's unit */
  real beta;   /* near-rigid threshold, dimensionless (SAP_JOINT_BETA) */
} sapCouplerParams;

typedef struct sapCouplerData {
  real R;    /* β²/(4π²)·w, velocity per impulse */
  real vhat; /* −g/(2δt), a's velocity unit */
} sapCouplerData;

/* w: the row's Delassus estimate, > 0. */
static inline ISO_HD void sap_coupler_make(const sapCouplerParams *p, real dt, real w,
                                           sapCouplerData *d) {
  sapHolonomicParams h;
  sapHolonomicData hd;
  h.g = p->qa - p->ratio * p->qb - p->offset;
  h.b = (real)0;
  h.lo = -(real)INFINITY;
  h.hi = (real)INFINITY;
  h.k = (real)INFINITY;
  h.tau = (real)0;
  h.beta = p->beta;
  sap_holonomic_make(&h, dt, w, &hd);
  d->R = hd.R;
  d->vhat = hd.vhat;
}

static inline ISO_HD real sap_coupler_eval(const sapCouplerData *d, const real *vc, real *gamma,
                                           real *G) {
  return sap_holonomic_row_eval(d->R, d->vhat, -(real)INFINITY, (real)INFINITY, vc[0], gamma, G);
}

/* ---- fixed point (§5.5, Drake's SapFixedConstraint) ------------------------------------------ */

/* Three rows: g = R_WCᵀ(p_Q − p_P), the gap between a point P (a deformable vertex) and the point
 * Q of a rigid body it is welded to, in some frame C; vc = R_WCᵀ(v_Q − v_P). Each row is
 * near-rigid (k = ∞, τ = 0, β = SAP_JOINT_BETA) and unbounded, like the coupler's, on the
 * constraint's one Delassus estimate w. */
typedef struct sapFixedData {
  real R;       /* β²/(4π²)·w, velocity per impulse */
  real vhat[3]; /* −g/(2δt) per row */
} sapFixedData;

static inline ISO_HD void sap_fixed_make(const real g[3], real dt, real w, sapFixedData *d) {
  for (int i = 0; i < 3; ++i) {
    sapHolonomicParams h;
    sapHolonomicData hd;
    h.g = g[i], h.b = (real)0;
    h.lo = -(real)INFINITY, h.hi = (real)INFINITY;
    h.k = (real)INFINITY, h.tau = (real)0, h.beta = (real)SAP_JOINT_BETA;
    sap_holonomic_make(&h, dt, w, &hd);
    d->R = hd.R;
    d->vhat[i] = hd.vhat;
  }
}

static inline ISO_HD real sap_fixed_eval(const sapFixedData *d, const real *vc, real *gamma, real *G) {
  real cost = 0;
  if (G)
    for (int i = 0; i < 9; ++i) G[i] = 0;
  for (int i = 0; i < 3; ++i) {
    real g, Gi;
    cost += sap_holonomic_row_eval(d->R, d->vhat[i], -(real)INFINITY, (real)INFINITY, vc[i], &g, &Gi);
    if (gamma) gamma[i] = g;
    if (G) G[4 * i] = Gi;
  }
  return cost;
}

/* ---- storage ----------------------------------------------------------------------------- */

/* One joint constraint's data as the solver stores it; the constraint's kind says which. */
typedef union sapJointLawData {
  sapLimitData limit;
  sapPdData pd;
  sapCouplerData coupler;
  sapFixedData fixed;
} sapJointLawData;

#endif
