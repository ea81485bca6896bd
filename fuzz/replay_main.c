/* Replays fuzz inputs without libFuzzer: each argument is a file or a folder of files, each file
 * is passed once to the harness's LLVMFuzzerTestOneInput. The normal build links every harness
 * with this, so the seed corpora (fuzz/corpus/<harness>/) run as ordinary tests. Exit 0 when
 * every input ran (a crash ends the process, which is the failure). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz_common.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 4096, len = 0;
  unsigned char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      unsigned char *grown = realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", path);
    return 1;
  }
  /* A copy of exactly `len` bytes, so ASan sees a read past the input as libFuzzer would. */
  unsigned char *exact = malloc(len ? len : 1);
  if (!exact) {
    free(buf);
    return 1;
  }
  memcpy(exact, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int bad = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      if (!grown) {
        bad = 1;
        break;
      }
      names = grown;
    }
    size_t need = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(need))) {
      bad = 1;
      break;
    }
    snprintf(names[n++], need, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_names); /* the same order on every machine */
  for (size_t i = 0; i < n; ++i) {
    struct stat st;
    if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      bad |= run_file(names[i]);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return bad;
}

int main(int argc, char **argv) {
  int bad = 0, count = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      bad = 1;
    } else if (S_ISDIR(st.st_mode)) {
      bad |= run_dir(argv[i], &count);
    } else {
      bad |= run_file(argv[i]);
      ++count;
    }
  }
  if (count == 0) {
    fprintf(stderr, "no inputs replayed\n");
    return 1;
  }
  printf("%d inputs replayed\n", count);
  return bad;
}
