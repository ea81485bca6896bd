#include "support/scene_builders.h"

#include <criterion/criterion.h>
#include <math.h>

static void props(isoGeometryDef *g, double E, double k, double d, double mu, int model) {
  g->compliance = model == TB_HYDRO ? ISO_COMPLIANCE_COMPLIANT : ISO_COMPLIANCE_UNDEFINED;
  g->hydroelastic_modulus = E;
  g->point_stiffness = k;
  g->hunt_crossley_dissipation = d;
  g->mu_static = g->mu_dynamic = mu;
}

int tb_add_block(isoModel *m, const char *name, const tbBlock *b, int model) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = name;
  bd.mass = b->mass;
  const double x = b->size[0], y = b->size[1], z = b->size[2];
  bd.inertia[0] = b->mass / 12 * (y * y + z * z);
  bd.inertia[1] = b->mass / 12 * (x * x + z * z);
  bd.inertia[2] = b->mass / 12 * (x * x + y * y);
  int id;
  cr_assert_eq(iso_model_add_body(m, &bd, &id), ISO_OK, "%s", iso_last_error());
  isoGeometryDef g = iso_default_geometry_def();
  g.name = name;
  g.body = id;
  g.shape = ISO_SHAPE_BOX;
  for (int k = 0; k < 3; ++k) g.size[k] = b->size[k];
  props(&g, b->E, b->k, b->d, b->mu, model);
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  return id;
}

int tb_add_ball(isoModel *m, const char *name, double radius, double mass, double E, double k, double d,
                double mu, double hint, int model) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = name;
  bd.mass = mass;
  bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * mass * radius * radius;
  int id;
  cr_assert_eq(iso_model_add_body(m, &bd, &id), ISO_OK, "%s", iso_last_error());
  isoGeometryDef g = iso_default_geometry_def();
  g.name = name;
  g.body = id;
  g.size[0] = radius;
  g.resolution_hint = hint;
  props(&g, E, k, d, mu, model);
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  return id;
}

int tb_add_ground(isoModel *m, double mu, int model) {
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ground";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = model == TB_HYDRO ? ISO_COMPLIANCE_RIGID : ISO_COMPLIANCE_UNDEFINED;
  g.point_stiffness = INFINITY;
  g.mu_static = g.mu_dynamic = mu;
  int id;
  cr_assert_eq(iso_model_add_geometry(m, &g, &id), ISO_OK, "%s", iso_last_error());
  return id;
}

isoSim *tb_sim(isoModel *m, int worlds, int threads, isoContactApproximation approximation) {
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.contact.approximation = approximation;
  sd.capacity.max_candidates = 4096;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

void tb_place(isoSim *s, int w, int b, double x, double y, double z) {
  int nq = iso_sim_state_width(s, ISO_STATE_Q), nv = iso_sim_state_width(s, ISO_STATE_V);
  double q[7 * 64], v[6 * 64] = {0};
  cr_assert(nq <= 7 * 64);
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), q);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), v);
  double *qb = q + 7 * b;
  qb[0] = 1, qb[1] = qb[2] = qb[3] = 0, qb[4] = x, qb[5] = y, qb[6] = z;
  for (int k = 0; k < 6; ++k) v[6 * b + k] = 0;
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(w), v), ISO_OK);
  (void)nv;
}

isoModel *tb_balls_and_brick(void) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  const char *names[3] = {"ball1", "ball2", "brick"};
  for (int i = 0; i < 3; ++i) {
    isoBodyDef b = iso_default_body_def();
    b.name = names[i];
    iso_model_add_body(m, &b, NULL);
    isoGeometryDef g = iso_default_geometry_def();
    g.name = names[i];
    g.body = i;
    g.shape = i == 2 ? ISO_SHAPE_BOX : ISO_SHAPE_SPHERE;
    g.size[0] = i == 2 ? 0.12 : 0.05;
    g.size[1] = 0.08, g.size[2] = 0.06;
    g.compliance = i == 2 ? ISO_COMPLIANCE_RIGID : ISO_COMPLIANCE_COMPLIANT;
    g.hydroelastic_modulus = 1e5 * (i + 1);
    g.resolution_hint = 0.025;
    cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  }
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "ground";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_RIGID;
  iso_model_add_geometry(m, &g, NULL);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}
