/* Spatial vectors and spatial inertias in Drake's conventions: angular part first, every vector
 * of one quantity expressed in a single frame, the "about point" named by the caller.
 *
 *   svec     V = [w; v]   spatial velocity of a frame at point P (v = velocity of P), or
 *            F = [τ; f]   spatial force (τ = moment about P), or h = [l; p] spatial momentum.
 *   sinertia M = (m, c, I) mass, c = p_PScm (centre of mass from P), I = I_S/P (rotational
 *            inertia about P), all in the same frame.
 *
 * Accelerations are classical (time derivatives of w and of v_P in an inertial frame), as in
 * Drake, not Featherstone's body-fixed spatial accelerations; si_gyro_bias is written for that. */
#ifndef ISO_KERNELS_MATH_SPATIAL_H
#define ISO_KERNELS_MATH_SPATIAL_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

typedef struct svec {
  vec3 w; /* angular part: angular velocity, moment, or angular momentum */
  vec3 v; /* linear part: point velocity, force, or linear momentum */
} svec;

typedef struct sinertia {
  real m; /* mass */
  vec3 c; /* centre of mass from the about-point P */
  mat3 I; /* rotational inertia about P */
} sinertia;

/* ---- spatial vectors ---------------------------------------------------------------------- */

static inline ISO_HD svec sv_make(vec3 w, vec3 v) {
  svec s;
  s.w = w;
  s.v = v;
  return s;
}

static inline ISO_HD svec sv_zero(void) { return sv_make(v3_zero(), v3_zero()); }

static inline ISO_HD svec sv_add(svec a, svec b) {
  return sv_make(v3_add(a.w, b.w), v3_add(a.v, b.v));
}

static inline ISO_HD svec sv_sub(svec a, svec b) {
  return sv_make(v3_sub(a.w, b.w), v3_sub(a.v, b.v));
}

static inline ISO_HD svec sv_scale(svec a, real s) {
  return sv_make(v3_scale(a.w, s), v3_scale(a.v, s));
}

/* w·w' + v·v'; for a velocity and a force or momentum this is power or twice kinetic energy. */
static inline ISO_HD real sv_dot(svec a, svec b) { return v3_dot(a.w, b.w) + v3_dot(a.v, b.v); }

/* Spatial velocity of the same rigid frame taken at Q instead of P, r = p_PQ:
 * [w; v_P + w × r]. */
static inline ISO_HD svec sv_shift(svec V, vec3 r) {
  return sv_make(V.w, v3_add(V.v, v3_cross(V.w, r)));
}

/* Spatial force (or momentum) moved from P to Q, r = p_PQ: [τ_P − r × f; f]. Power is
 * preserved: sv_dot(sv_shift(V, r), sv_shift_force(F, r)) == sv_dot(V, F). */
static inline ISO_HD svec sv_shift_force(svec F, vec3 r) {
  return sv_make(v3_sub(F.w, v3_cross(r, F.v)), F.v);
}

/* Motion cross product V ×ₘ U = [w × u_w; w × u_v + v × u_w]. */
static inline ISO_HD svec sv_cross_motion(svec V, svec U) {
  return sv_make(v3_cross(V.w, U.w), v3_add(v3_cross(V.w, U.v), v3_cross(V.v, U.w)));
}

/* Force cross product V ×f F = [w × τ + v × f; w × f], the dual of sv_cross_motion:
 * sv_dot(sv_cross_motion(V, U), F) == −sv_dot(U, sv_cross_force(V, F)). */
static inline ISO_HD svec sv_cross_force(svec V, svec F) {
  return sv_make(v3_add(v3_cross(V.w, F.w), v3_cross(V.v, F.v)), v3_cross(V.w, F.v));
}

static inline ISO_HD int sv_isfinite(svec a) { return v3_isfinite(a.w) && v3_isfinite(a.v); }

/* ---- spatial inertias --------------------------------------------------------------------- */

static inline ISO_HD sinertia si_make(real m, vec3 c, mat3 I) {
  sinertia M;
  M.m = m;
  M.c = c;
  M.I = I;
  return M;
}

/* m (|c|² 1 − c cᵀ): the parallel-axis term, the inertia of a point mass m at c about P. */
static inline ISO_HD mat3 si_point_inertia(real m, vec3 c) {
  mat3 r = m3_scale(m3_outer(c, c), -m);
  real d = m * v3_norm2(c);
  r.m[0][0] += d;
  r.m[1][1] += d;
  r.m[2][2] += d;
  return r;
}

/* Spatial inertia about P from the mass, c = p_PScm and the rotational inertia about the centre
 * of mass (parallel-axis theorem): I_P = I_com + m (|c|² 1 − c cᵀ). */
static inline ISO_HD sinertia si_from_com(real m, vec3 c, mat3 I_com) {
  return si_make(m, c, m3_add(I_com, si_point_inertia(m, c)));
}

/* Rotational inertia about the centre of mass, I_P − m (|c|² 1 − c cᵀ). */
static inline ISO_HD mat3 si_com_inertia(sinertia M) {
  return m3_sub(M.I, si_point_inertia(M.m, M.c));
}

/* The same body's inertia about Q, r = p_PQ (same expressed-in frame): c → c − r and the
 * parallel-axis term re-taken from the centre of mass, so shifts compose exactly in theory and
 * to rounding in practice. */
static inline ISO_HD sinertia si_shift(sinertia M, vec3 r) {
  return si_from_com(M.m, v3_sub(M.c, r), si_com_inertia(M));
}

/* Re-expressed in frame A from frame B, R = R_AB: c → R c, I → R I Rᵀ. */
static inline ISO_HD sinertia si_rotate(sinertia M, mat3 R) {
  return si_make(M.m, m3_mulv(R, M.c), m3_congruence(R, M.I));
}

/* Spatial momentum about P of a body moving with V = [w; v_P]:
 * [I w + m c × v; m v − m c × w] (the linear part is m v_Scm, since v_Scm = v + w × c). */
static inline ISO_HD svec si_mul(sinertia M, svec V) {
  vec3 l = v3_add(m3_mulv(M.I, V.w), v3_scale(v3_cross(M.c, V.v), M.m));
  vec3 p = v3_scale(v3_sub(V.v, v3_cross(M.c, V.w)), M.m);
  return sv_make(l, p);
}

/* The 6x6 matrix of si_mul, row-major (out[6 i + j]):
 *   [ I        m [c]x ]
 *   [ -m [c]x  m 1    ]   symmetric, since [c]xᵀ = −[c]x. */
static inline ISO_HD void si_to_mat6(sinertia M, real out[36]) {
  mat3 S = m3_scale(m3_skew(M.c), M.m);
  int i, j;
  for (i = 0; i < 3; ++i) {
    for (j = 0; j < 3; ++j) {
      out[6 * i + j] = M.I.m[i][j];
      out[6 * i + j + 3] = S.m[i][j];
      out[6 * (i + 3) + j] = -S.m[i][j];
      out[6 * (i + 3) + j + 3] = i == j ? M.m : (real)0;
    }
  }
}

/* ½ V·(M V). */
static inline ISO_HD real si_kinetic_energy(sinertia M, svec V) {
  return (real)0.5 * sv_dot(V, si_mul(M, V));
}

/* Velocity-dependent ("gyroscopic", Coriolis/centrifugal) force of a free body about its origin
 * Po, for generalized velocities v = [w; v_Po], both in the world frame W, and M about Po in W:
 *   C(v) = [w × (I w); m w × (w × c)],   so that   M v̇ + C(v) = F_Po (applied force about Po).
 * Derivation (Newton–Euler about a point that is not the centre of mass; c is body-fixed, so
 * ċ = w × c and d/dt I = [w]x I − I [w]x):
 *   linear:  L = m v_Scm = m (v_Po + w × c)
 *            f = dL/dt = m v̇_Po − m c × ẇ + m w × (w × c).
 *   angular: H_Po = I w + m c × v_Po. For a moving point, τ_Po = dH_Po/dt + v_Po × L, with
 *            dH_Po/dt = w × (I w) + I ẇ + m (w × c) × v_Po + m c × v̇_Po and
 *            v_Po × L = m v_Po × (w × c), which cancels the third term:
 *            τ_Po = I ẇ + m c × v̇_Po + w × (I w).
 * The terms in ẇ and v̇_Po are exactly si_mul(M, [ẇ; v̇_Po]); the rest is C(v). It does not
 * depend on v_Po. */
static inline ISO_HD svec si_gyro_bias(sinertia M, vec3 w) {
  return sv_make(v3_cross(w, m3_mulv(M.I, w)),
                 v3_scale(v3_cross(w, v3_cross(w, M.c)), M.m));
}

/* ---- validation with a reason, for model checks (host or device) ---------------------------- */

/* Appends s to buf (capacity len, always NUL-terminated) at *pos. */
static inline ISO_HD void si_why_puts(char *buf, int len, int *pos, const char *s) {
  if (buf == 0 || len <= 0) return;
  while (*s != '\0' && *pos < len - 1) buf[(*pos)++] = *s++;
  buf[*pos < len ? *pos : len - 1] = '\0';
}

/* Appends x like printf("%g") (6 significant digits, trailing zeros dropped), without stdio so
 * that it also runs on the device. */
static inline ISO_HD void si_why_real(char *buf, int len, int *pos, real x) {
  char s[32];
  char dig[7];
  int n = 0, e, nd, k;
  real a, scaled;
  long d;
  if (x != x) {
    si_why_puts(buf, len, pos, "nan");
    return;
  }
  if (x < (real)0) s[n++] = '-';
  a = fabs(x);
  if (a == (real)0) {
    s[n++] = '0';
    s[n] = '\0';
    si_why_puts(buf, len, pos, s);
    return;
  }
  if (!isfinite(a)) {
    s[n] = '\0';
    si_why_puts(buf, len, pos, s);
    si_why_puts(buf, len, pos, "inf");
    return;
  }
  e = (int)floor(log10(a));
  scaled = 5 - e > 300 ? a * (real)1e300 * pow((real)10, (real)(5 - e - 300))
                       : a * pow((real)10, (real)(5 - e));
  d = (long)floor(scaled + (real)0.5);
  if (d >= 1000000L) {
    d /= 10;
    e += 1;
  }
  if (d < 100000L) { /* log10 rounded up across a power of ten */
    d = (long)floor(scaled * (real)10 + (real)0.5);
    e -= 1;
    if (d >= 1000000L) {
      d /= 10;
      e += 1;
    }
  }
  for (k = 5; k >= 0; --k) {
    dig[k] = (char)('0' + (int)(d % 10));
    d /= 10;
  }
  nd = 6;
  while (nd > 1 && dig[nd - 1] == '0') --nd;
  if (e >= -4 && e < 6) {
    if (e >= 0) {
      for (k = 0; k <= e; ++k) s[n++] = k < nd ? dig[k] : '0';
      if (nd > e + 1) {
        s[n++] = '.';
        for (k = e + 1; k < nd; ++k) s[n++] = dig[k];
      }
    } else {
      s[n++] = '0';
      s[n++] = '.';
      for (k = 0; k < -e - 1; ++k) s[n++] = '0';
      for (k = 0; k < nd; ++k) s[n++] = dig[k];
    }
  } else {
    int ae = e < 0 ? -e : e;
    s[n++] = dig[0];
    if (nd > 1) {
      s[n++] = '.';
      for (k = 1; k < nd; ++k) s[n++] = dig[k];
    }
    s[n++] = 'e';
    s[n++] = e < 0 ? '-' : '+';
    if (ae >= 100) s[n++] = (char)('0' + ae / 100);
    s[n++] = (char)('0' + (ae / 10) % 10);
    s[n++] = (char)('0' + ae % 10);
  }
  s[n] = '\0';
  si_why_puts(buf, len, pos, s);
}

static inline ISO_HD void si_why_moments(char *buf, int len, int *pos, vec3 l) {
  si_why_real(buf, len, pos, l.x);
  si_why_puts(buf, len, pos, ", ");
  si_why_real(buf, len, pos, l.y);
  si_why_puts(buf, len, pos, ", ");
  si_why_real(buf, len, pos, l.z);
}

/* 1 when M can be a rigid body's inertia: m > 0 and finite, c finite, and the rotational
 * inertia about the centre of mass symmetric (to 1e-12 of its largest entry), positive definite
 * and with principal moments (ascending l1 <= l2 <= l3) satisfying l3 <= l1 + l2 up to a slack
 * of 1e-12 (l1 + l2 + l3): a thin disk (l3 = l1 + l2 exactly) passes despite rounding. Otherwise
 * 0, and `why` (may be NULL) gets one sentence, principal moments listed ascending. */
static inline ISO_HD int si_is_physical(sinertia M, char *why, int why_len) {
  int pos = 0;
  mat3 Ic, V;
  vec3 l;
  real big;
  int i, j;
  if (why != 0 && why_len > 0) why[0] = '\0';
  if (!(M.m > (real)0) || !isfinite(M.m)) {
    si_why_puts(why, why_len, &pos, "mass ");
    si_why_real(why, why_len, &pos, M.m);
    si_why_puts(why, why_len, &pos, M.m > (real)0 ? " is not finite" : " is not positive");
    return 0;
  }
  if (!v3_isfinite(M.c)) {
    si_why_puts(why, why_len, &pos, "centre of mass is not finite");
    return 0;
  }
  if (!m3_isfinite(M.I)) {
    si_why_puts(why, why_len, &pos, "rotational inertia is not finite");
    return 0;
  }
  Ic = si_com_inertia(M);
  big = m3_max_abs(Ic);
  for (i = 0; i < 3; ++i)
    for (j = i + 1; j < 3; ++j)
      if (fabs(Ic.m[i][j] - Ic.m[j][i]) > (real)1e-12 * big) {
        si_why_puts(why, why_len, &pos, "rotational inertia is not symmetric");
        return 0;
      }
  m3_sym_eigen(Ic, &l, &V);
  if (!(l.x > (real)0)) {
    si_why_puts(why, why_len, &pos,
                "inertia about the centre of mass is not positive definite (principal moments ");
    si_why_moments(why, why_len, &pos, l);
    si_why_puts(why, why_len, &pos, ")");
    return 0;
  }
  if (l.z > l.x + l.y + (real)1e-12 * (l.x + l.y + l.z)) {
    si_why_puts(why, why_len, &pos, "principal moments ");
    si_why_moments(why, why_len, &pos, l);
    si_why_puts(why, why_len, &pos, " violate the triangle inequality");
    return 0;
  }
  return 1;
}

#endif
