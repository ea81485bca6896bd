/* The items of the step as the kernel table lists them (kernels/kernel_table.h): each is
 *   static inline ISO_HD void <name>_item(const <args> *a, long i)
 * over i in [0, n), with its argument struct, so the CPU range drivers and the CUDA kernels can
 * be generated from one line each. These wrappers only split i into (world, item) and call the
 * per-item work where it lives (kernels/hydro/surface.h, kernels/rigid/free_body.h,
 * kernels/sap/step_items.h, kernels/sap/solve.h, kernels/tactile/taxels.h). */
#ifndef ISO_KERNELS_STEP_ITEMS_H
#define ISO_KERNELS_STEP_ITEMS_H

#include <stdint.h>

#include "kernels/fem/contact.h"
#include "kernels/hydro/surface.h"
#include "kernels/hydro/walk_keep.h"
#include "kernels/rigid/free_body.h"
#include "kernels/rigid/kinematics.h"
#include "kernels/sap/step_items.h"
#include "kernels/sap/body_wrench.h"
#include "kernels/tactile/taxels.h"

/* Collision (stages 1-4): the model's hydroelastic arrays, the per-world lists, the poses. */
typedef struct collideArgs {
  hydroDev H;
  hydroWork W;
  const xform *X_WB; /* (nworld, nbody) body poses from stage 1 */
  int nbody;
  uint32_t *status;  /* (nworld) */
} collideArgs;

/* i = world·ngeom + geometry */
static inline ISO_HD void hs_pose_item_at(const collideArgs *a, long i) {
  const int w = (int)(i / a->H.ngeom), g = (int)(i % a->H.ngeom);
  hs_pose_item(&a->H, &a->W, w, g, a->X_WB + (long)w * a->nbody);
}
/* i = world·npair + pair */
static inline ISO_HD void hs_count_item_at(const collideArgs *a, long i) {
  hs_count_item(&a->H, &a->W, (int)(i / a->H.npair), (int)(i % a->H.npair), a->status);
}
/* i = world */
static inline ISO_HD void hs_scan_item_at(const collideArgs *a, long i) { hs_scan_item(&a->H, &a->W, (int)i, a->status); }
/* i = world·npair + pair */
static inline ISO_HD void hs_emit_item_at(const collideArgs *a, long i) {
  hs_emit_item(&a->H, &a->W, (int)(i / a->H.npair), (int)(i % a->H.npair));
}
/* i = world: count, scan and emit of all its pairs in one walk each (the CPU's mid phase; the
 * same candidates as the three passes above) */
static inline ISO_HD void hs_mid_world_item_at(const collideArgs *a, long i) {
  hs_mid_world_kept(&a->H, &a->W, (int)i, a->status);
}
/* i = world: its candidates one after another, each polygon computed once (the CPU's narrow
 * phase; the same list as the three GPU passes below) */
static inline ISO_HD void hs_narrow_world_item_at(const collideArgs *a, long i) {
  hs_narrow_world(&a->H, &a->W, (int)i, a->status);
}
/* i = world·max_cand + candidate: pass 1 counts the records each candidate makes */
static inline ISO_HD void hs_narrow_count_item_at(const collideArgs *a, long i) {
  hs_narrow_count_item(&a->H, &a->W, (int)(i / a->W.max_cand), (int)(i % a->W.max_cand));
}
/* i = world: the scan of the record counts into offsets */
static inline ISO_HD void hs_list_scan_item_at(const collideArgs *a, long i) { hs_list_scan_item(&a->W, (int)i, a->status); }
/* i = world·max_cand + candidate: pass 2 writes each candidate's records at its offset */
static inline ISO_HD void hs_narrow_emit_item_at(const collideArgs *a, long i) {
  hs_narrow_emit_item(&a->H, &a->W, (int)(i / a->W.max_cand), (int)(i % a->W.max_cand));
}

/* Point contact (stage 4): one query per (world, point-contact pair). */
typedef struct pointArgs {
  int npoint, ngeom;
  const pointShape *shape; /* (ngeom) */
  const int *pa, *pb;      /* (npoint) geometry pairs */
  const xform *X_WG;       /* (nworld, ngeom) */
  const uint32_t *status;  /* (nworld) */
  sapPointHit *hits;       /* (nworld, npoint) out */
} pointArgs;

/* i = world·npoint + pair */
static inline ISO_HD void sap_points_item_at(const pointArgs *a, long i) {
  sap_point_item(i, a->npoint, a->ngeom, a->shape, a->pa, a->pb, a->X_WG, a->status, a->hits);
}

/* Constraints and free motion (stages 5-6) and the solver's set-up, one item per world. */
typedef struct prepareArgs {
  rigidParams P;
  treeSet TS;
  sapJointInputs J;        /* joint constraints' inputs */
  const real *q;           /* (nworld, nq): 1-DoF joint positions for the joint constraints */
  int nq;
  sapMaterials M;
  hydroWork W;
  int has_list;            /* the contact list exists (anything can touch) */
  const sapPointHit *hits; /* (nworld, npoint) */
  int npoint;
  const xform *X_WB;       /* (nworld, nbody) body poses of stage 1 */
  sapBatch B;
  femSapArgs FS;           /* deformable bodies (kernels/fem/contact.h) */
  int has_fem;             /* the model has deformable bodies */
  int *needed;             /* (nworld) */
  uint32_t *status;        /* (nworld) */
} prepareArgs;

static inline ISO_HD void sap_prepare_item_at(const prepareArgs *a, long w) {
  sap_prepare_world((int)w, &a->P, &a->TS, &a->J, a->q, a->nq, &a->M, a->has_list ? &a->W : (const hydroWork *)0,
                    a->hits, a->npoint, a->X_WB, &a->B, a->has_fem ? &a->FS : (const femSapArgs *)0, a->needed,
                    a->status);
}

/* The SAP solve (stage 7): a world's whole Newton loop per item (kernels/sap/solve.h). */
typedef struct solveArgs {
  sapBatch B;
} solveArgs;

static inline ISO_HD void sap_solve_item_at(const solveArgs *a, long w) { sap_solve_world(&a->B, (int)w); }

/* Integration (stage 8): positions from the solved velocities. */
typedef struct finishArgs {
  rigidParams P;
  treeSet TS;
  sapBatch B;
  real *q, *time;   /* (nworld, nq), (nworld) */
  real *applied;    /* (nworld, nact) actuation applied */
  real *jforce;     /* (nworld, nv) joint constraints' generalized force, or NULL */
  int nq;
  femSapArgs FS;    /* deformable bodies (kernels/fem/contact.h) */
  int has_fem;      /* the model has deformable bodies */
  uint32_t *status; /* (nworld) */
} finishArgs;

static inline ISO_HD void sap_finish_item_at(const finishArgs *a, long w) {
  sap_finish_world((int)w, &a->P, &a->TS, &a->B, a->has_fem ? &a->FS : (const femSapArgs *)0, a->q, a->nq, a->time,
                   a->applied, a->jforce, a->status);
}

/* Contact wrenches per body (stage 8, after integration): i = world (kernels/sap/body_wrench.h). */
static inline ISO_HD void body_wrench_item_at(const wrenchArgs *a, long i) { body_wrench_world(a, (int)i); }

/* Tactile sampling (stage 8, after integration): i = world·npad + pad (kernels/tactile/taxels.h). */
static inline ISO_HD void tactile_item_at(const tactileArgs *a, long i) {
  tactile_item(a, (int)(i / a->npad), (int)(i % a->npad));
}

#endif
