/* The state, status and reset calls of include/isobar/sim.h.
 *
 * Every value a setter receives is checked before the first byte changes, so a rejected call
 * leaves the sim as it was. Rows move through sim_gather_rows/sim_scatter_rows, which batch the
 * copies of many worlds into one. */
#include <math.h>
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "host/step/contact_internal.h"
#include "isobar/joint.h"
#include "kernels/rigid/free_body.h"

int iso_sim_state_width(const isoSim *s, isoStateField f) {
  if (!s) return 0;
  switch (f) {
    case ISO_STATE_Q: return s->nq;
    case ISO_STATE_V: return s->nv;
    case ISO_STATE_TIME: return 1;
    case ISO_STATE_EFFORT:
    case ISO_STATE_TARGET_POSITION:
    case ISO_STATE_TARGET_VELOCITY:
    case ISO_STATE_ACTUATION: return s->mh.z.nact;
    case ISO_STATE_JOINT_FORCE: return s->nv;
    case ISO_STATE_VERTEX_POSITION:
    case ISO_STATE_VERTEX_VELOCITY: return (int)(3 * s->mh.z.ndvert);
  }
  return 0;
}

static real *state_base(const isoSim *s, isoStateField f) {
  switch (f) {
    case ISO_STATE_Q: return s->q;
    case ISO_STATE_V: return s->v;
    case ISO_STATE_TIME: return s->time;
    case ISO_STATE_EFFORT: return s->effort;
    case ISO_STATE_TARGET_POSITION: return s->target_q;
    case ISO_STATE_TARGET_VELOCITY: return s->target_v;
    case ISO_STATE_ACTUATION: return s->applied;
    case ISO_STATE_JOINT_FORCE: return s->jforce;
    case ISO_STATE_VERTEX_POSITION: return s->xd;
    case ISO_STATE_VERTEX_VELOCITY: return s->vd;
  }
  return NULL;
}

static isoStatus check_field(isoStateField f, const char *fn) {
  if ((int)f < (int)ISO_STATE_Q || (int)f > (int)ISO_STATE_VERTEX_VELOCITY)
    return iso_fail(ISO_ERR_INVALID, "%s: unknown state field %d", fn, (int)f);
  return ISO_OK;
}

isoStatus iso_sim_get_state(const isoSim *s, isoStateField f, isoWorlds w, double *out) {
  const char *fn = "iso_sim_get_state";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check_field(f, fn);
  simSel q;
  if (st == ISO_OK) st = sim_select(s, w, fn, &q);
  if (st != ISO_OK) return st;
  size_t row = (size_t)iso_sim_state_width(s, f) * sizeof(real);
  if (!state_base(s, f)) { /* a model without joint constraints keeps no joint forces: all zero */
    memset(out, 0, row * (size_t)q.n);
    return ISO_OK;
  }
  return sim_gather_rows(s, &q, state_base(s, f), (long)row, row, out);
}

isoStatus iso_sim_set_state(isoSim *s, isoStateField f, isoWorlds w, const double *values) {
  const char *fn = "iso_sim_set_state";
  CHECK_NULL(s, fn);
  CHECK_NULL(values, fn);
  isoStatus st = check_field(f, fn);
  if (st == ISO_OK && (f == ISO_STATE_ACTUATION || f == ISO_STATE_JOINT_FORCE))
    return iso_fail(ISO_ERR_INVALID, "%s: the %s field is written by the step, not settable", fn,
                    f == ISO_STATE_ACTUATION ? "actuation" : "joint force");
  simSel q;
  if (st == ISO_OK) st = sim_select_unique(s, w, fn, &q);
  if (st != ISO_OK || q.n == 0) return st;
  int width = iso_sim_state_width(s, f);
  int it = 0;
  for (int k = 0, world; (world = sel_next(&q, &it)) >= 0; ++k) {
    const double *x = values + (long)k * width;
    real *y = s->stage + (long)k * width;
    for (int i = 0; i < width; ++i) {
      if (!isfinite(x[i]))
        return iso_fail(ISO_ERR_INVALID, "%s: world %d: value %d is not finite (%g)", fn, world, i, x[i]);
      y[i] = x[i];
    }
    if (f == ISO_STATE_TIME && x[0] < 0)
      return iso_fail(ISO_ERR_INVALID, "%s: world %d: time %g is negative", fn, world, x[0]);
    if (f == ISO_STATE_Q) {
      for (int b = 0; b < s->nbody; ++b) {
        const int jt = s->mh.body_jtype[b];
        if (jt != ISO_JOINT_BALL && jt != ISO_JOINT_FLOATING) continue;
        real *qb = y + s->mh.body_q0[b];
        real len = sqrt(qb[0] * qb[0] + qb[1] * qb[1] + qb[2] * qb[2] + qb[3] * qb[3]);
        if (!(len > 1e-12))
          return iso_fail(ISO_ERR_INVALID, "%s: world %d: body %d has a zero quaternion", fn, world, b);
        /* one already of unit length to rounding is kept as given, so a state read back and
         * set again is the same bits (isobar run --grow-capacities puts states back) */
        if (fabs(len - 1) > 4e-16)
          for (int i = 0; i < 4; ++i) qb[i] /= len;
      }
    }
  }
  if (f == ISO_STATE_Q || f == ISO_STATE_VERTEX_POSITION)
    contact_invalidate(s); /* surfaces described the old positions */
  size_t row = (size_t)width * sizeof(real);
  return sim_scatter_rows(s, &q, state_base(s, f), (long)row, row, s->stage, 0);
}

isoStatus iso_sim_reset(isoSim *s, isoWorlds w) {
  const char *fn = "iso_sim_reset";
  CHECK_NULL(s, fn);
  simSel q;
  isoStatus st = sim_select(s, w, fn, &q);
  if (st != ISO_OK || q.n == 0) return st;
  /* no sampling of due taxels first: a reset world's row is zeroed with its constraints, so a
   * later sampling gives it the zeros a reset writes, and leaves the other worlds as they were */
  st = sim_data_reset(s, &q); /* lists and recorded overflow sizes too: the table says which */
  contact_invalidate(s);
  return st;
}

isoStatus iso_sim_get_status(const isoSim *s, isoWorlds w, uint32_t *out) {
  const char *fn = "iso_sim_get_status";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  simSel q;
  isoStatus st = sim_select(s, w, fn, &q);
  if (st != ISO_OK) return st;
  return sim_gather_rows(s, &q, s->status, sizeof(uint32_t), sizeof(uint32_t), out);
}
