/* Internal: the data table — every per-world array of a sim, declared once:
 *
 *   X(type, name, count per world, the stage that writes it, what iso_sim_reset does to it)
 *
 * `count` is an expression of `z`, the sim's sizes (simSizes). Arrays are world-major:
 * name[world * count + i]. The stages read and write them through their context (host/step/
 * step.h, which embeds one pointer per line); the sim plans them into its one arena, allocates
 * it at creation and resets them by this table (host/sim/sim_data.c); nothing is allocated
 * after that. The table sits here, below the sim, because the stages are what read it. Reset
 * actions: SIM_RESET_INIT copies the model's initial row (q, v), SIM_RESET_ZERO zeroes the
 * world's row, SIM_RESET_KEEP leaves it (a stage rewrites it before anything reads it). */
#ifndef ISO_HOST_STEP_DATA_H
#define ISO_HOST_STEP_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/math/spatial.h"
#include "kernels/math/transform.h"
#include "kernels/sap/problem.h"
#include "kernels/sap/solve.h"
#include "kernels/sap/step_items.h"

#define SIM_RESET_KEEP 0
#define SIM_RESET_ZERO 1
#define SIM_RESET_INIT 2

/* The sizes the counts are written in (per world). A part of the step the model does not need
 * has zero counts, and its arrays are NULL: no pairs, no candidate arrays; nothing that can
 * touch, no contact or solver arrays at all. */
typedef struct simSizes {
  long nq, nv;       /* generalized positions and velocities */
  long posed;        /* geometries whose world poses are kept (all of them when anything can touch) */
  long bodies;       /* bodies whose world poses are kept (all of them when anything can touch) */
  long npair;        /* hydroelastic pairs */
  long pairs;        /* 1 when there is a hydroelastic pair */
  long cand;         /* candidate ints: element of M, of N, records made (3 per candidate) */
  long max_list;     /* contact records: faces (capacity), then one per point-contact pair */
  long contact;      /* 1 when anything can touch */
  long npoint;       /* point-contact pairs */
  long sap_nv;       /* nv: free motion */
  long newton_nv;    /* nv when anything can touch (Newton iterations), else 0 */
  long a_blocks;     /* reals of A: nt² per tree with DoFs, when anything is constrained or a
                        tree has joints (its free motion solves with it) */
  long cliques;      /* cliques: one per tree with DoFs */
  long max_con;      /* constraints: contacts, then limits, PD actuators, couplers */
  long origins;      /* reals of clique origins: 3 per clique */
  long solve;        /* 1 when anything can be constrained (contact or joint constraints) */
  long nact;         /* actuators */
  long tree_nv;      /* nv when some tree has joints (their motion axes), else 0 */
  long tree_work;    /* reals of a jointed tree's scratch (free motion), else 0 */
  long jpool;        /* reals of dense Jacobian blocks (constraints on jointed trees) */
  long jforce;       /* nv when the model has joint constraints, else 0 */
  long con_jac;      /* max_con when some tree has joints, else 0 */
  long bjac;         /* reals of the jointed bodies' spatial Jacobians (6 · max_nt a body), when
                        some tree has joints and anything can touch, else 0 */
  long con_body;     /* 2 · max_con then (each contact side's body), else 0 */
  long one;          /* 1: a value per world every model has */
  long ndv3;         /* deformable vertex coordinates: 3 per vertex, every body */
  long fem_L;        /* reals of the deformable bodies' factors: 9 per block of each L */
  long fem_ndef;     /* deformable bodies */
  long fem_one;      /* 1 when the model has deformable bodies */
  long fem_part;     /* participating vertices they may have, all bodies (Σ pcap) */
  long fem_vert;     /* deformable vertices (their slots) */
  long fem_con;      /* deformable contacts */
  long dd_max;       /* deformable–deformable contacts, 0 with fewer than two bodies */
  long snode, stri;  /* deformable surface BVH nodes and triangles, refit per world */
  long dd_one;       /* 1 with two or more deformable bodies */
  long dd_box, dd_cand, dd_pair; /* their search's scratch (kernels/fem/dd_contact.h) */
  long sv;           /* the solver's unknowns when they are not the state's v (deformable
                        cliques follow the rigid DoFs), else 0 */
  long taxel;        /* taxels of the tactile pads, all pads */
  long tactile_v;    /* the solver's nv when pads can be touched (taxels sampled later), else 0 */
  long wrench;       /* 6 per body when anything can touch (contact wrenches), else 0 */
} simSizes;

#define SIM_DATA(X)                                                                                     \
  /* state */                                                                                           \
  X(real, q, z->nq, "integrate", SIM_RESET_INIT)              /* generalized positions */               \
  X(real, v, z->nv, "solve", SIM_RESET_INIT)                  /* generalized velocities */              \
  X(real, time, 1, "integrate", SIM_RESET_ZERO)               /* simulated time, s */                   \
  X(real, xd, z->ndv3, "integrate", SIM_RESET_INIT)           /* deformable vertex positions, W, m */   \
  X(real, vd, z->ndv3, "integrate", SIM_RESET_ZERO)           /* deformable vertex velocities, m/s */   \
  X(real, fem_L, z->fem_L, "deformables", SIM_RESET_KEEP)     /* T, then its factor, per body */         \
  X(real, fem_b, z->ndv3, "deformables", SIM_RESET_KEEP)      /* residual, then the solve's result */    \
  X(real, fem_w, z->ndv3, "deformables", SIM_RESET_KEEP)      /* the solve's permuted scratch */         \
  X(real, fem_vs, z->ndv3, "deformables", SIM_RESET_KEEP)     /* free-motion velocities v* */            \
  X(int, fem_np, z->fem_ndef, "deformables", SIM_RESET_KEEP)  /* participating vertices per body */      \
  X(int, fem_pv, z->fem_part, "deformables", SIM_RESET_KEEP)  /* ... which, ascending, per body */       \
  X(int, fem_slot, z->fem_vert, "deformables", SIM_RESET_KEEP) /* each vertex's slot, or -1 */           \
  X(femContact, fem_con, z->fem_con, "deformables", SIM_RESET_KEEP) /* deformable contacts */           \
  X(int, fem_ncon, z->fem_one, "deformables", SIM_RESET_ZERO) /* ... how many */                         \
  X(real, sv, z->sv, "solve", SIM_RESET_KEEP)                 /* the solver's iterate (deformables) */   \
  X(bvhNode, fem_snode, z->snode, "deformables", SIM_RESET_KEEP) /* surface BVHs refit to the world */   \
  X(real, fem_sbox, 6L * z->stri, "deformables", SIM_RESET_KEEP) /* ... their triangles' boxes */        \
  X(femDDContact, fem_dd, z->dd_max, "deformables", SIM_RESET_KEEP) /* deformable–deformable contacts */ \
  X(femDDJac, fem_ddj, z->dd_max, "deformables", SIM_RESET_KEEP) /* ... their Jacobian blocks */          \
  X(int, fem_dd_ncon, z->dd_one, "deformables", SIM_RESET_ZERO) /* ... how many */                       \
  X(int, fem_dd_need, z->dd_one, "deformables", SIM_RESET_ZERO) /* ... found (overflow: needed) */        \
  X(int, fem_dd_pneed, z->dd_one, "deformables", SIM_RESET_ZERO) /* candidate pairs needed */            \
  X(real, fem_dd_box, z->dd_box, "deformables", SIM_RESET_KEEP) /* search scratch */                     \
  X(int, fem_dd_cand, z->dd_cand, "deformables", SIM_RESET_KEEP)                                          \
  X(long, fem_dd_pair, z->dd_pair, "deformables", SIM_RESET_KEEP)                                         \
  X(uint32_t, status, 1, "every stage", SIM_RESET_ZERO)       /* ISO_WORLD_* fault bits */              \
  /* the caller's inputs and what they did */                                                          \
  X(real, effort, z->nact, "caller", SIM_RESET_ZERO)          /* actuator efforts, N m or N */          \
  X(real, target_q, z->nact, "caller", SIM_RESET_ZERO)        /* PD position targets */                 \
  X(real, target_v, z->nact, "caller", SIM_RESET_ZERO)        /* PD velocity targets */                 \
  X(real, applied, z->nact, "integrate", SIM_RESET_ZERO)      /* actuation applied by the last step */  \
  X(real, jforce, z->jforce, "integrate", SIM_RESET_ZERO)    /* joint constraints' generalized force */ \
  /* kinematics and collision (stages 1-4) */                                                          \
  X(xform, X_WB, z->bodies, "kinematics", SIM_RESET_KEEP)     /* body poses in the world */             \
  X(xform, X_WG, z->posed, "kinematics", SIM_RESET_KEEP)      /* geometry poses in the world */          \
  X(int, pair_count, z->npair, "mid phase", SIM_RESET_KEEP)   /* candidates per pair */                 \
  X(int, pair_off, z->npair, "mid phase", SIM_RESET_KEEP)     /* their scanned offsets */               \
  X(int, cand_total, z->pairs, "mid phase", SIM_RESET_ZERO)   /* candidates kept (0 on overflow) */     \
  X(int, cand_needed, z->pairs, "mid phase", SIM_RESET_ZERO)  /* candidates found (overflow: needed) */  \
  X(int, cand, z->cand, "mid/narrow phase", SIM_RESET_KEEP)   /* candidate element pairs, then counts */ \
  X(contactRec, list, z->max_list, "narrow phase", SIM_RESET_KEEP) /* the contact list */               \
  X(int, face_count, z->contact, "narrow phase", SIM_RESET_ZERO)   /* face records kept */              \
  X(int, face_needed, z->contact, "narrow phase", SIM_RESET_ZERO)  /* face records found */             \
  X(int, list_count, z->contact, "narrow phase", SIM_RESET_ZERO)   /* records: faces, then points */    \
  X(sapPointHit, hits, z->npoint, "narrow phase", SIM_RESET_KEEP)  /* point-contact queries */          \
  /* contact dynamics (stages 5-7) */                                                                   \
  X(int, ncon, z->one, "constraints", SIM_RESET_ZERO)        /* constraints */                         \
  X(int, ncontact, z->one, "constraints", SIM_RESET_ZERO)    /* of them contacts (the first ones) */   \
  X(int, con_jac, z->con_jac, "constraints", SIM_RESET_KEEP) /* their dense blocks' pool offsets */     \
  X(int, con_body, z->con_body, "constraints", SIM_RESET_KEEP) /* a contact's jointed bodies, −1 none */ \
  X(real, bjac, z->bjac, "constraints", SIM_RESET_KEEP)      /* those bodies' spatial Jacobians */     \
  X(int, needed, z->one, "constraints", SIM_RESET_ZERO)      /* constraints found (overflow: needed) */ \
  X(sapCon, con, z->max_con, "constraints", SIM_RESET_KEEP)   /* SAP constraints */                     \
  X(real, origin, z->origins, "constraints", SIM_RESET_KEEP)  /* body origins of the step */            \
  X(real, jpool, z->jpool, "constraints", SIM_RESET_KEEP)     /* dense Jacobian blocks */               \
  X(svec, S, z->tree_nv, "free motion", SIM_RESET_KEEP)       /* jointed trees' motion axes */          \
  X(real, tree_work, z->tree_work, "free motion", SIM_RESET_KEEP) /* their free-motion scratch */        \
  X(real, vstar, z->sap_nv, "free motion", SIM_RESET_KEEP)    /* free-motion velocities */              \
  X(real, A, z->a_blocks, "free motion", SIM_RESET_KEEP)      /* each clique's block of A */            \
  X(int, nclique, z->one, "free motion", SIM_RESET_KEEP)     /* cliques */                             \
  X(sapClique, clique, z->cliques, "free motion", SIM_RESET_KEEP) /* their sizes and offsets */         \
  X(real, dv, z->newton_nv, "solve", SIM_RESET_KEEP)             /* solver scratch A·Δv */                 \
  X(real, H, z->newton_nv * z->newton_nv, "solve", SIM_RESET_KEEP)  /* Newton Hessian, then its factor */     \
  X(real, rhs, z->newton_nv, "solve", SIM_RESET_KEEP)            /* −∇ℓ, then the Newton direction */      \
  X(int, info, z->solve, "solve", SIM_RESET_KEEP)             /* the Cholesky's info */                 \
  X(sapStats, stats, z->one, "solve", SIM_RESET_KEEP)        /* solver statistics */               \
  /* tactile samples (stage 8, include/isobar/tactile.h) */                                            \
  X(real, body_wrench, z->wrench, "contact forces", SIM_RESET_ZERO) /* per body: torque, force, W */ \
  X(real, taxel_f, 3L * z->taxel, "tactile", SIM_RESET_ZERO) /* taxel forces, pad frame, N */        \
  X(real, taxel_p, z->taxel, "tactile", SIM_RESET_ZERO)      /* taxel pressures, Pa */                \
  X(real, tactile_v, z->tactile_v, "tactile", SIM_RESET_KEEP) /* solved v kept for a later sampling */

enum {
#define SIM_DATA_ENUM(type, name, count, writer, reset) SIMD_##name,
  SIM_DATA(SIM_DATA_ENUM)
#undef SIM_DATA_ENUM
  SIMD_COUNT
};

/* One pointer per table line (the step context and the sim embed them: s->q, c->list, ...). */
#define SIM_DATA_PTR(type, name, count, writer, reset) type *name;

#endif
