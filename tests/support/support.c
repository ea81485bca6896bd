#define _DEFAULT_SOURCE /* P_tmpdir */
#include "support/support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/backend/cuda_api.h"
#include "isobar/backend.h"
#include "isobar/scene.h"

uint64_t test_rng_u64(test_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double test_rng_uniform(test_rng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(test_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

int test_cuda_device(char *why, int why_len) {
  int n = 0;
  if (iso_cuda_probe(&n, why, why_len) != ISO_OK) return 0;
  return n > 0;
}

void test_require_cuda_device(void) {
  char why[256];
  if (test_cuda_device(why, sizeof why)) return;
  const char *req = getenv("ISO_REQUIRE_CUDA_DEVICE");
  if (req && strcmp(req, "1") == 0) cr_assert_fail("ISO_REQUIRE_CUDA_DEVICE=1 but no CUDA device is usable: %s", why);
  cr_skip_test("no CUDA device: %s", why);
}

isoSim *test_sim(const isoModel *m, int worlds, isoBackendKind backend, int threads) {
  isoSimDef d = iso_default_sim_def();
  d.worlds = worlds;
  d.backend = backend;
  d.threads = threads;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &d, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

int test_cuda_emulated(void) { return cuda_emulated(); }

#ifndef ISO_TEST_PARITY /* set by the build when ISO_PARITY is on */
#define ISO_TEST_PARITY 0
#endif

int test_cuda_exact(void) { return ISO_TEST_PARITY || cuda_emulated(); }

int test_same_bits(const double *a, const double *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

char *test_tmp_template(char *buf, int len, const char *stem) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !dir[0]) dir = P_tmpdir;
  snprintf(buf, (size_t)len, "%s/%sXXXXXX", dir, stem);
  return buf;
}

const char *test_source_path(const char *rel) {
  static char buf[8][1024];
  static int next;
  const char *src = getenv("ISO_SOURCE_DIR");
  if (!src) cr_skip_test("ISO_SOURCE_DIR is unset: run the tests through ctest");
  char *b = buf[next++ & 7];
  snprintf(b, sizeof buf[0], "%s/%s", src, rel);
  return b;
}

int test_line_of(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  cr_assert(f != NULL, "cannot open %s", path);
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    ++n;
    if (strstr(line, needle)) {
      fclose(f);
      return n;
    }
  }
  fclose(f);
  cr_assert_fail("'%s' is not in %s", needle, path);
  return -1;
}

void test_tmpdir_remove(const char *dir) {
  if (!dir[0]) return;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char p[1024];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      if (unlink(p) != 0) rmdir(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

const char *test_write_sdf(char *dir, int dir_len, const char *stem, const char *name, const char *xmlns_extra,
                           const char *mesh_rel, const char *body) {
  if (!dir[0]) {
    test_tmp_template(dir, dir_len, stem);
    cr_assert_not_null(mkdtemp(dir));
  }
  static char path[8][700];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fprintf(f, "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\" xmlns:drake=\"http://drake.mit.edu\"%s%s>\n",
          xmlns_extra[0] ? " " : "", xmlns_extra);
  const char *mesh = mesh_rel ? test_source_path(mesh_rel) : "";
  for (const char *s = body; *s; ++s) {
    if (mesh_rel && strncmp(s, "MESH", 4) == 0) {
      fputs(mesh, f);
      s += 3;
    } else {
      fputc(*s, f);
    }
  }
  fprintf(f, "\n</sdf>\n");
  fclose(f);
  return p;
}

/* A scene load fails with `want`; its message names path:line (the first line holding `at`)
 * and holds `needle`. */
void test_load_fails_at(const char *path, isoStatus want, const char *at, const char *needle) {
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(path, NULL, &m, NULL);
  cr_assert_eq(st, want, "%s: got %s: %s", path, iso_status_string(st), iso_last_error());
  cr_assert_null(m);
  char where[800];
  snprintf(where, sizeof where, "%s:%d:", path, test_line_of(path, at));
  cr_assert(strstr(iso_last_error(), where), "'%s' does not name '%s'", iso_last_error(), where);
  cr_assert(strstr(iso_last_error(), needle), "'%s' lacks '%s'", iso_last_error(), needle);
}
