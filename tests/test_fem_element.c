/* One element's blocks added straight into a body's factor storage (kernels/fem/element.h)
 * against the 12×12 route it replaces: fem_newmark_element, fem_dirichlet_element and a scatter
 * of the whole matrix (kernels/fem/newmark.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/fem/element.h"
#include "kernels/math/quat.h"
#include "support/fem_meshes.h"
#include "support/math_check.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS
#define NSLOT 10 /* the four diagonal blocks and one per edge */

/* Slot codes as a pattern makes them: the diagonal pairs at slots 0..3, each edge {a, c} at one
 * of slots 4..9, stored as (a, c) or as (c, a) at random (bit 0 marks the transposed one). */
static void rand_slots(test_rng *r, int code[16]) {
  int s = 4;
  for (int a = 0; a < 4; ++a) {
    code[5 * a] = a << 1;
    for (int c = a + 1; c < 4; ++c, ++s) {
      const int flip = test_rng_uniform(r, 0, 1) < 0.5;
      code[4 * a + c] = s << 1 | flip;
      code[4 * c + a] = s << 1 | !flip;
    }
  }
}

/* The 12×12 route: T's block (a, c) added at every slot stored as it is. */
static void scatter_reference(const int code[16], const real T[144], real *Lv) {
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 4; ++c) {
      if (code[4 * a + c] & 1) continue;
      real *B = Lv + 9 * (code[4 * a + c] >> 1);
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) B[3 * i + k] += T[(3 * a + i) * 12 + 3 * c + k];
    }
}

/* Random elements (rotated, strained up to 5 %, moving), materials with and without Rayleigh
 * damping, every pattern of held vertices and random slot orientations; storage that already
 * holds values (other elements' sums). */
Test(fem_element, matches_the_12x12_route) {
  test_rng r = {23};
  const vec3 g = v3(0.3, -0.2, -9.81);
  for (int t = 0; t < 400; ++t) {
    const int hold = t % 16;
    const femMaterial m = fem_material(test_rng_uniform(&r, 1e4, 1e9), test_rng_uniform(&r, 0, 0.49),
                                       test_rng_uniform(&r, 500, 3000), t % 2 ? 0.0 : test_rng_uniform(&r, 0, 5),
                                       t % 3 ? 0.0 : test_rng_uniform(&r, 0, 0.05));
    const real dt = test_rng_uniform(&r, 1e-4, 4e-2);
    real X[12], qn[12], vn[12];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    const mat3 Q = quat_to_m3(rand_quat(&r));
    for (int a = 0; a < 4; ++a) {
      const vec3 p = m3_mulv(Q, v3(X[3 * a], X[3 * a + 1], X[3 * a + 2]));
      const real pv[3] = {p.x, p.y, p.z};
      for (int i = 0; i < 3; ++i) {
        qn[3 * a + i] = pv[i] + test_rng_uniform(&r, -0.05, 0.05);
        vn[3 * a + i] = hold >> a & 1 ? 0 : test_rng_uniform(&r, -1, 1); /* held: zeroed by the caller */
      }
    }
    unsigned char held[4];
    for (int a = 0; a < 4; ++a) held[a] = (unsigned char)(hold >> a & 1);
    int code[16];
    rand_slots(&r, code);
    real L0[9 * NSLOT], Lref[9 * NSLOT], Lnew[9 * NSLOT];
    for (int k = 0; k < 9 * NSLOT; ++k) L0[k] = test_rng_uniform(&r, -1, 1);
    memcpy(Lref, L0, sizeof L0);
    memcpy(Lnew, L0, sizeof L0);
    real T[144], bref[12], bnew[12];
    fem_newmark_element(&rest, qn, vn, dt, &m, g, T, bref);
    fem_dirichlet_element(held, T, bref);
    scatter_reference(code, T, Lref);
    fem_element_add(&rest, qn, vn, held, dt, &m, g, code, Lnew, bnew);
    /* The two routes group the same terms differently, so they differ by a few ulps of the
     * terms' magnitudes (not of the result, which may cancel): an entry of T sums
     * w V (μ r_c,i r_a,k + λ r_a,i r_c,k + μ ∇S_a·∇S_c) and the mass term, |r_a| = |∇S_a|; 16
     * ulps of their bound. */
    double gmax = 0, vsum = 0;
    for (int a = 0; a < 4; ++a)
      gmax = fmax(gmax, sqrt(rest.grad[a][0] * rest.grad[a][0] + rest.grad[a][1] * rest.grad[a][1] +
                             rest.grad[a][2] * rest.grad[a][2]));
    for (int i = 0; i < 12; ++i) vsum += fabs(vn[i]);
    const double me = fem_tet_mass_entry(&rest, m.rho);
    const double Tterms = (0.5 * dt + m.beta) * rest.volume * (2 * m.mu + m.lambda) * gmax * gmax + (1 / dt + m.alpha) * me;
    for (int k = 0; k < 9 * NSLOT; ++k)
      cr_assert(fabs((Lnew[k] - L0[k]) - (Lref[k] - L0[k])) <= 16 * EPS * Tterms, "element %d, slot %d entry %d: "
                "%.17g vs %.17g (terms %g)", t, k / 9, k % 9, Lnew[k] - L0[k], Lref[k] - L0[k], Tterms);
    /* the residual: the old route takes the elastic force from the stress at F(q_n + δt v_n) and
     * adds β·K·v_n (terms bounded by V (2μ + λ) |∇S|² Σ|v|); the new one takes both from the
     * stress at F(q_n + (δt + β) v_n) (kernels/fem/element.h). Each stress forms its strain by
     * subtracting 1 from entries of R0ᵀF of the size of F, so each force is exact only to ulps of
     * V (2μ + 3λ) |∇S| |F| (not of the force itself, which a small strain makes small); the mass
     * term α ρV/16 Σ v and gravity are grouped differently too; 16 ulps of all their magnitudes.
     * Dropping the β·K·v_n term, or folding it with δt alone, misses by β |∇S| Σ|v| / |F| of the
     * elastic scale, far above this. */
    real qp[12], qd[12], fe[12], fg[12];
    for (int i = 0; i < 12; ++i) qp[i] = qn[i] + dt * vn[i], qd[i] = qn[i] + (dt + m.beta) * vn[i];
    const mat3 R0 = fem_corot_R0(fem_tet_F(&rest, qn));
    const mat3 Fp = fem_tet_F(&rest, qp), Fd = fem_tet_F(&rest, qd);
    fem_tet_force(&rest, fem_corot_P(Fp, R0, m.mu, m.lambda), fe);
    fem_tet_gravity(&rest, m.rho, g, fg);
    const double kv = rest.volume * (2 * m.mu + m.lambda) * gmax * gmax * vsum;
    const double stress = rest.volume * (2 * m.mu + 3 * m.lambda) * gmax * (m3_max_abs(Fp) + m3_max_abs(Fd));
    for (int i = 0; i < 12; ++i) {
      if (held[i / 3]) {
        cr_assert(bnew[i] == 0, "held vertex %d: residual %g", i / 3, bnew[i]);
        continue;
      }
      const double bterms = fabs(fe[i]) + stress + m.beta * kv + m.alpha * me * vsum + fabs(fg[i]);
      cr_assert(fabs(bnew[i] - bref[i]) <= 16 * EPS * bterms, "element %d: b[%d] %.17g vs %.17g (terms %g)", t, i,
                bnew[i], bref[i], bterms);
    }
    /* a held vertex's blocks with the others are left alone exactly, its diagonal block's
     * off-diagonal entries too */
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 4; ++c) {
        const int s = code[4 * a + c] >> 1;
        if (!(held[a] || held[c])) continue;
        for (int e = 0; e < 9; ++e) {
          if (a == c && e % 4 == 0) continue;
          cr_assert(Lnew[9 * s + e] == L0[9 * s + e], "held pair (%d, %d) touched", a, c);
        }
      }
  }
}

/* The diagonal blocks are exactly symmetric (the factor reads their lower part, the Schur
 * complement and the checks may read all of it). */
Test(fem_element, diagonal_blocks_are_symmetric) {
  test_rng r = {29};
  const femMaterial m = fem_material(1e6, 0.4, 1000, 0.5, 0.01);
  for (int t = 0; t < 50; ++t) {
    real X[12], qn[12], vn[12], b[12], Lv[9 * NSLOT] = {0};
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    for (int i = 0; i < 12; ++i) qn[i] = X[i] + test_rng_uniform(&r, -0.1, 0.1), vn[i] = test_rng_uniform(&r, -1, 1);
    int code[16];
    rand_slots(&r, code);
    const unsigned char held[4] = {0, 0, 0, 0};
    fem_element_add(&rest, qn, vn, held, 1e-3, &m, v3(0, 0, -9.81), code, Lv, b);
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < i; ++k) cr_assert(Lv[9 * s + 3 * i + k] == Lv[9 * s + 3 * k + i]);
  }
}
