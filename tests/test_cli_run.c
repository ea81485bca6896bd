/* isobar run, end to end: the tool is run as a user would (system() with redirected output) on
 * the example scenes. It exits 0 and ends its stdout with one JSON line; --steps 0 records
 * exactly the initial state; --initial-velocity reaches the recorded state; state_hash is the
 * same for any thread count and is the library's final state hashed as documented; bad input
 * exits non-zero with the file named on stderr, and never crashes. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/run_hash.h"
#include "support/support.h"

static char tmpdir[256];

static void make_tmpdir(void) {
  test_tmp_template(tmpdir, sizeof tmpdir, "isobar_cli_");
  cr_assert(mkdtemp(tmpdir) != NULL);
}

static void remove_tmpdir(void) { test_tmpdir_remove(tmpdir); }

TestSuite(cli_run, .init = make_tmpdir, .fini = remove_tmpdir);

static const char *bin(void) {
  const char *b = getenv("ISO_BINARY_DIR");
  if (!b) cr_skip_test("ISO_BINARY_DIR is unset: run the tests through ctest to find the isobar tool");
  return b;
}

static const char *src(const char *rel) {
  static char buf[8][1024];
  static int next;
  const char *s = getenv("ISO_SOURCE_DIR");
  if (!s) cr_skip_test("ISO_SOURCE_DIR is unset: run the tests through ctest");
  char *b = buf[next++ & 7];
  snprintf(b, sizeof buf[0], "%s/%s", s, rel);
  return b;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return calloc(1, 1);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = (char *)calloc((size_t)n + 1, 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = '\0';
  fclose(f);
  return s;
}

/* Run `isobar run ARGS`; returns the exit code, fills *out and *err (free them). */
static int run(const char *args, char **out, char **err) {
  const char *b = bin();
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "\"%s/isobar\" run %s >\"%s/out\" 2>\"%s/err\"", b, args, tmpdir, tmpdir);
  int status = system(cmd);
  cr_assert(status != -1);
  cr_assert(WIFEXITED(status), "isobar run %s did not exit normally (a crash?)", args);
  char p[600];
  snprintf(p, sizeof p, "%s/out", tmpdir);
  *out = slurp(p);
  snprintf(p, sizeof p, "%s/err", tmpdir);
  *err = slurp(p);
  return WEXITSTATUS(status);
}

static const char *last_line(char *s) {
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == '\n') s[--n] = '\0';
  char *nl = strrchr(s, '\n');
  return nl ? nl + 1 : s;
}

static void has(const char *hay, const char *needle) {
  cr_assert(strstr(hay, needle) != NULL, "'%s' lacks '%s'", hay, needle);
}

Test(cli_run, example_runs_and_ends_with_one_json_line) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --worlds 3 --steps 20 --backend cpu --threads 1", src("examples/compliant_box_on_plane.sdf"));
  int rc = run(args, &out, &err);
  cr_assert_eq(rc, 0, "stderr: %s", err);
  const char *json = last_line(out);
  cr_assert(json[0] == '{' && json[strlen(json) - 1] == '}', "last line is not a JSON object: '%s'", json);
  has(json, "\"worlds\": 3");
  has(json, "\"steps\": 20");
  has(json, "\"backend\": \"cpu\"");
  has(json, "\"bodies\": 1");
  has(json, "\"wall_s\": ");
  has(json, "\"world_steps_per_s\": ");
  int faces = -1;
  const char *at = strstr(json, "\"contact_faces\": ");
  cr_assert_not_null(at);
  sscanf(at, "\"contact_faces\": %d", &faces);
  cr_assert_gt(faces, 0, "the box rests on the plane: it has contact faces");
  has(json, "\"contact_points\": 0"); /* hydroelastic only */
  has(json, "\"dt\": 0.001");
  has(err, "<visual> ignored"); /* the load report goes to stderr */
  free(out);
  free(err);
}

Test(cli_run, every_example_runs_strictly) {
  const char *dirs[2] = {src("examples"), src("examples/models")};
  int n = 0;
  for (int d = 0; d < 2; ++d) {
    DIR *dir = opendir(dirs[d]);
    cr_assert(dir != NULL);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
      size_t len = strlen(e->d_name);
      if (!(len > 4 && (strcmp(e->d_name + len - 4, ".sdf") == 0 || (len > 5 && strcmp(e->d_name + len - 5, ".urdf") == 0))))
        continue;
      char args[2048], *out, *err;
      /* the coin's surface has ~380 polygons: every example gets room for it */
      snprintf(args, sizeof args, "\"%s/%s\" --steps 5 --worlds 2 --backend cpu --strict --quiet --max-contacts 512",
               dirs[d], e->d_name);
      int rc = run(args, &out, &err);
      cr_assert_eq(rc, 0, "%s: %s", e->d_name, err);
      cr_assert_eq(err[0], '\0', "--quiet: nothing on stderr, got '%s'", err);
      cr_assert(strchr(out, '\n') == strrchr(out, '\n'), "--quiet: one line on stdout, got '%s'", out);
      has(out, "\"steps\": 5");
      has(out, "\"faulted_worlds\": 0");
      free(out);
      free(err);
      ++n;
    }
    closedir(dir);
  }
  cr_assert(n >= 9, "only %d examples", n);
}

Test(cli_run, zero_steps_record_exactly_the_initial_state) {
  char args[2048], csv[600], *out, *err;
  snprintf(csv, sizeof csv, "%s/initial.csv", tmpdir);
  snprintf(args, sizeof args, "\"%s\" --worlds 2 --steps 0 --backend cpu --record \"%s\" --initial-velocity box3::box=1,2,3,4,5,6",
           src("examples/stack_of_five_boxes.sdf"), csv);
  int rc = run(args, &out, &err);
  cr_assert_eq(rc, 0, "stderr: %s", err);
  has(last_line(out), "\"steps\": 0");
  char *text = slurp(csv);
  char *save = NULL, *line = strtok_r(text, "\n", &save);
  cr_assert_str_eq(line, "step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
  int rows = 0;
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    int w = rows / 5, b = rows % 5;
    char name[64], expect[512];
    snprintf(name, sizeof name, "box%d::box", b + 1);
    /* The initial state: each box resting on the one below, at rest but for box3. */
    const char *vel = b == 2 ? "1,2,3,4,5,6" : "0,0,0,0,0,0";
    const double zs[5] = {0.05, 0.15, 0.25, 0.35, 0.45}; /* as the file writes them */
    double z = zs[b];
    snprintf(expect, sizeof expect, "0,0,%d,%s,0,0,%.17g,1,0,0,0,%s", w, name, z, vel);
    cr_assert_str_eq(line, expect, "row %d: '%s', expected '%s'", rows, line, expect);
    ++rows;
  }
  cr_assert_eq(rows, 2 * 5, "steps 0 only: one row per world and body");
  free(text);
  free(out);
  free(err);
}

Test(cli_run, surfaces_file_holds_the_contact_polygons) {
  char args[2048], vtk[600], *out, *err;
  snprintf(vtk, sizeof vtk, "%s/surfaces.vtk", tmpdir);
  snprintf(args, sizeof args, "\"%s\" --steps 50 --backend cpu --surfaces \"%s\"",
           src("examples/compliant_box_on_plane.sdf"), vtk);
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  char *text = slurp(vtk);
  has(text, "# vtk DataFile Version 3.0\n");
  has(text, "DATASET POLYDATA\n");
  has(text, "SCALARS pressure double 1\n");
  int npoly = 0;
  const char *at = strstr(text, "POLYGONS ");
  cr_assert_not_null(at);
  cr_assert_eq(sscanf(at, "POLYGONS %d", &npoly), 1);
  cr_assert_gt(npoly, 0, "the box rests on the plane: the file holds its contact polygons");
  int faces = -1;
  const char *js = strstr(out, "\"contact_faces\": ");
  cr_assert_not_null(js, "%s", out);
  sscanf(js, "\"contact_faces\": %d", &faces);
  cr_assert_eq(faces, npoly, "the JSON counts the same faces (one world)");
  free(text);
  free(out);
  free(err);
}

Test(cli_run, bad_input_fails_naming_the_file) {
  char args[2048], *out, *err;
  const char *bad = src("tests/data/scenes/bad_negative_mass.sdf");
  snprintf(args, sizeof args, "\"%s\" --steps 1", bad);
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, bad);
  has(err, "mass -2");
  free(out);
  free(err);

  const char *missing = src("tests/data/scenes/no_such_scene.sdf");
  snprintf(args, sizeof args, "\"%s\"", missing);
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, missing);
  free(out);
  free(err);

  const char *unsup = src("tests/data/scenes/unsupported.sdf");
  snprintf(args, sizeof args, "\"%s\" --strict", unsup);
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, unsup);
  has(err, "strict");
  free(out);
  free(err);

  snprintf(args, sizeof args, "\"%s\" --steps 1 --initial-velocity box=1,0,0,0,0,0", src("examples/stack_of_five_boxes.sdf"));
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, "ambiguous");
  has(err, "'box1::box'");
  free(out);
  free(err);

  snprintf(args, sizeof args, "\"%s\" --steps 1 --initial-velocity crate=1,0,0,0,0,0", src("examples/stack_of_five_boxes.sdf"));
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, "no body named 'crate'");
  free(out);
  free(err);

  /* Usage errors exit 2. */
  const char *usage[] = {"", "--steps -1 x.sdf", "x.sdf --worlds 0", "x.sdf --bogus", "x.sdf --initial-velocity box=1,2",
                         "x.sdf --dt 0", "a.sdf b.sdf"};
  for (size_t i = 0; i < sizeof usage / sizeof usage[0]; ++i) {
    cr_assert_eq(run(usage[i], &out, &err), 2, "isobar run %s", usage[i]);
    cr_assert(err[0] != '\0', "isobar run %s says why", usage[i]);
    free(out);
    free(err);
  }
}

/* The coin runs at automatic capacities; a capacity given too small overflows. */
Test(cli_run, overflow_is_explained_with_the_capacity_needed) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --steps 3 --backend cpu --quiet --max-contacts 64 --initial-velocity coin=0.5,0,0,0,0,40",
           src("examples/coin_slide_spin.sdf"));
  /* a frozen world is a failed run unless the user says faults are expected */
  cr_assert_eq(run(args, &out, &err), 3, "stderr: %s", err);
  has(out, "\"faulted_worlds\": 1");
  has(out, "\"faults\": [\"overflow\", \"frozen\"]");
  has(err, "world 0 frozen: list overflow");
  has(err, "rerun with --max-contacts");
  free(out);
  free(err);
  snprintf(args, sizeof args, "\"%s\" --steps 3 --backend cpu --quiet --allow-faults --max-contacts 64 "
           "--initial-velocity coin=0.5,0,0,0,0,40",
           src("examples/coin_slide_spin.sdf"));
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  has(out, "\"faulted_worlds\": 1");
  free(out);
  free(err);
}

/* --max-deformable-contacts reaches the sim: the soft cube of soft_pick.sdf stands on the
 * ground from step 0 (its bottom face's 8 surface triangles on the half-space), so a list of one
 * polygon overflows in the first step, and the hint names the flag; a list of 512 runs. */
Test(cli_run, deformable_contact_capacity_is_a_flag) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --steps 3 --backend cpu --quiet --max-deformable-contacts 1",
           src("examples/soft_pick.sdf"));
  cr_assert_eq(run(args, &out, &err), 3, "stderr: %s", err);
  has(err, "world 0 frozen: list overflow");
  has(err, "larger --max-deformable-contacts");
  free(out);
  free(err);
  snprintf(args, sizeof args, "\"%s\" --steps 3 --backend cpu --quiet --max-deformable-contacts 512",
           src("examples/soft_pick.sdf"));
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  has(last_line(out), "\"faulted_worlds\": 0");
  free(out);
  free(err);
}

/* More worlds than the memory holds are refused at once, with the largest number that fits,
 * before anything is allocated (16M worlds of the five-box stack would need ~1.6 TB). */
Test(cli_run, too_many_worlds_are_refused_with_the_number_that_fits) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --worlds 16777216 --steps 1 --backend cpu --quiet",
           src("examples/stack_of_five_boxes.sdf"));
  cr_assert_eq(run(args, &out, &err), 1, "stderr: %s", err);
  has(err, "16777216 worlds need");
  has(err, "worlds of this model fit");
  free(out);
  free(err);
}

/* The "state_hash" of the JSON line: 16 hex digits. */
static uint64_t state_hash_of(const char *json) {
  const char *at = strstr(json, "\"state_hash\": \"");
  cr_assert_not_null(at, "no state_hash in '%s'", json);
  char hex[17] = {0};
  cr_assert_eq(sscanf(at, "\"state_hash\": \"%16[0-9a-f]\"", hex), 1, "'%s'", at);
  cr_assert_eq(strlen(hex), 16u, "state_hash '%s' is not 16 hex digits", hex);
  return (uint64_t)strtoull(hex, NULL, 16);
}

/* --grow-capacities: the capacities grow when a world overflows and the step is taken again, so
 * the run is the one a larger capacity gives from the start, bit for bit (same state hash), with
 * no fault. */
Test(cli_run, grow_capacities_gives_the_larger_capacity_run) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --worlds 3 --steps 20 --backend cpu --max-contacts 64 --grow-capacities "
           "--initial-velocity coin=0.5,0,0,0,0,40", src("examples/coin_slide_spin.sdf"));
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  has(err, "capacities grown to max_contacts");
  has(out, "\"faulted_worlds\": 0");
  const uint64_t grown = state_hash_of(last_line(out));
  free(out);
  free(err);
  snprintf(args, sizeof args, "\"%s\" --worlds 3 --steps 20 --backend cpu --quiet --max-contacts 1024 "
           "--initial-velocity coin=0.5,0,0,0,0,40", src("examples/coin_slide_spin.sdf"));
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  cr_assert_eq(state_hash_of(last_line(out)), grown, "the grown run differs from the large-capacity run");
  free(out);
  free(err);
}

/* The box of compliant_box_on_plane.sdf sliding and spinning on the plane. */
#define SLIDE "box=0.5,0,0,0,0,3"

static uint64_t run_hash_cli(int steps, int threads) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --worlds 3 --steps %d --backend cpu --threads %d --quiet --initial-velocity " SLIDE,
           src("examples/compliant_box_on_plane.sdf"), steps, threads);
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  uint64_t h = state_hash_of(last_line(out));
  free(out);
  free(err);
  return h;
}

Test(cli_run, state_hash_is_the_final_state_whatever_the_threads) {
  uint64_t h1 = run_hash_cli(20, 1), h2 = run_hash_cli(20, 2), h3 = run_hash_cli(21, 1);
  cr_assert_eq(h1, h2, "1 and 2 threads end in different states: %016" PRIx64 " vs %016" PRIx64, h1, h2);
  cr_assert_neq(h1, h3, "one more step of a sliding box leaves the same hash");

  /* The documented definition (FNV-1a of q, then v, of every world), computed in process. */
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(src("examples/compliant_box_on_plane.sdf"), NULL, &m, NULL), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 3;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  isoSim *sim = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &sim), ISO_OK, "%s", iso_last_error());
  int box = -1;
  cr_assert_eq(iso_scene_find_body(m, "box", &box), ISO_OK);
  cr_assert(box == 0 && iso_sim_body_count(sim) == 1, "the box is the scene's only body");
  const double v1[6] = {0, 0, 3, 0.5, 0, 0}; /* SLIDE as the sim's [angular, linear] */
  double v[18];
  for (int i = 0; i < 18; ++i) v[i] = v1[i % 6];
  cr_assert_eq(iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  for (int s = 0; s < 20; ++s) cr_assert_eq(iso_sim_step(sim), ISO_OK);
  uint64_t here = run_hash_final_state(sim);
  cr_assert_eq(here, h1, "isobar run says %016" PRIx64 ", the library's state hashes to %016" PRIx64, h1, here);
  iso_sim_destroy(sim);
  iso_model_destroy(m);
}

/* The row of `text` (a CSV file) that starts with `prefix`, copied into line (or "" when none). */
static void row_starting(const char *text, const char *prefix, char *line, size_t cap) {
  line[0] = '\0';
  const char *at = text;
  size_t n = strlen(prefix);
  while (at && *at) {
    if (strncmp(at, prefix, n) == 0) {
      const char *nl = strchr(at, '\n');
      size_t len = nl ? (size_t)(nl - at) : strlen(at);
      if (len >= cap) len = cap - 1;
      memcpy(line, at, len);
      line[len] = '\0';
      return;
    }
    at = strchr(at, '\n');
    if (at) ++at;
  }
}

/* --joint-position reaches the joints' recording and the bodies' poses; --effort the actuation. */
Test(cli_run, joint_flags_reach_the_recordings) {
  char args[2048], csv[600], bodies[600], line[512], *out, *err;
  snprintf(csv, sizeof csv, "%s/joints.csv", tmpdir);
  snprintf(bodies, sizeof bodies, "%s/bodies.csv", tmpdir);
  snprintf(args, sizeof args,
           "\"%s\" --worlds 2 --steps 1 --backend cpu --quiet --joint-position pivot=0.3 --effort pendulum::pivot=2 "
           "--record-joints \"%s\" --record \"%s\"",
           src("examples/pendulum.sdf"), csv, bodies);
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  char *text = slurp(csv);
  cr_assert(strncmp(text, "step,time,world,joint,q,v,effort\n", 33) == 0, "header: '%.40s'", text);
  row_starting(text, "0,0,1,", line, sizeof line);
  cr_assert_str_eq(line, "0,0,1,pendulum::pivot,0.29999999999999999,0,0", "step 0: the position set, no effort yet");
  row_starting(text, "1,0.001,1,", line, sizeof line);
  double q = 0, v = 0, u = 0;
  cr_assert_eq(sscanf(line, "1,0.001,1,pendulum::pivot,%lf,%lf,%lf", &q, &v, &u), 3, "'%s'", line);
  cr_assert_eq(u, 2.0, "the effort applied in the step");
  /* gravity pulls the bob back (about −g sin(0.3)/l), the effort of 2 N m forward: v < 0 */
  cr_assert(v < 0 && v > -0.01, "v = %g", v);
  free(text);
  /* the body's pose is the joint's rotation about y at the pivot, 2 m up */
  text = slurp(bodies);
  row_starting(text, "0,0,0,pendulum::bob,", line, sizeof line);
  double p[3], qt[4], vel[6];
  cr_assert_eq(sscanf(line, "0,0,0,pendulum::bob,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &p[0], &p[1], &p[2],
                      &qt[0], &qt[1], &qt[2], &qt[3], &vel[0], &vel[1], &vel[2], &vel[3], &vel[4], &vel[5]),
               13, "'%s'", line);
  cr_assert(p[0] == 0 && p[1] == 0 && p[2] == 2, "the body frame sits at the pivot: '%s'", line);
  cr_assert_float_eq(qt[0], cos(0.15), 1e-15);
  cr_assert_float_eq(qt[2], sin(0.15), 1e-15);
  cr_assert(qt[1] == 0 && qt[3] == 0, "'%s'", line);
  free(text);
  free(out);
  free(err);
}

/* A ball joint's DoFs are recorded one row each, named with their index, q the rotation vector. */
Test(cli_run, ball_joint_rows_hold_the_rotation_vector) {
  char args[2048], csv[600], line[512], *out, *err;
  snprintf(csv, sizeof csv, "%s/ball.csv", tmpdir);
  /* a rotation of 0.8 rad about (0, 0.6, 0.8): quaternion (cos 0.4, 0, 0.6 sin 0.4, 0.8 sin 0.4) */
  snprintf(args, sizeof args, "\"%s\" --steps 0 --backend cpu --quiet --joint-position ball=%.17g,0,%.17g,%.17g --record-joints \"%s\"",
           src("tests/data/scenes/joints.sdf"), cos(0.4), 0.6 * sin(0.4), 0.8 * sin(0.4), csv);
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  char *text = slurp(csv);
  const double want[3] = {0, 0.48, 0.64};
  for (int k = 0; k < 3; ++k) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "0,0,0,n::ball[%d],", k);
    row_starting(text, prefix, line, sizeof line);
    double q = -1;
    cr_assert_eq(sscanf(line + strlen(prefix), "%lf", &q), 1, "no row '%s' in '%s'", prefix, text);
    cr_assert_float_eq(q, want[k], 1e-14, "ball[%d]: %.17g", k, q);
  }
  row_starting(text, "0,0,0,m::hinge,", line, sizeof line);
  cr_assert(line[0] != '\0', "every joint DoF has a row: '%s'", text);
  free(text);
  free(out);
  free(err);
}

Test(cli_run, bad_joint_flags_name_the_flag_and_the_joint) {
  const char *joints = src("tests/data/scenes/joints.sdf");
  static const struct {
    const char *args;
    int rc;
    const char *say[2];
  } cases[] = {
      {"--joint-position crank=1", 1, {"--joint-position", "no joint named 'crank'"}},
      {"--joint-position ball=1,0", 1, {"--joint-position", "'n::ball' (ball) has 4 positions, got 2"}},
      {"--joint-position hinge=nan", 2, {"--joint-position", "'hinge'"}},
      {"--joint-position hinge=1,x", 2, {"--joint-position", "not a number"}},
      {"--joint-target slide=0.1", 1, {"--joint-target", "joint 'm::slide' has no actuator"}},
      {"--effort slide=1", 1, {"--effort", "joint 'm::slide' has no actuator"}},
      {"--joint-target spin=0.1", 1, {"--joint-target", "'n::spin' has no PD gains"}},
      {"--joint-target hinge=1,2,3", 2, {"--joint-target", "at most 2 values"}},
      {"--effort hinge=inf", 2, {"--effort", "not finite"}},
      {"--effort =1", 2, {"--effort", "JOINT="}},
      {"--initial-velocity arm=1,0,0,0,0,0", 1, {"--initial-velocity", "moves with joint 'm::hinge'"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char args[2048], *out, *err;
    snprintf(args, sizeof args, "\"%s\" --steps 1 --backend cpu --quiet %s", joints, cases[i].args);
    cr_assert_eq(run(args, &out, &err), cases[i].rc, "%s: stderr: %s", cases[i].args, err);
    for (int k = 0; k < 2; ++k) cr_assert(strstr(err, cases[i].say[k]) != NULL, "%s: '%s' lacks '%s'", cases[i].args, err, cases[i].say[k]);
    free(out);
    free(err);
  }
  /* the recording never replaces the scene, nor shares a file with --record */
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "\"%s\" --steps 1 --backend cpu --quiet --record-joints \"%s\"", joints, joints);
  cr_assert_eq(run(args, &out, &err), 1);
  has(err, "--record-joints");
  free(out);
  free(err);
  snprintf(args, sizeof args, "\"%s\" --steps 1 --quiet --record-joints %s/a.csv --record %s/a.csv", joints, tmpdir, tmpdir);
  cr_assert_eq(run(args, &out, &err), 2);
  has(err, "two outputs");
  free(out);
  free(err);
}

/* A PD target is accepted on an actuator with gains and recorded with the run. */
Test(cli_run, joint_targets_run_on_the_pd_arm) {
  char args[2048], csv[600], line[512], *out, *err;
  snprintf(csv, sizeof csv, "%s/arm.csv", tmpdir);
  snprintf(args, sizeof args,
           "\"%s\" --worlds 2 --steps 20 --backend cpu --quiet --joint-target shoulder=0.5 --joint-target elbow=-1,0 "
           "--record-joints \"%s\"",
           src("examples/arm_pd.urdf"), csv);
  cr_assert_eq(run(args, &out, &err), 0, "stderr: %s", err);
  has(last_line(out), "\"faulted_worlds\": 0");
  char *text = slurp(csv);
  row_starting(text, "20,", line, sizeof line);
  cr_assert(strstr(line, "arm_pd::shoulder") != NULL, "'%s'", line);
  free(text);
  free(out);
  free(err);
}

Test(cli_run, point_model_legacy_reaches_the_sim) {
  char args[2048], csv[600], *out, *err;
  snprintf(csv, sizeof csv, "%s/legacy.csv", tmpdir);
  /* the box of tests/data/scenes/legacy_box.sdf sinks W/(2·E·R): E = 8e7 Pa (its tag against the
     default material), R = 5e-4 m */
  snprintf(args, sizeof args,
           "\"%s\" --steps 3000 --backend cpu --threads 1 --point-model legacy --characteristic-radius 5e-4 "
           "--record \"%s\"",
           src("tests/data/scenes/legacy_box.sdf"), csv);
  int rc = run(args, &out, &err);
  cr_assert_eq(rc, 0, "stderr: %s", err);
  char *text = slurp(csv);
  const char *row = last_line(text);
  double pz = 0;
  char name[64];
  cr_assert_eq(sscanf(row, "3000,%*[^,],0,%63[^,],%*[^,],%*[^,],%lf", name, &pz), 2, "row '%s'", row);
  const double x = 2.0 * 9.81 / (2 * 8e7 * 5e-4);
  cr_expect_float_eq(0.05 - pz, x, 1e-5 * x, "%s sinks %.9g, W/(2ER) = %.9g", name, 0.05 - pz, x);
  free(text);
  free(out);
  free(err);
  rc = run("--point-model old", &out, &err);
  cr_expect_eq(rc, 2);
  has(err, "--point-model expects drake or legacy");
  free(out);
  free(err);
}
