/* The host launchers of the kernel table (host/backend/launch.h): CPU range drivers and the
 * dispatch to the CUDA launchers. */
#include "host/backend/launch.h"

#include <limits.h>

#include "host/base/error.h"

#define ISO_LAUNCH_CPU(name, args, block)                                                      \
  static void name##_range(int start, int end, void *ctx) {                                    \
    const args *a = (const args *)ctx;                                                         \
    for (long i = start; i < end; ++i) name##_item_at(a, i);                                   \
  }                                                                                            \
  isoStatus launch_##name(const isoBackend *b, long n, const args *a) {                       \
    if (n <= 0) return ISO_OK;                                                                 \
    if (b->kind == ISO_BACKEND_CUDA) return cuda_launch_##name(b, n, a);                       \
    if (n > INT_MAX) /* sims refuse such batches at creation; never silently truncate */       \
      return iso_fail(ISO_ERR_INVALID, "%s: %ld items is more than one CPU loop takes", #name, n); \
    backend_cpu_for(b, (int)n, name##_range, (void *)a);                                       \
    return ISO_OK;                                                                             \
  }
ISO_KERNELS(ISO_LAUNCH_CPU)
#undef ISO_LAUNCH_CPU
