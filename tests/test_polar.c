/* Rotation-variant SVD and polar decomposition (kernels/math/polar.h). ε = 2.2e-16; tolerances
 * are a few dozen ε relative to the matrix's magnitude: one-sided Jacobi applies ~10-20 plane
 * rotations, each adding a couple of ulps. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/math/mat3.h"
#include "kernels/math/polar.h"
#include "kernels/math/quat.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS

static mat3 rand_m3(test_rng *r, double lo, double hi) {
  mat3 A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A.m[i][j] = test_rng_uniform(r, lo, hi);
  return A;
}

static vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

static quat rand_quat(test_rng *r) {
  for (;;) {
    double w = test_rng_uniform(r, -1, 1), x = test_rng_uniform(r, -1, 1);
    double y = test_rng_uniform(r, -1, 1), z = test_rng_uniform(r, -1, 1);
    double n2 = w * w + x * x + y * y + z * z;
    if (n2 > 0.01 && n2 <= 1) return quat_normalize(quat_make(w, x, y, z));
  }
}

static double m3_maxdiff(mat3 A, mat3 B) { return m3_max_abs(m3_sub(A, B)); }

/* 64 ε: orthonormality and det of a product of ~20 plane rotations and a normalisation */
static void check_rotation(mat3 R, const char *what) {
  double orth = m3_maxdiff(m3_mul(m3_transpose(R), R), m3_identity());
  cr_assert(orth <= 64 * EPS, "%s: not orthonormal (%g)", what, orth);
  cr_assert(fabs(m3_det(R) - 1) <= 64 * EPS, "%s: det %g", what, m3_det(R));
}

static void check_svd(mat3 A, const char *what) {
  mat3 U, V;
  vec3 s;
  m3_svd(A, &U, &s, &V);
  double scale = m3_max_abs(A);
  check_rotation(U, what);
  check_rotation(V, what);
  mat3 B = m3_mul(m3_mul(U, m3_diag(s)), m3_transpose(V));
  /* backward stable: a few dozen ulps of the largest entry */
  cr_assert(m3_maxdiff(A, B) <= 64 * EPS * scale, "%s: U Σ Vᵀ off by %g (|A| %g)", what,
            m3_maxdiff(A, B), scale);
  cr_assert(s.x >= 0 && s.y >= 0, "%s: only σz may be negative (%g %g %g)", what, s.x, s.y, s.z);
  cr_assert(s.x >= s.y && s.y >= fabs(s.z), "%s: sorted (%g %g %g)", what, s.x, s.y, s.z);
  double d = m3_det(A);
  /* the sign of σz is the sign of det A whenever det A is clearly away from rounding */
  if (fabs(d) > 1e-10 * scale * scale * scale)
    cr_assert((s.z < 0) == (d < 0), "%s: det %g but σz %g", what, d, s.z);
  /* σ² are the eigenvalues of AᵀA (an independent route); its eigenvalues carry absolute error
   * ~ε|A|², so compare squares absolutely (skipped where |A|² would overflow or underflow) */
  if (!(scale > 1e-150 && scale < 1e150)) return;
  vec3 l;
  mat3 W;
  m3_sym_eigen(m3_mul(m3_transpose(A), A), &l, &W);
  cr_assert(fabs(s.x * s.x - l.z) <= 64 * EPS * scale * scale * 9, "%s: σx² vs λ", what);
  cr_assert(fabs(s.y * s.y - l.y) <= 64 * EPS * scale * scale * 9, "%s: σy² vs λ", what);
  cr_assert(fabs(s.z * s.z - l.x) <= 64 * EPS * scale * scale * 9, "%s: σz² vs λ", what);
}

static void check_polar(mat3 F, const char *what) {
  mat3 R, S;
  m3_polar(F, &R, &S);
  double scale = m3_max_abs(F);
  check_rotation(R, what);
  cr_assert(m3_maxdiff(S, m3_transpose(S)) == 0, "%s: S symmetric exactly", what);
  cr_assert(m3_maxdiff(F, m3_mul(R, S)) <= 64 * EPS * scale, "%s: F - R S = %g", what,
            m3_maxdiff(F, m3_mul(R, S)));
}

Test(svd, random_matrices) {
  test_rng r = {42};
  for (int k = 0; k < 2000; ++k) {
    mat3 A = rand_m3(&r, -1, 1);
    check_svd(A, "random");
    check_polar(A, "random");
  }
}

Test(svd, scaled_matrices) {
  test_rng r = {42};
  /* power-of-two pre-scaling: tiny and huge entries behave like unit ones */
  const double scales[] = {1e-300, 1e-150, 1e-20, 1e20, 1e150, 1e300};
  for (int k = 0; k < 6; ++k)
    for (int n = 0; n < 100; ++n) {
      mat3 A = m3_scale(rand_m3(&r, -1, 1), scales[k]);
      check_svd(A, "scaled");
      check_polar(A, "scaled");
    }
}

Test(svd, known_values) {
  mat3 U, V;
  vec3 s;
  m3_svd(m3_diag(v3(2, -5, 3)), &U, &s, &V);
  /* diagonal input needs no rotation: values exact, sorted, the sign on the smallest */
  cr_assert(s.x == 5 && s.y == 3 && s.z == -2, "σ = %g %g %g", s.x, s.y, s.z);
  m3_svd(m3_zero(), &U, &s, &V);
  cr_assert(s.x == 0 && s.y == 0 && s.z == 0);
  cr_assert(m3_maxdiff(U, m3_identity()) == 0 && m3_maxdiff(V, m3_identity()) == 0);
  /* [[3, 0], [4, 5]] has singular values 3√5 and √5 (a classic), padded with 1 */
  mat3 A = m3_from_rows(v3(3, 0, 0), v3(4, 5, 0), v3(0, 0, 1));
  m3_svd(A, &U, &s, &V);
  cr_assert(fabs(s.x - 3 * sqrt(5)) <= 16 * EPS * 7 && fabs(s.y - sqrt(5)) <= 16 * EPS * 7 &&
            fabs(s.z - 1) <= 16 * EPS * 7, "σ = %.17g %.17g %.17g", s.x, s.y, s.z);
}

Test(svd, rank_deficient) {
  test_rng r = {42};
  for (int k = 0; k < 300; ++k) {
    vec3 a = rand_v3(&r, -1, 1), b = rand_v3(&r, -1, 1), c = rand_v3(&r, -1, 1);
    mat3 R1 = m3_outer(a, b);
    check_svd(R1, "rank 1");
    check_polar(R1, "rank 1");
    mat3 U, V;
    vec3 s;
    m3_svd(R1, &U, &s, &V);
    /* σx = |a||b|, the other two vanish to rounding of |a||b| */
    double ab = v3_norm(a) * v3_norm(b);
    cr_assert(fabs(s.x - ab) <= 32 * EPS * ab, "σx %g vs |a||b| %g", s.x, ab);
    cr_assert(s.y <= 32 * EPS * ab && fabs(s.z) <= 32 * EPS * ab, "σy %g σz %g", s.y, s.z);
    mat3 R2 = m3_add(m3_outer(a, b), m3_outer(c, a));
    check_svd(R2, "rank 2");
    check_polar(R2, "rank 2");
    mat3 Z = m3_from_cols(a, v3_zero(), c);
    check_svd(Z, "zero column");
    check_polar(Z, "zero column");
    mat3 Zr = m3_from_rows(a, b, v3_zero());
    check_svd(Zr, "zero row");
    mat3 E = m3_from_cols(a, a, c);
    check_svd(E, "equal columns");
    mat3 C1 = m3_from_cols(v3_zero(), v3_zero(), c);
    check_svd(C1, "one nonzero column");
    check_polar(C1, "one nonzero column");
  }
  check_svd(m3_zero(), "zero");
  check_polar(m3_zero(), "zero");
  check_svd(m3_diag(v3(0, 0, 1)), "e_z e_zᵀ");
  check_svd(m3_diag(v3(1e-300, 1, 0)), "graded");
}

Test(polar, identity_and_rotations_give_S_identity) {
  test_rng r = {42};
  mat3 R, S;
  m3_polar(m3_identity(), &R, &S);
  cr_assert(m3_maxdiff(R, m3_identity()) == 0 && m3_maxdiff(S, m3_identity()) == 0);
  for (int k = 0; k < 500; ++k) {
    mat3 Q = quat_to_m3(rand_quat(&r));
    m3_polar(Q, &R, &S);
    /* Q's columns are already orthonormal to a few ulps: no rotation needed or one tiny one */
    cr_assert(m3_maxdiff(S, m3_identity()) <= 32 * EPS, "S - 1 = %g", m3_maxdiff(S, m3_identity()));
    cr_assert(m3_maxdiff(R, Q) <= 32 * EPS, "R - Q = %g", m3_maxdiff(R, Q));
  }
}

Test(polar, recovers_known_factors) {
  test_rng r = {42};
  for (int k = 0; k < 500; ++k) {
    mat3 Q = quat_to_m3(rand_quat(&r));
    mat3 P = quat_to_m3(rand_quat(&r));
    vec3 d = v3(test_rng_uniform(&r, 0.2, 3), test_rng_uniform(&r, 0.2, 3),
                test_rng_uniform(&r, 0.2, 3));
    mat3 S0 = m3_congruence(P, m3_diag(d)); /* symmetric positive definite, cond <= 15 */
    S0 = m3_scale(m3_add(S0, m3_transpose(S0)), 0.5);
    mat3 R, S;
    m3_polar(m3_mul(Q, S0), &R, &S);
    /* the polar factors of a nonsingular F are unique; their error is ~cond · ε */
    cr_assert(m3_maxdiff(R, Q) <= 1e-13, "R - Q = %g", m3_maxdiff(R, Q));
    cr_assert(m3_maxdiff(S, S0) <= 1e-13 * 3, "S - S0 = %g", m3_maxdiff(S, S0));
  }
}

Test(polar, inverted_F_keeps_a_proper_rotation) {
  test_rng r = {42};
  for (int k = 0; k < 1000; ++k) {
    mat3 F = rand_m3(&r, -1, 1);
    if (m3_det(F) > 0) F = m3_set_col(F, k % 3, v3_neg(m3_col(F, k % 3)));
    if (!(m3_det(F) < -1e-6)) continue;
    check_polar(F, "inverted");
    mat3 R, S;
    m3_polar(F, &R, &S);
    vec3 l;
    mat3 W;
    m3_sym_eigen(S, &l, &W);
    /* S carries the inversion: exactly one negative eigenvalue, the smallest in magnitude */
    cr_assert(l.x < 0 && l.y > 0 && l.z > 0, "eigenvalues of S %g %g %g", l.x, l.y, l.z);
    cr_assert(-l.x <= l.y * (1 + 1e-12));
  }
  mat3 R, S;
  m3_polar(m3_diag(v3(1, 1, -1)), &R, &S);
  /* a diagonal F needs no rotation: R = 1, S = F exactly */
  cr_assert(m3_maxdiff(R, m3_identity()) == 0);
  cr_assert(m3_maxdiff(S, m3_diag(v3(1, 1, -1))) == 0);
  m3_polar(m3_scale(m3_identity(), -1), &R, &S);
  check_rotation(R, "-1");
  /* −1 = (half turn about z) · diag(1, 1, −1): the inversion sits on one axis only */
  cr_assert(fabs(m3_trace(S) - 1) <= 8 * EPS, "trace S = %g", m3_trace(S));
  cr_assert(m3_maxdiff(m3_mul(R, S), m3_scale(m3_identity(), -1)) <= 8 * EPS);
}

/* U Vᵀ from m3_svd: the route m3_polar_rotation takes where Newton's iteration does not apply. */
static mat3 svd_rotation(mat3 F) {
  mat3 U, V;
  vec3 s;
  m3_svd(F, &U, &s, &V);
  return m3_mul(U, m3_transpose(V));
}

/* F = Q·S0 with S0 symmetric positive definite of eigenvalues in [lo, hi], times scale. */
static mat3 rand_stretched(test_rng *r, double lo, double hi, double scale, mat3 *Q) {
  *Q = quat_to_m3(rand_quat(r));
  mat3 P = quat_to_m3(rand_quat(r));
  vec3 d = rand_v3(r, lo, hi);
  mat3 S0 = m3_congruence(P, m3_diag(d));
  return m3_scale(m3_mul(*Q, S0), scale);
}

Test(polar, newton_rotation_is_the_polar_factor) {
  test_rng r = {7};
  /* strains from a stiff element's (1e-6) to a squashed one's (eigenvalues 0.05..3, cond 60),
   * scaled by 2^±40 and by non-powers of two (the iteration's first step takes the scale out) */
  const double ranges[][2] = {{1 - 1e-6, 1 + 1e-6}, {0.999, 1.001}, {0.9, 1.1}, {0.5, 2}, {0.05, 3}};
  const double scales[] = {1, 0x1p-40, 0x1p40, 3.7, 1e-3};
  for (int c = 0; c < 5; ++c)
    for (int s = 0; s < 5; ++s)
      for (int k = 0; k < 200; ++k) {
        mat3 Q, R;
        mat3 F = rand_stretched(&r, ranges[c][0], ranges[c][1], scales[s], &Q);
        cr_assert(m3_polar_rotation_newton(F, &R), "no convergence (range %d, scale %g)", c, scales[s]);
        check_rotation(R, "newton");
        /* the polar factor of a nonsingular F is unique: the exact Q to ~cond·ε (cond <= 60),
         * and the SVD's U Vᵀ to as much */
        cr_assert(m3_maxdiff(R, Q) <= 1e-13, "R - Q = %g (range %d)", m3_maxdiff(R, Q), c);
        cr_assert(m3_maxdiff(R, svd_rotation(F)) <= 1e-13, "R - U Vᵀ = %g", m3_maxdiff(R, svd_rotation(F)));
        /* RᵀF = S symmetric: its asymmetry is rounding of the product, 16 ε of |F| */
        mat3 S = m3_mul(m3_transpose(R), F);
        cr_assert(m3_maxdiff(S, m3_transpose(S)) <= 16 * EPS * m3_max_abs(F) * 3, "RᵀF not symmetric");
        cr_assert(m3_maxdiff(m3_polar_rotation(F), R) == 0, "m3_polar_rotation takes the Newton route");
      }
}

/* Near the iteration's admission limit (det F at 1e-3 of a conformal matrix's of the same norm):
 * stretches (1, 1, σ) with σ down to 2e-3, cond 500, still converge within the 16 steps, to the
 * exact factor within cond·ε (2e-13 allowed, 1e-12 asserted); below the limit the SVD takes over. */
Test(polar, newton_rotation_near_its_limit) {
  test_rng r = {13};
  const double sig[] = {2e-2, 1e-2, 5e-3, 3e-3, 2e-3};
  for (int c = 0; c < 5; ++c)
    for (int k = 0; k < 100; ++k) {
      mat3 Q = quat_to_m3(rand_quat(&r)), P = quat_to_m3(rand_quat(&r)), R;
      mat3 F = m3_mul(Q, m3_congruence(P, m3_diag(v3(1, 1, sig[c]))));
      cr_assert(m3_polar_rotation_newton(F, &R), "σ %g: no convergence", sig[c]);
      cr_assert(m3_maxdiff(R, Q) <= 1e-12, "σ %g: R - Q = %g", sig[c], m3_maxdiff(R, Q));
      check_rotation(R, "near the limit");
    }
  mat3 R, Q = quat_to_m3(rand_quat(&r));
  cr_assert(!m3_polar_rotation_newton(m3_mul(Q, m3_diag(v3(1, 1, 1e-4))), &R), "past the limit: the SVD's");
}

Test(polar, rotation_falls_back_to_the_svd_where_newton_does_not_apply) {
  test_rng r = {11};
  int inverted = 0;
  for (int k = 0; k < 1000; ++k) {
    mat3 F = rand_m3(&r, -1, 1), R;
    if (m3_det(F) > 0) F = m3_set_col(F, k % 3, v3_neg(m3_col(F, k % 3)));
    if (!(m3_det(F) < 0)) continue;
    ++inverted;
    cr_assert(!m3_polar_rotation_newton(F, &R), "an inverted F is not for Newton's iteration");
    cr_assert(m3_maxdiff(m3_polar_rotation(F), svd_rotation(F)) == 0, "inverted: the SVD's rotation, bit for bit");
  }
  cr_assert(inverted > 900);
  /* nearly singular (a flat element), singular, zero, not finite, out of range for the squares */
  mat3 Q;
  mat3 flat = m3_mul(rand_stretched(&r, 0.5, 2, 1, &Q), m3_diag(v3(1, 1, 1e-5)));
  const mat3 cases[] = {flat, m3_diag(v3(1, 1, 0)), m3_zero(), m3_diag(v3(1, NAN, 1)),
                        m3_diag(v3(1e120, 1e120, 1e120)), m3_diag(v3(1e-120, 1e-120, 1e-120))};
  for (int c = 0; c < 6; ++c) {
    mat3 R;
    cr_assert(!m3_polar_rotation_newton(cases[c], &R), "case %d is not for Newton's iteration", c);
    mat3 a = m3_polar_rotation(cases[c]), b = svd_rotation(cases[c]);
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "case %d: the SVD's rotation, bit for bit", c);
  }
  /* the huge and tiny conformal ones still come out as the identity */
  cr_assert(m3_maxdiff(m3_polar_rotation(cases[4]), m3_identity()) == 0);
  cr_assert(m3_maxdiff(m3_polar_rotation(cases[5]), m3_identity()) == 0);
}
