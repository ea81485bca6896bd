/* Internal: the launchers generated from the kernel table (kernels/kernel_table.h). A stage
 * fills an argument struct and calls launch_<name>(backend, n, &args); the backend decides
 * whether the items run in OpenMP loops or as a CUDA kernel. Nothing here allocates. */
#ifndef ISO_HOST_LAUNCH_H
#define ISO_HOST_LAUNCH_H

#include "host/backend/backend.h"
#include "kernels/kernel_table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ISO_LAUNCH_DECL(name, args, block)                                    \
  isoStatus launch_##name(const isoBackend *b, long n, const args *a);       \
  isoStatus cuda_launch_##name(const isoBackend *b, long n, const args *a);
ISO_KERNELS(ISO_LAUNCH_DECL)
#undef ISO_LAUNCH_DECL

/* The largest per-thread stack (local memory) of the table's CUDA kernels, bytes. */
isoStatus cuda_launch_stack_bytes(size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
