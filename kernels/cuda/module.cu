// The entry point of libisobar_cuda.so (host/backend/cuda_module.h): fills the library's table
// with this layer's cuda_* functions, and records this layer's failures through the library.
// Only the entry point is exported (cmake/cuda_module.map), so nothing here interposes on, or is
// interposed by, the library's own symbols.
#include <stdarg.h>
#include <stdio.h>

#include "host/backend/cuda_api.h"
#include "host/backend/cuda_module.h"
#include "host/base/error.h"

static const isoCudaHost *g_host;

// The module's iso_fail: the message is formatted here and recorded by the library, whose
// thread-local last error is the one iso_last_error() reads.
extern "C" isoStatus iso_fail(isoStatus status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return g_host ? g_host->fail(status, msg) : status;
}

extern "C" __attribute__((visibility("default"))) int iso_cuda_module_v1(const isoCudaHost *host, isoCudaApi *api,
                                                                          size_t api_bytes, size_t backend_bytes) {
  if (!host || !host->fail || !api || api_bytes != sizeof(isoCudaApi) || backend_bytes != sizeof(isoBackend))
    return 0;
  g_host = host;
  api->emulated = cuda_emulated;
  api->emu_host_waits = cuda_emu_host_waits;
  api->probe = cuda_probe;
  api->backend_init = cuda_backend_init;
  api->backend_release = cuda_backend_release;
  api->alloc = cuda_alloc;
  api->free = cuda_free;
  api->copy = cuda_copy;
  api->memset0 = cuda_memset0;
  api->sync = cuda_sync;
  api->mem_free = cuda_mem_free;
  api->launch_stack_bytes = cuda_launch_stack_bytes;
#define ISO_MODULE_LAUNCH(name, args, block) api->launch_##name = cuda_launch_##name;
  ISO_KERNELS(ISO_MODULE_LAUNCH)
#undef ISO_MODULE_LAUNCH
  api->cholesky_create = cuda_cholesky_create;
  api->cholesky_run = cuda_cholesky_run;
  api->cholesky_destroy = cuda_cholesky_destroy;
  api->list_workspace_bytes = cuda_list_workspace_bytes;
  api->list_scan = cuda_list_scan;
  api->list_sort_by_key = cuda_list_sort_by_key;
  api->list_compact = cuda_list_compact;
  return 1;
}
