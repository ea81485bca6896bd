/* The built-in pick scene (include/isobar/scenes.h): a jointed gripper lifting a compliant cube,
 * built through the public API, shared by the tests, the benchmarks and the tool. */
#include <math.h>
#include <stdlib.h>

#include "host/base/error.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"

/* A body with a box's inertia (full sizes sx, sy, sz), and, when geom, a box geometry at gz. */
static isoStatus body(isoModel *m, const char *name, double mass, double sx, double sy, double sz, double gz,
                      const isoGeometryDef *geom, int *id) {
  isoBodyDef b = iso_default_body_def();
  b.name = name;
  b.mass = mass;
  b.com[2] = gz;
  b.inertia[0] = mass / 12 * (sy * sy + sz * sz);
  b.inertia[1] = mass / 12 * (sx * sx + sz * sz);
  b.inertia[2] = mass / 12 * (sx * sx + sy * sy);
  isoStatus st = iso_model_add_body(m, &b, id);
  if (st != ISO_OK || !geom) return st;
  isoGeometryDef g = *geom;
  g.name = name;
  g.body = *id;
  g.size[0] = sx, g.size[1] = sy, g.size[2] = sz;
  g.position[2] = gz;
  return iso_model_add_geometry(m, &g, NULL);
}

static isoStatus prismatic(isoModel *m, const char *name, int parent, int child, double x, double y, double z,
                           double ax, double ay, double az, int *id) {
  isoJointDef j = iso_default_joint_def();
  j.name = name;
  j.type = ISO_JOINT_PRISMATIC;
  j.parent = parent, j.child = child;
  j.parent_position[0] = x, j.parent_position[1] = y, j.parent_position[2] = z;
  j.axis[0] = ax, j.axis[1] = ay, j.axis[2] = az;
  return iso_model_add_joint(m, &j, id);
}

static isoStatus actuator(isoModel *m, int joint, double kp, double kd, double effort) {
  isoActuatorDef a = iso_default_actuator_def();
  a.joint = joint, a.kp = kp, a.kd = kd, a.effort_limit = effort;
  return iso_model_add_actuator(m, &a, NULL);
}

isoStatus iso_scene_pick_model(double dt, isoModel **out) {
  CHECK_NULL(out, "iso_scene_pick_model");
  isoModelDef md = iso_default_model_def();
  md.time_step = dt;
  isoModel *m = NULL;
  isoStatus st = iso_model_create(&md, &m);
  if (st != ISO_OK) return st;
  isoGeometryDef g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_HALFSPACE;
  g.name = "ground";
  g.compliance = ISO_COMPLIANCE_RIGID;
  g.mu_static = g.mu_dynamic = 1.0;
  st = iso_model_add_geometry(m, &g, NULL);
  /* the cube first: a free body, resting on the ground */
  isoGeometryDef cube = iso_default_geometry_def();
  cube.shape = ISO_SHAPE_BOX;
  cube.compliance = ISO_COMPLIANCE_COMPLIANT;
  cube.hydroelastic_modulus = 1e5;
  cube.hunt_crossley_dissipation = 5;
  cube.mu_static = cube.mu_dynamic = 1.0;
  int id = -1, carriage = -1, left = -1, right = -1, jl = -1, jf0 = -1, jf1 = -1;
  if (st == ISO_OK) st = body(m, "cube", 0.1, 0.06, 0.06, 0.06, 0, &cube, &id);
  if (st == ISO_OK) {
    isoFreeBodyState x = iso_default_free_body_state();
    x.position[2] = 0.03;
    st = iso_model_set_initial_state(m, id, &x);
  }
  /* the gripper: carriage, then its fingers */
  isoGeometryDef finger = iso_default_geometry_def();
  finger.shape = ISO_SHAPE_BOX;
  finger.compliance = ISO_COMPLIANCE_RIGID;
  finger.mu_static = finger.mu_dynamic = 1.0;
  if (st == ISO_OK) st = body(m, "carriage", 1.0, 0.16, 0.06, 0.04, 0, NULL, &carriage);
  if (st == ISO_OK) st = prismatic(m, "lift", -1, carriage, 0, 0, 0.2, 0, 0, 1, &jl);
  if (st == ISO_OK) st = body(m, "left_finger", 0.1, 0.02, 0.04, 0.1, -0.12, &finger, &left);
  if (st == ISO_OK) st = prismatic(m, "left", carriage, left, -0.06, 0, 0, 1, 0, 0, &jf0);
  if (st == ISO_OK) st = body(m, "right_finger", 0.1, 0.02, 0.04, 0.1, -0.12, &finger, &right);
  if (st == ISO_OK) st = prismatic(m, "right", carriage, right, 0.06, 0, 0, -1, 0, 0, &jf1);
  if (st == ISO_OK) st = actuator(m, jl, 4000, 400, 100);
  if (st == ISO_OK) st = actuator(m, jf0, 400, 20, 8);
  if (st == ISO_OK) st = actuator(m, jf1, 400, 20, 8);
  if (st == ISO_OK) st = iso_model_compile(m);
  if (st != ISO_OK) {
    iso_model_destroy(m);
    return st;
  }
  *out = m;
  return ISO_OK;
}

isoStatus iso_scene_pick_targets(isoSim *sim, double t) {
  CHECK_NULL(sim, "iso_scene_pick_targets");
  if (iso_sim_state_width(sim, ISO_STATE_TARGET_POSITION) != 3)
    return iso_fail(ISO_ERR_INVALID, "iso_scene_pick_targets: the sim is not of the pick scene");
  const int nw = iso_sim_world_count(sim);
  /* lift: hold (with gravity feed-forward left to the PD), descend 2 cm, hold, rise 10 cm;
   * fingers: open, then squeeze past the cube's faces (the effort limit sets the grip) */
  double lift = t < 0.2 ? -0.1 * t : t < 0.5 ? -0.02 : t < 1.0 ? -0.02 + 0.24 * (t - 0.5) : 0.1;
  double grip = t < 0.2 ? 0 : t < 0.5 ? 0.04 * (t - 0.2) / 0.3 : 0.04;
  double *x = (double *)malloc(sizeof(double) * 3 * (size_t)nw);
  if (!x) return iso_fail(ISO_ERR_NOMEM, "iso_scene_pick_targets: out of memory");
  for (int w = 0; w < nw; ++w) x[3 * w] = lift, x[3 * w + 1] = grip, x[3 * w + 2] = grip;
  isoStatus st = iso_sim_set_state(sim, ISO_STATE_TARGET_POSITION, iso_worlds_all(), x);
  free(x);
  return st;
}
