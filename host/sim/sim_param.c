/* Per-world parameters (world-stride fields). A parameter starts shared (wstride 0, one copy);
 * the first write, whatever worlds it selects, expands it to one copy per world filled from the
 * shared value, so unselected worlds keep what they had. The expansion allocates, which is why
 * it happens here and never inside a step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "host/sim/sim_internal.h"

int iso_param_width(isoParam p) {
  switch (p) {
    case ISO_PARAM_GRAVITY: return 3;
    case ISO_PARAM_BODY_MASS: return 1;
    case ISO_PARAM_BODY_COM: return 3;
    case ISO_PARAM_BODY_INERTIA: return 6;
    case ISO_PARAM_GEOM_MODULUS: return 1;
    case ISO_PARAM_GEOM_DISSIPATION: return 1;
    case ISO_PARAM_GEOM_FRICTION: return 2;
    case ISO_PARAM_GEOM_STIFFNESS: return 1;
    case ISO_PARAM_GEOM_RELAXATION: return 1;
    case ISO_PARAM_DOF_DAMPING: return 1;
    case ISO_PARAM_DOF_LIMITS: return 2;
    case ISO_PARAM_DOF_REFLECTED_INERTIA: return 1;
    case ISO_PARAM_ACTUATOR_GAINS: return 2;
    case ISO_PARAM_ACTUATOR_EFFORT_LIMIT: return 1;
    case ISO_PARAM_DEFORMABLE_MATERIAL: return 5;
  }
  return 0;
}

const char *iso_param_name(isoParam p) {
  switch (p) {
    case ISO_PARAM_GRAVITY: return "gravity";
    case ISO_PARAM_BODY_MASS: return "body_mass";
    case ISO_PARAM_BODY_COM: return "body_com";
    case ISO_PARAM_BODY_INERTIA: return "body_inertia";
    case ISO_PARAM_GEOM_MODULUS: return "geometry_modulus";
    case ISO_PARAM_GEOM_DISSIPATION: return "geometry_dissipation";
    case ISO_PARAM_GEOM_FRICTION: return "geometry_friction";
    case ISO_PARAM_GEOM_STIFFNESS: return "geometry_stiffness";
    case ISO_PARAM_GEOM_RELAXATION: return "geometry_relaxation";
    case ISO_PARAM_DOF_DAMPING: return "dof_damping";
    case ISO_PARAM_DOF_LIMITS: return "dof_limits";
    case ISO_PARAM_DOF_REFLECTED_INERTIA: return "dof_reflected_inertia";
    case ISO_PARAM_ACTUATOR_GAINS: return "actuator_gains";
    case ISO_PARAM_ACTUATOR_EFFORT_LIMIT: return "actuator_effort_limit";
    case ISO_PARAM_DEFORMABLE_MATERIAL: return "deformable_material";
  }
  return "unknown";
}

static isoStatus check_param(const isoSim *s, isoParam p, int item, const char *fn) {
  if ((int)p < 0 || (int)p >= ISO_PARAM_COUNT)
    return iso_fail(ISO_ERR_INVALID, "%s: unknown parameter %d", fn, (int)p);
  int nitem = s->param[p].nitem;
  if (item < 0 || item >= nitem)
    return iso_fail(ISO_ERR_INVALID, "%s: %s item %d is out of range [0, %d)", fn, iso_param_name(p),
                    item, nitem);
  return ISO_OK;
}

int iso_sim_param_is_per_world(const isoSim *s, isoParam p) {
  if (!s || (int)p < 0 || (int)p >= ISO_PARAM_COUNT) return 0;
  return s->param[p].f.wstride != 0;
}

static isoStatus check_value(const isoSim *s, isoParam p, int world, const double *x) {
  int width = iso_param_width(p);
  if (p == ISO_PARAM_DOF_LIMITS) {
    if (isnan(x[0]) || isnan(x[1]) || x[0] > x[1] || x[0] == INFINITY || x[1] == -INFINITY)
      return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: dof_limits, world %d: [%g, %g] is not an interval",
                      world, x[0], x[1]);
    return ISO_OK;
  }
  if (p == ISO_PARAM_ACTUATOR_EFFORT_LIMIT) {
    if (!(x[0] > 0))
      return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: actuator_effort_limit, world %d: %g must be > 0", world,
                      x[0]);
    return ISO_OK;
  }
  for (int i = 0; i < width; ++i)
    if (!isfinite(x[i]))
      return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: %s, world %d: value %d is not finite (%g)",
                      iso_param_name(p), world, i, x[i]);
  if (p == ISO_PARAM_BODY_MASS && !(x[0] > 0))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: body_mass, world %d: mass %g must be > 0",
                    world, x[0]);
  /* the ranges of geometry.h and model.h */
  const double hi = p == ISO_PARAM_GEOM_MODULUS        ? ISO_MAX_MODULUS
                    : p == ISO_PARAM_GEOM_STIFFNESS    ? ISO_MAX_STIFFNESS
                    : p == ISO_PARAM_GEOM_DISSIPATION  ? ISO_MAX_DISSIPATION
                    : p == ISO_PARAM_GEOM_FRICTION     ? ISO_MAX_FRICTION
                    : p == ISO_PARAM_GEOM_RELAXATION   ? ISO_MAX_RELAXATION
                    : p == ISO_PARAM_BODY_MASS         ? ISO_MAX_MASS
                    : p == ISO_PARAM_GRAVITY           ? ISO_MAX_GRAVITY
                                                       : INFINITY;
  for (int i = 0; i < width; ++i)
    if (fabs(x[i]) > hi)
      return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: %s, world %d: value %g is beyond %g, the range isobar accepts",
                      iso_param_name(p), world, x[i], hi);
  if ((p == ISO_PARAM_GEOM_MODULUS || p == ISO_PARAM_GEOM_STIFFNESS) && !(x[0] > 0))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: %s, world %d: value %g must be > 0",
                    iso_param_name(p), world, x[0]);
  if ((p == ISO_PARAM_GEOM_DISSIPATION || p == ISO_PARAM_GEOM_RELAXATION) && x[0] < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: %s, world %d: value %g must be >= 0",
                    iso_param_name(p), world, x[0]);
  if ((p == ISO_PARAM_DOF_DAMPING || p == ISO_PARAM_DOF_REFLECTED_INERTIA || p == ISO_PARAM_ACTUATOR_GAINS) &&
      (x[0] < 0 || (width > 1 && x[1] < 0)))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: %s, world %d: values must be >= 0", iso_param_name(p), world);
  if (p == ISO_PARAM_GEOM_FRICTION && (x[0] < 0 || x[1] < 0))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_set_param: geometry_friction, world %d: (%g, %g) must be >= 0",
                    world, x[0], x[1]);
  if (p == ISO_PARAM_DEFORMABLE_MATERIAL &&
      (!(x[0] > 0) || x[0] > ISO_MAX_MODULUS || !(x[1] > -1 && x[1] < 0.5) || !(x[2] > 0) || x[3] < 0 || x[4] < 0))
    return iso_fail(ISO_ERR_INVALID,
                    "iso_sim_set_param: deformable_material, world %d: (E %g, nu %g, rho %g, alpha %g, beta %g) "
                    "needs 0 < E <= %g, -1 < nu < 0.5, rho > 0, alpha >= 0, beta >= 0",
                    world, x[0], x[1], x[2], x[3], x[4], ISO_MAX_MODULUS);
  if (p == ISO_PARAM_BODY_INERTIA) {
    char what[96];
    snprintf(what, sizeof what, "iso_sim_set_param: body_inertia, world %d", world);
    return model_check_inertia(1.0, x, what);
  }
  (void)s;
  return ISO_OK;
}

/* Give parameter p one copy per world, each a copy of the shared value. */
static isoStatus expand(isoSim *s, isoParam p) {
  simParam *sp = &s->param[p];
  if (sp->f.wstride != 0) return ISO_OK;
  size_t per = (size_t)sp->nitem * (size_t)sp->width;
  if (per == 0) return ISO_OK;
  real *shared = (real *)malloc(per * sizeof(real));
  real *all = (real *)malloc(per * (size_t)s->nworld * sizeof(real));
  real *dev = NULL;
  isoStatus st = ISO_OK;
  if (!shared || !all) {
    st = iso_fail(ISO_ERR_NOMEM, "iso_sim_set_param: out of memory expanding %s to %d worlds",
                  iso_param_name(p), s->nworld);
    goto done;
  }
  st = backend_download(&s->be, shared, sp->f.data, per * sizeof(real));
  if (st != ISO_OK) goto done;
  for (int w = 0; w < s->nworld; ++w) memcpy(all + per * (size_t)w, shared, per * sizeof(real));
  st = backend_alloc(&s->be, (void **)&dev, per * (size_t)s->nworld * sizeof(real));
  if (st != ISO_OK) goto done;
  st = backend_upload(&s->be, dev, all, per * (size_t)s->nworld * sizeof(real));
  if (st != ISO_OK) {
    backend_free(&s->be, dev);
    goto done;
  }
  backend_free(&s->be, sp->f.data);
  sp->f.data = dev;
  sp->f.wstride = (long)per;
  sim_step_ctx_stale(s);
done:
  free(shared);
  free(all);
  return st;
}

isoStatus iso_sim_set_param(isoSim *s, isoParam p, int item, isoWorlds w, const double *values) {
  const char *fn = "iso_sim_set_param";
  CHECK_NULL(s, fn);
  CHECK_NULL(values, fn);
  isoStatus st = check_param(s, p, item, fn);
  if (st != ISO_OK) return st;
  simSel q;
  st = sim_select_unique(s, w, fn, &q);
  if (st != ISO_OK || q.n == 0) return st;
  int width = iso_param_width(p);
  int it = 0;
  for (int k = 0, world; (world = sel_next(&q, &it)) >= 0; ++k) {
    st = check_value(s, p, world, values + (long)k * width);
    if (st != ISO_OK) return st;
  }
  st = sim_tactile_flush(s); /* sampled with the moduli the last step had */
  if (st == ISO_OK) st = expand(s, p);
  if (st != ISO_OK) return st;
  simParam *sp = &s->param[p];
  size_t row = (size_t)width * sizeof(real);
  return sim_scatter_rows(s, &q, sp->f.data + (long)item * width, (long)(sp->f.wstride * (long)sizeof(real)), row,
                          values, 0);
}

isoStatus iso_sim_get_param(const isoSim *s, isoParam p, int item, isoWorlds w, double *out) {
  const char *fn = "iso_sim_get_param";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check_param(s, p, item, fn);
  if (st != ISO_OK) return st;
  simSel q;
  st = sim_select(s, w, fn, &q);
  if (st != ISO_OK) return st;
  const simParam *sp = &s->param[p];
  int width = iso_param_width(p);
  size_t row = (size_t)width * sizeof(real);
  return sim_gather_rows(s, &q, sp->f.data + (long)item * width, (long)(sp->f.wstride * (long)sizeof(real)), row,
                         out);
}
