/* Internal: tetrahedral and triangle meshes built once at model compile (assets), and the
 * functions that build, read, field and write them. All vertices are in the geometry frame G.
 *
 * Conventions (reference/mesh_recipes.md §0, drake_algorithms.md §1):
 *  - a tet (a, b, c, d) is positively oriented: ((b−a)×(c−a))·(d−a) > 0;
 *  - a triangle's right-handed normal (b−a)×(c−a) points out of the solid it bounds;
 *  - a pressure field is linear per tet, 0 on the (original, uninflated) surface, E at the
 *    deepest interior, negative inside the margin layer; its gradient points inward.
 * Every function fails with an isoStatus and a message naming the geometry (`what`, e.g.
 * "geometry 'finger'") and, where it applies, the element ("tetrahedron 17 has negative
 * volume"); nothing here prints or aborts. Meshes own their arrays: free with *_free. */
#ifndef ISO_HOST_MESH_H
#define ISO_HOST_MESH_H

#include <stdint.h>

#include "isobar/status.h"
#include "kernels/core.h"

typedef struct tetMesh {
  int nvert, ntet;
  real *vert;     /* vertex positions (nvert, 3) */
  int *tet;       /* vertex indices (ntet, 4), positively oriented */
  real *pressure; /* pressure at each vertex (nvert), Pa; NULL until a field is made */
  real *grad;     /* constant pressure gradient per tet (ntet, 3), Pa/m; from mesh_tet_gradients */
  real *p_origin; /* pressure of each tet's linear field at G's origin (ntet), Pa */
} tetMesh;

typedef struct triMesh {
  int nvert, ntri;
  real *vert;   /* vertex positions (nvert, 3) */
  int *tri;     /* vertex indices (ntri, 3), counter-clockwise seen from outside */
  real *normal; /* unit outward normal per triangle (ntri, 3) */
} triMesh;

/* The most vertices or elements any mesh may have: tet_mesh_alloc and tri_mesh_alloc size
 * arrays of up to 4·n ints, so this keeps every byte count within int32 range; readers and
 * builders reject larger counts before allocating. */
#define MESH_MAX_ITEMS (INT32_MAX / 8)

void tet_mesh_free(tetMesh *m);
void tri_mesh_free(triMesh *m);
/* Allocate zeroed arrays for nvert vertices and ntet tets (pressure, grad, p_origin too). */
isoStatus tet_mesh_alloc(tetMesh *m, int nvert, int ntet);
isoStatus tri_mesh_alloc(triMesh *m, int nvert, int ntri);
/* Recompute every triangle's unit normal; fails naming a zero-area triangle. */
isoStatus tri_mesh_normals(triMesh *m, const char *what);

/* The splitting helpers of Drake's meshing_utilities (reference/mesh_recipes.md §0), shared by
 * the cylinder and capsule meshers. Each writes its tets at t and returns the next free slot.
 * mesh_put_tet: one tet (a, b, c, d). mesh_prism: the prism v0v1v2 ; v3v4v5 (v0↔v3, v1↔v4,
 * v2↔v5) as (v3,v4,v0,v5), (v4,v1,v0,v5), (v1,v2,v0,v5). mesh_pyramid: the quad v0v1v2v3 with
 * apex v4 as (v3,v4,v0,v2), (v4,v1,v0,v2). */
void mesh_put_tet(int *t, int a, int b, int c, int d);
int *mesh_prism(int *t, int v0, int v1, int v2, int v3, int v4, int v5);
int *mesh_pyramid(int *t, int v0, int v1, int v2, int v3, int v4);

/* ---- compliant primitive meshes (host/mesh_<shape>.c), reference/mesh_recipes.md ----------
 * Dimensions are those handed to the mesher, i.e. already inflated by the margin. */
isoStatus mesh_sphere_tets(double radius, double hint, tetMesh *out);            /* single interior vertex */
isoStatus mesh_ellipsoid_tets(const double abc[3], double hint, tetMesh *out);
isoStatus mesh_box_tets(const double half[3], tetMesh *out);                     /* medial axis, symmetric triangles */
isoStatus mesh_cylinder_tets(double radius, double length, double hint, tetMesh *out);
isoStatus mesh_capsule_tets(double radius, double length, double hint, tetMesh *out);

/* ---- pressure fields (host/assets/mesh_field.c) -------------------------------------------------
 * Each takes the original (uninflated) dimensions, E and the margin δ, and sets m->pressure. */
isoStatus field_sphere(tetMesh *m, double radius, double E, double margin);
isoStatus field_ellipsoid(tetMesh *m, const double abc[3], double E, double margin);
isoStatus field_box(tetMesh *m, const double half[3], double E, double margin);
isoStatus field_cylinder(tetMesh *m, double radius, double length, double E, double margin);
isoStatus field_capsule(tetMesh *m, double radius, double length, double E, double margin);
/* Drake's MakeVolumeMeshPressureField: boundary vertices 0, interior vertices d + δ (d the
 * distance to the boundary surface), normalised so the deepest gets E. Fails when the mesh has
 * no interior vertex. */
isoStatus field_distance(tetMesh *m, double E, double margin, const char *what);
/* Drake's approximate signed-distance field of a deformable body's mesh (§6.4): for each of
 * the nvert vertices (vert (nvert, 3)), sdf[v] = 0 when v is a corner of one of the ntri
 * surface triangles (tri (ntri, 3)), else −(exact distance to the nearest surface triangle).
 * An interior vertex exactly on the surface gets −0. Fails on indices out of range or a
 * non-finite vertex. Cost: O(ntri log² ntri) to build a tree, about O(log ntri) per vertex. */
isoStatus mesh_sdf(const real *vert, int nvert, const int *tri, int ntri, real *sdf, const char *what);

/* Per-tet gradient and value at the origin from the vertex pressures; also validates every
 * tet (finite, positively oriented, |6V| above 2.2e-16), naming the first bad one. */
isoStatus mesh_tet_gradients(tetMesh *m, const char *what);

/* Face f of a tet (0..3, opposite local vertex f) is wound with its right-handed normal out of a
 * positively oriented tet: its k-th vertex (0..2) is the tet's local vertex
 * mesh_tet_face_vertex(f, k). */
int mesh_tet_face_vertex(int f, int k);

/* once[4·e + f] = 1 for each face used by exactly one of the ntet tets (the boundary), else 0;
 * *nbnd (may be NULL) their number. Faces are matched by sorting their vertex triples; a face
 * two tets see from the same side (overlapping tets) or one shared by more than two fails with
 * a message naming them. Indices are not range-checked here. */
isoStatus mesh_tet_boundary_faces(const int *tet, int ntet, unsigned char *once, int *nbnd, const char *what);

/* The boundary surface of a tet mesh (faces used by exactly one tet), outward normals,
 * vertices renumbered compactly. */
isoStatus mesh_tet_boundary(const tetMesh *m, triMesh *out, const char *what);

/* ---- files and hulls (host/assets/mesh_obj.c, mesh_vtk.c, mesh_hull.c, mesh_convex.c) --------- */
/* Wavefront OBJ: v and f lines (polygons fan-triangulated; v/vt/vn index forms; negative
 * indices), scaled per axis. Errors name the file and line. require_closed: every edge must
 * be shared by exactly two triangles. */
isoStatus mesh_read_obj(const char *path, const double scale[3], int require_closed, triMesh *out);
/* glTF 2.0 (.gltf, with external or base64 data: buffers, or .glb): the triangles of every
 * mesh primitive the default scene places, node transforms applied, glTF's y-up turned into
 * z-up as Drake does, scaled per axis; zero-area triangles dropped (host/assets/mesh_gltf.c). */
isoStatus mesh_read_gltf(const char *path, const double scale[3], triMesh *out);
/* A surface mesh file by its extension: .obj, .gltf or .glb. */
isoStatus mesh_read_surface(const char *path, const double scale[3], triMesh *out);
/* Legacy ASCII VTK UNSTRUCTURED_GRID of tetrahedra (every CELL_TYPE 10), scaled per axis
 * (an odd number of negative factors flips each tet to keep it positive). */
isoStatus mesh_read_vtk(const char *path, const double scale[3], tetMesh *out);
/* Convex hull of n points as a closed triangle mesh; fails for fewer than 4 non-coplanar points. */
isoStatus mesh_convex_hull(const real *pts, int n, triMesh *out, const char *what);
/* Compliant mesh of a convex hull: one interior vertex at the volume centroid, one tet per
 * hull triangle (Drake's make_convex_mesh). */
isoStatus mesh_convex_tets(const triMesh *hull, tetMesh *out, const char *what);

/* ---- legacy ASCII VTK writers (host/output/vtk_write.c), readable by ParaView ------------------- */
/* Polygons with cell data `SCALARS pressure` (one value per polygon, Pa). poly_start has
 * npoly + 1 offsets into poly_vert (CSR). */
isoStatus vtk_write_polygons(const char *path, const real *vert, int nvert, const int *poly_start,
                             const int *poly_vert, int npoly, const real *cell_pressure);
/* A tet mesh as UNSTRUCTURED_GRID with point data `SCALARS pressure` when present. */
isoStatus vtk_write_tets(const char *path, const tetMesh *m);

#endif
