/* Contact surfaces of a batch: the per-item work of stages 1–4 for hydroelastic geometry.
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
#ifndef ISO_KERNELS_HYDRO_SURFACE_H
#define ISO_KERNELS_HYDRO_SURFACE_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/collide/box.h"
#include "kernels/collide/bvh.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/hydro/face.h"
#include "kernels/hydro/narrow.h"
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

/* ---- narrow: the elements of one candidate in the world ----------------------------------------- */
/* Vertex k of the mesh whose vertices start at v0, in the world at X: from pv, the mesh already
 * in the world (hs_pose_vertices), or moved here when pv is NULL; the same xf_point either way,
 * so the same bits. */
static inline ISO_HD vec3 hs_vertex_world(const hydroDev *H, long v0, int k, xform X, const real *pv) {
  if (pv) return v3(pv[3 * k], pv[3 * k + 1], pv[3 * k + 2]);
  const real *x = H->vert + 3 * (v0 + k);
  return xf_point(X, v3(x[0], x[1], x[2]));
}

/* pv: as in hs_vertex_world. */
static inline ISO_HD void hs_tet_world(const hydroDev *H, int asset, int e, xform X, const real *pv, vec3 t[4],
                                       real p[4], real E) {
  const int *v = H->elem + 4L * (H->asset_elem0[asset] + e);
  const long v0 = H->asset_vert0[asset];
  for (int k = 0; k < 4; ++k) {
    t[k] = hs_vertex_world(H, v0, v[k], X, pv);
    if (p) p[k] = E * H->pressure[v0 + v[k]];
  }
}

/* The linear field of tet e in the world: f(x) = g·x + c. */
static inline ISO_HD void hs_tet_field(const hydroDev *H, int asset, int e, xform X, real E, vec3 *g, real *c) {
  long i = H->asset_elem0[asset] + e;
  vec3 gG = v3(H->grad[3 * i], H->grad[3 * i + 1], H->grad[3 * i + 2]);
  *g = v3_scale(quat_rotate(X.q, gG), E);
  *c = E * H->porig[i] - v3_dot(*g, X.p);
}

static inline ISO_HD void hs_tri_world(const hydroDev *H, int asset, int e, xform X, const real *pv, vec3 t[3],
                                       vec3 *nrm) {
  long i = H->asset_elem0[asset] + e;
  const int *v = H->elem + 4 * i;
  const long v0 = H->asset_vert0[asset];
  for (int k = 0; k < 3; ++k) t[k] = hs_vertex_world(H, v0, v[k], X, pv);
  *nrm = quat_rotate(X.q, v3(H->normal[3 * i], H->normal[3 * i + 1], H->normal[3 * i + 2]));
}

/* Compliant tets in the world (vertices, scaled field, and what the narrow phase derives from
 * them: kernels/hydro/narrow.h, hydroTet), kept by the CPU's narrow phase for the rest of a
 * world's candidates, HS_TET_SLOTS per side by element id: a tet meets many candidates (the
 * five-box stack's 750 candidates a step are between 120 tets), consecutive ones often. The
 * kept values are the ones the same calls would make again (same geometry, element, pose and
 * modulus within a world's step), so faces do not change by a bit. geom = -1: empty. A GPU
 * thread keeps none (its narrow phase is one candidate per thread). */
#if ISO_CPU_SCRATCH
#define HS_TET_SLOTS 64
#else
#define HS_TET_SLOTS 1
#endif
typedef struct hsTetCache {
  int geom, elem;
  hydroTet tet;
} hsTetCache;

static inline ISO_HD void hs_tet_cache_reset(hsTetCache *c) {
  for (int k = 0; k < HS_TET_SLOTS; ++k) c[k].geom = c[k].elem = -1;
}

/* Tet e of geometry `geom` (asset, pose X, modulus E) in the world, prepared: from the cache c
 * (HS_TET_SLOTS slots) when it holds it, else formed into its slot; with c NULL, formed into
 * *local. */
static inline ISO_HD hydroTet *hs_tet_get(const hydroDev *H, int geom, int e, xform X, real E, const real *pv,
                                          hsTetCache *c, hydroTet *local) {
  hsTetCache *slot = c ? c + (e & (HS_TET_SLOTS - 1)) : (hsTetCache *)0;
  if (slot && slot->geom == geom && slot->elem == e) return &slot->tet;
  const int asset = H->geom_asset[geom];
  hydroTet *T = slot ? &slot->tet : local;
  vec3 t[4], g;
  real cc;
  hs_tet_world(H, asset, e, X, pv, t, (real *)0, E);
  hs_tet_field(H, asset, e, X, E, &g, &cc);
  hydro_tet_make(T, t, g, cc);
  if (slot) slot->geom = geom, slot->elem = e;
  return T;
}

/* hs_face_compute with a tet cache per side (cm for M's tets, cn for N's; either may be NULL)
 * and each side's mesh vertices already in the world (pm, pn; either may be NULL). The poses
 * come by address: 56-byte values copied onto the stack for each candidate were read back
 * wider than they were written, a store-forwarding stall per candidate on the CPU. */
static inline ISO_HD int hs_face_compute_cached(const hydroDev *H, int p, int ea, int eb, const xform *pX_WM,
                                                const xform *pX_WN, real Em, real En, hsTetCache *cm,
                                                hsTetCache *cn, const real *pm, const real *pn, hydroFace *f) {
  const int m = H->pair_m[p], n = H->pair_n[p], kind = H->pair_kind[p];
  const xform X_WM = *pX_WM, X_WN = *pX_WN;
  int ok = 0;
  vec3 tm[4], tri[3], gm, nrm, nW;
  real cmv, pmv[4], dW;
  if (kind == HS_PAIR_CC) {
    hydroTet lm, ln;
    hydroTet *M = hs_tet_get(H, m, ea, X_WM, Em, pm, cm, &lm);
    hydroTet *N = hs_tet_get(H, n, eb, X_WN, En, pn, cn, &ln);
    ok = hydro_tet_tet_prepared(M, N, f);
  } else if (kind == HS_PAIR_RC) {
    hydroTet lm;
    hydroTet *M = hs_tet_get(H, m, ea, X_WM, Em, pm, cm, &lm);
    hs_tri_world(H, H->geom_asset[n], eb, X_WN, pn, tri, &nrm);
    ok = hydro_tri_tet_prepared(tri, nrm, M, f);
  } else if (kind == HS_PAIR_HC) {
    const int am = H->geom_asset[m];
    hs_tet_world(H, am, ea, X_WM, pm, tm, pmv, Em);
    hs_tet_field(H, am, ea, X_WM, Em, &gm, &cmv);
    hs_halfspace(X_WN, &nW, &dW);
    ok = hydro_tet_halfspace(tm, pmv, gm, nW, dW, f);
  } else if (kind == HS_PAIR_RS) {
    hs_tri_world(H, H->geom_asset[n], eb, X_WN, pn, tri, &nrm);
    hs_halfspace(X_WM, &nW, &dW);
    ok = hydro_tri_compliant_halfspace(tri, nrm, nW, dW, Em / H->geom_slab[m], H->geom_margin[m], f);
  }
  if (ok && !(f->area > (real)HYDRO_FACE_MIN_AREA)) ok = 0; /* a sliver (face.h); NaN too */
  if (ok) {
    f->elem_M = ea;
    f->elem_N = eb;
  }
  return ok;
}

/* The polygon of element ea of M and eb of N for pair p, with the geometries at X_WM, X_WN
 * and moduli Em, En; 0 when they make none or only a sliver (HYDRO_FACE_MIN_AREA). The queries
 * call it too, to rebuild a face's polygon from its record. */
static inline ISO_HD int hs_face_compute(const hydroDev *H, int p, int ea, int eb, xform X_WM, xform X_WN, real Em,
                                         real En, hydroFace *f) {
  return hs_face_compute_cached(H, p, ea, eb, &X_WM, &X_WN, Em, En, (hsTetCache *)0, (hsTetCache *)0,
                                (const real *)0, (const real *)0, f);
}

/* Candidate s of a world: its pair and its polygon; 0 when it makes none. cm, cn: tet caches
 * (hs_face_compute_cached), or NULL. */
static inline ISO_HD int hs_narrow_face_cached(const hydroDev *H, const hydroWork *W, int world, int s, int *pair,
                                               hsTetCache *cm, hsTetCache *cn, hydroFace *f) {
  const int p = hs_cand_pair(H, W, world, s);
  const int m = H->pair_m[p], n = H->pair_n[p];
  *pair = p;
  return hs_face_compute_cached(H, p, hs_cand(W, world, 0)[s], hs_cand(W, world, 1)[s],
                                W->X_WG + (long)world * H->ngeom + m, W->X_WG + (long)world * H->ngeom + n,
                                *wf_at(H->geom_E, world, m, 1), *wf_at(H->geom_E, world, n, 1), cm, cn,
                                (const real *)0, (const real *)0, f);
}

/* Candidate s of a world: its pair and its polygon; 0 when it makes none. */
static inline ISO_HD int hs_narrow_face(const hydroDev *H, const hydroWork *W, int world, int s, int *pair,
                                        hydroFace *f) {
  return hs_narrow_face_cached(H, W, world, s, pair, (hsTetCache *)0, (hsTetCache *)0, f);
}

/* Records a polygon makes: 1, or one per fan triangle. */
static inline ISO_HD int hs_face_parts(const hydroWork *W, const hydroFace *f) { return W->triangles ? f->nvert : 1; }

/* Record `part` of face f of pair p (CONTACT_PART_POLYGON, or a fan triangle). */
static inline ISO_HD void hs_face_record(const hydroDev *H, const hydroFace *f, int p, int part, contactRec *r) {
  r->normal = f->normal;
  r->gM = f->gM;
  r->gN = f->gN;
  r->pair = p;
  r->geom_m = H->pair_m[p];
  r->geom_n = H->pair_n[p];
  r->elem_m = f->elem_M;
  r->elem_n = f->elem_N;
  r->part = part;
  if (part < 0) {
    r->point = f->centroid;
    r->area = f->area;
    r->p0 = f->p0;
    return;
  }
  /* one triangle of the centroid fan (v_k, v_k+1, c); the field is linear on it, so its
   * centroid value is the mean of the corners */
  vec3 tri[HYDRO_MAX_POLY][3];
  real tp[HYDRO_MAX_POLY][3];
  hydro_face_fan(f, tri, tp);
  const int k = part;
  r->area = 0.5 * v3_norm(v3_cross(v3_sub(tri[k][1], tri[k][0]), v3_sub(tri[k][2], tri[k][0])));
  r->point = v3_scale(v3_add(v3_add(tri[k][0], tri[k][1]), tri[k][2]), (real)1 / 3);
  r->p0 = (tp[k][0] + tp[k][1] + tp[k][2]) / 3;
}

/* Write a polygon's records from index `at` of the world's list, as far as the capacity goes. */
static inline ISO_HD void hs_face_emit(const hydroDev *H, const hydroWork *W, int world, const hydroFace *f, int p,
                                       int at) {
  contactRec *list = W->list + (long)world * W->max_list;
  const int parts = hs_face_parts(W, f);
  for (int k = 0; k < parts && at + k < W->max_face; ++k)
    hs_face_record(H, f, p, W->triangles ? k : CONTACT_PART_POLYGON, list + at + k);
}

/* A world frozen before the narrow phase (its candidates were not kept) keeps face_needed as an
 * overflow left it, until reset. Returns 1 when the world has nothing to do. */
static inline ISO_HD int hs_list_skip(const hydroWork *W, int world, const uint32_t *status) {
  if ((status[world] & ISO_WORLD_FROZEN) && W->cand_total[world] == 0) {
    W->face_count[world] = W->list_count[world] = 0;
    return 1;
  }
  return 0;
}

/* The face records found (nf): kept, or none and an overflow. */
static inline ISO_HD void hs_list_close(const hydroWork *W, int world, long nf, uint32_t *status) {
  W->face_needed[world] = nf > 2147483647L ? 2147483647 : (int)nf;
  if (nf > W->max_face) {
    W->face_count[world] = 0;
    status[world] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
  } else {
    W->face_count[world] = (int)nf;
  }
  W->list_count[world] = W->face_count[world];
}

/* ---- narrow, CPU: item world, one pass over its candidates ---------------------------------- */
/* The largest mesh the CPU's narrow phase moves into the world whole (hs_posed_for): two such
 * meshes, one per side of a pair, are 24 KiB of a CPU thread's stack (ISO_CPU_SCRATCH). */
#define HS_POSED_MAX 512

/* Geometry g's mesh vertices moved into the world, by the same xf_point each candidate would
 * apply to its element's vertices. */
static inline ISO_HD void hs_pose_vertices(const hydroDev *H, const hydroWork *W, int world, int g, real *out) {
  const xform X = W->X_WG[(long)world * H->ngeom + g];
  const long v0 = H->asset_vert0[H->geom_asset[g]];
  for (int k = 0; k < H->geom_nvert[g]; ++k) {
    const vec3 y = hs_vertex_world(H, v0, k, X, (const real *)0);
    out[3 * k] = y.x, out[3 * k + 1] = y.y, out[3 * k + 2] = y.z;
  }
}

/* Where geometry g's vertices come from for a pair of `count` candidates: out (3·HS_POSED_MAX
 * reals, or NULL: none), posed now, when the mesh fits and the candidates would move at least as
 * many vertices one element at a time (four per candidate); else NULL (each candidate moves its
 * own). */
static inline ISO_HD const real *hs_posed_for(const hydroDev *H, const hydroWork *W, int world, int g, int count,
                                              real *out) {
  const int n = H->geom_nvert && out ? H->geom_nvert[g] : 0;
  if (n == 0 || n > HS_POSED_MAX || 4L * count < (long)n) return (const real *)0;
  hs_pose_vertices(H, W, world, g, out);
  return out;
}

/* The CPU's narrow phase of a world: every candidate in order; at each pair's first candidate
 * its meshes are moved into the world (hs_posed_for, into posed_m and posed_n, which may be
 * NULL) where that saves work. A pair's candidates are consecutive (the mid phase walks the
 * pairs in order), so a mesh is moved once per pair it is in. Faces are the same to the bit with
 * or without it (tests/test_contact_batch.c). */
static inline ISO_HD void hs_narrow_world_posed(const hydroDev *H, const hydroWork *W, int world, uint32_t *status,
                                                real *posed_m, real *posed_n) {
  if (hs_list_skip(W, world, status)) return;
  long nf = 0;
  /* 2 × 64 slots of 544 bytes: cleared at the first pair that reads them (tet–tet,
   * triangle–tet), so a world of half-space pairs alone does not sweep 70 KB of stack (more
   * than the L1 cache) every step */
  hsTetCache cm[HS_TET_SLOTS], cn[HS_TET_SLOTS];
  int cache_clear = 0;
  const int *count = W->pair_count + (long)world * H->npair;
  const int *off = W->pair_off + (long)world * H->npair;
  int p = -1, ps = 0;
  const real *pm = (const real *)0, *pn = (const real *)0;
  for (int s = 0; s < W->cand_total[world]; ++s) {
    while (ps + 1 < H->npair && off[ps + 1] <= s) ++ps; /* hs_cand_pair, s ascending */
    const int m = H->pair_m[ps], n = H->pair_n[ps];
    if (ps != p) {
      p = ps;
      pm = hs_posed_for(H, W, world, m, count[p], posed_m);
      pn = hs_posed_for(H, W, world, n, count[p], posed_n);
      if (!cache_clear && (H->pair_kind[p] == HS_PAIR_CC || H->pair_kind[p] == HS_PAIR_RC)) {
        hs_tet_cache_reset(cm);
        hs_tet_cache_reset(cn);
        cache_clear = 1;
      }
    }
    hydroFace f;
    if (!hs_face_compute_cached(H, ps, hs_cand(W, world, 0)[s], hs_cand(W, world, 1)[s],
                                W->X_WG + (long)world * H->ngeom + m, W->X_WG + (long)world * H->ngeom + n,
                                *wf_at(H->geom_E, world, m, 1), *wf_at(H->geom_E, world, n, 1), cm, cn, pm, pn,
                                &f))
      continue;
    if (nf < W->max_face) hs_face_emit(H, W, world, &f, ps, (int)nf);
    nf += hs_face_parts(W, &f);
  }
  hs_list_close(W, world, nf, status);
}

static inline ISO_HD void hs_narrow_world(const hydroDev *H, const hydroWork *W, int world, uint32_t *status) {
#if ISO_CPU_SCRATCH
  real posed[2][3 * HS_POSED_MAX];
  hs_narrow_world_posed(H, W, world, status, posed[0], posed[1]);
#else
  hs_narrow_world_posed(H, W, world, status, (real *)0, (real *)0);
#endif
}

/* ---- narrow, GPU pass 1: item (world, candidate) -------------------------------------------- */
static inline ISO_HD void hs_narrow_count_item(const hydroDev *H, const hydroWork *W, int world, int s) {
  if (s >= W->cand_total[world]) return;
  hydroFace f;
  int p;
  hs_cand(W, world, 2)[s] = hs_narrow_face(H, W, world, s, &p, &f) ? hs_face_parts(W, &f) : 0;
}

/* ---- list scan: item world --------------------------------------------------------------------- */
static inline ISO_HD void hs_list_scan_item(const hydroWork *W, int world, uint32_t *status) {
  if (hs_list_skip(W, world, status)) return;
  int *parts = hs_cand(W, world, 2);
  long nf = 0;
  for (int s = 0; s < W->cand_total[world]; ++s) {
    const int c = parts[s];
    parts[s] = (int)(nf < W->max_face ? nf : W->max_face);
    nf += c;
  }
  hs_list_close(W, world, nf, status);
}

/* ---- narrow, GPU pass 2: item (world, candidate) --------------------------------------------- */
static inline ISO_HD void hs_narrow_emit_item(const hydroDev *H, const hydroWork *W, int world, int s) {
  const int total = W->cand_total[world];
  if (s >= total || W->face_count[world] == 0) return;
  const int *off = hs_cand(W, world, 2);
  const int end = s + 1 < total ? off[s + 1] : W->face_count[world];
  if (end == off[s]) return; /* no polygon */
  hydroFace f;
  int p;
  if (hs_narrow_face(H, W, world, s, &p, &f)) hs_face_emit(H, W, world, &f, p, off[s]);
}

#endif
