/* The CUDA layer's C face when this library was built without nvcc: every entry point fails
 * with ISO_ERR_BACKEND and says so, so callers need no #ifdef. */
#include <stdio.h>

#include "host/backend/cuda_api.h"
#include "host/backend/launch.h"
#include "host/base/error.h"

#define OFF_MSG "isobar was built without the CUDA backend (nvcc not found at configure time)"

int cuda_compiled(void) { return 0; }

int cuda_emulated(void) { return 0; }

long cuda_emu_host_waits(void) { return -1; }

isoStatus cuda_mem_free(size_t *bytes) {
  *bytes = 0;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

isoStatus cuda_probe(int *ndevice, char *why, size_t why_len) {
  *ndevice = 0;
  if (why && why_len) snprintf(why, why_len, "%s", OFF_MSG);
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

isoStatus cuda_backend_init(isoBackend *b, void *user_stream) {
  (void)b;
  (void)user_stream;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

void cuda_backend_release(isoBackend *b) { (void)b; }

isoStatus cuda_alloc(void **ptr, size_t bytes) {
  (void)bytes;
  *ptr = NULL;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

void cuda_free(void *ptr) { (void)ptr; }

isoStatus cuda_copy(const isoBackend *b, void *dst, const void *src, size_t bytes, int dir) {
  (void)b, (void)dst, (void)src, (void)bytes, (void)dir;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

isoStatus cuda_memset0(const isoBackend *b, void *dst, size_t bytes) {
  (void)b, (void)dst, (void)bytes;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

isoStatus cuda_sync(const isoBackend *b) {
  (void)b;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

/* The kernel table's CUDA launchers (host/backend/launch.h), all failing. */
#define ISO_LAUNCH_OFF(name, args, block)                                     \
  isoStatus cuda_launch_##name(const isoBackend *b, long n, const args *a) { \
    (void)b, (void)n, (void)a;                                                \
    return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);                          \
  }
ISO_KERNELS(ISO_LAUNCH_OFF)
#undef ISO_LAUNCH_OFF

isoStatus cuda_launch_stack_bytes(size_t *bytes) {
  *bytes = 0;
  return iso_fail(ISO_ERR_BACKEND, "%s", OFF_MSG);
}

