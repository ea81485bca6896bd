/* Slicing one tetrahedron by a plane with the marching-tets table.
 *
 * Place in the pipeline: narrow phase (stage 4). The tet–tet pair slices tet M by the
 * equilibrium plane of the two pressure fields (drake_algorithms §2.1 step 3) and the
 * compliant-volume vs rigid half-space pair slices the tet by the half-space boundary (§2.3).
 * Drake's routine is SliceTetrahedronWithPlane (mesh_plane_intersection.cc); the table is
 * mesh_recipes §5.
 *
 * Conventions (mesh_recipes §5):
 *  - s[k] is the signed height of tet vertex k above the plane; bit k of the sign code is set
 *    iff s[k] > 0 (a vertex exactly on the plane counts as below).
 *  - Edges e0..e5 = (0,1), (1,2), (2,0), (0,3), (1,3), (2,3); the first vertex u of an edge is
 *    the interpolation origin: t = s_u/(s_u − s_w), P = X_u + t·(X_w − X_u).
 *  - For a positively oriented tet (mesh_recipes §0: ((x1−x0)×(x2−x0))·(x3−x0) > 0) the polygon
 *    visited in table order has its right-hand normal along the plane normal, i.e. toward the
 *    vertices with s > 0. A negatively oriented tet gives the reversed winding; callers that
 *    must be robust to inverted elements re-orient afterwards (hydro_polygon_orient).
 *  - Polygon edge k (cut point k to cut point k+1, cyclically) lies on tet face
 *    out_face[k]; face i is the face opposite vertex i (mesh_recipes §6).
 *
 * The table is encoded as nibbles in a switch (no file-scope array: CUDA device code cannot
 * read a host `static const` array). Nibble k holds the k-th entry; 0xF marks "none". */
#ifndef ISO_KERNELS_HYDRO_SLICE_H
#define ISO_KERNELS_HYDRO_SLICE_H

#include "kernels/core.h"
#include "kernels/math/vec3.h"

/* Cut edges in polygon order for each sign code (mesh_recipes §5 table, "cut edges"). */
static inline ISO_HD unsigned hydro_slice_case_edges(int code) {
  switch (code) {
    case 1: return 0xF230u;  /* 0001: e0, e3, e2 */
    case 2: return 0xF410u;  /* 0010: e0, e1, e4 */
    case 3: return 0x1234u;  /* 0011: e4, e3, e2, e1 */
    case 4: return 0xF521u;  /* 0100: e1, e2, e5 */
    case 5: return 0x1530u;  /* 0101: e0, e3, e5, e1 */
    case 6: return 0x4520u;  /* 0110: e0, e2, e5, e4 */
    case 7: return 0xF453u;  /* 0111: e3, e5, e4 */
    case 8: return 0xF543u;  /* 1000: e3, e4, e5 */
    case 9: return 0x0254u;  /* 1001: e4, e5, e2, e0 */
    case 10: return 0x0351u; /* 1010: e1, e5, e3, e0 */
    case 11: return 0xF251u; /* 1011: e1, e5, e2 */
    case 12: return 0x4321u; /* 1100: e1, e2, e3, e4 */
    case 13: return 0xF140u; /* 1101: e0, e4, e1 */
    case 14: return 0xF320u; /* 1110: e0, e2, e3 */
    default: return 0xFFFFu; /* 0000 and 1111: the plane misses the tet */
  }
}

/* Tet face (opposite vertex i) holding each polygon edge (mesh_recipes §5 table, "faces"). */
static inline ISO_HD unsigned hydro_slice_case_faces(int code) {
  switch (code) {
    case 1: return 0xF312u;  /* 2, 1, 3 */
    case 2: return 0xF203u;  /* 3, 0, 2 */
    case 3: return 0x0312u;  /* 2, 1, 3, 0 */
    case 4: return 0xF013u;  /* 3, 1, 0 */
    case 5: return 0x3012u;  /* 2, 1, 0, 3 */
    case 6: return 0x2013u;  /* 3, 1, 0, 2 */
    case 7: return 0xF201u;  /* 1, 0, 2 */
    case 8: return 0xF102u;  /* 2, 0, 1 */
    case 9: return 0x2310u;  /* 0, 1, 3, 2 */
    case 10: return 0x3210u; /* 0, 1, 2, 3 */
    case 11: return 0xF310u; /* 0, 1, 3 */
    case 12: return 0x0213u; /* 3, 1, 2, 0 */
    case 13: return 0xF302u; /* 2, 0, 3 */
    case 14: return 0xF213u; /* 3, 1, 2 */
    default: return 0xFFFFu;
  }
}

/* Endpoints of edge e (0..5): e0..e2 = (e, e+1 mod 3), e3..e5 = (e−3, 3); read off nibble e of
 * a constant (u: 0 1 2 0 1 2, w: 1 2 0 3 3 3), as the case tables are. */
static inline ISO_HD int hydro_slice_edge_u(int e) { return (int)((0x210210u >> (4 * e)) & 0xFu); }
static inline ISO_HD int hydro_slice_edge_w(int e) { return (int)((0x333021u >> (4 * e)) & 0xFu); }

/* Sign code of the heights: bit k set iff s[k] > 0. */
static inline ISO_HD int hydro_slice_code(const real s[4]) {
  int code = 0, k;
  for (k = 0; k < 4; ++k)
    if (s[k] > (real)0) code |= 1 << k;
  return code;
}

/* Slice tet x by the plane of heights s. Writes 0, 3 or 4 cut points to out in table order and
 * returns their count. Optional (may be NULL): q, a scalar per tet vertex interpolated to the cut
 * points into out_q (same t as the position; §2.3 uses it for the vertex pressures), and
 * out_face, the tet face of each polygon edge. No duplicate removal here (the caller runs
 * hydro_remove_near_duplicates as §2.1 step 3 says). */
static inline ISO_HD int hydro_slice_tet(const vec3 x[4], const real s[4], const real *q, vec3 out[4],
                                         real *out_q, int *out_face) {
  const int code = hydro_slice_code(s);
  const unsigned edges = hydro_slice_case_edges(code);
  const unsigned faces = hydro_slice_case_faces(code);
  int k, n = 0;
  for (k = 0; k < 4; ++k) {
    const int e = (int)((edges >> (4 * k)) & 0xFu);
    int u, w;
    real t;
    if (e > 5) break;
    u = hydro_slice_edge_u(e);
    w = hydro_slice_edge_w(e);
    /* The endpoints' bits differ, so exactly one of s_u, s_w is > 0 and the other <= 0:
     * s_u − s_w is nonzero and t lies in [0, 1]. */
    t = s[u] / (s[u] - s[w]);
    out[n] = v3_axpy(x[u], t, v3_sub(x[w], x[u]));
    if (q && out_q) out_q[n] = q[u] + t * (q[w] - q[u]);
    if (out_face) out_face[n] = (int)((faces >> (4 * k)) & 0xFu);
    ++n;
  }
  return n;
}

#endif
