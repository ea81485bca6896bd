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
  cr_assert_eq(bd.inertia[0], 0.004);
  /* at the origin, upright, at rest */
  isoFreeBodyState x = iso_default_free_body_state();
  const double identity[4] = {1, 0, 0, 0};
  for (int k = 0; k < 4; ++k) cr_assert_eq(x.quaternion[k], identity[k]);
  for (int k = 0; k < 3; ++k) {
    cr_assert_eq(x.position[k], 0.0);
    cr_assert_eq(x.angular_velocity[k], 0.0);
    cr_assert_eq(x.linear_velocity[k], 0.0);
  }
}

Test(model, bad_mass_is_rejected_by_name) {
  isoBodyDef bd = iso_default_body_def();
  bd.name = "wheel";
  bd.mass = -2;
  rejects(bd, ISO_ERR_INVALID, "mass -2");
  bd.mass = NAN;
  rejects(bd, ISO_ERR_INVALID, "wheel");
}

/* A massless body, or a point mass, may hang on a joint (Drake allows both); left free, it is
 * refused when the model compiles, by name. */
Test(model, massless_and_point_mass_bodies_need_a_joint) {
  for (int point = 0; point < 2; ++point) {
    isoModel *m = model();
    isoBodyDef bd = iso_default_body_def();
    bd.name = "wheel";
    if (point) memset(bd.inertia, 0, sizeof bd.inertia);
    else bd.mass = 0, memset(bd.inertia, 0, sizeof bd.inertia);
    cr_assert_eq(iso_model_add_body(m, &bd, NULL), ISO_OK, "%s", iso_last_error());
    isoStatus st = iso_model_compile(m);
    cr_assert_eq(st, ISO_ERR_INVALID);
    cr_assert(strstr(iso_last_error(), "body 'wheel'") != NULL && strstr(iso_last_error(), "joint") != NULL, "%s",
              iso_last_error());
    iso_model_destroy(m);
  }
  /* massless with rotational inertia is nonsense on a joint too */
  isoBodyDef bd = iso_default_body_def();
  bd.name = "ghost";
  bd.mass = 0;
  rejects(bd, ISO_ERR_INVALID, "body 'ghost': a massless body cannot have rotational inertia");
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

Test(model, bad_centre_of_mass_is_rejected) {
  isoBodyDef bd = iso_default_body_def();
  bd.com[0] = NAN;
  rejects(bd, ISO_ERR_INVALID, "centre of mass");
}

/* Setting `x` on body "q0" must fail with `want` naming the body and `needle`, and leave the
 * state set before in place. */
static void rejects_state(isoFreeBodyState x, isoStatus want, const char *needle) {
  isoModel *m = model();
  isoBodyDef bd = iso_default_body_def();
  bd.name = "q0";
  int id = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &id), ISO_OK);
  isoFreeBodyState before = iso_default_free_body_state();
  before.position[2] = 0.25;
  before.linear_velocity[0] = -1.5;
  cr_assert_eq(iso_model_set_initial_state(m, id, &before), ISO_OK, "%s", iso_last_error());
  isoStatus st = iso_model_set_initial_state(m, id, &x);
  cr_assert_eq(st, want, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "body 'q0'") != NULL, "message '%s' does not name the body", iso_last_error());
  cr_assert(strstr(iso_last_error(), needle) != NULL, "message '%s' lacks '%s'", iso_last_error(), needle);
  isoFreeBodyState got;
  cr_assert_eq(iso_model_get_initial_state(m, id, &got), ISO_OK);
  cr_assert(memcmp(&got, &before, sizeof got) == 0, "a rejected state must not change the stored one");
  iso_model_destroy(m);
}

Test(model, bad_initial_state_is_rejected_by_name) {
  isoFreeBodyState x = iso_default_free_body_state();
  x.quaternion[0] = 0;
  rejects_state(x, ISO_ERR_INVALID, "zero length");
  x = iso_default_free_body_state();
  x.quaternion[2] = NAN;
  rejects_state(x, ISO_ERR_INVALID, "quaternion is not finite");
  x = iso_default_free_body_state();
  x.position[1] = NAN;
  rejects_state(x, ISO_ERR_INVALID, "position");
  x = iso_default_free_body_state();
  x.linear_velocity[1] = INFINITY;
  rejects_state(x, ISO_ERR_INVALID, "velocity");
  x = iso_default_free_body_state();
  x.angular_velocity[0] = -INFINITY;
  rejects_state(x, ISO_ERR_INVALID, "velocity");
}

Test(model, initial_state_defaults_until_set_and_is_normalised) {
  isoModel *m = model();
  isoBodyDef bd = iso_default_body_def();
  int a = -1, b = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &a), ISO_OK);
  cr_assert_eq(iso_model_add_body(m, &bd, &b), ISO_OK);
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[0] = 1, x.position[1] = -2, x.position[2] = 3;
  x.quaternion[0] = 0, x.quaternion[3] = 4; /* a half turn about z, not unit length */
  x.angular_velocity[1] = 5;
  x.linear_velocity[2] = -6;
  cr_assert_eq(iso_model_set_initial_state(m, b, &x), ISO_OK, "%s", iso_last_error());
  isoFreeBodyState got, def = iso_default_free_body_state();
  cr_assert_eq(iso_model_get_initial_state(m, a, &got), ISO_OK);
  cr_assert(memcmp(&got, &def, sizeof got) == 0, "a body whose state was never set starts at rest at the origin");
  cr_assert_eq(iso_model_get_initial_state(m, b, &got), ISO_OK);
  cr_assert_eq(got.quaternion[0], 0.0);
  cr_assert_eq(got.quaternion[3], 1.0, "stored normalised");
  cr_assert_eq(got.position[1], -2.0);
  cr_assert_eq(got.angular_velocity[1], 5.0);
  cr_assert_eq(got.linear_velocity[2], -6.0);
  /* a body index out of range, either way */
  cr_assert_eq(iso_model_set_initial_state(m, 2, &x), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_set_initial_state(m, -1, &x), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_get_initial_state(m, 2, &got), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_set_initial_state(NULL, 0, &x), ISO_ERR_NULL);
  cr_assert_eq(iso_model_set_initial_state(m, 0, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_model_get_initial_state(m, 0, NULL), ISO_ERR_NULL);
  /* compiled: read-only, and what was stored stays readable */
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoFreeBodyState other = iso_default_free_body_state();
  cr_assert_eq(iso_model_set_initial_state(m, a, &other), ISO_ERR_STATE);
  cr_assert(strstr(iso_last_error(), "compiled") != NULL, "%s", iso_last_error());
  cr_assert_eq(iso_model_get_initial_state(m, b, &got), ISO_OK);
  cr_assert_eq(got.quaternion[3], 1.0);
  iso_model_destroy(m);
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
  cr_assert_str_eq(got.name, "a");
  cr_assert_eq(iso_model_get_body(m, 2, &got), ISO_ERR_NOT_FOUND);
  cr_assert_eq(iso_model_compile(m), ISO_OK);
  cr_assert(iso_model_is_compiled(m));
  cr_assert_eq(iso_model_compile(m), ISO_OK, "compiling twice is allowed");
  cr_assert_eq(iso_model_add_body(m, &bd, NULL), ISO_ERR_STATE);
  cr_assert_eq(iso_model_body_count(m), 2);
  iso_model_destroy(m);
}
