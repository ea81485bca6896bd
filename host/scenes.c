/* Built-in scenes (include/isobar/scenes.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/error.h"
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
    bd.position[0] = 0.5 * i;
    bd.position[2] = 1.0;
    st = iso_model_add_body(m, &bd, NULL);
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
