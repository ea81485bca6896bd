/* Internal: the C face of the CUDA layer (kernels/cuda/ files). Without nvcc these are provided
 * by host/backend/cuda_off.c and fail with ISO_ERR_BACKEND, so C code never needs CUDA headers.
 * With it, the library's versions (host/backend/cuda_load.c) forward to the CUDA module,
 * libisobar_cuda.so, opened on the first call that needs it (host/backend/cuda_module.h). All
 * pointers passed to the kernel drivers are device pointers on b->stream. */
#ifndef ISO_HOST_CUDA_API_H
#define ISO_HOST_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "host/backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* runtime (kernels/cuda/cuda_runtime.cu) */
int cuda_compiled(void);
/* 1 when the CUDA layer runs on the host shim of kernels/cuda/emu (ISO_CUDA_EMULATE): the CUDA
 * code paths for tests, not a device anyone would choose for speed. */
int cuda_emulated(void);
/* Emulated device only: how many times this thread's host has waited for the device so far
 * (synchronisations and device-to-host copies); -1 on a real device or without CUDA. */
long cuda_emu_host_waits(void);
isoStatus cuda_probe(int *ndevice, char *why, size_t why_len);
isoStatus cuda_backend_init(isoBackend *b, void *user_stream);
void cuda_backend_release(isoBackend *b);
isoStatus cuda_alloc(void **ptr, size_t bytes);
void cuda_free(void *ptr);
/* dir: 0 host->device, 1 device->host, 2 device->device */
isoStatus cuda_copy(const isoBackend *b, void *dst, const void *src, size_t bytes, int dir);
isoStatus cuda_memset0(const isoBackend *b, void *dst, size_t bytes);
isoStatus cuda_sync(const isoBackend *b);
/* Free device memory now (cudaMemGetInfo). */
isoStatus cuda_mem_free(size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
