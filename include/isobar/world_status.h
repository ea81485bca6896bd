/* Per-world status bits: faults recorded during a step, readable after it. */
#ifndef ISOBAR_WORLD_STATUS_H
#define ISOBAR_WORLD_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Faults recorded during a step. A frozen world (ISO_WORLD_FROZEN) stops changing and later
 * steps skip it until iso_sim_reset; the other worlds keep stepping, bit for bit as without
 * it. Test ISO_WORLD_FROZEN to know whether a world still moves: every fault bit freezes except
 * ISO_WORLD_NOT_CONVERGED, which freezes only under ISO_SAP_FREEZE (isoSimDef.solver.on_failure).
 * Bits stay set until iso_sim_reset. */
#define ISO_WORLD_NONFINITE 0x1u     /* a position or velocity became NaN or infinite */
#define ISO_WORLD_NOT_SPD 0x2u       /* a matrix that must be positive definite was not (Cholesky info > 0) */
#define ISO_WORLD_OVERFLOW 0x4u      /* a per-world list outgrew its capacity (needed size recorded) */
#define ISO_WORLD_NOT_CONVERGED 0x8u /* the contact solver hit its iteration limit */
#define ISO_WORLD_LINE_SEARCH 0x10u  /* the contact solver's line search failed */
#define ISO_WORLD_RUNAWAY 0x20u      /* a state past the bounds below: a velocity above
                                        ISO_RUNAWAY_SPEED or a position coordinate above
                                        ISO_RUNAWAY_POSITION in magnitude (finite, but nothing a
                                        real scene reaches: the sign of a blow-up or of an
                                        absurd input), seen before the contact solver runs */
#define ISO_WORLD_FROZEN 0x80000000u /* the world is frozen because of one of the fault bits */

/* The bits that always freeze a world. */
#define ISO_WORLD_FAULT_MASK \
  (ISO_WORLD_NONFINITE | ISO_WORLD_NOT_SPD | ISO_WORLD_OVERFLOW | ISO_WORLD_LINE_SEARCH | ISO_WORLD_RUNAWAY)

/* The bounds of ISO_WORLD_RUNAWAY, checked on the velocities a step starts from and their
 * free-motion update (v*), and on the positions it starts from: any generalized velocity
 * above 1e4 (m/s or rad/s: thirty times the speed of sound, 1,600 turns a second) or
 * position coordinate above 1e6 (m, or rad for a joint angle). Finite states past them make
 * the solver's matrices lose every digit, and would otherwise surface as "not SPD", a failed
 * line search or garbage, not as what they are. */
#define ISO_RUNAWAY_SPEED 1e4
#define ISO_RUNAWAY_POSITION 1e6

#ifdef __cplusplus
}
#endif
#endif
