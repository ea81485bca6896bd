/* The kernel table: every per-item function of the step, listed once.
 *
 *   K(name, args, block)
 *
 * names `name_item_at(const args *a, long i)` (kernels/step/items.h), run for i in [0, n). From
 * each line the build generates
 *   - the host launcher  isoStatus launch_<name>(const isoBackend *b, long n, const args *a):
 *     on the CPU a range driver over [0, n) in contiguous static chunks (host/backend/launch.c;
 *     every item is one index, so results do not depend on the thread count), on the GPU the
 *     CUDA launcher below;
 *   - the CUDA kernel and launcher (kernels/cuda/launch.cu): a grid-stride __global__ over
 *     [0, n) with `block` threads per block, the argument struct passed by value;
 *   - the failing no-CUDA stub (host/backend/cuda_off.c).
 * Adding a kernel is one item function and one line here. */
#ifndef ISO_KERNELS_KERNEL_TABLE_H
#define ISO_KERNELS_KERNEL_TABLE_H

#include "kernels/step/items.h"

#define ISO_KERNELS(K)                         \
  K(body_pose, kinArgs, 128)                   \
  K(hs_pose, collideArgs, 128)                 \
  K(hs_count, collideArgs, 128)                \
  K(hs_scan, collideArgs, 128)                 \
  K(hs_emit, collideArgs, 128)                 \
  K(hs_mid_world, collideArgs, 128)            \
  K(hs_narrow_world, collideArgs, 128)         \
  K(hs_narrow_count, collideArgs, 128)         \
  K(hs_list_scan, collideArgs, 128)            \
  K(hs_narrow_emit, collideArgs, 128)          \
  K(sap_points, pointArgs, 128)                \
  K(sap_prepare, prepareArgs, 64)              \
  K(sap_solve, solveArgs, 64)                  \
  K(sap_finish, finishArgs, 64)                \
  K(fem_elements, femSapArgs, 64)              \
  K(fem_factor, femSapArgs, 64)                \
  K(fem_contact, femSapArgs, 64)               \
  K(fem_schur, femSapArgs, 64)                 \
  K(body_wrench, wrenchArgs, 64)               \
  K(tactile, tactileArgs, 64)

#endif
