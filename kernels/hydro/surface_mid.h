/* Contact surfaces of a batch, stages 1–3: the model's hydroelastic data, poses, the broad phase
 * and the mid phase (the narrow phase, stage 4, is kernels/hydro/surface.h).
 *
 * Stages, each one item per index and reading only what earlier stages wrote, so both
 * backends run them as independent loops and the result never depends on thread timing:
 *   pose     (world, geometry)  X_WG = X_WB(q)·X_BG
 *   count    (world, pair)      broad phase (world boxes, half-spaces) then BVH count
 *   scan     (world)            exclusive scan of the pair counts; overflow check
 *   emit     (world, pair)      BVH emit into the world's candidate segment at the scanned offset
 *   narrow   the world's contact list (kernels/contact/list.h): one record per polygon (or
 *            per fan triangle), in candidate order. The GPU runs it per candidate in two
 *            passes — count (world, candidate): records the candidate makes; list scan
 *            (world): their offsets; emit (world, candidate): the polygon again, its records at
 *            its offset — and the CPU as one serial pass per world (hs_narrow_world), which
 *            writes the same list.
 * Candidates are element indices only (the pair is found from the scanned pair offsets);
 * candidate and contact lists are per-world segments of fixed capacity (set at sim creation);
 * a world whose list would overflow keeps none of it, records the size it needed, and gets
 * ISO_WORLD_OVERFLOW. Lists are ordered by (pair, BVH traversal order), which is what makes
 * every result bitwise reproducible.
 *
 * Fields are stored for E = 1 Pa (host/assets/assets.h) and scaled by each geometry's modulus here. */
#ifndef ISO_KERNELS_HYDRO_SURFACE_MID_H
#define ISO_KERNELS_HYDRO_SURFACE_MID_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/collide/box.h"
#include "kernels/collide/bvh.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/math/quat.h"
#include "kernels/math/transform.h"
#include "kernels/world_field.h"

/* Geometry kinds (host/assets/assets.h) and pair kinds (isobar/contact.h isoPairKind). */
#define HS_GEOM_TETS 1
#define HS_GEOM_TRIS 2
#define HS_GEOM_RIGID_HALF 3
#define HS_GEOM_SOFT_HALF 4
#define HS_PAIR_CC 1  /* compliant–compliant */
#define HS_PAIR_RC 2  /* compliant tets (M) – rigid triangles (N) */
#define HS_PAIR_HC 3  /* compliant tets (M) – rigid half-space (N) */
#define HS_PAIR_RS 4  /* compliant half-space (M) – rigid triangles (N) */

/* The model's hydroelastic data as flat arrays in backend memory. */
typedef struct hydroDev {
  int nbody, ngeom, npair;
  const int *geom_body;   /* (ngeom) body index or -1 (world) */
  const xform *geom_X_BG; /* (ngeom) pose in the body (or world) frame */
  const int *geom_kind;   /* (ngeom) HS_GEOM_* or 0 */
  const int *geom_asset;  /* (ngeom) asset index or -1 */
  wfield geom_E;          /* (ngeom) hydroelastic modulus, Pa */
  const real *geom_margin; /* (ngeom) m */
  const real *geom_slab;   /* (ngeom) slab thickness of a compliant half-space, m */
  const int *asset_vert0;  /* (nasset) first vertex in vert */
  const int *asset_elem0;  /* (nasset) first element in elem/grad/porig/normal and the BVH elem/box */
  const int *asset_node0;  /* (nasset) first BVH node */
  const int *asset_nnode;  /* (nasset) BVH nodes */
  const real *vert;     /* (total vertices, 3) in G */
  const real *pressure; /* (total vertices) unit-modulus field; 0 for rigid assets */
  const int *elem;      /* (total elements, 4) vertex indices local to the asset; triangles use 3 */
  const real *grad;     /* (total elements, 3) unit-modulus gradient in G (tets) */
  const real *porig;    /* (total elements) unit-modulus field value at G's origin (tets) */
  const real *normal;   /* (total elements, 3) outward unit normal in G (triangles) */
  const bvhNode *node;  /* all assets' BVH nodes */
  const int *bvh_elem;  /* (total elements) leaf order, local ids */
  const real *bvh_box;  /* (total elements, 6) */
  const int *pair_m, *pair_n, *pair_kind; /* (npair) */
  const int *geom_nvert;  /* (ngeom) vertices of the geometry's mesh, 0 for none; NULL on the GPU,
                             whose narrow phase moves each candidate's elements (hs_narrow_world) */
} hydroDev;

/* Per-world work buffers (backend memory), allocated at sim creation. */
typedef struct hydroWork {
  int max_cand, max_face, triangles; /* capacities; triangles: fan representation */
  int max_list;       /* contact records per world: max_face faces, then the point contacts */
  xform *X_WG;        /* (nworld, ngeom) */
  int *pair_count;    /* (nworld, npair) candidates per pair */
  int *pair_off;      /* (nworld, npair) scanned offsets */
  int *cand_total;    /* (nworld) candidates kept (0 after an overflow) */
  int *cand_needed;   /* (nworld) candidates found (the capacity an overflow needed) */
  int *cand;          /* (nworld, cand_stride) per world: element of M (max_cand), element of N
                         (max_cand; -1 for a half-space), then the records each candidate makes,
                         turned into its offset in the list by the list scan (max_cand; the GPU's
                         narrow phase), or on the CPU the kept walks (walk_keep.h) */
  long cand_stride;   /* ints from one world's candidates to the next */
  contactRec *list;   /* (nworld, max_list) the contact list */
  int *face_count;    /* (nworld) face records kept (0 after an overflow) */
  int *face_needed;   /* (nworld) face records found */
  int *list_count;    /* (nworld) records: faces, then the point contacts the solver adds */
  int keep;           /* 1: the CPU keeps walks in the candidates' third part (walk_keep.h) */
} hydroWork;

/* World w's candidate array k: 0 element of M, 1 element of N, 2 records / list offset. */
static inline ISO_HD int *hs_cand(const hydroWork *W, int world, int k) {
  return W->cand + (long)world * W->cand_stride + (long)k * W->max_cand;
}

static inline ISO_HD bvhTree hs_tree(const hydroDev *H, int asset) {
  int e0 = H->asset_elem0[asset];
  return bvh_tree_make(H->node + H->asset_node0[asset], H->bvh_elem + e0, H->bvh_box + 6L * e0,
                       H->asset_nnode[asset]);
}

/* ---- pose: item (world, geometry) ---------------------------------------------------------- */
/* X_WB_world: this world's body poses (stage 1, kernels/rigid/kinematics.h). */
static inline ISO_HD void hs_pose_item(const hydroDev *H, const hydroWork *W, int world, int g,
                                       const xform *X_WB_world) {
  xform X = H->geom_X_BG[g];
  int b = H->geom_body[g];
  if (b >= 0) X = xf_mul(X_WB_world[b], X);
  W->X_WG[(long)world * H->ngeom + g] = X;
}

/* A half-space geometry in the world: outward unit normal n and offset d, solid n·x + d <= 0. */
static inline ISO_HD void hs_halfspace(xform X_WG, vec3 *n, real *d) {
  *n = quat_rotate(X_WG.q, v3(0, 0, 1));
  *d = -v3_dot(*n, X_WG.p);
}

/* The plane n·x = d_A of a world half-space (n, d: solid n·x + d <= 0), expressed in frame A,
 * shifted outward by `shift`: in A the half-space is {x : n_A·x <= d_A}. */
static inline ISO_HD void hs_plane_in(xform X_WA, vec3 n, real d, real shift, vec3 *n_A, real *d_A) {
  *n_A = quat_inv_rotate(X_WA.q, n);
  /* n·(R x + p) + d <= shift  ⇔  (Rᵀn)·x <= shift − d − n·p */
  *d_A = shift - d - v3_dot(n, X_WA.p);
}

/* 1 for a pair of two meshes with trees (HS_PAIR_CC, HS_PAIR_RC): walked tree against tree. */
static inline ISO_HD int hs_pair_is_trees(const hydroDev *H, int p) {
  return H->pair_kind[p] == HS_PAIR_CC || H->pair_kind[p] == HS_PAIR_RC;
}

/* A tree–tree pair (hs_pair_is_trees): its trees and N's pose in M when the posed roots'
 * world boxes overlap (the broad phase); 0 when they do not. */
static inline ISO_HD int hs_pair_trees(const hydroDev *H, const hydroWork *W, int world, int p, bvhTree *A,
                                       bvhTree *B, xform *X_MN) {
  const int m = H->pair_m[p], n = H->pair_n[p];
  const xform X_WM = W->X_WG[(long)world * H->ngeom + m];
  const xform X_WN = W->X_WG[(long)world * H->ngeom + n];
  *A = hs_tree(H, H->geom_asset[m]);
  *B = hs_tree(H, H->geom_asset[n]);
  real alo[3], ahi[3], blo[3], bhi[3];
  bvh_root_box(*A, X_WM, alo, ahi);
  bvh_root_box(*B, X_WN, blo, bhi);
  if (!box_overlap_aabb(alo, ahi, blo, bhi)) return 0;
  *X_MN = xf_mul(xf_inv(X_WM), X_WN);
  return 1;
}

/* A half-space pair (HS_PAIR_HC, HS_PAIR_RS): the tree walked against the plane (M's tets for HC,
 * N's triangles for RS), the plane in that tree's frame (n_A·x = d_A, n_A of unit length) and
 * the walk's mode, returned: the tets crossing the rigid half-space's boundary, or the triangles
 * inside the compliant half-space shifted out by its margin. */
static inline ISO_HD int hs_pair_plane(const hydroDev *H, const hydroWork *W, int world, int p, bvhTree *T, vec3 *n_A,
                                       real *d_A) {
  const int m = H->pair_m[p], n = H->pair_n[p];
  const xform *X = W->X_WG + (long)world * H->ngeom;
  vec3 nW;
  real dW;
  if (H->pair_kind[p] == HS_PAIR_HC) {
    *T = hs_tree(H, H->geom_asset[m]);
    hs_halfspace(X[n], &nW, &dW);
    hs_plane_in(X[m], nW, dW, 0, n_A, d_A);
    return BVH_PLANE_STRADDLE;
  }
  *T = hs_tree(H, H->geom_asset[n]);
  hs_halfspace(X[m], &nW, &dW);
  hs_plane_in(X[n], nW, dW, H->geom_margin[m], n_A, d_A);
  return BVH_PLANE_INSIDE;
}

/* Broad phase and BVH walk of one pair; counts when out_a is NULL, else emits up to cap. */
static inline ISO_HD int hs_pair_walk(const hydroDev *H, const hydroWork *W, int world, int p,
                                      int *out_a, int *out_b, int cap) {
  const int kind = H->pair_kind[p];
  if (hs_pair_is_trees(H, p)) {
    bvhTree A, B;
    xform X_MN;
    if (!hs_pair_trees(H, W, world, p, &A, &B, &X_MN)) return 0;
    return out_a ? bvh_pairs_emit(A, B, X_MN, out_a, out_b, cap) : bvh_pairs_count(A, B, X_MN);
  }
  bvhTree T;
  vec3 nA;
  real dA;
  const int mode = hs_pair_plane(H, W, world, p, &T, &nA, &dA);
  /* HS_PAIR_HC: tets of M crossing the boundary of the rigid half-space N; HS_PAIR_RS: triangles
   * of N inside the (margin-shifted) compliant half-space M. The other side's element is -1. */
  int *out = kind == HS_PAIR_HC ? out_a : out_b, *none = kind == HS_PAIR_HC ? out_b : out_a;
  const int c = out_a ? bvh_plane_emit(T, nA, dA, mode, out, cap) : bvh_plane_count(T, nA, dA, mode);
  if (out_a)
    for (int i = 0; i < c && i < cap; ++i) none[i] = -1;
  return c;
}

/* ---- count: item (world, pair) ------------------------------------------------------------- */
static inline ISO_HD void hs_count_item(const hydroDev *H, const hydroWork *W, int world, int p,
                                        const uint32_t *status) {
  int c = (status[world] & ISO_WORLD_FROZEN) ? 0 : hs_pair_walk(H, W, world, p, (int *)0, (int *)0, 0);
  /* c < 0: a BVH deeper than the traversal stack (never for a tree from bvh_build); counted as
   * an overflow later rather than silently dropped */
  W->pair_count[(long)world * H->npair + p] = c < 0 ? W->max_cand + 1 : c;
}

/* A world's candidate total after its pairs are counted: the size it needed, and the world frozen
 * with an overflow (no candidate to read) when that exceeds the capacity. */
static inline ISO_HD void hs_cand_close(const hydroWork *W, int world, long total, uint32_t *status) {
  W->cand_needed[world] = total > 2147483647L ? 2147483647 : (int)total;
  if (total > W->max_cand) {
    W->cand_total[world] = 0;
    status[world] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
  } else {
    W->cand_total[world] = (int)total;
  }
}

/* ---- scan: item world ------------------------------------------------------------------------ */
static inline ISO_HD void hs_scan_item(const hydroDev *H, const hydroWork *W, int world, uint32_t *status) {
  long base = (long)world * H->npair;
  if (status[world] & ISO_WORLD_FROZEN) { /* keep the sizes an overflow needed until reset */
    W->cand_total[world] = 0;
    return;
  }
  long total = 0;
  for (int p = 0; p < H->npair; ++p) {
    W->pair_off[base + p] = (int)(total < W->max_cand ? total : W->max_cand);
    total += W->pair_count[base + p];
  }
  hs_cand_close(W, world, total, status);
}

/* ---- emit: item (world, pair) -------------------------------------------------------------- */
static inline ISO_HD void hs_emit_item(const hydroDev *H, const hydroWork *W, int world, int p) {
  long i = (long)world * H->npair + p;
  int c = W->pair_count[i];
  if (c == 0 || W->cand_total[world] == 0) return;
  const int at = W->pair_off[i];
  hs_pair_walk(H, W, world, p, hs_cand(W, world, 0) + at, hs_cand(W, world, 1) + at, c);
}

/* ---- count, scan and emit in one walk: item world (the CPU's mid phase) ----------------------- */
/* The three items above walk every pair twice: once to count, once to write at the scanned
 * offset, so that pairs can run on different threads. One thread holding a whole world walks
 * each pair once and writes at the running count, leaving exactly what count, scan and emit
 * leave: the same pair counts, offsets, totals, status flags and (when nothing overflows) the
 * same candidates in the same slots. On an overflow the candidates that fit are written, but
 * cand_total is 0 as after the scan, so nothing reads them. */
static inline ISO_HD void hs_mid_world(const hydroDev *H, const hydroWork *W, int world, uint32_t *status) {
  long base = (long)world * H->npair;
  if (status[world] & ISO_WORLD_FROZEN) { /* keep the sizes an overflow needed until reset */
    for (int p = 0; p < H->npair; ++p) W->pair_count[base + p] = 0;
    W->cand_total[world] = 0;
    return;
  }
  int *ca = hs_cand(W, world, 0), *cb = hs_cand(W, world, 1);
  long total = 0;
  for (int p = 0; p < H->npair; ++p) {
    const int at = (int)(total < W->max_cand ? total : W->max_cand);
    int c = hs_pair_walk(H, W, world, p, ca + at, cb + at, W->max_cand - at);
    if (c < 0) c = W->max_cand + 1; /* as hs_count_item: reported as an overflow */
    W->pair_off[base + p] = at;
    W->pair_count[base + p] = c;
    total += c;
  }
  hs_cand_close(W, world, total, status);
}

/* The pair of candidate s: the last pair whose scanned offset is <= s (pairs without
 * candidates share their successor's offset, and the last of equals is the one that has s). */
static inline ISO_HD int hs_cand_pair(const hydroDev *H, const hydroWork *W, int world, int s) {
  const int *off = W->pair_off + (long)world * H->npair;
  int lo = 0, hi = H->npair - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (off[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

#endif
