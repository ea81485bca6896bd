/* Contact surfaces: what the hydroelastic geometry stage computed for each world, readable as
 * tactile data, and written as VTK for a person to look at.
 *
 * Each contact face is one convex polygon of a Drake-style contact surface between two
 * geometries M and N. Frames and units: world frame, metres, pascals, newtons. The face
 * normal points out of N and into M; the pressure pushes M along the normal. For a
 * compliant–compliant pair M is the geometry with the lower index; for a rigid–compliant pair M
 * is the compliant one (Drake's ContactSurface convention). */
#ifndef ISOBAR_CONTACT_H
#define ISOBAR_CONTACT_H

#include "isobar/sim.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ISO_MAX_FACE_VERTICES 8

typedef struct isoContactFace {
  int geometry_m, geometry_n;                 /* geometry indices (see the header comment) */
  int element_m, element_n;                   /* tet or triangle indices in each geometry's mesh; -1 for a half-space */
  int nvert;                                  /* 3..ISO_MAX_FACE_VERTICES */
  double vert[ISO_MAX_FACE_VERTICES][3];      /* polygon, counter-clockwise about the normal, m */
  double vert_pressure[ISO_MAX_FACE_VERTICES]; /* pressure at each vertex, Pa */
  double normal[3];                           /* unit, out of N into M */
  double area;                                /* m² */
  double centroid[3];                         /* area centroid, m */
  double pressure;                            /* pressure at the centroid p0, Pa */
  double grad_m, grad_n;                      /* pressure gradients along the normal, gM = ∇e_M·n and
                                                 gN = −∇e_N·n, Pa/m; INFINITY for a rigid side */
} isoContactFace;

/* How a geometry pair is handled by the hydroelastic stage. */
typedef enum isoPairKind {
  ISO_PAIR_FILTERED = 0,          /* never in contact (same body, both anchored, or excluded) */
  ISO_PAIR_COMPLIANT_COMPLIANT = 1, /* tet–tet field intersection */
  ISO_PAIR_RIGID_COMPLIANT = 2,   /* rigid triangles vs compliant tets */
  ISO_PAIR_HALFSPACE_COMPLIANT = 3, /* rigid half-space vs compliant tets */
  ISO_PAIR_RIGID_SOFT_HALFSPACE = 4, /* rigid triangles vs compliant half-space */
  ISO_PAIR_POINT_FALLBACK = 5     /* no hydroelastic surface exists for this pair (rigid–rigid,
                                     half-space–half-space, a geometry without hydroelastic
                                     properties, compliant half-space vs compliant mesh): point
                                     contact handles it, as Drake's hydroelastic_with_fallback */
} isoPairKind;

/* Compute the contact surfaces of every world for its current state. iso_sim_step does this
 * itself at the start of each step, so after a step the surfaces are those of the state the
 * step started from (the ones its contact forces came from). Call it to read the surfaces of
 * a state you set; setting positions or resetting worlds invalidates earlier surfaces (queries
 * then fail with ISO_ERR_STATE). Worlds whose candidate or face lists overflow get
 * ISO_WORLD_OVERFLOW (see iso_sim_get_overflow). The new surfaces replace the ones the last
 * step's constraints were built from, so the contact results report no constraint until the
 * next step. */
isoStatus iso_sim_update_contact(isoSim *sim);

/* Number of contact faces of world `world` at the last update. */
isoStatus iso_sim_contact_face_count(const isoSim *sim, int world, int *count);

/* The contacts of the selected worlds at the last step, in one read for any number of worlds
 * (one copy of each count array on the GPU, where a per-world query waits for the device each
 * time): faces[i] receives the hydroelastic faces of the i-th selected world, points[i] its
 * point-contact pairs in contact (the point records the step's constraints were built from;
 * 0 after iso_sim_update_contact until the next step) and constraints[i] its contact
 * constraints (what iso_sim_contact_count gives). Any pointer may be NULL; each one given has
 * room for one int per selected world. ISO_ERR_STATE when the surfaces were invalidated (as for
 * iso_sim_contact_face_count). */
isoStatus iso_sim_get_contact_counts(const isoSim *sim, isoWorlds worlds, int *faces, int *points, int *constraints);

/* Copy up to `cap` faces of world `world` into `out`, in a deterministic order (geometry pair,
 * then element pair); *count receives the number of faces (which may exceed cap). The sim
 * keeps a compact record per face; the polygon's vertices are recomputed here from its source
 * elements at the poses and moduli of the last contact update, by the narrow phase's own
 * function, so they are the ones the step used (setting the modulus since changes them). */
isoStatus iso_sim_get_contact_faces(const isoSim *sim, int world, isoContactFace *out, int cap, int *count);

/* Net force and moment about the world origin on geometry `a` from integrating the pressure
 * over every face between geometries a and b (either order). The force is exact for the piecewise-linear pressure (centroid
 * rule); the moment is integrated exactly too (edge-midpoint rule on each fan triangle). */
isoStatus iso_sim_contact_wrench(const isoSim *sim, int world, int geometry_a, int geometry_b,
                                 double force[3], double moment[3]);

/* How the pair (a, b) is handled (the same for every world). */
isoStatus iso_sim_pair_kind(const isoSim *sim, int geometry_a, int geometry_b, isoPairKind *kind);

/* After an overflow in world `world`: the capacities that would have been needed at the last
 * update — isoSimDef.capacity.max_candidates, capacity.max_contacts for faces,
 * capacity.max_contacts for constraints (faces plus point contacts) — each 0 when that list did
 * not overflow. needed_constraints may be NULL. */
isoStatus iso_sim_get_overflow(const isoSim *sim, int world, int *needed_candidates, int *needed_faces,
                               int *needed_constraints);

/* Write world `world`'s contact surfaces as legacy ASCII VTK POLYDATA: the polygons, with cell
 * data `SCALARS pressure` (Pa, at each face's centroid). Readable by ParaView. */
isoStatus iso_sim_write_contact_vtk(const isoSim *sim, int world, const char *path);

/* Write the posed meshes of world `world` (compliant tets with their pressure field, rigid
 * triangle surfaces) as legacy ASCII VTK, one file per geometry: `prefix`_<geometry>.vtk. */
isoStatus iso_sim_write_meshes_vtk(const isoSim *sim, int world, const char *prefix);

/* ---- contact dynamics results (after iso_sim_step) --------------------------------------------
 * Each contact constraint of a world: a hydroelastic face (one per face with positive area and
 * gradients, at its centroid) or a point contact. Frame C has Cz = the normal pointing out of
 * body A into body B; the impulse γ acts on body B at the point, −γ on A (reference §3). */

typedef enum isoConstraintKind {
  ISO_CONSTRAINT_FACE = 0, /* a hydroelastic contact face */
  ISO_CONSTRAINT_POINT = 1 /* a point contact */
} isoConstraintKind;

typedef struct isoContactResult {
  isoConstraintKind kind;    /* what the constraint stands for */
  int geometry_a, geometry_b; /* A is geometry M of a face */
  int body_a, body_b;        /* -1: the world */
  int face;                  /* faces: index into iso_sim_get_contact_faces' list; else -1 */
  double point[3];           /* contact point, world frame, m */
  double frame[9];           /* R_WC, row-major; its columns are Cx, Cy, Cz */
  double impulse[3];         /* γ in C (tangential x, y, normal), N·s */
  double force[3];           /* γ/dt in C, N */
  double force_world[3];     /* the same force in the world frame, N */
  double area;               /* faces: m²; points: 0 */
  double pressure;           /* faces: solved normal pressure γn/(dt·A), Pa (the tactile output) */
  double traction[3];        /* faces: force per area in the world frame, Pa */
  double phi0;               /* signed distance at the start of the step, m (−p0/g for faces) */
  double stiffness;          /* k, N/m (g·A for faces) */
} isoContactResult;

/* Number of contact constraints of world `world` at the last step. */
isoStatus iso_sim_contact_count(const isoSim *sim, int world, int *count);

/* Copy up to `cap` constraints of world `world` with their solved impulses; *count receives
 * the number (which may exceed cap). The impulses are each constraint's law evaluated at the
 * world's velocities, which after a step are the solved ones (the solver's last evaluation);
 * velocities set since the step give the impulses at those velocities. */
isoStatus iso_sim_get_contact_results(const isoSim *sim, int world, isoContactResult *out, int cap, int *count);

/* Net contact wrench on body `body` of world `world` at the last step: torque about the body
 * origin (3) then force (3), world frame, N·m and N. */
isoStatus iso_sim_get_body_contact_wrench(const isoSim *sim, int world, int body, double wrench[6]);

typedef struct isoSolverStats {
  int iterations;     /* SAP Newton iterations at the last step */
  int ls_iterations;  /* line-search iterations, all Newton iterations together */
  int converged;      /* 1 when a stopping criterion was met */
  double residual;    /* ‖D∇ℓ‖ over the tolerance at the last check: below 1 means converged */
  double cost;        /* the SAP cost at the solution */
} isoSolverStats;

/* Solver statistics of world `world` at the last step. A world without contact constraints
 * reports 0 iterations and converged = 1 (v = v* solves its problem); a model without any
 * geometry pair reports zeros. */
isoStatus iso_sim_get_solver_stats(const isoSim *sim, int world, isoSolverStats *out);

#ifdef __cplusplus
}
#endif
#endif
