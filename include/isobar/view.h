/* Views: the sim's own per-world arrays, handed out without a copy.
 *
 * A view is where an array of the sim lives (host memory on the CPU backend, device memory on
 * the CUDA backend), its element type, and its shape (nworld, width) with strides in elements,
 * the fields of DLPack's DLTensor, so that NumPy, PyTorch or JAX can wrap the memory itself
 * (the Python package does). Reading a view reads what the last step wrote; writing one writes
 * what the next step reads: the actuation inputs are the reason views exist.
 *
 * What a write through a view skips: the checks of iso_sim_set_state (finite values, unit
 * quaternions, time >= 0) are the writer's to keep, and a write of q or of vertex positions does
 * not refresh the contact surfaces iso_sim_get_contact_faces reports (the next step computes
 * its own from the state it finds). Writing the arrays a step writes (status, solver results,
 * actuation, joint forces) is allowed and has no effect beyond the values read back.
 *
 * Views stay valid, at the same address, from iso_sim_create to iso_sim_destroy, across steps
 * and resets; iso_sim_reserve moves every array and invalidates them. On the CUDA backend the
 * sim's work is queued on its stream: call iso_sim_synchronize before the host or another
 * stream reads or writes the memory. */
#ifndef ISOBAR_VIEW_H
#define ISOBAR_VIEW_H

#include <stdint.h>

#include "isobar/sim.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, with DLPack's (code, bits). */
typedef enum isoDType {
  ISO_DTYPE_FLOAT64 = 0, /* double (kDLFloat, 64) */
  ISO_DTYPE_INT32 = 1,   /* int32_t (kDLInt, 32) */
  ISO_DTYPE_UINT32 = 2   /* uint32_t (kDLUInt, 32) */
} isoDType;

/* Where a view's memory is, with DLPack's device codes. */
typedef enum isoDevice {
  ISO_DEVICE_CPU = 1, /* kDLCPU */
  ISO_DEVICE_CUDA = 2 /* kDLCUDA */
} isoDevice;

typedef struct isoView {
  void *data;           /* the first element (world 0, column 0); NULL when width is 0 */
  isoDType dtype;
  isoDevice device;
  int device_id;        /* CUDA device ordinal; 0 on the CPU */
  int writable;         /* 1 for the inputs of a step and its state, 0 for what a step writes */
  int64_t shape[2];     /* nworld, width */
  int64_t strides[2];   /* in elements: between worlds, between columns */
} isoView;

/* Number of arrays a sim can view (the same for every sim). */
int iso_view_count(void);

/* Name of view `k` (0 <= k < iso_view_count()), or NULL out of range. The names and what they
 * hold, per world (widths are those of the model; a part the model lacks has width 0):
 *   q, v, time, effort, target_position, target_velocity, actuation, joint_force,
 *   vertex_position, vertex_velocity   — the isoStateField of the same meaning (float64;
 *                                        joint_force has width 0 for a model without joint
 *                                        constraints, where iso_sim_get_state reads zeros)
 *   status             — the ISO_WORLD_* bits (uint32, width 1)
 *   solver_iterations  — SAP Newton iterations of the last step (int32, width 1)
 *   solver_converged   — 1 when the last step's solve met a stopping criterion (int32, width 1)
 *   solver_residual    — its last residual over the tolerance (float64, width 1)
 *   (the solver's three have width 0 for a model in which nothing can be constrained)
 *   body_contact_wrench — every body's net contact wrench at the last step, 6 per body, body
 *                        after body: torque about the body's origin (its pose at the step's
 *                        start), then force, world frame, N m and N (float64; width 0 for a model
 *                        in which nothing can touch). What iso_sim_get_body_contact_wrench
 *                        returns, for every body at once, computed on the backend by the stage
 *                        "contact forces" from the first iso_sim_view of it on (before that the
 *                        stage costs nothing and the array holds zeros); contacts with
 *                        deformable bodies are not included, and a frozen world reports zeros
 *   taxel_force        — the tactile pads' taxel forces (include/isobar/tactile.h), 3 per taxel,
 *                        every pad's taxels in pad order (iso_sim_taxel_offset), pad frame, N;
 *                        viewing either taxel array makes every later step sample them (before,
 *                        they are sampled when first read: tactile.h)
 *   taxel_pressure     — their pressures, 1 per taxel, Pa (both float64; width 0 without pads) */
const char *iso_view_name(int k);

/* View array `name` of the sim. ISO_ERR_NOT_FOUND for an unknown name (the message lists the
 * names). */
isoStatus iso_sim_view(const isoSim *sim, const char *name, isoView *out);

/* Copy array `name` of every world into host memory `out`, packed: nworld rows of width
 * elements of the view's dtype (any backend; on CUDA the copy waits for the queued work). */
isoStatus iso_sim_copy_view(const isoSim *sim, const char *name, void *out);

/* Wait until the work queued on the sim's backend is done (a no-op on the CPU backend). */
isoStatus iso_sim_synchronize(const isoSim *sim);

#ifdef __cplusplus
}
#endif
#endif
