/* One linear corotational tet and its Newmark element terms (kernels/fem/tet.h, newmark.h).
 * Drake's default material throughout (E = 1e8 Pa, ν = 0.49, ρ = 1500 kg/m³) unless a test says
 * otherwise; tets are random, of fair shape (6V/L³ >= 0.1) and size ~1 m. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/fem/newmark.h"
#include "kernels/fem/tet.h"
#include "kernels/math/quat.h"
#include "support/fem_meshes.h"
#include "support/math_check.h"
#include "support/rng.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS
#define E_DEF 1e8
#define NU_DEF 0.49
#define RHO_DEF 1500.0

/* A random positively oriented tet in [-1, 1]³ with 6V >= 0.1·Lmax³, and its rest data. */

/* x_a = R X_a + t for every node. */
static void place(const real X[12], mat3 R, vec3 t, real x[12]) {
  for (int a = 0; a < 4; ++a) {
    vec3 p = v3_add(m3_mulv(R, v3(X[3 * a], X[3 * a + 1], X[3 * a + 2])), t);
    x[3 * a] = p.x;
    x[3 * a + 1] = p.y;
    x[3 * a + 2] = p.z;
  }
}

/* The element force at x for the held R0. */
static void force_at(const femTetRest *rest, const real x[12], mat3 R0, real mu, real lam,
                     real f[12]) {
  fem_tet_force(rest, fem_corot_P(fem_tet_F(rest, x), R0, mu, lam), f);
}

static double max_abs(const real *a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

Test(fem_tet, rest_gradients_reproduce_positions) {
  test_rng r = {11};
  for (int t = 0; t < 50; ++t) {
    real X[12];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    /* Σ_a ∇S_a = 0 and Σ_a X_a ⊗ ∇S_a = I (F at rest is I); 64 ε: one 3×3 inverse of a
     * matrix of condition <= ~100 (shape >= 0.1) and sums of four terms */
    for (int i = 0; i < 3; ++i) {
      double s = rest.grad[0][i] + rest.grad[1][i] + rest.grad[2][i] + rest.grad[3][i];
      cr_assert(fabs(s) <= 64 * EPS * 100, "Σ∇S %g", s);
    }
    mat3 F = fem_tet_F(&rest, X);
    cr_assert(m3_maxdiff(F, m3_identity()) <= 1e-13, "F at rest off I by %g", m3_maxdiff(F, m3_identity()));
    vec3 x0 = v3(X[0], X[1], X[2]);
    double v6 = v3_dot(v3_cross(v3_sub(v3(X[3], X[4], X[5]), x0), v3_sub(v3(X[6], X[7], X[8]), x0)),
                       v3_sub(v3(X[9], X[10], X[11]), x0));
    cr_assert(fabs(rest.volume - v6 / 6) <= 16 * EPS * fabs(v6), "volume");
    /* a rigid motion x = R X + t also has F = R: the shift through x_a − x_0 keeps a translation
     * of 1e3 m from costing digits beyond ε·|X|/L */
    quat q = rand_quat(&r);
    mat3 R = quat_to_m3(q);
    real x[12];
    place(X, R, v3(1e3, -2e3, 5e2), x);
    cr_assert(m3_maxdiff(fem_tet_F(&rest, x), R) <= 1e-10, "F of a rigid motion off R by %g",
              m3_maxdiff(fem_tet_F(&rest, x), R));
  }
}

Test(fem_tet, degenerate_and_inverted_tets_are_refused) {
  femTetRest rest;
  real flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};          /* four points in z = 0 */
  real inv[12] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};           /* negative orientation */
  real ok[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};            /* the unit corner tet */
  real nearly[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0.5, 1e-14}; /* 6V/L³ ~ 1e-14 */
  real sliver[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0.5, 1e-6};  /* thin but real */
  cr_assert_neq(fem_tet_rest(flat, &rest), 0);
  cr_assert_eq(rest.volume, 0);
  cr_assert_neq(fem_tet_rest(inv, &rest), 0);
  cr_assert_neq(fem_tet_rest(nearly, &rest), 0);
  cr_assert_eq(fem_tet_rest(sliver, &rest), 0);
  cr_assert_eq(fem_tet_rest(ok, &rest), 0);
  cr_assert(fabs(rest.volume - 1.0 / 6) <= EPS);
  real bad[12] = {0, 0, 0, 1, 0, 0, 0, NAN, 0, 0, 0, 1};
  cr_assert_neq(fem_tet_rest(bad, &rest), 0);
}

Test(fem_tet, lame_parameters) {
  real mu, lam;
  fem_lame(E_DEF, NU_DEF, &mu, &lam);
  /* μ = E/2.98, λ = 0.49E/(1.49·0.02) */
  cr_assert(fabs(mu - 1e8 / 2.98) <= 4 * EPS * mu);
  cr_assert(fabs(lam - 0.49e8 / (1.49 * 0.02)) <= 8 * EPS * lam);
  fem_lame(1.0, 0.0, &mu, &lam);
  cr_assert(mu == 0.5 && lam == 0);
}

Test(fem_tet, R0_is_a_proper_rotation_even_for_inverted_F) {
  test_rng r = {12};
  for (int t = 0; t < 100; ++t) {
    mat3 Q = quat_to_m3(rand_quat(&r));
    mat3 S = m3_diag(v3(test_rng_uniform(&r, 0.5, 2), test_rng_uniform(&r, 0.5, 2),
                        test_rng_uniform(&r, 0.5, 2)));
    mat3 V = quat_to_m3(rand_quat(&r));
    mat3 Ssym = m3_mul(m3_mul(V, S), m3_transpose(V));
    /* F = Q·S with S SPD: R0 = Q (to the SVD's few dozen ε) */
    mat3 R0 = fem_corot_R0(m3_mul(Q, Ssym));
    cr_assert(m3_maxdiff(R0, Q) <= 1e-13, "R0 off Q by %g", m3_maxdiff(R0, Q));
    /* an inverted F (a reflection applied): R0 stays proper, det +1, orthonormal */
    mat3 refl = m3_diag(v3(1, 1, -1));
    mat3 Fi = m3_mul(m3_mul(Q, Ssym), refl);
    mat3 Ri = fem_corot_R0(Fi);
    cr_assert(fabs(m3_det(Ri) - 1) <= 64 * EPS, "det R0 = %g", m3_det(Ri));
    cr_assert(m3_maxdiff(m3_mul(m3_transpose(Ri), Ri), m3_identity()) <= 64 * EPS);
  }
}

Test(fem_tet, stress_is_the_derivative_of_the_energy_density) {
  test_rng r = {13};
  real mu, lam;
  fem_lame(E_DEF, NU_DEF, &mu, &lam);
  for (int t = 0; t < 20; ++t) {
    mat3 R0 = quat_to_m3(rand_quat(&r));
    mat3 F = R0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F.m[i][j] += test_rng_uniform(&r, -0.1, 0.1);
    mat3 P = fem_corot_P(F, R0, mu, lam);
    /* Ψ is quadratic in F, so the central difference is exact up to rounding: the error is
     * ~ε·Ψ/h with Ψ ~ λ·0.01 ~ 2e7 and h = 1e-6: ~4e-3 Pa against |P| ~ 1e8 */
    double h = 1e-6;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        mat3 Fp = F, Fm = F;
        Fp.m[i][j] += h;
        Fm.m[i][j] -= h;
        double d = (fem_corot_psi(Fp, R0, mu, lam) - fem_corot_psi(Fm, R0, mu, lam)) / (2 * h);
        cr_assert(fabs(d - P.m[i][j]) <= 1e-8 * m3_max_abs(P) + 1, "∂Ψ/∂F_%d%d %g vs P %g", i, j,
                  d, P.m[i][j]);
      }
  }
}

Test(fem_tet, stiffness_is_minus_the_force_jacobian) {
  test_rng r = {14};
  real mu, lam;
  fem_lame(E_DEF, NU_DEF, &mu, &lam);
  for (int t = 0; t < 20; ++t) {
    real X[12], x[12], K[144];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    mat3 R0 = quat_to_m3(rand_quat(&r));
    fem_tet_stiffness(&rest, R0, mu, lam, K);
    /* a deformed state near R0·X: the force is affine in x for the held R0, so the central
     * difference is exact but for rounding, ~ε|f|/h; |f| ~ |K|·0.05 and h = 1e-5 give a
     * relative error ~1e-12 of max|K|, checked at 1e-9 */
    place(X, R0, v3(0.3, -0.2, 0.1), x);
    for (int i = 0; i < 12; ++i) x[i] += test_rng_uniform(&r, -0.05, 0.05);
    double kmax = max_abs(K, 144), h = 1e-5;
    for (int j = 0; j < 12; ++j) {
      real xp[12], xm[12], fp[12], fm[12];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[j] += h;
      xm[j] -= h;
      force_at(&rest, xp, R0, mu, lam, fp);
      force_at(&rest, xm, R0, mu, lam, fm);
      for (int i = 0; i < 12; ++i) {
        double fd = -(fp[i] - fm[i]) / (2 * h);
        cr_assert(fabs(fd - K[i * 12 + j]) <= 1e-9 * kmax, "K[%d][%d] %g vs -∂f/∂x %g", i, j,
                  K[i * 12 + j], fd);
      }
    }
    /* exactly symmetric (the upper triangle is the lower one copied) */
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) cr_assert(K[i * 12 + j] == K[j * 12 + i]);
    /* rigid translations and rotations R0·W·X (W skew) are in the null space: to the rounding
     * of sums of 12 products of size max|K|·|X| (64 ε relative) */
    vec3 u = rand_v3(&r, -1, 1), w = rand_v3(&r, -1, 1);
    real tr[12], rot[12];
    for (int a = 0; a < 4; ++a) {
      vec3 Xa = v3(X[3 * a], X[3 * a + 1], X[3 * a + 2]);
      vec3 ra = m3_mulv(R0, v3_cross(w, Xa));
      for (int i = 0; i < 3; ++i) {
        tr[3 * a + i] = v3_get(u, i);
        rot[3 * a + i] = v3_get(ra, i);
      }
    }
    for (int i = 0; i < 12; ++i) {
      double s1 = 0, s2 = 0;
      for (int j = 0; j < 12; ++j) {
        s1 += K[i * 12 + j] * tr[j];
        s2 += K[i * 12 + j] * rot[j];
      }
      cr_assert(fabs(s1) <= 64 * EPS * kmax, "K·translation %g", s1);
      cr_assert(fabs(s2) <= 64 * EPS * kmax * 2, "K·rotation %g", s2);
    }
    /* positive semi-definite (seed 001, Proposition 1): vᵀKv >= 0 for random v */
    for (int s = 0; s < 20; ++s) {
      real v[12];
      double q = 0;
      for (int i = 0; i < 12; ++i) v[i] = test_rng_uniform(&r, -1, 1);
      for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) q += v[i] * K[i * 12 + j] * v[j];
      cr_assert(q >= -64 * EPS * kmax * 144, "vᵀKv = %g", q);
    }
  }
}

Test(fem_tet, mass_and_gravity_sum_to_the_element_mass) {
  test_rng r = {15};
  real X[12], fg[12];
  femTetRest rest;
  fem_rand_tet(&r, X, &rest);
  double m = RHO_DEF * rest.volume;
  /* each of the four blocks in a row is ρV/16·I: a row sums to ρV/4 (one rounding each) */
  real me = fem_tet_mass_entry(&rest, RHO_DEF);
  cr_assert(fabs(4 * me - m / 4) <= 4 * EPS * m);
  vec3 g = v3(0.3, -1.2, -9.81);
  fem_tet_gravity(&rest, RHO_DEF, g, fg);
  for (int i = 0; i < 3; ++i) {
    double s = fg[i] + fg[3 + i] + fg[6 + i] + fg[9 + i];
    cr_assert(fabs(s - m * v3_get(g, i)) <= 8 * EPS * m * 10, "gravity sum %g", s);
  }
}

Test(fem_tet, rigid_rotation_at_rest_feels_no_force) {
  test_rng r = {16};
  real mu, lam;
  fem_lame(E_DEF, NU_DEF, &mu, &lam);
  for (int t = 0; t < 50; ++t) {
    real X[12], x[12], f[12];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    /* any rotation, large angles included (random unit quaternions), and a far translation */
    mat3 Q = quat_to_m3(rand_quat(&r));
    place(X, Q, rand_v3(&r, -10, 10), x);
    mat3 R0 = fem_corot_R0(fem_tet_F(&rest, x));
    force_at(&rest, x, R0, mu, lam, f);
    /* ε is R0ᵀF − I with both within ~64 ε of the same rotation, so |ε| <~ 1e-13 with the
     * translation's digits; the force is then <= V(2μ+3λ)|ε|·|∇S|·few */
    double gmax = 0;
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) gmax = fmax(gmax, fabs(rest.grad[a][i]));
    double bound = 1e-12 * rest.volume * (2 * mu + 3 * lam) * gmax;
    cr_assert(max_abs(f, 12) <= bound, "rigid rotation force %g > %g", max_abs(f, 12), bound);
    /* the same tet unrotated under the unrotated rest (R0 = I) for scale: a 1% stretch gives a
     * force ~1e7 larger than the bound, so the check is not vacuous */
    real xs[12];
    place(X, m3_diag(v3(1.01, 1, 1)), v3_zero(), xs);
    force_at(&rest, xs, m3_identity(), mu, lam, f);
    cr_assert(max_abs(f, 12) > 1e6 * bound);
  }
}

/* A spinning body: R0 from the previous step's pose, the current pose turned by θ more. R0ᵀF is
 * then a rotation by θ about k' = Qᵀk, whose symmetric part gives the lagged-rotation strain
 * ε = (cos θ − 1)(I − k'k'ᵀ): second order in θ (the first-order part of the rotation is skew and
 * drops out of ε). So the spurious force is exactly ∝ (1 − cos θ) = 2 sin²(θ/2), ~θ²/2, and
 * halving θ divides it by 4cos²(θ/4). */
Test(fem_tet, spinning_body_force_is_the_lagged_rotation_error) {
  test_rng r = {17};
  real mu, lam;
  fem_lame(E_DEF, NU_DEF, &mu, &lam);
  for (int t = 0; t < 10; ++t) {
    real X[12], xn[12], x[12], f[12], fh[12];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    mat3 Q = quat_to_m3(rand_quat(&r));
    vec3 k = rand_unit(&r);
    place(X, Q, v3_zero(), xn);
    mat3 R0 = fem_corot_R0(fem_tet_F(&rest, xn));
    double theta = 0.05;
    double norm_prev = 0;
    for (int level = 0; level < 4; ++level, theta /= 2) {
      quat dq = quat_make(cos(theta / 2), sin(theta / 2) * k.x, sin(theta / 2) * k.y, sin(theta / 2) * k.z);
      place(X, m3_mul(quat_to_m3(dq), Q), v3_zero(), x);
      force_at(&rest, x, R0, mu, lam, f);
      /* the analytic force: P = R0(2μ ε + λ tr ε I), tr ε = 2(cos θ − 1) */
      vec3 kp = m3_tmulv(Q, k);
      double c1 = cos(theta) - 1;
      mat3 eps = m3_scale(m3_sub(m3_identity(), m3_outer(kp, kp)), c1);
      mat3 P = m3_mul(Q, m3_add(m3_scale(eps, 2 * mu), m3_scale(m3_identity(), lam * 2 * c1)));
      fem_tet_force(&rest, P, fh);
      /* ε is computed as R0ᵀF − I: an absolute error of ~1e-15 in each entry against
       * |ε| = 1 − cos θ >= 2e-5; 1e-8 relative leaves room */
      double n = 0;
      for (int i = 0; i < 12; ++i) {
        cr_assert(fabs(f[i] - fh[i]) <= 1e-8 * max_abs(fh, 12), "node %d: %g vs %g", i / 3, f[i], fh[i]);
        n += f[i] * f[i];
      }
      n = sqrt(n);
      if (level > 0) {
        double ratio = norm_prev / n, expect = 4 * cos(theta / 2) * cos(theta / 2);
        cr_assert(fabs(ratio - expect) <= 1e-6 * expect, "θ halved: force ratio %g, expected %g",
                  ratio, expect);
      }
      norm_prev = n;
    }
  }
}

/* The element's T and b against the definitions: r(v) = M(v − v_n)/δt − f_e(q_n + δt(v + v_n)/2)
 * + (αM + βK)v − f_ext, computed from tet.h's pieces, must equal b at v = v_n, and
 * r(v_n + dz) − r(v_n) must equal T·dz (r is affine in v). */
Test(fem_tet, newmark_element_matches_the_momentum_residual) {
  test_rng r = {18};
  femMaterial m = fem_material(E_DEF, NU_DEF, RHO_DEF, 0.7, 0.01);
  vec3 g = v3(0, 0, -9.81);
  double dt = 1e-2;
  for (int t = 0; t < 10; ++t) {
    real X[12], qn[12], vn[12], T[144], b[12], K[144];
    femTetRest rest;
    fem_rand_tet(&r, X, &rest);
    mat3 Q = quat_to_m3(rand_quat(&r));
    place(X, Q, rand_v3(&r, -1, 1), qn);
    for (int i = 0; i < 12; ++i) {
      qn[i] += test_rng_uniform(&r, -0.02, 0.02);
      vn[i] = test_rng_uniform(&r, -1, 1);
    }
    fem_newmark_element(&rest, qn, vn, dt, &m, g, T, b);
    mat3 R0 = fem_corot_R0(fem_tet_F(&rest, qn));
    fem_tet_stiffness(&rest, R0, m.mu, m.lambda, K);
    real me = fem_tet_mass_entry(&rest, m.rho);
    real dz[12];
    for (int i = 0; i < 12; ++i) dz[i] = test_rng_uniform(&r, -0.1, 0.1);
    real res[2][12];
    for (int s = 0; s < 2; ++s) {
      real v[12], q[12], fe[12], fg[12];
      for (int i = 0; i < 12; ++i) {
        v[i] = vn[i] + (s ? dz[i] : 0);
        q[i] = qn[i] + dt * (0.5 * v[i] + 0.5 * vn[i]);
      }
      force_at(&rest, q, R0, m.mu, m.lambda, fe);
      fem_tet_gravity(&rest, m.rho, g, fg);
      for (int i = 0; i < 12; ++i) {
        double Ma = 0, Mv = 0, Kv = 0;
        for (int a = 0; a < 4; ++a) {
          Ma += me * (v[3 * a + i % 3] - vn[3 * a + i % 3]) / dt;
          Mv += me * v[3 * a + i % 3];
        }
        for (int j = 0; j < 12; ++j) Kv += K[i * 12 + j] * v[j];
        res[s][i] = Ma - fe[i] + m.alpha * Mv + m.beta * Kv - fg[i];
      }
    }
    /* the scale of the terms: |K|·δt·|v| ~ 1e7 N here; rounding of sums of 12 terms of that
     * size, relative 1e-12 */
    double scale = max_abs(K, 144) * (dt + m.beta) * 1.0 + 1;
    for (int i = 0; i < 12; ++i) {
      cr_assert(fabs(res[0][i] - b[i]) <= 1e-12 * scale, "b[%d] %g vs %g", i, b[i], res[0][i]);
      double Tdz = 0;
      for (int j = 0; j < 12; ++j) Tdz += T[i * 12 + j] * dz[j];
      cr_assert(fabs((res[1][i] - res[0][i]) - Tdz) <= 1e-12 * scale, "T·dz[%d] %g vs %g", i, Tdz,
                res[1][i] - res[0][i]);
    }
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) cr_assert(T[i * 12 + j] == T[j * 12 + i], "T symmetric");
  }
}

Test(fem_tet, dirichlet_on_an_element_keeps_only_the_held_diagonal) {
  test_rng r = {19};
  femMaterial m = fem_material(E_DEF, NU_DEF, RHO_DEF, 0, 0);
  real X[12], vn[12] = {0}, T[144], T0[144], b[12], b0[12];
  femTetRest rest;
  fem_rand_tet(&r, X, &rest);
  fem_newmark_element(&rest, X, vn, 1e-3, &m, v3(0, 0, -9.81), T0, b0);
  memcpy(T, T0, sizeof T);
  memcpy(b, b0, sizeof b);
  unsigned char held[4] = {0, 1, 0, 1};
  fem_dirichlet_element(held, T, b);
  for (int i = 0; i < 12; ++i) {
    int hi = held[i / 3];
    cr_assert(b[i] == (hi ? 0 : b0[i]));
    for (int j = 0; j < 12; ++j) {
      int hj = held[j / 3];
      real expect = (hi || hj) ? (i == j ? T0[i * 12 + j] : 0) : T0[i * 12 + j];
      cr_assert(T[i * 12 + j] == expect, "T[%d][%d]", i, j);
    }
  }
}

Test(fem_tet, newmark_update_of_a_vertex) {
  real qn[3] = {1, 2, 3}, vn[3] = {0.5, -1, 2}, dz[3] = {0.25, 0.5, -1}, q[3], v[3];
  fem_newmark_update_vertex(qn, vn, dz, 0.1, q, v);
  for (int i = 0; i < 3; ++i) {
    cr_assert(v[i] == vn[i] + dz[i]);
    cr_assert(fabs(q[i] - (qn[i] + 0.1 * (vn[i] + 0.5 * dz[i]))) <= 4 * EPS * 4);
  }
  /* in place */
  fem_newmark_update_vertex(qn, vn, dz, 0.1, qn, vn);
  for (int i = 0; i < 3; ++i) cr_assert(qn[i] == q[i] && vn[i] == v[i]);
}
