/* The distance pressure field of a general tetrahedral mesh: Drake's
 * MakeVolumeMeshPressureField (make_mesh_field.cc, drake_algorithms.md §1.6 and §1.7), used
 * for compliant Convex shapes and .vtk meshes at model compile.
 *
 *   value(v) = 0                 for a boundary vertex (a vertex of a face used by one tet),
 *   value(v) = d(v) + δ          otherwise, d = unsigned distance to the boundary surface,
 *   p(v)     = E·(value − δ)/(max − δ),  max = the largest value.
 * So interior vertices get E·d/d_max (the deepest gets exactly E) and boundary vertices get
 * −E·δ/d_max: the zero level set lies about δ inside the mesh's surface, which is what a mesh
 * already inflated by δ needs. With δ = 0 the boundary is exactly 0.
 *
 * The boundary comes from mesh_tet_boundary, whose vertices keep their relative order
 * (compact renumbering by increasing original index, documented in host/assets/mesh_core.c); walking
 * both vertex lists together and matching coordinates bit for bit recovers which original
 * vertices are on the boundary, and the walk must consume the whole surface list.
 *
 * Distances: exact point-to-triangle distance (Ericson, Real-Time Collision Detection §5.1.5)
 * through a small AABB tree over the boundary triangles (median split on the longest axis,
 * up to 4 triangles per leaf, nearest child first, subtrees pruned when their box is farther
 * than the best distance so far). Cost about O(n_interior · log n_tri) against the
 * O(n_interior · n_tri) of a plain loop; Drake uses an OBB tree for the same query. The tree
 * gives the same minimum as the plain loop (each triangle's distance is computed the same
 * way; only the visiting order differs), so results do not depend on the tree's shape. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

#define LEAF_TRIS 4
#define STACK_MAX 128 /* > 2·(tree depth ≤ 31) + 2 */

typedef struct dItem {
  vec3 c; /* triangle centroid: the sort key */
  int tri;
} dItem;

typedef struct dNode {
  vec3 lo, hi;
  int a, b; /* inner: children a, b; leaf (a < 0): items [-a-1, b) */
} dNode;

typedef struct dTree {
  const triMesh *s;
  dItem *item;  /* (ntri), leaf order after the build */
  dNode *node;  /* (2·ntri) */
  int nnode;
} dTree;

static vec3 vat(const real *v, int i) { return v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]); }

/* Total orders (centroid coordinate, then triangle id), so the build is reproducible. */
#define ITEM_CMP(name, field)                                          \
  static int name(const void *pa, const void *pb) {                    \
    const dItem *x = (const dItem *)pa, *y = (const dItem *)pb;        \
    if (x->c.field != y->c.field) return x->c.field < y->c.field ? -1 : 1; \
    return (x->tri > y->tri) - (x->tri < y->tri);                      \
  }
ITEM_CMP(cmp_x, x)
ITEM_CMP(cmp_y, y)
ITEM_CMP(cmp_z, z)

static int build(dTree *T, int lo, int hi) {
  int id = T->nnode++;
  vec3 bl = v3(DBL_MAX, DBL_MAX, DBL_MAX), bh = v3(-DBL_MAX, -DBL_MAX, -DBL_MAX);
  for (int i = lo; i < hi; ++i) {
    const int *f = T->s->tri + 3 * T->item[i].tri;
    for (int k = 0; k < 3; ++k) {
      vec3 p = vat(T->s->vert, f[k]);
      bl = v3(fmin(bl.x, p.x), fmin(bl.y, p.y), fmin(bl.z, p.z));
      bh = v3(fmax(bh.x, p.x), fmax(bh.y, p.y), fmax(bh.z, p.z));
    }
  }
  T->node[id].lo = bl;
  T->node[id].hi = bh;
  if (hi - lo <= LEAF_TRIS) {
    T->node[id].a = -lo - 1;
    T->node[id].b = hi;
    return id;
  }
  vec3 e = v3_sub(bh, bl);
  int (*cmp)(const void *, const void *) = cmp_x;
  if (e.y > e.x && e.y >= e.z) cmp = cmp_y;
  else if (e.z > e.x && e.z > e.y) cmp = cmp_z;
  qsort(T->item + lo, (size_t)(hi - lo), sizeof(dItem), cmp);
  int mid = lo + (hi - lo + 1) / 2;
  int l = build(T, lo, mid);
  int r = build(T, mid, hi);
  T->node[id].a = l;
  T->node[id].b = r;
  return id;
}

/* Squared distance from p to the box (0 inside). */
static real box_dist2(const dNode *n, vec3 p) {
  real dx = fmax(fmax(n->lo.x - p.x, p.x - n->hi.x), 0);
  real dy = fmax(fmax(n->lo.y - p.y, p.y - n->hi.y), 0);
  real dz = fmax(fmax(n->lo.z - p.z, p.z - n->hi.z), 0);
  return dx * dx + dy * dy + dz * dz;
}

/* Closest point to p on triangle abc, by Voronoi region (Ericson §5.1.5). */
static vec3 closest_on_tri(vec3 p, vec3 a, vec3 b, vec3 c) {
  vec3 ab = v3_sub(b, a), ac = v3_sub(c, a), ap = v3_sub(p, a);
  real d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  vec3 bp = v3_sub(p, b);
  real d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  real vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return v3_axpy(a, d1 / (d1 - d3), ab);
  vec3 cp = v3_sub(p, c);
  real d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  real vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return v3_axpy(a, d2 / (d2 - d6), ac);
  real va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return v3_axpy(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), v3_sub(c, b));
  real den = 1 / (va + vb + vc);
  return v3_add(a, v3_add(v3_scale(ab, vb * den), v3_scale(ac, vc * den)));
}

static real nearest2(const dTree *T, vec3 p) {
  real best = DBL_MAX;
  int stack[STACK_MAX], top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const dNode *n = &T->node[stack[--top]];
    if (box_dist2(n, p) >= best) continue;
    if (n->a < 0) {
      for (int i = -n->a - 1; i < n->b; ++i) {
        const int *f = T->s->tri + 3 * T->item[i].tri;
        vec3 a = vat(T->s->vert, f[0]), b = vat(T->s->vert, f[1]), c = vat(T->s->vert, f[2]);
        real d2 = v3_norm2(v3_sub(p, closest_on_tri(p, a, b, c)));
        if (d2 < best) best = d2;
      }
      continue;
    }
    /* push the farther child first so the nearer one is searched first */
    real da = box_dist2(&T->node[n->a], p), db = box_dist2(&T->node[n->b], p);
    stack[top++] = da <= db ? n->b : n->a;
    stack[top++] = da <= db ? n->a : n->b;
  }
  return best;
}

isoStatus field_distance(tetMesh *m, double E, double margin, const char *what) {
  CHECK_NULL(m, "field_distance");
  if (what == NULL) what = "mesh";
  if (!isfinite(E) || !(E > 0))
    return iso_fail(ISO_ERR_INVALID, "%s: hydroelastic modulus %g must be finite and > 0", what, E);
  if (!isfinite(margin) || !(margin >= 0))
    return iso_fail(ISO_ERR_INVALID, "%s: margin %g must be finite and >= 0", what, margin);

  triMesh s;
  memset(&s, 0, sizeof s);
  dTree T;
  memset(&T, 0, sizeof T);
  real *val = NULL;
  unsigned char *bnd = NULL;
  isoStatus st = mesh_tet_boundary(m, &s, what);
  if (st != ISO_OK) return st;
  val = (real *)malloc((size_t)m->nvert * sizeof(real));
  bnd = (unsigned char *)calloc((size_t)m->nvert, 1);
  T.s = &s;
  T.item = (dItem *)malloc((size_t)s.ntri * sizeof(dItem));
  T.node = (dNode *)malloc((size_t)s.ntri * 2 * sizeof(dNode));
  if (!val || !bnd || !T.item || !T.node) {
    st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory for the distance field of %d vertices", what, m->nvert);
    goto fail;
  }

  /* boundary vertices: the surface's vertices are the boundary ones in increasing order */
  int k = 0;
  for (int v = 0; v < m->nvert && k < s.nvert; ++v)
    if (memcmp(m->vert + 3 * v, s.vert + 3 * k, 3 * sizeof(real)) == 0) {
      bnd[v] = 1;
      ++k;
    }
  if (k != s.nvert) {
    st = iso_fail(ISO_ERR_STATE, "%s: boundary vertices could not be matched to the mesh (%d of %d)", what, k,
                  s.nvert);
    goto fail;
  }

  for (int t = 0; t < s.ntri; ++t) {
    const int *f = s.tri + 3 * t;
    T.item[t].c = v3_scale(v3_add(v3_add(vat(s.vert, f[0]), vat(s.vert, f[1])), vat(s.vert, f[2])), (real)1 / 3);
    T.item[t].tri = t;
  }
  build(&T, 0, s.ntri);

  real vmax = -DBL_MAX;
  int ninterior = 0;
  for (int v = 0; v < m->nvert; ++v) {
    if (bnd[v]) {
      val[v] = 0;
      continue;
    }
    vec3 p = vat(m->vert, v);
    if (!v3_isfinite(p)) {
      st = iso_fail(ISO_ERR_INVALID, "%s: vertex %d is not finite", what, v);
      goto fail;
    }
    val[v] = sqrt(nearest2(&T, p)) + margin;
    if (val[v] > vmax) vmax = val[v];
    ++ninterior;
  }
  if (ninterior == 0) {
    st = iso_fail(ISO_ERR_INVALID,
                  "%s: the tetrahedral mesh has no interior vertex, so a distance pressure field is undefined "
                  "(every vertex lies on the boundary surface)",
                  what);
    goto fail;
  }
  if (!(vmax - margin > 0)) {
    st = iso_fail(ISO_ERR_INVALID, "%s: every interior vertex lies on the boundary surface (largest depth 0)", what);
    goto fail;
  }
  if (m->pressure == NULL) {
    m->pressure = (real *)malloc((size_t)m->nvert * sizeof(real));
    if (m->pressure == NULL) {
      st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %d vertex pressures", what, m->nvert);
      goto fail;
    }
  }
  for (int v = 0; v < m->nvert; ++v) m->pressure[v] = E * (val[v] - margin) / (vmax - margin);
  st = ISO_OK;

fail:
  tri_mesh_free(&s);
  free(T.item);
  free(T.node);
  free(val);
  free(bnd);
  return st;
}

/* Drake's approximate signed-distance field of a deformable mesh (reference §6.4,
 * deformable–deformable): 0 at the vertices of the surface triangles, −(distance to the
 * surface) elsewhere, the same exact point-to-triangle distances through the same tree as
 * field_distance. Cost: the build O(ntri log² ntri), then one nearest-triangle query per
 * interior vertex, about O(log ntri) each on a well-shaped mesh (O(ntri) at worst). */
isoStatus mesh_sdf(const real *vert, int nvert, const int *tri, int ntri, real *sdf, const char *what) {
  if (what == NULL) what = "mesh";
  if (!vert || !tri || !sdf || nvert < 1 || ntri < 1)
    return iso_fail(ISO_ERR_INVALID, "%s: the signed-distance field needs vertices and surface triangles", what);
  for (int t = 0; t < 3 * ntri; ++t)
    if (tri[t] < 0 || tri[t] >= nvert)
      return iso_fail(ISO_ERR_INVALID, "%s: surface triangle %d names vertex %d of %d", what, t / 3, tri[t], nvert);
  triMesh s; /* a view: the tree reads s.vert and s.tri only */
  memset(&s, 0, sizeof s);
  s.vert = (real *)(uintptr_t)vert;
  s.tri = (int *)(uintptr_t)tri;
  s.nvert = nvert;
  s.ntri = ntri;
  dTree T;
  memset(&T, 0, sizeof T);
  T.s = &s;
  T.item = (dItem *)malloc((size_t)ntri * sizeof(dItem));
  T.node = (dNode *)malloc((size_t)ntri * 2 * sizeof(dNode));
  if (!T.item || !T.node) {
    free(T.item);
    free(T.node);
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for the signed-distance field of %d triangles", what, ntri);
  }
  for (int t = 0; t < ntri; ++t) {
    const int *f = tri + 3 * t;
    T.item[t].c = v3_scale(v3_add(v3_add(vat(vert, f[0]), vat(vert, f[1])), vat(vert, f[2])), (real)1 / 3);
    T.item[t].tri = t;
  }
  build(&T, 0, ntri);
  for (int v = 0; v < nvert; ++v) sdf[v] = 1; /* marks an interior vertex until computed */
  for (int t = 0; t < 3 * ntri; ++t) sdf[tri[t]] = 0;
  isoStatus st = ISO_OK;
  for (int v = 0; v < nvert; ++v) {
    if (sdf[v] == 0) continue;
    const vec3 p = vat(vert, v);
    if (!v3_isfinite(p)) {
      st = iso_fail(ISO_ERR_INVALID, "%s: vertex %d is not finite", what, v);
      break;
    }
    sdf[v] = -sqrt(nearest2(&T, p));
  }
  free(T.item);
  free(T.node);
  return st;
}
