/* The SAP solver for a batch of worlds (Castro, Permenter, Han 2022; reference §5.1–5.2):
 *   minimise ℓ(v) = ½(v − v*)ᵀA(v − v*) + Σᵢ ℓᵢ(Jᵢv)
 * by Newton's method with an exact line search, warm-started from the previous velocities.
 *
 * Layout: one world is one problem. Its unknowns are the generalized velocities of its free
 * bodies, v = [ω_W, v_WBo] per body (nv = 6·nbody); A is block diagonal (the spatial inertia of
 * each body about its origin, in the world frame); each contact constraint couples at most two
 * bodies. The Newton Hessian H = A + Σ JᵢᵀGᵢJᵢ is assembled dense per world (nv × nv,
 * column-major) and factored by the batched Cholesky (host/backend/linalg.h: the hand-written
 * single-source kernel on the CPU, cuSOLVER potrfBatched on the GPU), so an iteration is
 *   sap_newton_begin (world)  → batched Cholesky (all worlds) → sap_newton_end (world).
 * Worlds converge independently: a per-world done flag makes both items skip finished worlds;
 * the host loop stops when every world is done or the iteration limit is reached.
 *
 * Constraint Jacobians are never stored: for a contact at point C with frame R_WC (columns Cx,
 * Cy, Cz = n̂_AB) on bodies A and B, vc = R_WCᵀ(v_Bc − v_Ac) with v_Xc = v_Xo + ω_X × r_X,
 * r_X = p_WC − p_WXo; so J_X = R_WCᵀ[−[r_X]× | I] (3 × 6) is rebuilt from (R_WC, r_X) where
 * needed (sapJac) from the constraint's record in the world's contact list (p_WC, n̂_AB) and
 * the body origins of the step. Nor are the per-iteration γ, G and J·Δv: each is recomputed
 * from the constraint where it is used, by the same functions on the same inputs, so a
 * constraint stores its bodies, its record's index and its law's data. A body index of −1 is
 * the world (no unknowns). */
#ifndef ISO_KERNELS_SAP_SOLVE_H
#define ISO_KERNELS_SAP_SOLVE_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"
#include "kernels/sap/contact.h"

/* The largest finite real: x <= SAP_REAL_MAX is false for NaN and +∞ alike. */
#define SAP_REAL_MAX 1.7976931348623157e308

/* A contact constraint: what the solver needs. What it reports (geometries, point, area, the
 * face it came from) is its record in the world's contact list (kernels/contact/list.h). */
typedef struct sapCon {
  int body_a, body_b;  /* −1: the world */
  int contact;         /* index of its record in the world's contact list */
  sapContactData data;
} sapCon;

/* A constraint's Jacobian data, rebuilt from its record where it is needed. */
typedef struct sapJac {
  int body_a, body_b;  /* −1: the world */
  vec3 r_a, r_b;       /* contact point minus the body origins, world frame */
  mat3 R_WC;           /* columns: Cx, Cy, Cz = n̂_AB */
} sapJac;

/* A right-handed frame whose z axis is n (unit); the tangents are any fixed function of n
 * (Drake leaves them arbitrary, §3), here built from the world axis least aligned with n. */
static inline ISO_HD mat3 sap_frame_from_z(vec3 n) {
  vec3 a = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? v3(1, 0, 0)
           : fabs(n.y) <= fabs(n.z)                          ? v3(0, 1, 0)
                                                              : v3(0, 0, 1);
  vec3 t1 = v3_normalize(v3_cross(a, n));
  vec3 t2 = v3_cross(n, t1);
  return m3_from_cols(t1, t2, n);
}

/* The Jacobian data of a contact at p_WC with normal n̂_BA (Cz = n̂_AB = −n̂_BA) between
 * bodies ba and bb whose origins are o_a, o_b. */
static inline ISO_HD sapJac sap_jac_make(int ba, int bb, vec3 p_WC, vec3 nhat_BA, vec3 o_a, vec3 o_b) {
  sapJac j;
  j.body_a = ba;
  j.body_b = bb;
  j.R_WC = sap_frame_from_z(v3_neg(nhat_BA));
  j.r_a = v3_sub(p_WC, o_a);
  j.r_b = v3_sub(p_WC, o_b);
  return j;
}

typedef struct sapStats {
  int iterations;      /* Newton iterations taken */
  int ls_iterations;   /* line-search iterations, all Newton iterations together */
  int done;            /* 1 once the world stopped iterating this step */
  int converged;       /* 1 when a stopping criterion was met */
  int cost_converged;  /* the cost criterion of the last iteration held (with α > 0.5) */
  real cost;           /* the SAP cost at the last check */
  real residual;       /* ‖D∇ℓ‖ / (ε_a + ε_r·max(‖Dp‖, ‖Djc‖)) at the last check: < 1 converged */
} sapStats;

typedef struct sapSettings {
  int max_iterations; /* 100 */
  real abs_tol;       /* ε_a = 1e-14 */
  real rel_tol;       /* ε_r = 1e-6 */
  real cost_abs_tol;  /* 1e-30 */
  real cost_rel_tol;  /* 1e-15 */
  real ls_alpha_max;  /* 1.5 */
  real ls_f_tol;      /* 1e-8 */
  int ls_max_iterations; /* 100 */
  int freeze_on_failure; /* also freeze a world that hits max_iterations */
} sapSettings;

static inline ISO_HD sapSettings sap_default_settings(void) {
  sapSettings s;
  s.max_iterations = 100;
  s.abs_tol = (real)1e-14;
  s.rel_tol = (real)1e-6;
  s.cost_abs_tol = (real)1e-30;
  s.cost_rel_tol = (real)1e-15;
  s.ls_alpha_max = (real)1.5;
  s.ls_f_tol = (real)1e-8;
  s.ls_max_iterations = 100;
  s.freeze_on_failure = 0;
  return s;
}

typedef struct sapBatch {
  int nbody, nv, max_con;
  sapSettings set;
  real *v;             /* (nworld, nv) the iterate; holds v0 on entry (warm start) */
  const real *vstar;   /* (nworld, nv) free-motion velocities */
  const real *A;       /* (nworld, nbody, 36) row-major 6×6 blocks of A */
  sapCon *con;         /* (nworld, max_con) */
  const int *ncon;     /* (nworld) */
  const contactRec *list; /* (nworld, max_list) the contact list the constraints point into */
  int max_list;
  real *origin;        /* (nworld, nbody, 3) body origins of the step (q at its start) */
  real *H;             /* (nworld, nv, nv) column-major: the Cholesky batch's A */
  real *rhs;           /* (nworld, nv) the Cholesky batch's B: −∇ℓ in, Δv out */
  real *dv;            /* (nworld, nv) scratch: A·Δv */
  const int *info;     /* (nworld) Cholesky info */
  sapStats *stats;     /* (nworld) */
  uint32_t *status;    /* (nworld) */
} sapBatch;

/* ---- Jacobian pieces -------------------------------------------------------------------------- */

/* Row-major 3×6 block J_X = R_WCᵀ[−[r]× | I]: row i is (−(Cᵢ × ... )): for a unit axis c,
 * c·(v + ω × r) = c·v + ω·(r × c), so the row is [r × c, c]. */
static inline ISO_HD void sap_jac_block(mat3 R_WC, vec3 r, real J[18]) {
  for (int i = 0; i < 3; ++i) {
    vec3 c = m3_col(R_WC, i);
    vec3 rc = v3_cross(r, c);
    J[6 * i + 0] = rc.x, J[6 * i + 1] = rc.y, J[6 * i + 2] = rc.z;
    J[6 * i + 3] = c.x, J[6 * i + 4] = c.y, J[6 * i + 5] = c.z;
  }
}

/* Body b's origin at the start of world w's step (zero for the world, b = −1). */
static inline ISO_HD vec3 sap_batch_origin(const sapBatch *B, int w, int b) {
  if (b < 0) return v3_zero();
  const real *o = B->origin + 3L * ((long)B->nbody * w + b);
  return v3(o[0], o[1], o[2]);
}

/* Constraint c of world w's Jacobian data, from its record and the step's body origins. */
static inline ISO_HD sapJac sap_con_jac(const sapBatch *B, int w, const sapCon *c) {
  const contactRec *r = B->list + (long)w * B->max_list + c->contact;
  return sap_jac_make(c->body_a, c->body_b, r->point, r->normal, sap_batch_origin(B, w, c->body_a),
                      sap_batch_origin(B, w, c->body_b));
}

/* vc = J·x for constraint c and the world's vector x (nv). */
static inline ISO_HD void sap_con_apply(const sapJac *c, const real *x, real vc[3]) {
  real J[18];
  vc[0] = vc[1] = vc[2] = 0;
  if (c->body_b >= 0) {
    sap_jac_block(c->R_WC, c->r_b, J);
    const real *xb = x + 6 * c->body_b;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 6; ++k) vc[i] += J[6 * i + k] * xb[k];
  }
  if (c->body_a >= 0) {
    sap_jac_block(c->R_WC, c->r_a, J);
    const real *xa = x + 6 * c->body_a;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 6; ++k) vc[i] -= J[6 * i + k] * xa[k];
  }
}

/* out += s·Jᵀ·g for constraint c (generalized impulse of γ on the world's bodies). */
static inline ISO_HD void sap_con_apply_t(const sapJac *c, const real g[3], real s, real *out) {
  real J[18];
  if (c->body_b >= 0) {
    sap_jac_block(c->R_WC, c->r_b, J);
    real *ob = out + 6 * c->body_b;
    for (int k = 0; k < 6; ++k) ob[k] += s * (J[k] * g[0] + J[6 + k] * g[1] + J[12 + k] * g[2]);
  }
  if (c->body_a >= 0) {
    sap_jac_block(c->R_WC, c->r_a, J);
    real *oa = out + 6 * c->body_a;
    for (int k = 0; k < 6; ++k) oa[k] -= s * (J[k] * g[0] + J[6 + k] * g[1] + J[12 + k] * g[2]);
  }
}

/* H += JᵀGJ for constraint c into the column-major nv × nv matrix H. */
static inline ISO_HD void sap_con_add_hessian(const sapJac *c, const real G[9], int nv, real *H) {
  real Ja[18], Jb[18], GJ[18];
  int bodies[2] = {c->body_a, c->body_b};
  real sgn[2] = {(real)-1, (real)1};
  if (c->body_a >= 0) sap_jac_block(c->R_WC, c->r_a, Ja);
  if (c->body_b >= 0) sap_jac_block(c->R_WC, c->r_b, Jb);
  for (int q = 0; q < 2; ++q) {
    if (bodies[q] < 0) continue;
    const real *Jq = q ? Jb : Ja;
    /* GJ = G·J_q (3 × 6), signed */
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 6; ++k)
        GJ[6 * i + k] = sgn[q] * (G[3 * i] * Jq[k] + G[3 * i + 1] * Jq[6 + k] + G[3 * i + 2] * Jq[12 + k]);
    for (int p = 0; p < 2; ++p) {
      if (bodies[p] < 0) continue;
      const real *Jp = p ? Jb : Ja;
      const int r0 = 6 * bodies[p], c0 = 6 * bodies[q];
      for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
          real sum = Jp[a] * GJ[b] + Jp[6 + a] * GJ[6 + b] + Jp[12 + a] * GJ[12 + b];
          H[(long)(c0 + b) * nv + (r0 + a)] += sgn[p] * sum;
        }
    }
  }
}

/* The Delassus estimate of one constraint (§5.1): W = Σ_X J_X diag(A_X)⁻¹ J_Xᵀ, then
 * w = ‖W‖_F / 3 for all three equations. */
static inline ISO_HD real sap_con_delassus(const sapJac *c, const real *A_world) {
  real W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, J[18];
  int bodies[2] = {c->body_a, c->body_b};
  vec3 rs[2] = {c->r_a, c->r_b};
  for (int q = 0; q < 2; ++q) {
    if (bodies[q] < 0) continue;
    const real *Ab = A_world + 36 * bodies[q];
    sap_jac_block(c->R_WC, rs[q], J);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        real s = 0;
        for (int k = 0; k < 6; ++k) s += J[6 * i + k] * J[6 * j + k] / Ab[7 * k];
        W[3 * i + j] += s;
      }
  }
  real f = 0;
  for (int i = 0; i < 9; ++i) f += W[i] * W[i];
  return sqrt(f) / 3;
}

/* ---- per-world items ------------------------------------------------------------------------ */

static inline ISO_HD void sap_mul_A(const real *A_world, int nbody, const real *x, real *y) {
  for (int b = 0; b < nbody; ++b) {
    const real *Ab = A_world + 36 * b;
    for (int i = 0; i < 6; ++i) {
      real s = 0;
      for (int k = 0; k < 6; ++k) s += Ab[6 * i + k] * x[6 * b + k];
      y[6 * b + i] = s;
    }
  }
}

/* ½(v − v*)ᵀA(v − v*), body by body. */
static inline ISO_HD real sap_cost_A(const real *A_world, int nbody, const real *v, const real *vs) {
  real c = 0;
  for (int b = 0; b < nbody; ++b) {
    real e[6];
    for (int k = 0; k < 6; ++k) e[k] = v[6 * b + k] - vs[6 * b + k];
    for (int i = 0; i < 6; ++i) {
      real r = 0;
      for (int k = 0; k < 6; ++k) r += A_world[36 * b + 6 * i + k] * e[k];
      c += 0.5 * e[i] * r;
    }
  }
  return c;
}

/* A finished world's slot in the batched factorisation: the identity, with a zero right-hand
 * side, which factors trivially and leaves nothing to undo. */
static inline ISO_HD void sap_identity_system(int nv, real *H, real *rhs) {
  for (long i = 0; i < (long)nv * nv; ++i) H[i] = 0;
  for (int i = 0; i < nv; ++i) H[(long)i * nv + i] = 1, rhs[i] = 0;
}

/* Once per step: the world's statistics; worlds without constraints are done at once with
 * v = v*. */
static inline ISO_HD void sap_setup_world(const sapBatch *B, int w) {
  sapStats *st = B->stats + w;
  real *v = B->v + (long)w * B->nv;
  const real *vs = B->vstar + (long)w * B->nv;
  st->iterations = st->ls_iterations = 0;
  st->converged = 0;
  st->cost_converged = 0;
  st->cost = 0;
  st->residual = 0;
  st->done = 0;
  if (B->status[w] & ISO_WORLD_FROZEN) {
    st->done = 1;
    return;
  }
  const int n = B->ncon[w];
  if (n == 0) {
    for (int i = 0; i < B->nv; ++i) v[i] = vs[i];
    st->done = st->converged = 1;
    return;
  }
}

/* γ (and G when not NULL) of constraint c with Jacobian data j at the world's velocities v;
 * returns ℓᵢ. The impulses the queries report are this at the solved velocities. */
static inline ISO_HD real sap_con_eval(const sapCon *c, const sapJac *j, const real *v, real gamma[3], real G[9]) {
  real vc[3];
  sap_con_apply(j, v, vc);
  return sap_contact_eval(&c->data, vc, gamma, G);
}

static inline ISO_HD real sap_norm_D(const real *x, const real *A_world, int nbody) {
  real s = 0;
  for (int b = 0; b < nbody; ++b)
    for (int k = 0; k < 6; ++k) {
      real y = x[6 * b + k];
      s += y * y / A_world[36 * b + 7 * k]; /* D = diag(A)^(−1/2) */
    }
  return sqrt(s);
}

/* Iteration, part 1: evaluate, test convergence, assemble H and −∇ℓ for the batched solve. */
static inline ISO_HD void sap_newton_begin(const sapBatch *B, int w) {
  sapStats *st = B->stats + w;
  const int nv = B->nv;
  real *H = B->H + (long)w * nv * nv, *rhs = B->rhs + (long)w * nv;
  if (st->done) {
    sap_identity_system(nv, H, rhs);
    return;
  }
  const real *v = B->v + (long)w * nv, *vs = B->vstar + (long)w * nv;
  const real *A = B->A + 36L * B->nbody * w;
  real *p = B->dv + (long)w * nv; /* scratch: A·v, then reused in part 2 */
  const int n = B->ncon[w];
  const sapCon *con = B->con + (long)w * B->max_con;
  /* gradient = A(v − v*) − Jᵀγ, assembled into rhs as −gradient; Σℓᵢ on the way */
  real lc = 0, jc_norm;
  for (int i = 0; i < nv; ++i) rhs[i] = 0;
  for (int i = 0; i < n; ++i) {
    sapJac j = sap_con_jac(B, w, con + i);
    real gam[3];
    lc += sap_con_eval(con + i, &j, v, gam, (real *)0);
    sap_con_apply_t(&j, gam, 1, rhs); /* rhs = Jᵀγ */
  }
  jc_norm = sap_norm_D(rhs, A, B->nbody);
  for (int i = 0; i < nv; ++i) H[i] = v[i] - vs[i]; /* scratch */
  sap_mul_A(A, B->nbody, H, p);                      /* p = A(v − v*) */
  real cost = lc;
  for (int i = 0; i < nv; ++i) cost += 0.5 * H[i] * p[i];
  for (int i = 0; i < nv; ++i) rhs[i] -= p[i]; /* −∇ℓ = Jᵀγ − A(v − v*) */
  sap_mul_A(A, B->nbody, v, p);                /* p = A·v for the scale */
  real pn = sap_norm_D(p, A, B->nbody), gn = sap_norm_D(rhs, A, B->nbody);
  real scale = B->set.abs_tol + B->set.rel_tol * (pn > jc_norm ? pn : jc_norm);
  st->cost = cost;
  st->residual = gn / scale;
  if (!(cost <= SAP_REAL_MAX && cost >= -SAP_REAL_MAX) || scale > SAP_REAL_MAX || gn > SAP_REAL_MAX) {
    /* NaN or ∞ in v*, the warm start or a constraint (an infinite stiffness makes the threshold
     * infinite, so the test below would pass): name the cause before the solver turns it into a
     * failed Cholesky or line search. (A NaN norm alone comes from the D scaling of an A with a
     * negative diagonal; the Cholesky names that one: not positive definite.) */
    st->done = 1;
    B->status[w] |= ISO_WORLD_NONFINITE | ISO_WORLD_FROZEN;
  } else if (gn <= scale || st->cost_converged) {
    st->done = st->converged = 1;
  } else if (st->iterations >= B->set.max_iterations) {
    st->done = 1;
    B->status[w] |= ISO_WORLD_NOT_CONVERGED | (B->set.freeze_on_failure ? ISO_WORLD_FROZEN : 0u);
  }
  if (st->done) {
    sap_identity_system(nv, H, rhs);
    return;
  }
  /* H = A + Σ JᵀGJ */
  for (long i = 0; i < (long)nv * nv; ++i) H[i] = 0;
  for (int b = 0; b < B->nbody; ++b)
    for (int i = 0; i < 6; ++i)
      for (int k = 0; k < 6; ++k) H[(long)(6 * b + k) * nv + 6 * b + i] = A[36 * b + 6 * i + k];
  for (int i = 0; i < n; ++i) {
    sapJac j = sap_con_jac(B, w, con + i);
    real G[9];
    sap_con_eval(con + i, &j, v, (real *)0, G);
    sap_con_add_hessian(&j, G, nv, H);
  }
}

/* ℓ along the line v + αΔv: value and first two derivatives (§5.2 step 4). a0 = Δpᵀ(v − v*),
 * a2 = ΔvᵀAΔv, cA = ½(v − v*)ᵀA(v − v*); dv = Δv. */
static inline ISO_HD real sap_line_eval(const sapBatch *B, int w, const real *v, const real *dv, real alpha, real cA,
                                        real a0, real a2, real *d1, real *d2) {
  const int n = B->ncon[w];
  const sapCon *con = B->con + (long)w * B->max_con;
  real cost = cA + alpha * a0 + 0.5 * alpha * alpha * a2;
  real g1 = a0 + alpha * a2, g2 = a2;
  for (int i = 0; i < n; ++i) {
    sapJac j = sap_con_jac(B, w, con + i);
    real vc[3], d[3], gam[3], G[9];
    sap_con_apply(&j, v, vc);
    sap_con_apply(&j, dv, d); /* J·Δv */
    for (int k = 0; k < 3; ++k) vc[k] += alpha * d[k];
    cost += sap_contact_eval(&con[i].data, vc, gam, G);
    g1 -= d[0] * gam[0] + d[1] * gam[1] + d[2] * gam[2];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) g2 += d[a] * G[3 * a + b] * d[b];
  }
  *d1 = g1;
  *d2 = g2;
  return cost;
}

/* Iteration, part 2: the Newton direction is in rhs; exact line search, update. */
static inline ISO_HD void sap_newton_end(const sapBatch *B, int w) {
  sapStats *st = B->stats + w;
  if (st->done) return;
  const int nv = B->nv;
  if (B->info[w] != 0) {
    B->status[w] |= ISO_WORLD_NOT_SPD | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  real *v = B->v + (long)w * nv;
  const real *vs = B->vstar + (long)w * nv, *dv = B->rhs + (long)w * nv;
  const real *A = B->A + 36L * B->nbody * w;
  real *Adv = B->dv + (long)w * nv;
  sap_mul_A(A, B->nbody, dv, Adv);
  real a0 = 0, a2 = 0, cA = sap_cost_A(A, B->nbody, v, vs);
  for (int i = 0; i < nv; ++i) {
    a0 += Adv[i] * (v[i] - vs[i]);
    a2 += dv[i] * Adv[i];
  }
  if (!(a2 > 0)) { /* d²ℓ_A/dα² must be positive (A is positive definite) */
    B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  real d1_0, d2_0, d1_m, d2_m;
  real l0 = sap_line_eval(B, w, v, dv, 0, cA, a0, a2, &d1_0, &d2_0);
  (void)l0;
  if (!(d1_0 < 0)) { /* not a descent direction: Drake throws; isobar flags the world */
    B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
    st->done = 1;
    return;
  }
  const real amax = B->set.ls_alpha_max;
  real lmax = sap_line_eval(B, w, v, dv, amax, cA, a0, a2, &d1_m, &d2_m);
  real alpha;
  int ls = 0;
  if (d1_m <= 0) {
    alpha = amax;
  } else if (-d1_0 < B->set.cost_abs_tol + B->set.cost_rel_tol * lmax) {
    alpha = 1;
  } else {
    /* Newton with bisection fallback on f(α) = ℓ'(α)/(−ℓ'(0)), f(0) = −1 < 0 < f(α_max). */
    real lo = 0, hi = amax, x = -d1_0 / d2_m;
    if (!(x < amax)) x = amax;
    if (!(x > 0)) x = 0.5 * amax;
    const real xtol = (real)1e-8 * x, scale = -d1_0;
    real dx_prev = hi - lo, d1, d2;
    alpha = x;
    for (ls = 1; ls <= B->set.ls_max_iterations; ++ls) {
      sap_line_eval(B, w, v, dv, x, cA, a0, a2, &d1, &d2);
      real f = d1 / scale, fp = d2 / scale;
      alpha = x;
      if (fabs(f) < B->set.ls_f_tol) break;
      if (f < 0) lo = x;
      else hi = x;
      real dx = fp > 0 ? -f / fp : (real)0;
      real xn = x + dx;
      if (!(fp > 0) || 2 * fabs(f) > fabs(dx_prev * fp) || xn <= lo || xn >= hi) {
        xn = 0.5 * (lo + hi); /* slow or out of the bracket: bisect */
        dx = xn - x;
      }
      dx_prev = dx;
      x = xn;
      alpha = x;
      if (fabs(dx) < xtol) break;
    }
    if (ls > B->set.ls_max_iterations) { /* Drake throws here; isobar freezes the world */
      B->status[w] |= ISO_WORLD_LINE_SEARCH | ISO_WORLD_FROZEN;
      st->ls_iterations += B->set.ls_max_iterations;
      st->done = 1;
      return;
    }
  }
  for (int i = 0; i < nv; ++i) v[i] += alpha * dv[i];
  st->ls_iterations += ls;
  st->iterations++;
  /* the cost criterion for the next check (§5.2 step 1) */
  real d1, d2;
  real lnew = sap_line_eval(B, w, v, dv, 0, 0, 0, 0, &d1, &d2);
  real e2 = sap_cost_A(A, B->nbody, v, vs);
  lnew += e2;
  real lprev = st->cost;
  st->cost_converged = fabs(lnew - lprev) < B->set.cost_abs_tol + B->set.cost_rel_tol * 0.5 * (fabs(lnew) + fabs(lprev)) &&
                       alpha > (real)0.5;
}

/* World w's whole Newton solve as one item: begin → factor → solve → end until the world is done.
 * It does per world exactly what the batched path (all worlds' begin, the batched Cholesky with
 * the hand-written kernel, all worlds' end) does, in the same order, so the results are bitwise
 * the same. On the GPU it needs no host synchronisation (no count of active worlds to read
 * back), which is what lets a whole step be captured in a CUDA graph. */
static inline ISO_HD void sap_solve_world(const sapBatch *B, int w) {
  const int nv = B->nv;
  real *H = B->H + (long)w * nv * nv, *rhs = B->rhs + (long)w * nv;
  for (int it = 0; it <= B->set.max_iterations && !B->stats[w].done; ++it) {
    sap_newton_begin(B, w);
    if (B->stats[w].done) break;
    int info = chol_factor(nv, H);
    if (info == 0) chol_solve(nv, H, rhs);
    ((int *)B->info)[w] = info; /* the batched path writes it through the Cholesky plan */
    sap_newton_end(B, w);
  }
}

#endif
