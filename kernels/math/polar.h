/* Rotation-variant SVD and polar decomposition of 3x3 matrices, for deformation gradients.
 *
 * m3_svd returns A = U diag(σ) Vᵀ with U and V proper rotations. To keep both rotations proper
 * an inverted A (det < 0) puts its sign on the smallest singular value, so σz may be negative
 * (Irving, Teran & Fedkiw 2004, "invertible finite elements"); |σx| >= |σy| >= |σz|.
 *
 * Method: one-sided (Hestenes) Jacobi. Plane rotations V are applied to the columns of B = A V
 * until every pair of columns is orthogonal to a few ε (relative); then σi = |bi| and ui = bi/σi.
 * Unlike eigen-decomposing AᵀA this does not square the condition number, so small singular
 * values keep their relative accuracy and A = U Σ Vᵀ holds to a few ulps of |A|. A is first
 * scaled by a power of two (exact) so squared column norms neither overflow nor underflow.
 * Rank-deficient A: U is completed by Gram–Schmidt and a cross product, so it is a rotation
 * whatever the rank; a zero A gives U = V = 1, σ = 0. */
#ifndef ISO_KERNELS_MATH_POLAR_H
#define ISO_KERNELS_MATH_POLAR_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

#define ISO_M3_SVD_MAX_SWEEPS 30

/* A unit vector perpendicular to the unit vector u: u × (the axis least aligned with u). */
static inline ISO_HD vec3 v3_any_perp(vec3 u) {
  real ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
  vec3 e;
  if (ax <= ay && ax <= az)
    e = v3((real)1, (real)0, (real)0);
  else if (ay <= az)
    e = v3((real)0, (real)1, (real)0);
  else
    e = v3((real)0, (real)0, (real)1);
  return v3_normalize(v3_cross(u, e));
}

static inline ISO_HD void m3_svd(mat3 A, mat3 *U, vec3 *sigma, mat3 *V) {
  vec3 b[3], v[3], u[3];
  real nrm[3], s[3];
  real amax = m3_max_abs(A);
  real scale = (real)1;
  int sweep, k, i, j, rotated;

  if (amax == (real)0) {
    *U = m3_identity();
    *V = m3_identity();
    *sigma = v3_zero();
    return;
  }
  if (isfinite(amax)) {
    int ex;
    (void)frexp(amax, &ex); /* amax = f 2^ex, f in [1/2, 1) */
    scale = ldexp((real)1, ex);
    A = m3_scale(A, ldexp((real)1, -ex));
  }
  for (j = 0; j < 3; ++j) {
    b[j] = m3_col(A, j);
    v[j] = v3((real)(j == 0), (real)(j == 1), (real)(j == 2));
  }

  /* one-sided Jacobi: rotate column pairs (p, q) until bp · bq <= 8ε |bp| |bq|, the rounding
   * floor of a dot product (a tighter test can cycle on rounding), or until bp · bq <= 1e-150,
   * negligible against |A| ~ 1 and the level where |b|² underflows and the relative test
   * would never pass. */
  for (sweep = 0; sweep < ISO_M3_SVD_MAX_SWEEPS; ++sweep) {
    rotated = 0;
    for (k = 0; k < 3; ++k) {
      int p = k == 2 ? 1 : 0;
      int q = k == 0 ? 1 : 2;
      real alpha = v3_norm2(b[p]);
      real beta = v3_norm2(b[q]);
      real gamma = v3_dot(b[p], b[q]);
      real zeta, t, c, sn;
      vec3 bp, vp;
      if (!(fabs(gamma) > (real)8 * ISO_REAL_EPS * sqrt(alpha) * sqrt(beta)) ||
          !(fabs(gamma) > (real)1e-150))
        continue;
      rotated = 1;
      zeta = (beta - alpha) / ((real)2 * gamma);
      if (fabs(zeta) > (real)1e150) {
        t = (real)0.5 / zeta;
      } else {
        t = (real)1 / (fabs(zeta) + sqrt((real)1 + zeta * zeta));
        if (zeta < (real)0) t = -t;
      }
      c = (real)1 / sqrt((real)1 + t * t);
      sn = c * t;
      bp = b[p];
      vp = v[p];
      b[p] = v3_sub(v3_scale(bp, c), v3_scale(b[q], sn));
      b[q] = v3_add(v3_scale(bp, sn), v3_scale(b[q], c));
      v[p] = v3_sub(v3_scale(vp, c), v3_scale(v[q], sn));
      v[q] = v3_add(v3_scale(vp, sn), v3_scale(v[q], c));
    }
    if (!rotated) break;
  }

  /* sort columns by norm, descending (insertion sort keeps equal norms in place) */
  for (j = 0; j < 3; ++j) nrm[j] = v3_norm(b[j]);
  for (i = 1; i < 3; ++i) {
    for (j = i; j > 0 && nrm[j] > nrm[j - 1]; --j) {
      real tn = nrm[j];
      vec3 tb = b[j], tv = v[j];
      nrm[j] = nrm[j - 1];
      b[j] = b[j - 1];
      v[j] = v[j - 1];
      nrm[j - 1] = tn;
      b[j - 1] = tb;
      v[j - 1] = tv;
    }
  }

  /* U: u0 from b0, u1 from b1 made orthogonal to u0, u2 = u0 × u1 (so det U = +1).
   * Below 1e-200 (A is scaled to max |entry| ~ 1) a column is rank-deficient noise and an
   * arbitrary perpendicular stands in. */
  if (nrm[0] > (real)1e-200) {
    u[0] = v3_scale(b[0], (real)1 / nrm[0]);
  } else {
    u[0] = v3((real)1, (real)0, (real)0);
  }
  u[1] = v3_axpy(b[1], -v3_dot(u[0], b[1]), u[0]);
  if (v3_norm(u[1]) > (real)1e-200) {
    u[1] = v3_normalize(u[1]);
  } else {
    u[1] = v3_any_perp(u[0]);
  }
  if (v3_dot(u[1], b[1]) < (real)0) u[1] = v3_neg(u[1]);
  u[2] = v3_cross(u[0], u[1]);
  s[0] = v3_dot(u[0], b[0]);
  s[1] = v3_dot(u[1], b[1]);
  s[2] = v3_dot(u[2], b[2]);
  /* |σ2| can exceed σ1 only by rounding when the two are equal */
  if (fabs(s[2]) > s[1]) s[2] = s[2] < (real)0 ? -s[1] : s[1];

  *V = m3_from_cols(v[0], v[1], v[2]);
  if (m3_det(*V) < (real)0) {
    *V = m3_set_col(*V, 2, v3_neg(v[2]));
    s[2] = -s[2];
  }
  *U = m3_from_cols(u[0], u[1], u[2]);
  *sigma = v3(s[0] * scale, s[1] * scale, s[2] * scale);
}

/* Polar decomposition F = R S with R = U Vᵀ a proper rotation and S = V diag(σ) Vᵀ symmetric
 * (exactly, by construction). For an inverted F, S has one negative eigenvalue rather than R
 * being a reflection. Linear corotational FEM (Han et al. 2023) uses this R, from the element's
 * deformation gradient F, to rotate the rest-state stiffness. */
static inline ISO_HD void m3_polar(mat3 F, mat3 *R, mat3 *S) {
  mat3 U, V, VS, out;
  vec3 sg;
  int i, j;
  m3_svd(F, &U, &sg, &V);
  *R = m3_mul(U, m3_transpose(V));
  VS = m3_mul(V, m3_diag(sg));
  out = m3_mul(VS, m3_transpose(V));
  for (i = 0; i < 3; ++i)
    for (j = i + 1; j < 3; ++j) {
      real avg = (real)0.5 * (out.m[i][j] + out.m[j][i]);
      out.m[i][j] = out.m[j][i] = avg;
    }
  *S = out;
}

/* The rotation of F's polar decomposition by Newton's iteration X <- (gX + (gX)^-T)/2 (Higham
 * 1986), which converges quadratically to it from X = F when det F > 0; g = (|X^-1| / |X|)^(1/2)
 * (Frobenius norms) takes out a uniform stretch while X is far from orthogonal. It stops after
 * the step that moved X by at most 1e-8 (|X| ~ sqrt 3 by then): that step left an error of about
 * half the previous one squared, below the rounding of X. Returns 1 with *R set; 0 (R untouched)
 * where it does not apply: det F <= 0, F nearly singular (det F below 1e-3 of the determinant of
 * a conformal matrix of the same Frobenius norm, where the iteration needs many steps), entries
 * not finite or out of range for the squares, or no convergence in 16 steps. Per step: one
 * adjugate and one division, no square root once X is near orthogonal; a deformation gradient
 * near a rotation takes 2-3 steps, about a sixth of m3_svd's time. */
static inline ISO_HD int m3_polar_rotation_newton(mat3 F, mat3 *R) {
  mat3 X = F;
  real s = (real)0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += X.m[i][j] * X.m[i][j];
  const real m = s / (real)3;
  if (!(s > (real)1e-200 && s < (real)1e200) || !(m3_det(X) > (real)1e-3 * m * sqrt(m))) return 0;
  real moved = (real)1; /* squared Frobenius norm of the last step's change */
  for (int it = 0; it < 16; ++it) {
    mat3 C; /* the cofactors of X: X^-T = C / det X */
    C.m[0][0] = X.m[1][1] * X.m[2][2] - X.m[1][2] * X.m[2][1];
    C.m[0][1] = X.m[1][2] * X.m[2][0] - X.m[1][0] * X.m[2][2];
    C.m[0][2] = X.m[1][0] * X.m[2][1] - X.m[1][1] * X.m[2][0];
    C.m[1][0] = X.m[0][2] * X.m[2][1] - X.m[0][1] * X.m[2][2];
    C.m[1][1] = X.m[0][0] * X.m[2][2] - X.m[0][2] * X.m[2][0];
    C.m[1][2] = X.m[0][1] * X.m[2][0] - X.m[0][0] * X.m[2][1];
    C.m[2][0] = X.m[0][1] * X.m[1][2] - X.m[0][2] * X.m[1][1];
    C.m[2][1] = X.m[0][2] * X.m[1][0] - X.m[0][0] * X.m[1][2];
    C.m[2][2] = X.m[0][0] * X.m[1][1] - X.m[0][1] * X.m[1][0];
    const real det = X.m[0][0] * C.m[0][0] + X.m[0][1] * C.m[0][1] + X.m[0][2] * C.m[0][2];
    if (!(det > (real)0)) return 0;
    real a = (real)0.5, b = (real)0.5 / det;
    if (moved > (real)1e-4) {
      real sx = (real)0, sc = (real)0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) sx += X.m[i][j] * X.m[i][j], sc += C.m[i][j] * C.m[i][j];
      const real g = sqrt(sqrt(sc / (det * det * sx)));
      a *= g;
      b /= g;
    }
    moved = (real)0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const real y = a * X.m[i][j] + b * C.m[i][j];
        const real e = y - X.m[i][j];
        moved += e * e;
        X.m[i][j] = y;
      }
    if (moved <= (real)1e-16) {
      *R = X;
      return 1;
    }
  }
  return 0;
}

/* m3_polar's R alone: Newton's iteration where it applies (m3_polar_rotation_newton), else U Vᵀ
 * from m3_svd (inverted or nearly singular F). Both are the same rotation to a few ulps where
 * both apply, the unique polar factor of a nonsingular F. */
static inline ISO_HD mat3 m3_polar_rotation(mat3 F) {
  mat3 R;
  if (m3_polar_rotation_newton(F, &R)) return R;
  mat3 U, V;
  vec3 s;
  m3_svd(F, &U, &s, &V);
  return m3_mul(U, m3_transpose(V));
}

#endif
