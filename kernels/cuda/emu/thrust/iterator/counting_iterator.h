// The emulated device's thrust::counting_iterator (ISO_CUDA_EMULATE): the value i at offset i,
// all the emulated CUB needs (it indexes its inputs with []).
#ifndef ISO_CUDA_EMU_THRUST_COUNTING_ITERATOR_H
#define ISO_CUDA_EMU_THRUST_COUNTING_ITERATOR_H

namespace thrust {

template <class T>
struct counting_iterator {
  T first;
  explicit counting_iterator(T v) : first(v) {}
  T operator[](long long i) const { return (T)(first + i); }
  T operator*() const { return first; }
};

}  // namespace thrust

#endif
