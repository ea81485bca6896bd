/* The model builder rejects bad input with a message naming the item, and changes nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"

static isoModel *model(void) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  return m;
}

/* Adding `bd` must fail with `want`, leave the model as it was and mention `needle`. */
static void rejects(isoBodyDef bd, isoStatus want, const char *needle) {
  isoModel *m = model();
  isoBodyDef ok = iso_default_body_def();
  ok.name = "first";
  cr_assert_eq(iso_model_add_body(m, &ok, NULL), ISO_OK);
  int id = -7;
  isoStatus st = iso_model_add_body(m, &bd, &id);
  cr_assert_eq(st, want, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
  cr_assert_eq(iso_model_body_count(m), 1, "a rejected body must not be added");
  cr_assert_eq(id, -7, "a rejected body must not write its id");
  iso_model_destroy(m);
}

Test(model, defaults_are_documented_values) {
  isoModelDef md = iso_default_model_def();
  cr_assert_eq(md.gravity[2], -9.81);
  cr_assert_eq(md.time_step, 1e-3);
  isoBodyDef bd = iso_default_body_def();
  cr_assert_eq(bd.mass, 1.0);
  cr_assert_eq(bd.quaternion[0], 1.0);
  cr_assert_eq(bd.inertia[0], 0.004);
}

Test(model, bad_mass_is_rejected_by_name) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = "wheel";
  bd.mass = 0;
  rejects(bd, ISO_ERR_INVALID, "body 'wheel': mass 0");
  bd.mass = -2;
  rejects(bd, ISO_ERR_INVALID, "mass -2");
  bd.mass = NAN;
  rejects(bd, ISO_ERR_INVALID, "wheel");
}

Test(model, bad_inertia_is_rejected) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = "plate";
  bd.inertia[0] = -0.1;
  rejects(bd, ISO_ERR_INVALID, "positive definite");
  bd = iso_default_body_def();
  bd.name = "plate";
  bd.inertia[3] = 0.01; /* |Ixy| > sqrt(Ixx·Iyy): indefinite */
  rejects(bd, ISO_ERR_INVALID, "positive definite");
  bd = iso_default_body_def();
  bd.name = "needle";
  bd.inertia[0] = 1.0, bd.inertia[1] = 1.0, bd.inertia[2] = 5.0; /* 5 > 1 + 1 */
  rejects(bd, ISO_ERR_INVALID, "triangle inequality");
  bd.inertia[2] = INFINITY;
  rejects(bd, ISO_ERR_INVALID, "not finite");
}

Test(model, bad_state_is_rejected) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = "q0";
  bd.quaternion[0] = 0;
  rejects(bd, ISO_ERR_INVALID, "zero length");
  bd = iso_default_body_def();
  bd.position[1] = NAN;
  rejects(bd, ISO_ERR_INVALID, "position");
  bd = iso_default_body_def();
  bd.linear_velocity[1] = INFINITY;
  rejects(bd, ISO_ERR_INVALID, "velocity");
  bd = iso_default_body_def();
  bd.com[0] = NAN;
  rejects(bd, ISO_ERR_INVALID, "centre of mass");
}

Test(model, duplicate_and_empty_names) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = "first";
  rejects(bd, ISO_ERR_INVALID, "already exists");
  bd.name = "";
  rejects(bd, ISO_ERR_INVALID, "empty");
}

Test(model, null_arguments) {
  isoModel *m = model();
  isoBodyDef bd = iso_default_body_def();
  cr_assert_eq(iso_model_add_body(NULL, &bd, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_model_add_body(m, NULL, NULL), ISO_ERR_NULL);
  cr_assert(strstr(iso_last_error(), "def") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_model_create(NULL, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_model_compile(NULL), ISO_ERR_NULL);
  int id;
  cr_assert_eq(iso_model_find_body(m, NULL, &id), ISO_ERR_NULL);
  iso_model_destroy(NULL); /* allowed */
  iso_model_destroy(m);
}

Test(model, bad_world_settings) {
  isoModelDef md = iso_default_model_def();
  isoModel *m = NULL;
  md.time_step = 0;
  cr_assert_eq(iso_model_create(&md, &m), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "time_step") != NULL);
  cr_assert_null(m);
  md = iso_default_model_def();
  md.gravity[0] = NAN;
  cr_assert_eq(iso_model_create(&md, &m), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "gravity") != NULL);
}

Test(model, compile_freezes_and_lookups_work) {
  isoModel *m = model();
  isoBodyDef bd = iso_default_body_def();
  bd.name = "a";
  bd.quaternion[0] = 2.0; /* normalised on the way in */
  cr_assert_eq(iso_model_add_body(m, &bd, NULL), ISO_OK);
  bd.name = NULL; /* automatic name */
  int id = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &id), ISO_OK);
  cr_assert_eq(id, 1);
  cr_assert_eq(iso_model_find_body(m, "body1", &id), ISO_OK);
  cr_assert_eq(id, 1);
  cr_assert_eq(iso_model_find_body(m, "nope", &id), ISO_ERR_NOT_FOUND);
  cr_assert(strstr(iso_last_error(), "'nope'") != NULL);
  isoBodyDef got;
  cr_assert_eq(iso_model_get_body(m, 0, &got), ISO_OK);
  cr_assert_eq(got.quaternion[0], 1.0);
  cr_assert_eq(iso_model_get_body(m, 2, &got), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  cr_assert(iso_model_is_compiled(m));
  cr_assert_eq(iso_model_compile(m), ISO_OK, "compiling twice is allowed");
  cr_assert_eq(iso_model_add_body(m, &bd, NULL), ISO_ERR_STATE);
  cr_assert_eq(iso_model_body_count(m), 2);
  iso_model_destroy(m);
}
