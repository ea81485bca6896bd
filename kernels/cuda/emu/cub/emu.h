// The emulated device's CUB (ISO_CUDA_EMULATE): the device-wide algorithms kernels/cuda/list.cu
// calls, with CUB's signatures and its two-phase protocol: a call with d_temp_storage == nullptr
// only writes the storage size it needs (which grows with n, as CUB's does) and does no work; a
// call with storage smaller than that fails with cudaErrorInvalidValue. The results are the
// ones CUB defines (exact integer scan and reduction, stable LSD radix sort over
// [begin_bit, end_bit) in 8-bit digits with the result in the buffer its pass count leaves
// current, order-keeping selection), computed serially on the host.
#ifndef ISO_CUDA_EMU_CUB_H
#define ISO_CUDA_EMU_CUB_H

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "../cuda_runtime.h"

namespace cuda {
namespace std {
template <class T = void>
struct plus {
  T operator()(const T &a, const T &b) const { return a + b; }
};
}  // namespace std
}  // namespace cuda

namespace cub {

namespace emu {

// A size that grows with n like CUB's per-tile storage; the storage itself is only checked.
inline size_t storage_bytes(long long n) { return 256 + (size_t)(n > 0 ? n : 0) / 64 * 8; }

// Phase one (query) returns true after writing the size; phase two checks the size given.
inline bool query(void *temp, size_t &temp_bytes, long long n, cudaError_t *e) {
  size_t need = storage_bytes(n);
  *e = cudaSuccess;
  if (!temp) {
    temp_bytes = need;
    return true;
  }
  if (temp_bytes < need) {
    *e = cudaErrorInvalidValue;
    return true;
  }
  return false;
}

}  // namespace emu

template <class T>
struct DoubleBuffer {
  T *d_buffers[2];
  int selector;
  DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
  DoubleBuffer(T *current, T *alternate) : d_buffers{current, alternate}, selector(0) {}
  T *Current() const { return d_buffers[selector]; }
  T *Alternate() const { return d_buffers[selector ^ 1]; }
};

struct DeviceScan {
  template <class In, class Out, class N>
  static cudaError_t ExclusiveSum(void *temp, size_t &temp_bytes, In in, Out out, N n, cudaStream_t s = 0) {
    (void)s;
    cudaError_t e;
    if (emu::query(temp, temp_bytes, (long long)n, &e)) return e;
    // Wide accumulator and a narrowing store: CUB's int sum wraps, and signed overflow in the
    // host compiler would be undefined. Each input is read before its output is written, so
    // in == out works as CUB's in-place scan does.
    using T = typename std::remove_reference<decltype(out[0])>::type;
    long long run = 0;
    for (N i = 0; i < n; ++i) {
      long long x = (long long)in[i];
      out[i] = (T)run;
      run = (long long)((unsigned long long)run + (unsigned long long)x);
    }
    return cudaSuccess;
  }
};

struct DeviceReduce {
  template <class In, class Out, class N, class Op, class Tr, class T>
  static cudaError_t TransformReduce(void *temp, size_t &temp_bytes, In in, Out out, N n, Op op, Tr tr, T init,
                                     cudaStream_t s = 0) {
    (void)s;
    cudaError_t e;
    if (emu::query(temp, temp_bytes, (long long)n, &e)) return e;
    T acc = init;
    for (N i = 0; i < n; ++i) acc = op(acc, (T)tr(in[i]));
    *out = acc;
    return cudaSuccess;
  }
};

struct DeviceRadixSort {
  template <class K, class V, class N>
  static cudaError_t SortPairs(void *temp, size_t &temp_bytes, DoubleBuffer<K> &keys, DoubleBuffer<V> &values,
                               N n, int begin_bit = 0, int end_bit = (int)sizeof(K) * 8, cudaStream_t s = 0) {
    (void)s;
    static_assert(std::is_unsigned<K>::value, "the emulated radix sort takes unsigned keys");
    cudaError_t e;
    if (emu::query(temp, temp_bytes, (long long)n, &e)) return e;
    if (begin_bit < 0 || end_bit > (int)sizeof(K) * 8 || begin_bit > end_bit) return cudaErrorInvalidValue;
    for (int bit = begin_bit; bit < end_bit; bit += 8) {
      int width = end_bit - bit < 8 ? end_bit - bit : 8;
      K mask = (K)((1u << width) - 1u);
      size_t count[257] = {0};
      const K *kin = keys.Current();
      const V *vin = values.Current();
      K *kout = keys.Alternate();
      V *vout = values.Alternate();
      for (N i = 0; i < n; ++i) ++count[((kin[i] >> bit) & mask) + 1];
      for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
      for (N i = 0; i < n; ++i) {  // in input order: each pass is stable
        size_t at = count[(kin[i] >> bit) & mask]++;
        kout[at] = kin[i];
        vout[at] = vin[i];
      }
      keys.selector ^= 1;
      values.selector ^= 1;
    }
    return cudaSuccess;
  }
};

struct DeviceSelect {
  template <class In, class Flag, class Out, class NSel, class N>
  static cudaError_t Flagged(void *temp, size_t &temp_bytes, In in, Flag flags, Out out, NSel nsel, N n,
                             cudaStream_t s = 0) {
    (void)s;
    cudaError_t e;
    if (emu::query(temp, temp_bytes, (long long)n, &e)) return e;
    N k = 0;
    for (N i = 0; i < n; ++i)
      if (flags[i]) out[k++] = in[i];
    *nsel = k;
    return cudaSuccess;
  }
};

}  // namespace cub

#endif
