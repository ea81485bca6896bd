/* Internal: the sparsity analysis of a deformable mesh's tangent matrix, done once per mesh at
 * model compile and shared by every world and step (kernels/linalg/block_chol.h describes the
 * factor's layout and schedule; kernels/linalg/schur.h the Schur complement on it).
 *
 * From the tets alone: the vertex graph (vertices sharing a tet), a minimum-degree ordering of
 * it, the elimination tree, L's block pattern with its fill, the left-looking update schedule
 * and, per tet, the slot of each of its 16 vertex-pair blocks, so element assembly writes T
 * straight into L's storage. Every array lives in one int block (`data`) at the offsets below,
 * so a backend copies the whole pattern in one transfer and views it with bchol_pattern_view.
 * Nothing here prints or aborts; errors come back as isoStatus with iso_last_error(). */
#ifndef ISO_HOST_FEM_PATTERN_H
#define ISO_HOST_FEM_PATTERN_H

#include "isobar/status.h"
#include "kernels/linalg/block_chol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the vertices are ordered before factoring. */
typedef enum femOrdering {
  FEM_ORDER_MIN_DEGREE = 0, /* minimum degree on the vertex graph (the default) */
  FEM_ORDER_NATURAL = 1     /* the mesh's own vertex order (for comparisons) */
} femOrdering;

/* The pattern (kernels/linalg/block_chol.h lays it out). */
typedef bcholPattern femPattern;

/* Analyse a mesh of nvert vertices and ntet tets (ntet, 4) (indices in [0, nvert); the four of
 * a tet distinct), in the order `ordering` (a femOrdering; an int so that bench programs can
 * declare this function without including host headers). Vertices in no tet get a diagonal block only. Fails with ISO_ERR_INVALID
 * for bad counts or indices (naming the tet), ISO_ERR_NULL, ISO_ERR_NOMEM; on failure *out is
 * zeroed. */
isoStatus fem_pattern_build(int nvert, int ntet, const int *tet, int ordering, femPattern *out);

/* Free the data and zero *p; NULL and zeroed patterns are fine. */
void fem_pattern_free(femPattern *p);

/* The slot of L that holds block (a, b) of tet e (a, b local vertices 0..3) in the lower
 * triangle: the block (max, min) of the two vertices' positions. *transposed is 1 when the slot
 * holds the transpose of block (a, b), i.e. block (b, a). Element assembly adds K_ab at the slot
 * for the pairs with *transposed == 0 (diagonal pairs included, in full); each off-diagonal
 * pair then lands once, its mirror (b, a) being the transposed one. Stored in data as
 * 2 * slot + transposed at off_tet_slot + 16 e + 4 a + b. */
int fem_pattern_tet_slot(const femPattern *p, int e, int a, int b, int *transposed);

/* Internal to the pattern (host/assets/fem_order.c): perm (n), the vertices in minimum-degree
 * elimination order of the graph xadj (n + 1), adj (xadj[n]) (each vertex's distinct
 * neighbours, itself excluded); ties to the lowest index. ISO_ERR_NOMEM only. */
isoStatus fem_order_min_degree(int n, const int *xadj, const int *adj, int *perm);

#ifdef __cplusplus
}
#endif
#endif
