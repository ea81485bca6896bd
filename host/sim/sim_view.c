/* The views of include/isobar/view.h: the data table's arrays described for DLPack. */
#include <stddef.h>
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "isobar/tactile.h"
#include "isobar/view.h"

typedef struct viewSpec {
  const char *name;
  isoDType dtype;
  int writable;
} viewSpec;

static const viewSpec k_views[] = {
    {"q", ISO_DTYPE_FLOAT64, 1},
    {"v", ISO_DTYPE_FLOAT64, 1},
    {"time", ISO_DTYPE_FLOAT64, 1},
    {"effort", ISO_DTYPE_FLOAT64, 1},
    {"target_position", ISO_DTYPE_FLOAT64, 1},
    {"target_velocity", ISO_DTYPE_FLOAT64, 1},
    {"actuation", ISO_DTYPE_FLOAT64, 0},
    {"joint_force", ISO_DTYPE_FLOAT64, 0},
    {"vertex_position", ISO_DTYPE_FLOAT64, 1},
    {"vertex_velocity", ISO_DTYPE_FLOAT64, 1},
    {"status", ISO_DTYPE_UINT32, 0},
    {"solver_iterations", ISO_DTYPE_INT32, 0},
    {"solver_converged", ISO_DTYPE_INT32, 0},
    {"solver_residual", ISO_DTYPE_FLOAT64, 0},
    {"body_contact_wrench", ISO_DTYPE_FLOAT64, 0},
    {"taxel_force", ISO_DTYPE_FLOAT64, 0},
    {"taxel_pressure", ISO_DTYPE_FLOAT64, 0},
};
enum { NVIEW = (int)(sizeof k_views / sizeof k_views[0]) };

int iso_view_count(void) { return NVIEW; }

const char *iso_view_name(int k) { return k >= 0 && k < NVIEW ? k_views[k].name : NULL; }

/* Where view k starts, its width and its stride between worlds (elements). The solver's values
 * are fields of one record per world, so their world stride is the record's size over the
 * field's. */
static void *view_base(const isoSim *s, int k, long *width, long *wstride) {
  *width = 0;
  *wstride = 0;
  if (k <= 9) {
    static const isoStateField f[10] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_TIME, ISO_STATE_EFFORT,
                                        ISO_STATE_TARGET_POSITION, ISO_STATE_TARGET_VELOCITY,
                                        ISO_STATE_ACTUATION, ISO_STATE_JOINT_FORCE,
                                        ISO_STATE_VERTEX_POSITION, ISO_STATE_VERTEX_VELOCITY};
    real *base[10] = {s->q, s->v, s->time, s->effort, s->target_q, s->target_v, s->applied, s->jforce,
                      s->xd, s->vd};
    if (!base[k]) return NULL;
    *width = *wstride = iso_sim_state_width(s, f[k]);
    return base[k];
  }
  if (k == 10) {
    *width = *wstride = 1;
    return s->status;
  }
  if (k == 15 || k == 16) {
    real *base = k == 15 ? s->taxel_f : s->taxel_p;
    if (!base) return NULL;
    *width = *wstride = (k == 15 ? 3L : 1L) * iso_sim_taxel_total(s);
    return base;
  }
  if (k == 14) {
    if (!s->body_wrench) return NULL;
    /* the first request switches the stage on: caching a wish, not changing what the sim is */
    if (!s->want_wrench) sim_step_ctx_stale((isoSim *)s);
    ((isoSim *)s)->want_wrench = 1;
    *width = *wstride = 6L * s->nbody;
    return s->body_wrench;
  }
  if (!s->stats) return NULL;
  *width = 1;
  if (k == 13) {
    *wstride = (long)(sizeof(sapStats) / sizeof(real));
    return &s->stats[0].residual;
  }
  *wstride = (long)(sizeof(sapStats) / sizeof(int));
  return k == 11 ? (void *)&s->stats[0].iterations : (void *)&s->stats[0].converged;
}

isoStatus iso_sim_view(const isoSim *s, const char *name, isoView *out) {
  const char *fn = "iso_sim_view";
  CHECK_NULL(s, fn);
  CHECK_NULL(name, fn);
  CHECK_NULL(out, fn);
  int k = 0;
  while (k < NVIEW && strcmp(k_views[k].name, name) != 0) ++k;
  if (k == NVIEW)
    return iso_fail(ISO_ERR_NOT_FOUND,
                    "%s: no array '%s' (q, v, time, effort, target_position, target_velocity, actuation, "
                    "joint_force, vertex_position, vertex_velocity, status, solver_iterations, "
                    "solver_converged, solver_residual, body_contact_wrench, taxel_force, taxel_pressure)",
                    fn, name);
  if (k == 15 || k == 16) { /* an array read in place: sampled at every step from now on */
    const isoStatus ts = sim_tactile_want((isoSim *)s);
    if (ts != ISO_OK) return ts;
  }
  memset(out, 0, sizeof *out);
  long width, wstride;
  void *base = view_base(s, k, &width, &wstride);
  if (!base) width = wstride = 0;
  out->data = width > 0 ? base : NULL;
  out->dtype = k_views[k].dtype;
  out->device = s->be.kind == ISO_BACKEND_CUDA ? ISO_DEVICE_CUDA : ISO_DEVICE_CPU;
  out->device_id = s->be.kind == ISO_BACKEND_CUDA ? s->be.device : 0;
  out->writable = k_views[k].writable;
  out->shape[0] = s->nworld;
  out->shape[1] = width;
  out->strides[0] = wstride;
  out->strides[1] = 1;
  return ISO_OK;
}

isoStatus iso_sim_copy_view(const isoSim *s, const char *name, void *out) {
  const char *fn = "iso_sim_copy_view";
  CHECK_NULL(out, fn);
  isoView v;
  isoStatus st = iso_sim_view(s, name, &v);
  if (st != ISO_OK || v.shape[1] == 0) return st;
  const size_t size = v.dtype == ISO_DTYPE_FLOAT64 ? 8 : 4;
  simSel q;
  st = sim_select(s, iso_worlds_all(), fn, &q);
  if (st != ISO_OK) return st;
  if (v.strides[1] == 1)
    return sim_gather_rows(s, &q, v.data, (long)(v.strides[0] * (int64_t)size), (size_t)v.shape[1] * size, out);
  /* a field of one record per world (the solver's): one element per row */
  return sim_gather_rows(s, &q, v.data, (long)(v.strides[0] * (int64_t)size), size, out);
}

isoStatus iso_sim_synchronize(const isoSim *s) {
  CHECK_NULL(s, "iso_sim_synchronize");
  return backend_sync(&s->be);
}
