/* The isobar tool: subcommands over the C API. Errors go to stderr with a non-zero exit; the
 * last line of stdout of a run is one JSON object a script can parse. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "isobar/isobar.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: isobar <command> [options]\n"
          "\n"
          "commands:\n"
          "  bench    step a built-in scene (contact-rich, or free bodies) in many worlds and\n"
          "           report throughput (isobar bench --help for its options)\n"
          "  run      load an SDFormat or URDF scene and step it in many worlds (isobar run --help)\n"
          "\n"
          "options:\n"
          "  --help     this text\n"
          "  --version  the version, and whether the CUDA backend was built\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("isobar %s (cuda backend %s)\n", iso_version(), iso_cuda_compiled() ? "built" : "not built");
    return 0;
  }
  if (strcmp(argv[1], "bench") == 0) return cli_bench(argc - 1, argv + 1);
  if (strcmp(argv[1], "run") == 0) return cli_run(argc - 1, argv + 1);
  fprintf(stderr, "isobar: unknown command '%s' (try isobar --help)\n", argv[1]);
  return 2;
}
