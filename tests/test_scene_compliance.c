/* Seed 004's <drake_compliance> tags in URDF and SDFormat: a full tag, a partial one, none, one
 * beside drake: proximity values (which win, with a report line saying why), and the load errors
 * for a single friction and for static < dynamic, each naming file:line. The values left at their
 * defaults take the legacy point model's default material in a sim with that model. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

static const char *scene(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/scenes/%s", name);
  return test_source_path(rel);
}

static isoModel *load(const char *path, isoLoadReport **report) {
  isoLoadOptions o = iso_default_load_options();
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, report);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

static void load_fails(const char *path, isoStatus want, int line, const char *needle) {
  isoLoadOptions o = iso_default_load_options();
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, NULL);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  char where[1200];
  snprintf(where, sizeof where, "%s:%d:", path, line);
  cr_assert(strstr(iso_last_error(), where) != NULL, "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle) != NULL, "'%s' lacks '%s'", iso_last_error(), needle);
}

static isoGeometryDef geom(const isoModel *m, const char *name, int *id) {
  int g;
  cr_assert_eq(iso_model_find_geometry(m, name, &g), ISO_OK, "%s", iso_last_error());
  isoGeometryDef d;
  cr_assert_eq(iso_model_get_geometry(m, g, &d), ISO_OK);
  if (id) *id = g;
  return d;
}

static int report_has(const isoLoadReport *r, const char *a, const char *b) {
  for (int i = 0; i < iso_load_report_count(r); ++i) {
    const char *l = iso_load_report_line(r, i);
    if (strstr(l, a) && (!b || strstr(l, b))) return 1;
  }
  return 0;
}

/* E, d, μs, μd of geometry g as a sim with `model` uses them. */
static void sim_materials(isoModel *m, isoPointModel model, int g, double out[4]) {
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.contact.point_model = model;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  iso_sim_get_param(s, ISO_PARAM_GEOM_MODULUS, g, iso_worlds_one(0), out);
  iso_sim_get_param(s, ISO_PARAM_GEOM_DISSIPATION, g, iso_worlds_one(0), out + 1);
  iso_sim_get_param(s, ISO_PARAM_GEOM_FRICTION, g, iso_worlds_one(0), out + 2);
  iso_sim_destroy(s);
}

static void expect4(const double got[4], double E, double d, double ms, double md, const char *what) {
  cr_expect_eq(got[0], E, "%s: E %g, want %g", what, got[0], E);
  cr_expect_eq(got[1], d, "%s: d %g, want %g", what, got[1], d);
  cr_expect_eq(got[2], ms, "%s: static friction %g, want %g", what, got[2], ms);
  cr_expect_eq(got[3], md, "%s: dynamic friction %g, want %g", what, got[3], md);
}

Test(scene_compliance, urdf_good_partial_absent_and_beside_drake_tags) {
  const char *path = scene("compliance_good.urdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(path, &r);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  int gf, gp, gn, gb;
  isoGeometryDef full = geom(m, "r::l::full", &gf), part = geom(m, "r::l::partial", &gp);
  isoGeometryDef none = geom(m, "r::l::plain", &gn), both = geom(m, "r::l::both", &gb);
  cr_expect_eq(full.hydroelastic_modulus, 5e7);
  cr_expect_eq(full.hunt_crossley_dissipation, 0.5);
  cr_expect_eq(full.mu_static, 0.8);
  cr_expect_eq(full.mu_dynamic, 0.6);
  cr_expect_eq(full.legacy_given, ISO_LEGACY_ALL);
  cr_expect_eq(part.hunt_crossley_dissipation, 2.0);
  cr_expect_eq(part.legacy_given, ISO_LEGACY_DISSIPATION, "only the dissipation was given");
  cr_expect_eq(none.legacy_given, 0u, "no tag: every value is the default");
  /* beside drake: values, these win for dissipation and friction; the modulus is the tag's */
  cr_expect_eq(both.hunt_crossley_dissipation, 7.0);
  cr_expect_eq(both.mu_static, 0.4);
  cr_expect_eq(both.mu_dynamic, 0.4);
  cr_expect_eq(both.hydroelastic_modulus, 3e6);
  cr_expect_eq(both.legacy_given, ISO_LEGACY_ALL);
  char at[64];
  snprintf(at, sizeof at, "at line %d", test_line_of(path, "drake:hunt_crossley_dissipation"));
  cr_expect(report_has(r, "<dissipation> ignored (<drake:hunt_crossley_dissipation>", at), "the report names the winner");
  snprintf(at, sizeof at, "at line %d", test_line_of(path, "drake:mu_dynamic"));
  cr_expect(report_has(r, "<static_friction> ignored (<drake:mu_dynamic>", at));
  cr_expect(report_has(r, "<dynamic_friction> ignored (<drake:mu_dynamic>", "wins"));
  cr_expect_eq(iso_load_report_count(r), 3, "three values lose to drake: tags, nothing else is reported");

  /* today's point model reads the geometry's values as they are */
  double v[4];
  sim_materials(m, ISO_POINT_DRAKE, gn, v);
  expect4(v, 1e7, 50, 1.0, 1.0, "plain, drake model");
  /* the legacy model: omitted values take its default material (Drake 2018's CompliantMaterial) */
  sim_materials(m, ISO_POINT_LEGACY, gn, v);
  expect4(v, 1e8, 0.32, 0.9, 0.5, "plain, legacy model");
  sim_materials(m, ISO_POINT_LEGACY, gp, v);
  expect4(v, 1e8, 2.0, 0.9, 0.5, "partial, legacy model");
  sim_materials(m, ISO_POINT_LEGACY, gf, v);
  expect4(v, 5e7, 0.5, 0.8, 0.6, "full, legacy model");
  sim_materials(m, ISO_POINT_LEGACY, gb, v);
  expect4(v, 3e6, 7.0, 0.4, 0.4, "both, legacy model");
  iso_load_report_free(r);
  iso_model_destroy(m);
}

Test(scene_compliance, sdf_good_partial_absent_and_beside_drake_tags) {
  const char *path = scene("compliance_good.sdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(path, &r);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  int gp, gn, go;
  isoGeometryDef full = geom(m, "m::l::full", NULL), part = geom(m, "m::l::partial", &gp);
  isoGeometryDef none = geom(m, "m::l::plain", &gn), both = geom(m, "m::l::both", NULL);
  isoGeometryDef ode = geom(m, "m::l::ode", &go);
  cr_expect_eq(full.hydroelastic_modulus, 5e7);
  cr_expect_eq(full.hunt_crossley_dissipation, 0.5);
  cr_expect_eq(full.mu_static, 0.8);
  cr_expect_eq(full.mu_dynamic, 0.6);
  cr_expect_eq(full.legacy_given, ISO_LEGACY_ALL);
  cr_expect_eq(part.hydroelastic_modulus, 2e8);
  cr_expect_eq(part.legacy_given, ISO_LEGACY_MODULUS);
  cr_expect_eq(none.legacy_given, 0u);
  cr_expect_eq(both.hydroelastic_modulus, 4e6, "drake:hydroelastic_modulus wins");
  cr_expect_eq(both.hunt_crossley_dissipation, 0.1, "no drake: dissipation: the tag's");
  cr_expect_eq(both.mu_static, 0.7);
  cr_expect_eq(both.mu_dynamic, 0.3);
  cr_expect_eq(ode.mu_static, 0.6, "the tag's pair wins over <surface>'s ode friction");
  cr_expect_eq(ode.mu_dynamic, 0.3);
  char at[64];
  snprintf(at, sizeof at, "at line %d", test_line_of(path, "drake:hydroelastic_modulus"));
  cr_expect(report_has(r, "<youngs_modulus> ignored (<drake:hydroelastic_modulus>", at));
  cr_expect(report_has(r, "<static_friction> ignored (<drake:mu_dynamic>", "wins"));
  cr_expect(report_has(r, "<dynamic_friction> ignored (<drake:mu_dynamic>", "wins"));
  cr_expect(report_has(r, "<mu> ignored (<drake_compliance> gives", NULL));
  cr_expect(report_has(r, "<mu2> ignored (<drake_compliance> gives", NULL));
  cr_expect_eq(iso_load_report_count(r), 5, "%d lines", iso_load_report_count(r));
  double v[4];
  sim_materials(m, ISO_POINT_LEGACY, gp, v);
  expect4(v, 2e8, 0.32, 0.9, 0.5, "partial, legacy model");
  sim_materials(m, ISO_POINT_LEGACY, gn, v);
  expect4(v, 1e8, 0.32, 0.9, 0.5, "plain, legacy model");
  sim_materials(m, ISO_POINT_LEGACY, go, v);
  expect4(v, 1e8, 0.32, 0.6, 0.3, "ode, legacy model");
  iso_load_report_free(r);
  iso_model_destroy(m);
}

Test(scene_compliance, a_single_friction_is_an_error_at_its_line) {
  const char *u = scene("bad_compliance_single.urdf");
  load_fails(u, ISO_ERR_PARSE, test_line_of(u, "<dynamic_friction>"),
             "dynamic friction 0.4 without <static_friction>");
  const char *s = scene("bad_compliance_single.sdf");
  load_fails(s, ISO_ERR_PARSE, test_line_of(s, "<static_friction>"), "static friction 0.8 without <dynamic_friction>");
}

Test(scene_compliance, static_below_dynamic_is_an_error_naming_both) {
  const char *u = scene("bad_compliance_order.urdf");
  load_fails(u, ISO_ERR_INVALID, test_line_of(u, "<dynamic_friction>"), "dynamic friction 0.5 exceeds static friction 0.3");
  const char *s = scene("bad_compliance_order.sdf");
  load_fails(s, ISO_ERR_INVALID, test_line_of(s, "<dynamic_friction>"),
             "dynamic friction 0.75 exceeds static friction 0.25");
}

Test(scene_compliance, strict_rejects_a_value_that_loses) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(scene("compliance_good.urdf"), &o, &m, NULL), ISO_ERR_UNSUPPORTED);
  cr_assert_null(m);
}
