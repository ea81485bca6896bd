/* Setting up the contact-dynamics stages of a sim (host/step/sap_internal.h): the point-contact
 * shapes and pairs from the compiled model, the materials, and the solver batch pointed at the
 * sim's data table. Runs at sim creation (sap_bind again when iso_sim_reserve moves the
 * per-world arrays); the stages themselves are host/step/step_*.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/contact_internal.h"
#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "host/step/sap_internal.h"
#include "host/sim/sim_internal.h"

static isoStatus buffer(isoSim *s, size_t bytes, void **out) {
  simSap *p = s->sap;
  if (p->nowned == SAP_MAX_OWNED) return iso_fail(ISO_ERR_CAPACITY, "contact dynamics: too many buffers");
  isoStatus st = backend_alloc(&s->be, out, bytes ? bytes : 1);
  if (st == ISO_OK) p->owned[p->nowned++] = *out;
  return st;
}

static isoStatus upload(isoSim *s, const void *h, size_t bytes, void **out) {
  isoStatus st = buffer(s, bytes, out);
  if (st == ISO_OK) st = backend_upload(&s->be, *out, h, bytes);
  return st;
}

/* The point-contact shape of geometry g from the compiled model; hull vertices (meshes) point
 * into the model's block in the backend's memory. */
static pointShape shape_of(const isoSim *s, int g) {
  pointShape ps;
  memset(&ps, 0, sizeof ps);
  for (int k = 0; k < 3; ++k) ps.size[k] = s->mh.geom_size[3 * g + k];
  switch (s->mh.geom_shape[g]) {
    case ISO_SHAPE_SPHERE: ps.type = POINT_SPHERE; break;
    case ISO_SHAPE_BOX: ps.type = POINT_BOX; break;
    case ISO_SHAPE_CYLINDER: ps.type = POINT_CYLINDER; break;
    case ISO_SHAPE_CAPSULE: ps.type = POINT_CAPSULE; break;
    case ISO_SHAPE_ELLIPSOID: ps.type = POINT_ELLIPSOID; break;
    case ISO_SHAPE_HALFSPACE: ps.type = POINT_HALFSPACE; break;
    default:
      ps.type = POINT_CONVEX;
      ps.nvert = s->mh.point_nvert[g];
      ps.vert = ps.nvert ? s->md.point_vert + 3 * s->mh.point_vert0[g] : NULL;
      break;
  }
  return ps;
}

isoStatus sap_create(isoSim *s, const isoModel *m) {
  simSap *p = (simSap *)calloc(1, sizeof *p);
  if (!p) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  s->sap = p;
  sim_step_ctx_stale(s);
  const modelHydro *h = &m->hydro;
  /* a model in which nothing can touch runs the same stages with no constraint: no shapes,
   * no point pairs, no constraint storage */
  p->enabled = h->npair > 0 || h->nfallback > 0;
  p->solve = s->data_count[SIMD_info] > 0;
  const int ng = p->enabled ? m->ngeom : 0;
  isoStatus st = ISO_OK;
  p->npoint = h->nfallback;
  /* the CPU loops index (world, item) with an int */
  if ((long long)s->nworld * (p->npoint + 1) > 2147483647LL || (long long)s->nworld * s->nv > 2147483647LL)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: %d worlds x %d point-contact pairs is too large a batch",
                    s->nworld, p->npoint);

  /* point-contact shapes; the pairs and geometry bodies are the compiled model's */
  pointShape *shapes = (pointShape *)calloc((size_t)ng + 1, sizeof(pointShape));
  if (!shapes) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  for (int g = 0; g < ng; ++g) shapes[g] = shape_of(s, g);
  st = upload(s, shapes, sizeof(pointShape) * (size_t)(ng + 1), (void **)&p->shape);
  free(shapes);
  if (st != ISO_OK) return st;
  p->point_a = s->md.fallback_a;
  p->point_b = s->md.fallback_b;
  const int *gbody_dev = s->md.geom_body;

  p->mat.geom_body = gbody_dev;
  p->mat.model = s->def.contact.approximation;
  p->mat.legacy = s->def.contact.point_model == ISO_POINT_LEGACY;
  p->mat.radius = (real)s->def.contact.characteristic_radius;
  p->mat.stiction_tolerance = SAP_DEFAULT_STICTION_TOLERANCE;
  p->mat.beta = SAP_DEFAULT_NEAR_RIGID_THRESHOLD;
  p->mat.sigma = SAP_DEFAULT_SIGMA;
  sapBatch *B = &p->batch;
  B->set = sap_default_settings();
  B->set.max_iterations = s->def.solver.max_iterations;
  B->set.rel_tol = s->def.solver.relative_tolerance;
  B->set.freeze_on_failure = s->def.solver.on_failure == ISO_SAP_FREEZE;

  return sap_bind(s);
}

isoStatus sap_bind(isoSim *s) {
  simSap *p = s->sap;
  /* the per-world arrays live in the sim's data table (host/sim/sim_data.h); one clique per
   * free body (kernels/sap/step_items.h), each with a square block of A */
  const size_t ncl = (size_t)s->data_count[SIMD_clique], nA = (size_t)s->data_count[SIMD_A];
  sapBatch *B = &p->batch;
  B->origin = s->origin, B->dv = s->dv, B->stats = s->stats;
  /* deformable cliques follow the rigid DoFs in an iterate of its own (sv); without them the
   * solver iterates on the state's v in place */
  B->nv = s->fem.touch ? (int)s->data_count[SIMD_sv] : s->nv;
  B->max_clique = (int)ncl;
  B->max_A = (int)nA; /* 0: nothing is constrained and no tree has joints (free motion skips A) */
  B->jpool = s->jpool;
  B->con_jac = s->con_jac;
  B->bjac = s->bjac;
  B->con_body = s->con_body;
  B->bjac_stride = s->data_count[SIMD_bjac] ? 6 * s->mh.z.max_nt : 0;
  B->max_bjac = (int)s->data_count[SIMD_bjac];
  B->ncontact = s->ncontact;
  B->max_jpool = (int)s->data_count[SIMD_jpool];
  B->nclique = s->nclique;
  B->clique = s->clique;
  B->max_con = (int)s->data_count[SIMD_con];
  B->v = s->fem.touch ? s->sv : s->v;
  B->fem_con = s->fem_con;
  B->max_fem_con = s->fem.max_con;
  B->fem_ddj = s->fem_ddj;
  B->max_fem_dd = s->fem.dd_max;
  B->vstar = s->vstar;
  B->A = s->A;
  B->con = s->con;
  B->ncon = s->ncon;
  B->list = s->contact->work.list; /* the contact stage is bound first */
  B->max_list = s->contact->work.max_list;
  B->H = s->H;
  B->rhs = s->rhs;
  B->info = s->info;
  B->status = s->status;
  B->work = NULL;
  B->work_per_world = 0;
  /* the solve's workspace (host/step/step_solve.c): on the CPU one world's worth per thread. The
   * GPU, where a thread solves a world, solves without one: a workspace per world (max_con × 624
   * bytes, 160 KB for the stack's 256 constraints) saves forming each constraint's Jacobian
   * again in every pass, but its traffic cost more than that on an H200 (bench/RESULTS.md: 6–31 %
   * fewer world-steps/s on the rigid scenes). ISO_CUDA_SOLVE_WORKSPACE=1 in the environment
   * gives the GPU one per world (the same bits), to measure it again. Sized by max_con, so made
   * again on a re-bind. */
  backend_free(&s->be, p->work);
  p->work = NULL;
  const size_t mc = (size_t)B->max_con;
  if (mc == 0) return ISO_OK;
  if (s->be.kind == ISO_BACKEND_CPU)
    return backend_alloc(&s->be, (void **)&p->work, sizeof(sapWorkCon) * mc * (size_t)s->be.threads);
  const char *e = getenv("ISO_CUDA_SOLVE_WORKSPACE");
  if (!e || strcmp(e, "1") != 0) return ISO_OK;
  const isoStatus st = backend_alloc(&s->be, (void **)&p->work, sizeof(sapWorkCon) * mc * (size_t)s->nworld);
  if (st == ISO_OK) B->work = p->work, B->work_per_world = 1; /* the batch hands it to the kernel as it is */
  return st;
}

void sap_destroy(isoSim *s) {
  simSap *p = s->sap;
  if (!p) return;
  for (int i = 0; i < p->nowned; ++i) backend_free(&s->be, p->owned[i]);
  backend_free(&s->be, p->work);
  free(p);
  s->sap = NULL;
  sim_step_ctx_stale(s);
}
