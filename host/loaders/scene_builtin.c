/* Built-in scenes (include/isobar/scenes.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "isobar/geometry.h"
#include "isobar/scenes.h"

/* splitmix64: a tiny, well-mixed generator, so a world's initial state depends on its index
 * alone. */
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static double unit(uint64_t *s) {
  *s = mix(*s);
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

isoStatus iso_scene_tumbling_model(int nbody, double dt, isoModel **out) {
  CHECK_NULL(out, "iso_scene_tumbling_model");
  if (nbody < 1) return iso_fail(ISO_ERR_INVALID, "iso_scene_tumbling_model: nbody = %d, must be >= 1", nbody);
  isoModelDef md = iso_default_model_def();
  md.time_step = dt;
  isoModel *m = NULL;
  isoStatus st = iso_model_create(&md, &m);
  if (st != ISO_OK) return st;
  /* A solid brick a x b x c: I = m/12·(b²+c², a²+c², a²+b²). */
  const double a = 0.2, b = 0.1, c = 0.05, mass = 1.0;
  for (int i = 0; i < nbody && st == ISO_OK; ++i) {
    isoBodyDef bd = iso_default_body_def();
    bd.mass = mass;
    bd.inertia[0] = mass / 12 * (b * b + c * c);
    bd.inertia[1] = mass / 12 * (a * a + c * c);
    bd.inertia[2] = mass / 12 * (a * a + b * b);
    bd.com[0] = 0.02;
    bd.com[1] = -0.01;
    isoFreeBodyState x = iso_default_free_body_state();
    x.position[0] = 0.5 * i;
    x.position[2] = 1.0;
    int id = -1;
    st = iso_model_add_body(m, &bd, &id);
    if (st == ISO_OK) st = iso_model_set_initial_state(m, id, &x);
  }
  if (st == ISO_OK) st = iso_model_compile(m);
  if (st != ISO_OK) {
    iso_model_destroy(m);
    return st;
  }
  *out = m;
  return ISO_OK;
}

isoStatus iso_scene_tumbling_init(isoSim *sim) {
  CHECK_NULL(sim, "iso_scene_tumbling_init");
  int nw = iso_sim_world_count(sim), nb = iso_sim_body_count(sim), nv = 6 * nb;
  double *v = (double *)calloc((size_t)nw * (size_t)nv + 1, sizeof(double));
  if (!v) return iso_fail(ISO_ERR_NOMEM, "iso_scene_tumbling_init: out of memory");
  for (int w = 0; w < nw; ++w)
    for (int b = 0; b < nb; ++b) {
      uint64_t s = ((uint64_t)w << 20) ^ (uint64_t)b ^ 0x5EEDull;
      double th = 2 * 3.14159265358979323846 * unit(&s), z = 2 * unit(&s) - 1, r = sqrt(1 - z * z);
      double speed = 2 + 6 * unit(&s);
      double *vb = v + (size_t)w * nv + 6 * b;
      vb[0] = speed * r * cos(th);
      vb[1] = speed * r * sin(th);
      vb[2] = speed * z;
      vb[3] = 0.2 * (unit(&s) - 0.5);
      vb[4] = 0.2 * (unit(&s) - 0.5);
      vb[5] = 1.0 + unit(&s);
    }
  isoStatus st = iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v);
  free(v);
  return st;
}

static isoStatus add_body_geom(isoModel *m, const char *name, double mass, const double I[3], isoGeometryDef g) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = name;
  bd.mass = mass;
  bd.inertia[0] = I[0], bd.inertia[1] = I[1], bd.inertia[2] = I[2];
  int id;
  isoStatus st = iso_model_add_body(m, &bd, &id);
  if (st != ISO_OK) return st;
  g.name = name;
  g.body = id;
  return iso_model_add_geometry(m, &g, NULL);
}

isoStatus iso_scene_contact_model(double dt, isoModel **out) {
  CHECK_NULL(out, "iso_scene_contact_model");
  isoModelDef md = iso_default_model_def();
  md.time_step = dt;
  isoModel *m = NULL;
  isoStatus st = iso_model_create(&md, &m);
  if (st != ISO_OK) return st;
  isoGeometryDef g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_HALFSPACE;
  g.name = "ground";
  g.compliance = ISO_COMPLIANCE_RIGID;
  g.mu_static = g.mu_dynamic = 0.6;
  st = iso_model_add_geometry(m, &g, NULL);
  /* compliant box 0.2 x 0.2 x 0.1, 2 kg */
  g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = 0.2, g.size[2] = 0.1;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 2e6;
  g.hunt_crossley_dissipation = 10;
  double Ibox[3] = {2.0 / 12 * 0.05, 2.0 / 12 * 0.05, 2.0 / 12 * 0.08};
  if (st == ISO_OK) st = add_body_geom(m, "box", 2.0, Ibox, g);
  /* compliant ball r = 0.05, 0.3 kg */
  g = iso_default_geometry_def();
  g.size[0] = 0.05;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 5e5;
  g.resolution_hint = 0.04;
  g.hunt_crossley_dissipation = 10;
  double Iball[3] = {0.4 * 0.3 * 0.0025, 0.4 * 0.3 * 0.0025, 0.4 * 0.3 * 0.0025};
  if (st == ISO_OK) st = add_body_geom(m, "ball", 0.3, Iball, g);
  /* point-contact capsule r = 0.03, length 0.12, 0.4 kg */
  g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_CAPSULE;
  g.size[0] = 0.03, g.size[1] = 0.12;
  g.point_stiffness = 2e4;
  g.hunt_crossley_dissipation = 10;
  double Icap[3] = {0.4 / 12 * (3 * 0.0009 + 0.0144) + 0.4 * 0.0009 / 2, 0.4 / 12 * (3 * 0.0009 + 0.0144) + 0.4 * 0.0009 / 2, 0.4 * 0.0009 / 2};
  if (st == ISO_OK) st = add_body_geom(m, "capsule", 0.4, Icap, g);
  /* point-contact brick 0.08 x 0.05 x 0.03, 0.2 kg */
  g = iso_default_geometry_def();
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = 0.08, g.size[1] = 0.05, g.size[2] = 0.03;
  g.point_stiffness = 2e4;
  g.hunt_crossley_dissipation = 10;
  double Ibr[3] = {0.2 / 12 * (0.0025 + 0.0009), 0.2 / 12 * (0.0064 + 0.0009), 0.2 / 12 * (0.0064 + 0.0025)};
  if (st == ISO_OK) st = add_body_geom(m, "brick", 0.2, Ibr, g);
  if (st == ISO_OK) st = iso_model_compile(m);
  if (st != ISO_OK) {
    iso_model_destroy(m);
    return st;
  }
  *out = m;
  return ISO_OK;
}

isoStatus iso_scene_contact_init(isoSim *sim) {
  CHECK_NULL(sim, "iso_scene_contact_init");
  int nw = iso_sim_world_count(sim), nq = iso_sim_state_width(sim, ISO_STATE_Q), nv = iso_sim_state_width(sim, ISO_STATE_V);
  if (nq != 28) return iso_fail(ISO_ERR_INVALID, "iso_scene_contact_init: the sim is not of the contact scene");
  double *q = (double *)calloc((size_t)nw * 28, sizeof(double)), *v = (double *)calloc((size_t)nw * 24, sizeof(double));
  if (!q || !v) {
    free(q), free(v);
    return iso_fail(ISO_ERR_NOMEM, "iso_scene_contact_init: out of memory");
  }
  for (int w = 0; w < nw; ++w) {
    uint64_t s = ((uint64_t)w << 20) ^ 0xC0FFEEull;
    double *x = q + (size_t)w * 28, *u = v + (size_t)w * 24;
    for (int b = 0; b < 4; ++b) x[7 * b] = 1;
    /* box just above the ground, ball above the box, capsule and brick beside it */
    x[4] = 0, x[5] = 0, x[6] = 0.0505;
    x[7 + 4] = 0.03 * (unit(&s) - 0.5), x[7 + 5] = 0.03 * (unit(&s) - 0.5), x[7 + 6] = 0.16 + 0.1 * unit(&s);
    x[14 + 4] = 0.25, x[14 + 5] = 0.1 * (unit(&s) - 0.5), x[14 + 6] = 0.04 + 0.05 * unit(&s);
    double th = 0.7 * unit(&s);
    x[21 + 0] = cos(th), x[21 + 3] = sin(th);
    x[21 + 4] = -0.25, x[21 + 5] = 0.1 * (unit(&s) - 0.5), x[21 + 6] = 0.02 + 0.05 * unit(&s);
    u[6 + 3] = 0.2 * (unit(&s) - 0.5);
    u[12 + 0] = 4 * (unit(&s) - 0.5), u[12 + 3] = 0.3 * (unit(&s) - 0.5);
    u[18 + 2] = 6 * (unit(&s) - 0.5);
  }
  (void)nv;
  isoStatus st = iso_sim_set_state(sim, ISO_STATE_Q, iso_worlds_all(), q);
  if (st == ISO_OK) st = iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v);
  free(q), free(v);
  return st;
}
