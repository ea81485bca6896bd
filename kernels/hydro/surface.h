/* Contact surfaces of a batch, stage 4: the narrow phase, one polygon per candidate element
 * pair, written to the world's contact list (kernels/contact/list.h) in candidate order. The
 * stages before it, and how the GPU and the CPU split this one, are in
 * kernels/hydro/surface_mid.h. */
#ifndef ISO_KERNELS_HYDRO_SURFACE_H
#define ISO_KERNELS_HYDRO_SURFACE_H

#include "kernels/hydro/face.h"
#include "kernels/hydro/narrow.h"
#include "kernels/hydro/surface_mid.h"

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

/* Compliant tets in the world, kept by the CPU's narrow phase for the rest of a world's
 * candidates (hydroTetCache, kernels/hydro/narrow.h), one cache per side: a tet meets many
 * candidates (the five-box stack's 750 candidates a step are between 120 tets), consecutive
 * ones often. The kept values are the ones the same calls would make again (same geometry,
 * element, pose and modulus within a world's step), so faces do not change by a bit. A GPU
 * thread keeps none (its narrow phase is one candidate per thread). */

/* Tet e of geometry `geom` (asset, pose *X, modulus E) in the world, prepared: from the cache c
 * when it holds it, else formed into its slot; with c NULL, formed into *local. The pose is read
 * only to form a tet (by address: most lookups hit, and copying both poses for every candidate
 * was 1.5 % of the sphere's step). */
static inline ISO_HD hydroTet *hs_tet_get(const hydroDev *H, int geom, int e, const xform *X, real E,
                                          const real *pv, hydroTetCache *c, hydroTet *local) {
  hydroTet *T = local;
  if (c) {
    int hit;
    T = hydro_tet_cache_slot(c, geom, e, &hit);
    if (hit) return T;
  }
  const int asset = H->geom_asset[geom];
  vec3 t[4], g;
  real cc;
  const xform Xv = *X;
  hs_tet_world(H, asset, e, Xv, pv, t, (real *)0, E);
  hs_tet_field(H, asset, e, Xv, E, &g, &cc);
  hydro_tet_make(T, t, g, cc);
  return T;
}

/* A half-space pair's plane in the world (hs_halfspace of its half-space geometry), formed once
 * for the pair's candidates by the CPU's narrow phase. */
typedef struct hsPlane {
  vec3 n;
  real d;
  vec3 nhat; /* v3_normalize(n): a tet's face normal (hydro_tet_halfspace_nhat) */
} hsPlane;

/* hs_face_compute with a tet cache per side (cm for M's tets, cn for N's; either may be NULL),
 * each side's mesh vertices already in the world (pm, pn; either may be NULL) and a half-space
 * pair's plane already in the world (hp; NULL: formed here). The poses come by address: 56-byte
 * values copied onto the stack for each candidate were read back wider than they were written,
 * a store-forwarding stall per candidate on the CPU. */
static inline ISO_HD int hs_face_compute_cached(const hydroDev *H, int p, int ea, int eb, const xform *pX_WM,
                                                const xform *pX_WN, real Em, real En, hydroTetCache *cm,
                                                hydroTetCache *cn, const real *pm, const real *pn, const hsPlane *hp,
                                                hydroFace *f) {
  const int m = H->pair_m[p], n = H->pair_n[p], kind = H->pair_kind[p];
  int ok = 0;
  vec3 tm[4], tri[3], gm, nrm, nW;
  real cmv, pmv[4], dW;
  if (kind == HS_PAIR_CC) {
    hydroTet lm, ln;
    hydroTet *M = hs_tet_get(H, m, ea, pX_WM, Em, pm, cm, &lm);
    hydroTet *N = hs_tet_get(H, n, eb, pX_WN, En, pn, cn, &ln);
    ok = hydro_tet_tet_prepared(M, N, f);
  } else if (kind == HS_PAIR_RC) {
    hydroTet lm;
    hydroTet *M = hs_tet_get(H, m, ea, pX_WM, Em, pm, cm, &lm);
    hs_tri_world(H, H->geom_asset[n], eb, *pX_WN, pn, tri, &nrm);
    ok = hydro_tri_tet_prepared(tri, nrm, M, f);
  } else if (kind == HS_PAIR_HC) {
    const int am = H->geom_asset[m];
    const xform X_WM = *pX_WM;
    hs_tet_world(H, am, ea, X_WM, pm, tm, pmv, Em);
    hs_tet_field(H, am, ea, X_WM, Em, &gm, &cmv);
    if (hp) {
      ok = hydro_tet_halfspace_nhat(tm, pmv, gm, hp->n, hp->d, hp->nhat, f);
    } else {
      hs_halfspace(*pX_WN, &nW, &dW);
      ok = hydro_tet_halfspace(tm, pmv, gm, nW, dW, f);
    }
  } else if (kind == HS_PAIR_RS) {
    hs_tri_world(H, H->geom_asset[n], eb, *pX_WN, pn, tri, &nrm);
    if (hp) nW = hp->n, dW = hp->d;
    else hs_halfspace(*pX_WM, &nW, &dW);
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
  return hs_face_compute_cached(H, p, ea, eb, &X_WM, &X_WN, Em, En, (hydroTetCache *)0, (hydroTetCache *)0,
                                (const real *)0, (const real *)0, (const hsPlane *)0, f);
}

/* Candidate s of a world: its pair and its polygon; 0 when it makes none. cm, cn: tet caches
 * (hs_face_compute_cached), or NULL. */
static inline ISO_HD int hs_narrow_face_cached(const hydroDev *H, const hydroWork *W, int world, int s, int *pair,
                                               hydroTetCache *cm, hydroTetCache *cn, hydroFace *f) {
  const int p = hs_cand_pair(H, W, world, s);
  const int m = H->pair_m[p], n = H->pair_n[p];
  *pair = p;
  return hs_face_compute_cached(H, p, hs_cand(W, world, 0)[s], hs_cand(W, world, 1)[s],
                                W->X_WG + (long)world * H->ngeom + m, W->X_WG + (long)world * H->ngeom + n,
                                *wf_at(H->geom_E, world, m, 1), *wf_at(H->geom_E, world, n, 1), cm, cn,
                                (const real *)0, (const real *)0, (const hsPlane *)0, f);
}

/* Candidate s of a world: its pair and its polygon; 0 when it makes none. */
static inline ISO_HD int hs_narrow_face(const hydroDev *H, const hydroWork *W, int world, int s, int *pair,
                                        hydroFace *f) {
  return hs_narrow_face_cached(H, W, world, s, pair, (hydroTetCache *)0, (hydroTetCache *)0, f);
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
  /* 2 × 128 tets of 304 bytes: their keys cleared at the first pair that reads them (tet–tet,
   * triangle–tet), so a world of half-space pairs alone touches none of it */
  hydroTetCache cache[2];
  hydroTetCache *cm = cache, *cn = cache + 1;
  int cache_clear = 0;
  const int *count = W->pair_count + (long)world * H->npair;
  const int *off = W->pair_off + (long)world * H->npair;
  int p = -1, ps = 0;
  const real *pm = (const real *)0, *pn = (const real *)0;
  hsPlane plane; /* a half-space pair's, in the world: once per pair, not per candidate */
  const hsPlane *hp = (const hsPlane *)0;
  for (int s = 0; s < W->cand_total[world]; ++s) {
    while (ps + 1 < H->npair && off[ps + 1] <= s) ++ps; /* hs_cand_pair, s ascending */
    const int m = H->pair_m[ps], n = H->pair_n[ps];
    if (ps != p) {
      p = ps;
      pm = hs_posed_for(H, W, world, m, count[p], posed_m);
      pn = hs_posed_for(H, W, world, n, count[p], posed_n);
      hp = (const hsPlane *)0;
      if (H->pair_kind[p] == HS_PAIR_HC || H->pair_kind[p] == HS_PAIR_RS) {
        hs_halfspace(W->X_WG[(long)world * H->ngeom + (H->pair_kind[p] == HS_PAIR_HC ? n : m)], &plane.n, &plane.d);
        plane.nhat = v3_normalize(plane.n);
        hp = &plane;
      }
      if (!cache_clear && (H->pair_kind[p] == HS_PAIR_CC || H->pair_kind[p] == HS_PAIR_RC)) {
        hydro_tet_cache_reset(cm);
        hydro_tet_cache_reset(cn);
        cache_clear = 1;
      }
    }
    hydroFace f;
    if (!hs_face_compute_cached(H, ps, hs_cand(W, world, 0)[s], hs_cand(W, world, 1)[s],
                                W->X_WG + (long)world * H->ngeom + m, W->X_WG + (long)world * H->ngeom + n,
                                *wf_at(H->geom_E, world, m, 1), *wf_at(H->geom_E, world, n, 1), cm, cn, pm, pn, hp,
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
