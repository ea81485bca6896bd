/* Internal: the step as stages (DESIGN.md "One step, as data flows").
 *
 * A stage receives a step context: the backend, the sizes, the sim's per-world arrays (one
 * pointer per line of the data table, host/step/step_data.h), the parameters as they are at
 * this step, and the set-up of the collision and dynamics stages (model arrays on the backend,
 * shapes, materials, the solver batch). The sim builds it afresh for every step, so no stage
 * keeps a pointer a parameter change could move, and no stage sees the sim itself.
 * host/step/step.c owns the order of the stages and their timers; each stage is one file that
 * fills its items' argument structs and calls the kernel table's launchers. */
#ifndef ISO_HOST_STEP_H
#define ISO_HOST_STEP_H

#include "host/backend/backend.h"
#include "host/model/model_flat.h"
#include "kernels/rigid/tree_step.h"
#include "host/step/step_data.h"
#include "kernels/world_field.h"

/* The parameters, indexed by isoParam (include/isobar/sim.h). */
#define STEP_NPARAM 15

/* Timed stages, in step order (DESIGN.md's numbers in brackets). */
enum {
  STEP_KINEMATICS = 0, /* [1] body and geometry poses */
  STEP_COLLIDE,        /* [2-4] broad, mid and narrow phase of hydroelastic contact */
  STEP_POINTS,         /* [4] point-contact queries */
  STEP_FEM_ELEMENTS,   /* [6] deformable bodies: element work assembled into each factor */
  STEP_FEM_FACTOR,     /* [6] ... the factorisations and free motions */
  STEP_FEM_CONTACT,    /* [4-5] ... their contacts and welds, the participating vertices */
  STEP_FEM_SCHUR,      /* [6] ... the Schur complements on them, into the solver's A */
  STEP_CONSTRAINTS,    /* [5-6] constraints, free motion and the solver's set-up, per world */
  STEP_SOLVE,          /* [7] SAP Newton iterations: assembly, Cholesky, exact line search */
  STEP_INTEGRATE,      /* [8] positions from the solved velocities */
  STEP_WRENCH,         /* [8] contact wrenches per body from the solved contact forces */
  STEP_TACTILE,        /* [8] tactile pads: taxels from the solved contact forces */
  STEP_NSTAGE
};
extern const char *const step_stage_names[STEP_NSTAGE];

struct simContact;
struct simSap;
struct simFem;

typedef struct stepCtx {
  const isoBackend *be;
  const modelView *md;          /* the compiled model on the backend */
  int nworld, nbody, nq, nv;
  real dt;
  struct { /* the data table's arrays, backend memory: c->q, c->X_WB, c->list, ... */
    SIM_DATA(SIM_DATA_PTR)
  };
  wfield param[STEP_NPARAM];    /* world-stride parameters as they are now, backend memory */
  struct simContact *contact;   /* collision set-up (host/step/contact_internal.h); NULL: none */
  struct simSap *sap;           /* dynamics set-up (host/step/sap_internal.h); NULL: none */
  const struct simFem *fem;     /* deformable bodies in the solver (host/step/sap_internal.h) */
  double *stage_s;              /* (STEP_NSTAGE) wall seconds per stage, accumulated; NULL: untimed */
  int tactile_now;              /* 1: the step samples the taxels; 0: it keeps the solved velocities
                                   in tactile_v for step_tactile_later (nobody has read them yet) */
  treeSet TS;                   /* the model's trees as the kernels take them (step_tree_set,
                                   made with the context: the parameters as they are now) */
} stepCtx;

/* One step of every world. */
isoStatus step_run(const stepCtx *c);
/* Stages 1-4 alone, for the current state (iso_sim_update_contact). */
isoStatus step_collide_only(const stepCtx *c);

/* The stages (one file each, host/step/step_<stage>.c). */
isoStatus step_kinematics(const stepCtx *c);
isoStatus step_collide(const stepCtx *c);
isoStatus step_points(const stepCtx *c);
isoStatus step_fem_elements(const stepCtx *c);
isoStatus step_fem_factor(const stepCtx *c);
isoStatus step_fem_contact(const stepCtx *c);
isoStatus step_fem_schur(const stepCtx *c);
isoStatus step_constraints(const stepCtx *c);
isoStatus step_solve(const stepCtx *c);
isoStatus step_integrate(const stepCtx *c);
isoStatus step_tactile(const stepCtx *c);
/* 1 when the model's taxels are sampled from a step (pads, something that can touch, a solver). */
int step_tactile_runs(const stepCtx *c);
/* The taxels of the last step sampled now, from what it left and the velocities it kept
 * (tactile_now was 0): the values the step itself would have written. */
isoStatus step_tactile_later(const stepCtx *c);
isoStatus step_wrench(const stepCtx *c);

/* The free-body parameters of the context, as the kernels take them. */
rigidParams step_rigid_params(const stepCtx *c);
/* The deformable bodies as their kernels take them (host/step/step_deformable.c); `B`: the
 * solver batch (its per-world rows for the update after the solve). */
femSapArgs step_fem_args(const stepCtx *c);

/* The trees of the model with this step's parameters and arrays, as the kernels take them. */
treeSet step_tree_set(const stepCtx *c);

#endif
