/* The legacy point model (seed 004, "Drake Contact Implementation"): the combination rules and
 * the contact point with known values, a box resting on a plane sinking x = W/(2·E·R), the
 * model's default material and characteristic radius, and per-world randomisation of E through
 * the same parameter as today's model. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "kernels/contact/combine.h"
#include "support/scene_builders.h"
#include "support/support.h"

static const double G = 9.81;

/* ---- combination rules ------------------------------------------------------------------------ */

Test(contact_legacy, squish_factors_and_combined_values) {
  real sM, sN;
  /* E_M = 1e8, E_N = 3e8: s_M = 3/4, s_N = 1/4 (the softer M takes three quarters) */
  sap_legacy_squish(1e8, 3e8, &sM, &sN);
  cr_expect_float_eq(sM, 0.75, 1e-15);
  cr_expect_float_eq(sN, 0.25, 1e-15);
  cr_expect_float_eq(sM + sN, 1.0, 1e-15);
  /* E = s_M·E_M = s_N·E_N = 7.5e7 */
  cr_expect_float_eq(sap_legacy_modulus(1e8, 3e8), 7.5e7, 1e-15 * 7.5e7);
  cr_expect_float_eq(sap_legacy_modulus(3e8, 1e8), 7.5e7, 1e-15 * 7.5e7, "symmetric");
  cr_expect_float_eq(sN * 3e8, 7.5e7, 1e-15 * 7.5e7);
  /* equal moduli: E = E_M/2 (seed 004) */
  cr_expect_eq(sap_legacy_modulus(2e7, 2e7), 1e7);
  /* d = s_M·d_M + s_N·d_N = 0.75·0.2 + 0.25·1.0 = 0.4 */
  cr_expect_float_eq(sap_legacy_dissipation(1e8, 3e8, 0.2, 1.0), 0.4, 1e-15);
  cr_expect_float_eq(sap_legacy_dissipation(3e8, 1e8, 1.0, 0.2), 0.4, 1e-15, "symmetric");
  /* μ = 2μ_Mμ_N/(μ_M + μ_N): 2·0.6·0.3/0.9 = 0.4; the defaults 0.9, 0.5 pair with themselves */
  cr_expect_float_eq(sap_combine_friction(0.6, 0.3), 0.4, 1e-15);
  cr_expect_float_eq(sap_combine_friction(0.9, 0.9), 0.9, 1e-15);
  cr_expect_float_eq(sap_combine_friction(0.9, 0.5), 0.9 / 1.4, 1e-15);
  cr_expect_eq(sap_combine_friction(0, 0), 0.0);
  /* k = 2·E·R: 2·7.5e7·2e-4 = 3e4 N/m */
  cr_expect_float_eq(sap_legacy_stiffness(1e8, 3e8, 2e-4), 3e4, 1e-15 * 3e4);
  /* the defaults of Drake's 2018 rigid_body_plant */
  cr_expect_eq(SAP_LEGACY_YOUNGS_MODULUS, 1e8);
  cr_expect_eq(SAP_LEGACY_DISSIPATION, 0.32);
  cr_expect_eq(SAP_LEGACY_STATIC_FRICTION, 0.9);
  cr_expect_eq(SAP_LEGACY_DYNAMIC_FRICTION, 0.5);
  cr_expect_eq(SAP_LEGACY_CHARACTERISTIC_RADIUS, 2e-4);
  isoSimDef sd = iso_default_sim_def();
  cr_expect_eq(sd.contact.point_model, ISO_POINT_DRAKE, "today's model stays the default");
  cr_expect_eq(sd.contact.characteristic_radius, 2e-4);
  cr_expect_eq(sd.contact.legacy_youngs_modulus, 1e8);
  cr_expect_eq(sd.contact.legacy_dissipation, 0.32);
  cr_expect_eq(sd.contact.legacy_static_friction, 0.9);
  cr_expect_eq(sd.contact.legacy_dynamic_friction, 0.5);
}

Test(contact_legacy, contact_point_weights) {
  real wM, wN;
  /* C = M_c·s_N + N_c·s_M: with s_M = 3/4, M_c weighs 1/4 */
  sap_legacy_point_weights(1e8, 3e8, &wM, &wN);
  cr_expect_float_eq(wM, 0.25, 1e-15);
  cr_expect_float_eq(wN, 0.75, 1e-15);
  /* equal moduli: the midpoint */
  sap_legacy_point_weights(5e7, 5e7, &wM, &wN);
  cr_expect_eq(wM, 0.5);
  cr_expect_eq(wN, 0.5);
  /* rigid M (steel, 2e11 Pa) against foam N (1e4 Pa): the foam takes all the deformation
     (s_N → 1), so C lies on M_c, the rigid body's surface */
  sap_legacy_point_weights(2e11, 1e4, &wM, &wN);
  cr_expect_float_eq(wM, 1.0, 1e-7);
  cr_expect_leq(wN, 1e-7);
  sap_legacy_point_weights(1e4, 2e11, &wM, &wN);
  cr_expect_float_eq(wN, 1.0, 1e-7, "and the other way round");
}

/* A foam ball pressed 1 mm into a rigid ground, one step: the constraint's point lies on the
 * ground's surface (z = 0, not the ball's deepest point z = −1 mm) and its stiffness is 2·E·R. */
Test(contact_legacy, foam_on_rigid_point_is_on_the_rigid_surface) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  const double Ef = 1e4, Eg = 2e11, R = 2e-4;
  tb_add_ball(m, "foam", 0.05, 0.1, Ef, 1e6, 0.5, 0.5, 0.02, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT);
  isoGeometryDef g;
  iso_model_get_geometry(m, 1, &g);
  cr_assert_eq(g.shape, ISO_SHAPE_HALFSPACE);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.contact.point_model = ISO_POINT_LEGACY;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  /* the ground (a tb_add_ground geometry) gives the steel modulus per world */
  double v = Eg;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_MODULUS, 1, iso_worlds_all(), &v), ISO_OK);
  tb_place(s, 0, 0, 0, 0, 0.05 - 1e-3);
  cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  isoContactResult c[4];
  int n = 0;
  cr_assert_eq(iso_sim_get_contact_results(s, 0, c, 4, &n), ISO_OK);
  cr_assert_eq(n, 1);
  cr_expect_float_eq(c[0].point[2], 0.0, 1e-3 * 1e-7, "C z = %.3g: on the rigid surface", c[0].point[2]);
  cr_expect_float_eq(c[0].phi0, -1e-3, 1e-12);
  const double E = Ef * Eg / (Ef + Eg);
  cr_expect_float_eq(c[0].stiffness, 2 * E * R, 1e-12 * 2 * E * R, "k %.9g", c[0].stiffness);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* ---- a box resting on a plane ------------------------------------------------------------------ */

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "step %d: %s", i, iso_last_error());
}

static void box_z(isoSim *s, int w, double *z, double *vz) {
  double q[7 * 4], v[6 * 4];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), q);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), v);
  *z = q[6];
  *vz = v[5];
}

/* The sinking at rest. With the box still, ẋ = 0 and the Hunt–Crossley factor (1 + d·ẋ) is 1,
 * so the discrete normal impulse δt·k·x balances the weight's δt·W exactly: x = W/k with
 * k = 2·E·R. What is left is (a) the solver's relative stopping tolerance, 1e-6 of the impulse,
 * and (b) what remains of the settling motion after 3 s: near rest the Hunt–Crossley damping is
 * k·x·d = W·d, a damping ratio W·d/(2·m·ω) = g·d/(2ω) of 0.8–1 for d = 20 s/m at
 * ω = √(k/m) ≈ 100–130 rad/s, so the transient has decayed by about e^-250 (the implicit step
 * damps it further). 1e-5 of x covers (a) with a margin of ten. */
#define SINK_RTOL 1e-5

Test(contact_legacy, box_on_plane_sinks_W_over_2ER) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  /* E is the hydroelastic_modulus field, read as Young's modulus; both sides give theirs */
  tbBlock b = {{0.2, 0.16, 0.1}, 2.0, 1e8, 1e6, 20, 0.5};
  tb_add_block(m, "box", &b, TB_POINT);
  tb_add_ground(m, 0.5, TB_POINT);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  sd.worlds = 3;
  sd.contact.point_model = ISO_POINT_LEGACY;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  /* per-world randomisation of the box's E through today's parameter */
  const double Ebox[3] = {1e8, 2e8, 4e8}, Eground = 1e8, R = 2e-4;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_MODULUS, 0, iso_worlds_all(), Ebox), ISO_OK, "%s",
               iso_last_error());
  /* the ground: a geometry of the C API keeps its own values (legacy_given = ISO_LEGACY_ALL), so
     it gets the legacy era's modulus and the box's dissipation here */
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_MODULUS, 1, iso_worlds_all(), (double[]){Eground, Eground, Eground}),
               ISO_OK);
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_DISSIPATION, 1, iso_worlds_all(), (double[]){20, 20, 20}), ISO_OK);
  for (int w = 0; w < 3; ++w) tb_place(s, w, 0, 0, 0, 0.05);
  run(s, 3000);
  const double W = b.mass * G;
  for (int w = 0; w < 3; ++w) {
    uint32_t st;
    iso_sim_get_status(s, iso_worlds_one(w), &st);
    cr_assert_eq(st, 0u, "world %d status %#x", w, st);
    int n;
    iso_sim_contact_count(s, w, &n);
    cr_assert_eq(n, 1, "a flat box on a plane is one point contact");
    double z, vz;
    box_z(s, w, &z, &vz);
    const double E = Ebox[w] * Eground / (Ebox[w] + Eground);
    const double x = W / (2 * E * R);
    cr_expect_float_eq(0.05 - z, x, SINK_RTOL * x, "world %d: sinking %.9g vs W/(2ER) = %.9g", w, 0.05 - z, x);
    cr_expect_lt(fabs(vz), 1e-6, "world %d at rest: vz %g", w, vz);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The same from a scene file: the box's <drake_compliance> gives E = 4e8 Pa and d = 20 s/m, the
 * plane none, so it takes the default material (1e8 Pa, 0.32 s/m): E = 8e7 Pa, k = 2·E·R. A
 * larger R is given on the sim, as the tool's --characteristic-radius would. */
Test(contact_legacy, tagged_file_box_sinks_with_the_default_ground) {
  isoLoadOptions o = iso_default_load_options();
  isoModel *m = NULL;
  const char *path = test_source_path("tests/data/scenes/legacy_box.sdf");
  cr_assert_eq(iso_scene_load(path, &o, &m, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.contact.point_model = ISO_POINT_LEGACY;
  sd.contact.characteristic_radius = 5e-4;
  sd.threads = 1;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  int box;
  cr_assert_eq(iso_scene_find_body(m, "box::box", &box), ISO_OK, "%s", iso_last_error());
  run(s, 3000);
  double q[7 * 4];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q);
  const double E = 4e8 * 1e8 / 5e8, x = 2.0 * G / (2 * E * 5e-4);
  cr_expect_float_eq(0.05 - q[7 * box + 6], x, SINK_RTOL * x, "sinking %.9g vs %.9g", 0.05 - q[7 * box + 6], x);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(contact_legacy, sim_def_is_checked_only_for_the_legacy_model) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.2, 0.16, 0.1}, 2.0, 1e8, 1e6, 20, 0.5};
  tb_add_block(m, "box", &b, TB_POINT);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.contact.characteristic_radius = 0; /* unused by today's model */
  isoSim *s = NULL;
  cr_expect_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  iso_sim_destroy(s);
  s = NULL;
  sd.contact.point_model = ISO_POINT_LEGACY;
  cr_expect_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "contact.characteristic_radius") != NULL, "%s", iso_last_error());
  sd.contact.characteristic_radius = 2e-4;
  sd.contact.legacy_static_friction = 0.2; /* below the dynamic 0.5 */
  cr_expect_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "legacy_static_friction") != NULL, "%s", iso_last_error());
  sd.contact.legacy_static_friction = 0.9;
  sd.contact.point_model = (isoPointModel)7;
  cr_expect_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "contact.point_model") != NULL, "%s", iso_last_error());
  iso_model_destroy(m);
}
