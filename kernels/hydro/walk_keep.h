/* The CPU's mid phase over steps: a pair's walk kept for the steps after it.
 *
 * Bodies at rest, or moving slowly, show their meshes to each other at nearly the same pose step
 * after step, and the walk (kernels/collide/bvh.h), a fifth of a resting five-box stack's step,
 * finds nearly the same candidates each time. So the CPU's per-world mid phase walks a pair
 * with every box test loosened by a motion μ and keeps the element pairs that pass, a superset.
 * At later steps, while N has moved in M by less than μ (hs_keep_motion, a bound over every box
 * of both trees), the candidates are the superset's element pairs that pass the exact test, in
 * its order (bvh_pairs_filter). They are the walk's candidates exactly, the same pairs in the
 * same order, and so every face and every result keeps its bits:
 *  - an element pair that passes at the new pose passed the loosened test at the kept pose,
 *    which the motion bound and the rounding allowance make certain, so it is in the superset;
 *  - the walk keeps every element pair that passes (its node tests allow rounding), and both
 *    orders are the same depth-first order, which depends on the trees alone;
 *  - the broad-phase test of the root boxes is made at the new pose as the walk makes it.
 * A half-space pair (a compliant mesh on a rigid floor, rigid triangles on a compliant one) is
 * kept the same way: its tree's walk against the plane (bvh_plane_walk_sup) lists the elements
 * whose boxes pass within μ, and while the plane, seen from the tree, has moved by less than μ
 * (hs_keep_plane_motion) the candidates are those that pass the exact test (bvh_plane_filter).
 * A body spinning or sliding on a floor keeps the floor where it was in its own frame.
 * μ follows the pair: sized at each walk to last HS_KEEP_STEPS steps at the motion per step
 * seen since the last one, within [HS_KEEP_MU_MIN, HS_KEEP_MU_MAX]·(reach of M + reach of N).
 *
 * Storage: the third part of each world's candidate array (max_cand ints), where the GPU keeps
 * its per-candidate record counts and the CPU's narrow phase keeps nothing, so keeping costs no
 * memory: one hsKeep per pair (HS_KEEP_INTS ints), then the supersets in pair order, packed
 * (pair p's starts at the sum of the counts before it), one int per element pair
 * (bvh_pos_pack) or, for a half-space pair, per element (its leaf-order position). A pair
 * walked again writes its new superset into the gap left by moving the later pairs' supersets
 * to the end; one that does not fit keeps none and is walked the next
 * step, as is a pair with a mesh of more than BVH_POS_MAX elements. A world whose pairs' table
 * would take more than half the part walks every step, as does the GPU (one thread per world
 * and pair holds nothing across steps). The part starts zeroed (nothing kept), and a change of
 * capacity zeroes it again; a reset leaves it, as what is kept depends on the meshes and the
 * poses alone. */
#ifndef ISO_KERNELS_HYDRO_WALK_KEEP_H
#define ISO_KERNELS_HYDRO_WALK_KEEP_H

#include <string.h>

#include "kernels/hydro/surface_mid.h"

#define HS_KEEP_STEPS 16 /* steps a superset is sized to last at the motion seen */
#define HS_KEEP_MU_MIN ((real)1e-4) /* μ's range, times the two trees' reach (bvh_tree_reach) */
#define HS_KEEP_MU_MAX ((real)5e-3)

/* A pair's kept walk; all zero (mu = 0): none. */
typedef struct hsKeep {
  union {
    xform X; /* a tree pair: N's pose in M at the walk */
    struct {
      vec3 n; /* a half-space pair: the plane in its tree's frame at the walk (hs_pair_plane) */
      real d;
    } plane;
  } at;
  real mu;   /* the motion the superset covers, m; 0: nothing kept */
  int count; /* its element pairs */
  int age;   /* steps it has served since the walk */
} hsKeep;
#define HS_KEEP_INTS ((int)(sizeof(hsKeep) / sizeof(int)))

/* Pair p's entry of a world's table, by copy: the table sits in an int array, at no alignment a
 * real can count on. */
static inline ISO_HD hsKeep hs_keep_get(const int *table, int p) {
  hsKeep k;
  memcpy(&k, table + (long)HS_KEEP_INTS * p, sizeof k);
  return k;
}
static inline ISO_HD void hs_keep_put(int *table, int p, const hsKeep *k) {
  memcpy(table + (long)HS_KEEP_INTS * p, k, sizeof *k);
}

/* A bound on how far any box of N moved against any box of M along the walk's test axes from
 * the kept pose k->at.X to rel: for a box of M (centre c_a, half-widths e_a) and one of N (c_b,
 * e_b), the change of a face-axis gap is at most |Δp| + δR·(‖c_b‖₁ + ‖e_b‖₁) on M's axes and
 * |Δp| + δR·(2√3‖c_b‖₁ + ‖p‖₁ + ‖c_a‖₁ + ‖e_a‖₁) on N's (δR the largest change of an entry of
 * R_MN, |R|'s columns unit), with the norms bounded by the reaches. */
static inline ISO_HD real hs_keep_motion(const hsKeep *k, const boxRel *rel, real reach_m, real reach_n) {
  const mat3 R0 = quat_to_m3(k->at.X.q);
  real dR = (real)0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) dR = fmax(dR, fabs(rel->R.m[i][j] - R0.m[i][j]));
  const vec3 dp = v3_sub(rel->p, k->at.X.p);
  const real p1 = fmax(fabs(rel->p.x) + fabs(rel->p.y) + fabs(rel->p.z),
                       fabs(k->at.X.p.x) + fabs(k->at.X.p.y) + fabs(k->at.X.p.z));
  return v3_norm(dp) + dR * ((real)3.5 * reach_n + reach_m + p1);
}

/* The same bound for a half-space pair, whose walk tests each box's centre height over the plane
 * (n·c − d) against its radius on n (Σ|n_i|·e_i): from the kept plane to (n, d) these change by
 * at most ‖Δn‖_∞·(‖c‖₁ + ‖e‖₁) + |Δd|, and the norms are bounded by the tree's reach. */
static inline ISO_HD real hs_keep_plane_motion(const hsKeep *k, vec3 n, real d, real reach) {
  const vec3 n0 = k->at.plane.n;
  const real dn = fmax(fabs(n.x - n0.x), fmax(fabs(n.y - n0.y), fabs(n.z - n0.z)));
  return dn * reach + fabs(d - k->at.plane.d);
}

/* The motion a new superset is walked for: HS_KEEP_STEPS steps at the rate the last one saw
 * (moved over its age + 1 steps), the range's floor for a pair with none, and for a motion that
 * is not a number (a pose that was NaN): the slack must be finite, or the loosened tests would
 * pass nothing. */
static inline ISO_HD real hs_keep_mu(const hsKeep *k, real moved, real reach) {
  const real lo = HS_KEEP_MU_MIN * reach, hi = HS_KEEP_MU_MAX * reach;
  if (!(k->mu > 0)) return lo;
  const real mu = (real)HS_KEEP_STEPS * moved / (real)(k->age + 1);
  return mu >= lo ? (mu <= hi ? mu : hi) : lo;
}

/* Whether a pair's superset, still within its motion (moved <= μ), is walked again anyway: once it
 * has served HS_KEEP_STEPS steps and the motion it saw would size a new one at under a quarter
 * of its μ. A body that bounced and came to rest keeps the μ of its bouncing (the sphere on the
 * box: 1.1 mm, a superset 1.6 times its candidates, filtered every step while it lies still);
 * walked again, the superset shrinks to what the resting motion needs. */
static inline ISO_HD int hs_keep_stale(const hsKeep *k, real moved, real reach) {
  return k->age >= HS_KEEP_STEPS && hs_keep_mu(k, moved, reach) < (real)0.25 * k->mu;
}

/* hs_mid_world with kept walks (W->keep): the same pair counts, offsets, candidates, totals and
 * status. */
static inline ISO_HD void hs_mid_world_kept(const hydroDev *H, const hydroWork *W, int world, uint32_t *status) {
  const long table_ints = (long)HS_KEEP_INTS * H->npair;
  if (!W->keep || 2 * table_ints > W->max_cand) {
    hs_mid_world(H, W, world, status);
    return;
  }
  long base = (long)world * H->npair;
  if (status[world] & ISO_WORLD_FROZEN) {
    for (int p = 0; p < H->npair; ++p) W->pair_count[base + p] = 0;
    W->cand_total[world] = 0;
    return;
  }
  int *table = hs_cand(W, world, 2), *pos = table + table_ints;
  const int room = W->max_cand - (int)table_ints;
  int *ca = hs_cand(W, world, 0), *cb = hs_cand(W, world, 1);
  int used = 0;
  for (int p = 0; p < H->npair; ++p) used += hs_keep_get(table, p).count;
  /* the supersets: pair p's old one at old + shift, its new one written at w (w <= old + shift) */
  int w = 0, old = 0, shift = 0, moved_tail = 0;
  long total = 0;
  for (int p = 0; p < H->npair; ++p) {
    const int at = (int)(total < W->max_cand ? total : W->max_cand);
    const int tree = hs_pair_is_trees(H, p);
    hsKeep kp = hs_keep_get(table, p), *k = &kp;
    const int had = k->count, src = old + shift;
    int c = 0, walk = 0, filter = 0, mode = 0;
    bvhTree A, B;
    xform X_MN;
    boxRel rel;
    vec3 nA = v3_zero();
    real dA = 0, reach_m = 0, reach_n = 0, moved = 0;
    /* a half-space pair's candidates: its tree's elements into out, -1 into the other side */
    int *out = H->pair_kind[p] == HS_PAIR_RS ? cb + at : ca + at;
    int *none = H->pair_kind[p] == HS_PAIR_RS ? ca + at : cb + at;
    if (!tree) {
      mode = hs_pair_plane(H, W, world, p, &A, &nA, &dA);
      reach_m = bvh_tree_reach(A);
      if (k->mu > 0) moved = hs_keep_plane_motion(k, nA, dA, reach_m);
      filter = k->mu > 0 && moved <= k->mu && !hs_keep_stale(k, moved, reach_m);
      walk = !filter;
    } else if (hs_pair_trees(H, W, world, p, &A, &B, &X_MN)) { /* else apart: no candidates */
      if (bvh_tree_elems(A) > BVH_POS_MAX || bvh_tree_elems(B) > BVH_POS_MAX) {
        c = bvh_pairs_walk(A, B, X_MN, ca + at, cb + at, W->max_cand - at); /* not packable: nothing kept */
      } else {
        rel = box_rel_make(X_MN);
        reach_m = bvh_tree_reach(A), reach_n = bvh_tree_reach(B);
        if (k->mu > 0) moved = hs_keep_motion(k, &rel, reach_m, reach_n);
        filter = k->mu > 0 && moved <= k->mu && !hs_keep_stale(k, moved, reach_m + reach_n);
        walk = !filter;
      }
    }
    if (!walk) { /* the old superset stays, moved down to w */
      if (src != w)
        for (int i = 0; i < had; ++i) pos[w + i] = pos[src + i];
      if (filter) {
        c = tree ? bvh_pairs_filter(A, B, &rel, pos + w, had, ca + at, cb + at, W->max_cand - at)
                 : bvh_plane_filter(A, nA, dA, mode, pos + w, had, out, W->max_cand - at);
        if (k->age < (1 << 30)) ++k->age;
      }
      w += had;
    } else {
      if (!moved_tail) { /* the later pairs' supersets to the end of the array: a gap from w */
        const int from = old + had, n = used - from, to = room - n;
        for (int i = n - 1; i >= 0; --i) pos[to + i] = pos[from + i];
        shift = to - from;
        moved_tail = 1;
      }
      bvhSuper S;
      S.pos = pos + w;
      S.cap = old + had + shift - w; /* up to the next pair's old superset */
      S.n = 0;
      S.motion = hs_keep_mu(k, moved, reach_m + reach_n);
      c = tree ? bvh_pairs_walk_sup(A, B, X_MN, &S, ca + at, cb + at, W->max_cand - at)
               : bvh_plane_walk_sup(A, nA, dA, mode, &S, out, W->max_cand - at);
      if (c >= 0 && S.n <= S.cap) {
        if (tree) k->at.X = X_MN;
        else k->at.plane.n = nA, k->at.plane.d = dA;
        k->mu = S.motion, k->count = S.n, k->age = 0;
        w += S.n;
      } else {
        k->mu = 0, k->count = 0, k->age = 0;
      }
    }
    if (!tree)
      for (int i = 0; i < c && i < W->max_cand - at; ++i) none[i] = -1;
    hs_keep_put(table, p, k);
    old += had;
    if (c < 0) c = W->max_cand + 1; /* as hs_count_item: reported as an overflow */
    W->pair_off[base + p] = at;
    W->pair_count[base + p] = c;
    total += c;
  }
  hs_cand_close(W, world, total, status);
}

#endif
