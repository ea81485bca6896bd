/* The CUDA layer's C face when the CUDA backend was built: the cuda_* functions of cuda_api.h,
 * launch.h, linalg.h and list.h forward to libisobar_cuda.so, opened on the first call that
 * needs it (host/backend/cuda_module.h). Until then no CUDA library is mapped; when the module
 * or a library it needs cannot be opened, every call fails with ISO_ERR_BACKEND and the loader's
 * reason, which backend_init reports (AUTO falls back to the CPU with it).
 *
 * The module is looked for, in order: at $ISO_CUDA_MODULE (only there, when set); beside the
 * file holding this code (libisobar.so, or the executable it is linked into); in ../lib from
 * there (an installed bin/ tool); then by the dynamic loader's own search (LD_LIBRARY_PATH,
 * the executable's run path, the system's folders). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/cuda_api.h"
#include "host/backend/cuda_module.h"
#include "host/base/error.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static isoCudaApi g_api;
static int g_loaded;
static char g_why[768];

static isoStatus host_fail(isoStatus status, const char *message) { return iso_fail(status, "%s", message); }

static const isoCudaHost g_host = {host_fail};

/* dlopen `path`; on failure append dlerror()'s reason to g_why. */
static void *try_open(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    size_t used = strlen(g_why);
    snprintf(g_why + used, sizeof g_why - used, "%s%s", used ? "; " : "", e ? e : path);
  }
  return h;
}

/* The folder of the file this code was loaded from, with a trailing '/'; "" when unknown. For
 * an executable dladdr reports argv[0], which may be relative or a bare name: it is resolved
 * with realpath, else /proc/self/exe stands in. */
static void own_folder(char *dir, size_t len) {
  Dl_info info;
  char *full = NULL;
  dir[0] = '\0';
  if (dladdr(&g_once, &info) && info.dli_fname && strchr(info.dli_fname, '/'))
    full = realpath(info.dli_fname, NULL);
  if (!full) full = realpath("/proc/self/exe", NULL);
  if (!full) return;
  const char *slash = strrchr(full, '/');
  size_t n = slash ? (size_t)(slash - full) + 1 : 0;
  if (n && n < len) {
    memcpy(dir, full, n);
    dir[n] = '\0';
  }
  free(full);
}

static void load_module(void) {
  void *h = NULL;
  const char *env = getenv(ISO_CUDA_MODULE_ENV);
  if (env && *env) {
    h = try_open(env);
  } else {
    char dir[512], path[600];
    own_folder(dir, sizeof dir);
    if (dir[0]) {
      snprintf(path, sizeof path, "%s%s", dir, ISO_CUDA_MODULE_FILE);
      h = try_open(path);
      if (!h) {
        snprintf(path, sizeof path, "%s../lib/%s", dir, ISO_CUDA_MODULE_FILE);
        h = try_open(path);
      }
    }
    if (!h) h = try_open(ISO_CUDA_MODULE_FILE);
  }
  if (!h) return;
  /* POSIX's way of turning dlsym's object pointer into a function pointer. */
  isoCudaModuleEntry entry;
  void *sym = dlsym(h, ISO_CUDA_MODULE_ENTRY);
  memcpy(&entry, &sym, sizeof entry);
  if (!sym || !entry(&g_host, &g_api, sizeof g_api, sizeof(isoBackend))) {
    snprintf(g_why, sizeof g_why, "%s is not this build's CUDA module (%s)",
             env && *env ? env : ISO_CUDA_MODULE_FILE,
             sym ? "its tables differ" : "no " ISO_CUDA_MODULE_ENTRY);
    dlclose(h);
    return;
  }
  g_loaded = 1; /* never closed: device memory and streams may outlive any one sim */
}

/* The module's table, opened on first use; NULL when it cannot be opened. */
static const isoCudaApi *api(void) {
  pthread_once(&g_once, load_module);
  return g_loaded ? &g_api : NULL;
}

static isoStatus unavailable(void) {
  return iso_fail(ISO_ERR_BACKEND, "the CUDA module %s could not be loaded (set %s to its path): %s",
                  ISO_CUDA_MODULE_FILE, ISO_CUDA_MODULE_ENV, g_why);
}

#define FORWARD(call) \
  const isoCudaApi *t = api(); \
  return t ? t->call : unavailable()

int cuda_compiled(void) { return 1; }

int cuda_emulated(void) {
  const isoCudaApi *t = api();
  return t ? t->emulated() : 0;
}

long cuda_emu_host_waits(void) {
  const isoCudaApi *t = api();
  return t ? t->emu_host_waits() : -1;
}

isoStatus cuda_probe(int *ndevice, char *why, size_t why_len) {
  const isoCudaApi *t = api();
  if (t) return t->probe(ndevice, why, why_len);
  *ndevice = 0;
  isoStatus st = unavailable();
  if (why && why_len) snprintf(why, why_len, "%s", iso_last_error());
  return st;
}

isoStatus cuda_backend_init(isoBackend *b, void *user_stream) { FORWARD(backend_init(b, user_stream)); }

void cuda_backend_release(isoBackend *b) {
  const isoCudaApi *t = api();
  if (t) t->backend_release(b);
}

isoStatus cuda_alloc(void **ptr, size_t bytes) {
  *ptr = NULL;
  FORWARD(alloc(ptr, bytes));
}

void cuda_free(void *ptr) {
  const isoCudaApi *t = api();
  if (t) t->free(ptr);
}

isoStatus cuda_copy(const isoBackend *b, void *dst, const void *src, size_t bytes, int dir) {
  FORWARD(copy(b, dst, src, bytes, dir));
}

isoStatus cuda_memset0(const isoBackend *b, void *dst, size_t bytes) { FORWARD(memset0(b, dst, bytes)); }

isoStatus cuda_sync(const isoBackend *b) { FORWARD(sync(b)); }

isoStatus cuda_mem_free(size_t *bytes) {
  *bytes = 0;
  FORWARD(mem_free(bytes));
}

isoStatus cuda_launch_stack_bytes(size_t *bytes) {
  *bytes = 0;
  FORWARD(launch_stack_bytes(bytes));
}

#define ISO_LOAD_LAUNCH(name, args, block)                                     \
  isoStatus cuda_launch_##name(const isoBackend *b, long n, const args *a) {  \
    FORWARD(launch_##name(b, n, a));                                           \
  }
ISO_KERNELS(ISO_LOAD_LAUNCH)
#undef ISO_LOAD_LAUNCH

isoStatus cuda_cholesky_create(const isoBackend *b, linalgCholesky *c) { FORWARD(cholesky_create(b, c)); }

isoStatus cuda_cholesky_run(const isoBackend *b, linalgCholesky *c, uint32_t *world_status) {
  FORWARD(cholesky_run(b, c, world_status));
}

void cuda_cholesky_destroy(const isoBackend *b, linalgCholesky *c) {
  const isoCudaApi *t = api();
  if (t) t->cholesky_destroy(b, c);
  else if (c) c->dev_ptrs = NULL;
}

size_t cuda_list_workspace_bytes(const isoBackend *b, int n_max) {
  const isoCudaApi *t = api();
  if (t) return t->list_workspace_bytes(b, n_max);
  unavailable();
  return 0;
}

isoStatus cuda_list_scan(const isoBackend *b, const int *in, int *out, int n, int *total, void *ws,
                         size_t ws_bytes) {
  FORWARD(list_scan(b, in, out, n, total, ws, ws_bytes));
}

isoStatus cuda_list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                                size_t ws_bytes) {
  FORWARD(list_sort_by_key(b, keys, values, n, ws, ws_bytes));
}

isoStatus cuda_list_compact(const isoBackend *b, const int *flags, int n, int *out_index, int *count,
                            void *ws, size_t ws_bytes) {
  FORWARD(list_compact(b, flags, n, out_index, count, ws, ws_bytes));
}
