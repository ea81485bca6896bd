/* Sutherland–Hodgman clipping of a convex polygon by half-spaces, and Drake's removal of nearly
 * duplicate vertices.
 *
 * Place in the pipeline: narrow phase (stage 4). The sliced polygon of a tet–tet pair is clipped
 * by the 4 faces of tet N (drake_algorithms §2.1 step 4), a rigid triangle by the 4 faces of a
 * compliant tet (§2.2), a rigid triangle by a compliant half-space (§2.4).
 *
 * Conventions:
 *  - A half-space is {x : dist(x) <= 0}; a vertex with signed distance <= 0 is kept (§2.1 step 4,
 *    §2.2 "signed distance <= 0 is inside"), so points exactly on the boundary stay.
 *  - Where the sign changes between the previous vertex B and the current vertex A, the crossing
 *    point is wa·A + (1 − wa)·B with wa = s_B/(s_B − s_A) (§2.1 step 4, §2.2), emitted in the
 *    order of Drake's ClipPolygonByHalfSpace: crossing before A when entering, crossing alone
 *    when leaving. Clipping preserves the winding of the input.
 *  - Tet faces: face f is opposite vertex f, with the outward-winding triples of mesh_recipes §6
 *    (0: (1,2,3), 1: (0,3,2), 2: (0,1,3), 3: (0,2,1)); the half-space normal is the unit
 *    right-hand normal of the triple, through its first vertex. These are exactly the negated
 *    inward normals the tet–tet clipper uses (§6), so one helper serves §2.1 and §2.2.
 *    Deviation from Drake, for inverted (deformed) tets only: the normals are multiplied by the
 *    sign of the tet's signed volume, so an inverted tet clips to its geometric interior instead
 *    of to nothing; a flat tet (signed volume exactly 0) clips everything away.
 *  - RemoveNearlyDuplicateVertices (§2.1, mesh_intersection.cc): squared distance < 1e-28
 *    absolute (§8), consecutive near duplicates dropped like std::unique (each vertex compared with
 *    the last kept one), then, if >= 3 remain and the last is near the first, the last is popped
 *    (once).
 *
 * Buffers: HYDRO_CLIP_CAP vertices. In exact arithmetic a convex n-gon clipped by one half-space
 * has at most n + 1 vertices, so the 4 clips of a triangle or a 4-gon stay <= 8; the headroom only
 * absorbs spurious sign changes from rounding, which the final duplicate removal merges. If it
 * is ever exceeded the clip reports -1 and the pair is treated as empty. */
#ifndef ISO_KERNELS_HYDRO_CLIP_H
#define ISO_KERNELS_HYDRO_CLIP_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

#define HYDRO_DUP_DIST2 1e-28 /* (1e-14 m)², absolute (§8) */
#define HYDRO_CLIP_CAP 16

/* RemoveNearlyDuplicateVertices on v[0..n) (and the scalars q alongside, when q is not NULL).
 * Returns the new count. The common polygon has no near duplicates, and then the loop keeps
 * every vertex, having compared each with the one before it: those n − 1 distances are formed
 * first, independently, and the loop runs only when one of them is near. In the loop each
 * comparison's address waits on the verdict before it (which vertex was kept last), a chain
 * that held most of a tet–plane face's duplicate removal. The same verdicts, so the same
 * polygon (a NaN distance is not near in either). */
static inline ISO_HD ISO_INLINE int hydro_remove_near_duplicates(vec3 *v, real *q, int n) {
  int i, m = 0, near = 0;
  for (i = 1; i < n; ++i) near |= v3_norm2(v3_sub(v[i], v[i - 1])) < (real)HYDRO_DUP_DIST2;
  if (!near) return n >= 3 && v3_norm2(v3_sub(v[0], v[n - 1])) < (real)HYDRO_DUP_DIST2 ? n - 1 : n;
  for (i = 0; i < n; ++i) {
    if (m == 0 || !(v3_norm2(v3_sub(v[i], v[m - 1])) < (real)HYDRO_DUP_DIST2)) {
      if (m != i) { /* nothing dropped yet (the common case): no copy onto itself */
        v[m] = v[i];
        if (q) q[m] = q[i];
      }
      ++m;
    }
  }
  if (m >= 3 && v3_norm2(v3_sub(v[0], v[m - 1])) < (real)HYDRO_DUP_DIST2) --m;
  return m;
}

/* Clip polygon in[0..n) by the half-space {dist <= 0}, given each vertex's signed distance
 * dist[i]. Writes at most cap vertices to out; returns the count, or -1 when cap would be
 * exceeded. in and out must not overlap. */
static inline ISO_HD int hydro_clip_by_dist(const vec3 *in, const real *dist, int n, vec3 *out, int cap) {
  int i, m = 0;
  /* the previous vertex by a carried index: `(i + n − 1) % n` was an integer division per
   * vertex, whose latency the CPU waited on in every clip */
  for (i = 0; i < n; ++i) {
    const int j = i == 0 ? n - 1 : i - 1;
    const int cur_in = dist[i] <= (real)0;
    const int prev_in = dist[j] <= (real)0;
    if (cur_in != prev_in) {
      /* wa = s_B/(s_B − s_A) with A = current, B = previous; exactly one is > 0, so the
       * denominator is nonzero. */
      const real wa = dist[j] / (dist[j] - dist[i]);
      if (m >= cap) return -1;
      out[m++] = v3_add(v3_scale(in[i], wa), v3_scale(in[j], (real)1 - wa));
    }
    if (cur_in) {
      if (m >= cap) return -1;
      out[m++] = in[i];
    }
  }
  return m;
}

/* Clip polygon in[0..n) (n <= HYDRO_CLIP_CAP) by {x : nrm·(x − point) <= 0}. */
static inline ISO_HD int hydro_clip_halfspace(const vec3 *in, int n, vec3 nrm, vec3 point, vec3 *out,
                                              int cap) {
  real dist[HYDRO_CLIP_CAP];
  int i;
  if (n > HYDRO_CLIP_CAP) return -1;
  for (i = 0; i < n; ++i) dist[i] = v3_dot(nrm, v3_sub(in[i], point));
  return hydro_clip_by_dist(in, dist, n, out, cap);
}

/* Six times the signed volume, ((x1−x0)×(x2−x0))·(x3−x0); positive for Drake's orientation
 * (mesh_recipes §0). */
static inline ISO_HD real hydro_tet_volume6(const vec3 t[4]) {
  return v3_dot(v3_cross(v3_sub(t[1], t[0]), v3_sub(t[2], t[0])), v3_sub(t[3], t[0]));
}

/* The vertex hydro_tet_face_plane gives as face f's point (its triple's first). */
static inline ISO_HD int hydro_tet_face_point(int f) { return f == 0 ? 1 : 0; }

/* (t_b − t_a) × (t_c − t_a) for face f's outward-winding triple (a, b, c) of mesh_recipes §6:
 * its outward normal, not yet of unit length. */
static inline ISO_HD vec3 hydro_tet_face_cross(const vec3 t[4], int f) {
  int a, b, c;
  switch (f) {
    case 0: a = 1; b = 2; c = 3; break;
    case 1: a = 0; b = 3; c = 2; break;
    case 2: a = 0; b = 1; c = 3; break;
    default: a = 0; b = 2; c = 1; break;
  }
  return v3_cross(v3_sub(t[b], t[a]), v3_sub(t[c], t[a]));
}

/* Unit outward normal of face f (opposite vertex f) of a positively oriented tet, from the
 * outward-winding triple of mesh_recipes §6, and the triple's first vertex as a point on it. */
static inline ISO_HD void hydro_tet_face_plane(const vec3 t[4], int f, vec3 *nrm, vec3 *point) {
  *nrm = v3_normalize(hydro_tet_face_cross(t, f));
  *point = t[hydro_tet_face_point(f)];
}

/* Face f's clipping half-space of a tet whose signed volume has sign sgn (±1): the unit outward
 * normal times sgn, and a point on the face (hydro_clip_by_tet's). */
static inline ISO_HD void hydro_tet_clip_plane(const vec3 t[4], int f, real sgn, vec3 *nrm, vec3 *point) {
  vec3 n;
  hydro_tet_face_plane(t, f, &n, point);
  *nrm = v3_scale(n, sgn);
}

/* The end of a clip by a tet's four faces that alternates between poly and a second buffer, as
 * the clip functions below do (a copy back after each face was, on the CPU, a libc memcpy call
 * per face for 3–8 vertices): after all four faces the polygon is back in poly; an empty one
 * ends the loop early and needs no copy. */
static inline ISO_HD int hydro_clip_result(vec3 *poly, const vec3 *src, int n) {
  if (src != poly)
    for (int i = 0; i < n; ++i) poly[i] = src[i];
  return n;
}

/* Clip poly[0..n) in place by the 4 face half-spaces of tet t, faces in order 0, 1, 2, 3
 * (mesh_recipes §6). Returns the count; 0 when empty (an empty intermediate result ends the
 * clipping, §2.1 step 4), -1 on buffer overflow. No duplicate removal (the caller does it). */
static inline ISO_HD int hydro_clip_by_tet(vec3 poly[HYDRO_CLIP_CAP], int n, const vec3 t[4]) {
  vec3 tmp[HYDRO_CLIP_CAP], *src = poly, *dst = tmp;
  const real vol6 = hydro_tet_volume6(t);
  const real sgn = vol6 > (real)0 ? (real)1 : (real)-1;
  int f;
  if (!(vol6 != (real)0)) return 0; /* flat (or NaN) tet: no interior */
  for (f = 0; f < 4 && n > 0; ++f) {
    vec3 nrm, point;
    hydro_tet_clip_plane(t, f, sgn, &nrm, &point);
    n = hydro_clip_halfspace(src, n, nrm, point, dst, HYDRO_CLIP_CAP);
    vec3 *sw = src;
    src = dst, dst = sw;
  }
  return hydro_clip_result(poly, src, n);
}

#endif
