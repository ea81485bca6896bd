/* The math layer's spatial algebra (kernels/math/spatial.h): spatial inertias and their shifts,
 * the 6×6 form, energy and momentum, the cross products, the gyroscopic bias and Newton–Euler
 * against a rigid cloud of point masses, and the physical-inertia check with its reasons.
 * Tolerances are stated in units of ε = 2.2e-16 relative to the magnitude of the quantities
 * involved, with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/spatial.h"
#include "kernels/math/vec3.h"
#include "support/math_check.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS

/* ---- helpers -------------------------------------------------------------------------------- */

static double sv_maxdiff(svec a, svec b) {
  double x = v3_maxdiff(a.w, b.w), y = v3_maxdiff(a.v, b.v);
  return x > y ? x : y;
}

/* A physical inertia: principal moments satisfying the triangle inequality, random axes. */
static sinertia rand_physical(test_rng *r) {
  double m = test_rng_uniform(r, 0.5, 3);
  double a = test_rng_uniform(r, 0.2, 2), b = test_rng_uniform(r, 0.2, 2);
  double c = test_rng_uniform(r, fabs(a - b) + 0.05, a + b - 0.05);
  mat3 Q = quat_to_m3(rand_quat(r));
  return si_from_com(m, rand_v3(r, -1, 1), m3_congruence(Q, m3_diag(v3(a, b, c))));
}

static svec rand_sv(test_rng *r) { return sv_make(rand_v3(r, -2, 2), rand_v3(r, -2, 2)); }

/* ---- spatial -------------------------------------------------------------------------------- */

Test(spatial, com_round_trip_and_shift_composition) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    sinertia M = rand_physical(&r);
    mat3 Ic = si_com_inertia(M);
    sinertia M2 = si_from_com(M.m, M.c, Ic);
    /* entries ~ m|c|² <= 9: the parallel-axis term added and removed, a few ulps of that */
    cr_assert(m3_maxdiff(M2.I, M.I) <= 64 * EPS * 10);
    vec3 r1 = rand_v3(&r, -2, 2), r2 = rand_v3(&r, -2, 2);
    sinertia A = si_shift(si_shift(M, r1), r2), B = si_shift(M, v3_add(r1, r2));
    /* |c - r| <= 5, m|c - r|² <= 75: rounding relative to that */
    cr_assert(v3_maxdiff(A.c, B.c) <= 16 * EPS * 5);
    cr_assert(m3_maxdiff(A.I, B.I) <= 64 * EPS * 100);
    cr_assert_eq(A.m, M.m);
    sinertia C = si_shift(M, M.c);
    cr_assert(v3_max_abs(C.c) == 0, "shift by c puts the about-point at the COM");
    cr_assert(m3_maxdiff(C.I, Ic) <= 64 * EPS * 10);
  }
  /* a unit point mass at (1,0,0): I about the origin is diag(0,1,1) */
  sinertia P = si_from_com(1, v3(1, 0, 0), m3_zero());
  cr_assert(m3_maxdiff(P.I, m3_diag(v3(0, 1, 1))) == 0);
}

/* Cholesky of a 6x6 row-major matrix: 1 when positive definite. */
static int chol6_pd(const double *a) {
  double l[36] = {0};
  for (int j = 0; j < 6; ++j) {
    double d = a[6 * j + j];
    for (int k = 0; k < j; ++k) d -= l[6 * j + k] * l[6 * j + k];
    if (!(d > 0)) return 0;
    l[6 * j + j] = sqrt(d);
    for (int i = j + 1; i < 6; ++i) {
      double s = a[6 * i + j];
      for (int k = 0; k < j; ++k) s -= l[6 * i + k] * l[6 * j + k];
      l[6 * i + j] = s / l[6 * j + j];
    }
  }
  return 1;
}

Test(spatial, mat6_symmetric_pd_and_equal_to_si_mul) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    sinertia M = rand_physical(&r);
    /* make I exactly symmetric, as every inertia from a model loader is */
    M.I = m3_scale(m3_add(M.I, m3_transpose(M.I)), 0.5);
    double A[36];
    si_to_mat6(M, A);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) cr_assert_eq(A[6 * i + j], A[6 * j + i], "symmetric exactly");
    cr_assert(chol6_pd(A), "physical inertia gives a positive definite 6x6");
    svec V = rand_sv(&r);
    svec h = si_mul(M, V);
    double x[6] = {V.w.x, V.w.y, V.w.z, V.v.x, V.v.y, V.v.z}, y[6];
    for (int i = 0; i < 6; ++i) {
      y[i] = 0;
      for (int j = 0; j < 6; ++j) y[i] += A[6 * i + j] * x[j];
    }
    svec h6 = sv_make(v3(y[0], y[1], y[2]), v3(y[3], y[4], y[5]));
    /* same products, summed in another order; entries <= ~10, velocities <= 2 */
    cr_assert(sv_maxdiff(h, h6) <= 64 * EPS * 20);
  }
}

Test(spatial, kinetic_energy_and_momentum_independent_of_about_point) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    sinertia M = rand_physical(&r);
    svec V = rand_sv(&r);
    vec3 rr = rand_v3(&r, -2, 2);
    sinertia MQ = si_shift(M, rr);
    svec VQ = sv_shift(V, rr);
    double e0 = si_kinetic_energy(M, V), e1 = si_kinetic_energy(MQ, VQ);
    double scale = 1 + fabs(e0) + v3_norm2(V.v) * M.m;
    /* the terms of ½VᵀMV are ~ m |v|² |c|² <= 3·12·16: relative rounding of that size */
    cr_assert(fabs(e0 - e1) <= 1e-13 * scale * 50, "KE %g vs %g", e0, e1);
    /* the same expression; only FMA contraction could make it differ, by an ulp of the terms */
    cr_assert(fabs(e0 - 0.5 * sv_dot(V, si_mul(M, V))) <= 1e-13 * scale * 50);
    /* momentum shifts like a force: h_Q = [h_P.l − r × h_P.p; h_P.p] */
    svec hP = si_mul(M, V), hQ = si_mul(MQ, VQ);
    cr_assert(sv_maxdiff(hQ, sv_shift_force(hP, rr)) <= 1e-13 * 100);
    /* re-expressing both in a rotated frame leaves the energy unchanged */
    mat3 R = quat_to_m3(rand_quat(&r));
    svec VR = sv_make(m3_mulv(R, V.w), m3_mulv(R, V.v));
    cr_assert(fabs(si_kinetic_energy(si_rotate(M, R), VR) - e0) <= 1e-13 * scale * 50);
  }
}

Test(spatial, cross_products_are_dual) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    svec V = rand_sv(&r), U = rand_sv(&r), F = rand_sv(&r);
    double a = sv_dot(sv_cross_motion(V, U), F), b = -sv_dot(U, sv_cross_force(V, F));
    /* sums of ~20 triple products of entries <= 2 */
    cr_assert(fabs(a - b) <= 200 * EPS * 8);
    double p0 = sv_dot(V, F), p1 = sv_dot(sv_shift(V, U.w), sv_shift_force(F, U.w));
    cr_assert(fabs(p0 - p1) <= 200 * EPS * 8, "power is independent of the point");
  }
}

/* A rigid body made of point masses: the momentum and forces computed particle by particle are
 * an independent reference for si_mul and si_gyro_bias. */
#define NPART 7
typedef struct {
  double m[NPART];
  vec3 b[NPART]; /* body-frame positions from the body origin Po */
} cloud;

static sinertia cloud_inertia(const cloud *c) {
  double m = 0;
  vec3 s = v3_zero();
  mat3 I = m3_zero();
  for (int i = 0; i < NPART; ++i) {
    m += c->m[i];
    s = v3_axpy(s, c->m[i], c->b[i]);
    I = m3_add(I, si_point_inertia(c->m[i], c->b[i]));
  }
  return si_make(m, v3_scale(s, 1 / m), I);
}

/* Momentum about the world origin [Σ m x × ẋ; Σ m ẋ] at time t for the motion
 * R(t) = Rot(w t) R0, p(t) = p0 + v t (constant world-frame w and v_Po). */
static svec cloud_momentum(const cloud *c, quat q0, vec3 p0, vec3 w, vec3 v, double t) {
  quat q = quat_mul(quat_from_axis_angle(w, v3_norm(w) * t), q0);
  vec3 p = v3_axpy(p0, t, v);
  svec h = sv_zero();
  for (int i = 0; i < NPART; ++i) {
    vec3 rb = quat_rotate(q, c->b[i]);
    vec3 x = v3_add(p, rb), xd = v3_add(v, v3_cross(w, rb));
    h.w = v3_axpy(h.w, c->m[i], v3_cross(x, xd));
    h.v = v3_axpy(h.v, c->m[i], xd);
  }
  return h;
}

static cloud rand_cloud(test_rng *r) {
  cloud c;
  for (int i = 0; i < NPART; ++i) {
    c.m[i] = test_rng_uniform(r, 0.5, 2);
    c.b[i] = rand_v3(r, -1, 1);
  }
  return c;
}

Test(spatial, gyro_bias_is_derivative_of_world_momentum) {
  test_rng r = {42};
  for (int k = 0; k < 100; ++k) {
    cloud c = rand_cloud(&r);
    quat q0 = rand_quat(&r);
    vec3 p0 = rand_v3(&r, -2, 2), w = rand_v3(&r, -2, 2), v = rand_v3(&r, -2, 2);
    sinertia MW = si_rotate(cloud_inertia(&c), quat_to_m3(q0));
    /* momentum about Po, moved to the world origin (r = p_PoO = −p0), equals the particle sum;
     * terms ~ m |x| |ẋ| <= 14·4·6: rounding relative to that */
    svec h0 = cloud_momentum(&c, q0, p0, w, v, 0);
    svec hm = sv_shift_force(si_mul(MW, sv_make(w, v)), v3_neg(p0));
    cr_assert(sv_maxdiff(h0, hm) <= 1e-13 * 400, "momentum %g", sv_maxdiff(h0, hm));
    /* d/dt h_O with w, v_Po constant = the force needed to keep them constant = C(v), moved to O.
     * Central difference, step 1e-4: truncation h²/6 |h'''| ~ 1e-8 · 400 and rounding
     * 1e-16 · 400 / 1e-4: both below 1e-5 */
    double dt = 1e-4;
    svec dh = sv_scale(sv_sub(cloud_momentum(&c, q0, p0, w, v, dt),
                              cloud_momentum(&c, q0, p0, w, v, -dt)), 1 / (2 * dt));
    svec bias = sv_shift_force(si_gyro_bias(MW, w), v3_neg(p0));
    cr_assert(sv_maxdiff(dh, bias) <= 1e-5, "bias off by %g", sv_maxdiff(dh, bias));
  }
}

Test(spatial, newton_euler_about_non_com_point) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    cloud c = rand_cloud(&r);
    mat3 R0 = quat_to_m3(rand_quat(&r));
    vec3 w = rand_v3(&r, -2, 2), wd = rand_v3(&r, -2, 2), ad = rand_v3(&r, -2, 2);
    /* exact particle accelerations a_i = a_Po + ẇ × r_i + w × (w × r_i); force about Po is
     * [Σ r_i × m_i a_i; Σ m_i a_i] */
    svec F = sv_zero();
    for (int i = 0; i < NPART; ++i) {
      vec3 ri = m3_mulv(R0, c.b[i]);
      vec3 ai = v3_add(v3_add(ad, v3_cross(wd, ri)), v3_cross(w, v3_cross(w, ri)));
      F.w = v3_axpy(F.w, c.m[i], v3_cross(ri, ai));
      F.v = v3_axpy(F.v, c.m[i], ai);
    }
    sinertia MW = si_rotate(cloud_inertia(&c), R0);
    svec G = sv_add(si_mul(MW, sv_make(wd, ad)), si_gyro_bias(MW, w));
    /* M v̇ + C(v) = F; terms ~ m |r| |a| <= 14·2·20: rounding relative to that */
    cr_assert(sv_maxdiff(F, G) <= 1e-13 * 600, "Newton–Euler off by %g", sv_maxdiff(F, G));
  }
}

Test(spatial, is_physical_accepts_and_rejects_with_reason) {
  test_rng r = {42};
  char why[160];
  for (int k = 0; k < 200; ++k) {
    sinertia M = rand_physical(&r);
    cr_assert(si_is_physical(M, why, sizeof why), "random physical rejected: %s", why);
    cr_assert_str_empty(why);
  }
  vec3 c = v3(0.3, -2, 1);
  /* thin disk: l3 = l1 + l2 exactly, and about a far point (rounding in the shift) */
  cr_assert(si_is_physical(si_from_com(2, c, m3_diag(v3(1, 1, 2))), why, sizeof why), "%s", why);

  cr_assert(!si_is_physical(si_from_com(-1, c, m3_identity()), why, sizeof why));
  cr_assert_str_eq(why, "mass -1 is not positive");
  cr_assert(!si_is_physical(si_from_com(0, v3_zero(), m3_identity()), why, sizeof why));
  cr_assert_str_eq(why, "mass 0 is not positive");
  cr_assert(!si_is_physical(si_make(NAN, v3_zero(), m3_identity()), why, sizeof why));
  cr_assert_str_eq(why, "mass nan is not positive");
  cr_assert(!si_is_physical(si_make(INFINITY, v3_zero(), m3_identity()), why, sizeof why));
  cr_assert_str_eq(why, "mass inf is not finite");

  /* the check is on the COM inertia: diag(1, -2, 3) about the COM, stored about a far point */
  cr_assert(!si_is_physical(si_from_com(1, v3_zero(), m3_diag(v3(1, -2, 3))), why, sizeof why));
  cr_assert_str_eq(why, "inertia about the centre of mass is not positive definite "
                        "(principal moments -2, 1, 3)");
  cr_assert(!si_is_physical(si_from_com(1, v3(0, 0, 4), m3_diag(v3(1, 0, 3))), why, sizeof why));
  cr_assert(strstr(why, "not positive definite") != NULL, "%s", why);

  cr_assert(!si_is_physical(si_from_com(1, v3_zero(), m3_diag(v3(1, 5, 1))), why, sizeof why));
  cr_assert_str_eq(why, "principal moments 1, 1, 5 violate the triangle inequality");
  mat3 Q = quat_to_m3(quat_from_axis_angle(v3(1, 2, 3), 0.7));
  cr_assert(!si_is_physical(si_from_com(1, c, m3_congruence(Q, m3_diag(v3(1, 1, 2.001)))), why,
                            sizeof why));
  cr_assert(strstr(why, "violate the triangle inequality") != NULL, "%s", why);

  sinertia A = si_from_com(1, v3_zero(), m3_identity());
  A.I.m[0][1] = 0.1;
  cr_assert(!si_is_physical(A, why, sizeof why));
  cr_assert_str_eq(why, "rotational inertia is not symmetric");
  A = si_from_com(1, v3(NAN, 0, 0), m3_identity());
  cr_assert(!si_is_physical(A, why, sizeof why));
  cr_assert_str_eq(why, "centre of mass is not finite");

  /* a NULL or short buffer is fine */
  cr_assert(!si_is_physical(si_from_com(-1, c, m3_identity()), NULL, 0));
  char small[8];
  cr_assert(!si_is_physical(si_from_com(-1, c, m3_identity()), small, sizeof small));
  cr_assert_str_eq(small, "mass -1");
}

Test(spatial, reason_numbers_print_like_percent_g) {
  test_rng r = {42};
  const double fixed[] = {0.5,     1,     -2,       10,    100000, 999999.5, 1e6,    1234567,
                          1e-4,    1e-5,  0.000123, 1e-300, 5e-324, 1e300,   -7.25e-9, 0.1,
                          123.456, 3e10,  9.9999999e5, 0.30000000000000004};
  char a[64], b[64];
  for (int k = 0; k < (int)(sizeof fixed / sizeof fixed[0]) + 2000; ++k) {
    double x = k < (int)(sizeof fixed / sizeof fixed[0])
                   ? fixed[k]
                   : (test_rng_uniform(&r, 0, 1) < 0.5 ? -1 : 1) * test_rng_uniform(&r, 1, 10) *
                         pow(10, floor(test_rng_uniform(&r, -30, 30)));
    int pos = 0;
    si_why_real(a, sizeof a, &pos, x);
    snprintf(b, sizeof b, "%g", x);
    cr_assert_str_eq(a, b, "x = %.17g", x);
  }
}
