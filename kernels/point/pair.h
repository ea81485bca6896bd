/* Point-contact geometry query for one pair of shapes: Drake's PenetrationAsPointPair
 * (drake_algorithms §4.1; conventions in shape.h).
 *
 * Dispatch (point_pair), in this order:
 *   1. half-space vs half-space: never a contact (Drake filters the pair).
 *   2. sphere vs {sphere, box, cylinder, capsule, half-space}: Drake's closed form. With A the
 *      sphere (centre Ao, radius r) and φ_B, N, ∇φ_B from the point-distance primitive of B at
 *      Ao (distance.h): depth = r − φ_B(Ao), reported when depth >= 0 (touching included);
 *      p_WCb = N, nhat_BA = ∇φ_B, p_WCa = Ao − r·∇φ_B.
 *   3. {box, cylinder, capsule, ellipsoid, convex} vs half-space: the deepest point of the shape
 *      below the plane, FCL's halfspace routines (which Drake's fallback reaches):
 *      - box: depth = ½·Σ|side_i·(n·a_i)| − φ(centre). Witness: if a box axis is within 1e-7
 *        of ±n (FCL's halfspaceIntersectTolerance; axes tried x, y, z) the centre of the face
 *        facing the plane, else the vertex with coordinate −h_i where n·a_i > 0 and +h_i
 *        otherwise (n·a_i = 0 exactly gives +h_i). So a box resting flat gives ONE point, the
 *        centre of its bottom face, as in Drake.
 *      - capsule: if |n·axis| < 1e-7 (lying) the mid-point of its lowest line, depth =
 *        r − φ(centre); else the lower end-cap sphere, depth = r − φ(end centre).
 *      - cylinder: if |n·axis| < 1e-7 (lying) the middle of its lowest line, depth =
 *        r − φ(centre); if |n·axis ∓ 1| < 1e-7 (upright) the centre of the lower cap; else the
 *        lowest rim point. depth = −φ(witness).
 *      - ellipsoid: its support point along −n (closed form); convex: its deepest vertex (the
 *        first one on ties).
 *      Witnesses: p_WCa = the deepest point (on the shape), p_WCb = p_WCa + depth·n (its
 *      projection on the plane), nhat_BA = n (the plane normal) when B is the half-space.
 *   4. capsule vs capsule: the closest points of the two segments, then the sphere–sphere rule
 *      on them. Nearly parallel segments (sin²θ <= 1e-16, where the general formula loses its
 *      digits) take the mid-point of the overlap of their projections on A's segment (or the
 *      nearer end when they do not overlap). When the segments meet (distance <= Drake's
 *      1e-14·max(1, r_B)) the normal is the common perpendicular A×B oriented from B's centre
 *      towards A's (or, for collinear segments, a fixed perpendicular of A), and
 *      depth = rA + rB − distance.
 *   5. box vs box: separating-axis test over the 15 axes (3 + 3 face normals, 9 edge cross
 *      products; pairs of edges within sin θ < 1e-7 of parallel are skipped, their axes being
 *      represented by the face normals). The axis of least overlap is the normal and the
 *      overlap the depth (the exact penetration depth: the SAT axes contain every facet normal
 *      of the Minkowski difference). Face axes win ties, in the order A's x, y, z, B's x, y, z;
 *      an edge axis must beat them by more than 1e-9·(sum of half sizes) (round-off of the
 *      normalised cross product). Witness for a face axis: the incident box's deepest feature
 *      (vertex, edge or face; an axis within cos < 1e-10 of the face plane counts as lying in
 *      it) clipped to the reference face's rectangle, its area centroid (so a box resting on
 *      another gets the centre of the overlap), projected on the reference face. For an edge
 *      axis: the closest points of the two supporting edges. FCL's box–box (ODE's dBoxBox)
 *      picks one of up to four clipped corners instead; the centroid is symmetric and
 *      documented here as the deliberate difference.
 *   6. every other pair (any with an ellipsoid or convex hull, cylinder vs box/cylinder/capsule,
 *      capsule vs box, sphere vs ellipsoid/convex): GJK/EPA (gjk.h).
 * Pairs 3–6 are Drake's FCL fallback, which reports a contact only when depth > ε_machine
 * (2.2e-16: FCL's osculation gives no reliable normal) and places the witnesses at
 * m ∓ ½·depth·nhat_BA around a middle point m (shape.h, point_contact_set_mid). So touching
 * (depth exactly 0) is a contact for the sphere closed forms and not for the others, as in
 * Drake.
 *
 * Pair order: when a closed form needs the shapes the other way round, it runs on (B, A) and
 * the result is swapped back (normal negated, witnesses exchanged; point_contact_swap). */
#ifndef ISO_KERNELS_POINT_PAIR_H
#define ISO_KERNELS_POINT_PAIR_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "kernels/point/distance.h"
#include "kernels/point/epa.h"
#include "kernels/point/shape.h"

/* FCL's halfspaceIntersectTolerance<double>(). */
#define POINT_FCL_HALFSPACE_TOL 1e-7
/* Box–box: edge pairs closer than this to parallel (sin θ) are skipped. */
#define POINT_SAT_PARALLEL 1e-7
/* Box–box: an edge axis must beat the best face axis by this fraction of the summed half sizes. */
#define POINT_SAT_EDGE_BIAS 1e-9
/* Box–box: |cos| below which a box axis lies in the reference face plane (deepest feature). */
#define POINT_SAT_FEATURE_TOL 1e-10

/* The shapes with a point-distance primitive (Drake's closed-form partners of a sphere). */
static inline ISO_HD int point_has_distance(int type) {
  return type == POINT_SPHERE || type == POINT_BOX || type == POINT_CYLINDER || type == POINT_CAPSULE ||
         type == POINT_HALFSPACE;
}

/* ---- 2. sphere vs shape ------------------------------------------------------------------ */

/* Sphere A against B, B having a distance primitive (SphereShapePenetration). */
static inline ISO_HD int point_sphere_shape(const pointShape *A, xform X_WA, const pointShape *B, xform X_WB,
                                            pointContact *out) {
  real r = A->size[0];
  vec3 Ao = X_WA.p;
  pointDistance d;
  vec3 g;
  real depth;
  if (!point_distance_local(B, xf_inv_point(X_WB, Ao), &d)) return 0;
  depth = r - d.phi;
  if (!(depth >= (real)0)) return 0;
  g = xf_vector(X_WB, d.grad_G);
  out->depth = depth;
  out->p_WCb = xf_point(X_WB, d.p_GN);
  out->nhat_BA = g;
  out->p_WCa = v3_axpy(Ao, -r, g);
  return 1;
}

/* ---- 3. convex shape vs half-space -------------------------------------------------------- */

/* Shape A (not a half-space, not a sphere) against half-space B. */
static inline ISO_HD int point_halfspace_pair(const pointShape *A, xform X_WA, xform X_WB, pointContact *out) {
  vec3 n = xf_vector(X_WB, v3((real)0, (real)0, (real)1));
  vec3 o = X_WB.p;
  vec3 T = X_WA.p;
  mat3 R = quat_to_m3(X_WA.q);
  vec3 p = T; /* deepest point of A */
  real depth = -(real)INFINITY;
  real tol = (real)POINT_FCL_HALFSPACE_TOL;
  switch (A->type) {
  case POINT_BOX: {
    vec3 Q = m3_tmulv(R, n);
    real Av[3];
    int i, face = -1;
    Av[0] = Q.x * A->size[0];
    Av[1] = Q.y * A->size[1];
    Av[2] = Q.z * A->size[2];
    depth = (real)0.5 * (fabs(Av[0]) + fabs(Av[1]) + fabs(Av[2])) - v3_dot(n, v3_sub(T, o));
    for (i = 0; i < 3 && face < 0; ++i) {
      real qi = v3_get(Q, i);
      if (fabs(qi - (real)1) < tol || fabs(qi + (real)1) < tol) face = i;
    }
    for (i = 0; i < 3; ++i) {
      real sgn = Av[i] > (real)0 ? (real)-1 : (real)1;
      if (face >= 0 && i != face) continue;
      p = v3_axpy(p, (real)0.5 * A->size[i] * sgn, m3_col(R, i));
    }
    break;
  }
  case POINT_CAPSULE: {
    vec3 z = m3_col(R, 2);
    real cosa = v3_dot(z, n), r = A->size[0];
    if (fabs(cosa) < tol) {
      depth = r - v3_dot(n, v3_sub(T, o));
      p = v3_axpy(T, -r, n);
    } else {
      vec3 c = v3_axpy(T, (real)0.5 * A->size[1] * (cosa > (real)0 ? (real)-1 : (real)1), z);
      depth = r - v3_dot(n, v3_sub(c, o));
      p = v3_axpy(c, -r, n);
    }
    break;
  }
  case POINT_CYLINDER: {
    vec3 z = m3_col(R, 2);
    real cosa = v3_dot(z, n), r = A->size[0];
    if (fabs(cosa) < tol) {
      depth = r - v3_dot(n, v3_sub(T, o));
      p = v3_axpy(T, -r, n);
    } else {
      vec3 C = v3_sub(v3_scale(z, cosa), n);
      if (fabs(cosa + (real)1) < tol || fabs(cosa - (real)1) < tol)
        C = v3_zero();
      else
        C = v3_scale(C, r / v3_norm(C));
      p = v3_add(v3_axpy(T, (real)0.5 * A->size[1] * (cosa > (real)0 ? (real)-1 : (real)1), z), C);
      depth = -v3_dot(n, v3_sub(p, o));
    }
    break;
  }
  case POINT_ELLIPSOID: {
    vec3 q = m3_tmulv(R, n);
    vec3 e = v3(A->size[0] * A->size[0] * q.x, A->size[1] * A->size[1] * q.y, A->size[2] * A->size[2] * q.z);
    real den = sqrt(e.x * q.x + e.y * q.y + e.z * q.z);
    p = v3_sub(T, m3_mulv(R, v3(e.x / den, e.y / den, e.z / den)));
    depth = -v3_dot(n, v3_sub(p, o));
    break;
  }
  case POINT_CONVEX: {
    int i;
    for (i = 0; i < A->nvert; ++i) {
      const real *v = A->vert + 3 * i;
      vec3 x = v3_add(m3_mulv(R, v3(v[0], v[1], v[2])), T);
      real di = -v3_dot(n, v3_sub(x, o));
      if (di > depth) {
        depth = di;
        p = x;
      }
    }
    break;
  }
  default:
    return 0;
  }
  if (!(depth > (real)ISO_REAL_EPS)) return 0;
  point_contact_set_mid(out, depth, n, v3_axpy(p, (real)0.5 * depth, n));
  return 1;
}

/* ---- 4. capsule vs capsule ---------------------------------------------------------------- */

static inline ISO_HD real point_clamp01(real x) {
  return x < (real)0 ? (real)0 : (x > (real)1 ? (real)1 : x);
}

/* Closest points of segments p1 + s·d1 and p2 + t·d2, s, t in [0, 1] (Ericson, Real-Time
 * Collision Detection §5.1.9), with the overlap mid-point for (nearly) parallel segments. */
static inline ISO_HD void point_segment_segment(vec3 p1, vec3 d1, vec3 p2, vec3 d2, vec3 *c1, vec3 *c2) {
  vec3 r = v3_sub(p1, p2);
  real a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
  real s = (real)0, t = (real)0;
  if (!(a > (real)0) && !(e > (real)0)) {
    s = t = (real)0;
  } else if (!(a > (real)0)) {
    t = point_clamp01(f / e);
  } else {
    real c = v3_dot(d1, r);
    if (!(e > (real)0)) {
      s = point_clamp01(-c / a);
    } else {
      real b = v3_dot(d1, d2);
      real den = a * e - b * b;
      if (den > (real)1e-16 * a * e) {
        s = point_clamp01((b * f - c * e) / den);
        t = (b * s + f) / e;
        if (t < (real)0) {
          t = (real)0;
          s = point_clamp01(-c / a);
        } else if (t > (real)1) {
          t = (real)1;
          s = point_clamp01((b - c) / a);
        }
      } else {
        /* parallel: B's end points projected on A's segment parameter */
        real s0 = -c / a, s1 = (b - c) / a;
        real lo = fmax((real)0, fmin(s0, s1)), hi = fmin((real)1, fmax(s0, s1));
        if (lo <= hi)
          s = (real)0.5 * (lo + hi);
        else
          s = fmax(s0, s1) < (real)0 ? (real)0 : (real)1;
        t = point_clamp01(v3_dot(v3_sub(v3_axpy(p1, s, d1), p2), d2) / e);
      }
    }
  }
  *c1 = v3_axpy(p1, s, d1);
  *c2 = v3_axpy(p2, t, d2);
}

/* A fixed unit vector perpendicular to the unit vector u (u × the least-aligned axis). */
static inline ISO_HD vec3 point_perpendicular(vec3 u) {
  vec3 e;
  if (fabs(u.x) <= fabs(u.y) && fabs(u.x) <= fabs(u.z)) e = v3((real)1, (real)0, (real)0);
  else if (fabs(u.y) <= fabs(u.z)) e = v3((real)0, (real)1, (real)0);
  else e = v3((real)0, (real)0, (real)1);
  return v3_normalize(v3_cross(u, e));
}

static inline ISO_HD int point_capsule_capsule(const pointShape *A, xform X_WA, const pointShape *B, xform X_WB,
                                               pointContact *out) {
  real rA = A->size[0], rB = B->size[0];
  vec3 uA = xf_vector(X_WA, v3((real)0, (real)0, (real)1));
  vec3 uB = xf_vector(X_WB, v3((real)0, (real)0, (real)1));
  vec3 dA = v3_scale(uA, A->size[1]), dB = v3_scale(uB, B->size[1]);
  vec3 pA = v3_axpy(X_WA.p, (real)-0.5 * A->size[1], uA);
  vec3 pB = v3_axpy(X_WB.p, (real)-0.5 * B->size[1], uB);
  vec3 ca, cb, v, n;
  real dist, depth;
  point_segment_segment(pA, dA, pB, dB, &ca, &cb);
  v = v3_sub(ca, cb);
  dist = v3_norm(v);
  if (dist > point_distance_tolerance(rB)) {
    n = v3_scale(v, (real)1 / dist);
  } else {
    vec3 c = v3_cross(uA, uB);
    if (v3_norm(c) > (real)POINT_SAT_PARALLEL)
      n = v3_normalize(c);
    else
      n = point_perpendicular(uA);
    if (v3_dot(n, v3_sub(X_WA.p, X_WB.p)) < (real)0) n = v3_neg(n);
  }
  depth = rA + rB - dist;
  if (!(depth > (real)ISO_REAL_EPS)) return 0;
  point_contact_set_mid(out, depth, n,
                        v3_scale(v3_add(v3_axpy(ca, -rA, n), v3_axpy(cb, rB, n)), (real)0.5));
  return 1;
}

/* ---- 5. box vs box ------------------------------------------------------------------------ */

/* Clips the convex polygon (or segment, or point) in[0..n) to the half-space u·x <= off. */
static inline ISO_HD int point_clip(const vec3 *in, int n, vec3 u, real off, vec3 *out) {
  int i, m = 0;
  if (n == 1) {
    if (v3_dot(u, in[0]) - off <= (real)0) out[m++] = in[0];
    return m;
  }
  if (n == 2) {
    real d0 = v3_dot(u, in[0]) - off, d1 = v3_dot(u, in[1]) - off;
    if (d0 > (real)0 && d1 > (real)0) return 0;
    out[0] = in[0];
    out[1] = in[1];
    if (d0 > (real)0) out[0] = v3_add(in[0], v3_scale(v3_sub(in[1], in[0]), d0 / (d0 - d1)));
    if (d1 > (real)0) out[1] = v3_add(in[1], v3_scale(v3_sub(in[0], in[1]), d1 / (d1 - d0)));
    return 2;
  }
  for (i = 0; i < n; ++i) {
    vec3 p = in[i], q = in[(i + 1) % n];
    real dp = v3_dot(u, p) - off, dq = v3_dot(u, q) - off;
    if (dp <= (real)0) out[m++] = p;
    if ((dp < (real)0 && dq > (real)0) || (dp > (real)0 && dq < (real)0))
      out[m++] = v3_add(p, v3_scale(v3_sub(q, p), dp / (dp - dq)));
  }
  return m;
}

/* Area centroid of a planar convex polygon (vertex mean for a point, segment or zero area). */
static inline ISO_HD vec3 point_poly_centroid(const vec3 *p, int n) {
  vec3 m = v3_zero(), c = v3_zero();
  real area = (real)0;
  int i;
  for (i = 0; i < n; ++i) m = v3_add(m, p[i]);
  m = v3_scale(m, (real)1 / (real)n);
  if (n < 3) return m;
  for (i = 0; i < n; ++i) {
    vec3 a = p[i], b = p[(i + 1) % n];
    real ar = v3_norm(v3_cross(v3_sub(a, m), v3_sub(b, m)));
    area += ar;
    c = v3_add(c, v3_scale(v3_add(v3_add(m, a), b), ar / (real)3));
  }
  if (!(area > (real)0)) return m;
  return v3_scale(c, (real)1 / area);
}

static inline ISO_HD int point_box_box(const pointShape *A, xform X_WA, const pointShape *B, xform X_WB,
                                       pointContact *out) {
  mat3 RA = quat_to_m3(X_WA.q), RB = quat_to_m3(X_WB.q);
  vec3 ax[3], bx[3];
  real ha[3], hb[3];
  vec3 t = v3_sub(X_WA.p, X_WB.p);
  vec3 n = v3((real)0, (real)0, (real)1);
  real best = (real)INFINITY, bias;
  int k, i, j, bestk = -1;
  for (k = 0; k < 3; ++k) {
    ax[k] = m3_col(RA, k);
    bx[k] = m3_col(RB, k);
    ha[k] = (real)0.5 * A->size[k];
    hb[k] = (real)0.5 * B->size[k];
  }
  bias = (real)POINT_SAT_EDGE_BIAS * (ha[0] + ha[1] + ha[2] + hb[0] + hb[1] + hb[2]);
  for (k = 0; k < 15; ++k) {
    vec3 L;
    real s, ov;
    if (k < 3) {
      L = ax[k];
    } else if (k < 6) {
      L = bx[k - 3];
    } else {
      vec3 c = v3_cross(ax[(k - 6) / 3], bx[(k - 6) % 3]);
      real lc = v3_norm(c);
      if (!(lc > (real)POINT_SAT_PARALLEL)) continue;
      L = v3_scale(c, (real)1 / lc);
    }
    s = v3_dot(t, L);
    ov = -fabs(s);
    for (i = 0; i < 3; ++i) ov += ha[i] * fabs(v3_dot(ax[i], L)) + hb[i] * fabs(v3_dot(bx[i], L));
    if (ov < (real)0) return 0; /* separating axis */
    if (k < 6 ? ov < best : ov < best - bias) {
      best = ov;
      bestk = k;
      n = s < (real)0 ? v3_neg(L) : L;
    }
  }
  if (!(best > (real)ISO_REAL_EPS)) return 0;
  if (bestk < 6) {
    /* reference face: box R's face with outward normal nref towards the other (incident) box */
    int refA = bestk < 3, kr = bestk % 3;
    vec3 nref = refA ? v3_neg(n) : n;
    vec3 cR = refA ? X_WA.p : X_WB.p, cI = refA ? X_WB.p : X_WA.p;
    const vec3 *rx = refA ? ax : bx, *ix = refA ? bx : ax;
    const real *rh = refA ? ha : hb, *ih = refA ? hb : ha;
    vec3 poly[9], tmp[9], base = cI, xI, xR;
    int fr[2], nfree = 0, np, c;
    for (i = 0; i < 3; ++i) {
      real cc = v3_dot(nref, ix[i]);
      if (fabs(cc) < (real)POINT_SAT_FEATURE_TOL) {
        if (nfree < 2) fr[nfree++] = i;
      } else {
        base = v3_axpy(base, cc > (real)0 ? -ih[i] : ih[i], ix[i]);
      }
    }
    if (nfree == 0) {
      poly[0] = base;
      np = 1;
    } else if (nfree == 1) {
      poly[0] = v3_axpy(base, -ih[fr[0]], ix[fr[0]]);
      poly[1] = v3_axpy(base, ih[fr[0]], ix[fr[0]]);
      np = 2;
    } else {
      vec3 u = v3_scale(ix[fr[0]], ih[fr[0]]), w = v3_scale(ix[fr[1]], ih[fr[1]]);
      poly[0] = v3_sub(v3_sub(base, u), w);
      poly[1] = v3_sub(v3_add(base, u), w);
      poly[2] = v3_add(v3_add(base, u), w);
      poly[3] = v3_add(v3_sub(base, u), w);
      np = 4;
    }
    xI = point_poly_centroid(poly, np);
    for (c = 0; c < 4 && np > 0; ++c) {
      int ax_i = (kr + 1 + c / 2) % 3;
      vec3 u = c % 2 ? v3_neg(rx[ax_i]) : rx[ax_i];
      int m = point_clip(poly, np, u, v3_dot(u, cR) + rh[ax_i], tmp);
      for (i = 0; i < m; ++i) poly[i] = tmp[i];
      np = m;
    }
    if (np > 0) xI = point_poly_centroid(poly, np);
    xR = v3_axpy(xI, rh[kr] - v3_dot(nref, v3_sub(xI, cR)), nref);
    point_contact_set_mid(out, best, n, v3_scale(v3_add(xI, xR), (real)0.5));
  } else {
    /* edge–edge: the supporting edges along ax[i] (of A, deepest towards B) and bx[j] */
    vec3 pa = X_WA.p, pb = X_WB.p, ca, cb;
    i = (bestk - 6) / 3;
    j = (bestk - 6) % 3;
    for (k = 0; k < 3; ++k) {
      if (k != i) pa = v3_axpy(pa, v3_dot(n, ax[k]) > (real)0 ? -ha[k] : ha[k], ax[k]);
      if (k != j) pb = v3_axpy(pb, v3_dot(n, bx[k]) > (real)0 ? hb[k] : -hb[k], bx[k]);
    }
    point_segment_segment(v3_axpy(pa, -ha[i], ax[i]), v3_scale(ax[i], (real)2 * ha[i]),
                          v3_axpy(pb, -hb[j], bx[j]), v3_scale(bx[j], (real)2 * hb[j]), &ca, &cb);
    point_contact_set_mid(out, best, n, v3_scale(v3_add(ca, cb), (real)0.5));
  }
  return 1;
}

/* ---- the dispatcher ------------------------------------------------------------------------ */

static inline ISO_HD int point_shape_valid(const pointShape *s) {
  switch (s->type) {
  case POINT_SPHERE:
  case POINT_BOX:
  case POINT_CYLINDER:
  case POINT_CAPSULE:
  case POINT_ELLIPSOID:
  case POINT_HALFSPACE:
    return 1;
  case POINT_CONVEX:
    return s->vert != (const real *)0 && s->nvert > 0;
  default:
    return 0;
  }
}

/* 1 when A and B overlap, filling *out (see the top of this file for which pairs count
 * touching); 0 otherwise (then *out is unspecified). Unknown types and half-space pairs give 0. */
static inline ISO_HD int point_pair(const pointShape *A, xform X_WA, const pointShape *B, xform X_WB,
                                    pointContact *out) {
  int ta = A->type, tb = B->type, r;
  if (!point_shape_valid(A) || !point_shape_valid(B)) return 0;
  if (ta == POINT_HALFSPACE && tb == POINT_HALFSPACE) return 0;
  if (ta != POINT_HALFSPACE && tb != POINT_HALFSPACE && ta != POINT_CONVEX && tb != POINT_CONVEX) {
    /* bounding balls apart: no penetration, and no iterative query (a pair of links that only
     * sometimes come close costs this test, not GJK, the rest of the time) */
    const real reach = point_shape_bound_radius(A) + point_shape_bound_radius(B);
    if (v3_norm2(v3_sub(X_WA.p, X_WB.p)) > reach * reach * (real)(1 + 1e-9)) return 0;
  }
  if (ta == POINT_SPHERE && point_has_distance(tb)) return point_sphere_shape(A, X_WA, B, X_WB, out);
  if (tb == POINT_SPHERE && point_has_distance(ta)) {
    r = point_sphere_shape(B, X_WB, A, X_WA, out);
    if (r) point_contact_swap(out);
    return r;
  }
  if (tb == POINT_HALFSPACE) return point_halfspace_pair(A, X_WA, X_WB, out);
  if (ta == POINT_HALFSPACE) {
    r = point_halfspace_pair(B, X_WB, X_WA, out);
    if (r) point_contact_swap(out);
    return r;
  }
  if (ta == POINT_CAPSULE && tb == POINT_CAPSULE) return point_capsule_capsule(A, X_WA, B, X_WB, out);
  if (ta == POINT_BOX && tb == POINT_BOX) return point_box_box(A, X_WA, B, X_WB, out);
  return point_convex_pair(A, X_WA, B, X_WB, 1, out);
}

#endif
