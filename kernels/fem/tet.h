/* One linear tetrahedral element with the linear corotational material (seed 001 §V-B, Han,
 * Masterjohn and Castro 2023), as Drake's LinearCorotatedModel and VolumetricElement compute it.
 *
 * Discretisation (reference §6.1): four nodes, linear shape functions S_a, one-point quadrature
 * at the centroid with the tet's rest volume V as weight. The shape-function gradients ∇_X S_a
 * are constant over the element, so F = Σ_a x_a ⊗ ∇S_a is too, and every integral is V times
 * the integrand.
 *
 * Material (§6.2): R0 is the rotation of the polar decomposition of the previous step's F0, held
 * for the whole step, so the model is linear in the positions within a step:
 *   ε = ½(R0ᵀF + FᵀR0) − I,  Ψ = μ ε:ε + ½λ tr(ε)²,  P = ∂Ψ/∂F = 2μ R0 ε + λ tr(ε) R0,
 *   ∂P_ij/∂F_kl = μ(δ_ik δ_jl + R0_il R0_kj) + λ R0_ij R0_kl   (seed 001, Proposition 1).
 * Contracting with the gradients gives the element stiffness in closed form (with r_a = R0 ∇S_a)
 *   K_ab = V [ μ (∇S_a·∇S_b) I₃ + μ r_b r_aᵀ + λ r_a r_bᵀ ],
 * the Hessian of the element energy, so the elastic force f_a = −V P ∇S_a satisfies
 * ∂f/∂x = −K. K_ba = K_abᵀ; only entries with row >= column are computed and the rest mirrored,
 * so K is symmetric to the bit.
 *
 * Mass (§6.1): consistent, one-point quadrature: every S_a = ¼ at the quadrature point, so every
 * 3×3 block (a, b) is ρV/16·I₃ (rank 3 per element, as in Drake). Gravity is ρVg/4 per node.
 *
 * Layout: per-element arrays of 12 reals are vertex-major (x0 y0 z0 x1 …); 12×12 matrices are
 * row-major, entry (3a+i, 3b+k) at [(3a+i)·12 + 3b+k]. Every function is the work of one
 * element, so a GPU kernel runs one element per thread and any assembly reads its outputs. */
#ifndef ISO_KERNELS_FEM_TET_H
#define ISO_KERNELS_FEM_TET_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/polar.h"
#include "kernels/math/vec3.h"

/* A tet is refused when 6V <= ISO_FEM_TET_MIN_SHAPE · (longest edge)³. A regular tet has
 * 6V/L³ = 1/√2; the threshold only catches tets flat to within rounding (the edge-matrix
 * determinant carries an error of a few ε·L³), whose inverse edge matrix would be noise; thin
 * but honest slivers (6V/L³ down to 1e-9) pass. */
#define ISO_FEM_TET_MIN_SHAPE 1e-12

/* The rest data of one tet: what every step reads. */
typedef struct femTetRest {
  real grad[4][3]; /* ∇_X S_a, the shape-function gradients at rest, 1/m (node, xyz) */
  real volume;     /* rest volume V, m³ (> 0) */
} femTetRest;

/* Rest data of the tet with rest positions X (4 nodes, vertex-major). Returns 0, or 1 when the
 * tet is degenerate or inverted (6V <= ISO_FEM_TET_MIN_SHAPE·Lmax³, or not finite); *out is then
 * zeroed. With Dm = [X1−X0, X2−X0, X3−X0] (columns), ∇S_1..3 are the rows of Dm⁻¹ and ∇S_0 is
 * minus their sum (the S_a sum to 1). */
static inline ISO_HD int fem_tet_rest(const real X[12], femTetRest *out) {
  vec3 x0 = v3(X[0], X[1], X[2]);
  vec3 e1 = v3_sub(v3(X[3], X[4], X[5]), x0);
  vec3 e2 = v3_sub(v3(X[6], X[7], X[8]), x0);
  vec3 e3 = v3_sub(v3(X[9], X[10], X[11]), x0);
  mat3 Dm = m3_from_cols(e1, e2, e3);
  mat3 inv;
  real det = m3_det(Dm);
  real l2 = v3_norm2(e1);
  real lmax, c;
  int a, i;
  /* the six edges: three from node 0, three between the others */
  if (v3_norm2(e2) > l2) l2 = v3_norm2(e2);
  if (v3_norm2(e3) > l2) l2 = v3_norm2(e3);
  if (v3_norm2(v3_sub(e2, e1)) > l2) l2 = v3_norm2(v3_sub(e2, e1));
  if (v3_norm2(v3_sub(e3, e1)) > l2) l2 = v3_norm2(v3_sub(e3, e1));
  if (v3_norm2(v3_sub(e3, e2)) > l2) l2 = v3_norm2(v3_sub(e3, e2));
  lmax = sqrt(l2);
  for (a = 0; a < 4; ++a)
    for (i = 0; i < 3; ++i) out->grad[a][i] = (real)0;
  out->volume = (real)0;
  if (!isfinite(det) || !isfinite(lmax) || !(det > (real)ISO_FEM_TET_MIN_SHAPE * lmax * l2)) return 1;
  /* det > 0 is clearly away from 0 here, so the adjugate inverse succeeds */
  if (!m3_inverse(Dm, &inv)) return 1;
  for (a = 1; a < 4; ++a)
    for (i = 0; i < 3; ++i) out->grad[a][i] = inv.m[a - 1][i];
  for (i = 0; i < 3; ++i) {
    c = out->grad[1][i] + out->grad[2][i] + out->grad[3][i];
    out->grad[0][i] = -c;
  }
  out->volume = det / (real)6;
  return 0;
}

/* Lamé parameters from Young's modulus E (Pa) and Poisson's ratio ν (in (−1, ½)):
 * μ = E/(2(1+ν)), λ = Eν/((1+ν)(1−2ν)). */
static inline ISO_HD void fem_lame(real E, real nu, real *mu, real *lambda) {
  *mu = E / ((real)2 * ((real)1 + nu));
  *lambda = E * nu / (((real)1 + nu) * ((real)1 - (real)2 * nu));
}

/* The deformation gradient at positions x (4 nodes, vertex-major): F = Σ_a x_a ⊗ ∇S_a, written
 * as Σ_{a≥1} (x_a − x_0) ⊗ ∇S_a (equal, as ∇S_0 = −Σ_{a≥1} ∇S_a) so a body far from the origin
 * does not lose digits to the cancellation of large positions. */
static inline ISO_HD mat3 fem_tet_F(const femTetRest *r, const real x[12]) {
  mat3 F = m3_zero();
  int a, i, j;
  for (a = 1; a < 4; ++a) {
    real d[3];
    for (i = 0; i < 3; ++i) d[i] = x[3 * a + i] - x[i];
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 3; ++j) F.m[i][j] += d[i] * r->grad[a][j];
  }
  return F;
}

/* R0, the rotation of the polar decomposition of the previous step's F0 (§6.2), by
 * m3_polar_rotation: Newton's iteration for the common element (det F0 > 0, well shaped), else
 * m3_svd, which keeps U and V proper and puts an inversion's sign on the smallest singular
 * value, so R0 = U Vᵀ has det +1: the same R0 as Drake's flip of U's last column when
 * det(U Vᵀ) < 0. */
static inline ISO_HD mat3 fem_corot_R0(mat3 F0) { return m3_polar_rotation(F0); }

/* The corotated linear strain ε = ½(R0ᵀF + FᵀR0) − I (symmetric by construction). */
static inline ISO_HD mat3 fem_corot_strain(mat3 F, mat3 R0) {
  mat3 B = m3_mul(m3_transpose(R0), F);
  mat3 e;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) e.m[i][j] = (real)0.5 * (B.m[i][j] + B.m[j][i]) - (real)(i == j);
  return e;
}

/* First Piola stress P = 2μ R0 ε + λ tr(ε) R0, Pa. */
static inline ISO_HD mat3 fem_corot_P(mat3 F, mat3 R0, real mu, real lambda) {
  mat3 e = fem_corot_strain(F, R0);
  real tr = m3_trace(e);
  return m3_add(m3_scale(m3_mul(R0, e), (real)2 * mu), m3_scale(R0, lambda * tr));
}

/* Energy density Ψ = μ ε:ε + ½λ tr(ε)², J/m³. */
static inline ISO_HD real fem_corot_psi(mat3 F, mat3 R0, real mu, real lambda) {
  mat3 e = fem_corot_strain(F, R0);
  real tr = m3_trace(e), ee = (real)0;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) ee += e.m[i][j] * e.m[i][j];
  return mu * ee + (real)0.5 * lambda * tr * tr;
}

/* Elastic force of the element on its nodes for stress P: f_a = −V P ∇S_a, N (12). */
static inline ISO_HD void fem_tet_force(const femTetRest *r, mat3 P, real f[12]) {
  int a, i;
  for (a = 0; a < 4; ++a) {
    vec3 pg = m3_mulv(P, v3(r->grad[a][0], r->grad[a][1], r->grad[a][2]));
    for (i = 0; i < 3; ++i) f[3 * a + i] = -r->volume * v3_get(pg, i);
  }
}

/* Element stiffness K (12×12 row-major, N/m) for the held R0: the closed form in the header
 * comment. Entries with row >= column are computed, the others copied, so K is exactly
 * symmetric. Independent of the positions (the model is linear within a step). */
static inline ISO_HD void fem_tet_stiffness(const femTetRest *r, mat3 R0, real mu, real lambda,
                                            real K[144]) {
  real rg[4][3]; /* r_a = R0 ∇S_a */
  int a, b, i, k;
  for (a = 0; a < 4; ++a) {
    vec3 ra = m3_mulv(R0, v3(r->grad[a][0], r->grad[a][1], r->grad[a][2]));
    rg[a][0] = ra.x;
    rg[a][1] = ra.y;
    rg[a][2] = ra.z;
  }
  for (a = 0; a < 4; ++a)
    for (b = 0; b <= a; ++b) {
      real gg = r->grad[a][0] * r->grad[b][0] + r->grad[a][1] * r->grad[b][1] +
                r->grad[a][2] * r->grad[b][2];
      for (i = 0; i < 3; ++i)
        for (k = 0; k < 3; ++k) {
          int row = 3 * a + i, col = 3 * b + k;
          real v;
          if (col > row) continue;
          v = mu * rg[b][i] * rg[a][k] + lambda * rg[a][i] * rg[b][k];
          if (i == k) v += mu * gg;
          v *= r->volume;
          K[row * 12 + col] = v;
          K[col * 12 + row] = v;
        }
    }
}

/* The value of every entry on the diagonal of each 3×3 block (a, b) of the consistent mass
 * matrix, kg: ρV/16 (all blocks alike, off-block-diagonal entries 0). */
static inline ISO_HD real fem_tet_mass_entry(const femTetRest *r, real rho) {
  return rho * r->volume / (real)16;
}

/* Gravity on the element's nodes, N (12): ρVg/4 each (g in m/s²). */
static inline ISO_HD void fem_tet_gravity(const femTetRest *r, real rho, vec3 g, real f[12]) {
  real w = rho * r->volume / (real)4;
  int a;
  for (a = 0; a < 4; ++a) {
    f[3 * a + 0] = w * g.x;
    f[3 * a + 1] = w * g.y;
    f[3 * a + 2] = w * g.z;
  }
}

#endif
