/* Collision geometry and contact materials: what a body touches with.
 *
 * A geometry is attached to a body (or to the world) at a fixed pose and carries Drake's
 * proximity properties: whether it is a rigid or compliant hydroelastic shape (or neither:
 * point contact only, Drake's "undefined"), its hydroelastic modulus, resolution hint, margin,
 * dissipation, friction and point stiffness. Unset values take Drake's defaults, so a scene
 * behaves the same in both (reference: DefaultProximityProperties). */
#ifndef ISOBAR_GEOMETRY_H
#define ISOBAR_GEOMETRY_H

#include "isobar/model.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The body index that means "attached to the world" (anchored geometry). */
#define ISO_WORLD_BODY (-1)

/* Physically sensible ranges, checked when a geometry is added and when a per-world parameter is
 * set; a value outside is rejected with the value and the range named. They are wide — no real
 * scene is near them (steel's modulus is 2e11 Pa, diamond's 1.2e12) — and they keep the solver's
 * arithmetic finite: a modulus of 1e308 would overflow its stiffness and drop a box through the
 * floor unflagged. */
#define ISO_MAX_SIZE 1e4          /* m: sizes, radii, lengths, semi-axes (and >= 1e-6 when > 0) */
#define ISO_MIN_SIZE 1e-6         /* m */
#define ISO_MAX_MODULUS 1e13      /* Pa: hydroelastic (and Young's) modulus */
#define ISO_MAX_STIFFNESS 1e15    /* N/m: finite point-contact stiffness (INFINITY stays allowed) */
#define ISO_MAX_DISSIPATION 1e6   /* s/m: Hunt–Crossley dissipation */
#define ISO_MAX_FRICTION 1e3      /* friction coefficients */
#define ISO_MAX_RELAXATION 1e3    /* s: relaxation time */

typedef enum isoShape {
  ISO_SHAPE_SPHERE = 0,    /* size[0] = radius, >= 0: radius 0 is a point, which Drake accepts
                              too (contact points of robot feet); point contact only */
  ISO_SHAPE_BOX = 1,       /* size = full lengths along x, y, z (as SDFormat's <size>) */
  ISO_SHAPE_CYLINDER = 2,  /* size[0] = radius, size[1] = length; axis z */
  ISO_SHAPE_CAPSULE = 3,   /* size[0] = radius, size[1] = length of the cylindrical part; axis z */
  ISO_SHAPE_ELLIPSOID = 4, /* size = semi-axes a, b, c */
  ISO_SHAPE_HALFSPACE = 5, /* the solid z <= 0 of the geometry frame (outward normal +z) */
  ISO_SHAPE_MESH = 6,      /* mesh_file: .obj, .gltf or .glb surface (rigid; may be non-convex;
                              glTF: every triangle primitive of the default scene, node transforms
                              applied, y-up turned into z-up as in Drake) or .vtk tets */
  ISO_SHAPE_CONVEX = 7     /* mesh_file: .obj, .gltf, .glb (or .vtk) whose convex hull is used */
} isoShape;

typedef enum isoCompliance {
  ISO_COMPLIANCE_UNDEFINED = 0, /* no hydroelastic representation: point contact only */
  ISO_COMPLIANCE_RIGID = 1,     /* rigid hydroelastic: a triangle surface (or an analytic half-space) */
  ISO_COMPLIANCE_COMPLIANT = 2  /* compliant hydroelastic: a tetrahedral mesh with a pressure field */
} isoCompliance;

/* Bits of isoGeometryDef.legacy_given: the material values a geometry gives the legacy point
 * model (isoContactDef.point_model = ISO_POINT_LEGACY, seed 004). */
#define ISO_LEGACY_MODULUS 1u     /* hydroelastic_modulus, read as Young's modulus E */
#define ISO_LEGACY_DISSIPATION 2u /* hunt_crossley_dissipation */
#define ISO_LEGACY_FRICTION 4u    /* mu_static and mu_dynamic */
#define ISO_LEGACY_ALL 7u

typedef struct isoGeometryDef {
  const char *name;        /* unique name (copied); NULL gives "geometry<index>"; default NULL */
  int body;                /* body index, or ISO_WORLD_BODY; default ISO_WORLD_BODY */
  double position[3];      /* pose of the geometry frame G in the body frame: p_BG, m; default 0 */
  double quaternion[4];    /* R_BG as (w, x, y, z), non-zero; default identity */
  isoShape shape;          /* default ISO_SHAPE_SPHERE */
  double size[3];          /* per shape, see isoShape, m; default (0.1, 0.1, 0.1) */
  const char *mesh_file;   /* MESH and CONVEX: path of the .obj, .gltf, .glb or .vtk file (copied); default NULL */
  double mesh_scale[3];    /* per-axis scale applied to the file's vertices; default (1, 1, 1) */

  isoCompliance compliance;        /* default ISO_COMPLIANCE_UNDEFINED */
  double hydroelastic_modulus;     /* E, Pa, > 0; default 1e7 */
  double resolution_hint;          /* m, > 0; used by sphere, cylinder, capsule, ellipsoid; default 0.02 */
  double margin;                   /* hydroelastic margin δ, m, >= 0; default 0 */
  double slab_thickness;           /* compliant half-space slab, m, > 0; required there; default 0 (unset) */
  double hunt_crossley_dissipation; /* d, s/m, >= 0, or NAN: estimated from the model's
                                      penetration allowance; default 50 */
  double relaxation_time;          /* τ, s, >= 0 (convex SAP model); default 0.1 */
  double mu_static;                /* static friction, >= 0; default 0.5 */
  double mu_dynamic;               /* dynamic friction, >= 0; default 0.5 */
  double point_stiffness;          /* point-contact stiffness, N/m, > 0 (INFINITY: rigid), or 0:
                                      estimated from the model's penetration allowance; default 1e6 */
  unsigned legacy_given;           /* ISO_LEGACY_* bits: which of the values above the legacy point
                                      model takes from this geometry; for the others a sim with that
                                      model uses its default material (isoContactDef.legacy_*), as
                                      Drake's CompliantContactModel resolved a material left at its
                                      default when it evaluated a contact. A compliant hydroelastic
                                      geometry always keeps its own values. Default ISO_LEGACY_ALL;
                                      the scene loaders set the bits of the values a file gives */
} isoGeometryDef;

/* Drake's defaults, as documented on each field. */
isoGeometryDef iso_default_geometry_def(void);

/* Add a geometry; *id (may be NULL) receives its index. Checked here, with messages naming the
 * geometry: sizes, body index, properties out of range, a compliant half-space without a slab
 * thickness, a mesh file that is missing. Meshes and pressure fields are built at compile. */
isoStatus iso_model_add_geometry(isoModel *model, const isoGeometryDef *def, int *id);

/* Never let geometries a and b touch (a user collision filter). Geometries of the same body
 * never touch, nor do two geometries both attached to the world. */
isoStatus iso_model_exclude_pair(isoModel *model, int geometry_a, int geometry_b);

/* Number of geometries (0 for NULL). */
int iso_model_geometry_count(const isoModel *model);
/* The index of the geometry named `name`; ISO_ERR_NOT_FOUND names it when absent. */
isoStatus iso_model_find_geometry(const isoModel *model, const char *name, int *id);
/* A copy of geometry `id` as it was added (strings owned by the model). */
isoStatus iso_model_get_geometry(const isoModel *model, int id, isoGeometryDef *out);

/* "sphere", "box", ... */
const char *iso_shape_name(isoShape shape);

#ifdef __cplusplus
}
#endif
#endif
