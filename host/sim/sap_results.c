/* Contact-dynamics results of include/isobar/contact.h: constraints with their impulses, net
 * wrenches per body, solver statistics. Read from the backend after a step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/step/sap_internal.h"
#include "host/sim/sim_internal.h"
#include "isobar/contact.h"

static isoStatus check(const isoSim *s, int world, const char *fn) {
  if (world < 0 || world >= s->nworld)
    return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, world, s->nworld);
  return ISO_OK;
}

isoStatus iso_sim_contact_count(const isoSim *s, int world, int *count) {
  const char *fn = "iso_sim_contact_count";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  isoStatus st = check(s, world, fn);
  if (st != ISO_OK) return st;
  *count = 0;
  if (!s->sap->enabled) return ISO_OK;
  return backend_download(&s->be, count, s->sap->ncon + world, sizeof(int));
}

static void to_public(const sapCon *c, const real g[3], real dt, isoContactResult *o) {
  memset(o, 0, sizeof *o);
  o->kind = c->kind == SAPCON_FACE ? ISO_CONSTRAINT_FACE : ISO_CONSTRAINT_POINT;
  o->geometry_a = c->geom_a, o->geometry_b = c->geom_b;
  o->body_a = c->body_a, o->body_b = c->body_b;
  o->face = c->kind == SAPCON_FACE ? c->source : -1;
  o->point[0] = c->p_WC.x, o->point[1] = c->p_WC.y, o->point[2] = c->p_WC.z;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) o->frame[3 * i + j] = c->R_WC.m[i][j];
  vec3 fw = v3_zero();
  for (int k = 0; k < 3; ++k) {
    o->impulse[k] = g[k];
    o->force[k] = g[k] / dt;
    fw = v3_axpy(fw, g[k] / dt, m3_col(c->R_WC, k));
  }
  o->force_world[0] = fw.x, o->force_world[1] = fw.y, o->force_world[2] = fw.z;
  o->area = c->area;
  if (c->kind == SAPCON_FACE && c->area > 0) {
    o->pressure = g[2] / (dt * c->area);
    o->traction[0] = fw.x / c->area, o->traction[1] = fw.y / c->area, o->traction[2] = fw.z / c->area;
  }
  o->phi0 = c->params.phi0;
  o->stiffness = c->params.k;
}

isoStatus iso_sim_get_contact_results(const isoSim *s, int world, isoContactResult *out, int cap, int *count) {
  const char *fn = "iso_sim_get_contact_results";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  if (cap > 0 && !out) return iso_fail(ISO_ERR_NULL, "%s: argument 'out' is NULL", fn);
  int n = 0;
  isoStatus st = iso_sim_contact_count(s, world, &n);
  if (st != ISO_OK) return st;
  *count = n;
  const simSap *p = s->sap;
  for (int i = 0; i < n && i < cap && st == ISO_OK; ++i) {
    sapCon c;
    real g[3];
    long at = (long)world * p->batch.max_con + i;
    st = backend_download(&s->be, &c, p->con + at, sizeof c);
    if (st == ISO_OK) st = backend_download(&s->be, g, p->batch.gamma + 3 * at, sizeof g);
    if (st == ISO_OK) to_public(&c, g, s->dt, out + i);
  }
  return st;
}

isoStatus iso_sim_get_body_contact_wrench(const isoSim *s, int world, int body, double wrench[6]) {
  const char *fn = "iso_sim_get_body_contact_wrench";
  CHECK_NULL(s, fn);
  CHECK_NULL(wrench, fn);
  isoStatus st = check(s, world, fn);
  if (st != ISO_OK) return st;
  if (body < 0 || body >= s->nbody)
    return iso_fail(ISO_ERR_INVALID, "%s: body %d is out of range [0, %d)", fn, body, s->nbody);
  for (int k = 0; k < 6; ++k) wrench[k] = 0;
  int n = 0;
  st = iso_sim_contact_count(s, world, &n);
  const simSap *p = s->sap;
  real *gen = (real *)calloc((size_t)s->nv + 1, sizeof(real));
  if (!gen) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  for (int i = 0; i < n && st == ISO_OK; ++i) {
    sapCon c;
    real g[3];
    long at = (long)world * p->batch.max_con + i;
    st = backend_download(&s->be, &c, p->con + at, sizeof c);
    if (st == ISO_OK) st = backend_download(&s->be, g, p->batch.gamma + 3 * at, sizeof g);
    /* Jᵀγ per body is [r × f, f] with f = R_WC·γ: the torque about the origin and the force */
    if (st == ISO_OK) sap_con_apply_t(&c, g, 1 / s->dt, gen);
  }
  for (int k = 0; k < 6; ++k) wrench[k] = gen[6 * body + k];
  free(gen);
  return st;
}

isoStatus iso_sim_get_solver_stats(const isoSim *s, int world, isoSolverStats *out) {
  const char *fn = "iso_sim_get_solver_stats";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check(s, world, fn);
  if (st != ISO_OK) return st;
  memset(out, 0, sizeof *out);
  if (!s->sap->enabled) return ISO_OK;
  sapStats t;
  st = backend_download(&s->be, &t, s->sap->batch.stats + world, sizeof t);
  if (st != ISO_OK) return st;
  out->iterations = t.iterations;
  out->ls_iterations = t.ls_iterations;
  out->converged = t.converged;
  out->residual = t.residual;
  out->cost = t.cost;
  return ISO_OK;
}
