/* Backend selection and the memory/loop primitives of host/backend/backend.h. */
#include "host/backend/backend.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/cuda_api.h"
#include "host/base/error.h"

isoStatus iso_backend_parse(const char *name, isoBackendKind *out) {
  CHECK_NULL(name, "iso_backend_parse");
  CHECK_NULL(out, "iso_backend_parse");
  if (strcmp(name, "cpu") == 0) *out = ISO_BACKEND_CPU;
  else if (strcmp(name, "cuda") == 0) *out = ISO_BACKEND_CUDA;
  else if (strcmp(name, "auto") == 0) *out = ISO_BACKEND_AUTO;
  else return iso_fail(ISO_ERR_INVALID, "unknown backend '%s' (expected cpu, cuda or auto)", name);
  return ISO_OK;
}

const char *iso_backend_name(isoBackendKind kind) {
  switch (kind) {
    case ISO_BACKEND_CPU: return "cpu";
    case ISO_BACKEND_CUDA: return "cuda";
    case ISO_BACKEND_AUTO: return "auto";
  }
  return "unknown";
}

int iso_cuda_compiled(void) { return cuda_compiled(); }

isoStatus iso_cuda_probe(int *ndevice, char *why, int why_len) {
  CHECK_NULL(ndevice, "iso_cuda_probe");
  char buf[256];
  isoStatus st = cuda_probe(ndevice, buf, sizeof buf);
  if (why && why_len > 0) snprintf(why, (size_t)why_len, "%s", buf);
  if (st != ISO_OK) *ndevice = 0;
  return ISO_OK;
}

static void init_cpu(isoBackend *b, int threads) {
  b->kind = ISO_BACKEND_CPU;
  b->threads = threads > 0 ? threads : omp_get_max_threads();
  if (b->threads < 1) b->threads = 1;
}

isoStatus backend_init(isoBackend *b, isoBackendKind kind, int threads, void *stream) {
  CHECK_NULL(b, "backend_init");
  memset(b, 0, sizeof *b);
  if (kind == ISO_BACKEND_CPU) {
    init_cpu(b, threads);
    snprintf(b->reason, sizeof b->reason, "cpu backend requested (%d threads)", b->threads);
    return ISO_OK;
  }
  if (kind != ISO_BACKEND_CUDA && kind != ISO_BACKEND_AUTO)
    return iso_fail(ISO_ERR_INVALID, "backend kind %d is not cpu, cuda or auto", (int)kind);
  int ndev = 0;
  char why[200];
  isoStatus st = cuda_probe(&ndev, why, sizeof why);
  /* The emulated device runs the CUDA code serially on one host thread: it is there to test
   * those code paths, and AUTO picking it would be a silent slowdown. */
  if (kind == ISO_BACKEND_AUTO && st == ISO_OK && ndev > 0 && cuda_emulated()) {
    snprintf(why, sizeof why, "the only CUDA device is the host emulation (ISO_CUDA_EMULATE); ask for cuda to use it");
    ndev = 0;
  }
  if (st == ISO_OK && ndev > 0) {
    st = cuda_backend_init(b, stream);
    if (st == ISO_OK) {
      b->kind = ISO_BACKEND_CUDA;
      b->threads = 1;
      return ISO_OK;
    }
    snprintf(why, sizeof why, "%s", iso_last_error());
  }
  if (kind == ISO_BACKEND_CUDA)
    return iso_fail(ISO_ERR_BACKEND, "cuda backend unavailable: %s", why);
  init_cpu(b, threads);
  snprintf(b->reason, sizeof b->reason, "auto chose cpu (%d threads): %s", b->threads, why);
  return ISO_OK;
}

void backend_release(isoBackend *b) {
  if (!b) return;
  if (b->kind == ISO_BACKEND_CUDA) cuda_backend_release(b);
  memset(b, 0, sizeof *b);
}

isoStatus backend_alloc(const isoBackend *b, void **ptr, size_t bytes) {
  *ptr = NULL;
  if (bytes == 0) return ISO_OK;
  if (b->kind == ISO_BACKEND_CUDA) {
    isoStatus st = cuda_alloc(ptr, bytes);
    if (st != ISO_OK) return st;
    return cuda_memset0(b, *ptr, bytes);
  }
  *ptr = calloc(1, bytes);
  if (!*ptr) return iso_fail(ISO_ERR_NOMEM, "out of host memory allocating %zu bytes", bytes);
  return ISO_OK;
}

void backend_free(const isoBackend *b, void *ptr) {
  if (!ptr) return;
  if (b->kind == ISO_BACKEND_CUDA) cuda_free(ptr);
  else free(ptr);
}

isoStatus backend_upload(const isoBackend *b, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return ISO_OK;
  if (b->kind == ISO_BACKEND_CUDA) return cuda_copy(b, dst, src, bytes, 0);
  memcpy(dst, src, bytes);
  return ISO_OK;
}

isoStatus backend_download(const isoBackend *b, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return ISO_OK;
  if (b->kind == ISO_BACKEND_CUDA) return cuda_copy(b, dst, src, bytes, 1);
  memcpy(dst, src, bytes);
  return ISO_OK;
}

isoStatus backend_copy(const isoBackend *b, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return ISO_OK;
  if (b->kind == ISO_BACKEND_CUDA) return cuda_copy(b, dst, src, bytes, 2);
  memmove(dst, src, bytes);
  return ISO_OK;
}

isoStatus backend_memset0(const isoBackend *b, void *dst, size_t bytes) {
  if (bytes == 0) return ISO_OK;
  if (b->kind == ISO_BACKEND_CUDA) return cuda_memset0(b, dst, bytes);
  memset(dst, 0, bytes);
  return ISO_OK;
}

isoStatus backend_sync(const isoBackend *b) {
  if (b->kind == ISO_BACKEND_CUDA) return cuda_sync(b);
  return ISO_OK;
}

void backend_cpu_for_chunks(const isoBackend *b, int n, backend_chunk_fn fn, void *ctx) {
  if (n <= 0) return;
  int nt = b->threads < n ? b->threads : n;
  if (nt <= 1) {
    fn(0, 0, n, ctx);
    return;
  }
  /* Contiguous equal chunks: a fixed partition, so which thread does which item never
   * depends on timing (and each item's result does not depend on the partition at all). */
#pragma omp parallel for schedule(static, 1) num_threads(nt)
  for (int t = 0; t < nt; ++t) {
    int start = (int)((long long)n * t / nt);
    int end = (int)((long long)n * (t + 1) / nt);
    if (end > start) fn(t, start, end, ctx);
  }
}

typedef struct rangeCtx {
  backend_range_fn fn;
  void *ctx;
} rangeCtx;

static void range_chunk(int t, int start, int end, void *ctx) {
  const rangeCtx *r = (const rangeCtx *)ctx;
  (void)t;
  r->fn(start, end, r->ctx);
}

void backend_cpu_for(const isoBackend *b, int n, backend_range_fn fn, void *ctx) {
  rangeCtx r = {fn, ctx};
  backend_cpu_for_chunks(b, n, range_chunk, &r);
}

size_t backend_memory_available(const isoBackend *b) {
  if (b->kind == ISO_BACKEND_CUDA) {
    size_t free_bytes = 0;
    return cuda_mem_free(&free_bytes) == ISO_OK ? free_bytes : 0;
  }
  /* MemAvailable counts what can be had without swapping, page cache included; plain free
   * memory would refuse sims that fit. */
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  fclose(f);
  return (size_t)kib * 1024u;
}
