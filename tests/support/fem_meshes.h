/* Tetrahedral meshes of boxes for the FEM tests (tests/test_fem_*.c). */
#ifndef ISO_TESTS_FEM_MESHES_H
#define ISO_TESTS_FEM_MESHES_H

#include "kernels/fem/tet.h"
#include "support/support.h"

/* A box [0,Lx]×[0,Ly]×[0,Lz] cut into nx×ny×nz cubes (cells), each cut into 6 tets. */
typedef struct femMesh {
  int nx, ny, nz;
  int nvert, ntet;
  double *X; /* (nvert, 3) rest positions, m; vertex (i, j, k) is i + (nx+1)(j + (ny+1)k) */
  int *tet;  /* (ntet, 4) vertex indices, positively oriented */
} femMesh;

/* Build the box mesh (allocates; fem_mesh_free releases). Every cell is cut by Kuhn's
 * (Freudenthal's) subdivision along its diagonal from the low corner to the high one: one tet per
 * permutation of the axes. All cells use the same diagonal direction, so the face diagonals of
 * neighbouring cells coincide and the mesh is conforming. Returns 0, or 1 on bad sizes or when
 * out of memory. */
int fem_mesh_box(femMesh *m, double Lx, double Ly, double Lz, int nx, int ny, int nz);

/* A ball of radius R centred at the origin with every symmetry of the cube: the cube [-1, 1]³ in
 * n³ cells, each cut into 24 tets (its centre, each face's centre and the face's edges), mapped
 * onto the ball by a map that keeps the cube's symmetries. Vertices are the cells' corners,
 * centres and face centres; the mesh is mirror-symmetric in x, y and z and in x ↔ y. Returns 0,
 * or 1 on bad sizes or when out of memory (fem_mesh_free releases it). */
int fem_mesh_ball_symmetric(femMesh *m, double R, int n);

/* Release the arrays of a mesh built by fem_mesh_box (a zeroed mesh is fine). */
void fem_mesh_free(femMesh *m);

/* The index of grid vertex (i, j, k). */
int fem_mesh_vertex(const femMesh *m, int i, int j, int k);

/* 1 when vertex v lies on the box's boundary (a grid index at 0 or at its maximum). */
int fem_mesh_on_boundary(const femMesh *m, int v);

/* Rest data of every tet from the current m->X (ntet entries); returns how many tets were
 * refused by fem_tet_rest (0 for a valid mesh). */
int fem_mesh_rest(const femMesh *m, femTetRest *rest);

/* A random tet in [-1, 1]³, positively oriented, with volume at least a tenth of its longest
 * edge cubed (so no test meets a needle or a sliver), and its rest data. */
void fem_rand_tet(test_rng *r, real X[12], femTetRest *rest);

#endif
