/* isobar bench: throughput of a built-in scene (contact-rich by default, or free bodies). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: isobar bench [--scene contact|free|pick] [--worlds N] [--steps S] [--backend cpu|cuda|auto]\n"
          "                    [--threads T] [--bodies B] [--dt DT] [--quiet]\n"
          "\n"
          "Steps N worlds of a built-in scene for S steps, prints a few worlds' final state and, as\n"
          "the last line, one JSON object: scene, worlds, bodies, steps, backend, threads, wall_s,\n"
          "world_steps_per_s, ns_per_world_step, faulted_worlds, contact_constraints,\n"
          "sap_iterations (mean per world-step), bytes_per_world, stage_shares (the share of each\n"
          "stage in the step's time, CPU backend).\n"
          "  contact: a compliant box on a rigid ground, a compliant ball dropped onto it, a capsule\n"
          "           and a brick with point contact (hydroelastic and point contact together)\n"
          "  free:    B tumbling free bodies (asymmetric bricks), each world with its own spin\n"
          "  pick:    a jointed parallel gripper (PD actuators, effort limits) that descends,\n"
          "           closes on a compliant cube and lifts it (1 s of its schedule per 1000 steps)\n"
          "\n"
          "  --scene S     contact (default), free or pick\n"
          "\n"
          "  --worlds N    number of worlds (default 4096)\n"
          "  --steps S     steps to take (default 1000)\n"
          "  --backend K   cpu, cuda or auto (default auto)\n"
          "  --threads T   CPU threads (default: OpenMP's default)\n"
          "  --bodies B    bodies per world of the free scene (default 1)\n"
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
  int quiet = 0, contact = 1, pick = 0;
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
    } else if (strcmp(a, "--scene") == 0) {
      if (!val || (strcmp(val, "contact") != 0 && strcmp(val, "free") != 0 && strcmp(val, "pick") != 0)) {
        fprintf(stderr, "isobar bench: --scene expects contact, free or pick, got '%s'\n", val ? val : "");
        return 2;
      }
      contact = strcmp(val, "contact") == 0;
      pick = strcmp(val, "pick") == 0;
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
  isoStatus st = pick      ? iso_scene_pick_model(dt, &model)
                 : contact ? iso_scene_contact_model(dt, &model)
                           : iso_scene_tumbling_model((int)bodies, dt, &model);
  if (contact || pick) bodies = 4;
  if (st != ISO_OK) return fail("building the scene", st);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = (int)worlds;
  sd.backend = backend;
  sd.threads = (int)threads;
  st = iso_sim_create(model, &sd, &sim);
  iso_model_destroy(model);
  if (st != ISO_OK) return fail("creating the sim", st);
  iso_sim_set_stage_timing(sim, 1); /* for stage_shares */
  st = pick ? iso_scene_pick_targets(sim, 0) : contact ? iso_scene_contact_init(sim) : iso_scene_tumbling_init(sim);
  if (st != ISO_OK) {
    iso_sim_destroy(sim);
    return fail("setting initial states", st);
  }
  if (!quiet) fprintf(stderr, "isobar bench: %s\n", iso_sim_backend_reason(sim));

  cliProgress prog;
  cli_progress_start(&prog);
  /* SAP iterations are sampled in world 0 after every step (a cheap read on the CPU) */
  long long sap_iters = 0;
  double t0 = cli_now();
  for (long long s = 0; s < steps; ++s) {
    /* the pick's targets follow its schedule (descend, close, lift), set every step as a
     * controller would */
    st = pick ? iso_scene_pick_targets(sim, (double)s * dt) : ISO_OK;
    if (st == ISO_OK) st = iso_sim_step(sim);
    if (st != ISO_OK) {
      iso_sim_destroy(sim);
      return fail("stepping", st);
    }
    if ((contact || pick) && iso_sim_backend(sim) == ISO_BACKEND_CPU) {
      isoSolverStats ss;
      if (iso_sim_get_solver_stats(sim, 0, &ss) == ISO_OK) sap_iters += ss.iterations;
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
  long long ncon = 0; /* one read for every world: a query per world waits for the GPU each time */
  int *nc = (int *)malloc(sizeof(int) * (size_t)worlds);
  if (nc && iso_sim_get_contact_counts(sim, iso_worlds_all(), NULL, NULL, nc) == ISO_OK)
    for (long long w = 0; w < worlds; ++w) ncon += nc[w];
  free(nc);
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
  /* where the time went, as shares of the stages' sum (CPU backend; 0 on CUDA) */
  double stage[16] = {0}, total = 0;
  int nstage = 0;
  iso_sim_get_stage_times(sim, stage, 16, &nstage);
  for (int k = 0; k < nstage && k < 16; ++k) total += stage[k];
  char shares[512];
  int pos = 0;
  for (int k = 0; k < nstage && k < 16 && pos < (int)sizeof shares - 64; ++k)
    pos += snprintf(shares + pos, sizeof shares - (size_t)pos, "%s\"%s\": %.3f", k ? ", " : "", iso_sim_stage_name(k),
                    total > 0 ? stage[k] / total : 0.0);
  size_t bytes = 0;
  iso_sim_memory_per_world(sim, &bytes);
  printf("{\"scene\": \"%s\", \"worlds\": %lld, \"bodies\": %lld, \"steps\": %lld, \"backend\": \"%s\", "
         "\"threads\": %d, \"wall_s\": %.6f, \"world_steps_per_s\": %.1f, \"ns_per_world_step\": %.2f, "
         "\"faulted_worlds\": %d, \"contact_constraints\": %lld, \"sap_iterations\": %.3f, "
         "\"bytes_per_world\": %zu, \"stage_shares\": {%s}}\n",
         pick ? "pick" : contact ? "contact" : "free", worlds, bodies, steps, iso_backend_name(iso_sim_backend(sim)),
         iso_sim_threads(sim), wall, wsps,
         wsps > 0 ? 1e9 / wsps : 0.0, faulted, ncon, steps > 0 ? (double)sap_iters / (double)steps : 0.0, bytes,
         shares);
  iso_sim_destroy(sim);
  return 0;
}
