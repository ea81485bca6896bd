/* Built-in scenes, shared by the isobar tool, the tests, the benchmarks and the examples. */
#ifndef ISOBAR_SCENES_H
#define ISOBAR_SCENES_H

#include "isobar/model.h"
#include "isobar/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tumbling free bodies: `nbody` (>= 1) bricks of 0.2 x 0.1 x 0.05 m, 1 kg each, with distinct
 * principal moments (an asymmetric top, whose rotation about its middle axis is unstable), a
 * centre of mass offset from the body origin, spread 0.5 m apart along x, under gravity.
 * Returns a compiled model with time step `dt` (> 0). */
isoStatus iso_scene_tumbling_model(int nbody, double dt, isoModel **out);

/* Give every world of a sim of the tumbling model its own initial spin: world k, body b
 * starts with an angular velocity drawn from a fixed generator seeded by (k, b), of magnitude
 * 2 to 8 rad/s, and a small linear velocity. Deterministic: the same k always gets the same
 * state, whatever the number of worlds. Also usable after iso_sim_reset. */
isoStatus iso_scene_tumbling_init(isoSim *sim);

/* A contact-rich scene: on a rigid ground, a compliant box (hydroelastic against the ground),
 * a compliant ball dropped onto the box (compliant–compliant surfaces), and a capsule and a
 * small brick with point contact only (Drake's "undefined" compliance), all under gravity.
 * Returns a compiled model with time step `dt` (> 0). Bodies: box, ball, capsule, brick. */
isoStatus iso_scene_contact_model(double dt, isoModel **out);

/* Initial states for the contact scene: world k gets positions and spins drawn from a fixed
 * generator seeded by k (bodies start just above their supports). */
isoStatus iso_scene_contact_init(isoSim *sim);

/* A pick: a parallel gripper above a compliant 6 cm cube of 0.1 kg resting on a rigid ground.
 * The gripper is one tree: a carriage of 1 kg on a vertical prismatic joint "lift" (q = 0 with
 * the carriage 0.2 m above the ground) and two fingers of 0.1 kg on prismatic joints "left" and
 * "right" (q = 0 open, 5 cm each side of the cube; positive q closes), each a rigid
 * 2 × 4 × 10 cm box. Three PD actuators (named after their joints): lift kp 4000, kd 400,
 * effort 100 N; fingers kp 400, kd 20, effort 8 N. Hydroelastic contact (rigid fingers and
 * ground, compliant cube, friction 1). Returns a compiled model with time step `dt` (> 0). */
isoStatus iso_scene_pick_model(double dt, isoModel **out);

/* The PD targets of the pick at time t (s), for every world: descend by 2 cm (0 – 0.2 s),
 * close on the cube (0.2 – 0.5 s), lift by 10 cm (0.5 – 1.0 s), hold. Call before the steps of a
 * new phase, or every step. */
isoStatus iso_scene_pick_targets(isoSim *sim, double t);

#ifdef __cplusplus
}
#endif
#endif
