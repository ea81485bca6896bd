/* Output files never destroy (host/output/out_file.h): a write that fails leaves an existing
 * target byte for byte as it was and leaves no temporary behind, a device such as /dev/full is
 * refused and still exists afterwards, and `isobar run` refuses, before running, an output that
 * is its own scene file.
 *
 * A failing write is made with RLIMIT_FSIZE (SIGXFSZ ignored, so write() returns EFBIG): it
 * works as root too, where a folder without write permission would not stop anything. Criterion
 * runs each test in its own process, so the limit ends with the test; system() children inherit
 * it, which is how the tool is made to fail. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/assets/mesh.h"
#include "isobar/status.h"
#include "support/support.h"

static char tmpdir[256];

static void make_tmpdir(void) {
  test_tmp_template(tmpdir, sizeof tmpdir, "isobar_out_");
  cr_assert(mkdtemp(tmpdir) != NULL);
}

static void remove_tmpdir(void) { test_tmpdir_remove(tmpdir); }

TestSuite(output_safety, .init = make_tmpdir, .fini = remove_tmpdir);

static const char *tmp(const char *name) {
  static char buf[4][1024];
  static int k;
  char *p = buf[k++ % 4];
  snprintf(p, 1024, "%s/%s", tmpdir, name);
  return p;
}

static const char *src(const char *rel) { return test_source_path(rel); }

static const char *bin(void) {
  const char *b = getenv("ISO_BINARY_DIR");
  if (!b) cr_skip_test("ISO_BINARY_DIR is unset: run the tests through ctest to find the isobar tool");
  return b;
}

static char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = (char *)calloc((size_t)n + 1, 1);
  cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  if (len) *len = n;
  return s;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert(fputs(text, f) >= 0);
  cr_assert_eq(fclose(f), 0);
}

static void copy_file(const char *from, const char *to) {
  long n;
  char *s = slurp(from, &n);
  FILE *f = fopen(to, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(s, 1, (size_t)n, f), (size_t)n);
  cr_assert_eq(fclose(f), 0);
  free(s);
}

/* The folder holds exactly `n` entries besides . and .. (no temporary left behind). */
static void dir_holds(int n) {
  DIR *d = opendir(tmpdir);
  cr_assert_not_null(d);
  int count = 0;
  struct dirent *e;
  char names[1024] = "";
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    ++count;
    strncat(names, e->d_name, sizeof names - strlen(names) - 2);
    strcat(names, " ");
  }
  closedir(d);
  cr_assert_eq(count, n, "the folder holds %d entries (%s), expected %d", count, names, n);
}

static void limit_file_size(rlim_t bytes) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl = {bytes, bytes};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/* Run `isobar run ARGS` with stdout and stderr to files in the folder; the exit code. */
static int run_tool(const char *args, char **err) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "\"%s/isobar\" run %s >\"%s/out.txt\" 2>\"%s/err.txt\"", bin(), args, tmpdir, tmpdir);
  int status = system(cmd);
  cr_assert(status != -1 && WIFEXITED(status), "isobar run %s did not exit normally", args);
  *err = slurp(tmp("err.txt"), NULL);
  unlink(tmp("out.txt"));
  unlink(tmp("err.txt"));
  return WEXITSTATUS(status);
}

static void still_dev_full(void) {
  struct stat sb;
  cr_assert_eq(stat("/dev/full", &sb), 0, "/dev/full is gone");
  cr_assert(S_ISCHR(sb.st_mode), "/dev/full is no longer a character device");
}

/* A square fan of `n` triangles: enough text to pass a small file-size limit. */
static isoStatus write_fan(const char *path, int n) {
  real *v = (real *)calloc(3 * (size_t)(n + 2), sizeof(real));
  int *start = (int *)calloc((size_t)n + 1, sizeof(int));
  int *idx = (int *)calloc(3 * (size_t)n, sizeof(int));
  for (int i = 0; i < n + 2; ++i) {
    v[3 * i] = 0.001 * i;
    v[3 * i + 1] = 0.5 * (i % 2);
  }
  for (int i = 0; i < n; ++i) {
    start[i + 1] = 3 * (i + 1);
    idx[3 * i] = i;
    idx[3 * i + 1] = i + 1;
    idx[3 * i + 2] = i + 2;
  }
  isoStatus st = vtk_write_polygons(path, v, n + 2, start, idx, n, NULL);
  free(v);
  free(start);
  free(idx);
  return st;
}

/* ---- the writers ----------------------------------------------------------------------------- */

Test(output_safety, failed_vtk_write_leaves_the_target_as_it_was) {
  char target[512];
  snprintf(target, sizeof target, "%.500s", tmp("surfaces.vtk"));
  const char *before = "what was here before\n";
  write_text(target, before);
  limit_file_size(4096);
  isoStatus st = write_fan(target, 2000);
  cr_assert_eq(st, ISO_ERR_IO, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "surfaces.vtk") != NULL, "%s", iso_last_error());
  char *after = slurp(target, NULL);
  cr_assert_str_eq(after, before);
  free(after);
  dir_holds(1);
}

Test(output_safety, dev_full_is_refused_and_survives) {
  isoStatus st = write_fan("/dev/full", 4);
  cr_assert_eq(st, ISO_ERR_IO, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "/dev/full") && strstr(iso_last_error(), "character device"), "%s",
            iso_last_error());
  still_dev_full();
}

/* ---- the tool -------------------------------------------------------------------------------- */

Test(output_safety, failed_record_leaves_the_target_as_it_was) {
  char target[512];
  snprintf(target, sizeof target, "%.500s", tmp("run.csv"));
  const char *before = "step,time\nwhat was here before\n";
  write_text(target, before);
  char args[4096], *err;
  snprintf(args, sizeof args, "\"%s\" --steps 400 --backend cpu --threads 1 --quiet --record \"%s\"",
           src("examples/stack_of_five_boxes.sdf"), target);
  limit_file_size(64 * 1024); /* 400 steps of 5 bodies is about 400 KB of CSV */
  int rc = run_tool(args, &err);
  cr_assert_neq(rc, 0, "the run succeeded although the record could not be written");
  cr_assert(strstr(err, "run.csv") != NULL, "stderr does not name the file: %s", err);
  char *after = slurp(target, NULL);
  cr_assert_str_eq(after, before);
  free(after);
  free(err);
  dir_holds(1);
}

Test(output_safety, surfaces_to_dev_full_fail_and_dev_full_survives) {
  char args[4096], *err;
  snprintf(args, sizeof args, "\"%s\" --steps 5 --backend cpu --threads 1 --quiet --surfaces /dev/full",
           src("examples/compliant_box_on_plane.sdf"));
  int rc = run_tool(args, &err);
  cr_assert_neq(rc, 0);
  cr_assert(strstr(err, "/dev/full") && strstr(err, "regular file"), "stderr: %s", err);
  free(err);
  still_dev_full();
}

Test(output_safety, record_over_the_scene_is_refused) {
  char scene[512];
  snprintf(scene, sizeof scene, "%.500s", tmp("scene.sdf"));
  copy_file(src("examples/compliant_box_on_plane.sdf"), scene);
  long n0;
  char *before = slurp(scene, &n0);
  char args[4096], *err;
  snprintf(args, sizeof args, "\"%s\" --steps 2 --backend cpu --threads 1 --quiet --record \"%s\"", scene, scene);
  int rc = run_tool(args, &err);
  cr_assert_neq(rc, 0, "the run wrote its record over its scene");
  cr_assert(strstr(err, "scene file"), "stderr: %s", err);
  free(err);
  /* The same file by another path: compared by device and inode, not by name. */
  cr_assert_eq(symlink(scene, tmp("link.vtk")), 0);
  snprintf(args, sizeof args, "\"%s\" --steps 2 --backend cpu --threads 1 --quiet --surfaces \"%s\"", scene,
           tmp("link.vtk"));
  rc = run_tool(args, &err);
  cr_assert_neq(rc, 0, "the run wrote its surfaces over its scene");
  cr_assert(strstr(err, "scene file"), "stderr: %s", err);
  free(err);
  long n1;
  char *after = slurp(scene, &n1);
  cr_assert(n0 == n1 && memcmp(before, after, (size_t)n0) == 0, "the scene file changed");
  free(before);
  free(after);
}
