/* Hydroelastic narrow phase: one contact polygon per candidate element pair.
 *
 * Place in the pipeline: stage 4 of a step (DESIGN.md). The mid phase hands over candidate
 * element pairs (tet–tet, triangle–tet, tet–half-space, triangle–half-space); each function here
 * is the work of one candidate, run by the CPU backend in a loop and by the CUDA backend from a
 * one-line __global__ wrapper. Everything is in the world frame. Each function returns 1 and
 * fills *out when the pair makes a face, 0 otherwise (then *out is unspecified).
 *
 * Face conventions (kernels/hydro/face.h, drake_algorithms §2): M is always the compliant side
 * (field 0 of a tet–tet pair), N the other; the normal points out of N and into M; vertices are
 * counter-clockwise about the normal; vert_p and p0 come from M's field; grad_M/grad_N are the
 * elements' full volumetric gradients (0 for a rigid side); gM = grad_M·n̂, gN = −grad_N·n̂
 * (INFINITY for a rigid side). elem_M and elem_N are left for the caller.
 *
 * A linear field is f(x) = g·x + c, c being its value at the world origin.
 *
 * Half-space convention (both half-space functions): n is the UNIT normal of the boundary
 * plane pointing OUT of the half-space's solid, and d its offset: the solid is
 * {x : n·x + d <= 0} and φ(x) = n·x + d is the signed distance, positive outside (Drake's
 * half-space frame has n = its z axis, φ = the z coordinate).
 *
 * Thresholds (§8): cos(5π/8) for the gradient/normal filters (strict >), duplicate vertices at
 * squared distance < 1e-28 (clip.h), equilibrium plane rejected when ‖g_M − g_N‖ is exactly 0.
 * Directions are normalised before the filters; a zero vector normalises to zero (as Eigen's
 * normalized() does), so a zero gradient passes the filter and leaves gM = 0, which the
 * discrete approximation then skips (§3, g < 1e-14).
 *
 * Degenerate polygons: every path removes near-duplicate vertices and drops polygons with fewer
 * than 3 vertices (for §2.3/§2.4, where Drake shares vertices through maps instead, this drops
 * the zero-area faces of a tet or triangle touching the boundary at a vertex or an edge, which §3
 * would skip anyway, A <= 1e-14). Zero-area polygons with >= 3 distinct vertices are kept here, as
 * in Drake; the surfaces of rigid and compliant geometries then drop every polygon of area
 * <= 1e-14 m² (kernels/hydro/face.h), the deformable bodies' contact keeps them. */
#ifndef ISO_KERNELS_HYDRO_NARROW_H
#define ISO_KERNELS_HYDRO_NARROW_H

#include "kernels/core.h"
#include "kernels/hydro/clip.h"
#include "kernels/hydro/face.h"
#include "kernels/hydro/polygon.h"
#include "kernels/hydro/slice.h"
#include "kernels/math/vec3.h"

/* cos(5π/8) in double (§8; Drake evaluates std::cos(5π/8)). */
#define HYDRO_COS_MAX_ANGLE (-0.3826834323650897)

/* The alignment filters of §2.1 step 2 (IsPlaneNormalAlongPressureGradient) and §2.2/§2.4
 * (IsFaceNormalInNormalDirection): 1 iff normalize(dir)·normalize(g) > cos(5π/8). */
static inline ISO_HD int hydro_normal_along(vec3 dir, vec3 g) {
  return v3_dot(v3_normalize(dir), v3_normalize(g)) > (real)HYDRO_COS_MAX_ANGLE;
}

/* normalize(u)·a > cos(5π/8), the alignment filter with a already normalised (a tet's ĝ), for a
 * u of unit length up to rounding, with the same verdict always. Where ‖u‖² is within 1e-13 of
 * 1, normalize(u) differs from u by less than 1e-13 (plus a few ulps) in each component, so its
 * dot product with a differs from u·a by less than that too: a u·a more than 1e-12 from the
 * threshold decides it without forming normalize(u), a square root and a division on every
 * candidate's path. */
static inline ISO_HD int hydro_unit_along(vec3 u, vec3 a) {
  const real d = v3_dot(u, a), len2 = v3_norm2(u);
  if (len2 > (real)1 - (real)1e-13 && len2 < (real)1 + (real)1e-13 && isfinite(d)) {
    if (d > (real)HYDRO_COS_MAX_ANGLE + (real)1e-12) return 1;
    if (d < (real)HYDRO_COS_MAX_ANGLE - (real)1e-12) return 0;
  }
  return v3_dot(v3_normalize(u), a) > (real)HYDRO_COS_MAX_ANGLE;
}

/* A compliant tet (vertices t, field g·x + c, world frame) with what the tet–tet and
 * triangle–tet functions derive from it alone — its normalised gradient for the alignment
 * filter, the sign of its volume and its faces' clipping planes — formed at first use and kept,
 * so a tet met by many candidates (the CPU's narrow phase keeps a world's tets,
 * kernels/hydro/surface.h) forms them once per step. Each is formed by the expression the
 * functions use without it, so faces are the same bits. */
#define HYDRO_TET_GHAT 1   /* `have`: ghat formed */
#define HYDRO_TET_PLANES 2 /* sgn and, where it is not 0, the four fn formed (hydro_tet_planes) */
typedef struct hydroTet {
  vec3 t[4], g;
  real c;
  vec3 ghat;         /* v3_normalize(g) */
  real sgn;          /* sign of the signed volume, ±1; 0 for a flat (or NaN) tet */
  real nx[4], ny[4], nz[4]; /* face f's clipping normal (hydro_tet_clip_plane), through vertex
                               hydro_tet_face_point(f), by component (hydro_tet_fn) */
  real nd[4];        /* its offset, normal·point (hydro_tets_apart's test) */
  real asum;         /* Σ|coordinates| of t: the scale of their rounding (hydro_tets_apart) */
  int have;
} hydroTet;

/* The margin of hydro_tets_apart, relative to the tets' coordinates: see there. */
#define HYDRO_APART_REL 1e-11

/* Σ|coordinates| of points v[0..n): NaN or inf with the coordinates (then nothing is apart). */
static inline ISO_HD real hydro_abs_sum(const vec3 *v, int n) {
  real sum = 0;
  for (int k = 0; k < n; ++k) sum += fabs(v[k].x) + fabs(v[k].y) + fabs(v[k].z);
  return sum;
}

/* The margin by which points must clear a plane for hydro_beyond_faces to call two elements
 * apart, from each one's Σ|coordinates| (hydro_tets_apart says why it is enough). */
static inline ISO_HD real hydro_apart_margin(real asum_a, real asum_b) {
  return (real)HYDRO_APART_REL * (asum_a + asum_b);
}

static inline ISO_HD void hydro_tet_make(hydroTet *T, const vec3 t[4], vec3 g, real c) {
  for (int k = 0; k < 4; ++k) T->t[k] = t[k];
  T->g = g;
  T->c = c;
  T->asum = hydro_abs_sum(t, 4);
  T->have = 0;
}

/* Face f's clipping normal of a tet whose planes are formed. */
static inline ISO_HD vec3 hydro_tet_fn(const hydroTet *T, int f) { return v3(T->nx[f], T->ny[f], T->nz[f]); }

static inline ISO_HD void hydro_tet_set_plane(hydroTet *T, int f, vec3 n) {
  T->nx[f] = n.x, T->ny[f] = n.y, T->nz[f] = n.z;
  T->nd[f] = v3_dot(n, T->t[hydro_tet_face_point(f)]);
}

static inline ISO_HD vec3 hydro_tet_ghat(hydroTet *T) {
  if (!(T->have & HYDRO_TET_GHAT)) {
    T->ghat = v3_normalize(T->g);
    T->have |= HYDRO_TET_GHAT;
  }
  return T->ghat;
}

/* The sign of T's volume and, for a tet that has an interior, its four faces' clipping planes,
 * all formed at T's first clip. On the CPU the four normals' lengths go through a pair of lanes
 * two at a time: one square root and one division for two faces, where each face's chain (a
 * square root, then a division, then the scale) was waited on alone. Each lane does
 * hydro_tet_clip_plane's operations (v3_normalize's, then the exact scale by ±1), so the planes
 * are its bits. */
static inline ISO_HD void hydro_tet_planes(hydroTet *T) {
  const real vol6 = hydro_tet_volume6(T->t);
  T->sgn = !(vol6 != (real)0) ? (real)0 : vol6 > (real)0 ? (real)1 : (real)-1;
  T->have |= HYDRO_TET_PLANES;
  if (T->sgn == (real)0) { /* flat (or NaN) tet: no interior, no planes needed; zeros for lanes
                              that read them and ignore them (hydro_tets_apart8) */
    for (int f = 0; f < 4; ++f) T->nx[f] = T->ny[f] = T->nz[f] = T->nd[f] = (real)0;
    return;
  }
#if ISO_PAIRS
  vec3 c[4];
  real len2[4];
  for (int f = 0; f < 4; ++f) {
    c[f] = hydro_tet_face_cross(T->t, f);
    len2[f] = v3_dot(c[f], c[f]);
  }
  const isoPair one = {1, 1};
  const isoPair n01 = iso_pair_sqrt((isoPair){len2[0], len2[1]}), n23 = iso_pair_sqrt((isoPair){len2[2], len2[3]});
  const isoPair i01 = one / n01, i23 = one / n23;
  for (int f = 0; f < 4; ++f) {
    const real n = f < 2 ? n01[f] : n23[f - 2], inv = f < 2 ? i01[f] : i23[f - 2];
    hydro_tet_set_plane(T, f, v3_scale(!(n > (real)0) ? v3_zero() : v3_scale(c[f], inv), T->sgn));
  }
#else
  for (int f = 0; f < 4; ++f) {
    vec3 nrm, point;
    hydro_tet_clip_plane(T->t, f, T->sgn, &nrm, &point);
    hydro_tet_set_plane(T, f, nrm);
  }
#endif
}

/* Prepared tets kept by a CPU loop over candidates for the later ones that meet the same tet,
 * HYDRO_TET_SLOTS of them, keyed by (geometry, element). Slot of element e: the top bits of
 * e·2654435761 (Fibonacci hashing). By e's low bits into 64 slots, the 48 tets one side of
 * sphere_on_box.sdf meets in a step fell on each other's slots and half of all lookups formed
 * their tet again; hashed into 128 slots, 9 % do, against the 7 % any size leaves (each tet's
 * first use in a step). The keys sit apart from the tets, so clearing them is one short sweep.
 * A GPU thread keeps none (one slot, never used). */
#if ISO_CPU_SCRATCH
#define HYDRO_TET_SLOT_BITS 7
#else
#define HYDRO_TET_SLOT_BITS 0
#endif
#define HYDRO_TET_SLOTS (1 << HYDRO_TET_SLOT_BITS)
typedef struct hydroTetCache {
  int geom[HYDRO_TET_SLOTS], elem[HYDRO_TET_SLOTS]; /* geom = -1: empty */
  hydroTet tet[HYDRO_TET_SLOTS];
} hydroTetCache;

static inline ISO_HD void hydro_tet_cache_reset(hydroTetCache *c) {
  for (int k = 0; k < HYDRO_TET_SLOTS; ++k) c->geom[k] = c->elem[k] = -1;
}

/* The slot of (geom, e) in c: *hit = 1 when it holds that tet; else the slot is claimed for it
 * (*hit = 0) and the caller forms the tet there (hydro_tet_make). */
static inline ISO_HD hydroTet *hydro_tet_cache_slot(hydroTetCache *c, int geom, int e, int *hit) {
#if HYDRO_TET_SLOT_BITS
  const int k = (int)(((unsigned)e * 2654435761u) >> (32 - HYDRO_TET_SLOT_BITS));
#else
  const int k = 0; /* (a shift by the whole width would be undefined) */
#endif
  *hit = c->geom[k] == geom && c->elem[k] == e;
  c->geom[k] = geom, c->elem[k] = e;
  return c->tet + k;
}

/* T's planes, formed at first use; 1 when it has an interior (0 for a flat or NaN tet, which
 * has no planes). */
static inline ISO_HD int hydro_tet_solid(hydroTet *T) {
  if (!(T->have & HYDRO_TET_PLANES)) hydro_tet_planes(T);
  return T->sgn != (real)0;
}

/* hydro_clip_by_tet by a prepared tet: the same planes in the same order, formed once. A face
 * that every vertex lies inside of (distance <= 0) leaves the polygon as it is (the clip would
 * copy it vertex by vertex, in order): the polygon stays where it is, uncopied. */
static inline ISO_HD int hydro_clip_by_prepared(vec3 poly[HYDRO_CLIP_CAP], int n, hydroTet *T) {
  vec3 tmp[HYDRO_CLIP_CAP], *src = poly, *dst = tmp;
  if (!hydro_tet_solid(T)) return 0; /* flat (or NaN) tet: no interior */
  if (n > HYDRO_CLIP_CAP) return -1; /* (hydro_clip_halfspace's refusal) */
  for (int f = 0; f < 4 && n > 0; ++f) {
    const vec3 nrm = hydro_tet_fn(T, f), point = T->t[hydro_tet_face_point(f)];
    real dist[HYDRO_CLIP_CAP];
    int inside = 0;
    for (int i = 0; i < n; ++i) {
      dist[i] = v3_dot(nrm, v3_sub(src[i], point)); /* hydro_clip_halfspace's distances */
      inside += dist[i] <= (real)0;
    }
    if (inside == n) continue;
    n = hydro_clip_by_dist(src, dist, n, dst, HYDRO_CLIP_CAP);
    vec3 *sw = src;
    src = dst, dst = sw;
  }
  return hydro_clip_result(poly, src, n);
}

/* 1 when every one of the points v[0..nv) lies beyond one face plane of tet B (B's prepared
 * clipping planes, outward) by more than `margin`, measured as n·x − n·P: the points' hull and B
 * are then disjoint, a separating axis found among B's face normals. A NaN never counts as
 * beyond. On the CPU two faces go through a pair of lanes at once, the points' verdicts and-ed;
 * the lanes give the scalar loop's distances to the bit. Both stop at the first verdict that
 * settles the answer: most candidates that reach this test overlap, and one vertex inside every
 * face's plane answers for them. */
static inline ISO_HD int hydro_beyond_faces(const vec3 *v, int nv, const hydroTet *B, real margin) {
#if ISO_PAIRS
  isoPair nx[2], ny[2], nz[2], nd[2];
  isoPairMask all[2];
  const isoPair m = {margin, margin};
  for (int h = 0; h < 2; ++h) {
    nx[h] = (isoPair){B->nx[2 * h], B->nx[2 * h + 1]}, ny[h] = (isoPair){B->ny[2 * h], B->ny[2 * h + 1]};
    nz[h] = (isoPair){B->nz[2 * h], B->nz[2 * h + 1]}, nd[h] = (isoPair){B->nd[2 * h], B->nd[2 * h + 1]};
    all[h] = (isoPairMask){-1, -1};
  }
  for (int k = 0; k < nv; ++k) {
    const isoPair x = {v[k].x, v[k].x}, y = {v[k].y, v[k].y}, z = {v[k].z, v[k].z};
    for (int h = 0; h < 2; ++h) all[h] &= nx[h] * x + ny[h] * y + nz[h] * z - nd[h] > m;
    const isoPairMask any = all[0] | all[1];
    if (!(any[0] | any[1])) return 0;
  }
  return 1;
#else
  for (int f = 0; f < 4; ++f) {
    int beyond = 1;
    for (int k = 0; k < nv && beyond; ++k)
      beyond = B->nx[f] * v[k].x + B->ny[f] * v[k].y + B->nz[f] * v[k].z - B->nd[f] > margin;
    if (beyond) return 1;
  }
  return 0;
#endif
}

/* 1 when tets M and N are disjoint by a margin, so that the tet–tet pair makes no face: in the
 * step's narrow phase ~40 % of the candidates the mid phase's boxes pass (the five-box stack,
 * the sphere on its box), each of which went through the slice and the clip (five to eight
 * divisions) to find nothing. The test is the face normals' half of a separating-axis test:
 * every vertex of M beyond a face plane of N (whose planes the clip forms anyway), or, on the
 * CPU where tets are kept (hydroTetCache) and M's planes are formed once a step, every vertex of
 * N beyond a face plane of M.
 *
 * Why a "yes" never drops a face the full path makes. The polygon the full path would emit has
 * every vertex inside the tet it clipped by (each one kept with a computed distance <= 0 to
 * each of N's planes, or made on a plane) and inside M (cut from M's edges, then convex
 * combinations), both up to rounding of a few tens of ulps of the coordinates. A point within
 * that rounding of M and of N cannot lie beyond a plane that all of one tet's vertices clear
 * by HYDRO_APART_REL = 1e-11 times the two tets' summed absolute coordinates, which is above
 * 1e-11 of the largest coordinate and so thousands of times the rounding. (For the second test the
 * rounding of "inside N" is scaled by one over the sine of N's sharpest angle: still below the
 * margin for any tet whose angles exceed 10⁻³ rad, and a face made there would have been a
 * sliver.) The face is thus the same to the bit: the test only skips pairs whose answer is
 * "none". */
static inline ISO_HD int hydro_tets_apart(hydroTet *M, hydroTet *N) {
  const real margin = hydro_apart_margin(M->asum, N->asum);
  if (hydro_tet_solid(N) && hydro_beyond_faces(M->t, 4, N, margin)) return 1;
#if ISO_CPU_SCRATCH
  if (hydro_tet_solid(M) && hydro_beyond_faces(N->t, 4, M, margin)) return 1;
#endif
  return 0;
}

#if ISO_AVX2 && ISO_CPU_SCRATCH
#include <immintrin.h>

/* hydro_tets_apart with both of its tests in the eight lanes of AVX-512F (CPU only, called where
 * iso_cpu_avx512() says the CPU has it): lanes 0–3 hold N's four face planes, lanes 4–7 M's, and
 * vertex k of M (for N's planes) and of N (for M's) goes through all eight at once. Each lane
 * forms hydro_beyond_faces's distance in its order (no product fused), with its margin and its
 * strict comparison (a NaN is never beyond), and keeps its verdict while every vertex so far is
 * beyond; a side without an interior starts with its lanes off, as the scalar test skips it. The
 * answer is the scalar test's: some lane still on after the four vertices. A pair in the stack
 * went through the two tests one after the other, four planes two at a time in each, at ~60 %
 * of the step's candidates; most overlap, and the first vertex inside every plane ends it here as
 * there. Both tets' planes are formed first (the scalar test forms M's only when N's find none): a
 * tet's planes are formed once a step, by the same expressions, so no result changes. */
static inline ISO_AVX512_FN int hydro_tets_apart8(hydroTet *M, hydroTet *N) {
  const int on = (hydro_tet_solid(N) ? 0x0F : 0) | (hydro_tet_solid(M) ? 0xF0 : 0);
  if (!on) return 0;
  const __m512d m = _mm512_set1_pd(hydro_apart_margin(M->asum, N->asum));
  /* (a flat tet's planes are zeros, hydro_tet_planes: its lanes, off, read defined values) */
#define HYDRO_APART8_PLANES(f) \
  _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(N->f)), _mm256_loadu_pd(M->f), 1)
  const __m512d px = HYDRO_APART8_PLANES(nx), py = HYDRO_APART8_PLANES(ny), pz = HYDRO_APART8_PLANES(nz);
  const __m512d pd = HYDRO_APART8_PLANES(nd);
#undef HYDRO_APART8_PLANES
  __mmask8 alive = (__mmask8)on;
  for (int k = 0; k < 4 && alive; ++k) {
    const __m512d x = _mm512_insertf64x4(_mm512_set1_pd(M->t[k].x), _mm256_set1_pd(N->t[k].x), 1);
    const __m512d y = _mm512_insertf64x4(_mm512_set1_pd(M->t[k].y), _mm256_set1_pd(N->t[k].y), 1);
    const __m512d z = _mm512_insertf64x4(_mm512_set1_pd(M->t[k].z), _mm256_set1_pd(N->t[k].z), 1);
    const __m512d xy = _mm512_add_pd(_mm512_mul_pd(px, x), _mm512_mul_pd(py, y));
    const __m512d d = _mm512_sub_pd(_mm512_add_pd(xy, _mm512_mul_pd(pz, z)), pd);
    alive &= _mm512_cmp_pd_mask(d, m, _CMP_GT_OQ);
  }
  return alive != 0;
}
#endif

/* 1 when the equilibrium plane certainly misses tet M, so that its slice is empty: f_M − f_N =
 * dg·x + dc (dg = g_M − g_N, dc = c_M − c_N) has one strict sign at M's four vertices, each
 * value clear of zero by HYDRO_APART_REL times a bound on its terms. The slice decides by the
 * signs of the heights s = n̂·x + dc/‖dg‖, which carry (with the normalisation) under 20 ulps of
 * that bound, far below it: their signs are these. No square root or division: a third of the
 * five-box stack's candidates end here, where they took the plane's normalisation first. */
static inline ISO_HD int hydro_plane_misses(const hydroTet *M, const hydroTet *N) {
  const vec3 dg = v3_sub(M->g, N->g);
  const real dc = M->c - N->c;
  const real bound = (fabs(dg.x) + fabs(dg.y) + fabs(dg.z)) * M->asum + fabs(M->c) + fabs(N->c);
  const real margin = (real)HYDRO_APART_REL * bound;
  int above = 0, below = 0;
  for (int k = 0; k < 4; ++k) {
    const real v = v3_dot(dg, M->t[k]) + dc;
    above += v > margin;
    below += v < -margin;
  }
  return above == 4 || below == 4;
}

/* Shared tail of the four pair functions: poly[0..n) (n >= 3, duplicates already removed) becomes
 * *out. Pressures: q[i] when q is not NULL, else the linear field (fg, fc). nhat is the expected
 * normal (out of N into M); the winding is made counter-clockwise about it, and the face normal
 * then follows from the vertices (§2.5). grad_N is ignored when n_rigid. Inlined into each: as a
 * call, its vec3 arguments went through the stack in halves and were read back whole, a
 * store-forwarding stall per face on the CPU. */
static inline ISO_HD ISO_INLINE void hydro_emit_face(hydroFace *out, vec3 *poly, real *q, int n, vec3 nhat,
                                                     vec3 fg, real fc, vec3 grad_M, vec3 grad_N, int n_rigid) {
  int i;
  vec3 fan[HYDRO_MAX_POLY]; /* formed once, for the orientation and the moments (n <= HYDRO_MAX_POLY) */
  n = hydro_polygon_reduce(poly, q, n, HYDRO_MAX_POLY);
  const vec3 sum_c = hydro_polygon_orient_fan(poly, q, n, nhat, fan);
  out->nvert = n;
  for (i = 0; i < HYDRO_MAX_POLY; ++i) {
    if (i < n) {
      out->vert[i] = poly[i];
      out->vert_p[i] = q ? q[i] : hydro_field_eval(fg, fc, poly[i]);
    } else { /* unused slots zeroed, so a face's bytes are deterministic */
      out->vert[i] = v3_zero();
      out->vert_p[i] = (real)0;
    }
  }
  out->grad_M = grad_M;
  out->grad_N = n_rigid ? v3_zero() : grad_N;
  out->normal = nhat;
  hydro_polygon_finish_fan(out, fan, sum_c);
  out->gM = v3_dot(out->grad_M, out->normal);
  out->gN = n_rigid ? (real)INFINITY : -v3_dot(out->grad_N, out->normal);
}

/* Compliant tet M (field gM·x + cM) vs compliant tet N (field gN·x + cN), §2.1.
 * Equilibrium plane {x : f_M(x) = f_N(x)}: n̂ = (gM − gN)/‖gM − gN‖ (toward increasing f_M,
 * into M and out of N); heights s = n̂·x + (cM − cN)/‖gM − gN‖ = (f_M − f_N)/‖gM − gN‖.
 * Filters n̂·ĝM > cos(5π/8) and −n̂·ĝN > cos(5π/8); tet M sliced (table order gives the right-hand
 * normal n̂), duplicates removed, clipped by tet N's faces 0..3, duplicates removed, <= 8
 * vertices. Vertex pressures and p0 from field M; grad_M = gM, grad_N = gN. Pairs that make no
 * face for a reason found cheaply are skipped first, with the same result: the plane misses M
 * (hydro_plane_misses), or the tets are disjoint (hydro_tets_apart). */
static inline ISO_HD int hydro_tet_tet_prepared(hydroTet *M, hydroTet *N, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  real s[4];
  vec3 nhat;
  real off;
  int k, n;
  if (hydro_plane_misses(M, N)) return 0;
#if ISO_AVX2 && ISO_CPU_SCRATCH
  if (iso_cpu_avx512() ? hydro_tets_apart8(M, N) : hydro_tets_apart(M, N)) return 0;
#else
  if (hydro_tets_apart(M, N)) return 0;
#endif
  /* (formed after the cheap rejections: 60 % of the stack's candidates end there, and a square
   * root formed ahead of them was waited on by every one) */
  const vec3 dg = v3_sub(M->g, N->g);
  const real len = v3_norm(dg);
  if (!(len > (real)0)) return 0; /* §2.1 step 1: identical gradients, no plane */
  nhat = v3_scale(dg, (real)1 / len);
  /* step 2, hydro_normal_along both ways (n̂ is of unit length up to rounding) */
  if (!hydro_unit_along(nhat, hydro_tet_ghat(M)) || !hydro_unit_along(v3_neg(nhat), hydro_tet_ghat(N))) return 0;
  off = (M->c - N->c) / len;
  for (k = 0; k < 4; ++k) s[k] = v3_dot(nhat, M->t[k]) + off;
  n = hydro_slice_tet(M->t, s, (const real *)0, poly, (real *)0, (int *)0); /* step 3 */
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  n = hydro_clip_by_prepared(poly, n, N); /* step 4 */
  if (n <= 0) return 0;
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  hydro_emit_face(out, poly, (real *)0, n, nhat, M->g, M->c, M->g, N->g, 0); /* step 5 */
  return 1;
}

static inline ISO_HD int hydro_tet_tet(const vec3 tM[4], vec3 gM, real cM, const vec3 tN[4], vec3 gN, real cN,
                                       hydroFace *out) {
  hydroTet M, N;
  hydro_tet_make(&M, tM, gM, cM);
  hydro_tet_make(&N, tN, gN, cN);
  return hydro_tet_tet_prepared(&M, &N, out);
}

/* Rigid triangle N (vertices tri, outward normal tri_normal: out of the rigid body) vs compliant
 * tet M (field g·x + c), §2.2. Filter normalize(tri_normal)·ĝ > cos(5π/8); the triangle is
 * clipped by the tet's faces 0..3, duplicates removed (<= 7 vertices); a triangle wholly beyond
 * one face is skipped first (hydro_beyond_faces, with hydro_tets_apart's margin and argument:
 * the same result; 88 % of the rigid pick's empty candidates). The face normal is the
 * triangle's (out of N into M); the winding is made counter-clockwise about tri_normal.
 * Pressures by the tet's field; grad_M = g, gN = INFINITY. */
static inline ISO_HD int hydro_tri_tet_prepared(const vec3 tri[3], vec3 tri_normal, hydroTet *T, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  int n;
  /* The filter normalize(tri_normal)·ĝ > cos(5π/8). A rigid mesh's triangle normal is a unit
   * normal rotated: hydro_unit_along decides the filter on it directly (normalising only in the
   * closest cases), and n̂ is formed only for the triangles that pass both tests, 30 % of the
   * rigid pick's candidates. Any other normal (a deformable triangle's cross product) is
   * normalised first. */
  const real len2 = v3_norm2(tri_normal);
  const int unit = len2 > (real)1 - (real)1e-13 && len2 < (real)1 + (real)1e-13;
  vec3 nt = unit ? tri_normal : v3_normalize(tri_normal);
  if (!hydro_unit_along(nt, hydro_tet_ghat(T))) return 0;
  /* a triangle beyond a face of the tet clips to nothing: skipped */
  if (hydro_tet_solid(T) && hydro_beyond_faces(tri, 3, T, hydro_apart_margin(T->asum, hydro_abs_sum(tri, 3)))) return 0;
  if (unit) nt = v3_normalize(tri_normal);
  poly[0] = tri[0];
  poly[1] = tri[1];
  poly[2] = tri[2];
  n = hydro_clip_by_prepared(poly, 3, T);
  if (n <= 0) return 0;
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  hydro_emit_face(out, poly, (real *)0, n, nt, T->g, T->c, T->g, v3_zero(), 1);
  return 1;
}

static inline ISO_HD int hydro_tri_tet(const vec3 tri[3], vec3 tri_normal, const vec3 tet[4], vec3 g, real c,
                                       hydroFace *out) {
  hydroTet T;
  hydro_tet_make(&T, tet, g, c);
  return hydro_tri_tet_prepared(tri, tri_normal, &T, out);
}

/* Compliant tet M (vertex pressures p, gradient g) vs rigid half-space N {x : n·x + d <= 0}
 * (n unit, out of the solid), §2.3. The tet is sliced by the boundary with heights
 * s = n·x + d (the polygon's right-hand normal is n: out of N, into M); cut-point pressures
 * interpolate p along the cut edges; no gradient filter. grad_M = g, gN = INFINITY.
 * hydro_tet_halfspace_nhat takes the face normal normalize(n) already formed (once for a
 * pair's candidates). */
static inline ISO_HD ISO_INLINE int hydro_tet_halfspace_nhat(const vec3 tet[4], const real p[4], vec3 g, vec3 n,
                                                             real d, vec3 nhat, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  real q[HYDRO_CLIP_CAP];
  real s[4];
  int k, m;
  for (k = 0; k < 4; ++k) s[k] = v3_dot(n, tet[k]) + d;
  m = hydro_slice_tet(tet, s, p, poly, q, (int *)0);
  m = hydro_remove_near_duplicates(poly, q, m);
  if (m < 3) return 0;
  hydro_emit_face(out, poly, q, m, nhat, g, (real)0, g, v3_zero(), 1);
  return 1;
}

static inline ISO_HD int hydro_tet_halfspace(const vec3 tet[4], const real p[4], vec3 g, vec3 n, real d,
                                             hydroFace *out) {
  return hydro_tet_halfspace_nhat(tet, p, g, n, d, v3_normalize(n), out);
}

/* Rigid triangle N (outward normal tri_normal) vs compliant half-space M {x : n·x + d <= 0}
 * (n unit, out of the solid) of modulus/thickness E_over_h and margin δ = margin, §2.4.
 * Filter normalize(tri_normal)·(−n) > cos(5π/8); the triangle is clipped by the shifted
 * half-space φ(x) = n·x + d <= δ; vertex pressures p = −φ(x)·E/h with the original φ (negative
 * inside the margin layer); grad_M = −(E/h)·n; the face normal is the triangle's. */
static inline ISO_HD int hydro_tri_compliant_halfspace(const vec3 tri[3], vec3 tri_normal, vec3 n, real d,
                                                       real E_over_h, real margin, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  real q[HYDRO_CLIP_CAP];
  real dist[3];
  const vec3 nt = v3_normalize(tri_normal);
  int k, m;
  if (!hydro_normal_along(nt, v3_neg(n))) return 0;
  for (k = 0; k < 3; ++k) dist[k] = v3_dot(n, tri[k]) + d - margin;
  m = hydro_clip_by_dist(tri, dist, 3, poly, HYDRO_CLIP_CAP);
  if (m <= 0) return 0;
  m = hydro_remove_near_duplicates(poly, (real *)0, m);
  if (m < 3) return 0;
  for (k = 0; k < m; ++k) q[k] = -(v3_dot(n, poly[k]) + d) * E_over_h;
  hydro_emit_face(out, poly, q, m, nt, v3_zero(), (real)0, v3_scale(n, -E_over_h), v3_zero(), 1);
  return 1;
}

#endif
