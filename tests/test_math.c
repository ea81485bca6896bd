/* The single-source math layer (kernels/math/): vectors, matrices, quaternions, transforms,
 * spatial algebra. Tolerances are stated in units of ε = 2.2e-16 relative to the magnitude of
 * the quantities involved, with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/spatial.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS
#define PI 3.14159265358979323846

/* ---- helpers -------------------------------------------------------------------------------- */

static vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

static mat3 rand_m3(test_rng *r, double lo, double hi) {
  mat3 A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A.m[i][j] = test_rng_uniform(r, lo, hi);
  return A;
}

/* Uniform-ish random rotation: a normalised 4-vector drawn in the unit ball (rejection). */
static quat rand_quat(test_rng *r) {
  for (;;) {
    double w = test_rng_uniform(r, -1, 1), x = test_rng_uniform(r, -1, 1);
    double y = test_rng_uniform(r, -1, 1), z = test_rng_uniform(r, -1, 1);
    double n2 = w * w + x * x + y * y + z * z;
    if (n2 > 0.01 && n2 <= 1) return quat_normalize(quat_make(w, x, y, z));
  }
}

static double m3_maxdiff(mat3 A, mat3 B) { return m3_max_abs(m3_sub(A, B)); }

static double v3_maxdiff(vec3 a, vec3 b) { return v3_max_abs(v3_sub(a, b)); }

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

/* ---- vec3 ----------------------------------------------------------------------------------- */

Test(vec3, cross_and_dot_identities) {
  test_rng r = {42};
  for (int k = 0; k < 1000; ++k) {
    vec3 a = rand_v3(&r, -2, 2), b = rand_v3(&r, -2, 2);
    vec3 c = v3_cross(a, b);
    double s = v3_norm2(a) * v3_norm2(b);
    /* each dot is a sum of three products of magnitude <= |a|²|b|: a few ulps of that */
    cr_assert(fabs(v3_dot(c, a)) <= 8 * EPS * v3_norm2(a) * v3_norm(b), "a×b·a = %g",
              v3_dot(c, a));
    cr_assert(fabs(v3_dot(c, b)) <= 8 * EPS * v3_norm2(b) * v3_norm(a), "a×b·b = %g",
              v3_dot(c, b));
    /* Lagrange: |a×b|² + (a·b)² = |a|²|b|², both sides O(|a|²|b|²) with a handful of roundings */
    double lag = v3_norm2(c) + v3_dot(a, b) * v3_dot(a, b);
    cr_assert(fabs(lag - s) <= 16 * EPS * s, "Lagrange: %g vs %g", lag, s);
    /* anti-commutativity: the same products, negated; exact without FMA, an ulp of |a||b|
     * with it (the fused product is the other one) */
    cr_assert(v3_maxdiff(v3_cross(b, a), v3_neg(c)) <= 2 * EPS * v3_norm(a) * v3_norm(b));
  }
}

Test(vec3, basics) {
  vec3 a = v3(3, -4, 12);
  cr_assert_eq(v3_norm(a), 13.0); /* exact: 9 + 16 + 144 = 169 */
  cr_assert_eq(v3_norm2(a), 169.0);
  cr_assert_eq(v3_get(a, 0), 3.0);
  cr_assert_eq(v3_get(a, 1), -4.0);
  cr_assert_eq(v3_get(a, 2), 12.0);
  cr_assert_eq(v3_max_abs(a), 12.0);
  vec3 y = v3_axpy(v3(1, 1, 1), 2, a);
  cr_assert(y.x == 7 && y.y == -7 && y.z == 25); /* small integers: exact */
  vec3 u = v3_normalize(a);
  cr_assert(fabs(v3_norm(u) - 1) <= 2 * EPS); /* one division and a square root */
  vec3 z = v3_normalize(v3_zero());
  cr_assert(z.x == 0 && z.y == 0 && z.z == 0, "zero in, zero out");
  cr_assert(v3_isfinite(a));
  cr_assert(!v3_isfinite(v3(0, NAN, 0)));
  cr_assert(!v3_isfinite(v3(0, 0, INFINITY)));
  vec3 e = v3_cross(v3(1, 0, 0), v3(0, 1, 0));
  cr_assert(e.x == 0 && e.y == 0 && e.z == 1, "x × y = z");
}

/* ---- mat3 ----------------------------------------------------------------------------------- */

Test(mat3, skew_is_cross_product) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    vec3 a = rand_v3(&r, -2, 2), b = rand_v3(&r, -2, 2);
    mat3 S = m3_skew(a);
    /* the same two products per entry, summed possibly in another order: 2 ulps of |a||b| */
    cr_assert(v3_maxdiff(m3_mulv(S, b), v3_cross(a, b)) <= 4 * EPS * v3_norm(a) * v3_norm(b));
    cr_assert(m3_maxdiff(m3_transpose(S), m3_scale(S, -1)) == 0, "skew-symmetric exactly");
  }
}

Test(mat3, constructors_and_products) {
  mat3 A = m3_from_rows(v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 10));
  mat3 B = m3_from_cols(v3(1, 4, 7), v3(2, 5, 8), v3(3, 6, 10));
  cr_assert(m3_maxdiff(A, B) == 0);
  cr_assert(m3_maxdiff(m3_transpose(A), m3_from_cols(v3(1, 2, 3), v3(4, 5, 6), v3(7, 8, 10))) == 0);
  cr_assert(v3_maxdiff(m3_col(A, 2), v3(3, 6, 10)) == 0);
  cr_assert(v3_maxdiff(m3_row(A, 1), v3(4, 5, 6)) == 0);
  /* small integers: every operation below is exact */
  cr_assert_eq(m3_det(A), -3.0);
  cr_assert_eq(m3_trace(A), 16.0);
  cr_assert_eq(m3_frobenius(m3_diag(v3(2, 3, 6))), 7.0);
  mat3 S = m3_sym6(1, 2, 3, 4, 5, 6);
  cr_assert(S.m[0][1] == 4 && S.m[1][0] == 4 && S.m[0][2] == 5 && S.m[2][0] == 5 &&
            S.m[1][2] == 6 && S.m[2][1] == 6 && S.m[2][2] == 3, "Ixy is the (0,1) entry as given");
  mat3 O = m3_outer(v3(1, 2, 3), v3(4, 5, 6));
  cr_assert(O.m[1][2] == 12 && O.m[2][0] == 12, "(a bᵀ)_ij = a_i b_j");
  vec3 v = v3(1, -1, 2);
  cr_assert(v3_maxdiff(m3_tmulv(A, v), m3_mulv(m3_transpose(A), v)) == 0);
  cr_assert(m3_maxdiff(m3_mul(A, m3_identity()), A) == 0);
  cr_assert(m3_isfinite(A));
  A.m[1][1] = NAN;
  cr_assert(!m3_isfinite(A));
}

Test(mat3, inverse_random_well_conditioned) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    /* 2·1 + entries in [-0.5, 0.5]: diagonally dominant, condition number below ~10 */
    mat3 A = m3_add(m3_scale(m3_identity(), 2), rand_m3(&r, -0.5, 0.5));
    mat3 Ai;
    cr_assert_eq(m3_inverse(A, &Ai), 1);
    /* backward error of the adjugate formula is a few ulps, amplified by cond(A) <= 10 */
    cr_assert(m3_maxdiff(m3_mul(Ai, A), m3_identity()) <= 100 * EPS);
    cr_assert(m3_maxdiff(m3_mul(A, Ai), m3_identity()) <= 100 * EPS);
  }
}

Test(mat3, inverse_singular) {
  mat3 Ai;
  mat3 S = m3_from_rows(v3(1, 2, 3), v3(2, 4, 6), v3(0, 1, 1)); /* row 2 = 2 row 1 */
  cr_assert_eq(m3_inverse(S, &Ai), 0);
  cr_assert(m3_max_abs(Ai) == 0, "failed inverse is the zero matrix");
  cr_assert_eq(m3_inverse(m3_zero(), &Ai), 0);
  mat3 N = m3_identity();
  N.m[0][2] = NAN;
  cr_assert_eq(m3_inverse(N, &Ai), 0);
  cr_assert_eq(m3_inverse(m3_scale(m3_identity(), 1e-101), &Ai), 0, "det 1e-303 <= 1e-300");
}

Test(mat3, det_of_product) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    mat3 A = rand_m3(&r, -1, 1), B = rand_m3(&r, -1, 1);
    double lhs = m3_det(m3_mul(A, B)), rhs = m3_det(A) * m3_det(B);
    /* entries <= 1: each determinant is a sum of 6 triple products <= 1, and the product's
     * entries are <= 3 (so its terms are <= 27): an absolute few hundred ulps */
    cr_assert(fabs(lhs - rhs) <= 400 * EPS, "det(AB) %g vs %g", lhs, rhs);
    /* (AB)ᵀ = BᵀAᵀ: the same three products per entry, summed in the same order */
    cr_assert(m3_maxdiff(m3_transpose(m3_mul(A, B)), m3_mul(m3_transpose(B), m3_transpose(A))) ==
              0);
  }
}

Test(mat3, congruence_preserves_invariants) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    mat3 A = rand_m3(&r, -1, 1);
    mat3 R = quat_to_m3(rand_quat(&r));
    mat3 C = m3_congruence(R, A);
    /* trace and det are similarity invariants; two products of entries <= 1 and R's rounding */
    cr_assert(fabs(m3_trace(C) - m3_trace(A)) <= 50 * EPS);
    cr_assert(fabs(m3_det(C) - m3_det(A)) <= 100 * EPS);
  }
}

static void check_eigen(mat3 A, const char *what) {
  vec3 l;
  mat3 V;
  m3_sym_eigen(A, &l, &V);
  double scale = m3_max_abs(A) > 1 ? m3_max_abs(A) : 1;
  /* Jacobi is backward stable: reconstruction within a few dozen ulps of |A| */
  mat3 B = m3_mul(m3_mul(V, m3_diag(l)), m3_transpose(V));
  cr_assert(m3_maxdiff(A, B) <= 64 * EPS * scale, "%s: reconstruction off by %g", what,
            m3_maxdiff(A, B));
  /* V is a product of plane rotations: orthonormal to a few dozen ulps */
  cr_assert(m3_maxdiff(m3_mul(m3_transpose(V), V), m3_identity()) <= 32 * EPS, "%s: VᵀV", what);
  cr_assert(fabs(m3_det(V) - 1) <= 32 * EPS, "%s: det V = %g", what, m3_det(V));
  cr_assert(l.x <= l.y && l.y <= l.z, "%s: ascending %g %g %g", what, l.x, l.y, l.z);
  for (int j = 0; j < 3; ++j) {
    vec3 v = m3_col(V, j);
    vec3 res = v3_sub(m3_mulv(A, v), v3_scale(v, v3_get(l, j)));
    cr_assert(v3_max_abs(res) <= 64 * EPS * scale, "%s: A v = λ v for column %d", what, j);
  }
}

Test(mat3, sym_eigen_random) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    mat3 A = rand_m3(&r, -3, 3);
    A = m3_scale(m3_add(A, m3_transpose(A)), 0.5);
    check_eigen(A, "random symmetric");
  }
}

Test(mat3, sym_eigen_repeated_and_special) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    mat3 Q = quat_to_m3(rand_quat(&r));
    double a = test_rng_uniform(&r, -2, 2), b = test_rng_uniform(&r, -2, 2);
    check_eigen(m3_congruence(Q, m3_diag(v3(a, a, b))), "double eigenvalue");
    check_eigen(m3_congruence(Q, m3_diag(v3(a, b, b))), "double eigenvalue");
    check_eigen(m3_congruence(Q, m3_diag(v3(a, a, a))), "triple eigenvalue");
    check_eigen(m3_congruence(Q, m3_diag(v3(a, a + 1e-9, b))), "near-double eigenvalue");
    vec3 u = rand_v3(&r, -1, 1);
    check_eigen(m3_outer(u, u), "rank one");
  }
  check_eigen(m3_zero(), "zero");
  check_eigen(m3_identity(), "identity");
  vec3 l;
  mat3 V;
  m3_sym_eigen(m3_diag(v3(3, 1, 2)), &l, &V);
  /* diagonal input: no rotation happens, so the values and the permuted axes are exact */
  cr_assert(l.x == 1 && l.y == 2 && l.z == 3);
  cr_assert(fabs(V.m[1][0]) == 1 && fabs(V.m[2][1]) == 1 && fabs(V.m[0][2]) == 1);
  cr_assert_eq(m3_det(V), 1.0);
  /* upper triangle only is read */
  mat3 U = m3_from_rows(v3(2, 1, 0), v3(99, 2, 0), v3(99, 99, 5));
  m3_sym_eigen(U, &l, &V);
  cr_assert(fabs(l.x - 1) <= 8 * EPS && fabs(l.y - 3) <= 8 * EPS && fabs(l.z - 5) <= 8 * EPS);
}

/* ---- quat ----------------------------------------------------------------------------------- */

Test(quat, known_rotation) {
  quat q = quat_from_axis_angle(v3(0, 0, 1), PI / 2);
  vec3 y = quat_rotate(q, v3(1, 0, 0));
  /* cos and sin of π/4 are rounded: a couple of ulps */
  cr_assert(v3_maxdiff(y, v3(0, 1, 0)) <= 4 * EPS, "90° about z maps x to y: %g %g %g", y.x,
            y.y, y.z);
  quat q5 = quat_from_axis_angle(v3(0, 0, 5), PI / 2);
  cr_assert(fabs(quat_angle(q, q5)) <= 4 * EPS, "axis need not be unit");
  mat3 R = quat_to_m3(q);
  cr_assert(m3_maxdiff(R, m3_from_rows(v3(0, -1, 0), v3(1, 0, 0), v3(0, 0, 1))) <= 4 * EPS);
  quat i = quat_from_axis_angle(v3_zero(), 1.0);
  cr_assert(i.w == 1 && i.x == 0 && i.y == 0 && i.z == 0, "zero axis gives the identity");
  quat n = quat_normalize(quat_make(0, 0, 0, 0));
  cr_assert(n.w == 1 && n.x == 0, "zero quaternion normalises to the identity");
  cr_assert(quat_isfinite(q) && !quat_isfinite(quat_make(1, 0, NAN, 0)));
  /* i j = k (Hamilton) */
  quat k = quat_mul(quat_make(0, 1, 0, 0), quat_make(0, 0, 1, 0));
  cr_assert(k.w == 0 && k.x == 0 && k.y == 0 && k.z == 1);
}

Test(quat, rotate_matches_matrix_and_preserves_length) {
  test_rng r = {42};
  for (int k = 0; k < 1000; ++k) {
    quat q = rand_quat(&r);
    vec3 v = rand_v3(&r, -2, 2);
    vec3 a = quat_rotate(q, v);
    double n = v3_norm(v);
    /* rotation error is a few ulps of |v| */
    cr_assert(fabs(v3_norm(a) - n) <= 16 * EPS * n, "length %g vs %g", v3_norm(a), n);
    cr_assert(v3_maxdiff(a, m3_mulv(quat_to_m3(q), v)) <= 16 * EPS * n);
    cr_assert(v3_maxdiff(quat_inv_rotate(q, a), v) <= 16 * EPS * n);
    mat3 R = quat_to_m3(q);
    cr_assert(m3_maxdiff(m3_mul(m3_transpose(R), R), m3_identity()) <= 16 * EPS);
    cr_assert(fabs(m3_det(R) - 1) <= 16 * EPS);
  }
}

Test(quat, product_matches_matrix_product) {
  test_rng r = {42};
  for (int k = 0; k < 1000; ++k) {
    quat a = rand_quat(&r), b = rand_quat(&r);
    mat3 lhs = quat_to_m3(quat_mul(a, b));
    mat3 rhs = m3_mul(quat_to_m3(a), quat_to_m3(b));
    /* entries of products of unit quaternions and rotations: a few ulps each */
    cr_assert(m3_maxdiff(lhs, rhs) <= 16 * EPS);
    quat e = quat_mul(a, quat_conj(a));
    cr_assert(fabs(e.w - 1) <= 4 * EPS && fabs(e.x) + fabs(e.y) + fabs(e.z) <= 8 * EPS);
  }
}

static void check_roundtrip(quat q) {
  mat3 R = quat_to_m3(q);
  quat p = quat_from_m3(R);
  cr_assert(p.w >= 0, "w >= 0");
  cr_assert(fabs(quat_norm(p) - 1) <= 4 * EPS);
  /* Shepperd divides by at least 1/2, so the error is a few ulps; angle via atan2 sees it */
  cr_assert(quat_angle(p, q) <= 16 * EPS, "round trip angle %g", quat_angle(p, q));
  cr_assert(m3_maxdiff(quat_to_m3(p), R) <= 16 * EPS);
  /* q and −q are one rotation; with w >= 0 the sign is fixed unless w == 0 */
  double s = q.w < 0 ? -1 : 1;
  if (fabs(q.w) > 1e-6)
    cr_assert(fabs(p.w - s * q.w) + fabs(p.x - s * q.x) + fabs(p.y - s * q.y) +
                  fabs(p.z - s * q.z) <= 32 * EPS);
}

Test(quat, matrix_round_trip_random_and_near_half_turn) {
  test_rng r = {42};
  for (int k = 0; k < 1000; ++k) check_roundtrip(rand_quat(&r));
  for (int k = 0; k < 200; ++k) {
    vec3 axis = rand_v3(&r, -1, 1);
    for (int e = 0; e <= 15; ++e) {
      double ang = PI - (e == 15 ? 0 : pow(10, -e));
      check_roundtrip(quat_from_axis_angle(axis, ang));
      check_roundtrip(quat_from_axis_angle(axis, -ang));
    }
  }
  /* the axis-aligned half turns hit each Shepperd branch with other diagonal entries -1 */
  check_roundtrip(quat_make(0, 1, 0, 0));
  check_roundtrip(quat_make(0, 0, 1, 0));
  check_roundtrip(quat_make(0, 0, 0, 1));
  check_roundtrip(quat_identity());
}

Test(quat, angle) {
  quat a = quat_from_axis_angle(v3(1, 0, 0), PI / 2);
  quat q = quat_from_axis_angle(v3(0, 1, 1), 0.3);
  /* one rounded sin/cos and an atan2: a few ulps of the angle */
  cr_assert(fabs(quat_angle(quat_identity(), a) - PI / 2) <= 8 * EPS);
  cr_assert(fabs(quat_angle(q, quat_mul(q, a)) - PI / 2) <= 8 * EPS);
  quat b = quat_from_axis_angle(v3(1, 0, 0), 1.5 * PI);
  cr_assert(fabs(quat_angle(quat_identity(), b) - PI / 2) <= 8 * EPS,
            "270° is 90° the other way");
  quat nq = quat_make(-q.w, -q.x, -q.y, -q.z);
  cr_assert(quat_angle(q, nq) <= 4 * EPS, "q and -q are the same rotation");
  cr_assert(fabs(quat_angle(quat_identity(), quat_make(0, 0, 0, 1)) - PI) <= 4 * EPS);
  quat t = quat_from_axis_angle(v3(0, 0, 1), 1e-12);
  cr_assert(fabs(quat_angle(quat_identity(), t) - 1e-12) <= 1e-12 * 8 * EPS,
            "small angles keep relative accuracy");
}

Test(quat, integrate_world_second_order) {
  test_rng r = {42};
  for (int k = 0; k < 200; ++k) {
    quat q0 = rand_quat(&r);
    vec3 w = rand_v3(&r, -3, 3);
    double wn = v3_norm(w);
    double err[2];
    for (int h = 0; h < 2; ++h) {
      double dt = h == 0 ? 1e-3 : 5e-4;
      double th = wn * dt;
      /* exact: a world-frame angular velocity composes on the left */
      quat ex = quat_mul(quat_from_axis_angle(w, th), q0);
      quat q1 = quat_integrate_world(q0, w, dt);
      double d = sqrt((q1.w - ex.w) * (q1.w - ex.w) + (q1.x - ex.x) * (q1.x - ex.x) +
                      (q1.y - ex.y) * (q1.y - ex.y) + (q1.z - ex.z) * (q1.z - ex.z));
      /* q1 − ex = (1 − cos θ/2) q0 + (θ/2 − sin θ/2) (0,ŵ)⊗q0, so |q1 − ex| = θ²/8 (1 + O(θ²)):
       * bracket it within 1% (θ <= 5e-3, so O(θ²) and rounding 1e-16/θ² are far below) */
      cr_assert(d >= 0.99 * th * th / 8 && d <= 1.01 * th * th / 8, "|q1 - exact| %g, θ²/8 %g",
                d, th * th / 8);
      err[h] = d;
      /* direction is exact; after normalising, the angle error is θ³/12 (tan vs angle) */
      double ang = quat_angle(quat_normalize(q1), ex);
      cr_assert(ang <= th * th * th / 10 + 64 * EPS, "normalised angle error %g", ang);
    }
    /* halving dt quarters the error: second order */
    cr_assert(fabs(err[0] / err[1] - 4) <= 0.05, "ratio %g", err[0] / err[1]);
  }
}

/* ---- transform ------------------------------------------------------------------------------ */

static xform rand_xf(test_rng *r) { return xf_make(rand_quat(r), rand_v3(r, -3, 3)); }

Test(transform, inverse_and_associativity) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    xform A = rand_xf(&r), B = rand_xf(&r), C = rand_xf(&r);
    xform I1 = xf_mul(A, xf_inv(A)), I2 = xf_mul(xf_inv(A), A);
    /* translations up to ~5 in magnitude, rotated twice: a few ulps of 5 */
    cr_assert(quat_angle(I1.q, quat_identity()) <= 8 * EPS);
    cr_assert(v3_max_abs(I1.p) <= 64 * EPS);
    cr_assert(quat_angle(I2.q, quat_identity()) <= 8 * EPS);
    cr_assert(v3_max_abs(I2.p) <= 64 * EPS);
    xform L = xf_mul(xf_mul(A, B), C), R = xf_mul(A, xf_mul(B, C));
    cr_assert(quat_angle(L.q, R.q) <= 16 * EPS);
    cr_assert(v3_maxdiff(L.p, R.p) <= 128 * EPS);
    vec3 p = rand_v3(&r, -3, 3);
    /* composition acts as nested application */
    cr_assert(v3_maxdiff(xf_point(xf_mul(A, B), p), xf_point(A, xf_point(B, p))) <= 128 * EPS);
    cr_assert(v3_maxdiff(xf_inv_point(A, xf_point(A, p)), p) <= 64 * EPS);
    cr_assert(v3_maxdiff(xf_point(xf_inv(A), p), xf_inv_point(A, p)) <= 64 * EPS);
    /* vectors ignore the translation: the same rotation code, so equal to an ulp or two */
    cr_assert(v3_maxdiff(xf_vector(A, p), quat_rotate(A.q, p)) <= 4 * EPS * 3, "vectors ignore p");
  }
  xform I = xf_identity();
  vec3 p = v3(1, 2, 3);
  cr_assert(v3_maxdiff(xf_point(I, p), p) == 0);
  xform T = xf_make(quat_from_axis_angle(v3(0, 0, 1), PI / 2), v3(1, 0, 0));
  /* the point (1,0,0) of B is at (1,0,0) + (0,1,0) in A */
  cr_assert(v3_maxdiff(xf_point(T, v3(1, 0, 0)), v3(1, 1, 0)) <= 4 * EPS);
}

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
