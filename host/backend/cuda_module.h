/* Internal: the CUDA layer as a module loaded on first use. With the CUDA backend built, the
 * kernels/cuda/ objects and the CUDA libraries they need (cudart, cuSOLVER; CUB and Thrust are
 * compiled into the objects) form libisobar_cuda.so, which the library opens with dlopen the
 * first time a CUDA backend is asked for (host/backend/cuda_load.c), so a program that only
 * uses the CPU never maps them and a build with CUDA runs on a machine without them.
 *
 * The module exports one symbol, ISO_CUDA_MODULE_ENTRY, which fills a table of the cuda_*
 * functions of cuda_api.h, launch.h, linalg.h and list.h; the library's own cuda_* functions
 * forward through that table. The module records failures through the library's iso_fail
 * (isoCudaHost.fail), so iso_last_error() is the one the caller reads. */
#ifndef ISO_HOST_CUDA_MODULE_H
#define ISO_HOST_CUDA_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "host/backend/backend.h"
#include "host/backend/launch.h"
#include "host/backend/linalg.h"
#include "host/backend/list.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ISO_CUDA_MODULE_FILE "libisobar_cuda.so"
#define ISO_CUDA_MODULE_ENTRY "iso_cuda_module_v1"
/* The environment variable naming the module's path, tried before anything else. */
#define ISO_CUDA_MODULE_ENV "ISO_CUDA_MODULE"

/* What the library gives the module. */
typedef struct isoCudaHost {
  isoStatus (*fail)(isoStatus status, const char *message); /* iso_fail(status, "%s", message) */
} isoCudaHost;

#define ISO_CUDA_API_LAUNCH(name, args, block) isoStatus (*launch_##name)(const isoBackend *, long, const args *);

/* What the module gives the library: the cuda_* functions, one pointer each. */
typedef struct isoCudaApi {
  int (*emulated)(void);
  long (*emu_host_waits)(void);
  isoStatus (*probe)(int *ndevice, char *why, size_t why_len);
  isoStatus (*backend_init)(isoBackend *b, void *user_stream);
  void (*backend_release)(isoBackend *b);
  isoStatus (*alloc)(void **ptr, size_t bytes);
  void (*free)(void *ptr);
  isoStatus (*copy)(const isoBackend *b, void *dst, const void *src, size_t bytes, int dir);
  isoStatus (*memset0)(const isoBackend *b, void *dst, size_t bytes);
  isoStatus (*sync)(const isoBackend *b);
  isoStatus (*mem_free)(size_t *bytes);
  isoStatus (*launch_stack_bytes)(size_t *bytes);
  ISO_KERNELS(ISO_CUDA_API_LAUNCH)
  isoStatus (*cholesky_create)(const isoBackend *b, linalgCholesky *c);
  isoStatus (*cholesky_run)(const isoBackend *b, linalgCholesky *c, uint32_t *world_status);
  void (*cholesky_destroy)(const isoBackend *b, linalgCholesky *c);
  size_t (*list_workspace_bytes)(const isoBackend *b, int n_max);
  isoStatus (*list_scan)(const isoBackend *b, const int *in, int *out, int n, int *total, void *ws,
                         size_t ws_bytes);
  isoStatus (*list_sort_by_key)(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                                size_t ws_bytes);
  isoStatus (*list_compact)(const isoBackend *b, const int *flags, int n, int *out_index, int *count,
                            void *ws, size_t ws_bytes);
} isoCudaApi;
#undef ISO_CUDA_API_LAUNCH

/* The module's entry point. The sizes are the caller's sizeof(isoCudaApi) and sizeof(isoBackend):
 * a module built from other sources refuses (returns 0) rather than fill a table of another
 * shape. Returns 1 and fills *api otherwise. */
typedef int (*isoCudaModuleEntry)(const isoCudaHost *host, isoCudaApi *api, size_t api_bytes,
                                  size_t backend_bytes);

#ifdef __cplusplus
}
#endif
#endif
