/* Joints, actuators and couplers: bodies connected into kinematic trees rooted at the world.
 *
 * Conventions are Drake's MultibodyPlant's, so a scene gives the same motion in both. A joint
 * connects frame F, fixed on its parent body (or on the world), to frame M, fixed on its child
 * body; its generalized positions q give the pose X_FM(q), identity at q = 0 (an identity
 * quaternion for ball and floating joints). A body is the child of at most one joint; a body
 * that is no joint's child is a free body: it moves on an implicit floating joint to the world
 * whose frames are the world frame and the body frame (isoFreeBodyState, exactly as before
 * joints existed). Bodies joined to each other form a tree; every tree is one block of the
 * world's SAP problem.
 *
 * Generalized coordinates per joint type (nq, nv):
 *   REVOLUTE  (1, 1) the angle about `axis` (rad), its rate; a revolute joint with infinite
 *                    limits is URDF's "continuous"
 *   PRISMATIC (1, 1) the displacement along `axis` (m), its rate
 *   BALL      (4, 3) q the quaternion (w, x, y, z) of R_FM; v the angular velocity of M in F,
 *                    expressed in F (Drake's ball joint uses roll-pitch-yaw angles for q; the
 *                    motion is the same, without the gimbal singularity)
 *   FLOATING  (7, 6) q = [qw qx qy qz px py pz] (R_FM, p_FMo in F); v = [w_FM, v_FMo], both
 *                    expressed in F (Drake's quaternion floating joint)
 *   FIXED     (0, 0) X_FM = identity: a weld (the scene loaders merge welded bodies instead)
 *
 * Where a joint's q and v sit in a world's state (ISO_STATE_Q, ISO_STATE_V) is fixed at
 * compile: iso_model_joint_slice and iso_model_body_slice tell. Trees are laid out one after
 * another in the order of their root bodies; within a tree, joints in body order. */
#ifndef ISOBAR_JOINT_H
#define ISOBAR_JOINT_H

#include "isobar/model.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum isoJointType {
  ISO_JOINT_REVOLUTE = 0,
  ISO_JOINT_PRISMATIC = 1,
  ISO_JOINT_BALL = 2,
  ISO_JOINT_FLOATING = 3,
  ISO_JOINT_FIXED = 4
} isoJointType;

typedef struct isoJointDef {
  const char *name;             /* unique among joints (copied); NULL gives "joint<index>" */
  isoJointType type;            /* default ISO_JOINT_REVOLUTE */
  int parent;                   /* parent body index, or -1 for the world; a parent must be
                                   added before its child (parent < child); default -1 */
  int child;                    /* child body index; default 0 */
  double parent_position[3];    /* X_PF: frame F in the parent's frame (the world's for -1), m */
  double parent_quaternion[4];  /*       (w, x, y, z), normalised when added; default identity */
  double child_position[3];     /* X_CM: frame M in the child's frame, m */
  double child_quaternion[4];   /*       default identity */
  double axis[3];               /* revolute and prismatic: the axis in F (= in M at q = 0),
                                   non-zero, normalised when added; default (0, 0, 1) */
  double position_lower;        /* revolute and prismatic: limits (rad or m); -INFINITY and */
  double position_upper;        /* +INFINITY (the defaults) mean none; lower <= upper */
  double velocity_limit;        /* |v| bound, rad/s or m/s, > 0, default +INFINITY: kept and
                                   reported, not enforced (Drake's discrete solver does not) */
  double damping;               /* viscous damping, N·m·s/rad or N·s/m, >= 0, default 0;
                                   treated implicitly (A = M + dt·D), as Drake does */
} isoJointDef;

/* An actuator drives one revolute or prismatic joint. Each step it applies the effort the
 * caller set (iso_sim_set_control, ISO_CONTROL_EFFORT), clamped to the effort limit; with gains
 * it is also a PD controller toward the targets set (ISO_CONTROL_POSITION, ISO_CONTROL_VELOCITY),
 * solved implicitly as a SAP constraint with the effort limit (Drake's PD-controlled actuator:
 * total effort clamp(−Kp(q − q_d) − Kd(v − v_d) + u, −e, e)). */
typedef struct isoActuatorDef {
  const char *name;      /* unique among actuators (copied); NULL gives the joint's name */
  int joint;             /* the revolute or prismatic joint it drives; default 0 */
  double effort_limit;   /* e, N·m or N, > 0; default +INFINITY (none) */
  double kp, kd;         /* PD gains, >= 0, default 0 and 0: no PD controller */
  double rotor_inertia;  /* kg m², >= 0, default 0; with the gear ratio ρ, ρ²·rotor_inertia is */
  double gear_ratio;     /* added to the joint's diagonal of M (reflected inertia); default 1 */
} isoActuatorDef;

/* A coupler (a mimic joint): q_follower = gear_ratio·q_leader + offset, held as a SAP holonomic
 * constraint (Drake's coupler constraint). Both joints revolute or prismatic. */
typedef struct isoCouplerDef {
  int follower, leader;  /* joint indices, different; default 0 and 0 */
  double gear_ratio;     /* finite; default 1 */
  double offset;         /* rad or m, finite; default 0 */
} isoCouplerDef;

/* A slice of a world's generalized positions or velocities. */
typedef struct isoSlice {
  int start, count;
} isoSlice;

/* Defaults as documented on each field. */
isoJointDef iso_default_joint_def(void);
isoActuatorDef iso_default_actuator_def(void);
isoCouplerDef iso_default_coupler_def(void);

/* Positions and velocities of a joint type (nq, nv), for types in range; 0 otherwise. */
int iso_joint_type_nq(isoJointType type);
int iso_joint_type_nv(isoJointType type);
/* "revolute", "prismatic", "ball", "floating", "fixed"; "" out of range. */
const char *iso_joint_type_name(isoJointType type);

/* Add a joint; *id (may be NULL) receives its index. Validated here and rejected, leaving the
 * model unchanged, with a message naming the joint: a type out of range, bodies out of range,
 * a parent not added before its child, a child that already has a joint, non-finite or zero
 * axes and quaternions, limits with lower > upper, negative damping, a duplicate name.
 * ISO_ERR_STATE once the model is compiled. */
isoStatus iso_model_add_joint(isoModel *model, const isoJointDef *def, int *id);

/* Add an actuator; checked like a joint (a joint that is not revolute or prismatic, a second
 * actuator on one joint, limits and gains out of range). */
isoStatus iso_model_add_actuator(isoModel *model, const isoActuatorDef *def, int *id);

/* Add a coupler between two joints. */
isoStatus iso_model_add_coupler(isoModel *model, const isoCouplerDef *def, int *id);

/* Where joint `joint` starts: q (nq values) and v (nv values) in the joint's coordinates
 * (either may be NULL to leave it). Quaternions are normalised; a zero one is rejected.
 * Default: q = 0 (identity quaternions), v = 0. */
isoStatus iso_model_set_joint_state(isoModel *model, int joint, const double *q, const double *v);

int iso_model_joint_count(const isoModel *model);
int iso_model_actuator_count(const isoModel *model);
int iso_model_coupler_count(const isoModel *model);
isoStatus iso_model_find_joint(const isoModel *model, const char *name, int *id);
isoStatus iso_model_find_actuator(const isoModel *model, const char *name, int *id);
/* Copies as added (name pointers owned by the model). */
isoStatus iso_model_get_joint(const isoModel *model, int id, isoJointDef *out);
isoStatus iso_model_get_actuator(const isoModel *model, int id, isoActuatorDef *out);
isoStatus iso_model_get_coupler(const isoModel *model, int id, isoCouplerDef *out);

/* Generalized positions and velocities per world (compiled model; 0 before). */
int iso_model_nq(const isoModel *model);
int iso_model_nv(const isoModel *model);

/* The slices of a world's q and v that joint `joint` owns. ISO_ERR_STATE before compile. */
isoStatus iso_model_joint_slice(const isoModel *model, int joint, isoSlice *q, isoSlice *v);

/* The slices of the joint that moves body `body`: its inboard joint, or a free body's floating
 * joint (7 and 6 values). ISO_ERR_STATE before compile. */
isoStatus iso_model_body_slice(const isoModel *model, int body, isoSlice *q, isoSlice *v);

#ifdef __cplusplus
}
#endif
#endif
