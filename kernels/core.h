/* The common ground of every kernel header: the ISO_HD marker, the `real` type and a few
 * portability macros.
 *
 * Kernel headers (kernels/<area>/ headers) hold the work of one item as `static inline ISO_HD`
 * functions written in the common subset of C99 and CUDA C++, so the CPU backend runs
 * exactly the code the GPU runs. Rules: no VLAs, explicit casts from `void *`, no compound
 * literals, no designated initialisers, no CUDA header, `restrict` only through ISO_RESTRICT.
 * One exception, for speed and never for results: a CPU loop may do two independent
 * computations at once in a pair of SIMD lanes (ISO_PAIRS below) beside the scalar loop the GPU
 * compiles; both give the same bits, and tests run both on the CPU (tests/test_block_chol.c,
 * tests/test_block_chol_scalar.c). Its one wider form: where an x86-64 CPU has AVX2 (asked at
 * run time, ISO_AVX2 below), a CPU loop may use the four lanes of a 256-bit register the same
 * way, each lane the scalar loop's operations in order (the block factor's updates).
 */
#ifndef ISO_KERNELS_CORE_H
#define ISO_KERNELS_CORE_H

#ifdef __CUDACC__
#define ISO_HD __host__ __device__
#define ISO_INLINE /* nvcc inlines device functions this small anyway; __forceinline__ would
                      repeat the `inline` of `static inline` */
#define ISO_RESTRICT __restrict__
/* A device function kept out of line: its locals then take stack once, not once per inlined
 * call (see kernels/point/epa.h). No effect on the host. */
#define ISO_NOINLINE __noinline__
#elif defined(__cplusplus) /* the emulated CUDA build (ISO_CUDA_EMULATE): C++ has no restrict */
#define ISO_HD
#define ISO_INLINE __attribute__((always_inline))
#define ISO_RESTRICT __restrict__
#define ISO_NOINLINE
#else
#define ISO_HD
/* A small function on a hot path inlined wherever it is called: the compiler's own heuristics
 * give up on some of the dispatching ones (a law by kind, a Jacobian by block kind) once the
 * kinds multiply, and the call then costs more than the work. */
#define ISO_INLINE __attribute__((always_inline))
#define ISO_RESTRICT restrict
#define ISO_NOINLINE
#endif

#include <math.h>

/* One floating-point type everywhere in kernels. Double by default; a float build is a later
 * option and must then also change the public API's tolerances. */
typedef double real;

#define ISO_REAL_EPS 2.220446049250313e-16

/* Two doubles in a pair of SIMD lanes, for CPU loops that do two independent computations at once
 * with each lane doing the scalar loop's operations in its order (so the same bits; no FMA is
 * formed where the scalar code has none, as the target has none). GCC's and Clang's vector types,
 * on the CPU only: ISO_PAIRS is 0 for nvcc (a GPU thread has no such lanes) and other compilers,
 * where the scalar loops run. */
#ifndef ISO_PAIRS /* a test may set it to 0 to run the scalar loops on the CPU */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define ISO_PAIRS 1
#else
#define ISO_PAIRS 0
#endif
#endif
#if ISO_PAIRS
typedef double isoPair __attribute__((vector_size(16)));
typedef long long isoPairMask __attribute__((vector_size(16))); /* a comparison's lanes: 0 or all ones */

/* The square roots of both lanes, exactly rounded as the scalar sqrt is. */
static inline isoPair iso_pair_sqrt(isoPair x) {
  const isoPair r = {sqrt(x[0]), sqrt(x[1])}; /* the compiler makes one sqrtpd of it */
  return r;
}
#endif

/* 1 where kernels compile for a CPU (GCC, Clang, the emulated device), 0 under nvcc: a kernel may
 * give its CPU loop a stack scratch that would be too large for a GPU thread (the backend
 * reserves the largest kernel stack for every thread at creation), for speed only, with the
 * same results as without it (hs_narrow_world's posed meshes). */
#ifndef ISO_CPU_SCRATCH /* a test may set it to 0 to run the GPU's path on the CPU */
#ifdef __CUDACC__
#define ISO_CPU_SCRATCH 0
#else
#define ISO_CPU_SCRATCH 1
#endif
#endif

/* Four lanes where the CPU has them: on x86-64 with GCC or Clang, a function marked ISO_AVX2_FN
 * is compiled for AVX2 (and not FMA, so no product is fused that the scalar code rounds) and is
 * called only where iso_cpu_avx2() says the CPU runs it; elsewhere the pair or scalar loops run.
 * ISO_AVX2 0 (a test's or a build's -DISO_AVX2=0) leaves them out. */
#ifndef ISO_AVX2
#if ISO_PAIRS && defined(__x86_64__)
#define ISO_AVX2 1
#else
#define ISO_AVX2 0
#endif
#endif
#if ISO_AVX2
#define ISO_AVX2_FN __attribute__((target("avx2")))
static inline int iso_cpu_avx2(void) { return __builtin_cpu_supports("avx2"); }
/* Eight lanes, the same way (AVX-512F, no FMA), for the few loops whose work comes in eights. */
#define ISO_AVX512_FN __attribute__((target("avx512f")))
static inline int iso_cpu_avx512(void) { return __builtin_cpu_supports("avx512f"); }
#endif

#endif
