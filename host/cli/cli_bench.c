/* isobar bench: throughput of the built-in tumbling-bodies scene. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: isobar bench [--worlds N] [--steps S] [--backend cpu|cuda|auto] [--threads T]\n"
          "                    [--bodies B] [--dt DT] [--quiet]\n"
          "\n"
          "Steps N worlds of B tumbling free bodies (asymmetric bricks under gravity, each world\n"
          "with its own initial spin) for S steps, prints a few worlds' final state and, as the\n"
          "last line, one JSON object: worlds, bodies, steps, backend, threads, wall_s,\n"
          "world_steps_per_s, ns_per_world_step, faulted_worlds.\n"
          "\n"
          "  --worlds N    number of worlds (default 4096)\n"
          "  --steps S     steps to take (default 1000)\n"
          "  --backend K   cpu, cuda or auto (default auto)\n"
          "  --threads T   CPU threads (default: OpenMP's default)\n"
          "  --bodies B    bodies per world (default 1)\n"
          "  --dt DT       time step in seconds (default 0.001)\n"
          "  --quiet       print only the JSON line\n");
}

static int fail(const char *what, isoStatus st) {
  fprintf(stderr, "isobar bench: %s failed: %s (%s)\n", what, iso_last_error(), iso_status_string(st));
  return 1;
}

int cli_bench(int argc, char **argv) {
  long long worlds = 4096, steps = 1000, threads = 0, bodies = 1;
  double dt = 1e-3;
  int quiet = 0;
  isoBackendKind backend = ISO_BACKEND_AUTO;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      bench_usage(stdout);
      return 0;
    } else if (strcmp(a, "--worlds") == 0) {
      if (!cli_parse_int(a, val, 1, 1 << 24, &worlds)) return 2;
      ++i;
    } else if (strcmp(a, "--steps") == 0) {
      if (!cli_parse_int(a, val, 0, 1LL << 40, &steps)) return 2;
      ++i;
    } else if (strcmp(a, "--threads") == 0) {
      if (!cli_parse_int(a, val, 1, 1024, &threads)) return 2;
      ++i;
    } else if (strcmp(a, "--bodies") == 0) {
      if (!cli_parse_int(a, val, 1, 4096, &bodies)) return 2;
      ++i;
    } else if (strcmp(a, "--dt") == 0) {
      char *end = NULL;
      dt = val ? strtod(val, &end) : 0;
      if (!val || *end != '\0' || !(dt > 0) || !isfinite(dt)) {
        fprintf(stderr, "isobar bench: --dt expects a positive number of seconds, got '%s'\n", val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(a, "--backend") == 0) {
      if (!val || iso_backend_parse(val, &backend) != ISO_OK) {
        fprintf(stderr, "isobar bench: --backend expects cpu, cuda or auto, got '%s'\n", val ? val : "");
        return 2;
      }
      ++i;
    } else if (strcmp(a, "--quiet") == 0) {
      quiet = 1;
    } else {
      fprintf(stderr, "isobar bench: unknown option '%s' (try isobar bench --help)\n", a);
      return 2;
    }
  }

  isoModel *model = NULL;
  isoSim *sim = NULL;
  isoStatus st = iso_scene_tumbling_model((int)bodies, dt, &model);
  if (st != ISO_OK) return fail("building the scene", st);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = (int)worlds;
  sd.backend = backend;
  sd.threads = (int)threads;
  st = iso_sim_create(model, &sd, &sim);
  iso_model_destroy(model);
  if (st != ISO_OK) return fail("creating the sim", st);
  st = iso_scene_tumbling_init(sim);
  if (st != ISO_OK) {
    iso_sim_destroy(sim);
    return fail("setting initial states", st);
  }
  if (!quiet) fprintf(stderr, "isobar bench: %s\n", iso_sim_backend_reason(sim));

  cliProgress prog;
  cli_progress_start(&prog);
  double t0 = cli_now();
  for (long long s = 0; s < steps; ++s) {
    st = iso_sim_step(sim);
    if (st != ISO_OK) {
      iso_sim_destroy(sim);
      return fail("stepping", st);
    }
    if ((s & 63) == 63) cli_progress_update(&prog, s + 1, steps);
  }
  /* Reading one value back waits for the device, so wall time covers all queued work. */
  double t_probe;
  st = iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t_probe);
  double wall = cli_now() - t0;
  cli_progress_update(&prog, steps, steps);
  cli_progress_end(&prog);
  if (st != ISO_OK) {
    iso_sim_destroy(sim);
    return fail("reading state", st);
  }

  int nshow = worlds < 4 ? (int)worlds : 4, faulted = 0;
  uint32_t *status = (uint32_t *)calloc((size_t)worlds, sizeof(uint32_t));
  if (!status || iso_sim_get_status(sim, iso_worlds_all(), status) != ISO_OK) {
    free(status);
    iso_sim_destroy(sim);
    return fail("reading status", ISO_ERR_NOMEM);
  }
  for (long long w = 0; w < worlds; ++w) faulted += status[w] != 0;
  free(status);
  if (!quiet) {
    printf("world  time(s)   body0 position (m)              body0 angular velocity (rad/s)\n");
    for (int w = 0; w < nshow; ++w) {
      double q[7], v[6], t;
      iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(w), &t);
      double *qq = (double *)malloc(sizeof(double) * 7 * (size_t)bodies);
      double *vv = (double *)malloc(sizeof(double) * 6 * (size_t)bodies);
      if (qq && vv) {
        iso_sim_get_state(sim, ISO_STATE_Q, iso_worlds_one(w), qq);
        iso_sim_get_state(sim, ISO_STATE_V, iso_worlds_one(w), vv);
        memcpy(q, qq, sizeof q);
        memcpy(v, vv, sizeof v);
        printf("%5d  %7.3f   (%8.4f, %8.4f, %8.4f)   (%7.3f, %7.3f, %7.3f)\n", w, t, q[4], q[5], q[6],
               v[0], v[1], v[2]);
      }
      free(qq);
      free(vv);
    }
  }
  double wsps = wall > 0 ? (double)worlds * (double)steps / wall : 0;
  printf("{\"worlds\": %lld, \"bodies\": %lld, \"steps\": %lld, \"backend\": \"%s\", \"threads\": %d, "
         "\"wall_s\": %.6f, \"world_steps_per_s\": %.1f, \"ns_per_world_step\": %.2f, \"faulted_worlds\": %d}\n",
         worlds, bodies, steps, iso_backend_name(iso_sim_backend(sim)),
         iso_sim_threads(sim), wall, wsps,
         wsps > 0 ? 1e9 / wsps : 0.0, faulted);
  iso_sim_destroy(sim);
  return 0;
}
