/* The model builder: defaults, validation at the door, compile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "kernels/math/spatial.h"

isoModelDef iso_default_model_def(void) {
  isoModelDef d;
  memset(&d, 0, sizeof d);
  d.gravity[2] = -9.81;
  d.time_step = 1e-3;
  d.penetration_allowance = 1e-3;
  return d;
}

isoBodyDef iso_default_body_def(void) {
  isoBodyDef d;
  memset(&d, 0, sizeof d);
  d.mass = 1.0;
  d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.004; /* 2/5·m·r², r = 0.1 */
  return d;
}

isoFreeBodyState iso_default_free_body_state(void) {
  isoFreeBodyState d;
  memset(&d, 0, sizeof d);
  d.quaternion[0] = 1.0;
  return d;
}

int model_all_finite(const double *x, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

char *model_strdup(const char *s) {
  if (!s) return NULL;
  char *c = (char *)malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

static isoStatus check_model_def(const isoModelDef *d) {
  if (!model_all_finite(d->gravity, 3))
    return iso_fail(ISO_ERR_INVALID, "model: gravity (%g, %g, %g) is not finite", d->gravity[0],
                    d->gravity[1], d->gravity[2]);
  for (int k = 0; k < 3; ++k)
    if (fabs(d->gravity[k]) > ISO_MAX_GRAVITY)
      return iso_fail(ISO_ERR_INVALID, "model: gravity component %g is beyond %g m/s², the range isobar accepts",
                      d->gravity[k], ISO_MAX_GRAVITY);
  if (!isfinite(d->time_step) || d->time_step <= 0)
    return iso_fail(ISO_ERR_INVALID, "model: time_step %g must be finite and > 0", d->time_step);
  if (!isfinite(d->penetration_allowance) || d->penetration_allowance <= 0)
    return iso_fail(ISO_ERR_INVALID, "model: penetration_allowance %g must be finite and > 0",
                    d->penetration_allowance);
  return ISO_OK;
}

isoStatus iso_model_create(const isoModelDef *def, isoModel **out) {
  CHECK_NULL(out, "iso_model_create");
  isoModelDef d = def ? *def : iso_default_model_def();
  isoStatus st = check_model_def(&d);
  if (st != ISO_OK) return st;
  isoModel *m = (isoModel *)calloc(1, sizeof *m);
  if (!m) return iso_fail(ISO_ERR_NOMEM, "iso_model_create: out of memory");
  m->def = d;
  *out = m;
  return ISO_OK;
}

void iso_model_destroy(isoModel *m) {
  if (!m) return;
  for (int i = 0; i < m->nbody; ++i) free((char *)m->body[i].name);
  free(m->body);
  free(m->body_state);
  name_map_free(&m->body_names);
  model_geometry_free(m);
  model_joint_free(m);
  model_tactile_free(m);
  model_deformable_free(&m->deformables);
  hydro_free(&m->hydro);
  model_flat_free(&m->flat);
  free(m);
}

isoStatus model_check_inertia(double mass, const double *I, const char *what) {
  if (!model_all_finite(I, 6))
    return iso_fail(ISO_ERR_INVALID, "%s: inertia (%g, %g, %g, %g, %g, %g) is not finite", what,
                    I[0], I[1], I[2], I[3], I[4], I[5]);
  sinertia M = si_from_com(mass, v3_zero(), m3_sym6(I[0], I[1], I[2], I[3], I[4], I[5]));
  char why[200];
  if (!si_is_physical(M, why, (int)sizeof why))
    return iso_fail(ISO_ERR_INVALID, "%s: %s", what, why);
  return ISO_OK;
}

isoStatus model_check_body(const isoBodyDef *d, const char *what, int free_body) {
  if (d->mass > ISO_MAX_MASS)
    return iso_fail(ISO_ERR_INVALID, "%s: mass %g is beyond %g kg, the range isobar accepts", what, d->mass, ISO_MAX_MASS);
  if (!isfinite(d->mass) || d->mass < 0 || (free_body && d->mass == 0))
    return iso_fail(ISO_ERR_INVALID, "%s: mass %g must be finite and > 0%s", what, d->mass,
                    free_body && d->mass == 0 ? " (a free body; only a body a joint moves may be massless)" : "");
  if (!model_all_finite(d->com, 3))
    return iso_fail(ISO_ERR_INVALID, "%s: centre of mass is not finite", what);
  const double *I = d->inertia;
  if (model_all_finite(I, 6) && I[0] == 0 && I[1] == 0 && I[2] == 0 && I[3] == 0 && I[4] == 0 && I[5] == 0) {
    /* a point mass, or a massless link, as Drake allows on a joint: the tree's mass matrix is
     * what must be positive definite, and the step flags a world where it is not */
    if (free_body)
      return iso_fail(ISO_ERR_INVALID,
                      "%s: rotational inertia is zero (a free body needs a positive definite one; only a body "
                      "a joint moves may be a point mass)",
                      what);
    return ISO_OK;
  }
  if (d->mass == 0)
    return iso_fail(ISO_ERR_INVALID, "%s: a massless body cannot have rotational inertia", what);
  return model_check_inertia(d->mass, d->inertia, what);
}

isoStatus model_check_free_body_state(const isoFreeBodyState *d, const char *what) {
  if (!model_all_finite(d->position, 3))
    return iso_fail(ISO_ERR_INVALID, "%s: initial position is not finite", what);
  if (!model_all_finite(d->quaternion, 4))
    return iso_fail(ISO_ERR_INVALID, "%s: initial quaternion is not finite", what);
  const double *q = d->quaternion;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 1e-12))
    return iso_fail(ISO_ERR_INVALID, "%s: initial quaternion (%g, %g, %g, %g) has zero length",
                    what, q[0], q[1], q[2], q[3]);
  if (!model_all_finite(d->angular_velocity, 3) || !model_all_finite(d->linear_velocity, 3))
    return iso_fail(ISO_ERR_INVALID, "%s: initial velocity is not finite", what);
  return ISO_OK;
}

static int find_body(const isoModel *m, const char *name) {
  return name_map_get(&m->body_names, 0, name, strlen(name));
}

isoStatus iso_model_add_body(isoModel *m, const isoBodyDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_body");
  CHECK_NULL(def, "iso_model_add_body");
  if (m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_model_add_body: the model is compiled and read-only");
  char auto_name[32], what[160];
  const char *name = def->name;
  if (!name) {
    snprintf(auto_name, sizeof auto_name, "body%d", m->nbody);
    name = auto_name;
  }
  if (name[0] == '\0') return iso_fail(ISO_ERR_INVALID, "body %d: name is empty", m->nbody);
  snprintf(what, sizeof what, "body '%.120s'", name);
  isoStatus st = model_check_body(def, what, 0); /* a joint added later may move it */
  if (st != ISO_OK) return st;
  if (find_body(m, name) >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: a body of that name already exists", what);
  if (m->nbody == m->body_cap) {
    /* Both arrays grow before the capacity does: a failure in between leaves a larger array
     * unused, never a capacity larger than an array. */
    int cap = m->body_cap ? 2 * m->body_cap : 8;
    isoBodyDef *b = (isoBodyDef *)realloc(m->body, (size_t)cap * sizeof *b);
    if (!b) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_body: out of memory");
    m->body = b;
    isoFreeBodyState *x = (isoFreeBodyState *)realloc(m->body_state, (size_t)cap * sizeof *x);
    if (!x) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_body: out of memory");
    m->body_state = x;
    m->body_cap = cap;
  }
  char *copy = (char *)malloc(strlen(name) + 1);
  if (!copy) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_body: out of memory");
  strcpy(copy, name);
  if (name_map_put(&m->body_names, 0, copy, strlen(copy), m->nbody) < 0) {
    free(copy);
    return iso_fail(ISO_ERR_NOMEM, "iso_model_add_body: out of memory");
  }
  isoBodyDef b = *def;
  b.name = copy;
  m->body[m->nbody] = b;
  m->body_state[m->nbody] = iso_default_free_body_state();
  if (id) *id = m->nbody;
  m->nbody++;
  return ISO_OK;
}

isoStatus iso_model_validate(const isoModel *m) {
  CHECK_NULL(m, "iso_model_validate");
  isoStatus st = check_model_def(&m->def);
  if (st != ISO_OK) return st;
  for (int i = 0; i < m->nbody; ++i) {
    char what[160];
    snprintf(what, sizeof what, "body '%.120s'", m->body[i].name);
    int free_body = 1;
    for (int j = 0; j < m->njoint; ++j) free_body &= m->joint[j].child != i;
    st = model_check_body(&m->body[i], what, free_body);
    if (st == ISO_OK) st = model_check_free_body_state(&m->body_state[i], what);
    if (st != ISO_OK) return st;
  }
  for (int i = 0; i < m->ngeom; ++i) {
    char what[160];
    snprintf(what, sizeof what, "geometry '%.120s'", m->geom[i].name);
    st = model_check_geometry(m, &m->geom[i], what);
    if (st != ISO_OK) return st;
  }
  st = model_joint_validate(m);
  if (st != ISO_OK) return st;
  return model_deformable_validate(m);
}

isoStatus iso_model_compile(isoModel *m) {
  CHECK_NULL(m, "iso_model_compile");
  if (m->compiled) return ISO_OK;
  isoStatus st = iso_model_validate(m);
  if (st != ISO_OK) return st;
  st = model_tree_build(m);
  if (st == ISO_OK) st = hydro_build(m, &m->hydro);
  if (st == ISO_OK) st = model_deformable_weld_resolve(m);
  if (st == ISO_OK) st = model_deformable_compile(m);
  if (st == ISO_OK) st = model_flatten(m, &m->flat);
  if (st != ISO_OK) {
    hydro_free(&m->hydro);
    model_tree_free(&m->trees);
    return st;
  }
  m->compiled = 1;
  return ISO_OK;
}

int iso_model_body_count(const isoModel *m) { return m ? m->nbody : 0; }

int iso_model_is_compiled(const isoModel *m) { return m ? m->compiled : 0; }

isoStatus iso_model_find_body(const isoModel *m, const char *name, int *id) {
  CHECK_NULL(m, "iso_model_find_body");
  CHECK_NULL(name, "iso_model_find_body");
  CHECK_NULL(id, "iso_model_find_body");
  int i = find_body(m, name);
  if (i < 0) return iso_fail(ISO_ERR_NOT_FOUND, "no body named '%s'", name);
  *id = i;
  return ISO_OK;
}

isoStatus iso_model_get_body(const isoModel *m, int id, isoBodyDef *out) {
  CHECK_NULL(m, "iso_model_get_body");
  CHECK_NULL(out, "iso_model_get_body");
  if (id < 0 || id >= m->nbody)
    return iso_fail(ISO_ERR_NOT_FOUND, "body index %d is out of range [0, %d)", id, m->nbody);
  *out = m->body[id];
  return ISO_OK;
}

isoStatus iso_model_set_initial_state(isoModel *m, int body, const isoFreeBodyState *state) {
  CHECK_NULL(m, "iso_model_set_initial_state");
  CHECK_NULL(state, "iso_model_set_initial_state");
  if (m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_model_set_initial_state: the model is compiled and read-only");
  if (body < 0 || body >= m->nbody)
    return iso_fail(ISO_ERR_NOT_FOUND, "iso_model_set_initial_state: body index %d is out of range [0, %d)",
                    body, m->nbody);
  char what[160];
  snprintf(what, sizeof what, "body '%.120s'", m->body[body].name);
  for (int j = 0; j < m->njoint; ++j)
    if (m->joint[j].child == body)
      return iso_fail(ISO_ERR_INVALID,
                      "iso_model_set_initial_state: %s moves on joint '%s', not freely; set its state with "
                      "iso_model_set_joint_state",
                      what, m->joint[j].name);
  isoStatus st = model_check_free_body_state(state, what);
  if (st != ISO_OK) return st;
  isoFreeBodyState x = *state;
  double *q = x.quaternion;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] /= n;
  m->body_state[body] = x;
  return ISO_OK;
}

isoStatus iso_model_get_initial_state(const isoModel *m, int id, isoFreeBodyState *out) {
  CHECK_NULL(m, "iso_model_get_initial_state");
  CHECK_NULL(out, "iso_model_get_initial_state");
  if (id < 0 || id >= m->nbody)
    return iso_fail(ISO_ERR_NOT_FOUND, "body index %d is out of range [0, %d)", id, m->nbody);
  *out = m->body_state[id];
  return ISO_OK;
}

isoStatus iso_model_get_def(const isoModel *m, isoModelDef *out) {
  CHECK_NULL(m, "iso_model_get_def");
  CHECK_NULL(out, "iso_model_get_def");
  *out = m->def;
  return ISO_OK;
}

const char *iso_model_item_name(const isoModel *m, isoItemKind kind, int id) {
  if (!m || id < 0) return NULL;
  switch (kind) {
    case ISO_ITEM_BODY: return id < m->nbody ? m->body[id].name : NULL;
    case ISO_ITEM_GEOMETRY: return id < m->ngeom ? m->geom[id].name : NULL;
    case ISO_ITEM_JOINT: return id < m->njoint ? m->joint[id].name : NULL;
    case ISO_ITEM_ACTUATOR: return id < m->nact ? m->act[id].name : NULL;
    case ISO_ITEM_DEFORMABLE: return id < m->deformables.n ? m->deformables.body[id].def.name : NULL;
  }
  return NULL;
}
