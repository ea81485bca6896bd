/* Tactile pads in scene files: an <isobar:tactile_pad> inside a <collision> (SDFormat, and URDF
 * with value attributes) becomes a model pad (iso_model_get_tactile_pad) on that collision's
 * geometry, its pose composed with the collision's and expressed in the body frame (the world's
 * for an anchored geometry); every mistake fails naming file:line; and a resting box on a
 * padded plate loaded from a file weighs its weight. The detailed sampling is
 * tests/test_tactile.c's.
 *
 * Poses below are built so that the expected compositions are exact numbers: a quarter turn
 * about z (collision) then a quarter turn about x (pad) is the quaternion (½, ½, ½, ½), and
 * Rz(90°)·(0.01, 0.02, 0.03) = (−0.02, 0.01, 0.03). What separates the loaded numbers from them
 * is the rounding of cos/sin(π/4) and of the products: a few ulps, so 1e-12. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/support.h"

#define POSE_TOL 1e-12

static char g_dir[512];

/* Write `body` into an SDFormat file `name` in a fresh temporary folder (MESH: the beam mesh). */
static const char *write_sdf(const char *name, const char *body) {
  return test_write_sdf(g_dir, sizeof g_dir, "scene_tactile", name, "xmlns:isobar=\"urn:isobar:sdformat\"",
                        "examples/meshes/soft_beam.vtk", body);
}

/* Write a URDF file `name` holding `body` in the same folder. */
static const char *write_urdf(const char *name, const char *body) {
  write_sdf("unused.sdf", ""); /* makes the folder */
  static char path[700];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "<?xml version=\"1.0\"?>\n%s\n", body);
  fclose(f);
  return path;
}

static void cleanup(void) {
  if (g_dir[0]) test_tmpdir_remove(g_dir);
  g_dir[0] = '\0';
}

TestSuite(scene_tactile, .fini = cleanup);

/* Load strictly: nothing in these files may be reported as ignored. */
static isoModel *load(const char *path) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = 1;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, NULL);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

/* The geometry named `name`. */
static int geometry(const isoModel *m, const char *name) {
  for (int i = 0; i < iso_model_geometry_count(m); ++i) {
    isoGeometryDef g;
    cr_assert_eq(iso_model_get_geometry(m, i, &g), ISO_OK);
    if (strcmp(g.name, name) == 0) return i;
  }
  cr_assert_fail("no geometry '%s'", name);
  return -1;
}

/* Pad `pad` of m is on geometry `geom`, rows × cols at `spacing`, at position p and quaternion q. */
static void assert_pad(const isoModel *m, int pad, int geom, int rows, int cols, double spacing, const double *p,
                       const double *q) {
  isoTactilePadDef d;
  cr_assert_eq(iso_model_get_tactile_pad(m, pad, &d), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(d.geometry, geom, "pad %d: geometry %d, want %d", pad, d.geometry, geom);
  cr_expect_eq(d.rows, rows, "pad %d", pad);
  cr_expect_eq(d.cols, cols, "pad %d", pad);
  cr_expect_eq(d.spacing, spacing, "pad %d", pad);
  for (int k = 0; k < 3; ++k)
    cr_expect(fabs(d.position[k] - p[k]) <= POSE_TOL, "pad %d: position[%d] %.17g, want %.17g", pad, k, d.position[k],
              p[k]);
  for (int k = 0; k < 4; ++k)
    cr_expect(fabs(d.quaternion[k] - q[k]) <= POSE_TOL, "pad %d: quaternion[%d] %.17g, want %.17g", pad, k,
              d.quaternion[k], q[k]);
}

static const double HALVES[4] = {0.5, 0.5, 0.5, 0.5};

/* A free link posed anywhere (its frame is its body's): X_BP = X_BG · X_GP. Two pads on one
 * collision (the second in degrees, the same pose), a third on another collision, and one with
 * no pose, which sits at the collision frame. */
Test(scene_tactile, pad_pose_is_the_collision_pose_times_the_pad_pose) {
  const char *path = write_sdf(
      "pads.sdf",
      "<model name=\"m\"><link name=\"plate\"><pose>1 2 3 0.3 0.2 0.1</pose>\n"
      "<collision name=\"a\"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision>\n"
      "<collision name=\"top\"><pose>0.1 0 0.2 0 0 1.5707963267948966</pose>\n"
      "<geometry><box><size>0.2 0.2 0.02</size></box></geometry>\n"
      "<isobar:tactile_pad><isobar:rows>8</isobar:rows><isobar:cols>4</isobar:cols>"
      "<isobar:spacing>0.004</isobar:spacing><pose>0.01 0.02 0.03 1.5707963267948966 0 0</pose></isobar:tactile_pad>\n"
      "<isobar:tactile_pad><isobar:rows>2</isobar:rows><isobar:cols>3</isobar:cols>"
      "<isobar:spacing>0.01</isobar:spacing><pose degrees=\"true\">0.01 0.02 0.03 90 0 0</pose></isobar:tactile_pad>\n"
      "</collision>\n"
      "<collision name=\"side\"><pose>0 -0.1 0 0 0 0</pose><geometry><box><size>0.1 0.1 0.1</size></box></geometry>\n"
      "<isobar:tactile_pad><isobar:rows>5</isobar:rows><isobar:cols>6</isobar:cols>"
      "<isobar:spacing>0.002</isobar:spacing></isobar:tactile_pad></collision>\n"
      "</link></model>");
  isoModel *m = load(path);
  cr_assert_eq(iso_model_tactile_pad_count(m), 3);
  const double p[3] = {0.08, 0.01, 0.23}, side_p[3] = {0, -0.1, 0}, one[4] = {1, 0, 0, 0};
  assert_pad(m, 0, geometry(m, "m::plate::top"), 8, 4, 0.004, p, HALVES);
  assert_pad(m, 1, geometry(m, "m::plate::top"), 2, 3, 0.01, p, HALVES);
  assert_pad(m, 2, geometry(m, "m::plate::side"), 5, 6, 0.002, side_p, one);
  iso_model_destroy(m);
}

/* Anchored geometries take world-frame pads: a static link turned a quarter about z at
 * (0.5, 0, 1), its collision 0.1 m along the link's x, the pad 0.01 m above it, lies at
 * (0.5, 0.1, 1.01) turned as the link. A plane's pad is in the collision frame, not in the
 * half-space's canonical frame (normal +x here: the canonical frame is turned; the pad is not). */
Test(scene_tactile, anchored_pad_is_in_the_world_frame) {
  const char *path = write_sdf(
      "anchored.sdf",
      "<model name=\"ground\"><static>true</static><link name=\"ground\">\n"
      "<pose>0.5 0 1 0 0 1.5707963267948966</pose>\n"
      "<collision name=\"block\"><pose>0.1 0 0 0 0 0</pose><geometry><box><size>0.1 0.1 0.02</size></box></geometry>\n"
      "<isobar:tactile_pad><isobar:rows>3</isobar:rows><isobar:cols>3</isobar:cols>"
      "<isobar:spacing>0.01</isobar:spacing><pose>0 0 0.01 0 0 0</pose></isobar:tactile_pad></collision>\n"
      "</link></model>\n"
      "<model name=\"wall\"><static>true</static><link name=\"wall\">\n"
      "<collision name=\"plane\"><geometry><plane><normal>1 0 0</normal></plane></geometry>\n"
      "<isobar:tactile_pad><isobar:rows>1</isobar:rows><isobar:cols>1</isobar:cols>"
      "<isobar:spacing>0.01</isobar:spacing></isobar:tactile_pad></collision>\n"
      "</link></model>");
  isoModel *m = load(path);
  cr_assert_eq(iso_model_tactile_pad_count(m), 2);
  const double c = sqrt(0.5), p[3] = {0.5, 0.1, 1.01}, q[4] = {c, 0, 0, c}, zero[3] = {0, 0, 0}, one[4] = {1, 0, 0, 0};
  assert_pad(m, 0, geometry(m, "ground::ground::block"), 3, 3, 0.01, p, q);
  assert_pad(m, 1, geometry(m, "wall::wall::plane"), 1, 1, 0.01, zero, one);
  iso_model_destroy(m);
}

/* A link fixed to another moves as its body: its pad is expressed in the root link's frame. */
Test(scene_tactile, pad_of_a_merged_link_is_in_its_body_frame) {
  const char *path = write_sdf(
      "merged.sdf",
      "<model name=\"m\"><link name=\"a\"><collision name=\"c\"><geometry><sphere><radius>0.05</radius></sphere>"
      "</geometry></collision></link>\n"
      "<link name=\"b\"><pose>0 0 0.5 0 0 0</pose><collision name=\"c\"><pose>0.1 0 0 0 0 0</pose>"
      "<geometry><box><size>0.1 0.1 0.1</size></box></geometry>\n"
      "<isobar:tactile_pad><isobar:rows>4</isobar:rows><isobar:cols>4</isobar:cols>"
      "<isobar:spacing>0.005</isobar:spacing><pose>0 0 0.05 0 0 0</pose></isobar:tactile_pad></collision></link>\n"
      "<joint name=\"fix\" type=\"fixed\"><parent>a</parent><child>b</child></joint></model>");
  isoModel *m = load(path);
  cr_assert_eq(iso_model_body_count(m), 1);
  const double p[3] = {0.1, 0, 0.55}, one[4] = {1, 0, 0, 0};
  assert_pad(m, 0, geometry(m, "m::b::c"), 4, 4, 0.005, p, one);
  iso_model_destroy(m);
}

/* URDF: the same pad with value attributes and an <origin>, the same composition. */
Test(scene_tactile, urdf_pad_reads_values_and_origin) {
  const char *path = write_urdf(
      "pads.urdf",
      "<robot name=\"r\" xmlns:drake=\"http://drake.mit.edu\" xmlns:isobar=\"urn:isobar:sdformat\">\n"
      "<link name=\"plate\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" "
      "iyz=\"0\"/></inertial>\n"
      "<collision name=\"top\"><origin xyz=\"0.1 0 0.2\" rpy=\"0 0 1.5707963267948966\"/>\n"
      "<geometry><box size=\"0.2 0.2 0.02\"/></geometry>\n"
      "<isobar:tactile_pad><isobar:rows value=\"8\"/><isobar:cols value=\"4\"/><isobar:spacing value=\"0.004\"/>"
      "<origin xyz=\"0.01 0.02 0.03\" rpy=\"1.5707963267948966 0 0\"/></isobar:tactile_pad>\n"
      "</collision></link></robot>");
  isoModel *m = load(path);
  cr_assert_eq(iso_model_tactile_pad_count(m), 1);
  const double p[3] = {0.08, 0.01, 0.23};
  assert_pad(m, 0, geometry(m, "r::plate::top"), 8, 4, 0.004, p, HALVES);
  iso_model_destroy(m);
}

/* A free link holding the collision `coll` (its inside: geometry and pads). */
static const char *one_collision(const char *name, const char *coll) {
  char body[4096];
  snprintf(body, sizeof body, "<model name=\"m\"><link name=\"l\">\n<collision name=\"c\">\n%s\n</collision>\n"
           "</link></model>", coll);
  return write_sdf(name, body);
}

#define BOX "<geometry><box><size>0.1 0.1 0.1</size></box></geometry>\n"
#define PAD(rows, cols, spacing)                                                                       \
  "<isobar:tactile_pad>\n<isobar:rows>" rows "</isobar:rows>\n<isobar:cols>" cols "</isobar:cols>\n" \
  "<isobar:spacing>" spacing "</isobar:spacing>\n</isobar:tactile_pad>"

/* The model's own checks (rows, cols >= 1; spacing in [ISO_MIN_SIZE, ISO_MAX_SIZE]) name the
 * pad's line and its collision; what cannot be read names the element. */
Test(scene_tactile, bad_pads_fail_naming_the_line) {
  test_load_fails_at(one_collision("rows0.sdf", BOX PAD("0", "4", "0.004")), ISO_ERR_INVALID, "<isobar:tactile_pad>",
             "rows 0");
  test_load_fails_at(one_collision("cols.sdf", BOX PAD("4", "-2", "0.004")), ISO_ERR_INVALID, "<isobar:tactile_pad>",
             "collision 'm::l::c'");
  test_load_fails_at(one_collision("spacing0.sdf", BOX PAD("4", "4", "0")), ISO_ERR_INVALID, "<isobar:tactile_pad>",
             "spacing 0");
  test_load_fails_at(one_collision("spacing_neg.sdf", BOX PAD("4", "4", "-0.004")), ISO_ERR_INVALID, "<isobar:tactile_pad>",
             "spacing -0.004");
  test_load_fails_at(one_collision("half.sdf", BOX PAD("2.5", "4", "0.004")), ISO_ERR_PARSE, "<isobar:rows>", "whole number");
  test_load_fails_at(one_collision("word.sdf", BOX PAD("4", "four", "0.004")), ISO_ERR_PARSE, "<isobar:cols>", "cols");
  test_load_fails_at(one_collision("missing.sdf",
                           BOX "<isobar:tactile_pad>\n<isobar:rows>4</isobar:rows><isobar:cols>4</isobar:cols>\n"
                               "</isobar:tactile_pad>"),
             ISO_ERR_PARSE, "<isobar:tactile_pad>", "<isobar:spacing> is missing");
  test_load_fails_at(one_collision("misspelt_child.sdf",
                           BOX "<isobar:tactile_pad>\n<isobar:row>4</isobar:row>\n</isobar:tactile_pad>"),
             ISO_ERR_INVALID, "<isobar:row>", "does not belong in <isobar:tactile_pad>");
  test_load_fails_at(one_collision("misspelt.sdf", BOX "<isobar:tactilepad>\n</isobar:tactilepad>"), ISO_ERR_INVALID,
             "<isobar:tactilepad>", "does not belong in <collision>");
  test_load_fails_at(one_collision("relative.sdf",
                           BOX "<isobar:tactile_pad><isobar:rows>4</isobar:rows><isobar:cols>4</isobar:cols>"
                               "<isobar:spacing>0.004</isobar:spacing>\n<pose relative_to=\"l\">0 0 0 0 0 0</pose>"
                               "</isobar:tactile_pad>"),
             ISO_ERR_UNSUPPORTED, "<pose relative_to", "relative_to");
  test_load_fails_at(one_collision("empty.sdf", "<geometry><empty/></geometry>\n" PAD("4", "4", "0.004")), ISO_ERR_INVALID,
             "<isobar:tactile_pad>", "<empty/>");
  test_load_fails_at(write_sdf("deformable.sdf",
                       "<model name=\"m\"><link name=\"beam\"><collision name=\"c\">"
                       "<geometry><mesh><uri>file://MESH</uri></mesh></geometry>\n" PAD("4", "4", "0.004")
                       "</collision>\n<drake:deformable_properties><drake:youngs_modulus>1e6</drake:youngs_modulus>"
                       "</drake:deformable_properties></link></model>"),
             ISO_ERR_UNSUPPORTED, "<isobar:tactile_pad>", "deformable");
  const char *urdf = write_urdf("bad.urdf", "<robot name=\"r\" xmlns:isobar=\"urn:isobar:sdformat\">\n<link name=\"l\"><collision>\n"
                                            "<geometry><box size=\"0.1 0.1 0.1\"/></geometry>\n"
                                            "<isobar:tactile_pad><isobar:rows value=\"4\"/><isobar:cols value=\"4\"/>\n"
                                            "<isobar:spacing/></isobar:tactile_pad>\n"
                                            "</collision></link></robot>");
  test_load_fails_at(urdf, ISO_ERR_PARSE, "<isobar:spacing/>", "'value'");
}

/* The physics, loosely, from a file: a 1 kg rigid 0.1 m cube resting on a compliant plate whose
 * top face (z = 0) carries a 64 × 64 pad at 2.5 mm, as tests/test_tactile.c's resting test
 * builds it with the C API. The patch's edges (±50 mm) lie midway between taxels, so the cells
 * tile the patch and Σ p·s² is the contact force to round-off; at rest (the cube's vertical
 * velocity changes by < 1e-7 m/s over a step, checked) that force is m·g within m·1e-7/δt =
 * 1e-4 N. */
Test(scene_tactile, resting_box_on_a_padded_plate_weighs_its_weight) {
  const char *path = write_sdf(
      "rest.sdf",
      "<model name=\"plate\"><static>true</static><link name=\"plate\">\n"
      "<collision name=\"plate\"><pose>0 0 -0.025 0 0 0</pose><geometry><box><size>0.2 0.2 0.05</size></box>"
      "</geometry>\n<drake:proximity_properties><drake:compliant_hydroelastic/>"
      "<drake:hydroelastic_modulus>1e7</drake:hydroelastic_modulus></drake:proximity_properties>\n"
      "<isobar:tactile_pad><isobar:rows>64</isobar:rows><isobar:cols>64</isobar:cols>"
      "<isobar:spacing>0.0025</isobar:spacing><pose>0 0 0.025 0 0 0</pose></isobar:tactile_pad>\n"
      "</collision></link></model>\n"
      "<model name=\"cube\"><pose>0 0 0.05 0 0 0</pose><link name=\"cube\"><inertial><mass>1</mass><inertia>"
      "<ixx>0.0016667</ixx><iyy>0.0016667</iyy><izz>0.0016667</izz></inertia></inertial>\n"
      "<collision name=\"cube\"><geometry><box><size>0.1 0.1 0.1</size></box></geometry>"
      "<drake:proximity_properties><drake:rigid_hydroelastic/></drake:proximity_properties></collision>\n"
      "</link></model>");
  isoModel *m = load(path);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 1, sd.threads = 1, sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  for (int i = 0; i < 400; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  double v0[6], v1[6];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v0), ISO_OK);
  cr_assert_eq(iso_sim_step(s), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v1), ISO_OK);
  cr_assert(fabs(v1[5] - v0[5]) < 1e-7, "not at rest: v_z %g → %g", v0[5], v1[5]);
  enum { N = 64 * 64 };
  double *p = (double *)malloc(sizeof(double) * N);
  cr_assert_eq(iso_sim_get_taxel_pressures(s, 0, iso_worlds_all(), p), ISO_OK, "%s", iso_last_error());
  double load_n = 0;
  int pressed = 0;
  for (int k = 0; k < N; ++k) load_n += p[k] * 0.0025 * 0.0025, pressed += p[k] != 0;
  cr_expect(fabs(load_n - 9.81) <= 1e-4, "Σ p·s² = %.9g N, weight 9.81 N", load_n);
  cr_expect_eq(pressed, 1600, "%d taxels pressed, the patch covers 40 × 40", pressed);
  free(p);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* examples/pick.sdf's pads: the fingers (PD targets lift 0.1, left and right 0.04, held, as its
 * comment runs it) close on the cube and lift it. Their actuators saturate at the 8 N effort
 * limit (checked), and a finger slides on x alone, so at rest in x the contact pushes it back
 * with the grip: each pad's Σ p·s² is 8 N but for two things.
 *   - The finger's x acceleration: m_f·|Δv_x|/δt, measured over one more step (m_f = 0.1 kg).
 *   - The tiling of the patch by the taxels' cells. The patch is the finger face's overlap with
 *     the cube's side: its y edges are the face's (±20 mm, the borders of the 8 rows' cells),
 *     its lower edge the finger's bottom (the 20 columns tile the 100 mm face, so a cell
 *     border), its upper edge the cube's top, which cuts cells anywhere. A cell counted whole
 *     where the patch covers part of it, or not at all where it covers part, is off by at most
 *     s²/2 of area, at a pressure no higher than the largest taxel's p_max. With the cube
 *     turned less than 0.1 rad (checked), the edge rises < 40 mm·tan 0.1 = 4 mm < s across the
 *     face, so it cuts at most 9 cells: the error is at most 9·p_max·s²/2 (0.54 N here).
 * That bound takes the traction as uniform over each cell the patch covers whole; it is not
 * quite: the two pads read 7.67 N and 8.15 N while both fingers' contact forces are 8.00 N to
 * 2e-3 N (iso_sim_get_body_contact_wrench), so the cube's surface polygons carry tractions that
 * vary over the face, and one taxel per cell samples them unevenly. Both stay inside the bound;
 * a pad sampling the wrong face or frame reads 0 or a sign flip. */
Test(scene_tactile, pick_pads_sense_the_grip) {
  isoModel *m = load(test_source_path("examples/pick.sdf"));
  cr_assert_eq(iso_model_tactile_pad_count(m), 2);
  cr_assert_eq(iso_model_nq(m), 10, "the cube's 7 positions, then lift, left, right");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 1, sd.threads = 1, sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  const double target[3] = {0.1, 0.04, 0.04}; /* lift, left, right, in the file's order */
  cr_assert_eq(iso_model_actuator_count(m), 3);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), target), ISO_OK, "%s",
               iso_last_error());
  for (int i = 0; i < 1500; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "step %d: %s", i, iso_last_error());
  double v0[9], v1[9], q[10], a[3];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v0), ISO_OK);
  cr_assert_eq(iso_sim_step(s), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v1), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_ACTUATION, iso_worlds_all(), a), ISO_OK);
  const double cube_top = q[6] + 0.03, finger_bottom = q[7] + 0.18 - 0.12 - 0.05, h = cube_top - finger_bottom;
  cr_assert(q[6] > 0.06, "the cube was not lifted: z %g m", q[6]);
  cr_assert(h > 0.02 && h < 0.1, "patch height %g m", h);
  const double turn = 2 * acos(fmin(1.0, fabs(q[0]))); /* the cube's quaternion is q[0..3] */
  cr_assert(turn < 0.1, "the cube turned %g rad in the grip", turn);
  const double s_ = 0.005, dt = 1e-3;
  double *pr = (double *)malloc(sizeof(double) * 160);
  for (int pad = 0; pad < 2; ++pad) {
    const double grip = fabs(a[1 + pad]);
    cr_assert(fabs(grip - 8) <= 8e-12, "finger %d applies %.17g N, not its saturated 8 N", pad, a[1 + pad]);
    int count = 0;
    cr_assert_eq(iso_sim_taxel_offset(s, pad, NULL, &count), ISO_OK);
    cr_assert_eq(count, 160);
    cr_assert_eq(iso_sim_get_taxel_pressures(s, pad, iso_worlds_all(), pr), ISO_OK, "%s", iso_last_error());
    double sensed = 0, p_max = 0;
    for (int k = 0; k < count; ++k) sensed += pr[k] * s_ * s_, p_max = fmax(p_max, pr[k]);
    const double dyn = 0.1 * fabs(v1[7 + pad] - v0[7 + pad]) / dt, tiling = 9 * p_max * s_ * s_ / 2;
    cr_expect(fabs(sensed - grip) <= dyn + tiling, "pad %d senses %.9g N, grip %.9g N (bound %.3g N + %.3g N)", pad,
              sensed, grip, dyn, tiling);
  }
  free(pr);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
