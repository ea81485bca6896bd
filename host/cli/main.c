#include <stdio.h>
#include <string.h>

#include "isobar/status.h"

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("isobar %s\n", iso_version());
    return 0;
  }
  fprintf(stderr, "usage: isobar --version\n");
  return 2;
}
