/* Scene files: URDF joints, mimic joints and transmissions, as Drake's URDF parser reads them
 * (multibody/parsing/detail_urdf_parser.cc: ParseJoint, ParseMimicTag, ParseTransmission).
 *
 * Joints. <origin> is X_PJ, the joint frame J in the parent link; the child link's frame IS
 * J, so F = J on the parent (X_PF = X_PJ) and M = the child link frame (X_CM = identity).
 * Types: revolute and continuous (a revolute joint), prismatic, fixed (merged by the build),
 * floating (ISO_JOINT_FLOATING between parent and child; Drake instead warns and leaves the
 * child a free body of the world, which moves the same); planar and every other type are
 * rejected. <axis xyz> is in J, (1, 0, 0) when absent, normalised; a zero axis is an error.
 * <limit>: lower, upper, velocity and effort, each ±infinity when absent, read for revolute,
 * continuous and prismatic joints alike (Drake applies a continuous joint's lower/upper too).
 * <dynamics damping> is the viscous damping; a non-zero friction is reported (not modelled,
 * Drake warns and ignores it too).
 *
 * Actuators come from transmissions only, never from effort limits alone. Drake's rule: a
 * <transmission> whose type (a <type> child, or the old `type` attribute) contains
 * "SimpleTransmission" gives one actuator named by its <actuator name>, on the joint named by
 * its <joint name>, with that joint's <limit effort> as the effort limit (+infinity when the
 * joint gives none). Skipped with a warning (reported here): other transmission types, a fixed
 * joint, an effort limit of 0. Errors: no actuator or joint element or name, a joint that does
 * not exist, a negative effort limit. The actuator's drake:rotor_inertia and drake:gear_ratio
 * (`value` attribute) and drake:controller_gains (`p` and `d`, both required) set its
 * parameters.
 *
 * <mimic joint multiplier offset>: a coupler, read after every joint of the robot exists;
 * multiplier defaults to 1 and offset to 0; the leader must exist and differ from the joint,
 * and both must be revolute or prismatic (Drake ignores a mimic between multi-dof joints with
 * a warning: reported here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_urdf.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

static int one_dof(isoJointType t) { return t == ISO_JOINT_REVOLUTE || t == ISO_JOINT_PRISMATIC; }

/* <limit>: position limits, velocity limit, and the effort limit kept for a transmission. */
static isoStatus read_limit(sceneCtx *c, const sceneFile *f, xmlNode *n, sceneJoint *j, double *effort) {
  static const char *const attrs[] = {"lower", "upper", "effort", "velocity", "drake:acceleration", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, NULL, attrs)) != ISO_OK) return st;
  int has_v = 0;
  if ((st = scene_urdf_number(c, f, n, "lower", &j->lower, NULL)) != ISO_OK) return st;
  if ((st = scene_urdf_number(c, f, n, "upper", &j->upper, NULL)) != ISO_OK) return st;
  if ((st = scene_urdf_number(c, f, n, "effort", effort, NULL)) != ISO_OK) return st;
  if ((st = scene_urdf_number(c, f, n, "velocity", &j->velocity, &has_v)) != ISO_OK) return st;
  if (j->lower > j->upper)
    return scene_fail(f, n, ISO_ERR_INVALID, "joint '%s': the lower limit %g exceeds the upper limit %g", j->name,
                      j->lower, j->upper);
  if (j->velocity < 0)
    return scene_fail(f, n, ISO_ERR_INVALID, "joint '%s': the velocity limit %g is negative", j->name, j->velocity);
  if (has_v && j->velocity == 0) {
    j->velocity = INFINITY;
    if ((st = scene_ignore_attr(c, f, n, "velocity", "a velocity limit of 0 is kept as none: isobar's limit must be "
                                "> 0, and Drake does not enforce it")) != ISO_OK)
      return st;
  }
  if (scene_attr(&c->mem, n, "drake:acceleration") &&
      (st = scene_ignore_attr(c, f, n, "drake:acceleration", "acceleration limits are not kept")) != ISO_OK)
    return st;
  return ISO_OK;
}

static isoStatus read_dynamics(sceneCtx *c, const sceneFile *f, xmlNode *n, sceneJoint *j) {
  static const char *const attrs[] = {"damping", "friction", "coulomb_window", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, NULL, attrs)) != ISO_OK) return st;
  if ((st = scene_urdf_number(c, f, n, "damping", &j->damping, NULL)) != ISO_OK) return st;
  if (j->damping < 0)
    return scene_fail(f, n, ISO_ERR_INVALID, "joint '%s': damping %g must be >= 0", j->name, j->damping);
  double friction = 0;
  if ((st = scene_urdf_number(c, f, n, "friction", &friction, NULL)) != ISO_OK) return st;
  if (friction != 0 &&
      (st = scene_ignore_attr(c, f, n, "friction", "joint friction is not modelled; Drake ignores it too")) != ISO_OK)
    return st;
  if (scene_attr(&c->mem, n, "coulomb_window") &&
      (st = scene_ignore_attr(c, f, n, "coulomb_window", "joint friction is not modelled")) != ISO_OK)
    return st;
  return ISO_OK;
}

static isoStatus link_of(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *joint, const nameMap *links, int *out) {
  static const char *const la[] = {"link", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, NULL, la)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "link");
  if (!name) return scene_fail(f, n, ISO_ERR_PARSE, "joint '%s': needs a 'link' attribute", joint);
  *out = name_map_get(links, 0, name, strlen(name));
  if (*out < 0) return scene_fail(f, n, ISO_ERR_PARSE, "joint '%s': no link named '%s'", joint, name);
  return ISO_OK;
}

isoStatus scene_urdf_joint(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *model, const nameMap *links,
                           urdfJoints *joints) {
  static const char *const fixed_elems[] = {"parent", "child", "origin", NULL};
  static const char *const moving_elems[] = {"parent", "child", "origin", "axis", "limit", "dynamics", "mimic", NULL};
  static const char *const attrs[] = {"name", "type", NULL};
  static const char *const xyz[] = {"xyz", NULL};
  isoStatus st;
  char *name = scene_attr(&c->mem, n, "name"), *type = scene_attr(&c->mem, n, "type");
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  if (!type) return scene_fail(f, n, ISO_ERR_PARSE, "needs a 'type' attribute");
  sceneJoint j = scene_default_joint();
  if (strcmp(type, "revolute") == 0 || strcmp(type, "continuous") == 0) j.type = ISO_JOINT_REVOLUTE;
  else if (strcmp(type, "prismatic") == 0) j.type = ISO_JOINT_PRISMATIC;
  else if (strcmp(type, "floating") == 0) j.type = ISO_JOINT_FLOATING;
  else if (strcmp(type, "fixed") != 0)
    return scene_fail(f, n, ISO_ERR_UNSUPPORTED,
                      "joint '%s' of type '%s' is not supported (URDF joints: revolute, continuous, prismatic, "
                      "fixed, floating)", name, type);
  int moving = one_dof(j.type);
  if ((st = scene_check(c, f, n, moving ? moving_elems : fixed_elems, attrs)) != ISO_OK) return st;
  xmlNode *pn = scene_child(n, "parent"), *cn = scene_child(n, "child");
  if (!pn || !cn) return scene_fail(f, n, ISO_ERR_PARSE, "a joint needs <parent link=...> and <child link=...>");
  if ((st = link_of(c, f, pn, name, links, &j.parent)) != ISO_OK) return st;
  if ((st = link_of(c, f, cn, name, links, &j.child)) != ISO_OK) return st;
  if (c->links[j.child].welded && strcmp(c->links[j.child].name + strlen(model) + 2, "world") == 0)
    return scene_fail(f, cn, ISO_ERR_PARSE, "joint '%s': the world cannot be a child", name);
  if ((st = scene_urdf_origin(c, f, scene_child(n, "origin"), &j.X_PJ)) != ISO_OK) return st;
  j.name = scene_printf(&c->mem, "%s::%s", model, name);
  if (!j.name) return nomem();
  j.file = f;
  j.line = scene_line(n);
  double effort = INFINITY;
  if (moving) {
    double axis[3] = {1, 0, 0};
    xmlNode *an = scene_child(n, "axis"), *ln = scene_child(n, "limit"), *dn = scene_child(n, "dynamics");
    if (an) {
      if ((st = scene_check(c, f, an, NULL, xyz)) != ISO_OK) return st;
      char *s = scene_attr(&c->mem, an, "xyz");
      if (s && (st = scene_numbers(f, an, "xyz", s, 3, axis)) != ISO_OK) return st;
      double norm = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
      if (norm < 1e-8) return scene_fail(f, an, ISO_ERR_INVALID, "joint '%s': the axis is zero", name);
      for (int k = 0; k < 3; ++k) axis[k] /= norm;
    }
    memcpy(j.axis, axis, sizeof axis);
    if (ln && (st = read_limit(c, f, ln, &j, &effort)) != ISO_OK) return st;
    if (dn && (st = read_dynamics(c, f, dn, &j)) != ISO_OK) return st;
  }
  int index = c->njoint, put = name_map_put(&joints->names, 0, name, strlen(name), index);
  if (put < 0) return nomem();
  if (put == 0) return scene_fail(f, n, ISO_ERR_PARSE, "a joint named '%s' already exists in robot '%s'", name, model);
  if (index - joints->first >= joints->cap) {
    int cap = joints->cap ? 2 * joints->cap : 16;
    double *e = (double *)realloc(joints->effort, (size_t)cap * sizeof *e);
    if (!e) return nomem();
    joints->effort = e;
    joints->cap = cap;
  }
  joints->effort[index - joints->first] = effort;
  joints->n = index - joints->first + 1;
  sceneJoint *sj;
  if ((st = scene_new_joint(c, &sj)) != ISO_OK) return st;
  *sj = j;
  return ISO_OK;
}

/* The joint of this robot named by attribute `attr` of n, or -1 with a failure. */
static isoStatus named_joint(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, const char *what,
                             const urdfJoints *joints, int *out) {
  char *name = scene_attr(&c->mem, n, attr);
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "%s: needs a '%s' attribute", what, attr);
  *out = name_map_get(&joints->names, 0, name, strlen(name));
  if (*out < 0) return scene_fail(f, n, ISO_ERR_PARSE, "%s: joint '%s' does not exist", what, name);
  return ISO_OK;
}

isoStatus scene_urdf_mimic(sceneCtx *c, const sceneFile *f, xmlNode *n, const urdfJoints *joints) {
  static const char *const attrs[] = {"joint", "multiplier", "offset", NULL};
  isoStatus st;
  xmlNode *mn = scene_child(n, "mimic");
  char *fname = scene_attr(&c->mem, n, "name");
  if (!mn || !fname) return ISO_OK;
  int follower = name_map_get(&joints->names, 0, fname, strlen(fname)), leader = -1;
  if (follower < 0 || !one_dof(c->joints[follower].type)) return ISO_OK; /* reported with the joint */
  if ((st = scene_check(c, f, mn, NULL, attrs)) != ISO_OK) return st;
  char what[300];
  snprintf(what, sizeof what, "joint '%.200s' mimics", fname);
  if ((st = named_joint(c, f, mn, "joint", what, joints, &leader)) != ISO_OK) return st;
  if (leader == follower) return scene_fail(f, mn, ISO_ERR_INVALID, "joint '%s' cannot mimic itself", fname);
  if (!one_dof(c->joints[leader].type))
    return scene_ignore(c, f, mn, "the leader is not a revolute or prismatic joint; Drake ignores such a mimic too");
  sceneCoupler *k;
  if ((st = scene_new_coupler(c, &k)) != ISO_OK) return st;
  k->follower = follower;
  k->leader = leader;
  k->file = f;
  k->line = scene_line(mn);
  if ((st = scene_urdf_number(c, f, mn, "multiplier", &k->gear_ratio, NULL)) != ISO_OK) return st;
  return scene_urdf_number(c, f, mn, "offset", &k->offset, NULL);
}

/* A drake: parameter of an <actuator>: attributes `a0` (and `a1`, may be NULL) of child
 * `elem`, required there. */
static isoStatus actuator_param(sceneCtx *c, const sceneFile *f, xmlNode *an, const char *elem, const char *a0,
                                double *v0, const char *a1, double *v1) {
  xmlNode *e = scene_child(an, elem);
  if (!e) return ISO_OK;
  const char *const attrs[] = {a0, a1, NULL};
  isoStatus st = scene_check(c, f, e, NULL, attrs);
  for (int i = 0; i < 2 && st == ISO_OK && attrs[i]; ++i) {
    int given = 0;
    if ((st = scene_urdf_number(c, f, e, attrs[i], i ? v1 : v0, &given)) == ISO_OK && !given)
      st = scene_fail(f, e, ISO_ERR_PARSE, "needs a '%s' attribute", attrs[i]);
  }
  return st;
}

isoStatus scene_urdf_transmission(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *model,
                                  const urdfJoints *joints) {
  static const char *const elems[] = {"type", "joint", "actuator", NULL};
  static const char *const attrs[] = {"name", "type", NULL};
  static const char *const aelems[] = {"drake:rotor_inertia", "drake:gear_ratio", "drake:controller_gains",
                                       "mechanicalReduction", NULL};
  static const char *const named[] = {"name", NULL};
  isoStatus st;
  xmlNode *tn = scene_child(n, "type");
  char *type = tn ? scene_text(&c->mem, tn) : scene_attr(&c->mem, n, "type");
  if (tn && (st = scene_check(c, f, tn, NULL, NULL)) != ISO_OK) return st;
  if (!type) return scene_fail(f, n, ISO_ERR_PARSE, "a transmission needs a type");
  if (!strstr(type, "SimpleTransmission"))
    return scene_ignore(c, f, n, "only SimpleTransmission makes an actuator, as in Drake");
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  xmlNode *an = scene_child(n, "actuator"), *jn = scene_child(n, "joint");
  if (!an) return scene_fail(f, n, ISO_ERR_PARSE, "a transmission needs an <actuator>");
  if ((st = scene_check(c, f, an, aelems, named)) != ISO_OK) return st;
  char *aname = scene_attr(&c->mem, an, "name");
  if (!aname || !aname[0]) return scene_fail(f, an, ISO_ERR_PARSE, "needs a 'name' attribute");
  if (!jn) return scene_fail(f, n, ISO_ERR_PARSE, "a transmission needs a <joint>");
  if ((st = scene_check(c, f, jn, NULL, named)) != ISO_OK) return st;
  int joint = -1;
  if ((st = named_joint(c, f, jn, "name", "the transmission", joints, &joint)) != ISO_OK) return st;
  const sceneJoint *jt = &c->joints[joint];
  double effort = joints->effort[joint - joints->first];
  if (jt->type == ISO_JOINT_FIXED) return scene_ignore(c, f, n, "its joint is fixed; Drake skips it too");
  if (!one_dof(jt->type))
    return scene_fail(f, jn, ISO_ERR_INVALID, "joint '%s' is %s: an actuator needs a revolute or prismatic joint",
                      jt->name, iso_joint_type_name(jt->type));
  if (effort < 0)
    return scene_fail(f, jn, ISO_ERR_INVALID, "joint '%s' has a negative effort limit %g", jt->name, effort);
  if (effort == 0) return scene_ignore(c, f, n, "its joint's effort limit is 0; Drake skips it too");
  for (xmlNode *k = an->children; k; k = k->next)
    if (scene_is(k, "mechanicalReduction")) {
      double r = 1;
      if ((st = scene_text_numbers(&c->mem, f, k, 1, &r)) != ISO_OK) return st;
      if (r != 1 && (st = scene_ignore(c, f, k, "a reduction other than 1 is not modelled; Drake warns too")) != ISO_OK)
        return st;
    }
  sceneActuator *a;
  if ((st = scene_new_actuator(c, &a)) != ISO_OK) return st;
  a->name = scene_printf(&c->mem, "%s::%s", model, aname);
  if (!a->name) return nomem();
  a->joint = joint;
  a->effort = effort;
  a->file = f;
  a->line = scene_line(an);
  if ((st = actuator_param(c, f, an, "drake:rotor_inertia", "value", &a->rotor_inertia, NULL, NULL)) != ISO_OK)
    return st;
  if ((st = actuator_param(c, f, an, "drake:gear_ratio", "value", &a->gear_ratio, NULL, NULL)) != ISO_OK) return st;
  return actuator_param(c, f, an, "drake:controller_gains", "p", &a->kp, "d", &a->kd);
}
