#include <criterion/criterion.h>
#include <string.h>

#include "host/backend/backend.h"
#include "host/backend/linalg.h"
#include "isobar/backend.h"
#include "support/support.h"

Test(backend, parse_names) {
  isoBackendKind k;
  cr_assert_eq(iso_backend_parse("cpu", &k), ISO_OK);
  cr_assert_eq(k, ISO_BACKEND_CPU);
  cr_assert_eq(iso_backend_parse("cuda", &k), ISO_OK);
  cr_assert_eq(k, ISO_BACKEND_CUDA);
  cr_assert_eq(iso_backend_parse("auto", &k), ISO_OK);
  cr_assert_eq(k, ISO_BACKEND_AUTO);
  k = ISO_BACKEND_CPU;
  cr_assert_eq(iso_backend_parse("gpu", &k), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "'gpu'") != NULL, "message: %s", iso_last_error());
  cr_assert_eq(k, ISO_BACKEND_CPU, "a failed parse must not change the output");
  cr_assert_eq(iso_backend_parse(NULL, &k), ISO_ERR_NULL);
}

Test(backend, cuda_request_without_device_fails_clearly) {
  char why[256];
  if (test_cuda_device(why, sizeof why)) cr_skip_test("a CUDA device is present: %s", why);
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CUDA, 1, NULL), ISO_ERR_BACKEND);
  cr_assert(strstr(iso_last_error(), "cuda backend unavailable") != NULL, "%s", iso_last_error());
}

Test(backend, auto_falls_back_to_cpu_with_reason) {
  char why[256];
  if (test_cuda_device(why, sizeof why)) cr_skip_test("a CUDA device is present: %s", why);
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_AUTO, 2, NULL), ISO_OK);
  cr_assert_eq(b.kind, ISO_BACKEND_CPU);
  cr_assert_eq(b.threads, 2);
  cr_assert(strstr(b.reason, "auto chose cpu") != NULL, "%s", b.reason);
  backend_release(&b);
}

/* The emulated device runs the CUDA code serially on the host: asked for, it is used and says
 * what it is; AUTO never takes it. */
Test(backend, emulated_device_only_on_request) {
  if (!test_cuda_emulated()) cr_skip_test("the CUDA backend is not the host emulation");
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CUDA, 1, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(b.kind, ISO_BACKEND_CUDA);
  cr_assert(strstr(b.reason, "emulation") != NULL, "%s", b.reason);
  backend_release(&b);
  cr_assert_eq(backend_init(&b, ISO_BACKEND_AUTO, 2, NULL), ISO_OK);
  cr_assert_eq(b.kind, ISO_BACKEND_CPU);
  cr_assert_eq(b.threads, 2);
  cr_assert(strstr(b.reason, "auto chose cpu") != NULL && strstr(b.reason, "emulation") != NULL, "%s", b.reason);
  backend_release(&b);
}

/* A device allocation that fails is ISO_ERR_NOMEM, and it leaves no stale error behind: the
 * launch check after it (the pointer-array kernel of a Cholesky plan) reports its own launch. */
Test(backend, failed_device_alloc_is_nomem_and_not_sticky) {
  test_require_cuda_device();
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CUDA, 1, NULL), ISO_OK, "%s", iso_last_error());
  void *p = (void *)&b;
  cr_assert_eq(backend_alloc(&b, &p, (size_t)1 << 60), ISO_ERR_NOMEM, "%s", iso_last_error());
  cr_assert_null(p);
  cr_assert(strstr(iso_last_error(), "out of memory") != NULL, "%s", iso_last_error());
  linalgCholesky c;
  cr_assert_eq(linalg_cholesky_create(&b, 4, 3, &c), ISO_OK, "%s", iso_last_error());
  linalg_cholesky_destroy(&b, &c);
  backend_release(&b);
}

static void mark(int start, int end, void *ctx) {
  int *hits = (int *)ctx;
  for (int i = start; i < end; ++i) hits[i] += 1;
}

Test(backend, cpu_for_visits_each_item_once) {
  isoBackend b;
  for (int t = 1; t <= 4; ++t) {
    cr_assert_eq(backend_init(&b, ISO_BACKEND_CPU, t, NULL), ISO_OK);
    for (int n = 0; n < 40; n += 7) {
      int hits[64] = {0};
      backend_cpu_for(&b, n, mark, hits);
      for (int i = 0; i < 64; ++i) cr_assert_eq(hits[i], i < n ? 1 : 0, "t=%d n=%d i=%d", t, n, i);
    }
    backend_release(&b);
  }
}
