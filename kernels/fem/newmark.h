/* Drake's velocity Newmark step of a deformable body, per element and per vertex (reference
 * §6.3; seed 001 §VI eq. 8–11): the free motion is one linear solve per step, because the
 * corotational model with its lagged R0 is linear in the positions within a step.
 *
 * The unknown is v = v_{n+1}, with γ = 1, β = ½ (VelocityNewmarkScheme(δt, 1, ½)):
 *   a = (v − v_n)/δt,  q = q_n + δt(½v + ½v_n),  so (∂q/∂v, ∂v/∂v, ∂a/∂v) = (½δt, 1, 1/δt).
 * The force balance r(v) = M a − f_e(q) − f_d(v) − f_ext, f_d = −(α_R M + β_R K) v, is affine
 * in v with the tangent
 *   T = ∂r/∂v = (½δt + β_R) K + (1/δt + α_R) M   (symmetric positive definite once assembled),
 * so from the prediction v = v_n (a = 0, q_pred = q_n + δt v_n) and its residual b = r(v_n),
 * the exact solution is v = v_n + dz with T dz = −b. fem_newmark_element writes one element's
 * share of T and b; any storage assembles them (dense.h for one small body, block-sparse later).
 *
 * Dirichlet conditions (§6.3, Drake's DirichletBoundaryCondition): a held vertex has v = 0 and
 * a = 0 in the prediction (the caller zeroes its v_n before the element work), its residual
 * rows are zeroed, every off-diagonal 3×3 block in its rows and columns is zeroed and its
 * diagonal block keeps only its own diagonal entries. Its dz is then 0, so v stays 0 and q
 * stays q_n. Zeroing blocks and keeping diagonal entries commutes with summing elements, so
 * fem_dirichlet_element applied to each element before assembly gives the same matrix, to the
 * bit, as applying the condition to the assembled one (the same sums in the same order). */
#ifndef ISO_KERNELS_FEM_NEWMARK_H
#define ISO_KERNELS_FEM_NEWMARK_H

#include "kernels/core.h"
#include "kernels/fem/tet.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

/* One body's material, in the form the step uses. */
typedef struct femMaterial {
  real mu, lambda; /* Lamé parameters, Pa */
  real rho;        /* mass density, kg/m³ (per rest volume) */
  real alpha;      /* Rayleigh mass damping α_R, 1/s */
  real beta;       /* Rayleigh stiffness damping β_R, s */
} femMaterial;

/* The material from E (Pa), ν, ρ (kg/m³) and Rayleigh α (1/s), β (s). */
static inline ISO_HD femMaterial fem_material(real E, real nu, real rho, real alpha, real beta) {
  femMaterial m;
  fem_lame(E, nu, &m.mu, &m.lambda);
  m.rho = rho;
  m.alpha = alpha;
  m.beta = beta;
  return m;
}

/* One element's share of the tangent T (12×12 row-major) and of the residual b (12) at the
 * prediction, from the element's previous positions q_n (for R0 and the prediction) and
 * velocities v_n (held vertices' already zeroed), the step δt > 0, the material and gravity g
 * (m/s²):
 *   R0 = polar(F(q_n)),  q_pred = q_n + δt v_n,
 *   T = (½δt + β_R) K + (1/δt + α_R) M,
 *   b = −f_e(q_pred) + (α_R M + β_R K) v_n − ρVg/4 (per node)   (M a = 0 at the prediction). */
static inline ISO_HD void fem_newmark_element(const femTetRest *r, const real q_n[12],
                                              const real v_n[12], real dt, const femMaterial *m,
                                              vec3 g, real T[144], real b[12]) {
  real qp[12], fe[12], fg[12];
  real msum[3];
  real me = fem_tet_mass_entry(r, m->rho);
  real wk = (real)0.5 * dt + m->beta;
  real wm = (real)1 / dt + m->alpha;
  mat3 R0 = fem_corot_R0(fem_tet_F(r, q_n));
  mat3 P;
  int i, j, a, c;
  fem_tet_stiffness(r, R0, m->mu, m->lambda, T); /* T holds K until the last loop */
  for (i = 0; i < 12; ++i) qp[i] = q_n[i] + dt * v_n[i];
  P = fem_corot_P(fem_tet_F(r, qp), R0, m->mu, m->lambda);
  fem_tet_force(r, P, fe);
  fem_tet_gravity(r, m->rho, g, fg);
  /* (M v)_a = ρV/16 Σ_b v_b, the same for every node a */
  for (c = 0; c < 3; ++c) msum[c] = me * (v_n[c] + v_n[3 + c] + v_n[6 + c] + v_n[9 + c]);
  for (i = 0; i < 12; ++i) {
    real kv = (real)0;
    for (j = 0; j < 12; ++j) kv += T[i * 12 + j] * v_n[j];
    b[i] = -fe[i] + m->alpha * msum[i % 3] + m->beta * kv - fg[i];
  }
  for (i = 0; i < 12; ++i)
    for (j = 0; j < 12; ++j) T[i * 12 + j] *= wk;
  for (a = 0; a < 4; ++a)
    for (c = 0; c < 4; ++c)
      for (i = 0; i < 3; ++i) T[(3 * a + i) * 12 + 3 * c + i] += wm * me;
}

/* The Dirichlet condition on one element's T and b (header comment): for each node a with
 * held[a] != 0, rows and columns 3a..3a+2 are zeroed except their diagonal entries, and b's
 * rows 3a..3a+2 are zeroed. */
static inline ISO_HD void fem_dirichlet_element(const unsigned char held[4], real T[144],
                                                real b[12]) {
  int a, i, j;
  for (a = 0; a < 4; ++a) {
    if (!held[a]) continue;
    for (i = 3 * a; i < 3 * a + 3; ++i) {
      b[i] = (real)0;
      for (j = 0; j < 12; ++j) {
        if (j == i) continue;
        T[i * 12 + j] = (real)0;
        T[j * 12 + i] = (real)0;
      }
    }
  }
}

/* One vertex's Newmark update from the solved change dz: v = v_n + dz, q = q_n + δt(½v + ½v_n)
 * (3 reals each; q may alias q_n and v may alias v_n). A held vertex, with v_n = 0 and dz = 0,
 * keeps v = 0 and q = q_n exactly. */
static inline ISO_HD void fem_newmark_update_vertex(const real q_n[3], const real v_n[3],
                                                    const real dz[3], real dt, real q[3],
                                                    real v[3]) {
  int i;
  for (i = 0; i < 3; ++i) {
    real vn = v_n[i];
    real vi = vn + dz[i];
    q[i] = q_n[i] + dt * ((real)0.5 * vi + (real)0.5 * vn);
    v[i] = vi;
  }
}

#endif
