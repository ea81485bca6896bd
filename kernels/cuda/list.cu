// List primitives on the CUDA backend (host/backend/list.h): exclusive scan, stable sort by key and
// stream compaction, queued on b->stream.
//
// CUB, not Thrust. Thrust's algorithms can be pointed at the caller's workspace (a policy with
// a bump allocator over ws), but Thrust has no way to ask beforehand how much temporary memory
// an algorithm will request: list_workspace_bytes could only guess from Thrust's internals
// (stable_sort_by_key allocates key and value double buffers plus CUB's storage, copy_if a
// counter, each rounded its own way), and a wrong guess would surface as an allocation failure
// in the middle of a step. Thrust runs these same CUB algorithms underneath; calling CUB
// directly gives exact temp-storage size queries (a call with d_temp_storage == nullptr does
// no work and launches nothing), which is the project's workspace-query rule, and keeps
// synchronisation under our control (thrust::copy_if always waits for its count). CUB reports
// errors as cudaError_t, so no exception is expected; every entry point still catches all
// exceptions so none can cross the extern "C" boundary.
//
// Workspace layout (device memory; the caller's pointer is aligned up to ALIGN inside, and
// list_workspace_bytes includes that slack):
//   scan     [slot: 64-bit total][CUB storage: max(DeviceReduce::TransformReduce, DeviceScan)]
//   sort     [second key buffer (n)][second value buffer (n)][CUB DeviceRadixSort storage]
//   compact  [slot: selected count][CUB DeviceSelect::Flagged storage]
// CUB's storage needs grow with n (they scale with the number of tiles), so sizes queried at
// n_max cover every n <= n_max; each call still re-queries its own n and checks.
//
// Determinism: all three are integer algorithms with a fixed output (the scan is exact, the
// radix sort is stable, the selection keeps input order), so results equal the CPU's bit for
// bit whatever the launch configuration.
#include <limits.h>
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <exception>
#include <thrust/iterator/counting_iterator.h>

#include "host/backend/list.h"
#include "kernels/cuda/cuda_check.h"

namespace {

constexpr size_t ALIGN = 256;  // cudaMalloc's alignment; keeps every region coalescing-friendly

size_t round_up(size_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

cudaStream_t stream_of(const isoBackend *b) { return (cudaStream_t)b->stream; }

// Sum in 64 bits whatever CUB derives from its operand types, so an int overflow is seen.
struct widen {
  __host__ __device__ long long operator()(int x) const { return x; }
};

cudaError_t sum64(void *temp, size_t &temp_bytes, const int *in, long long *out, int n, cudaStream_t s) {
  return cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, out, n, ::cuda::std::plus<long long>{},
                                            widen{}, 0LL, s);
}

// ---- CUB storage queries: the same template instantiations as the calls below ----------------

isoStatus scan_storage(int n, cudaStream_t s, size_t *bytes) {
  size_t scan = 0, reduce = 0;
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, (const int *)nullptr, (int *)nullptr, n, s));
  CUDA_TRY(sum64(nullptr, reduce, nullptr, nullptr, n, s));
  *bytes = scan > reduce ? scan : reduce;
  return ISO_OK;
}

isoStatus sort_storage(int n, cudaStream_t s, size_t *bytes) {
  cub::DoubleBuffer<uint64_t> k(nullptr, nullptr);
  cub::DoubleBuffer<int> v(nullptr, nullptr);
  *bytes = 0;
  CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, *bytes, k, v, n, 0, 64, s));
  return ISO_OK;
}

isoStatus compact_storage(int n, cudaStream_t s, size_t *bytes) {
  *bytes = 0;
  CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, *bytes, thrust::counting_iterator<int>(0),
                                      (const int *)nullptr, (int *)nullptr, (int *)nullptr, n, s));
  return ISO_OK;
}

// Total bytes (without alignment slack) of each primitive's layout for n items.
isoStatus scan_bytes(int n, cudaStream_t s, size_t *bytes) {
  size_t t = 0;
  isoStatus st = scan_storage(n, s, &t);
  *bytes = ALIGN + round_up(t);
  return st;
}

isoStatus sort_bytes(int n, cudaStream_t s, size_t *bytes) {
  size_t t = 0;
  isoStatus st = sort_storage(n, s, &t);
  *bytes = round_up((size_t)n * sizeof(uint64_t)) + round_up((size_t)n * sizeof(int)) + round_up(t);
  return st;
}

isoStatus compact_bytes(int n, cudaStream_t s, size_t *bytes) {
  size_t t = 0;
  isoStatus st = compact_storage(n, s, &t);
  *bytes = ALIGN + round_up(t);
  return st;
}

// Align ws and check that `need` bytes fit after the alignment; *base receives the start.
isoStatus take_workspace(const char *fn, int n, void *ws, size_t ws_bytes, size_t need, char **base) {
  size_t pad = (size_t)(-(uintptr_t)ws & (ALIGN - 1));
  if (ws == nullptr && ws_bytes > 0) return iso_fail(ISO_ERR_NULL, "%s: argument 'ws' is NULL", fn);
  if (ws_bytes < pad || ws_bytes - pad < need)
    return iso_fail(ISO_ERR_CAPACITY,
                    "%s: workspace of %zu bytes is smaller than the %zu bytes needed for n = %d "
                    "(size it with list_workspace_bytes)",
                    fn, ws_bytes, need + pad, n);
  *base = (char *)ws + pad;
  return ISO_OK;
}

isoStatus exception_status(const char *fn, const std::exception *e) {
  return iso_fail(ISO_ERR_CUDA, "%s: unexpected C++ exception: %s", fn, e ? e->what() : "unknown");
}

isoStatus scan(const isoBackend *b, const int *in, int *out, int n, int *total, void *ws,
               size_t ws_bytes) {
  static const char fn[] = "list_exclusive_scan";
  cudaStream_t s = stream_of(b);
  size_t need, temp_bytes;
  isoStatus st = scan_bytes(n, s, &need);
  if (st != ISO_OK) return st;
  char *base = NULL;
  if ((st = take_workspace(fn, n, ws, ws_bytes, need, &base)) != ISO_OK) return st;
  long long *slot = (long long *)(void *)base;
  void *temp = base + ALIGN;
  temp_bytes = need - ALIGN;
  long long sum = 0;
  if (total) {
    // The total in 64 bits, before the scan may overwrite `in`, so overflow is refused before
    // anything is written. It costs one synchronisation, which a host value costs anyway.
    CUDA_TRY(sum64(temp, temp_bytes, in, slot, n, s));
    CUDA_TRY(cudaMemcpyAsync(&sum, slot, sizeof sum, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    if (sum < INT_MIN || sum > INT_MAX)
      return iso_fail(ISO_ERR_CAPACITY, "%s: the sum of the %d items is %lld, outside the int range",
                      fn, n, sum);
  }
  // in == out is supported by CUB (in-place scan); other overlaps are not (documented).
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s));
  if (total) *total = (int)sum;
  return ISO_OK;
}

isoStatus sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                      size_t ws_bytes) {
  cudaStream_t s = stream_of(b);
  size_t need;
  isoStatus st = sort_bytes(n, s, &need);
  if (st != ISO_OK) return st;
  char *base = NULL;
  if ((st = take_workspace("list_sort_by_key", n, ws, ws_bytes, need, &base)) != ISO_OK) return st;
  uint64_t *alt_k = (uint64_t *)(void *)base;
  base += round_up((size_t)n * sizeof(uint64_t));
  int *alt_v = (int *)(void *)base;
  base += round_up((size_t)n * sizeof(int));
  size_t temp_bytes = need - (size_t)(base - (char *)(void *)alt_k);
  // The double-buffer form needs less storage than the copying one; the result lands in
  // whichever buffer the pass count leaves it, and is copied back when that is the spare one.
  // All 8 digit passes run: finding the bytes on which all keys agree (as the CPU does) would
  // need a reduction and a stream synchronisation, and this call stays asynchronous.
  cub::DoubleBuffer<uint64_t> k(keys, alt_k);
  cub::DoubleBuffer<int> v(values, alt_v);
  CUDA_TRY(cub::DeviceRadixSort::SortPairs(base, temp_bytes, k, v, n, 0, 64, s));
  if (k.Current() != keys)
    CUDA_TRY(cudaMemcpyAsync(keys, k.Current(), (size_t)n * sizeof *keys, cudaMemcpyDeviceToDevice, s));
  if (v.Current() != values)
    CUDA_TRY(cudaMemcpyAsync(values, v.Current(), (size_t)n * sizeof *values, cudaMemcpyDeviceToDevice, s));
  return ISO_OK;
}

isoStatus compact(const isoBackend *b, const int *flags, int n, int *out_index, int *count, void *ws,
                  size_t ws_bytes) {
  cudaStream_t s = stream_of(b);
  size_t need;
  isoStatus st = compact_bytes(n, s, &need);
  if (st != ISO_OK) return st;
  char *base = NULL;
  if ((st = take_workspace("list_compact", n, ws, ws_bytes, need, &base)) != ISO_OK) return st;
  int *slot = (int *)(void *)base;
  size_t temp_bytes = need - ALIGN;
  // Select the indices 0..n-1 (a counting iterator, never stored) whose flag is nonzero; CUB
  // keeps the input order, so out_index comes out ascending.
  CUDA_TRY(cub::DeviceSelect::Flagged(base + ALIGN, temp_bytes, thrust::counting_iterator<int>(0),
                                      flags, out_index, slot, n, s));
  int k = 0;
  CUDA_TRY(cudaMemcpyAsync(&k, slot, sizeof k, cudaMemcpyDeviceToHost, s));
  CUDA_TRY(cudaStreamSynchronize(s));
  *count = k;
  return ISO_OK;
}

}  // namespace

extern "C" size_t cuda_list_workspace_bytes(const isoBackend *b, int n_max) {
  if (n_max <= 0) return 0;
  try {
    cudaStream_t s = stream_of(b);
    size_t a, c, d;
    if (scan_bytes(n_max, s, &a) != ISO_OK || sort_bytes(n_max, s, &c) != ISO_OK ||
        compact_bytes(n_max, s, &d) != ISO_OK)
      return 0;  // iso_last_error() says which query failed
    size_t m = a > c ? a : c;
    return (m > d ? m : d) + ALIGN;  // + ALIGN: room to align a caller's pointer
  } catch (const std::exception &e) {
    exception_status("list_workspace_bytes", &e);
  } catch (...) {
    exception_status("list_workspace_bytes", nullptr);
  }
  return 0;
}

extern "C" isoStatus cuda_list_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                                    void *ws, size_t ws_bytes) {
  try {
    return scan(b, in, out, n, total, ws, ws_bytes);
  } catch (const std::exception &e) {
    return exception_status("list_exclusive_scan", &e);
  } catch (...) {
    return exception_status("list_exclusive_scan", nullptr);
  }
}

extern "C" isoStatus cuda_list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n,
                                           void *ws, size_t ws_bytes) {
  try {
    return sort_by_key(b, keys, values, n, ws, ws_bytes);
  } catch (const std::exception &e) {
    return exception_status("list_sort_by_key", &e);
  } catch (...) {
    return exception_status("list_sort_by_key", nullptr);
  }
}

extern "C" isoStatus cuda_list_compact(const isoBackend *b, const int *flags, int n, int *out_index,
                                       int *count, void *ws, size_t ws_bytes) {
  try {
    return compact(b, flags, n, out_index, count, ws, ws_bytes);
  } catch (const std::exception &e) {
    return exception_status("list_compact", &e);
  } catch (...) {
    return exception_status("list_compact", nullptr);
  }
}
