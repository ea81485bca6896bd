/* The CUDA module (host/backend/cuda_module.h) is opened on the first CUDA request only: a CPU
 * sim maps no CUDA library, and a module that cannot be opened is a clear reason for a CUDA
 * request to fail and for AUTO to choose the CPU. Criterion runs each test in its own process,
 * so each starts with the module unopened. */
#define _DEFAULT_SOURCE /* setenv */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/backend.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

/* 1 when a mapping of this process names a file whose name contains `name`. */
static int mapped(const char *name) {
  FILE *f = fopen("/proc/self/maps", "r");
  cr_assert_not_null(f, "cannot read /proc/self/maps");
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
  fclose(f);
  return found;
}

Test(cuda_load, cpu_sim_maps_no_cuda_library) {
  if (!iso_cuda_compiled()) cr_skip_test("built without the CUDA backend: nothing to load");
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(3, 1e-3, &m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 4;
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  for (int i = 0; i < 5; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  cr_expect(!mapped("libisobar_cuda"), "a CPU sim opened the CUDA module");
  cr_expect(!mapped("libcudart"), "a CPU sim mapped libcudart");
  cr_expect(!mapped("libcusolver"), "a CPU sim mapped libcusolver");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(cuda_load, missing_module_is_the_reason) {
  if (!iso_cuda_compiled()) cr_skip_test("built without the CUDA backend: nothing to load");
  cr_assert_eq(setenv("ISO_CUDA_MODULE", "/nonexistent/libisobar_cuda.so", 1), 0);
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CUDA, 1, NULL), ISO_ERR_BACKEND);
  const char *e = iso_last_error();
  cr_expect(strstr(e, "cuda backend unavailable") && strstr(e, "could not be loaded") &&
                strstr(e, "ISO_CUDA_MODULE") && strstr(e, "/nonexistent/libisobar_cuda.so"),
            "%s", e);
  cr_assert_eq(backend_init(&b, ISO_BACKEND_AUTO, 2, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(b.kind, ISO_BACKEND_CPU);
  cr_expect(strstr(b.reason, "auto chose cpu") && strstr(b.reason, "could not be loaded"), "%s", b.reason);
  backend_release(&b);
  int n = -1;
  char why[256] = "";
  cr_assert_eq(iso_cuda_probe(&n, why, sizeof why), ISO_OK);
  cr_expect_eq(n, 0);
  cr_expect(strstr(why, "could not be loaded") != NULL, "%s", why);
  cr_expect(!mapped("libcudart"), "a failed load left libcudart mapped");
}

/* The emulated module needs no device, so this build shows the module opened on request. */
Test(cuda_load, module_opened_on_cuda_request) {
  if (!iso_cuda_compiled()) cr_skip_test("built without the CUDA backend: nothing to load");
  cr_assert(!mapped("libisobar_cuda"), "the CUDA module was open before any CUDA request");
  char why[256];
  if (!test_cuda_device(why, sizeof why)) cr_skip_test("no CUDA device: %s", why);
  cr_assert(mapped("libisobar_cuda"), "probing for a device did not open the CUDA module");
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CUDA, 1, NULL), ISO_OK, "%s", iso_last_error());
  backend_release(&b);
}
