/* Sim creation, stepping and the state/status/reset calls of include/isobar/sim.h.
 *
 * Memory is world-major (x[world][item]). Everything is allocated in iso_sim_create; the
 * getters and setters move rows between the caller and the backend, checking every value
 * before the first byte changes, so a rejected call leaves the sim as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/contact_internal.h"
#include "host/base/error.h"
#include "host/step/sap_internal.h"
#include "kernels/contact/combine.h"
#include "host/model/model_internal.h"
#include "host/sim/sim_internal.h"
#include "kernels/rigid/free_body.h"

isoSimDef iso_default_sim_def(void) {
  isoSimDef d;
  memset(&d, 0, sizeof d);
  d.worlds = 1;
  d.backend = ISO_BACKEND_AUTO;
  d.threads = 0;
  d.cuda_stream = NULL;
  d.max_contacts = 256;
  d.max_candidates = 2048;
  d.surface_representation = ISO_SURFACE_POLYGON;
  d.contact_approximation = ISO_CONTACT_LAGGED;
  d.sap_max_iterations = 100;
  d.sap_relative_tolerance = 1e-6;
  d.sap_on_failure = ISO_SAP_ACCEPT;
  return d;
}

isoWorlds iso_worlds_all(void) {
  isoWorlds w;
  memset(&w, 0, sizeof w);
  w.kind = ISO_WORLDS_ALL;
  return w;
}

isoWorlds iso_worlds_one(int world) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_ONE;
  w.world = world;
  return w;
}

isoWorlds iso_worlds_list(const int *worlds, int count) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_LIST;
  w.list = worlds;
  w.count = count;
  return w;
}

isoWorlds iso_worlds_mask(const unsigned char *mask) {
  isoWorlds w = iso_worlds_all();
  w.kind = ISO_WORLDS_MASK;
  w.mask = mask;
  return w;
}

/* Resolve a selection into s->sel[0..*n). Repeats are an error when `unique` (writes). */
isoStatus sim_resolve(const isoSim *s, isoWorlds w, int unique, const char *fn, int *n) {
  int k = 0;
  switch (w.kind) {
    case ISO_WORLDS_ALL:
      for (int i = 0; i < s->nworld; ++i) s->sel[k++] = i;
      break;
    case ISO_WORLDS_ONE:
      if (w.world < 0 || w.world >= s->nworld)
        return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, w.world, s->nworld);
      s->sel[k++] = w.world;
      break;
    case ISO_WORLDS_LIST:
      if (w.count < 0 || w.count > s->nworld)
        return iso_fail(ISO_ERR_INVALID, "%s: world list of %d entries (the sim has %d worlds)", fn,
                        w.count, s->nworld);
      if (w.count > 0 && !w.list) return iso_fail(ISO_ERR_NULL, "%s: world list is NULL", fn);
      memset(s->seen, 0, (size_t)s->nworld);
      for (int i = 0; i < w.count; ++i) {
        int x = w.list[i];
        if (x < 0 || x >= s->nworld)
          return iso_fail(ISO_ERR_INVALID, "%s: world list entry %d is %d, out of range [0, %d)", fn,
                          i, x, s->nworld);
        if (unique && s->seen[x])
          return iso_fail(ISO_ERR_INVALID, "%s: world %d appears twice in the list", fn, x);
        s->seen[x] = 1;
        s->sel[k++] = x;
      }
      break;
    case ISO_WORLDS_MASK:
      if (!w.mask) return iso_fail(ISO_ERR_NULL, "%s: world mask is NULL", fn);
      for (int i = 0; i < s->nworld; ++i)
        if (w.mask[i]) s->sel[k++] = i;
      break;
    default:
      return iso_fail(ISO_ERR_INVALID, "%s: unknown world selection kind %d", fn, w.kind);
  }
  *n = k;
  return ISO_OK;
}

/* ---- creation ---------------------------------------------------------------------------- */

static isoStatus alloc_param(isoSim *s, isoParam p, int nitem, int width, const real *init) {
  simParam *sp = &s->param[p];
  sp->nitem = nitem;
  sp->width = width;
  sp->f.wstride = 0;
  size_t bytes = (size_t)nitem * (size_t)width * sizeof(real);
  isoStatus st = backend_alloc(&s->be, (void **)&sp->f.data, bytes);
  if (st != ISO_OK) return st;
  return backend_upload(&s->be, sp->f.data, init, bytes);
}

static isoStatus check_sim_def(const isoSimDef *d) {
  if (d->worlds < 1) return iso_fail(ISO_ERR_INVALID, "iso_sim_create: worlds = %d, must be >= 1", d->worlds);
  if (d->threads < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: threads = %d, must be >= 0 (0 = default)", d->threads);
  if (d->max_contacts < 1)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: max_contacts = %d, capacities must be >= 1",
                    d->max_contacts);
  if (d->max_candidates < 1)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: max_candidates = %d, capacities must be >= 1",
                    d->max_candidates);
  if (d->surface_representation != ISO_SURFACE_POLYGON && d->surface_representation != ISO_SURFACE_TRIANGLE)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown surface_representation %d",
                    d->surface_representation);
  if (d->contact_approximation != ISO_CONTACT_CONVEX && d->contact_approximation != ISO_CONTACT_LAGGED &&
      d->contact_approximation != ISO_CONTACT_SIMILAR)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown contact_approximation %d", d->contact_approximation);
  if (d->sap_max_iterations < 1)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: sap_max_iterations = %d, must be >= 1", d->sap_max_iterations);
  if (!(d->sap_relative_tolerance > 0) || !isfinite(d->sap_relative_tolerance))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: sap_relative_tolerance %g must be finite and > 0",
                    d->sap_relative_tolerance);
  if (d->sap_on_failure != ISO_SAP_ACCEPT && d->sap_on_failure != ISO_SAP_FREEZE)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown sap_on_failure %d", d->sap_on_failure);
  if (d->backend != ISO_BACKEND_CPU && d->backend != ISO_BACKEND_CUDA && d->backend != ISO_BACKEND_AUTO)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown backend kind %d", (int)d->backend);
  return ISO_OK;
}

isoStatus iso_sim_create(const isoModel *m, const isoSimDef *def, isoSim **out) {
  CHECK_NULL(m, "iso_sim_create");
  CHECK_NULL(out, "iso_sim_create");
  if (!m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_sim_create: the model is not compiled (call iso_model_compile)");
  isoSimDef d = def ? *def : iso_default_sim_def();
  isoStatus st = check_sim_def(&d);
  if (st != ISO_OK) return st;

  isoSim *s = (isoSim *)calloc(1, sizeof *s);
  if (!s) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  st = backend_init(&s->be, d.backend, d.threads, d.cuda_stream);
  if (st != ISO_OK) {
    free(s);
    return st;
  }
  s->def = d;
  s->nworld = d.worlds;
  s->nbody = m->nbody;
  s->nq = RIGID_NQ * m->nbody;
  s->nv = RIGID_NV * m->nbody;
  s->dt = m->def.time_step;

  size_t nw = (size_t)s->nworld;
  int wmax = s->nq > 6 ? s->nq : 6; /* widest row: a body's q, or a 6-value parameter */
  s->q_init = (real *)calloc((size_t)s->nq + 1, sizeof(real));
  s->v_init = (real *)calloc((size_t)s->nv + 1, sizeof(real));
  s->sel = (int *)calloc(nw, sizeof(int));
  s->seen = (unsigned char *)calloc(nw, 1);
  s->stage = (real *)calloc(nw * (size_t)wmax, sizeof(real));
  real *mass = (real *)calloc((size_t)s->nbody + 1, sizeof(real));
  real *com = (real *)calloc(3 * (size_t)s->nbody + 1, sizeof(real));
  real *inertia = (real *)calloc(6 * (size_t)s->nbody + 1, sizeof(real));
  if (!s->q_init || !s->v_init || !s->sel || !s->seen || !s->stage || !mass || !com || !inertia) {
    st = iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of host memory for %d worlds", s->nworld);
    goto fail;
  }
  for (int b = 0; b < s->nbody; ++b) {
    const isoBodyDef *bd = &m->body[b];
    real *q = s->q_init + RIGID_NQ * b, *v = s->v_init + RIGID_NV * b;
    for (int k = 0; k < 4; ++k) q[k] = bd->quaternion[k];
    for (int k = 0; k < 3; ++k) {
      q[4 + k] = bd->position[k];
      v[k] = bd->angular_velocity[k];
      v[3 + k] = bd->linear_velocity[k];
      com[3 * b + k] = bd->com[k];
    }
    mass[b] = bd->mass;
    for (int k = 0; k < 6; ++k) inertia[6 * b + k] = bd->inertia[k];
  }

  TRY(backend_alloc(&s->be, (void **)&s->q, nw * (size_t)s->nq * sizeof(real)));
  TRY(backend_alloc(&s->be, (void **)&s->v, nw * (size_t)s->nv * sizeof(real)));
  TRY(backend_alloc(&s->be, (void **)&s->time, nw * sizeof(real)));
  TRY(backend_alloc(&s->be, (void **)&s->status, nw * sizeof(uint32_t)));
  s->world_bytes = nw * ((size_t)s->nq * sizeof(real) + (size_t)s->nv * sizeof(real) + sizeof(real) + sizeof(uint32_t));
  TRY(alloc_param(s, ISO_PARAM_GRAVITY, 1, 3, m->def.gravity));
  TRY(alloc_param(s, ISO_PARAM_BODY_MASS, s->nbody, 1, mass));
  TRY(alloc_param(s, ISO_PARAM_BODY_COM, s->nbody, 3, com));
  TRY(alloc_param(s, ISO_PARAM_BODY_INERTIA, s->nbody, 6, inertia));
  {
    /* contact materials per geometry (world-stride fields like the body ones) */
    int ng = m->ngeom;
    /* Drake's estimate for geometries without stiffness or dissipation (reference §4.4) */
    double m_max = 0, gn = sqrt(m->def.gravity[0] * m->def.gravity[0] + m->def.gravity[1] * m->def.gravity[1] +
                                m->def.gravity[2] * m->def.gravity[2]);
    for (int b = 0; b < m->nbody; ++b) m_max = fmax(m_max, m->body[b].mass);
    real k_est, d_est;
    sap_penetration_allowance_params(m_max, gn, m->def.penetration_allowance, &k_est, &d_est, NULL);
    real *gv = (real *)calloc(2 * (size_t)ng + 1, sizeof(real));
    if (!gv) TRY(iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory"));
    for (int g = 0; g < ng; ++g) gv[g] = m->geom[g].hydroelastic_modulus;
    st = alloc_param(s, ISO_PARAM_GEOM_MODULUS, ng, 1, gv);
    for (int g = 0; g < ng; ++g)
      gv[g] = isnan(m->geom[g].hunt_crossley_dissipation) ? d_est : m->geom[g].hunt_crossley_dissipation;
    if (st == ISO_OK) st = alloc_param(s, ISO_PARAM_GEOM_DISSIPATION, ng, 1, gv);
    for (int g = 0; g < ng; ++g) gv[2 * g] = m->geom[g].mu_static, gv[2 * g + 1] = m->geom[g].mu_dynamic;
    if (st == ISO_OK) st = alloc_param(s, ISO_PARAM_GEOM_FRICTION, ng, 2, gv);
    for (int g = 0; g < ng; ++g) gv[g] = m->geom[g].point_stiffness == 0 ? k_est : m->geom[g].point_stiffness;
    if (st == ISO_OK) st = alloc_param(s, ISO_PARAM_GEOM_STIFFNESS, ng, 1, gv);
    for (int g = 0; g < ng; ++g) gv[g] = m->geom[g].relaxation_time;
    if (st == ISO_OK) st = alloc_param(s, ISO_PARAM_GEOM_RELAXATION, ng, 1, gv);
    free(gv);
    if (st != ISO_OK) goto fail;
  }
  free(mass), free(com), free(inertia);
  mass = com = inertia = NULL;
  TRY(iso_sim_reset(s, iso_worlds_all()));
  TRY(contact_create(s, m));
  TRY(sap_create(s, m));
  *out = s;
  return ISO_OK;
fail:
  free(mass), free(com), free(inertia);
  iso_sim_destroy(s);
  return st;
}

isoStatus iso_sim_memory_per_world(const isoSim *s, size_t *bytes) {
  CHECK_NULL(s, "iso_sim_memory_per_world");
  CHECK_NULL(bytes, "iso_sim_memory_per_world");
  size_t total = s->world_bytes;
  for (int p = 0; p < ISO_PARAM_COUNT; ++p)
    if (s->param[p].f.wstride != 0)
      total += (size_t)s->nworld * (size_t)s->param[p].nitem * (size_t)s->param[p].width * sizeof(real);
  *bytes = total / (size_t)s->nworld;
  return ISO_OK;
}

void iso_sim_destroy(isoSim *s) {
  if (!s) return;
  backend_sync(&s->be);
  sap_destroy(s);
  contact_destroy(s);
  backend_free(&s->be, s->q);
  backend_free(&s->be, s->v);
  backend_free(&s->be, s->time);
  backend_free(&s->be, s->status);
  for (int p = 0; p < ISO_PARAM_COUNT; ++p) backend_free(&s->be, s->param[p].f.data);
  backend_release(&s->be);
  free(s->q_init);
  free(s->v_init);
  free(s->sel);
  free(s->seen);
  free(s->stage);
  free(s);
}

/* ---- stepping and queries -------------------------------------------------------------------- */

isoStatus iso_sim_step(isoSim *s) {
  CHECK_NULL(s, "iso_sim_step");
  isoStatus st = s->sap && s->sap->enabled ? sap_step(s) : rigid_step(s);
  if (st != ISO_OK) return st;
  s->nstep++;
  return ISO_OK;
}

int iso_sim_world_count(const isoSim *s) { return s ? s->nworld : 0; }
int iso_sim_body_count(const isoSim *s) { return s ? s->nbody : 0; }
double iso_sim_time_step(const isoSim *s) { return s ? s->dt : 0.0; }
isoBackendKind iso_sim_backend(const isoSim *s) { return s ? s->be.kind : ISO_BACKEND_CPU; }
const char *iso_sim_backend_reason(const isoSim *s) { return s ? s->be.reason : ""; }
int iso_sim_threads(const isoSim *s) { return s ? s->be.threads : 0; }
long long iso_sim_step_count(const isoSim *s) { return s ? s->nstep : 0; }

int iso_sim_state_width(const isoSim *s, isoStateField f) {
  if (!s) return 0;
  switch (f) {
    case ISO_STATE_Q: return s->nq;
    case ISO_STATE_V: return s->nv;
    case ISO_STATE_TIME: return 1;
  }
  return 0;
}

static real *state_base(const isoSim *s, isoStateField f) {
  switch (f) {
    case ISO_STATE_Q: return s->q;
    case ISO_STATE_V: return s->v;
    case ISO_STATE_TIME: return s->time;
  }
  return NULL;
}

static isoStatus check_field(isoStateField f, const char *fn) {
  if (f != ISO_STATE_Q && f != ISO_STATE_V && f != ISO_STATE_TIME)
    return iso_fail(ISO_ERR_INVALID, "%s: unknown state field %d", fn, (int)f);
  return ISO_OK;
}

/* Copy rows of `width` reals between host `h` (packed) and backend `base` for the selection. */
static isoStatus move_rows(const isoSim *s, int n, int width, real *base, real *h, int down) {
  size_t row = (size_t)width * sizeof(real);
  int in_order = n == s->nworld;
  for (int k = 0; k < n && in_order; ++k) in_order = s->sel[k] == k;
  if (in_order) /* every world, in order: one contiguous copy */
    return down ? backend_download(&s->be, h, base, row * (size_t)n)
                : backend_upload(&s->be, base, h, row * (size_t)n);
  for (int k = 0; k < n; ++k) {
    real *dev = base + (long)s->sel[k] * width;
    isoStatus st = down ? backend_download(&s->be, h + (long)k * width, dev, row)
                        : backend_upload(&s->be, dev, h + (long)k * width, row);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

isoStatus iso_sim_get_state(const isoSim *s, isoStateField f, isoWorlds w, double *out) {
  const char *fn = "iso_sim_get_state";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check_field(f, fn);
  int n = 0;
  if (st == ISO_OK) st = sim_resolve(s, w, 0, fn, &n);
  if (st != ISO_OK || n == 0) return st;
  return move_rows(s, n, iso_sim_state_width(s, f), state_base(s, f), out, 1);
}

isoStatus iso_sim_set_state(isoSim *s, isoStateField f, isoWorlds w, const double *values) {
  const char *fn = "iso_sim_set_state";
  CHECK_NULL(s, fn);
  CHECK_NULL(values, fn);
  isoStatus st = check_field(f, fn);
  int n = 0;
  if (st == ISO_OK) st = sim_resolve(s, w, 1, fn, &n);
  if (st != ISO_OK || n == 0) return st;
  int width = iso_sim_state_width(s, f);
  for (int k = 0; k < n; ++k) {
    const double *x = values + (long)k * width;
    real *y = s->stage + (long)k * width;
    for (int i = 0; i < width; ++i) {
      if (!isfinite(x[i]))
        return iso_fail(ISO_ERR_INVALID, "%s: world %d: value %d is not finite (%g)", fn, s->sel[k], i, x[i]);
      y[i] = x[i];
    }
    if (f == ISO_STATE_TIME && x[0] < 0)
      return iso_fail(ISO_ERR_INVALID, "%s: world %d: time %g is negative", fn, s->sel[k], x[0]);
    if (f == ISO_STATE_Q) {
      for (int b = 0; b < s->nbody; ++b) {
        real *q = y + RIGID_NQ * b;
        real len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(len > 1e-12))
          return iso_fail(ISO_ERR_INVALID, "%s: world %d: body %d has a zero quaternion", fn, s->sel[k], b);
        for (int i = 0; i < 4; ++i) q[i] /= len;
      }
    }
  }
  if (f == ISO_STATE_Q) contact_invalidate(s); /* surfaces described the old positions */
  return move_rows(s, n, width, state_base(s, f), s->stage, 0);
}

isoStatus iso_sim_reset(isoSim *s, isoWorlds w) {
  const char *fn = "iso_sim_reset";
  CHECK_NULL(s, fn);
  int n = 0;
  isoStatus st = sim_resolve(s, w, 0, fn, &n);
  if (st != ISO_OK) return st;
  for (int k = 0; k < n; ++k) {
    int x = s->sel[k];
    uint32_t zero = 0;
    real t0 = 0;
    TRY(backend_upload(&s->be, s->q + (long)x * s->nq, s->q_init, (size_t)s->nq * sizeof(real)));
    TRY(backend_upload(&s->be, s->v + (long)x * s->nv, s->v_init, (size_t)s->nv * sizeof(real)));
    TRY(backend_upload(&s->be, s->time + x, &t0, sizeof t0));
    TRY(backend_upload(&s->be, s->status + x, &zero, sizeof zero));
    if (s->contact) TRY(contact_reset_world(s, x));
  }
  if (n > 0) contact_invalidate(s);
  return ISO_OK;
fail:
  return st;
}

isoStatus iso_sim_get_status(const isoSim *s, isoWorlds w, uint32_t *out) {
  const char *fn = "iso_sim_get_status";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  int n = 0;
  isoStatus st = sim_resolve(s, w, 0, fn, &n);
  if (st != ISO_OK) return st;
  for (int k = 0; k < n; ++k) {
    st = backend_download(&s->be, out + k, s->status + s->sel[k], sizeof(uint32_t));
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}
