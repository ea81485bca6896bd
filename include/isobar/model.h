/* The model: what every world of a sim is made of. Built once through this builder, validated
 * at the door (each bad value is rejected with a message naming the item), then compiled and
 * read-only. A sim copies what it needs, so a model may be destroyed once its sims exist. */
#ifndef ISOBAR_MODEL_H
#define ISOBAR_MODEL_H

#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct isoModel isoModel;

/* Sensible ranges, checked at the door (see also geometry.h): a mass beyond ISO_MAX_MASS or a
 * gravity beyond ISO_MAX_GRAVITY in any component is rejected with the value named. */
#define ISO_MAX_MASS 1e9    /* kg */
#define ISO_MAX_GRAVITY 1e4 /* m/s² per component */

/* World-level settings. */
typedef struct isoModelDef {
  double gravity[3]; /* gravity acceleration in the world frame, m/s²; default (0, 0, -9.81) */
  double time_step;  /* fixed step, s; > 0; default 1e-3 (Drake's discrete default) */
  double penetration_allowance; /* m, > 0; default 1e-3 (Drake's). Geometries whose point
                                   stiffness is 0 (or dissipation NaN) get Drake's estimate from
                                   it: stiffness 2·m_max·|g|/allowance, dissipation
                                   √(allowance/|g|)/allowance, m_max the heaviest body */
} isoModelDef;

/* A rigid body's inertial definition. The body frame B has its origin Bo; mass properties are
 * given about the centre of mass in B. Where the body starts is not part of it: that belongs to
 * the joint that moves it (for a free body, its floating joint: isoFreeBodyState). */
typedef struct isoBodyDef {
  const char *name;  /* unique name (copied); NULL gives "body<index>"; default NULL */
  double mass;       /* kg, finite and > 0; default 1 */
  double com[3];     /* centre of mass in B, m; default 0 */
  double inertia[6]; /* rotational inertia about the COM in B: Ixx Iyy Izz Ixy Ixz Iyz (the
                        matrix entries, kg m²); positive definite and obeying the triangle
                        inequality; default that of a solid sphere of mass 1 and radius 0.1:
                        (0.004, 0.004, 0.004, 0, 0, 0) */
} isoBodyDef;

/* The initial state of a free body (6 degrees of freedom). Its generalized coordinates follow
 * Drake's quaternion floating joint: q = [qw qx qy qz px py pz] (R_WB, p_WBo) and
 * v = [wx wy wz vx vy vz] (angular velocity of B and velocity of Bo, both in the world frame). */
typedef struct isoFreeBodyState {
  double position[3];         /* p_WBo, m, finite; default 0 */
  double quaternion[4];       /* R_WB as (w, x, y, z), finite and non-zero (normalised when set);
                                 default identity (1, 0, 0, 0) */
  double angular_velocity[3]; /* w_WB in W, rad/s, finite; default 0 */
  double linear_velocity[3];  /* v_WBo in W, m/s, finite; default 0 */
} isoFreeBodyState;

/* Defaults as documented on each field. */
isoModelDef iso_default_model_def(void);
isoBodyDef iso_default_body_def(void);
isoFreeBodyState iso_default_free_body_state(void);

/* Create an empty model. `def` may be NULL for the defaults. ISO_ERR_INVALID for a non-finite
 * gravity or a time step that is not finite and positive. */
isoStatus iso_model_create(const isoModelDef *def, isoModel **out);

/* Free a model (NULL is fine). Sims created from it stay valid. */
void iso_model_destroy(isoModel *model);

/* Add a free rigid body; *id (may be NULL) receives its index. It starts at the origin at rest
 * (iso_default_free_body_state) until iso_model_set_initial_state says otherwise. The body is
 * validated here and rejected, leaving the model unchanged, with a message naming it:
 * non-finite values, mass <= 0, an inertia that is not positive definite or violates the
 * triangle inequality, a duplicate name. ISO_ERR_STATE once the model is compiled. */
isoStatus iso_model_add_body(isoModel *model, const isoBodyDef *def, int *id);

/* Set where free body `body` starts (every world of a sim starts there, and iso_sim_reset
 * returns there). Validated here and rejected, leaving the model unchanged, with a message
 * naming the body: non-finite values, a zero quaternion (a non-zero one is stored normalised).
 * ISO_ERR_NOT_FOUND for a body index out of range, ISO_ERR_STATE once the model is compiled. */
isoStatus iso_model_set_initial_state(isoModel *model, int body, const isoFreeBodyState *state);

/* Validate the whole model (every check add_body makes, again, plus model-level ones). */
isoStatus iso_model_validate(const isoModel *model);

/* Validate and freeze the model: afterwards it is read-only and sims can be created from it.
 * Compiling twice is allowed and does nothing the second time. */
isoStatus iso_model_compile(isoModel *model);

/* Number of bodies (0 for NULL). */
int iso_model_body_count(const isoModel *model);
/* 1 once iso_model_compile succeeded, else 0. */
int iso_model_is_compiled(const isoModel *model);

/* The index of the body named `name`; ISO_ERR_NOT_FOUND names it when absent. */
isoStatus iso_model_find_body(const isoModel *model, const char *name, int *id);

/* A copy of body `id` as it was added (name pointer owned by the model). */
isoStatus iso_model_get_body(const isoModel *model, int id, isoBodyDef *out);

/* The initial state of body `id` as stored (quaternion normalised); the default state when none
 * was set. */
isoStatus iso_model_get_initial_state(const isoModel *model, int id, isoFreeBodyState *out);

/* The model's world-level settings. */
isoStatus iso_model_get_def(const isoModel *model, isoModelDef *out);

/* The kinds of named things a model holds. */
typedef enum isoItemKind {
  ISO_ITEM_BODY = 0,
  ISO_ITEM_GEOMETRY = 1,
  ISO_ITEM_JOINT = 2,
  ISO_ITEM_ACTUATOR = 3,
  ISO_ITEM_DEFORMABLE = 4
} isoItemKind;

/* The name of item `id` of a kind (owned by the model, valid while it lives), or NULL for an
 * index out of range or an unknown kind. For bindings that read names without the defs'
 * layouts. */
const char *iso_model_item_name(const isoModel *model, isoItemKind kind, int id);

#ifdef __cplusplus
}
#endif
#endif
