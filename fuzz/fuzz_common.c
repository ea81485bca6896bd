/* The temporary folder of the fuzz harnesses (fuzz/fuzz_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[256];
static char g_path[320];

static void remove_dir(void) {
  if (!g_dir[0]) return;
  if (g_path[0]) unlink(g_path);
  rmdir(g_dir);
}

const char *fuzz_write_input(const uint8_t *data, size_t size, const char *suffix) {
  if (!g_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/isobar-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(remove_dir);
  }
  char path[sizeof g_path];
  snprintf(path, sizeof path, "%s/input%s", g_dir, suffix);
  if (g_path[0] && strcmp(g_path, path) != 0) unlink(g_path);
  memcpy(g_path, path, sizeof path);
  FILE *f = fopen(g_path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror("fuzz: writing the input file");
    abort();
  }
  return g_path;
}
