// Device discovery, streams and device memory for the CUDA backend. Thin on purpose: every
// call is checked and turned into an isoStatus; nothing here aborts.
#include <cusolverDn.h>
#include <stdio.h>

#include "host/backend/cuda_api.h"
#include "host/backend/launch.h"
#include "kernels/cuda/cuda_check.h"

extern "C" int cuda_compiled(void) { return 1; }

#if defined(ISO_CUDA_EMULATED) && ISO_CUDA_EMULATED
extern "C" int cuda_emulated(void) { return 1; }
extern "C" long cuda_emu_host_waits(void) { return iso_emu::host_waits; }
#else
extern "C" int cuda_emulated(void) { return 0; }
extern "C" long cuda_emu_host_waits(void) { return -1; }
#endif

extern "C" isoStatus cuda_probe(int *ndevice, char *why, size_t why_len) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    *ndevice = 0;
    if (why && why_len) snprintf(why, why_len, "no usable CUDA device: %s", cudaGetErrorString(e));
    cudaGetLastError(); /* clear the sticky error so later calls are not poisoned */
    return iso_fail(ISO_ERR_BACKEND, "no usable CUDA device: %s", cudaGetErrorString(e));
  }
  *ndevice = n;
  if (why && why_len) {
    if (n == 0) snprintf(why, why_len, "no CUDA device found");
    else {
      cudaDeviceProp p;
      if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_len, "%d CUDA device(s)", n);
      } else if (cuda_emulated()) snprintf(why, why_len, "%d CUDA device(s); device 0: %s", n, p.name);
      else snprintf(why, why_len, "%d CUDA device(s); device 0: %s (sm_%d%d)", n, p.name, p.major, p.minor);
    }
  }
  if (n == 0) return iso_fail(ISO_ERR_BACKEND, "no CUDA device found");
  return ISO_OK;
}

extern "C" isoStatus cuda_backend_init(isoBackend *b, void *user_stream) {
  CUDA_TRY(cudaSetDevice(0));
  b->device = 0;
  if (user_stream) {
    b->stream = user_stream;
    b->own_stream = 0;
  } else {
    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    b->stream = (void *)s;
    b->own_stream = 1;
  }
  cusolverDnHandle_t h;
  cusolverStatus_t cs = cusolverDnCreate(&h);
  if (cs != CUSOLVER_STATUS_SUCCESS) {
    if (b->own_stream) cudaStreamDestroy((cudaStream_t)b->stream);
    return iso_fail(ISO_ERR_CUDA, "cusolverDnCreate failed (status %d)", (int)cs);
  }
  cs = cusolverDnSetStream(h, (cudaStream_t)b->stream);
  if (cs != CUSOLVER_STATUS_SUCCESS) {
    cusolverDnDestroy(h);
    if (b->own_stream) cudaStreamDestroy((cudaStream_t)b->stream);
    return iso_fail(ISO_ERR_CUDA, "cusolverDnSetStream failed (status %d)", (int)cs);
  }
  b->cusolver = (void *)h;
  /* reserve the kernels' stack now: an out-of-memory here is a clear creation error */
  size_t stack = 0;
  isoStatus st = cuda_launch_stack_bytes(&stack);
  if (st == ISO_OK && stack > 0 && cudaDeviceSetLimit(cudaLimitStackSize, stack) != cudaSuccess) {
    cudaError_t e = cudaGetLastError();
    cusolverDnDestroy(h);
    if (b->own_stream) cudaStreamDestroy((cudaStream_t)b->stream);
    return iso_fail(e == cudaErrorMemoryAllocation ? ISO_ERR_NOMEM : ISO_ERR_CUDA,
                    "cuda: reserving %zu bytes of stack per thread for the step's kernels failed: %s", stack,
                    cudaGetErrorString(e));
  }
  if (st != ISO_OK) {
    cusolverDnDestroy(h);
    if (b->own_stream) cudaStreamDestroy((cudaStream_t)b->stream);
    return st;
  }
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) (void)cudaGetLastError();
  else if (cuda_emulated()) snprintf(b->reason, sizeof b->reason, "cuda device 0: %.200s", p.name);
  else snprintf(b->reason, sizeof b->reason, "cuda device 0: %.200s (sm_%d%d)", p.name, p.major, p.minor);
  return ISO_OK;
}

extern "C" void cuda_backend_release(isoBackend *b) {
  if (b->cusolver) cusolverDnDestroy((cusolverDnHandle_t)b->cusolver);
  if (b->own_stream && b->stream) cudaStreamDestroy((cudaStream_t)b->stream);
  b->cusolver = NULL;
  b->stream = NULL;
}

extern "C" isoStatus cuda_alloc(void **ptr, size_t bytes) {
  *ptr = NULL;
  CUDA_TRY(cudaMalloc(ptr, bytes));
  return ISO_OK;
}

extern "C" void cuda_free(void *ptr) { cudaFree(ptr); }

extern "C" isoStatus cuda_copy(const isoBackend *b, void *dst, const void *src, size_t bytes, int dir) {
  cudaMemcpyKind k = dir == 0 ? cudaMemcpyHostToDevice
                   : dir == 1 ? cudaMemcpyDeviceToHost
                              : cudaMemcpyDeviceToDevice;
  cudaStream_t s = (cudaStream_t)b->stream;
  CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, k, s));
  if (dir != 2) CUDA_TRY(cudaStreamSynchronize(s)); /* host buffers may be reused at once */
  return ISO_OK;
}

extern "C" isoStatus cuda_memset0(const isoBackend *b, void *dst, size_t bytes) {
  CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, (cudaStream_t)b->stream));
  return ISO_OK;
}

extern "C" isoStatus cuda_sync(const isoBackend *b) {
  CUDA_TRY(cudaStreamSynchronize((cudaStream_t)b->stream));
  return ISO_OK;
}

extern "C" isoStatus cuda_mem_free(size_t *bytes) {
  size_t total = 0;
  CUDA_TRY(cudaMemGetInfo(bytes, &total));
  return ISO_OK;
}
