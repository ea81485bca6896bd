/* The math layer's vectors and 3×3 matrices (kernels/math/vec3.h, kernels/math/mat3.h): cross
 * and dot identities, constructors and products, inverse, determinant, congruence, and the
 * symmetric eigen-decomposition. Tolerances are stated in units of ε = 2.2e-16 relative to the
 * magnitude of the quantities involved, with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/vec3.h"
#include "support/math_check.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS

/* ---- helpers -------------------------------------------------------------------------------- */

static mat3 rand_m3(test_rng *r, double lo, double hi) {
  mat3 A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A.m[i][j] = test_rng_uniform(r, lo, hi);
  return A;
}

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
