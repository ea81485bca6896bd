/* Deformable bodies: linear tetrahedral finite elements with the linear corotational material
 * (seed 001, Han, Masterjohn and Castro 2023), stepped with rigid bodies in the same SAP
 * problem. Conventions and defaults are Drake's (DeformableBodyConfig), so a scene gives the same
 * motion in both.
 *
 * A deformable body is a tetrahedral mesh (a legacy ASCII .vtk file of VTK_TETRA cells, or
 * vertices and tets handed over directly) placed in the world at a pose: its vertices' rest
 * positions are that pose applied to the (scaled) mesh, and every world starts there at rest.
 * Its state is one position and one velocity per vertex, in the world frame. Vertices can be
 * held where they are (a Dirichlet condition: zero velocity, position kept), one by one or by a
 * wall plane as Drake's SetWallBoundaryCondition does. */
#ifndef ISOBAR_DEFORMABLE_H
#define ISOBAR_DEFORMABLE_H

#include "isobar/model.h"
#include "isobar/sim.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most vertices one deformable body may have: its free motion is one linear solve of
 * 3·n unknowns per world and step, so this keeps a body within what a batched step can afford. */
#define ISO_MAX_DEFORMABLE_VERTICES 100000

typedef enum isoMaterialModel {
  ISO_MATERIAL_LINEAR_COROTATED = 0 /* seed 001 §III; Drake's default and the one supported */
} isoMaterialModel;

typedef struct isoDeformableDef {
  const char *name;       /* unique among deformable bodies (copied); NULL gives
                             "deformable<index>"; default NULL */
  const char *mesh_file;  /* a .vtk tetrahedral mesh (copied); or NULL and the arrays below */
  int nvert, ntet;        /* without a file: the mesh, vertices (nvert, 3) in the mesh frame, m, */
  const double *vertices; /* and tets (ntet, 4) of vertex indices, positively oriented */
  const int *tets;        /*   ((v1−v0)×(v2−v0))·(v3−v0) > 0; both copied; default 0 / NULL */
  double mesh_scale[3];   /* per-axis scale applied to the vertices; default (1, 1, 1) */
  double position[3];     /* the mesh frame's pose in the world at rest: p_WM, m; default 0 */
  double quaternion[4];   /* R_WM as (w, x, y, z), non-zero; default identity */
  isoMaterialModel material; /* default ISO_MATERIAL_LINEAR_COROTATED */
  double youngs_modulus;  /* E, Pa, > 0 and ≤ ISO_MAX_MODULUS; default 1e8 */
  double poissons_ratio;  /* ν, in (−1, 0.5); default 0.49 */
  double mass_density;    /* ρ, kg/m³, > 0; default 1500 */
  double mass_damping;    /* Rayleigh α, 1/s, >= 0; default 0 */
  double stiffness_damping; /* Rayleigh β, s, >= 0; default 0 */
  /* Contact: the surface's friction and dissipation, combined with the other side's as for
   * rigid geometries (geometry.h); its pressure gradient is Drake's fixed 1e8 Pa/m. */
  double hunt_crossley_dissipation; /* s/m, >= 0; default 50 */
  double relaxation_time; /* s, >= 0; default 0.1 */
  double mu_static;       /* >= 0; default 0.5 */
  double mu_dynamic;      /* >= 0; default 0.5 */
} isoDeformableDef;

/* Drake's defaults, as documented on each field. */
isoDeformableDef iso_default_deformable_def(void);

/* Add a deformable body; *id (may be NULL) receives its index among deformable bodies. The mesh
 * is read and checked here, and the body rejected, leaving the model unchanged, with a message
 * naming it and, where it applies, the element: a missing or malformed file, a cell that is not
 * a tetrahedron, an inverted or degenerate tetrahedron ("deformable 'ball': tetrahedron 17 is
 * inverted (signed volume -1e-09 m³)"; degenerate: volume at most 1e-12 of its longest edge
 * cubed), a face shared by more than two tetrahedra, a vertex no tetrahedron uses, E ≤ 0, ν outside (−1, 0.5), ρ ≤ 0, negative
 * damping, non-finite values, a duplicate name. ISO_ERR_STATE once the model is compiled. */
isoStatus iso_model_add_deformable(isoModel *model, const isoDeformableDef *def, int *id);

/* Hold vertices of deformable `body` in place (zero velocity; position kept): `count` vertex
 * indices into its mesh. Out-of-range indices are rejected naming the vertex. */
isoStatus iso_model_fix_deformable_vertices(isoModel *model, int body, int count, const int *vertices);

/* Drake's wall boundary condition: hold every vertex of `body` whose rest position p (world
 * frame) has n̂·(p − point) < 0, with n̂ = normal / |normal|. A zero (|normal| <= 1e-10, as in
 * Drake) or non-finite normal is rejected. *count (may be NULL) receives how many vertices lie
 * behind the wall, some of which may have been held already. */
isoStatus iso_model_deformable_wall(isoModel *model, int body, const double point[3],
                                    const double normal[3], int *count);

/* Weld vertices of deformable `body` to rigid body `rigid` (Drake's
 * DeformableBody::AddFixedConstraint): every vertex whose rest position lies inside (or on) the
 * shape `shape` of sizes `size` (as isoGeometryDef.size: a box's full lengths, a sphere's
 * radius, a cylinder's or capsule's radius and length along z, an ellipsoid's semi-axes), posed
 * at (position, quaternion) in the rigid body's frame with the body at its initial pose, is
 * held at the point of the body it coincides with there, by a near-rigid SAP constraint
 * (k = ∞, β = 0.1, three rows per vertex). `rigid` may be a free body (its initial pose is its
 * isoFreeBodyState) or a body joints move (its initial pose is the one the joints' initial
 * positions give, through its parents); ISO_WORLD_BODY holds the vertices where they are (as
 * iso_model_fix_deformable_vertices), at this call.
 * For a rigid body the vertices are chosen at iso_model_compile, when every joint and initial
 * state is known (joints may be added after the weld): *count (may be NULL) receives how many
 * the shape holds with the body at its initial pose as the model stands at this call, which is
 * what compile welds unless a joint, a joint's initial position or the body's initial state set
 * later moves the body. A shape that holds no vertex is an error, since a constraint that
 * catches nothing is a mistake in the scene: at this call for ISO_WORLD_BODY, at compile
 * (naming the deformable, the body and the shape) for a rigid body. */
isoStatus iso_model_weld_deformable(isoModel *model, int body, int rigid, int shape, const double size[3],
                                    const double position[3], const double quaternion[4], int *count);
/* How many vertex welds to rigid bodies deformable `id` holds, summed over the calls of
 * iso_model_weld_deformable (a vertex two shapes catch counts twice): on a compiled model the
 * welds compile chose, before it the shapes' catch as the model stands; welds to ISO_WORLD_BODY
 * hold vertices instead and show as held in iso_model_deformable_mesh. */
isoStatus iso_model_deformable_weld_count(const isoModel *model, int id, int *count);

/* Number of deformable bodies (0 for NULL). */
int iso_model_deformable_count(const isoModel *model);
/* The index of the deformable body named `name`; ISO_ERR_NOT_FOUND names it when absent. */
isoStatus iso_model_find_deformable(const isoModel *model, const char *name, int *id);
/* A copy of deformable `id` as added (strings owned by the model; the mesh arrays are NULL,
 * nvert and ntet the mesh's sizes: the mesh is read through iso_model_deformable_mesh). */
isoStatus iso_model_get_deformable(const isoModel *model, int id, isoDeformableDef *out);
/* Deformable `id`'s mesh sizes: vertices, tets and surface triangles (any may be NULL). */
isoStatus iso_model_deformable_size(const isoModel *model, int id, int *nvert, int *ntet, int *ntri);
/* Deformable `id`'s mesh: rest positions in the world (nvert, 3), tets (ntet, 4), surface
 * triangles (ntri, 3) with outward right-handed normals, and a flag per vertex (1: held).
 * Each output may be NULL; each non-NULL one must hold the size iso_model_deformable_size gives. */
isoStatus iso_model_deformable_mesh(const isoModel *model, int id, double *rest, int *tets,
                                    int *tris, unsigned char *held);

/* ---- a sim's deformable bodies -----------------------------------------------------------------
 * Their vertex positions and velocities are state fields (ISO_STATE_VERTEX_POSITION and
 * ISO_STATE_VERTEX_VELOCITY, include/isobar/sim.h), read and set for many worlds at once; a
 * reset restores the rest shape at rest. Per-world material values are parameters
 * (ISO_PARAM_DEFORMABLE_*). */

/* Write world `world`'s deformed meshes, every deformable body's tets at their current vertex
 * positions, as one legacy ASCII VTK unstructured grid (ParaView), body after body. */
isoStatus iso_sim_write_deformed_vtk(const isoSim *sim, int world, const char *path);

#ifdef __cplusplus
}
#endif
#endif
