/* The compiled model (host/model/model_flat.h): the flat arrays say what the builder was told,
 * with Drake's estimates where a material was left unset; asset offsets tile the concatenated
 * arrays; a view bound at a copy of the block reads the same values; and a sim keeps its own
 * copy, so it runs on after its model is destroyed (ASan checks the "after"). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "host/model/model_internal.h"
#include "kernels/contact/combine.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"

static isoModel *contact_model(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_contact_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  return m;
}

Test(model_compile, flat_arrays_match_the_definitions) {
  isoModel *m = contact_model();
  modelView v;
  model_view_bind(&m->flat, m->flat.arena.base, &v);
  cr_assert_eq(v.z.nbody, iso_model_body_count(m));
  for (int b = 0; b < v.z.nbody; ++b) {
    isoBodyDef bd;
    isoFreeBodyState x;
    cr_assert_eq(iso_model_get_body(m, b, &bd), ISO_OK);
    cr_assert_eq(iso_model_get_initial_state(m, b, &x), ISO_OK);
    cr_expect_eq(v.body_mass[b], bd.mass);
    for (int k = 0; k < 3; ++k) cr_expect_eq(v.q0[7 * b + 4 + k], x.position[k]);
    for (int k = 0; k < 4; ++k) cr_expect_eq(v.q0[7 * b + k], x.quaternion[k]);
    for (int k = 0; k < 3; ++k) cr_expect_eq(v.v0[6 * b + k], x.angular_velocity[k]);
    for (int k = 0; k < 3; ++k) cr_expect_eq(v.v0[6 * b + 3 + k], x.linear_velocity[k]);
    for (int k = 0; k < 6; ++k) cr_expect_eq(v.body_inertia[6 * b + k], bd.inertia[k]);
  }
  int estimated = 0;
  for (int g = 0; g < v.z.ngeom; ++g) {
    isoGeometryDef gd;
    cr_assert_eq(iso_model_get_geometry(m, g, &gd), ISO_OK);
    cr_expect_eq(v.geom_body[g], gd.body);
    cr_expect_eq(v.geom_shape[g], (int)gd.shape);
    cr_expect_eq(v.geom_E[g], gd.hydroelastic_modulus);
    cr_expect_eq(v.geom_mu[2 * g], gd.mu_static);
    /* unset materials get one estimate for the whole model; set ones are copied */
    if (isnan(gd.hunt_crossley_dissipation)) {
      cr_expect(isfinite(v.geom_d[g]) && v.geom_d[g] > 0);
      estimated++;
    } else {
      cr_expect_eq(v.geom_d[g], gd.hunt_crossley_dissipation);
    }
    if (gd.point_stiffness == 0) cr_expect(v.geom_k[g] > 0);
    else cr_expect_eq(v.geom_k[g], gd.point_stiffness);
  }
  (void)estimated;
  /* asset ranges follow each other exactly and end at the totals */
  long e_end = 0, n_end = 0;
  for (int a = 0; a < v.z.nasset; ++a) {
    cr_expect_eq(v.asset_elem0[a], e_end);
    cr_expect_eq(v.asset_node0[a], n_end);
    n_end += v.asset_nnode[a];
    e_end = a + 1 < v.z.nasset ? v.asset_elem0[a + 1] : v.z.nelem;
  }
  cr_expect_eq(n_end, v.z.nnode);
  /* the pair tables agree with what sims report */
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, NULL, &s), ISO_OK, "%s", iso_last_error());
  for (int p = 0; p < v.z.npair; ++p) {
    isoPairKind k;
    cr_assert_eq(iso_sim_pair_kind(s, v.pair_m[p], v.pair_n[p], &k), ISO_OK);
    cr_expect_eq((int)k, v.pair_kind[p]);
  }
  for (int p = 0; p < v.z.nfallback; ++p) {
    isoPairKind k;
    cr_assert_eq(iso_sim_pair_kind(s, v.fallback_a[p], v.fallback_b[p], &k), ISO_OK);
    cr_expect_eq(k, ISO_PAIR_POINT_FALLBACK);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Materials left unset (NaN dissipation, zero stiffness) get the penetration-allowance estimates
 * of reference §4.4, computed once per model from the heaviest body's mass, the gravity's norm
 * and the model's allowance; materials that were set are copied untouched. */
Test(model_compile, unset_materials_get_the_estimates) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoBodyDef b = iso_default_body_def();
  b.name = "block";
  b.mass = 3.0;
  cr_assert_eq(iso_model_add_body(m, &b, NULL), ISO_OK);
  isoGeometryDef g = iso_default_geometry_def();
  g.body = 0;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = g.size[2] = 0.1;
  g.hunt_crossley_dissipation = NAN;
  g.point_stiffness = 0;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  isoGeometryDef ground = iso_default_geometry_def();
  ground.shape = ISO_SHAPE_HALFSPACE;
  cr_assert_eq(iso_model_add_geometry(m, &ground, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  modelView v;
  model_view_bind(&m->flat, m->flat.arena.base, &v);
  isoModelDef md;
  cr_assert_eq(iso_model_get_def(m, &md), ISO_OK);
  double gn = sqrt(md.gravity[0] * md.gravity[0] + md.gravity[1] * md.gravity[1] + md.gravity[2] * md.gravity[2]);
  real k, d;
  sap_penetration_allowance_params(3.0, gn, md.penetration_allowance, &k, &d, NULL);
  cr_expect_eq(v.geom_k[0], k, "estimate %g, flat %g", k, v.geom_k[0]);
  cr_expect_eq(v.geom_d[0], d);
  cr_expect(isfinite(v.geom_d[0]) && v.geom_d[0] > 0);
  cr_expect_eq(v.geom_d[1], 50.0); /* the ground's was set (the default) */
  iso_model_destroy(m);
}

Test(model_compile, a_copy_reads_the_same_and_owns_its_block) {
  isoModel *m = contact_model();
  modelFlat c;
  cr_assert_eq(model_flat_copy(&m->flat, &c), ISO_OK);
  cr_assert_neq(c.arena.base, m->flat.arena.base);
  cr_assert_eq(memcmp(c.arena.base, m->flat.arena.base, m->flat.arena.size), 0);
  modelView a, b;
  model_view_bind(&m->flat, m->flat.arena.base, &a);
  model_view_bind(&c, c.arena.base, &b);
  cr_expect_eq(memcmp(a.vert, b.vert, sizeof(real) * 3 * (size_t)a.z.nvert), 0);
  cr_expect_eq(memcmp(a.node, b.node, sizeof(bvhNode) * (size_t)a.z.nnode), 0);
  cr_expect_eq((const char *)b.vert - c.arena.base, (const char *)a.vert - m->flat.arena.base);
  iso_model_destroy(m);
  model_flat_free(&c);
}

Test(model_compile, a_sim_outlives_its_model) {
  isoModel *m = contact_model();
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 3;
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  double q0[64];
  cr_assert_leq(iso_sim_state_width(s, ISO_STATE_Q), 64);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(1), q0), ISO_OK);
  iso_model_destroy(m);
  for (int i = 0; i < 20; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_reset(s, iso_worlds_one(1)), ISO_OK);
  double q1[64];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(1), q1), ISO_OK);
  cr_expect_eq(memcmp(q0, q1, sizeof(double) * (size_t)iso_sim_state_width(s, ISO_STATE_Q)), 0,
               "reset restores the model's initial state from the sim's own copy");
  iso_sim_destroy(s);
}
