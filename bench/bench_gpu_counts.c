/* The per-step counts the GPU cost model (bench/gpu_model.py) is written in, measured on the CPU
 * backend through the public API: one world, one thread, the scene's own trajectory. For every
 * step: SAP Newton and line-search iterations, contact constraints (faces and points) and
 * contact faces; every `every` steps also the hydroelastic candidate element pairs, read as the
 * "needed" figure of a shadow sim with room for one candidate that steps from the same state
 * (its overflow reports how many the mid phase found). Prints one JSON object: the model's
 * sizes, the capacities in use, bytes per world, the stage times, and the means and maxima.
 *
 * Build: cmake --build build-release --target bench_gpu_counts (every bench_*.c is a target).
 * Usage: bench_gpu_counts SCENE STEPS [EVERY] [--max-contacts N] [--pick]
 *        [--initial-velocity BODY=vx,vy,vz,wx,wy,wz]
 * --pick drives the gripper with iso_scene_pick_targets (the schedule of bench/pick.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isobar/isobar.h>
#include <isobar/scene.h>
#include <isobar/scenes.h>

static int die(const char *what, isoStatus st) {
  fprintf(stderr, "gpu_counts: %s: %s (%d)\n", what, iso_last_error(), (int)st);
  return 1;
}

/* Copy one state field of world 0 of `a` into world 0 of `b` (no-op for a zero width). */
static isoStatus copy_field(const isoSim *a, isoSim *b, isoStateField f, double *buf) {
  if (iso_sim_state_width(a, f) == 0) return ISO_OK;
  isoStatus st = iso_sim_get_state(a, f, iso_worlds_one(0), buf);
  return st == ISO_OK ? iso_sim_set_state(b, f, iso_worlds_one(0), buf) : st;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: gpu_counts SCENE STEPS [EVERY] [--max-contacts N] [--pick] "
                    "[--initial-velocity BODY=vx,vy,vz,wx,wy,wz]\n");
    return 2;
  }
  const char *scene = argv[1];
  const long steps = atol(argv[2]);
  long every = 10;
  int max_contacts = 0, pick = 0;
  const char *iv = NULL;
  for (int i = 3; i < argc; ++i) {
    if (!strcmp(argv[i], "--max-contacts") && i + 1 < argc) max_contacts = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pick")) pick = 1;
    else if (!strcmp(argv[i], "--initial-velocity") && i + 1 < argc) iv = argv[++i];
    else every = atol(argv[i]);
  }
  isoLoadOptions lo = iso_default_load_options();
  isoModel *model = NULL;
  isoStatus st = iso_scene_load(scene, &lo, &model, NULL);
  if (st != ISO_OK) return die("loading the scene", st);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  if (max_contacts > 0) sd.capacity.max_contacts = max_contacts;
  isoSim *sim = NULL, *shadow = NULL;
  if ((st = iso_sim_create(model, &sd, &sim)) != ISO_OK) return die("creating the sim", st);
  iso_sim_set_stage_timing(sim, 1);
  sd.capacity.max_candidates = 1;
  if ((st = iso_sim_create(model, &sd, &shadow)) != ISO_OK) return die("creating the shadow sim", st);

  size_t width = 64;
  for (int f = 0; f <= ISO_STATE_VERTEX_VELOCITY; ++f) {
    size_t n = (size_t)iso_sim_state_width(sim, (isoStateField)f);
    if (n > width) width = n;
  }
  double *buf = malloc(sizeof(double) * width);
  if (!buf) return 1;
  if (iv) { /* a free body's v is [w, v] in the world frame; the option gives v then w */
    const char *eq = strrchr(iv, '=');
    double x[6];
    char name[256];
    int b;
    isoSlice qs, vs;
    if (!eq || (size_t)(eq - iv) >= sizeof name ||
        sscanf(eq + 1, "%lf,%lf,%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5]) != 6)
      return 2;
    memcpy(name, iv, (size_t)(eq - iv));
    name[eq - iv] = '\0';
    if ((st = iso_scene_find_body(model, name, &b)) != ISO_OK) return die("--initial-velocity", st);
    if ((st = iso_model_body_slice(model, b, &qs, &vs)) != ISO_OK) return die("--initial-velocity", st);
    iso_sim_get_state(sim, ISO_STATE_V, iso_worlds_one(0), buf);
    memcpy(buf + vs.start, x + 3, 3 * sizeof(double));
    memcpy(buf + vs.start + 3, x, 3 * sizeof(double));
    if ((st = iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_one(0), buf)) != ISO_OK) return die("v", st);
  }

  double it = 0, ls = 0, con = 0, faces = 0, cand = 0;
  int it_max = 0, con_max = 0, face_max = 0, cand_max = 0;
  long ncand = 0;
  for (long k = 0; k < steps; ++k) {
    double t;
    iso_sim_get_state(sim, ISO_STATE_TIME, iso_worlds_one(0), &t);
    if (pick && (st = iso_scene_pick_targets(sim, t)) != ISO_OK) return die("pick targets", st);
    if (k % every == 0) { /* the shadow steps from this state; its overflow counts candidates */
      iso_sim_reset(shadow, iso_worlds_all());
      const isoStateField f[] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_TIME, ISO_STATE_TARGET_POSITION,
                                 ISO_STATE_TARGET_VELOCITY, ISO_STATE_VERTEX_POSITION, ISO_STATE_VERTEX_VELOCITY};
      for (int j = 0; j < 7; ++j)
        if ((st = copy_field(sim, shadow, f[j], buf)) != ISO_OK) return die("copying the state", st);
      if ((st = iso_sim_step(shadow)) != ISO_OK) return die("stepping the shadow", st);
      int nc = 0, nf = 0;
      if (iso_sim_get_overflow(shadow, 0, &nc, &nf, NULL) == ISO_OK) {
        cand += nc, ++ncand;
        if (nc > cand_max) cand_max = nc;
      }
    }
    if ((st = iso_sim_step(sim)) != ISO_OK) return die("stepping", st);
    isoSolverStats s;
    int nc = 0, nf = 0;
    iso_sim_get_solver_stats(sim, 0, &s);
    iso_sim_contact_count(sim, 0, &nc);
    iso_sim_contact_face_count(sim, 0, &nf);
    it += s.iterations, ls += s.ls_iterations, con += nc, faces += nf;
    if (s.iterations > it_max) it_max = s.iterations;
    if (nc > con_max) con_max = nc;
    if (nf > face_max) face_max = nf;
  }
  uint32_t status = 0;
  iso_sim_get_status(sim, iso_worlds_one(0), &status);
  double stage[32];
  int nstage = 0;
  iso_sim_get_stage_times(sim, stage, 32, &nstage);
  const isoCapacityDef cap = iso_sim_capacity(sim);
  size_t bpw = 0;
  iso_sim_memory_per_world(sim, &bpw);
  printf("{\"scene\": \"%s\", \"steps\": %ld, \"nv\": %d, \"nq\": %d, \"bodies\": %d, \"geometries\": %d, "
         "\"deformables\": %d, \"vertex_dofs\": %d, \"max_contacts\": %d, \"max_candidates\": %d, "
         "\"bytes_per_world\": %lld, \"status\": %u, "
         "\"newton_mean\": %.4f, \"newton_max\": %d, \"ls_per_step\": %.4f, \"constraints_mean\": %.3f, "
         "\"constraints_max\": %d, \"faces_mean\": %.3f, \"faces_max\": %d, \"candidates_mean\": %.2f, "
         "\"candidates_max\": %d, \"candidate_samples\": %ld, \"stage_us_per_step\": {",
         scene, steps, iso_model_nv(model), iso_sim_state_width(sim, ISO_STATE_Q), iso_sim_body_count(sim),
         iso_model_geometry_count(model), iso_model_deformable_count(model),
         iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION), cap.max_contacts, cap.max_candidates,
         (long long)bpw, status, it / steps, it_max, ls / steps, con / steps,
         con_max, faces / steps, face_max, ncand ? cand / ncand : 0.0, cand_max, ncand);
  for (int k = 0; k < nstage; ++k)
    printf("%s\"%s\": %.3f", k ? ", " : "", iso_sim_stage_name(k), 1e6 * stage[k] / steps);
  printf("}}\n");
  free(buf);
  iso_sim_destroy(shadow);
  iso_sim_destroy(sim);
  iso_model_destroy(model);
  return 0;
}
