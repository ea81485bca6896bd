/* Contact-dynamics results of include/isobar/contact.h: constraints with their impulses, net
 * wrenches per body, solver statistics. Read from the backend after a step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/step/contact_internal.h"
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
  return backend_download(&s->be, count, s->ncontact + world, sizeof(int)); /* contacts come first */
}

/* World `world`'s cliques (ncl of them, at most the batch's max_clique). */
static isoStatus cliques(const isoSim *s, int world, sapClique *cl, int *ncl) {
  const sapBatch *B = &s->sap->batch;
  isoStatus st = backend_download(&s->be, ncl, B->nclique + world, sizeof(int));
  if (st == ISO_OK && (*ncl < 0 || *ncl > B->max_clique)) *ncl = 0; /* not yet written by a step */
  if (st == ISO_OK && *ncl > 0)
    st = backend_download(&s->be, cl, B->clique + (long)B->max_clique * world, sizeof(sapClique) * (size_t)*ncl);
  return st;
}

/* Room for a constraint's dense blocks (3 rows of the largest tree), when the model has joints. */
static isoStatus dense_scratch(const isoSim *s, real *dense[2], const char *fn) {
  const size_t n = 3 * (size_t)s->mh.z.max_nt + 1;
  dense[0] = (real *)malloc(sizeof(real) * n);
  dense[1] = (real *)malloc(sizeof(real) * n);
  if (!dense[0] || !dense[1]) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  return ISO_OK;
}

/* Constraint i of a world: the constraint, its record, its Jacobian data as the step built it
 * and its impulse at the world's velocities v (nv), which after a step are the solved ones:
 * the impulse the solver's last evaluation gave (kernels/sap/solve.h recomputes rather than
 * stores it). cl: the world's cliques. */
static isoStatus constraint(const isoSim *s, int world, int i, const sapClique *cl, const real *v, sapCon *c,
                            contactRec *r, sapJac *j, real g[3], real *dense[2]) {
  const sapBatch *B = &s->sap->batch;
  isoStatus st = backend_download(&s->be, c, B->con + (long)world * B->max_con + i, sizeof *c);
  if (st == ISO_OK) st = backend_download(&s->be, r, B->list + (long)world * B->max_list + c->contact, sizeof *r);
  real o[2][3] = {{0, 0, 0}, {0, 0, 0}};
  for (int k = 0; k < 2 && st == ISO_OK; ++k)
    if (c->clique[k] >= 0)
      st = backend_download(&s->be, o[k], B->origin + 3L * ((long)B->max_clique * world + c->clique[k]), sizeof o[k]);
  if (st != ISO_OK) return st;
  vec3 ov[2] = {v3(o[0][0], o[0][1], o[0][2]), v3(o[1][0], o[1][1], o[1][2])};
  *j = sap_jac_make(c, r->point, r->normal, ov);
  if (c->block[0] == SAP_BLOCK_DENSE || c->block[1] == SAP_BLOCK_DENSE) { /* on a jointed tree */
    int off = 0;
    st = backend_download(&s->be, &off, B->con_jac + (long)world * B->max_con + i, sizeof off);
    for (int q = 0; q < 2 && st == ISO_OK; ++q) {
      if (c->clique[q] < 0 || c->block[q] != SAP_BLOCK_DENSE) continue;
      const int n = c->rows * cl[c->clique[q]].nv;
      real *J = dense[q];
      st = backend_download(&s->be, J, B->jpool + (long)world * B->max_jpool + off, sizeof(real) * (size_t)n);
      j->Jd[q] = J;
      off += n;
    }
    if (st != ISO_OK) return st;
  }
  sap_con_eval(c, j, cl, v, g, (real *)0);
  return ISO_OK;
}

/* A constraint of the public API: its record in the contact list says what touched where; the
 * constraint gives the frame, the bodies and the stiffness; γ the impulse. */
static void to_public(const isoSim *s, const sapCon *c, const contactRec *r, const sapJac *j, const real g[3], real dt,
                      isoContactResult *o) {
  memset(o, 0, sizeof *o);
  const int face = !contact_is_point(r);
  o->kind = face ? ISO_CONSTRAINT_FACE : ISO_CONSTRAINT_POINT;
  o->geometry_a = r->geom_m, o->geometry_b = r->geom_n;
  o->body_a = s->mh.geom_body[r->geom_m], o->body_b = s->mh.geom_body[r->geom_n];
  o->face = face ? c->contact : -1;
  o->point[0] = r->point.x, o->point[1] = r->point.y, o->point[2] = r->point.z;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) o->frame[3 * i + k] = j->R_WC.m[i][k];
  vec3 fw = v3_zero();
  for (int k = 0; k < 3; ++k) {
    o->impulse[k] = g[k];
    o->force[k] = g[k] / dt;
    fw = v3_axpy(fw, g[k] / dt, m3_col(j->R_WC, k));
  }
  o->force_world[0] = fw.x, o->force_world[1] = fw.y, o->force_world[2] = fw.z;
  o->area = r->area;
  if (face && r->area > 0) {
    o->pressure = g[2] / (dt * r->area);
    o->traction[0] = fw.x / r->area, o->traction[1] = fw.y / r->area, o->traction[2] = fw.z / r->area;
  }
  /* φ0 as the constraint was built from the record (kernels/contact/build.h); k is kept in
   * the law's data for every approximation */
  real k = c->data.k, phi0 = 0, fe0;
  if (face) sap_hydro_face_params(r->area, r->p0, r->gM, r->gN, &k, &phi0, &fe0);
  else sap_point_pair_config(r->p0, k, &phi0, &fe0);
  o->phi0 = phi0;
  o->stiffness = c->data.k;
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
  real *v = (real *)malloc(sizeof(real) * (size_t)(s->nv + 1));
  sapClique *cl = (sapClique *)malloc(sizeof(sapClique) * (size_t)(s->sap->batch.max_clique + 1));
  if (!v || !cl) {
    free(v), free(cl);
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  }
  int ncl = 0;
  real *dense[2] = {NULL, NULL};
  st = dense_scratch(s, dense, fn);
  if (st == ISO_OK) st = backend_download(&s->be, v, s->v + (long)world * s->nv, sizeof(real) * (size_t)s->nv);
  if (st == ISO_OK && n > 0) st = cliques(s, world, cl, &ncl);
  for (int i = 0; i < n && i < cap && st == ISO_OK; ++i) {
    sapCon c;
    contactRec r;
    sapJac j;
    real g[3];
    st = constraint(s, world, i, cl, v, &c, &r, &j, g, dense);
    if (st == ISO_OK) to_public(s, &c, &r, &j, g, s->dt, out + i);
  }
  free(v), free(cl), free(dense[0]), free(dense[1]);
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
  real *gen = (real *)calloc((size_t)s->nv + 1, sizeof(real));
  real *v = (real *)malloc(sizeof(real) * (size_t)(s->nv + 1));
  sapClique *cl = (sapClique *)malloc(sizeof(sapClique) * (size_t)(s->sap->batch.max_clique + 1));
  if (!gen || !v || !cl) {
    free(gen), free(v), free(cl);
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  }
  int ncl = 0;
  real *dense[2] = {NULL, NULL};
  if (st == ISO_OK) st = dense_scratch(s, dense, fn);
  if (st == ISO_OK) st = backend_download(&s->be, v, s->v + (long)world * s->nv, sizeof(real) * (size_t)s->nv);
  if (st == ISO_OK && n > 0) st = cliques(s, world, cl, &ncl);
  const int jointed = s->mh.z.jointed;
  xform X = xf_identity(); /* the body's pose at the step's start: where its contacts were built */
  if (st == ISO_OK && jointed && n > 0) st = backend_download(&s->be, &X, s->X_WB + (long)world * s->nbody + body, sizeof X);
  for (int i = 0; i < n && st == ISO_OK; ++i) {
    sapCon c;
    contactRec r;
    sapJac j;
    real g[3];
    st = constraint(s, world, i, cl, v, &c, &r, &j, g, dense);
    if (st != ISO_OK) break;
    if (!jointed) {
      /* Jᵀγ on a free body's clique is [r × f, f] with f = R_WC·γ: the torque about the origin
       * and the force */
      sap_con_apply_t(&j, cl, g, 1 / s->dt, gen);
      continue;
    }
    /* on a tree the generalized impulse is not a wrench: sum the contact forces on the body and
     * their moments about its origin directly (B receives +f, A −f) */
    const int side = s->mh.geom_body[r.geom_n] == body ? 1 : s->mh.geom_body[r.geom_m] == body ? -1 : 0;
    if (side == 0 || s->mh.geom_body[r.geom_n] == s->mh.geom_body[r.geom_m]) continue;
    vec3 f = v3_zero();
    for (int k = 0; k < 3; ++k) f = v3_axpy(f, side * g[k] / s->dt, m3_col(j.R_WC, k));
    vec3 t = v3_cross(v3_sub(r.point, X.p), f);
    wrench[0] += t.x, wrench[1] += t.y, wrench[2] += t.z;
    wrench[3] += f.x, wrench[4] += f.y, wrench[5] += f.z;
  }
  /* free body b is clique b; its DoFs are [ω, v], so its generalized impulse is the wrench */
  if (st == ISO_OK && !jointed && body < ncl)
    for (int k = 0; k < 6; ++k) wrench[k] = gen[cl[body].v0 + k];
  free(dense[0]), free(dense[1]);
  free(gen), free(v), free(cl);
  return st;
}

isoStatus iso_sim_get_solver_stats(const isoSim *s, int world, isoSolverStats *out) {
  const char *fn = "iso_sim_get_solver_stats";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  isoStatus st = check(s, world, fn);
  if (st != ISO_OK) return st;
  memset(out, 0, sizeof *out);
  if (!s->sap->solve) return ISO_OK;
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
