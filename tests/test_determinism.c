/* Golden run hashes: every example scene of bench/compare (and the URDF dumbbell) is run for a
 * fixed number of steps in a few worlds on the CPU backend, and q, v and time of all worlds are
 * folded after every step into one running FNV-1a hash (tests/support/run_hash.h). The running
 * hash at every checkpoint (each CHECKPOINT steps) and a hash of every body's contact wrench at
 * the last step must equal the values recorded in tests/data/golden/run_hashes.txt, bitwise, so
 * a refactor of the step that changes any bit of any world at any step fails here, naming the
 * scene and the first checkpoint whose hash differs (the runs part within its CHECKPOINT steps).
 * The same runs on 2 threads must agree with 1 thread at every checkpoint, states and contact
 * wrenches: the CPU backend is bitwise identical for any thread count.
 *
 * Each world starts with body 0's x velocity raised by PERTURB · world, so the worlds differ and
 * a bug that mixes up world indices changes the hash.
 *
 * Regenerate the file (only when a change of the physics is meant) with
 *   ISO_GOLDEN_WRITE=1 ISO_SOURCE_DIR=$PWD ./build/test_determinism --jobs 1
 * (or ISO_GOLDEN_WRITE=1 ctest --test-dir build -R test_determinism), which rewrites it (the
 * golden_file test) and skips the comparisons; commit it with the change that moved the bits
 * and say why in the commit message.
 *
 * The hashes are bits of this build's arithmetic: x86-64 without FMA contraction (the default
 * -march) and glibc's libm. Elsewhere (aarch64 contracts multiply-adds by default) the
 * comparison with the file is skipped and only the thread-count agreement is checked. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scene.h"
#include "support/run_hash.h"
#include "support/support.h"

#define WORLDS 3
#define CHECKPOINT 100
#define MAX_CHECKPOINTS 16
#define PERTURB 0.01 /* m/s of body 0's x velocity per world index */
#define GOLDEN "tests/data/golden/run_hashes.txt"

/* The scenes, as bench/compare/compare.py runs them (its SCENES list), with step counts that
 * reach each scene's events (the sphere's impact near step 175, the block sliding, the coin's
 * spin slowing) while the whole file stays a few seconds. */
typedef struct goldenScene {
  const char *name, *file;
  int steps;
  const char *body; /* a body with an initial velocity, or NULL */
  double vw[6];     /* its linear then angular velocity, as isobar run's --initial-velocity */
  int max_contacts; /* 0: the default */
} goldenScene;

static const goldenScene scenes[] = {
    {"compliant_box_on_plane", "examples/compliant_box_on_plane.sdf", 1000, NULL, {0}, 0},
    {"incline_below_friction", "examples/incline_below_friction.sdf", 1000, NULL, {0}, 0},
    {"incline_above_friction", "examples/incline_above_friction.sdf", 1000, NULL, {0}, 0},
    {"sphere_on_box", "examples/sphere_on_box.sdf", 500, NULL, {0}, 0},
    {"stack_of_five_boxes", "examples/stack_of_five_boxes.sdf", 200, NULL, {0}, 0},
    /* the coin's surface has ~378 polygons: the default capacity (256) would freeze it */
    {"coin_slide_spin", "examples/coin_slide_spin.sdf", 1000, "coin", {0.5, 0, 0, 0, 0, 40}, 378},
    {"point_contact", "examples/point_contact.sdf", 1000, NULL, {0}, 0},
    {"dumbbell_on_table", "examples/dumbbell_on_table.urdf", 500, NULL, {0}, 0},
};
#define NSCENES ((int)(sizeof scenes / sizeof scenes[0]))

/* What one run leaves at each checkpoint: the running hash of the states, and a hash of the
 * contact wrenches of that step. The file keeps the wrenches of the last step only. */
typedef struct runHashes {
  int ncheck;
  uint64_t state[MAX_CHECKPOINTS];
  uint64_t wrench[MAX_CHECKPOINTS];
} runHashes;

static const goldenScene *find_scene(const char *name) {
  for (int i = 0; i < NSCENES; ++i)
    if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
  cr_assert_fail("no scene '%s' in the table", name);
  return NULL;
}

static int writing(void) {
  const char *w = getenv("ISO_GOLDEN_WRITE");
  return w && strcmp(w, "1") == 0;
}

/* Body 0 of world w gets vx + PERTURB·w; `sc`'s body gets its initial velocity first. */
static void set_initial_velocities(const goldenScene *sc, const isoModel *m, isoSim *sim) {
  int nv = iso_sim_state_width(sim, ISO_STATE_V), b = -1;
  double v[WORLDS * 6 * 64];
  cr_assert_leq(WORLDS * nv, (int)(sizeof v / sizeof v[0]), "a scene with more than 64 bodies");
  cr_assert_eq(iso_sim_get_state(sim, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  if (sc->body) cr_assert_eq(iso_scene_find_body(m, sc->body, &b), ISO_OK, "%s", iso_last_error());
  for (int w = 0; w < WORLDS; ++w) {
    double *vw = v + w * nv;
    if (b >= 0) { /* the sim's v is [angular, linear] per body */
      memcpy(vw + 6 * b, sc->vw + 3, 3 * sizeof(double));
      memcpy(vw + 6 * b + 3, sc->vw, 3 * sizeof(double));
    }
    vw[3] += PERTURB * w;
  }
  cr_assert_eq(iso_sim_set_state(sim, ISO_STATE_V, iso_worlds_all(), v), ISO_OK, "%s", iso_last_error());
}

/* Every body's contact wrench in every world, as users read them after a step. */
static uint64_t hash_wrenches(isoSim *sim) {
  uint64_t h = RUN_HASH_SEED;
  for (int w = 0; w < WORLDS; ++w)
    for (int b = 0; b < iso_sim_body_count(sim); ++b) {
      double wrench[6];
      cr_assert_eq(iso_sim_get_body_contact_wrench(sim, w, b, wrench), ISO_OK, "%s", iso_last_error());
      h = run_hash_doubles(h, wrench, 6);
    }
  return h;
}

/* Scene `sc` on `threads` threads. */
static void run_scene(const goldenScene *sc, int threads, runHashes *out) {
  int steps = sc->steps;
  cr_assert(steps % CHECKPOINT == 0 && steps <= MAX_CHECKPOINTS * CHECKPOINT, "%s: %d steps", sc->name, steps);
  isoModel *m = NULL;
  isoStatus st = iso_scene_load(test_source_path(sc->file), NULL, &m, NULL);
  cr_assert_eq(st, ISO_OK, "%s: %s", sc->file, iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = WORLDS;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  if (sc->max_contacts) sd.capacity.max_contacts = sc->max_contacts;
  isoSim *sim = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &sim), ISO_OK, "%s: %s", sc->name, iso_last_error());
  cr_assert_eq(iso_sim_threads(sim), threads, "%s: the sim runs on %d threads", sc->name, iso_sim_threads(sim));
  set_initial_velocities(sc, m, sim);

  int nb = iso_sim_body_count(sim);
  double *scratch = (double *)malloc(sizeof(double) * (size_t)(WORLDS * 7 * nb + 1));
  cr_assert_not_null(scratch);
  memset(out, 0, sizeof *out);
  uint64_t h = RUN_HASH_SEED;
  for (int s = 1; s <= steps; ++s) {
    cr_assert_eq(iso_sim_step(sim), ISO_OK, "%s: step %d: %s", sc->name, s, iso_last_error());
    cr_assert_eq(run_hash_state(&h, sim, ISO_STATE_Q, scratch), ISO_OK);
    cr_assert_eq(run_hash_state(&h, sim, ISO_STATE_V, scratch), ISO_OK);
    cr_assert_eq(run_hash_state(&h, sim, ISO_STATE_TIME, scratch), ISO_OK);
    if (s % CHECKPOINT == 0) {
      out->state[out->ncheck] = h;
      out->wrench[out->ncheck++] = hash_wrenches(sim);
    }
  }
  /* A frozen world stops moving and would make its part of the hash say little. */
  uint32_t status[WORLDS];
  cr_assert_eq(iso_sim_get_status(sim, iso_worlds_all(), status), ISO_OK);
  for (int w = 0; w < WORLDS; ++w)
    cr_assert_eq(status[w] & ISO_WORLD_FROZEN, 0u, "%s: world %d froze (status 0x%x)", sc->name, w, status[w]);
  free(scratch);
  iso_sim_destroy(sim);
  iso_model_destroy(m);
}

/* ---- the file ---------------------------------------------------------------------------------
 * One line per checkpoint: "scene worlds steps state step hash", then "scene worlds steps
 * wrench steps hash" for the last step's contact wrenches; '#' starts a comment. */

static void read_golden(const goldenScene *sc, runHashes *out) {
  const char *path = test_source_path(GOLDEN);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "cannot read %s", path);
  memset(out, 0, sizeof *out);
  int seen_wrench = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char name[128], what[16];
    int worlds, steps, step;
    uint64_t h;
    if (line[0] == '#' || line[0] == '\n') continue;
    cr_assert_eq(sscanf(line, "%127s %d %d %15s %d %" SCNx64, name, &worlds, &steps, what, &step, &h), 6,
                 "%s: malformed line '%s'", path, line);
    if (strcmp(name, sc->name) != 0) continue;
    cr_assert(worlds == WORLDS && steps == sc->steps,
              "%s: %s was recorded with %d worlds and %d steps; the test runs %d and %d: regenerate the file "
              "(ISO_GOLDEN_WRITE=1)", path, sc->name, worlds, steps, WORLDS, sc->steps);
    if (strcmp(what, "wrench") == 0 && step == sc->steps) {
      out->wrench[sc->steps / CHECKPOINT - 1] = h;
      seen_wrench = 1;
    } else {
      cr_assert(strcmp(what, "state") == 0 && out->ncheck < MAX_CHECKPOINTS && step == (out->ncheck + 1) * CHECKPOINT,
                "%s: unexpected line '%s'", path, line);
      out->state[out->ncheck++] = h;
    }
  }
  fclose(f);
  cr_assert(out->ncheck == sc->steps / CHECKPOINT && seen_wrench,
            "%s holds no complete record of %s: regenerate it (ISO_GOLDEN_WRITE=1)", path, sc->name);
}

/* Each test runs in a child process spawned from this one after this hook, so the variable
 * reaches the child's OpenMP runtime as it starts. Why: libgomp's threads spin at a barrier
 * by default, and on a machine busier than its cores (a shared builder, ctest -j) a spinning
 * thread holds the core its partner needs; the 2-thread runs then took ~70 s instead of ~4.
 * Waiting changes no result (which thread does which world is fixed), and a caller's own
 * OMP_WAIT_POLICY is kept. */
ReportHook(PRE_ALL)(struct criterion_test_set *set) {
  (void)set;
  setenv("OMP_WAIT_POLICY", "passive", 0);
}

/* One scene: the 1-thread run equals the recorded one, and 2 threads agree with 1. */
static void check_scene(const goldenScene *sc) {
  const char *name = sc->name;
  if (writing()) cr_skip_test("ISO_GOLDEN_WRITE=1: the file is being rewritten, not compared");
  runHashes one, two, rec;
  run_scene(sc, 1, &one);
#if defined(__x86_64__)
  read_golden(sc, &rec);
  for (int i = 0; i < one.ncheck; ++i)
    cr_assert_eq(one.state[i], rec.state[i],
                 "%s: the run differs from the recorded one from checkpoint step %d on (it parts within steps "
                 "%d..%d): hash %016" PRIx64 ", recorded %016" PRIx64 ". If the physics is meant to change, "
                 "regenerate " GOLDEN " with ISO_GOLDEN_WRITE=1 (see tests/test_determinism.c)",
                 name, (i + 1) * CHECKPOINT, i * CHECKPOINT + 1, (i + 1) * CHECKPOINT, one.state[i], rec.state[i]);
  int last = one.ncheck - 1;
  cr_assert_eq(one.wrench[last], rec.wrench[last],
               "%s: the states match but the contact wrenches of the last step differ from the recorded ones "
               "(hash %016" PRIx64 ", recorded %016" PRIx64 ")", name, one.wrench[last], rec.wrench[last]);
#else
  cr_log_info("%s: the recorded hashes are x86-64's bits: only 1 and 2 threads are compared here", name);
#endif
  run_scene(sc, 2, &two);
  for (int i = 0; i < two.ncheck; ++i) {
    cr_assert_eq(one.state[i], two.state[i], "%s: 1 and 2 threads differ from checkpoint step %d on (%016" PRIx64
                 " vs %016" PRIx64 ")", name, (i + 1) * CHECKPOINT, one.state[i], two.state[i]);
    cr_assert_eq(one.wrench[i], two.wrench[i], "%s: 1 and 2 threads give different contact wrenches at step %d",
                 name, (i + 1) * CHECKPOINT);
  }
}

/* One test per scene (each its own process: a crash in one leaves the others' verdicts). */
ParameterizedTestParameters(determinism, scene) {
  static int index[] = {0, 1, 2, 3, 4, 5, 6, 7};
  _Static_assert(sizeof index / sizeof index[0] == sizeof scenes / sizeof scenes[0], "one index per scene");
  return cr_make_param_array(int, index, sizeof index / sizeof index[0]);
}

ParameterizedTest(int *i, determinism, scene) { check_scene(&scenes[*i]); }

/* With ISO_GOLDEN_WRITE=1: rewrite the file from 1-thread runs. Otherwise: the file records
 * exactly the scenes of the table (a renamed or dropped scene leaves no stale lines). */
Test(determinism, golden_file) {
  const char *path = test_source_path(GOLDEN);
  if (!writing()) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[512], name[128];
    while (fgets(line, sizeof line, f))
      if (line[0] != '#' && line[0] != '\n' && sscanf(line, "%127s", name) == 1) find_scene(name);
    fclose(f);
    return;
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  fprintf(f,
          "# Golden run hashes, written by tests/test_determinism.c (which says what is run) and checked\n"
          "# by it. Columns: scene, worlds, steps of the run, what, step, hash (FNV-1a 64, 16 hex digits)\n"
          "#   state   a running hash over the raw bytes of q, v and time of all worlds after every step,\n"
          "#           recorded every %d steps: the first line that differs says where two runs part\n"
          "#   wrench  every body's contact wrench in every world at the last step\n"
          "# CPU backend, 1 thread; the bits of x86-64 without FMA contraction and glibc's libm.\n"
          "# Regenerate only for a change meant to move the physics, from the source tree:\n"
          "#   ISO_GOLDEN_WRITE=1 ISO_SOURCE_DIR=$PWD ./build/test_determinism --jobs 1\n",
          CHECKPOINT);
  for (int i = 0; i < NSCENES; ++i) {
    runHashes r;
    run_scene(&scenes[i], 1, &r);
    for (int c = 0; c < r.ncheck; ++c)
      fprintf(f, "%s %d %d state %d %016" PRIx64 "\n", scenes[i].name, WORLDS, scenes[i].steps, (c + 1) * CHECKPOINT,
              r.state[c]);
    fprintf(f, "%s %d %d wrench %d %016" PRIx64 "\n", scenes[i].name, WORLDS, scenes[i].steps, scenes[i].steps,
            r.wrench[r.ncheck - 1]);
  }
  cr_assert_eq(fclose(f), 0, "writing %s", path);
}
