/* The CUDA step never waits for the device: everything from collision to integration is a fixed
 * sequence of launches on the sim's stream (the Newton loop runs per world on the device,
 * sap_solve_world), with no synchronisation and no device-to-host copy, so a whole step can be
 * captured in a CUDA graph. Checked on the emulated device, which counts the host's waits
 * (synchronisations and device-to-host copies); skipped elsewhere. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "host/backend/cuda_api.h"
#include "kernels/sap/batch.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

/* Six worlds of m on the emulated device, initialised by init. */
static isoSim *emulated_sim(const isoModel *m, isoStatus (*init)(isoSim *)) {
  if (!test_cuda_emulated()) cr_skip_test("needs the emulated CUDA device (ISO_CUDA_EMULATE=ON) to count host waits");
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 6;
  sd.backend = ISO_BACKEND_CUDA;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(init(s), ISO_OK, "%s", iso_last_error());
  return s;
}

static void no_waits_while_stepping(isoModel *m, isoStatus (*init)(isoSim *)) {
  isoSim *s = emulated_sim(m, init);
  cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  long before = cuda_emu_host_waits();
  cr_assert_geq(before, 0);
  for (int i = 0; i < 20; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(cuda_emu_host_waits(), before, "20 steps waited for the device %ld times", cuda_emu_host_waits() - before);
  /* reading results does wait (it must): the counter sees it, so it is live */
  uint32_t st[6];
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), st), ISO_OK);
  cr_expect_gt(cuda_emu_host_waits(), before);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(cuda_step, contact_step_never_waits) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_contact_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  no_waits_while_stepping(m, iso_scene_contact_init);
}

Test(cuda_step, free_body_step_never_waits) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(3, 1e-3, &m), ISO_OK, "%s", iso_last_error());
  no_waits_while_stepping(m, iso_scene_tumbling_init);
}

/* ISO_CUDA_SYNC=1 waits for every launch (a debugging switch that puts a fault at the launch
 * that caused it): the same steps then wait for the device once per launch at least. */
Test(cuda_step, sync_switch_waits_for_every_launch) {
  cr_assert_eq(setenv("ISO_CUDA_SYNC", "1", 1), 0); /* before the process's first launch */
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_contact_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSim *s = emulated_sim(m, iso_scene_contact_init);
  long before = cuda_emu_host_waits();
  for (int i = 0; i < 5; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  cr_expect_geq(cuda_emu_host_waits() - before, 5 * 4, "a wait per launch: %ld in 5 steps", cuda_emu_host_waits() - before);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The block size of the one-item-per-world kernels (ISO_CUDA_WORLD_BLOCK, for comparing sizes on
 * a device) changes where the items run, never what they compute: the emulated device at 96
 * threads per block (three warps, not the default 32) gives the CPU's bits. */
Test(cuda_step, world_block_size_changes_no_result) {
  if (!test_cuda_emulated()) cr_skip_test("needs the emulated CUDA device (ISO_CUDA_EMULATE=ON)");
  cr_assert_eq(setenv("ISO_CUDA_WORLD_BLOCK", "96", 1), 0); /* before the process's first launch */
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_contact_model(1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSim *s[2] = {NULL, NULL};
  for (int k = 0; k < 2; ++k) {
    isoSimDef sd = iso_default_sim_def();
    sd.worlds = 100; /* more than one block of 96, and not a multiple of it */
    sd.backend = k ? ISO_BACKEND_CUDA : ISO_BACKEND_CPU;
    sd.threads = 1;
    cr_assert_eq(iso_sim_create(m, &sd, &s[k]), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(iso_scene_contact_init(s[k]), ISO_OK, "%s", iso_last_error());
    for (int i = 0; i < 30; ++i) cr_assert_eq(iso_sim_step(s[k]), ISO_OK, "%s", iso_last_error());
  }
  const int n = 100 * iso_sim_state_width(s[0], ISO_STATE_Q);
  double *q[2];
  for (int k = 0; k < 2; ++k) {
    q[k] = (double *)malloc(sizeof(double) * (size_t)n);
    cr_assert_eq(iso_sim_get_state(s[k], ISO_STATE_Q, iso_worlds_all(), q[k]), ISO_OK);
  }
  cr_expect(test_same_bits(q[0], q[1], n), "the emulated device at 96 threads per block differs from the CPU");
  for (int k = 0; k < 2; ++k) free(q[k]), iso_sim_destroy(s[k]);
  iso_model_destroy(m);
}

/* ISO_CUDA_SOLVE_WORKSPACE=1 gives the GPU's solve a workspace per world (sapBatch.work: the
 * Jacobian blocks formed once per step, J·v, J·Δv, γ and G kept across the passes), where by
 * default every pass forms them again. Both give the CPU's bits on the five-box stack (a
 * hundred contacts a world: every pass of the solve has work), and the workspace is counted in
 * the memory per world. On a device, worlds solved at once by neighbouring threads would spoil
 * each other's results if they shared a workspace. */
Test(cuda_step, solve_workspace_per_world_keeps_the_bits) {
  test_require_cuda_device();
  if (!test_cuda_exact()) cr_skip_test("the CUDA module was built with FMA contraction (ISO_PARITY=OFF)");
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path("examples/stack_of_five_boxes.sdf"), NULL, &m, NULL), ISO_OK, "%s",
               iso_last_error());
  enum { W = 40, STEPS = 20 };
  isoSim *s[3] = {NULL, NULL, NULL}; /* CPU, CUDA with the workspace, CUDA without */
  cr_assert_eq(setenv("ISO_CUDA_SOLVE_WORKSPACE", "1", 1), 0); /* read at creation */
  size_t bytes[3];
  for (int k = 0; k < 3; ++k) {
    if (k == 2) cr_assert_eq(unsetenv("ISO_CUDA_SOLVE_WORKSPACE"), 0);
    s[k] = test_sim(m, W, k ? ISO_BACKEND_CUDA : ISO_BACKEND_CPU, 1);
    cr_assert_eq(iso_sim_memory_per_world(s[k], &bytes[k]), ISO_OK);
    for (int i = 0; i < STEPS; ++i) cr_assert_eq(iso_sim_step(s[k]), ISO_OK, "%s", iso_last_error());
  }
  const size_t ws = (size_t)iso_sim_capacity(s[1]).max_contacts * sizeof(sapWorkCon);
  cr_expect_geq(bytes[1], bytes[2] + ws, "with the workspace %zu bytes per world, without %zu", bytes[1], bytes[2]);
  const int n = W * iso_sim_state_width(s[0], ISO_STATE_Q), nv = W * iso_sim_state_width(s[0], ISO_STATE_V);
  double *q = (double *)malloc(sizeof(double) * (size_t)(3 * (n + nv))), *v = q + 3 * n;
  for (int k = 0; k < 3; ++k) {
    cr_assert_eq(iso_sim_get_state(s[k], ISO_STATE_Q, iso_worlds_all(), q + k * n), ISO_OK);
    cr_assert_eq(iso_sim_get_state(s[k], ISO_STATE_V, iso_worlds_all(), v + k * nv), ISO_OK);
  }
  int faces = 0;
  cr_assert_eq(iso_sim_get_contact_counts(s[1], iso_worlds_one(0), &faces, NULL, NULL), ISO_OK);
  cr_assert_gt(faces, 50, "the stack rests on %d faces", faces);
  for (int k = 1; k < 3; ++k) {
    cr_expect(test_same_bits(q, q + k * n, n) && test_same_bits(v, v + k * nv, nv),
              "the emulated device %s the workspace differs from the CPU", k == 1 ? "with" : "without");
  }
  free(q);
  for (int k = 0; k < 3; ++k) iso_sim_destroy(s[k]);
  iso_model_destroy(m);
}
