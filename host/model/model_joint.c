/* The model builder's joints, actuators and couplers (include/isobar/joint.h): defaults, checks
 * at the door, initial joint states, and the lookups. The tree layout they make is built at
 * compile (model_tree.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"

static const int type_nq[] = {1, 1, 4, 7, 0};
static const int type_nv[] = {1, 1, 3, 6, 0};
static const char *const type_name[] = {"revolute", "prismatic", "ball", "floating", "fixed"};

static int type_ok(isoJointType t) { return (int)t >= 0 && (int)t <= (int)ISO_JOINT_FIXED; }
int iso_joint_type_nq(isoJointType t) { return type_ok(t) ? type_nq[t] : 0; }
int iso_joint_type_nv(isoJointType t) { return type_ok(t) ? type_nv[t] : 0; }
const char *iso_joint_type_name(isoJointType t) { return type_ok(t) ? type_name[t] : ""; }

static int is_1dof(isoJointType t) { return t == ISO_JOINT_REVOLUTE || t == ISO_JOINT_PRISMATIC; }

isoJointDef iso_default_joint_def(void) {
  isoJointDef d;
  memset(&d, 0, sizeof d);
  d.type = ISO_JOINT_REVOLUTE;
  d.parent = -1;
  d.parent_quaternion[0] = d.child_quaternion[0] = 1;
  d.axis[2] = 1;
  d.position_lower = -INFINITY;
  d.position_upper = INFINITY;
  d.velocity_limit = INFINITY;
  return d;
}

isoActuatorDef iso_default_actuator_def(void) {
  isoActuatorDef d;
  memset(&d, 0, sizeof d);
  d.effort_limit = INFINITY;
  d.gear_ratio = 1;
  return d;
}

isoCouplerDef iso_default_coupler_def(void) {
  isoCouplerDef d;
  memset(&d, 0, sizeof d);
  d.gear_ratio = 1;
  return d;
}

/* Normalise x (n values) in place; 0 when it is not finite or too short to have a direction. */
static int normalise(double *x, int n) {
  if (!model_all_finite(x, n)) return 0;
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  s = sqrt(s);
  if (!(s > 1e-12)) return 0;
  for (int i = 0; i < n; ++i) x[i] /= s;
  return 1;
}

/* The checks of one joint (j: a copy that is normalised in place); index: its index or the one
 * it will get; adding: 1 when the child must not have a joint yet. */
static isoStatus check_joint(const isoModel *m, isoJointDef *j, int index, const char *what) {
  if (!type_ok(j->type)) return iso_fail(ISO_ERR_INVALID, "%s: type %d is not an isoJointType", what, (int)j->type);
  if (j->child < 0 || j->child >= m->nbody)
    return iso_fail(ISO_ERR_INVALID, "%s: child body %d is out of range [0, %d)", what, j->child, m->nbody);
  if (j->parent < -1 || j->parent >= m->nbody)
    return iso_fail(ISO_ERR_INVALID, "%s: parent body %d is out of range [-1, %d)", what, j->parent, m->nbody);
  if (j->parent >= j->child)
    return iso_fail(ISO_ERR_INVALID,
                    "%s: the parent body '%s' must be added before the child body '%s' (parent index %d >= "
                    "child index %d)",
                    what, m->body[j->parent].name, m->body[j->child].name, j->parent, j->child);
  for (int k = 0; k < m->njoint; ++k)
    if (k != index && m->joint[k].child == j->child)
      return iso_fail(ISO_ERR_INVALID, "%s: body '%s' is already the child of joint '%s'", what,
                      m->body[j->child].name, m->joint[k].name);
  if (!model_all_finite(j->parent_position, 3) || !model_all_finite(j->child_position, 3))
    return iso_fail(ISO_ERR_INVALID, "%s: a frame position is not finite", what);
  if (!normalise(j->parent_quaternion, 4) || !normalise(j->child_quaternion, 4))
    return iso_fail(ISO_ERR_INVALID, "%s: a frame quaternion is not finite or has zero length", what);
  if (is_1dof(j->type)) {
    if (!normalise(j->axis, 3))
      return iso_fail(ISO_ERR_INVALID, "%s: axis (%g, %g, %g) is not finite or has zero length", what, j->axis[0],
                      j->axis[1], j->axis[2]);
    if (isnan(j->position_lower) || isnan(j->position_upper) || j->position_lower > j->position_upper ||
        j->position_lower == INFINITY || j->position_upper == -INFINITY)
      return iso_fail(ISO_ERR_INVALID, "%s: position limits [%g, %g] are not an interval", what, j->position_lower,
                      j->position_upper);
  }
  if (!(j->velocity_limit > 0))
    return iso_fail(ISO_ERR_INVALID, "%s: velocity_limit %g must be > 0", what, j->velocity_limit);
  if (!(j->damping >= 0) || !isfinite(j->damping))
    return iso_fail(ISO_ERR_INVALID, "%s: damping %g must be finite and >= 0", what, j->damping);
  return ISO_OK;
}

static void joint_what(const isoModel *m, const char *name, int index, char *what, size_t n) {
  (void)m;
  if (name) snprintf(what, n, "joint '%.120s'", name);
  else snprintf(what, n, "joint %d", index);
}

/* Grow an array of items (elem bytes each) to hold one more; 0 when out of memory. */
static int grow(void **items, int n, int *cap, size_t elem) {
  if (n < *cap) return 1;
  int c = *cap ? 2 * *cap : 8;
  void *p = realloc(*items, (size_t)c * elem);
  if (!p) return 0;
  *items = p;
  *cap = c;
  return 1;
}

static char *copy_name(const char *s) {
  char *c = (char *)malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

isoStatus iso_model_add_joint(isoModel *m, const isoJointDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_joint");
  CHECK_NULL(def, "iso_model_add_joint");
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_add_joint: the model is compiled and read-only");
  char auto_name[32], what[160];
  const char *name = def->name;
  if (!name) {
    snprintf(auto_name, sizeof auto_name, "joint%d", m->njoint);
    name = auto_name;
  }
  joint_what(m, name, m->njoint, what, sizeof what);
  if (name[0] == '\0') return iso_fail(ISO_ERR_INVALID, "joint %d: name is empty", m->njoint);
  isoJointDef j = *def;
  isoStatus st = check_joint(m, &j, m->njoint, what);
  if (st != ISO_OK) return st;
  if (name_map_get(&m->joint_names, 0, name, strlen(name)) >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: a joint of that name already exists", what);
  /* every array grows before the count does, so a failure leaves the model as it was */
  int cap = m->joint_cap, cap2 = m->joint_cap, cap3 = m->joint_cap;
  void *a = m->joint, *b = m->joint_q, *c = m->joint_v;
  int ok = grow(&a, m->njoint, &cap, sizeof *m->joint);
  m->joint = (isoJointDef *)a;
  ok = ok && grow(&b, m->njoint, &cap2, sizeof *m->joint_q);
  m->joint_q = (double(*)[7])b;
  ok = ok && grow(&c, m->njoint, &cap3, sizeof *m->joint_v);
  m->joint_v = (double(*)[6])c;
  if (!ok) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_joint: out of memory");
  m->joint_cap = cap;
  char *copy = copy_name(name);
  if (!copy || name_map_put(&m->joint_names, 0, copy, strlen(copy), m->njoint) < 0) {
    free(copy);
    return iso_fail(ISO_ERR_NOMEM, "iso_model_add_joint: out of memory");
  }
  j.name = copy;
  m->joint[m->njoint] = j;
  memset(m->joint_q[m->njoint], 0, sizeof m->joint_q[0]);
  memset(m->joint_v[m->njoint], 0, sizeof m->joint_v[0]);
  if (j.type == ISO_JOINT_BALL || j.type == ISO_JOINT_FLOATING) m->joint_q[m->njoint][0] = 1;
  if (id) *id = m->njoint;
  m->njoint++;
  return ISO_OK;
}

static isoStatus check_actuator(const isoModel *m, const isoActuatorDef *a, int index, const char *what) {
  if (a->joint < 0 || a->joint >= m->njoint)
    return iso_fail(ISO_ERR_INVALID, "%s: joint %d is out of range [0, %d)", what, a->joint, m->njoint);
  const isoJointDef *j = &m->joint[a->joint];
  if (!is_1dof(j->type))
    return iso_fail(ISO_ERR_INVALID, "%s: joint '%s' is %s; actuators drive revolute and prismatic joints", what,
                    j->name, iso_joint_type_name(j->type));
  for (int k = 0; k < m->nact; ++k)
    if (k != index && m->act[k].joint == a->joint)
      return iso_fail(ISO_ERR_INVALID, "%s: joint '%s' already has actuator '%s'", what, j->name, m->act[k].name);
  if (!(a->effort_limit > 0))
    return iso_fail(ISO_ERR_INVALID, "%s: effort_limit %g must be > 0", what, a->effort_limit);
  if (!isfinite(a->kp) || a->kp < 0 || !isfinite(a->kd) || a->kd < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: gains kp %g and kd %g must be finite and >= 0", what, a->kp, a->kd);
  if (!isfinite(a->rotor_inertia) || a->rotor_inertia < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: rotor_inertia %g must be finite and >= 0", what, a->rotor_inertia);
  if (!isfinite(a->gear_ratio))
    return iso_fail(ISO_ERR_INVALID, "%s: gear_ratio %g must be finite", what, a->gear_ratio);
  return ISO_OK;
}

isoStatus iso_model_add_actuator(isoModel *m, const isoActuatorDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_actuator");
  CHECK_NULL(def, "iso_model_add_actuator");
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_add_actuator: the model is compiled and read-only");
  char what[160];
  const char *name = def->name;
  if (!name && def->joint >= 0 && def->joint < m->njoint) name = m->joint[def->joint].name;
  if (!name) name = "(unnamed)";
  snprintf(what, sizeof what, "actuator '%.120s'", name);
  if (name[0] == '\0') return iso_fail(ISO_ERR_INVALID, "actuator %d: name is empty", m->nact);
  isoStatus st = check_actuator(m, def, m->nact, what);
  if (st != ISO_OK) return st;
  if (name_map_get(&m->act_names, 0, name, strlen(name)) >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: an actuator of that name already exists", what);
  void *a = m->act;
  if (!grow(&a, m->nact, &m->act_cap, sizeof *m->act)) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_actuator: out of memory");
  m->act = (isoActuatorDef *)a;
  char *copy = copy_name(name);
  if (!copy || name_map_put(&m->act_names, 0, copy, strlen(copy), m->nact) < 0) {
    free(copy);
    return iso_fail(ISO_ERR_NOMEM, "iso_model_add_actuator: out of memory");
  }
  m->act[m->nact] = *def;
  m->act[m->nact].name = copy;
  if (id) *id = m->nact;
  m->nact++;
  return ISO_OK;
}

static isoStatus check_coupler(const isoModel *m, const isoCouplerDef *c, const char *what) {
  if (c->follower < 0 || c->follower >= m->njoint || c->leader < 0 || c->leader >= m->njoint)
    return iso_fail(ISO_ERR_INVALID, "%s: joints %d and %d must be in [0, %d)", what, c->follower, c->leader, m->njoint);
  if (c->follower == c->leader) return iso_fail(ISO_ERR_INVALID, "%s: a joint cannot follow itself", what);
  const isoJointDef *f = &m->joint[c->follower], *l = &m->joint[c->leader];
  if (!is_1dof(f->type) || !is_1dof(l->type))
    return iso_fail(ISO_ERR_INVALID, "%s: joints '%s' (%s) and '%s' (%s) must be revolute or prismatic", what, f->name,
                    iso_joint_type_name(f->type), l->name, iso_joint_type_name(l->type));
  if (!isfinite(c->gear_ratio) || !isfinite(c->offset))
    return iso_fail(ISO_ERR_INVALID, "%s: gear_ratio %g and offset %g must be finite", what, c->gear_ratio, c->offset);
  return ISO_OK;
}

isoStatus iso_model_add_coupler(isoModel *m, const isoCouplerDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_coupler");
  CHECK_NULL(def, "iso_model_add_coupler");
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_add_coupler: the model is compiled and read-only");
  char what[64];
  snprintf(what, sizeof what, "coupler %d", m->ncoupler);
  isoStatus st = check_coupler(m, def, what);
  if (st != ISO_OK) return st;
  void *a = m->coupler;
  if (!grow(&a, m->ncoupler, &m->coupler_cap, sizeof *m->coupler))
    return iso_fail(ISO_ERR_NOMEM, "iso_model_add_coupler: out of memory");
  m->coupler = (isoCouplerDef *)a;
  m->coupler[m->ncoupler] = *def;
  if (id) *id = m->ncoupler;
  m->ncoupler++;
  return ISO_OK;
}

isoStatus iso_model_set_joint_state(isoModel *m, int joint, const double *q, const double *v) {
  CHECK_NULL(m, "iso_model_set_joint_state");
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_set_joint_state: the model is compiled and read-only");
  if (joint < 0 || joint >= m->njoint)
    return iso_fail(ISO_ERR_NOT_FOUND, "iso_model_set_joint_state: joint %d is out of range [0, %d)", joint, m->njoint);
  const isoJointDef *j = &m->joint[joint];
  const int nq = type_nq[j->type], nv = type_nv[j->type];
  double qq[7] = {0, 0, 0, 0, 0, 0, 0};
  if (q) {
    memcpy(qq, q, sizeof(double) * (size_t)nq);
    if (!model_all_finite(qq, nq)) return iso_fail(ISO_ERR_INVALID, "joint '%s': initial position is not finite", j->name);
    if ((j->type == ISO_JOINT_BALL || j->type == ISO_JOINT_FLOATING) && !normalise(qq, 4))
      return iso_fail(ISO_ERR_INVALID, "joint '%s': initial quaternion has zero length", j->name);
  }
  if (v && !model_all_finite(v, nv)) return iso_fail(ISO_ERR_INVALID, "joint '%s': initial velocity is not finite", j->name);
  if (q) memcpy(m->joint_q[joint], qq, sizeof(double) * (size_t)nq);
  if (v) memcpy(m->joint_v[joint], v, sizeof(double) * (size_t)nv);
  return ISO_OK;
}

isoStatus model_joint_validate(const isoModel *m) {
  char what[160];
  for (int i = 0; i < m->njoint; ++i) {
    isoJointDef j = m->joint[i];
    joint_what(m, j.name, i, what, sizeof what);
    isoStatus st = check_joint(m, &j, i, what);
    if (st != ISO_OK) return st;
  }
  for (int i = 0; i < m->nact; ++i) {
    snprintf(what, sizeof what, "actuator '%.120s'", m->act[i].name);
    isoStatus st = check_actuator(m, &m->act[i], i, what);
    if (st != ISO_OK) return st;
  }
  for (int i = 0; i < m->ncoupler; ++i) {
    snprintf(what, sizeof what, "coupler %d", i);
    isoStatus st = check_coupler(m, &m->coupler[i], what);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

void model_joint_free(isoModel *m) {
  for (int i = 0; i < m->njoint; ++i) free((char *)m->joint[i].name);
  for (int i = 0; i < m->nact; ++i) free((char *)m->act[i].name);
  free(m->joint);
  free(m->joint_q);
  free(m->joint_v);
  free(m->act);
  free(m->coupler);
  name_map_free(&m->joint_names);
  name_map_free(&m->act_names);
  model_tree_free(&m->trees);
}

int iso_model_joint_count(const isoModel *m) { return m ? m->njoint : 0; }
int iso_model_actuator_count(const isoModel *m) { return m ? m->nact : 0; }
int iso_model_coupler_count(const isoModel *m) { return m ? m->ncoupler : 0; }
int iso_model_nq(const isoModel *m) { return m && m->compiled ? m->trees.nq : 0; }
int iso_model_nv(const isoModel *m) { return m && m->compiled ? m->trees.nv : 0; }

isoStatus iso_model_find_joint(const isoModel *m, const char *name, int *id) {
  CHECK_NULL(m, "iso_model_find_joint");
  CHECK_NULL(name, "iso_model_find_joint");
  CHECK_NULL(id, "iso_model_find_joint");
  int i = name_map_get(&m->joint_names, 0, name, strlen(name));
  if (i < 0) return iso_fail(ISO_ERR_NOT_FOUND, "no joint named '%s'", name);
  *id = i;
  return ISO_OK;
}

isoStatus iso_model_find_actuator(const isoModel *m, const char *name, int *id) {
  CHECK_NULL(m, "iso_model_find_actuator");
  CHECK_NULL(name, "iso_model_find_actuator");
  CHECK_NULL(id, "iso_model_find_actuator");
  int i = name_map_get(&m->act_names, 0, name, strlen(name));
  if (i < 0) return iso_fail(ISO_ERR_NOT_FOUND, "no actuator named '%s'", name);
  *id = i;
  return ISO_OK;
}

isoStatus iso_model_get_joint(const isoModel *m, int id, isoJointDef *out) {
  CHECK_NULL(m, "iso_model_get_joint");
  CHECK_NULL(out, "iso_model_get_joint");
  if (id < 0 || id >= m->njoint) return iso_fail(ISO_ERR_NOT_FOUND, "joint index %d is out of range [0, %d)", id, m->njoint);
  *out = m->joint[id];
  return ISO_OK;
}

isoStatus iso_model_get_actuator(const isoModel *m, int id, isoActuatorDef *out) {
  CHECK_NULL(m, "iso_model_get_actuator");
  CHECK_NULL(out, "iso_model_get_actuator");
  if (id < 0 || id >= m->nact) return iso_fail(ISO_ERR_NOT_FOUND, "actuator index %d is out of range [0, %d)", id, m->nact);
  *out = m->act[id];
  return ISO_OK;
}

isoStatus iso_model_get_coupler(const isoModel *m, int id, isoCouplerDef *out) {
  CHECK_NULL(m, "iso_model_get_coupler");
  CHECK_NULL(out, "iso_model_get_coupler");
  if (id < 0 || id >= m->ncoupler)
    return iso_fail(ISO_ERR_NOT_FOUND, "coupler index %d is out of range [0, %d)", id, m->ncoupler);
  *out = m->coupler[id];
  return ISO_OK;
}

isoStatus iso_model_joint_slice(const isoModel *m, int joint, isoSlice *q, isoSlice *v) {
  CHECK_NULL(m, "iso_model_joint_slice");
  if (!m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_joint_slice: compile the model first");
  if (joint < 0 || joint >= m->njoint)
    return iso_fail(ISO_ERR_NOT_FOUND, "iso_model_joint_slice: joint %d is out of range [0, %d)", joint, m->njoint);
  const isoJointType t = m->joint[joint].type;
  if (q) q->start = m->trees.joint_q0[joint], q->count = type_nq[t];
  if (v) v->start = m->trees.joint_v0[joint], v->count = type_nv[t];
  return ISO_OK;
}

isoStatus iso_model_body_slice(const isoModel *m, int body, isoSlice *q, isoSlice *v) {
  CHECK_NULL(m, "iso_model_body_slice");
  if (!m->compiled) return iso_fail(ISO_ERR_STATE, "iso_model_body_slice: compile the model first");
  if (body < 0 || body >= m->nbody)
    return iso_fail(ISO_ERR_NOT_FOUND, "iso_model_body_slice: body %d is out of range [0, %d)", body, m->nbody);
  const int j = m->trees.body_joint[body];
  if (j >= 0) return iso_model_joint_slice(m, j, q, v);
  if (q) q->start = m->trees.body_q0[body], q->count = 7;
  if (v) v->start = m->trees.body_v0[body], v->count = 6;
  return ISO_OK;
}
