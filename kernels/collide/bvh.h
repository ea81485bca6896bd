/* Mid phase (stage 3): bounding-volume hierarchies over mesh elements and their traversal.
 *
 * Place in the pipeline. The broad phase (stage 2) finds geometry pairs whose world AABBs
 * overlap (bvh_root_box gives each posed asset's box). For every such pair the mid phase lists
 * the candidate element pairs (tet–tet, triangle–tet, element–half-space) the narrow phase
 * clips. One traversal is one item: one geometry pair of one world, run by one thread.
 *
 * Bounding volume: axis-aligned boxes in the asset's own frame (the geometry frame G), where
 * Drake uses OBBs fitted by PCA plus a volume-shrinking search. Why:
 *  - a tree is built once per asset (host/assets/bvh_build.c) and shared by every world using it, so
 *    memory per node matters more than build cost, and an AABB node is 6 reals against 15 for
 *    an OBB; the build is sorting only, so it is simple and exactly reproducible;
 *  - isobar's assets are mostly meshed primitives (boxes, cylinders, spheres, capsules) built
 *    axis-aligned in G, for which local AABBs are as tight as PCA boxes;
 *  - the boxes are axis-aligned only in G: two assets in different frames are tested as
 *    oriented boxes through X_AB (the face axes of the separating-axis test, kernels/collide/
 *    box.h, below), so nothing is lost by never refitting as bodies rotate. (Deformable meshes
 *    change shape; refitting their boxes per step is a later, separate kernel.)
 *
 * Build (host/assets/bvh_build.c): top-down; a node's box is the union of its elements' padded boxes;
 * its elements are sorted by box centre along the longest axis of the node box (ties of
 * length: lowest axis), ties of centre broken by element id, and split at the median (the
 * first ceil(n/2) go left). A node of at most leaf_size elements is a leaf (Drake: 1 tet, 3
 * triangles). Depth is therefore ceil(log2(ceil(n/leaf_size))) <= 31, and BVH_MAX_DEPTH is
 * checked anyway. Everything is deterministic: the same input gives byte-identical arrays.
 *
 * Layout (flat arrays, copied as-is to device memory):
 *   bvhNode node[nnode]   pre-order: root 0; an inner node i has its first child at i + 1.
 *     inner: a >= 0, children a and b (node indices).
 *     leaf:  a < 0, elements at leaf-order positions [~a, b) = [-a-1, b).
 *   int  elem[nelem]      element ids (rows of the mesh's tet or triangle array), leaf order.
 *   real box[nelem * 6]   each element's padded box, leaf order: lo x y z, hi x y z.
 * Node boxes are exact unions, so a node box contains its children's boxes bit for bit.
 * Element boxes are stored besides the node boxes because leaves hold several triangles: the
 * traversal tests each element pair's boxes at the leaves, so candidate lists hold exactly
 * the element pairs whose (padded) boxes overlap and nothing the leaf grouping adds.
 *
 * Node tests: every pair, leaves and the element boxes inside multi-element leaves included,
 * gets the six face axes of the separating-axis test (box_overlap_rel_faces), not the nine edge
 * cross products of the full 15-axis test (Drake's OBB–OBB test). The emitted element pairs are
 * exactly those whose padded boxes pass the face axes: a superset of the full test's, so no
 * contact is lost, and the narrow phase's clip, the exact test, decides. The edge axes cost as
 * much as the face axes and almost never separate what those keep: none of the five-box
 * stack's 753k leaf pairs in 1000 steps, none of the pick's 264k in 1500, 3.7 % of the sphere's
 * 259k in 1000 (bench/RESULTS.md, "The walk's leaf test"). The candidates they would drop clip
 * to nothing there: every example scene ends in the same state, bit for bit, either way.
 * What a test needs of one node alone (its centre carried into A, its radii on the other box's
 * axes: kernels/collide/box.h, boxSide) is formed once and kept (BVH_SIDES per tree): a walk
 * meets a node in many pairs (the five-box stack's walks test ~650 pairs on 47 nodes a side);
 * the verdicts are the same bits.
 * Element pairs are tested exactly; a pair with a node above the elements allows a gap of
 * bvh_walk_round (the side of such a node is loosened as it is formed, box_side_loosen). In exact
 * arithmetic a parent pair passes whenever a pair of its children does (its boxes contain
 * theirs); the allowance, far above rounding, makes the computed verdicts keep that, so the
 * candidates are exactly the element pairs that pass, whatever the tree. The walks kept across
 * steps (kernels/hydro/walk_keep.h) rest on it: they list a superset once and filter it.
 *
 * Traversal: an explicit stack (no recursion), depth-first, one node descended per step:
 * when both nodes of a pair are inner, the one with the larger box (sum of edge lengths, ties:
 * A) is split; its first child is visited first. A path takes at most depth_A + depth_B
 * descents and leaves one pending pair per descent, hence BVH_STACK. The same function body
 * counts (no output) and emits, so the emitted order is the counted order, independent of
 * cap: count, scan, then emit into the scanned slot is exact, and the resulting list is
 * ordered by (pair, traversal order), never by thread timing.
 *
 * Frames: tree A's boxes are in A's geometry frame, tree B's in B's; X_AB is B's pose in A
 * (X_AB = X_WA⁻¹·X_WB). A plane or half-space is given in A by n_A and d_A:
 * H = {x : n_A·x <= d_A}, n_A its outward normal (unit, or d_A scaled alike). */
#ifndef ISO_KERNELS_COLLIDE_BVH_H
#define ISO_KERNELS_COLLIDE_BVH_H

#include "kernels/collide/box.h"
#include "kernels/core.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"

#define BVH_MAX_DEPTH 48                 /* edges on a root-to-leaf path, checked at build */
#define BVH_STACK (2 * BVH_MAX_DEPTH + 2) /* node pairs pending in a tree-vs-tree walk */
#define BVH_STACK1 (BVH_MAX_DEPTH + 2)    /* nodes pending in a tree-vs-plane walk */
#define BVH_COUNT_MAX 2147483647          /* counts saturate here (INT_MAX) */
/* Nodes' prepared sides a tree-vs-tree walk keeps per tree, by node index modulo this (a power
 * of two): a walk meets a node in many pairs, and a small tree's every node fits. On the CPU,
 * 256 (37 KiB of stack for both trees: the sphere on the box meets ~140 of its sphere's 1,023
 * nodes per walk, and 64 slots kept a third of them); a GPU thread keeps the last node only, as
 * its stack is reserved for every thread (ISO_CPU_SCRATCH). */
#ifndef BVH_SIDES /* tests/test_bvh_one_side.c sets it */
#if ISO_CPU_SCRATCH
#define BVH_SIDES 256
#else
#define BVH_SIDES 1
#endif
#endif

/* Plane query modes (bvh_plane_count / bvh_plane_emit):
 *  STRADDLE: elements whose box meets the plane n·x = d (compliant tets vs a rigid half-space);
 *  INSIDE:   elements whose box meets the half-space n·x <= d (rigid triangles vs a compliant
 *            half-space, d shifted out by its margin). */
#define BVH_PLANE_STRADDLE 0
#define BVH_PLANE_INSIDE 1

typedef struct bvhNode {
  real lo[3], hi[3]; /* box in the geometry frame, m */
  int a, b;          /* inner: children; leaf: a = -(first + 1), b = end (leaf-order positions) */
} bvhNode;

/* A read-only view of one tree, passed by value; the arrays live in the backend's memory. */
typedef struct bvhTree {
  const bvhNode *node; /* (nnode) */
  const int *elem;     /* (nelem) element ids in leaf order */
  const real *box;     /* (nelem, 6) padded element boxes in leaf order */
  int nnode;           /* 0: empty tree, every query returns 0 */
} bvhTree;

static inline ISO_HD bvhTree bvh_tree_make(const bvhNode *node, const int *elem, const real *box,
                                           int nnode) {
  bvhTree t;
  t.node = node;
  t.elem = elem;
  t.box = box;
  t.nnode = nnode;
  return t;
}

static inline ISO_HD int bvh_is_leaf(const bvhNode *n) { return n->a < 0; }
static inline ISO_HD int bvh_leaf_begin(const bvhNode *n) { return -n->a - 1; }
static inline ISO_HD int bvh_leaf_end(const bvhNode *n) { return n->b; }

/* Sum of edge lengths: a rotation-invariant size used to pick which node to split. */
static inline ISO_HD real bvh_node_size(const bvhNode *n) {
  return (n->hi[0] - n->lo[0]) + (n->hi[1] - n->lo[1]) + (n->hi[2] - n->lo[2]);
}

/* World AABB (padded) of tree A posed by X_WA: its root box transformed; the empty box
 * (+HUGE_VAL, -HUGE_VAL) for an empty tree. */
static inline ISO_HD void bvh_root_box(bvhTree A, xform X_WA, real out_lo[3], real out_hi[3]) {
  int i;
  if (A.nnode <= 0) {
    for (i = 0; i < 3; ++i) {
      out_lo[i] = (real)HUGE_VAL;
      out_hi[i] = -(real)HUGE_VAL;
    }
    return;
  }
  box_transform_aabb(A.node[0].lo, A.node[0].hi, X_WA, out_lo, out_hi);
}

/* A tree's reach: Σ_k max(|lo_k|, |hi_k|) of its root box, which bounds ‖centre‖₁ + ‖half-widths‖₁
 * of every node (every box lies in the root's). 0 for an empty tree. */
static inline ISO_HD real bvh_tree_reach(bvhTree A) {
  real r = (real)0;
  if (A.nnode <= 0) return r;
  for (int k = 0; k < 3; ++k) r += fmax(fabs(A.node[0].lo[k]), fabs(A.node[0].hi[k]));
  return r;
}

/* The rounding a walk of B posed in A at p_AB allows where a verdict need not be exact (inner
 * node pairs): the test's few operations on values below reach_a + reach_b + ‖p‖₁ err by a
 * few ulps of that; 1e-12 of it is far above, and far below any gap that matters. */
static inline ISO_HD real bvh_walk_round(real reach_a, real reach_b, vec3 p_AB) {
  return (real)1e-12 * (reach_a + reach_b + fabs(p_AB.x) + fabs(p_AB.y) + fabs(p_AB.z)) + BOX_PAD_MIN;
}

/* Two leaf-order positions packed in one int (a superset's element pair, below): both trees of
 * at most BVH_POS_MAX elements. */
#define BVH_POS_MAX 65536
static inline ISO_HD int bvh_pos_pack(int ea, int eb) { return (int)(((unsigned)ea << 16) | (unsigned)eb); }
static inline ISO_HD int bvh_pos_a(int v) { return (int)((unsigned)v >> 16); }
static inline ISO_HD int bvh_pos_b(int v) { return (int)((unsigned)v & 0xFFFFu); }

/* The elements of a tree: the end of its last leaf (0 for an empty tree). */
static inline ISO_HD int bvh_tree_elems(bvhTree A) {
  if (A.nnode <= 0) return 0;
  int i = 0;
  while (!bvh_is_leaf(A.node + i)) i = A.node[i].b;
  return bvh_leaf_end(A.node + i);
}

/* A superset a walk can list besides its candidates (kernels/hydro/walk_keep.h): the element
 * pairs whose boxes pass with every gap up to motion + 2·round allowed, at all levels, as their
 * leaf-order positions packed in one int (bvh_pos_pack: both trees of at most BVH_POS_MAX
 * elements). n counts them all; n > cap: they did not fit (the first cap are written). */
typedef struct bvhSuper {
  int *pos;
  int cap, n;
  real motion; /* m, >= 0 */
} bvhSuper;

/* 1 for a leaf of one element: its pairs with another such leaf are element pairs. */
static inline ISO_HD int bvh_is_single(const bvhNode *n) {
  return bvh_is_leaf(n) && bvh_leaf_end(n) - bvh_leaf_begin(n) == 1;
}

/* The walk behind bvh_pairs_count and bvh_pairs_emit: element pairs (ea of A, eb of B) whose
 * padded element boxes overlap with B posed in A by X_AB. Writes the first min(count, cap)
 * pairs to out_a/out_b (which may be NULL when cap <= 0) and returns the count, or -1 when a
 * tree is deeper than BVH_MAX_DEPTH (never for a tree from bvh_build).
 * Element pairs get the exact face-axes test; node pairs above them allow bvh_walk_round, so a
 * pair of element boxes that passes is never lost to a parent pair's rounding (in exact
 * arithmetic a parent pair's boxes contain the children's and pass whenever they do): the
 * candidates are exactly the element pairs that pass, whatever the tree. With sup, node pairs
 * allow sup's slack instead and the superset is listed too. */
static inline ISO_HD ISO_INLINE int bvh_pairs_walk_sup(bvhTree A, bvhTree B, xform X_AB, bvhSuper *sup, int *out_a,
                                            int *out_b, int cap) {
  int sa[BVH_STACK], sb[BVH_STACK];
  int sp, n = 0, k;
  boxSide side[2][BVH_SIDES];
  int side_node[2][BVH_SIDES]; /* the node whose side a slot holds; -1: none */
  boxRel rel;
  if (A.nnode <= 0 || B.nnode <= 0) return 0;
  rel = box_rel_make(X_AB);
  /* a node's side is loosened once, as it is formed: by the rounding allowance unless it is a
   * leaf of one element (two such are tested exactly; a pair with another node then carries the
   * allowance on every axis through that node), by the superset's slack everywhere */
  const real round = bvh_walk_round(bvh_tree_reach(A), bvh_tree_reach(B), X_AB.p);
  const real slack = sup ? sup->motion + 2 * round : round;
  /* a tree of fewer nodes than slots uses slots 0..nnode-1 only */
  for (k = 0; k < BVH_SIDES && k < A.nnode; ++k) side_node[0][k] = -1;
  for (k = 0; k < BVH_SIDES && k < B.nnode; ++k) side_node[1][k] = -1;
  /* the roots' sides, which the first pair reads, prepared here: a one-slot walk's only slot is
   * then written before any read on every path a compiler can see */
  box_side_a(A.node[0].lo, A.node[0].hi, &rel, &side[0][0]);
  box_side_b(B.node[0].lo, B.node[0].hi, &rel, &side[1][0]);
  if (sup || !bvh_is_single(A.node)) box_side_loosen(&side[0][0], slack);
  if (sup || !bvh_is_single(B.node)) box_side_loosen(&side[1][0], slack);
  side_node[0][0] = 0;
  side_node[1][0] = 0;
  sa[0] = 0;
  sb[0] = 0;
  sp = 1;
  while (sp > 0) {
    const bvhNode *na, *nb;
    const boxSide *pa, *pb;
    int ia, ib, la, lb, ka, kb;
    real t[3];
    --sp;
    ia = sa[sp];
    ib = sb[sp];
    na = A.node + ia;
    nb = B.node + ib;
    la = bvh_is_leaf(na);
    lb = bvh_is_leaf(nb);
    /* a pair mostly shares a node with the pair tested before it (a descent splits one side):
     * that node's part of the test is kept */
    ka = ia & (BVH_SIDES - 1);
    kb = ib & (BVH_SIDES - 1);
    if (side_node[0][ka] != ia) {
      box_side_a(na->lo, na->hi, &rel, &side[0][ka]);
      if (sup || !bvh_is_single(na)) box_side_loosen(&side[0][ka], slack);
      side_node[0][ka] = ia;
    }
    if (side_node[1][kb] != ib) {
      box_side_b(nb->lo, nb->hi, &rel, &side[1][kb]);
      if (sup || !bvh_is_single(nb)) box_side_loosen(&side[1][kb], slack);
      side_node[1][kb] = ib;
    }
    pa = &side[0][ka];
    pb = &side[1][kb];
    if (!box_sat_sides(pa, pb, &rel, t)) continue;
    if (la && lb) {
      int a0 = bvh_leaf_begin(na), a1 = bvh_leaf_end(na);
      int b0 = bvh_leaf_begin(nb), b1 = bvh_leaf_end(nb);
      /* one element each: the element boxes are the leaf boxes just tested (exactly, unless the
       * sides were loosened for a superset) */
      int single = (a1 - a0 == 1) && (b1 - b0 == 1);
      int ea, eb;
      for (ea = a0; ea < a1; ++ea) {
        const real *bxa = A.box + 6 * ea;
        for (eb = b0; eb < b1; ++eb) {
          const real *bxb = B.box + 6 * eb;
          int exact = single && !sup;
          if (!exact) exact = box_overlap_rel_faces(bxa, bxa + 3, bxb, bxb + 3, &rel);
          if (sup && (single || exact || box_overlap_rel_faces_slack(bxa, bxa + 3, bxb, bxb + 3, &rel, slack))) {
            if (sup->n < sup->cap) sup->pos[sup->n] = bvh_pos_pack(ea, eb);
            if (sup->n < BVH_COUNT_MAX) ++sup->n;
          }
          if (!exact) continue;
          if (n < cap) {
            out_a[n] = A.elem[ea];
            out_b[n] = B.elem[eb];
          }
          if (n < BVH_COUNT_MAX) ++n;
        }
      }
      continue;
    }
    if (sp + 2 > BVH_STACK) return -1;
    if (lb || (!la && bvh_node_size(na) >= bvh_node_size(nb))) { /* the sides' sizes, recomputed */
      sa[sp] = na->b;
      sb[sp] = ib;
      sa[sp + 1] = na->a;
      sb[sp + 1] = ib;
    } else {
      sa[sp] = ia;
      sb[sp] = nb->b;
      sa[sp + 1] = ia;
      sb[sp + 1] = nb->a;
    }
    sp += 2;
  }
  return n;
}

/* (inlined into this and the superset's caller: without a superset its tests fold away) */
static inline ISO_HD int bvh_pairs_walk(bvhTree A, bvhTree B, xform X_AB, int *out_a, int *out_b, int cap) {
  return bvh_pairs_walk_sup(A, B, X_AB, (bvhSuper *)0, out_a, out_b, cap);
}

/* bvh_pairs_walk's candidates at the pose rel from a superset (pos, nsup pairs) a walk listed at
 * another pose that this one is within the superset's motion of (kernels/hydro/walk_keep.h):
 * the superset's element pairs that pass the exact test, in its order, which is the walk's
 * order; the same return and cap as bvh_pairs_walk. */
static inline ISO_HD int bvh_pairs_filter(bvhTree A, bvhTree B, const boxRel *rel, const int *pos, int nsup,
                                          int *out_a, int *out_b, int cap) {
  /* an element meets many of the other tree's (a box face against a box face: ~30 a tet), so
   * its side of the test is formed once, as the walk keeps its nodes' (box_sat_sides gives
   * box_overlap_rel_faces's verdicts) */
  boxSide side[2][BVH_SIDES];
  int side_elem[2][BVH_SIDES];
  int n = 0;
  for (int k = 0; k < BVH_SIDES; ++k) side_elem[0][k] = side_elem[1][k] = -1;
#if BVH_SIDES == 1
  /* A slot is read only after side_elem says it was written, which an optimising C++ compiler
   * (the emulated device's Release build) cannot follow: it warns of a read before any write.
   * With one slot a side (a GPU thread) clearing them costs nothing. */
  for (int q = 0; q < 2; ++q)
    for (int i = 0; i < 3; ++i) side[q][0].c[i] = side[q][0].e[i] = side[q][0].r[i] = 0;
#endif
  for (int i = 0; i < nsup; ++i) {
    const int ea = bvh_pos_a(pos[i]), eb = bvh_pos_b(pos[i]);
    const int ka = ea & (BVH_SIDES - 1), kb = eb & (BVH_SIDES - 1);
    if (side_elem[0][ka] != ea) {
      box_side_a(A.box + 6 * ea, A.box + 6 * ea + 3, rel, &side[0][ka]);
      side_elem[0][ka] = ea;
    }
    if (side_elem[1][kb] != eb) {
      box_side_b(B.box + 6 * eb, B.box + 6 * eb + 3, rel, &side[1][kb]);
      side_elem[1][kb] = eb;
    }
    real t[3];
    if (!box_sat_sides(&side[0][ka], &side[1][kb], rel, t)) continue;
    if (n < cap) {
      out_a[n] = A.elem[ea];
      out_b[n] = B.elem[eb];
    }
    if (n < BVH_COUNT_MAX) ++n;
  }
  return n;
}

/* Number of candidate element pairs of trees A and B, B posed in A by X_AB (-1: see
 * bvh_pairs_walk). */
static inline ISO_HD int bvh_pairs_count(bvhTree A, bvhTree B, xform X_AB) {
  return bvh_pairs_walk(A, B, X_AB, (int *)0, (int *)0, 0);
}

/* The same pairs in the same order: element ids of A to out_a, of B to out_b, at most cap of
 * them; returns the full count even when it exceeds cap, so an overflow reports the capacity
 * it needed. */
static inline ISO_HD int bvh_pairs_emit(bvhTree A, bvhTree B, xform X_AB, int *out_a, int *out_b,
                                        int cap) {
  return bvh_pairs_walk(A, B, X_AB, out_a, out_b, cap);
}

/* Does the box lo/hi pass the plane query `mode`, with gaps up to `slack` counted as contact?
 * Slack 0 is the exact test (box_plane_straddle, box_halfspace_overlap: the same bits). */
static inline ISO_HD int bvh_plane_test_slack(const real lo[3], const real hi[3], vec3 n_A, real d_A, int mode,
                                              real slack) {
  real h, r;
  box_plane_project(lo, hi, n_A, d_A, &h, &r);
  return mode == BVH_PLANE_INSIDE ? h <= r + slack : fabs(h) <= r + slack;
}

static inline ISO_HD int bvh_plane_test(const real lo[3], const real hi[3], vec3 n_A, real d_A, int mode) {
  return bvh_plane_test_slack(lo, hi, n_A, d_A, mode, (real)0);
}

/* The rounding a plane walk allows at nodes above the elements (bvh_walk_round's reasoning: the
 * test's few operations on values below reach + |d| err by a few ulps of that). */
static inline ISO_HD real bvh_plane_round(real reach, real d_A) {
  return (real)1e-12 * (reach + fabs(d_A)) + BOX_PAD_MIN;
}

/* The walk behind bvh_plane_count/emit: elements of A whose padded box meets the plane
 * n_A·x = d_A (mode BVH_PLANE_STRADDLE) or the half-space n_A·x <= d_A (BVH_PLANE_INSIDE),
 * both in A's frame (n_A of unit length), in traversal order. Returns the count, or -1 for an
 * unknown mode or a tree deeper than BVH_MAX_DEPTH.
 * Elements are tested exactly; nodes above them allow bvh_plane_round, so an element that
 * passes is never lost to an ancestor's rounding (a node's box contains its elements' boxes,
 * and a box meets the plane or the half-space whenever one inside it does): the candidates are
 * exactly the elements that pass. With sup, every test allows sup's slack (its motion plus
 * twice the rounding) and the elements that pass it are listed too, as leaf-order positions
 * (kernels/hydro/walk_keep.h keeps them across steps; bvh_plane_filter reads them). */
static inline ISO_HD int bvh_plane_walk_sup(bvhTree A, vec3 n_A, real d_A, int mode, bvhSuper *sup, int *out,
                                            int cap) {
  int st[BVH_STACK1];
  int sp, n = 0;
  if (mode != BVH_PLANE_STRADDLE && mode != BVH_PLANE_INSIDE) return -1;
  if (A.nnode <= 0) return 0;
  const real round = bvh_plane_round(bvh_tree_reach(A), d_A);
  const real slack = sup ? sup->motion + 2 * round : round;
  st[0] = 0;
  sp = 1;
  while (sp > 0) {
    const bvhNode *na = A.node + st[--sp];
    const int single = bvh_is_single(na);
    /* a leaf of one element: its box is the element's, tested exactly (and loosened for sup) */
    if (!bvh_plane_test_slack(na->lo, na->hi, n_A, d_A, mode, single && !sup ? (real)0 : slack)) continue;
    if (bvh_is_leaf(na)) {
      const int k0 = bvh_leaf_begin(na), k1 = bvh_leaf_end(na);
      for (int k = k0; k < k1; ++k) {
        const real *bx = A.box + 6 * k;
        int exact = single && !sup;
        if (!exact) exact = bvh_plane_test(bx, bx + 3, n_A, d_A, mode);
        if (sup && (single || exact || bvh_plane_test_slack(bx, bx + 3, n_A, d_A, mode, slack))) {
          if (sup->n < sup->cap) sup->pos[sup->n] = k;
          if (sup->n < BVH_COUNT_MAX) ++sup->n;
        }
        if (!exact) continue;
        if (n < cap) out[n] = A.elem[k];
        if (n < BVH_COUNT_MAX) ++n;
      }
      continue;
    }
    if (sp + 2 > BVH_STACK1) return -1;
    st[sp] = na->b;
    st[sp + 1] = na->a;
    sp += 2;
  }
  return n;
}

static inline ISO_HD int bvh_plane_walk(bvhTree A, vec3 n_A, real d_A, int mode, int *out, int cap) {
  return bvh_plane_walk_sup(A, n_A, d_A, mode, (bvhSuper *)0, out, cap);
}

static inline ISO_HD int bvh_plane_count(bvhTree A, vec3 n_A, real d_A, int mode) {
  return bvh_plane_walk(A, n_A, d_A, mode, (int *)0, 0);
}

static inline ISO_HD int bvh_plane_emit(bvhTree A, vec3 n_A, real d_A, int mode, int *out,
                                        int cap) {
  return bvh_plane_walk(A, n_A, d_A, mode, out, cap);
}

/* bvh_plane_walk's candidates for the plane n_A, d_A from a superset (pos, nsup leaf-order
 * positions) a walk listed for another plane that this one is within the superset's motion of:
 * the superset's elements that pass the exact test, in its order, which is the walk's order;
 * the same return and cap as bvh_plane_walk (mode: a valid one). */
static inline ISO_HD int bvh_plane_filter(bvhTree A, vec3 n_A, real d_A, int mode, const int *pos, int nsup,
                                          int *out, int cap) {
  int n = 0;
  for (int i = 0; i < nsup; ++i) {
    const real *bx = A.box + 6 * pos[i];
    if (!bvh_plane_test(bx, bx + 3, n_A, d_A, mode)) continue;
    if (n < cap) out[n] = A.elem[pos[i]];
    if (n < BVH_COUNT_MAX) ++n;
  }
  return n;
}

#endif
