/* Per-world status bits: faults recorded during a step, readable after it. */
#ifndef ISOBAR_WORLD_STATUS_H
#define ISOBAR_WORLD_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* A world with any bit of ISO_WORLD_FAULT_MASK set is frozen: its state stops changing and
 * later steps skip it until it is reset. The other worlds keep stepping. */
enum {
  ISO_WORLD_NONFINITE = 1u << 0,     /* a position or velocity became NaN or infinite */
  ISO_WORLD_NOT_SPD = 1u << 1,       /* a matrix that must be positive definite was not (Cholesky info > 0) */
  ISO_WORLD_OVERFLOW = 1u << 2,      /* a per-world list outgrew its capacity (needed size recorded) */
  ISO_WORLD_NOT_CONVERGED = 1u << 3, /* the contact solver hit its iteration limit */
  ISO_WORLD_LINE_SEARCH = 1u << 4,   /* the contact solver's line search failed */
  ISO_WORLD_FROZEN = 1u << 31        /* the world is frozen because of one of the bits above */
};

#define ISO_WORLD_FAULT_MASK (ISO_WORLD_NONFINITE | ISO_WORLD_NOT_SPD | ISO_WORLD_OVERFLOW)

#ifdef __cplusplus
}
#endif
#endif
