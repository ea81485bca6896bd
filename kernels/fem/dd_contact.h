/* Contact between two deformable bodies: detection (reference §6.4 "Deformable–deformable",
 * §2.1; seed 001's blocks touching blocks).
 *
 * Each body's mesh carries Drake's approximate signed-distance field, built once at compile
 * (mesh_sdf, the model's def_sdf): 0 at surface vertices, −(distance to the surface at rest) at
 * the others, linear in each tet. The values stay with the vertices as the body deforms, so a
 * tet's field, f(x) = g·x + c, follows from its CURRENT vertex positions and its gradient turns
 * and stretches with it. The contact surface of bodies A and B is where f_A = f_B inside both:
 * per pair of tets one convex polygon, found by hydro_tet_tet (kernels/hydro/narrow.h) with
 * the pressures p = −f (so "pressure" grows inward, as that routine expects). Per polygon:
 *   normal   n̂ = out of B into A (hydro_tet_tet's out of N into M with M = A, N = B; the same
 *            as femContact's n̂_BA and the rigid hydroelastic faces' (A, B) = (M, N));
 *   φ0       f_A at the area centroid (= f_B there), negative in penetration;
 *   k        = area·C with Drake's C = 1e8 Pa/m for a deformable surface, so fn0 = −k·φ0;
 *   bary_a/b the centroid's barycentric coordinates in each tet, for the Jacobian
 *            v_B(c) − v_A(c) with each side interpolated over its tet's four vertices.
 *
 * Which tet pairs can make a polygon. Inside a mesh f <= 0 everywhere (a convex combination of
 * values <= 0). A tet whose four values are all 0 (every vertex on the surface) has f ≡ 0: its
 * polygons would have φ0 = 0 (no force) and a normal from the other side's gradient alone, so
 * it is skipped (Drake would keep them; they carry no penetration). Inside tet a, f_A lies in
 * [min, max] of its four values, likewise for tet b; where the two intervals do not meet, f_A ≠
 * f_B throughout a ∩ b and the pair is skipped before any clipping. Degenerate or inverted tets
 * (6V <= 0 at the current positions) make no contact, as Drake skips inverted deformable tets.
 * Polygons with area <= 1e-14 m² or φ0 >= 0 are dropped (as the half-space contacts do).
 *
 * The search, one world per item, its bodies' pairs (A < B) in index order:
 *  1. broad phase: each body's box over its current vertices; a pair whose boxes are apart is
 *     skipped;
 *  2. candidates: the tets of A whose box meets B's box (and not all-zero), likewise for B;
 *     each list sorted by its boxes' low x (a merge sort keyed by (low x, tet), a total order);
 *  3. sweep and prune along x over the two sorted lists, each x-overlapping pair found once
 *     (by whichever tet starts first), then y, z and the value intervals tested; the surviving
 *     pairs' keys (tet_a·ntet_b + tet_b) are sorted, so the narrow phase runs, and the records
 *     come out, in (A, B, tet_a, tet_b) order whatever the positions' ties: stable keys, one
 *     writer, bitwise the same on any backend and thread count.
 * Cost per body pair: O(nA + nB) for boxes and candidates, O(m log m) for the sorts (m
 * candidates), O(m + P_x) for the sweep (P_x pairs overlapping along x; for two bodies pressed
 * face to face this grows like m·(tets per x-slab of one tet's width)), O(P log P) for the pair
 * sort and one hydro_tet_tet per surviving pair P. Measured (bench/bench_fem_dd_contact.c, one
 * AMD EPYC core, RelWithDebInfo -O2): two 1050-tet blocks (5×5×7 cells), B pressed a third of a
 * cell into A's top: 2276 candidate pairs, 282 contacts, 0.43 ms per world; B also tilted 0.2
 * rad: 3284 pairs, 0.59 ms; pressed two cells deep: 11046 pairs, 1.8 ms. The plain loop over
 * all 1050² tet pairs takes 72–106 ms.
 *
 * Scratch (no allocation in a step): per world a box array, a candidate array and a pair array
 * sized by fem_dd_box_stride, fem_dd_cand_stride and fem_dd_pair_stride. A full record list or a
 * full pair list sets ISO_WORLD_OVERFLOW; need[w] says how many records were found (all of them,
 * when only the record list was short) and pair_need[w] the most candidate pairs a body pair
 * needed, so a caller can size both. */
#ifndef ISO_KERNELS_FEM_DD_CONTACT_H
#define ISO_KERNELS_FEM_DD_CONTACT_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/core.h"
#include "kernels/hydro/face.h"
#include "kernels/hydro/narrow.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"

/* Drake's pressure gradient of a deformable body's surface, Pa/m (reference §6.4). */
#define FEM_DD_GRADIENT 1e8
/* Faces with area <= this are skipped by the discrete approximation, m² (§3, §8). */
#define FEM_DD_MIN_AREA 1e-14
/* Reals per tet box in the scratch: low x, y, z, high x, y, z, least and greatest field value. */
#define FEM_DD_BOX 8

/* One contact polygon between deformable bodies A and B (body_a < body_b), world frame, at the
 * positions the detection saw. */
typedef struct femDDContact {
  vec3 point;      /* the polygon's area centroid */
  vec3 normal;     /* unit, out of B into A */
  real area;       /* m² */
  real phi0;       /* the signed distance at the centroid, m (< 0: penetration) */
  real k;          /* area·FEM_DD_GRADIENT, N/m; fn0 = −k·φ0 */
  real bary_a[4];  /* the centroid's barycentric coordinates in tet_a (sum 1) */
  real bary_b[4];  /* ... in tet_b */
  int body_a, body_b;
  int tet_a, tet_b; /* tets within their bodies */
} femDDContact;

/* A tet at its current positions with its field. */
typedef struct femDDTet {
  vec3 x[4];
  mat3 Dinv; /* inverse of the edge matrix [x1 − x0, x2 − x0, x3 − x0] (columns) */
  vec3 g;    /* the field's gradient */
  real c;    /* the field's value at the world origin */
} femDDTet;

/* Tet t (body-local vertex indices t[4]) of a body whose positions are x (nvert, 3) and
 * vertex field values s (nvert). Returns 0 when the tet is inverted or degenerate (6V <= 0
 * or not invertible), else 1. The field interpolates the four values: g = Dinvᵀ·(s_k − s_0),
 * c = s_0 − g·x_0. */
static inline ISO_HD int fem_dd_tet_load(const real *x, const real *s, const int *t, femDDTet *o) {
  for (int k = 0; k < 4; ++k) o->x[k] = v3(x[3 * t[k]], x[3 * t[k] + 1], x[3 * t[k] + 2]);
  const mat3 D = m3_from_cols(v3_sub(o->x[1], o->x[0]), v3_sub(o->x[2], o->x[0]), v3_sub(o->x[3], o->x[0]));
  if (!(m3_det(D) > (real)0) || !m3_inverse(D, &o->Dinv)) return 0;
  const real s0 = s[t[0]];
  o->g = m3_tmulv(o->Dinv, v3(s[t[1]] - s0, s[t[2]] - s0, s[t[3]] - s0));
  o->c = s0 - v3_dot(o->g, o->x[0]);
  return 1;
}

/* Barycentric coordinates of p in tet T: (1 − Σ, Dinv·(p − x0)). */
static inline ISO_HD void fem_dd_bary(const femDDTet *T, vec3 p, real b[4]) {
  const vec3 l = m3_mulv(T->Dinv, v3_sub(p, T->x[0]));
  b[1] = l.x, b[2] = l.y, b[3] = l.z;
  b[0] = (real)1 - l.x - l.y - l.z;
}

/* The equal-field polygon of tet A and tet B (both loaded), as a record without its body and
 * tet indices. Returns 1 when it is a contact (area > FEM_DD_MIN_AREA, φ0 < 0), else 0. */
static inline ISO_HD int fem_dd_tet_pair(const femDDTet *A, const femDDTet *B, femDDContact *out) {
  hydroFace f;
  if (!hydro_tet_tet(A->x, v3_neg(A->g), -A->c, B->x, v3_neg(B->g), -B->c, &f)) return 0;
  const real phi0 = v3_dot(A->g, f.centroid) + A->c;
  if (!(f.area > (real)FEM_DD_MIN_AREA) || !(phi0 < (real)0)) return 0;
  out->point = f.centroid;
  out->normal = f.normal;
  out->area = f.area;
  out->phi0 = phi0;
  out->k = f.area * (real)FEM_DD_GRADIENT;
  fem_dd_bary(A, f.centroid, out->bary_a);
  fem_dd_bary(B, f.centroid, out->bary_b);
  return 1;
}

/* What the detection reads and writes. Model arrays are the compiled model's def_*
 * (host/model/model_flat.h); per-world arrays are strided as stated. */
typedef struct femDDArgs {
  int ndef;
  const int *vert0, *tet0;   /* (ndef + 1) */
  const int *tet;            /* (ndtet, 4) body-local vertices */
  const real *sdf;           /* (ndvert) signed distance at rest per vertex, m */
  long ndv3;
  const real *xd;            /* (nworld, ndv3) current vertex positions */
  int max_con;
  femDDContact *con;         /* (nworld, max_con) */
  int *ncon;                 /* (nworld) records written, <= max_con */
  int *need;                 /* (nworld) records found (> max_con on overflow) */
  int *pair_need;            /* (nworld) the most candidate pairs one body pair had */
  int tet_cap;               /* >= the tets of every body */
  int max_pair;              /* candidate tet pairs per body pair */
  real *box;                 /* (nworld, fem_dd_box_stride) scratch */
  int *cand;                 /* (nworld, fem_dd_cand_stride) scratch */
  long *pair;                /* (nworld, fem_dd_pair_stride) scratch */
} femDDArgs;

/* Per-world scratch sizes: body boxes then two bodies' tet boxes; two candidate lists and
 * their sort buffer; the pair keys and their sort buffer. */
static inline ISO_HD long fem_dd_box_stride(int ndef, int tet_cap) {
  return 6L * ndef + 2L * FEM_DD_BOX * tet_cap;
}
static inline ISO_HD long fem_dd_cand_stride(int tet_cap) { return 3L * tet_cap; }
static inline ISO_HD long fem_dd_pair_stride(int max_pair) { return 2L * max_pair; }

/* 1 when boxes a and b (low x, y, z, high x, y, z) meet (touching counts). */
static inline ISO_HD int fem_dd_box_meet(const real *a, const real *b) {
  return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

/* Order of candidates i, j by their boxes' low x, then tet index. */
static inline ISO_HD int fem_dd_cand_before(const real *box, int i, int j) {
  const real a = box[FEM_DD_BOX * i], b = box[FEM_DD_BOX * j];
  return a < b || (a == b && i < j);
}

/* Bottom-up merge sort of tet indices v[0..n) by fem_dd_cand_before (tmp holds n). */
static inline ISO_HD void fem_dd_sort_cand(int *v, int *tmp, int n, const real *box) {
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      const int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = fem_dd_cand_before(box, v[j], v[i]) ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    for (int k = 0; k < n; ++k) v[k] = tmp[k];
  }
}

/* Bottom-up merge sort of keys v[0..n) ascending (tmp holds n). */
static inline ISO_HD void fem_dd_sort_keys(long *v, long *tmp, int n) {
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      const int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = v[j] < v[i] ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    for (int k = 0; k < n; ++k) v[k] = tmp[k];
  }
}

/* Box and field range of body d's tet t (body-local) at positions x, into b[FEM_DD_BOX]. */
static inline ISO_HD void fem_dd_tet_box(const femDDArgs *a, const real *x, const real *s, int d, int t, real *b) {
  const int *tv = a->tet + 4L * (a->tet0[d] + t);
  for (int c = 0; c < 3; ++c) b[c] = b[3 + c] = x[3 * tv[0] + c];
  b[6] = b[7] = s[tv[0]];
  for (int k = 1; k < 4; ++k) {
    for (int c = 0; c < 3; ++c) {
      const real q = x[3 * tv[k] + c];
      b[c] = q < b[c] ? q : b[c];
      b[3 + c] = q > b[3 + c] ? q : b[3 + c];
    }
    b[6] = s[tv[k]] < b[6] ? s[tv[k]] : b[6];
    b[7] = s[tv[k]] > b[7] ? s[tv[k]] : b[7];
  }
}

/* Body d's tets that may touch the box `other` into list (body-local, ascending); their boxes
 * into box (indexed by tet). Returns the count. */
static inline ISO_HD int fem_dd_candidates(const femDDArgs *a, int w, int d, const real *other, real *box,
                                           int *list) {
  const real *x = a->xd + (long)w * a->ndv3 + 3L * a->vert0[d];
  const real *s = a->sdf + a->vert0[d];
  int n = 0;
  for (int t = 0; t < a->tet0[d + 1] - a->tet0[d]; ++t) {
    real *b = box + FEM_DD_BOX * t;
    fem_dd_tet_box(a, x, s, d, t, b);
    if (b[6] < (real)0 && fem_dd_box_meet(b, other)) list[n++] = t;
  }
  return n;
}

/* The candidate tet pairs of bodies (dA, dB): sweep and prune along x over the two lists, each
 * sorted by low x; keys tet_a·ntet_b + tet_b into keys (at most max). Returns the number of
 * pairs found, which exceeds max when keys overflowed. */
static inline ISO_HD int fem_dd_sweep(const real *boxA, const int *LA, int nA, const real *boxB, const int *LB,
                                      int nB, long ntetB, long *keys, int max) {
  int i = 0, j = 0, n = 0;
  while (i < nA && j < nB) {
    const real *a0 = boxA + FEM_DD_BOX * LA[i], *b0 = boxB + FEM_DD_BOX * LB[j];
    const int a_first = a0[0] <= b0[0];
    const real *p = a_first ? a0 : b0; /* the box that starts first, against the other list */
    const real *obox = a_first ? boxB : boxA;
    const int *L = a_first ? LB : LA;
    const int m = a_first ? nB : nA;
    for (int k = a_first ? j : i; k < m; ++k) {
      const real *q = obox + FEM_DD_BOX * L[k];
      if (q[0] > p[3]) break; /* sorted by low x: the rest start after p ends */
      if (!fem_dd_box_meet(p, q) || p[6] > q[7] || q[6] > p[7]) continue; /* value ranges apart */
      if (n < max) keys[n] = a_first ? (long)LA[i] * ntetB + LB[k] : (long)LA[k] * ntetB + LB[j];
      ++n;
    }
    if (a_first) ++i;
    else ++j;
  }
  return n;
}

/* Bodies dA < dB of world w: their contacts appended to list at *n (the count may pass max
 * when the list is full: only the first max are written). Returns fault bits. */
static inline ISO_HD uint32_t fem_dd_body_pair(const femDDArgs *a, int w, int dA, int dB, femDDContact *list,
                                               int *n) {
  real *bbox = a->box + (long)w * fem_dd_box_stride(a->ndef, a->tet_cap);
  real *boxA = bbox + 6L * a->ndef, *boxB = boxA + (long)FEM_DD_BOX * a->tet_cap;
  int *LA = a->cand + (long)w * fem_dd_cand_stride(a->tet_cap), *LB = LA + a->tet_cap, *tmp = LB + a->tet_cap;
  long *keys = a->pair + (long)w * fem_dd_pair_stride(a->max_pair);
  const real *xA = a->xd + (long)w * a->ndv3 + 3L * a->vert0[dA], *xB = a->xd + (long)w * a->ndv3 + 3L * a->vert0[dB];
  const real *sA = a->sdf + a->vert0[dA], *sB = a->sdf + a->vert0[dB];
  const long ntetB = a->tet0[dB + 1] - a->tet0[dB];
  uint32_t bits = 0;
  if (!fem_dd_box_meet(bbox + 6L * dA, bbox + 6L * dB)) return 0;
  const int nA = fem_dd_candidates(a, w, dA, bbox + 6L * dB, boxA, LA);
  const int nB = fem_dd_candidates(a, w, dB, bbox + 6L * dA, boxB, LB);
  if (nA == 0 || nB == 0) return 0;
  fem_dd_sort_cand(LA, tmp, nA, boxA);
  fem_dd_sort_cand(LB, tmp, nB, boxB);
  int np = fem_dd_sweep(boxA, LA, nA, boxB, LB, nB, ntetB, keys, a->max_pair);
  if (np > a->pair_need[w]) a->pair_need[w] = np;
  if (np > a->max_pair) {
    bits |= ISO_WORLD_OVERFLOW;
    np = a->max_pair;
  }
  fem_dd_sort_keys(keys, keys + a->max_pair, np);
  for (int p = 0; p < np; ++p) {
    const int ta = (int)(keys[p] / ntetB), tb = (int)(keys[p] % ntetB);
    femDDTet TA, TB;
    femDDContact r;
    if (!fem_dd_tet_load(xA, sA, a->tet + 4L * (a->tet0[dA] + ta), &TA)) continue;
    if (!fem_dd_tet_load(xB, sB, a->tet + 4L * (a->tet0[dB] + tb), &TB)) continue;
    if (!fem_dd_tet_pair(&TA, &TB, &r)) continue;
    r.body_a = dA, r.body_b = dB, r.tet_a = ta, r.tet_b = tb;
    if (*n < a->max_con) list[*n] = r;
    else bits |= ISO_WORLD_OVERFLOW;
    ++*n;
  }
  return bits;
}

/* World w: every deformable–deformable contact, in (body_a, body_b, tet_a, tet_b) order, into
 * con; ncon[w], need[w] and pair_need[w] as documented on femDDArgs. Returns fault bits
 * (ISO_WORLD_OVERFLOW when a list was short). */
static inline ISO_HD uint32_t fem_dd_detect_world(const femDDArgs *a, int w) {
  real *bbox = a->box + (long)w * fem_dd_box_stride(a->ndef, a->tet_cap);
  femDDContact *list = a->con + (long)w * a->max_con;
  uint32_t bits = 0;
  int n = 0;
  a->pair_need[w] = 0;
  for (int d = 0; d < a->ndef; ++d) { /* 1: the bodies' boxes */
    const real *x = a->xd + (long)w * a->ndv3 + 3L * a->vert0[d];
    real *b = bbox + 6L * d;
    for (int c = 0; c < 3; ++c) b[c] = b[3 + c] = x[c];
    for (int v = 1; v < a->vert0[d + 1] - a->vert0[d]; ++v)
      for (int c = 0; c < 3; ++c) {
        const real q = x[3 * v + c];
        b[c] = q < b[c] ? q : b[c];
        b[3 + c] = q > b[3 + c] ? q : b[3 + c];
      }
  }
  for (int dA = 0; dA < a->ndef; ++dA)
    for (int dB = dA + 1; dB < a->ndef; ++dB) bits |= fem_dd_body_pair(a, w, dA, dB, list, &n);
  a->ncon[w] = n < a->max_con ? n : a->max_con;
  a->need[w] = n;
  return bits;
}

#endif
