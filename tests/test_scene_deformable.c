/* Deformable bodies in scene files: an SDFormat <link> with <drake:deformable_properties>
 * becomes a deformable body as Drake's parser reads it (parameters, pose, friction, walls),
 * what Drake rejects is rejected naming file:line and the element, what it ignores is
 * reported, and a URDF deformable tag is ignored as Drake's URDF parser ignores it. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/support.h"

static char g_dir[512];

/* Write `body` (the <model>s) into an SDFormat file `name` in a fresh temporary folder, with
 * MESH replaced by the example box mesh's absolute path. */
static const char *write_sdf(const char *name, const char *body) {
  return test_write_sdf(g_dir, sizeof g_dir, "scene_deformable", name, "", "examples/meshes/soft_box.vtk",
                        body);
}

static void cleanup(void) {
  if (g_dir[0]) test_tmpdir_remove(g_dir);
  g_dir[0] = '\0';
}

TestSuite(scene_deformable, .fini = cleanup);

static isoModel *load(const char *path, int strict, isoLoadReport **report) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = strict;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, report);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

/* A deformable link around the box mesh; `props`, `prox` and `extra` go into
 * <drake:deformable_properties>, <drake:proximity_properties> and the link. */
static const char *box_scene(const char *name, const char *props, const char *prox, const char *extra) {
  char body[4096];
  snprintf(body, sizeof body,
           "<model name=\"m\">\n<link name=\"jelly\">\n%s\n"
           "<collision name=\"c\">\n<geometry><mesh><uri>file://MESH</uri></mesh></geometry>\n"
           "<drake:proximity_properties>%s</drake:proximity_properties>\n</collision>\n"
           "<drake:deformable_properties>%s</drake:deformable_properties>\n</link>\n</model>",
           extra, prox, props);
  return write_sdf(name, body);
}

/* The example: Drake's reading of it (the same numbers pydrake reports for this file). */
Test(scene_deformable, example_loads_with_its_parameters_and_pose) {
  const char *path = test_source_path("examples/soft_ball.sdf");
  isoLoadReport *r = NULL;
  isoModel *m = load(path, 1, &r);
  for (int i = 0; i < iso_load_report_count(r); ++i)
    cr_assert(strstr(iso_load_report_line(r, i), "<visual> ignored"), "%s", iso_load_report_line(r, i));
  iso_load_report_free(r);
  cr_assert_eq(iso_model_deformable_count(m), 1);
  cr_assert_eq(iso_model_body_count(m), 0, "the floor is static: welded to the world");
  cr_assert_eq(iso_model_geometry_count(m), 1);
  int id = -1;
  cr_assert_eq(iso_model_find_deformable(m, "soft_ball::ball", &id), ISO_OK);
  isoDeformableDef d;
  cr_assert_eq(iso_model_get_deformable(m, id, &d), ISO_OK);
  cr_assert_eq(d.material, ISO_MATERIAL_LINEAR_COROTATED);
  cr_assert_eq(d.youngs_modulus, 1e5);
  cr_assert_eq(d.poissons_ratio, 0.4);
  cr_assert_eq(d.mass_density, 1000.0);
  cr_assert_eq(d.stiffness_damping, 0.01);
  cr_assert_eq(d.mass_damping, 0.0);
  cr_assert_eq(d.mu_static, 0.5, "drake:mu_dynamic sets both coefficients");
  cr_assert_eq(d.mu_dynamic, 0.5);
  cr_assert_eq(d.hunt_crossley_dissipation, 5.0);
  cr_assert_eq(d.relaxation_time, 0.1);
  cr_assert_eq(d.position[2], 0.15);
  cr_assert_eq(d.quaternion[0], 1.0);
  int nv, nt, ntri;
  cr_assert_eq(iso_model_deformable_size(m, id, &nv, &nt, &ntri), ISO_OK);
  cr_assert_eq(nv, 216);
  cr_assert_eq(nt, 750);
  cr_assert_eq(ntri, 300);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, id, rest, NULL, NULL, NULL), ISO_OK);
  /* the file's first vertex, (−0.05/√3)(1, 1, 1), raised by 0.15: one rounding of the sum */
  const double c = -0.028867513459481287;
  cr_assert_eq(rest[0], c);
  cr_assert_eq(rest[1], c);
  cr_assert_eq(rest[2], c + 0.15);
  double zmin = INFINITY, zmax = -INFINITY;
  for (int v = 0; v < nv; ++v) {
    zmin = fmin(zmin, rest[3 * v + 2]);
    zmax = fmax(zmax, rest[3 * v + 2]);
  }
  /* the mesh has no vertex at the poles: its lowest ring is at z = 0.05·0.98020 below the
   * centre (the map of (±0.2, ±0.2, −1)); Drake reports 0.1009966 and 0.1990034 */
  cr_assert(fabs(zmin - 0.1009966) < 1e-7 && fabs(zmax - 0.1990034) < 1e-7, "z in [%.9g, %.9g]", zmin, zmax);
  free(rest);
  iso_model_destroy(m);
}

/* Nothing given: Drake's DeformableBodyConfig, and its parsers' friction 1.0. The link's pose
 * (roll-pitch-yaw, relative to another frame) and the model's pose place the mesh. */
Test(scene_deformable, defaults_and_pose) {
  const char *p = write_sdf("pose.sdf",
                            "<model name=\"m\">\n<pose>1 0 0 0 0 0</pose>\n"
                            "<frame name=\"f\"><pose>0 2 0 0 0 0</pose></frame>\n"
                            "<link name=\"jelly\">\n<pose relative_to=\"f\">0 0 3 0 0 1.5707963267948966</pose>\n"
                            "<collision name=\"c\"><geometry><mesh><uri>file://MESH</uri><scale>2 1 1</scale></mesh>"
                            "</geometry></collision>\n<drake:deformable_properties/>\n</link>\n</model>");
  isoModel *m = load(p, 1, NULL);
  isoDeformableDef d;
  cr_assert_eq(iso_model_get_deformable(m, 0, &d), ISO_OK);
  cr_assert_str_eq(d.name, "m::jelly");
  cr_assert_eq(d.youngs_modulus, 1e8);
  cr_assert_eq(d.poissons_ratio, 0.49);
  cr_assert_eq(d.mass_density, 1500.0);
  cr_assert_eq(d.mass_damping + d.stiffness_damping, 0.0);
  cr_assert_eq(d.mu_static, 1.0);
  cr_assert_eq(d.mu_dynamic, 1.0);
  cr_assert_eq(d.hunt_crossley_dissipation, 50.0);
  cr_assert_eq(d.mesh_scale[0], 2.0);
  /* p = (1, 2, 3); R = Rz(90°); the corner (0.05, 0.05, 0.05) of the box scaled by (2, 1, 1)
   * is (0.1, 0.05, 0.05) in the link, (−0.05, 0.1, 0.05) rotated. 1e-12 m: the quaternion of
   * 90° rounds in its last bits. */
  cr_assert(fabs(d.position[0] - 1) < 1e-15 && fabs(d.position[1] - 2) < 1e-15 && fabs(d.position[2] - 3) < 1e-15);
  int nv;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, rest, NULL, NULL, NULL), ISO_OK);
  const double *last = rest + 3 * (nv - 1); /* the grid's last vertex: the (+, +, +) corner */
  cr_assert(fabs(last[0] - 0.95) < 1e-12 && fabs(last[1] - 2.1) < 1e-12 && fabs(last[2] - 3.05) < 1e-12,
            "(%.17g, %.17g, %.17g)", last[0], last[1], last[2]);
  free(rest);
  iso_model_destroy(m);
}

/* Walls in the world frame, normals normalised: each holds the vertices with n̂·(p − Q) < 0. */
Test(scene_deformable, wall_boundary_conditions) {
  const char *p = box_scene("wall.sdf", "", "",
                            "<pose>0 0 1 0 0 0</pose>\n"
                            "<drake:wall_boundary_condition><drake:point_on_plane>0 0 0.99</drake:point_on_plane>"
                            "<drake:outward_normal>0 0 3</drake:outward_normal></drake:wall_boundary_condition>\n"
                            "<drake:wall_boundary_condition><drake:point_on_plane>0.04 0 0</drake:point_on_plane>"
                            "<drake:outward_normal>-1 0 0</drake:outward_normal></drake:wall_boundary_condition>");
  isoModel *m = load(p, 1, NULL);
  int nv;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  unsigned char *held = (unsigned char *)malloc((size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, rest, NULL, NULL, held), ISO_OK);
  int nheld = 0;
  for (int v = 0; v < nv; ++v) {
    /* the box spans z in [0.95, 1.05]: the first wall holds its bottom layer (z < 0.99), the
     * second every vertex with x > 0.04, i.e. the x = 0.05 layer */
    int want = rest[3 * v + 2] < 0.99 || rest[3 * v] > 0.04;
    cr_assert_eq(held[v], want, "vertex %d at (%g, %g, %g)", v, rest[3 * v], rest[3 * v + 1], rest[3 * v + 2]);
    nheld += held[v];
  }
  cr_assert_eq(nheld, 9 + 9 - 3, "two 3×3 layers sharing an edge of 3");
  free(rest);
  free(held);
  iso_model_destroy(m);
}

/* What Drake rejects, rejected naming the element. */
Test(scene_deformable, drake_rules) {
  const char *p = write_sdf("two.sdf",
                            "<model name=\"m\"><link name=\"jelly\">\n"
                            "<collision name=\"a\"><geometry><mesh><uri>file://MESH</uri></mesh></geometry></collision>\n"
                            "<collision name=\"b\"><geometry><mesh><uri>file://MESH</uri></mesh></geometry></collision>\n"
                            "<drake:deformable_properties/></link></model>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<link", "exactly one <collision> (it has 2)");
  p = write_sdf("none.sdf", "<model name=\"m\"><link name=\"jelly\">\n<drake:deformable_properties/></link></model>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<link", "exactly one <collision> (it has 0)");
  char body[1200];
  snprintf(body, sizeof body, "<model name=\"m\"><link name=\"jelly\"><collision name=\"a\"><geometry><mesh>\n"
           "<uri>file://%s</uri></mesh></geometry></collision>\n<drake:deformable_properties/></link></model>",
           test_source_path("tests/data/cube.obj"));
  p = write_sdf("obj.sdf", body);
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "cube.obj</uri>", "must be a .vtk tetrahedral mesh");
  p = write_sdf("sphere.sdf", "<model name=\"m\"><link name=\"jelly\"><collision name=\"a\"><geometry>\n"
                              "<sphere><radius>0.1</radius></sphere></geometry></collision>\n"
                              "<drake:deformable_properties/></link></model>");
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "<sphere>", "a deformable <sphere>");
  p = write_sdf("boxshape.sdf", "<model name=\"m\"><link name=\"jelly\"><collision name=\"a\">\n<geometry>"
                                "<box><size>1 1 1</size></box></geometry></collision>\n"
                                "<drake:deformable_properties/></link></model>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<geometry><box>", "must be a <mesh> naming a .vtk tetrahedral mesh; found <box>");
  p = box_scene("plastic.sdf", "\n<drake:material_model>plastic</drake:material_model>", "", "");
  test_load_fails_at(p, ISO_ERR_INVALID, "plastic", "material model 'plastic' is unknown");
  p = box_scene("neo.sdf", "\n<drake:material_model>neohookean</drake:material_model>", "", "");
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "neohookean", "material model 'neohookean' is not supported");
  p = box_scene("nu.sdf", "\n<drake:poissons_ratio>0.5</drake:poissons_ratio>", "", "");
  test_load_fails_at(p, ISO_ERR_INVALID, "poissons_ratio", "<drake:poissons_ratio> 0.5 must be within (-1, 0.5)");
  p = box_scene("E.sdf", "\n<drake:youngs_modulus>0</drake:youngs_modulus>", "", "");
  test_load_fails_at(p, ISO_ERR_INVALID, "youngs_modulus", "<drake:youngs_modulus> 0 must be > 0");
  p = box_scene("damp.sdf", "\n<drake:mass_damping>-1</drake:mass_damping>", "", "");
  test_load_fails_at(p, ISO_ERR_INVALID, "mass_damping", "must be >= 0");
  p = box_scene("foreign.sdf", "\n<drake:hydroelastic_modulus>1e6</drake:hydroelastic_modulus>", "", "");
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "hydroelastic_modulus", "<drake:hydroelastic_modulus> does not belong");
  p = box_scene("mus.sdf", "", "\n<drake:mu_static>0.5</drake:mu_static>", "");
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "mu_static", "<drake:mu_static> does not belong");
  p = box_scene("zero.sdf", "", "",
                "<drake:wall_boundary_condition><drake:point_on_plane>0 0 0</drake:point_on_plane>\n"
                "<drake:outward_normal>0 0 0</drake:outward_normal></drake:wall_boundary_condition>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<drake:outward_normal>0 0 0", "the outward normal is zero");
  p = box_scene("nopoint.sdf", "", "",
                "<drake:wall_boundary_condition>\n"
                "<drake:outward_normal>0 0 1</drake:outward_normal></drake:wall_boundary_condition>");
  test_load_fails_at(p, ISO_ERR_PARSE, "<drake:wall_boundary_condition>", "needs a <drake:point_on_plane>");
  p = box_scene("visuals.sdf", "", "", "<visual name=\"a\"/><visual name=\"b\"/>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<link", "at most one <visual> (it has 2)");
  p = write_sdf("rigidwall.sdf", "<model name=\"m\"><link name=\"l\">\n"
                                 "<drake:wall_boundary_condition/></link></model>");
  test_load_fails_at(p, ISO_ERR_INVALID, "<drake:wall", "belongs to a deformable link");
  p = write_sdf("joint.sdf",
                "<model name=\"m\"><link name=\"arm\"/>\n<link name=\"jelly\"><collision name=\"c\"><geometry><mesh>"
                "<uri>file://MESH</uri></mesh></geometry></collision><drake:deformable_properties/></link>\n"
                "<joint name=\"j\" type=\"revolute\"><parent>arm</parent><child>jelly</child>"
                "<axis><xyz>0 0 1</xyz></axis></joint></model>");
  test_load_fails_at(p, ISO_ERR_UNSUPPORTED, "<joint", "child 'jelly' is a deformable link; a joint cannot attach to it");
  p = write_sdf("dup.sdf", "<model name=\"m\"><link name=\"jelly\"/>\n<link name=\"jelly\"><collision name=\"c\">"
                           "<geometry><mesh><uri>file://MESH</uri></mesh></geometry></collision>"
                           "<drake:deformable_properties/></link></model>");
  test_load_fails_at(p, ISO_ERR_PARSE, "<drake:deformable_properties/></link></model>", "the name 'jelly' is already used");
}

/* A mesh the model refuses: the message names the link, then the body and the file's line. */
Test(scene_deformable, bad_mesh_names_the_link) {
  char vtk[800];
  const char *p = write_sdf("flipped.sdf", "<model name=\"m\">\n<link name=\"jelly\"><collision name=\"c\"><geometry>"
                                           "<mesh><uri>flipped.vtk</uri></mesh></geometry></collision>"
                                           "<drake:deformable_properties/></link></model>");
  snprintf(vtk, sizeof vtk, "%s/flipped.vtk", g_dir);
  FILE *f = fopen(vtk, "w");
  cr_assert_not_null(f);
  fprintf(f, "# vtk DataFile Version 3.0\nflipped\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n"
             "0 0 0\n1 0 0\n0 1 0\n0 0 1\nCELLS 1 5\n4 1 0 2 3\nCELL_TYPES 1\n10\n");
  fclose(f);
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(p, NULL, &m, NULL), ISO_ERR_INVALID);
  char want[900];
  snprintf(want, sizeof want, "%s:%d: <link name='m::jelly'>: deformable 'm::jelly': %s:11: tetrahedron 0", p,
           test_line_of(p, "<link"), vtk);
  cr_assert(strstr(iso_last_error(), want), "'%s' lacks '%s'", iso_last_error(), want);
}

/* What Drake ignores with a warning is reported; strict mode rejects it. */
Test(scene_deformable, ignored_is_reported) {
  const char *p = write_sdf("ignored.sdf",
                            "<model name=\"m\"><link name=\"jelly\">\n"
                            "<inertial><mass>3</mass></inertial>\n"
                            "<collision name=\"c\">\n<pose>0 0 1 0 0 0</pose>\n"
                            "<geometry><mesh><uri>file://MESH</uri></mesh></geometry>\n"
                            "<drake:proximity_properties>\n"
                            "<drake:mesh_resolution_hint>0.01</drake:mesh_resolution_hint>\n"
                            "</drake:proximity_properties></collision>\n"
                            "<drake:deformable_properties/></link></model>");
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  const char *want[3][2] = {{"<inertial>", "<inertial> ignored (a deformable body's mass comes from its density"},
                            {"<pose>", "<pose> ignored (a deformable mesh is placed at its link's pose"},
                            {"<drake:mesh_res", "<drake:mesh_resolution_hint> ignored (a deformable <mesh> is used"}};
  cr_assert_eq(iso_load_report_count(r), 3);
  for (int i = 0; i < 3; ++i) {
    char expect[1000];
    snprintf(expect, sizeof expect, "%s:%d: %s", p, test_line_of(p, want[i][0]), want[i][1]);
    cr_assert(strncmp(iso_load_report_line(r, i), expect, strlen(expect)) == 0, "'%s', want '%s'",
              iso_load_report_line(r, i), expect);
  }
  isoDeformableDef d;
  cr_assert_eq(iso_model_get_deformable(m, 0, &d), ISO_OK);
  cr_assert_eq(d.position[2], 0.0, "the collision's pose is not used");
  iso_load_report_free(r);
  iso_model_destroy(m);
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  cr_assert_eq(iso_scene_load(p, &o, &m, NULL), ISO_ERR_UNSUPPORTED);
  cr_assert(strstr(iso_last_error(), "<inertial>"), "%s", iso_last_error());
}

/* URDF: Drake's parser has no deformable bodies and skips the tag; the link stays rigid. */
Test(scene_deformable, urdf_tag_is_ignored_as_in_drake) {
  if (!g_dir[0]) write_sdf("dummy.sdf", "");
  char p[700];
  snprintf(p, sizeof p, "%s/r.urdf", g_dir);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"r\" xmlns:drake=\"http://drake.mit.edu\">\n<link name=\"l\">\n"
             "<inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
             "</inertial>\n<drake:deformable_properties><drake:youngs_modulus value=\"1e5\"/>"
             "</drake:deformable_properties>\n</link>\n</robot>\n");
  fclose(f);
  isoLoadReport *r = NULL;
  isoModel *m = load(p, 0, &r);
  cr_assert_eq(iso_model_deformable_count(m), 0);
  cr_assert_eq(iso_model_body_count(m), 1);
  cr_assert_eq(iso_load_report_count(r), 1);
  char expect[900];
  snprintf(expect, sizeof expect, "%s:5: <drake:deformable_properties> ignored (Drake's URDF parser has no deformable "
           "bodies", p);
  cr_assert(strncmp(iso_load_report_line(r, 0), expect, strlen(expect)) == 0, "%s", iso_load_report_line(r, 0));
  iso_load_report_free(r);
  iso_model_destroy(m);
}
