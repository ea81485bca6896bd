/* The math layer's quaternions and rigid transforms (kernels/math/quat.h,
 * kernels/math/transform.h): known rotations, agreement with the matrix forms, round trips
 * through matrices, angles, integration, and transform inverse and composition. Tolerances are
 * stated in units of ε = 2.2e-16 relative to the magnitude of the quantities involved, with the
 * reason next to each. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "support/math_check.h"
#include "support/support.h"

#define EPS ISO_REAL_EPS
#define PI 3.14159265358979323846

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
