/* Build a scene through the C API and step a batch of worlds: a rigid floor and four compliant
 * boxes with Drake's proximity properties, 64 worlds, each world dropping its boxes from its
 * own height. After 1 s every box has landed and come to rest on the floor: the program prints,
 * for a few worlds, a box's height (its half height minus the hydroelastic sinking) and the
 * contact force holding it against its weight. The same scene as a file is
 * examples/compliant_box_on_plane.sdf with more boxes; `isobar run` loads such files.
 * Build: cmake --build build (target example_falling_boxes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "isobar/isobar.h"

#define NBOX 4
#define NWORLD 64
#define MASS 1.0 /* kg per box */

static int check(isoStatus st, const char *what) {
  if (st == ISO_OK) return 0;
  fprintf(stderr, "falling_boxes: %s: %s (%s)\n", what, iso_last_error(), iso_status_string(st));
  return 1;
}

int main(void) {
  isoModelDef md = iso_default_model_def(); /* gravity (0, 0, -9.81), step 1 ms */
  isoModel *model = NULL;
  if (check(iso_model_create(&md, &model), "creating the model")) return 1;

  /* The floor: a rigid half-space anchored to the world (its outward normal is +z). */
  isoGeometryDef floor_def = iso_default_geometry_def();
  floor_def.name = "floor";
  floor_def.body = ISO_WORLD_BODY;
  floor_def.shape = ISO_SHAPE_HALFSPACE;
  floor_def.compliance = ISO_COMPLIANCE_RIGID;
  floor_def.mu_static = floor_def.mu_dynamic = 0.5;
  int bad = check(iso_model_add_geometry(model, &floor_def, NULL), "adding the floor");

  /* Four 10 cm boxes of 1 kg, side by side (their heights are set per world below). */
  for (int i = 0; i < NBOX && !bad; ++i) {
    char name[32];
    snprintf(name, sizeof name, "box%d", i);
    isoBodyDef b = iso_default_body_def();
    b.name = name;
    b.mass = MASS;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = 1.0 * 0.1 * 0.1 / 6; /* m s² / 6 */
    int id;
    bad = check(iso_model_add_body(model, &b, &id), "adding a box");
    if (bad) break;
    isoFreeBodyState x = iso_default_free_body_state(); /* at rest, upright */
    x.position[0] = 0.2 * i;
    x.position[2] = 0.5;
    bad = check(iso_model_set_initial_state(model, id, &x), "placing a box");
    if (bad) break;
    isoGeometryDef g = iso_default_geometry_def();
    g.name = name;
    g.body = id;
    g.shape = ISO_SHAPE_BOX;
    g.size[0] = g.size[1] = g.size[2] = 0.1;
    g.compliance = ISO_COMPLIANCE_COMPLIANT;
    g.hydroelastic_modulus = 5e6; /* Pa: a firm rubber */
    g.hunt_crossley_dissipation = 5.0;
    g.mu_static = g.mu_dynamic = 0.5;
    bad = check(iso_model_add_geometry(model, &g, NULL), "adding a box's geometry");
  }
  if (bad || check(iso_model_compile(model), "compiling")) {
    iso_model_destroy(model);
    return 1;
  }

  isoSimDef sd = iso_default_sim_def();
  sd.worlds = NWORLD;
  sd.backend = ISO_BACKEND_AUTO;
  isoSim *sim = NULL;
  bad = check(iso_sim_create(model, &sd, &sim), "creating the sim");
  iso_model_destroy(model); /* the sim keeps what it needs */
  if (bad) return 1;

  /* World k drops its boxes from 0.1 + 0.002 k m: q = [qw qx qy qz px py pz] per body. */
  int nq = iso_sim_state_width(sim, ISO_STATE_Q);
  double *q = (double *)malloc(sizeof(double) * (size_t)NWORLD * (size_t)nq);
  if (!q) return 1;
  bad = check(iso_sim_get_state(sim, ISO_STATE_Q, iso_worlds_all(), q), "reading q");
  for (int k = 0; k < NWORLD && !bad; ++k)
    for (int i = 0; i < NBOX; ++i) q[(size_t)k * nq + 7 * i + 6] = 0.1 + 0.002 * k;
  if (!bad) bad = check(iso_sim_set_state(sim, ISO_STATE_Q, iso_worlds_all(), q), "setting q");

  const int steps = 1000;
  for (int s = 0; s < steps && !bad; ++s) bad = check(iso_sim_step(sim), "stepping");
  if (!bad) bad = check(iso_sim_get_state(sim, ISO_STATE_Q, iso_worlds_all(), q), "reading q");
  if (!bad) {
    double t = steps * iso_sim_time_step(sim);
    printf("%d worlds of %d boxes on the %s backend, t = %.3f s\n", NWORLD, NBOX,
           iso_backend_name(iso_sim_backend(sim)), t);
    printf("world  dropped from (m)  box0 z (m)  contact force on box0 (N)  weight (N)  contacts\n");
    int show[4] = {0, 1, 30, NWORLD - 1};
    for (int j = 0; j < 4 && !bad; ++j) {
      int k = show[j], n = 0;
      double w[6];
      bad = check(iso_sim_get_body_contact_wrench(sim, k, 0, w), "reading a contact wrench");
      if (!bad) bad = check(iso_sim_contact_count(sim, k, &n), "counting contacts");
      if (!bad)
        printf("%5d  %16.3f  %10.6f  %25.4f  %10.4f  %8d\n", k, 0.1 + 0.002 * k, q[(size_t)k * nq + 6], w[5],
               MASS * 9.81, n);
    }
  }
  free(q);
  iso_sim_destroy(sim);
  return bad;
}
