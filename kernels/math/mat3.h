/* 3x3 matrices of `real`, row-major m[row][col], passed and returned by value. */
#ifndef ISO_KERNELS_MATH_MAT3_H
#define ISO_KERNELS_MATH_MAT3_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

typedef struct mat3 {
  real m[3][3];
} mat3;

static inline ISO_HD mat3 m3_zero(void) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.m[i][j] = (real)0;
  return r;
}

static inline ISO_HD mat3 m3_diag(vec3 d) {
  mat3 r = m3_zero();
  r.m[0][0] = d.x;
  r.m[1][1] = d.y;
  r.m[2][2] = d.z;
  return r;
}

static inline ISO_HD mat3 m3_identity(void) { return m3_diag(v3((real)1, (real)1, (real)1)); }

static inline ISO_HD mat3 m3_from_rows(vec3 a, vec3 b, vec3 c) {
  mat3 r;
  r.m[0][0] = a.x; r.m[0][1] = a.y; r.m[0][2] = a.z;
  r.m[1][0] = b.x; r.m[1][1] = b.y; r.m[1][2] = b.z;
  r.m[2][0] = c.x; r.m[2][1] = c.y; r.m[2][2] = c.z;
  return r;
}

static inline ISO_HD mat3 m3_from_cols(vec3 a, vec3 b, vec3 c) {
  mat3 r;
  r.m[0][0] = a.x; r.m[0][1] = b.x; r.m[0][2] = c.x;
  r.m[1][0] = a.y; r.m[1][1] = b.y; r.m[1][2] = c.y;
  r.m[2][0] = a.z; r.m[2][1] = b.z; r.m[2][2] = c.z;
  return r;
}

static inline ISO_HD vec3 m3_col(mat3 A, int j) { return v3(A.m[0][j], A.m[1][j], A.m[2][j]); }

static inline ISO_HD vec3 m3_row(mat3 A, int i) { return v3(A.m[i][0], A.m[i][1], A.m[i][2]); }

static inline ISO_HD mat3 m3_set_col(mat3 A, int j, vec3 c) {
  A.m[0][j] = c.x;
  A.m[1][j] = c.y;
  A.m[2][j] = c.z;
  return A;
}

static inline ISO_HD mat3 m3_transpose(mat3 A) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.m[i][j] = A.m[j][i];
  return r;
}

static inline ISO_HD mat3 m3_add(mat3 A, mat3 B) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.m[i][j] = A.m[i][j] + B.m[i][j];
  return r;
}

static inline ISO_HD mat3 m3_sub(mat3 A, mat3 B) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.m[i][j] = A.m[i][j] - B.m[i][j];
  return r;
}

static inline ISO_HD mat3 m3_scale(mat3 A, real s) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) r.m[i][j] = A.m[i][j] * s;
  return r;
}

static inline ISO_HD mat3 m3_mul(mat3 A, mat3 B) {
  mat3 r;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j)
      r.m[i][j] = A.m[i][0] * B.m[0][j] + A.m[i][1] * B.m[1][j] + A.m[i][2] * B.m[2][j];
  return r;
}

static inline ISO_HD vec3 m3_mulv(mat3 A, vec3 v) {
  return v3(A.m[0][0] * v.x + A.m[0][1] * v.y + A.m[0][2] * v.z,
            A.m[1][0] * v.x + A.m[1][1] * v.y + A.m[1][2] * v.z,
            A.m[2][0] * v.x + A.m[2][1] * v.y + A.m[2][2] * v.z);
}

/* Aᵀ v */
static inline ISO_HD vec3 m3_tmulv(mat3 A, vec3 v) {
  return v3(A.m[0][0] * v.x + A.m[1][0] * v.y + A.m[2][0] * v.z,
            A.m[0][1] * v.x + A.m[1][1] * v.y + A.m[2][1] * v.z,
            A.m[0][2] * v.x + A.m[1][2] * v.y + A.m[2][2] * v.z);
}

static inline ISO_HD real m3_det(mat3 A) {
  return A.m[0][0] * (A.m[1][1] * A.m[2][2] - A.m[1][2] * A.m[2][1]) -
         A.m[0][1] * (A.m[1][0] * A.m[2][2] - A.m[1][2] * A.m[2][0]) +
         A.m[0][2] * (A.m[1][0] * A.m[2][1] - A.m[1][1] * A.m[2][0]);
}

static inline ISO_HD real m3_trace(mat3 A) { return A.m[0][0] + A.m[1][1] + A.m[2][2]; }

/* Inverse by the adjugate. Returns 1, or 0 when A is singular (|det| <= 1e-300) or not finite;
 * *inv is then the zero matrix. The threshold is absolute: scale A first if its entries are
 * far from 1. */
static inline ISO_HD int m3_inverse(mat3 A, mat3 *inv) {
  real det = m3_det(A);
  real s;
  mat3 r;
  if (!isfinite(det) || !(fabs(det) > (real)1e-300)) {
    *inv = m3_zero();
    return 0;
  }
  s = (real)1 / det;
  r.m[0][0] = (A.m[1][1] * A.m[2][2] - A.m[1][2] * A.m[2][1]) * s;
  r.m[0][1] = (A.m[0][2] * A.m[2][1] - A.m[0][1] * A.m[2][2]) * s;
  r.m[0][2] = (A.m[0][1] * A.m[1][2] - A.m[0][2] * A.m[1][1]) * s;
  r.m[1][0] = (A.m[1][2] * A.m[2][0] - A.m[1][0] * A.m[2][2]) * s;
  r.m[1][1] = (A.m[0][0] * A.m[2][2] - A.m[0][2] * A.m[2][0]) * s;
  r.m[1][2] = (A.m[0][2] * A.m[1][0] - A.m[0][0] * A.m[1][2]) * s;
  r.m[2][0] = (A.m[1][0] * A.m[2][1] - A.m[1][1] * A.m[2][0]) * s;
  r.m[2][1] = (A.m[0][1] * A.m[2][0] - A.m[0][0] * A.m[2][1]) * s;
  r.m[2][2] = (A.m[0][0] * A.m[1][1] - A.m[0][1] * A.m[1][0]) * s;
  *inv = r;
  return 1;
}

/* [v]x, the cross-product matrix: m3_mulv(m3_skew(a), b) == v3_cross(a, b). */
static inline ISO_HD mat3 m3_skew(vec3 v) {
  mat3 r = m3_zero();
  r.m[0][1] = -v.z;
  r.m[0][2] = v.y;
  r.m[1][0] = v.z;
  r.m[1][2] = -v.x;
  r.m[2][0] = -v.y;
  r.m[2][1] = v.x;
  return r;
}

/* a bᵀ */
static inline ISO_HD mat3 m3_outer(vec3 a, vec3 b) {
  return m3_from_rows(v3_scale(b, a.x), v3_scale(b, a.y), v3_scale(b, a.z));
}

/* Symmetric matrix from the six inertia entries, taken as the matrix entries themselves: Ixy is
 * the (0,1) entry (no sign flip for "products of inertia" conventions that store -Ixy). */
static inline ISO_HD mat3 m3_sym6(real Ixx, real Iyy, real Izz, real Ixy, real Ixz, real Iyz) {
  mat3 r;
  r.m[0][0] = Ixx; r.m[0][1] = Ixy; r.m[0][2] = Ixz;
  r.m[1][0] = Ixy; r.m[1][1] = Iyy; r.m[1][2] = Iyz;
  r.m[2][0] = Ixz; r.m[2][1] = Iyz; r.m[2][2] = Izz;
  return r;
}

/* R A Rᵀ: re-expresses a tensor A given in frame B in frame A when R = R_AB. */
static inline ISO_HD mat3 m3_congruence(mat3 R, mat3 A) {
  return m3_mul(m3_mul(R, A), m3_transpose(R));
}

static inline ISO_HD real m3_frobenius(mat3 A) {
  real s = (real)0;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) s += A.m[i][j] * A.m[i][j];
  return sqrt(s);
}

static inline ISO_HD real m3_max_abs(mat3 A) {
  real s = (real)0;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j)
      if (fabs(A.m[i][j]) > s) s = fabs(A.m[i][j]);
  return s;
}

static inline ISO_HD int m3_isfinite(mat3 A) {
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j)
      if (!isfinite(A.m[i][j])) return 0;
  return 1;
}

#define ISO_M3_JACOBI_MAX_SWEEPS 50

/* Eigen-decomposition of a symmetric A (only the upper triangle is read) by cyclic Jacobi:
 * A = V diag(evals) Vᵀ, eigenvalues ascending (x <= y <= z), eigenvectors the matching columns
 * of V, a proper rotation (det +1). Rotations follow Numerical Recipes §11.1 (tan of the
 * smaller angle, so the update is stable); an off-diagonal entry below a hundredth of an ulp of
 * both diagonal entries is dropped after the fourth sweep. Each sweep shrinks the off-diagonal
 * part quadratically; a 3x3 settles in about five. */
static inline ISO_HD void m3_sym_eigen(mat3 A, vec3 *evals, mat3 *evecs) {
  real a[3][3];
  mat3 V = m3_identity();
  real d[3];
  int sweep, k, i, j;
  for (i = 0; i < 3; ++i)
    for (j = i; j < 3; ++j) a[i][j] = a[j][i] = A.m[i][j];
  for (sweep = 0; sweep < ISO_M3_JACOBI_MAX_SWEEPS; ++sweep) {
    if (fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]) == (real)0) break;
    for (k = 0; k < 3; ++k) {
      int p = k == 2 ? 1 : 0;
      int q = k == 0 ? 1 : 2;
      int r = 3 - p - q;
      real apq = a[p][q];
      real g = (real)100 * fabs(apq);
      real theta, t, c, s, tau, arp, arq;
      if (apq == (real)0) continue;
      if (sweep > 3 && fabs(a[p][p]) + g == fabs(a[p][p]) && fabs(a[q][q]) + g == fabs(a[q][q])) {
        a[p][q] = a[q][p] = (real)0;
        continue;
      }
      theta = (a[q][q] - a[p][p]) / ((real)2 * apq);
      if (fabs(theta) > (real)1e150) {
        t = (real)0.5 / theta;
      } else {
        t = (real)1 / (fabs(theta) + sqrt(theta * theta + (real)1));
        if (theta < (real)0) t = -t;
      }
      c = (real)1 / sqrt(t * t + (real)1);
      s = t * c;
      tau = s / ((real)1 + c);
      a[p][p] -= t * apq;
      a[q][q] += t * apq;
      a[p][q] = a[q][p] = (real)0;
      arp = a[r][p];
      arq = a[r][q];
      a[r][p] = a[p][r] = arp - s * (arq + tau * arp);
      a[r][q] = a[q][r] = arq + s * (arp - tau * arq);
      for (i = 0; i < 3; ++i) {
        real vip = V.m[i][p];
        real viq = V.m[i][q];
        V.m[i][p] = vip - s * (viq + tau * vip);
        V.m[i][q] = viq + s * (vip - tau * viq);
      }
    }
  }
  d[0] = a[0][0];
  d[1] = a[1][1];
  d[2] = a[2][2];
  /* insertion sort, ascending, moving eigenvector columns along */
  for (i = 1; i < 3; ++i) {
    for (j = i; j > 0 && d[j] < d[j - 1]; --j) {
      real td = d[j];
      vec3 cj = m3_col(V, j);
      d[j] = d[j - 1];
      d[j - 1] = td;
      V = m3_set_col(V, j, m3_col(V, j - 1));
      V = m3_set_col(V, j - 1, cj);
    }
  }
  if (m3_det(V) < (real)0) V = m3_set_col(V, 0, v3_neg(m3_col(V, 0)));
  *evals = v3(d[0], d[1], d[2]);
  *evecs = V;
}

#endif
