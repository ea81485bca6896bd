/* Welds in scene files: an <isobar:weld> inside a deformable link welds the vertices inside a
 * shape posed on a rigid link to that link's body (iso_model_weld_deformable), placing the
 * shape where the file poses the link; a static link or the world holds them instead. Every
 * mistake fails naming file:line and the element. The beam mesh is a 16 × 3 × 3 grid
 * (x = 0, 0.02, ..., 0.3; y, z = −0.02, 0, 0.02), so a thin slab across it catches exactly
 * the 9 vertices of one x plane: the counts below are exact. */
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
 * MESH replaced by the example beam mesh's absolute path. */
static const char *write_sdf(const char *name, const char *body) {
  return test_write_sdf(g_dir, sizeof g_dir, "scene_weld", name, "xmlns:isobar=\"urn:isobar:sdformat\"",
                        "examples/meshes/soft_beam.vtk", body);
}

static void cleanup(void) {
  if (g_dir[0]) test_tmpdir_remove(g_dir);
  g_dir[0] = '\0';
}

TestSuite(scene_weld, .fini = cleanup);

static isoModel *load(const char *path, isoLoadReport **report) {
  isoLoadOptions o = iso_default_load_options();
  o.strict = report == NULL;
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, &o, &m, report);
  cr_assert_eq(st, ISO_OK, "%s: %s (%s)", path, iso_last_error(), iso_status_string(st));
  return m;
}

/* Model "m": rigid links `links` and joints, then the beam (at z = 0.5) holding `welds`. */
static const char *beam_scene(const char *name, const char *links, const char *welds) {
  char body[8192];
  snprintf(body, sizeof body,
           "<model name=\"m\">\n%s\n<link name=\"beam\">\n<pose>0 0 0.5 0 0 0</pose>\n"
           "<collision name=\"c\"><geometry><mesh><uri>file://MESH</uri></mesh></geometry></collision>\n"
           "<drake:deformable_properties><drake:youngs_modulus>1e6</drake:youngs_modulus>"
           "</drake:deformable_properties>\n%s\n</link>\n</model>",
           links, welds);
  return write_sdf(name, body);
}

/* A free 0.5 kg link `name` at `pose`. */
#define FREE_LINK(name, pose) \
  "<link name=\"" name "\"><pose>" pose "</pose><inertial><mass>0.5</mass></inertial></link>\n"

/* The held flags of deformable 0, and how many are set. */
static int held_count(const isoModel *m) {
  int nv = 0, n = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  unsigned char *held = (unsigned char *)malloc((size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, NULL, NULL, NULL, held), ISO_OK);
  for (int v = 0; v < nv; ++v) n += held[v];
  free(held);
  return n;
}

/* The handle is turned a quarter about z and set back 3 cm from the beam's end: the weld's slab,
 * written in the handle's frame, reaches the end plane x = 0 only through the handle's initial
 * pose (placed at the origin, it would lie 0.5 m below the beam and catch nothing). A second
 * weld on a link fixed to the handle (one body with it, rolled 0.3 rad) catches the plane
 * x = 0.1 through that link's pose in the merged body. The file is clean: nothing reported. */
Test(scene_weld, welds_to_a_free_link_at_its_initial_pose) {
  const char *links = FREE_LINK("handle", "-0.03 0 0.5 0 0 1.5707963267948966")
      FREE_LINK("grip", "0.1 0 0.5 0.3 0 0")
      "<joint name=\"fix\" type=\"fixed\"><parent>handle</parent><child>grip</child></joint>\n";
  const char *welds =
      "<isobar:weld>\n<isobar:body>handle</isobar:body>\n<pose>0 -0.03 0 0 0 0</pose>\n"
      "<geometry><box><size>0.1 0.01 0.1</size></box></geometry>\n</isobar:weld>\n"
      "<isobar:weld>\n<isobar:body>grip</isobar:body>\n"
      "<geometry><box><size>0.01 0.2 0.2</size></box></geometry>\n</isobar:weld>";
  isoModel *m = load(beam_scene("free.sdf", links, welds), NULL);
  cr_assert_eq(iso_model_body_count(m), 1, "grip is fixed to handle: one body");
  cr_assert_eq(iso_model_deformable_count(m), 1);
  int n = -1;
  cr_assert_eq(iso_model_deformable_weld_count(m, 0, &n), ISO_OK);
  cr_assert_eq(n, 18, "9 vertices at x = 0 and 9 at x = 0.1 (got %d)", n);
  cr_assert_eq(held_count(m), 0, "welds to a free body hold nothing in place");
  iso_model_destroy(m);
}

/* A link on a revolute joint carries a weld as a free link does: the slab, in the arm's frame,
 * catches the end plane x = 0 through the pose the joint gives the arm (turned a quarter about
 * z, set back 3 cm, as the free handle above). The base is fixed to the world, so the arm's
 * pose comes from the joint alone. The beam then hangs from the arm, which the hinge's axis
 * leaves free to turn only about z: a few steps under gravity keep every world sound. */
Test(scene_weld, welds_to_a_link_on_a_joint) {
  const char *links = "<link name=\"base\"><pose>-0.03 0 0.5 0 0 0</pose><inertial><mass>1</mass></inertial></link>\n"
      "<joint name=\"fix\" type=\"fixed\"><parent>world</parent><child>base</child></joint>\n"
      FREE_LINK("arm", "-0.03 0 0.5 0 0 1.5707963267948966")
      "<joint name=\"hinge\" type=\"revolute\"><parent>base</parent><child>arm</child>"
      "<axis><xyz>0 0 1</xyz></axis></joint>\n";
  const char *welds = "<isobar:weld>\n<isobar:body>arm</isobar:body>\n<pose>0 -0.03 0 0 0 0</pose>\n"
                      "<geometry><box><size>0.1 0.01 0.1</size></box></geometry>\n</isobar:weld>";
  isoModel *m = load(beam_scene("jointed.sdf", links, welds), NULL);
  int n = -1, arm = -1;
  cr_assert_eq(iso_scene_find_body(m, "m::arm", &arm), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_deformable_weld_count(m, 0, &n), ISO_OK);
  cr_assert_eq(n, 9, "the 9 vertices at x = 0 (got %d)", n);
  cr_assert_eq(held_count(m), 0, "welds to a jointed body hold nothing in place");
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, NULL, &s), ISO_OK, "%s", iso_last_error());
  for (int k = 0; k < 10; ++k) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  uint32_t st = 1;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u, "status bits %#x", st);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Each shape, sized as SDFormat sizes it, around the middle (0.3, 0, 0) of the beam's far end
 * on a free link at the beam's origin. A sphere of radius 0.03 holds the 9 vertices of the end
 * plane (the farthest √0.0008 = 0.028 away) and 5 of the plane 0.02 in (its centre, 0.02 away,
 * and its edge midpoints, 0.028; its corners are √0.0012 = 0.035 away): 14. A cylinder along z
 * of radius 0.005 and a capsule whose segment reaches z = ±0.02 hold the end plane's line
 * y = 0: 3. An ellipsoid with semi-axes (0.005, 0.03, 0.03) holds the end plane: 9. */
Test(scene_weld, every_shape) {
  static const struct {
    const char *geometry;
    int count;
  } cases[] = {
      {"<sphere><radius>0.03</radius></sphere>", 14},
      {"<cylinder><radius>0.005</radius><length>0.1</length></cylinder>", 3},
      {"<capsule><radius>0.005</radius><length>0.04</length></capsule>", 3},
      {"<ellipsoid><radii>0.005 0.03 0.03</radii></ellipsoid>", 9},
      {"<drake:ellipsoid><a>0.005</a><b>0.03</b><c>0.03</c></drake:ellipsoid>", 9},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char welds[512];
    snprintf(welds, sizeof welds, "<isobar:weld><isobar:body>handle</isobar:body><pose>0.3 0 0 0 0 0</pose>"
             "<geometry>%s</geometry></isobar:weld>", cases[i].geometry);
    isoModel *m = load(beam_scene("shape.sdf", FREE_LINK("handle", "0 0 0.5 0 0 0"), welds), NULL);
    int n = -1;
    cr_assert_eq(iso_model_deformable_weld_count(m, 0, &n), ISO_OK);
    cr_assert_eq(n, cases[i].count, "%s: %d welded, want %d", cases[i].geometry, n, cases[i].count);
    iso_model_destroy(m);
  }
}

/* The world, or a link of a static model, holds the vertices in place: no weld to a body. */
Test(scene_weld, world_and_static_links_hold) {
  const char *welds = "<isobar:weld><isobar:body>world</isobar:body><pose>0 0 0.5 0 0 0</pose>"
                      "<geometry><box><size>0.01 0.1 0.1</size></box></geometry></isobar:weld>\n"
                      "<isobar:weld><isobar:body>post::top</isobar:body><pose>0 0 0 0 0 0</pose>"
                      "<geometry><box><size>0.01 0.1 0.1</size></box></geometry></isobar:weld>";
  const char *links = "<model name=\"post\"><static>true</static><link name=\"top\"><pose>0.3 0 0.5 0 0 0</pose>"
                      "</link></model>";
  isoModel *m = load(beam_scene("held.sdf", links, welds), NULL);
  cr_assert_eq(iso_model_body_count(m), 0);
  int n = -1;
  cr_assert_eq(iso_model_deformable_weld_count(m, 0, &n), ISO_OK);
  cr_assert_eq(n, 0);
  cr_assert_eq(held_count(m), 18, "both end planes are held");
  iso_model_destroy(m);
}

#define SLAB "<geometry><box><size>0.01 0.1 0.1</size></box></geometry>"

/* Every mistake names the file, the line and the element. */
Test(scene_weld, errors_name_the_line) {
  const char *free_handle = FREE_LINK("handle", "0 0 0.5 0 0 0");
  test_load_fails_at(beam_scene("e1.sdf", free_handle, "<isobar:weld>\n<isobar:body>nope</isobar:body>" SLAB "</isobar:weld>"),
             ISO_ERR_PARSE, "<isobar:body>nope", "'nope' names no link of model 'm'");
  /* a link a joint moves: the shape sits where the joint puts the link, away from the beam */
  const char *arm = FREE_LINK("base", "0 0 0.5 0 0 0") FREE_LINK("arm", "0 0 1.5 0 0 0")
      "<joint name=\"hinge\" type=\"revolute\"><parent>base</parent><child>arm</child>"
      "<axis><xyz>0 0 1</xyz></axis></joint>";
  test_load_fails_at(beam_scene("e2.sdf", arm, "<isobar:weld>\n<isobar:body>arm</isobar:body>" SLAB "</isobar:weld>"),
             ISO_ERR_INVALID, "<isobar:weld>", "holds no vertex");
  test_load_fails_at(beam_scene("e3.sdf", free_handle, "<isobar:weld><isobar:body>handle</isobar:body>\n<geometry>"
                        "<mesh><uri>x.obj</uri></mesh></geometry></isobar:weld>"),
             ISO_ERR_UNSUPPORTED, "x.obj", "<mesh> is not supported");
  test_load_fails_at(beam_scene("e4.sdf", free_handle, "<isobar:weld><isobar:body>handle</isobar:body>\n<geometry>"
                        "<plane><normal>0 0 1</normal></plane></geometry></isobar:weld>"),
             ISO_ERR_UNSUPPORTED, "<plane>", "<plane> is not supported");
  test_load_fails_at(beam_scene("e5.sdf", free_handle, "<isobar:weld>\n<isobar:body>handle</isobar:body><pose>0 0 1 0 0 0</pose>"
                        SLAB "</isobar:weld>"),
             ISO_ERR_INVALID, "<isobar:weld>", "holds no vertex");
  test_load_fails_at(beam_scene("e6.sdf", free_handle, "<isobar:weld>\n<isobar:body>handle</isobar:body></isobar:weld>"),
             ISO_ERR_PARSE, "<isobar:weld>", "needs a <geometry>");
  test_load_fails_at(beam_scene("e7.sdf", free_handle, "<isobar:weld>\n" SLAB "</isobar:weld>"), ISO_ERR_PARSE,
             "<isobar:weld>", "needs an <isobar:body>");
  test_load_fails_at(beam_scene("e8.sdf", free_handle, "<isobar:weld><isobar:body>handle</isobar:body>\n<geometry>"
                        "<!-- empty --></geometry></isobar:weld>"),
             ISO_ERR_PARSE, "<!-- empty -->", "has no shape");
  test_load_fails_at(beam_scene("e9.sdf", free_handle, "<isobar:weld><isobar:body>handle</isobar:body>\n"
                        "<pose relative_to=\"beam\">0 0 0 0 0 0</pose>" SLAB "</isobar:weld>"),
             ISO_ERR_UNSUPPORTED, "relative_to=", "relative_to is not supported");
  test_load_fails_at(beam_scene("e10.sdf", free_handle, "<isobar:weld>\n<isobar:body>beam</isobar:body>" SLAB "</isobar:weld>"),
             ISO_ERR_UNSUPPORTED, "<isobar:body>beam", "'beam' is a deformable link");
  /* negative sizes: the API's check, located */
  test_load_fails_at(beam_scene("e11.sdf", free_handle, "<isobar:weld>\n<isobar:body>handle</isobar:body><geometry><sphere>"
                        "<radius>-1</radius></sphere></geometry></isobar:weld>"),
             ISO_ERR_INVALID, "<isobar:weld>", "sizes >= 0");
}

/* isobar's own namespace: a misspelt or misplaced isobar: element is an error, not a line in
 * the report, since ignoring it would silently weld nothing. */
Test(scene_weld, misplaced_elements_are_errors) {
  const char *free_handle = FREE_LINK("handle", "0 0 0.5 0 0 0");
  test_load_fails_at(beam_scene("m1.sdf", free_handle, "<isobar:wled>\n<isobar:body>handle</isobar:body>" SLAB "</isobar:wled>"),
             ISO_ERR_INVALID, "<isobar:wled>", "<isobar:wled> does not belong in <link>");
  test_load_fails_at(beam_scene("m2.sdf", free_handle, "<isobar:weld><isobar:body>handle</isobar:body>\n"
                        "<isobar:size>1</isobar:size>" SLAB "</isobar:weld>"),
             ISO_ERR_INVALID, "<isobar:size>", "does not belong in <isobar:weld>");
  const char *rigid = "<link name=\"handle\"><inertial><mass>1</mass></inertial>\n<isobar:weld>"
                      "<isobar:body>world</isobar:body>" SLAB "</isobar:weld></link>";
  test_load_fails_at(beam_scene("m3.sdf", rigid, ""), ISO_ERR_INVALID, "<isobar:weld>", "belongs to a deformable link");
}

/* Without the xmlns:isobar declaration the prefix still reads, as drake: does (libxml2's
 * namespace complaint is not an error), and the load reports nothing. */
Test(scene_weld, undeclared_prefix_reads) {
  if (!g_dir[0]) {
    test_tmp_template(g_dir, sizeof g_dir, "scene_weld");
    cr_assert_not_null(mkdtemp(g_dir));
  }
  char path[700];
  snprintf(path, sizeof path, "%s/undeclared.sdf", g_dir);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\" xmlns:drake=\"http://drake.mit.edu\">\n"
             "<model name=\"m\">" FREE_LINK("handle", "0 0 0.5 0 0 0")
             "<link name=\"beam\"><pose>0 0 0.5 0 0 0</pose>\n"
             "<collision name=\"c\"><geometry><mesh><uri>file://%s</uri></mesh></geometry></collision>\n"
             "<drake:deformable_properties><drake:youngs_modulus>1e6</drake:youngs_modulus>"
             "</drake:deformable_properties>\n"
             "<isobar:weld><isobar:body>handle</isobar:body>" SLAB "</isobar:weld>\n</link></model></sdf>\n",
             test_source_path("examples/meshes/soft_beam.vtk"));
  fclose(f);
  isoLoadReport *r = NULL;
  isoModel *m = load(path, &r);
  cr_assert_eq(iso_load_report_count(r), 0, "%s", iso_load_report_count(r) ? iso_load_report_line(r, 0) : "");
  iso_load_report_free(r);
  int n = -1;
  cr_assert_eq(iso_model_deformable_weld_count(m, 0, &n), ISO_OK);
  cr_assert_eq(n, 9);
  cr_assert_eq(iso_model_deformable_weld_count(m, 1, &n), ISO_ERR_NOT_FOUND);
  iso_model_destroy(m);
}

/* The example: its slab holds the beam's first two cross-sections, x = 0 and 0.02, on the
 * handle; strict, so it uses nothing isobar ignores. */
Test(scene_weld, example_welds_two_cross_sections) {
  isoModel *m = load(test_source_path("examples/soft_handle.sdf"), NULL);
  int id = -1, n = -1, handle = -1;
  cr_assert_eq(iso_scene_find_body(m, "soft_handle::handle", &handle), ISO_OK);
  cr_assert_eq(iso_model_find_deformable(m, "soft_handle::beam", &id), ISO_OK);
  cr_assert_eq(iso_model_deformable_weld_count(m, id, &n), ISO_OK);
  cr_assert_eq(n, 18);
  iso_model_destroy(m);
}

/* The hinged example: the same 18 vertices welded, now to a handle on a revolute joint. Released
 * level, the pair swings down: after 0.1 s the hinge has turned some 0.2 rad (the beam's weight,
 * 4.7 N at 0.18 m from the hinge, against its 0.019 kg m² about it gives 44 rad/s², less while
 * the beam bends; more than 0.1 rad is checked). Throughout, the welded vertices stay on their
 * handle points within the spin-up bound of test_fem_weld_joint.c (1e-4 m; the load here, the
 * beam's weight, is a few newtons, like the spin-up's). */
Test(scene_weld, hinged_example_swings_with_its_beam) {
  isoModel *m = load(test_source_path("examples/soft_hinge.sdf"), NULL);
  int id = -1, n = -1, handle = -1, nv = 0;
  cr_assert_eq(iso_scene_find_body(m, "soft_hinge::handle", &handle), ISO_OK);
  cr_assert_eq(iso_model_find_deformable(m, "soft_hinge::beam", &id), ISO_OK);
  cr_assert_eq(iso_model_deformable_weld_count(m, id, &n), ISO_OK);
  cr_assert_eq(n, 18);
  cr_assert_eq(iso_model_deformable_size(m, id, &nv, NULL, NULL), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv), *x = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, id, rest, NULL, NULL, NULL), ISO_OK);
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, NULL, &s), ISO_OK, "%s", iso_last_error());
  double gap = 0, pose[7], q = 0;
  for (int step = 0; step < 100; ++step) {
    cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
    cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), pose), ISO_OK);
    /* the handle turns about y only: R_y(θ) with (w, y) = (cos θ/2, sin θ/2) */
    const double c = pose[3] * pose[3] - pose[5] * pose[5], sn = 2 * pose[3] * pose[5];
    for (int v = 0; v < nv; ++v) {
      if (rest[3 * v] > 0.02 + 1e-9) continue; /* the welded cross-sections */
      const double P[3] = {rest[3 * v] + 0.031, rest[3 * v + 1], rest[3 * v + 2] - 1}; /* handle frame */
      const double want[3] = {pose[0] + c * P[0] + sn * P[2], pose[1] + P[1], pose[2] - sn * P[0] + c * P[2]};
      for (int k = 0; k < 3; ++k) gap = fmax(gap, fabs(x[3 * v + k] - want[k]));
    }
  }
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), &q), ISO_OK);
  cr_expect_gt(q, 0.1, "the hinge turned %g rad in 0.1 s", q);
  cr_expect_lt(gap, 1e-4, "a welded vertex left its handle point by %g m", gap);
  uint32_t st = 1;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  iso_sim_destroy(s);
  free(rest), free(x);
  iso_model_destroy(m);
}
