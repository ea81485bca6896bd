/* Internal: building an asset's bounding-volume hierarchy once, at model compile.
 *
 * The node layout, the build rules and the traversal live in kernels/collide/bvh.h; this is
 * the host side that makes the flat arrays (host memory; the model uploads them as they are).
 * Element bounds are in the asset's geometry frame G. Nothing here prints or aborts; errors
 * come back as isoStatus with a message in iso_last_error(), and a failed call leaves its
 * outputs untouched. */
#ifndef ISO_HOST_BVH_H
#define ISO_HOST_BVH_H

#include "isobar/status.h"
#include "kernels/collide/bvh.h"
#include "kernels/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bvhHost {
  int nnode;      /* nodes; 0 for the empty tree of nelem == 0 */
  int nelem;      /* elements */
  int leaf_size;  /* most elements per leaf, as asked */
  int depth;      /* edges on the longest root-to-leaf path (0: the root is a leaf) */
  bvhNode *node;  /* (nnode) pre-order, see kernels/collide/bvh.h */
  int *elem;      /* (nelem) element ids in leaf order */
  real *box;      /* (nelem, 6) padded element boxes in leaf order: lo xyz, hi xyz */
} bvhHost;

/* Build the tree over nelem elements with bounds elem_lo/elem_hi (nelem, 3) in G; each box is
 * padded by max(2e-14, ε·scale) (box_pad) before it is used. leaf_size >= 1 (1 for tets, 3
 * for triangles, as Drake). nelem == 0 gives the empty tree (nnode 0, NULL arrays), which
 * every query treats as "no candidates"; a mesh without elements is rejected earlier, by the
 * mesh checks. Fails with ISO_ERR_INVALID for nelem < 0 or > INT_MAX/2, leaf_size < 1, a
 * non-finite bound or lo > hi (naming the element), or a tree deeper than BVH_MAX_DEPTH;
 * ISO_ERR_NULL for NULL pointers (bounds may be NULL when nelem == 0); ISO_ERR_NOMEM. */
isoStatus bvh_build(const real *elem_lo, const real *elem_hi, int nelem, int leaf_size,
                    bvhHost *out);

/* Free the arrays and zero *h; NULL and zeroed trees are fine. */
void bvh_free(bvhHost *h);

/* A kernel view of a host tree (host memory). */
bvhTree bvh_host_view(const bvhHost *h);

/* Element bounds lo, hi (ntet, 3) of tets (ntet, 4) / triangles (ntri, 3) over vertices
 * (nvert, 3): the component-wise min and max of each element's vertices, unpadded. The mesh
 * is trusted to be valid (indices in range: the mesh checks ran first); a negative index fails
 * with ISO_ERR_INVALID naming the element, NULL arrays with ISO_ERR_NULL (allowed when there
 * are no elements). Non-finite vertices give non-finite bounds, which bvh_build refuses. */
isoStatus bvh_elem_bounds_tets(const real *vert, const int *tet, int ntet, real *lo, real *hi);
isoStatus bvh_elem_bounds_tris(const real *vert, const int *tri, int ntri, real *lo, real *hi);

#ifdef __cplusplus
}
#endif
#endif
