/* GJK + EPA (EPA in kernels/point/epa.h) for pairs of bounded convex shapes given by support functions: box, cylinder,
 * capsule, sphere, ellipsoid and convex hulls given by their vertices.
 *
 * Place in the pipeline: the fallback of the point-contact narrow phase (pair.h), standing in
 * for Drake's FCL fallback (drake_algorithms §4.1: fcl::collide with libccd GJK/EPA, one
 * contact; depth <= ε_machine is no contact).
 *
 * Algorithm. Spheres and capsules are split into a core (a point, a segment) and a margin (the
 * radius); every other shape is its own core with margin 0. GJK (van den Bergen's variant,
 * Johnson's sub-algorithm replaced by Ericson's Voronoi-region closest-point tests) finds the
 * distance between the cores:
 *   - cores apart (distance > tol_abs): depth = rA + rB − distance, normal along the closest
 *     points, witnesses = the closest core points moved by the radii; exact for spheres and
 *     capsules, to the GJK tolerance for curved cores;
 *   - cores touching or overlapping: EPA on the cores' Minkowski difference A − B gives the
 *     core penetration d and its direction; depth = d + rA + rB. This is exact because the
 *     Minkowski difference of the full shapes is that of the cores grown by a ball of radius
 *     rA + rB. Polytope cores (box, convex, segment, point) make EPA finite and exact; curved
 *     cores (cylinder, ellipsoid) converge to the tolerance below or stop at the caps.
 * point_convex_pair(..., cores = 0, ...) runs EPA on the full rounded shapes instead (used by
 * the tests to exercise EPA on curved surfaces).
 *
 * Minkowski difference: w = a − b with a = s_A(d), b = s_B(−d). If the origin is inside, the
 * boundary point p = d·n closest to it (n the outward unit normal, d the depth) satisfies
 * a − b = p, so p_WCa − p_WCb = −depth·nhat_BA with nhat_BA = −n (drake_algorithms, top).
 *
 * Tolerances (scale = the sum of the two bounding radii, a length):
 *   GJK stops when the gap between the upper and lower distance bounds, |v| − v·w/|v|, is
 *   <= 1e-10·|v| + 1e-12·scale (relative accuracy of the distance; exact for polytopes, where
 *   the gap reaches 0 in finitely many steps), or after POINT_GJK_MAX_ITER iterations, or on a
 *   stall (a repeated vertex, or a step that fails to shrink |v|: round-off). It reports the
 *   shapes apart only when some support plane proves a gap above 1e-12·scale; otherwise
 *   (touching, overlapping, or a stall near a curved surface with the origin just inside) the
 *   simplex goes to EPA, which then returns a depth near 0 for touching shapes.
 *   EPA stops (converged) when the support value along the nearest face's normal exceeds that
 *   face's distance by <= POINT_EPA_TOL·scale. The answer is then that face (or a coplanar
 *   neighbour at the same distance whose triangle holds the foot point d·n: a flat facet of
 *   A − B is split into several triangles), the witnesses being the barycentric combination of
 *   the support points that spanned it.
 * Caps: POINT_EPA_MAX_VERT vertices, POINT_EPA_MAX_FACE faces, POINT_EPA_MAX_EDGE horizon
 * edges, all fixed-size local arrays (about 12 KB). EPA stops early when a cap is hit or a new
 * face would be degenerate; then, and when no nearest face holds the foot point (a curved
 * surface can make the polytope a hair non-convex), the best direction seen is polished
 * (point_epa_polish: descent on the support function, then up to POINT_EPA_POLISH_ITER GJK
 * runs on the pair pulled apart along it) and the result is an upper bound of the depth with
 * witnesses where the pulled-apart shapes touch. Polytope pairs never need this; curved cores
 * (cylinder, ellipsoid) do in about 1 case in 8 of the random tests, mostly deep ones, and come
 * out within about 1e-6 in depth and 1e-4 rad in normal (tests/test_point_pair.c); converged
 * results are within 1e-11·scale in depth.
 *
 * Flat differences: when the Minkowski difference of the cores is flat (both cores
 * lower-dimensional: two sphere centres, a capsule segment and a sphere centre, a degenerate
 * "hull" of coplanar vertices against a point) no EPA seed tetrahedron exists; if a margin is
 * positive EPA then runs on the full rounded shapes, else the pair reports no contact (only a
 * degenerate hull against a degenerate hull or a point can get there).
 *
 * Determinism: no randomness, fixed iteration order, ties resolved by lowest index; identical
 * inputs give identical bits. */
#ifndef ISO_KERNELS_POINT_GJK_H
#define ISO_KERNELS_POINT_GJK_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "kernels/point/shape.h"

#define POINT_GJK_MAX_ITER 64
#define POINT_EPA_MAX_VERT 64
#define POINT_EPA_MAX_FACE 128
#define POINT_EPA_MAX_EDGE 128
#define POINT_GJK_REL_TOL 1e-10
#define POINT_GJK_ABS_TOL 1e-12
#define POINT_EPA_TOL 1e-11
#define POINT_EPA_DESCENT_ITER 24
#define POINT_EPA_POLISH_ITER 12
#define POINT_EPA_BARY_TOL 1e-9

/* ---- support functions ---------------------------------------------------------------------- */

/* A posed convex shape as GJK sees it. */
typedef struct pointSupport {
  int type;       /* POINT_* of the shape */
  int rounded;    /* sphere/capsule: 1 = support of the full shape, 0 = of the core only */
  real radius;    /* sphere/capsule radius; 0 otherwise */
  vec3 h;         /* box: half sizes; cylinder/capsule: (radius, half length, 0); ellipsoid:
                     semi-axes; sphere: 0 */
  mat3 R;         /* R_WG */
  vec3 p;         /* p_WG */
  const real *vert; /* convex: (nvert, 3) in G */
  int nvert;
} pointSupport;

static inline ISO_HD pointSupport point_support_make(const pointShape *s, xform X_WG, int rounded) {
  pointSupport u;
  u.type = s->type;
  u.rounded = rounded;
  u.radius = (real)0;
  u.h = v3_zero();
  u.R = quat_to_m3(X_WG.q);
  u.p = X_WG.p;
  u.vert = s->vert;
  u.nvert = s->nvert;
  switch (s->type) {
  case POINT_SPHERE:
    u.radius = s->size[0];
    break;
  case POINT_BOX:
    u.h = v3((real)0.5 * s->size[0], (real)0.5 * s->size[1], (real)0.5 * s->size[2]);
    break;
  case POINT_CYLINDER:
    u.h = v3(s->size[0], (real)0.5 * s->size[1], (real)0);
    break;
  case POINT_CAPSULE:
    u.radius = s->size[0];
    u.h = v3(s->size[0], (real)0.5 * s->size[1], (real)0);
    break;
  case POINT_ELLIPSOID:
    u.h = v3(s->size[0], s->size[1], s->size[2]);
    break;
  default:
    break;
  }
  return u;
}

/* The radius GJK leaves out of the support (the core's margin). */
static inline ISO_HD real point_support_margin(const pointSupport *s) {
  return s->rounded ? (real)0 : s->radius;
}

/* A point of the shape maximising d·x, in G. Components of d that are exactly 0 select the
 * middle of the face or edge (a valid support point, and symmetric). */
static inline ISO_HD vec3 point_support_local(const pointSupport *s, vec3 d) {
  vec3 r = v3_zero();
  switch (s->type) {
  case POINT_BOX:
    r.x = d.x > (real)0 ? s->h.x : (d.x < (real)0 ? -s->h.x : (real)0);
    r.y = d.y > (real)0 ? s->h.y : (d.y < (real)0 ? -s->h.y : (real)0);
    r.z = d.z > (real)0 ? s->h.z : (d.z < (real)0 ? -s->h.z : (real)0);
    break;
  case POINT_CYLINDER: {
    real rxy = sqrt(d.x * d.x + d.y * d.y);
    if (rxy > (real)0) {
      r.x = s->h.x * d.x / rxy;
      r.y = s->h.x * d.y / rxy;
    }
    r.z = d.z > (real)0 ? s->h.y : (d.z < (real)0 ? -s->h.y : (real)0);
    break;
  }
  case POINT_CAPSULE:
    r.z = d.z > (real)0 ? s->h.y : (d.z < (real)0 ? -s->h.y : (real)0);
    break;
  case POINT_ELLIPSOID: {
    vec3 e = v3(s->h.x * s->h.x * d.x, s->h.y * s->h.y * d.y, s->h.z * s->h.z * d.z);
    real den = sqrt(e.x * d.x + e.y * d.y + e.z * d.z);
    if (den > (real)0)
      r = v3(e.x / den, e.y / den, e.z / den);
    else
      r = v3(s->h.x, (real)0, (real)0);
    break;
  }
  case POINT_CONVEX: {
    int i, best = 0;
    real bd = -(real)INFINITY;
    for (i = 0; i < s->nvert; ++i) {
      const real *v = s->vert + 3 * i;
      real t = d.x * v[0] + d.y * v[1] + d.z * v[2];
      if (t > bd) {
        bd = t;
        best = i;
      }
    }
    if (s->nvert > 0) r = v3(s->vert[3 * best], s->vert[3 * best + 1], s->vert[3 * best + 2]);
    break;
  }
  default: /* sphere: its centre */
    break;
  }
  if (s->rounded && s->radius > (real)0) {
    real n = v3_norm(d);
    if (n > (real)0) r = v3_axpy(r, s->radius / n, d);
  }
  return r;
}

/* The same for a world direction, returned in the world. */
static inline ISO_HD vec3 point_support_world(const pointSupport *s, vec3 d_W) {
  return v3_add(m3_mulv(s->R, point_support_local(s, m3_tmulv(s->R, d_W))), s->p);
}

/* Support of the Minkowski difference A − B in direction d: w = a − b. */
static inline ISO_HD void point_md_support(const pointSupport *A, const pointSupport *B, vec3 d, vec3 *w,
                                           vec3 *a, vec3 *b) {
  *a = point_support_world(A, d);
  *b = point_support_world(B, v3_neg(d));
  *w = v3_sub(*a, *b);
}

/* ---- GJK ------------------------------------------------------------------------------------ */

typedef struct pointSimplex {
  int n;            /* 1..4 vertices */
  vec3 w[4], a[4], b[4]; /* Minkowski-difference vertices and the support points they came from */
  real lam[4];      /* barycentric weights of the closest point to the origin */
} pointSimplex;

/* Closest point to the origin on segment (w_i, w_j): weights li, lj. */
static inline ISO_HD void point_closest_seg(vec3 wi, vec3 wj, real *li, real *lj) {
  vec3 d = v3_sub(wj, wi);
  real dd = v3_dot(d, d);
  real t;
  *li = (real)1;
  *lj = (real)0;
  if (!(dd > (real)0)) return;
  t = -v3_dot(wi, d) / dd;
  if (t <= (real)0) return;
  if (t >= (real)1) {
    *li = (real)0;
    *lj = (real)1;
    return;
  }
  *li = (real)1 - t;
  *lj = t;
}

/* Closest point to the origin on triangle (a, b, c) by Voronoi regions (Ericson, Real-Time
 * Collision Detection §5.1.5, with p = 0). A degenerate (collinear) triangle falls back to the
 * nearest of its edges. Writes the three weights. */
static inline ISO_HD void point_closest_tri(vec3 a, vec3 b, vec3 c, real *l) {
  vec3 ab = v3_sub(b, a), ac = v3_sub(c, a);
  real d1 = -v3_dot(ab, a), d2 = -v3_dot(ac, a);
  real d3, d4, d5, d6, va, vb, vc, den;
  l[0] = (real)1;
  l[1] = (real)0;
  l[2] = (real)0;
  if (d1 <= (real)0 && d2 <= (real)0) return;
  d3 = -v3_dot(ab, b);
  d4 = -v3_dot(ac, b);
  if (d3 >= (real)0 && d4 <= d3) {
    l[0] = (real)0;
    l[1] = (real)1;
    return;
  }
  vc = d1 * d4 - d3 * d2;
  if (vc <= (real)0 && d1 >= (real)0 && d3 <= (real)0 && d1 - d3 > (real)0) {
    real v = d1 / (d1 - d3);
    l[0] = (real)1 - v;
    l[1] = v;
    return;
  }
  d5 = -v3_dot(ab, c);
  d6 = -v3_dot(ac, c);
  if (d6 >= (real)0 && d5 <= d6) {
    l[0] = (real)0;
    l[2] = (real)1;
    return;
  }
  vb = d5 * d2 - d1 * d6;
  if (vb <= (real)0 && d2 >= (real)0 && d6 <= (real)0 && d2 - d6 > (real)0) {
    real w = d2 / (d2 - d6);
    l[0] = (real)1 - w;
    l[2] = w;
    return;
  }
  va = d3 * d6 - d5 * d4;
  if (va <= (real)0 && (d4 - d3) >= (real)0 && (d5 - d6) >= (real)0 && (d4 - d3) + (d5 - d6) > (real)0) {
    real w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    l[0] = (real)0;
    l[1] = (real)1 - w;
    l[2] = w;
    return;
  }
  den = va + vb + vc;
  if (den > (real)0 && va >= (real)0 && vb >= (real)0 && vc >= (real)0) {
    l[1] = vb / den;
    l[2] = vc / den;
    l[0] = (real)1 - l[1] - l[2];
    return;
  }
  { /* degenerate: best edge */
    real e[3][2];
    real best = (real)INFINITY;
    int k, kb = 0;
    vec3 p;
    point_closest_seg(a, b, &e[0][0], &e[0][1]);
    point_closest_seg(b, c, &e[1][0], &e[1][1]);
    point_closest_seg(c, a, &e[2][0], &e[2][1]);
    for (k = 0; k < 3; ++k) {
      real dd;
      if (k == 0) p = v3_add(v3_scale(a, e[0][0]), v3_scale(b, e[0][1]));
      else if (k == 1) p = v3_add(v3_scale(b, e[1][0]), v3_scale(c, e[1][1]));
      else p = v3_add(v3_scale(c, e[2][0]), v3_scale(a, e[2][1]));
      dd = v3_norm2(p);
      if (dd < best) {
        best = dd;
        kb = k;
      }
    }
    l[0] = l[1] = l[2] = (real)0;
    if (kb == 0) {
      l[0] = e[0][0];
      l[1] = e[0][1];
    } else if (kb == 1) {
      l[1] = e[1][0];
      l[2] = e[1][1];
    } else {
      l[2] = e[2][0];
      l[0] = e[2][1];
    }
  }
}

/* Sets S->lam to the closest point of the simplex to the origin and drops the vertices with
 * zero weight. Returns 1 when the origin is inside a (non-degenerate) tetrahedron, which is then
 * kept whole. */
static inline ISO_HD int point_simplex_solve(pointSimplex *S) {
  int i, k;
  for (i = 0; i < 4; ++i) S->lam[i] = (real)0;
  if (S->n == 1) {
    S->lam[0] = (real)1;
  } else if (S->n == 2) {
    point_closest_seg(S->w[0], S->w[1], &S->lam[0], &S->lam[1]);
  } else if (S->n == 3) {
    point_closest_tri(S->w[0], S->w[1], S->w[2], S->lam);
  } else {
    /* faces (i, j, k) with opposite vertex l */
    int f[4][4];
    vec3 e1 = v3_sub(S->w[1], S->w[0]), e2 = v3_sub(S->w[2], S->w[0]), e3 = v3_sub(S->w[3], S->w[0]);
    real vol = v3_dot(v3_cross(e1, e2), e3);
    real lim = (real)1e-12 * v3_norm(e1) * v3_norm(e2) * v3_norm(e3);
    int degenerate = !(fabs(vol) > lim);
    real best = (real)INFINITY;
    int any = 0;
    f[0][0] = 0; f[0][1] = 1; f[0][2] = 2; f[0][3] = 3;
    f[1][0] = 0; f[1][1] = 3; f[1][2] = 1; f[1][3] = 2;
    f[2][0] = 0; f[2][1] = 2; f[2][2] = 3; f[2][3] = 1;
    f[3][0] = 1; f[3][1] = 3; f[3][2] = 2; f[3][3] = 0;
    for (k = 0; k < 4; ++k) {
      vec3 wi = S->w[f[k][0]], wj = S->w[f[k][1]], wk = S->w[f[k][2]], wl = S->w[f[k][3]];
      vec3 nrm = v3_cross(v3_sub(wj, wi), v3_sub(wk, wi));
      real so = -v3_dot(wi, nrm);
      real sd = v3_dot(v3_sub(wl, wi), nrm);
      if (degenerate || so * sd < (real)0) {
        real l[3];
        real dd;
        point_closest_tri(wi, wj, wk, l);
        dd = v3_norm2(v3_add(v3_add(v3_scale(wi, l[0]), v3_scale(wj, l[1])), v3_scale(wk, l[2])));
        any = 1;
        if (dd < best) {
          best = dd;
          for (i = 0; i < 4; ++i) S->lam[i] = (real)0;
          S->lam[f[k][0]] = l[0];
          S->lam[f[k][1]] = l[1];
          S->lam[f[k][2]] = l[2];
        }
      }
    }
    if (!any) {
      for (i = 0; i < 4; ++i) S->lam[i] = (real)0.25;
      return 1;
    }
  }
  /* compact */
  k = 0;
  for (i = 0; i < S->n; ++i) {
    if (S->lam[i] > (real)0) {
      S->w[k] = S->w[i];
      S->a[k] = S->a[i];
      S->b[k] = S->b[i];
      S->lam[k] = S->lam[i];
      ++k;
    }
  }
  if (k == 0) { /* cannot happen (weights sum to 1); keep the first vertex */
    k = 1;
    S->lam[0] = (real)1;
  }
  S->n = k;
  return 0;
}

static inline ISO_HD vec3 point_simplex_point(const pointSimplex *S, int which) {
  vec3 r = v3_zero();
  int i;
  for (i = 0; i < S->n; ++i)
    r = v3_axpy(r, S->lam[i], which == 0 ? S->w[i] : (which == 1 ? S->a[i] : S->b[i]));
  return r;
}

/* GJK distance between A and B (support functions as given). Returns 1 when they overlap or
 * touch (|v| <= POINT_GJK_ABS_TOL·scale, the origin inside the simplex, or no support plane
 * proving a gap above that tolerance); S then holds the final simplex, EPA's seed. Returns 0
 * when apart; then *pa, *pb are the closest points. */
static inline ISO_HD int point_gjk(const pointSupport *A, const pointSupport *B, real scale, pointSimplex *S,
                                   vec3 *pa, vec3 *pb) {
  real tol_abs = (real)POINT_GJK_ABS_TOL * scale;
  real lower = -(real)INFINITY; /* best certified lower bound of the distance */
  vec3 d0 = v3_sub(B->p, A->p);
  vec3 v;
  int it;
  if (!(v3_norm2(d0) > (real)0)) d0 = v3((real)1, (real)0, (real)0);
  S->n = 1;
  point_md_support(A, B, d0, &S->w[0], &S->a[0], &S->b[0]);
  S->lam[0] = (real)1;
  v = S->w[0];
  for (it = 0; it < POINT_GJK_MAX_ITER; ++it) {
    real vv = v3_norm2(v);
    vec3 w, a, b;
    pointSimplex old;
    int i, dup = 0;
    if (vv <= tol_abs * tol_abs) return 1;
    point_md_support(A, B, v3_neg(v), &w, &a, &b);
    lower = fmax(lower, v3_dot(v, w) / sqrt(vv));
    if (vv - v3_dot(v, w) <= (real)POINT_GJK_REL_TOL * vv + tol_abs * sqrt(vv)) break;
    for (i = 0; i < S->n; ++i)
      if (w.x == S->w[i].x && w.y == S->w[i].y && w.z == S->w[i].z) dup = 1;
    if (dup) break;
    old = *S;
    S->w[S->n] = w;
    S->a[S->n] = a;
    S->b[S->n] = b;
    S->n += 1;
    if (point_simplex_solve(S)) return 1;
    {
      vec3 vn = point_simplex_point(S, 0);
      if (!(v3_norm2(vn) < vv)) { /* no progress: round-off; keep the previous answer */
        *S = old;
        break;
      }
      v = vn;
    }
  }
  /* Apart only when certified: some support plane separates the origin by more than tol_abs.
   * An exit on a stall (repeated vertex, no progress, iteration cap) near a curved surface can
   * leave a small |v| with the origin actually inside; EPA sorts that out. */
  if (!(lower > tol_abs) || v3_norm2(v) <= tol_abs * tol_abs) return 1;
  *pa = point_simplex_point(S, 1);
  *pb = point_simplex_point(S, 2);
  return 0;
}

#endif
