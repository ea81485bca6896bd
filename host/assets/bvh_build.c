/* Building an asset's BVH (host/assets/bvh.h; layout and rules in kernels/collide/bvh.h).
 *
 * Two passes over the same recursion: the first only counts nodes (so the node array is
 * allocated at its exact size and holds no slack), the second fills the arrays in pre-order.
 * A node's elements are sorted with qsort on (centre along the split axis, element id); the
 * key is a total order, so the result does not depend on qsort's (unstable) algorithm. The
 * recursion is host-only and at most ~31 deep (median splits halve the element count). */
#include "host/assets/bvh.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "kernels/collide/box.h"

typedef struct sortKey {
  real key; /* element box centre along the split axis */
  int id;   /* element id: breaks ties */
} sortKey;

typedef struct buildCtx {
  const real *pbox; /* (nelem, 6) padded element boxes, input order */
  int *order;       /* (nelem) element ids, permuted into leaf order as the build goes */
  sortKey *keys;    /* (nelem) sort scratch */
  bvhNode *node;    /* (nnode) output, NULL in the counting pass */
  int nnode;        /* nodes made so far */
  int leaf_size;
  int depth;        /* deepest node seen */
} buildCtx;

static int cmp_key(const void *pa, const void *pb) {
  const sortKey *a = (const sortKey *)pa, *b = (const sortKey *)pb;
  if (a->key < b->key) return -1;
  if (a->key > b->key) return 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* Node count of a subtree over n elements; the counting twin of build_node. */
static int count_nodes(int n, int leaf_size, int depth, int *max_depth) {
  int left;
  if (depth > *max_depth) *max_depth = depth;
  if (n <= leaf_size || depth >= BVH_MAX_DEPTH + 1) return 1;
  left = (n + 1) / 2;
  return 1 + count_nodes(left, leaf_size, depth + 1, max_depth) +
         count_nodes(n - left, leaf_size, depth + 1, max_depth);
}

/* Make the subtree of elements order[start, end) at node index c->nnode; returns its index. */
static int build_node(buildCtx *c, int start, int end, int depth) {
  int self = c->nnode++;
  bvhNode *nd = c->node + self;
  int n = end - start;
  int i, k, axis, mid;
  real ext, best;
  for (i = 0; i < 3; ++i) {
    nd->lo[i] = (real)HUGE_VAL;
    nd->hi[i] = -(real)HUGE_VAL;
  }
  for (k = start; k < end; ++k) {
    const real *bx = c->pbox + 6 * (size_t)c->order[k];
    for (i = 0; i < 3; ++i) {
      if (bx[i] < nd->lo[i]) nd->lo[i] = bx[i];
      if (bx[3 + i] > nd->hi[i]) nd->hi[i] = bx[3 + i];
    }
  }
  if (depth > c->depth) c->depth = depth;
  if (n <= c->leaf_size) {
    nd->a = -(start + 1);
    nd->b = end;
    return self;
  }
  axis = 0;
  best = nd->hi[0] - nd->lo[0];
  for (i = 1; i < 3; ++i) {
    ext = nd->hi[i] - nd->lo[i];
    if (ext > best) {
      best = ext;
      axis = i;
    }
  }
  for (k = start; k < end; ++k) {
    const real *bx = c->pbox + 6 * (size_t)c->order[k];
    c->keys[k - start].key = (real)0.5 * (bx[axis] + bx[3 + axis]);
    c->keys[k - start].id = c->order[k];
  }
  qsort(c->keys, (size_t)n, sizeof(sortKey), cmp_key);
  for (k = start; k < end; ++k) c->order[k] = c->keys[k - start].id;
  mid = start + (n + 1) / 2;
  nd->a = build_node(c, start, mid, depth + 1);
  nd->b = build_node(c, mid, end, depth + 1);
  return self;
}

isoStatus bvh_build(const real *elem_lo, const real *elem_hi, int nelem, int leaf_size,
                    bvhHost *out) {
  bvhHost h;
  buildCtx c;
  real *pbox = NULL;
  sortKey *keys = NULL;
  int e, i, nnode, depth = 0;
  CHECK_NULL(out, "bvh_build");
  if (nelem < 0 || nelem > INT_MAX / 2)
    return iso_fail(ISO_ERR_INVALID, "bvh_build: element count %d is outside [0, %d]", nelem,
                    INT_MAX / 2);
  if (leaf_size < 1)
    return iso_fail(ISO_ERR_INVALID, "bvh_build: leaf size %d must be >= 1", leaf_size);
  memset(&h, 0, sizeof h);
  h.leaf_size = leaf_size;
  if (nelem == 0) {
    *out = h;
    return ISO_OK;
  }
  CHECK_NULL(elem_lo, "bvh_build");
  CHECK_NULL(elem_hi, "bvh_build");
  for (e = 0; e < nelem; ++e)
    for (i = 0; i < 3; ++i) {
      real l = elem_lo[3 * (size_t)e + i], u = elem_hi[3 * (size_t)e + i];
      if (!isfinite(l) || !isfinite(u))
        return iso_fail(ISO_ERR_INVALID, "bvh_build: element %d has a non-finite bound", e);
      if (l > u)
        return iso_fail(ISO_ERR_INVALID,
                        "bvh_build: element %d has lower bound %g > upper bound %g on axis %d",
                        e, (double)l, (double)u, i);
    }
  nnode = count_nodes(nelem, leaf_size, 0, &depth);
  if (depth > BVH_MAX_DEPTH)
    return iso_fail(ISO_ERR_INVALID, "bvh_build: %d elements in leaves of %d need depth > %d",
                    nelem, leaf_size, BVH_MAX_DEPTH);

  h.nelem = nelem;
  h.nnode = nnode;
  h.node = (bvhNode *)calloc((size_t)nnode, sizeof(bvhNode));
  h.elem = (int *)malloc((size_t)nelem * sizeof(int));
  h.box = (real *)malloc((size_t)nelem * 6 * sizeof(real));
  pbox = (real *)malloc((size_t)nelem * 6 * sizeof(real));
  keys = (sortKey *)malloc((size_t)nelem * sizeof(sortKey));
  if (!h.node || !h.elem || !h.box || !pbox || !keys) {
    free(pbox);
    free(keys);
    bvh_free(&h);
    return iso_fail(ISO_ERR_NOMEM, "bvh_build: out of memory for %d elements", nelem);
  }
  for (e = 0; e < nelem; ++e) {
    box_pad(elem_lo + 3 * (size_t)e, elem_hi + 3 * (size_t)e, pbox + 6 * (size_t)e,
            pbox + 6 * (size_t)e + 3);
    h.elem[e] = e;
  }
  c.pbox = pbox;
  c.order = h.elem;
  c.keys = keys;
  c.node = h.node;
  c.nnode = 0;
  c.leaf_size = leaf_size;
  c.depth = 0;
  build_node(&c, 0, nelem, 0);
  h.depth = c.depth;
  for (e = 0; e < nelem; ++e)
    memcpy(h.box + 6 * (size_t)e, pbox + 6 * (size_t)h.elem[e], 6 * sizeof(real));
  free(pbox);
  free(keys);
  if (c.nnode != nnode || h.depth != depth) {
    bvh_free(&h);
    return iso_fail(ISO_ERR_STATE, "bvh_build: internal error (%d nodes made, %d counted)",
                    c.nnode, nnode);
  }
  *out = h;
  return ISO_OK;
}

void bvh_free(bvhHost *h) {
  if (!h) return;
  free(h->node);
  free(h->elem);
  free(h->box);
  memset(h, 0, sizeof *h);
}

bvhTree bvh_host_view(const bvhHost *h) {
  if (!h) return bvh_tree_make(NULL, NULL, NULL, 0);
  return bvh_tree_make(h->node, h->elem, h->box, h->nnode);
}

/* Shared body of the two bounds helpers: nv vertices per element. */
static isoStatus elem_bounds(const char *fn, const char *kind, const real *vert, const int *idx,
                             int nv, int nelem, real *lo, real *hi) {
  int e, k, i;
  if (nelem < 0) return iso_fail(ISO_ERR_INVALID, "%s: element count %d < 0", fn, nelem);
  if (nelem == 0) return ISO_OK;
  CHECK_NULL(vert, fn);
  CHECK_NULL(idx, fn);
  CHECK_NULL(lo, fn);
  CHECK_NULL(hi, fn);
  for (e = 0; e < nelem; ++e)
    for (k = 0; k < nv; ++k)
      if (idx[(size_t)nv * e + k] < 0)
        return iso_fail(ISO_ERR_INVALID, "%s: %s %d uses vertex %d", fn, kind, e,
                        idx[(size_t)nv * e + k]);
  for (e = 0; e < nelem; ++e) {
    real *l = lo + 3 * (size_t)e, *u = hi + 3 * (size_t)e;
    for (k = 0; k < nv; ++k) {
      const real *p = vert + 3 * (size_t)idx[(size_t)nv * e + k];
      for (i = 0; i < 3; ++i) {
        if (k == 0 || p[i] < l[i]) l[i] = p[i];
        if (k == 0 || p[i] > u[i]) u[i] = p[i];
      }
    }
  }
  return ISO_OK;
}

isoStatus bvh_elem_bounds_tets(const real *vert, const int *tet, int ntet, real *lo, real *hi) {
  return elem_bounds("bvh_elem_bounds_tets", "tetrahedron", vert, tet, 4, ntet, lo, hi);
}

isoStatus bvh_elem_bounds_tris(const real *vert, const int *tri, int ntri, real *lo, real *hi) {
  return elem_bounds("bvh_elem_bounds_tris", "triangle", vert, tri, 3, ntri, lo, hi);
}
