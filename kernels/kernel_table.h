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
 * Adding a kernel is one item function and one line here.
 *
 * ISO_WORLD_BLOCK marks the kernels with one item per world (or per world and pad), whose
 * thread runs that world's whole serial work: their blocks are small (cuda_world_block(), 32
 * unless ISO_CUDA_WORLD_BLOCK says otherwise), so that a few thousand worlds spread over every
 * SM rather than filling half of them two warps deep (on an H200 the solve's 64-thread blocks
 * left 68 of 132 SMs idle at 4096 worlds, bench/RESULTS.md). */
#ifndef ISO_KERNELS_KERNEL_TABLE_H
#define ISO_KERNELS_KERNEL_TABLE_H

#include "kernels/step/items.h"

#define ISO_WORLD_BLOCK 0

#define ISO_KERNELS(K)                             \
  K(body_pose, kinArgs, 128)                       \
  K(hs_pose, collideArgs, 128)                     \
  K(hs_count, collideArgs, 128)                    \
  K(hs_scan, collideArgs, ISO_WORLD_BLOCK)         \
  K(hs_emit, collideArgs, 128)                     \
  K(hs_mid_world, collideArgs, ISO_WORLD_BLOCK)    \
  K(hs_narrow_world, collideArgs, ISO_WORLD_BLOCK) \
  K(hs_narrow_count, collideArgs, 128)             \
  K(hs_list_scan, collideArgs, ISO_WORLD_BLOCK)    \
  K(hs_narrow_emit, collideArgs, 128)              \
  K(sap_points, pointArgs, 128)                    \
  K(sap_prepare, prepareArgs, ISO_WORLD_BLOCK)     \
  K(sap_solve, solveArgs, ISO_WORLD_BLOCK)         \
  K(sap_finish, finishArgs, ISO_WORLD_BLOCK)       \
  K(fem_elements, femSapArgs, ISO_WORLD_BLOCK)     \
  K(fem_factor, femSapArgs, ISO_WORLD_BLOCK)       \
  K(fem_contact, femSapArgs, ISO_WORLD_BLOCK)      \
  K(fem_schur, femSapArgs, ISO_WORLD_BLOCK)        \
  K(body_wrench, wrenchArgs, ISO_WORLD_BLOCK)      \
  K(tactile, tactileArgs, ISO_WORLD_BLOCK)

#endif
