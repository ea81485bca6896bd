/* Sim creation, destruction and stepping (include/isobar/sim.h). State, status and reset live
 * in sim_state.c, selections in sim_select.c, the per-world arrays in the data table
 * (sim_data.h). Everything is allocated in iso_sim_create. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
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
  d.capacity.max_contacts = 0; /* automatic: sized from the compiled model at creation */
  d.capacity.max_candidates = 0;
  d.capacity.max_deformable_contacts = 0;
  d.capacity.max_participating = 0;
  d.contact.surface_representation = ISO_SURFACE_POLYGON;
  d.contact.approximation = ISO_CONTACT_LAGGED;
  d.contact.point_model = ISO_POINT_DRAKE;
  d.contact.characteristic_radius = SAP_LEGACY_CHARACTERISTIC_RADIUS;
  d.contact.legacy_youngs_modulus = SAP_LEGACY_YOUNGS_MODULUS;
  d.contact.legacy_dissipation = SAP_LEGACY_DISSIPATION;
  d.contact.legacy_static_friction = SAP_LEGACY_STATIC_FRICTION;
  d.contact.legacy_dynamic_friction = SAP_LEGACY_DYNAMIC_FRICTION;
  d.solver.max_iterations = 100;
  d.solver.relative_tolerance = 1e-6;
  d.solver.on_failure = ISO_SAP_ACCEPT;
  return d;
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
  /* Each message names the field by its path in the def, as a caller would write it. */
  if (d->capacity.max_contacts < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: capacity.max_contacts = %d, capacities must be >= 0 "
                    "(0 = automatic)", d->capacity.max_contacts);
  if (d->capacity.max_deformable_contacts < 0 || d->capacity.max_participating < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: capacity.max_deformable_contacts = %d, capacity.max_participating = "
                    "%d: capacities must be >= 0 (0 = automatic)", d->capacity.max_deformable_contacts,
                    d->capacity.max_participating);
  if (d->capacity.max_candidates < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: capacity.max_candidates = %d, capacities must be >= 0 "
                    "(0 = automatic)", d->capacity.max_candidates);
  /* Enums arrive from callers (and bindings) as plain integers: any value can show up. */
  const int rep = (int)d->contact.surface_representation, approx = (int)d->contact.approximation;
  if (rep != ISO_SURFACE_POLYGON && rep != ISO_SURFACE_TRIANGLE)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown contact.surface_representation %d", rep);
  if (approx != ISO_CONTACT_CONVEX && approx != ISO_CONTACT_LAGGED && approx != ISO_CONTACT_SIMILAR)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown contact.approximation %d", approx);
  const int pm = (int)d->contact.point_model;
  if (pm != ISO_POINT_DRAKE && pm != ISO_POINT_LEGACY)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown contact.point_model %d", pm);
  if (pm == ISO_POINT_LEGACY) {
    const isoContactDef *c = &d->contact;
    if (!(c->characteristic_radius > 0) || !isfinite(c->characteristic_radius))
      return iso_fail(ISO_ERR_INVALID, "iso_sim_create: contact.characteristic_radius %g must be finite and > 0",
                      c->characteristic_radius);
    if (!(c->legacy_youngs_modulus > 0) || !isfinite(c->legacy_youngs_modulus))
      return iso_fail(ISO_ERR_INVALID, "iso_sim_create: contact.legacy_youngs_modulus %g must be finite and > 0",
                      c->legacy_youngs_modulus);
    if (!(c->legacy_dissipation >= 0) || !isfinite(c->legacy_dissipation))
      return iso_fail(ISO_ERR_INVALID, "iso_sim_create: contact.legacy_dissipation %g must be finite and >= 0",
                      c->legacy_dissipation);
    if (!(c->legacy_dynamic_friction >= 0) || !isfinite(c->legacy_static_friction) ||
        !(c->legacy_static_friction >= c->legacy_dynamic_friction))
      return iso_fail(ISO_ERR_INVALID,
                      "iso_sim_create: contact.legacy_static_friction %g and legacy_dynamic_friction %g must be "
                      "finite, >= 0 and static >= dynamic", c->legacy_static_friction, c->legacy_dynamic_friction);
  }
  if (d->solver.max_iterations < 1)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: solver.max_iterations = %d, must be >= 1",
                    d->solver.max_iterations);
  if (!(d->solver.relative_tolerance > 0) || !isfinite(d->solver.relative_tolerance))
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: solver.relative_tolerance %g must be finite and > 0",
                    d->solver.relative_tolerance);
  if ((int)d->solver.on_failure != ISO_SAP_ACCEPT && (int)d->solver.on_failure != ISO_SAP_FREEZE)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown solver.on_failure %d", (int)d->solver.on_failure);
  if (d->backend != ISO_BACKEND_CPU && d->backend != ISO_BACKEND_CUDA && d->backend != ISO_BACKEND_AUTO)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: unknown backend kind %d", (int)d->backend);
  return ISO_OK;
}

/* The legacy point model's default material (seed 004): every value a geometry left at its
 * default (isoGeometryDef.legacy_given) takes the sim's, in the sim's copy of the model, so the
 * per-world parameters start from it. Compliant hydroelastic geometries keep theirs: their
 * modulus and dissipation are those of their pressure fields. */
static void legacy_defaults(const isoModel *m, const isoContactDef *c, modelFlat *f) {
  char *base = (char *)f->arena.base;
  real *E = (real *)(base + f->off[MF_geom_E]), *d = (real *)(base + f->off[MF_geom_d]);
  real *mu = (real *)(base + f->off[MF_geom_mu]);
  for (int g = 0; g < m->ngeom; ++g) {
    const isoGeometryDef *gd = &m->geom[g];
    if (gd->compliance == ISO_COMPLIANCE_COMPLIANT) continue;
    if (!(gd->legacy_given & ISO_LEGACY_MODULUS)) E[g] = c->legacy_youngs_modulus;
    if (!(gd->legacy_given & ISO_LEGACY_DISSIPATION)) d[g] = c->legacy_dissipation;
    if (!(gd->legacy_given & ISO_LEGACY_FRICTION)) {
      mu[2 * g] = c->legacy_static_friction;
      mu[2 * g + 1] = c->legacy_dynamic_friction;
    }
  }
}

isoStatus iso_sim_create(const isoModel *m, const isoSimDef *def, isoSim **out) {
  CHECK_NULL(m, "iso_sim_create");
  CHECK_NULL(out, "iso_sim_create");
  if (!m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_sim_create: the model is not compiled (call iso_model_compile)");
  isoSimDef d = def ? *def : iso_default_sim_def();
  isoStatus st = check_sim_def(&d);
  if (st != ISO_OK) return st;
  sim_auto_capacity(m, &d, &d.capacity); /* 0 = automatic: from the model's meshes */

  isoSim *s = (isoSim *)calloc(1, sizeof *s);
  if (!s) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  /* AUTO takes the GPU only where it was measured to pay (isobar/backend.h) */
  char cpu_why[160] = "";
  if (d.backend == ISO_BACKEND_AUTO && d.worlds < ISO_AUTO_CUDA_MIN_WORLDS)
    snprintf(cpu_why, sizeof cpu_why, "%d world%s, under the %d from which the GPU pays", d.worlds,
             d.worlds == 1 ? "" : "s", ISO_AUTO_CUDA_MIN_WORLDS);
  else if (d.backend == ISO_BACKEND_AUTO && m->flat.z.ndef > 0)
    snprintf(cpu_why, sizeof cpu_why, "deformable bodies, whose FEM the GPU runs in one thread per world");
  st = backend_init(&s->be, cpu_why[0] ? ISO_BACKEND_CPU : d.backend, d.threads, d.cuda_stream);
  if (st != ISO_OK) {
    free(s);
    return st;
  }
  if (cpu_why[0])
    snprintf(s->be.reason, sizeof s->be.reason, "auto chose cpu (%d threads): %s; ask for cuda to use a GPU",
             s->be.threads, cpu_why);
  s->def = d;
  s->nworld = d.worlds;
  s->nbody = m->nbody;
  s->nq = m->flat.z.nq;
  s->nv = m->flat.z.nv;
  s->dt = m->def.time_step;

  size_t nw = (size_t)s->nworld;
  int wmax = s->nq > 6 ? s->nq : 6; /* widest row: a body's q, or a 6-value parameter, */
  if (3 * m->flat.z.ndvert > wmax) wmax = (int)(3 * m->flat.z.ndvert); /* or the vertices */
  TRY(model_flat_copy(&m->flat, &s->model));
  model_view_bind(&s->model, s->model.arena.base, &s->mh);
  if (d.contact.point_model == ISO_POINT_LEGACY) legacy_defaults(m, &d.contact, &s->model);
  if (s->be.kind == ISO_BACKEND_CPU) {
    s->md = s->mh;
  } else { /* one upload of the whole block */
    TRY(backend_alloc(&s->be, &s->model_dev, s->model.arena.size));
    TRY(backend_upload(&s->be, s->model_dev, s->model.arena.base, s->model.arena.size));
    model_view_bind(&s->model, s->model_dev, &s->md);
  }
  const modelView mv = s->mh;
  s->q_init = mv.q0;
  s->v_init = mv.v0;
  TRY(sim_fem_layout(s, m, &s->def.capacity));
  TRY(sim_fem_upload(s));
  s->seen = (unsigned char *)calloc(nw, 1);
  s->stage = (real *)calloc(nw * (size_t)wmax, sizeof(real));
  if (!s->seen || !s->stage) {
    st = iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of host memory for %d worlds", s->nworld);
    goto fail;
  }
  TRY(sim_data_create(s));
  s->world_bytes = s->arena.size;
  /* every parameter starts shared, from the compiled model's values */
  const int nb = s->nbody, ng = m->ngeom;
  TRY(alloc_param(s, ISO_PARAM_GRAVITY, 1, 3, m->def.gravity));
  TRY(alloc_param(s, ISO_PARAM_BODY_MASS, nb, 1, mv.body_mass));
  TRY(alloc_param(s, ISO_PARAM_BODY_COM, nb, 3, mv.body_com));
  TRY(alloc_param(s, ISO_PARAM_BODY_INERTIA, nb, 6, mv.body_inertia));
  TRY(alloc_param(s, ISO_PARAM_GEOM_MODULUS, ng, 1, mv.geom_E));
  TRY(alloc_param(s, ISO_PARAM_GEOM_DISSIPATION, ng, 1, mv.geom_d));
  TRY(alloc_param(s, ISO_PARAM_GEOM_FRICTION, ng, 2, mv.geom_mu));
  TRY(alloc_param(s, ISO_PARAM_GEOM_STIFFNESS, ng, 1, mv.geom_k));
  TRY(alloc_param(s, ISO_PARAM_GEOM_RELAXATION, ng, 1, mv.geom_tau));
  TRY(alloc_param(s, ISO_PARAM_DOF_DAMPING, s->nv, 1, mv.dof_damping));
  TRY(alloc_param(s, ISO_PARAM_DOF_LIMITS, s->nv, 2, mv.dof_limit));
  TRY(alloc_param(s, ISO_PARAM_DOF_REFLECTED_INERTIA, s->nv, 1, mv.dof_reflected));
  TRY(alloc_param(s, ISO_PARAM_ACTUATOR_GAINS, mv.z.nact, 2, mv.act_gains));
  TRY(alloc_param(s, ISO_PARAM_ACTUATOR_EFFORT_LIMIT, mv.z.nact, 1, mv.act_effort_limit));
  TRY(alloc_param(s, ISO_PARAM_DEFORMABLE_MATERIAL, mv.z.ndef, DEF_NMAT, mv.def_material));
  TRY(iso_sim_reset(s, iso_worlds_all()));
  TRY(contact_create(s, m));
  TRY(sap_create(s, m));
  *out = s;
  return ISO_OK;
fail:
  iso_sim_destroy(s);
  return st;
}

isoStatus iso_sim_memory_per_world(const isoSim *s, size_t *bytes) {
  CHECK_NULL(s, "iso_sim_memory_per_world");
  CHECK_NULL(bytes, "iso_sim_memory_per_world");
  size_t total = s->world_bytes;
  if (s->sap && s->sap->batch.work_per_world) /* the GPU solve's workspace */
    total += sizeof(sapWorkCon) * (size_t)s->sap->batch.max_con * (size_t)s->nworld;
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
  sim_data_destroy(s);
  backend_free(&s->be, s->model_dev);
  model_flat_free(&s->model);
  for (int p = 0; p < ISO_PARAM_COUNT; ++p) backend_free(&s->be, s->param[p].f.data);
  sim_fem_free(s);
  backend_release(&s->be);
  free(s->seen);
  free(s->stage);
  free(s);
}

/* ---- stepping and queries -------------------------------------------------------------------- */

const stepCtx *sim_step_ctx(isoSim *s) {
  if (s->ctx_ok) return &s->ctx;
  stepCtx c; /* every field is assigned below */
  c.be = &s->be;
  c.md = &s->md;
  c.nworld = s->nworld, c.nbody = s->nbody, c.nq = s->nq, c.nv = s->nv;
  c.dt = s->dt;
  c.fem = &s->fem;
#define SIM_DATA_CTX(type, name, count, writer, reset) c.name = s->name;
  SIM_DATA(SIM_DATA_CTX)
#undef SIM_DATA_CTX
  if (!s->want_wrench) c.body_wrench = NULL; /* nobody reads it: the stage skips */
  for (int p = 0; p < ISO_PARAM_COUNT; ++p) c.param[p] = s->param[p].f; /* as they are now */
  c.contact = s->contact;
  c.sap = s->sap;
  c.stage_s = s->stage_timing ? s->stage_s : NULL; /* NULL: no clock read in the step */
  c.tactile_now = s->want_taxels;
  c.TS = step_tree_set(&c);
  s->ctx = c;
  s->ctx_ok = 1;
  return &s->ctx;
}

isoStatus iso_sim_step(isoSim *s) {
  CHECK_NULL(s, "iso_sim_step");
  const stepCtx *c = sim_step_ctx(s);
  s->taxels_due = 0; /* the step overwrites what an unsampled step left: its samples are gone */
  isoStatus st = step_run(c);
  if (st == ISO_OK) s->taxels_due = !c->tactile_now && step_tactile_runs(c);
  if (s->contact) s->contact->updated = 1; /* the surfaces are those the step started from */
  if (st != ISO_OK) return st;
  s->nstep++;
  return ISO_OK;
}

isoStatus iso_sim_update_contact(isoSim *s) {
  CHECK_NULL(s, "iso_sim_update_contact");
  isoStatus st = sim_tactile_flush(s); /* the samples are the last step's: taken before its list goes */
  if (st == ISO_OK) st = step_collide_only(sim_step_ctx(s));
  if (s->contact) s->contact->updated = 1;
  /* the last step's constraints point into the list just rewritten: they describe it no more */
  if (st == ISO_OK && s->sap && s->sap->enabled) {
    st = backend_memset0(&s->be, s->ncon, sizeof(int) * (size_t)s->nworld);
    if (st == ISO_OK) st = backend_memset0(&s->be, s->ncontact, sizeof(int) * (size_t)s->nworld);
  }
  return st;
}

int iso_sim_world_count(const isoSim *s) { return s ? s->nworld : 0; }
int iso_sim_body_count(const isoSim *s) { return s ? s->nbody : 0; }
double iso_sim_time_step(const isoSim *s) { return s ? s->dt : 0.0; }
isoBackendKind iso_sim_backend(const isoSim *s) { return s ? s->be.kind : ISO_BACKEND_CPU; }
const char *iso_sim_backend_reason(const isoSim *s) { return s ? s->be.reason : ""; }
int iso_sim_threads(const isoSim *s) { return s ? s->be.threads : 0; }
long long iso_sim_step_count(const isoSim *s) { return s ? s->nstep : 0; }

