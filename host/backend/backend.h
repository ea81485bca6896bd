/* Internal: the backend a sim runs on, and the memory and loop primitives every stage uses.
 *
 * One interface for both backends. Buffers handed to stage drivers live in the backend's
 * memory space (host memory for CPU, device memory for CUDA); get/set calls of the public API
 * go through backend_upload/backend_download. The CPU backend runs per-item kernel functions
 * over index ranges with OpenMP's static schedule: each item is computed by exactly one
 * thread with no cross-item reduction, so results do not depend on the thread count. */
#ifndef ISO_HOST_BACKEND_H
#define ISO_HOST_BACKEND_H

#include <stddef.h>

#include "isobar/backend.h"

typedef struct isoBackend {
  isoBackendKind kind; /* ISO_BACKEND_CPU or ISO_BACKEND_CUDA, never AUTO once initialised */
  int threads;         /* CPU: OpenMP threads for parallel loops (>= 1) */
  int device;          /* CUDA: device ordinal */
  void *stream;        /* CUDA: cudaStream_t the sim's work is queued on */
  int own_stream;      /* CUDA: 1 when the backend created `stream` and must destroy it */
  void *cusolver;      /* CUDA: cusolverDnHandle_t bound to `stream` */
  char reason[256];    /* why this backend was chosen (AUTO) or what it is */
} isoBackend;

/* Resolve `kind` (AUTO falls back to CPU with the reason recorded) and set up the backend.
 * threads <= 0 means OpenMP's default. `stream` is a caller's cudaStream_t or NULL. */
isoStatus backend_init(isoBackend *b, isoBackendKind kind, int threads, void *stream);
void backend_release(isoBackend *b);

/* Zero-filled allocation in the backend's memory space; bytes == 0 gives *ptr = NULL. */
isoStatus backend_alloc(const isoBackend *b, void **ptr, size_t bytes);
void backend_free(const isoBackend *b, void *ptr);
isoStatus backend_upload(const isoBackend *b, void *dst, const void *src, size_t bytes);
isoStatus backend_download(const isoBackend *b, void *dst, const void *src, size_t bytes);
isoStatus backend_copy(const isoBackend *b, void *dst, const void *src, size_t bytes);
isoStatus backend_memset0(const isoBackend *b, void *dst, size_t bytes);
isoStatus backend_sync(const isoBackend *b);
/* Memory a new allocation could take now: the device's free memory on CUDA, the system's
 * available memory (MemAvailable) on the CPU; 0 when unknown. */
size_t backend_memory_available(const isoBackend *b);

/* CPU: run fn(start, end, ctx) over [0, n) split into contiguous static chunks, one per
 * thread (serially when threads == 1). */
typedef void (*backend_range_fn)(int start, int end, void *ctx);
void backend_cpu_for(const isoBackend *b, int n, backend_range_fn fn, void *ctx);
/* The same chunks, each also given its chunk index t (0 <= t < threads): no two chunks that run
 * at once share a t, so t can pick a per-thread scratch. */
typedef void (*backend_chunk_fn)(int t, int start, int end, void *ctx);
void backend_cpu_for_chunks(const isoBackend *b, int n, backend_chunk_fn fn, void *ctx);

#endif
