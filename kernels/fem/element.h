/* One element's share of a deformable body's free-motion system, added straight into the body's
 * block factor storage: what fem_newmark_element, fem_dirichlet_element and a scatter of the
 * 12×12 result give (kernels/fem/newmark.h; reference §6.3), formed block by block from the
 * closed form of K (kernels/fem/tet.h):
 *
 *   K_ab = V (μ r_b r_aᵀ + λ r_a r_bᵀ + μ (∇S_a·∇S_b) 1),  r_a = R0 ∇S_a,
 *   T_ab = (½δt + β_R) K_ab + (1/δt + α_R) (ρV/16) 1,
 *
 * only for the (up to 10) blocks the pattern stores. The residual's elastic and stiffness-damping
 * terms come from one stress: the corotated P is affine in F, P(F) = L(F) − L(R0) with
 * L(X) = 2μ R0 sym(R0ᵀX) + λ tr(R0ᵀX) R0, and K·v_n is V·L(N)·∇S_a with N = Σ_b v_b ∇S_bᵀ = F(v_n)
 * (expand L(N)∇S_a: μ N∇S_a + μ R0 Nᵀ r_a + λ tr(R0ᵀN) r_a, the three terms of K_ab summed over b),
 * and F is linear in the positions, so
 *
 *   V P(F(q_n + δt v_n)) ∇S_a + β (K v_n)_a = V P(F(q_n + (δt + β) v_n)) ∇S_a.
 *
 * No 12×12 matrix is formed (1.2 KB of stack per thread on a GPU, and the most of the element's
 * time on the CPU). The sums are grouped differently from the 12×12 route, so the two agree to
 * rounding, not to the bit (tests/test_fem_element.c). */
#ifndef ISO_KERNELS_FEM_ELEMENT_H
#define ISO_KERNELS_FEM_ELEMENT_H

#include "kernels/core.h"
#include "kernels/fem/newmark.h"
#include "kernels/fem/tet.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

/* Element r's blocks of T added into Lv at the slots tet_slot names (16 codes, one per vertex
 * pair (a, c) in row-major order: slot << 1, with bit 0 set where the slot holds the pair's
 * transpose, which is then skipped: its (c, a) code adds it) and its residual written to b (12),
 * from the previous positions q_n and velocities v_n (held vertices' already zeroed), held[4]
 * (the Dirichlet condition: a held vertex's off-diagonal blocks are left out, its diagonal block
 * keeps its diagonal entries, its residual is 0), δt > 0, the material and gravity g (m/s²). */
static inline ISO_HD void fem_element_add(const femTetRest *r, const real q_n[12], const real v_n[12],
                                          const unsigned char held[4], real dt, const femMaterial *m, vec3 g,
                                          const int tet_slot[16], real *Lv, real b[12]) {
  const real me = fem_tet_mass_entry(r, m->rho);
  const real kw = ((real)0.5 * dt + m->beta) * r->volume; /* K's factor in T, with V */
  const real cm = kw * m->mu, cl = kw * m->lambda, mass = ((real)1 / dt + m->alpha) * me;
  const mat3 R0 = fem_corot_R0(fem_tet_F(r, q_n));
  vec3 ra[4], ga[4];
  for (int a = 0; a < 4; ++a) {
    ga[a] = v3(r->grad[a][0], r->grad[a][1], r->grad[a][2]);
    ra[a] = m3_mulv(R0, ga[a]);
  }
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 4; ++c) {
      const int code = tet_slot[4 * a + c];
      if ((code & 1) || (a != c && (held[a] || held[c]))) continue;
      real *B = Lv + 9L * (code >> 1);
      const real x[3] = {ra[a].x, ra[a].y, ra[a].z}, y[3] = {ra[c].x, ra[c].y, ra[c].z};
      const real diag = cm * v3_dot(ga[a], ga[c]) + mass;
      if (a == c) { /* symmetric: the lower triangle, mirrored */
        const real s[3] = {(cm + cl) * x[0], (cm + cl) * x[1], (cm + cl) * x[2]};
        for (int i = 0; i < 3; ++i) {
          B[4 * i] += s[i] * x[i] + diag;
          if (held[a]) continue;
          for (int k = 0; k < i; ++k) {
            const real t = s[i] * x[k];
            B[3 * i + k] += t;
            B[3 * k + i] += t;
          }
        }
        continue;
      }
      const real my[3] = {cm * y[0], cm * y[1], cm * y[2]}, lx[3] = {cl * x[0], cl * x[1], cl * x[2]};
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) { /* diag only on the diagonal: adding a literal 0 elsewhere is an instruction */
          real t = my[i] * x[k] + lx[i] * y[k];
          if (i == k) t += diag;
          B[3 * i + k] += t;
        }
    }
  /* the residual at the prediction q_n + δt v_n (see fem_newmark_element), its stiffness damping
   * folded into the stress (header comment) */
  real qd[12];
  const real reach = dt + m->beta;
  for (int i = 0; i < 12; ++i) qd[i] = q_n[i] + reach * v_n[i];
  const mat3 P = m3_scale(fem_corot_P(fem_tet_F(r, qd), R0, m->mu, m->lambda), r->volume);
  vec3 vsum = v3_zero();
  for (int c = 0; c < 4; ++c) vsum = v3_add(vsum, v3(v_n[3 * c], v_n[3 * c + 1], v_n[3 * c + 2]));
  const real wg = m->rho * r->volume / (real)4;
  const vec3 common = v3_sub(v3_scale(vsum, m->alpha * me), v3_scale(g, wg)); /* the same for every node */
  for (int a = 0; a < 4; ++a) {
    if (held[a]) {
      b[3 * a] = b[3 * a + 1] = b[3 * a + 2] = (real)0;
      continue;
    }
    const vec3 ba = v3_add(m3_mulv(P, ga[a]), common);
    b[3 * a] = ba.x, b[3 * a + 1] = ba.y, b[3 * a + 2] = ba.z;
  }
}

#endif
