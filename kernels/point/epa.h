/* EPA and the generic convex pair: the second half of the point-contact fallback, after the
 * support functions and GJK of kernels/point/gjk.h (whose top comment explains the algorithm,
 * tolerances, caps and determinism of both). */
#ifndef ISO_KERNELS_POINT_EPA_H
#define ISO_KERNELS_POINT_EPA_H

#include "kernels/point/gjk.h"

/* ---- EPA ------------------------------------------------------------------------------------ */

typedef struct pointEpa {
  int nv, nf;
  vec3 w[POINT_EPA_MAX_VERT], a[POINT_EPA_MAX_VERT], b[POINT_EPA_MAX_VERT];
  int fv[POINT_EPA_MAX_FACE][3];
  vec3 fn[POINT_EPA_MAX_FACE];
  real fd[POINT_EPA_MAX_FACE];
  int vis[POINT_EPA_MAX_FACE];
  int edge[POINT_EPA_MAX_EDGE][2];
} pointEpa;

/* Normal and plane distance of the face (i, j, k); 0 when its area is below the limit. */
static inline ISO_HD int point_epa_face(const pointEpa *E, int i, int j, int k, real min_cross, vec3 *n, real *d) {
  vec3 c = v3_cross(v3_sub(E->w[j], E->w[i]), v3_sub(E->w[k], E->w[i]));
  real l = v3_norm(c);
  if (!(l > min_cross)) return 0;
  *n = v3_scale(c, (real)1 / l);
  *d = v3_dot(*n, E->w[i]);
  return 1;
}

static inline ISO_HD void point_epa_add_vertex(pointEpa *E, vec3 w, vec3 a, vec3 b) {
  E->w[E->nv] = w;
  E->a[E->nv] = a;
  E->b[E->nv] = b;
  E->nv += 1;
}

/* Grows the GJK simplex into a tetrahedron (the vertices E->w[0..3]) by support points in
 * fixed directions. Returns 0 when the Minkowski difference is flat. */
static inline ISO_HD int point_epa_seed(const pointSupport *A, const pointSupport *B, real scale,
                                        const pointSimplex *S, pointEpa *E) {
  real tol_len = (real)1e-10 * scale;
  int i, guard;
  E->nv = 0;
  for (i = 0; i < S->n; ++i) point_epa_add_vertex(E, S->w[i], S->a[i], S->b[i]);
  for (guard = 0; guard < 8 && E->nv < 5; ++guard) {
    vec3 w, a, b;
    if (E->nv == 4) {
      vec3 e1 = v3_sub(E->w[1], E->w[0]), e2 = v3_sub(E->w[2], E->w[0]), e3 = v3_sub(E->w[3], E->w[0]);
      vec3 nrm = v3_cross(e1, e2);
      real ln = v3_norm(nrm);
      if (ln > (real)0 && fabs(v3_dot(nrm, e3)) / ln > tol_len) return 1;
      E->nv = 3; /* flat: replace the fourth vertex */
    } else if (E->nv == 3) {
      vec3 nrm = v3_cross(v3_sub(E->w[1], E->w[0]), v3_sub(E->w[2], E->w[0]));
      real ln = v3_norm(nrm);
      int s;
      if (!(ln > tol_len * v3_norm(v3_sub(E->w[1], E->w[0])))) {
        E->nv = 2; /* collinear */
        continue;
      }
      for (s = 0; s < 2; ++s) {
        vec3 dir = s == 0 ? nrm : v3_neg(nrm);
        point_md_support(A, B, dir, &w, &a, &b);
        if (fabs(v3_dot(nrm, v3_sub(w, E->w[0]))) / ln > tol_len) break;
      }
      if (s == 2) return 0;
      point_epa_add_vertex(E, w, a, b);
    } else if (E->nv == 2) {
      vec3 d = v3_sub(E->w[1], E->w[0]);
      real ld = v3_norm(d);
      vec3 e, v1, v2;
      int k;
      if (!(ld > tol_len)) {
        E->nv = 1;
        continue;
      }
      d = v3_scale(d, (real)1 / ld);
      if (fabs(d.x) <= fabs(d.y) && fabs(d.x) <= fabs(d.z)) e = v3((real)1, (real)0, (real)0);
      else if (fabs(d.y) <= fabs(d.z)) e = v3((real)0, (real)1, (real)0);
      else e = v3((real)0, (real)0, (real)1);
      v1 = v3_normalize(v3_cross(d, e));
      v2 = v3_cross(d, v1);
      for (k = 0; k < 6; ++k) {
        real ang = (real)k * (real)1.0471975511965976; /* k·60° */
        vec3 dir = v3_add(v3_scale(v1, cos(ang)), v3_scale(v2, sin(ang)));
        point_md_support(A, B, dir, &w, &a, &b);
        if (v3_norm(v3_cross(v3_sub(w, E->w[0]), d)) > tol_len) break;
      }
      if (k == 6) return 0;
      point_epa_add_vertex(E, w, a, b);
    } else {
      int k;
      if (E->nv == 0) return 0;
      for (k = 0; k < 6; ++k) {
        vec3 dir = v3_zero();
        dir = v3_set(dir, k / 2, (k % 2) ? (real)-1 : (real)1);
        point_md_support(A, B, dir, &w, &a, &b);
        if (v3_norm(v3_sub(w, E->w[0])) > tol_len) break;
      }
      if (k == 6) return 0;
      point_epa_add_vertex(E, w, a, b);
    }
  }
  return 0;
}

/* Polishes a direction u (outward unit normal of A − B) when EPA could not answer from a face:
 * it stopped at a cap, or, on a curved surface, no nearest face held the foot point. The depth
 * is the minimum over unit u of the support function h(u) = u·s(u) of A − B; h(u) itself is
 * the exact translation along u that separates the shapes, an upper bound of the depth.
 *  1. Descent on h (at most POINT_EPA_DESCENT_ITER support calls): the gradient of h on the
 *     sphere is the tangential part t = s − h·u of the support point, zero at the optimum;
 *     steps u ← normalize(u − α·t) with Barzilai–Borwein lengths (exact in one step on a
 *     spherical difference), a step kept only when h decreases, else α halves. Fast on smooth
 *     shapes; it stalls at kinks of h (flat facets: box or polytope against a curved shape).
 *  2. Touching points (at most POINT_EPA_POLISH_ITER GJK runs): move A by −s·u with
 *     s = h(u) + 1e-3·scale, so the shapes are apart; GJK distance gives the closest points
 *     a', b', q' = a' − b', and d = (a − b)·u with a = a' + s·u, b = b' bounds the depth from
 *     above. The outward normal of A − B nearest the pulled-out origin, −q'/|q'|, is the next
 *     u: a facet normal in one step, a contraction on curved parts, sped up by a secant step on
 *     the residual (its factor clamped to [1, 50]). Stops when u moves by <= 1e-12.
 * Writes the direction with the least d, that d, and its touching points a, b moved to their
 * mid-point so that a − b = d·u; they move by half the tangential part of q', which vanishes
 * as u converges. */
static inline ISO_HD void point_epa_polish(const pointSupport *A, const pointSupport *B, real scale, vec3 u0,
                                           real *depth, vec3 *n, vec3 *pa, vec3 *pb) {
  vec3 u = u0, w, a, b, t, m, un, n0;
  real h, alpha = (real)1 / scale, tmin = (real)1e-13 * scale, d;
  int it;
  point_md_support(A, B, u, &w, &a, &b);
  h = v3_dot(u, w);
  t = v3_axpy(w, -h, u);
  for (it = 0; it < POINT_EPA_DESCENT_ITER && v3_norm(t) > tmin; ++it) {
    vec3 wn, an, bn, tn;
    real hn;
    un = v3_normalize(v3_axpy(u, -alpha, t));
    point_md_support(A, B, un, &wn, &an, &bn);
    hn = v3_dot(un, wn);
    tn = v3_axpy(wn, -hn, un);
    if (hn < h) {
      vec3 du = v3_sub(un, u), dt = v3_sub(tn, t);
      real den = v3_dot(du, dt);
      alpha = den > (real)0 ? v3_dot(du, du) / den : (real)2 * alpha;
      u = un;
      h = hn;
      t = tn;
      a = an;
      b = bn;
    } else {
      alpha *= (real)0.5;
    }
  }
  /* the support points along u: the answer if GJK cannot run (never expected) */
  d = h;
  n0 = u;
  {
    vec3 uprev = u, rprev = v3_zero();
    for (it = 0; it < POINT_EPA_POLISH_ITER; ++it) {
      pointSupport As = *A;
      pointSimplex S;
      vec3 ap, bp, q, r;
      real sft, lq, dk, beta = (real)1;
      point_md_support(A, B, u, &w, &ap, &bp);
      h = v3_dot(u, w);
      sft = h + (real)1e-3 * scale;
      As.p = v3_axpy(A->p, -sft, u);
      if (point_gjk(&As, B, scale, &S, &ap, &bp)) break;
      q = v3_sub(ap, bp);
      lq = v3_norm(q);
      if (!(lq > (real)0)) break;
      dk = sft + v3_dot(q, u);
      if (it == 0 || dk < d) { /* every dk bounds the depth from above: keep the least */
        d = dk;
        a = v3_axpy(ap, sft, u);
        b = bp;
        n0 = u;
      }
      r = v3_sub(v3_scale(q, (real)-1 / lq), u); /* the step to −q'/|q'| */
      if (v3_norm(r) <= (real)1e-12) break;
      if (it > 0) { /* secant on the residual: the map contracts slowly on weakly curved parts */
        vec3 du = v3_sub(u, uprev), dr = v3_sub(r, rprev);
        real den = v3_dot(du, dr);
        if (den < (real)0) beta = fmin(fmax(-v3_dot(du, du) / den, (real)1), (real)50);
      }
      uprev = u;
      rprev = r;
      u = v3_normalize(v3_axpy(u, beta, r));
    }
  }
  u = n0;
  m = v3_scale(v3_add(a, b), (real)0.5);
  *depth = d;
  *n = u;
  *pa = v3_axpy(m, (real)0.5 * d, u);
  *pb = v3_axpy(m, (real)-0.5 * d, u);
}

/* Barycentric weights in face g of the foot point p = d·n of the origin on its plane, clamped
 * at 0 (round-off). Returns 0 when p is outside the face by more than POINT_EPA_BARY_TOL or
 * the face is degenerate. */
static inline ISO_HD int point_epa_weights(const pointEpa *E, int g, real *l) {
  int i0 = E->fv[g][0], i1 = E->fv[g][1], i2 = E->fv[g][2];
  vec3 nrm = E->fn[g];
  vec3 p = v3_scale(nrm, E->fd[g]);
  vec3 e0 = v3_sub(E->w[i1], E->w[i0]), e1 = v3_sub(E->w[i2], E->w[i0]), e2 = v3_sub(p, E->w[i0]);
  /* signed areas against the face normal: the triangle's own conditioning, not its square (as
   * the normal equations would give), which matters for the slivers EPA makes on curved
   * surfaces */
  real den = v3_dot(nrm, v3_cross(e0, e1));
  if (!(den > (real)0)) return 0;
  l[1] = v3_dot(nrm, v3_cross(e2, e1)) / den;
  l[2] = v3_dot(nrm, v3_cross(e0, e2)) / den;
  l[0] = (real)1 - l[1] - l[2];
  if (l[0] < (real)-POINT_EPA_BARY_TOL || l[1] < (real)-POINT_EPA_BARY_TOL || l[2] < (real)-POINT_EPA_BARY_TOL)
    return 0;
  l[0] = fmax(l[0], (real)0);
  l[1] = fmax(l[1], (real)0);
  l[2] = fmax(l[2], (real)0);
  return 1;
}

/* EPA from the GJK simplex S (origin inside or within tolerance of it). On 1 writes the depth
 * of the origin in A − B (>= about −tol when merely touching), the outward unit normal n of
 * A − B there and the witnesses a ∈ A, b ∈ B with a − b = depth·n. Returns 0 when the
 * difference is flat (no seed tetrahedron). */
/* Out of line on the GPU: point_convex_pair calls it twice (the core pass and the rounded-shape
 * retry), and inlined twice its 11.8 KB polytope took 25 KB of stack per thread, which the
 * driver reserves for every resident thread (about 6 GiB on an H100) at the first launch. */
static inline ISO_HD ISO_NOINLINE int point_epa(const pointSupport *A, const pointSupport *B, real scale, const pointSimplex *S,
                                   real *depth, vec3 *n, vec3 *pa, vec3 *pb) {
  pointEpa E;
  int converged = 0;
  real bestU = (real)INFINITY;
  vec3 bestu = v3_zero();
  real tol = (real)POINT_EPA_TOL * scale;
  real min_cross = (real)1e-14 * scale * scale;
  int k, f = 0;
  if (!point_epa_seed(A, B, scale, S, &E)) return 0;
  /* the four faces of the seed, oriented away from the opposite vertex */
  {
    int t[4][4];
    t[0][0] = 0; t[0][1] = 1; t[0][2] = 2; t[0][3] = 3;
    t[1][0] = 0; t[1][1] = 3; t[1][2] = 1; t[1][3] = 2;
    t[2][0] = 0; t[2][1] = 2; t[2][2] = 3; t[2][3] = 1;
    t[3][0] = 1; t[3][1] = 3; t[3][2] = 2; t[3][3] = 0;
    E.nf = 0;
    for (k = 0; k < 4; ++k) {
      int i = t[k][0], j = t[k][1], l = t[k][2];
      vec3 c = v3_cross(v3_sub(E.w[j], E.w[i]), v3_sub(E.w[l], E.w[i]));
      if (v3_dot(c, v3_sub(E.w[t[k][3]], E.w[i])) > (real)0) {
        int s = j;
        j = l;
        l = s;
      }
      E.fv[k][0] = i;
      E.fv[k][1] = j;
      E.fv[k][2] = l;
      if (!point_epa_face(&E, i, j, l, (real)0, &E.fn[k], &E.fd[k])) return 0;
      E.vis[k] = 0;
      E.nf += 1;
    }
  }
  for (;;) {
    vec3 w, a, b, nf;
    real dw;
    int g, ne = 0, nvis = 0, ok = 1;
    f = 0;
    for (g = 1; g < E.nf; ++g)
      if (E.fd[g] < E.fd[f]) f = g;
    nf = E.fn[f];
    point_md_support(A, B, nf, &w, &a, &b);
    dw = v3_dot(nf, w);
    if (dw < bestU) {
      bestU = dw;
      bestu = nf;
    }
    if (dw - E.fd[f] <= tol) {
      converged = 1;
      break;
    }
    if (E.nv >= POINT_EPA_MAX_VERT) break; /* cap: polish the best direction below */
    /* faces seen from w, and the horizon: their edges not shared by two of them */
    for (g = 0; g < E.nf; ++g) {
      E.vis[g] = v3_dot(E.fn[g], v3_sub(w, E.w[E.fv[g][0]])) > (real)0.01 * tol;
      nvis += E.vis[g];
    }
    E.vis[f] = 1; /* it is seen (dw − fd > tol); guard against round-off */
    for (g = 0; g < E.nf && ok; ++g) {
      int s;
      if (!E.vis[g]) continue;
      for (s = 0; s < 3 && ok; ++s) {
        int i = E.fv[g][s], j = E.fv[g][(s + 1) % 3], e, found = -1;
        for (e = 0; e < ne; ++e)
          if (E.edge[e][0] == j && E.edge[e][1] == i) {
            found = e;
            break;
          }
        if (found >= 0) {
          E.edge[found][0] = E.edge[ne - 1][0];
          E.edge[found][1] = E.edge[ne - 1][1];
          --ne;
        } else if (ne < POINT_EPA_MAX_EDGE) {
          E.edge[ne][0] = i;
          E.edge[ne][1] = j;
          ++ne;
        } else {
          ok = 0; /* cap */
        }
      }
    }
    nvis = 0;
    for (g = 0; g < E.nf; ++g) nvis += E.vis[g];
    if (!ok || ne < 3 || E.nf - nvis + ne > POINT_EPA_MAX_FACE) break; /* cap */
    /* the new faces must be proper triangles */
    for (g = 0; g < ne && ok; ++g) {
      vec3 c = v3_cross(v3_sub(E.w[E.edge[g][1]], E.w[E.edge[g][0]]), v3_sub(w, E.w[E.edge[g][0]]));
      if (!(v3_norm(c) > min_cross)) ok = 0;
    }
    if (!ok) break; /* degenerate growth: as a cap */
    point_epa_add_vertex(&E, w, a, b);
    {
      int m = 0;
      for (g = 0; g < E.nf; ++g) {
        if (E.vis[g]) continue;
        E.fv[m][0] = E.fv[g][0];
        E.fv[m][1] = E.fv[g][1];
        E.fv[m][2] = E.fv[g][2];
        E.fn[m] = E.fn[g];
        E.fd[m] = E.fd[g];
        E.vis[m] = 0;
        ++m;
      }
      for (g = 0; g < ne; ++g) {
        E.fv[m][0] = E.edge[g][0];
        E.fv[m][1] = E.edge[g][1];
        E.fv[m][2] = E.nv - 1;
        point_epa_face(&E, E.edge[g][0], E.edge[g][1], E.nv - 1, (real)0, &E.fn[m], &E.fd[m]);
        E.vis[m] = 0;
        ++m;
      }
      E.nf = m;
    }
  }
  /* The result: face f, or, since a flat facet of A − B is split into coplanar triangles at
   * the same distance, the first face within tol of f's distance and direction whose triangle
   * holds the foot point p = d·n (weights >= −POINT_EPA_BARY_TOL). If none holds it (a curved
   * surface makes the polytope a hair non-convex) or EPA stopped at a cap, polish the direction
   * with the support function instead. */
  if (converged) {
    int g;
    for (g = 0; g < E.nf; ++g) {
      real l[3];
      if (g != f && (E.fd[g] > E.fd[f] + tol || v3_dot(E.fn[g], E.fn[f]) < (real)1 - (real)1e-9)) continue;
      if (point_epa_weights(&E, g, l)) {
        real s = (real)1 / (l[0] + l[1] + l[2]);
        int i0 = E.fv[g][0], i1 = E.fv[g][1], i2 = E.fv[g][2];
        vec3 a = v3_scale(v3_add(v3_add(v3_scale(E.a[i0], l[0]), v3_scale(E.a[i1], l[1])), v3_scale(E.a[i2], l[2])), s);
        vec3 b = v3_scale(v3_add(v3_add(v3_scale(E.b[i0], l[0]), v3_scale(E.b[i1], l[1])), v3_scale(E.b[i2], l[2])), s);
        /* a − b = d·n up to the weights' round-off (1e-11 on slivers): make it exact about the
         * mid-point */
        vec3 m = v3_scale(v3_add(a, b), (real)0.5);
        *depth = E.fd[g];
        *n = E.fn[g];
        *pa = v3_axpy(m, (real)0.5 * E.fd[g], E.fn[g]);
        *pb = v3_axpy(m, (real)-0.5 * E.fd[g], E.fn[g]);
        return 1;
      }
    }
  }
  point_epa_polish(A, B, scale, converged ? E.fn[f] : bestu, depth, n, pa, pb);
  return 1;
}

/* ---- the pair ------------------------------------------------------------------------------- */

/* Contact between two bounded convex shapes (any of sphere, box, cylinder, capsule, ellipsoid,
 * convex) by GJK/EPA, cores = 1 as described at the top (what pair.h uses), cores = 0 for EPA
 * on the full rounded shapes. Reports a contact, as Drake's FCL fallback does, only when
 * depth > ε_machine. Returns 1 and fills *out, else 0. */
static inline ISO_HD int point_convex_pair(const pointShape *sA, xform X_WA, const pointShape *sB, xform X_WB,
                                           int cores, pointContact *out) {
  pointSupport A = point_support_make(sA, X_WA, !cores);
  pointSupport B = point_support_make(sB, X_WB, !cores);
  real rA = point_support_margin(&A), rB = point_support_margin(&B);
  real scale = point_shape_bound_radius(sA) + point_shape_bound_radius(sB);
  pointSimplex S;
  vec3 a, b;
  if (!(scale > (real)0)) scale = (real)1;
  if (!point_gjk(&A, &B, scale, &S, &a, &b)) {
    vec3 v = v3_sub(a, b);
    real dist = v3_norm(v);
    real depth = rA + rB - dist;
    vec3 nh;
    if (!(depth > (real)ISO_REAL_EPS) || !(dist > (real)0)) return 0;
    nh = v3_scale(v, (real)1 / dist);
    out->depth = depth;
    out->nhat_BA = nh;
    out->p_WCa = v3_axpy(a, -rA, nh);
    out->p_WCb = v3_axpy(b, rB, nh);
    return 1;
  } else {
    real d;
    vec3 n, nh;
    if (!point_epa(&A, &B, scale, &S, &d, &n, &a, &b)) {
      /* flat core difference (two points, a point and a segment, ...): EPA on the full
       * rounded shapes, which are solid whenever a margin is positive */
      if (!(rA + rB > (real)0)) return 0;
      A.rounded = B.rounded = 1;
      rA = rB = (real)0;
      if (point_gjk(&A, &B, scale, &S, &a, &b) == 0) return 0;
      if (!point_epa(&A, &B, scale, &S, &d, &n, &a, &b)) return 0;
    }
    d += rA + rB;
    if (!(d > (real)ISO_REAL_EPS)) return 0;
    nh = v3_neg(n);
    out->depth = d;
    out->nhat_BA = nh;
    out->p_WCa = v3_axpy(a, -rA, nh);
    out->p_WCb = v3_axpy(b, rB, nh);
    return 1;
  }
}

#endif
