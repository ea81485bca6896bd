/* Scene files: an SDFormat <joint>'s type, axis, limits, dynamics and Drake's extensions, read
 * for scene_sdf.c as Drake's SDFormat parser reads them (multibody/parsing/detail_sdf_parser.cc:
 * AddJointFromSpecification, AddJointActuatorFromSpecification, ParseMimicTag) over libsdformat's
 * defaults (JointAxis). The frames are resolved by scene_sdf.c once every frame is known.
 *
 * Types: revolute, continuous (revolute without position limits: Drake's continuous joint
 * ignores <lower> and <upper>; reported here), prismatic, ball, fixed (merged). universal,
 * screw, gearbox and revolute2 are rejected. Revolute, continuous and prismatic joints need an
 * <axis>; a ball joint may have one, of which only the damping is read (Drake warns about the
 * rest; reported here).
 *
 * <axis>: <xyz> in the joint frame, or in the frame its expressed_in names; (0, 0, 1) when
 * absent (libsdformat's default); SDFormat 1.4's <use_parent_model_frame>true means the model
 * frame. <limit>: lower and upper (±infinity when absent), velocity (infinity when absent or
 * negative), effort (infinity when absent or negative). <dynamics>: damping (>= 0); a non-zero
 * friction is reported (not modelled; Drake does not read it); a non-zero spring_stiffness is
 * rejected (Drake adds a spring). <initial_position> is reported: Drake does not read it, the
 * joint starts at 0.
 *
 * Actuators, Drake's rule: a revolute, continuous or prismatic joint whose effort limit is not
 * exactly 0 gets an actuator named after the joint with that limit; so a joint without
 * <effort>, or with a negative one, is actuated without a limit, and <effort>0</effort> means
 * unactuated. Its drake:rotor_inertia, drake:gear_ratio (text) and drake:controller_gains (`p`
 * and `d`, both required) set its parameters; on an unactuated joint they are reported.
 * drake:mimic needs all of `joint`, `multiplier` and `offset`. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_sdf.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

/* The text of element e as one number, into *out. */
static isoStatus number(sceneCtx *c, const sceneFile *f, xmlNode *e, double *out) {
  isoStatus st = scene_check(c, f, e, NULL, NULL);
  return st != ISO_OK ? st : scene_text_numbers(&c->mem, f, e, 1, out);
}

/* A numeric attribute that must be present. */
static isoStatus need_attr(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, double *out) {
  char *s = scene_attr(&c->mem, n, attr);
  if (!s) return scene_fail(f, n, ISO_ERR_PARSE, "needs a '%s' attribute", attr);
  return scene_numbers(f, n, attr, s, 1, out);
}

static isoStatus read_limit(sceneCtx *c, const sceneFile *f, xmlNode *n, int continuous, sdfJointSpec *o) {
  static const char *const elems[] = {"lower", "upper", "effort", "velocity", "drake:acceleration", NULL};
  sceneJoint *j = &o->j;
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, NULL)) != ISO_OK) return st;
  double lower = -INFINITY, upper = INFINITY;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    if ((scene_is(k, "lower") || scene_is(k, "upper")) && continuous) {
      if ((st = scene_ignore(c, f, k, "a continuous joint has no position limits; Drake ignores it too")) != ISO_OK)
        return st;
    } else if (scene_is(k, "lower")) {
      st = number(c, f, k, &lower);
    } else if (scene_is(k, "upper")) {
      st = number(c, f, k, &upper);
    } else if (scene_is(k, "effort")) {
      if ((st = number(c, f, k, &o->act.effort)) == ISO_OK && o->act.effort < 0) o->act.effort = INFINITY;
    } else if (scene_is(k, "velocity")) {
      if ((st = number(c, f, k, &j->velocity)) == ISO_OK && j->velocity < 0) j->velocity = INFINITY;
      if (st == ISO_OK && j->velocity == 0) {
        j->velocity = INFINITY;
        st = scene_ignore(c, f, k, "a velocity limit of 0 is kept as none: isobar's limit must be > 0, and Drake "
                                   "does not enforce it");
      }
    } else if (scene_is(k, "drake:acceleration")) {
      st = scene_ignore(c, f, k, "acceleration limits are not kept");
    }
    if (st != ISO_OK) return st;
  }
  if (lower > upper)
    return scene_fail(f, n, ISO_ERR_INVALID, "joint '%s': the lower limit %g exceeds the upper limit %g", j->name,
                      lower, upper);
  j->lower = lower;
  j->upper = upper;
  return ISO_OK;
}

static isoStatus read_dynamics(sceneCtx *c, const sceneFile *f, xmlNode *n, sceneJoint *j) {
  static const char *const elems[] = {"damping", "friction", "spring_reference", "spring_stiffness", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, NULL)) != ISO_OK) return st;
  for (xmlNode *k = n->children; k; k = k->next) {
    double v = 0;
    if (k->type != XML_ELEMENT_NODE) continue;
    if ((st = number(c, f, k, &v)) != ISO_OK) return st;
    if (scene_is(k, "damping")) {
      if (v < 0) return scene_fail(f, k, ISO_ERR_INVALID, "joint '%s': damping %g must be >= 0", j->name, v);
      j->damping = v;
    } else if (scene_is(k, "friction") && v != 0) {
      st = scene_ignore(c, f, k, "joint friction is not modelled; Drake does not read it either");
    } else if (scene_is(k, "spring_stiffness") && v != 0) {
      return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "joint '%s': joint springs are not supported yet", j->name);
    } else if (scene_is(k, "spring_reference")) {
      st = scene_ignore(c, f, k, "no joint spring");
    }
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

/* <axis> of a revolute, continuous or prismatic joint (ball: only_damping). */
static isoStatus read_axis(sceneCtx *c, const sceneFile *f, xmlNode *n, int continuous, int only_damping,
                           sdfJointSpec *o) {
  static const char *const elems[] = {"xyz", "use_parent_model_frame", "dynamics", "limit", "initial_position", NULL};
  static const char *const xattrs[] = {"expressed_in", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, NULL)) != ISO_OK) return st;
  o->axis_node = n;
  int parent_model = 0;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    if (scene_is(k, "dynamics")) {
      st = read_dynamics(c, f, k, &o->j);
    } else if (only_damping && (scene_is(k, "xyz") || scene_is(k, "use_parent_model_frame") || scene_is(k, "limit") ||
                                scene_is(k, "initial_position"))) {
      st = scene_ignore(c, f, k, "a ball joint has no axis: only its damping is read, as in Drake");
    } else if (scene_is(k, "xyz")) {
      if ((st = scene_check(c, f, k, NULL, xattrs)) != ISO_OK) return st;
      if ((st = scene_text_numbers(&c->mem, f, k, 3, o->j.axis)) != ISO_OK) return st;
      const double *a = o->j.axis;
      double norm = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      if (!(norm > 1e-12)) return scene_fail(f, k, ISO_ERR_INVALID, "joint '%s': the axis is zero", o->j.name);
      o->axis_in = scene_attr(&c->mem, k, "expressed_in");
      if (o->axis_in && !o->axis_in[0]) o->axis_in = NULL;
      o->axis_node = k;
    } else if (scene_is(k, "use_parent_model_frame")) {
      char *t = scene_text(&c->mem, k);
      if (!t) return nomem();
      if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
      st = scene_bool(f, k, "use_parent_model_frame", t, &parent_model);
    } else if (scene_is(k, "limit")) {
      st = read_limit(c, f, k, continuous, o);
    } else if (scene_is(k, "initial_position")) {
      st = scene_ignore(c, f, k, "Drake does not read it; the joint starts at 0");
    }
    if (st != ISO_OK) return st;
  }
  if (parent_model) {
    if (o->axis_in)
      return scene_fail(f, o->axis_node, ISO_ERR_PARSE, "joint '%s': expressed_in and use_parent_model_frame exclude "
                        "each other", o->j.name);
    o->axis_in = "__model__";
  }
  return ISO_OK;
}

/* drake:rotor_inertia, drake:gear_ratio and drake:controller_gains of an actuated joint. */
static isoStatus read_actuator(sceneCtx *c, const sceneFile *f, xmlNode *n, sdfJointSpec *o) {
  static const char *const gains[] = {"p", "d", NULL};
  isoStatus st = ISO_OK;
  for (xmlNode *k = n->children; k && st == ISO_OK; k = k->next) {
    int rotor = scene_is(k, "drake:rotor_inertia"), gear = scene_is(k, "drake:gear_ratio");
    int pd = scene_is(k, "drake:controller_gains");
    if (!rotor && !gear && !pd) continue;
    if (!o->actuated) st = scene_ignore(c, f, k, "the joint has no actuator: its effort limit is 0");
    else if (rotor) st = number(c, f, k, &o->act.rotor_inertia);
    else if (gear) st = number(c, f, k, &o->act.gear_ratio);
    else if ((st = scene_check(c, f, k, NULL, gains)) == ISO_OK && (st = need_attr(c, f, k, "p", &o->act.kp)) == ISO_OK)
      st = need_attr(c, f, k, "d", &o->act.kd);
  }
  return st;
}

static isoStatus read_mimic(sceneCtx *c, const sceneFile *f, xmlNode *m, sdfJointSpec *o) {
  static const char *const attrs[] = {"joint", "multiplier", "offset", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, m, NULL, attrs)) != ISO_OK) return st;
  o->mimic = m;
  o->mimic_joint = scene_attr(&c->mem, m, "joint");
  if (!o->mimic_joint || !o->mimic_joint[0]) return scene_fail(f, m, ISO_ERR_PARSE, "needs a 'joint' attribute");
  if ((st = need_attr(c, f, m, "multiplier", &o->mimic_multiplier)) != ISO_OK) return st;
  return need_attr(c, f, m, "offset", &o->mimic_offset);
}

isoStatus scene_sdf_joint(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *name, const char *type,
                          sdfJointSpec *o) {
  static const char *const fixed_elems[] = {"parent", "child", "pose", NULL};
  static const char *const ball_elems[] = {"parent", "child", "pose", "axis", NULL};
  static const char *const moving_elems[] = {"parent", "child", "pose", "axis", "axis2", "drake:rotor_inertia",
                                             "drake:gear_ratio", "drake:controller_gains", "drake:mimic", NULL};
  static const char *const attrs[] = {"name", "type", NULL};
  static const char *const unsupported[] = {"universal", "screw", "gearbox", "revolute2", NULL};
  isoStatus st;
  memset(o, 0, sizeof *o);
  o->j = scene_default_joint();
  o->j.name = name;
  o->act = scene_default_actuator();
  int continuous = strcmp(type, "continuous") == 0;
  if (strcmp(type, "revolute") == 0 || continuous) o->j.type = ISO_JOINT_REVOLUTE;
  else if (strcmp(type, "prismatic") == 0) o->j.type = ISO_JOINT_PRISMATIC;
  else if (strcmp(type, "ball") == 0) o->j.type = ISO_JOINT_BALL;
  else if (strcmp(type, "fixed") != 0) {
    for (int i = 0; unsupported[i]; ++i)
      if (strcmp(type, unsupported[i]) == 0)
        return scene_fail(f, n, ISO_ERR_UNSUPPORTED, "joint '%s' of type '%s' is not supported (SDFormat joints: "
                          "revolute, continuous, prismatic, ball, fixed)", name, type);
    return scene_fail(f, n, ISO_ERR_PARSE, "joint '%s' has an unknown type '%s'", name, type);
  }
  int one_dof = o->j.type == ISO_JOINT_REVOLUTE || o->j.type == ISO_JOINT_PRISMATIC;
  const char *const *elems = one_dof ? moving_elems : o->j.type == ISO_JOINT_BALL ? ball_elems : fixed_elems;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  if (o->j.type == ISO_JOINT_FIXED) return ISO_OK;
  xmlNode *an = scene_child(n, "axis");
  if (one_dof && !an) return scene_fail(f, n, ISO_ERR_PARSE, "joint '%s' of type '%s' needs an <axis>", name, type);
  if (an && (st = read_axis(c, f, an, continuous, !one_dof, o)) != ISO_OK) return st;
  if (!one_dof) return ISO_OK;
  xmlNode *a2 = scene_child(n, "axis2");
  if (a2 && (st = scene_ignore(c, f, a2, "a 1-dof joint has one axis; Drake ignores it too")) != ISO_OK) return st;
  o->actuated = o->act.effort != 0;
  if ((st = read_actuator(c, f, n, o)) != ISO_OK) return st;
  xmlNode *m = scene_child(n, "drake:mimic");
  return m ? read_mimic(c, f, m, o) : ISO_OK;
}

/* ---- binding, once the frames are resolved ----------------------------------------------- */

static isoStatus joint_link(sdfParser *P, const sdfJoint *j, const char *which, const char *name, int *link) {
  if (strcmp(name, "world") == 0) {
    *link = -1;
    return ISO_OK;
  }
  int fi = scene_sdf_lookup(P, j->scope, name);
  /* Drake's joints connect rigid bodies only: one naming a deformable link fails there too */
  if (fi >= 0 && P->frames[fi].kind == F_DEFORMABLE)
    return scene_fail(j->file, j->node, ISO_ERR_UNSUPPORTED, "%s '%s' is a deformable link; a joint cannot attach to it",
                      which, name);
  if (fi < 0 || P->frames[fi].kind != F_LINK)
    return scene_fail(j->file, j->node, fi < 0 ? ISO_ERR_PARSE : ISO_ERR_UNSUPPORTED,
                      fi < 0 ? "%s '%s' names no link of model '%s'" : "%s '%s' is not a link of model '%s' (only links are supported)",
                      which, name, P->scopes[j->scope].path);
  *link = P->frames[fi].link;
  return ISO_OK;
}

/* A joint's links and frames, Drake's way: J is where the joint's pose puts it (by default
 * relative to the child link) at the initial configuration; M = J fixed on the child (X_CJ),
 * F = J fixed on the parent (X_PJ = X_WP⁻¹·X_WJ). The axis is rotated from the frame it is
 * expressed in into J. */
isoStatus scene_sdf_bind_joint(sdfParser *P, sdfJoint *j) {
  sceneCtx *c = P->c;
  isoStatus st;
  int parent, child;
  if ((st = joint_link(P, j, "parent", j->parent, &parent)) != ISO_OK) return st;
  if ((st = joint_link(P, j, "child", j->child, &child)) != ISO_OK) return st;
  if (child < 0) return scene_fail(j->file, j->node, ISO_ERR_PARSE, "the child of a joint cannot be the world");
  const sdfFrame *J = &P->frames[j->frame];
  sceneJoint sj = j->spec.j;
  sj.name = scene_printf(&c->mem, "%s::%s", P->scopes[j->scope].path, J->name);
  if (!sj.name) return nomem();
  sj.parent = parent;
  sj.child = child;
  sj.file = j->file;
  sj.line = scene_line(j->node);
  sj.X_CJ = J->rel_to ? xf_mul(xf_inv(c->links[child].X_WL), J->X_W) : J->X;
  sj.X_PJ = parent < 0 ? J->X_W : xf_mul(xf_inv(c->links[parent].X_WL), J->X_W);
  if (j->spec.axis_in) {
    int fe = scene_sdf_lookup(P, j->scope, j->spec.axis_in);
    if (fe < 0)
      return scene_fail(j->file, j->spec.axis_node, ISO_ERR_PARSE, "joint '%s': the axis is expressed in '%s', which "
                        "names no frame of model '%s'", J->name, j->spec.axis_in, P->scopes[j->scope].path);
    quat q_JE = quat_mul(quat_conj(J->X_W.q), P->frames[fe].X_W.q);
    vec3 a = quat_rotate(q_JE, v3(sj.axis[0], sj.axis[1], sj.axis[2]));
    sj.axis[0] = a.x;
    sj.axis[1] = a.y;
    sj.axis[2] = a.z;
  }
  sceneJoint *out;
  if ((st = scene_new_joint(c, &out)) != ISO_OK) return st;
  *out = sj;
  j->index = c->njoint - 1;
  if (!j->spec.actuated) return ISO_OK;
  sceneActuator *a;
  if ((st = scene_new_actuator(c, &a)) != ISO_OK) return st;
  *a = j->spec.act;
  a->name = sj.name;
  a->joint = j->index;
  a->file = sj.file;
  a->line = sj.line;
  return ISO_OK;
}

/* drake:mimic: the leader is a joint of the follower's model. */
isoStatus scene_sdf_bind_mimic(sdfParser *P, const sdfJoint *j) {
  sceneCtx *c = P->c;
  const sdfJointSpec *s = &j->spec;
  const char *name = P->frames[j->frame].name;
  int fi = scene_sdf_lookup(P, j->scope, s->mimic_joint);
  if (fi < 0 || P->frames[fi].kind != F_JOINT)
    return scene_fail(j->file, s->mimic, ISO_ERR_PARSE, "joint '%s' mimics joint '%s', which does not exist in model '%s'",
                      name, s->mimic_joint, P->scopes[j->scope].path);
  const sdfJoint *leader = &P->joints[P->frames[fi].joint];
  if (leader == j) return scene_fail(j->file, s->mimic, ISO_ERR_INVALID, "joint '%s' cannot mimic itself", name);
  isoJointType lt = c->joints[leader->index].type;
  if (lt != ISO_JOINT_REVOLUTE && lt != ISO_JOINT_PRISMATIC)
    return scene_ignore(c, j->file, s->mimic, "the leader is not a revolute or prismatic joint; Drake ignores such a "
                        "mimic too");
  sceneCoupler *k;
  isoStatus st = scene_new_coupler(c, &k);
  if (st != ISO_OK) return st;
  k->follower = j->index;
  k->leader = leader->index;
  k->gear_ratio = s->mimic_multiplier;
  k->offset = s->mimic_offset;
  k->file = j->file;
  k->line = scene_line(s->mimic);
  return ISO_OK;
}
