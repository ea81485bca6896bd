/* The sim: N independent worlds of one compiled model on one backend. Every buffer a step
 * needs is allocated at creation with fixed capacities; a step never allocates. */
#ifndef ISOBAR_SIM_H
#define ISOBAR_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "isobar/backend.h"
#include "isobar/model.h"
#include "isobar/status.h"
#include "isobar/world_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct isoSim isoSim;

/* How contact surfaces are handed to the solver. */
typedef enum isoSurfaceRepresentation {
  ISO_SURFACE_POLYGON = 0, /* one face per polygon, as Drake's discrete plant */
  ISO_SURFACE_TRIANGLE = 1 /* each polygon fanned into triangles around its centroid */
} isoSurfaceRepresentation;

/* Discrete contact approximations (reference §5.3–5.4); the values match the kernels'. */
typedef enum isoContactApproximation {
  ISO_CONTACT_CONVEX = 0, /* Drake's "sap" */
  ISO_CONTACT_LAGGED = 1, /* Drake's "lagged" */
  ISO_CONTACT_SIMILAR = 2 /* Drake's "similar" */
} isoContactApproximation;

/* What a world does when its solver hits the iteration limit. */
typedef enum isoSapOnFailure {
  ISO_SAP_ACCEPT = 0, /* keep the last iterate; the world gets ISO_WORLD_NOT_CONVERGED */
  ISO_SAP_FREEZE = 1  /* as ACCEPT, and the world is also frozen */
} isoSapOnFailure;

/* Per-world buffer capacities: a step never allocates, so a world that needs more reports an
 * overflow (with the number needed, iso_sim_get_overflow) instead of growing; iso_sim_reserve
 * grows them between steps.
 *
 * 0 (the default) = automatic: sized at creation from the compiled model, as
 *   max(floor, Σ over hydroelastic pairs with a half-space of the pair's bound, + one per
 *   point-contact pair), where a pair's bound is exact, not estimated:
 *   - compliant tets against a rigid half-space: every tet the plane crosses makes at most one
 *     candidate and one polygon (a triangle or a quad), so the tet count bounds both;
 *   - rigid triangles against a compliant half-space: likewise one per triangle;
 *   (with ISO_SURFACE_TRIANGLE a polygon is fanned into up to 4 triangles: faces × 4).
 *   A pair of two meshes (compliant–compliant, rigid–compliant) has no bound that is both true
 *   and small (every tet pair may make a polygon: n_M · n_N), so it is not summed; the floors
 *   (256 contacts, 2048 candidates, the former fixed defaults) cover it, as they did before. A
 *   first step measured at creation was not chosen: a scene at rest has fewer contacts at its
 *   first step than later (the coin on its floor makes 63 faces, then 378 once pressed in),
 *   and one falling onto its floor has none.
 *   Per world this costs 256 bytes per contact and 12 per candidate: the five-box stack keeps
 *   the floors (101,000 bytes per world at 64 worlds), the compliant box on its plane too
 *   (91,240), the coin gets 567 contacts (170,856); a ball of 8192 tets on a plane gets 8192
 *   (about 2.2 MB per world, the price of a bound that holds at any depth: Drake's meshes
 *   fan from a centre vertex, so a plane through it crosses every tet).
 * A positive value is used as given. */
typedef struct isoCapacityDef {
  int max_contacts;   /* contact faces and contact constraints (point contacts plus hydroelastic
                         faces) per world, >= 0 (0 = automatic, the default). Reserves 256 bytes
                         per unit per world (a contact record and a constraint) */
  int max_candidates; /* candidate element pairs from the mid phase per world (each may become
                         one contact polygon), >= 0 (0 = automatic, the default). Reserves 12
                         bytes per unit per world (element indices). Two overlapping sphere
                         meshes can need thousands */
  int max_deformable_contacts; /* contact polygons on deformable bodies' surfaces per world, >= 0
                         (0 = automatic: every surface triangle once per half-space and
                         twice per other geometry it can touch, and four times more when
                         deformable bodies can touch each other; 16 to 4096). Reserves about 400 bytes per unit per world (a record with its
                         Jacobian block, and a constraint) */
  int max_participating; /* vertices of one deformable body that may be in contact in one world,
                         >= 0 (0 = automatic: the body's surface vertices — all its vertices when
                         another deformable body can reach into it —, at most 64), plus its
                         welded vertices. Each body enters the solver as a block of 3 DoFs per
                         unit, padded when fewer touch, so the solver's matrices grow with its
                         square */
} isoCapacityDef;

/* Point contact models (for every geometry pair without a hydroelastic surface).
 *
 * ISO_POINT_LEGACY is Drake's older compliant point contact with per-geometry materials (seed 004,
 * "Drake Contact Implementation"; Drake's CompliantContactModel of 2018). It reads, per world, the
 * same parameters as the rest of the step, so they can be randomised per world as always:
 *   ISO_PARAM_GEOM_MODULUS     → Young's modulus E of each geometry, Pa
 *   ISO_PARAM_GEOM_DISSIPATION → Hunt–Crossley dissipation d, s/m
 *   ISO_PARAM_GEOM_FRICTION    → friction (the solver's friction cone takes the dynamic one, as
 *                                for every contact)
 * and not ISO_PARAM_GEOM_STIFFNESS. For two geometries M and N in contact, with squish factors
 * s_M = E_N/(E_M + E_N) and s_N = 1 − s_M:
 *   E = s_M·E_M,  d = s_M·d_M + s_N·d_N,  μ = 2·μ_M·μ_N/(μ_M + μ_N),
 *   stiffness k = 2·E·R ("a cylinder of radius R on a plane": f_n = 2·E·R·x before dissipation),
 *   contact point C = M_c·s_N + N_c·s_M (M_c, N_c: each surface's point deepest in the other),
 * and the pair enters the solver as every point contact does (reference §4.2: φ0 = −x, fe0 = k·x),
 * under contact.approximation: Hunt–Crossley n = k·x·(1 + d·ẋ) for LAGGED and SIMILAR; the
 * convex model ignores d and uses the relaxation time, as it does for today's point contact.
 * Geometries whose materials were left at their defaults (isoGeometryDef.legacy_given) take the
 * sim's legacy default material below; the per-world parameters start from those values. */
typedef enum isoPointModel {
  ISO_POINT_DRAKE = 0, /* today's Drake point contact: per-geometry stiffness (reference §4.2) */
  ISO_POINT_LEGACY = 1 /* seed 004's compliant point contact, described above */
} isoPointModel;

/* How contact is modelled. */
typedef struct isoContactDef {
  isoSurfaceRepresentation surface_representation; /* default ISO_SURFACE_POLYGON (as Drake) */
  isoContactApproximation approximation;           /* default ISO_CONTACT_LAGGED (as Drake) */
  isoPointModel point_model;                       /* default ISO_POINT_DRAKE */
  /* ISO_POINT_LEGACY only (checked only then); defaults are those of Drake's rigid_body_plant
     (compliant_material.cc, compliant_contact_model.cc, 2018): */
  double characteristic_radius;  /* R, m, finite and > 0; default 2e-4 */
  double legacy_youngs_modulus;  /* default material: E, Pa, finite and > 0; default 1e8 */
  double legacy_dissipation;     /* default material: d, s/m, finite and >= 0; default 0.32 */
  double legacy_static_friction; /* default material: finite and >= the dynamic one; default 0.9 */
  double legacy_dynamic_friction; /* default material: finite and >= 0; default 0.5 */
} isoContactDef;

/* The SAP solver's stopping rules. */
typedef struct isoSolverDef {
  int max_iterations;        /* Newton iterations per step before a world is "not converged",
                                >= 1; default 100 (Drake's) */
  double relative_tolerance; /* relative stopping tolerance ε_r, finite and > 0 (dimensionless);
                                default 1e-6 (Drake's) */
  isoSapOnFailure on_failure; /* default ISO_SAP_ACCEPT */
} isoSolverDef;

typedef struct isoSimDef {
  int worlds;             /* number of worlds, >= 1; default 1 */
  isoBackendKind backend; /* default ISO_BACKEND_AUTO */
  int threads;            /* CPU threads, >= 0, 0 = OpenMP's default (OMP_NUM_THREADS); default 0 */
  void *cuda_stream;      /* a cudaStream_t to queue the sim's work on, or NULL (default) for the
                             sim's own */
  isoCapacityDef capacity; /* per-world buffer sizes */
  isoContactDef contact;   /* contact model */
  isoSolverDef solver;     /* SAP solver settings */
} isoSimDef;

/* Defaults as documented on each field. */
isoSimDef iso_default_sim_def(void);

/* A selection of worlds for get/set/reset calls. Values exchanged with a selection are packed
 * world after world in selection order (ascending world index for ALL and MASK). */
typedef enum isoWorldsKind {
  ISO_WORLDS_ALL = 0,  /* every world */
  ISO_WORLDS_ONE = 1,  /* isoWorlds.world alone */
  ISO_WORLDS_LIST = 2, /* the isoWorlds.count indices of isoWorlds.list */
  ISO_WORLDS_MASK = 3  /* the worlds whose byte in isoWorlds.mask is non-zero */
} isoWorldsKind;

typedef struct isoWorlds {
  isoWorldsKind kind;        /* which of the fields below select */
  int world;                 /* ONE: the world index */
  const int *list;           /* LIST: world indices (any order, repeats allowed for get) */
  int count;                 /* LIST: number of entries */
  const unsigned char *mask; /* MASK: one byte per world, non-zero = selected */
} isoWorlds;

/* Every world. */
isoWorlds iso_worlds_all(void);
/* World `world` alone. */
isoWorlds iso_worlds_one(int world);
/* The `count` worlds listed (the array must outlive the call that uses the selection). */
isoWorlds iso_worlds_list(const int *worlds, int count);
/* The worlds whose byte in `mask` (one per world) is non-zero. */
isoWorlds iso_worlds_mask(const unsigned char *mask);

/* Create a sim of def->worlds worlds of a compiled model. Every world starts in the model's
 * initial state. ISO_ERR_INVALID for a def field out of range (the message names
 * it by its path, e.g. "capacity.max_contacts"), ISO_ERR_STATE for a model
 * that is not compiled, ISO_ERR_BACKEND when the backend asked for is not usable (the message
 * says why; AUTO never fails for that reason and falls back to CPU). */
isoStatus iso_sim_create(const isoModel *model, const isoSimDef *def, isoSim **out);

/* Grow the per-world capacities to at least max_contacts and max_candidates (a value at or
 * below the current capacity, 0 included, keeps it; capacities never shrink), between steps,
 * keeping everything a step or a query reads: state, status bits, recorded overflow sizes,
 * parameters, and the last step's contact surfaces and results, world by world. A sim grown
 * this way steps on bitwise as one created with the larger capacities. The capacities in use
 * are those of iso_sim_capacity. ISO_ERR_INVALID for a negative value, ISO_ERR_NOMEM when the
 * larger arrays do not fit (the sim is left as it was). A world frozen by an overflow stays
 * frozen: reset it (iso_sim_reset) to run it again. */
isoStatus iso_sim_reserve(isoSim *sim, int max_contacts, int max_candidates);

/* The capacities in use (automatic ones resolved), or zeros for NULL. */
isoCapacityDef iso_sim_capacity(const isoSim *sim);

/* Free a sim and its device memory (NULL is fine). */
void iso_sim_destroy(isoSim *sim);

/* Advance every world that is not frozen by one time step. */
isoStatus iso_sim_step(isoSim *sim);

/* Worlds, bodies per world, and the time step (s) of a sim; 0 for NULL. */
int iso_sim_world_count(const isoSim *sim);
int iso_sim_body_count(const isoSim *sim);
double iso_sim_time_step(const isoSim *sim);
/* The backend the sim runs on (never AUTO), and a sentence saying why or which device. */
isoBackendKind iso_sim_backend(const isoSim *sim);
const char *iso_sim_backend_reason(const isoSim *sim);
/* CPU threads the sim's loops use (1 on the CUDA backend). */
int iso_sim_threads(const isoSim *sim);
/* Steps taken since creation. */
long long iso_sim_step_count(const isoSim *sim);

/* Bytes of backend memory (device memory on CUDA, host memory on the CPU) the sim holds for
 * each world: every array with a world axis — state, per-world parameters, the contact stage's
 * candidate and contact lists, the solver's constraints and batched matrices — divided by the
 * number of worlds. Arrays of the model shared by all worlds are not counted. The figure is the
 * sizes of the buffers, fixed at creation by the capacities of isoSimDef (and grown only by a
 * parameter set per world), not what the operating system has touched. */
isoStatus iso_sim_memory_per_world(const isoSim *sim, size_t *bytes);

/* ---- state ----------------------------------------------------------------------------------- */

typedef enum isoStateField {
  ISO_STATE_Q = 0,    /* generalized positions, per world iso_model_nq values: each joint's
                         coordinates (include/isobar/joint.h), a free body's 7 */
  ISO_STATE_V = 1,    /* generalized velocities, per world iso_model_nv values */
  ISO_STATE_TIME = 2, /* simulated time, per world 1, s */
  /* the inputs of actuators, one value per actuator per world, kept until changed (a reset
     zeroes them): */
  ISO_STATE_EFFORT = 3,          /* effort, N m or N: applied each step clamped to the effort
                                    limit; for a PD actuator the feed-forward term */
  ISO_STATE_TARGET_POSITION = 4, /* PD position target q_d, rad or m */
  ISO_STATE_TARGET_VELOCITY = 5, /* PD velocity target v_d, rad/s or m/s */
  /* what the last step did (read-only): */
  ISO_STATE_ACTUATION = 6,       /* per actuator: the effort it applied, N m or N (a PD
                                    actuator's total effort, within its limit) */
  ISO_STATE_JOINT_FORCE = 7,     /* per DoF (nv): the generalized force of the joint
                                    constraints (limits, couplers, PD actuators), N m or N */
  /* deformable bodies (include/isobar/deformable.h), 3 values per vertex, body after body in
     the model's order (iso_model_deformable_size gives each body's vertex count): */
  ISO_STATE_VERTEX_POSITION = 8, /* vertex positions in the world, m; a reset restores the rest
                                    shape */
  ISO_STATE_VERTEX_VELOCITY = 9  /* vertex velocities in the world, m/s; zero at reset */
} isoStateField;

/* Values per world of a state field. */
int iso_sim_state_width(const isoSim *sim, isoStateField field);

/* Copy a field of the selected worlds into `out` (packed, see isoWorlds). */
isoStatus iso_sim_get_state(const isoSim *sim, isoStateField field, isoWorlds worlds, double *out);

/* Overwrite a field of the selected worlds (not ACTUATION or JOINT_FORCE, which a step writes).
 * Everything is checked before anything changes:
 * non-finite values, zero quaternions (non-zero ones are normalised, unless of unit length to rounding already: a state read back sets the same bits), negative time, world
 * indices out of range or repeated. Status bits are left as they are (see iso_sim_reset). */
isoStatus iso_sim_set_state(isoSim *sim, isoStateField field, isoWorlds worlds, const double *values);

/* Return the selected worlds to the model's initial state, time 0, and clear their status bits
 * (unfreezing them). Per-world parameters keep their values. */
isoStatus iso_sim_reset(isoSim *sim, isoWorlds worlds);

/* Status bits (ISO_WORLD_*) of the selected worlds. */
isoStatus iso_sim_get_status(const isoSim *sim, isoWorlds worlds, uint32_t *out);

/* ---- bodies -----------------------------------------------------------------------------------
 * Where the bodies are and how they move, from the current q and v. With joints, q is no longer
 * a body's pose: these run the forward kinematics of every tree (on the host, on any backend).
 * A free body's values are its state exactly (its q reordered, its v as it is). */

/* Pose of every body frame in the world, per world nbody·7 values, packed as
 * px py pz qw qx qy qz (origin in W, m; unit quaternion of R_WB), body after body. */
isoStatus iso_sim_get_body_poses(const isoSim *sim, isoWorlds worlds, double *out);

/* Spatial velocity of every body, per world nbody·6 values: wx wy wz (angular velocity, rad/s)
 * then vx vy vz (velocity of the body origin, m/s), both in W, body after body. */
isoStatus iso_sim_get_body_velocities(const isoSim *sim, isoWorlds worlds, double *out);

/* ---- where a step's time goes ------------------------------------------------------------------
 * Wall time per stage of the step, summed over the timed steps since creation or the last
 * iso_sim_reset_stage_times. The timers are off at creation: a timed step reads the clock around
 * each stage with work, 25-35 ns a read, which is a tenth of a one-world step of a two-link
 * pendulum and nothing at many worlds; a profiler turns them on (iso_sim_set_stage_timing).
 * Measured on the CPU backend (on the CUDA backend the stages are queued asynchronously and
 * report 0). Stage names are stable strings, in step order. */

/* Turn the stage timers on (enabled != 0) or off (0). Turning them off keeps the times summed so
 * far; turning them on again adds to them. */
isoStatus iso_sim_set_stage_timing(isoSim *sim, int enabled);

/* Number of timed stages (the same for every sim). */
int iso_sim_stage_count(void);

/* Name of timed stage `k` (e.g. "surfaces", "line_search"), or "" when k is out of range. */
const char *iso_sim_stage_name(int k);

/* Seconds spent in each stage: out[k] for k < min(cap, iso_sim_stage_count()); *count receives
 * iso_sim_stage_count(). A stage with no work in the sim's model (the deformable stages of a
 * model without deformable bodies, "tactile" without pads, "contact forces" before the first
 * view of body_contact_wrench, ...) is not timed and stays at 0 s: its clock reads would cost
 * more than the stage. ISO_ERR_STATE (out untouched) when the timers were never on: zeros would
 * read as a measurement. */
isoStatus iso_sim_get_stage_times(const isoSim *sim, double *out, int cap, int *count);

/* Set every stage's time to zero (e.g. after a warm-up). */
isoStatus iso_sim_reset_stage_times(isoSim *sim);

/* ---- per-world parameters ---------------------------------------------------------------------
 * Every parameter starts shared by all worlds (the model's value). Setting it for some worlds
 * gives each world its own copy from then on; worlds not selected keep their value. */

typedef enum isoParam {
  ISO_PARAM_GRAVITY = 0,      /* item 0; 3 values, m/s², world frame */
  ISO_PARAM_BODY_MASS = 1,    /* item = body; 1 value, kg, > 0 */
  ISO_PARAM_BODY_COM = 2,     /* item = body; 3 values, m, body frame */
  ISO_PARAM_BODY_INERTIA = 3, /* item = body; 6 values Ixx Iyy Izz Ixy Ixz Iyz about the COM in
                                 the body frame, kg m²; positive definite, triangle inequality */
  ISO_PARAM_GEOM_MODULUS = 4,     /* item = geometry; hydroelastic modulus E, Pa, > 0 (the legacy
                                     point model reads it as Young's modulus, isoPointModel) */
  ISO_PARAM_GEOM_DISSIPATION = 5, /* item = geometry; Hunt–Crossley dissipation, s/m, >= 0 */
  ISO_PARAM_GEOM_FRICTION = 6,    /* item = geometry; 2 values: static, dynamic friction, >= 0 */
  ISO_PARAM_GEOM_STIFFNESS = 7,   /* item = geometry; point-contact stiffness, N/m, > 0 (not read
                                     by the legacy point model) */
  ISO_PARAM_GEOM_RELAXATION = 8,  /* item = geometry; relaxation time, s, >= 0 */
  /* joints: item = a DoF, the index of its velocity in a world's v (iso_model_joint_slice) */
  ISO_PARAM_DOF_DAMPING = 9,      /* 1 value: viscous damping, N m s/rad or N s/m, >= 0 */
  ISO_PARAM_DOF_LIMITS = 10,      /* 2 values: lower, upper position limit (rad or m) of a
                                     revolute or prismatic joint, lower <= upper, -inf/+inf: none;
                                     a limit on a model DoF without one makes no constraint: the
                                     limits that exist are decided at compile */
  ISO_PARAM_DOF_REFLECTED_INERTIA = 11, /* 1 value: rotor inertia x gear ratio², kg m², >= 0 */
  /* actuators: item = actuator index */
  ISO_PARAM_ACTUATOR_GAINS = 12,        /* 2 values: kp, kd, >= 0 (a model actuator without
                                           gains stays an effort-only actuator) */
  ISO_PARAM_ACTUATOR_EFFORT_LIMIT = 13, /* 1 value: effort limit, > 0, +inf: none */
  /* deformable bodies: item = deformable body index (include/isobar/deformable.h) */
  ISO_PARAM_DEFORMABLE_MATERIAL = 14    /* 5 values: Young's modulus E (Pa, > 0), Poisson's
                                           ratio ν (in (−1, 0.5)), mass density ρ (kg/m³, > 0),
                                           Rayleigh mass damping α (1/s) and stiffness damping β
                                           (s), both >= 0 */
} isoParam;

/* Values per item of a parameter (1, 2, 3, 5 or 6). */
int iso_param_width(isoParam param);
/* The parameter's name, e.g. "body_mass". */
const char *iso_param_name(isoParam param);

/* Set a parameter of item `item` for the selected worlds; `values` holds width values per
 * selected world, packed. Checked before anything changes; a bad value names the world. */
isoStatus iso_sim_set_param(isoSim *sim, isoParam param, int item, isoWorlds worlds, const double *values);

/* Read a parameter of item `item` for the selected worlds (packed). */
isoStatus iso_sim_get_param(const isoSim *sim, isoParam param, int item, isoWorlds worlds, double *out);

/* 1 when the parameter is stored per world, 0 when shared. */
int iso_sim_param_is_per_world(const isoSim *sim, isoParam param);

#ifdef __cplusplus
}
#endif
#endif
