/* Compliant tetrahedral mesh of a box that follows its medial axis, with symmetric triangles:
 * Drake's MakeBoxVolumeMeshWithMaAndSymmetricTriangles (reference/mesh_recipes.md §1).
 *
 * The medial axis (MA) cuts the box into six convex blocks, one per face (the points nearest
 * that face). Every planar piece of the MA is triangulated (with shared diagonals so that
 * neighbouring blocks conform) and each of those "roof" triangles is coned to the centre of
 * the face whose block it bounds. Every tet therefore lies in one block, where the depth below
 * the surface is the distance to one face plane, an affine function: the box pressure field
 * E·depth/h_min is represented exactly by the piecewise-linear mesh field (§1.7).
 *
 * The MA centre piece is a point (cube: 15 vertices, 24 tets), a segment (two equal shorter
 * sides: 17 / 40) or a rectangle (one strictly smallest side: 18 / 44). Each case is built in
 * a canonical frame (corner index 4i + 2j + k, bits = signs of x, y, z) from the recipe's
 * roof-triangle tables and turned into the box frame by a proper rotation, so orientation is
 * kept. Each tet is (roof triangle, face centre), with the triangle's first two vertices
 * swapped when that makes it positive. Drake stores the same set of tets in a hand-made order;
 * the order here is: blocks in the tables' order, triangles in list order (§1.5 note). The
 * boundary is 4 triangles per face around its centre, 24 in all. */
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

/* tol(s) = 1e-14·max(1, s): Drake's DistanceToPointRelativeTolerance (§0). */
static double rel_tol(double s) { return 1e-14 * (s > 1 ? s : 1); }

/* ---- roof-triangle tables (canonical indices), §1.4 and §1.5 ----------------------------- */

/* Line MA: apex (face centre) then 8 roof triangles; the ±z squares have only 4. */
static const int kLineApex[6] = {15, 16, 11, 12, 13, 14};
static const int kLineCount[6] = {4, 4, 8, 8, 8, 8};
static const int kLineRoof[6][8][3] = {
    {{0, 2, 9}, {0, 4, 9}, {2, 6, 9}, {4, 6, 9}},
    {{1, 3, 8}, {1, 5, 8}, {3, 7, 8}, {5, 7, 8}},
    {{0, 2, 9}, {1, 3, 8}, {0, 1, 10}, {1, 8, 10}, {0, 9, 10}, {2, 3, 10}, {3, 8, 10}, {2, 9, 10}},
    {{4, 6, 9}, {5, 7, 8}, {4, 5, 10}, {5, 8, 10}, {4, 9, 10}, {6, 7, 10}, {7, 8, 10}, {6, 9, 10}},
    {{0, 4, 9}, {1, 5, 8}, {0, 1, 10}, {1, 8, 10}, {0, 9, 10}, {4, 5, 10}, {5, 8, 10}, {4, 9, 10}},
    {{2, 6, 9}, {3, 7, 8}, {2, 3, 10}, {3, 8, 10}, {2, 9, 10}, {6, 7, 10}, {7, 8, 10}, {6, 9, 10}},
};

/* Rectangle MA: frusta on ±x (10 triangles), hip roofs on ±y, ±z (6). */
static const int kRectApex[6] = {12, 13, 14, 15, 16, 17};
static const int kRectCount[6] = {10, 10, 6, 6, 6, 6};
static const int kRectRoof[6][10][3] = {
    {{8, 9, 11}, {8, 11, 10}, {0, 2, 11}, {0, 11, 10}, {1, 3, 9}, {1, 9, 8}, {0, 1, 8}, {0, 8, 10}, {2, 3, 9}, {2, 9, 11}},
    {{8, 9, 11}, {8, 11, 10}, {4, 6, 11}, {4, 11, 10}, {5, 7, 9}, {5, 9, 8}, {4, 5, 8}, {4, 8, 10}, {6, 7, 9}, {6, 9, 11}},
    {{0, 4, 10}, {1, 5, 8}, {0, 1, 8}, {0, 8, 10}, {4, 5, 8}, {4, 8, 10}},
    {{2, 6, 11}, {3, 7, 9}, {2, 3, 9}, {2, 9, 11}, {6, 7, 9}, {6, 9, 11}},
    {{0, 4, 10}, {2, 6, 11}, {0, 2, 11}, {0, 11, 10}, {4, 6, 11}, {4, 11, 10}},
    {{1, 5, 8}, {3, 7, 9}, {1, 3, 9}, {1, 9, 8}, {5, 7, 9}, {5, 9, 8}},
};

/* ---- helpers -------------------------------------------------------------------------------- */

static void set_vert(tetMesh *m, int i, double x, double y, double z) {
  m->vert[3 * i] = x;
  m->vert[3 * i + 1] = y;
  m->vert[3 * i + 2] = z;
}

/* Corners 0..7 at (±a, ±b, ±c) by the 4i + 2j + k sign rule (§1.1). */
static void set_corners(tetMesh *m, double a, double b, double c) {
  for (int v = 0; v < 8; ++v) set_vert(m, v, (v & 4) ? a : -a, (v & 2) ? b : -b, (v & 1) ? c : -c);
}

static vec3 vert_of(const tetMesh *m, int i) { return v3(m->vert[3 * i], m->vert[3 * i + 1], m->vert[3 * i + 2]); }

/* Append tet (a, b, c, apex), swapping a and b when that makes it positive (§0). */
static void add_tet(tetMesh *m, int *nt, int a, int b, int c, int apex) {
  vec3 A = vert_of(m, a), B = vert_of(m, b), C = vert_of(m, c), D = vert_of(m, apex);
  real v6 = v3_dot(v3_cross(v3_sub(B, A), v3_sub(C, A)), v3_sub(D, A));
  int *t = m->tet + 4 * (*nt)++;
  t[0] = v6 < 0 ? b : a;
  t[1] = v6 < 0 ? a : b;
  t[2] = c;
  t[3] = apex;
}

/* Canonical → box frame, in place: (x,y,z) ↦ the listed permutation with one sign flip.
 * `map[i]` is the canonical axis that lands on box axis i, `neg[i]` its sign (det = +1). */
static void rotate(tetMesh *m, const int map[3], const int neg[3]) {
  for (int v = 0; v < m->nvert; ++v) {
    real c[3] = {m->vert[3 * v], m->vert[3 * v + 1], m->vert[3 * v + 2]};
    for (int i = 0; i < 3; ++i) m->vert[3 * v + i] = neg[i] ? -c[map[i]] : c[map[i]];
  }
}

/* ---- the three cases ------------------------------------------------------------------------ */

/* Point MA (§1.3): L = the x half size for all axes, as Drake does (the others equal it
 * within tol). Per face (centres 9..14 = −x, +x, −y, +y, −z, +z) and per edge (a, b) of the
 * face: tet {a, b, MA point 8, centre}. */
static isoStatus box_point(double L, tetMesh *m) {
  isoStatus st = tet_mesh_alloc(m, 15, 24);
  if (st != ISO_OK) return st;
  set_corners(m, L, L, L);
  set_vert(m, 8, 0, 0, 0);
  for (int f = 0; f < 6; ++f) {
    real c[3] = {0, 0, 0};
    c[f / 2] = (f % 2) ? L : -L;
    set_vert(m, 9 + f, c[0], c[1], c[2]);
  }
  int nt = 0;
  for (int f = 0; f < 6; ++f) {
    int bit = 4 >> (f / 2), want = (f % 2) ? bit : 0; /* x ↔ bit 4, y ↔ 2, z ↔ 1 */
    for (int a = 0; a < 8; ++a)
      for (int b = a + 1; b < 8; ++b) {
        int d = a ^ b;
        if ((a & bit) != want || (b & bit) != want) continue;
        if (d != 1 && d != 2 && d != 4) continue; /* an edge: indices differ in one bit */
        add_tet(m, &nt, a, b, 8, 9 + f);
      }
  }
  return ISO_OK;
}

/* Line MA (§1.4): long axis z_dir, short half size L1 on both other axes. */
static isoStatus box_line(const double h[3], int z_dir, tetMesh *m) {
  isoStatus st = tet_mesh_alloc(m, 17, 40);
  if (st != ISO_OK) return st;
  double L1 = h[(z_dir + 1) % 3], L2 = h[z_dir], Lm = L2 - L1;
  set_corners(m, L1, L1, L2);
  set_vert(m, 8, 0, 0, Lm);
  set_vert(m, 9, 0, 0, -Lm);
  set_vert(m, 10, 0, 0, 0);
  set_vert(m, 11, -L1, 0, 0);
  set_vert(m, 12, L1, 0, 0);
  set_vert(m, 13, 0, -L1, 0);
  set_vert(m, 14, 0, L1, 0);
  set_vert(m, 15, 0, 0, -L2);
  set_vert(m, 16, 0, 0, L2);
  int nt = 0;
  for (int b = 0; b < 6; ++b)
    for (int k = 0; k < kLineCount[b]; ++k)
      add_tet(m, &nt, kLineRoof[b][k][0], kLineRoof[b][k][1], kLineRoof[b][k][2], kLineApex[b]);
  /* z_dir = 0: (x,y,z) ↦ (−z, y, x); z_dir = 1: (x,y,z) ↦ (x, −z, y); z_dir = 2: identity. */
  static const int kMap[3][3] = {{2, 1, 0}, {0, 2, 1}, {0, 1, 2}};
  static const int kNeg[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}};
  rotate(m, kMap[z_dir], kNeg[z_dir]);
  return ISO_OK;
}

/* Rectangle MA (§1.5): smallest half size L1 along canonical x, MA rectangle in x = 0. */
static isoStatus box_rect(const double h[3], int x_dir, tetMesh *m) {
  isoStatus st = tet_mesh_alloc(m, 18, 44);
  if (st != ISO_OK) return st;
  double L1 = h[x_dir], L2, L3;
  if (x_dir == 0) {
    L2 = h[1];
    L3 = h[2];
  } else if (x_dir == 1) {
    L2 = h[0];
    L3 = h[2];
  } else {
    L2 = h[1];
    L3 = h[0];
  }
  double a2 = L2 - L1, a3 = L3 - L1;
  set_corners(m, L1, L2, L3);
  set_vert(m, 8, 0, -a2, a3);
  set_vert(m, 9, 0, a2, a3);
  set_vert(m, 10, 0, -a2, -a3);
  set_vert(m, 11, 0, a2, -a3);
  set_vert(m, 12, -L1, 0, 0);
  set_vert(m, 13, L1, 0, 0);
  set_vert(m, 14, 0, -L2, 0);
  set_vert(m, 15, 0, L2, 0);
  set_vert(m, 16, 0, 0, -L3);
  set_vert(m, 17, 0, 0, L3);
  int nt = 0;
  for (int b = 0; b < 6; ++b)
    for (int k = 0; k < kRectCount[b]; ++k)
      add_tet(m, &nt, kRectRoof[b][k][0], kRectRoof[b][k][1], kRectRoof[b][k][2], kRectApex[b]);
  /* x_dir = 0: identity; 1: (x,y,z) ↦ (−y, x, z); 2: (x,y,z) ↦ (−z, y, x). */
  static const int kMap[3][3] = {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}};
  static const int kNeg[3][3] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}};
  rotate(m, kMap[x_dir], kNeg[x_dir]);
  return ISO_OK;
}

isoStatus mesh_box_tets(const double half[3], tetMesh *out) {
  CHECK_NULL(out, "mesh_box_tets");
  memset(out, 0, sizeof *out);
  CHECK_NULL(half, "mesh_box_tets");
  for (int i = 0; i < 3; ++i)
    if (!(half[i] > 0) || !isfinite(half[i]))
      return iso_fail(ISO_ERR_INVALID, "box mesh: half size %g along axis %d must be positive and finite", half[i], i);
  /* §1.1: central MA half sizes c_a = h_a − h_min, zeroed within tol(h_min). */
  double hmin = fmin(half[0], fmin(half[1], half[2]));
  int zero[3], nzero = 0;
  for (int i = 0; i < 3; ++i) {
    zero[i] = half[i] - hmin <= rel_tol(hmin);
    nzero += zero[i];
  }
  if (nzero == 3) return box_point(half[0], out);
  if (nzero == 2) return box_line(half, zero[0] ? (zero[1] ? 2 : 1) : 0, out);
  return box_rect(half, zero[0] ? 0 : (zero[1] ? 1 : 2), out);
}
