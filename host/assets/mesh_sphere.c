/* Compliant tetrahedral meshes of a sphere and an ellipsoid: Drake's MakeSphereVolumeMesh and
 * MakeEllipsoidVolumeMesh with the hydroelastic default strategy "single interior vertex"
 * (reference/mesh_recipes.md §4).
 *
 * The unit sphere starts as an octahedron (level 0: 7 vertices, 8 tets, the centre vertex 0
 * last in every tet). Each refinement level splits every surface triangle into four by its
 * edge midpoints, projected back onto the unit sphere, and cones the new triangles to the
 * centre, so the centre stays the only interior vertex. Level L has 4·4^L + 3 vertices and
 * 8·4^L tets; the mesh is then scaled by the radius (or per axis for an ellipsoid). Vertex and
 * tet order follow Drake's (first-seen edge midpoints, the 4 children in Drake's order), so
 * the same hint gives the same mesh element for element. All tets are positively oriented. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"

#define PI 3.14159265358979323846

/* The deepest refinement Drake allows (§4.1): 524288 tets. */
#define MAX_LEVEL 8

/* Drake's level formula (§4.1): e = min(h, 2r); L = max(0, ⌈log₂(π / asin(e/2r))⌉ − 2),
 * capped at 8. At level L the equator carries 4·2^L chords of length 2r·sin(π/(4·2^L)); L is
 * the smallest level whose chord is <= h. Evaluated with the same libm calls as Drake's
 * std:: ones so the same inputs land on the same level, rounding included. */
static int sphere_level(double r, double h) {
  double e = h < 2 * r ? h : 2 * r;
  double l = ceil(log2(PI / asin(e / (2 * r)))) - 2;
  if (!(l > 0)) return 0;
  return l > MAX_LEVEL ? MAX_LEVEL : (int)l;
}

/* Edge → midpoint vertex map for one refinement pass: open addressing on the packed key
 * (min << 32 | max); size a power of two at least twice the number of edges. Only lookups by
 * key, never iteration, so the table's layout cannot influence the output order. */
typedef struct edgeMap {
  uint64_t *key; /* 0 = empty (a real key always has max > min >= 0, so it is nonzero) */
  int *val;
  size_t mask;
} edgeMap;

static size_t edge_slot(const edgeMap *h, uint64_t k) {
  size_t i = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & h->mask;
  while (h->key[i] != 0 && h->key[i] != k) i = (i + 1) & h->mask;
  return i;
}

/* Vertex index of the midpoint of edge (a, b), appending normalize((A+B)/2) the first time. */
static int midpoint(edgeMap *h, real *vert, int *nvert, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  uint64_t k = ((uint64_t)lo << 32) | (uint64_t)hi;
  size_t s = edge_slot(h, k);
  if (h->key[s] == k) return h->val[s];
  int v = (*nvert)++;
  real m[3], n2 = 0;
  for (int i = 0; i < 3; ++i) {
    m[i] = (vert[3 * a + i] + vert[3 * b + i]) / 2;
    n2 += m[i] * m[i];
  }
  real n = sqrt(n2);
  /* per-component division, as Eigen's normalized() does */
  for (int i = 0; i < 3; ++i) vert[3 * v + i] = m[i] / n;
  h->key[s] = k;
  h->val[s] = v;
  return v;
}

/* The unit-sphere mesh at `level` (§4.2, §4.3). */
static isoStatus unit_sphere(int level, tetMesh *out) {
  int ntet = 8, nvert = 7;
  for (int l = 0; l < level; ++l) {
    ntet *= 4;
    nvert = 4 * (nvert - 3) + 3; /* 4·4^L + 3 */
  }
  isoStatus st = ISO_OK;
  int *buf = NULL;
  edgeMap h = {NULL, NULL, 0};
  TRY(tet_mesh_alloc(out, nvert, ntet));
  buf = (int *)malloc((size_t)ntet * 4 * sizeof(int));
  /* surface edges at the finest parent level: 3/2 per surface triangle, one triangle per tet */
  size_t cap = 16;
  while (cap < (size_t)ntet) cap *= 2;
  h.key = (uint64_t *)malloc(cap * sizeof(uint64_t));
  h.val = (int *)malloc(cap * sizeof(int));
  h.mask = cap - 1;
  if (!buf || !h.key || !h.val) {
    st = iso_fail(ISO_ERR_NOMEM, "sphere mesh: out of memory for %d tetrahedra", ntet);
    goto fail;
  }

  /* Level 0: centre, +x, +y, −x, −y, +z, −z; upper tets (p, +z, next p, centre), lower tets
   * (next p, −z, p, centre) for p = 1→2→3→4 around +z (§4.2). */
  static const real kOcta[7][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  static const int kOctaTets[8][4] = {{1, 5, 2, 0}, {2, 5, 3, 0}, {3, 5, 4, 0}, {4, 5, 1, 0},
                                      {2, 6, 1, 0}, {3, 6, 2, 0}, {4, 6, 3, 0}, {1, 6, 4, 0}};
  memcpy(out->vert, kOcta, sizeof kOcta);
  int *cur = out->tet, *nxt = buf;
  if (level % 2 == 1) { /* so that the last pass writes into out->tet */
    cur = buf;
    nxt = out->tet;
  }
  memcpy(cur, kOctaTets, sizeof kOctaTets);
  int nv = 7, nt = 8;
  for (int l = 0; l < level; ++l) {
    memset(h.key, 0, cap * sizeof(uint64_t));
    for (int t = 0; t < nt; ++t) {
      const int *q = cur + 4 * t;
      int a = q[0], b = q[1], c = q[2], o = q[3];
      /* edges visited (a,b), (a,c), (b,c): this fixes the new vertices' numbering */
      int e = midpoint(&h, out->vert, &nv, a, b);
      int f = midpoint(&h, out->vert, &nv, a, c);
      int d = midpoint(&h, out->vert, &nv, b, c);
      const int kids[4][4] = {{a, e, f, o}, {b, d, e, o}, {c, f, d, o}, {e, d, f, o}};
      memcpy(nxt + 16 * (size_t)t, kids, sizeof kids);
    }
    nt *= 4;
    int *s = cur;
    cur = nxt;
    nxt = s;
  }
  free(buf);
  free(h.key);
  free(h.val);
  return ISO_OK;

fail:
  free(buf);
  free(h.key);
  free(h.val);
  tet_mesh_free(out);
  return st;
}

static isoStatus check_positive(const char *shape, const char *name, double v) {
  if (!(v > 0) || !isfinite(v))
    return iso_fail(ISO_ERR_INVALID, "%s mesh: %s %g must be positive and finite", shape, name, v);
  return ISO_OK;
}

isoStatus mesh_sphere_tets(double radius, double hint, tetMesh *out) {
  CHECK_NULL(out, "mesh_sphere_tets");
  memset(out, 0, sizeof *out);
  isoStatus st;
  if ((st = check_positive("sphere", "radius", radius)) != ISO_OK) return st;
  if ((st = check_positive("sphere", "resolution hint", hint)) != ISO_OK) return st;
  if ((st = unit_sphere(sphere_level(radius, hint), out)) != ISO_OK) return st;
  for (int i = 0; i < 3 * out->nvert; ++i) out->vert[i] *= radius;
  return ISO_OK;
}

isoStatus mesh_ellipsoid_tets(const double abc[3], double hint, tetMesh *out) {
  CHECK_NULL(out, "mesh_ellipsoid_tets");
  memset(out, 0, sizeof *out);
  CHECK_NULL(abc, "mesh_ellipsoid_tets");
  isoStatus st;
  static const char *kAxis[3] = {"semi-axis a", "semi-axis b", "semi-axis c"};
  for (int i = 0; i < 3; ++i)
    if ((st = check_positive("ellipsoid", kAxis[i], abc[i])) != ISO_OK) return st;
  if ((st = check_positive("ellipsoid", "resolution hint", hint)) != ISO_OK) return st;
  /* §4.5: the unit sphere at the level for hint / r_max, then scaled per axis (positive
   * scales keep every tet positive). */
  double rmax = fmax(abc[0], fmax(abc[1], abc[2]));
  if ((st = unit_sphere(sphere_level(1.0, hint / rmax), out)) != ISO_OK) return st;
  for (int v = 0; v < out->nvert; ++v)
    for (int i = 0; i < 3; ++i) out->vert[3 * v + i] *= abc[i];
  return ISO_OK;
}
