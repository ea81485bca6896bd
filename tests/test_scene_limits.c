/* Scene loading against hostile or broken input: include fan-out hits a cap with file:line,
 * FIFOs, devices and folders are refused before they can block or feed a load without end, a
 * mesh file past the size cap is refused by name, and libxml2 errors (bad UTF-16 among them)
 * fail the load naming the file while the library prints nothing.
 *
 * Some of these hung or ran out of memory before the checks existed, so each test carries a
 * generous Criterion timeout: a guard against hanging the suite, not a measure of speed. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/assets/mesh.h"
#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/support.h"

static char tmpdir[256];

static void make_tmpdir(void) {
  test_tmp_template(tmpdir, sizeof tmpdir, "isobar_limits_");
  cr_assert(mkdtemp(tmpdir) != NULL);
}

static void remove_tmpdir(void) { test_tmpdir_remove(tmpdir); }

TestSuite(scene_limits, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 120);

static const char *tmp(const char *name) {
  static char buf[4][1024];
  static int k;
  char *p = buf[k++ % 4];
  snprintf(p, 1024, "%s/%s", tmpdir, name);
  return p;
}

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot create %s", path);
  cr_assert_eq(fwrite(data, 1, len, f), len);
  cr_assert_eq(fclose(f), 0);
}

static void write_text(const char *path, const char *text) { write_file(path, text, strlen(text)); }

/* The load fails with `want`, a message holding every needle, and nothing printed on stderr. */
static void load_fails(const char *path, isoStatus want, const char *n1, const char *n2) {
  fflush(stderr);
  int saved = dup(2);
  const char *errpath = tmp("stderr.txt");
  int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  isoModel *m = NULL;
  isoLoadReport *r = NULL;
  isoStatus st = iso_scene_load(path, NULL, &m, &r);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  struct stat sb;
  cr_assert_eq(stat(errpath, &sb), 0);
  cr_assert_eq(sb.st_size, 0, "the library printed %lld bytes on stderr", (long long)sb.st_size);
  unlink(errpath);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  const char *e = iso_last_error();
  cr_assert(strstr(e, n1) != NULL, "'%s' lacks '%s'", e, n1);
  if (n2) cr_assert(strstr(e, n2) != NULL, "'%s' lacks '%s'", e, n2);
}

static const char *one_mesh_scene(const char *uri) {
  static char text[1024];
  snprintf(text, sizeof text,
           "<sdf version=\"1.9\">\n  <model name=\"m\">\n    <link name=\"l\">\n      <collision name=\"c\">\n"
           "        <geometry><mesh><uri>%s</uri></mesh></geometry>\n      </collision>\n    </link>\n"
           "  </model>\n</sdf>\n",
           uri);
  return text;
}

/* ---- include fan-out ----------------------------------------------------------------------- */

/* 28 files, each including the next twice: 2^28 includes without a count cap. */
Test(scene_limits, include_fan_out_hits_the_cap) {
  for (int i = 0; i < 28; ++i) {
    char name[32], text[1024];
    snprintf(name, sizeof name, "f%02d.sdf", i);
    if (i == 27) {
      snprintf(text, sizeof text, "<sdf version=\"1.9\"><model name=\"m\"><link name=\"l\"/></model></sdf>\n");
    } else {
      snprintf(text, sizeof text,
               "<sdf version=\"1.9\">\n<model name=\"m\">\n"
               "  <include><uri>f%02d.sdf</uri><name>a</name></include>\n"
               "  <include><uri>f%02d.sdf</uri><name>b</name></include>\n</model>\n</sdf>\n",
               i + 1, i + 1);
    }
    write_text(tmp(name), text);
  }
  load_fails(tmp("f00.sdf"), ISO_ERR_CAPACITY, "more than 10000 includes", ".sdf:");
  /* The message points at the <include> where the cap was hit: line 3 or 4 of some file. */
  const char *e = iso_last_error();
  cr_assert(strstr(e, ".sdf:3:") || strstr(e, ".sdf:4:"), "'%s' names no include line", e);
}

/* ---- regular files only -------------------------------------------------------------------- */

Test(scene_limits, fifo_as_scene_is_refused) {
  cr_assert_eq(mkfifo(tmp("scene.sdf"), 0600), 0);
  load_fails(tmp("scene.sdf"), ISO_ERR_IO, "scene.sdf", "FIFO");
}

Test(scene_limits, fifo_as_include_is_refused) {
  cr_assert_eq(mkfifo(tmp("inc.sdf"), 0600), 0);
  write_text(tmp("top.sdf"), "<sdf version=\"1.9\">\n<world name=\"w\">\n"
                             "  <include><uri>inc.sdf</uri></include>\n</world>\n</sdf>\n");
  load_fails(tmp("top.sdf"), ISO_ERR_IO, "top.sdf:3:", "FIFO");
}

Test(scene_limits, fifo_as_mesh_is_refused) {
  cr_assert_eq(mkfifo(tmp("fifo.obj"), 0600), 0);
  write_text(tmp("s.sdf"), one_mesh_scene("fifo.obj"));
  load_fails(tmp("s.sdf"), ISO_ERR_IO, "fifo.obj", "FIFO");
}

Test(scene_limits, folder_as_mesh_is_refused) {
  cr_assert_eq(mkdir(tmp("dir.obj"), 0700), 0);
  write_text(tmp("s.sdf"), one_mesh_scene("dir.obj"));
  load_fails(tmp("s.sdf"), ISO_ERR_IO, "dir.obj", "folder");
}

/* /dev/zero never ends: read as a mesh it grew without bound. */
Test(scene_limits, dev_zero_as_mesh_is_refused) {
  cr_assert_eq(symlink("/dev/zero", tmp("zero.obj")), 0);
  write_text(tmp("s.sdf"), one_mesh_scene("zero.obj"));
  load_fails(tmp("s.sdf"), ISO_ERR_IO, "zero.obj", "character device");
  triMesh t;
  memset(&t, 0, sizeof t);
  isoStatus st = mesh_read_obj("/dev/zero", NULL, 0, &t);
  cr_assert_eq(st, ISO_ERR_IO, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "/dev/zero") != NULL, "%s", iso_last_error());
}

/* ---- mesh size cap ------------------------------------------------------------------------- */

/* A sparse file one byte past the cap: no disk is used, and the cap is checked from stat. */
Test(scene_limits, mesh_past_the_size_cap_is_refused) {
  const char *path = tmp("huge.obj");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(fd >= 0);
  cr_assert_eq(ftruncate(fd, (off_t)256 * 1024 * 1024 + 1), 0);
  close(fd);
  triMesh t;
  memset(&t, 0, sizeof t);
  isoStatus st = mesh_read_obj(path, NULL, 0, &t);
  cr_assert_eq(st, ISO_ERR_IO, "got %s: %s", iso_status_string(st), iso_last_error());
  cr_assert(strstr(iso_last_error(), "huge.obj") && strstr(iso_last_error(), "256 MiB"), "%s", iso_last_error());
  tetMesh m;
  memset(&m, 0, sizeof m);
  cr_assert_eq(mesh_read_vtk(path, NULL, &m), ISO_ERR_IO, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "256 MiB"), "%s", iso_last_error());
}

/* ---- libxml2 diagnostics ------------------------------------------------------------------- */

/* UTF-16LE with a byte-order mark, then a lone high surrogate: libxml2 2.9 printed the
 * encoding error on stderr and returned an empty document, which loaded as an empty scene. */
Test(scene_limits, bad_utf16_fails_naming_the_file) {
  const char *head = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<sdf version=\"1.9\"><model name=\"m\">";
  unsigned char buf[512];
  size_t n = 0;
  buf[n++] = 0xFF;
  buf[n++] = 0xFE;
  for (const char *p = head; *p; ++p) {
    buf[n++] = (unsigned char)*p;
    buf[n++] = 0;
  }
  buf[n++] = 0x00; /* U+D800, a high surrogate not followed by a low one */
  buf[n++] = 0xD8;
  buf[n++] = 'A';
  buf[n++] = 0;
  write_file(tmp("bad16.sdf"), buf, n);
  load_fails(tmp("bad16.sdf"), ISO_ERR_PARSE, "bad16.sdf", "malformed XML");
}

/* A libxml2 warning does not fail the load: it becomes a report line with file and line, and
 * nothing is printed. Before, the warning was dropped. */
Test(scene_limits, xml_warning_goes_to_the_report) {
  write_text(tmp("v11.sdf"), "<?xml version=\"1.1\"?>\n<sdf version=\"1.9\">\n  <model name=\"m\">\n"
                             "    <link name=\"l\"/>\n  </model>\n</sdf>\n");
  fflush(stderr);
  int saved = dup(2);
  const char *errpath = tmp("stderr.txt");
  int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  isoModel *m = NULL;
  isoLoadReport *r = NULL;
  isoStatus st = iso_scene_load(tmp("v11.sdf"), NULL, &m, &r);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  struct stat sb;
  cr_assert_eq(stat(errpath, &sb), 0);
  cr_assert_eq(sb.st_size, 0, "the library printed %lld bytes on stderr", (long long)sb.st_size);
  cr_assert_eq(st, ISO_OK, "%s", iso_last_error());
  char want[1200];
  snprintf(want, sizeof want, "%s:1: XML warning: ", tmp("v11.sdf"));
  int found = 0;
  for (int i = 0; i < iso_load_report_count(r); ++i) found |= strstr(iso_load_report_line(r, i), want) != NULL;
  cr_assert(found, "no report line holds '%s' (%d lines)", want, iso_load_report_count(r));
  iso_model_destroy(m);
  iso_load_report_free(r);
}
