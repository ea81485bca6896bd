// The emulated device (ISO_CUDA_EMULATE): the part of the CUDA runtime that kernels/cuda/ uses,
// implemented on the host so the launch layer compiles as ordinary C++ and runs in CI, where
// there is no GPU. It is not a simulator of a GPU: "device" memory is host memory, streams are
// in order because everything runs at once, and a launch is a serial loop over the blocks and
// threads (ISO_LAUNCH in kernels/cuda/cuda_check.h). What it does check is what a real device
// checks on the calls the layer makes: launch configurations, device ids, frees of pointers it
// did not hand out, and a memory limit, so a failed allocation takes the layer's real error
// path and leaves the last error set as CUDA does.
#ifndef ISO_CUDA_EMU_RUNTIME_H
#define ISO_CUDA_EMU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor;
  int multiProcessorCount;
  int maxThreadsPerBlock;
};

struct CUstream_st {
  int magic;
};
typedef CUstream_st *cudaStream_t;
#define cudaStreamNonBlocking 0x01u

// The name the probe and the backend report; tests and AUTO tell an emulation by it too.
#define ISO_CUDA_EMU_DEVICE_NAME "isobar CUDA emulation (host)"

namespace iso_emu {

// Per-thread like CUDA's: the runtime's last error and the built-in launch coordinates.
inline thread_local cudaError_t last_error = cudaSuccess;
inline thread_local uint3 block_idx = {0, 0, 0};
inline thread_local uint3 thread_idx = {0, 0, 0};
inline thread_local dim3 block_dim;
inline thread_local dim3 grid_dim;
// Times the host waited for the device: synchronisations and device-to-host copies (a real
// device would stall the host there). A step must add none (tests/test_cuda_step.c).
inline thread_local long host_waits = 0;

// Emulated device memory: 16 GiB (ISO_CUDA_EMU_MEMORY overrides, in bytes), so a request no
// real device could satisfy fails with cudaErrorMemoryAllocation instead of reaching malloc.
inline size_t memory_limit() {
  const char *s = getenv("ISO_CUDA_EMU_MEMORY");
  return s && *s ? (size_t)strtoull(s, NULL, 10) : (size_t)16 << 30;
}
inline size_t in_use = 0;

// Every allocation starts with this header, so frees are checked and usage is counted.
constexpr size_t HEADER = 256;  // cudaMalloc's alignment
constexpr uint64_t MAGIC = 0x69736f6275666675ull;
struct header {
  uint64_t magic;
  size_t bytes;
};

inline cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}

template <class... P, class... A>
void launch(dim3 grid, dim3 block, cudaStream_t s, void (*kernel)(P...), A &&...args) {
  (void)s;
  if (grid.x == 0 || block.x == 0 || block.x * block.y * block.z > 1024 || grid.y * grid.z == 0) {
    fail(cudaErrorInvalidConfiguration);
    return;
  }
  grid_dim = grid;
  block_dim = block;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              block_idx = {bx, by, bz};
              thread_idx = {tx, ty, tz};
              kernel(args...);  // each thread gets its own copies of the by-value parameters
            }
}

}  // namespace iso_emu

#define blockIdx (::iso_emu::block_idx)
#define threadIdx (::iso_emu::thread_idx)
#define blockDim (::iso_emu::block_dim)
#define gridDim (::iso_emu::grid_dim)

// Threads run one after another, so a plain read-modify-write is atomic.
template <class T>
inline T atomicAdd(T *address, T val) {
  T old = *address;
  *address = old + val;
  return old;
}

inline cudaError_t cudaGetLastError(void) {
  cudaError_t e = iso_emu::last_error;
  iso_emu::last_error = cudaSuccess;
  return e;
}

inline cudaError_t cudaPeekAtLastError(void) { return iso_emu::last_error; }

inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
  }
  return "unrecognized error code";
}

inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}

inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : iso_emu::fail(cudaErrorInvalidDevice); }

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (d != 0) return iso_emu::fail(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", ISO_CUDA_EMU_DEVICE_NAME);
  p->totalGlobalMem = iso_emu::memory_limit();
  p->multiProcessorCount = 1;
  p->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

inline cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  *ptr = NULL;
  size_t limit = iso_emu::memory_limit();
  if (bytes > limit - iso_emu::HEADER || iso_emu::in_use > limit - iso_emu::HEADER - bytes)
    return iso_emu::fail(cudaErrorMemoryAllocation);
  size_t total = (bytes + iso_emu::HEADER + iso_emu::HEADER - 1) / iso_emu::HEADER * iso_emu::HEADER;
  char *raw = (char *)aligned_alloc(iso_emu::HEADER, total);
  if (!raw) return iso_emu::fail(cudaErrorMemoryAllocation);
  iso_emu::header h = {iso_emu::MAGIC, bytes};
  memcpy(raw, &h, sizeof h);
  iso_emu::in_use += bytes + iso_emu::HEADER;
  *ptr = raw + iso_emu::HEADER;
  return cudaSuccess;
}

template <class T>
inline cudaError_t cudaMalloc(T **ptr, size_t bytes) {
  return cudaMalloc((void **)ptr, bytes);
}

inline cudaError_t cudaFree(void *ptr) {
  if (!ptr) return cudaSuccess;
  char *raw = (char *)ptr - iso_emu::HEADER;
  iso_emu::header h;
  memcpy(&h, raw, sizeof h);
  if (h.magic != iso_emu::MAGIC) return iso_emu::fail(cudaErrorInvalidDevicePointer);
  h.magic = 0;  // a second free of the same block is refused too
  memcpy(raw, &h, sizeof h);
  iso_emu::in_use -= h.bytes + iso_emu::HEADER;
  free(raw);
  return cudaSuccess;
}

// Kernel attributes and device limits: host functions use no device stack, so every kernel
// reports 0 bytes of local memory and a limit is accepted and ignored.
struct cudaFuncAttributes {
  size_t localSizeBytes;
};
enum cudaLimit { cudaLimitStackSize = 0 };
template <typename F>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F) {
  a->localSizeBytes = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }

inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  size_t limit = iso_emu::memory_limit();
  *total = limit;
  *free_bytes = limit > iso_emu::in_use ? limit - iso_emu::in_use : 0;
  return cudaSuccess;
}

inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k, cudaStream_t s) {
  (void)s;
  if (bytes && (!dst || !src || (int)k < 0 || (int)k > 4)) return iso_emu::fail(cudaErrorInvalidValue);
  if (k == cudaMemcpyDeviceToHost || k == cudaMemcpyDefault) ++iso_emu::host_waits;
  if (bytes) memmove(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k) {
  return cudaMemcpyAsync(dst, src, bytes, k, NULL);
}

inline cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t s) {
  (void)s;
  if (bytes && !dst) return iso_emu::fail(cudaErrorInvalidValue);
  if (bytes) memset(dst, value, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  (void)flags;
  *s = new CUstream_st{0x5354};
  return cudaSuccess;
}

inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s || s->magic != 0x5354) return iso_emu::fail(cudaErrorInvalidResourceHandle);
  delete s;
  return cudaSuccess;
}

// Work is done when it is queued: there is never anything to wait for.
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  ++iso_emu::host_waits;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize(void) {
  ++iso_emu::host_waits;
  return cudaSuccess;
}

#endif
